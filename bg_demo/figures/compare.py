"""Figures for Compare, BERT beside GPT-2: GPT-2's causal mask, the attention each gives to later tokens, one word's
two vectors layer by layer, and both models' guesses for a [MASK]. Each is drawn for the reader's `Look`, passed
second; the maps share attention.py's layout."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.backend.attention import pool_max
from bg_demo.figures.attention import block_labels, block_names, map_layout
from bg_demo.figures.axes import (
    X_TITLE_ROOM,
    label_depth,
    labels_across,
    layer_names,
    numbers_dtick,
    percent_axis,
    plot_px,
    shown_positions,
    tick_font,
    y_title,
)
from bg_demo.figures.style import (
    LINE,
    OKABE_ITO,
    SUBPLOT_TITLE_SIZE,
    base_layout,
    font_size,
    plain,
    text_width,
    top_margin,
    wrap,
)
from bg_demo.figures.tasks import (
    CHART_CHROME,
    add_probability_bars,
    bars_height,
    bars_layout,
    guess_words,
    probability_top,
    stacked_charts,
)
from bg_demo.look import Look

MODEL_COLOURS = {"encoder": OKABE_ITO["blue"], "decoder": OKABE_ITO["orange"]}
MASK_SCALE = [[0.0, "#E8E8E8"], [0.5, "#E8E8E8"], [0.5, OKABE_ITO["blue"]], [1.0, OKABE_ITO["blue"]]]
MASK_CELLS = 128  # the causal mask is drawn at most this many cells a side (max-pooled: a cell is blue if any may)


def model_name(role: str, look: Look) -> str:
    """"BERT (encoder)" or "GPT-2 (decoder)", in `look`'s language."""
    return look.t(f"fig.attention.model.{role}")


def causal_mask_figure(n_tokens: int, look: Look, tokens=None) -> go.Figure:
    """GPT-2's causal mask: query q may attend to key k only when k <= q (blue); the rest is masked. Past MASK_CELLS
    tokens each cell covers several, blue where any of them may attend (the triangle is the same at any size)."""
    tokens = list(tokens) if tokens is not None else [str(i) for i in range(n_tokens)]
    mask, f = pool_max(np.tril(np.ones((n_tokens, n_tokens), dtype=np.uint8)), MASK_CELLS)  # (Q, K): 1 = may attend
    names = block_names(tokens, f)
    query, key = look.t("fig.attention.query"), look.t("fig.attention.key")
    gap = 1 if len(names) <= 48 else 0  # cell borders while cells are wide enough to see them
    trace = go.Heatmap(
        z=mask, x=names, y=names, colorscale=MASK_SCALE, zmin=0, zmax=1, showscale=False, xgap=gap, ygap=gap,
        hovertemplate=f"{query} %{{y}} → {key} %{{x}}: %{{z}}<extra>{look.t('fig.attention.mask_legend')}</extra>",
    )
    fig = go.Figure(trace)
    title = look.t("fig.attention.mask_title")  # short enough for a phone
    alt = look.t("fig.alt.mask", title=title, n=n_tokens)
    map_layout(fig, look, block_labels(tokens, f), title, "", alt, key, query)
    return fig


def _below(rows: int = 1) -> tuple[dict, int]:
    """A legend across the foot of a phone's figure, and the px of margin it takes (about `rows` rows of entries)."""
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    return legend, 22 * rows + 8


def future_share_bars(result, look: Look) -> go.Figure:
    """Per layer, the share of attention going to tokens after the query, BERT beside GPT-2.
    result: a CompareResult."""
    fig = go.Figure()
    layer_word = look.t("fig.attention.layer")
    narrow = look.narrow
    n_layers = max(len(result.encoder_future), len(result.decoder_future))
    bar_px = plot_px(look, 40) / max(n_layers, 1) * 0.8 / 2  # two bars a layer, 20% of each layer's room between
    for role, shares in (("encoder", result.encoder_future), ("decoder", result.decoder_future)):
        labels = [f"{share:.0%}" for share in shares]
        fits = all(text_width(label, font_size(look)) <= bar_px + 4 for label in labels)  # read across, above its bar
        name = model_name(role, look)
        fig.add_trace(
            go.Bar(
                x=np.arange(len(shares)),
                y=np.asarray(shares, dtype=np.float32),
                name=name,
                marker_color=MODEL_COLOURS[role],
                text=labels if fits else None,
                textposition="outside",
                hovertemplate=f"{name}, {layer_word} %{{x}}: %{{y:.1%}}<extra></extra>",
            )
        )
    top = max([*result.encoder_future, *result.decoder_future, 0.1])
    fig.update_xaxes(title_text=layer_word, dtick=numbers_dtick(n_layers, look, plot_px(look, 40)) if narrow else 1)
    above = y_title(fig, look, look.t("fig.attention.future_axis"), **percent_axis(min(1.0, top * 1.25), look))
    title, subtitle = look.t("fig.attention.future_title"), look.t("fig.attention.future_subtitle")
    alt = look.t("fig.alt.future", title=title, encoder=f"{max(result.encoder_future, default=0):.0%}",
                 decoder=f"{max(result.decoder_future, default=0):.0%}")
    if not narrow:
        legend = dict(orientation="h", y=-0.2)
        fig.update_layout(**base_layout(380, look, title, subtitle, alt=alt, barmode="group", legend=legend))
        return fig
    legend, room = _below()
    bottom = 24 + X_TITLE_ROOM + room
    layout = base_layout(380 + LINE + room, look, title, subtitle, above, alt=alt, barmode="group", legend=legend)
    fig.update_layout(**layout)
    fig.update_layout(margin_b=bottom)
    return fig


def same_word_lines(result, look: Look) -> go.Figure:
    """Cosine similarity of the word's two vectors after every layer, one line per model.
    result: a SameWordResult."""
    fig = go.Figure()
    narrow = look.narrow
    tracks = (result.encoder, result.decoder)
    for track in tracks:
        encoder = track.role == "encoder"
        name = model_name(track.role, look)
        fig.add_trace(
            go.Scatter(
                x=layer_names(len(track.similarity), look),
                y=np.asarray(track.similarity, dtype=np.float64),
                mode="lines+markers",
                name=name,
                line=dict(color=MODEL_COLOURS[track.role], width=3, dash="solid" if encoder else "dot"),
                marker=dict(size=9, symbol="circle" if encoder else "square"),
                hovertemplate=f"{name}, %{{x}}: %{{y:.4f}}<extra></extra>",
            )
        )
    lowest = min(min(track.similarity) for track in tracks)
    names = layer_names(max(len(track.similarity) for track in tracks), look)
    if narrow:  # upright layer names, as many as fit
        shown = shown_positions(len(names), labels_across(plot_px(look, 40)))
        ticks = dict(tickmode="array", tickvals=[names[i] for i in shown], ticktext=[names[i] for i in shown],
                     tickangle=-90, tickfont=tick_font(look))
    else:
        ticks = {}
    fig.update_xaxes(type="category", title_text=look.t("fig.attention.same_word_axis"), **ticks)
    bottom = min(0.5, math.floor(10 * (lowest - 0.05)) / 10)
    above = y_title(fig, look, look.t("fig.attention.cosine"), range=[bottom, 1.02])
    title = look.t("fig.attention.same_word_title", word=plain(result.word))
    alt = look.t("fig.alt.same_word", word=result.word, encoder=f"{result.encoder.similarity[-1]:.2f}",
                 decoder=f"{result.decoder.similarity[-1]:.2f}")
    if not narrow:
        fig.update_layout(**base_layout(400, look, title, alt=alt, legend=dict(orientation="h", y=-0.3)))
        return fig
    legend, room = _below()
    margin = label_depth(ticks) + X_TITLE_ROOM + room
    fig.update_layout(**base_layout(top_margin(title, subplot_titles=above) + 240 + margin, look, title,
                                    subplot_titles=above, alt=alt, legend=legend))
    fig.update_layout(margin_b=margin)
    return fig


def masked_both_bars(result, look: Look) -> go.Figure:
    """BERT's guesses for the [MASK] (both sides) beside GPT-2's next tokens (left side only), best on top, on one
    probability scale so the two read against each other. On a phone one above the other, each full width.
    result: a MaskedBothResult."""
    narrow = look.narrow
    sides = (("encoder", "BERT", result.encoder, "both_encoder"), ("decoder", "GPT-2", result.decoder, "both_decoder"))
    if narrow:  # one line each where it fits
        titles = [wrap(f"{name}: {look.t('fig.attention.' + key)}", plot_px(look) - 8, SUBPLOT_TITLE_SIZE)
                  for _, name, _, key in sides]
    else:  # short lines, side by side
        titles = [f"{name}:<br>{look.t('fig.attention.' + key)}" for _, name, _, key in sides]
    lines = max(title.count("<br>") + 1 for title in titles)
    bars = max(len(result.encoder), len(result.decoder))
    best = {role: guesses[0] if guesses else None for role, _, guesses, _ in sides}
    alt = look.t("fig.alt.masked_both", **{role: guess_words(guess, look) if guess else "–"
                                           for role, guess in best.items()})
    if narrow:
        layout = bars_layout(bars_height(bars, look, 2, subplot_titles=lines), look, subplot_titles=lines, alt=alt)
        fig = stacked_charts(2, titles, layout, CHART_CHROME + LINE * (lines - 1))
    else:
        layout = base_layout(bars_height(bars, look, subplot_titles=lines), look, subplot_titles=lines, alt=alt)
        fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.18)
    scores = [guess.score for _, _, guesses, _ in sides for guess in guesses]
    top = probability_top(scores, look, plot_px(look) if narrow else plot_px(look) * 0.41)  # one scale for both
    for i, (role, _, guesses, _) in enumerate(sides):
        tokens, values = [guess.token for guess in guesses], [guess.score for guess in guesses]
        row, col = (i + 1, 1) if narrow else (1, i + 1)
        add_probability_bars(fig, look, tokens, values, MODEL_COLOURS[role], row=row, col=col, top=top)
    fig.update_layout(**layout)
    return fig
