"""One copy of each attention result for every session that shows it, within a memory budget.

A result at BERT's 512 tokens is 75 MB of float16 maps, GPT-2's at 1,024 tokens 300 MB: forty sessions each keeping
their own would need gigabytes, and a class opening the teacher's link asks for the same text forty times. So a
session keeps a `Ref` (the text, the model, the tokens: kilobytes), and the maps live here once, keyed by what made
them; the least recently used are dropped first when the budget is reached, and a session whose maps were dropped
has them made again on its next redraw (as long as its first view took). Forty sessions asking for the same text at
once wait for one run of the model, not forty.

Why not functools.lru_cache: it counts entries, not bytes (a 12-token result and a 1,024-token one differ 7,000
times), and it would run the model once per waiting caller while the first run is still going.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from bg_demo import backend
from bg_demo.backend.attention import (
    AttentionResult,
    derived,
    future_share,
    prepare_views,
    require_role,
    sink_tokens,
)

DEFAULT_BUDGET_MB = 400  # a BERT-base result at 512 tokens is ~80 MB with its rollout: five of them, or one GPT-2 at 1,024
BUDGET_VARIABLE = "BG_DEMO_ATTENTION_CACHE_MB"


@dataclass(frozen=True)
class Ref:
    """What a session keeps of an attention result: everything but the maps, and the key to find them."""

    key: tuple  # (role, the model's source, text, the model as asked: "" for the role's default)
    text: str
    role: str
    tokens: tuple[str, ...]
    special: tuple[bool, ...]
    shape: tuple[int, int, int, int]  # (layers, heads, queries, keys)
    truncated: bool
    n_tokens_total: int
    attention_type: str
    model_id: str

    @property
    def sinks(self) -> tuple[bool, ...]:
        return sink_tokens(self.special, self.attention_type)

    def summary(self) -> dict:
        """As AttentionResult.summary(): every field but the maps, and their shape."""
        fields = ("text", "role", "tokens", "special", "truncated", "n_tokens_total", "attention_type", "model_id")
        return {name: list(v) if isinstance(v := getattr(self, name), tuple) else v for name in fields} | {
            "shape": list(self.shape)
        }


@dataclass(frozen=True, eq=False)  # numpy fields: compared and hashed by identity (gradio hashes a state's value)
class CompareRef:
    """What a session keeps of a BERT vs GPT-2 run: both models' refs and the per-layer shares (a few numbers)."""

    text: str
    encoder: Ref
    decoder: Ref
    encoder_future: np.ndarray
    decoder_future: np.ndarray

    def summary(self) -> dict:
        return {"text": self.text, "encoder": self.encoder.summary(), "decoder": self.decoder.summary(),
                "encoder_future": self.encoder_future.tolist(), "decoder_future": self.decoder_future.tolist()}


def size_of(result: AttentionResult) -> int:
    """Bytes a result takes here: its maps, and what the views derive from every map once (the rollout in float16,
    the thumbnails and statistics, which are small)."""
    layers, _, tokens, _ = result.weights.shape
    return int(result.weights.nbytes + layers * tokens * tokens * 2 * 1.05)


class AttentionStore:
    def __init__(self, budget_bytes: int | None = None) -> None:
        if budget_bytes is None:
            budget_bytes = int(float(os.environ.get(BUDGET_VARIABLE, DEFAULT_BUDGET_MB)) * 1e6)
        self.budget = budget_bytes
        self._results: OrderedDict[tuple, AttentionResult] = OrderedDict()
        self._guard = threading.Lock()
        self._running: dict[tuple, threading.Lock] = {}  # one run of the model per key at a time
        self.runs = 0  # how many results were made (not found here): for tests and the benchmark
        self.preparing: dict[tuple, threading.Thread] = {}  # the last views' preparation per key (see `_prepare`)

    @staticmethod
    def key(text: str, role: str, model_id: str | None) -> tuple:
        """(role, the model that will read it, text, the model as asked): the role's default is named by what it is
        now (a server, or a test, may change it), and the model as asked is what a rerun asks for again."""
        from bg_demo import config

        role = require_role(role)  # an unknown role is the caller's mistake, said as the backend says it
        return (role, model_id or config.settings().source(role), text, model_id or "")

    def used(self) -> int:
        with self._guard:
            return sum(size_of(r) for r in self._results.values())

    def __len__(self) -> int:
        with self._guard:
            return len(self._results)

    def _found(self, key: tuple) -> AttentionResult | None:
        with self._guard:
            result = self._results.get(key)
            if result is not None:
                self._results.move_to_end(key)
            return result

    def put(self, key: tuple, result: AttentionResult) -> Ref:
        """Keep `result` (float16 maps) under `key`, dropping the least recently used beyond the budget (never the
        one just put: a result larger than the whole budget is kept alone)."""
        with self._guard:
            self._results[key] = result
            self._results.move_to_end(key)
            total = sum(size_of(r) for r in self._results.values())
            while total > self.budget and len(self._results) > 1:
                _, dropped = self._results.popitem(last=False)
                total -= size_of(dropped)
        return ref_of(key, result)

    def _made(self, key: tuple, make) -> AttentionResult:
        """The result under `key`, made by `make()` (which returns it) if it is not here; callers asking for the
        same key meanwhile wait for that one run."""
        if (found := self._found(key)) is not None:
            return found
        with self._guard:
            running = self._running.setdefault(key, threading.Lock())
        try:
            with running:
                if (found := self._found(key)) is not None:
                    return found
                result = make()
                self.put(key, result)
                self._prepare(key, result)
                with self._guard:
                    self.runs += 1
                return result
        finally:
            with self._guard:
                self._running.pop(key, None)

    def _prepare(self, key: tuple, result: AttentionResult) -> None:
        """The views over every map computed now, on a thread beside the first view, not when a student first
        clicks one of them."""
        thread = threading.Thread(target=prepare_views, args=(result,), name="attention-views", daemon=True)
        thread.start()
        with self._guard:
            self.preparing = {k: t for k, t in self.preparing.items() if t.is_alive()} | {key: thread}

    def open(self, text: str, role: str, model_id: str | None = None) -> Ref:
        """The ref for `text` through the role's model (`model_id`, or its default), running the model only if
        no session has it here."""
        key = self.key(text, role, model_id)
        result = self._made(key, lambda: backend.attention(text, role, model_id=model_id or None, compact=True))
        return ref_of(key, result)

    def result(self, ref: Ref) -> AttentionResult:
        """The maps a ref stands for: from here, or made again if they were dropped to stay within the budget."""
        _, _, text, model_id = ref.key
        return self._made(ref.key, lambda: backend.attention(text, ref.role, model_id=model_id or None, compact=True))

    def compare(self, text: str, encoder_id: str | None = None, decoder_id: str | None = None) -> CompareRef:
        """Both models' refs for `text`: one call of the backend's `compare` (one GPU call on ZeroGPU) unless both
        are here already."""
        keys = self.key(text, "encoder", encoder_id), self.key(text, "decoder", decoder_id)
        found = [self._found(key) for key in keys]
        if None in found:
            both = backend.compare(text, encoder_id=encoder_id or None, decoder_id=decoder_id or None, compact=True)
            with self._guard:
                self.runs += 1
            found = [both.encoder, both.decoder]
            for key, result in zip(keys, found):
                self.put(key, result)
                self._prepare(key, result)
        encoder, decoder = (ref_of(key, result) for key, result in zip(keys, found))
        shares = [derived(result, "future_share", lambda r=result: future_share(r.weights)) for result in found]
        return CompareRef(encoder.text, encoder, decoder, *shares)


def ref_of(key: tuple, result: AttentionResult) -> Ref:
    return Ref(key, result.text, result.role, result.tokens, result.special, tuple(result.weights.shape),
               result.truncated, result.n_tokens_total, result.attention_type, result.model_id)


_shared: AttentionStore | None = None
_shared_guard = threading.Lock()


def shared() -> AttentionStore:
    """The store every session of this process shares (made on first use: nothing at import)."""
    global _shared
    with _shared_guard:
        if _shared is None:
            _shared = AttentionStore()
        return _shared
