"""Helpers shared by the task modules: validation, result serialisation, softmax."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from bg_demo.config import LIMITS
from bg_demo.errors import InputError, MissingHeadError, shown
from bg_demo.text import Text, tables


class Result:
    """Mixin for the frozen result dataclasses: `to_dict()` gives JSON-serialisable values."""

    def to_dict(self) -> dict:
        return jsonable(dataclasses.asdict(self))


@dataclass(frozen=True)
class Phrase(Result):
    """Words a result asks to be shown, as data: a key of `bg_demo.text` and its values (plain str, int, float).
    Whoever shows it puts it into words, in the language it serves: `bg_demo.text.t(key, **values)`. Results
    cross process boundaries by pickle, so they hold no words of any language themselves."""

    key: str
    values: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if self.key not in tables()["en"]:
            raise KeyError(f"no text has the key {self.key!r}")
        wrong = {name: value for name, value in self.values.items() if not isinstance(value, (str, int, float))}
        if wrong:  # a Text or any other object would leave to_dict() unfit for JSON
            raise TypeError(f"a phrase's values are plain str, int or float; got {wrong!r}")


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
    if not text.isascii() and not encodable(text):
        raise InputError("error.not_unicode", what=field(what))
    return text.strip() if strip else text


def optional_text(text, what: str, max_chars: int = LIMITS.max_chars) -> str:
    """As `require_text`, but a text left out (None or blank) is ""."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return ""
    return require_text(text, what, max_chars)


def encodable(text: str) -> bool:
    """False for text holding a lone surrogate ("\\ud800", which JSON can carry): no tokenizer can read it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _number(value) -> float | int | None:
    """An int as it is (any size), anything else as a finite float, or None (not a number, NaN, infinite, a bool)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(value)  # numeric strings pass, as they always have
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def require_float(value, what: str, low: float, high: float) -> float:
    """A finite number in [low, high], else an InputError."""
    number = _number(value)
    if number is None:
        raise InputError("error.not_number", what=field(what), low=low, high=high, got=shown(value))
    if not low <= number <= high:
        got = f"{number:g}" if isinstance(number, float) else shown(number)
        raise InputError("error.out_of_range", what=field(what), low=low, high=high, got=got)
    return float(number)


def require_int(value, what: str, low: int, high: int) -> int:
    """A whole number in [low, high] (ints, integral floats and numeric strings pass), else an InputError."""
    number = _number(value)
    if number is None or (isinstance(number, float) and not number.is_integer()):
        raise InputError("error.not_whole", what=field(what), low=low, high=high, got=shown(value))
    if not low <= number <= high:  # compared as they are: a 400-digit int never becomes a float
        raise InputError("error.out_of_range", what=field(what), low=low, high=high, got=shown(int(number)))
    return int(number)


def require_pick(value, what: str, count: int, counted_from: int = 0) -> int:
    """Which of `count` things (a [MASK], a guess, an entity) `value` picks, counted from `counted_from` as the caller
    counts them (a page counts from 1): its index from 0, else an InputError naming the range in the caller's count."""
    return require_int(value, what, counted_from, counted_from + count - 1) - counted_from


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


def largest(values: np.ndarray, k: int) -> np.ndarray:
    """The indices of the `k` largest values of each row, largest first, ties in index order: the first `k` of
    `np.argsort(-values, kind="stable")`, without sorting a whole vocabulary (30,522 or 50,257 values a row, ~1.8 ms
    each at bert-base size, about 4% of a short fill-mask request): only the values at least the k-th largest are
    sorted."""
    values = np.atleast_2d(values)
    k = min(k, values.shape[-1])
    rows = []
    for row in values:
        kth = np.partition(row, row.size - k)[row.size - k]  # the k-th largest value
        candidates = np.flatnonzero(row >= kth)  # every value tied with it too, in index order
        rows.append(candidates[np.argsort(-row[candidates], kind="stable")[:k]])
    return np.stack(rows)


def softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)
