"""Attention maps: every layer's and head's weights for one text, and the numpy maths that reads them."""

from __future__ import annotations

import dataclasses
import math
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import (
    Result,
    jsonable,
    require_int,
    require_text,
)
from bg_demo.backend._common import (
    max_tokens as model_max_tokens,
)
from bg_demo.config import LIMITS
from bg_demo.errors import InputError
from bg_demo.tokens import display_tokens

MAX_TOKENS = 4096  # the most any call may ask for; a model reads at most its own limit (BERT 512, GPT-2 1,024)
ATTENTION_TYPES = {"encoder": "bidirectional", "decoder": "causal"}  # role -> who may attend to whom
HEAD_STATS = ("entropy", "to_special", "to_previous", "to_self")
VIEWS = ("head", "focus", "layer", "heads", "overview", "lines", "mean", "rollout")  # what the attention tab draws
FULL_CELLS = 512  # a map is sent at full resolution up to this many tokens a side, max-pooled above (GPT-2's 1,024)
PANEL_CELLS = 64  # a layer's heads side by side: each panel max-pooled to this many cells a side (~2 px a cell)
THUMB_CELLS = 24  # every layer's and head's map at once: each thumbnail max-pooled to this many cells a side
FOCUS_RADIUS = 12  # the focus window: this many tokens before and after the chosen queries, at full resolution
FOCUS_MAX_QUERIES = 32  # a chosen span of queries is cut to this many rows


# eq=False: numpy fields cannot be compared with ==, so the dataclass compares by identity
@dataclass(frozen=True, eq=False)
class AttentionResult(Result):
    text: str
    role: str  # "encoder" or "decoder"
    tokens: tuple[str, ...]  # display strings (bg_demo.tokens), one per token; [CLS]/[SEP] included for BERT
    special: tuple[bool, ...]  # [CLS], [SEP] or <|endoftext|>
    weights: np.ndarray  # (L, H, Q, K) float32; row q holds query q's weights over the keys, summing to 1
    truncated: bool  # the text made more than max_tokens tokens and only the first ones were read
    n_tokens_total: int  # tokens the whole text makes, before the cut
    attention_type: str  # "bidirectional" or "causal"
    model_id: str

    @property
    def sinks(self) -> tuple[bool, ...]:
        return sink_tokens(self.special, self.attention_type)

    def compact(self) -> AttentionResult:
        """The same result with float16 weights, half the memory, for keeping between redraws (a
        weight's error is under 0.0005, below what a colour scale or a hover with 3 decimals shows)."""
        return dataclasses.replace(self, weights=self.weights.astype(np.float16))

    def summary(self) -> dict:
        """to_dict() without the weights (megabytes of JSON at 128 tokens), with their shape instead."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "weights"}
        return jsonable(fields) | {"shape": list(self.weights.shape)}


@dataclass(frozen=True, eq=False)
class HeadStats(Result):
    """Per-head statistics, each (L, H) float32, averaged over the queries."""

    entropy: np.ndarray  # bits: 0 when a head looks at one token, log2(K) when it spreads evenly
    to_special: np.ndarray  # share of attention on the sink tokens (see AttentionResult.sinks)
    to_previous: np.ndarray  # share on the token just before the query (queries 1.. only)
    to_self: np.ndarray  # share on the query token itself


@dataclass(frozen=True, eq=False)
class AttentionView(Result):
    """The numbers behind one view of the attention tab: what its CSV and JSON exports hold."""

    view: str  # one of VIEWS
    layer: int
    head: int | None  # None for views over all heads
    axes: tuple[str, ...]  # the name of each axis of `values`, e.g. ("query", "key")
    quantity: str  # what the values are: "weight" or a HEAD_STATS name
    tokens: tuple[str, ...]  # the tokens along the query and key axes (without the special ones if hidden)
    values: np.ndarray  # float32, shaped as `axes` says
    query_start: int = 0  # the token of the first query row (a focus window's rows start where it was put)
    block: int = 1  # max-pooled: each value is the largest weight of `block` x `block` tokens (1: one weight each)

    def position(self, axis: str, i: int) -> int:
        """The token (the first of its block) that index i on a query or key axis stands for."""
        return i * self.block + (self.query_start if axis == "query" else 0)

    def rows(self) -> list[list]:
        """Long form for a CSV: a header, then per value its index on every axis (on the query and key axes the
        token's position, the first of its block when pooled, and the token) followed by the value."""
        named = {"query", "key"}
        header = [name for axis in self.axes for name in ((axis, f"{axis}_token") if axis in named else (axis,))]
        body = []
        for index in np.ndindex(self.values.shape):
            cells = []
            for axis, i in zip(self.axes, index):
                at = self.position(axis, i) if axis in named else i
                cells += [at, self.tokens[at]] if axis in named else [at]
            body.append(cells + [float(self.values[index])])
        return [header + [self.quantity]] + body


def sink_tokens(special, attention_type: str) -> tuple[bool, ...]:
    """The tokens head_stats counts as "special": [CLS]/[SEP] for BERT; for GPT-2, which has no
    [CLS], also its first token, which soaks up attention the same way."""
    first = attention_type == "causal"
    return tuple(bool(s) or (first and i == 0) for i, s in enumerate(special))


def require_role(role) -> str:
    if not isinstance(role, str) or role not in ATTENTION_TYPES:
        raise InputError("error.attention_role", got=repr(role))
    return role


def attention(
    text: str, role: str, *, max_tokens: int | None = None, model_id: str | None = None, compact: bool = False,
) -> AttentionResult:
    """Every layer's and head's attention for `text`, reading as many tokens as the model can (its own limit, BERT's
    512 or GPT-2's 1,024 positions) or `max_tokens` if fewer; `compact` gives float16 weights (what the views keep),
    made layer by layer as the model returns them, so the float32 maps are never all copied at once (GPT-2's 144
    maps at 1,024 tokens are 600 MB in float32) and half the bytes cross a process boundary (a ZeroGPU worker's)."""
    import torch

    role = require_role(role)
    text = require_text(text, max_chars=LIMITS.max_prompt_chars)  # a page: GPT-2's 1,024 tokens are ~4,500 characters
    limit = MAX_TOKENS if max_tokens is None else require_int(max_tokens, "max_tokens", 2, MAX_TOKENS)
    loaded = models.get(role, model_id)
    with loaded.use(eager_attention=True) as (tokenizer, model):
        limit = min(limit, model_max_tokens(tokenizer, model))
        n_total = len(tokenizer(text, verbose=False)["input_ids"])
        encoding = tokenizer(text, truncation=True, max_length=limit, return_tensors="pt").to(loaded.device)
        with torch.inference_mode():  # the body only: no vocabulary projection is needed here
            output = model.base_model(**encoding, output_attentions=True)
            maps = output.attentions  # L tensors (1, H, Q, K)
            kept = torch.float16 if compact else torch.float32
            weights = np.empty((len(maps), *maps[0].shape[1:]), dtype=np.float16 if compact else np.float32)
            for i, layer in enumerate(maps):  # torch converts on every core (numpy's float16 cast takes one)
                weights[i] = layer[0].to(kept).cpu().numpy()
        del output, maps
        ids = encoding["input_ids"][0].tolist()
        tokens = display_tokens(tokenizer, ids)  # bg_demo.tokens: the same labels as every other view
        marks = {tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.bos_token_id, tokenizer.eos_token_id}
    special = tuple(i in marks - {None} for i in ids)
    return AttentionResult(
        text, role, tokens, special, weights, len(ids) < n_total, n_total, ATTENTION_TYPES[role], loaded.model_id
    )


# --- the maths: pure numpy on (L, H, Q, K) weights ---------------------------------------------


def hide_special(weights: np.ndarray, special) -> np.ndarray:
    """Drop the special tokens as queries and as keys, then renormalise each row to sum to 1.
    (..., T, T) -> (..., T', T') with T' the number of ordinary tokens."""
    keep = ~np.asarray(special, dtype=bool)
    kept = weights[..., keep, :][..., keep]
    totals = kept.sum(axis=-1, keepdims=True)
    return np.divide(kept, totals, out=np.zeros_like(kept), where=totals > 0)


def mean_over_heads(weights: np.ndarray) -> np.ndarray:
    """(L, H, Q, K) -> (L, Q, K): each layer's heads averaged; rows still sum to 1."""
    return weights.mean(axis=1)


def rollout(weights: np.ndarray, dtype=np.float64) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema, 2020), (L, H, T, T) -> (L, T, T).

    Per layer: average the heads, add the identity for the residual stream, renormalise the rows;
    then multiply through the layers. rollout[l] is the flow from the input to the output of
    layer l; rollout[-1] is the usual rollout. Every row sums to 1."""
    layers = mean_over_heads(weights).astype(dtype)  # (L, T, T); float32 halves the time at 1,024 tokens
    layers = layers + np.eye(layers.shape[-1])
    layers /= layers.sum(axis=-1, keepdims=True)
    flow = np.empty_like(layers)
    flow[0] = layers[0]
    for i in range(1, len(layers)):
        flow[i] = layers[i] @ flow[i - 1]
    return flow.astype(np.float32)


def future_share(weights: np.ndarray) -> np.ndarray:
    """(L, H, Q, K) -> (L,): per layer, the share of attention that goes to keys after the query
    (the strict upper triangle), averaged over heads and queries. Exactly 0 under a causal mask. A layer at a time
    in float32 (float16 maps summed as float16 would lose digits)."""
    shares = [np.triu(np.asarray(layer, dtype=np.float32), k=1).sum(axis=-1).mean() for layer in weights]
    return np.asarray(shares, dtype=np.float32)


def head_stats(weights: np.ndarray, special) -> HeadStats:
    """Entropy and where the attention goes, per (layer, head); `special` marks the sink tokens."""
    n = weights.shape[-1]
    safe = np.where(weights > 0, weights, 1.0)
    entropy = -(weights * np.log2(safe)).sum(axis=-1).mean(axis=-1)  # (L, H)
    to_special = weights[..., np.asarray(special, dtype=bool)].sum(axis=-1).mean(axis=-1)
    diagonal = np.diagonal(weights, axis1=-2, axis2=-1)  # (L, H, T)
    previous = np.diagonal(weights, offset=-1, axis1=-2, axis2=-1)  # (L, H, T - 1): w[q, q - 1]
    to_previous = previous.mean(axis=-1) if n > 1 else np.zeros(weights.shape[:2])
    as_f32 = lambda a: np.asarray(a, dtype=np.float32)  # noqa: E731
    return HeadStats(as_f32(entropy), as_f32(to_special), as_f32(to_previous), as_f32(diagonal.mean(axis=-1)))


# --- views: what the attention tab draws and exports ----------------------------------------------
#
# A result at 512 tokens holds 144 maps of 512 x 512 (75 MB in float16), shared by every session that shows it (see
# bg_demo/ui/attention_store.py). A view reads the slice it needs (one head, one layer) and converts only that to
# float32; what needs every map (the statistics, the rollout, the thumbnails) is computed once per result and kept
# beside it (`derived`), so the fortieth student opening the teacher's text reads it from there.

_DERIVED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # result -> {key: [lock, value]}; see `derived`
_DERIVED_GUARD = threading.Lock()
_NOT_YET = object()


def derived(result: AttentionResult, key, make):
    """`make()`, computed once per result (the same result object serves a whole class); a caller asking while another
    computes it waits for that one computation. Kept beside the result, not in it: a result stays plain data that
    pickles (it crosses to ZeroGPU workers and the Ray tier, and pages keep it in their state). Results compare by
    identity, and the entry is weak: it goes when its result does."""
    with _DERIVED_GUARD:
        entry = _DERIVED.setdefault(result, {}).setdefault(key, [threading.Lock(), _NOT_YET])
    if entry[1] is _NOT_YET:
        with entry[0]:
            if entry[1] is _NOT_YET:
                entry[1] = make()
    return entry[1]


def prepare_views(result: AttentionResult) -> None:
    """Compute what the views that read every map need (the statistics, the thumbnails, the rollout), so that a
    later switch to them only draws; run on a thread of its own once a result is stored (see the UI's
    AttentionStore)."""
    stats_of(result)
    thumbnails(result)
    rollout_of(result)


def _kept(result: AttentionResult, hide: bool) -> np.ndarray | None:
    """The positions a view shows: None for all (hide=False, or nothing but special tokens, or none of them)."""
    if not hide or all(result.special) or not any(result.special):
        return None
    return np.flatnonzero(~np.asarray(result.special, dtype=bool))


def shown_tokens(result: AttentionResult, hide: bool = False) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """(tokens, sinks) as a view shows them (see `visible`)."""
    keep = _kept(result, hide)
    if keep is None:
        return result.tokens, result.sinks
    tokens = tuple(result.tokens[i] for i in keep)
    return tokens, sink_tokens([False] * len(tokens), result.attention_type)


def _maps(result: AttentionResult, index, hide: bool, exact: bool = True) -> np.ndarray:
    """result.weights[index] (a layer, or a layer and a head) as float32, special tokens dropped and rows
    renormalised when hide says so; exact=False leaves the stored float16 as it is where nothing is renormalised
    (max-pooling picks values, it needs no float32)."""
    if _kept(result, hide) is None:
        return np.asarray(result.weights[index], dtype=np.float32) if exact else result.weights[index]
    return hide_special(np.asarray(result.weights[index], dtype=np.float32), result.special)


def head_weights(result: AttentionResult, layer: int, head: int, hide: bool = False) -> np.ndarray:
    """One head's (Q, K) map as a view shows it."""
    return _maps(result, (layer, head), hide)


def layer_weights(result: AttentionResult, layer: int, hide: bool = False) -> np.ndarray:
    """One layer's (H, Q, K) maps as a view shows them."""
    return _maps(result, layer, hide)


def visible(result: AttentionResult, hide: bool = False) -> tuple[np.ndarray, tuple[str, ...], tuple[bool, ...]]:
    """(weights, tokens, sinks) as a view shows them: with hide=True, the special tokens dropped and the rows
    renormalised (unless nothing else is left, then everything is shown). Every map in float32: the views read a
    slice instead (`head_weights`, `layer_weights`)."""
    tokens, sinks = shown_tokens(result, hide)
    return _maps(result, slice(None), hide), tokens, sinks


def stats_of(result: AttentionResult, hide: bool = False) -> HeadStats:
    """head_stats over every layer, a layer at a time (never every map in float32 at once), once per result."""

    def make() -> HeadStats:
        _, sinks = shown_tokens(result, hide)
        layers = [head_stats(layer_weights(result, i, hide)[None], sinks) for i in range(result.weights.shape[0])]
        return HeadStats(*(np.concatenate([getattr(s, f.name) for s in layers]) for f in dataclasses.fields(HeadStats)))

    return derived(result, ("stats", hide), make)


def rollout_of(result: AttentionResult, hide: bool = False) -> np.ndarray:
    """rollout() of the result, (L, T, T) float16, once per result (the heads are averaged a layer at a time)."""

    def make() -> np.ndarray:
        means = np.stack([layer_weights(result, i, hide).mean(axis=0) for i in range(result.weights.shape[0])])
        return rollout(means[:, None], np.float32).astype(np.float16)

    return derived(result, ("rollout", hide), make)


def pool_max(matrix: np.ndarray, cells: int) -> tuple[np.ndarray, int]:
    """(..., Q, K) -> (..., ceil(Q / f), ceil(K / f)) and f: each value the largest weight of an f x f block, f the
    least whole number that brings both sides to `cells` or fewer (1: the matrix as it is). The largest, not the
    mean: a diagonal, a column on [SEP] or a one-token sink keeps its full weight when shrunk."""
    q, k = matrix.shape[-2:]
    f = max(1, math.ceil(max(q, k) / cells))
    if f == 1:
        return matrix, 1
    rows, cols = -(-q // f), -(-k // f)
    half = matrix.dtype == np.float16
    if half:  # numpy has no fast float16 max; non-negative float16 values order as their bits do, read as uint16
        matrix = matrix.view(np.uint16)
    if (rows * f, cols * f) == (q, k):  # 512 and 1,024 divide evenly: no padded copy
        padded = matrix
    else:
        padded = np.zeros((*matrix.shape[:-2], rows * f, cols * f), dtype=matrix.dtype)  # weights >= 0: 0 never wins
        padded[..., :q, :k] = matrix
    pooled = padded.reshape(*matrix.shape[:-2], rows, f, cols, f).max(axis=-1).max(axis=-2)
    return (pooled.view(np.float16) if half else pooled).astype(np.float32), f


def blocks(n: int, f: int) -> list[tuple[int, int]]:
    """The positions each of the ceil(n / f) pooled cells covers, first and last (inclusive)."""
    return [(i, min(i + f, n) - 1) for i in range(0, n, f)]


def thumbnails(result: AttentionResult, hide: bool = False) -> tuple[np.ndarray, int]:
    """Every layer's and head's map max-pooled to THUMB_CELLS a side: ((L, H, P, P) float32, f), once per result."""

    def make():
        pooled = [pool_max(_maps(result, i, hide, exact=False), THUMB_CELLS) for i in range(result.weights.shape[0])]
        return np.stack([p for p, _ in pooled]), pooled[0][1]

    return derived(result, ("thumbnails", hide), make)


def focus_rows(n_tokens: int, query: int, span: int = 1) -> tuple[int, int]:
    """The queries a focus window shows, first and last: `span` from `query`, at most FOCUS_MAX_QUERIES, within
    the text."""
    query = require_int(query, "query", 0, n_tokens - 1)
    span = require_int(span, "span", 1, n_tokens)
    return query, min(query + min(span, FOCUS_MAX_QUERIES), n_tokens) - 1


def focus_keys(n_tokens: int, first: int, last: int) -> tuple[int, int]:
    """The keys around queries first..last a focus window shows, first and last: FOCUS_RADIUS either side, within
    the text."""
    return max(0, first - FOCUS_RADIUS), min(n_tokens - 1, last + FOCUS_RADIUS)


def attention_view(
    result: AttentionResult, view: str, layer: int = 0, head: int = 0, hide: bool = False, stat: str = "entropy",
    query: int = 0, span: int = 1,
) -> AttentionView:
    """The numbers one view shows, as it shows them: maps over FULL_CELLS tokens a side (and the panels of a layer
    or of every head) max-pooled, with `block` saying how many tokens a side each value covers."""
    tokens, _ = shown_tokens(result, hide)
    n_layers, n_heads = result.weights.shape[:2]
    if view not in VIEWS:
        raise InputError("error.view", choices=", ".join(VIEWS), got=repr(view))
    layer = require_int(layer, "layer", 0, n_layers - 1)
    head = require_int(head, "head", 0, n_heads - 1)
    if view == "lines":
        return AttentionView(view, layer, head, ("query", "key"), "weight", tokens, head_weights(result, layer, head, hide))
    if view == "focus":
        first, last = focus_rows(len(tokens), query, span)
        rows = head_weights(result, layer, head, hide)[first:last + 1]
        return AttentionView(view, layer, head, ("query", "key"), "weight", tokens, rows, query_start=first)
    if view == "layer":
        values, f = pool_max(_maps(result, layer, hide, exact=False), PANEL_CELLS)
        return AttentionView(view, layer, None, ("head", "query", "key"), "weight", tokens, values, block=f)
    if view == "heads":
        values, f = thumbnails(result, hide)
        return AttentionView(view, layer, None, ("layer", "head", "query", "key"), "weight", tokens, values, block=f)
    if view == "overview":
        if stat not in HEAD_STATS:
            raise InputError("error.stat", choices=", ".join(HEAD_STATS), got=repr(stat))
        return AttentionView(view, layer, None, ("layer", "head"), stat, tokens, getattr(stats_of(result, hide), stat))
    if view == "head":
        matrix, who = head_weights(result, layer, head, hide), head
    elif view == "mean":
        matrix, who = layer_weights(result, layer, hide).mean(axis=0), None
    else:
        matrix, who = rollout_of(result, hide)[layer].astype(np.float32), None
    values, f = pool_max(matrix, FULL_CELLS)
    return AttentionView(view, layer, who, ("query", "key"), "weight", tokens, values, block=f)


# --- a summary in numbers: what an assistant (the MCP tools, `bg_demo.tutor`) reads instead of the maps -----------

SUMMARY_TOKENS = 64  # what a summary reads: a sentence or two, so that it stays a few kilobytes for any model
TOP_KEY_ENTRIES = 12_288  # each query's top key is given for every head while layers x heads x queries stays under
# this (bert-base and GPT-2 at 64 tokens: 9,216); past it (24-layer models) only for the layer asked


@dataclass(frozen=True, eq=False)
class AttentionSummary(Result):
    """Per head, where its attention goes, in numbers: no map but the one head asked for. Each (L, H) array holds
    one value per layer and head, averaged over the queries."""

    text: str
    role: str
    model_id: str
    attention_type: str  # "bidirectional" or "causal"
    tokens: tuple[str, ...]  # the tokens read, [CLS]/[SEP] included for BERT
    truncated: bool  # the text made more than SUMMARY_TOKENS tokens: only the first were read
    n_tokens_total: int
    entropy: np.ndarray  # (L, H) bits: 0 when each query looks at one token, log2(keys) when it spreads evenly
    to_previous: np.ndarray  # (L, H) share on the token just before the query
    to_self: np.ndarray  # (L, H) share on the query token itself
    to_first: np.ndarray  # (L, H) share on the first token ([CLS] for BERT; GPT-2's first word, its sink)
    to_sep: np.ndarray | None  # (L, H) share on the [SEP] tokens (BERT only; None for a model without them)
    future: np.ndarray  # (L,) share of attention on keys after the query: 0 under a causal mask
    top_keys: dict  # layer -> (H, Q) int: each query's most attended key, for the layers given (see TOP_KEY_ENTRIES)
    layer: int | None  # the layer asked for, if any
    head: int | None  # the head whose map is given, if any
    head_map: np.ndarray | None  # (Q, K) that head's weights


def attention_summary(
    text: str, role: str, *, layer: int | None = None, head: int | None = None, model_id: str | None = None,
) -> AttentionSummary:
    """Where each head of `role`'s model looks in `text` (its first SUMMARY_TOKENS tokens): entropy, the share on the
    previous token, on itself, on the first token and on [SEP], how much looks to the right, and each query's top
    key; one head's whole map only when `head` (with its `layer`) is asked for."""
    result = attention(text, role, max_tokens=SUMMARY_TOKENS, model_id=model_id)
    weights = result.weights  # (L, H, Q, K) float32
    n_layers, n_heads, n_tokens = weights.shape[:3]
    layer = None if layer is None or layer == "" else require_int(layer, "layer", 0, n_layers - 1)
    head = None if head is None or head == "" else require_int(head, "head", 0, n_heads - 1)
    if head is not None and layer is None:
        raise InputError("error.head_needs_layer")
    stats = head_stats(weights, result.special)
    seps = [i for i, special in enumerate(result.special) if special and i > 0]  # BERT's [SEP]s ([CLS] is first)
    to_sep = weights[..., seps].sum(axis=-1).mean(axis=-1) if role == "encoder" and seps else None
    if layer is not None:
        shown = [layer]
    else:
        shown = range(n_layers) if n_layers * n_heads * n_tokens <= TOP_KEY_ENTRIES else []
    top_keys = {i: weights[i].argmax(axis=-1).astype(np.int32) for i in shown}
    return AttentionSummary(
        result.text, role, result.model_id, result.attention_type, result.tokens, result.truncated,
        result.n_tokens_total, stats.entropy, stats.to_previous, stats.to_self,
        weights[..., 0].mean(axis=-1).astype(np.float32), None if to_sep is None else to_sep.astype(np.float32),
        future_share(weights), top_keys, layer, head, None if head is None else weights[layer, head].copy(),
    )
