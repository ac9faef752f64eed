"""One module per task: plain Python values in, frozen dataclasses (with `to_dict()`) out."""

from bg_demo.backend.classify import classify
from bg_demo.backend.entities import recognize_entities
from bg_demo.backend.fill_mask import fill_mask
from bg_demo.backend.next_sentence import next_sentence
from bg_demo.backend.qa import answer

__all__ = ["answer", "classify", "fill_mask", "model_is_loaded", "model_source", "next_sentence", "recognize_entities"]


def model_is_loaded(role: str) -> bool:
    """Whether the role's configured model is already in memory (the UI warns before a first load)."""
    from bg_demo.models import is_loaded

    return is_loaded(role)


def model_source(role: str) -> str:
    """The Hub id or local folder the role loads from."""
    from bg_demo.config import settings

    return settings().source(role)
