"""Prompting a pre-trained model to do a labelled task, without changing a weight: BERT as a cloze, GPT-2 zero-/few-shot.

- BERT reads the template with its `[MASK]` (e.g. "{text} It was [MASK]."); a label's score is its label word's logit
  at the mask, normalised over the labels (softmax over the label words only). Each label word must be one token.
- GPT-2 reads the template (e.g. "Review: {text}\nSentiment:") and a label's score is the log-probability of its label
  word's tokens after the prompt, summed (the word follows the prompt after one space: `" " + word`), normalised over
  the labels.
- Few-shot (k > 0): k train rows, chosen and ordered by the seed, are written into the prompt before the test sentence,
  each with its label word in place (BERT: the word where the mask is; GPT-2: the word after the template), joined by
  `SEPARATORS[role]`; every test sentence reads the same examples.
- Calibration ("Calibrate before use", Zhao et al., 2021): the label probabilities of a content-free input ("N/A" in
  place of the text) measure the prompt's own bias; each test sentence's probabilities are divided by them and
  normalised again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import (
    Result,
    check_length,
    max_tokens,
    require_head,
    require_int,
    require_text,
    softmax,
)
from bg_demo.backend.fill_mask import batch_mlm_logits
from bg_demo.backend.labelled import label_words as checked_words
from bg_demo.backend.labelled import labelled
from bg_demo.config import ALLOWED_MODELS, LIMITS, hub_id
from bg_demo.errors import InputError, shown
from bg_demo.tokens import display_token, display_tokens

ROLES = ("encoder", "decoder")
MASK = "[MASK]"  # where a BERT template puts the label (written as the model's own mask token)
SLOT = "{text}"
CONTENT_FREE = "N/A"  # the content-free input of calibration
SEPARATORS = {"encoder": " ", "decoder": "\n\n"}  # between the few-shot examples and the test sentence
CHUNK = 8  # sequences per forward pass: each pass is one turn of the device, so other students go between two


def which_model(model) -> tuple[str, str | None]:
    """(role, model id or None for the role's own) of `model`: an allowed encoder or decoder id (or its short name),
    or "encoder" / "decoder" for the model that role is served with."""
    if model in (None, "", "encoder", "decoder"):
        return (model or "encoder"), None
    model = hub_id(model)  # a short name (`gpt2`, `bert-base-uncased`) as the Hub id it names
    for role in ROLES:
        if model == models.STORE.resolve(role) or model in ALLOWED_MODELS[role]:
            return role, model
    raise InputError("error.task_model", got=shown(model), choices=", ".join(("encoder", "decoder",
                                                                              *ALLOWED_MODELS["encoder"],
                                                                              *ALLOWED_MODELS["decoder"])))


@dataclass(frozen=True)
class PromptResult(Result):
    model_id: str
    role: str  # "encoder" (a cloze) or "decoder" (a continuation)
    labels: tuple[str, ...]
    label_words: tuple[str, ...]
    word_tokens: tuple[tuple[str, ...], ...]  # each label word's tokens, as the model reads them
    template: str
    shots: int
    seed: int
    examples: tuple[int, ...]  # the train rows written into the prompt (0-based), in prompt order
    prompts: tuple[str, ...]  # the exact text the model read, one per test sentence
    tokens: tuple[str, ...]  # the first test prompt's tokens, special tokens included
    lengths: tuple[int, ...]  # each prompt's length in tokens
    limit: int  # the most tokens the model reads
    texts: tuple[str, ...]  # the test sentences
    truth: tuple[str, ...]  # their labels
    raw: tuple[dict, ...]  # {label: p} per test sentence, before calibration
    content_free: dict | None  # {label: p} of the content-free input (calibration only)
    content_free_prompt: str | None  # the prompt with "N/A" for the sentence (calibration only)
    probabilities: tuple[dict, ...]  # {label: p}: `raw`, or calibrated when `calibrate`
    predictions: tuple[str, ...]
    accuracy: float
    raw_accuracy: float  # before calibration (equal to `accuracy` without it)
    confusion: tuple[tuple[int, ...], ...]  # [true label][predicted label] counts, in `labels` order
    continuations: tuple[str, ...]  # GPT-2: what it writes after each prompt, greedily (empty for BERT)
    calibrated: bool
    train_examples: int  # labelled examples the prompt used (= shots)


def prompt_task(model, train, test, template: str, label_words, shots: int = 0, seed: int = 0,
                calibrate: bool = False) -> PromptResult:
    """Score every test sentence with the prompt (see the module's docstring); `model` as `which_model` reads it."""
    role, model_id = which_model(model)
    task = labelled(train, test)
    words = checked_words(label_words, task.labels)
    template = require_text(template, "template", LIMITS.template_chars, strip=False)
    if SLOT not in template:
        raise InputError("error.template_slot", slot=SLOT)
    shots = require_int(shots, "shots", 0, min(LIMITS.max_shots, len(task.train)))
    seed = require_int(seed, "Seed", 0, 2**31 - 1)
    calibrate = bool(calibrate)
    if role == "encoder" and template.count(MASK) != 1:
        raise InputError("error.template_mask", mask=MASK)
    if role == "encoder":  # a sentence's own [MASK] would be a second blank in its prompt
        for text, _ in (*task.train, *task.test):
            if MASK.lower() in text.lower():
                raise InputError("error.task_mask", mask=MASK, text=text)
    chosen = tuple(int(i) for i in np.random.default_rng(seed).permutation(len(task.train))[:shots])
    loaded = models.get(role, model_id)
    require_head(loaded, "mlm" if role == "encoder" else "lm")
    prompts = [prompt(role, template, text, [task.train[i] for i in chosen], task.labels, words, loaded.tokenizer)
               for text, _ in task.test]
    free = prompt(role, template, CONTENT_FREE, [task.train[i] for i in chosen], task.labels, words, loaded.tokenizer)
    score = _cloze if role == "encoder" else _continuation
    with loaded.use() as (tokenizer, model_):
        limit = max_tokens(tokenizer, model_)
        word_ids = _word_ids(role, tokenizer, words)
        word_tokens = tuple(tuple(display_token(tokenizer, i) for i in ids) for ids in word_ids)
        encoded = [tokenizer(text)["input_ids"] for text in prompts]
        first_tokens = display_tokens(tokenizer, encoded[0])
        free_length = len(tokenizer(free)["input_ids"])
    extra = 0 if role == "encoder" else max(map(len, word_ids))  # GPT-2 reads the label word after the prompt
    for length in (*(len(ids) for ids in encoded), *([free_length] if calibrate else [])):
        check_length(length + extra, limit, role, "prompt")
    raw = score(loaded, prompts + ([free] if calibrate else []), word_ids)  # (N, L) probabilities
    free_p = raw[-1] if calibrate else None
    raw = raw[: len(prompts)]
    shown_p = _calibrated(raw, free_p) if calibrate else raw
    truth = [label for _, label in task.test]
    predictions = [task.labels[int(i)] for i in shown_p.argmax(-1)]
    raw_predictions = [task.labels[int(i)] for i in raw.argmax(-1)]
    continuations = _continuations(loaded, encoded) if role == "decoder" else ()
    return PromptResult(
        loaded.model_id, role, task.labels, words, word_tokens,
        template, shots, seed, chosen, tuple(prompts), first_tokens, tuple(len(ids) for ids in encoded), limit,
        tuple(text for text, _ in task.test), tuple(truth),
        by_label(task.labels, raw),
        by_label(task.labels, free_p[None])[0] if calibrate else None, free if calibrate else None,
        by_label(task.labels, shown_p), tuple(predictions),
        _accuracy(predictions, truth), _accuracy(raw_predictions, truth),
        confusion(task.labels, truth, predictions), continuations, calibrate, shots,
    )


def prompt(role: str, template: str, text: str, examples, labels, words, tokenizer) -> str:
    """The exact text the model reads for `text`, after the few-shot `examples` ((text, label) rows)."""
    def filled(sentence: str, word: str | None) -> str:
        body = template.replace(SLOT, sentence)
        if role == "encoder":
            return body.replace(MASK, word if word is not None else tokenizer.mask_token)
        return body if word is None else f"{body} {word}"

    shots = [filled(example, words[labels.index(label)]) for example, label in examples]
    return SEPARATORS[role].join([*shots, filled(text, None)])


def _word_ids(role: str, tokenizer, words) -> list[list[int]]:
    """Each label word's token ids as they follow the prompt: BERT's one token (else a refusal showing how the word
    splits), GPT-2's tokens of the word after a space."""
    found = []
    for word in words:
        if role == "encoder":
            ids = tokenizer(word, add_special_tokens=False)["input_ids"]
            if len(ids) != 1:
                pieces = " ".join(display_token(tokenizer, i) for i in ids) or "—"
                raise InputError("error.label_word_tokens", word=word, pieces=pieces)
        else:
            ids = tokenizer(" " + word, add_special_tokens=False)["input_ids"]
        found.append(ids)
    return found


def _cloze(loaded, prompts: list[str], word_ids) -> np.ndarray:
    """(N, L): the label words' logits at each prompt's mask, softmax over the labels."""
    import torch

    chosen = torch.tensor([ids[0] for ids in word_ids])
    rows = []
    for start in range(0, len(prompts), CHUNK):
        with loaded.use() as (tokenizer, model):
            encoding = tokenizer(prompts[start:start + CHUNK], return_tensors="pt", padding=True).to(loaded.device)
            at = (encoding["input_ids"] == tokenizer.mask_token_id).nonzero(as_tuple=True)  # one mask per row
            with torch.inference_mode():
                logits = batch_mlm_logits(model, encoding, at).float().cpu()  # (B, V)
        rows.append(logits[:, chosen].softmax(-1))
    return torch.cat(rows).numpy().astype(np.float64)


def _continuation(loaded, prompts: list[str], word_ids) -> np.ndarray:
    """(N, L): each label word's summed token log-probabilities after each prompt, softmax over the labels. One
    forward pass per prompt when every word is one token; else one per (prompt, word)."""
    import torch

    single = all(len(ids) == 1 for ids in word_ids)
    with loaded.use() as (tokenizer, _):
        encoded = [tokenizer(text)["input_ids"] for text in prompts]
    rows = [(i, None, ids) for i, ids in enumerate(encoded)] if single else [
        (i, j, ids + word) for i, ids in enumerate(encoded) for j, word in enumerate(word_ids)]
    scores = np.zeros((len(prompts), len(word_ids)))
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        width = max(len(ids) for *_, ids in chunk)
        with loaded.use() as (tokenizer, model):
            pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
            ids = torch.tensor([row + [pad] * (width - len(row)) for *_, row in chunk])  # right-padded: positions 0..n
            mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for *_, row in chunk])
            with torch.inference_mode():
                log_probs = model(input_ids=ids.to(loaded.device), attention_mask=mask.to(loaded.device)
                                  ).logits.float().log_softmax(-1).cpu()  # (B, T, V)
        for b, (i, j, row) in enumerate(chunk):
            if j is None:  # every word one token: all labels from the last position
                scores[i] = [float(log_probs[b, len(row) - 1, word[0]]) for word in word_ids]
            else:
                word = word_ids[j]
                n = len(row) - len(word)  # the prompt's length: word token k is predicted at n - 1 + k
                scores[i, j] = sum(float(log_probs[b, n - 1 + k, token]) for k, token in enumerate(word))
    return softmax(scores)


def _continuations(loaded, encoded: list[list[int]]) -> tuple[str, ...]:
    """What GPT-2 writes after each prompt: `LIMITS.continuation_tokens` greedy tokens, one prompt per turn."""
    import torch

    found = []
    for ids in encoded:
        with loaded.use() as (tokenizer, model):
            room = max(0, min(LIMITS.continuation_tokens, max_tokens(tokenizer, model) - len(ids)))
            if room == 0:
                found.append("")
                continue
            with torch.inference_mode():
                out = model.generate(torch.tensor([ids], device=loaded.device), max_new_tokens=room, do_sample=False,
                                     pad_token_id=tokenizer.eos_token_id,
                                     attention_mask=torch.ones(1, len(ids), dtype=torch.long, device=loaded.device))
            found.append(tokenizer.decode(out[0, len(ids):].tolist(), skip_special_tokens=True))
    return tuple(found)


def explain_prompted(model, prompt_text: str, word: str, layer: int | None = None, head: int | None = None,
                     steps: int | None = None):
    """Why the prompted model gives `word` its score after `prompt_text` (a prompt the page made): BERT's probability
    of the word at the mask, GPT-2's of the word's first token next, attention from that position beside attribution
    (`bg_demo.backend.explain`)."""
    from bg_demo.backend import explain

    role, model_id = which_model(model)
    word = require_text(word, "label word", LIMITS.label_chars)
    loaded = models.get(role, model_id)
    with loaded.use() as (tokenizer, _):
        (ids,) = _word_ids(role, tokenizer, [word])
    options = {} if steps is None else {"steps": steps}
    if role == "encoder":
        return explain.explain_fill_mask(prompt_text, 0, 0, layer, head, token_id=ids[0], model_id=model_id, **options)
    return explain.explain_next_token(prompt_text, ids[0], layer, head, model_id=model_id, **options)


def _calibrated(p: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Zhao et al.'s contextual calibration: p / p(content-free), normalised (W = diag(p_cf)^-1, b = 0)."""
    scaled = p / np.maximum(free, 1e-12)
    return scaled / scaled.sum(-1, keepdims=True)


def by_label(labels, p: np.ndarray) -> tuple[dict, ...]:
    """Each row of (N, L) probabilities as {label: p}."""
    return tuple({label: float(v) for label, v in zip(labels, row)} for row in p)


def _accuracy(predictions, truth) -> float:
    return float(np.mean([p == t for p, t in zip(predictions, truth)])) if truth else math.nan


def confusion(labels, truth, predictions) -> tuple[tuple[int, ...], ...]:
    """[true][predicted] counts, in `labels` order."""
    counts = np.zeros((len(labels), len(labels)), dtype=int)
    for true, predicted in zip(truth, predictions):
        counts[labels.index(true), labels.index(predicted)] += 1
    return tuple(tuple(int(c) for c in row) for row in counts)
