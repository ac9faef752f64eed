"""Figures for the BERT task tabs: probabilities as horizontal bars, best on top, in one look for every tab.

On a phone each bar's label sits above it, across the full width, instead of taking a column beside the bars."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.figures.axes import percent_axis, plot_px, shorten, token_axis
from bg_demo.figures.style import OKABE_ITO, base_layout, font_size, percent, plain, text_width, top_margin
from bg_demo.look import Look

BAR_HEIGHT = 26  # px per bar: a 15-px label and the gap to the next
NARROW_BAR_HEIGHT = 38  # px per bar on a phone: the bar, and its label above it in the gap
NARROW_BARGAP = 0.5  # of each bar's room, the gap that holds the next bar's label
CHART_CHROME = 80  # px per chart besides its bars: percent tick labels, axis title, the next chart's title
AXIS_ROOM = 50  # px under the last chart for its percent tick labels and axis title
TEXT_ROOM = 1.3  # the axis reaches at least 30% past the longest bar, so the percent label outside it fits
BAR_LABEL_CHARS = 24  # labels read across, beside the bars: room for longer ones than under a map
LABEL_SIZE = 12  # px of a label above its bar on a phone
ZERO_LABEL_PX = 16  # px left of a phone's bars: half of the "0%" tick label under their start
COLOURS = (OKABE_ITO["blue"], OKABE_ITO["orange"])  # charts one above the other alternate colours


def bar_px(look: Look) -> int:
    return NARROW_BAR_HEIGHT if look.narrow else BAR_HEIGHT


def bars_height(bars: int, look: Look, charts: int = 1, title: str = "", subplot_titles: int = 0) -> int:
    """Pixel height for `charts` charts of `bars` bars each (base_layout caps it at max_height(look))."""
    room = NARROW_BARGAP / 2 * bar_px(look) if look.narrow else 0  # the first bar's label
    return top_margin(title, subplot_titles=subplot_titles) + charts * int(CHART_CHROME + bar_px(look) * bars + room)


def probability_top(scores, look: Look, px: float | None = None) -> float:
    """The end of a 0..top percent axis `px` long (by default the page's plot) on which the largest score's bar and
    its percent label beside it both fit: at least TEXT_ROOM past it, more where the label takes more of a short
    axis."""
    best = max((float(score) for score in scores), default=0.0)
    px = px or plot_px(look)
    label = text_width(f"{best:.1%}", font_size(look)) + 8
    return max(min(1.0, best * TEXT_ROOM), best * px / max(px - label, 1)) or 1.0  # past 100% only for a label


def add_probability_bars(fig: go.Figure, look: Look, labels, scores, colour: str, row=None, col=None,
                         top=None) -> None:
    """Horizontal bars of probabilities in the given order (best first: on top), the percent beside each bar, on a
    0..`top` axis (by default one that fits them: see probability_top).

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
    top = top or probability_top(scores, look)
    fig.update_xaxes(**percent_axis(top, look), title_text=look.t("fig.tasks.probability"), row=row, col=col)
    if not look.narrow:
        axis = token_axis(labels, look, max_chars=BAR_LABEL_CHARS)
        fig.update_yaxes(**axis, autorange="reversed", row=row, col=col)
        return
    # each label above its bar, from the bar's start: the bars keep the width and the labels read whole
    above = -0.5 - NARROW_BARGAP / 2  # room over the first bar for its label, as the gaps give the others
    fig.update_yaxes(
        range=[len(scores) - 0.5, above], showticklabels=False, showgrid=False, zeroline=False, row=row, col=col
    )
    refs = dict(xref="x", yref="y") if row is None else {}
    for i, label in enumerate(labels):
        fig.add_annotation(
            text=plain(shorten(str(label), BAR_LABEL_CHARS, plot_px(look) - 20, LABEL_SIZE)),
            x=0,
            y=i - (1 - NARROW_BARGAP) / 2,
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            font=dict(size=LABEL_SIZE),
            row=row,
            col=col,
            **refs,
        )


def _spacing(layout: dict, rows: int, gap: int = CHART_CHROME) -> float:
    """`gap` px between charts, as the fraction of the plot area make_subplots takes (≤ 1 / (rows - 1))."""
    if rows == 1:
        return 0.0
    plot_area = layout["height"] - layout["margin"]["t"] - AXIS_ROOM
    return min(gap / plot_area, 0.9 / (rows - 1))


def stacked_charts(rows: int, titles: list[str], layout: dict, gap: int = CHART_CHROME) -> go.Figure:
    """`rows` charts one above the other, `gap` px apart, for a layout made by base_layout."""
    return make_subplots(rows=rows, cols=1, subplot_titles=titles, vertical_spacing=_spacing(layout, rows, gap))


def bargap(look: Look) -> float:
    return NARROW_BARGAP if look.narrow else 0.25


def bars_layout(height: int, look: Look, title: str = "", subplot_titles: int = 0, alt: str = "",
                **overrides) -> dict:
    """base_layout for bar charts; on a phone the left margin holds half of the "0%" under the bars' start."""
    layout = base_layout(height, look, title, subplot_titles=subplot_titles, alt=alt, bargap=bargap(look), **overrides)
    if look.narrow:
        layout["margin"]["l"] = ZERO_LABEL_PX
    return layout


def guess_words(guess, look: Look) -> str:
    """A guess (anything with `token` and `score`) as the text alternatives name it: "'bank' (61.0%)"."""
    return look.t("fig.alt.guess", token=guess.token, score=percent(guess.score))


def fill_mask_bars(result, look: Look) -> go.Figure:
    """One horizontal bar chart per mask (top to bottom in text order), best guess on top.

    result: a FillMaskResult; its `masks` is (M masks) x (k predictions) with token and score."""
    n_masks = len(result.masks)
    titles = [look.t("fig.tasks.mask_of", i=i + 1, n=n_masks) if n_masks > 1 else "[MASK]" for i in range(n_masks)]
    height = bars_height(max(len(choices) for choices in result.masks), look, n_masks, subplot_titles=1)
    best = ", ".join(guess_words(choices[0], look) for choices in result.masks if choices)
    alt = look.t("fig.alt.fill_mask", n=n_masks, best=best)
    layout = bars_layout(height, look, subplot_titles=1, alt=alt)
    fig = stacked_charts(n_masks, titles, layout)
    for row, choices in enumerate(result.masks, start=1):
        tokens, scores = [choice.token for choice in choices], [choice.score for choice in choices]
        add_probability_bars(fig, look, tokens, scores, COLOURS[(row - 1) % 2], row=row, col=1)
    fig.update_layout(**layout)
    return fig


def label_bars(scores: dict[str, float], look: Look, title: str = "") -> go.Figure:
    """Every label's probability (sentiment, next sentence, …) as fill_mask_bars draws a mask's guesses."""
    ranked = sorted(scores.items(), key=lambda item: -item[1])  # best first; ties keep their order
    fig = go.Figure()
    add_probability_bars(fig, look, [label for label, _ in ranked], [score for _, score in ranked], COLOURS[0])
    best = look.t("fig.alt.guess", token=ranked[0][0], score=percent(ranked[0][1])) if ranked else ""
    alt = look.t("fig.alt.labels", n=len(ranked), best=best)
    fig.update_layout(**bars_layout(bars_height(len(ranked), look, title=title), look, title, alt=alt))
    return fig
