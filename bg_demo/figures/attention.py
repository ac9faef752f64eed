"""Figures for attention: one head, a layer's heads, every head at a glance, lines, a focus window, aggregates.

Heatmap axes are categories named by token and position ("bank #4": two tokens that print alike
stay apart), so hovers name the whole token; tick labels are thinned and shortened (see axes.py).
Weights go in as whole thousandths in uint16 numpy arrays, which plotly sends as base64: a 512 x 512 head is 0.7 MB
(1.4 MB as float32, 3 MB as JSON lists), and the hover still prints the weight to 3 decimals (see `_hover`). Maps
over more than FULL_CELLS tokens a side, a layer's panels and the thumbnails of every head are max-pooled (see
backend.attention.pool_max), and their hovers name the tokens each cell covers. Each figure is drawn for the
reader's `Look` (its language and page width), passed second. BERT beside GPT-2 is in compare.py.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.backend.attention import (
    FULL_CELLS,
    attention_view,
    blocks,
    focus_keys,
    head_weights,
    pool_max,
    stats_of,
)
from bg_demo.figures.axes import (
    COLORBAR_ROOM,
    NARROW_LABEL_PX,
    NARROW_UPRIGHT_PX,
    X_TITLE_ROOM,
    colorbar,
    label_depth,
    labels_down,
    labels_side_by_side,
    map_height,
    narrow_map_height,
    numbers_dtick,
    percent_ticks,
    plot_px,
    shorten,
    shown_positions,
    tick_font,
    token_names,
    token_x_axis,
    token_y_axis,
    y_title,
)
from bg_demo.figures.style import OKABE_ITO, base_layout, plain, text_width, top_margin
from bg_demo.look import Look

WEIGHTS_SCALE = "Viridis"  # perceptually even, colour-blind safe, light high weights stand out on a projector
STATS_SCALE = "Cividis"  # a second scale, so the overview never reads as a weight map
# each statistic's hover format; its words are the texts "fig.attention.stat.<stat>" (hover, title) and
# "fig.attention.stat_short.<stat>" (colour bar)
STAT_FORMATS = {"entropy": ".2f", "to_special": ".1%", "to_previous": ".1%", "to_self": ".1%"}
LINE_BINS = (0.02, 0.05, 0.1, 0.2, 0.4, 1.01)  # weights below the first are not drawn
PANEL_HEIGHT = 140  # px per row of the layer grid: three rows (twelve heads) fit MAX_HEIGHT
GRID_CHROME = 170  # px around the grid: title, subplot titles, rotated key labels
PANEL_TICK_LABELS = 8  # a ~140-px panel has room for about eight token labels
NARROW_COLUMNS = 2  # small multiples on a phone: two panels a row, as many rows as it takes (the page scrolls)
PANEL_GAP = 12  # px between two panels side by side on a phone
PANEL_TITLE_ROOM = 30  # px above each panel on a phone for its subplot title
LINES_ROW_PX = 16  # px per token in the lines view on a phone: every token named, one line each
LINES_MAX_PX = 900  # ... until this tall; longer inputs name every k-th
LINES_LABEL_GAP = 6  # px between a token's label and the end of its lines


THOUSANDTHS_FORMAT = "05,d"  # with SEPARATORS, whole thousandths print as weights: 123 -> "0.123", 1000 -> "1.000"
SEPARATORS = ",."  # layout.separators: "." groups thousands (the only digits grouped are a weight's); "," unused
LINES_MAX = 1500  # the lines view draws at most this many lines, the strongest: more is a grey fog at 512 tokens


def thousandths(matrix) -> np.ndarray:
    """Weights in [0, 1] as whole thousandths (uint16): half the bytes of float32, exactly the 3 decimals a hover
    shows. Plotly cannot scale a value in a hover, but d3's zero-padded grouping can place the point: with the
    figure's separators ",.", format "05,d" prints 123 as 0.123 and 1000 as 1.000."""
    return np.rint(np.clip(np.asarray(matrix, dtype=np.float32), 0.0, 1.0) * 1000).astype(np.uint16)


def _hover(look: Look, pooled: bool = False) -> str:
    """A weight's hover, in `look`'s language; the axes' categories name the tokens (a pooled cell's, all the
    tokens it covers, and its weight is the largest of them)."""
    query, key = look.t("fig.attention.query"), look.t("fig.attention.key")
    weight = look.t("fig.attention.largest" if pooled else "fig.attention.weight")
    return f"{query} %{{y}} → {key} %{{x}}<br>{weight} %{{z:{THOUSANDTHS_FORMAT}}}<extra></extra>"


def block_names(tokens, f: int = 1) -> list[str]:
    """Category names for the cells of an axis max-pooled f tokens a cell: "bank #4" (f = 1), else the first and
    last token and their positions, "the … bank #0–3"."""
    if f == 1:
        return token_names(tokens)
    return [f"{plain(tokens[a])} … {plain(tokens[b])} #{a}–{b}" for a, b in blocks(len(tokens), f)]


def block_labels(tokens, f: int = 1) -> list[str]:
    """The token a tick names for each cell of a pooled axis: its first."""
    return list(tokens) if f == 1 else [tokens[a] for a, _ in blocks(len(tokens), f)]


def _weight_ticks(top: float) -> dict:
    """Colour-bar ticks for an axis of thousandths up to `top` (a weight), labelled as weights: 0, 0.2, 0.4 …"""
    top = max(top, 0.001)
    step = next(s for s in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0) if top / s <= 5)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) + (1 if step == 0.25 else 0)
    values = np.arange(0, top + step / 2, step)
    return dict(tickmode="array", tickvals=[round(v * 1000) for v in values], ticktext=[f"{v:.{decimals}f}" for v in values])


def _coloraxis(top: float, look: Look, below: float = 0.0) -> dict:
    """The weights' colour axis, in thousandths up to the weight `top`, its ticks labelled as weights (its bar
    `below` the plot on a phone: see axes.colorbar)."""
    top = max(float(top), 0.001)
    return dict(colorscale=WEIGHTS_SCALE, cmin=0, cmax=round(top * 1000),
                colorbar=colorbar(look.t("fig.attention.weight"), look, below, **_weight_ticks(top)))


def _strongest(matrix, rows, columns=None) -> dict:
    """The largest weight of a (Q, K) matrix and what its row and column name (tokens, or a pooled cell's tokens),
    for a figure's text alternative."""
    query, key = np.unravel_index(int(np.argmax(matrix)), matrix.shape)
    columns = rows if columns is None else columns
    return dict(weight=f"{float(matrix[query, key]):.3f}", query=rows[query], key=columns[key])


def map_layout(fig, look: Look, tokens, title: str, subtitle: str, alt: str, key_title: str, query_title: str,
               top=None) -> None:
    """Keys across, queries down (query 0 on top), on axes whose categories are `token_names(tokens)`, coloured on
    a weight axis up to `top` (None: the trace has its own colours); as tall as the tokens need on a wide screen
    (see map_height). On a phone the map takes the whole width, about square, with upright key labels, short query
    labels, the rows named in the subtitle and the colour bar under it."""
    if not look.narrow:
        fig.update_xaxes(**token_x_axis(tokens, look, plot_px(look), angle=-60), type="category",
                         title_text=key_title)
        fig.update_yaxes(**token_y_axis(tokens, look, 0), type="category", autorange="reversed",
                         title_text=query_title)
        colours = dict(coloraxis=_coloraxis(top, look)) if top is not None else {}
        fig.update_layout(**base_layout(map_height(len(tokens)), look, title, subtitle, alt=alt, **colours))
        return
    subtitle = subtitle or look.t("fig.attention.head_subtitle")  # the rows' axis has no room for a title beside it
    xaxis = token_x_axis(tokens, look, plot_px(look, NARROW_LABEL_PX))
    under = label_depth(xaxis) + X_TITLE_ROOM  # the key labels and the axis title
    bottom = under + (COLORBAR_ROOM if top is not None else 0)
    chrome = top_margin(title, subtitle) + bottom
    height = narrow_map_height(len(tokens), look, chrome)
    colours = dict(coloraxis=_coloraxis(top, look, under / (height - chrome))) if top is not None else {}
    fig.update_xaxes(**xaxis, type="category", title_text=key_title)
    fig.update_yaxes(**token_y_axis(tokens, look, height - chrome), type="category", autorange="reversed")
    fig.update_layout(**base_layout(height, look, title, subtitle, alt=alt, **colours))
    fig.update_layout(margin_b=bottom)


def _matrix_figure(matrix, look: Look, tokens, title: str, subtitle: str = "", alt: str = "",
                   block: int = 1) -> go.Figure:
    """One (query, key) matrix as a heatmap filling the width, as tall as its rows need (see map_height); `block` > 1:
    the matrix is max-pooled, each cell covering block x block of `tokens`."""
    matrix = np.asarray(matrix, dtype=np.float32)  # (Q, K)
    names, labels = block_names(tokens, block), block_labels(tokens, block)
    trace = go.Heatmap(z=thousandths(matrix), x=names, y=names, coloraxis="coloraxis",
                       hovertemplate=_hover(look, block > 1))
    fig = go.Figure(trace)
    said = list(tokens) if block == 1 else [plain(name) for name in names]  # a pooled cell by its tokens' span
    alt = alt or look.t("fig.alt.map", title=title, n=len(tokens), **_strongest(matrix, said))
    map_layout(fig, look, labels, title, subtitle, alt, look.t("fig.attention.key_axis"),
               look.t("fig.attention.query_axis"), matrix.max())
    fig.update_layout(separators=SEPARATORS)
    return fig


def _pooled_subtitle(block: int, look: Look, subtitle: str) -> str:
    return look.t("fig.attention.pooled_subtitle", n=block) if block > 1 else subtitle


def head_heatmap(result, look: Look, layer: int, head: int, hide_special: bool = False) -> go.Figure:
    """One head as a heatmap, at full resolution up to FULL_CELLS tokens (max-pooled above). result: an
    AttentionResult, weights (L, H, Q, K)."""
    data = attention_view(result, "head", layer, head, hide_special)
    subtitle = _pooled_subtitle(data.block, look, look.t("fig.attention.head_subtitle"))
    title = look.t("fig.attention.head_title", layer=data.layer, head=head)
    return _matrix_figure(data.values, look, data.tokens, title, subtitle, block=data.block)


def aggregate_heatmap(matrix, look: Look, tokens, title: str, block: int = 1) -> go.Figure:
    """A (Q, K) matrix made from many heads, e.g. their mean or the rollout; `title` is the caller's, in its words."""
    return _matrix_figure(matrix, look, tokens, title, _pooled_subtitle(block, look, ""), block=block)


def _spacing(rows: int) -> float:
    return min(0.08, 0.9 / (rows - 1)) if rows > 1 else 0.0  # make_subplots rejects more than 1 / (rows - 1)


def _grid(n_heads: int, look: Look) -> tuple[int, int, int, dict]:
    """(columns, rows, height, make_subplots spacing) of the layer's small multiples: four to a row in MAX_HEIGHT on
    a wide screen; on a phone NARROW_COLUMNS to a row, each panel about square, as tall as that takes."""
    if not look.narrow:
        cols = min(4, n_heads)
        rows = math.ceil(n_heads / cols)
        spacing = dict(horizontal_spacing=0.03, vertical_spacing=_spacing(rows))
        return cols, rows, GRID_CHROME + PANEL_HEIGHT * rows, spacing
    cols = min(NARROW_COLUMNS, n_heads)
    rows = math.ceil(n_heads / cols)
    width = plot_px(look, NARROW_LABEL_PX)
    panel = (width - PANEL_GAP * (cols - 1)) / cols
    grid = rows * panel + (rows - 1) * PANEL_TITLE_ROOM
    spacing = dict(horizontal_spacing=PANEL_GAP / width, vertical_spacing=PANEL_TITLE_ROOM / grid if rows > 1 else 0)
    return cols, rows, int(grid), spacing


def layer_heads(result, look: Look, layer: int, hide_special: bool = False) -> go.Figure:
    """Every head of one layer as small multiples (four to a row; two on a phone), on one shared colour axis, each
    max-pooled to PANEL_CELLS a side; token labels (every k-th) on the left column and under the lowest panel of
    each column."""
    data = attention_view(result, "layer", layer, 0, hide_special)
    values, tokens, f = data.values, data.tokens, data.block  # (H, P, P)
    n_heads = values.shape[0]
    narrow = look.narrow
    cols, rows, grid, spacing = _grid(n_heads, look)
    titles = [look.t("fig.attention.head_n", head=h) for h in range(n_heads)]
    fig = make_subplots(rows, cols, subplot_titles=titles, **spacing)
    names, labels = block_names(tokens, f), block_labels(tokens, f)
    weight_hover = _hover(look, f > 1)
    for h in range(n_heads):
        hover = f"{titles[h]}<br>" + weight_hover
        trace = go.Heatmap(z=thousandths(values[h]), x=names, y=names, coloraxis="coloraxis", hovertemplate=hover)
        fig.add_trace(trace, row=h // cols + 1, col=h % cols + 1)
    panel = (grid - (rows - 1) * PANEL_TITLE_ROOM) / rows if narrow else PANEL_HEIGHT
    x_axis = token_x_axis(labels, look, panel, angle=-60, max_labels=PANEL_TICK_LABELS, show=False)
    fig.update_xaxes(**x_axis, type="category")
    y_axis = token_y_axis(labels, look, panel, PANEL_TICK_LABELS, show=False)
    fig.update_yaxes(**y_axis, type="category", autorange="reversed")
    for h in range(max(0, n_heads - cols), n_heads):  # the lowest panel of each column
        fig.update_xaxes(showticklabels=True, row=h // cols + 1, col=h % cols + 1)
    fig.update_yaxes(showticklabels=True, col=1)
    title = look.t("fig.attention.layer_title", layer=data.layer, n_heads=n_heads)
    strongest = np.unravel_index(int(np.argmax(values)), values.shape)  # (head, query, key)
    alt = look.t("fig.alt.layer_heads", title=title, n=len(tokens), head=int(strongest[0]),
            **_strongest(values[strongest[0]], list(tokens) if f == 1 else [plain(n) for n in names]))
    top = float(values.max())
    subtitle = _pooled_subtitle(f, look, "")
    if not narrow:
        layout = base_layout(GRID_CHROME + PANEL_HEIGHT * rows, look, title, subtitle, subplot_titles=1, alt=alt,
                             coloraxis=_coloraxis(top, look), separators=SEPARATORS)
        fig.update_layout(**layout)
        return fig
    under = label_depth(x_axis)
    bottom = under + COLORBAR_ROOM
    layout = base_layout(top_margin(title, subtitle, subplot_titles=1) + grid + bottom, look, title, subtitle,
                         subplot_titles=1, alt=alt, coloraxis=_coloraxis(top, look, under / grid),
                         separators=SEPARATORS)
    fig.update_layout(**layout)
    fig.update_layout(margin_b=bottom)
    return fig


THUMB_GAP = 2  # empty cells between two thumbnails of the every-head view


def every_head(result, look: Look, hide_special: bool = False, selected=None) -> go.Figure:
    """Every layer's and head's map at once, each a thumbnail max-pooled to THUMB_CELLS a side (a diagonal, a column
    on [SEP] stays sharp), tiled layers down and heads across in one heatmap; `selected` (layer, head) outlined."""
    data = attention_view(result, "heads", 0, 0, hide_special)
    values, tokens, f = data.values, data.tokens, data.block  # (L, H, P, P)
    n_layers, n_heads, p = values.shape[:3]
    step = p + THUMB_GAP
    z = np.full((n_layers * step - THUMB_GAP, n_heads * step - THUMB_GAP), np.nan, dtype=np.float32)
    for layer in range(n_layers):
        for head in range(n_heads):
            z[layer * step:layer * step + p, head * step:head * step + p] = thousandths(values[layer, head])
    spans = blocks(len(tokens), f)
    layer_word, head_word = look.t("fig.attention.layer"), look.t("fig.attention.head")

    def names(count: int, word: str) -> list[str]:  # a cell's category: its layer (or head) and its tokens; gaps unique
        cells = []
        for i in range(count * step - THUMB_GAP):
            n, j = divmod(i, step)
            if j >= p:
                cells.append(" " * (i + 1))
            else:
                a, b = spans[j]
                where = f"{plain(tokens[a])} #{a}" if a == b else f"{plain(tokens[a])} … {plain(tokens[b])} #{a}–{b}"
                cells.append(f"{word} {n} · {where}")
        return cells

    x, y = names(n_heads, head_word), names(n_layers, layer_word)
    hover = f"%{{y}}<br>→ %{{x}}<br>{look.t('fig.attention.largest')} %{{z:{THOUSANDTHS_FORMAT}}}<extra></extra>"
    fig = go.Figure(go.Heatmap(z=z, x=x, y=y, coloraxis="coloraxis", hovertemplate=hover, hoverongaps=False))
    if selected is not None:
        layer, head = selected
        box = dict(type="rect", xref="x", yref="y", x0=head * step - 1, x1=head * step + p,
                   y0=layer * step - 1, y1=layer * step + p)
        fig.add_shape(**box, line=dict(color=OKABE_ITO["vermillion"], width=3))
    narrow = look.narrow
    centre = p // 2

    def ticks(count: int, px: float, across: bool) -> dict:
        fit = labels_side_by_side([str(count - 1)], px, tick_font(look)["size"]) if across else labels_down(px)
        every = max(1, math.ceil(count / max(fit, 1)))
        shown = range(0, count, every)
        return dict(tickmode="array", tickvals=[i * step + centre for i in shown], ticktext=[str(i) for i in shown],
                    tickfont=tick_font(look), showgrid=False, zeroline=False)

    title = look.t("fig.attention.every_head_title", layers=n_layers, heads=n_heads)
    subtitle = look.t("fig.attention.every_head_subtitle", n=f) if f > 1 else look.t(
        "fig.attention.every_head_full")
    strongest = np.unravel_index(int(np.nanargmax(z)), z.shape)
    alt = look.t("fig.alt.every_head", title=title, layers=n_layers, heads=n_heads, n=len(tokens),
            layer=int(strongest[0] // step), head=int(strongest[1] // step))
    width = plot_px(look, NARROW_LABEL_PX if narrow else 60)
    fig.update_xaxes(type="category", title_text=head_word, **ticks(n_heads, width, True))
    top = float(values.max())
    if not narrow:
        fig.update_yaxes(type="category", title_text=layer_word, autorange="reversed", **ticks(n_layers, 500, False))
        fig.update_layout(**base_layout(map_height(n_layers * 3), look, title, subtitle, alt=alt,
                                        separators=SEPARATORS, coloraxis=_coloraxis(top, look)))
        return fig
    chrome = top_margin(title, subtitle, subplot_titles=1) + OVERVIEW_BOTTOM
    rows_px = max(width * n_layers / n_heads, 8 * n_layers)
    y_title(fig, look, layer_word, type="category", autorange="reversed", **ticks(n_layers, rows_px, False))
    layout = base_layout(int(chrome + rows_px), look, title, subtitle, subplot_titles=1, alt=alt,
                         separators=SEPARATORS, coloraxis=_coloraxis(top, look, OVERVIEW_UNDER / rows_px))
    fig.update_layout(**layout)
    fig.update_layout(margin_b=OVERVIEW_BOTTOM)
    return fig


OVERVIEW_UNDER = 24 + X_TITLE_ROOM  # on a phone: the heads' numbers and their title under the tiles
OVERVIEW_BOTTOM = OVERVIEW_UNDER + COLORBAR_ROOM  # ... and the colour bar under them


def _overview_rows_px(n_layers: int, look: Look, title: str) -> float:
    """Px of a phone's overview plot (see narrow_map_height): its layers' axis is named above it."""
    chrome = top_margin(title, subplot_titles=1) + OVERVIEW_BOTTOM
    return narrow_map_height(n_layers, look, chrome) - chrome


def head_overview(result, look: Look, stat: str = "entropy", hide_special: bool = False, selected=None) -> go.Figure:
    """Every (layer, head) as a tile coloured by one statistic; `selected` (layer, head) is outlined."""
    values = getattr(stats_of(result, hide_special), stat)  # (L, H)
    fmt = STAT_FORMATS[stat]
    label, short = look.t(f"fig.attention.stat.{stat}"), look.t(f"fig.attention.stat_short.{stat}")
    layer_word, head_word = look.t("fig.attention.layer"), look.t("fig.attention.head")
    n_layers, n_heads = values.shape
    title = look.t("fig.attention.overview_title", stat=label)
    ticks = percent_ticks(float(np.nanmax(values) - np.nanmin(values))) if "%" in fmt else {}
    # its colours on the layout's colour axis, as the other views of many heads have theirs: Plotly, drawing this
    # figure over one of those in place (Gradio's update), drew a rect of NaN height from a trace's own colour bar
    fig = go.Figure(
        go.Heatmap(
            z=values,
            coloraxis="coloraxis",
            xgap=3,
            ygap=3,
            hovertemplate=f"{layer_word} %{{y}}, {head_word} %{{x}}<br>{label}: %{{z:{fmt}}}<extra></extra>",
        )
    )
    fig.update_layout(coloraxis=dict(colorscale=STATS_SCALE, colorbar=colorbar(
        short, look, OVERVIEW_UNDER / _overview_rows_px(n_layers, look, title), **ticks)))
    if selected is not None:
        layer, head = selected
        box = dict(type="rect", x0=head - 0.5, x1=head + 0.5, y0=layer - 0.5, y1=layer + 0.5)
        fig.add_shape(**box, line=dict(color=OKABE_ITO["vermillion"], width=4))
    top = np.unravel_index(int(np.argmax(np.nan_to_num(values, nan=-np.inf))), values.shape)  # NaN: no such query
    alt = look.t("fig.alt.overview", title=title, layers=n_layers, heads=n_heads, layer=int(top[0]), head=int(top[1]),
            value=f"{float(values[top]):{fmt}}")
    axes = dict(showgrid=False, zeroline=False)
    if not look.narrow:
        fig.update_xaxes(title_text=head_word, dtick=1, **axes)
        fig.update_yaxes(title_text=layer_word, dtick=1, autorange="reversed", **axes)
        fig.update_layout(**base_layout(map_height(n_layers), look, title, alt=alt))
        return fig
    bottom = OVERVIEW_BOTTOM
    rows_px = _overview_rows_px(n_layers, look, title)
    fig.update_xaxes(title_text=head_word, dtick=numbers_dtick(n_heads, look, plot_px(look, NARROW_LABEL_PX)), **axes)
    y_title(fig, look, layer_word, dtick=max(1, math.ceil(n_layers / labels_down(rows_px))), autorange="reversed",
            **axes)
    fig.update_layout(**base_layout(top_margin(title, subplot_titles=1) + rows_px + bottom, look, title,
                                    subplot_titles=1, alt=alt))
    fig.update_layout(margin_b=bottom)
    return fig


def _segments(queries, keys) -> tuple[np.ndarray, np.ndarray]:
    """x, y of line segments from query q (left, x=0) to key k (right, x=1), separated by NaN gaps."""
    x = np.tile(np.array([0.0, 1.0, np.nan], dtype=np.float32), len(queries))
    y = np.stack([queries, keys, np.full(len(queries), np.nan)], axis=1).astype(np.float32).ravel()
    return x, y


def head_lines(result, look: Look, layer: int, head: int, hide_special: bool = False) -> go.Figure:
    """bertviz-style lines: tokens in two columns, a line from each query (left) to each key (right),
    thicker and darker for larger weights. Weights under LINE_BINS[0] are left out, and past LINES_MAX lines only the
    strongest are drawn. On a phone every token gets its own line of text (the figure grows taller) and the columns
    leave the labels exactly the room they take; a label thinned away is still named in the hover of its row."""
    data = attention_view(result, "lines", layer, head, hide_special)
    matrix, tokens = data.values, data.tokens  # (Q, K)
    narrow = look.narrow
    drawn = matrix >= LINE_BINS[0]
    if int(drawn.sum()) > LINES_MAX:  # the strongest LINES_MAX
        floor = np.partition(matrix.ravel(), -LINES_MAX)[-LINES_MAX]
        drawn &= matrix >= floor
    fig = go.Figure()
    for i, (low, high) in enumerate(itertools.pairwise(LINE_BINS)):
        queries, keys = np.nonzero(drawn & (matrix >= low) & (matrix < high))
        if len(queries):
            x, y = _segments(queries, keys)
            line = dict(color=OKABE_ITO["blue"], width=1 + 1.2 * i)
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=line, opacity=0.25 + 0.15 * i, hoverinfo="skip"))
    queries, keys = np.nonzero(drawn)  # hover: a point in the middle of each line
    hover = [f"{plain(tokens[q])} #{q} → {plain(tokens[k])} #{k}: {matrix[q, k]:.3f}" for q, k in zip(queries, keys)]
    middle = dict(x=np.full(len(queries), 0.5, dtype=np.float32), y=((queries + keys) / 2).astype(np.float32))
    marker = dict(size=6, opacity=0)
    fig.add_trace(go.Scatter(**middle, mode="markers", marker=marker, hovertext=hover, hoverinfo="text"))
    subtitle = look.t("fig.attention.lines_subtitle")
    if len(queries) < int((matrix >= LINE_BINS[0]).sum()):
        subtitle = look.t("fig.attention.lines_thinned", n=len(queries), weight=f"{float(matrix[drawn].min()):.3f}")
    title = look.t("fig.attention.head_title", layer=data.layer, head=head)
    rows_px = min(max(plot_px(look), LINES_ROW_PX * len(tokens)), LINES_MAX_PX) if narrow else None
    shown = shown_positions(len(tokens), labels_down(rows_px)) if narrow else shown_positions(len(tokens))
    font = tick_font(look)
    text = [plain(shorten(tokens[i], max_px=NARROW_UPRIGHT_PX if narrow else None, size=font["size"])) for i in shown]
    reach, gap = [-0.6, 1.6], 0.02  # the labels' room beside the lines, and their gap, in lines' lengths
    if narrow:  # exactly the room the longest label takes, and a little
        label = max((text_width(words, font["size"]) for words in text), default=0) + LINES_LABEL_GAP + 4
        length = plot_px(look) - 2 * label
        reach, gap = [-label / length, 1 + label / length], LINES_LABEL_GAP / length
    for x, side in ((-gap, "middle left"), (1 + gap, "middle right")):  # apart from the lines' ends
        column = dict(x=np.full(len(shown), x), y=np.array(shown), text=text, textposition=side)
        fig.add_trace(go.Scatter(**column, mode="text", textfont=font, hoverinfo="skip"))
    if shown.step > 1:  # every token, labelled or not, named whole in a hover at its place in each column
        every = np.arange(len(tokens))
        names = [f"{plain(token)} #{i}" for i, token in enumerate(tokens)]
        for x in (-gap, 1 + gap):
            fig.add_trace(go.Scatter(x=np.full(len(tokens), x, dtype=np.float32), y=every.astype(np.float32),
                                     mode="markers", marker=dict(size=8, opacity=0), hovertext=names,
                                     hoverinfo="text"))
    fig.update_xaxes(visible=False, range=reach)
    fig.update_yaxes(visible=False, autorange="reversed")
    alt = look.t("fig.alt.lines", title=title, n=len(tokens), **_strongest(matrix, tokens))
    height = top_margin(title, subtitle) + rows_px + 20 if narrow else map_height(len(tokens))
    fig.update_layout(**base_layout(height, look, title, subtitle, alt=alt, showlegend=False))
    return fig


FOCUS_STRIP_PX = 34  # px per chosen query in the focus view's strip across every key


def focus_view(result, look: Look, layer: int, head: int, hide_special: bool = False, query: int = 0,
               span: int = 1) -> go.Figure:
    """A focus window on one head: the chosen queries' rows across every key (a strip, max-pooled past FULL_CELLS
    keys), and under it the map around them at full resolution, FOCUS_RADIUS tokens either side, the chosen rows
    outlined; every token named in the hover, the strongest keys in the subtitle."""
    data = attention_view(result, "focus", layer, head, hide_special, query=query, span=span)
    rows, tokens, first = data.values, data.tokens, data.query_start  # (n, K)
    last = first + rows.shape[0] - 1
    k0, k1 = focus_keys(len(tokens), first, last)
    around = head_weights(result, layer, head, hide_special)[k0:k1 + 1, k0:k1 + 1]
    strip, f = pool_max(rows, FULL_CELLS)
    names = token_names(tokens)
    strip_x = block_names(tokens, f)
    strip_y = names[first:last + 1]
    narrow = look.narrow
    near_names = names[k0:k1 + 1]
    near_labels = list(tokens[k0:k1 + 1])
    strip_px = FOCUS_STRIP_PX * rows.shape[0]
    map_px = plot_px(look, NARROW_LABEL_PX) if narrow else min(MAP_MAX_HEIGHT_FOCUS, 20 * len(near_names))
    gap_px = 90  # the strip's key labels and the map's title between the two
    titles = [look.t("fig.attention.focus_row", n=rows.shape[0]), look.t("fig.attention.focus_map", start=k0, end=k1)]
    fig = make_subplots(rows=2, cols=1, row_heights=[strip_px, map_px],
                        vertical_spacing=gap_px / (strip_px + map_px + gap_px), subplot_titles=titles)
    fig.add_trace(go.Heatmap(z=thousandths(strip), x=strip_x, y=strip_y, coloraxis="coloraxis",
                             hovertemplate=_hover(look, f > 1)), row=1, col=1)
    fig.add_trace(go.Heatmap(z=thousandths(around), x=near_names, y=near_names, coloraxis="coloraxis",
                             hovertemplate=_hover(look)), row=2, col=1)
    outline = dict(type="rect", xref="x2 domain", yref="y2", x0=0, x1=1, y0=first - k0 - 0.5, y1=last - k0 + 0.5,
                   line=dict(color=OKABE_ITO["vermillion"], width=3))
    fig.add_shape(**outline)
    fig.update_xaxes(type="category", row=1, col=1,
                     **token_x_axis(block_labels(tokens, f), look, plot_px(look, NARROW_LABEL_PX if narrow else 80),
                                    angle=-60))
    fig.update_yaxes(type="category", row=1, col=1, autorange="reversed",
                     **token_y_axis(list(tokens[first:last + 1]), look, strip_px))
    fig.update_xaxes(type="category", row=2, col=1, title_text=look.t("fig.attention.key_axis"),
                     **token_x_axis(near_labels, look, map_px, angle=-60))
    fig.update_yaxes(type="category", row=2, col=1, autorange="reversed",
                     **token_y_axis(near_labels, look, map_px))
    order = np.argsort(-rows.max(axis=0))[:3]  # the keys the chosen queries weigh most
    strongest = ", ".join(f"{plain(tokens[k])} #{k} ({float(rows[:, k].max()):.3f})" for k in order)
    title = look.t("fig.attention.focus_title", layer=data.layer, head=head, query=plain(tokens[first]), at=first)
    subtitle = look.t("fig.attention.focus_subtitle", keys=strongest)
    alt = look.t("fig.alt.focus", title=title, keys=strongest)
    top = float(max(rows.max(), around.max()))
    under = label_depth(token_x_axis(near_labels, look, map_px, angle=-60)) + X_TITLE_ROOM
    height = top_margin(title, subtitle, subplot_titles=1) + strip_px + gap_px + map_px + under
    if not narrow:
        fig.update_layout(**base_layout(height, look, title, subtitle, subplot_titles=1, alt=alt,
                                        separators=SEPARATORS, coloraxis=_coloraxis(top, look)))
        fig.update_layout(margin_b=under)
        return fig
    fig.update_layout(**base_layout(height + COLORBAR_ROOM, look, title, subtitle, subplot_titles=1, alt=alt,
                                    separators=SEPARATORS, coloraxis=_coloraxis(top, look, under / map_px)))
    fig.update_layout(margin_b=under + COLORBAR_ROOM)
    return fig


MAP_MAX_HEIGHT_FOCUS = 420  # px for the focus view's map on a wide screen: with the strip, a 768-px screen's room


def attention_figure(result, look: Look, view: str, layer: int = 0, head: int = 0, hide_special: bool = False,
                     stat="entropy", query: int = 0, span: int = 1) -> go.Figure:
    """The figure for one view of the attention tab (see backend.attention.VIEWS), drawn for `look`; bad choices
    raise InputError."""
    data = attention_view(result, view, layer, head, hide_special, stat, query, span)
    layer, head = data.layer, int(head)  # checked whole numbers: sliders may send 1.0
    if view == "head":
        return head_heatmap(result, look, layer, head, hide_special)
    if view == "focus":
        return focus_view(result, look, layer, head, hide_special, query, span)
    if view == "layer":
        return layer_heads(result, look, layer, hide_special)
    if view == "heads":
        return every_head(result, look, hide_special, selected=(layer, head))
    if view == "overview":
        return head_overview(result, look, stat, hide_special, selected=(layer, head))
    if view == "lines":
        return head_lines(result, look, layer, head, hide_special)
    key = "fig.attention.mean_title" if view == "mean" else "fig.attention.rollout_title"
    title = look.t(key, layer=layer)
    return aggregate_heatmap(data.values, look, data.tokens, title, data.block)
