"""What keeps one client from taking the server from a class: sessions that cost what they hold and expire, a fair
turn in every queue, limits per session and per address, cancels only by their owner, and no uploads; and a light
page for a class of phones on a weak link (the document trimmed and compressed, the device's own fonts).

Gradio (6.31) has a global queue size and per-event concurrency, but nothing per client: its queues are first
come, first served, so one script's 150 requests put every student behind them, and anyone who knows an event's id
can cancel it. The pieces here sit at the two places Gradio leaves open: an ASGI middleware in front of its routes
(`launch(app_kwargs={"middleware": ...})`) and the order of each concurrency group's waiting list.
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import json
import logging
import threading
import time
from collections import Counter, OrderedDict

import gradio.state_holder
from gradio.state_holder import SessionState
from starlette.requests import Request

from bg_demo import text

log = logging.getLogger(__name__)

QUEUE_SIZE = 512  # events waiting in all queues; past it every client gets "queue full" (the per-client limits come first)
EVENTS_PER_SESSION = 8  # events one browser session (or API client) may have waiting or running at once
EVENTS_PER_ADDRESS = 128  # the same for one address: a whole class behind a school's router shares one
SESSION_CAPACITY = 2_000  # sessions kept at once (least recently used dropped first); each costs what it stores
SESSION_IDLE_SECONDS = 3600  # a session unused this long is dropped with everything it stored
_SWEEP_SECONDS = 60.0  # how often idle sessions are looked for (when a new session starts)


# --- sessions --------------------------------------------------------------------------------------------------


class LeanSession(SessionState):
    """A Gradio session that costs only what it stores. Gradio's own keeps, for its deep links (which this app does
    not use: its links carry the inputs, `ui/links.py`), a rendered config of every component and a copy of every
    output value: ~1 MB per session here, made on any API call, kept until 10,000 sessions. This one shares the
    app's component table until a handler changes a component for this session (then copies it, as Gradio does),
    and keeps no deep-link copies."""

    def __init__(self, blocks):  # noqa: D107 - Gradio's attributes, without the eager copies
        self._shared = blocks.default_config
        self._own = None
        self.config_values = {}
        self.state_data = {}
        self._state_ttl = {}
        self.is_closed = False
        self.STATE_TTL_WHEN_CLOSED = SESSION_IDLE_SECONDS
        _sweep(getattr(blocks, "state_holder", None))

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

    def _update_config(self, key: int) -> None:  # deep links only
        pass

    def _update_value_in_config(self, key: int, value) -> None:  # deep links only
        pass


_last_sweep = [0.0]
_sweep_guard = threading.Lock()


def _sweep(holder) -> None:
    """Drop the sessions nobody has used for SESSION_IDLE_SECONDS (Gradio itself drops sessions only past its
    capacity, and the values of its States past their time to live, never the session)."""
    if holder is None or not _sweep_guard.acquire(blocking=False):
        return
    try:
        now = time.monotonic()
        if now - _last_sweep[0] < _SWEEP_SECONDS:
            return
        _last_sweep[0] = now
        oldest = datetime.datetime.now() - datetime.timedelta(seconds=SESSION_IDLE_SECONDS)
        with holder.lock:
            idle = [session for session, used in list(holder.time_last_used.items()) if used < oldest]
            for session in idle:
                holder.session_data.pop(session, None)
                holder.time_last_used.pop(session, None)
        if idle:
            log.info("dropped %d idle sessions", len(idle))
    finally:
        _sweep_guard.release()


def use_lean_sessions() -> None:
    """Every Gradio session of this process is a LeanSession (Gradio makes them through this module's name)."""
    gradio.state_holder.SessionState = LeanSession


# --- a fair turn in each queue ----------------------------------------------------------------------------------


def client_address(request) -> str:
    """The address a request came from, as uvicorn gives it: it takes a proxy's X-Forwarded-For only from the
    proxies it trusts (FORWARDED_ALLOW_IPS, 127.0.0.1 by default; a Space or a load balancer sets it), so a client
    cannot name itself another address."""
    client = getattr(request, "client", None)
    return getattr(client, "host", "") or ""


# An address takes up to this many turns per round of the queue: a class behind one school router shares an address,
# and 150 sessions of one script from one address must not all go ahead of a student elsewhere.
TURNS_PER_ADDRESS = 8


class FairList(list):
    """A concurrency group's waiting events, in rounds: a new event goes after every event of its round, where its
    round is how many events of its session wait before it, or of its address divided by TURNS_PER_ADDRESS if that
    is more. One script's 150 requests then wait behind everyone else's first, instead of everyone waiting behind
    them. Gradio starts events from the front."""

    def append(self, event) -> None:  # noqa: D102
        mine = _round(self, event)
        sessions: Counter = Counter()
        addresses: Counter = Counter()
        for index, waiting in enumerate(self):
            address = client_address(getattr(waiting, "request", None))
            if max(sessions[waiting.session_hash], addresses[address] // TURNS_PER_ADDRESS) > mine:
                self.insert(index, event)
                return
            sessions[waiting.session_hash] += 1
            addresses[address] += 1
        super().append(event)


def _round(waiting: list, event) -> int:
    address = client_address(getattr(event, "request", None))
    same_session = sum(1 for other in waiting if other.session_hash == event.session_hash)
    same_address = sum(1 for other in waiting if client_address(getattr(other, "request", None)) == address)
    return max(same_session, same_address // TURNS_PER_ADDRESS)


def make_fair(queue) -> None:
    """Give every concurrency group of a Gradio Queue (made or to be made) a FairList."""
    make = queue.create_event_queue_for_fn

    def create(fn):
        make(fn)
        waiting = queue.event_queue_per_concurrency_id[fn.concurrency_id]
        if not isinstance(waiting.queue, FairList):
            waiting.queue = FairList(waiting.queue)

    queue.create_event_queue_for_fn = create
    for waiting in queue.event_queue_per_concurrency_id.values():
        waiting.queue = FairList(waiting.queue)


# --- the routes ---------------------------------------------------------------------------------------------------

_JOIN = ("/gradio_api/queue/join", "/gradio_api/call/")
_CANCEL = "/gradio_api/cancel"
_UPLOAD = "/gradio_api/upload"


class Guard:
    """ASGI middleware in front of Gradio's routes: refuses uploads (the app has no file input), holds each session
    and address to its share of the queue, and lets an event be cancelled only by its own session."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        self.blocks = scope["app"].get_blocks()  # the Gradio app FastAPI puts in the scope
        path = scope["path"]
        if path == _UPLOAD:
            return await _refuse(scope, send, 403, "error.no_uploads")
        if not (path == _CANCEL or path.startswith(_JOIN)):
            return await self.app(scope, receive, send)
        body = await _read_body(receive)
        try:
            payload = json.loads(body or b"{}")
        except ValueError:
            payload = {}
        payload = payload if isinstance(payload, dict) else {}
        if path == _CANCEL and not self._owns(payload):
            return await _refuse(scope, send, 403, "error.not_your_event")
        if path == _CANCEL:
            return await self.app(scope, _replay(body), send)
        client = (payload.get("session_hash"), client_address(Request(scope)))
        if refusal := self._over_share(*client):
            return await _refuse(scope, send, 429, refusal, limit=_LIMITS[refusal])
        # counted from here (no await between the check and this line): joins arriving together see each other
        # before any of them is in Gradio's queue
        _JOINING.update(client)
        try:
            return await self.app(scope, _replay(body), send)
        finally:
            _JOINING.subtract(client)
            for key in client:
                if _JOINING[key] <= 0:
                    del _JOINING[key]

    def _events(self) -> list:
        queue = getattr(self.blocks, "_queue", None)
        return list(getattr(queue, "event_ids_to_events", {}).values())

    def _owns(self, payload: dict) -> bool:
        """Whether the cancel names an event of the session it comes from (or no event this server knows of)."""
        queue = getattr(self.blocks, "_queue", None)
        event = getattr(queue, "event_ids_to_events", {}).get(payload.get("event_id"))
        if event is not None:
            return event.session_hash == payload.get("session_hash")
        iterators = getattr(getattr(self.blocks, "app", None), "iterators", {})
        return payload.get("event_id") not in iterators  # a running stream Gradio no longer lists: refuse

    def _over_share(self, session: str | None, address: str) -> str | None:
        events = self._events()
        if session and _JOINING[session] + sum(1 for e in events if e.session_hash == session) >= EVENTS_PER_SESSION:
            return "error.busy_session"
        same_address = sum(1 for event in events if client_address(event.request) == address)
        if address and _JOINING[address] + same_address >= EVENTS_PER_ADDRESS:
            return "error.busy_address"
        return None


_JOINING: Counter = Counter()  # joins let through and not yet answered, per session and per address
_LIMITS = {"error.busy_session": EVENTS_PER_SESSION, "error.busy_address": EVENTS_PER_ADDRESS}


async def _read_body(receive) -> bytes:
    chunks, more = [], True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return b"".join(chunks)


def _replay(body: bytes):
    sent = [False]

    async def receive():
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def _refuse(scope, send, status: int, key: str, **values) -> None:
    """A JSON error in Gradio's own shape (`{"detail": ...}`), worded in the language the client asks for."""
    message = text.t(key, text.language(Request(scope).headers.get("accept-language")), **values)
    body = json.dumps({"detail": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# --- the page -----------------------------------------------------------------------------------------------------

# the theme's own font stacks without its web fonts (Montserrat, IBM Plex Mono): those cost a first visit 200 KB,
# hold back the page's text until they arrive, and have no Korean or Japanese letters anyway
FONTS = ("ui-sans-serif", "system-ui", "sans-serif")
MONO_FONTS = ("ui-monospace", "Consolas", "monospace")
GZIP_LEVEL = 6  # zlib's default: on the page 2% larger than level 9, in 60% of its time (it is compressed on every load)
GZIP_MINIMUM_BYTES = 1024  # smaller answers go as they are (a compressed header costs more than it saves)

# what Gradio inlines into the page for each component and the browser never reads: the API's description of its
# values (three copies) and an example value; the server describes the API from its own copy (`/gradio_api/info`)
_UNREAD = ("api_info", "api_info_as_input", "api_info_as_output", "example_inputs", "skip_api")
_INLINED = (b"window.gradio_config = ", b"window.gradio_api_info = ")
_END = b";</script>"  # Gradio escapes "<" inside the JSON it inlines, so this ends it


class Lighter:
    """ASGI middleware that trims the page Gradio renders (an HTML document with the app's whole config inlined:
    ~730 KB here) of what the browser never reads: per component, the API's value descriptions and example
    values, and the code snippets of the inlined API description (the API page fetches its own). Everything the
    page draws, the three languages' labels and examples included, stays."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            return await self.app(scope, receive, send)
        start: dict = {}
        chunks: list[bytes] = []

        async def held(message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if _is_html(message):
                    start = message
                    return
            elif start and message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = lighter(b"".join(chunks))
                headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
                await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
                return await send({"type": "http.response.body", "body": body})
            await send(message)

        await self.app(scope, receive, held)


def _is_html(start: dict) -> bool:
    headers = dict(start.get("headers", []))
    return start.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html") \
        and b"content-encoding" not in headers


def lighter(page: bytes) -> bytes:
    """A rendered Gradio page without what its browser never reads (any other body comes back as it was). Reading
    and writing its JSON takes ~30 ms: it is done once per page `PageCache` keeps, not per visit."""
    if _INLINED[0] not in page:
        return page
    try:
        return _trim(page)
    except ValueError:  # not the JSON Gradio writes: the page goes as it is rather than not at all
        log.exception("the page could not be trimmed")
        return page


def _trim(page: bytes) -> bytes:
    import orjson
    from gradio.routes import toorjson

    for marker in _INLINED:
        start = page.find(marker)
        end = page.find(_END, start)
        if start < 0 or end < 0:
            continue
        start += len(marker)
        value = orjson.loads(page[start:end])
        if marker == _INLINED[0]:
            for component in value.get("components", []):
                for key in _UNREAD:
                    component.pop(key, None)
        else:
            for endpoint in value.get("named_endpoints", {}).values():
                endpoint.pop("code_snippets", None)
        page = page[:start] + str(toorjson(value)).encode() + page[end:]
    return page


# --- the page, rendered once ----------------------------------------------------------------------------------------

PAGES_CACHED = 16  # rendered pages kept (least recently used dropped first): one per address and link asked for
_KEPT_PATHS = ("/", "/config", "/config/")  # the page, and the config a client reads
# what the page Gradio renders depends on besides the path and the query: the address it was asked at (its root URL,
# `gradio.route_utils.get_request_origin`) and the encodings the browser takes
_PAGE_HEADERS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-gradio-server", b"accept-encoding")


class PageCache:
    """ASGI middleware: the app's page (a GET of `/`) and its config (`/config`, what API clients and a reconnecting
    page read) rendered, trimmed and compressed once per address and link, then sent from memory.

    Gradio renders both afresh for every request: deep copies of the whole config (~700 KB of components), and for
    the page the template and the compression, ~0.1 s of CPU on 2 vCPU (py-spy: 70% of it the copies), holding the
    interpreter lock. During a class's burst that CPU is the streams', and a student opening the page waited up to
    0.95 s; forty API clients connecting at once held every other request for seconds. Both depend only on the
    address they are asked at, the query (Gradio's `page` and `deep_link`) and the browser's encodings, unless the
    app has a login (then they name the user, and nothing is kept). An entry is used only while Gradio's config is
    the object it was rendered from. The same URL asked by many at once is rendered once; the others wait for it.

    Why here, not in the balancer's cache (HAProxy has one): a page served by the balancer reaches no front end,
    so it gets no sticky cookie, and the page's first requests would be spread over the front ends; and a Space
    has no balancer."""

    def __init__(self, app) -> None:
        self.app = app
        self._pages: OrderedDict[tuple, tuple] = OrderedDict()  # key -> (config, response start, body)
        self._rendering: dict[tuple, asyncio.Event] = {}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in _KEPT_PATHS:
            return await self.app(scope, receive, send)
        fastapi_app = scope.get("app")
        if fastapi_app is None or getattr(fastapi_app, "auth", None) is not None \
                or getattr(fastapi_app, "auth_dependency", None) is not None:
            return await self.app(scope, receive, send)
        config = fastapi_app.get_blocks().config
        headers = dict(scope.get("headers", []))
        key = (scope.get("scheme"), scope.get("root_path", ""), scope["path"], scope.get("query_string", b""),
               *(headers.get(name, b"") for name in _PAGE_HEADERS))
        while (rendering := self._rendering.get(key)) is not None:  # another visit renders this page now
            await rendering.wait()
        if (page := self._pages.get(key)) is not None and page[0] is config:
            self._pages.move_to_end(key)
            return await _send_page(send, page[1], page[2])
        self._rendering[key] = rendering = asyncio.Event()
        try:
            start: dict = {}
            body: list[bytes] = []

            async def kept(message) -> None:
                nonlocal start
                if message["type"] == "http.response.start":
                    start = message
                elif message["type"] == "http.response.body":
                    body.append(message.get("body", b""))
                await send(message)

            await self.app(scope, receive, kept)
            names = {name.lower() for name, _ in start.get("headers", [])}
            if start.get("status") == 200 and b"set-cookie" not in names:
                self._pages[key] = (config, start, b"".join(body))
                self._pages.move_to_end(key)
                while len(self._pages) > PAGES_CACHED:
                    self._pages.popitem(last=False)
        finally:
            del self._rendering[key]
            rendering.set()


async def _send_page(send, start: dict, body: bytes) -> None:
    await send(start)
    await send({"type": "http.response.body", "body": body})
