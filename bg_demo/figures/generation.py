"""Figures for the Generate tab: tokens coloured by probability, the next-token distribution, the logit lens, beams."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from bg_demo.figures.axes import layer_names, map_height, percent_axis, percent_ticks, token_axis, token_names
from bg_demo.figures.style import OKABE_ITO, base_layout, plain
from bg_demo.text import t

COLORBAR_TICKS = 2  # 0%, 50%, 100%: a colour bar beside a few layers has room for three labels
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


def token_probability_html(result, sequence: int = 0) -> str:
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
            f'title="{html.escape(t("fig.generation.token_title", rank=tok.rank, p=f"{tok.score:.2%}"))}">'
            f'{html.escape(tok.token)}</span>'
            for tok in result.generated[sequence]
        )
    return f'<div class="bg-tokens"><span class="bg-prompt">{prompt}</span>{body}</div>'


def probability_legend_html() -> str:
    """The key to the token colours of `token_probability_html`."""
    swatches = "".join(
        f'<span class="bg-token" style="background:{colour}">{label}</span>' for _, colour, label in PROBABILITY_BINS
    )
    return f'<div class="bg-legend">{t("fig.generation.legend", swatches=swatches)}</div>'


def next_token_bars(result) -> go.Figure:
    """Candidates for the next token, best first: bars after temperature (blue if they may be sampled,
    grey if top-k drops them, orange if top-p does), the model's own probability as a marker, and the
    cumulative probability that top-p reads as a line with its threshold."""
    cands = result.candidates
    x = list(range(len(cands)))  # integer positions: two candidates may print alike
    colours = [
        OKABE_ITO["blue"] if c.kept_by_top_p else OKABE_ITO["orange"] if c.kept_by_top_k else "#bbbbbb"
        for c in cands
    ]
    kept, by_p, by_k = t("fig.generation.kept"), t("fig.generation.dropped_top_p"), t("fig.generation.dropped_top_k")
    status = [kept if c.kept_by_top_p else by_p if c.kept_by_top_k else by_k for c in cands]
    after, rank = t("fig.generation.after_temperature"), t("fig.generation.rank")
    model, sampled = t("fig.generation.model"), t("fig.generation.sampled_with")
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
    fig.add_trace(
        go.Scatter(
            x=x, y=[c.score for c in cands], mode="markers", name=t("fig.generation.model_marker"),
            marker=dict(symbol="line-ew", size=18, line=dict(width=3, color=OKABE_ITO["black"])), hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x, y=[c.cumulative for c in cands], mode="lines+markers", name=t("fig.generation.cumulative_line"),
            yaxis="y2", line=dict(color=OKABE_ITO["green"], width=2), hoverinfo="skip",
        )
    )
    if result.top_p < 1.0:
        fig.add_hline(y=result.top_p, yref="y2", line=dict(color=OKABE_ITO["green"], dash="dash"),
                      annotation_text=f"top-p = {result.top_p:g}")
    title = t("fig.generation.entropy_title", before=f"{result.entropy:.2f}", after=f"{result.entropy_scaled:.2f}")
    subtitle = t("fig.generation.can_sample", n=result.kept, plural="s" if result.kept != 1 else "")
    top = min(1.0, 1.1 * max((max(c.scaled, c.score) for c in cands), default=1.0))
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom")  # under the axis title, off the bars
    fig.update_layout(
        **base_layout(460, title, subtitle, bargap=0.2, legend=legend),
        xaxis=dict(**token_axis([c.token for c in cands]), tickangle=-45, title=t("fig.generation.candidates_axis")),
        yaxis=dict(title=t("fig.generation.probability"), **percent_axis(top)),
        yaxis2=dict(overlaying="y", side="right", title=t("fig.generation.cumulative_axis"), showgrid=False,
                    **percent_axis(1.05)),
    )
    return fig


def logit_lens_heatmap(result) -> go.Figure:
    """Layers (bottom = embeddings, top = last layer) x positions: each cell the token predicted next at
    that layer, coloured by its probability."""
    n_layers = len(result.layers)
    layers = layer_names(n_layers)  # result.layers ("embeddings", "layer 0", …) in the language served
    after, predicts, final = (t(f"fig.generation.lens_{word}") for word in ("after", "predicts", "final_rank"))
    fig = go.Figure(
        go.Heatmap(
            z=result.probabilities.astype(np.float32),  # (layers, positions)
            x=token_names(result.tokens),
            y=layers,
            text=[[plain(token) for token in row] for row in result.predictions],
            texttemplate="%{text}",
            colorscale="Cividis",
            zmin=0.0,
            zmax=1.0,
            colorbar=dict(title=t("fig.generation.probability"), **percent_ticks(1.0, COLORBAR_TICKS)),
            customdata=result.final_rank,
            hovertemplate=f"%{{y}}, {after} %{{x}}<br>{predicts} %{{text}} (%{{z:.1%}})<br>"
            f"{final}: %{{customdata}}<extra></extra>",
        )
    )
    fig.update_layout(
        **base_layout(map_height(n_layers), t("fig.generation.lens_title")),
        xaxis=dict(**token_axis(result.tokens), type="category", tickangle=-45, title=t("fig.generation.lens_x")),
        yaxis=dict(**token_axis(layers), type="category", title=t("fig.generation.layer")),
    )
    return fig


def beam_figure(result) -> go.Figure:
    """The beams beam search keeps at each step, placed by their cumulative log-probability."""
    fig = go.Figure()
    step_word = t("fig.generation.step")
    for rank in range(max((len(step.beams) for step in result.beam_steps), default=0)):
        steps = [step for step in result.beam_steps if rank < len(step.beams)]
        fig.add_trace(
            go.Scatter(
                x=[step.step for step in steps],
                y=[step.beams[rank][1] for step in steps],
                mode="markers",
                name=t("fig.generation.beam_n", n=rank + 1),
                marker=dict(size=11),
                text=[plain(step.beams[rank][0]) for step in steps],
                hovertemplate=f"{step_word} %{{x}}: %{{y:.2f}}<br>…%{{text}}<extra></extra>",
            )
        )
    fig.update_layout(
        **base_layout(360, t("fig.generation.beam_title")),
        xaxis=dict(title=t("fig.generation.new_tokens"), dtick=1),
        yaxis=dict(title=t("fig.generation.beam_y")),
    )
    return fig
