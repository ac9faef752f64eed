"""How a reader sees a result: the language it is worded in and the page width it is drawn for.

Every figure, worded table and status line is a pure function of `(result, look)`: the page passes its reader's
`Look` (the language switch and the page width are inputs of every event), an API caller may pass `lang` and `width`,
and a test draws the Korean phone figure with `figures.X(result, Look("ko", 390))`. A map on a 390-px phone gets the
whole width, a horizontal colour bar, fewer and shorter labels and no cell text, instead of a shrunk desktop figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from bg_demo import text

WIDE = 1280  # px of page when nobody says: a laptop, and what API callers and exports get by default
NARROW = 700  # a page narrower than this (a phone, a split screen) gets the narrow layouts
PAGE_PADDING = 64  # px the page, the tab and the plot's block take around a figure on a narrow screen (measured:
# a 390-px page draws a full-width figure 326 px wide)
MIN_WIDTH, MAX_WIDTH = 280, 4000  # a reported width outside these is a mistake, clamped


def clamp(width) -> int | None:
    """A page width as an int within MIN_WIDTH..MAX_WIDTH, or None when `width` is not a number."""
    try:
        return int(min(MAX_WIDTH, max(MIN_WIDTH, float(width))))
    except (TypeError, ValueError, OverflowError):
        return None


@dataclass(frozen=True)
class Look:
    """The reader's language (`"en"`, `"ko"`, `"ja"`; any BCP 47 tag or Accept-Language header is read as one of
    them) and page width in CSS px (clamped; anything that is not a number means a wide page)."""

    lang: str = text.DEFAULT
    width: int = WIDE

    def __post_init__(self) -> None:
        object.__setattr__(self, "lang", text.language(self.lang))
        object.__setattr__(self, "width", clamp(self.width) or WIDE)

    @property
    def narrow(self) -> bool:
        return self.width < NARROW

    @property
    def plot_width(self) -> int:
        """About how many px a full-width figure gets on this page (the page less its padding)."""
        return self.width - PAGE_PADDING

    def t(self, key: str, /, **values) -> str:
        """The text for `key` in this look's language (see `bg_demo.text.t`)."""
        return text.t(key, self.lang, **values)

    def words(self, message) -> str:
        """A `Text`, an error carrying one (`BgDemoError`), or plain words, in this look's language."""
        found = getattr(message, "text", message)
        return found.render(self.lang) if isinstance(found, text.Text) else str(message)
