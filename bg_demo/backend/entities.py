"""Named entities: per-token BIO tags from the NER model, grouped into entities by an aggregation strategy.

The strategies are those of transformers' token-classification pipeline, and the grouping is the pipeline's own
(`gather_pre_entities`, then `aggregate`), run on this module's forward pass:
- none: every token with its own best tag (subword pieces included);
- simple: tokens' best tags, neighbours with the same entity type merged;
- first / average / max: first the pieces of a word agree on one tag (the first piece's, the average
  of the pieces' probabilities, or the most confident piece's), then words are merged as in simple.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import Result, check_length, max_tokens, require_text, softmax
from bg_demo.errors import InputError

STRATEGIES = ("none", "simple", "first", "average", "max")
IGNORED_LABELS = ("O",)


@dataclass(frozen=True)
class Entity(Result):
    label: str  # entity type (PER, ORG, ...), or the raw BIO tag with aggregation "none"
    start: int  # char offsets into the input text
    end: int
    text: str  # text[start:end]
    score: float
    word: str  # the model's tokens joined back into a string, as the pipeline's "word"


@dataclass(frozen=True)
class TokenTag(Result):
    token: str  # WordPiece token, "##" marks a continuation
    label: str  # its most probable BIO tag
    score: float
    start: int
    end: int


@dataclass(frozen=True)
class EntitiesResult(Result):
    text: str
    aggregation: str
    entities: tuple[Entity, ...]
    tags: tuple[TokenTag, ...]  # every non-special token with its own tag, before any grouping
    model_id: str


@dataclass
class Prepared:
    """A text ready for the model (`preprocess`), what `forward` and an explanation's gradient pass share."""

    inputs: dict  # input_ids, attention_mask, token_type_ids: a batch of one, on the model's device
    offsets: list  # (start, end) char span of each token
    special: list  # 1 for [CLS], [SEP]


def preprocess(loaded, tokenizer, model, text: str) -> Prepared:
    encoding = tokenizer(text, return_tensors="pt", return_special_tokens_mask=True, return_offsets_mapping=True)
    check_length(encoding["input_ids"].shape[1], max_tokens(tokenizer, model), "ner")
    offsets = encoding.pop("offset_mapping")[0].tolist()
    special = encoding.pop("special_tokens_mask")[0].tolist()
    return Prepared(dict(encoding.to(loaded.device)), offsets, special)


def forward(model, inputs: dict):
    """(batch, tokens, labels) logits."""
    return model(**inputs).logits


def check(text, aggregation) -> tuple[str, str]:
    """The checks made before the model is fetched: the text (unstripped: offsets index the caller's own text)
    and the strategy, or an InputError."""
    text = require_text(text, strip=False)
    aggregation = str(aggregation).strip().lower()
    if aggregation not in STRATEGIES:
        raise InputError("error.aggregation", got=aggregation, choices=", ".join(STRATEGIES))
    return text, aggregation


def recognize_entities(text: str, aggregation: str = "simple", *, model_id: str | None = None) -> EntitiesResult:
    import torch

    text, aggregation = check(text, aggregation)
    loaded = models.get("ner", model_id)
    with loaded.use() as (tokenizer, model):
        prepared = preprocess(loaded, tokenizer, model, text)
        with torch.inference_mode():
            logits = forward(model, prepared.inputs)[0]
        return postprocess(tokenizer, model, text, aggregation, prepared, logits, loaded.model_id)


def postprocess(tokenizer, model, text: str, aggregation: str, prepared: Prepared, logits,
                model_id: str) -> EntitiesResult:
    """Tags and entities from one text's (tokens, labels) logits, grouped by `aggregation` as the pipeline groups
    them. The pipeline object only lends its grouping: its own preprocess and forward are not run (this module's
    are, shared with batched calls and explanations); building it wraps the loaded model in ~30 µs, no copy, no move."""
    from transformers import TokenClassificationPipeline
    from transformers.pipelines.token_classification import AggregationStrategy

    pipeline = TokenClassificationPipeline(model=model, tokenizer=tokenizer, device=model.device)
    strategy = AggregationStrategy(aggregation)
    probs = softmax(logits.float().cpu().numpy())  # (T, num_labels)
    ids = prepared.inputs["input_ids"][0].cpu().numpy()
    pieces = pipeline.gather_pre_entities(text, ids, probs, prepared.offsets, np.asarray(prepared.special), strategy)
    label = "entity" if aggregation == "none" else "entity_group"
    entities = tuple(
        Entity(g[label], g["start"], g["end"], text[g["start"] : g["end"]], float(g["score"]), g["word"])
        for g in pipeline.aggregate(pieces, strategy)
        if g[label] not in IGNORED_LABELS
    )
    id2label = model.config.id2label
    tags = tuple(
        TokenTag(p["word"], id2label[int(p["scores"].argmax())], float(p["scores"].max()), p["start"], p["end"])
        for p in pieces
    )
    return EntitiesResult(text, aggregation, entities, tags, model_id)
