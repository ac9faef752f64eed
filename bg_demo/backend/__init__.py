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

from types import MappingProxyType

from bg_demo import config, models
from bg_demo.backend import attention as _attention
from bg_demo.backend import batch as _batch
from bg_demo.backend import classify as _classify
from bg_demo.backend import compare as _compare
from bg_demo.backend import entities as _entities
from bg_demo.backend import explain as _explain
from bg_demo.backend import fill_mask as _fill_mask
from bg_demo.backend import finetune as _finetune
from bg_demo.backend import generation as _generation
from bg_demo.backend import logit_lens as _logit_lens
from bg_demo.backend import next_sentence as _next_sentence
from bg_demo.backend import next_token as _next_token
from bg_demo.backend import pretraining as _pretraining
from bg_demo.backend import prompting as _prompting
from bg_demo.backend import qa as _qa
from bg_demo.backend import qa_attention as _qa_attention
from bg_demo.backend.generation import GenerationSettings, Handle, seed_or_draw
from bg_demo.dispatch import Generation, Training, dispatched

# Every function below that reads a model goes through `dispatched` (`bg_demo.dispatch`): an ordinary call here, a
# call in a GPU worker on ZeroGPU, a call of the model tier's replicas with a Ray address. Each names the roles whose
# models it reads (loaded before the call, in this process) and its kind, which sets what it may ask ZeroGPU for.


def _role_arg(*args, role=None, model_id=None, **__):
    return [(args[1] if len(args) > 1 else role, model_id)]


def _both(*_, encoder_id=None, decoder_id=None, **__):
    return [("encoder", encoder_id), ("decoder", decoder_id)]


def _role_first(*args, role=None, model_id=None, **__):
    return [(args[0] if args else role, model_id)]


def _asked_model(*args, model=None, **__):
    return [_prompting.which_model(args[0] if args else model)]


def _tuned_model(*args, tuned=None, **__):
    tuned = args[0] if args else tuned
    return [(tuned.role, tuned.source)] if isinstance(tuned, _finetune.Tuned) else []


# a fine-tuning run's steps and stream, as the dispatcher reads them
_TRAINING = Training(steps=_finetune.steps_of, handle=Handle, stopped=_finetune.stopped)

# a generation's arguments and stream, as the dispatcher and the model tier read them
_GENERATION = Generation(settings=_generation.settings_of, handle=Handle, stopped=_generation.stopped)

fill_mask = dispatched("fill_mask", _fill_mask.fill_mask, "task", ("encoder",), batched=_batch.run)
classify = dispatched("classify", _classify.classify, "task", ("sentiment",), batched=_batch.run)
recognize_entities = dispatched("recognize_entities", _entities.recognize_entities, "task", ("ner",), batched=_batch.run)
answer = dispatched("answer", _qa.answer, "task", ("qa",), batched=_batch.run)
next_sentence = dispatched("next_sentence", _next_sentence.next_sentence, "task", ("encoder",), batched=_batch.run)
answer_attention = dispatched("answer_attention", _qa_attention.answer_attention, "task", ("qa",))
mlm_corruption = dispatched("mlm_corruption", _pretraining.mlm_corruption, "task", ("encoder",))
input_representation = dispatched("input_representation", _pretraining.input_representation, "task", ("encoder",))
causal_lm = dispatched("causal_lm", _pretraining.causal_lm, "task", ("decoder",))
logit_lens = dispatched("logit_lens", _logit_lens.logit_lens, "task", ("decoder",))
next_token = dispatched("next_token", _next_token.next_token, "task", ("decoder",))
attention = dispatched("attention", _attention.attention, "task", _role_arg)
# the maps summarised where the model runs: a few kilobytes cross back from a GPU worker or a replica, not the maps
attention_summary = dispatched("attention_summary", _attention.attention_summary, "task", _role_arg)
compare = dispatched("compare", _compare.compare, "task", _both)
same_word = dispatched("same_word", _compare.same_word, "task", _both)
predict_masked_both = dispatched("predict_masked_both", _compare.predict_masked_both, "task", _both)
model_facts = dispatched("model_facts", _compare.model_facts, "task", _role_first)
explain_fill_mask = dispatched("explain_fill_mask", _explain.explain_fill_mask, "explain", ("encoder",))
explain_classify = dispatched("explain_classify", _explain.explain_classify, "explain", ("sentiment",))
explain_next_sentence = dispatched("explain_next_sentence", _explain.explain_next_sentence, "explain", ("encoder",))
explain_entity = dispatched("explain_entity", _explain.explain_entity, "explain", ("ner",))
explain_answer = dispatched("explain_answer", _explain.explain_answer, "explain", ("qa",))
explain_next_token = dispatched("explain_next_token", _explain.explain_next_token, "explain", ("decoder",))
explain_generation = dispatched("explain_generation", _explain.explain_generation, "explain", ("decoder",))
# a generation: on ZeroGPU one streaming call of a worker per request; on the model tier, a decoder replica's
submit_generation = dispatched("submit_generation", _generation.submit, "generation", ("decoder",), streams=True,
                               generation=_GENERATION)
generate_stream = dispatched("generate_stream", _generation.generate_stream, "generation", ("decoder",), streams=True,
                             generation=_GENERATION)
generate = dispatched("generate", _generation.generate, "generation", ("decoder",), generation=_GENERATION)
# the fine-tune-or-prompt page: a prompt scored, a run (streamed: one GPU call on ZeroGPU), a learnt model tried
prompt_task = dispatched("prompt_task", _prompting.prompt_task, "task", _asked_model, cpu=False)
fine_tune = dispatched("fine_tune", _finetune.fine_tune, "training", _asked_model, streams=True, training=_TRAINING)
predict_tuned = dispatched("predict_tuned", _finetune.predict_tuned, "task", _tuned_model)
explain_tuned = dispatched("explain_tuned", _finetune.explain_tuned, "explain", _tuned_model)
explain_prompted = dispatched("explain_prompted", _prompting.explain_prompted, "explain", _asked_model)
checkpoint_scores = dispatched("checkpoint_scores", _finetune.checkpoint_scores, "task", ("sentiment",))
# questions to the model store: asked where the models are (a model-tier replica), in this process elsewhere
model_is_loaded = dispatched("model_is_loaded", models.is_loaded, "store", _role_first, remember_yes=True)
model_memory = dispatched("model_memory", models.snapshot, "store", ("decoder",))

__all__ = [
    "CALLS",
    "GenerationSettings",
    "answer",
    "answer_attention",
    "attention",
    "attention_summary",
    "causal_lm",
    "checkpoint_scores",
    "classify",
    "compare",
    "explain_answer",
    "explain_classify",
    "explain_entity",
    "explain_fill_mask",
    "explain_generation",
    "explain_next_sentence",
    "explain_next_token",
    "explain_prompted",
    "explain_tuned",
    "fill_mask",
    "fine_tune",
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
    "predict_tuned",
    "prompt_task",
    "recognize_entities",
    "same_word",
    "seed_or_draw",
    "submit_generation",
]


def model_source(role: str) -> str:
    """The Hub id or local folder the role loads from."""
    return config.settings().source(role)


# The call table: every dispatched function by its name, as a GPU worker or a model-tier replica is asked for it.
CALLS = MappingProxyType({call.entry.name: call.entry for call in (
    fill_mask, classify, recognize_entities, answer, next_sentence, answer_attention, mlm_corruption,
    input_representation, causal_lm, logit_lens, next_token, attention, attention_summary, compare, same_word, predict_masked_both,
    model_facts, explain_fill_mask, explain_classify, explain_next_sentence, explain_entity, explain_answer,
    explain_next_token, explain_generation, explain_prompted, submit_generation, generate_stream, generate, prompt_task, fine_tune,
    predict_tuned, explain_tuned, checkpoint_scores, model_is_loaded, model_memory)})
