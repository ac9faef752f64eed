"""One module per task: plain Python values in, frozen dataclasses (with `to_dict()`) out.

Every result speaks one vocabulary:
- `token`: one token's string as a student reads it; `tokens`: the input's tokens, always a tuple of strings;
- `text`: a span of the user's text (the input, an entity, an answer), never a token;
- `score`: a probability the model gives what is shown (a guess, a label, an entity, an answer, a generated
  token, a candidate at temperature 1); qualified probabilities say what they are (`scaled`, `final`);
- per-token records have their own names: `tags` (entities), `generated` (each continuation's tokens).

The BERT task modules expose `preprocess` (the checks and the tokens), a batched `forward` (logits of the
head the task reads) and `postprocess` (one input's logits to its result) beside the task function, which runs
the three; `explain` runs the first two for the "why" views, so what it explains is exactly what the tab shows,
and `batch.run` all three for many requests at once, in one padded forward pass per model."""

from bg_demo import gpu
from bg_demo.backend import attention as _attention
from bg_demo.backend import classify as _classify
from bg_demo.backend import compare as _compare
from bg_demo.backend import entities as _entities
from bg_demo.backend import explain as _explain
from bg_demo.backend import fill_mask as _fill_mask
from bg_demo.backend import generation as _generation
from bg_demo.backend import logit_lens as _logit_lens
from bg_demo.backend import next_sentence as _next_sentence
from bg_demo.backend import next_token as _next_token
from bg_demo.backend import pretraining as _pretraining
from bg_demo.backend import qa as _qa
from bg_demo.backend import qa_attention as _qa_attention
from bg_demo.backend.generation import GenerationSettings, seed_or_draw

# Every function below that reads a model goes through `gpu.dispatched`: an ordinary call here, a call in a GPU
# worker on ZeroGPU. Each names the roles whose models it reads (loaded before the call, in this process).


def _role_arg(*args, role=None, model_id=None, **__):
    return [(args[1] if len(args) > 1 else role, model_id)]


def _both(*_, encoder_id=None, decoder_id=None, **__):
    return [("encoder", encoder_id), ("decoder", decoder_id)]


def _facts(*args, role=None, model_id=None, **__):
    return [(args[0] if args else role, model_id)]


fill_mask = gpu.dispatched(_fill_mask.fill_mask, ("encoder",))
classify = gpu.dispatched(_classify.classify, ("sentiment",))
recognize_entities = gpu.dispatched(_entities.recognize_entities, ("ner",))
answer = gpu.dispatched(_qa.answer, ("qa",))
answer_attention = gpu.dispatched(_qa_attention.answer_attention, ("qa",))
next_sentence = gpu.dispatched(_next_sentence.next_sentence, ("encoder",))
mlm_corruption = gpu.dispatched(_pretraining.mlm_corruption, ("encoder",))
input_representation = gpu.dispatched(_pretraining.input_representation, ("encoder",))
causal_lm = gpu.dispatched(_pretraining.causal_lm, ("decoder",))
logit_lens = gpu.dispatched(_logit_lens.logit_lens, ("decoder",))
next_token = gpu.dispatched(_next_token.next_token, ("decoder",))
attention = gpu.dispatched(_attention.attention, _role_arg)
compare = gpu.dispatched(_compare.compare, _both)
same_word = gpu.dispatched(_compare.same_word, _both)
predict_masked_both = gpu.dispatched(_compare.predict_masked_both, _both)
model_facts = gpu.dispatched(_compare.model_facts, _facts)
explain_fill_mask = gpu.dispatched(_explain.explain_fill_mask, ("encoder",))
explain_classify = gpu.dispatched(_explain.explain_classify, ("sentiment",))
explain_next_sentence = gpu.dispatched(_explain.explain_next_sentence, ("encoder",))
explain_entity = gpu.dispatched(_explain.explain_entity, ("ner",))
explain_answer = gpu.dispatched(_explain.explain_answer, ("qa",))
explain_next_token = gpu.dispatched(_explain.explain_next_token, ("decoder",))
explain_generation = gpu.dispatched(_explain.explain_generation, ("decoder",))
# a generation streams: on ZeroGPU one call of the dispatcher per request (see gpu.py)
submit_generation = gpu.dispatched(_generation.submit, ("decoder",), stream=True)
generate_stream = gpu.dispatched(_generation.generate_stream, ("decoder",), stream=True)
generate = gpu.dispatched(_generation.generate, ("decoder",))

__all__ = [
    "GenerationSettings",
    "answer",
    "answer_attention",
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
    """Whether the role's model (its configured one unless `model_id`) is in memory (the UI warns before a load); with
    a model tier, in the memory of the replica that answers."""
    if gpu.tier() is not None:
        return gpu.tier().call("model_is_loaded", (role, model_id), {})
    from bg_demo.models import is_loaded

    return is_loaded(role, model_id)


def model_memory():
    """Which models are in memory (least recently used first), their bytes, and the budget: a `models.StoreSnapshot`;
    with a model tier, those of a decoder replica."""
    if gpu.tier() is not None:
        return gpu.tier().call("model_memory", (), {})
    from bg_demo.models import snapshot

    return snapshot()


def model_source(role: str) -> str:
    """The Hub id or local folder the role loads from."""
    from bg_demo.config import settings

    return settings().source(role)
