"""Figures for the BERT task tabs: probabilities as horizontal bars, best on top, in one look for every tab."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.figures.axes import percent_axis, token_axis
from bg_demo.figures.style import OKABE_ITO, base_layout, plain, top_margin
from bg_demo.text import t

BAR_HEIGHT = 26  # px per bar: a 15-px label and the gap to the next
CHART_CHROME = 80  # px per chart besides its bars: percent tick labels, axis title, the next chart's title
AXIS_ROOM = 50  # px under the last chart for its percent tick labels and axis title
TEXT_ROOM = 1.3  # the axis reaches 30% past the longest bar, so the percent label outside it fits
BAR_LABEL_CHARS = 24  # labels read across, beside the bars: room for longer ones than under a map
COLOURS = (OKABE_ITO["blue"], OKABE_ITO["orange"])  # charts one above the other alternate colours


def bars_height(bars: int, charts: int = 1, title: str = "", subplot_titles: int = 0) -> int:
    """Pixel height for `charts` charts of `bars` bars each (base_layout caps it at MAX_HEIGHT)."""
    return top_margin(title, subplot_titles=subplot_titles) + charts * (CHART_CHROME + BAR_HEIGHT * bars)


def add_probability_bars(fig: go.Figure, labels, scores, colour: str, row=None, col=None) -> None:
    """Horizontal bars of probabilities in the given order (best first: on top), the percent beside each bar.

    Integer positions on the label axis: two labels may print alike."""
    scores = [float(score) for score in scores]
    fig.add_trace(
        go.Bar(
            x=scores,
            y=list(range(len(scores))),
            orientation="h",
            marker_color=colour,
            text=[f"{score:.1%}" for score in scores],
            textposition="outside",
            customdata=[plain(label) for label in labels],
            hovertemplate="%{customdata}: %{x:.2%}<extra></extra>",
            showlegend=False,
        ),
        row=row,
        col=col,
    )
    axis = token_axis(labels, max_chars=BAR_LABEL_CHARS)
    fig.update_yaxes(**axis, autorange="reversed", row=row, col=col)
    top = min(1.0, max(scores, default=0.0) * TEXT_ROOM) or 1.0
    fig.update_xaxes(**percent_axis(top), title_text=t("fig.tasks.probability"), row=row, col=col)


def _spacing(layout: dict, rows: int) -> float:
    """CHART_CHROME between charts, as the fraction of the plot area make_subplots takes (≤ 1 / (rows - 1))."""
    if rows == 1:
        return 0.0
    plot_area = layout["height"] - layout["margin"]["t"] - AXIS_ROOM
    return min(CHART_CHROME / plot_area, 0.9 / (rows - 1))


def fill_mask_bars(result) -> go.Figure:
    """One horizontal bar chart per mask (top to bottom in text order), best guess on top.

    result: a FillMaskResult; its `masks` is (M masks) x (k predictions) with token and score."""
    n_masks = len(result.masks)
    titles = [t("fig.tasks.mask_of", i=i + 1, n=n_masks) if n_masks > 1 else "[MASK]" for i in range(n_masks)]
    height = bars_height(max(len(choices) for choices in result.masks), n_masks, subplot_titles=1)
    layout = base_layout(height, subplot_titles=1, bargap=0.25)
    fig = make_subplots(rows=n_masks, cols=1, subplot_titles=titles, vertical_spacing=_spacing(layout, n_masks))
    for row, choices in enumerate(result.masks, start=1):
        tokens, scores = [choice.token for choice in choices], [choice.score for choice in choices]
        add_probability_bars(fig, tokens, scores, COLOURS[(row - 1) % 2], row=row, col=1)
    fig.update_layout(**layout)
    return fig


def label_bars(scores: dict[str, float], title: str = "") -> go.Figure:
    """Every label's probability (sentiment, next sentence, …) as fill_mask_bars draws a mask's guesses."""
    ranked = sorted(scores.items(), key=lambda item: -item[1])  # best first; ties keep their order
    fig = go.Figure()
    add_probability_bars(fig, [label for label, _ in ranked], [score for _, score in ranked], COLOURS[0])
    fig.update_layout(**base_layout(bars_height(len(ranked), title=title), title, bargap=0.25))
    return fig
