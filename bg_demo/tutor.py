"""What an AI assistant reads from the app (its MCP tools): each view's result as compact, plain data.

One function per tool, named as the tool is (`TOOLS`), typed, with a docstring that is the tool's description an
assistant reads (Google style: what it does, `Args:` one line per argument, `Returns:`). Each calls the same backend
function the app's page calls, under the same limits, and keeps what an assistant can reason over: tokens, the
top guesses and their probabilities (to 4 decimals), per-head numbers instead of attention maps, one head's map only
when asked for. Every result stays under RESULT_LIMIT bytes of JSON on the largest input a tool accepts
(`bench/mcp_tutor.py` measures it at the real models' sizes). Gradio-free: `bg_demo.ui.tutor_tools` serves these as MCP
tools and words their errors; a script may call them directly.

Arguments a caller does not see are keyword-only (`client`: who asks, for the decoding engine's fair share).
"""

import asyncio
import json
import re
import typing
from typing import Literal

import numpy as np

from bg_demo import backend, config, text
from bg_demo.backend._common import Phrase
from bg_demo.backend.generation import GenerationSettings
from bg_demo.errors import InputError, shown

DIGITS = 4  # probabilities and shares: enough to rank and compare, a few bytes each
RESULT_LIMIT = 64 * 1024  # bytes of JSON any tool may return (bench/mcp_tutor.py checks the largest inputs)
ROLES = Literal["encoder", "decoder"]
TASKS = Literal["fill_mask", "classify", "entities", "answer", "next_sentence", "next_token"]


def _r(value) -> float:
    return round(float(value), DIGITS)


def _grid(values, digits: int = DIGITS) -> list:
    """A numpy array as nested lists of rounded floats (rounded in float64: a float32 rounded stays 0.0149999…)."""
    return np.round(np.asarray(values, dtype=np.float64), digits).tolist()


def _model(result) -> str:
    return config.public_name(result.model_id)


def _given(value) -> bool:
    """Whether an optional argument was given: anything but None or a blank text (a wrong type is given, and
    refused in words by the backend's checks)."""
    return value is not None and not (isinstance(value, str) and not value.strip())


def _choice(value, choices, key: str):
    """`value` if it is one of `choices`, else an InputError listing them (a list or a number included)."""
    if not isinstance(value, str) or value not in choices:
        raise InputError(key, got=shown(value), choices=", ".join(choices))
    return value


def _words(phrase: Phrase) -> str:
    """A result's phrase in the language being served (`bg_demo.text.use`)."""
    return text.t(phrase.key, text.current(), **phrase.values)


# --- text in a language its model does not read ------------------------------------------------------------------

# Hangul (jamo, compatibility jamo, syllables) and kana (hiragana, katakana and their extensions, half-width katakana):
# what sets Korean and Japanese text apart, for the models that read English only
SCRIPTS = {"ko": re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"),
           "ja": re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")}


def _written_in(*texts) -> str | None:
    """"ko" for text with Hangul, "ja" for text with kana, else None (English, or a language the app has no model for)."""
    joined = " ".join(t for t in texts if isinstance(t, str))
    return next((lang for lang, script in SCRIPTS.items() if script.search(joined)), None)


def _model_language(role: str, model_id: str) -> str | None:
    """What a role's model reads ("en", "ko", "ja" or "multilingual", as `config.MODEL_INFO` says), by the name a
    result gives it. One served from a local folder is taken to be the role's default model, which the app is meant
    to run (`dispatch.size` reads its size so); None for a model the app knows nothing of."""
    info = config.MODEL_INFO.get(model_id)
    if info is None and model_id == config.public_name(config.settings().source(role)):
        info = config.MODEL_INFO.get(config.DEFAULT_MODELS[role])
    return info.language if info is not None else None


def _warning(role: str, model_id: str, *texts) -> dict:
    """{"warning": ...} for a result its model read from text in a language it does not read (Korean or Japanese on a
    model that reads English only, whose tokenizer leaves it in pieces: bert-base-uncased splits Hangul into jamo),
    with the model of that role to pass instead (None: the role has none); {} otherwise. A code and names, not
    words: the assistant reads it, and says it in its own language."""
    lang, reads = _written_in(*texts), _model_language(role, model_id)
    if lang is None or reads in (None, lang, "multilingual"):
        return {}
    return {"warning": {"code": "model_reads_other_language", "text_language": lang, "model_language": reads,
                        "use_model": config.model_for(role, lang)}}


# --- BERT's tasks ---------------------------------------------------------------------------------------------------


def fill_mask(text: str, top_k: int = 5, model: str = "") -> dict:
    """BERT's guesses for each [MASK] in a sentence (masked language modelling, how BERT was pretrained).

    Call it to show that BERT reads the words on both sides of the gap. Up to 20 masks; write each as [MASK].

    Args:
        text: A sentence with one or more [MASK] where words are missing, e.g. "The capital of France is [MASK]." (at most 2,000 characters).
        top_k: How many guesses to return per mask, best first (1 to 20).
        model: An allowed encoder model's Hub id or short name (see the bg-demo://models resource); empty for the default, bert-base-uncased, which reads English only: for Korean or Japanese text pass google-bert/bert-base-multilingual-cased.

    Returns:
        JSON: {"model", "tokens" (WordPiece, [CLS]/[SEP] included), "masks": [{"position" (index into tokens), "guesses": [{"token", "score"}]}], "filled" (the sentence with each best guess), "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.fill_mask(text, top_k, model_id=model or None)
    masks = [{"position": position, "guesses": [{"token": p.token, "score": _r(p.score)} for p in guesses]}
             for position, guesses in zip(result.mask_positions, result.masks)]
    return {"model": _model(result), "tokens": list(result.tokens), "masks": masks, "filled": result.filled,
            **_warning("encoder", _model(result), text)}


def classify(text: str, model: str = "") -> dict:
    """Sentiment of a sentence from a BERT-family model fine-tuned for it (DistilBERT on SST-2 by default).

    Args:
        text: The sentence or short review to classify (at most 2,000 characters).
        model: An allowed sentiment model's Hub id; empty for the default. It reads English only, and no sentiment model offered reads Korean or Japanese: on such text its label means nothing.

    Returns:
        JSON: {"model", "label" (the most probable), "scores": {label: probability}, "tokens", "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.classify(text, model_id=model or None)
    return {"model": _model(result), "label": result.label,
            "scores": {label: _r(p) for label, p in result.scores.items()}, "tokens": list(result.tokens),
            **_warning("sentiment", _model(result), text)}


def entities(text: str, aggregation: Literal["none", "simple", "first", "average", "max"] = "simple",
             model: str = "") -> dict:
    """Named entities (people, organisations, places, other) found by a BERT model fine-tuned for NER.

    Args:
        text: The text to search (at most 2,000 characters).
        aggregation: How word pieces are grouped into entities, as in transformers' token-classification pipeline: none (every token's own tag), simple, first, average or max.
        model: An allowed NER model's Hub id; empty for the default (dslim/bert-base-NER). It reads English only, and no NER model offered reads Korean or Japanese: on such text its entities mean nothing.

    Returns:
        JSON: {"model", "entities": [{"label", "text", "start", "end" (character offsets into text), "score"}], "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.recognize_entities(text, aggregation, model_id=model or None)
    found = [{"label": e.label, "text": e.text, "start": e.start, "end": e.end, "score": _r(e.score)}
             for e in result.entities]
    return {"model": _model(result), "entities": found, **_warning("ner", _model(result), text)}


def answer(question: str, context: str, model: str = "") -> dict:
    """Extractive question answering: the span of the context a BERT model fine-tuned on SQuAD 2.0 picks as the answer.

    The model can only point at words in the context; "answer": null means it judged that the context holds no answer.

    Args:
        question: The question (at most 2,000 characters).
        context: The text that may hold the answer (at most 20,000 characters; long texts are read in overlapping windows).
        model: An allowed question-answering model's Hub id; empty for the default (deepset/bert-base-cased-squad2). It reads English only, and no QA model offered reads Korean or Japanese: on such text its answer means nothing.

    Returns:
        JSON: {"model", "answer" (text or null), "start", "end" (character offsets into context, or null), "score", "alternatives": [{"text", "start", "end", "score"}] (the runners-up), "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.answer(question, context, model_id=model or None)
    alternatives = [{"text": span.text, "start": span.start, "end": span.end, "score": _r(span.score)}
                    for span in result.alternatives if (span.start, span.end) != (result.start, result.end)]
    return {"model": _model(result), "answer": result.answer, "start": result.start, "end": result.end,
            "score": _r(result.score), "alternatives": alternatives,
            **_warning("qa", _model(result), question, context)}


def next_sentence(first: str, second: str, model: str = "") -> dict:
    """BERT's next-sentence prediction (its second pretraining task): how likely the second sentence follows the first.

    Args:
        first: Sentence A (at most 2,000 characters).
        second: Sentence B, the candidate next sentence (at most 2,000 characters).
        model: An allowed encoder model's Hub id or short name, with an NSP head; empty for the default (bert-base-uncased, English only); for Korean or Japanese text pass google-bert/bert-base-multilingual-cased.

    Returns:
        JSON: {"model", "is_next" (probability that B follows A), "not_next", "tokens", "segment_ids" (0 for A, 1 for B), "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.next_sentence(first, second, model_id=model or None)
    return {"model": _model(result), "is_next": _r(result.is_next), "not_next": _r(result.not_next),
            "tokens": list(result.tokens), "segment_ids": list(result.segment_ids),
            **_warning("encoder", _model(result), first, second)}


# --- GPT-2 ----------------------------------------------------------------------------------------------------------


async def generate(prompt: str, strategy: Literal["greedy", "beam", "temperature", "top_k", "top_p"] = "greedy",
             max_new_tokens: int = 30, temperature: float = 1.0, top_k: int = 50, top_p: float = 0.9,
             num_beams: int = 4, seed: int | None = None, model: str = "", *, client: str = "") -> dict:
    """GPT-2 continues a prompt, one token at a time, with the decoding strategy asked for.

    greedy and beam are deterministic; temperature, top_k and top_p sample, and the same seed gives the same text. Settings a strategy does not use are ignored (temperature is used by the three sampling strategies). A generation stops after 30 seconds.

    Args:
        prompt: The text to continue (at most 6,000 characters; GPT-2 reads 1,024 tokens, prompt and new tokens together).
        strategy: greedy (always the most likely token), beam (beam search), temperature, top_k or top_p (sampling).
        max_new_tokens: How many tokens to add (1 to 256).
        temperature: Sampling temperature, 0.05 to 5 (below 1 sharper, above 1 flatter).
        top_k: top_k only: sample among the k most likely tokens (1 to 1000).
        top_p: top_p only: sample among the most likely tokens whose probabilities add up to p (0.01 to 1).
        num_beams: beam only: beams kept (2 to 8).
        seed: Sampling only: a seed to repeat a draw; leave it out for a new random one (returned).
        model: An allowed decoder model's Hub id or short name; empty for the default (gpt2, English only). For Korean text pass skt/kogpt2-base-v2, for Japanese rinna/japanese-gpt2-small.

    Returns:
        JSON: {"model", "strategy", "text" (the continuation only), "tokens": [[token, probability, rank]] (each new token, its probability under the model at temperature 1, and its rank there), "seed" (null when deterministic), "stopped" (why it ended), "settings" (the generate() arguments used), "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    settings = GenerationSettings(strategy, max_new_tokens, temperature, top_k, top_p, num_beams, 1, seed)
    # the decoding engine's batch, as the Generate page's: waited for on the event loop, holding no thread meanwhile
    submitting = asyncio.ensure_future(
        asyncio.to_thread(backend.submit_generation, prompt, settings, model_id=model or None, client=client))
    try:
        handle = await asyncio.shield(submitting)
    except asyncio.CancelledError:  # cut short while submitting (its thread goes on): its request ends once it is in
        submitting.add_done_callback(_cancel_submitted)
        raise
    result = None
    try:
        async for result in handle:
            pass
    finally:
        handle.cancel()  # a no-op once finished; frees the engine's row at once if the call was cut short
    tokens = [[t.token, _r(t.score), t.rank] for t in result.generated[0]]
    return {"model": _model(result), "strategy": result.strategy, "text": result.texts[0], "tokens": tokens,
            "seed": result.seed, "stopped": result.stopped, "settings": result.settings,
            **_warning("decoder", _model(result), prompt)}


def _cancel_submitted(submitting: asyncio.Future) -> None:
    """Cancel the generation a cancelled call submitted (a submission that failed has nothing to cancel)."""
    if not submitting.cancelled() and submitting.exception() is None:
        submitting.result().cancel()


def next_token(text: str, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, candidates: int = 10,
               seed: int | None = None, model: str = "") -> dict:
    """GPT-2's probability distribution over the next token after a text, and what temperature, top-k and top-p leave of it.

    Call it to show why sampling strategies give different texts: "final" is the probability of being sampled after every filter.

    Args:
        text: The text so far (at most 6,000 characters; may be empty to start from the beginning-of-text token).
        temperature: 0.05 to 5; 1 is the model's own distribution.
        top_k: Keep only the k most likely tokens (0 = off, up to 1000).
        top_p: Keep the most likely tokens whose probabilities add up to p (0.01 to 1; 1 = off).
        candidates: How many of the most likely tokens to return (1 to 50).
        seed: A seed for the one sample drawn ("sampled"); leave it out for a random one.
        model: An allowed decoder model's Hub id or short name; empty for the default (gpt2, English only). For Korean text pass skt/kogpt2-base-v2, for Japanese rinna/japanese-gpt2-small.

    Returns:
        JSON: {"model", "candidates": [{"token", "score" (temperature 1), "scaled" (after temperature), "final" (after every filter), "kept"}], "kept" (tokens of the whole vocabulary that survive), "entropy_bits", "entropy_final_bits", "greedy", "sampled", "seed", "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.next_token(text, temperature, top_k, top_p, candidates, seed, model_id=model or None)
    found = [{"token": c.token, "score": _r(c.score), "scaled": _r(c.scaled), "final": _r(c.final),
              "kept": bool(c.kept_by_top_k and c.kept_by_top_p)} for c in result.candidates]
    return {"model": _model(result), "candidates": found, "kept": result.kept,
            "entropy_bits": _r(result.entropy), "entropy_final_bits": _r(result.entropy_final),
            "greedy": result.greedy.token, "sampled": result.sampled.token, "seed": result.seed,
            **_warning("decoder", _model(result), text)}


def logit_lens(text: str, model: str = "") -> dict:
    """The logit lens: GPT-2's best next-token guess read after every layer, at every position of a text.

    Each layer's hidden state goes through the final layer norm and the output head, as the last layer's does: it shows the guess forming layer by layer. Reads the first 64 tokens.

    Args:
        text: The text to read (at most 2,000 characters; the first 64 tokens are read).
        model: An allowed decoder model's Hub id or short name (a GPT-2); empty for the default (gpt2, English only). For Korean text pass skt/kogpt2-base-v2, for Japanese rinna/japanese-gpt2-small.

    Returns:
        JSON: {"model", "tokens", "layers" (names: embeddings, layer 0, ...), "top": [[token per position] per layer], "probability": [[...]], "final_rank": [[rank of the model's final guess at that layer]], "truncated", "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.logit_lens(text, model_id=model or None)
    return {"model": _model(result), "tokens": list(result.tokens), "layers": list(result.layers),
            "top": [list(row) for row in result.predictions], "probability": _grid(result.probabilities),
            "final_rank": np.asarray(result.final_rank).tolist(), "truncated": result.truncated,
            **_warning("decoder", _model(result), text)}


# --- inside both ----------------------------------------------------------------------------------------------------


def attention_summary(text: str, role: ROLES = "encoder", layer: int | None = None, head: int | None = None,
                      model: str = "") -> dict:
    """Where every attention head of BERT (encoder) or GPT-2 (decoder) looks in a text, in numbers instead of pictures.

    Per head (arrays indexed [layer][head], both from 0): entropy in bits (low = focused), the share of attention on the previous token, on the query itself, on the first token ([CLS] for BERT; GPT-2's first token soaks up attention too) and on [SEP] (BERT). A head with to_previous near 1 is a previous-token head. Attention weights show where a head looks, not why the model predicts what it does: use explain for that. Reads the first 64 tokens.

    Args:
        text: The text to read (at most 6,000 characters; the first 64 tokens are read).
        role: encoder (BERT, bidirectional: every token sees every token) or decoder (GPT-2, causal: a token sees only those before it).
        layer: A layer (from 0) to return each query's most attended key for; with large models that is given only for the layer asked for.
        head: A head (from 0) of that layer whose whole attention map to return ([query][key] weights); needs layer.
        model: An allowed model's Hub id or short name for that role; empty for the default (English only). For Korean or Japanese text pass google-bert/bert-base-multilingual-cased (encoder), or skt/kogpt2-base-v2 for Korean and rinna/japanese-gpt2-small for Japanese (decoder).

    Returns:
        JSON: {"model", "role", "attention_type", "tokens", "truncated", "heads": {"entropy_bits", "to_previous", "to_self", "to_first", "to_sep"}, "future_share" (per layer: attention on later tokens, 0 for GPT-2), "top_key": {layer: [[key index per query] per head]}, "map" (only with head), "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.attention_summary(text, role, layer=layer, head=head, model_id=model or None)
    heads = {"entropy_bits": _grid(result.entropy), "to_previous": _grid(result.to_previous),
             "to_self": _grid(result.to_self), "to_first": _grid(result.to_first)}
    if result.to_sep is not None:
        heads["to_sep"] = _grid(result.to_sep)
    found = {"model": _model(result), "role": result.role, "attention_type": result.attention_type,
             "tokens": list(result.tokens), "truncated": result.truncated, "heads": heads,
             "future_share": _grid(result.future),
             "top_key": {str(layer): keys.tolist() for layer, keys in result.top_keys.items()},
             **_warning(role, _model(result), text)}
    if result.head_map is not None:
        found["map"] = {"layer": result.layer, "head": result.head, "weights": _grid(result.head_map, 3)}
    return found


def compare(text: str, word: str = "", second: str = "", encoder: str = "", decoder: str = "") -> dict:
    """BERT beside GPT-2 on the same text: who may attend to whom, and (with word and second) one word's vectors in two contexts.

    future_share is, per layer, how much attention goes to tokens after the query: above 0 for BERT (bidirectional), exactly 0 for GPT-2 (its causal mask). With word and a second sentence containing it, same_word gives the cosine similarity of the word's vectors in the two sentences after each layer: GPT-2's stay 1 while the sentences agree up to the word, BERT's part because it also reads the words after it.

    Args:
        text: The text both models read (at most 6,000 characters; the first 64 tokens), and the first sentence for same_word.
        word: A word that appears in text and in second; leave empty to skip same_word.
        second: A second sentence containing word (at most 2,000 characters).
        encoder: An allowed encoder model's Hub id or short name; empty for the default (English only); for Korean or Japanese text pass google-bert/bert-base-multilingual-cased.
        decoder: An allowed decoder model's Hub id or short name; empty for the default (English only); for Korean text pass skt/kogpt2-base-v2, for Japanese rinna/japanese-gpt2-small.

    Returns:
        JSON: {"encoder": {"model", "attention_type", "tokens", "future_share", "warning"}, "decoder": {...}, "same_word": {"word", "same_left_context", "notes", "encoder": {"model", "tokens", "similarity" (per layer, [0] = embeddings)}, "decoder": {...}} (only with word)}; "warning" in a model's part only when the text is Korean or Japanese and that model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)}.
    """
    found = {}
    for role, model in (("encoder", encoder), ("decoder", decoder)):
        result = backend.attention_summary(text, role, model_id=model or None)
        found[role] = {"model": _model(result), "attention_type": result.attention_type, "tokens": list(result.tokens),
                       "future_share": _grid(result.future), **_warning(role, _model(result), text, second)}
    if _given(word) or _given(second):
        same = backend.same_word(text, second, word, encoder_id=encoder or None, decoder_id=decoder or None)
        found["same_word"] = {
            "word": same.word, "same_left_context": same.same_left_context,
            "notes": [_words(note) for note in same.notes],
            **{track.role: {"model": _model(track), "tokens": list(track.tokens),
                            "similarity": [_r(s) for s in track.similarity]}
               for track in (same.encoder, same.decoder)},
        }
    return found


EXPLAINED_ROLES = {"fill_mask": "encoder", "classify": "sentiment", "entities": "ner", "answer": "qa",
                   "next_sentence": "encoder", "next_token": "decoder"}  # the role whose model each task reads


def _explanation(task: str, text, second, which, guess, label, layer, head, model):
    """The backend's explanation of the prediction `task` names, with the arguments that task reads."""
    if task == "fill_mask":
        return backend.explain_fill_mask(text, which, guess, layer, head, counted_from=1, model_id=model)
    if task == "classify":
        return backend.explain_classify(text, label or None, layer, head, model_id=model)
    if task == "entities":
        return backend.explain_entity(text, which, "simple", layer, head, counted_from=1, model_id=model)
    if task == "answer":
        return backend.explain_answer(text, second, layer, head, model_id=model)
    if task == "next_sentence":
        return backend.explain_next_sentence(text, second, layer, head, model_id=model)
    return backend.explain_next_token(text, None, layer, head, model_id=model)


def explain(task: TASKS, text: str, second: str = "", which: int = 1, guess: int = 1, label: str = "",
            layer: int | None = None, head: int | None = None, model: str = "") -> dict:
    """Why a model made one prediction: attention from the predicting position beside attribution (Captum's integrated gradients and gradient x input) over the input tokens.

    Attention says where a head looked; attribution says which tokens changed the probability. They often disagree (spearman near 0): say so rather than read attention as the explanation. Reads at most 256 tokens; takes up to a minute on a CPU.

    Args:
        task: What to explain: fill_mask (a guess at a [MASK]), classify (a sentiment label), entities (an entity found), answer (the QA answer), next_sentence (IsNext) or next_token (GPT-2's most likely next token).
        text: The input: the sentence (fill_mask, classify, entities, next_token), sentence A (next_sentence) or the question (answer).
        second: answer: the context; next_sentence: sentence B; unused otherwise.
        which: fill_mask: which [MASK] (from 1); entities: which entity (from 1, in the order the entities tool returns them with aggregation simple).
        guess: fill_mask: which of the top guesses (1 = the best).
        label: classify: the label to explain; empty for the most probable.
        layer: The layer (from 0) whose attention is shown; empty for the last.
        head: A head (from 0) of that layer; empty for the mean of its heads.
        model: An allowed Hub id or short name for the task's model; empty for the default (English only). For Korean or Japanese text pass google-bert/bert-base-multilingual-cased (fill_mask, next_sentence), or skt/kogpt2-base-v2 for Korean and rinna/japanese-gpt2-small for Japanese (next_token); classify, entities and answer have English models only.

    Returns:
        JSON: {"model", "target" (what is explained, in words), "score" (its probability), "tokens", "attention" (per token), "integrated_gradients" (per token), "gradient_x_input" (per token), "spearman" (rank correlation of attention with |integrated gradients|), "baseline_score", "completeness_gap", "layer", "head", "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    task = _choice(task, typing.get_args(TASKS), "error.tutor_task")
    result = _explanation(task, text, second, which, guess, label, layer, head, model or None)
    return {"model": _model(result), "target": _words(result.target), "score": _r(result.score),
            "tokens": list(result.tokens), "attention": [_r(v) for v in result.attention],
            "integrated_gradients": [_r(v) for v in result.integrated_gradients],
            "gradient_x_input": [_r(v) for v in result.gradient_x_input], "spearman": _r(result.spearman),
            "baseline_score": _r(result.baseline_score), "completeness_gap": _r(result.completeness_gap),
            "layer": result.layer, "head": result.head, **_warning(EXPLAINED_ROLES[task], _model(result), text, second)}


# --- how each becomes useful for a task ----------------------------------------------------------------------------


def prompt_task(train: list[list[str]], test: list[list[str]], template: str, label_words: str,
                model: str = "decoder", shots: int = 0, seed: int = 0, calibrate: bool = False) -> dict:
    """Prompting instead of fine-tuning: score labelled test sentences with a prompt, zero-shot or few-shot, with BERT as a cloze or GPT-2 as a continuation.

    BERT (model "encoder") reads the template with {text} replaced by each sentence and compares its probabilities for the label words at the template's one [MASK]; GPT-2 ("decoder") compares the probabilities of each label word after the prompt. shots > 0 writes that many train rows (drawn with seed) into the prompt first. calibrate divides by the probabilities of a content-free input. Compare with the fine-tuning numbers on the app's Fine-tune or prompt? page.

    Args:
        train: Labelled rows [[sentence, label], ...] (2 to 8 labels, at most 64 rows, 300 characters a sentence); the labels come from here, in order of first appearance.
        test: Labelled rows to score, [[sentence, label], ...] (at most 64), with labels from train.
        template: The prompt, with {text} where each sentence goes, and for BERT one [MASK] where the label word goes, e.g. "{text} It was [MASK]." or "Review: {text}\\nSentiment:" (\\n: a line break; at most 300 characters).
        label_words: One word per label, comma-separated, in the labels' order, e.g. "great, terrible".
        model: "encoder" (BERT), "decoder" (GPT-2), both the English defaults, or an allowed encoder or decoder Hub id or short name. For Korean or Japanese rows pass google-bert/bert-base-multilingual-cased (a cloze), or skt/kogpt2-base-v2 for Korean and rinna/japanese-gpt2-small for Japanese (a continuation).
        shots: Train rows written into the prompt as examples (0 = zero-shot, up to 8).
        seed: Which train rows are drawn for the shots.
        calibrate: Divide by the content-free input's probabilities (contextual calibration).

    Returns:
        JSON: {"model", "role", "labels", "label_words", "accuracy", "raw_accuracy" (before calibration), "confusion" ([true][predicted] counts), "first_prompt" (the exact text the model read for the first test row), "examples" (train rows used as shots, from 0), "rows": [{"truth", "prediction", "probabilities": {label: p}}], "warning" (only when the text is Korean or Japanese and the model does not read it: {"code", "text_language", "model_language", "use_model" (the model to pass instead, or null)})}.
    """
    result = backend.prompt_task(model, train, test, template, label_words, shots, seed, calibrate)
    rows = [{"truth": truth, "prediction": prediction, "probabilities": {k: _r(v) for k, v in p.items()}}
            for truth, prediction, p in zip(result.truth, result.predictions, result.probabilities)]
    return {"model": _model(result), "role": result.role, "labels": list(result.labels),
            "label_words": list(result.label_words), "accuracy": _r(result.accuracy),
            "raw_accuracy": _r(result.raw_accuracy), "confusion": [list(row) for row in result.confusion],
            "first_prompt": result.prompts[0], "examples": list(result.examples), "rows": rows,
            **_warning(result.role, _model(result), *(row[0] for row in (*train, *test)))}


TOOLS = (fill_mask, classify, entities, answer, next_sentence, generate, next_token, logit_lens, attention_summary,
         compare, explain, prompt_task)

# an example call of each tool that runs as it is (the API page shows it; tests and bench/mcp_tutor.py call it)
EXAMPLES = {
    "fill_mask": {"text": "The capital of France is [MASK]."},
    "classify": {"text": "A wonderful, funny film."},
    "entities": {"text": "Ada Lovelace worked with Charles Babbage in London."},
    "answer": {"question": "Where did Ada work?", "context": "Ada Lovelace worked with Charles Babbage in London."},
    "next_sentence": {"first": "I went to the shop.", "second": "I bought some milk."},
    "generate": {"prompt": "Once upon a time", "max_new_tokens": 10},
    "next_token": {"text": "The cat sat on the"},
    "logit_lens": {"text": "The Eiffel Tower is in the city of"},
    "attention_summary": {"text": "The cat sat on the mat.", "role": "encoder"},
    "compare": {"text": "I went to the bank to deposit money.", "word": "bank",
                "second": "I went to the bank of the river."},
    "explain": {"task": "classify", "text": "A wonderful, funny film."},
    "prompt_task": {"train": [["A wonderful, funny film.", "positive"], ["A dull and far too long film.", "negative"]],
                    "test": [["What a lovely story.", "positive"], ["The plot was boring.", "negative"]],
                    "template": "Review: {text}\nSentiment:", "label_words": "positive, negative"},
}


# --- what an assistant may read besides the tools (MCP resources and prompt) ------------------------------------


def glossary(lang: str = text.DEFAULT) -> str:
    """The app's glossary (Markdown) in `lang`: en, ko or ja."""
    return text.t("start.glossary", text.language(lang))


def model_catalogue() -> str:
    """Every role's default model and the others an assistant may pass as `model` (by Hub id or short name), which
    to pass for text in each language (null: none of the role's models reads it), as JSON."""
    roles = {}
    for role in config.ROLES:
        default = config.public_name(config.model_source(role))
        roles[role] = {
            "default": default,
            "attention": {"encoder": "bidirectional", "decoder": "causal"}.get(role, "bidirectional"),
            "allowed": [{"id": model, "short": model.split("/")[-1], "language": info.language,
                         "parameters": info.parameters}
                        for model in config.ALLOWED_MODELS[role] if (info := config.MODEL_INFO.get(model))],
            "for_text": {lang: config.model_for(role, lang) for lang in text.LANGS},
            "tools": [name for name, roles_of in TOOL_ROLES.items() if role in roles_of],
        }
    return json.dumps(roles, ensure_ascii=False, indent=1)


TOOL_ROLES = {  # which role's model each tool reads (its `model` argument picks one of that role's)
    "fill_mask": ("encoder",), "classify": ("sentiment",), "entities": ("ner",), "answer": ("qa",),
    "next_sentence": ("encoder",), "generate": ("decoder",), "next_token": ("decoder",), "logit_lens": ("decoder",),
    "attention_summary": ("encoder", "decoder"), "compare": ("encoder", "decoder"),
    "explain": ("encoder", "sentiment", "ner", "qa", "decoder"), "prompt_task": ("encoder", "decoder"),
}


def teaching_prompt(lang: str = text.DEFAULT) -> str:
    """How an assistant should teach BERT and GPT with these tools, in `lang` (en, ko or ja)."""
    return text.t("tutor.prompt", text.language(lang))
