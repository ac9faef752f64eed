"""The Gradio app: one tab per file, assembled here. Building the app loads no model."""

from __future__ import annotations

import os
import signal
import sys
import threading

import gradio as gr

from bg_demo import dispatch
from bg_demo.ui import (
    attention_tab,
    classify_tab,
    compare_tab,
    entities_tab,
    fill_mask_tab,
    finetune_tab,
    generate_tab,
    gradio_compat,
    language,
    lazy,
    lesson,
    next_sentence_tab,
    page,
    payloads,
    pretraining_tab,
    qa_tab,
    screen,
    serving,
    start_tab,
    strings,
    tutor_tools,
    view,
)
from bg_demo.ui.links import HEAD as LINKS_HEAD
from bg_demo.ui.links import Links
from bg_demo.ui.session import SESSIONS
from bg_demo.ui.strings import ASSETS, I18N, t

# in teaching order after "Start here": BERT's tasks, GPT-2, what is inside both, then how each learns a task
TABS = (
    fill_mask_tab,
    classify_tab,
    entities_tab,
    qa_tab,
    next_sentence_tab,
    generate_tab,
    attention_tab,
    compare_tab,
    pretraining_tab,
    finetune_tab,
)
CONCURRENCY = 2  # requests run at once per event; each model also serialises its own calls


TITLE = "BERT & GPT-2"  # the browser tab's title: Gradio does not translate it, and it reads the same in every language
HEARTBEAT_SECONDS = "2"  # Gradio notices a closed page at its next heartbeat (15 s by default)


def build_demo() -> gr.Blocks:
    gradio_compat.check_version()  # the Gradio its private names were checked against, or a clear refusal
    # a closed tab's generation is cancelled when Gradio notices the page is gone (see `session.Sessions.leave`);
    # a heartbeat every 2 s costs each open page a few bytes
    os.environ.setdefault("GRADIO_HEARTBEAT_INTERVAL", HEARTBEAT_SECONDS)
    # delete_cache: files made for downloads are removed after an hour, so a busy Space does not fill its disk
    serving.use_lean_sessions()
    with gr.Blocks(title=TITLE, fill_width=True, delete_cache=(3600, 3600)) as demo:
        tools = tutor_tools.register()  # first: the MCP tools take their plain names (`fill_mask`, ...)
        with gr.Row(equal_height=True, elem_classes=["bg-header"]):
            gr.Markdown(t("app.heading"), elem_classes=["bg-intro"])
            reader = page.Reader(language.switch(), screen.box())
        # every tab stays in the bar, on as many lines as the screen needs, instead of a "…" menu
        with gr.Tabs(overflow_behavior="wrap") as tabs:
            steps, maker = start_tab.build()
            pages = []
            for tab in TABS:
                pages += [p.under(tabs, tab.TAB_ID) for p in tab.build(reader)]
                lazy.defer(demo, tabs.children[-1], tab.TAB_ID)  # its content sent when the tab is first opened
        links = Links(pages, lesson.Bar(reader))  # the bar after the tabs: it stays at the window's foot
        links.wire(demo, steps, reader.lang)
        maker.wire(reader, links.pages)
        screen.wire(demo, reader)
        language.wire(demo, reader, strings.tables(demo))
        # a closed tab's generations are cancelled when Gradio notices the page is gone
        demo.unload(SESSIONS.leave)
    tutor_tools.hide_pages(demo, keep=tools)  # the pages' endpoints stay on the API page, not among the MCP tools
    # api_open=False: no endpoint runs around the queue (`/run/<name>`), so its fair turn and shares hold (a Space's
    # default; elsewhere Gradio opens them)
    demo.queue(max_size=serving.QUEUE_SIZE, default_concurrency_limit=CONCURRENCY, api_open=False)
    serving.make_fair(demo)
    payloads.describe(demo)  # the "Use via API" page in words, with examples that run
    return demo


def launch_options() -> dict:
    """What `launch()` needs besides the server address: theme and stylesheet, the bounds on sessions, the guard in
    front of the routes (`serving.Guard`), a light page (the device's own fonts; the document trimmed by
    `serving.Lighter`, then gzip-compressed for a browser that accepts it: Gradio sends its scripts compressed
    already, and starlette's GZip leaves them and event streams alone; the page and its config rendered once per
    address, `serving.PageCache`), and no public traffic monitor (Gradio's /monitoring answers anyone)."""
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware

    # the first is outermost: the guard refuses before anything else runs, the page is kept as it is sent (trimmed,
    # then compressed: `serving.PageCache`), and trimmed before it is compressed
    gzip = Middleware(GZipMiddleware, minimum_size=serving.GZIP_MINIMUM_BYTES, compresslevel=serving.GZIP_LEVEL)
    guard = Middleware(serving.Guard, check_tool_call=tutor_tools.refused_arguments)  # an MCP call's arguments too
    middleware = [guard, Middleware(serving.PageCache), gzip, Middleware(serving.Lighter)]
    return dict(theme=gr.themes.Soft(primary_hue="blue", font=serving.FONTS, font_mono=serving.MONO_FONTS),
                css_paths=[ASSETS / "style.css"], i18n=I18N,
                head=language.HEAD + screen.HEAD + view.HEAD + lazy.HEAD + LINKS_HEAD, state_session_capacity=serving.SESSION_CAPACITY, enable_monitoring=False,
                max_file_size=serving.MAX_FILE_SIZE,
                app_kwargs={"middleware": middleware})


def exit_on_sigterm() -> None:
    """A stopped server (SIGTERM: a Space restarting, `docker stop`, systemd) exits as Ctrl-C makes it exit, running
    its exit handlers, so the downloads folder and Gradio's cache are removed; Python's default for SIGTERM ends the
    process without them."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


MCP_SWITCH = "BG_DEMO_MCP"  # "0" (or off, false, no): no MCP server; anything else, or unset: the tools are served


def mcp_wanted() -> bool:
    """Whether the app serves its MCP tools (`bg_demo.ui.tutor_tools`): yes unless BG_DEMO_MCP turns it off. Safe by
    default: a tool is a call of a public endpoint, under every limit a student's call has."""
    return os.environ.get(MCP_SWITCH, "1").strip().lower() not in ("0", "off", "false", "no")


def launch(demo: gr.Blocks | None = None, **kwargs) -> None:
    """Start the server; GRADIO_SERVER_NAME and GRADIO_SERVER_PORT apply unless given here. With a Ray address
    (`ray_address`, else BG_DEMO_RAY_ADDRESS) every model call goes to that cluster (`bg_demo.cluster`); on ZeroGPU
    the roles' default models are placed first, as ZeroGPU wants them (see `bg_demo.placement`). The MCP server
    (streamable HTTP at /gradio_api/mcp/) is on unless `mcp_server=False` or BG_DEMO_MCP=0."""
    from bg_demo.cluster import client

    exit_on_sigterm()
    client.connect(kwargs.pop("ray_address", None))
    dispatch.place_defaults()
    demo = demo or build_demo()
    if kwargs.get("mcp_server") is None:
        kwargs["mcp_server"] = mcp_wanted()
    demo.launch(**{k: v for k, v in kwargs.items() if v is not None}, **launch_options())
