"""bg_demo: BERT and GPT-2, side by side, in the browser."""

__version__ = "0.1.0"
DESCRIPTION = "BERT and GPT-2, side by side: masked words, entities, answers, generation and attention."
