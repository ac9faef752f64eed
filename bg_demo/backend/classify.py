"""Sentiment: the probability of every label of the sentiment model for one text."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import Result, check_length, max_tokens, require_text, softmax
from bg_demo.tokens import display_tokens


@dataclass(frozen=True)
class ClassifyResult(Result):
    text: str
    scores: dict[str, float]  # label -> probability, best first
    label: str  # the most probable label
    tokens: tuple[str, ...]
    model_id: str


def preprocess(loaded, tokenizer, model, text: str) -> dict:
    """Check and tokenise the text: the model's inputs, a batch of one on its device."""
    text = require_text(text)
    encoding = tokenizer(text, return_tensors="pt").to(loaded.device)
    check_length(encoding["input_ids"].shape[1], max_tokens(tokenizer, model), "sentiment")
    return dict(encoding)


def forward(model, inputs: dict):
    """(batch, labels) logits."""
    return model(**inputs).logits


def probabilities(config, logits):
    """The text-classification pipeline's choice: sigmoid for multi-label or one output, else softmax.
    Works on numpy arrays and on torch tensors (the explanations' gradient pass) alike."""
    if config.problem_type == "multi_label_classification" or config.num_labels == 1:
        return 1.0 / (1.0 + np.exp(-logits)) if isinstance(logits, np.ndarray) else logits.sigmoid()
    if isinstance(logits, np.ndarray):
        return softmax(logits)
    return logits.softmax(dim=-1)


def classify(text: str, *, model_id: str | None = None) -> ClassifyResult:
    import torch

    loaded = models.get("sentiment", model_id)
    with loaded.use() as (tokenizer, model):
        inputs = preprocess(loaded, tokenizer, model, text)
        with torch.inference_mode():
            logits = forward(model, inputs)[0]
        return postprocess(tokenizer, model.config, text, inputs, logits, loaded.model_id)


def postprocess(tokenizer, config, text: str, inputs: dict, logits, model_id: str) -> ClassifyResult:
    """Every label's probability from one text's (labels,) logits; `inputs` are its own (a batch of one)."""
    probs = probabilities(config, logits.float().cpu().numpy())
    order = np.argsort(-probs, kind="stable")
    scores = {config.id2label[int(i)]: float(probs[i]) for i in order}
    tokens = display_tokens(tokenizer, inputs["input_ids"][0].tolist())
    return ClassifyResult(text.strip(), scores, config.id2label[int(order[0])], tokens, model_id)
