"""Figures for the pretraining lab: the sizes of BERT's input embeddings, and GPT-2's loss per token."""

from __future__ import annotations

import plotly.graph_objects as go

from bg_demo.figures.axes import X_TITLE_ROOM, label_depth, plot_px, token_x_axis
from bg_demo.figures.style import OKABE_ITO, axis_title_above, base_layout, plain, top_margin
from bg_demo.look import Look

HEIGHT = 380
NARROW_PLOT = 240  # px of bars on a phone, under the titles and over the labels and legend
LEGEND_ROW = 22  # px per row of a legend across the foot of a phone's figure


def _narrow_layout(fig, look: Look, title: str, subtitle: str, y_title: str, legend_rows: int, alt: str,
                   **layout) -> None:
    """A phone's bar chart: the y axis named across its top, upright token labels and their axis title, then
    the legend across the foot of the figure."""
    fig.add_annotation(**axis_title_above(y_title))
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    bottom = label_depth(layout["xaxis"]) + X_TITLE_ROOM + legend_rows * LEGEND_ROW + 8
    height = top_margin(title, subtitle, 1) + NARROW_PLOT + bottom
    fig.update_layout(**base_layout(height, look, title, subtitle, 1, alt=alt, legend=legend, **layout))
    fig.update_layout(margin_b=bottom)


def embedding_norms(result, look: Look) -> go.Figure:
    """Per token of [CLS] A [SEP] B [SEP]: the length (L2 norm) of its token, segment and position
    embeddings and of their sum, grouped side by side."""
    rows = result.rows
    x = list(range(len(rows)))
    parts = (  # each named by the text "fig.pretraining.part.<part>"
        ("token", "token_norm", OKABE_ITO["blue"]),
        ("segment", "segment_norm", OKABE_ITO["orange"]),
        ("position", "position_norm", OKABE_ITO["green"]),
        ("sum", "sum_norm", OKABE_ITO["black"]),
    )
    names = {part: look.t(f"fig.pretraining.part.{part}") for part, _, _ in parts}
    fig = go.Figure(
        [
            go.Bar(x=x, y=[getattr(row, field) for row in rows], name=names[part], marker_color=colour,
                   customdata=[plain(row.token) for row in rows],
                   hovertemplate=f"%{{customdata}}: {look.t('fig.pretraining.part_embedding', part=names[part])} "
                   "%{y:.2f}<extra></extra>")
            for part, field, colour in parts
        ]
    )
    title = look.t("fig.pretraining.norms_title")
    longest = max(rows, key=lambda row: row.sum_norm, default=None)
    alt = look.t("fig.alt.norms", n=len(rows), token=longest.token if longest else "",
            norm=f"{longest.sum_norm:.2f}" if longest else "–")
    xaxis = token_x_axis([row.token for row in rows], look, plot_px(look, 40))
    if not look.narrow:
        fig.update_layout(
            **base_layout(HEIGHT, look, title, alt=alt, barmode="group", legend=dict(orientation="h", y=-0.3)),
            xaxis=xaxis, yaxis=dict(title=look.t("fig.pretraining.l2")),
        )
        return fig
    _narrow_layout(fig, look, title, "", look.t("fig.pretraining.l2"), 1, alt, barmode="group", xaxis=xaxis)
    return fig


def causal_loss_bars(result, look: Look) -> go.Figure:
    """-log p of each true next token under GPT-2, with the mean (the training loss) as a line."""
    steps = result.steps
    x = list(range(len(steps)))
    fig = go.Figure(
        go.Bar(
            x=x, y=[step.loss for step in steps], marker_color=OKABE_ITO["vermillion"],
            customdata=[[step.score, step.rank, plain(step.target)] for step in steps],
            hovertemplate="%{customdata[2]}<br>−log p = %{y:.2f}<br>p = %{customdata[0]:.2%}, "
            f"{look.t('fig.pretraining.rank')} %{{customdata[1]}}<extra></extra>",
        )
    )
    fig.add_hline(y=result.loss, line=dict(color=OKABE_ITO["blue"], dash="dash"))
    title = look.t("fig.pretraining.loss_title")
    # the mean loss in the subtitle: never over the bars
    mean = look.t("fig.pretraining.loss_subtitle", loss=f"{result.loss:.2f}", perplexity=f"{result.perplexity:.1f}")
    worst = max(steps, key=lambda step: step.loss, default=None)
    alt = look.t("fig.alt.loss", n=len(steps), loss=f"{result.loss:.2f}", token=worst.target if worst else "",
            worst=f"{worst.loss:.2f}" if worst else "–")
    xaxis = dict(**token_x_axis([step.target for step in steps], look, plot_px(look, 40)),
                 title=look.t("fig.pretraining.target_axis"))
    yaxis = dict(rangemode="tozero")
    if not look.narrow:
        fig.update_layout(**base_layout(HEIGHT, look, title, mean, alt=alt), xaxis=xaxis,
                          yaxis=dict(yaxis, title=look.t("fig.pretraining.loss_axis")))
        return fig
    _narrow_layout(fig, look, title, mean, look.t("fig.pretraining.loss_axis"), 0, alt, xaxis=xaxis, yaxis=yaxis)
    return fig
