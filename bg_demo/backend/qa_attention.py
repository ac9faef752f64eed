"""Where the answer looks: the attention from the answer's first and last tokens, in the window it came from.

The QA model reads a long context in windows (`qa.preprocess`); the answer is a span of one of them. This runs
the same model over exactly that window (its input_ids and token_type_ids, without the padding a batch added) and
keeps only two rows of every layer's and head's attention map: those of the answer's start and end tokens, over all
the window's keys. A 384-token window's whole maps are ~42 MB at bert-base size; these rows are 1/192 of that.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend import qa
from bg_demo.backend._common import Result, jsonable, require_int
from bg_demo.errors import InputError
from bg_demo.tokens import display_tokens

PARTS = ("special", "question", "context")  # what each token of a window is: [CLS]/[SEP], the question, the context


# eq=False: numpy fields cannot be compared with ==, so the dataclass compares by identity
@dataclass(frozen=True, eq=False)
class AnswerAttention(Result):
    answer: str  # the answer's text: context[answer_start:answer_end]
    answer_start: int  # char offsets into the context
    answer_end: int
    window: int  # which window the answer came from (AnswerResult.windows counts them from 0)
    n_windows: int
    tokens: tuple[str, ...]  # display strings (bg_demo.tokens), one per token of the window, padding left out
    parts: tuple[str, ...]  # per token, one of PARTS
    start: int  # the answer's first token in the window
    end: int  # its last token (inclusive)
    rows: np.ndarray  # (L, H, 2, T) float16: [l, h, 0] from the start token, [l, h, 1] from the end token
    model_id: str

    def summary(self) -> dict:
        """to_dict() without the rows, with their shape instead."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "rows"}
        return jsonable(fields) | {"shape": list(self.rows.shape)}


def _token_of(offsets, in_context, char: int, side: int) -> int | None:
    """The context token whose span starts (side 0) or ends (side 1) at `char`, or None."""
    for i, (span, inside) in enumerate(zip(offsets, in_context)):
        if inside and span[side] == char:
            return i
    return None


def answer_attention(question: str, context: str, start, end, window, *, model_id: str | None = None) -> AnswerAttention:
    """The attention rows of the answer context[start:end] (char offsets, as `answer` gives them; None: no answer)
    found in window `window` (its `alternatives[0].window`), for every layer and head."""
    import torch

    if start is None or end is None:
        raise InputError("qa.attention.no_answer")
    loaded = models.get("qa", model_id)
    with loaded.use(eager_attention=True) as (tokenizer, model):
        prepared = qa.preprocess(tokenizer, question, context)  # the windows the answer was read in
        n_windows = len(prepared.offsets)
        w = require_int(window, "window", 0, n_windows - 1)
        start = require_int(start, "start", 0, len(prepared.context))
        end = require_int(end, "end", start + 1, len(prepared.context))
        mask = prepared.encoding["attention_mask"][w].bool()  # (T padded): padding left out
        first = _token_of(prepared.offsets[w], prepared.in_context[w], start, 0)
        last = _token_of(prepared.offsets[w], prepared.in_context[w], end, 1)
        if first is None or last is None or last < first:
            raise InputError("qa.attention.not_in_window", window=w + 1, start=start, end=end)
        kept = mask.nonzero()[:, 0].tolist()  # the window's tokens in the padded batch (padding may come first)
        first, last = kept.index(first), kept.index(last)
        inputs = {k: v[w][mask][None].to(loaded.device) for k, v in prepared.encoding.items()}  # (1, T)
        with torch.inference_mode():  # the body only: the span head reads no attention
            output = model.base_model(**inputs, output_attentions=True)
        attentions = torch.stack(output.attentions)[:, 0]  # (L, H, T, T)
        rows = attentions[:, :, [first, last], :].float().cpu().numpy().astype(np.float16)  # (L, H, 2, T)
        tokens = display_tokens(tokenizer, inputs["input_ids"][0].tolist())
    sequence = [prepared.sequence_ids[w][i] for i in kept]
    parts = tuple(PARTS[0] if s is None else PARTS[1 + s] for s in sequence)
    text = prepared.context[start:end]
    return AnswerAttention(text, start, end, w, n_windows, tokens, parts, first, last, rows, loaded.model_id)
