"""Roles, model sources, device and limits: every setting of the app, read from the environment once."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

ROLES = ("encoder", "sentiment", "ner", "qa", "decoder")

# role -> default Hub id (downloaded by users and Spaces; tests use tiny local models instead)
DEFAULT_MODELS = {
    "encoder": "google-bert/bert-base-uncased",
    "sentiment": "distilbert/distilbert-base-uncased-finetuned-sst-2-english",
    "ner": "dslim/bert-base-NER",
    "qa": "deepset/bert-base-cased-squad2",
    "decoder": "openai-community/gpt2",
}

# role -> the only Hub ids a user may pick in the UI (never free text, never remote code)
ALLOWED_MODELS = {
    "encoder": (
        DEFAULT_MODELS["encoder"],
        "google-bert/bert-large-uncased",
        "google-bert/bert-base-cased",
        "google-bert/bert-base-multilingual-cased",
        "distilbert/distilbert-base-uncased",
    ),
    "sentiment": (DEFAULT_MODELS["sentiment"],),
    "ner": (DEFAULT_MODELS["ner"],),
    "qa": (DEFAULT_MODELS["qa"],),
    "decoder": (
        DEFAULT_MODELS["decoder"],
        "distilbert/distilgpt2",
        "openai-community/gpt2-medium",
    ),
}


@dataclass(frozen=True)
class Limits:
    """Server-side caps on what one request may ask for."""

    max_chars: int = 2_000  # one text field (sentence, question, prompt)
    max_context_chars: int = 20_000  # a QA context; it is windowed, so it may exceed the model's length
    max_top_k: int = 20
    max_masks: int = 20
    qa_window_tokens: int = 384  # question + context per window, special tokens included
    qa_stride: int = 128  # tokens shared by neighbouring windows
    qa_max_answer_tokens: int = 30
    qa_n_best: int = 5  # answers shown: the best one and the runners-up
    max_prompt_chars: int = 6_000  # a GPT-2 prompt: its 1024-token context is the binding limit
    max_new_tokens: int = 256
    max_beams: int = 8
    max_sequences: int = 5
    generation_seconds: float = 30.0  # a generation stops this long after it starts running, whatever it asked for
    batch_rows: int = 32  # rows the decoding engine runs at once; later requests wait for a free row


@dataclass(frozen=True)
class Settings:
    sources: dict[str, str]  # role -> Hub id or local folder
    device: str  # "cuda", "mps" or "cpu"
    dtype: str  # torch dtype name: "float16" on CUDA, "float32" elsewhere

    def source(self, role: str) -> str:
        return self.sources[role]


def model_source(role: str, env=os.environ) -> str:
    """BG_DEMO_<ROLE> if set, else BG_DEMO_MODEL_DIR/<role> if that folder exists, else the Hub default."""
    if role not in DEFAULT_MODELS:
        raise KeyError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    explicit = env.get(f"BG_DEMO_{role.upper()}", "").strip()
    if explicit:
        return explicit
    model_dir = env.get("BG_DEMO_MODEL_DIR", "").strip()
    if model_dir and (Path(model_dir) / role).is_dir():
        return str(Path(model_dir) / role)
    return DEFAULT_MODELS[role]


def choose_device(env=os.environ) -> str:
    """BG_DEMO_DEVICE if set, else CUDA, then Apple MPS, then CPU."""
    wanted = env.get("BG_DEMO_DEVICE", "").strip().lower()
    if wanted:
        return wanted
    import torch  # deferred: importing config must stay cheap

    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


@functools.cache
def settings() -> Settings:
    """The settings, read from the environment on first use (tests call `settings.cache_clear()`)."""
    device = choose_device()
    return Settings(
        sources={role: model_source(role) for role in ROLES},
        device=device,
        dtype="float16" if device.startswith("cuda") else "float32",
    )


LIMITS = Limits()
