"""Pure functions from backend results to Plotly figures; no figure here ever touches a model."""

from bg_demo.figures.tasks import fill_mask_bars

__all__ = ["fill_mask_bars"]
