"""Every name of Gradio's that is not its public API, in one module: what the app reaches into, why no public API
does the job (in Gradio 6.31), and the version range it was checked against.

The rest of `bg_demo`, and the tests, call the functions and constants here and nothing private of Gradio's
(tests/test_gradio_compat.py checks both: that each name here still exists and behaves, and that no other module
or test uses one). A Gradio outside `TESTED` is refused at start-up (`check_version`), since several of these would
fail silently on an upgrade: fairness off, the upload guard off, scroll-into-view off.
"""

from __future__ import annotations

import copy
import datetime
import logging
import os
import re
import threading
import time

import gradio

log = logging.getLogger(__name__)

# --- the version ----------------------------------------------------------------------------------------------------

# Checked against 6.31.0 (requirements.txt pins it); a patch release keeps the internals below, a minor one may not.
TESTED = ">=6.31,<6.32"
OVERRIDE = "BG_DEMO_UNTESTED_GRADIO"  # "1": start anyway (someone trying a new Gradio, with the contract test at hand)


class UntestedGradio(RuntimeError):
    """The installed Gradio is outside the range this module was checked against."""


def check_version(version: str | None = None) -> None:
    """Refuse to build the app on a Gradio outside TESTED (unless OVERRIDE=1 in the environment: then a warning)."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    version = version or gradio.__version__
    if Version(version) in SpecifierSet(TESTED):
        return
    message = untested(version)
    if os.environ.get(OVERRIDE, "").strip() == "1":
        log.warning("%s (%s=1: starting anyway)", message, OVERRIDE)
        return
    raise UntestedGradio(message)


def untested(version: str) -> str:
    return (f"bg_demo is tested with gradio {TESTED} and found gradio {version}. It relies on Gradio internals "
            f"(bg_demo/ui/gradio_compat.py) that change between releases: install the pinned version "
            f"(pip install -r requirements.txt), or, to try this one, run tests/test_gradio_compat.py and set "
            f"{OVERRIDE}=1.")


# Every private import in one place: a Gradio without one of them says what to do, not only what is missing.
try:
    from gradio.context import Context, LocalContext
    from gradio.route_utils import API_PREFIX
    from gradio.routes import toorjson
    from gradio.state_holder import SessionState
except ImportError as missing:  # pragma: no cover - only on a Gradio other than the tested one
    raise ImportError(f"{untested(gradio.__version__)} ({missing})") from missing


# --- building or serving ----------------------------------------------------------------------------------------------


def building() -> bool:
    """Whether an app's layout is being built (a `with gr.Blocks()` open) and no request is being served.
    Private: `Context.root_block` (the Blocks being built) and `LocalContext.request` (the request a handler serves).
    No public API says whether code runs while the layout is built; a handler that needs its request takes a
    `gr.Request` argument instead."""
    return Context.root_block is not None and LocalContext.request.get(None) is None


# --- the layout: blocks and their listeners -------------------------------------------------------------------------


def block_id(block) -> int:
    """The id Gradio gives a block: its key in the app's config (`config["components"][i]["id"]`, a listener's
    `inputs`/`outputs`) and in a session's values. Private: `Block._id`. No public attribute holds it (`elem_id` is
    the app's own name, and optional)."""
    return block._id


def listeners(blocks) -> list:
    """The event listeners of `blocks`, in the order they were added: each with its function (`.fn`), its blocks
    (`.inputs`, `.outputs`), `.api_name`, `.api_visibility`, `.concurrency_id`, `.targets` ((block id, event name)
    pairs) and `.trigger_after` (the number of the listener a `.then`/`.success` follows, for `listener`).
    Private: `Blocks.fns` and its values (`gradio.block_function.BlockFunction`). The public config
    (`Blocks.config["dependencies"]`) describes each listener but holds neither its function nor its blocks."""
    return list(blocks.fns.values())


def listener(blocks, number: int):
    """The listener of `blocks` numbered `number` (its `fn_index`; what a `.then`'s `trigger_after` names).
    Private: as `listeners`."""
    return blocks.fns[number]


# --- sessions -------------------------------------------------------------------------------------------------------


def new_session(blocks):
    """A fresh session of `blocks`, as Gradio makes one for a new visitor: for `Blocks.process_api(listener, values,
    session)`, which reads a listener's States from it and keeps what it writes (read with `session_value`). A
    LeanSession once `use_lean_sessions` ran. Private: `gradio.state_holder.SessionState`; `process_api` (public)
    makes none that a caller can read afterwards."""
    return SessionState(blocks)


def session_value(session, block):
    """What `session` holds for `block`: a State's value, or the component as the session's handlers changed it (the
    app's own otherwise). Private: `SessionState.__getitem__`."""
    return session[block_id(block)]


def kept_session(blocks, session_hash: str):
    """The session the running `blocks` keeps for `session_hash`, or None (and none is made, as Gradio's own lookup
    would). Private: `Blocks.state_holder` (set at launch) and `StateHolder.session_data`. No public API reaches a
    session outside its own requests."""
    holder = getattr(blocks, "state_holder", None)
    return None if holder is None else holder.session_data.get(session_hash)


class LeanSession(SessionState):
    """A Gradio session that costs only what it stores. Gradio's own (`gradio.state_holder.SessionState`) keeps,
    for its deep links (which this app does not use: its links carry the inputs, `ui/links.py`), a rendered config
    of every component and a copy of every output value: ~1 MB per session here, made on any API call, kept until
    10,000 sessions. This one shares the app's component table until a handler changes a component for this session
    (then copies it, as Gradio does), and keeps no deep-link copies.

    Private: the class, its attributes (`blocks_config`, `config_values`, `state_data`, `_state_ttl`, `is_closed`,
    `STATE_TTL_WHEN_CLOSED`), its deep-link methods (`_update_config`, `_update_value_in_config`) and
    `Blocks.default_config`. Gradio has no setting for what a session keeps (`state_session_capacity` bounds only
    how many sessions)."""

    IDLE_SECONDS = 3600  # set by `use_lean_sessions`: a session unused this long is dropped

    def __init__(self, blocks):  # noqa: D107 - Gradio's attributes, without the eager copies
        self._shared = blocks.default_config
        self._own = None
        self.config_values = {}
        self.state_data = {}
        self._state_ttl = {}
        self.is_closed = False
        self.STATE_TTL_WHEN_CLOSED = self.IDLE_SECONDS
        _SWEEPER.sweep(getattr(blocks, "state_holder", None), self.IDLE_SECONDS)

    @property
    def blocks_config(self):
        return self._own if self._own is not None else self._shared

    @blocks_config.setter
    def blocks_config(self, value) -> None:
        self._own = value

    def __setitem__(self, key: int, value) -> None:
        from gradio.components import State

        block = self.blocks_config.blocks.get(key)
        if isinstance(block, State):
            self._state_ttl[key] = (block.time_to_live, datetime.datetime.now())
            self.state_data[key] = value
            return
        if self._own is None:  # this session's first changed component: its own table from now on
            self._own = copy.copy(self._shared)
        self._own.blocks[key] = value

    def copies(self) -> int:
        """How many of the page's values this session holds a copy of: none until a handler changes a component
        for it (then the whole table), and no deep-link copy ever."""
        return len(self.config_values) + (0 if self._own is None else len(self._own.blocks))

    def _update_config(self, key: int) -> None:  # deep links only
        pass

    def _update_value_in_config(self, key: int, value) -> None:  # deep links only
        pass


def _lean(cls, *args, **kwargs):
    """`SessionState.__new__`: Gradio's own class makes a LeanSession (a subclass asks for itself)."""
    return object.__new__(LeanSession if cls is SessionState else cls)


def use_lean_sessions(idle_seconds: int) -> None:
    """Every Gradio session of this process is a LeanSession, dropped after `idle_seconds` unused.

    Gradio makes sessions at several call sites, some through a name bound when their module was imported
    (`gradio/route_utils.py` for a call with no session, `blocks.py`'s `preprocess_data`/`postprocess_data` with
    no state, `mcp.py`'s fast path): replacing `gradio.state_holder.SessionState` missed those. Gradio's own class
    makes the LeanSession instead (its `__new__`), so every call site, bound early or late, gets one."""
    LeanSession.IDLE_SECONDS = idle_seconds
    SessionState.__new__ = staticmethod(_lean)


def lean_sessions_in_use() -> bool:
    return SessionState.__new__ is _lean


class _Sweeper:
    """Drops the sessions nobody has used for the idle time, at most once a minute (when a session starts).
    Private: `StateHolder.session_data`, `.time_last_used` and `.lock`, and `Blocks.state_holder`. Gradio drops
    sessions only past its capacity, and the values of its States past their time to live, never the session."""

    EVERY_SECONDS = 60.0

    def __init__(self) -> None:
        self.last = 0.0
        self.guard = threading.Lock()

    def sweep(self, holder, idle_seconds: float) -> None:
        if holder is None or not self.guard.acquire(blocking=False):
            return
        try:
            now = time.monotonic()
            if now - self.last < self.EVERY_SECONDS:
                return
            self.last = now
            oldest = datetime.datetime.now() - datetime.timedelta(seconds=idle_seconds)
            with holder.lock:
                idle = [session for session, used in list(holder.time_last_used.items()) if used < oldest]
                for session in idle:
                    holder.session_data.pop(session, None)
                    holder.time_last_used.pop(session, None)
            if idle:
                log.info("dropped %d idle sessions", len(idle))
        finally:
            self.guard.release()


_SWEEPER = _Sweeper()


# --- the queue ------------------------------------------------------------------------------------------------------


def order_waiting(demo, make_list) -> None:
    """Every concurrency group of `demo`'s queue (made now or later) keeps its waiting events in
    `make_list(events)`, a list subclass whose `append` decides where a new event goes; Gradio starts events from
    the front. Call it after `demo.queue(...)`, which makes a new queue.
    Private: `Blocks._queue`, `Queue.create_event_queue_for_fn`, `Queue.event_queue_per_concurrency_id` and
    `EventQueue.queue`. Gradio's queues are first come, first served, with no public hook on their order."""
    queue = demo._queue
    make = queue.create_event_queue_for_fn

    def create(fn):
        make(fn)
        waiting = queue.event_queue_per_concurrency_id[fn.concurrency_id]
        if not isinstance(waiting.queue, make_list):
            waiting.queue = make_list(waiting.queue)

    queue.create_event_queue_for_fn = create
    for waiting in queue.event_queue_per_concurrency_id.values():
        if not isinstance(waiting.queue, make_list):
            waiting.queue = make_list(waiting.queue)


def waiting_lists(demo) -> dict:
    """concurrency id -> the list of events waiting in that group of `demo`'s queue (for tests and checks).
    Private: as `order_waiting`."""
    return {name: waiting.queue for name, waiting in demo._queue.event_queue_per_concurrency_id.items()}


def event_owner(event) -> tuple[str | None, object]:
    """(session hash, HTTP request) of one of the queue's events (`gradio.queueing.Event`, not public)."""
    return event.session_hash, getattr(event, "request", None)


def queued(blocks) -> list[tuple[str | None, object]]:
    """(session hash, request) of every event the queue of `blocks` holds, waiting or running.
    Private: `Blocks._queue`, `Queue.event_ids_to_events`. No public API lists a queue's events."""
    queue = getattr(blocks, "_queue", None)
    return [event_owner(event) for event in list(getattr(queue, "event_ids_to_events", {}).values())]


def event_session(blocks, event_id) -> tuple[bool, str | None]:
    """(whether the queue knows the event, the session that started it), for a cancel only its owner may send.
    Private: as `queued`. Gradio's `/cancel` takes any session's event id, with no hook to check who asks."""
    queue = getattr(blocks, "_queue", None)
    event = getattr(queue, "event_ids_to_events", {}).get(event_id)
    return (False, None) if event is None else (True, event.session_hash)


def streaming(blocks, event_id) -> bool:
    """Whether `event_id` names a stream still open on the server (one the queue may no longer list).
    Private: `App.iterators`. No public API lists a server's open streams."""
    return event_id in getattr(getattr(blocks, "app", None), "iterators", {})


# --- the API description ---------------------------------------------------------------------------------------------

# What `payloads` reads to word the API description (the "Use via API" page, `/gradio_api/info`, gradio_client's
# `view_api`, the MCP tools' schemas). Gradio builds it from the layout (`Blocks.get_api_info`), and its public means
# do not do the job: a component's label is what the API shows, and the app's labels are `gr.I18n` keys, which only
# the browser's pages translate (the API page showed "[object Object]"); `api_description=` words an endpoint, not its
# values; an input's example is its component's own ("Hello!!", no sentence with a [MASK]), not the page's examples.


def api_info(blocks, all_endpoints: bool = False) -> dict:
    """The API description of `blocks` as Gradio serves it (`/gradio_api/info`), with what `describe_api` adds.
    Private: `Blocks.get_api_info` (the route calls it; no public function returns the description)."""
    return blocks.get_api_info(all_endpoints=all_endpoints)


def describe_api(blocks, amend) -> None:
    """Have every description of `blocks`' API (the route's, the MCP server's, `api_info`'s) pass through
    `amend(info)`, which changes it in place. Private: `Blocks.get_api_info`, replaced on this instance (both the
    route and the MCP server call it; neither has a hook)."""
    import functools

    make = blocks.get_api_info

    @functools.wraps(make)
    def get_api_info(*args, **kwargs):
        info = make(*args, **kwargs)
        amend(info)
        return info

    blocks.get_api_info = get_api_info


def components(blocks) -> dict:
    """Every block of `blocks` by its id (the ids the public config names: a listener's `inputs`, a Dataset's
    `component_ids`). Private: `Blocks.blocks`. The config holds each component's props, not the object."""
    return blocks.blocks


def component(blocks, key):
    """The block of `blocks` whose id is `key`, or None. Private: as `components`."""
    return components(blocks).get(key)


OAUTH_SETTINGS = ("OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "OAUTH_SCOPES", "OPENID_PROVIDER_URL")


def oauth_settings():
    """Gradio's OAuth module, which reads a Space's OAuth settings (`OAUTH_SETTINGS`, set where the README says
    `hf_oauth: true`) from the environment once, when it is imported, and adds the sign-in routes from them when a
    page has a `gr.LoginButton`: a test of the Start page's button on such a Space sets them there. Private:
    `gradio.oauth` and its module-level settings."""
    import gradio.oauth

    return gradio.oauth


def in_api(block) -> bool:
    """Whether the API lists this input or output of an endpoint (a State's, for one, is left out).
    Private: `Component.skip_api`, what `Blocks.get_api_info` reads."""
    return not block.skip_api


def is_bare_value(block) -> bool:
    """Whether a value of an endpoint is a function's parameter or result (`gr.api`, the tutor's tools) and no
    component on a page. Private: `gradio.components.api_component.Api`, what `gr.api` makes for each value."""
    from gradio.components.api_component import Api

    return isinstance(block, Api)


def example_rows(dataset) -> list:
    """An example table's rows as the app gave them (`gr.Examples`' values, before each component's
    postprocessing). Private: `Dataset.raw_samples`; its public `samples` hold the processed values."""
    return dataset.raw_samples or []


def container(block):
    """The layout block `block` sits in, or None at the top. Private: `Block.parent` (no public API walks up)."""
    return block.parent


# --- the MCP server ---------------------------------------------------------------------------------------------------

# Gradio's MCP server (`gradio.mcp.GradioMCPServer`) lists every public named endpoint as a tool, and has no public
# switch to leave one out while keeping it on the API page. It skips, when listing tools, an endpoint whose function
# carries `_mcp_type` other than "tool" (the attribute its public decorators `gr.mcp.tool/resource/prompt` set), so
# the page's own endpoints (figures, the reader's look) are marked so. Private: the attribute and its reading.
NOT_A_TOOL = "page"


def hide_from_mcp(fn) -> None:
    """Leave an endpoint's function out of the MCP server's tools (it stays on the API page); a bound method's
    function, which holds its attributes."""
    getattr(fn, "__func__", fn)._mcp_type = NOT_A_TOOL


def mcp_name(name: str) -> str:
    """The name Gradio's MCP server lists a tool, prompt or resource under: on a Space, the Space's name and "_"
    before it. Its `prompts/get` looks a prompt up by the name given to `gr.mcp.prompt`, while `prompts/list` gives
    this one: a prompt registered under it is found by the name listed. Private: `gradio.utils.get_space` and the
    prefix `GradioMCPServer.__init__` builds from it."""
    space = gradio.utils.get_space()
    # as `GradioMCPServer.valid_and_unique_tool_name` makes it: every character but a letter or digit an underscore
    return re.sub(r"[^a-zA-Z0-9]", "_", f"{space.split('/')[-1]}_{name}") if space else name


# --- the routes -------------------------------------------------------------------------------------------------------

# Gradio's HTTP routes the app's middleware watches (`serving.Guard`). `/call/<name>` and `/upload` are the documented
# REST API; `/queue/join`, `/cancel` and `/run/<name>` (`/api/<name>`) are its browser's and its clients' protocol.
# Private: `gradio.route_utils.API_PREFIX`, read so that a moved prefix moves them too.
JOIN = f"{API_PREFIX}/queue/join"
CALL = f"{API_PREFIX}/call/"  # + endpoint name (`/call/v2/<name>` takes names, not a list)
RUN = (f"{API_PREFIX}/run/", f"{API_PREFIX}/api/")  # + endpoint name: the call without the queue
CANCEL = f"{API_PREFIX}/cancel"
UPLOAD = f"{API_PREFIX}/upload"
MCP = f"{API_PREFIX}/mcp"  # the MCP server's routes (streamable HTTP at `/mcp/`, SSE at `/mcp/sse`)
MCP_MESSAGES = f"{MCP}/messages"  # the SSE transport's calls, each a POST answered on the session's event stream
MCP_SCHEMA = f"{MCP}/schema"  # a GET: every public endpoint as an MCP entry, `meta.mcp_type` saying which kind
INFO = f"{API_PREFIX}/info"  # the API's description (a GET: what the "Use via API" page and Gradio's clients read)


def blocks_of(scope):
    """The Blocks a request reaches, from the ASGI scope (FastAPI puts Gradio's `App` there).
    Private: `App.get_blocks()`; the middleware runs before any Gradio route, where no public API reaches the app."""
    return scope["app"].get_blocks()


def has_login(scope) -> bool:
    """Whether the app the request reaches asks for a login (then its page names the user).
    Private: `App.auth`, `App.auth_dependency`."""
    app = scope.get("app")
    return app is None or getattr(app, "auth", None) is not None or getattr(app, "auth_dependency", None) is not None


class StandInApp:
    """What the middleware reads of Gradio's `App`, for a test to put where FastAPI puts the app in a request's scope
    (`scope["app"]`): `blocks` reached as `blocks_of` reaches them, and a login asked for (`has_login`) only once
    `auth` or `auth_dependency` is set. Private: as `blocks_of` and `has_login`."""

    def __init__(self, blocks=None) -> None:
        self.blocks = blocks
        self.auth = self.auth_dependency = None

    def get_blocks(self):
        return self.blocks


# --- the page ---------------------------------------------------------------------------------------------------------

# Gradio inlines the app's config and API description into the page it renders (its template, templates/frontend/
# index.html): `window.gradio_config = {...};</script>`. Private: the template's markers, the escaping of the JSON
# (`gradio.routes.toorjson`: "<" escaped, so the first ";</script>" ends it) and the component keys the browser never
# reads. No public setting leaves them out of the page (Gradio 6.31 inlines them on every render).
INLINED_CONFIG = b"window.gradio_config = "
INLINED_API_INFO = b"window.gradio_api_info = "
INLINED_END = b";</script>"
UNREAD_COMPONENT_KEYS = ("api_info", "api_info_as_input", "api_info_as_output", "example_inputs", "skip_api")
# the request headers Gradio's page and config depend on besides the path and the query (its root URL:
# `gradio.route_utils.get_request_origin`, `get_root_url`), and the browser's encodings
PAGE_HEADERS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-gradio-server", b"accept-encoding")


def inlined_json(value) -> bytes:
    """`value` as Gradio writes JSON into its page (safe inside a <script>)."""
    return str(toorjson(value)).encode()


# --- the browser ------------------------------------------------------------------------------------------------------

# A JS function `(lang) => void` that switches Gradio's labels to `lang` in the page, as its own settings panel does.
# Private: the hashed bundle `assets/core-<hash>.js` and its export `changeLocale`. Gradio 6.31 picks the page's
# language from the browser alone (`get_initial_locale`), with no URL parameter, setting or JS API to change it; the
# module is loaded already, so importing it again gives the instance the page uses.
CORE_BUNDLE = r"/assets/core-[^/?]*\.js"  # as a JS regular expression: a loaded resource's URL
CHANGE_LOCALE_JS = r"""(lang) => {
  const core = performance.getEntriesByType("resource").map((e) => e.name).find((name) => /%s/.test(name));
  if (!core) { console.warn("bg_demo: Gradio's core bundle not found: the language is not switched"); return; }
  import(core).then((m) => m.changeLocale ? m.changeLocale(lang) : console.warn("bg_demo: no changeLocale"))
    .catch((e) => console.warn("bg_demo: the language is not switched", e));
}""" % CORE_BUNDLE.replace("/", "\\/")

# A JS function `(key) => update` that relabels a component from the browser alone (an event with no server
# function): the label as the I18n key `key`, worded by Gradio's client in the page's language as it sets it.
# Private: a prop update's shape (`{__type__: "update", ...}`, read by the client's `is_prop_update`) and the marker
# `gr.i18n.I18nData` turns into (`__i18n__` + its JSON, translated by the client's `translate_i18n_marker`); both
# are checked against the installed Python side and frontend by tests/test_gradio_compat.py.
I18N_LABEL_JS = """(key) => ({__type__: "update", label: "__i18n__" + JSON.stringify({__type__: "translation_metadata", key})})"""

# Gradio's markup that assets/view.js reads (given to it by `ui/view.py`): what it needs from Gradio and no
# `elem_id`/`elem_classes` of the app can say. Private: Gradio's DOM (its Svelte components' classes and roles), which
# its docs leave free to change; each is checked against the installed frontend by tests/test_gradio_compat.py.
MARKUP = {
    "tab_panel": "[role=tabpanel]",  # a gr.Tab's panel (TabItem): the innermost one holds what a run shows
    "tab_button": 'button[role=tab][data-tab-id="%s"]',  # the button that selects the gr.Tab of id %s
    "block": ".block",  # the box Gradio draws around every component
    "tracker": "wrap",  # a component's status tracker (StatusTracker: div.wrap.<show_progress>) ...
    "tracker_shown": ["full", "minimal"],  # ... for show_progress "full" or "minimal" ...
    "tracker_idle": "hide",  # ... hidden (class "hide") once the output is computed
    "busy": ".generating, .pending",  # a component whose output is being computed or streamed (its block's class)
    "markdown_text": ".md",  # a gr.Markdown's rendered text, inside its block (the block also holds its timer)
}
