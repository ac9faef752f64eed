"""Errors with messages a student can act on: one type for user mistakes, one for missing models.

A message is a text key with its values (`InputError("error.text_empty", what=...)`), put into words when it
is shown, in the language being served (see `bg_demo.text`); `str(error)` gives those words."""

from bg_demo.config import DEFAULT_MODELS
from bg_demo.text import Text, tables


def shown(value, width: int = 40) -> str:
    """A value as a message quotes it back: its repr, cut short (a 400-digit number, a page of text)."""
    try:
        quoted = repr(value)
    except ValueError:  # an int past Python's 4,300-digit limit for turning it into text
        return f"<a number of {value.bit_length():,} bits>"
    return quoted if len(quoted) <= width else quoted[: width - 1] + "…"


class BgDemoError(Exception):
    """Base class: every message here is meant to be shown to the user as it is."""

    def __init__(self, message: str, /, **values):
        # a key of bg_demo.text, or words already made (a model's own error, passed on as it is)
        self.text = Text(message, **values) if message in tables()["en"] else None
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.text) if self.text is not None else super().__str__()

    def __reduce__(self):
        # rebuilt from its args and attributes, not through __init__, whose signature each subclass changes: an
        # error raised in a worker process reaches the UI as the same class, worded in the UI's language
        return _restored, (type(self), self.args, self.__dict__)


def _restored(cls, args: tuple, attributes: dict) -> BgDemoError:
    error = cls.__new__(cls, *args)  # BaseException.__new__ sets args
    error.__dict__.update(attributes)
    return error


class InputError(BgDemoError, ValueError):
    """The input cannot be used; the message says what to change."""


class ModelUnavailableError(BgDemoError, RuntimeError):
    """A role's model could not be loaded; the message names the role, the model and the fix."""

    def __init__(self, role: str, model_id: str, reason: str):
        self.role, self.model_id, self.reason = role, model_id, reason
        super().__init__("error.model_unavailable", role=role, model=model_id, reason=reason,
                         env=f"BG_DEMO_{role.upper()}")


class ClusterUnavailableError(BgDemoError, RuntimeError):
    """The model tier (a Ray Serve cluster, `bg_demo.cluster`) cannot serve a call: it cannot be reached at
    `address`, the role's application is not deployed there, or its replicas went away during a generation and none
    could take it over (`key` says which). The message names the address and what to do."""

    def __init__(self, address: str, reason: str = "", key: str = "error.cluster_unreachable"):
        self.address, self.reason = address, reason
        super().__init__(key, address=address, reason=reason)


class MissingHeadError(InputError):
    """The model has no trained weights for the head a task reads (loaded anyway, they would be random numbers).
    `head` is "mlm" (masked words), "nsp" (next sentence) or "lm" (next token); the message says what to pick."""

    ROLES = {"mlm": "encoder", "nsp": "encoder", "lm": "decoder"}  # where the model to pick instead is found

    def __init__(self, model_id: str, head: str):
        self.model_id, self.head = model_id, head
        super().__init__(f"error.missing_head.{head}", model=model_id, instead=DEFAULT_MODELS[self.ROLES[head]])
