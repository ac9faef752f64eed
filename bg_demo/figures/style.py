"""Shared look: colour-blind-safe colours (Okabe-Ito), fonts readable on a projector."""

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


def base_layout(**overrides) -> dict:
    layout = dict(
        font=FONT,
        template="plotly_white",
        margin=dict(l=10, r=10, t=40, b=10),
        hoverlabel=dict(font_size=15),
    )
    layout.update(overrides)
    return layout
