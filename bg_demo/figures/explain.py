"""The "why" view: attention from the prediction and attribution of it, as rows of token highlights."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from bg_demo.figures.axes import token_axis, token_names
from bg_demo.figures.style import OKABE_ITO, base_layout, plain
from bg_demo.text import t

ROWS = ("attention", "gradient_x_input", "integrated_gradients")  # each named by the text "fig.explain.row.<row>"
ROW_HEIGHT = 60  # px per row of highlights: a token's text fits inside its cell
CHROME = 190  # title, subtitle, rotated token labels
# one diverging scale for all three rows: white at 0, vermillion for positive, blue for negative
SCALE = [[0.0, OKABE_ITO["blue"]], [0.5, "#f7f7f7"], [1.0, OKABE_ITO["vermillion"]]]


def _normalised(values) -> np.ndarray:
    """A row scaled by its largest magnitude, so rows of different units share one -1..1 colour scale."""
    values = np.asarray(values, dtype=np.float64)
    top = np.abs(values).max()
    return values / top if top > 0 else values


def explanation_rows(result) -> go.Figure:
    """Three rows over the same tokens: attention from the prediction's position(s), gradient × input and
    integrated gradients of its probability; each row scaled to its own largest magnitude (hover: the raw
    value). result: an Explanation."""
    raw = np.array([result.attention, result.gradient_x_input, result.integrated_gradients], dtype=np.float64)
    z = np.stack([_normalised(row) for row in raw])
    names = token_names(result.tokens)
    text = [[plain(token) for token in result.tokens]] * len(ROWS)
    fig = go.Figure(
        go.Heatmap(
            z=z.tolist(), x=names, y=[t(f"fig.explain.row.{row}") for row in ROWS], customdata=raw.tolist(), text=text,
            texttemplate="%{text}", colorscale=SCALE, zmin=-1, zmax=1, xgap=2, ygap=4,
            colorbar=dict(title=t("fig.explain.colorbar"), len=0.8),
            hovertemplate="%{y}<br>%{x}: %{customdata:.4g}<extra></extra>",
        )
    )
    head = t("fig.explain.mean_heads") if result.head is None else t("fig.explain.head_n", head=result.head)
    target = t(result.target.key, **result.target.values)  # the backend names what it explains as data
    title = t("fig.explain.title", target=plain(target), score=f"{result.score:.1%}")
    subtitle = t("fig.explain.subtitle", layer=result.layer, head=head, steps=result.steps)
    fig.update_layout(
        **base_layout(CHROME + ROW_HEIGHT * len(ROWS), title, subtitle),
        xaxis=dict(**token_axis(result.tokens), type="category", tickangle=-45),
        yaxis=dict(autorange="reversed", showgrid=False, title=t("fig.explain.rows_axis")),
    )
    return fig
