"""What every tab shares: running a backend call with a loading notice and user-facing errors."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from contextlib import contextmanager

import gradio as gr

from bg_demo import backend
from bg_demo.errors import BgDemoError
from bg_demo.ui.strings import t

log = logging.getLogger(__name__)

STREAM_INTERVAL = 0.15  # seconds between two messages of one stream
STATE_SECONDS = 3600  # a session's stored results expire this long after their last update (or when its tab closes)


def run(role: str, fn, *args, progress: gr.Progress | None = None, **kwargs):
    """Call a backend function; a user mistake or a missing model becomes a gr.Error the user can act on."""
    _loading_notice(role, progress)
    with _user_errors(getattr(fn, "__name__", str(fn))):
        return fn(*args, **kwargs)


class Streams:
    """The generations each browser session has running, so that Stop can end them with their result
    (the engine finishes a cancelled request and its stream yields it) instead of cutting the stream."""

    def __init__(self) -> None:
        self._by_session: dict[str, set] = {}
        self._lock = threading.Lock()

    @contextmanager
    def running(self, session: str, handle):
        with self._lock:
            self._by_session.setdefault(session, set()).add(handle)
        try:
            yield handle
        finally:
            with self._lock:
                handles = self._by_session.get(session, set())
                handles.discard(handle)
                if not handles:
                    self._by_session.pop(session, None)

    def of(self, session: str) -> set:
        with self._lock:
            return set(self._by_session.get(session, ()))

    def cancel(self, session: str) -> set:
        """Cancel the session's generations (they leave the batch at their next step); never blocks."""
        handles = self.of(session)
        for handle in handles:
            handle.cancel()
        return handles

    async def stop(self, session: str, wait: float = 2.0) -> int:
        """Cancel the session's generations and wait (without blocking the event loop) until their streams
        have sent their last result. Returns how many there were."""
        handles = self.cancel(session)
        deadline = time.monotonic() + wait
        while handles & self.of(session) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return len(handles)


STREAMS = Streams()


def leave(request: gr.Request) -> None:
    """A closed tab: Gradio runs this when the page's heartbeat ends, but would let a running
    generation go on to its end, so its requests are cancelled here."""
    STREAMS.cancel(request.session_hash)


async def stream(role: str, submit, session: str, progress: gr.Progress | None = None):
    """Start a backend stream with `submit()` (in a worker thread: it may load the model) and relay its
    updates on the event loop: no thread is held while a student waits, and a cancelled stream (Stop, a
    closed tab, an API cancel) only marks its request cancelled, never waits on the model."""
    _loading_notice(role, progress)
    with _user_errors(role):
        handle = await asyncio.to_thread(submit)
        try:
            with STREAMS.running(session, handle):
                async for update in handle:
                    yield update
                    if not update.done:
                        # a student reads no faster than this, and every message costs the server the same
                        # whatever it holds: a class of streams sends fewer, fuller ones (the newest is kept)
                        await asyncio.sleep(STREAM_INTERVAL)
        finally:
            handle.cancel()  # a no-op once finished; at once when the stream was cut short


def _loading_notice(role: str, progress: gr.Progress | None) -> None:
    if progress is not None and not backend.model_is_loaded(role):
        progress(0.0, desc=t("app.loading", role=role, model=backend.model_source(role)))


@contextmanager
def _user_errors(what: str):
    try:
        yield
    except BgDemoError as exc:
        raise gr.Error(str(exc), print_exception=False) from None
    except Exception:
        log.exception("%s failed", what)
        raise gr.Error(t("app.unexpected"), print_exception=False) from None


def token_view(tokens, labels=None) -> list[tuple[str, str | None]]:
    """Tokens for gr.HighlightedText, each its own piece, optionally labelled."""
    labels = labels if labels is not None else [None] * len(tokens)
    return [(f" {token} ", label) for token, label in zip(tokens, labels)]


def examples(inputs, outputs, fn, rows, labels=None) -> gr.Examples:
    """Examples that load into the inputs and run at once; nothing is computed at startup."""
    return gr.Examples(
        rows,
        inputs=inputs,
        outputs=outputs,
        fn=fn,
        run_on_click=True,
        cache_examples=False,
        label=t("common.examples"),
        example_labels=labels,
        api_visibility="private",
    )


def render_outputs(outputs) -> None:
    """Place outputs created with render=False (so examples can sit above them); the last, the raw
    JSON the API also returns, goes into a closed accordion."""
    *shown, raw = outputs
    for component in shown:
        component.render()
    with gr.Accordion(t("common.raw"), open=False):
        raw.render()
