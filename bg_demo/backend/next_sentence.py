"""Next-sentence prediction: the encoder's NSP head says whether sentence B follows sentence A."""

from __future__ import annotations

from dataclasses import dataclass

from bg_demo import models
from bg_demo.backend._common import Result, check_length, max_tokens, require_head, require_text, softmax
from bg_demo.tokens import display_tokens


@dataclass(frozen=True)
class NextSentenceResult(Result):
    first: str
    second: str
    is_next: float  # P(IsNext): sentence B follows sentence A
    not_next: float  # P(NotNext) = 1 - is_next
    tokens: tuple[str, ...]  # [CLS] A [SEP] B [SEP]
    segment_ids: tuple[int, ...]  # 0 for [CLS] A [SEP], 1 for B [SEP]
    model_id: str


def preprocess(loaded, tokenizer, model, first: str, second: str) -> dict:
    """Check the pair and the model's NSP head; the inputs [CLS] A [SEP] B [SEP], a batch of one on its device."""
    require_head(loaded, "nsp")
    first = require_text(first, "first sentence")
    second = require_text(second, "second sentence")
    encoding = tokenizer(first, second, return_tensors="pt").to(loaded.device)
    check_length(encoding["input_ids"].shape[1], max_tokens(tokenizer, model), "encoder", "sentence pair")
    return dict(encoding)


def nsp_logits(model, encoding):
    """(batch, 2) logits from BERT's NSP head alone (not the MLM head): index 0 is IsNext, index 1 NotNext."""
    pooled = model.bert(**encoding).pooler_output  # (B, H)
    return model.cls.seq_relationship(pooled)


forward = nsp_logits


def next_sentence(first: str, second: str, *, model_id: str | None = None) -> NextSentenceResult:
    import torch

    loaded = models.get("encoder", model_id)
    with loaded.use() as (tokenizer, model):
        inputs = preprocess(loaded, tokenizer, model, first, second)
        with torch.inference_mode():
            logits = forward(model, inputs)[0]
        return postprocess(tokenizer, first, second, inputs, logits, loaded.model_id)


def postprocess(tokenizer, first: str, second: str, inputs: dict, logits, model_id: str) -> NextSentenceResult:
    """P(IsNext) and P(NotNext) from one pair's (2,) logits; `inputs` are its own (a batch of one)."""
    probs = softmax(logits.float().cpu().numpy())
    tokens = display_tokens(tokenizer, inputs["input_ids"][0].tolist())
    segments = tuple(inputs["token_type_ids"][0].tolist())
    return NextSentenceResult(first.strip(), second.strip(), float(probs[0]), float(probs[1]), tokens, segments,
                              model_id)
