"""Shared look: colour-blind-safe colours (Okabe-Ito), fonts readable on a projector and a phone, titles that fit the
screen they are drawn for and clear gradio's label badge, and a text alternative for every figure."""

from __future__ import annotations

import html
import re
import unicodedata

from bg_demo.look import Look

# Okabe & Ito (2008): distinguishable with every common colour-vision deficiency
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
}
# the eight in the order series take them: the strongest contrasts first, yellow (faint on white) last
SERIES_COLOURS = tuple(OKABE_ITO[name] for name in
                       ("blue", "vermillion", "green", "orange", "black", "sky", "purple", "yellow"))
ENTITY_COLOURS = {
    "PER": OKABE_ITO["sky"],
    "ORG": OKABE_ITO["orange"],
    "LOC": OKABE_ITO["green"],
    "MISC": OKABE_ITO["purple"],
}
FONT = dict(family="Inter, 'Helvetica Neue', Arial, sans-serif", size=15)
NARROW_FONT_SIZE = 13  # on a phone: tick labels and legends that fit ~330 px, still read at arm's length
TITLE_FONT = dict(size=18)  # legible on a projector; a short title still fits a phone on one line
NARROW_TITLE_SIZE = 16
SUBPLOT_TITLE_SIZE = 16  # plotly's make_subplots titles
SUBTITLE_SIZE = 13  # plotly's own subtitle size, said so that the lines counted are the lines drawn
MAX_HEIGHT = 600  # no figure taller: on a 768-px screen the figure and the controls beside it stay in sight
NARROW_MAX_HEIGHT = 2400  # a phone scrolls: there a figure may grow taller where that is what makes it readable
BADGE_CLEARANCE = 36  # gr.Plot draws its label in a badge this tall over the figure's top-left corner
LINE = 24  # px per line of title, subtitle or subplot titles: plotly sets lines 1.3 em apart (1.3 x 18 px)
TITLE_PAD = 4  # px between the badge and the title's first line
TITLE_GAP = 10  # px between the titles and the plot under them
NARROW_MARGIN = 4  # px of margin a side on a phone: the labels push it as far as they need (automargin)
# Arial's advance widths (Helvetica and Liberation Sans share them), in thousandths of an em, for the characters
# labels are made of; others count as 600, and wide (CJK) characters as a whole em
_WIDTHS = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    (278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, *[556] * 10, 278, 278, 584, 584,
     584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667,
     611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222,
     222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584),
))
_TAG = re.compile(r"<[^>]*>")
_UNIT = re.compile(r"&[#\w]+;|.", re.S)  # one character as plotly shows it: an entity counts as its character


def percent(p: float) -> str:
    """A probability as a percentage that never reads "0.0%" for one the model does give: to a tenth of a percent,
    below that to two significant figures ("0.023%"), down to "< 0.0001%"; nothing at all is "0%"."""
    p = float(p)
    if p >= 0.00095 or p <= 0:
        return f"{p:.1%}" if p > 0 else "0%"
    return f"{p * 100:.2g}%" if p >= 1e-6 else "< 0.0001%"


def plain(text) -> str:
    """A user's text or a model's token for a plotly label, title or hover. Plotly draws a few HTML tags
    (<b>, <i>, <br>, <span style>, <a>), so "<", ">" and "&" go in as entities, which it shows as typed."""
    return html.escape(str(text), quote=False)


def _char_em(char: str) -> float:
    if char in _WIDTHS:
        return _WIDTHS[char] / 1000
    return 1.0 if unicodedata.east_asian_width(char) in "WF" else 0.6


def text_width(text: str, size: float) -> float:
    """About how many px plotly's `text` (tags and entities as plotly reads them) takes in the font at `size` px;
    a little over Arial's, so what is measured to fit does fit. Several lines: the longest."""
    lines = re.split(r"<br\s*/?>", str(text))
    return max(sum(_char_em(html.unescape(unit)) for unit in _UNIT.findall(_TAG.sub("", line))) for line in lines) \
        * size * 1.06


def _pieces(text: str) -> list[str]:
    """Where a line may break: after a space, and between two wide (CJK) characters, which are set without spaces."""
    pieces, current = [], ""
    for unit in _UNIT.findall(text):
        wide = len(unit) == 1 and unicodedata.east_asian_width(unit) in "WF"
        if wide and current:
            pieces.append(current)
            current = ""
        current += unit
        if unit == " " or wide:
            pieces.append(current)
            current = ""
    return pieces + [current] if current else pieces


def _cut(piece: str, px: float, size: float) -> list[str]:
    """A word too long for a line (a pasted URL) in chunks that each fit one."""
    chunks, current = [], ""
    for unit in _UNIT.findall(piece):
        if current and text_width(current + unit, size) > px:
            chunks.append(current)
            current = ""
        current += unit
    return chunks + [current]


def wrap(text: str, px: float, size: float) -> str:
    """`text` (plotly's markup, already escaped) broken with <br> into lines of at most `px` at `size` px."""
    lines = []
    for paragraph in re.split(r"<br\s*/?>", text):
        line = ""
        for piece in _pieces(paragraph):
            for chunk in _cut(piece, px, size) if text_width(piece.rstrip(), size) > px else [piece]:
                if line and text_width((line + chunk).rstrip(), size) > px:
                    lines.append(line.rstrip())
                    line = ""
                line += chunk
        lines.append(line.rstrip())
    return "<br>".join(lines)


def lines(text: str) -> int:
    return text.count("<br>") + 1 if text else 0


def font_size(look: Look) -> int:
    return NARROW_FONT_SIZE if look.narrow else FONT["size"]


def title_size(look: Look) -> int:
    return NARROW_TITLE_SIZE if look.narrow else TITLE_FONT["size"]


def title_width(look: Look) -> float:
    """Px a title line may take: the figure's width less the title's indent and a little room at the right."""
    return look.plot_width - (2 * 8 if look.narrow else 0.05 * look.plot_width + 8)


def max_height(look: Look) -> int:
    return NARROW_MAX_HEIGHT if look.narrow else MAX_HEIGHT


def _multiline_rise(look: Look) -> int:
    """Px plotly raises a title of several lines anchored at its top above where one line would start (measured:
    11 px at 16 px), which the title's padding gives back so that it stays clear of the badge."""
    return round(0.75 * title_size(look))


def top_margin(title: str = "", subtitle: str = "", subplot_titles: int = 0) -> int:
    """Room above the plot for the label badge, the title, its subtitle and subplot titles of that many lines."""
    return BADGE_CLEARANCE + TITLE_PAD + LINE * (lines(title) + lines(subtitle) + subplot_titles) + TITLE_GAP


def base_layout(height: int, look: Look, title: str = "", subtitle: str = "", subplot_titles: int = 0, alt: str = "",
                **overrides) -> dict:
    """The shared layout for `look`'s page: a height (at most `max_height(look)`; the width follows the page), the
    title and its subtitle wrapped to the width drawn for and pinned under gradio's label badge, a top margin that
    keeps them and any subplot titles clear of it, and `meta.alt`: the figure said in a sentence or two, for a
    screen reader.

    `height` counts one line for the title and one for the subtitle; more lines, once wrapped, add to it."""
    narrow = look.narrow
    title = wrap(title, title_width(look), title_size(look)) if title else ""
    subtitle = wrap(subtitle, title_width(look), SUBTITLE_SIZE) if subtitle else ""
    rise = _multiline_rise(look) if lines(title) > 1 else 0
    height += LINE * (max(0, lines(title) - 1) + max(0, lines(subtitle) - 1)) + rise
    height = int(min(height, max_height(look)))
    side = NARROW_MARGIN if narrow else 10
    layout = dict(
        font=dict(FONT, size=font_size(look)),
        template="plotly_white",
        height=height,
        margin=dict(l=side, r=side, t=top_margin(title, subtitle, subplot_titles), b=10),
        hoverlabel=dict(font_size=15),
    )
    if title:
        top = 1 - BADGE_CLEARANCE / height  # container fraction: the title's top edge just under the badge
        pad = TITLE_PAD + rise
        layout["title"] = dict(
            text=title, subtitle=dict(text=subtitle, font=dict(size=SUBTITLE_SIZE)), font=dict(size=title_size(look)),
            yref="container", y=top, yanchor="top", pad=dict(t=pad),
        )
        layout["margin"]["t"] += rise
        if narrow:  # from the left edge: the whole width for the words
            layout["title"].update(x=0, xref="container", xanchor="left", pad=dict(t=pad, l=8))
    if alt:
        layout["meta"] = dict(alt=alt)
    layout.update(overrides)
    return layout


def axis_title_above(text: str, xref: str = "paper", x: float = 0.0, y: float = 1.0) -> dict:
    """An annotation that names a y axis across its top, where a phone has room for it (a title turned upright
    beside the axis takes width from the plot). It takes one LINE above the plot (count it as a subplot title)."""
    return dict(text=text, xref=xref, yref="paper", x=x, y=y, xanchor="left", yanchor="bottom", showarrow=False,
                font=dict(size=NARROW_FONT_SIZE), yshift=4)
