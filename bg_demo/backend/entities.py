"""Named entities: per-token BIO tags from the NER model, grouped into entities by an aggregation strategy.

The strategies are those of transformers' token-classification pipeline, and the results equal it:
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
        return postprocess(tokenizer, model.config, text, aggregation, prepared, logits, loaded.model_id)


def postprocess(tokenizer, config, text: str, aggregation: str, prepared: Prepared, logits,
                model_id: str) -> EntitiesResult:
    """Tags and entities from one text's (tokens, labels) logits, grouped by `aggregation`."""
    probs = softmax(logits.float().cpu().numpy())  # (T, num_labels)
    ids = prepared.inputs["input_ids"][0].tolist()
    pieces = _pieces(tokenizer, text, ids, prepared.offsets, prepared.special, probs)
    id2label = config.id2label
    if aggregation in ("none", "simple"):
        tagged = [_tag(piece["word"], piece["probs"], piece, piece, id2label) for piece in pieces]
    else:
        tagged = [_word_tag(tokenizer, word, aggregation, id2label) for word in _words(pieces)]
    groups = tagged if aggregation == "none" else [_merge(tokenizer, g) for g in _groups(tagged)]
    entities = tuple(
        Entity(g["label"], g["start"], g["end"], text[g["start"] : g["end"]], float(g["score"]), g["word"])
        for g in groups
        if g["label"] not in IGNORED_LABELS
    )
    tokens = tuple(
        TokenTag(p["word"], id2label[int(p["probs"].argmax())], float(p["probs"].max()), p["start"], p["end"])
        for p in pieces
    )
    return EntitiesResult(text, aggregation, entities, tokens, model_id)


def _pieces(tokenizer, text, ids, offsets, special, probs) -> list[dict]:
    """One entry per non-special token: its string, label probabilities, char span, and whether it
    continues the previous word (WordPiece's `##`; a spacing heuristic for tokenizers without one)."""
    backend = getattr(tokenizer, "_tokenizer", None)
    word_aware = backend is not None and getattr(backend.model, "continuing_subword_prefix", None)
    pieces = []
    for idx, (token_id, (start, end), is_special) in enumerate(zip(ids, offsets, special)):
        if is_special:
            continue
        word, ref = tokenizer.convert_ids_to_tokens(token_id), text[start:end]
        if word_aware:
            is_subword = len(word) != len(ref)
        else:
            is_subword = start > 0 and " " not in text[start - 1 : start + 1]
        if token_id == tokenizer.unk_token_id:
            word, is_subword = ref, False
        pieces.append(dict(word=word, probs=probs[idx], start=start, end=end, is_subword=is_subword))
    return pieces


def _tag(word, probs, first, last, id2label) -> dict:
    best = int(probs.argmax())
    return dict(label=id2label[best], score=probs[best], word=word, start=first["start"], end=last["end"])


def _words(pieces) -> list[list[dict]]:
    words: list[list[dict]] = []
    for piece in pieces:
        if words and piece["is_subword"]:
            words[-1].append(piece)
        else:
            words.append([piece])
    return words


def _word_tag(tokenizer, word: list[dict], aggregation: str, id2label) -> dict:
    """One tag for a whole word from its pieces."""
    if aggregation == "first":
        probs = word[0]["probs"]
    elif aggregation == "max":
        probs = max(word, key=lambda piece: piece["probs"].max())["probs"]
    else:  # average
        probs = np.nanmean(np.stack([piece["probs"] for piece in word]), axis=0)
    text = tokenizer.convert_tokens_to_string([piece["word"] for piece in word])
    return _tag(text, probs, word[0], word[-1], id2label)


def _split_tag(label: str) -> tuple[str, str]:
    """("B"|"I", entity type); a tag without a B-/I- prefix counts as a continuation."""
    if label.startswith(("B-", "I-")):
        return label[0], label[2:]
    return "I", label


def _groups(tagged: list[dict]) -> list[list[dict]]:
    """Neighbours with the same entity type form a group, unless the newcomer is a B- tag."""
    groups: list[list[dict]] = []
    for item in tagged:
        bi, kind = _split_tag(item["label"])
        if groups and bi != "B" and _split_tag(groups[-1][-1]["label"])[1] == kind:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _merge(tokenizer, group: list[dict]) -> dict:
    return dict(
        label=group[0]["label"].split("-", 1)[-1],
        score=np.mean(np.nanmean([item["score"] for item in group])),
        word=tokenizer.convert_tokens_to_string([item["word"] for item in group]),
        start=group[0]["start"],
        end=group[-1]["end"],
    )
