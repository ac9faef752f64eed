"""What keeps one client from taking the server from a class: sessions that cost what they hold and expire, a fair
turn in every queue, limits per session and per address, cancels only by their owner, and no uploads; a call with
the wrong number of values told which ones its endpoint takes; and a light page for a class of phones on a weak link
(the document trimmed and compressed, the device's own fonts). What of Gradio's is not public is reached through
`gradio_compat`.

Gradio (6.31) has a global queue size and per-event concurrency, but nothing per client: its queues are first
come, first served, so one script's 150 requests put every student behind them, and anyone who knows an event's id
can cancel it. The pieces here sit at the two places Gradio leaves open: an ASGI middleware in front of its routes
(`launch(app_kwargs={"middleware": ...})`) and the order of each concurrency group's waiting list.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request

from bg_demo import text
from bg_demo.ui import gradio_compat, payloads

log = logging.getLogger(__name__)

QUEUE_SIZE = 512  # events waiting in all queues; past it every client gets "queue full" (the per-client limits come first)
EVENTS_PER_SESSION = 8  # events one browser session (or API client) may have waiting or running at once
EVENTS_PER_ADDRESS = 128  # the same for one address: a whole class behind a school's router shares one
SESSION_CAPACITY = 2_000  # sessions kept at once (least recently used dropped first); each costs what it stores
SESSION_IDLE_SECONDS = 3600  # a session unused this long is dropped with everything it stored
MAX_FILE_SIZE = 0  # bytes an upload may hold: the app has no file input (Gradio's own limit, behind `Guard`'s refusal)


# --- sessions --------------------------------------------------------------------------------------------------


def use_lean_sessions() -> None:
    """Every Gradio session of this process costs only what it stores and is dropped after SESSION_IDLE_SECONDS
    unused (`gradio_compat.LeanSession`)."""
    gradio_compat.use_lean_sessions(SESSION_IDLE_SECONDS)


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
    them. Gradio starts events from the front. An assistant's calls (MCP) count as its own session (`owner`)."""

    def append(self, event) -> None:  # noqa: D102
        mine = _round(self, event)
        sessions: Counter = Counter()
        addresses: Counter = Counter()
        for index, waiting in enumerate(self):
            session, address = owner(*gradio_compat.event_owner(waiting))
            if max(sessions[session], addresses[address] // TURNS_PER_ADDRESS) > mine:
                self.insert(index, event)
                return
            sessions[session] += 1
            addresses[address] += 1
        super().append(event)


def _round(waiting: list, event) -> int:
    session, address = owner(*gradio_compat.event_owner(event))
    owners = [owner(*gradio_compat.event_owner(other)) for other in waiting]
    same_session = sum(1 for other, _ in owners if other == session)
    same_address = sum(1 for _, other in owners if other == address)
    return max(same_session, same_address // TURNS_PER_ADDRESS)


# --- an assistant's calls (MCP) ----------------------------------------------------------------------------------
#
# Gradio runs each MCP tool call as a call of its own endpoint through the queue, from the server itself (a
# gradio_client on the loopback, marked `x-gradio-user: mcp`), with the MCP request's headers: every assistant's
# calls would come from one address and one session, so one assistant's flood would hold back every other's, and the
# first eight calls of all of them together would fill the session's share. So the guard stamps each MCP request with
# who sent it (its address, and its credentials if it sent any: assistants behind one school router differ by their
# tokens), Gradio carries the stamp to the loopback call, and `owner` reads it there: an assistant is a session of its
# own, held to EVENTS_PER_SESSION calls at once and to its fair turn. The stamp holds a secret drawn at start, so no
# client can name itself another.

CALLER_HEADER = "x-bg-demo-caller"
_SECRET = secrets.token_hex(16)
MCP_METHODS = ("tools/call", "resources/read", "prompts/get")  # what Gradio answers with a call of an endpoint


def mcp_caller(scope) -> tuple[str, str]:
    """(who, address) of an MCP request: its address, and a digest of its credentials if it sent any."""
    request = Request(scope)
    address = client_address(request)
    credentials = request.headers.get("authorization") or request.headers.get("x-ip-token") or ""
    digest = hashlib.sha256(credentials.encode()).hexdigest()[:12] if credentials else "-"
    return f"mcp:{address}:{digest}", address


def _stamped(scope, who: str, address: str, ticket: str | None = None) -> dict:
    """The scope with the caller's stamp (`CALLER_HEADER`), and a tool call's ticket (`CALL_HEADER`), in place of any
    the request brought."""
    ours = (CALLER_HEADER, CALL_HEADER)
    headers = [(k, v) for k, v in scope["headers"] if k.decode("latin-1").lower() not in ours]
    headers.append((CALLER_HEADER.encode(), f"{_SECRET} {who} {address}".encode()))
    if ticket is not None:
        headers.append((CALL_HEADER.encode(), f"{_SECRET} {ticket}".encode()))
    return {**scope, "headers": headers}


def owner(session, request) -> tuple[str | None, str]:
    """(session, address) a queued event counts against: an assistant's call (stamped by the guard) as its caller's,
    anything else as its own session and the address it came from."""
    headers = getattr(request, "headers", None) or {}
    stamp = headers.get(CALLER_HEADER, "").split(" ")
    if len(stamp) == 3 and hmac.compare_digest(stamp[0], _SECRET):
        return stamp[1], stamp[2]
    return session, client_address(request)


_MCP_CALLS: Counter = Counter()  # MCP calls being answered, per caller


# --- a call its assistant gave up on ------------------------------------------------------------------------------
#
# Gradio's MCP server waits for a tool's loopback call in a thread that nothing cancels: when an assistant closes its
# request, the MCP SDK cancels the server's handler, which still waits for that thread, and the call itself goes on in
# the queue, holding its slot and its caller's share until it ends (a generation: up to 30 s). An MCP
# `notifications/cancelled` does not even reach the handler: Gradio's transport is stateless, each request a session of
# its own, so the SDK finds no earlier request to cancel. So the guard gives each tool call a ticket (CALL_HEADER,
# carried to the loopback call with the request's other headers), the tool says how it is stopped while it runs
# (`bg_demo.ui.tutor_tools`), and the guard stops it when the request ends unanswered or its caller cancels it.

CALL_HEADER = "x-bg-demo-call"


class GivenUp(Exception):
    """The call's assistant stopped waiting for it (closed its request or cancelled it): it is not run, or ended."""


@dataclass
class _Call:
    who: str  # the caller (`mcp_caller`)
    request_id: object  # its JSON-RPC id, which a cancel names
    state: str = "waiting"  # "waiting" (in the queue) -> "running" -> "done"; or "given up"
    stop: Callable[[], None] | None = None  # how the running tool is stopped


class McpCalls:
    """The MCP tool calls being answered, each under a ticket: opened when the guard lets the request in, closed when
    the request ends. A call still running then was given up on (its answer cannot be sent): it is stopped, and one
    still waiting in the queue is not run. A client's cancel names a request by its JSON-RPC id, which several of a
    caller's sessions may share (each numbers its own): only a cancel that names one open call stops it."""

    def __init__(self) -> None:
        self._calls: dict[str, _Call] = {}
        self._lock = threading.Lock()  # a tool starts and ends in a worker thread, the guard opens and closes on the loop

    def open(self, who: str, request_id) -> str:
        ticket = secrets.token_hex(8)
        with self._lock:
            self._calls[ticket] = _Call(who, request_id)
        return ticket

    def close(self, ticket: str) -> None:
        """The call's request has ended, answered or not."""
        with self._lock:
            call = self._calls.pop(ticket, None)
        if call is not None and call.state == "running":
            self._stop(call)

    def cancel(self, who: str, request_id) -> bool:
        """`notifications/cancelled` from `who` for its request `request_id`: whether a call was stopped (one still
        waiting is stopped before it runs)."""
        with self._lock:
            named = [call for call in self._calls.values() if (call.who, call.request_id) == (who, request_id)]
            if len(named) != 1 or named[0].state not in ("waiting", "running"):
                return False  # none, or several sessions' requests of that number: no telling which
            call, running = named[0], named[0].state == "running"
            call.state = "given up"
        if running:
            self._stop(call)
        return True

    def start(self, ticket: str | None, stop: Callable[[], None] | None = None) -> None:
        """A tool of call `ticket` starts (None: a call not made over MCP); `stop()` ends it early, from any thread
        (None: it cannot be stopped once running). GivenUp if its assistant gave up while it waited."""
        if ticket is None:
            return
        with self._lock:
            call = self._calls.get(ticket)
            if call is None or call.state != "waiting":  # closed, or cancelled, before it ran
                raise GivenUp(ticket)
            call.state, call.stop = "running", stop

    def finish(self, ticket: str | None) -> None:
        """The tool of call `ticket` has ended: nothing is stopped from now on."""
        with self._lock:
            call = self._calls.get(ticket)
            if call is not None and call.state == "running":
                call.state, call.stop = "done", None

    def given_up(self, ticket: str | None) -> bool:
        """Whether the call was cancelled or its request closed (its tool is being stopped)."""
        with self._lock:
            call = self._calls.get(ticket)
            return ticket is not None and (call is None or call.state == "given up")

    def open_requests(self) -> list[tuple[str, object]]:
        """(caller, JSON-RPC id) of every call being answered."""
        with self._lock:
            return [(call.who, call.request_id) for call in self._calls.values()]

    @staticmethod
    def _stop(call: _Call) -> None:
        if call.stop is not None:
            call.stop()


MCP_CALLS = McpCalls()


def call_ticket(request) -> str | None:
    """The ticket the guard gave the MCP call a loopback request makes (see `McpCalls`), or None: a call made
    otherwise, or a ticket without the server's secret."""
    headers = getattr(request, "headers", None) or {}
    stamp = headers.get(CALL_HEADER, "").split(" ")
    return stamp[1] if len(stamp) == 2 and hmac.compare_digest(stamp[0], _SECRET) else None


def make_fair(demo) -> None:
    """Every concurrency group of the app's queue (made or to be made) waits in a FairList; after `demo.queue()`."""
    gradio_compat.order_waiting(demo, FairList)


# --- the routes ---------------------------------------------------------------------------------------------------


class Guard:
    """ASGI middleware in front of Gradio's routes: refuses uploads (the app has no file input), refuses a call with
    more or fewer values than its endpoint takes (in words naming them: Gradio answers `{"error": null}`), holds
    each session and address to its share of the queue, and lets an event be cancelled only by its own session.

    `check_tool_call(blocks, tool, arguments, lang)`: words refusing an MCP tool call's arguments, or None to let it
    through (`tutor_tools.refused_arguments`: the MCP SDK's own check words it in English)."""

    def __init__(self, app, check_tool_call: Callable | None = None) -> None:
        self.app = app
        self.check_tool_call = check_tool_call

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].rstrip("/") == gradio_compat.MCP_SCHEMA:
            # read as JSON here, so asked for uncompressed (a few kilobytes)
            plain = [(k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"]
            return await self.app({**scope, "headers": plain}, receive, _tools_only(send))
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        path = scope["path"]
        if path == gradio_compat.UPLOAD:
            return await _refuse(scope, send, 403, "error.no_uploads")
        if path.startswith(gradio_compat.MCP):
            return await self._mcp(scope, receive, send)
        endpoint = _endpoint(path)
        if not (path in (gradio_compat.CANCEL, gradio_compat.JOIN) or endpoint):
            return await self.app(scope, receive, send)
        blocks = gradio_compat.blocks_of(scope)
        body = await _read_body(receive)
        try:
            payload = json.loads(body or b"{}")
        except ValueError:
            payload = {}
        payload = payload if isinstance(payload, dict) else {}
        if path == gradio_compat.CANCEL:
            if not _owns(blocks, payload):
                return await _refuse(scope, send, 403, "error.not_your_event")
            return await self.app(scope, _replay(body), send)
        asked = dict(api_name=endpoint, fn_index=payload.get("fn_index"))
        if (full := payloads.completed(blocks, payload.get("data"), **asked)) is not None:
            payload["data"] = full  # `lang` and `width` left out: English and a wide page
            body = json.dumps(payload).encode()
        if wrong := payloads.miscount(blocks, payload.get("data"), **asked):
            return await _refuse(scope, send, 422, "error.wrong_count", **wrong)
        if endpoint and path.startswith(gradio_compat.RUN):  # not queued: Gradio refuses it for a queued event
            return await self.app(scope, _replay(body), send)
        client = owner(payload.get("session_hash"), Request(scope))
        if refusal := _over_share(blocks, *client):
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

    async def _mcp(self, scope, receive, send) -> None:
        """An assistant's request: stamped with who sent it (see `owner`); a call past its share of
        EVENTS_PER_SESSION at once, or with arguments its tool's schema refuses, answered at once as a tool's error in
        the caller's language; a tool call ended if its request ends unanswered, or its caller cancels it
        (`McpCalls`)."""
        who, address = mcp_caller(scope)
        body = await _read_body(receive)
        try:
            message = json.loads(body or b"{}")
        except ValueError:
            message = {}
        message = message if isinstance(message, dict) else {}
        # a call over streamable HTTP is answered on its own request, so it is in flight while that request is; over
        # SSE (`/mcp/messages/`) the request only hands it over, and the loopback call's share applies instead
        streamed = not scope["path"].startswith(gradio_compat.MCP_MESSAGES)
        calls = message if streamed and message.get("method") in MCP_METHODS else None
        if streamed and message.get("method") == "notifications/cancelled":
            MCP_CALLS.cancel(who, _params(message).get("requestId"))
        if calls is not None and _MCP_CALLS[who] >= EVENTS_PER_SESSION:
            return await _mcp_refusal(scope, send, calls, "error.busy_session", limit=EVENTS_PER_SESSION)
        tool_call = calls is not None and calls.get("method") == "tools/call"
        if tool_call and self.check_tool_call is not None:
            params, lang = _params(calls), text.language(Request(scope).headers.get("accept-language"))
            refusal = self.check_tool_call(gradio_compat.blocks_of(scope), params.get("name"),
                                           params.get("arguments") or {}, lang)
            if refusal is not None:
                return await _mcp_answer(send, calls, refusal)
        if calls is not None:
            _MCP_CALLS[who] += 1  # no await since the check: calls arriving together see each other
        ticket = MCP_CALLS.open(who, calls.get("id")) if tool_call else None
        try:
            return await self.app(_stamped(scope, who, address, ticket), _replay(body, then=receive), send)
        finally:
            if ticket is not None:
                MCP_CALLS.close(ticket)  # a tool still running has no one to answer: stopped
            if calls is not None:
                _MCP_CALLS[who] -= 1
                if _MCP_CALLS[who] <= 0:
                    del _MCP_CALLS[who]


def _tools_only(send):
    """`send` for the MCP server's schema (what the API page's MCP tab and the Hub's MCP client list): the tools,
    the prompt and the resources, without the pages' endpoints, which its list of tools leaves out
    (`gradio_compat.hide_from_mcp`) but this route would still describe as MCP entries."""
    def kept(body: bytes) -> bytes:
        entries = json.loads(body)
        return json.dumps([e for e in entries if e.get("meta", {}).get("mcp_type") != gradio_compat.NOT_A_TOOL]).encode()

    return rewriting(send, lambda start: start.get("status") == 200, kept)


def rewriting(send, wanted, rewrite):
    """`send` for a response whose start `wanted(start)` accepts: its whole body held, then sent as `rewrite(body)`
    with its length; any other response passes as it is."""
    start: dict = {}
    chunks: list[bytes] = []

    async def held(message) -> None:
        nonlocal start
        if message["type"] == "http.response.start" and wanted(message):
            start = message
            return
        if start and message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = rewrite(b"".join(chunks))
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            return await send({"type": "http.response.body", "body": body})
        await send(message)

    return held


def _params(message: dict) -> dict:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


async def _mcp_refusal(scope, send, call: dict, key: str, **values) -> None:
    """A JSON-RPC answer to an MCP call that is not run (`_mcp_answer`), worded in the language the request asks
    for."""
    await _mcp_answer(send, call, text.t(key, text.language(Request(scope).headers.get("accept-language")), **values))


async def _mcp_answer(send, call: dict, words: str) -> None:
    """A JSON-RPC answer to an MCP call that is not run: for a tool, its result marked as an error (what an assistant
    reads and can act on), else a JSON-RPC error."""
    if call.get("method") == "tools/call":
        answer = {"result": {"content": [{"type": "text", "text": words}], "isError": True}}
    else:
        answer = {"error": {"code": -32000, "message": words}}
    body = json.dumps({"jsonrpc": "2.0", "id": call.get("id"), **answer}).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _endpoint(path: str) -> str | None:
    """The endpoint a REST call names (`/gradio_api/call/<name>`, `/run/<name>`), else None."""
    for prefix in (gradio_compat.CALL, *gradio_compat.RUN):
        if path.startswith(prefix):
            name = path[len(prefix):].strip("/")
            return name if name and "/" not in name else None  # `/call/v2/<name>` takes its values by name
    return None


def _owns(blocks, payload: dict) -> bool:
    """Whether the cancel names an event of the session it comes from (or no event this server knows of)."""
    known, session = gradio_compat.event_session(blocks, payload.get("event_id"))
    if known:
        return session == payload.get("session_hash")
    return not gradio_compat.streaming(blocks, payload.get("event_id"))  # a running stream Gradio no longer lists


def _over_share(blocks, session: str | None, address: str) -> str | None:
    events = [owner(*event) for event in gradio_compat.queued(blocks)]
    if session and _JOINING[session] + sum(1 for other, _ in events if other == session) >= EVENTS_PER_SESSION:
        return "error.busy_session"
    same_address = sum(1 for _, other in events if other == address)
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


def _replay(body: bytes, then=None):
    """A `receive` that gives the body already read, then `then()`'s messages (a streamed answer listens there for
    the client going away), or a disconnect."""
    sent = [False]

    async def receive():
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        if then is not None:
            return await then()
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
        await self.app(scope, receive, rewriting(send, _is_html, lighter))


def _is_html(start: dict) -> bool:
    headers = dict(start.get("headers", []))
    return start.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html") \
        and b"content-encoding" not in headers


def lighter(page: bytes) -> bytes:
    """A rendered Gradio page without what its browser never reads (any other body comes back as it was). Reading
    and writing its JSON takes ~30 ms: it is done once per page `PageCache` keeps, not per visit."""
    if gradio_compat.INLINED_CONFIG not in page:
        return page
    try:
        return _trim(page)
    except ValueError:  # not the JSON Gradio writes: the page goes as it is rather than not at all
        log.exception("the page could not be trimmed")
        return page


def _trim(page: bytes) -> bytes:
    import orjson

    for marker in (gradio_compat.INLINED_CONFIG, gradio_compat.INLINED_API_INFO):
        start = page.find(marker)
        end = page.find(gradio_compat.INLINED_END, start)
        if start < 0 or end < 0:
            continue
        start += len(marker)
        value = orjson.loads(page[start:end])
        if marker == gradio_compat.INLINED_CONFIG:
            # what the browser never reads: the API's description of each value (three copies) and an example
            # value; the server describes the API from its own copy (`/gradio_api/info`)
            for component in value.get("components", []):
                for key in gradio_compat.UNREAD_COMPONENT_KEYS:
                    component.pop(key, None)
        else:
            for endpoint in value.get("named_endpoints", {}).values():
                endpoint.pop("code_snippets", None)
        page = page[:start] + gradio_compat.inlined_json(value) + page[end:]
    return page


# --- the page, rendered once ----------------------------------------------------------------------------------------

PAGES_CACHED = 48  # rendered pages kept (least recently used dropped first): one per address and link asked for
_KEPT_PATHS = ("/config", "/config/")  # the config a client reads (`?page=`: one page's)


class PageCache:
    """ASGI middleware: the app's pages (a GET of `/` or of a page's own address) and its config (`/config`, what API
    clients and a reconnecting page read) rendered, trimmed and compressed once per address and link, then sent from memory.

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
        if scope["type"] != "http" or scope["method"] != "GET" or not _kept(scope["path"]):
            return await self.app(scope, receive, send)
        if gradio_compat.has_login(scope):
            return await self.app(scope, receive, send)
        config = gradio_compat.blocks_of(scope).config
        headers = dict(scope.get("headers", []))
        key = (scope.get("scheme"), scope.get("root_path", ""), scope["path"], scope.get("query_string", b""),
               *(headers.get(name, b"") for name in gradio_compat.PAGE_HEADERS))
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


PAGE_PATHS: set[str] = {""}  # the addresses of the app's pages ("" the Start page), set as the app is built


def _kept(path: str) -> bool:
    """Whether `path` is one `PageCache` keeps: a page of the app (`/`, `/<page>`: `PAGE_PATHS`) or its config."""
    return path in _KEPT_PATHS or path.strip("/") in PAGE_PATHS


async def _send_page(send, start: dict, body: bytes) -> None:
    await send(start)
    await send({"type": "http.response.body", "body": body})
