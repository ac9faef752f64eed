"""Helpers shared by the task modules: validation, result serialisation, softmax."""

from __future__ import annotations

import dataclasses

import numpy as np

from bg_demo.config import LIMITS
from bg_demo.errors import InputError, MissingHeadError
from bg_demo.text import Text, tables


class Result:
    """Mixin for the frozen result dataclasses: `to_dict()` gives JSON-serialisable values."""

    def to_dict(self) -> dict:
        return jsonable(dataclasses.asdict(self))


def jsonable(value):
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def field(what: str):
    """The name of an input, in the words of the language being served when it has a text (else as given)."""
    return Text(f"field.{what}") if f"field.{what}" in tables()["en"] else what


def require_text(text, what: str = "text", max_chars: int = LIMITS.max_chars, *, strip: bool = True) -> str:
    """The text (stripped of surrounding whitespace unless `strip` is False, so that character
    offsets stay those of the caller's text), or an InputError saying what to change."""
    if not isinstance(text, str):
        raise InputError("error.not_text", what=field(what))
    if not text.strip():
        raise InputError("error.empty", what=field(what))
    if len(text) > max_chars:
        raise InputError("error.too_long", what=field(what), n=len(text), limit=max_chars)
    return text.strip() if strip else text


def require_float(value, what: str, low: float, high: float) -> float:
    """A number in [low, high], else an InputError."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError("error.not_number", what=field(what), low=low, high=high, got=repr(value)) from None
    if not low <= number <= high:
        raise InputError("error.out_of_range", what=field(what), low=low, high=high, got=f"{number:g}")
    return number


def require_int(value, what: str, low: int, high: int) -> int:
    """A whole number in [low, high] (ints, integral floats and numeric strings pass), else an InputError."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not number.is_integer():
        raise InputError("error.not_whole", what=field(what), low=low, high=high, got=repr(value))
    if not low <= number <= high:
        raise InputError("error.out_of_range", what=field(what), low=low, high=high, got=int(number))
    return int(number)


def max_tokens(tokenizer, model) -> int:
    """The most tokens one forward pass may take: the tokenizer's limit, capped by the position table."""
    positions = getattr(model.config, "max_position_embeddings", None) or getattr(model.config, "n_positions", None)
    limit = tokenizer.model_max_length if tokenizer.model_max_length < 1e9 else positions
    return min(limit, positions) if positions else limit


def check_length(n_tokens: int, limit: int, role: str, what: str = "text") -> None:
    if n_tokens > limit:
        raise InputError("error.too_many_tokens", what=field(what), n=n_tokens, role=role, limit=limit)


def require_head(loaded, head: str) -> None:
    """A MissingHeadError unless the loaded model has trained weights for `head` ("mlm", "nsp" or "lm"): without
    them its predictions would come from random numbers."""
    if head in getattr(loaded, "missing_heads", ()):
        raise MissingHeadError(loaded.model_id, head)


def softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)
