"""One copy of each attention result for every session that shows it, within a memory budget.

A result at BERT's 512 tokens is 75 MB of float16 maps, GPT-2's at 1,024 tokens 300 MB: forty sessions each keeping
their own would need gigabytes, and a class opening the teacher's link asks for the same text forty times. So a
session keeps a `Ref` (the text, the model, the tokens: kilobytes), and the maps live here once, keyed by what made
them; the least recently used are dropped first when the budget is reached, and a session whose maps were dropped
has them made again on its next redraw (as long as its first view took). Forty sessions asking for the same text at
once wait for one run of the model, not forty.

A `cachetools.LRUCache` counting bytes (`size_of`), not entries as functools.lru_cache does (a 12-token result and a
1,024-token one differ 7,000 times), behind `cachetools.cached` with a condition: callers asking for a key while the
first run for it is still going wait for that run instead of starting their own. A result larger than the whole
budget is not kept (each redraw makes it again); the default budget holds GPT-2's at 1,024 tokens.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import cachetools
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
        self._results = cachetools.LRUCache(maxsize=budget_bytes, getsizeof=size_of)  # the least recent go first
        self._guard = threading.Condition()  # guards the cache; callers of a key being made wait on it
        self._made = cachetools.cached(self._results, key=lambda key, make: key, condition=self._guard)(self._make)
        self.runs = 0  # how many times the backend ran (results not found here): for tests and the benchmark
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
            return int(self._results.currsize)

    def __len__(self) -> int:
        with self._guard:
            return len(self._results)

    def _make(self, key: tuple, make) -> AttentionResult:
        """`make()`, the result under `key` when it is not here (`_made(key, make)`: one run per key at a time, kept
        within the budget), its views prepared beside it."""
        result = make()
        self._prepare(key, result)
        return result

    def _run(self, function, *args, **kwargs):
        """A backend call, counted."""
        result = function(*args, **kwargs)
        with self._guard:
            self.runs += 1
        return result

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
        return ref_of(key, self._made(key, lambda: self._attention(key)))

    def result(self, ref: Ref) -> AttentionResult:
        """The maps a ref stands for: from here, or made again if they were dropped to stay within the budget."""
        return self._made(ref.key, lambda: self._attention(ref.key))

    def _attention(self, key: tuple) -> AttentionResult:
        role, _, text, model_id = key
        return self._run(backend.attention, text, role, model_id=model_id or None, compact=True)

    def compare(self, text: str, encoder_id: str | None = None, decoder_id: str | None = None) -> CompareRef:
        """Both models' refs for `text`: one call of the backend's `compare` (one GPU call on ZeroGPU) unless both
        are here already. The encoder's key is the one waited on: callers asking for the same text meanwhile wait
        for that one call, which leaves the decoder's result here too."""
        keys = self.key(text, "encoder", encoder_id), self.key(text, "decoder", decoder_id)
        both = []

        def run(role: str) -> AttentionResult:
            if not both:
                both.append(self._run(backend.compare, text, encoder_id=encoder_id or None,
                                      decoder_id=decoder_id or None, compact=True))
                if role == "encoder":  # kept for the decoder's turn, and for whoever waits on the encoder's key
                    self._keep(keys[1], both[0].decoder)
            return getattr(both[0], role)

        found = [self._made(keys[0], lambda: run("encoder")), self._made(keys[1], lambda: run("decoder"))]
        encoder, decoder = (ref_of(key, result) for key, result in zip(keys, found))
        shares = [derived(result, "future_share", lambda r=result: future_share(r.weights)) for result in found]
        return CompareRef(encoder.text, encoder, decoder, *shares)

    def _keep(self, key: tuple, result: AttentionResult) -> None:
        """Put a result made beside another (compare's decoder) here, its views prepared."""
        with self._guard:
            try:
                self._results[key] = result
            except ValueError:  # larger than the whole budget: not kept
                pass
        self._prepare(key, result)


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
