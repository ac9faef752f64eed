"""What the server keeps for one browser session: the generations it has running, so that Stop and a closed tab can
end them. Everything else a page needs is the browser's (the language switch, the page width: inputs of every
event) or Gradio's (each page's result, in a `gr.State` with its own expiry).

One store, one bound, one idle expiry and one `unload` hook (`leave`)."""

from __future__ import annotations

import asyncio
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import gradio as gr
from cachetools import TTLCache

from bg_demo.ui.serving import SESSION_CAPACITY, SESSION_IDLE_SECONDS


@dataclass
class Session:
    """One browser's server-side record."""

    streams: set = field(default_factory=set)  # generations running (engine handles), ended by Stop or leaving


class Sessions:
    """Every browser's `Session`, the least recently used dropped past `capacity`, an idle one after `seconds`
    (cachetools' TTLCache: both bounds in one map); `leave` is the page's `unload` hook."""

    def __init__(self, capacity: int = SESSION_CAPACITY, seconds: float = SESSION_IDLE_SECONDS):
        self._sessions: TTLCache[str, Session] = TTLCache(maxsize=capacity, ttl=seconds, timer=time.monotonic)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def get(self, session: str) -> Session:
        with self._lock:
            found = self._sessions.get(session)
            if found is None:
                found = self._sessions[session] = Session()
            else:
                self._sessions[session] = found  # used now: its idle time starts again
            return found

    def peek(self, session: str) -> Session | None:
        with self._lock:
            return self._sessions.get(session)

    @contextmanager
    def running(self, session: str, handle):
        """Around a generation's stream: Stop and a closed tab can reach `handle` meanwhile."""
        record = self.get(session)
        with self._lock:
            record.streams.add(handle)
        try:
            yield handle
        finally:
            with self._lock:
                record.streams.discard(handle)

    def streams(self, session: str) -> set:
        record = self.peek(session)
        with self._lock:
            return set(record.streams) if record is not None else set()

    def cancel(self, session: str) -> set:
        """Cancel the session's generations (they leave the batch at their next step); never blocks."""
        handles = self.streams(session)
        for handle in handles:
            handle.cancel()
        return handles

    async def stop(self, session: str, wait: float = 2.0) -> int:
        """Cancel the session's generations and wait (without blocking the event loop) until their streams have sent
        their last result, so Stop ends each with its text so far. Returns how many there were."""
        handles = self.cancel(session)
        deadline = time.monotonic() + wait
        while handles & self.streams(session) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return len(handles)

    def leave(self, request: gr.Request) -> None:
        """A closed tab (Gradio's `unload`, at the page's next missed heartbeat): Gradio would let a running
        generation go on to its end, so it is cancelled here, and the record goes."""
        session = getattr(request, "session_hash", None)
        self.cancel(session)
        with self._lock:
            self._sessions.pop(session, None)


SESSIONS = Sessions()
