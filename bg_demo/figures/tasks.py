"""Figures for the BERT task tabs."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.figures.style import OKABE_ITO, base_layout


def fill_mask_bars(result) -> go.Figure:
    """One horizontal bar chart per mask (top to bottom in text order), best guess on top.

    result: a FillMaskResult; its `masks` is (M masks) x (k predictions) with token and score."""
    n_masks = len(result.masks)
    titles = [f"[MASK] {i + 1} of {n_masks}" if n_masks > 1 else "[MASK]" for i in range(n_masks)]
    fig = make_subplots(rows=n_masks, cols=1, subplot_titles=titles, vertical_spacing=min(0.3 / n_masks, 0.08))
    for row, choices in enumerate(result.masks, start=1):
        k = len(choices)
        fig.add_trace(
            go.Bar(
                x=[choice.score for choice in choices],
                y=list(range(k)),  # integer positions: two guesses may print alike
                orientation="h",
                marker_color=OKABE_ITO["blue"] if row % 2 else OKABE_ITO["orange"],
                text=[f"{choice.score:.1%}" for choice in choices],
                textposition="outside",
                customdata=[choice.token for choice in choices],
                hovertemplate="%{customdata}: %{x:.2%}<extra></extra>",
                showlegend=False,
            ),
            row=row,
            col=1,
        )
        fig.update_yaxes(
            tickvals=list(range(k)),
            ticktext=[choice.token for choice in choices],
            autorange="reversed",
            row=row,
            col=1,
        )
        top = max(choice.score for choice in choices)
        fig.update_xaxes(tickformat=".1~%", range=[0, min(1.0, top * 1.25) or 1.0], row=row, col=1)
    per_mask = 60 + 26 * max(len(choices) for choices in result.masks)
    fig.update_layout(**base_layout(height=40 + per_mask * n_masks, bargap=0.25))
    return fig
