"""Figures for attention: one head, a layer's heads, every head at a glance, lines, aggregates, and BERT beside GPT-2.

Heatmap axes are categories named by token and position ("bank #4": two tokens that print alike
stay apart), so hovers name the whole token; tick labels are thinned and shortened (see axes.py).
Weights go in as float32 numpy arrays, which plotly sends as base64: a third of the size of lists.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.backend.attention import attention_view, head_stats, visible
from bg_demo.figures.axes import (
    TICK_FONT,
    layer_names,
    map_height,
    percent_axis,
    percent_ticks,
    shorten,
    shown_positions,
    token_axis,
    token_names,
)
from bg_demo.figures.style import OKABE_ITO, base_layout, plain
from bg_demo.figures.tasks import add_probability_bars, bars_height
from bg_demo.text import t

WEIGHTS_SCALE = "Viridis"  # perceptually even, colour-blind safe, light high weights stand out on a projector
STATS_SCALE = "Cividis"  # a second scale, so the overview never reads as a weight map
MASK_SCALE = [[0.0, "#E8E8E8"], [0.5, "#E8E8E8"], [0.5, OKABE_ITO["blue"]], [1.0, OKABE_ITO["blue"]]]
# each statistic's hover format; its words are the texts "fig.attention.stat.<stat>" (hover, title) and
# "fig.attention.stat_short.<stat>" (colour bar)
STAT_FORMATS = {"entropy": ".2f", "to_special": ".1%", "to_previous": ".1%", "to_self": ".1%"}
LINE_BINS = (0.02, 0.05, 0.1, 0.2, 0.4, 1.01)  # weights below the first are not drawn
MODEL_COLOURS = {"encoder": OKABE_ITO["blue"], "decoder": OKABE_ITO["orange"]}
PANEL_HEIGHT = 140  # px per row of the layer grid: three rows (twelve heads) fit MAX_HEIGHT
GRID_CHROME = 170  # px around the grid: title, subplot titles, rotated key labels
PANEL_TICK_LABELS = 8  # a ~140-px panel has room for about eight token labels


def _hover() -> str:
    """A weight's hover, in the language served; the axes' categories name the tokens."""
    query, key, weight = t("fig.attention.query"), t("fig.attention.key"), t("fig.attention.weight")
    return f"{query} %{{y}} → {key} %{{x}}<br>{weight} %{{z:.3f}}<extra></extra>"


def model_name(role: str) -> str:
    """"BERT (encoder)" or "GPT-2 (decoder)", in the language served."""
    return t(f"fig.attention.model.{role}")


def _coloraxis(top: float, title: str | None = None) -> dict:
    title = t("fig.attention.weight") if title is None else title
    return dict(colorscale=WEIGHTS_SCALE, cmin=0.0, cmax=max(float(top), 1e-6), colorbar=dict(title=title))


def _token_axes(fig, tokens, key_title: str, query_title: str) -> None:
    """Keys across, queries down (query 0 on top), on axes whose categories are `token_names(tokens)`."""
    fig.update_xaxes(**token_axis(tokens), type="category", tickangle=-60, title_text=key_title)
    fig.update_yaxes(**token_axis(tokens), type="category", autorange="reversed", title_text=query_title)


def _matrix_figure(matrix, tokens, title: str, subtitle: str = "") -> go.Figure:
    """One (query, key) matrix as a heatmap filling the width, as tall as its tokens need (see map_height)."""
    matrix = np.asarray(matrix, dtype=np.float32)  # (Q, K)
    names = token_names(tokens)
    fig = go.Figure(go.Heatmap(z=matrix, x=names, y=names, coloraxis="coloraxis", hovertemplate=_hover()))
    _token_axes(fig, tokens, t("fig.attention.key_axis"), t("fig.attention.query_axis"))
    fig.update_layout(**base_layout(map_height(len(tokens)), title, subtitle, coloraxis=_coloraxis(matrix.max())))
    return fig


def head_heatmap(result, layer: int, head: int, hide_special: bool = False) -> go.Figure:
    """One head as a heatmap. result: an AttentionResult, weights (L, H, Q, K)."""
    weights, tokens, _ = visible(result, hide_special)
    subtitle = t("fig.attention.head_subtitle")
    return _matrix_figure(weights[layer, head], tokens, t("fig.attention.head_title", layer=layer, head=head), subtitle)


def aggregate_heatmap(matrix, tokens, title: str) -> go.Figure:
    """A (Q, K) matrix made from many heads, e.g. their mean or the rollout."""
    return _matrix_figure(matrix, tokens, title)


def _spacing(rows: int) -> float:
    return min(0.08, 0.9 / (rows - 1)) if rows > 1 else 0.0  # make_subplots rejects more than 1 / (rows - 1)


def layer_heads(result, layer: int, hide_special: bool = False) -> go.Figure:
    """Every head of one layer as small multiples, four to a row, on one shared colour axis; token labels
    (every k-th) on the left column and under the lowest panel of each column."""
    weights, tokens, _ = visible(result, hide_special)
    n_heads = weights.shape[1]
    cols = min(4, n_heads)
    rows = math.ceil(n_heads / cols)
    titles = [t("fig.attention.head_n", head=h) for h in range(n_heads)]
    fig = make_subplots(rows, cols, subplot_titles=titles, horizontal_spacing=0.03, vertical_spacing=_spacing(rows))
    names = token_names(tokens)
    weight_hover = _hover()
    for h in range(n_heads):
        z = weights[layer, h].astype(np.float32)  # (Q, K)
        hover = f"{titles[h]}<br>" + weight_hover
        trace = go.Heatmap(z=z, x=names, y=names, coloraxis="coloraxis", hovertemplate=hover)
        fig.add_trace(trace, row=h // cols + 1, col=h % cols + 1)
    axis = token_axis(tokens, PANEL_TICK_LABELS, show=False)
    fig.update_xaxes(**axis, type="category", tickangle=-60)
    fig.update_yaxes(**axis, type="category", autorange="reversed")
    for h in range(max(0, n_heads - cols), n_heads):  # the lowest panel of each column
        fig.update_xaxes(showticklabels=True, row=h // cols + 1, col=h % cols + 1)
    fig.update_yaxes(showticklabels=True, col=1)
    height = GRID_CHROME + PANEL_HEIGHT * rows
    fig.update_layout(
        **base_layout(height, t("fig.attention.layer_title", layer=layer, n_heads=n_heads), subplot_titles=1),
        coloraxis=_coloraxis(weights[layer].max()),
    )
    return fig


def head_overview(result, stat: str = "entropy", hide_special: bool = False, selected=None) -> go.Figure:
    """Every (layer, head) as a tile coloured by one statistic; `selected` (layer, head) is outlined."""
    weights, _, sinks = visible(result, hide_special)
    values = getattr(head_stats(weights, sinks), stat)  # (L, H)
    fmt = STAT_FORMATS[stat]
    label, short = t(f"fig.attention.stat.{stat}"), t(f"fig.attention.stat_short.{stat}")
    layer_word, head_word = t("fig.attention.layer"), t("fig.attention.head")
    n_layers = values.shape[0]
    ticks = percent_ticks(float(np.nanmax(values) - np.nanmin(values))) if "%" in fmt else {}
    fig = go.Figure(
        go.Heatmap(
            z=values,
            colorscale=STATS_SCALE,
            xgap=3,
            ygap=3,
            colorbar=dict(title=short, **ticks),
            hovertemplate=f"{layer_word} %{{y}}, {head_word} %{{x}}<br>{label}: %{{z:{fmt}}}<extra></extra>",
        )
    )
    if selected is not None:
        layer, head = selected
        box = dict(type="rect", x0=head - 0.5, x1=head + 0.5, y0=layer - 0.5, y1=layer + 0.5)
        fig.add_shape(**box, line=dict(color=OKABE_ITO["vermillion"], width=4))
    fig.update_xaxes(title_text=head_word, dtick=1, showgrid=False, zeroline=False)
    fig.update_yaxes(title_text=layer_word, dtick=1, autorange="reversed", showgrid=False, zeroline=False)
    title = t("fig.attention.overview_title", stat=label)
    fig.update_layout(**base_layout(map_height(n_layers), title))
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
    for i, (low, high) in enumerate(itertools.pairwise(LINE_BINS)):
        queries, keys = np.nonzero((matrix >= low) & (matrix < high))
        if len(queries):
            x, y = _segments(queries, keys)
            line = dict(color=OKABE_ITO["blue"], width=1 + 1.2 * i)
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=line, opacity=0.25 + 0.15 * i, hoverinfo="skip"))
    queries, keys = np.nonzero(matrix >= LINE_BINS[0])  # hover: a point in the middle of each line
    hover = [f"{plain(tokens[q])} → {plain(tokens[k])}: {matrix[q, k]:.3f}" for q, k in zip(queries, keys)]
    middle = dict(x=np.full(len(queries), 0.5, dtype=np.float32), y=((queries + keys) / 2).astype(np.float32))
    marker = dict(size=6, opacity=0)
    fig.add_trace(go.Scatter(**middle, mode="markers", marker=marker, hovertext=hover, hoverinfo="text"))
    shown = shown_positions(len(tokens))  # every k-th token named, as on the heatmaps' axes
    for x, side in ((0, "middle left"), (1, "middle right")):
        text = [plain(shorten(tokens[i])) for i in shown]
        column = dict(x=np.full(len(shown), x), y=np.array(shown), text=text, textposition=side)
        fig.add_trace(go.Scatter(**column, mode="text", textfont=TICK_FONT, hoverinfo="skip"))
    fig.update_xaxes(visible=False, range=[-0.6, 1.6])
    fig.update_yaxes(visible=False, autorange="reversed")
    subtitle = t("fig.attention.lines_subtitle")
    title = t("fig.attention.head_title", layer=layer, head=head)
    fig.update_layout(**base_layout(map_height(len(tokens)), title, subtitle, showlegend=False))
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
        return aggregate_heatmap(data.values, data.tokens, t("fig.attention.mean_title", layer=layer))
    return aggregate_heatmap(data.values, data.tokens, t("fig.attention.rollout_title", layer=layer))


# --- BERT beside GPT-2 --------------------------------------------------------------------------


def causal_mask_figure(n_tokens: int, tokens=None) -> go.Figure:
    """GPT-2's causal mask: query q may attend to key k only when k <= q (blue); the rest is masked."""
    tokens = list(tokens) if tokens is not None else [str(i) for i in range(n_tokens)]
    mask = np.tril(np.ones((n_tokens, n_tokens), dtype=np.float32))  # (Q, K): 1 = may attend
    names = token_names(tokens)
    query, key = t("fig.attention.query"), t("fig.attention.key")
    trace = go.Heatmap(
        z=mask, x=names, y=names, colorscale=MASK_SCALE, zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
        hovertemplate=f"{query} %{{y}} → {key} %{{x}}: %{{z}}<extra>{t('fig.attention.mask_legend')}</extra>",
    )
    fig = go.Figure(trace)
    _token_axes(fig, tokens, key, query)
    title = t("fig.attention.mask_title")  # short enough for a phone
    fig.update_layout(**base_layout(map_height(n_tokens), title))
    return fig


def future_share_bars(result) -> go.Figure:
    """Per layer, the share of attention going to tokens after the query, BERT beside GPT-2.
    result: a CompareResult."""
    fig = go.Figure()
    layer_word = t("fig.attention.layer")
    for role, shares in (("encoder", result.encoder_future), ("decoder", result.decoder_future)):
        fig.add_trace(
            go.Bar(
                x=np.arange(len(shares)),
                y=np.asarray(shares, dtype=np.float32),
                name=model_name(role),
                marker_color=MODEL_COLOURS[role],
                text=[f"{share:.0%}" for share in shares],
                textposition="outside",
                hovertemplate=f"{model_name(role)}, {layer_word} %{{x}}: %{{y:.1%}}<extra></extra>",
            )
        )
    top = max([*result.encoder_future, *result.decoder_future, 0.1])
    fig.update_xaxes(title_text=layer_word, dtick=1)
    fig.update_yaxes(title_text=t("fig.attention.future_axis"), **percent_axis(min(1.0, top * 1.25)))
    title, subtitle = t("fig.attention.future_title"), t("fig.attention.future_subtitle")
    fig.update_layout(**base_layout(380, title, subtitle, barmode="group", legend=dict(orientation="h", y=-0.2)))
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
                x=layer_names(len(track.similarity)),
                y=np.asarray(track.similarity, dtype=np.float64),
                mode="lines+markers",
                name=model_name(track.role),
                line=dict(color=MODEL_COLOURS[track.role], width=3, dash="solid" if encoder else "dot"),
                marker=dict(size=9, symbol="circle" if encoder else "square"),
                hovertemplate=f"{model_name(track.role)}, %{{x}}: %{{y:.4f}}<extra></extra>",
            )
        )
    lowest = min(min(track.similarity) for track in tracks)
    fig.update_xaxes(type="category", title_text=t("fig.attention.same_word_axis"))
    bottom = min(0.5, math.floor(10 * (lowest - 0.05)) / 10)
    fig.update_yaxes(title_text=t("fig.attention.cosine"), range=[bottom, 1.02])
    title = t("fig.attention.same_word_title", word=plain(result.word))
    fig.update_layout(**base_layout(400, title, legend=dict(orientation="h", y=-0.3)))
    return fig


def masked_both_bars(result) -> go.Figure:
    """BERT's guesses for the [MASK] (both sides) beside GPT-2's next tokens (left side only), best on top.
    result: a MaskedBothResult."""
    # short lines, to fit a phone
    titles = [f"BERT:<br>{t('fig.attention.both_encoder')}", f"GPT-2:<br>{t('fig.attention.both_decoder')}"]
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.18)
    for col, (role, guesses) in enumerate((("encoder", result.encoder), ("decoder", result.decoder)), start=1):
        tokens, scores = [guess.token for guess in guesses], [guess.score for guess in guesses]
        add_probability_bars(fig, tokens, scores, MODEL_COLOURS[role], row=1, col=col)
    bars = max(len(result.encoder), len(result.decoder))
    fig.update_layout(**base_layout(bars_height(bars, subplot_titles=2), subplot_titles=2))
    return fig
