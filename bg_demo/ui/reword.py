"""A language switch rewords what every page shows, without running a model again.

Each page's handler (a `common.shown_inline` wrapper: every `Task` has one) keeps, per browser session, its last
call: the values it was given and what the backend gave back, in order (`Tape`: each result, plain words-free data,
or the error it raised). On a switch each kept call is replayed in the new language: the handler runs as it did,
`common.run` and `common.stream` hand it the kept results instead of calling the models (figures are drawn again,
which is what puts them into words), and what it returns goes where it went. An error comes back in the new
language too: the backend's error keeps its text key and values. Nothing is asked of a tab: a page takes part by
running through `common.run`/`common.stream` inside a `shown_inline` handler, as every page does.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import gradio as gr
from gradio.context import LocalContext

from bg_demo import text
from bg_demo.errors import BgDemoError
from bg_demo.ui.serving import SESSION_CAPACITY, SESSION_IDLE_SECONDS

log = logging.getLogger(__name__)

MARK = "_bg_rewords"  # the attribute that marks a page's handler (its last output is the page's error box)
STREAM = "stream"  # a tape's name for a stream's last update


class Diverged(Exception):
    """A replayed handler asked the backend for something its tape does not hold: it is left as it is."""


@dataclass
class Tape:
    """What one call of a handler got from the backend, in order: (name, failed, result or error)."""

    calls: list = field(default_factory=list)
    replaying: bool = False
    _next: int = 0

    def record(self, name: str, outcome, failed: bool = False) -> None:
        if name == STREAM and self.calls and self.calls[-1][0] == STREAM:
            self.calls.pop()  # a stream keeps only its last update: the one on screen
        self.calls.append((name, failed, outcome))

    def kept(self, fn, *args, **kwargs):
        """`fn(*args, **kwargs)`, its result or its error recorded."""
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            self.record(name_of(fn), exc, failed=True)
            raise
        self.record(name_of(fn), result)
        return result

    def replay(self, name: str):
        """The kept result for the call `name`; a kept error is raised as a gr.Error in the language served now."""
        if self._next >= len(self.calls) or self.calls[self._next][0] != name:
            raise Diverged(name)
        _, failed, outcome = self.calls[self._next]
        self._next += 1
        if not failed:
            return outcome
        if isinstance(outcome, BgDemoError):
            raise gr.Error(str(outcome), print_exception=False)
        if isinstance(outcome, gr.Error):  # ZeroGPU's refusal: its words kept, framed in the language now
            raise gpu_refusal(outcome)
        raise gr.Error(text.t("app.unexpected"), print_exception=False)


def gpu_refusal(error: gr.Error) -> gr.Error:
    """ZeroGPU's own refusal (no GPU free, the visitor's quota spent), for the student: its words kept, framed in the
    language served now."""
    return gr.Error(text.t("app.gpu_service", message=str(error.message)), print_exception=False)


_tape: ContextVar[Tape | None] = ContextVar("bg_demo_tape", default=None)


def tape() -> Tape | None:
    """The tape of the handler call being served, if any (recording, or replaying after a switch)."""
    return _tape.get()


def name_of(fn) -> str:
    """How a tape names a backend function (the same function in a record and in its replay)."""
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', fn)}"


def taped(fn) -> bool:
    """Whether `common.run(fn)` is kept: everything but a figure, which is drawn again in the new words."""
    return not getattr(fn, "__module__", "").startswith("bg_demo.figures")


@contextmanager
def using(current: Tape | None):
    """Serve what runs inside with `current` as its tape."""
    token = _tape.set(current)
    try:
        yield current
    finally:
        _tape.reset(token)


@dataclass
class Call:
    """One call of a handler in one session: its values, its tape, and whether it ended in the error box."""

    order: int
    args: tuple
    kwargs: dict
    tape: Tape
    failed: bool = False


class Kept:
    """Every session's last call of each handler that showed a result, and its last call since then that ended in
    the error box (which leaves that result on screen); sessions are bounded as Gradio's own are (how many, how
    idle)."""

    def __init__(self, sessions: int = SESSION_CAPACITY, seconds: float = SESSION_IDLE_SECONDS):
        self.sessions, self.seconds = sessions, seconds
        self._by_session: OrderedDict[str, tuple[float, dict]] = OrderedDict()
        self._lock = threading.Lock()
        self._order = 0

    def keep(self, session: str, handler, call: Call) -> None:
        with self._lock:
            self._order += 1
            call.order = self._order
            _, calls = self._by_session.pop(session, (0.0, {}))
            shown, _ = calls.get(handler, (None, None))
            calls[handler] = (shown, call) if call.failed else (call, None)
            self._by_session[session] = (time.monotonic(), calls)
            while len(self._by_session) > self.sessions:
                self._by_session.popitem(last=False)

    def of(self, session: str) -> list[tuple[object, Call]]:
        """The session's kept calls, oldest first (none past its idle time)."""
        with self._lock:
            used, calls = self._by_session.get(session, (0.0, {}))
            if time.monotonic() - used > self.seconds:
                self._by_session.pop(session, None)
                return []
            found = [(handler, call) for handler, pair in calls.items() for call in pair if call is not None]
        return sorted(found, key=lambda item: item[1].order)

    def forget(self, session: str | None) -> None:
        with self._lock:
            self._by_session.pop(session, None)


KEPT = Kept()


def keep_update(outcome, failed: bool = False) -> None:
    """A stream's update (or its error), on the tape of the handler relaying it. The tape is read at every step,
    since each step of a generator runs in its caller's context."""
    current = _tape.get()
    if current is not None:
        current.record(STREAM, outcome, failed)


def _session() -> str | None:
    request = LocalContext.request.get(None)
    return getattr(request, "session_hash", None) if request is not None else None


def begin(args: tuple, kwargs: dict) -> Call:
    """A call of a page's handler starting: on a fresh tape, or on the replay's."""
    return Call(0, args, kwargs, _tape.get() or Tape())


def keep(handler, call: Call) -> None:
    """A finished call, kept for its browser session (not a replay's, nor one with no session, e.g. a test's)."""
    session = _session()
    if session and not call.tape.replaying:
        KEPT.keep(session, handler, call)


@contextmanager
def recording(handler, args: tuple, kwargs: dict):
    """Around one call of a page's handler: its tape, kept when the call is done. The body marks a call that
    `failed`. (A stream's handler uses `begin` and `keep`: a context cannot span a generator's steps.)"""
    call = begin(args, kwargs)
    with using(call.tape):
        yield call
    keep(handler, call)


# --- the switch ------------------------------------------------------------------------------------------------

_WORDLESS = (gr.State, gr.JSON, gr.File)  # outputs whose values hold no words: never sent again


def rewording(demo: gr.Blocks):
    """`(reword, outputs)`: the handler a language switch runs after the session's language is set, and the outputs
    it may change: what the pages' handlers show, less what holds no words (kept state, raw JSON, files) and what
    an event reads (a choice the student made, which a replay would reset: such values are not words)."""
    targets: dict = {}
    read = set()
    for dependency in demo.fns.values():
        read.update(block._id for block in dependency.inputs)
        if getattr(dependency.fn, MARK, False):
            targets.setdefault(dependency.fn, list(dependency.outputs))
    index: dict[int, int] = {}  # output id -> its place among the switch's outputs
    shown = []
    for outputs in targets.values():
        *values, box = outputs
        for block in (*values, box):
            if block._id not in index and (block is box or not (isinstance(block, _WORDLESS) or block._id in read)):
                index[block._id] = len(shown)
                shown.append(block)

    async def reword(lang: str, request: gr.Request):
        """Every kept call of this session replayed in `lang`, in the order they were made (the last word wins)."""
        values = [gr.skip()] * len(shown)
        for handler, call in KEPT.of(request.session_hash):
            outputs = targets.get(handler)
            if outputs is None:
                continue
            with text.use(lang):
                got = await _replayed(handler, call, outputs)
            if got is None:  # cannot be replayed: its error, if any, cannot be reworded either
                got = [gr.skip()] * (len(outputs) - 1) + [gr.Markdown(value="", visible=False)]
            for block, value in zip(outputs, got):
                if block._id in index and not _skipped(value):
                    values[index[block._id]] = value
        return values

    return reword, shown


async def _replayed(handler, call: Call, outputs: list) -> list | None:
    """The handler's outputs for its kept call, in the language served now; None if it cannot be replayed: a call
    that writes files (a replay would write them again) or one whose tape no longer fits."""
    if any(isinstance(block, gr.File) for block in outputs):
        return None
    replay = Tape(call.tape.calls, replaying=True)
    try:
        if inspect.isasyncgenfunction(handler):
            last = None
            with using(replay):
                async for last in handler(*call.args, **call.kwargs):
                    pass
            return None if last is None else list(last)
        return list(await asyncio.to_thread(_in_tape, replay, handler, call))
    except Exception:  # Diverged, or anything a handler raises that its page never showed
        log.debug("%s was not reworded", getattr(handler, "__name__", handler), exc_info=True)
        return None


def _in_tape(replay: Tape, handler, call: Call):
    with using(replay):
        return handler(*call.args, **call.kwargs)


def _skipped(value) -> bool:
    return isinstance(value, dict) and value.get("__type__") == "update" and len(value) == 1
