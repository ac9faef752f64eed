"""The "why" view: attention from the prediction and attribution of it, as rows of token highlights."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.figures.axes import COLORBAR_ROOM, colorbar, label_depth, plot_px, token_names, token_x_axis
from bg_demo.figures.style import OKABE_ITO, base_layout, percent, plain, text_width, top_margin
from bg_demo.look import Look

ROWS = ("attention", "gradient_x_input", "integrated_gradients")  # each named by the text "fig.explain.row.<row>"
ROW_HEIGHT = 60  # px per row of highlights: a token's text fits inside its cell
CHROME = 190  # title, subtitle, rotated token labels
NARROW_ROW = 44  # px of a row's cells on a phone ...
NARROW_ROW_GAP = 22  # ... and of the gap above it, which holds the row's name
ROW_NAME_SIZE = 12
CELL_SIZE = 11  # px of a token's text in its cell on a phone, where the cell is wide enough for it
# A long text (a Q&A context: 228 tokens drew 1-4 px columns) wraps its rows onto lines, as text wraps, each token
# at least MIN_CELL_PX wide; each line is the three rows, LINE_ROW_PX high each, their names beside the lines on a
# wide screen, above the first on a phone
MIN_CELL_PX = 12
LINE_ROW_PX = 18
LINE_GAP = 10  # px between one line's token labels and the next line
LABEL_EVERY_PX = 18  # px between two token names under a line (at -45°: closer, and they touch)
# one diverging scale for all three rows: white at 0, vermillion for positive, blue for negative
SCALE = [[0.0, OKABE_ITO["blue"]], [0.5, "#f7f7f7"], [1.0, OKABE_ITO["vermillion"]]]


def _normalised(values) -> np.ndarray:
    """A row scaled by its largest magnitude, so rows of different units share one -1..1 colour scale."""
    values = np.asarray(values, dtype=np.float64)
    top = np.abs(values).max()
    return values / top if top > 0 else values


def explanation_rows(result, look: Look) -> go.Figure:
    """Three rows over the same tokens: attention from the prediction's position(s), gradient × input and
    integrated gradients of its probability; each row scaled to its own largest magnitude (hover: the raw
    value). On a phone the rows take the whole width, each named above it, the tokens written in the cells wide
    enough for them, the colour bar under the map. result: an Explanation."""
    narrow = look.narrow
    raw = np.array([result.attention, result.gradient_x_input, result.integrated_gradients], dtype=np.float64)
    z = np.stack([_normalised(row) for row in raw])
    names = token_names(result.tokens)
    rows = [look.t(f"fig.explain.row.{row}") for row in ROWS]
    cell_px = plot_px(look) / max(len(result.tokens), 1)
    tokens = [plain(token) for token in result.tokens]
    xaxis = dict(**token_x_axis(result.tokens, look, plot_px(look)), type="category")
    grid = len(ROWS) * (NARROW_ROW + NARROW_ROW_GAP)  # a phone's rows, each with the gap above it
    if narrow:
        tokens = [token if text_width(token, CELL_SIZE) <= cell_px - 4 else "" for token in tokens]
    scale = dict(below=label_depth(xaxis) / grid) if narrow else dict(len=0.8)
    head = look.t("fig.explain.mean_heads") if result.head is None else look.t("fig.explain.head_n", head=result.head)
    target = look.t(result.target.key, **result.target.values)  # the backend names what it explains as data
    title = look.t("fig.explain.title", target=plain(target), score=percent(result.score))
    subtitle = look.t("fig.explain.subtitle", layer=result.layer, head=head, steps=result.steps)
    credited = int(np.argmax(raw[2])) if raw.shape[1] else 0
    alt = look.t("fig.alt.explain", title=look.t("fig.explain.title", target=target, score=percent(result.score)),
            n=len(result.tokens), token=result.tokens[credited] if result.tokens else "")
    if cell_px < MIN_CELL_PX:
        return _wrapped(result, look, z, raw, names, rows, title, subtitle, alt)
    fig = go.Figure(
        go.Heatmap(
            z=z.tolist(), x=names, y=rows, customdata=raw.tolist(), text=[tokens] * len(ROWS),
            texttemplate="%{text}", colorscale=SCALE, zmin=-1, zmax=1, xgap=2,
            ygap=NARROW_ROW_GAP if narrow else 4, textfont=dict(size=CELL_SIZE) if narrow else None,
            colorbar=colorbar(look.t("fig.explain.colorbar"), look, **scale),
            hovertemplate="%{y}<br>%{x}: %{customdata:.4g}<extra></extra>",
        )
    )
    if not narrow:
        fig.update_layout(
            **base_layout(CHROME + ROW_HEIGHT * len(ROWS), look, title, subtitle, alt=alt),
            xaxis=dict(xaxis, tickangle=-45),
            yaxis=dict(autorange="reversed", showgrid=False, title=look.t("fig.explain.rows_axis")),
        )
        return fig
    for i, name in enumerate(rows):  # each row's name in the gap above it, from the left edge
        fig.add_annotation(text=name, x=0, xref="paper", y=i - 0.5, yref="y", xanchor="left", yanchor="middle",
                           showarrow=False, font=dict(size=ROW_NAME_SIZE))
    bottom = label_depth(xaxis) + COLORBAR_ROOM
    height = top_margin(title, subtitle) + NARROW_ROW_GAP // 2 + grid + bottom
    yaxis = dict(autorange="reversed", showgrid=False, showticklabels=False, zeroline=False)
    fig.update_layout(**base_layout(height, look, title, subtitle, alt=alt), xaxis=xaxis, yaxis=yaxis)
    fig.update_layout(margin_b=bottom, margin_t=fig.layout.margin.t + NARROW_ROW_GAP // 2)
    return fig


def _wrapped(result, look: Look, z, raw, names, rows, title: str, subtitle: str, alt: str) -> go.Figure:
    """The rows of a long text wrapped onto lines of tokens, each token MIN_CELL_PX wide or more, one colour scale
    for all (hover: the raw value, as in one line)."""
    narrow, n = look.narrow, len(result.tokens)
    name_px = 0 if narrow else max(text_width(name, 11) for name in rows) + 12
    width = plot_px(look, name_px)
    per_line = max(1, int(width // MIN_CELL_PX))
    spans = [slice(start, min(start + per_line, n)) for start in range(0, n, per_line)]
    def axis(span: slice) -> dict:  # a line's token names, as many as its px hold at -45° (upright on a phone)
        px = width * (span.stop - span.start) / per_line
        return dict(**token_x_axis(result.tokens[span], look, px, max_labels=max(1, int(px // LABEL_EVERY_PX))),
                    type="category", range=[-0.5, per_line - 0.5])

    axes = [axis(span) for span in spans]
    line_px = len(ROWS) * LINE_ROW_PX
    gaps = [label_depth(axis) + LINE_GAP for axis in axes]
    grid = len(spans) * line_px + sum(gaps[:-1])
    fig = make_subplots(rows=len(spans), cols=1, vertical_spacing=(max(gaps[:-1]) / grid) if len(spans) > 1 else 0)
    hover = "%{y}<br>%{x}: %{customdata:.4g}<extra></extra>"
    for line, span in enumerate(spans, start=1):
        fig.add_trace(go.Heatmap(z=z[:, span].tolist(), x=names[span], y=rows, customdata=raw[:, span].tolist(),
                                 coloraxis="coloraxis", xgap=1, ygap=1, hovertemplate=hover), row=line, col=1)
        fig.update_xaxes(axes[line - 1], row=line, col=1)
        fig.update_yaxes(dict(autorange="reversed", showgrid=False, zeroline=False, showticklabels=not narrow,
                              tickfont=dict(size=11)), row=line, col=1)
    bottom = gaps[-1] + COLORBAR_ROOM
    # the colour bar under the lines on every screen: beside them it took the width their tokens need
    scale = colorbar(look.t("fig.explain.colorbar"), look, below=gaps[-1] / grid) if narrow else dict(
        title=dict(text=look.t("fig.explain.colorbar"), side="top"), orientation="h", x=0.5, xanchor="center",
        len=0.5, thickness=10, y=-gaps[-1] / grid, yanchor="top")
    height = top_margin(title, subtitle, 2 if narrow else 1) + grid + bottom
    fig.update_layout(**base_layout(height, look, title, subtitle, alt=alt),
                      coloraxis=dict(colorscale=SCALE, cmin=-1, cmax=1, colorbar=scale))
    fig.update_layout(margin_b=bottom)
    if narrow:  # the rows' names above the first line, in the order of its rows
        fig.add_annotation(text=" · ".join(rows), x=0, xref="paper", y=1, yref="paper", xanchor="left",
                           yanchor="bottom", showarrow=False, font=dict(size=ROW_NAME_SIZE))
    else:
        fig.update_layout(margin_l=name_px)
    return fig
