"""Lazy, thread-safe loading and caching of (tokenizer, model), looked up by (role, model id)."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bg_demo import config
from bg_demo.errors import InputError, ModelUnavailableError

log = logging.getLogger(__name__)

# role -> transformers auto class; the encoder keeps BERT's pretraining heads (MLM + NSP)
MODEL_CLASSES = {
    "encoder": "AutoModelForPreTraining",
    "sentiment": "AutoModelForSequenceClassification",
    "ner": "AutoModelForTokenClassification",
    "qa": "AutoModelForQuestionAnswering",
    "decoder": "AutoModelForCausalLM",
}


class DeviceTurn:
    """A re-entrant lock handed over in arrival order: one model call at a time on a device.

    Two forward passes at once on a 2-core CPU fight over the cores and both slow down, so every
    model call on a device takes a turn. `threading.RLock` promises no order, and the decoding loop,
    which asks again straight after each step, would starve everyone else; here waiters are served
    first come, first served, and `pause()` lets a long holder (beam search) step aside between steps.
    A `batch` turn (a decoding step, which serves every student in the batch at once) does not queue
    behind every single request: batch and single turns alternate while both are waiting."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._owner: int | None = None
        self._depth = 0
        self._batch_turn = False  # whether the current (or last) turn was a batch turn
        self._waiters: deque[tuple[threading.Event, int, int, bool]] = deque()  # (wake-up, thread, depth, batch)

    def acquire(self, depth: int = 1, *, batch: bool = False) -> None:
        me = threading.get_ident()
        with self._guard:
            if self._owner == me:
                self._depth += depth
                return
            if self._owner is None and not self._waiters:
                self._owner, self._depth, self._batch_turn = me, depth, batch
                return
            wake = threading.Event()
            self._waiters.append((wake, me, depth, batch))
        wake.wait()  # the thread that handed over made this one the owner before waking it

    def release(self) -> None:
        with self._guard:
            if self._owner != threading.get_ident():
                raise RuntimeError("release of a device turn this thread does not hold")
            self._depth -= 1
            if self._depth == 0:
                self._hand_over()

    def pause(self) -> None:
        """Let every thread already waiting take its turn, then carry on (at any depth)."""
        with self._guard:
            if self._owner != threading.get_ident():
                raise RuntimeError("pause of a device turn this thread does not hold")
            if not self._waiters:
                return
            depth = self._depth
            self._hand_over()
        self.acquire(depth)

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def _hand_over(self) -> None:  # under self._guard
        if not self._waiters:
            self._owner, self._depth = None, 0
            return
        chosen = self._waiters[0]
        if not self._batch_turn:  # after a single request, a waiting batch goes next
            chosen = next((waiter for waiter in self._waiters if waiter[3]), chosen)
        self._waiters.remove(chosen)
        wake, self._owner, self._depth, self._batch_turn = chosen
        wake.set()


_TURNS: dict[str, DeviceTurn] = {}
_TURNS_GUARD = threading.Lock()


def device_turn(device: str) -> DeviceTurn:
    """The one DeviceTurn of a device, shared by every model on it."""
    with _TURNS_GUARD:
        return _TURNS.setdefault(device, DeviceTurn())


@dataclass(eq=False)
class LoadedModel:
    role: str
    model_id: str
    tokenizer: Any
    model: Any  # a transformers PreTrainedModel in eval mode on `device`
    device: str
    load_seconds: float = 0.0
    lock: DeviceTurn = field(default=None, repr=False)  # the device's turn, shared by the models on it

    def __post_init__(self) -> None:
        if self.lock is None:
            self.lock = device_turn(self.device)

    @contextmanager
    def use(self, *, eager_attention: bool = False, batch: bool = False):
        """Exclusive use of tokenizer and model while holding the device's turn: fast tokenizers are
        not thread-safe, two forward passes at once fight over the CPU's cores, and the attention
        implementation is switched to eager only for the calls that read attention maps."""
        self.lock.acquire(batch=batch)
        try:
            previous = self.model.config._attn_implementation
            if eager_attention and previous != "eager":
                self.model.set_attn_implementation("eager")
            try:
                yield self.tokenizer, self.model
            finally:
                if self.model.config._attn_implementation != previous:
                    self.model.set_attn_implementation(previous)
        finally:
            self.lock.release()


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hub answers at all; lets a load fail in seconds rather than after retries."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return False
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return True  # behind a proxy a direct probe proves nothing: let the download itself decide
    endpoint = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    host, port = endpoint.hostname or "huggingface.co", endpoint.port or (80 if endpoint.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
        return True
    except OSError:
        return False


def _from_pretrained(loader, source: str, **kwargs):
    """Local folder or Hub cache first; the network only when the Hub is reachable."""
    try:
        return loader.from_pretrained(source, local_files_only=True, **kwargs)
    except OSError:
        if Path(source).is_dir() or not hub_reachable():
            raise
        return loader.from_pretrained(source, **kwargs)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first if len(first) <= 240 else first[:237] + "..."


def load_model(role: str, source: str) -> LoadedModel:
    """Load one role's tokenizer and model; any failure becomes a ModelUnavailableError."""
    import torch
    import transformers

    settings = config.settings()
    started = time.perf_counter()
    log.info("loading the %s model %s on %s", role, source, settings.device)
    try:
        tokenizer = _from_pretrained(transformers.AutoTokenizer, source)
        model_class = getattr(transformers, MODEL_CLASSES[role])
        model = _from_pretrained(model_class, source, dtype=getattr(torch, settings.dtype))
        model.to(settings.device).eval()
    except Exception as exc:  # noqa: BLE001 - every failure must reach the user as one actionable message
        raise ModelUnavailableError(role, source, _reason(exc)) from exc
    seconds = time.perf_counter() - started
    log.info("loaded the %s model %s in %.1f s", role, source, seconds)
    return LoadedModel(role, source, tokenizer, model, settings.device, seconds)


class ModelStore:
    """Loads each (role, model id) once, on first use; a failed load is not cached, so the next request retries."""

    def __init__(self, loader=load_model):
        self._loader = loader
        self._loaded: dict[tuple[str, str], LoadedModel] = {}
        self._key_locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()

    def resolve(self, role: str, model_id: str | None = None) -> str:
        default = config.settings().source(role)
        if model_id is None or model_id == default:
            return default
        if model_id not in config.ALLOWED_MODELS[role]:
            allowed = ", ".join(config.ALLOWED_MODELS[role])
            raise InputError(f"'{model_id}' is not offered for the {role} role. Pick one of: {allowed}.")
        return model_id

    def get(self, role: str, model_id: str | None = None) -> LoadedModel:
        key = (role, self.resolve(role, model_id))
        if (loaded := self._loaded.get(key)) is not None:
            return loaded
        with self._guard:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:  # one load per key; loads of other roles go on in parallel
            if (loaded := self._loaded.get(key)) is None:
                loaded = self._loader(*key)
                self._loaded[key] = loaded
        return loaded

    def is_loaded(self, role: str, model_id: str | None = None) -> bool:
        return (role, self.resolve(role, model_id)) in self._loaded

    def clear(self) -> None:
        with self._guard:
            self._loaded.clear()
            self._key_locks.clear()


STORE = ModelStore()


def get(role: str, model_id: str | None = None) -> LoadedModel:
    """The loaded model for a role (the configured one unless an allowed `model_id` is given)."""
    return STORE.get(role, model_id)


def is_loaded(role: str, model_id: str | None = None) -> bool:
    return STORE.is_loaded(role, model_id)
