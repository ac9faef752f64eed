"""A labelled task as the fine-tune-or-prompt page gives it: train and test rows of (text, label), checked and bounded.

Both ways of teaching a model the task read the same `Labelled` value: prompting writes train rows into the prompt as
examples and scores the test rows, fine-tuning takes optimiser steps on the train rows and scores the test rows. The
labels are the train rows' own, in the order they first appear there: the order of `label_words` and of every
probability table.
"""

from __future__ import annotations

from dataclasses import dataclass

from bg_demo.backend._common import field, require_text
from bg_demo.config import LIMITS
from bg_demo.errors import InputError, shown


@dataclass(frozen=True)
class Labelled:
    train: tuple[tuple[str, str], ...]  # (text, label)
    test: tuple[tuple[str, str], ...]
    labels: tuple[str, ...]  # in the order they first appear in `train`

    def ids(self, rows) -> list[int]:
        """Each row's label as its index in `labels`."""
        return [self.labels.index(label) for _, label in rows]


def _rows(rows, what: str) -> tuple[tuple[str, str], ...]:
    """Rows of (text, label), from lists or a table's records: blank rows dropped (a table's empty last line), each
    text and label checked; at most `LIMITS.task_rows`."""
    if isinstance(rows, dict) and "data" in rows:  # a table's value as Gradio sends it ({"headers", "data"})
        rows = rows["data"]
    if not isinstance(rows, (list, tuple)):
        raise InputError("error.task_rows", what=field(what), got=shown(rows))
    kept = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, (list, tuple)) or len(row) < 2:
            raise InputError("error.task_row", what=field(what), row=number, got=shown(row))
        text, label = ("" if cell is None else cell for cell in row[:2])
        if not str(text).strip() and not str(label).strip():
            continue  # an empty line of the table
        if not isinstance(text, str) or not text.strip():
            raise InputError("error.task_no_text", what=field(what), row=number)
        if not isinstance(label, str) or not label.strip():
            raise InputError("error.task_no_label", what=field(what), row=number)
        try:
            text = require_text(text, "sentence", LIMITS.task_text_chars)
            label = require_text(label, "label", LIMITS.label_chars)
        except InputError as exc:  # the cell's own message ("… is 412 characters long"), with where it is
            raise InputError("error.task_cell", what=field(what), row=number, problem=exc.text) from None
        kept.append((text, label))
    if len(kept) > LIMITS.task_rows:
        raise InputError("error.task_too_many", what=field(what), n=len(kept), limit=LIMITS.task_rows)
    return tuple(kept)


def labelled(train, test) -> Labelled:
    """The checked task: at least one train row per label, 2 to `LIMITS.task_labels` labels, a test set whose labels
    all appear in the train rows."""
    train, test = _rows(train, "train"), _rows(test, "test")
    if not train:
        raise InputError("error.task_empty", what=field("train"))
    if not test:
        raise InputError("error.task_empty", what=field("test"))
    labels = tuple(dict.fromkeys(label for _, label in train))
    if not 2 <= len(labels) <= LIMITS.task_labels:
        raise InputError("error.task_labels", n=len(labels), limit=LIMITS.task_labels)
    unknown = sorted({label for _, label in test} - set(labels))
    if unknown:
        raise InputError("error.task_unknown_label", labels=", ".join(unknown), known=", ".join(labels))
    return Labelled(train, test, labels)


def label_words(words, labels: tuple[str, ...]) -> tuple[str, ...]:
    """One word per label, in the labels' order: a list, or one string with the words separated by commas."""
    if isinstance(words, str):
        words = words.split(",")
    if not isinstance(words, (list, tuple)):
        raise InputError("error.label_words", n=len(labels), labels=", ".join(labels), got=shown(words))
    words = tuple(str(word).strip() for word in words if str(word).strip())
    if len(words) != len(labels):
        raise InputError("error.label_words", n=len(labels), labels=", ".join(labels), got=", ".join(words) or "—")
    for word in words:
        require_text(word, "label word", LIMITS.label_chars)
    if len(set(words)) != len(words):
        raise InputError("error.label_words_repeat", got=", ".join(words))
    return words
