"""Axes every figure shares: token axes that stay legible at any length, percent axes whose tick labels
never repeat, and map heights that follow the rows but fit a 768-px-high screen beside the controls."""

from __future__ import annotations

import math

from bg_demo.figures.style import plain
from bg_demo.text import t

MAP_MIN_HEIGHT = 260  # a map of two or three tokens keeps room for its title, labels and colour bar
MAP_MAX_HEIGHT = 560  # 768-px screen - ~110 px of browser bar - ~100 px of tab bar: the whole map in sight
MAP_CHROME = 200  # px around the cells: the title under gradio's label badge, rotated key labels, axis titles
ROW_HEIGHT = 20  # px per row until MAP_MAX_HEIGHT: a 12-px label on every row with room between
MAX_TICK_LABELS = 24  # more tokens than this on one axis, and only every k-th is labelled, so labels never overlap
MAX_LABEL_CHARS = 10  # longer tokens are cut with "…" in tick labels; hovers always name them whole
TICK_FONT = dict(size=12)  # rotated token labels at 12 px stay apart at MAX_TICK_LABELS across a phone
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


def layer_names(n: int) -> list[str]:
    """Names for the embeddings and the n - 1 layers after them, in the language served: "embeddings",
    "layer 0" … (0-based, as in Attention)."""
    return [t("fig.axes.embeddings")] + [t("fig.axes.layer", layer=i) for i in range(n - 1)]


def shorten(token: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    return token if len(token) <= max_chars else token[: max_chars - 1] + "…"


def shown_positions(n: int, max_labels: int = MAX_TICK_LABELS) -> range:
    """Every k-th of n positions, k the smallest step that names at most `max_labels`."""
    return range(0, n, max(1, math.ceil(n / max_labels)))


def token_axis(tokens, max_labels: int = MAX_TICK_LABELS, show: bool = True, max_chars: int = MAX_LABEL_CHARS) -> dict:
    """Token i at position i; every k-th token labelled (see `shown_positions`), long ones shortened.

    Works for numeric positions and for categories named by `token_names` alike."""
    shown = shown_positions(len(tokens), max_labels)
    return dict(
        tickmode="array",
        tickvals=[i + TICK_NUDGE for i in shown],
        ticktext=[plain(shorten(str(tokens[i]), max_chars)) for i in shown],
        showticklabels=show,
        tickfont=TICK_FONT,
        showgrid=False,
        zeroline=False,
    )


def percent_ticks(span: float, ticks: int = PERCENT_TICKS) -> dict:
    """Ticks from 0 in round steps, about `ticks` across `span`, with just the decimals the step needs:
    no two tick labels alike (".0%" on a 0-3% axis prints "0%, 1%, 1%, 2%")."""
    target = max(span, 1e-6) / ticks
    power = 10 ** math.floor(math.log10(target))
    step = next(power * m for m in (1, 2, 2.5, 5, 10) if power * m >= target * (1 - 1e-9))
    decimals = next(d for d in range(8) if abs(round(step * 100, d) - step * 100) < 1e-9)
    return dict(tick0=0, dtick=step, tickformat=f".{decimals}%")


def percent_axis(top: float) -> dict:
    """A 0..top probability axis in percent (see `percent_ticks`)."""
    return dict(range=[0, top], **percent_ticks(top))
