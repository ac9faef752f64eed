"""Figures for attention: one head, a layer's heads, every head at a glance, lines, aggregates, and BERT beside GPT-2.

Token axes use integer positions with the tokens as tick text (two tokens that print alike would
merge on a categorical axis), and hover labels read that tick text. Weights go in as float32 numpy
arrays, which plotly sends as base64: a third of the size of lists.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.backend.attention import attention_view, head_stats, visible
from bg_demo.figures.style import OKABE_ITO, base_layout

WEIGHTS_SCALE = "Viridis"  # perceptually even, colour-blind safe, light high weights stand out on a projector
STATS_SCALE = "Cividis"  # a second scale, so the overview never reads as a weight map
MASK_SCALE = [[0.0, "#E8E8E8"], [0.5, "#E8E8E8"], [0.5, OKABE_ITO["blue"]], [1.0, OKABE_ITO["blue"]]]
HOVER = "%{y} → %{x}: %{z:.3f}<extra></extra>"  # query → key: weight (the axes' tick text names the tokens)
STAT_LABELS = {
    "entropy": ("entropy (bits)", ".2f"),
    "to_special": ("share on [CLS]/[SEP] (GPT-2: first token)", ".1%"),
    "to_previous": ("share on the previous token", ".1%"),
    "to_self": ("share on the token itself", ".1%"),
}
LINE_BINS = (0.02, 0.05, 0.1, 0.2, 0.4, 1.01)  # weights below the first are not drawn
MODEL_NAMES = {"encoder": "BERT (encoder)", "decoder": "GPT-2 (decoder)"}
MODEL_COLOURS = {"encoder": OKABE_ITO["blue"], "decoder": OKABE_ITO["orange"]}


def token_axis(tokens, show: bool = True) -> dict:
    """Every position a tick named by its token; the labels shrink as tokens get many."""
    size = int(min(14, max(7, 700 / max(len(tokens), 1))))
    return dict(
        tickmode="array",
        tickvals=list(range(len(tokens))),
        ticktext=list(tokens),
        showticklabels=show,
        tickfont=dict(size=size),
        showgrid=False,
        zeroline=False,
    )


def _coloraxis(top: float, title: str = "weight") -> dict:
    return dict(colorscale=WEIGHTS_SCALE, cmin=0.0, cmax=max(float(top), 1e-6), colorbar=dict(title=title))


def _matrix_figure(matrix, tokens, title: str, hover: str = HOVER) -> go.Figure:
    """One (query, key) matrix as a heatmap, queries top to bottom, with square cells."""
    matrix = np.asarray(matrix, dtype=np.float32)  # (Q, K)
    fig = go.Figure(go.Heatmap(z=matrix, coloraxis="coloraxis", hovertemplate=hover))
    side = int(min(900, max(380, 160 + 16 * len(tokens))))
    fig.update_xaxes(**token_axis(tokens), tickangle=-60, title_text="key (attended to)")
    fig.update_yaxes(**token_axis(tokens), autorange="reversed", scaleanchor="x", title_text="query (attending)")
    fig.update_layout(**base_layout(title=title, height=side, coloraxis=_coloraxis(matrix.max())))
    return fig


def head_heatmap(result, layer: int, head: int, hide_special: bool = False) -> go.Figure:
    """One head as a heatmap. result: an AttentionResult, weights (L, H, Q, K)."""
    weights, tokens, _ = visible(result, hide_special)
    title = f"Layer {layer}, head {head}<br><sub>each row is a query, each column a key</sub>"
    return _matrix_figure(weights[layer, head], tokens, title)


def aggregate_heatmap(matrix, tokens, title: str) -> go.Figure:
    """A (Q, K) matrix made from many heads, e.g. their mean or the rollout."""
    return _matrix_figure(matrix, tokens, title)


def _spacing(rows: int) -> float:
    return min(0.08, 0.9 / (rows - 1)) if rows > 1 else 0.0  # make_subplots rejects more than 1 / (rows - 1)


def layer_heads(result, layer: int, hide_special: bool = False) -> go.Figure:
    """Every head of one layer as small multiples, four to a row, on one shared colour axis."""
    weights, tokens, _ = visible(result, hide_special)
    n_heads = weights.shape[1]
    cols = min(4, n_heads)
    rows = math.ceil(n_heads / cols)
    titles = [f"head {h}" for h in range(n_heads)]
    fig = make_subplots(rows, cols, subplot_titles=titles, horizontal_spacing=0.03, vertical_spacing=_spacing(rows))
    for h in range(n_heads):
        hover = f"head {h}<br>" + HOVER
        trace = go.Heatmap(z=weights[layer, h].astype(np.float32), coloraxis="coloraxis", hovertemplate=hover)
        fig.add_trace(trace, row=h // cols + 1, col=h % cols + 1)
    labelled = len(tokens) <= 16  # tick labels on the outer panels only while they can be read
    fig.update_xaxes(**token_axis(tokens, show=False), tickangle=-60)
    fig.update_yaxes(**token_axis(tokens, show=False), autorange="reversed")
    fig.update_xaxes(showticklabels=labelled, row=rows)
    fig.update_yaxes(showticklabels=labelled, col=1)
    fig.update_layout(
        **base_layout(title=f"Layer {layer}: all {n_heads} heads", height=80 + 230 * rows),
        coloraxis=_coloraxis(weights[layer].max()),
    )
    return fig


def head_overview(result, stat: str = "entropy", hide_special: bool = False, selected=None) -> go.Figure:
    """Every (layer, head) as a tile coloured by one statistic; `selected` (layer, head) is outlined."""
    weights, _, sinks = visible(result, hide_special)
    values = getattr(head_stats(weights, sinks), stat)  # (L, H)
    label, fmt = STAT_LABELS[stat]
    n_layers, n_heads = values.shape
    fig = go.Figure(
        go.Heatmap(
            z=values,
            colorscale=STATS_SCALE,
            xgap=3,
            ygap=3,
            colorbar=dict(title=label.split(" (")[0], tickformat=fmt if "%" in fmt else None),
            hovertemplate=f"layer %{{y}}, head %{{x}}<br>{label}: %{{z:{fmt}}}<extra></extra>",
        )
    )
    if selected is not None:
        layer, head = selected
        box = dict(type="rect", x0=head - 0.5, x1=head + 0.5, y0=layer - 0.5, y1=layer + 0.5)
        fig.add_shape(**box, line=dict(color=OKABE_ITO["vermillion"], width=4))
    fig.update_xaxes(title_text="head", dtick=1, showgrid=False, zeroline=False)
    fig.update_yaxes(title_text="layer", dtick=1, autorange="reversed", showgrid=False, zeroline=False)
    title = f"Every head at a glance: {label}"
    fig.update_layout(**base_layout(title=title, height=int(min(800, 140 + 40 * n_layers))))
    return fig


def _segments(queries, keys) -> tuple[np.ndarray, np.ndarray]:
    """x, y of line segments from query q (left, x=0) to key k (right, x=1), separated by NaN gaps."""
    x = np.tile(np.array([0.0, 1.0, np.nan], dtype=np.float32), len(queries))
    y = np.stack([queries, keys, np.full(len(queries), np.nan)], axis=1).astype(np.float32).ravel()
    return x, y


def head_lines(result, layer: int, head: int, hide_special: bool = False) -> go.Figure:
    """bertviz-style lines: tokens in two columns, a line from each query (left) to each key (right),
    thicker and darker for larger weights. Weights under LINE_BINS[0] are left out."""
    weights, tokens, _ = visible(result, hide_special)
    matrix = weights[layer, head]  # (Q, K)
    fig = go.Figure()
    for i, (low, high) in enumerate(zip(LINE_BINS[:-1], LINE_BINS[1:])):
        queries, keys = np.nonzero((matrix >= low) & (matrix < high))
        if len(queries):
            x, y = _segments(queries, keys)
            line = dict(color=OKABE_ITO["blue"], width=1 + 1.2 * i)
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=line, opacity=0.25 + 0.15 * i, hoverinfo="skip"))
    queries, keys = np.nonzero(matrix >= LINE_BINS[0])  # hover: a point in the middle of each line
    hover = [f"{tokens[q]} → {tokens[k]}: {matrix[q, k]:.3f}" for q, k in zip(queries, keys)]
    middle = dict(x=np.full(len(queries), 0.5, dtype=np.float32), y=((queries + keys) / 2).astype(np.float32))
    marker = dict(size=6, opacity=0)
    fig.add_trace(go.Scatter(**middle, mode="markers", marker=marker, hovertext=hover, hoverinfo="text"))
    for x, side in ((0, "middle left"), (1, "middle right")):
        column = dict(x=np.full(len(tokens), x), y=np.arange(len(tokens)), text=list(tokens), textposition=side)
        fig.add_trace(go.Scatter(**column, mode="text", hoverinfo="skip"))
    fig.update_xaxes(visible=False, range=[-0.6, 1.6])
    fig.update_yaxes(visible=False, autorange="reversed")
    title = f"Layer {layer}, head {head}<br><sub>queries on the left, keys on the right</sub>"
    fig.update_layout(**base_layout(title=title, height=int(min(1600, 120 + 22 * len(tokens))), showlegend=False))
    return fig


def attention_figure(result, view: str, layer: int = 0, head: int = 0, hide_special: bool = False, stat="entropy"):
    """The figure for one view of the attention tab (see backend.attention.VIEWS); bad choices raise InputError."""
    data = attention_view(result, view, layer, head, hide_special, stat)
    layer, head = data.layer, int(head)  # checked whole numbers: sliders may send 1.0
    if view == "head":
        return head_heatmap(result, layer, head, hide_special)
    if view == "layer":
        return layer_heads(result, layer, hide_special)
    if view == "overview":
        return head_overview(result, stat, hide_special, selected=(layer, head))
    if view == "lines":
        return head_lines(result, layer, head, hide_special)
    if view == "mean":
        return aggregate_heatmap(data.values, data.tokens, f"Layer {layer}: the mean of its heads")
    return aggregate_heatmap(data.values, data.tokens, f"Attention rollout, from the input up to layer {layer}")


# --- BERT beside GPT-2 --------------------------------------------------------------------------


def causal_mask_figure(n_tokens: int, tokens=None) -> go.Figure:
    """GPT-2's causal mask: query q may attend to key k only when k <= q (blue); the rest is masked."""
    tokens = list(tokens) if tokens is not None else [str(i) for i in range(n_tokens)]
    mask = np.tril(np.ones((n_tokens, n_tokens), dtype=np.float32))  # (Q, K): 1 = may attend
    trace = go.Heatmap(
        z=mask, colorscale=MASK_SCALE, zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
        hovertemplate="%{y} → %{x}: %{z}<extra>1 = may attend, 0 = masked</extra>",
    )
    fig = go.Figure(trace)
    side = int(min(800, max(340, 160 + 16 * n_tokens)))
    fig.update_xaxes(**token_axis(tokens), tickangle=-60, title_text="key")
    fig.update_yaxes(**token_axis(tokens), autorange="reversed", scaleanchor="x", title_text="query")
    title = "GPT-2's causal mask: blue = may attend"
    fig.update_layout(**base_layout(title=title, height=side))
    return fig


def future_share_bars(result) -> go.Figure:
    """Per layer, the share of attention going to tokens after the query, BERT beside GPT-2.
    result: a CompareResult."""
    fig = go.Figure()
    for role, shares in (("encoder", result.encoder_future), ("decoder", result.decoder_future)):
        fig.add_trace(
            go.Bar(
                x=np.arange(len(shares)),
                y=np.asarray(shares, dtype=np.float32),
                name=MODEL_NAMES[role],
                marker_color=MODEL_COLOURS[role],
                text=[f"{share:.0%}" for share in shares],
                textposition="outside",
                hovertemplate=f"{MODEL_NAMES[role]}, layer %{{x}}: %{{y:.1%}}<extra></extra>",
            )
        )
    top = max([*result.encoder_future, *result.decoder_future, 0.1])
    fig.update_xaxes(title_text="layer", dtick=1)
    fig.update_yaxes(title_text="attention to later tokens", tickformat=".0%", range=[0, min(1.0, top * 1.25)])
    title = "Attention to later tokens<br><sub>the share that goes to the right of each token</sub>"
    fig.update_layout(**base_layout(title=title, height=380, barmode="group", legend=dict(orientation="h", y=-0.2)))
    return fig


def same_word_lines(result) -> go.Figure:
    """Cosine similarity of the word's two vectors after every layer, one line per model.
    result: a SameWordResult."""
    fig = go.Figure()
    tracks = (result.encoder, result.decoder)
    for track in tracks:
        encoder = track.role == "encoder"
        fig.add_trace(
            go.Scatter(
                x=np.arange(len(track.similarity)),
                y=np.asarray(track.similarity, dtype=np.float64),
                mode="lines+markers",
                name=MODEL_NAMES[track.role],
                line=dict(color=MODEL_COLOURS[track.role], width=3, dash="solid" if encoder else "dot"),
                marker=dict(size=9, symbol="circle" if encoder else "square"),
                hovertemplate=f"{MODEL_NAMES[track.role]}, %{{x}}: %{{y:.4f}}<extra></extra>",
            )
        )
    n = max(len(track.similarity) for track in tracks)
    lowest = min(min(track.similarity) for track in tracks)
    fig.update_xaxes(**token_axis(["embeddings"] + [f"layer {i}" for i in range(n - 1)]), title_text="")
    fig.update_yaxes(title_text="cosine similarity", range=[min(0.5, math.floor(10 * (lowest - 0.05)) / 10), 1.02])
    title = f"'{result.word}' in the two sentences: how alike are its vectors?"
    fig.update_layout(**base_layout(title=title, height=400, legend=dict(orientation="h", y=-0.25)))
    return fig


def masked_both_bars(result) -> go.Figure:
    """BERT's guesses for the [MASK] (both sides) beside GPT-2's next tokens (left side only), best on top.
    result: a MaskedBothResult."""
    titles = ["BERT: reads both sides of the gap", "GPT-2: reads only the words before it"]
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.18)
    for col, (role, guesses) in enumerate((("encoder", result.encoder), ("decoder", result.decoder)), start=1):
        k = len(guesses)
        fig.add_trace(
            go.Bar(
                x=[guess.score for guess in guesses],
                y=list(range(k)),
                orientation="h",
                marker_color=MODEL_COLOURS[role],
                text=[f"{guess.score:.1%}" for guess in guesses],
                textposition="outside",
                customdata=[guess.token for guess in guesses],
                hovertemplate="%{customdata}: %{x:.2%}<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=col,
        )
        fig.update_yaxes(**token_axis([guess.token for guess in guesses]), autorange="reversed", row=1, col=col)
        top = max(guess.score for guess in guesses)
        fig.update_xaxes(tickformat=".0%", range=[0, min(1.0, top * 1.3) or 1.0], row=1, col=col)
    fig.update_layout(**base_layout(height=120 + 34 * max(len(result.encoder), len(result.decoder))))
    return fig
