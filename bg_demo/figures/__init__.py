"""Pure functions from backend results to Plotly figures; no figure here ever touches a model.

Every figure is `(result, look) -> figure`: `figures.X(result, look, ...)` draws `result` for the reader's
`bg_demo.look.Look` (its language and page width), passed second and required, and reads nothing else: no context,
no session, no gradio. `figures.fill_mask_bars(result, Look("ko", 390))` draws the Korean phone figure."""

from bg_demo.figures.attention import (
    aggregate_heatmap,
    attention_figure,
    head_heatmap,
    head_lines,
    head_overview,
    layer_heads,
)
from bg_demo.figures.compare import causal_mask_figure, future_share_bars, masked_both_bars, same_word_lines
from bg_demo.figures.explain import explanation_rows
from bg_demo.figures.finetune import training_curve, vector_map
from bg_demo.figures.generation import (
    beam_figure,
    logit_lens_heatmap,
    next_token_bars,
    probability_legend_html,
    token_probability_html,
)
from bg_demo.figures.pretraining import causal_loss_bars, embedding_norms
from bg_demo.figures.qa_attention import answer_attention_lines
from bg_demo.figures.tasks import fill_mask_bars, label_bars

__all__ = [
    "training_curve",
    "vector_map",
    "aggregate_heatmap",
    "answer_attention_lines",
    "attention_figure",
    "beam_figure",
    "causal_loss_bars",
    "causal_mask_figure",
    "embedding_norms",
    "explanation_rows",
    "fill_mask_bars",
    "future_share_bars",
    "head_heatmap",
    "head_lines",
    "head_overview",
    "label_bars",
    "layer_heads",
    "logit_lens_heatmap",
    "masked_both_bars",
    "next_token_bars",
    "probability_legend_html",
    "same_word_lines",
    "token_probability_html",
]
