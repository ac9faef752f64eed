"""Figures for the Generate tab: tokens coloured by probability, the next-token distribution, the logit lens, beams."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from bg_demo.figures.axes import (
    COLORBAR_ROOM,
    X_TITLE_ROOM,
    colorbar,
    label_depth,
    labels_down,
    layer_names,
    map_height,
    narrow_map_height,
    percent_axis,
    percent_ticks,
    plot_px,
    shown_positions,
    tick_font,
    token_axis,
    token_names,
    token_x_axis,
)
from bg_demo.figures.style import (
    FONT,
    OKABE_ITO,
    SERIES_COLOURS,
    axis_title_above,
    base_layout,
    percent,
    plain,
    text_width,
    top_margin,
    wrap,
)
from bg_demo.look import Look

COLORBAR_TICKS = 2  # 0%, 50%, 100%: a colour bar beside a few layers has room for three labels
NARROW_BEAMS = 4  # beams drawn on a phone: the best four, which the eye can follow on ~300 px
BEAM_DASHES = ("solid", "dash", "dot", "dashdot")  # with the colour, a second cue for each rank
BEAM_MARKER_PX = 14  # px per step under which markers crowd the lines: lines only
LENS_LABEL_PX = 34  # px of a phone's layer numbers beside the rows
LENS_CELL_SIZE = 11  # px of a prediction written in its cell on a phone
BEAM_TEXT_CHARS = 60  # the end of a beam's text in its hover and in the figure's text alternative
# probability bins for colouring generated tokens: (lower bound, background, label); blue = expected,
# orange = surprising, so the scale survives every common colour-vision deficiency
PROBABILITY_BINS = (
    (0.5, "#9ecae1", "p ≥ 50%"),
    (0.2, "#deebf7", "20–50%"),
    (0.05, "#f7f7f7", "5–20%"),
    (0.01, "#fdd0a2", "1–5%"),
    (0.0, "#fd8d3c", "< 1%"),
)


def probability_colour(probability: float) -> str:
    return next(colour for low, colour, _ in PROBABILITY_BINS if probability >= low)


def token_probability_html(result, look: Look, sequence: int = 0) -> str:
    """The prompt, then each generated token on a background coloured by its probability; hovering a
    token shows its rank and probability, while streaming too."""
    prompt = html.escape(result.prompt)
    if not result.texts:
        return f'<div class="bg-tokens"><span class="bg-prompt">{prompt}</span></div>'
    if sequence >= len(result.generated) or not result.generated[sequence]:
        body = html.escape(result.texts[sequence])
    else:
        body = "".join(
            f'<span class="bg-token" style="background:{probability_colour(tok.score)}" '
            f'title="{html.escape(look.t("fig.generation.token_title", rank=tok.rank, p=percent(tok.score)))}">'
            f'{html.escape(tok.token)}</span>'
            for tok in result.generated[sequence]
        )
    return f'<div class="bg-tokens"><span class="bg-prompt">{prompt}</span>{body}</div>'


def probability_legend_html(look: Look) -> str:
    """The key to the token colours of `token_probability_html`."""
    swatches = "".join(
        f'<span class="bg-token" style="background:{colour}">{label}</span>' for _, colour, label in PROBABILITY_BINS
    )
    return f'<div class="bg-legend">{look.t("fig.generation.legend", swatches=swatches)}</div>'


def next_token_bars(result, look: Look) -> go.Figure:
    """Candidates for the next token, best first: bars after temperature (blue if they may be sampled,
    grey if top-k drops them, orange if top-p does), the model's own probability as a marker, and the
    cumulative probability that top-p reads as a line with its threshold. On a phone the cumulative axis keeps its
    line and threshold but not its labels (the plot keeps the width) and the probability axis is named above it."""
    cands = result.candidates
    narrow = look.narrow
    x = list(range(len(cands)))  # integer positions: two candidates may print alike
    colours = [
        OKABE_ITO["blue"] if c.kept_by_top_p else OKABE_ITO["orange"] if c.kept_by_top_k else "#bbbbbb"
        for c in cands
    ]
    kept, by_p, by_k = (look.t(f"fig.generation.{key}") for key in ("kept", "dropped_top_p", "dropped_top_k"))
    status = [kept if c.kept_by_top_p else by_p if c.kept_by_top_k else by_k for c in cands]
    after, rank = look.t("fig.generation.after_temperature"), look.t("fig.generation.rank")
    model, sampled = look.t("fig.generation.model"), look.t("fig.generation.sampled_with")
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=x, y=[c.scaled for c in cands], marker_color=colours, name=after,
            customdata=np.array([[plain(c.token), c.rank, c.score, c.final, s] for c, s in zip(cands, status)],
                                dtype=object),
            hovertemplate=f"%{{customdata[0]}} ({rank} %{{customdata[1]}})<br>{model}: %{{customdata[2]:.2%}}"
            f"<br>{after}: %{{y:.2%}}<br>{sampled}: %{{customdata[3]:.2%}}<br>%{{customdata[4]}}<extra></extra>",
        )
    )
    marker_size = min(18, max(6, plot_px(look, 40) / max(len(cands), 1) * 0.8))  # as wide as a bar, at most
    fig.add_trace(
        go.Scatter(
            x=x, y=[c.score for c in cands], mode="markers", name=look.t("fig.generation.model_marker"),
            marker=dict(symbol="line-ew", size=marker_size, line=dict(width=3, color=OKABE_ITO["black"])),
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x, y=[c.cumulative for c in cands], mode="lines+markers", name=look.t("fig.generation.cumulative_line"),
            yaxis="y2", line=dict(color=OKABE_ITO["green"], width=2), marker=dict(size=4 if narrow else 6),
            hoverinfo="skip",
        )
    )
    if result.top_p < 1.0:
        fig.add_hline(y=result.top_p, yref="y2", line=dict(color=OKABE_ITO["green"], dash="dash"),
                      annotation_text=f"top-p = {result.top_p:g}")
    title = look.t("fig.generation.entropy_title", before=f"{result.entropy:.2f}", after=f"{result.entropy_scaled:.2f}")
    subtitle = look.t("fig.generation.can_sample", n=result.kept, plural="s" if result.kept != 1 else "")
    top = min(1.0, 1.1 * max((max(c.scaled, c.score) for c in cands), default=1.0))
    best = cands[0] if cands else None
    alt = look.t("fig.alt.next_token", n=len(cands), kept=result.kept,
            best=look.t("fig.alt.guess", token=best.token, score=f"{best.scaled:.1%}") if best else "–")
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom")  # under the axis title, off the bars
    tokens = [c.token for c in cands]
    xaxis = dict(**token_x_axis(tokens, look, plot_px(look, 40)), title=look.t("fig.generation.candidates_axis"))
    cumulative = dict(overlaying="y", side="right", showgrid=False, **percent_axis(1.05, look))
    if not narrow:
        fig.update_layout(
            **base_layout(460, look, title, subtitle, alt=alt, bargap=0.2, legend=legend), xaxis=xaxis,
            yaxis=dict(title=look.t("fig.generation.probability"), **percent_axis(top, look)),
            yaxis2=dict(title=look.t("fig.generation.cumulative_axis"), **cumulative),
        )
        return fig
    bottom = label_depth(xaxis) + X_TITLE_ROOM + 3 * 22 + 8  # upright labels, the axis title, a legend of three rows
    fig.add_annotation(**axis_title_above(look.t("fig.generation.probability")))
    fig.update_layout(
        **base_layout(top_margin(title, subtitle, 1) + 260 + bottom, look, title, subtitle, 1, alt=alt, bargap=0.2,
                      legend=dict(legend, x=0, xanchor="left")),
        xaxis=xaxis, yaxis=percent_axis(top, look), yaxis2=dict(showticklabels=False, ticks="", **cumulative),
    )
    fig.update_layout(margin_b=bottom)
    return fig


def _cell_text(predictions, cell_px: float, size: float) -> list[list[str]]:
    """Each cell's prediction where it fits the cell legibly, "" where it does not (the hover names it)."""
    return [[plain(token) if text_width(plain(token), size) <= cell_px - 4 else "" for token in row]
            for row in predictions]


def logit_lens_heatmap(result, look: Look) -> go.Figure:
    """Layers (bottom = embeddings, top = last layer) x positions: each cell the token predicted next at
    that layer, coloured by its probability, written in the cell where it fits (the hover always names it). On a
    phone the layers are numbered ("emb", "0", "1", …) and the colour bar lies under the map."""
    n_layers, n_tokens = len(result.layers), len(result.tokens)
    narrow = look.narrow
    layers = layer_names(n_layers, look)  # result.layers ("embeddings", "layer 0", …) in look's language
    after, predicts, final = (look.t(f"fig.generation.lens_{word}") for word in ("after", "predicts", "final_rank"))
    label_px = LENS_LABEL_PX if narrow else 110  # the layers' names beside the rows
    cell_size = LENS_CELL_SIZE if narrow else FONT["size"]
    predictions = [[plain(token) for token in row] for row in result.predictions]
    title = look.t("fig.generation.lens_title")
    best = "–"
    if n_tokens:
        score = f"{float(result.probabilities[-1, -1]):.1%}"
        best = look.t("fig.alt.guess", token=result.predictions[-1][-1], score=score)
    alt = look.t("fig.alt.lens", layers=n_layers, n=n_tokens, token=result.tokens[-1] if n_tokens else "", best=best)
    xaxis = dict(**token_x_axis(result.tokens, look, plot_px(look, label_px)), type="category",
                 title=look.t("fig.generation.lens_x"))
    under = label_depth(xaxis) + X_TITLE_ROOM  # a phone's upright labels and axis title, over its colour bar
    chrome = top_margin(title, subplot_titles=1) + under + COLORBAR_ROOM
    height = narrow_map_height(n_layers, look, chrome) if narrow else map_height(n_layers)
    ticks = percent_ticks(1.0, COLORBAR_TICKS)
    fig = go.Figure(
        go.Heatmap(
            z=result.probabilities.astype(np.float32),  # (layers, positions)
            x=token_names(result.tokens),
            y=layers,
            text=_cell_text(predictions, plot_px(look, label_px) / max(n_tokens, 1), cell_size),
            texttemplate="%{text}",
            textfont=dict(size=cell_size),
            colorscale="Cividis",
            zmin=0.0,
            zmax=1.0,
            colorbar=colorbar(look.t("fig.generation.probability"), look, under / (height - chrome), **ticks),
            customdata=np.stack([np.asarray(result.final_rank, dtype=object), np.array(predictions, dtype=object)], -1),
            hovertemplate=f"%{{y}}, {after} %{{x}}<br>{predicts} %{{customdata[1]}} (%{{z:.1%}})<br>"
            f"{final}: %{{customdata[0]}}<extra></extra>",
        )
    )
    if not narrow:
        fig.update_layout(
            **base_layout(height, look, title, alt=alt), xaxis=xaxis,
            yaxis=dict(**token_axis(layers, look), type="category", title=look.t("fig.generation.layer")),
        )
        return fig
    short = [look.t("fig.axes.embeddings_short")] + [str(i) for i in range(n_layers - 1)]
    rows = shown_positions(n_layers, labels_down(height - chrome))
    yaxis = dict(type="category", tickmode="array", tickvals=[layers[i] for i in rows],
                 ticktext=[plain(short[i]) for i in rows], tickfont=tick_font(look), showgrid=False)
    fig.add_annotation(**axis_title_above(look.t("fig.generation.layer")))
    fig.update_layout(**base_layout(height, look, title, subplot_titles=1, alt=alt), xaxis=xaxis, yaxis=yaxis)
    fig.update_layout(margin_b=under + COLORBAR_ROOM)
    return fig


def _beam_ranks(result, look: Look) -> int:
    """How many of the best beams to draw: every one kept on a wide screen, the best NARROW_BEAMS on a phone."""
    kept = max((len(step.beams) for step in result.beam_steps), default=0)
    return min(kept, NARROW_BEAMS) if look.narrow else kept


def beam_figure(result, look: Look) -> go.Figure:
    """The beams beam search keeps at each step, by how far each trails the best one's cumulative log-probability
    (the best at 0): at any length the beams stay apart, where their totals would lie on top of each other. One
    Okabe-Ito colour per rank; markers while the steps are few enough to tell apart."""
    fig = go.Figure()
    narrow = look.narrow
    step_word, total = look.t("fig.generation.step"), look.t("fig.generation.beam_total")
    steps = [step for step in result.beam_steps if step.beams]
    last = max((step.step for step in steps), default=1)
    width = plot_px(look, 50)
    mode = "lines+markers" if width / max(last, 1) >= BEAM_MARKER_PX else "lines"
    for rank in range(_beam_ranks(result, look)):
        shown = [step for step in steps if rank < len(step.beams)]
        colour = SERIES_COLOURS[rank % len(SERIES_COLOURS)]
        fig.add_trace(
            go.Scatter(
                x=[step.step for step in shown],
                y=[step.beams[rank][1] - step.beams[0][1] for step in shown],
                mode=mode,
                name=look.t("fig.generation.beam_n", n=rank + 1),
                line=dict(color=colour, width=2.5 if rank == 0 else 1.5, dash=BEAM_DASHES[rank % len(BEAM_DASHES)]),
                marker=dict(size=7, color=colour),
                customdata=[[step.beams[rank][1], plain(_tail(step.beams[rank][0]))] for step in shown],
                hovertemplate=f"{step_word} %{{x}}: %{{y:.2f}} ({total} %{{customdata[0]:.2f}})"
                "<br>…%{customdata[1]}<extra></extra>",
            )
        )
    title = look.t("fig.generation.beam_title")
    best = steps[-1].beams[0] if steps else ("", 0.0)
    alt = look.t("fig.alt.beams", n=_beam_ranks(result, look), steps=last, score=f"{best[1]:.2f}", text=_tail(best[0]))
    xaxis = dict(title=look.t("fig.generation.new_tokens"), range=[0, last + 0.5], rangemode="tozero",
                 nticks=max(2, int(width // (70 if narrow else 60))), tick0=0, zeroline=False)
    if not narrow:
        fig.update_layout(**base_layout(360, look, title, alt=alt), xaxis=xaxis,
                          yaxis=dict(title=wrap(look.t("fig.generation.beam_y"), 220, 15)))
        return fig
    legend, room = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"), 2 * 22 + 8
    fig.add_annotation(**axis_title_above(look.t("fig.generation.beam_y")))
    bottom = label_depth(xaxis) + X_TITLE_ROOM + room
    height = top_margin(title, subplot_titles=1) + 240 + bottom
    fig.update_layout(**base_layout(height, look, title, subplot_titles=1, alt=alt, legend=legend), xaxis=xaxis,
                      yaxis=dict(nticks=6))
    fig.update_layout(margin_b=bottom)
    return fig


def _tail(text: str, chars: int = BEAM_TEXT_CHARS) -> str:
    """The end of a beam's text, where it differs from the others."""
    return text if len(text) <= chars else "…" + text[-(chars - 1):]
