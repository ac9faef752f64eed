"""Attention maps: every layer's and head's weights for one text, and the numpy maths that reads them."""

from __future__ import annotations

import dataclasses
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
from bg_demo.errors import InputError
from bg_demo.tokens import display_tokens

ATTENTION_MAX_TOKENS = 128  # more makes heatmaps unreadable and a figure megabytes of JSON
ATTENTION_TYPES = {"encoder": "bidirectional", "decoder": "causal"}  # role -> who may attend to whom
HEAD_STATS = ("entropy", "to_special", "to_previous", "to_self")
VIEWS = ("head", "layer", "overview", "lines", "mean", "rollout")  # what the attention tab can draw


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

    def rows(self) -> list[list]:
        """Long form for a CSV: a header, then per value its index on every axis (and the token on
        the query and key axes) followed by the value."""
        named = {"query", "key"}
        header = [name for axis in self.axes for name in ((axis, f"{axis}_token") if axis in named else (axis,))]
        body = []
        for index in np.ndindex(self.values.shape):
            cells = [c for axis, i in zip(self.axes, index) for c in ((i, self.tokens[i]) if axis in named else (i,))]
            body.append(cells + [float(self.values[index])])
        return [header + [self.quantity]] + body


def sink_tokens(special, attention_type: str) -> tuple[bool, ...]:
    """The tokens head_stats counts as "special": [CLS]/[SEP] for BERT; for GPT-2, which has no
    [CLS], also its first token, which soaks up attention the same way."""
    first = attention_type == "causal"
    return tuple(bool(s) or (first and i == 0) for i, s in enumerate(special))


def require_role(role) -> str:
    if role not in ATTENTION_TYPES:
        raise InputError("error.attention_role", got=repr(role))
    return role


def attention(
    text: str, role: str, *, max_tokens: int = ATTENTION_MAX_TOKENS, model_id: str | None = None,
    compact: bool = False,
) -> AttentionResult:
    """Every layer's and head's attention for `text`; `compact` gives float16 weights (what the views keep), shrunk
    where they are made, so half the bytes cross a process boundary (a ZeroGPU worker's)."""
    import torch

    role = require_role(role)
    text = require_text(text)
    limit = require_int(max_tokens, "max_tokens", 2, 1024)
    loaded = models.get(role, model_id)
    with loaded.use(eager_attention=True) as (tokenizer, model):
        limit = min(limit, model_max_tokens(tokenizer, model))
        n_total = len(tokenizer(text, verbose=False)["input_ids"])
        encoding = tokenizer(text, truncation=True, max_length=limit, return_tensors="pt").to(loaded.device)
        with torch.inference_mode():  # the body only: no vocabulary projection is needed here
            output = model.base_model(**encoding, output_attentions=True)
        weights = torch.stack(output.attentions)[:, 0].float().cpu().numpy()  # (L, H, Q, K)
        ids = encoding["input_ids"][0].tolist()
        tokens = display_tokens(tokenizer, ids)  # bg_demo.tokens: the same labels as every other view
        marks = {tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.bos_token_id, tokenizer.eos_token_id}
    special = tuple(i in marks - {None} for i in ids)
    result = AttentionResult(
        text, role, tokens, special, weights, len(ids) < n_total, n_total, ATTENTION_TYPES[role], loaded.model_id
    )
    return result.compact() if compact else result


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


def rollout(weights: np.ndarray) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema, 2020), (L, H, T, T) -> (L, T, T).

    Per layer: average the heads, add the identity for the residual stream, renormalise the rows;
    then multiply through the layers. rollout[l] is the flow from the input to the output of
    layer l; rollout[-1] is the usual rollout. Every row sums to 1."""
    layers = mean_over_heads(weights).astype(np.float64)  # (L, T, T)
    layers = layers + np.eye(layers.shape[-1])
    layers /= layers.sum(axis=-1, keepdims=True)
    flow = np.empty_like(layers)
    flow[0] = layers[0]
    for i in range(1, len(layers)):
        flow[i] = layers[i] @ flow[i - 1]
    return flow.astype(np.float32)


def future_share(weights: np.ndarray) -> np.ndarray:
    """(L, H, Q, K) -> (L,): per layer, the share of attention that goes to keys after the query
    (the strict upper triangle), averaged over heads and queries. Exactly 0 under a causal mask."""
    return np.triu(weights, k=1).sum(axis=-1).mean(axis=(1, 2))


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


def visible(result: AttentionResult, hide: bool = False) -> tuple[np.ndarray, tuple[str, ...], tuple[bool, ...]]:
    """(weights, tokens, sinks) as a view shows them: with hide=True, the special tokens dropped and
    the rows renormalised (unless nothing else is left, then everything is shown)."""
    weights = result.weights.astype(np.float32, copy=False)  # compact results keep float16
    if not hide or all(result.special) or not any(result.special):
        return weights, result.tokens, result.sinks
    tokens = tuple(tok for tok, s in zip(result.tokens, result.special) if not s)
    sinks = sink_tokens([False] * len(tokens), result.attention_type)
    return hide_special(weights, result.special), tokens, sinks


def attention_view(
    result: AttentionResult, view: str, layer: int = 0, head: int = 0, hide: bool = False, stat: str = "entropy"
) -> AttentionView:
    weights, tokens, sinks = visible(result, hide)
    n_layers, n_heads = weights.shape[:2]
    if view not in VIEWS:
        raise InputError("error.view", choices=", ".join(VIEWS), got=repr(view))
    layer = require_int(layer, "layer", 0, n_layers - 1)
    head = require_int(head, "head", 0, n_heads - 1)
    if view in ("head", "lines"):
        return AttentionView(view, layer, head, ("query", "key"), "weight", tokens, weights[layer, head])
    if view == "layer":
        return AttentionView(view, layer, None, ("head", "query", "key"), "weight", tokens, weights[layer])
    if view == "overview":
        if stat not in HEAD_STATS:
            raise InputError("error.stat", choices=", ".join(HEAD_STATS), got=repr(stat))
        values = getattr(head_stats(weights, sinks), stat)
        return AttentionView(view, layer, None, ("layer", "head"), stat, tokens, values)
    matrix = mean_over_heads(weights)[layer] if view == "mean" else rollout(weights)[layer]
    return AttentionView(view, layer, None, ("query", "key"), "weight", tokens, matrix)
