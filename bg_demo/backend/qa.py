"""Extractive question answering: the span of the context that answers the question, or no answer.

A context longer than one window is read in overlapping windows ([CLS] question [SEP] part of the
context [SEP], `LIMITS.qa_window_tokens` long, neighbours sharing `LIMITS.qa_stride` tokens). In each
window a span is scored by start logit + end logit, starts no later than it ends, lies inside the
context and is at most `LIMITS.qa_max_answer_tokens` long. As in SQuAD 2.0, the model says "no
answer" when the [CLS] score (start + end logit at [CLS]) beats the best span; the [CLS] score used
is the lowest over the windows, so one window without the answer does not silence another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import Result, require_text, softmax
from bg_demo.config import LIMITS
from bg_demo.errors import InputError

WINDOWS_PER_BATCH = 8


@dataclass(frozen=True)
class Span(Result):
    text: str
    start: int  # char offsets into the context
    end: int
    score: float  # P(start) * P(end) in its window (softmax over [CLS] and the context tokens)
    logit: float  # start logit + end logit: what spans are ranked by
    window: int


@dataclass(frozen=True)
class AnswerResult(Result):
    question: str
    context: str
    answer: str | None  # None when the model says the context holds no answer
    start: int | None
    end: int | None
    score: float  # the answer's probability, or that of "no answer" when answer is None
    null_logit: float  # the lowest [CLS] score over the windows
    alternatives: tuple[Span, ...]  # the best spans, best first (the answer first when there is one)
    windows: tuple[tuple[int, int], ...]  # the span of the context each window reads
    model_id: str


def best_spans(start_logits, end_logits, in_context, max_tokens: int, n: int) -> list[tuple[int, int, float]]:
    """The n best (start, end, logit) spans with start <= end < start + max_tokens, both inside the context.

    start_logits, end_logits: (T,) floats; in_context: (T,) bools. Ties go to the earlier start, then end."""
    t = len(start_logits)
    scores = start_logits[:, None] + end_logits[None, :]  # (T start, T end)
    offset = np.arange(t)[None, :] - np.arange(t)[:, None]  # end - start
    valid = in_context[:, None] & in_context[None, :] & (offset >= 0) & (offset < max_tokens)
    flat = np.where(valid, scores, -np.inf).ravel()
    order = np.argsort(-flat, kind="stable")[:n]
    return [(int(i // t), int(i % t), float(flat[i])) for i in order if np.isfinite(flat[i])]


@dataclass
class Prepared:
    """A question and its context cut into overlapping windows (`preprocess`), what `forward` and an
    explanation's gradient pass share."""

    question: str
    context: str
    encoding: dict  # input_ids, token_type_ids, attention_mask: (windows, tokens), padded to the longest
    offsets: list  # (windows, tokens, 2) char spans into the context
    in_context: np.ndarray  # (windows, tokens) True for the context's tokens
    sequence_ids: list  # per window, per token: 0 question, 1 context, None special or padding


def preprocess(tokenizer, question: str, context: str) -> Prepared:
    question = require_text(question, "question")
    context = require_text(context, "context", LIMITS.max_context_chars, strip=False)  # offsets index it
    question_tokens = len(tokenizer(question, add_special_tokens=False)["input_ids"])
    if question_tokens > LIMITS.qa_window_tokens // 2:
        raise InputError("error.question_tokens", n=question_tokens, limit=LIMITS.qa_window_tokens // 2)
    encoding = tokenizer(
        question,
        context,
        truncation="only_second",
        max_length=LIMITS.qa_window_tokens,
        stride=LIMITS.qa_stride,
        return_overflowing_tokens=True,
        return_offsets_mapping=True,
        padding="longest",
        return_tensors="pt",
    )
    offsets = encoding.pop("offset_mapping").tolist()  # (W, T, 2)
    encoding.pop("overflow_to_sample_mapping", None)
    sequence_ids = [encoding.sequence_ids(w) for w in range(len(offsets))]
    in_context = np.array([[s == 1 for s in ids] for ids in sequence_ids])
    if not in_context.any():
        raise InputError("error.empty_context")
    return Prepared(question, context, dict(encoding), offsets, in_context, sequence_ids)


def forward(model, inputs: dict):
    """(start logits, end logits), each (windows, tokens)."""
    output = model(**inputs)
    return output.start_logits, output.end_logits


def answer(question: str, context: str, *, n_best: int = LIMITS.qa_n_best, model_id: str | None = None) -> AnswerResult:
    import torch

    loaded = models.get("qa", model_id)
    with loaded.use() as (tokenizer, model):
        prepared = preprocess(tokenizer, question, context)
        encoding = prepared.encoding
        starts, ends = [], []
        with torch.inference_mode():
            for i in range(0, len(prepared.offsets), WINDOWS_PER_BATCH):
                if i:
                    loaded.lock.pause()  # a long context is many passes: whoever waits goes between two
                batch = {k: v[i : i + WINDOWS_PER_BATCH].to(loaded.device) for k, v in encoding.items()}
                start_logits, end_logits = forward(model, batch)
                starts.append(start_logits.float().cpu().numpy())
                ends.append(end_logits.float().cpu().numpy())
    return postprocess(prepared, np.concatenate(starts), np.concatenate(ends), n_best, loaded.model_id)


def postprocess(prepared: Prepared, start_logits, end_logits, n_best, model_id) -> AnswerResult:
    """start_logits, end_logits: (W, T), one row per window of `prepared`."""
    question, context, offsets, in_context = prepared.question, prepared.context, prepared.offsets, prepared.in_context
    candidates: dict[tuple[int, int], Span] = {}
    null_logits, null_probs, windows = [], [], []
    for w, (s_logits, e_logits, mask) in enumerate(zip(start_logits, end_logits, in_context)):
        keep = mask.copy()
        keep[0] = True  # [CLS] takes part in the softmax: it stands for "no answer"
        p_start = np.where(keep, softmax(np.where(keep, s_logits, -np.inf)), 0.0)
        p_end = np.where(keep, softmax(np.where(keep, e_logits, -np.inf)), 0.0)
        null_logits.append(float(s_logits[0] + e_logits[0]))
        null_probs.append(float(p_start[0] * p_end[0]))
        context_tokens = np.flatnonzero(mask)
        windows.append((offsets[w][context_tokens[0]][0], offsets[w][context_tokens[-1]][1]))
        for i, j, logit in best_spans(s_logits, e_logits, mask, LIMITS.qa_max_answer_tokens, n_best):
            start, end = offsets[w][i][0], offsets[w][j][1]
            span = Span(context[start:end], start, end, float(p_start[i] * p_end[j]), logit, w)
            if (start, end) not in candidates or candidates[(start, end)].logit < logit:
                candidates[(start, end)] = span
    ranked = tuple(sorted(candidates.values(), key=lambda span: -span.logit)[:n_best])
    null_window = int(np.argmin(null_logits))
    null_logit = null_logits[null_window]
    if not ranked or null_logit > ranked[0].logit:
        return AnswerResult(
            question, context, None, None, None, null_probs[null_window], null_logit, ranked, tuple(windows), model_id
        )
    best = ranked[0]
    return AnswerResult(
        question, context, best.text, best.start, best.end, best.score, null_logit, ranked, tuple(windows), model_id
    )


_decode = postprocess  # its earlier name
