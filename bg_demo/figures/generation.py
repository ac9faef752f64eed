"""Figures for the Generate tab: tokens coloured by probability, the next-token distribution, the logit lens, beams."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from bg_demo.figures.axes import map_height, percent_axis, percent_ticks, token_axis, token_names
from bg_demo.figures.style import OKABE_ITO, base_layout, plain

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
            f'<span class="bg-token" style="background:{probability_colour(t.score)}" '
            f'title="rank {t.rank} · p = {t.score:.2%}">{html.escape(t.token)}</span>'
            for t in result.generated[sequence]
        )
    return f'<div class="bg-tokens"><span class="bg-prompt">{prompt}</span>{body}</div>'


def probability_legend_html() -> str:
    """The key to the token colours of `token_probability_html`."""
    swatches = "".join(
        f'<span class="bg-token" style="background:{colour}">{label}</span>' for _, colour, label in PROBABILITY_BINS
    )
    return f'<div class="bg-legend">probability of each new token: {swatches}</div>'


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
    status = [
        "kept" if c.kept_by_top_p else "dropped by top-p" if c.kept_by_top_k else "dropped by top-k" for c in cands
    ]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=x, y=[c.scaled for c in cands], marker_color=colours, name="after temperature",
            customdata=np.array([[plain(c.token), c.rank, c.score, c.final, s] for c, s in zip(cands, status)],
                                dtype=object),
            hovertemplate="%{customdata[0]} (rank %{customdata[1]})<br>model: %{customdata[2]:.2%}"
            "<br>after temperature: %{y:.2%}<br>sampled with: %{customdata[3]:.2%}<br>%{customdata[4]}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x, y=[c.score for c in cands], mode="markers", name="model (temperature 1)",
            marker=dict(symbol="line-ew", size=18, line=dict(width=3, color=OKABE_ITO["black"])), hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x, y=[c.cumulative for c in cands], mode="lines+markers", name="cumulative (top-p reads this)",
            yaxis="y2", line=dict(color=OKABE_ITO["green"], width=2), hoverinfo="skip",
        )
    )
    if result.top_p < 1.0:
        fig.add_hline(y=result.top_p, yref="y2", line=dict(color=OKABE_ITO["green"], dash="dash"),
                      annotation_text=f"top-p = {result.top_p:g}")
    title = f"entropy {result.entropy:.2f} bits → {result.entropy_scaled:.2f} after temperature"
    subtitle = f"{result.kept} token{'s' if result.kept != 1 else ''} can be sampled"
    top = min(1.0, 1.1 * max((max(c.scaled, c.score) for c in cands), default=1.0))
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom")  # under the axis title, off the bars
    fig.update_layout(
        **base_layout(460, title, subtitle, bargap=0.2, legend=legend),
        xaxis=dict(**token_axis([c.token for c in cands]), tickangle=-45, title="candidate next token, best first"),
        yaxis=dict(title="probability", **percent_axis(top)),
        yaxis2=dict(overlaying="y", side="right", title="cumulative probability", showgrid=False, **percent_axis(1.05)),
    )
    return fig


def logit_lens_heatmap(result) -> go.Figure:
    """Layers (bottom = embeddings, top = last layer) x positions: each cell the token predicted next at
    that layer, coloured by its probability."""
    n_layers = len(result.layers)
    fig = go.Figure(
        go.Heatmap(
            z=result.probabilities.astype(np.float32),  # (layers, positions)
            x=token_names(result.tokens),
            y=list(result.layers),
            text=[[plain(token) for token in row] for row in result.predictions],
            texttemplate="%{text}",
            colorscale="Cividis",
            zmin=0.0,
            zmax=1.0,
            colorbar=dict(title="probability", **percent_ticks(1.0, COLORBAR_TICKS)),
            customdata=result.final_rank,
            hovertemplate="%{y}, after %{x}<br>predicts %{text} (%{z:.1%})<br>"
            "rank of the final prediction here: %{customdata}<extra></extra>",
        )
    )
    fig.update_layout(
        **base_layout(map_height(n_layers), "What each layer would predict next"),
        xaxis=dict(**token_axis(result.tokens), type="category", tickangle=-45, title="reading up to"),
        yaxis=dict(**token_axis(result.layers), type="category", title="layer"),
    )
    return fig


def beam_figure(result) -> go.Figure:
    """The beams beam search keeps at each step, placed by their cumulative log-probability."""
    fig = go.Figure()
    for rank in range(max((len(step.beams) for step in result.beam_steps), default=0)):
        steps = [step for step in result.beam_steps if rank < len(step.beams)]
        fig.add_trace(
            go.Scatter(
                x=[step.step for step in steps],
                y=[step.beams[rank][1] for step in steps],
                mode="markers",
                name=f"beam {rank + 1}",
                marker=dict(size=11),
                text=[plain(step.beams[rank][0]) for step in steps],
                hovertemplate="step %{x}: %{y:.2f}<br>…%{text}<extra></extra>",
            )
        )
    fig.update_layout(
        **base_layout(360, "Beams kept at each step"),
        xaxis=dict(title="new tokens", dtick=1),
        yaxis=dict(title="cumulative log-probability (best = highest)"),
    )
    return fig
