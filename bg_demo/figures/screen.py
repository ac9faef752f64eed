"""The width a figure is drawn for. The page tells the server its width per browser session (see
`bg_demo.ui.screen`), and the figures read it here as they read the language: a map on a 390-px phone gets the
whole width, a horizontal colour bar, fewer and shorter labels and no cell text, instead of a shrunk desktop
figure. Outside a request (tests, scripts, API callers) the figures are drawn for a wide screen."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar

WIDE = 1280  # px of page when nobody says: a laptop, and what API callers and exports get
NARROW = 700  # a page narrower than this (a phone, a split screen) gets the narrow layouts
PAGE_PADDING = 64  # px the page, the tab and the plot's block take around a figure on a narrow screen (measured:
# a 390-px page draws a full-width figure 326 px wide)
MIN_WIDTH, MAX_WIDTH = 280, 4000  # a reported width outside these is a mistake, clamped

_explicit: ContextVar[int | None] = ContextVar("bg_demo_screen", default=None)
_resolver: Callable[[], int | None] | None = None


def clamp(width) -> int | None:
    """A page width as an int within MIN_WIDTH..MAX_WIDTH, or None when `width` is not a number."""
    try:
        return int(min(MAX_WIDTH, max(MIN_WIDTH, float(width))))
    except (TypeError, ValueError, OverflowError):
        return None


def set_resolver(resolver: Callable[[], int | None] | None) -> None:
    """How to find the page width of the request being served when none is set with `use` (the UI's session)."""
    global _resolver
    _resolver = resolver


def width() -> int:
    """The page width, in CSS px, the figure being drawn is for."""
    explicit = _explicit.get()
    if explicit is not None:
        return explicit
    found = _resolver() if _resolver is not None else None
    return clamp(found) or WIDE


def narrow() -> bool:
    return width() < NARROW


def plot_width() -> int:
    """About how many px a full-width figure gets on this page (the page less its padding)."""
    return width() - PAGE_PADDING


@contextmanager
def use(page_width: int):
    """Draw everything inside for a page `page_width` px wide."""
    token = _explicit.set(clamp(page_width) or WIDE)
    try:
        yield
    finally:
        _explicit.reset(token)
