"""Figures for the pretraining lab: the sizes of BERT's input embeddings, and GPT-2's loss per token."""

from __future__ import annotations

import plotly.graph_objects as go

from bg_demo.figures.axes import token_axis
from bg_demo.figures.style import OKABE_ITO, base_layout, plain
from bg_demo.text import t


def embedding_norms(result) -> go.Figure:
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
    names = {part: t(f"fig.pretraining.part.{part}") for part, _, _ in parts}
    fig = go.Figure(
        [
            go.Bar(x=x, y=[getattr(row, field) for row in rows], name=names[part], marker_color=colour,
                   customdata=[plain(row.token) for row in rows],
                   hovertemplate=f"%{{customdata}}: {t('fig.pretraining.part_embedding', part=names[part])} "
                   "%{y:.2f}<extra></extra>")
            for part, field, colour in parts
        ]
    )
    fig.update_layout(
        **base_layout(380, t("fig.pretraining.norms_title"), barmode="group",
                      legend=dict(orientation="h", y=-0.3)),
        xaxis=dict(**token_axis([row.token for row in rows]), tickangle=-45),
        yaxis=dict(title=t("fig.pretraining.l2")),
    )
    return fig


def causal_loss_bars(result) -> go.Figure:
    """-log p of each true next token under GPT-2, with the mean (the training loss) as a line."""
    steps = result.steps
    x = list(range(len(steps)))
    fig = go.Figure(
        go.Bar(
            x=x, y=[step.loss for step in steps], marker_color=OKABE_ITO["vermillion"],
            customdata=[[step.score, step.rank, plain(step.target)] for step in steps],
            hovertemplate="%{customdata[2]}<br>−log p = %{y:.2f}<br>p = %{customdata[0]:.2%}, "
            f"{t('fig.pretraining.rank')} %{{customdata[1]}}<extra></extra>",
        )
    )
    fig.add_hline(y=result.loss, line=dict(color=OKABE_ITO["blue"], dash="dash"))
    title = t("fig.pretraining.loss_title")
    # the mean loss in the subtitle: never over the bars
    mean = t("fig.pretraining.loss_subtitle", loss=f"{result.loss:.2f}", perplexity=f"{result.perplexity:.1f}")
    fig.update_layout(
        **base_layout(380, title, mean),
        xaxis=dict(**token_axis([step.target for step in steps]), tickangle=-45,
                   title=t("fig.pretraining.target_axis")),
        yaxis=dict(title=t("fig.pretraining.loss_axis"), rangemode="tozero"),
    )
    return fig
