"""Shared look: colour-blind-safe colours (Okabe-Ito), fonts readable on a projector; text shown as text."""

import html

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
ENTITY_COLOURS = {
    "PER": OKABE_ITO["sky"],
    "ORG": OKABE_ITO["orange"],
    "LOC": OKABE_ITO["green"],
    "MISC": OKABE_ITO["purple"],
}
FONT = dict(family="Inter, 'Helvetica Neue', Arial, sans-serif", size=15)
TITLE_FONT = dict(size=18)  # legible on a projector; a short title still fits a phone on one line
MAX_HEIGHT = 600  # no figure taller: on a 768-px screen the figure and the controls beside it stay in sight
BADGE_CLEARANCE = 36  # gr.Plot draws its label in a badge this tall over the figure's top-left corner
LINE = 24  # px per line of title, subtitle or subplot titles: plotly sets lines 1.3 em apart (1.3 x 18 px)
TITLE_PAD = 4  # px between the badge and the title's first line
TITLE_GAP = 10  # px between the titles and the plot under them


def plain(text) -> str:
    """A user's text or a model's token for a plotly label, title or hover. Plotly draws a few HTML tags
    (<b>, <i>, <br>, <span style>, <a>), so "<", ">" and "&" go in as entities, which it shows as typed."""
    return html.escape(str(text), quote=False)


def top_margin(title: str = "", subtitle: str = "", subplot_titles: int = 0) -> int:
    """Room above the plot for the label badge, the title, its subtitle and subplot titles of that many lines."""
    lines = bool(title) + bool(subtitle) + subplot_titles
    return BADGE_CLEARANCE + TITLE_PAD + LINE * lines + TITLE_GAP


def base_layout(height: int, title: str = "", subtitle: str = "", subplot_titles: int = 0, **overrides) -> dict:
    """The shared layout: a height (at most MAX_HEIGHT; the width follows the page), the title and its subtitle
    pinned under gradio's label badge, and a top margin that keeps them and any subplot titles clear of it."""
    height = int(min(height, MAX_HEIGHT))
    layout = dict(
        font=FONT,
        template="plotly_white",
        height=height,
        margin=dict(l=10, r=10, t=top_margin(title, subtitle, subplot_titles), b=10),
        hoverlabel=dict(font_size=15),
    )
    if title:
        top = 1 - BADGE_CLEARANCE / height  # container fraction: the title's top edge just under the badge
        layout["title"] = dict(
            text=title, subtitle=dict(text=subtitle), font=TITLE_FONT, yref="container", y=top, yanchor="top",
            pad=dict(t=TITLE_PAD),
        )
    layout.update(overrides)
    return layout
