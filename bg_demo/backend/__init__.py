"""One module per task: plain Python values in, frozen dataclasses (with `to_dict()`) out.

Every result speaks one vocabulary:
- `token`: one token's string as a student reads it; `tokens`: the input's tokens, always a tuple of strings;
- `text`: a span of the user's text (the input, an entity, an answer), never a token;
- `score`: a probability the model gives what is shown (a guess, a label, an entity, an answer, a generated
  token, a candidate at temperature 1); qualified probabilities say what they are (`scaled`, `final`);
- per-token records have their own names: `tags` (entities), `generated` (each continuation's tokens).

The BERT task modules expose `preprocess` (the checks and the tokens) and a batched `forward` (logits of the
head the task reads) beside the task function, which adds the postprocessing; `explain` runs the same two for
the "why" views, so what it explains is exactly what the tab shows."""

from bg_demo.backend.attention import attention
from bg_demo.backend.classify import classify
from bg_demo.backend.compare import compare, model_facts, predict_masked_both, same_word
from bg_demo.backend.entities import recognize_entities
from bg_demo.backend.explain import (
    explain_answer,
    explain_classify,
    explain_entity,
    explain_fill_mask,
    explain_generation,
    explain_next_sentence,
    explain_next_token,
)
from bg_demo.backend.fill_mask import fill_mask
from bg_demo.backend.generation import GenerationSettings, generate, generate_stream, seed_or_draw
from bg_demo.backend.generation import submit as submit_generation
from bg_demo.backend.logit_lens import logit_lens
from bg_demo.backend.next_sentence import next_sentence
from bg_demo.backend.next_token import next_token
from bg_demo.backend.pretraining import causal_lm, input_representation, mlm_corruption
from bg_demo.backend.qa import answer

__all__ = [
    "GenerationSettings",
    "answer",
    "attention",
    "causal_lm",
    "classify",
    "compare",
    "explain_answer",
    "explain_classify",
    "explain_entity",
    "explain_fill_mask",
    "explain_generation",
    "explain_next_sentence",
    "explain_next_token",
    "fill_mask",
    "generate",
    "generate_stream",
    "input_representation",
    "logit_lens",
    "mlm_corruption",
    "model_facts",
    "model_is_loaded",
    "model_memory",
    "model_source",
    "next_sentence",
    "next_token",
    "predict_masked_both",
    "recognize_entities",
    "same_word",
    "seed_or_draw",
    "submit_generation",
]


def model_is_loaded(role: str, model_id: str | None = None) -> bool:
    """Whether the role's model (its configured one unless `model_id`) is in memory (the UI warns before a load)."""
    from bg_demo.models import is_loaded

    return is_loaded(role, model_id)


def model_memory():
    """Which models are in memory (least recently used first), their bytes, and the budget: a `models.StoreSnapshot`."""
    from bg_demo.models import snapshot

    return snapshot()


def model_source(role: str) -> str:
    """The Hub id or local folder the role loads from."""
    from bg_demo.config import settings

    return settings().source(role)
