"""Masked-word fill: the encoder's top-k guesses for every [MASK] in a sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bg_demo import models
from bg_demo.backend._common import (
    Result,
    check_length,
    largest,
    max_tokens,
    require_head,
    require_int,
    require_text,
    softmax,
)
from bg_demo.config import LIMITS
from bg_demo.errors import InputError
from bg_demo.tokens import display_token, display_tokens

# "[mask]", "[MASK]", "<mask>" in any case all mean the model's own mask token
MASK_PATTERN = re.compile(r"\[\s*mask\s*\]|<\s*mask\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class Prediction(Result):
    token: str  # decoded text of the token, as the fill-mask pipeline gives it
    token_id: int
    score: float  # softmax probability over the whole vocabulary


@dataclass(frozen=True)
class FillMaskResult(Result):
    text: str  # the input with every mask written as the model's mask token
    tokens: tuple[str, ...]  # WordPiece tokens, [CLS] and [SEP] included
    mask_positions: tuple[int, ...]  # index into `tokens` of each mask, in text order
    masks: tuple[tuple[Prediction, ...], ...]  # per mask, best first
    filled: str  # the text with each mask replaced by its best guess
    model_id: str


def normalise_masks(text: str, mask_token: str) -> tuple[str, int]:
    """Write every spelling of a mask as `mask_token`; returns the text and the number of masks."""
    return MASK_PATTERN.subn(mask_token, text)


def mlm_logits(model, encoding, positions):
    """Vocabulary logits at `positions` only, (M, V): BERT's MLM head is not run on the other tokens."""
    return batch_mlm_logits(model, encoding, positions)[0]


def batch_mlm_logits(model, encoding, positions):
    """(B, M, V) logits at `positions` of every sequence in the batch (the explanations' batched passes); with
    `positions` a pair (rows, columns) of index tensors, (N, V) logits at those N tokens (each row's own masks)."""
    at = positions if isinstance(positions, tuple) else (slice(None), positions)
    head = getattr(getattr(model, "cls", None), "predictions", None)
    if head is not None and hasattr(model, "bert"):
        hidden = model.bert(**encoding).last_hidden_state  # (B, T, H)
        return head(hidden[at])
    output = model(**encoding)
    logits = output.logits if getattr(output, "logits", None) is not None else output.prediction_logits
    return logits[at]


@dataclass
class Prepared:
    """A sentence ready for the model (`preprocess`), what `forward` and an explanation's gradient pass share."""

    text: str  # every mask written as the model's mask token
    inputs: dict  # input_ids, attention_mask, token_type_ids: a batch of one, on the model's device
    positions: list[int]  # the masks' token positions, in text order


def preprocess(loaded, tokenizer, model, text: str) -> Prepared:
    """Check and tokenise a sentence with masks; InputError says what to change."""
    import torch

    require_head(loaded, "mlm")
    text = require_text(text)
    if tokenizer.mask_token is None:
        raise InputError("error.no_mask_token", model=loaded.model_id)
    text, n_masks = normalise_masks(text, tokenizer.mask_token)
    if n_masks == 0:
        raise InputError("error.no_mask", mask=tokenizer.mask_token)
    if n_masks > LIMITS.max_masks:
        raise InputError("error.too_many_masks", limit=LIMITS.max_masks, n=n_masks)
    encoding = tokenizer(text, return_tensors="pt").to(loaded.device)
    ids = encoding["input_ids"][0]
    check_length(len(ids), max_tokens(tokenizer, model), "encoder")
    positions = torch.nonzero(ids == tokenizer.mask_token_id).squeeze(-1).tolist()
    return Prepared(text, dict(encoding), positions)


def forward(model, inputs: dict, positions):
    """(batch, masks, vocabulary) logits at the masks: batched, so a gradient pass can run many inputs at once;
    with `positions` a pair (rows, columns), (masks, vocabulary) at each row's own masks (a batch of requests)."""
    return batch_mlm_logits(model, inputs, positions)


def check(top_k) -> int:
    """The check made before the model is fetched: top-k, or an InputError."""
    return require_int(top_k, "top-k", 1, LIMITS.max_top_k)


def fill_mask(text: str, top_k: int = 5, *, model_id: str | None = None) -> FillMaskResult:
    import torch

    top_k = check(top_k)
    loaded = models.get("encoder", model_id)
    with loaded.use() as (tokenizer, model):
        prepared = preprocess(loaded, tokenizer, model, text)
        with torch.inference_mode():
            logits = forward(model, prepared.inputs, prepared.positions)[0]
        return postprocess(tokenizer, prepared, logits, top_k, loaded.model_id)


def postprocess(tokenizer, prepared: Prepared, logits, top_k: int, model_id: str) -> FillMaskResult:
    """The top-k guesses per mask from (masks, vocabulary) logits, and the sentence filled with the best."""
    probs = softmax(logits.float().cpu().numpy())  # (M, V)
    k = min(top_k, probs.shape[-1])
    best = largest(probs, k)
    masks = tuple(
        tuple(Prediction(display_token(tokenizer, int(i)), int(i), float(row[i])) for i in order)
        for row, order in zip(probs, best, strict=True)
    )
    tokens = display_tokens(tokenizer, prepared.inputs["input_ids"][0].tolist())
    filled = _fill(prepared.text, tokenizer.mask_token, [choices[0].token for choices in masks])
    return FillMaskResult(prepared.text, tokens, tuple(prepared.positions), masks, filled, model_id)


def _fill(text: str, mask_token: str, words: list[str]) -> str:
    """Replace the masks in order. A `##` continuation joins the word before it only where the mask is
    written against that word ("play[MASK]"); after a space it stays the marked piece it is, so the sentence
    never shows a word the student did not write."""
    parts = text.split(mask_token)
    out = parts[0]
    for word, after in zip(words, parts[1:]):
        attached = bool(out) and not out[-1].isspace()
        out += word[2:] if word.startswith("##") and attached else word
        out += after
    return out
