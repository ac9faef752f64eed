"""What the server keeps for one browser session: the streams it has running (generations, fine-tuning runs), so that
Stop and a closed tab can end them, and the models it fine-tuned (`TUNED`), which are its own. Everything else a page
needs is the browser's (the language switch, the page width: inputs of every event) or Gradio's (each page's result,
in a `gr.State` with its own expiry).

Sessions: one store, one bound, one idle expiry and one `unload` hook (`leave`), which also lets the session's
fine-tuned models go. Fine-tuned models: one store bounded in bytes, with the same idle expiry."""

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

    # stream -> kind ("generation", "tune_bert", ...): ended by Stop or leaving; a stream is anything with `cancel()`
    # (`common.Started`, which reaches its backend handle once the handle exists, or a handle)
    streams: dict = field(default_factory=dict)
    gpu_seconds: int = 0  # on ZeroGPU: the GPU time its runs have declared (what the student's quota was asked for)


class Sessions:
    """Every browser's `Session`, the least recently used dropped past `capacity`, an idle one after `seconds`
    (cachetools' TTLCache: both bounds in one map); `leave` is the page's `unload` hook."""

    def __init__(self, capacity: int = SESSION_CAPACITY, seconds: float = SESSION_IDLE_SECONDS, timer=time.monotonic):
        self._sessions: TTLCache[str, Session] = TTLCache(maxsize=capacity, ttl=seconds, timer=timer)
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
    def running(self, session: str, handle, kind: str = "generation"):
        """Around a stream: Stop (of its `kind`) and a closed tab can reach `handle` meanwhile."""
        record = self.get(session)
        with self._lock:
            record.streams[handle] = kind
        try:
            yield handle
        finally:
            with self._lock:
                record.streams.pop(handle, None)

    def streams(self, session: str, kind: str | None = None) -> set:
        """The session's running streams (of `kind`, or all)."""
        record = self.peek(session)
        with self._lock:
            if record is None:
                return set()
            return {handle for handle, its in record.streams.items() if kind is None or its == kind}

    def cancel(self, session: str, kind: str | None = None) -> set:
        """Cancel the session's streams of `kind` (all by default): each ends at its next step; never blocks."""
        handles = self.streams(session, kind)
        for handle in handles:
            handle.cancel()
        return handles

    async def stop(self, session: str, wait: float = 2.0, kind: str = "generation") -> int:
        """Cancel the session's streams of `kind` at once (each sends no more steps, only its final result) and wait
        (without blocking the event loop) until they have sent that result, so Stop ends each with what it has so far.
        Returns how many there were (0: none was running, e.g. it had already ended)."""
        handles = self.cancel(session, kind)
        deadline = time.monotonic() + wait
        while handles & self.streams(session) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return len(handles)

    def declared(self, session: str, seconds: int) -> int:
        """Add `seconds` of GPU time a run of the session declared to ZeroGPU; the session's total so far."""
        record = self.get(session)
        with self._lock:
            record.gpu_seconds += seconds
            return record.gpu_seconds

    def leave(self, request: gr.Request) -> None:
        """A closed tab (Gradio's `unload`, at the page's next missed heartbeat): Gradio would let a running
        stream go on to its end, so it is cancelled here, and the record and the session's fine-tuned models go."""
        session = getattr(request, "session_hash", None)
        self.cancel(session)
        with self._lock:
            self._sessions.pop(session, None)
        TUNED.forget(session)


# What the fine-tuned models of every session may hold at once, in bytes: a head is kilobytes and LoRA's matrices about
# a megabyte at base size (a class of 40 keeps both roles' in ~100 MB), the last layers ~28 MB a layer, so a class
# fine-tuning last layers drops its least recently used models past this bound (a student then fine-tunes again).
TUNED_BYTES = 512 * 2**20


class TunedModels:
    """Each session's fine-tuned models (`bg_demo.backend.finetune.Tuned`), by (session, page): the least recently
    used dropped once they hold more than `capacity` bytes, an idle one after `seconds`. A model belongs to its
    session: only that session's requests find it."""

    def __init__(self, capacity: int = TUNED_BYTES, seconds: float = SESSION_IDLE_SECONDS):
        self._models: TTLCache = TTLCache(maxsize=capacity, ttl=seconds, timer=time.monotonic,
                                          getsizeof=lambda tuned: max(1, tuned.nbytes))
        self._lock = threading.Lock()

    def keep(self, session: str, page: str, tuned) -> bool:
        """Keep the model; False when it alone is bigger than the whole store (it is then not kept)."""
        with self._lock:
            try:
                self._models[(session, page)] = tuned
            except ValueError:  # cachetools: larger than maxsize
                self._models.pop((session, page), None)
                return False
            return True

    def get(self, session: str, page: str):
        with self._lock:
            return self._models.get((session, page))

    def drop(self, session: str, page: str) -> None:
        with self._lock:
            self._models.pop((session, page), None)

    def forget(self, session: str) -> None:
        with self._lock:
            for key in [key for key in self._models if key[0] == session]:
                self._models.pop(key, None)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return int(self._models.currsize)

    def __len__(self) -> int:
        with self._lock:
            return len(self._models)


SESSIONS = Sessions()
TUNED = TunedModels()
