"""Axes every figure shares: token axes that stay legible at any length and width (labels thinned by the pixels they
get), percent axes whose tick labels never repeat, colour bars that fit the screen, and map heights that follow the
rows but fit a 768-px-high screen beside the controls (a phone, which scrolls, gets square maps). Whatever depends on
the page's width or language takes the reader's `Look`, second after the data."""

from __future__ import annotations

import math

from bg_demo.figures.style import NARROW_MARGIN, axis_title_above, plain, text_width
from bg_demo.look import Look

MAP_MIN_HEIGHT = 260  # a map of two or three tokens keeps room for its title, labels and colour bar
MAP_MAX_HEIGHT = 560  # 768-px screen - ~110 px of browser bar - ~100 px of tab bar: the whole map in sight
MAP_CHROME = 200  # px around the cells: the title under gradio's label badge, rotated key labels, axis titles
ROW_HEIGHT = 20  # px per row until MAP_MAX_HEIGHT: a 12-px label on every row with room between
MAX_TICK_LABELS = 24  # more tokens than this on one axis, and only every k-th is labelled, so labels never overlap
MAX_LABEL_CHARS = 10  # longer tokens are cut with "…" in tick labels; hovers always name them whole
TICK_FONT = dict(size=12)  # rotated token labels at 12 px stay apart at MAX_TICK_LABELS across a laptop's map
NARROW_TICK_FONT = dict(size=11)
UPRIGHT_LABEL_PX = 16  # px along an axis a label turned upright (-90°) needs: its line, and a gap to the next
STACKED_LABEL_PX = 16  # the same for labels read across and stacked down a y axis
LABEL_GAP_PX = 10  # between two labels read across, side by side on an x axis
NARROW_LABEL_PX = 40  # px a phone gives the labels beside a map's rows: the map keeps 85% of the width
NARROW_UPRIGHT_PX = 64  # px a phone gives an upright label under a map
COLORBAR_ROOM = 64  # px under a phone's map for its horizontal colour bar: title, bar and tick labels
X_TITLE_ROOM = 44  # px an x axis's title takes under its tick labels on a phone (plotly sets it ~10 px off them),
# with a gap that keeps it apart from a colour bar's title under it
COLORBAR_END_PX = 20  # px of a horizontal colour bar's ends left for half of its first and last tick labels
# Plotly labels a hover with a tick's text when the tick is within range / 10,000 of the point. Ticks 0.02 of a
# cell off centre (invisible) never match for up to 200 tokens, so the hover shows the whole token and position.
TICK_NUDGE = 0.02
PERCENT_TICKS = 5  # about this many steps on a percent axis, each a round 1, 2, 2.5 or 5 x 10^n


def map_height(rows: int) -> int:
    """Pixel height of a map with `rows` rows: ROW_HEIGHT each, within MAP_MIN_HEIGHT..MAP_MAX_HEIGHT."""
    return int(min(MAP_MAX_HEIGHT, max(MAP_MIN_HEIGHT, MAP_CHROME + ROW_HEIGHT * rows)))


def token_names(tokens) -> list[str]:
    """Unique names for token positions (two tokens may print alike), as hovers show them: "bank #4"."""
    return [f"{plain(token)} #{i}" for i, token in enumerate(tokens)]


def layer_names(n: int, look: Look) -> list[str]:
    """Names for the embeddings and the n - 1 layers after them, in `look`'s language: "embeddings",
    "layer 0" … (0-based, as in Attention)."""
    return [look.t("fig.axes.embeddings")] + [look.t("fig.axes.layer", layer=i) for i in range(n - 1)]


def shorten(token: str, max_chars: int = MAX_LABEL_CHARS, max_px: float | None = None, size: float = 11) -> str:
    """At most `max_chars` characters (and `max_px` px at `size` px when given), cut with "…"."""
    token = token if len(token) <= max_chars else token[: max_chars - 1] + "…"
    while max_px is not None and len(token) > 2 and text_width(plain(token), size) > max_px:
        token = token[:-2] + "…"
    return token


def tick_font(look: Look) -> dict:
    return NARROW_TICK_FONT if look.narrow else TICK_FONT


def labels_across(px: float) -> int:
    """How many upright (-90°) labels fit along `px` of an x axis."""
    return max(1, int(px // UPRIGHT_LABEL_PX))


def labels_down(px: float) -> int:
    """How many labels read across fit stacked along `px` of a y axis."""
    return max(1, int(px // STACKED_LABEL_PX))


def labels_side_by_side(labels, px: float, size: float) -> int:
    """How many of these labels, read across, fit side by side along `px` of an x axis (the widest sets the pitch)."""
    widest = max((text_width(plain(label), size) for label in labels), default=0)
    return max(1, int(px // (widest + LABEL_GAP_PX)))


def plot_px(look: Look, label_px: float = 0) -> float:
    """About how many px of the figure's width the plot takes on `look`'s page, given `label_px` for labels beside
    it."""
    return look.plot_width - label_px - (2 * NARROW_MARGIN if look.narrow else 20)


def shown_positions(n: int, max_labels: int = MAX_TICK_LABELS) -> range:
    """Every k-th of n positions, k the smallest step that names at most `max_labels`."""
    return range(0, n, max(1, math.ceil(n / max_labels)))


def token_axis(
    tokens,
    look: Look,
    max_labels: int = MAX_TICK_LABELS,
    show: bool = True,
    max_chars: int = MAX_LABEL_CHARS,
    max_px: float | None = None,
) -> dict:
    """Token i at position i; every k-th token labelled (see `shown_positions`), long ones shortened (to `max_px`
    px too, when given).

    Works for numeric positions and for categories named by `token_names` alike."""
    shown = shown_positions(len(tokens), max_labels)
    font = tick_font(look)
    return dict(
        tickmode="array",
        tickvals=[i + TICK_NUDGE for i in shown],
        ticktext=[plain(shorten(str(tokens[i]), max_chars, max_px, font["size"])) for i in shown],
        showticklabels=show,
        tickfont=font,
        showgrid=False,
        zeroline=False,
    )


def token_x_axis(tokens, look: Look, px: float, angle: int = -45, max_labels: int = MAX_TICK_LABELS,
                 **options) -> dict:
    """A token axis across `px` of plot: on a phone upright labels, as many as fit and shortened to
    NARROW_UPRIGHT_PX; elsewhere at `angle`, at most `max_labels`."""
    if look.narrow:
        return dict(**token_axis(tokens, look, labels_across(px), max_px=NARROW_UPRIGHT_PX, **options), tickangle=-90)
    return dict(**token_axis(tokens, look, max_labels, **options), tickangle=angle)


def token_y_axis(tokens, look: Look, px: float, max_labels: int = MAX_TICK_LABELS, **options) -> dict:
    """A token axis down `px` of plot: on a phone as many labels as fit, shortened to NARROW_LABEL_PX."""
    if look.narrow:
        return token_axis(tokens, look, min(max_labels, labels_down(px)), max_px=NARROW_LABEL_PX, **options)
    return token_axis(tokens, look, max_labels, **options)


def colorbar(title: str, look: Look, below: float = 0.0, **options) -> dict:
    """A colour bar: beside the plot on a wide screen; on a phone across the plot's width under it, `below` (a
    fraction of the plot's height: what the x axis takes under the plot) lower than the plot's foot, so the plot
    keeps the width. Keep COLORBAR_ROOM for it in the bottom margin."""
    if not look.narrow:
        return dict(title=dict(text=title), **options)
    ends = 1 - 2 * COLORBAR_END_PX / plot_px(look, NARROW_LABEL_PX)  # room at each end for half a tick label
    return dict(  # paper coordinates: plotly 3 draws the title over the bar of a colour bar placed in the container's
        title=dict(text=title, side="top"),
        orientation="h",
        x=0.5,
        xanchor="center",
        len=ends,
        thickness=10,
        y=-below,
        yanchor="top",
        ypad=0,
        **options,
    )


def label_depth(axis: dict) -> int:
    """Px an x axis's tick labels take under the plot: the longest upright label, or one line read across."""
    if axis.get("tickangle") == -90:
        size = axis.get("tickfont", TICK_FONT)["size"]
        return int(max((text_width(label, size) for label in axis.get("ticktext", ())), default=0)) + 8
    return 24


NARROW_ROW_MIN_PX, NARROW_MAP_MAX_PX = 6, 900


def narrow_map_height(rows: int, look: Look, chrome: int) -> int:
    """A phone's map: about square cells across the plot's width (rows get at least 6 px, up to 900 px), plus
    `chrome` px. Past 150 rows no row can have its 6 px: the map is drawn square, as its cells are (a 512-token map
    900 px tall and 300 px wide only stretches the pattern)."""
    if NARROW_ROW_MIN_PX * rows > NARROW_MAP_MAX_PX:
        return int(chrome + plot_px(look, NARROW_LABEL_PX))
    return int(chrome + min(max(plot_px(look, NARROW_LABEL_PX), NARROW_ROW_MIN_PX * rows), NARROW_MAP_MAX_PX))


def percent_ticks(span: float, ticks: int = PERCENT_TICKS) -> dict:
    """Ticks from 0 in round steps, about `ticks` across `span`, with just the decimals the step needs:
    no two tick labels alike (".0%" on a 0-3% axis prints "0%, 1%, 1%, 2%")."""
    target = max(span, 1e-6) / ticks
    power = 10 ** math.floor(math.log10(target))
    step = next(power * m for m in (1, 2, 2.5, 5, 10) if power * m >= target * (1 - 1e-9))
    decimals = next(d for d in range(8) if abs(round(step * 100, d) - step * 100) < 1e-9)
    return dict(tick0=0, dtick=step, tickformat=f".{decimals}%")


def percent_axis(top: float, look: Look) -> dict:
    """A 0..top probability axis in percent (see `percent_ticks`); about four steps on a phone."""
    return dict(range=[0, top], **percent_ticks(top, 4 if look.narrow else PERCENT_TICKS))


def numbers_dtick(n: int, look: Look, px: float) -> int:
    """A step for an axis of the numbers 0..n-1 whose labels, read across, fit side by side along `px`."""
    fit = labels_side_by_side([str(n - 1)], px, tick_font(look)["size"])
    return max(1, math.ceil(n / fit))


def y_title(fig, look: Look, text: str, **axis) -> int:
    """A y axis's title: beside it on a wide screen; on a phone across its top (returns the lines that takes)."""
    if not look.narrow:
        fig.update_yaxes(title_text=text, **axis)
        return 0
    fig.update_yaxes(**axis)
    fig.add_annotation(**axis_title_above(text))
    return 1
