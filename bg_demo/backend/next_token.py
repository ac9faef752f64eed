"""The next-token lab: GPT-2's distribution for the next token, and what temperature, top-k and top-p do to it.

The filters are transformers' own logits processors, applied in the order `generate` applies them
(temperature, then top-k, then top-p), so the candidates marked kept here are exactly the tokens
`generate` could sample from with the same settings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import Result, optional_text, require_float, require_head, require_int
from bg_demo.backend.generation.types import prompt_ids, seed_or_draw
from bg_demo.config import LIMITS
from bg_demo.errors import InputError
from bg_demo.tokens import display_token, readable_text

MAX_CANDIDATES = 50


@dataclass(frozen=True)
class Candidate(Result):
    token: str
    token_id: int
    rank: int  # 1 = most likely
    score: float  # the model's probability, temperature 1
    scaled: float  # after temperature
    cumulative: float  # probability mass of this candidate and every more likely one, as top-p reads it
    # (after temperature and top-k, renormalised); top-p keeps candidates until this reaches top_p
    kept_by_top_k: bool
    kept_by_top_p: bool  # after top-k, as in generate
    final: float  # the probability of being sampled: after every filter, renormalised


@dataclass(frozen=True)
class NextTokenResult(Result):
    context: str  # the text so far
    token_ids: tuple[int, ...]  # the context as token ids
    temperature: float
    top_k: int  # 0 = off
    top_p: float  # 1.0 = off
    candidates: tuple[Candidate, ...]  # the most likely tokens (after temperature), best first
    kept: int  # how many tokens of the whole vocabulary survive the filters
    entropy: float  # bits, of the model's distribution
    entropy_scaled: float  # bits, after temperature
    entropy_final: float  # bits, of what is sampled from
    greedy: Candidate  # the most likely token
    sampled: Candidate  # one draw from the final distribution with `seed`
    seed: int
    model_id: str


def _entropy_bits(probs: np.ndarray) -> float:
    nonzero = probs[probs > 0]
    return float(-(nonzero * np.log2(nonzero)).sum())


def filtered_scores(ids, logits, temperature: float, top_k: int, top_p: float):
    """(after temperature, after top-k, after top-p) scores, each (1, V), with generate's own processors."""
    from transformers import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

    scaled = TemperatureLogitsWarper(temperature)(ids, logits) if temperature != 1.0 else logits
    after_k = TopKLogitsWarper(top_k=top_k)(ids, scaled) if top_k else scaled
    after_p = TopPLogitsWarper(top_p=top_p)(ids, after_k) if top_p < 1.0 else after_k
    return scaled, after_k, after_p


def next_token(
    text: str,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    n: int = 20,
    seed: int | None = None,
    *,
    token_ids: list[int] | None = None,
    model_id: str | None = None,
) -> NextTokenResult:
    """The distribution after `text` (or after `token_ids`, which the step-by-step lab keeps)."""
    import torch

    temperature = require_float(temperature, "Temperature", 0.05, 5.0)
    top_k = require_int(top_k, "Top-k (0 = off)", 0, 1000)
    top_p = require_float(top_p, "Top-p", 0.01, 1.0)
    n = require_int(n, "Candidates shown", 1, MAX_CANDIDATES)
    seed = seed_or_draw(seed)
    text = optional_text(text, "text", LIMITS.max_prompt_chars)  # a GPT-2 prompt, as in generation; may be empty
    loaded = models.get("decoder", model_id)
    require_head(loaded, "lm")
    with loaded.use() as (tokenizer, model):
        limit = model.config.n_positions
        if token_ids:
            if not all(type(i) is int and 0 <= i < len(tokenizer) for i in token_ids) or len(token_ids) >= limit:
                raise InputError("error.token_ids_unfit")
            ids = torch.tensor([list(token_ids)])
        else:
            ids = torch.tensor([prompt_ids(tokenizer, text, limit, 1)])
        ids = ids.to(loaded.device)
        with torch.inference_mode():
            logits = model(ids).logits[:, -1].float()  # (1, V)
            scaled, after_k, after_p = filtered_scores(ids, logits, temperature, top_k, top_p)
            final = after_p.softmax(-1)
            # the draw generate makes with this seed: multinomial on the filtered softmax, in its own generator
            generator = torch.Generator(device=final.device).manual_seed(seed)
            sampled_id = int(torch.multinomial(final, 1, generator=generator)[0, 0])
        context = readable_text(tokenizer, ids[0].tolist())  # no U+FFFD when it ends inside a character
        probs, scaled_p = logits.softmax(-1)[0].cpu().numpy(), scaled.softmax(-1)[0].cpu().numpy()
        kept_k, kept_p = torch.isfinite(after_k)[0].cpu().numpy(), torch.isfinite(after_p)[0].cpu().numpy()
        final = final[0].cpu().numpy()
        order = np.argsort(-scaled_p, kind="stable")
        cumulative = np.cumsum(after_k.softmax(-1)[0].cpu().numpy()[order])
        rank_of = np.empty_like(order)
        rank_of[order] = np.arange(1, len(order) + 1)

        def candidate(i: int) -> Candidate:
            return Candidate(
                display_token(tokenizer, int(i)), int(i), int(rank_of[i]), float(probs[i]), float(scaled_p[i]),
                float(cumulative[rank_of[i] - 1]), bool(kept_k[i]), bool(kept_p[i]), float(final[i]),
            )

        candidates = tuple(candidate(i) for i in order[:n])
        greedy, sampled = candidate(order[0]), candidate(sampled_id)
    return NextTokenResult(
        context, tuple(ids[0].tolist()), temperature, top_k, top_p, candidates, int(kept_p.sum()),
        _entropy_bits(probs), _entropy_bits(scaled_p), _entropy_bits(final), greedy, sampled, seed, loaded.model_id,
    )

