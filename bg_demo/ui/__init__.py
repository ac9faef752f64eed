"""The Gradio app: one page per module (`bg_demo.ui.site`), each at its own address, assembled here. Building the app
loads no model."""

from __future__ import annotations

import os
import signal
import sys
import threading

import gradio as gr

from bg_demo import dispatch, text
from bg_demo.ui import (
    gradio_compat,
    language,
    lesson,
    links,
    page,
    payloads,
    screen,
    serving,
    site,
    start_tab,
    strings,
    tutor_tools,
    view,
)
from bg_demo.ui.links import Links
from bg_demo.ui.session import SESSIONS
from bg_demo.ui.strings import ASSETS, t

CONCURRENCY = 2  # requests run at once per event; each model also serialises its own calls


TITLE = "BERT & GPT-2"  # the browser tab's title: Gradio does not translate it, and it reads the same in every language
HEARTBEAT_SECONDS = "2"  # Gradio notices a closed page at its next heartbeat (15 s by default)


def build_demo(pages=site.PAGES) -> gr.Blocks:
    """The app: `pages`, the page modules in order (`site.PAGES`; the Start page first)."""
    gradio_compat.check_version()  # the Gradio its private names were checked against, or a clear refusal
    # a closed tab's generation is cancelled when Gradio notices the page is gone (see `session.Sessions.leave`);
    # a heartbeat every 2 s costs each open page a few bytes
    os.environ.setdefault("GRADIO_HEARTBEAT_INTERVAL", HEARTBEAT_SECONDS)
    # delete_cache: files made for downloads are removed after an hour, so a busy Space does not fill its disk
    serving.use_lean_sessions()
    demo = gr.Blocks(title=TITLE, fill_width=True, delete_cache=(3600, 3600))
    serving.PAGE_PATHS.update([*(module.PATH for module in pages), tutor_tools.PATH])  # the pages `PageCache` keeps
    made: dict[str, links.Page] = {}  # every page's links, for a teacher's lesson (filled as the pages are built)
    for module in pages:
        # the Start page is the app's own (what `with demo` builds before any route); each other page its own route,
        # left out of Gradio's navigation bar: every page has the app's own, worded in the page's language
        with demo if not module.PATH else demo.route(text.t(module.TITLE), module.PATH,
                                                     show_in_navbar=False):
            if module is start_tab:
                # a closed page's generations are cancelled when Gradio notices the page is gone (any page's session)
                demo.unload(SESSIONS.leave)
            made.update({p.id: p for p in build_page(demo, module, made, pages)})
    # the AI tutor's tools (MCP), on a page of their own out of the navigation: each `gr.api` value is a component of
    # the page that holds it, and on the Start page their 76 made it a page of 125 components for every first visit
    # (its main-thread CPU on a 4x-throttled phone 0.3 s more: bench/page_weight.py)
    with demo.route(text.t("tutor.tab"), tutor_tools.PATH, show_in_navbar=False):
        gr.Navbar(visible="hidden")
        gr.Markdown(t("tutor.page"), elem_classes=["bg-about"])
        tools = tutor_tools.register()
    tutor_tools.hide_pages(demo, keep=tools)  # the pages' endpoints stay on the API page, not among the MCP tools
    # api_open=False: no endpoint runs around the queue (`/run/<name>`), so its fair turn and shares hold (a Space's
    # default; elsewhere Gradio opens them)
    demo.queue(max_size=serving.QUEUE_SIZE, default_concurrency_limit=CONCURRENCY, api_open=False)
    serving.make_fair(demo)
    payloads.describe(demo)  # the "Use via API" page in words, with examples that run
    return demo


def build_page(demo: gr.Blocks, module, made: dict, every=site.PAGES) -> list:
    """One page: the header (the app's name, the language switch), the navigation, the module's own content, the
    lesson bar at the window's foot, and what every page wires (its links, the reader's screen and language).
    Returns the module's pages (`links.Page`, what a link opens); `made`: every page's so far (the Start page's
    lesson maker reads them once all are built); `every`: the app's page modules."""
    gr.Navbar(visible="hidden")  # Gradio's own bar names pages in one language; the app's (`nav`) in the reader's
    # (visible=False still draws its "Home": "hidden" leaves it out)
    with gr.Row(equal_height=True, elem_classes=["bg-header"]):
        gr.Markdown(t("app.heading"), elem_classes=["bg-intro"])
        reader = page.Reader(language.switch(), screen.box())
    nav(module, every)
    with strings.collecting() as built, gr.Column(elem_classes=["bg-page"], elem_id=f"bg-page-{module.TAB_ID}"):
        pages = start_tab.build(reader, made, site.paths(every)) if module is start_tab else module.build(reader)
    # the bar after the page: at the window's foot
    page_links = Links(pages, lesson.Bar(reader), here=module.PATH, known=site.paths(every))
    page_links.wire(demo, reader.lang)
    screen.wire(demo, reader)
    language.wire(demo, reader, built.tables, built.tabs)
    return pages


def nav(here, every=site.PAGES) -> None:
    """The app's pages as links, the page on screen marked, on as many lines as the screen needs. A link to a page
    the student ran before opens it as they left it (the page's own link, run again: `links.HEAD`).

    One block of plain links rather than a button per page: every page carries the navigation, and a button is a
    component the page's document, its config and Gradio's client carry and walk (12 of them on every page). Each
    link holds its name in every language, the page's language shown (assets/style.css, as the example tables)."""
    gr.HTML(navigation(here, every), elem_classes=["bg-nav-block"], js_on_load=None, padding=False, container=False)


def navigation(here, every=site.PAGES) -> str:
    """The navigation's markup: a link per page (`bg-nav-<address>`, the page on screen `primary` and
    `aria-current`), its name in each language (`bg-word bg-for-<lang>`)."""
    import html

    items = []
    for module in every:
        names = "".join(f'<span class="bg-word bg-for-{lang}" lang="{lang}">{html.escape(text.t(module.TITLE, lang))}</span>'
                        for lang in text.LANGS)
        current = ' aria-current="page"' if module is here else ""
        kind = "primary" if module is here else "secondary"
        items.append(f'<a class="bg-nav-link bg-nav-{module.PATH or "start"} {kind}" '
                     f'href="{html.escape(links.href(module.PATH))}"{current}>{names}</a>')
    return f'<nav class="bg-nav">{"".join(items)}</nav>'


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
    # run history (recorded in the browser by default since Gradio 6.24) only where the host asks for it
    # (GRADIO_RUN_HISTORY=1): a classroom PC must not show the last student's runs
    run_history = os.environ.get("GRADIO_RUN_HISTORY", "").strip().lower() in ("1", "true", "yes", "on")
    return dict(run_history=run_history, theme=gr.themes.Soft(primary_hue="blue", font=serving.FONTS, font_mono=serving.MONO_FONTS),
                css_paths=[ASSETS / "style.css"], i18n=strings.i18n(),
                head=language.HEAD + screen.HEAD + view.HEAD + links.head(site.paths()), state_session_capacity=serving.SESSION_CAPACITY, enable_monitoring=False,
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
