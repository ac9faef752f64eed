"""The pretraining lab: BERT's masked-LM corruption and input embeddings, and GPT-2's causal LM objective.

- `mlm_corruption`: BERT's recipe (Devlin et al., 2018): 15% of the non-special tokens are chosen
  as targets; of those, 80% become [MASK], 10% a random token and 10% stay as they are. The labels
  hold the original token at each target and -100 (ignored by the loss) everywhere else.
- `input_representation`: for a sentence pair, the token, segment and position embeddings that
  BERT adds up (before its layer norm), read from the loaded model's own embedding layer.
- `causal_lm`: GPT-2 with teacher forcing: at each position the probability of the true next token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import (
    Result,
    check_length,
    max_tokens,
    optional_text,
    require_head,
    require_int,
    require_text,
)
from bg_demo.backend.fill_mask import mlm_logits
from bg_demo.config import LIMITS
from bg_demo.errors import InputError
from bg_demo.tokens import display_token, display_tokens, readable_text

MASK_SHARE, MASK_RATE, RANDOM_RATE = 0.15, 0.8, 0.1  # the rest of the targets (10%) stay unchanged
IGNORE = -100  # the label of a position the loss ignores
CONTEXT_TOKENS = 12  # the causal LM table shows this many tokens before the current one


@dataclass(frozen=True)
class Target(Result):
    position: int  # index into the tokens
    original: str
    shown: str  # what the model sees there: [MASK], a random token, or the original
    treatment: str  # "mask", "random" or "keep"
    predictions: tuple[tuple[str, float], ...]  # the model's top guesses at that position
    score: float  # the probability of the original token
    loss: float  # -log score


@dataclass(frozen=True)
class CorruptionResult(Result):
    text: str
    seed: int
    original: tuple[str, ...]  # tokens, [CLS]/[SEP] included
    corrupted: tuple[str, ...]
    labels: tuple[int, ...]  # original token id at each target, -100 elsewhere
    targets: tuple[Target, ...]
    loss: float  # mean cross-entropy over the targets: BERT's MLM loss for this sentence
    model_id: str


def choose_targets(special: list[bool], vocab_size: int, never: set[int], seed: int):
    """(positions, treatments, random ids): 15% of the non-special positions (at least one), each
    "mask" (80%), "random" (10%) or "keep" (10%). Random ids avoid special tokens. Deterministic per seed."""
    rng = np.random.default_rng(seed)
    candidates = [i for i, is_special in enumerate(special) if not is_special]
    n = max(1, round(MASK_SHARE * len(candidates)))
    positions = sorted(int(i) for i in rng.choice(candidates, size=n, replace=False))
    draws = rng.random(n)
    treatments = ["mask" if d < MASK_RATE else "random" if d < MASK_RATE + RANDOM_RATE else "keep" for d in draws]
    allowed = np.array([i for i in range(vocab_size) if i not in never])
    randoms = [int(rng.choice(allowed)) for _ in positions]
    return positions, treatments, randoms


def mlm_corruption(text: str, seed: int = 0, top_k: int = 3, *, model_id: str | None = None) -> CorruptionResult:
    import torch

    text = require_text(text)
    seed = require_int(seed, "Seed", 0, 2**31 - 1)
    loaded = models.get("encoder", model_id)
    require_head(loaded, "mlm")  # its guesses and loss come from the MLM head
    with loaded.use() as (tokenizer, model):
        encoding = tokenizer(text, return_tensors="pt", return_special_tokens_mask=True)
        special = [bool(s) for s in encoding.pop("special_tokens_mask")[0].tolist()]
        ids = encoding["input_ids"][0].tolist()
        check_length(len(ids), max_tokens(tokenizer, model), "encoder")
        if all(special):
            raise InputError("error.nothing_to_corrupt")
        positions, treatments, randoms = choose_targets(special, len(tokenizer), set(tokenizer.all_special_ids), seed)
        corrupted, labels = list(ids), [IGNORE] * len(ids)
        for position, treatment, random_id in zip(positions, treatments, randoms):
            labels[position] = ids[position]
            corrupted[position] = {"mask": tokenizer.mask_token_id, "random": random_id}.get(treatment, ids[position])
        encoding["input_ids"] = torch.tensor([corrupted])
        with torch.inference_mode():
            logits = mlm_logits(model, encoding.to(loaded.device), torch.tensor(positions)).float()  # (N, V)
        log_probs = logits.log_softmax(-1).cpu()
        original, shown = display_tokens(tokenizer, ids), display_tokens(tokenizer, corrupted)
        targets = []
        for row, position, treatment in zip(log_probs, positions, treatments):
            top = row.topk(top_k)
            guesses = tuple((display_token(tokenizer, int(i)), math.exp(float(v))) for v, i in zip(*top))
            loss = -float(row[ids[position]])
            targets.append(
                Target(position, original[position], shown[position], treatment, guesses, math.exp(-loss), loss)
            )
    mean_loss = float(np.mean([target.loss for target in targets]))
    return CorruptionResult(text, seed, original, shown, tuple(labels), tuple(targets), mean_loss, loaded.model_id)


@dataclass(frozen=True)
class EmbeddingRow(Result):
    token: str
    token_id: int
    segment_id: int
    position_id: int
    token_norm: float  # L2 norm of the token (word) embedding
    segment_norm: float
    position_norm: float
    sum_norm: float  # of token + segment + position, before the layer norm


@dataclass(frozen=True)
class RepresentationResult(Result):
    first: str
    second: str
    rows: tuple[EmbeddingRow, ...]  # one per token of [CLS] A [SEP] B [SEP]
    hidden_size: int
    model_id: str


def input_representation(first: str, second: str = "", *, model_id: str | None = None) -> RepresentationResult:
    import torch

    first = require_text(first, "first sentence")
    second = optional_text(second, "second sentence")  # bounded like the first; left out, a single sentence
    loaded = models.get("encoder", model_id)
    with loaded.use() as (tokenizer, model):
        encoding = tokenizer(first, second or None, return_tensors="pt")
        ids = encoding["input_ids"][0]
        check_length(len(ids), max_tokens(tokenizer, model), "encoder", "sentence pair")
        segments = encoding.get("token_type_ids", torch.zeros_like(encoding["input_ids"]))[0]
        positions = torch.arange(len(ids))
        parts = embedding_parts(model, ids, segments, positions)  # 3 x (T, H)
        norms = [part.norm(dim=-1).tolist() for part in (*parts, sum(parts))]
        tokens = display_tokens(tokenizer, ids.tolist())
    rows = tuple(
        EmbeddingRow(token, int(i), int(s), int(p), *(float(norm[k]) for norm in norms))
        for k, (token, i, s, p) in enumerate(zip(tokens, ids.tolist(), segments.tolist(), positions.tolist()))
    )
    return RepresentationResult(first, second, rows, int(parts[0].shape[-1]), loaded.model_id)


def embedding_parts(model, ids, segments, positions):
    """(token, segment, position) embeddings, each (T, H), from BERT's own embedding layer."""
    import torch

    embeddings = model.base_model.embeddings
    with torch.inference_mode():
        return (
            embeddings.word_embeddings(ids.to(model.device)).float().cpu(),
            embeddings.token_type_embeddings(segments.to(model.device)).float().cpu(),
            embeddings.position_embeddings(positions.to(model.device)).float().cpu(),
        )


@dataclass(frozen=True)
class CausalStep(Result):
    context: str  # the end of the text the model has read so far (its last CONTEXT_TOKENS + 1 tokens)
    target: str  # the true next token
    score: float  # its probability
    loss: float  # -log p (nats)
    rank: int


def _tail(text: str, cut: bool) -> str:
    return "…" + text if cut else text


@dataclass(frozen=True)
class CausalLMResult(Result):
    text: str
    steps: tuple[CausalStep, ...]  # one per predicted token (every token but the first)
    loss: float  # mean -log p: GPT-2's training loss on this text
    perplexity: float  # exp(loss)
    model_id: str


def causal_lm(text: str, *, model_id: str | None = None) -> CausalLMResult:
    import torch

    text = require_text(text, "text", LIMITS.max_prompt_chars)
    loaded = models.get("decoder", model_id)
    require_head(loaded, "lm")
    with loaded.use() as (tokenizer, model):
        ids = tokenizer(text, return_tensors="pt")["input_ids"]
        check_length(ids.shape[1], model.config.n_positions, "decoder")
        if ids.shape[1] < 2:
            ids = torch.cat([torch.tensor([[tokenizer.bos_token_id]]), ids], dim=1)  # predict the only token
        with torch.inference_mode():
            log_probs = model(ids.to(loaded.device)).logits[0, :-1].float().log_softmax(-1).cpu()  # (T-1, V)
        targets = ids[0, 1:]
        chosen = log_probs[torch.arange(len(targets)), targets]
        ranks = (log_probs > chosen[:, None]).sum(-1) + 1
        ids_list = ids[0].tolist()
        shown = display_tokens(tokenizer, ids_list)  # a target labelled as in every other view: 나[1/3] ...
        steps = tuple(  # each context a window of the whole text: a character its edge cuts keeps its label
            CausalStep(
                _tail(readable_text(tokenizer, ids_list, max(0, i - CONTEXT_TOKENS), i + 1), i >= CONTEXT_TOKENS),
                shown[i + 1], math.exp(float(lp)), -float(lp), int(r),
            )
            for i, (lp, r) in enumerate(zip(chosen, ranks))
        )
    loss = float(np.mean([step.loss for step in steps]))
    return CausalLMResult(text, steps, loss, math.exp(loss), loaded.model_id)
