"""Gradio's private names, each in `bg_demo/ui/gradio_compat.py` and nowhere else: every one still exists in the
installed Gradio and does what the app needs of it (the lean sessions at every call site, the fair queue the running
app uses, the page's markers, the browser's markup and bundle), the version check refuses an untested Gradio, and no
other module or test reaches into Gradio (a lint over the source and the tests)."""

from __future__ import annotations

import ast
import asyncio
import json
import re
import types
from pathlib import Path

import gradio
import gradio as gr
import httpx
import pytest

from bg_demo.ui import gradio_compat, serving

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = Path(gradio.__file__).parent / "templates" / "frontend" / "assets"


# --- the version ------------------------------------------------------------------------------------------------------


def test_the_pinned_and_the_installed_gradio_are_in_the_tested_range():
    from packaging.specifiers import SpecifierSet

    pinned = re.search(r"^gradio(?:\[[\w,]+\])?==(\S+)", (ROOT / "requirements.txt").read_text(), re.MULTILINE).group(1)
    assert pinned in SpecifierSet(gradio_compat.TESTED)
    assert gradio.__version__ in SpecifierSet(gradio_compat.TESTED)
    gradio_compat.check_version()  # the installed one passes


@pytest.mark.parametrize("version", ["6.32.0", "7.0.0", "6.30.2", "5.49.1"])
def test_an_untested_gradio_is_refused_with_the_range_and_what_to_do(version, monkeypatch):
    monkeypatch.delenv(gradio_compat.OVERRIDE, raising=False)
    with pytest.raises(gradio_compat.UntestedGradio) as refused:
        gradio_compat.check_version(version)
    message = str(refused.value)
    assert f"gradio {gradio_compat.TESTED}" in message and f"found gradio {version}" in message
    assert "pip install -r requirements.txt" in message and f"{gradio_compat.OVERRIDE}=1" in message


def test_the_override_starts_an_untested_gradio_with_a_warning(monkeypatch, caplog):
    monkeypatch.setenv(gradio_compat.OVERRIDE, "1")
    gradio_compat.check_version("7.0.0")
    assert "found gradio 7.0.0" in caplog.text


def test_building_the_app_checks_the_version_first(monkeypatch):
    from bg_demo.ui import build_demo

    monkeypatch.delenv(gradio_compat.OVERRIDE, raising=False)
    monkeypatch.setattr(gradio, "__version__", "6.40.0")
    with pytest.raises(gradio_compat.UntestedGradio, match="found gradio 6.40.0"):
        build_demo()


# --- building or serving ------------------------------------------------------------------------------------------------


def test_building_is_true_only_while_a_layout_is_built_outside_a_request():
    from gradio.context import LocalContext

    assert not gradio_compat.building()
    with gr.Blocks():
        assert gradio_compat.building()
        token = LocalContext.request.set(types.SimpleNamespace(session_hash="x"))  # what Gradio sets for a handler
        try:
            assert not gradio_compat.building()
        finally:
            LocalContext.request.reset(token)
    assert not gradio_compat.building()


@pytest.mark.server
def test_a_handler_runs_with_its_request_set_where_building_reads_it():
    """The request a handler serves is where `building` looks (Gradio sets it around every handler it runs)."""
    def probe():
        with gr.Blocks():  # a layout opened while a request is served (another thread building) is not a build
            return str(gradio_compat.building())

    with gr.Blocks() as demo:
        out = gr.Textbox()
        gr.Button().click(probe, None, out, api_name="probe")
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    try:
        assert _call(url, "/probe", []) == ("complete", ["False"])
    finally:
        demo.close()


# --- the layout: blocks and their listeners ---------------------------------------------------------------------------


def test_listeners_and_block_ids_are_the_ones_gradio_s_config_describes():
    def echo(words):
        return words

    with gr.Blocks() as demo:
        box, out = gr.Textbox(elem_id="box"), gr.Textbox()
        gr.Button().click(echo, box, out, api_name="echo").then(lambda: None, None, None)
    first, then = gradio_compat.listeners(demo)
    assert (first.fn, first.inputs, first.outputs, first.api_name) == (echo, [box], [out], "echo")
    assert first.api_visibility == "public" and isinstance(first.concurrency_id, str) and first.targets
    assert gradio_compat.listener(demo, then.trigger_after) is first  # what a `.then` follows
    described = demo.config["dependencies"]
    assert [d["id"] for d in described][:1] == [then.trigger_after]
    assert described[0]["inputs"] == [gradio_compat.block_id(box)]  # the ids the public config names blocks by
    assert described[0]["outputs"] == [gradio_compat.block_id(out)]
    component = next(c for c in demo.config["components"] if c["id"] == gradio_compat.block_id(box))
    assert component["props"]["elem_id"] == "box" and demo.blocks[gradio_compat.block_id(box)] is box


# --- sessions ---------------------------------------------------------------------------------------------------------


def _session_makers() -> set[str]:
    """The modules of the installed Gradio that make a session (`SessionState(`), from their source."""
    found = set()
    for path in Path(gradio.__file__).parent.rglob("*.py"):
        source = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r"(?<![\w.])SessionState\(", source.replace("class SessionState(", "")):
            found.add(".".join(path.relative_to(Path(gradio.__file__).parent.parent).with_suffix("").parts))
    return found


def test_every_place_gradio_makes_a_session_makes_a_lean_one():
    """Some call sites bound `SessionState` when their module was imported: replacing the module's name missed them."""
    import importlib

    makers = _session_makers()
    assert makers == {"gradio.state_holder", "gradio.route_utils", "gradio.blocks", "gradio.mcp"}, (
        "Gradio makes sessions somewhere new: check that it makes a LeanSession there")
    with gr.Blocks() as demo:
        gr.Textbox()
    serving.use_lean_sessions()
    assert gradio_compat.lean_sessions_in_use()
    for name in makers:
        try:
            module = importlib.import_module(name)
        except ImportError:  # gradio.mcp needs the optional `mcp` package
            continue
        session = module.SessionState(demo)
        assert type(session) is gradio_compat.LeanSession, name
        assert session.config_values == {} and session.blocks_config is demo.default_config


def test_a_call_with_no_session_gets_a_lean_one():
    """`gradio/route_utils.py`'s own path, as a direct call with no session hash takes it."""
    from gradio import route_utils

    with gr.Blocks() as demo:
        gr.Textbox()
    serving.use_lean_sessions()
    app = types.SimpleNamespace(get_blocks=lambda: demo)
    session, _ = route_utils.restore_session_state(app, types.SimpleNamespace(event_id=None, session_hash=None))
    assert type(session) is gradio_compat.LeanSession


def test_a_lean_session_shares_the_app_s_components_until_one_changes_and_keeps_states():
    with gr.Blocks() as demo:
        box = gr.Textbox("shared")
        kept = gr.State(1)
    serving.use_lean_sessions()
    session = gradio_compat.LeanSession(demo)
    assert session[box._id] is box and session[kept._id] == 1  # Gradio's own reading: the app's, the State's default
    session[kept._id] = 2
    assert session[kept._id] == 2 and session.blocks_config is demo.default_config  # a State is no copy
    changed = gr.Textbox("mine")
    session[box._id] = changed
    assert session[box._id] is changed and demo.default_config.blocks[box._id] is box  # copied on its first change
    assert [state for state, _, _ in session.state_components] == [kept]  # Gradio's expiry reads the TTLs we keep


def test_a_new_session_runs_listeners_through_gradio_and_keeps_their_states():
    from gradio.state_holder import SessionState

    with gr.Blocks() as demo:
        count = gr.State(0)
        shown = gr.Number()
        gr.Button().click(lambda n: (n + 1, n + 1), count, [count, shown])
    session = gradio_compat.new_session(demo)
    assert isinstance(session, SessionState) and gradio_compat.session_value(session, count) == 0  # the default
    (step,) = gradio_compat.listeners(demo)
    for _ in range(2):
        data = asyncio.run(demo.process_api(step, [None], session))["data"]  # a State's input: the session's
    assert gradio_compat.session_value(session, count) == 2 and data[-1] == 2
    assert gradio_compat.session_value(gradio_compat.new_session(demo), count) == 0  # a fresh one


def test_idle_sessions_are_dropped():
    import threading

    holder = types.SimpleNamespace(lock=threading.Lock(), session_data={"old": 1, "new": 2}, time_last_used={})
    import datetime

    now = datetime.datetime.now()
    holder.time_last_used.update(old=now - datetime.timedelta(hours=2), new=now)
    gradio_compat._Sweeper().sweep(holder, serving.SESSION_IDLE_SECONDS)
    assert holder.session_data == {"new": 2} and set(holder.time_last_used) == {"new"}


def test_a_running_app_s_session_is_found_by_its_hash_and_none_is_made():
    from gradio.state_holder import StateHolder

    with gr.Blocks() as demo:
        gr.Textbox()
    assert gradio_compat.kept_session(demo, "a") is None  # not launched: no sessions kept
    holder = StateHolder()
    holder.set_blocks(demo)  # what launching does
    holder["a"]  # a request of session "a"
    assert gradio_compat.kept_session(demo, "a") is holder.session_data["a"]
    assert gradio_compat.kept_session(demo, "b") is None and "b" not in holder


def test_idle_sessions_are_swept_through_gradio_s_state_holder():
    import datetime

    from gradio.state_holder import StateHolder

    with gr.Blocks() as demo:
        gr.Textbox()
    holder = StateHolder()
    holder.set_blocks(demo)
    holder["old"]  # reading a session makes it
    holder["new"]
    holder.time_last_used["old"] -= datetime.timedelta(hours=2)
    gradio_compat._Sweeper().sweep(demo.state_holder, 3600)
    assert list(holder.session_data) == ["new"] and list(holder.time_last_used) == ["new"]


# --- the queue and the routes of the running app -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def running(served):
    """The whole app, built and launched as `bg_demo.ui.launch` does: (demo, url)."""
    return served


def test_every_group_the_running_app_s_queue_makes_waits_in_a_fair_list(running):
    """Gradio makes a concurrency group's list when its first event joins (`Queue.create_event_queue_for_fn`)."""
    demo, _ = running
    for fn in demo.fns.values():
        demo._queue.create_event_queue_for_fn(fn)
    waiting = gradio_compat.waiting_lists(demo)
    assert len(waiting) > 1 and all(isinstance(events, serving.FairList) for events in waiting.values())


def test_gradio_s_own_route_puts_events_in_the_fair_order_and_the_guard_sees_them(running):
    """With the queue's workers held, one session joins three events, then another session one: Gradio's join route
    puts them in our list, whose order serves the second session second, and `queued`/`event_session` list them."""
    demo, url = running
    queue = demo._queue
    held = queue.active_jobs
    queue.active_jobs = [[]] * len(held)  # every worker busy: events wait
    try:
        script, student = _Joiner(url), _Joiner(url)
        values = _examples(url, "/classify")
        events = [script.join("classify", values) for _ in range(3)] + [student.join("classify", values)]
        group = next(group for group in gradio_compat.waiting_lists(demo).values() if group)
        order = [gradio_compat.event_owner(event)[0] for event in group]
        assert order == [script.session, student.session, script.session, script.session]
        owners = [session for session, _ in gradio_compat.queued(demo)]
        assert owners.count(script.session) == 3 and owners.count(student.session) == 1
        assert gradio_compat.event_session(demo, events[-1]) == (True, student.session)
        assert gradio_compat.event_session(demo, "no such event") == (False, None)
        assert not gradio_compat.streaming(demo, "no such event")
    finally:
        queue.active_jobs = held


def test_the_routes_the_guard_watches_are_the_app_s_routes(running):
    from starlette.routing import Match

    demo, _ = running

    def routed(path: str, method: str = "POST") -> bool:  # a request of `path` reaches one of Gradio's routes
        scope = {"type": "http", "path": path, "method": method, "root_path": "", "headers": [], "query_string": b""}
        return any(route.matches(scope)[0] == Match.FULL for route in demo.app.routes)

    for path in (gradio_compat.JOIN, gradio_compat.CANCEL, gradio_compat.UPLOAD, f"{gradio_compat.CALL}classify",
                 *(f"{prefix}classify" for prefix in gradio_compat.RUN)):
        assert routed(path), path
    assert routed(gradio_compat.INFO, "GET")
    assert not routed(f"{gradio_compat.CALL}classify/more")
    assert gradio_compat.blocks_of({"app": demo.app}) is demo
    assert not gradio_compat.has_login({"app": demo.app})
    assert gradio_compat.has_login({"app": types.SimpleNamespace(auth={"a": "b"}, auth_dependency=None)})
    # a test's stand-in for the app: what the middleware reads of Gradio's App, and nothing it lacks
    stand_in = gradio_compat.StandInApp(demo)
    assert gradio_compat.blocks_of({"app": stand_in}) is demo and not gradio_compat.has_login({"app": stand_in})
    stand_in.auth = {"a": "b"}
    assert gradio_compat.has_login({"app": stand_in})
    assert all(hasattr(demo.app, name) for name in vars(stand_in) if name != "blocks")
    assert all(hasattr(demo.app, name) for name in vars(gradio_compat.StandInApp) if not name.startswith("__"))


def test_no_endpoint_runs_around_the_queue(running):
    _, url = running
    answer = httpx.post(f"{url}gradio_api/run/classify", json={"data": _examples(url, "/classify")}, timeout=30)
    assert answer.status_code == 404 and "queue" in answer.json()["detail"]


# --- the MCP server ---------------------------------------------------------------------------------------------------


@pytest.mark.server
def test_on_a_space_the_mcp_server_lists_and_finds_the_prompt_and_leaves_hidden_endpoints_out(monkeypatch):
    """What `hide_from_mcp` and `mcp_name` rely on, in the installed Gradio, on a Space (SYSTEM=spaces), where its MCP
    server puts the Space's name before every name: a hidden endpoint is not listed as a tool, and a prompt named with
    `mcp_name` is found by the name `prompts/list` gives."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    monkeypatch.setenv("SYSTEM", "spaces")
    monkeypatch.setenv("SPACE_ID", "school/bg-demo")

    def shown(text: str) -> str:
        """A tool. Args: text: any text."""
        return text

    def page(text: str) -> str:
        """A page's endpoint. Args: text: any text."""
        return text

    def teach(language: str = "en") -> str:
        """A prompt. Args: language: en."""
        return f"teach in {language}"

    with gr.Blocks() as demo:
        gr.api(shown, api_name="shown")
        gr.api(page, api_name="page")
        gr.api(gr.mcp.prompt(name=gradio_compat.mcp_name("teach"))(teach), api_name="teach")
    gradio_compat.hide_from_mcp(page)
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, mcp_server=True)

    async def go():
        async with streamable_http_client(f"{url}gradio_api/mcp/") as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            tools = [tool.name for tool in (await session.list_tools()).tools]
            prompts = [prompt.name for prompt in (await session.list_prompts()).prompts]
            read = await session.get_prompt(prompts[0], {"language": "ko"})
            return tools, prompts, read.messages[0].content.text

    try:
        tools, prompts, words = asyncio.run(go())
    finally:
        demo.close()
    assert tools == ["bg_demo_shown"] and prompts == ["bg_demo_teach"] and words == "teach in ko"


def test_gradio_reads_a_space_s_oauth_settings_where_the_compat_module_sets_them(monkeypatch):
    """The sign-in button's routes come from the OAuth module's own settings, read when it was imported: a test of
    the button on a Space (tests/test_zerogpu_placement.py) sets them there."""
    module = gradio_compat.oauth_settings()
    for name in gradio_compat.OAUTH_SETTINGS:
        assert hasattr(module, name), name
        monkeypatch.setattr(module, name, None)
    monkeypatch.setenv("SYSTEM", "spaces")
    monkeypatch.setenv("SPACE_ID", "a-teacher/bg-demo")
    with pytest.raises(ValueError, match="OAUTH_CLIENT_ID"):  # it reads the module's, not the environment's
        with gr.Blocks() as demo:
            gr.LoginButton()
        demo.close()


@pytest.mark.server
def test_gradio_itself_refuses_any_upload_the_guard_would_let_through():
    """`max_file_size` (public) behind `serving.Guard`'s refusal: the app launched with it, and Gradio's route
    refusing a file of one byte."""
    from bg_demo.ui import launch_options

    assert launch_options()["max_file_size"] == serving.MAX_FILE_SIZE == 0
    with gr.Blocks() as demo:
        gr.Textbox()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, max_file_size=0)
    try:
        answer = httpx.post(f"{url}gradio_api/upload", files={"files": ("a.txt", b"x")})
        assert answer.status_code == 413
    finally:
        demo.close()


# --- the page ---------------------------------------------------------------------------------------------------------


@pytest.mark.server
def test_the_page_inlines_its_config_and_api_where_the_trimming_looks():
    with gr.Blocks() as demo:
        box = gr.Textbox(label="x")
        gr.Button().click(lambda text: text, box, box, api_name="echo")
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    try:
        page = httpx.get(url).content
    finally:
        demo.close()
    for marker in (gradio_compat.INLINED_CONFIG, gradio_compat.INLINED_API_INFO):
        start = page.index(marker) + len(marker)
        json.loads(page[start:page.index(gradio_compat.INLINED_END, start)])  # the whole JSON, ended by the marker
    config = _inlined(page, gradio_compat.INLINED_CONFIG)
    textbox = next(c for c in config["components"] if c["id"] == box._id)
    assert set(gradio_compat.UNREAD_COMPONENT_KEYS) <= set(textbox)  # what `serving.Lighter` takes out is there
    trimmed = _inlined(serving.lighter(page), gradio_compat.INLINED_CONFIG)
    assert not set(gradio_compat.UNREAD_COMPONENT_KEYS) & set(next(c for c in trimmed["components"]
                                                                    if c["id"] == box._id))
    assert gradio_compat.inlined_json({"a": "</script>"}) == b'{"a":"\\u003c/script\\u003e"}'


def _inlined(page: bytes, marker: bytes) -> dict:
    start = page.index(marker) + len(marker)
    return json.loads(page[start:page.index(gradio_compat.INLINED_END, start)])


# --- the browser ------------------------------------------------------------------------------------------------------


def _assets(pattern: str) -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8", errors="replace") for path in FRONTEND.glob(pattern)}


def test_the_core_bundle_the_language_switch_imports_exports_change_locale():
    bundles = [name for name in _assets("*.js") if re.search(gradio_compat.CORE_BUNDLE, f"/assets/{name}")]
    assert len(bundles) == 1, bundles
    assert re.search(r"export\{[^}]*\bas changeLocale\b", _assets(bundles[0])[bundles[0]])
    assert any(f"./{bundles[0]}" in source for source in _assets("index-*.js").values())  # the page loads it
    assert gradio_compat.CORE_BUNDLE.replace("/", "\\/") in gradio_compat.CHANGE_LOCALE_JS


def test_a_label_set_from_the_browser_is_a_prop_update_holding_gradio_s_i18n_marker():
    # the marker as gr.I18n sends a key: "__i18n__" and the JSON the JS function builds
    marker = str(gr.i18n.I18nData("start.tab"))
    assert marker.startswith("__i18n__")
    assert json.loads(marker[len("__i18n__"):]) == {"__type__": "translation_metadata", "key": "start.tab"}
    js = gradio_compat.I18N_LABEL_JS
    assert '"__i18n__" + JSON.stringify({__type__: "translation_metadata", key})' in js
    assert '__type__: "update", label:' in js
    scripts = "".join(_assets("*.js").values())
    # the client: a returned value with __type__ "update" sets the props it names; a string holding the marker is
    # parsed from the marker's JSON to its closing brace and worded by its key
    assert "`__type__`in e&&e?.__type__===`update`" in scripts
    assert "=`__i18n__`" in scripts and re.search(r"JSON\.parse\(e\.slice\(r,i\)\);if\(a\?\.key\)", scripts)


def test_the_markup_view_js_reads_is_in_gradio_s_frontend():
    markup, scripts, styles = gradio_compat.MARKUP, _assets("*.js"), "".join(_assets("*.css").values())
    assert markup["tab_panel"] == "[role=tabpanel]" and any('role="tabpanel"' in s for s in scripts.values())
    # a tab's button: role "tab", its tab's id in data-tab-id (`ui.lazy` clicks it to open a tab)
    assert markup["tab_button"] == 'button[role=tab][data-tab-id="%s"]'
    assert any('role="tab"' in s and "`data-tab-id`" in s for s in scripts.values())
    assert markup["block"] == ".block" and any("class:`block ${" in s for s in scripts.values())
    assert "run_button" not in markup  # a run button is told by the app's own class (`page.run_button`)
    # the status tracker: div.wrap.<show_progress>, "hide" once done
    tracker = "".join(s for name, s in scripts.items() if name.startswith("statustracker"))
    assert f"`{markup['tracker']} ${{" in tracker and f"{markup['tracker_idle']}:" in tracker
    tracker_css = "".join(_assets("statustracker*.css").values())
    for name in (markup["tracker"], markup["tracker_idle"], "minimal"):
        assert f".{name}.svelte-" in tracker_css
    assert all(f"`{shown}`" in tracker for shown in markup["tracker_shown"])  # show_progress values it reads
    # a block being computed: its status "pending" drawn as "generating"; a gr.Markdown's text: a span.md in its block
    assert markup["busy"] == ".generating, .pending" and ".generating.svelte-" in tracker_css
    assert any("status==`pending`?`generating`" in s for s in scripts.values())
    assert markup["markdown_text"] == ".md" and "span.md.svelte-" in styles


def test_view_js_gets_the_markup_from_the_compat_module_and_names_none_itself():
    from bg_demo.ui import view

    assert json.dumps(gradio_compat.MARKUP) in view.HEAD and view.PLACEHOLDER not in view.HEAD
    source = (ROOT / "assets" / "view.js").read_text(encoding="utf-8")
    selectors = re.findall(r"(?:closest|querySelector|querySelectorAll|matches)\(\s*\"([^\"]+)\"", source)
    classes = re.findall(r"classList\.(?:contains|toggle)\(\s*\"([^\"]+)\"", source)
    assert selectors, "no selectors found: the check reads nothing"
    for selector in selectors:
        for name in re.findall(r"\.([A-Za-z][\w-]*)", selector):
            assert name.startswith("bg-") or name == "js-plotly-plot", selector  # the app's own, or Plotly's
        assert "[role" not in selector, selector
    assert all(name.startswith("bg-") for name in classes), classes


# --- no private name anywhere else ---------------------------------------------------------------------------------------
# A lint over the syntax trees of bg_demo/, app.py, bench/ and tests/ (this file aside: it checks the compat module
# against Gradio's own names), and over the JavaScript in assets/ and in the Python's strings.

# Gradio's modules whose names are public (`gr.themes.Soft`, `gr.mcp.tool`); any other (`gradio.blocks`,
# `gr.i18n.I18nData`, `gradio.components.api_component`) is Gradio's inside
PUBLIC_SUBMODULES = {"themes", "mcp"}
# attributes of Gradio's objects that are not its public API (each one the app has read, or one like it); a name that
# means something else on a path (`Path.parent`) is told apart by what it is read on (`_on_a_path`)
PRIVATE_ATTRIBUTES = {
    "children", "fns", "blocks", "skip_api", "raw_samples", "parent", "get_api_info", "is_rendered", "renderable",
    "get_render_context", "translations_dict", "default_config", "state_holder", "session_data", "config_values",
    "state_components", "event_ids_to_events", "event_queue_per_concurrency_id", "iterators", "get_blocks",
    "auth_dependency", "root_block", "current_page", "_id", "_queue", "_components", "_mcp_type",
}
# read on a path too often to tell by the syntax (`first.parent`): a private attribute only where Gradio's objects
# are the rule, the modules that build pages (bg_demo/ui, app.py)
AMBIGUOUS = {"parent"}
# Plotly's classes, which the tests read to measure a figure (Plotly's markup, not Gradio's)
PLOTLY = {"js-plotly-plot", "main-svg", "xaxislayer-above", "yaxislayer-above", "xtick", "ytick", "gtitle",
          "annotation-text", "cbtitle", "g-xtitle", "g-ytitle", "modebar-container"}
# Gradio's private classes and constants, by name (imported or not)
PRIVATE_NAMES = {"LocalContext", "Context", "SessionState", "StateHolder", "I18nData", "BlockFunction", "Api",
                 "API_PREFIX", "toorjson", "get_space"}
# what a text may not hold: Gradio's own routes and page markers, its hashed bundle, its DOM's roles and classes
PRIVATE_TEXT = re.compile(r"^/gradio_api/|window\.gradio_(?:config|api_info)|assets\W+core-|\[role=|role=tabpanel|"
                          r"button\.primary|data-tab-id")
# a selector in browser code: each class it names must be the app's own (bg-...) or Plotly's
SELECTOR = re.compile(r"""(?:closest|querySelector|querySelectorAll|matches)\(\s*[`"']([^`"']+)[`"']""")
CLASS_TEST = re.compile(r"""classList\.(?:contains|toggle|add|remove)\(\s*[`"']([^`"']+)[`"']""")


def _on_a_path(node) -> bool:
    """Whether an attribute is read on a filesystem path (`Path(__file__).resolve().parent`, `ROOT.parent`)."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("Path", "PurePath"):
                return True
            if isinstance(func, ast.Attribute) and func.attr in ("resolve", "absolute", "with_suffix", "with_name"):
                return True
            node = func
        else:
            node = node.value
    return isinstance(node, ast.Name) and re.search(r"(?i)(path|root|folder|dir|file|here)$", node.id) is not None


def _browser_code_uses(source: str) -> list[str]:
    """The Gradio markup a piece of browser code reaches for: a class in a selector or a class test that is not the
    app's (bg-...) or Plotly's, a role, or a private text."""
    found = [match.group(0) for match in PRIVATE_TEXT.finditer(source)]
    for selector in SELECTOR.findall(source):
        found += [f".{name}" for name in re.findall(r"\.([A-Za-z][\w-]*)", selector)
                  if not (name.startswith("bg-") or name in PLOTLY)]
        found += ["[role" for _ in re.findall(r"\[role", selector)]
    found += [name for name in CLASS_TEST.findall(source) if not name.startswith("bg-")]
    return found


def private_uses(source: str, name: str = "<source>", underscored: bool = True) -> list[str]:
    """`name:line: what` for each private Gradio name the Python `source` uses. With `underscored`, any underscore
    attribute read on something not our own (`block._x`; `self._x` and `bg_demo` modules' are ours), and the
    AMBIGUOUS ones: for the modules that build pages, where an object is Gradio's more often than not."""
    tree = ast.parse(source)
    ours = {"self", "cls"}
    for node in ast.walk(tree):  # names bound to our own modules (`from bg_demo.backend import _common`)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bg_demo"):
            ours |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            ours |= {(alias.asname or alias.name).split(".")[0] for alias in node.names
                     if alias.name.startswith("bg_demo")}
    found = []

    def report(node, what):
        found.append(f"{name}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "gradio" and len(parts) > 1 and parts[1] not in PUBLIC_SUBMODULES:
                    report(node, f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if parts[0] == "gradio" and len(parts) > 1 and parts[1] not in PUBLIC_SUBMODULES:
                report(node, f"from {node.module} import")
            for alias in node.names:
                inner_module = isinstance(getattr(gradio, alias.name, None), types.ModuleType)
                if parts[0] == "gradio" and (alias.name in PRIVATE_NAMES or len(parts) == 1 and inner_module
                                             and alias.name not in PUBLIC_SUBMODULES):
                    report(node, f"from {node.module} import {alias.name}")
        elif isinstance(node, ast.Attribute):
            base = node.value
            if (isinstance(base, ast.Name) and base.id in ("gr", "gradio") and node.attr.islower()
                    and node.attr not in PUBLIC_SUBMODULES and hasattr(gradio, node.attr)
                    and isinstance(getattr(gradio, node.attr), types.ModuleType)):
                report(node, f"{base.id}.{node.attr} (a module of Gradio's inside)")
            elif node.attr in PRIVATE_NAMES:
                report(node, f".{node.attr}")
            elif node.attr in PRIVATE_ATTRIBUTES and not (node.attr in AMBIGUOUS and (not underscored
                                                                                       or _on_a_path(base))):
                if not (isinstance(base, ast.Name) and base.id in ours - {"self", "cls"}):
                    report(node, f".{node.attr}")
            elif (underscored and node.attr.startswith("_") and not node.attr.startswith("__")
                  and not (isinstance(base, ast.Name) and base.id in ours)):
                report(node, f".{node.attr}")
        elif isinstance(node, ast.Name) and node.id in PRIVATE_NAMES:
            report(node, node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{name}:{node.lineno}: {what!r}" for what in _browser_code_uses(node.value)]
    return found


def _sources() -> list[Path]:
    return [*sorted((ROOT / "bg_demo").rglob("*.py")), ROOT / "app.py", *sorted((ROOT / "bench").rglob("*.py"))]


def _tests() -> list[Path]:
    """Every test and its support, but this file (which checks the compat module against Gradio's own names)."""
    return [path for path in sorted((ROOT / "tests").rglob("*.py")) if path != Path(__file__).resolve()]


def _uses(path: Path, underscored: bool) -> list[str]:
    return private_uses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), underscored)


def test_no_module_but_the_compat_module_uses_a_private_gradio_name():
    compat = ROOT / "bg_demo" / "ui" / "gradio_compat.py"
    found = []
    for path in _sources():
        if path != compat:
            found += _uses(path, underscored=path.parent == ROOT / "bg_demo" / "ui" or path.name == "app.py")
    assert found == [], "private Gradio names belong in bg_demo/ui/gradio_compat.py:\n" + "\n".join(found)


def test_no_test_but_this_one_uses_a_private_gradio_name():
    """The tests reach Gradio's internals through the compat module too (`listeners`, `block_id`, `new_session`,
    `StandInApp`...), so that this file alone says what an upgrade of Gradio breaks. Not `underscored`: tests read the
    underscore names of our own objects (`engine._slots`), which a syntax tree cannot tell from Gradio's."""
    tests = _tests()
    assert ROOT / "tests" / "support" / "pages.py" in tests and Path(__file__).resolve() not in tests
    found = [use for path in tests for use in _uses(path, underscored=False)]
    assert found == [], ("private Gradio names belong in bg_demo/ui/gradio_compat.py (a test calls its functions):\n"
                         + "\n".join(found))


def test_no_script_of_the_app_reaches_into_gradio_s_markup():
    """assets/*.js reads Gradio's markup only as the compat module gives it (`MARKUP`, filled in by `ui/view.py`)."""
    scripts = sorted((ROOT / "assets").glob("*.js"))
    assert scripts and all(SELECTOR.search(path.read_text(encoding="utf-8")) for path in scripts)  # it reads them
    found = [f"{path.name}: {what}" for path in scripts for what in _browser_code_uses(path.read_text(encoding="utf-8"))]
    assert found == [], found


def test_a_page_module_that_reaches_into_gradio_fails_the_lint():
    page = (ROOT / "bg_demo" / "ui" / "fill_mask_tab.py").read_text(encoding="utf-8")
    assert private_uses(page) == []
    for added in ("demo.blocks[key].children.clear()", "from gradio.blocks import BlockFunction",
                  "label = gr.i18n.I18nData('x')", "row.parent.render()", "box._id",
                  "js = \"() => document.querySelector('.md').innerText\"",
                  "js = '() => document.querySelector(\"button.primary\").click()'", "demo.get_api_info = f",
                  "import gradio.utils", "from gradio import utils", "u = '/gradio_api/info'"):
        assert private_uses(f"{page}\n{added}\n"), added
    for fine in ("folder = Path(__file__).resolve().parent", "here = ROOT.parent", "gr.themes.Soft()",
                 "gr.mcp.tool()(fn)", "js = \"() => document.querySelector('.bg-nav a')\"", "self._lock = None",
                 "demo.config['dependencies']", "from bg_demo.backend import _common\n_common._x"):
        assert private_uses(f"{page}\n{fine}\n") == [], fine


# --- a REST call, as Gradio's docs show it ---------------------------------------------------------------------------------


class _Joiner:
    """One session of the queue protocol (Gradio's clients': `/queue/join` with an `fn_index`)."""

    def __init__(self, url: str):
        import uuid

        self.http = httpx.Client(base_url=url, timeout=30)
        self.session = uuid.uuid4().hex[:11]
        self.fn = {d["api_name"]: d["id"] for d in self.http.get("config").json()["dependencies"] if d.get("api_name")}

    def join(self, api_name: str, data) -> str:
        body = {"data": data, "fn_index": self.fn[api_name], "session_hash": self.session, "event_data": None,
                "trigger_id": None}
        answer = self.http.post("gradio_api/queue/join", json=body)
        assert answer.status_code == 200, answer.text
        return answer.json()["event_id"]


def _examples(url: str, endpoint: str) -> list:
    """The values the API page shows for an endpoint (every one it takes)."""
    described = httpx.get(f"{url}gradio_api/info", timeout=30).json()["named_endpoints"][endpoint]
    return [parameter["example_input"] for parameter in described["parameters"]]


def _call(url: str, endpoint: str, data: list) -> tuple[str, object]:
    """POST `/gradio_api/call/<name>`, then read the result's event stream: (its last event, its data)."""
    posted = httpx.post(f"{url}gradio_api/call{endpoint}", json={"data": data}, timeout=30)
    assert posted.status_code == 200, posted.text
    event = posted.json()["event_id"]
    last = ("", None)
    with httpx.stream("GET", f"{url}gradio_api/call{endpoint}/{event}", timeout=60) as stream:
        kind = ""
        for line in stream.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and kind != "heartbeat":
                last = (kind, json.loads(line[5:]))
    return last
