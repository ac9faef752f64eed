"""Sentiment: the probability of every label of the sentiment model for one text."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import Result, check_length, max_tokens, require_text, softmax


@dataclass(frozen=True)
class ClassifyResult(Result):
    text: str
    scores: dict[str, float]  # label -> probability, best first
    label: str  # the most probable label
    tokens: tuple[str, ...]
    model_id: str


def classify(text: str, *, model_id: str | None = None) -> ClassifyResult:
    import torch

    text = require_text(text)
    loaded = models.get("sentiment", model_id)
    with loaded.use() as (tokenizer, model):
        encoding = tokenizer(text, return_tensors="pt").to(loaded.device)
        check_length(encoding["input_ids"].shape[1], max_tokens(tokenizer, model), "sentiment")
        with torch.inference_mode():
            logits = model(**encoding).logits[0].float().cpu().numpy()  # (num_labels,)
        tokens = tuple(tokenizer.convert_ids_to_tokens(encoding["input_ids"][0].tolist()))
    config = model.config
    # the same choice as the text-classification pipeline: sigmoid for multi-label or one output
    if config.problem_type == "multi_label_classification" or config.num_labels == 1:
        probs = 1.0 / (1.0 + np.exp(-logits))
    else:
        probs = softmax(logits)
    order = np.argsort(-probs, kind="stable")
    scores = {config.id2label[int(i)]: float(probs[i]) for i in order}
    return ClassifyResult(text, scores, config.id2label[int(order[0])], tokens, loaded.model_id)
