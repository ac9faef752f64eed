"""bg_demo: BERT and GPT-2, side by side, in the browser."""

__version__ = "0.1.0"
