"""Helpers shared by the task modules: validation, result serialisation, softmax."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from bg_demo.config import LIMITS
from bg_demo.errors import InputError


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


def require_text(text, what: str = "text", max_chars: int = LIMITS.max_chars, *, strip: bool = True) -> str:
    """The text (stripped of surrounding whitespace unless `strip` is False, so that character
    offsets stay those of the caller's text), or an InputError saying what to change."""
    if not isinstance(text, str):
        raise InputError(f"The {what} must be text.")
    if not text.strip():
        raise InputError(f"The {what} is empty: type a sentence first.")
    if len(text) > max_chars:
        raise InputError(f"The {what} is {len(text):,} characters long; the limit is {max_chars:,}. Shorten it.")
    return text.strip() if strip else text


def require_float(value, what: str, low: float, high: float) -> float:
    """A number in [low, high], else an InputError."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number between {low} and {high}; got {value!r}.") from None
    if not low <= number <= high:
        raise InputError(f"{what} must be between {low} and {high}; got {number:g}.")
    return number


def require_int(value, what: str, low: int, high: int) -> int:
    """A whole number in [low, high] (ints, integral floats and numeric strings pass), else an InputError."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not number.is_integer():
        raise InputError(f"{what} must be a whole number between {low} and {high}; got {value!r}.")
    if not low <= number <= high:
        raise InputError(f"{what} must be between {low} and {high}; got {int(number)}.")
    return int(number)


def max_tokens(tokenizer, model) -> int:
    """The most tokens one forward pass may take: the tokenizer's limit, capped by the position table."""
    positions = getattr(model.config, "max_position_embeddings", None) or getattr(model.config, "n_positions", None)
    limit = tokenizer.model_max_length if tokenizer.model_max_length < 1e9 else positions
    return min(limit, positions) if positions else limit


def check_length(n_tokens: int, limit: int, role: str, what: str = "text") -> None:
    if n_tokens > limit:
        raise InputError(
            f"The {what} makes {n_tokens} tokens; the {role} model reads at most {limit}. Shorten it."
        )


def softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def readable(token_text: str) -> str:
    """A token's text fit for a label: newlines and tabs drawn as symbols, nothing else changed."""
    return token_text.replace("\r", "").replace("\n", "⏎").replace("\t", "⇥")


@functools.cache
def _byte_decoder() -> dict[str, int]:
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    return {char: byte for byte, char in bytes_to_unicode().items()}


def token_text(tokenizer, token_id: int) -> str:
    """One token as a student should read it: its decoded text, or, for a byte-level piece of a
    multi-byte character (which decodes alone to U+FFFD), its raw bytes written as \\xe2."""
    text = tokenizer.decode([token_id])
    if "\ufffd" in text:
        piece = tokenizer.convert_ids_to_tokens(token_id)
        decoder = _byte_decoder()
        if all(char in decoder for char in piece):
            text = bytes(decoder[char] for char in piece).decode("utf-8", errors="backslashreplace")
    return readable(text)
