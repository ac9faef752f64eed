"""The logit lens: what GPT-2 would predict next if it stopped after each layer.

Each layer's hidden state goes through the final layer norm and the LM head (the model's own
modules), as if it were the last layer. The last row equals the model's real prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import Result, require_head, require_text
from bg_demo.errors import InputError
from bg_demo.tokens import display_token, display_tokens

MAX_LENS_TOKENS = 64


@dataclass(frozen=True)
class LogitLensResult(Result):
    text: str
    tokens: tuple[str, ...]  # the input tokens (positions)
    layers: tuple[str, ...]  # "embeddings", then "layer 0" … "layer N-1" (after each block, 0-based as elsewhere)
    predictions: tuple[tuple[str, ...], ...]  # (layers, positions): the top next token at each
    probabilities: np.ndarray  # (layers, positions) float32: its probability
    final_rank: np.ndarray  # (layers, positions) int: rank at that layer of the model's final prediction
    truncated: bool
    model_id: str


def _read(model, hidden, final, last: bool):
    """One layer through ln_f and the LM head, one (T, V) softmax at a time: (top p, top id, rank of `final`)."""
    probs = model.lm_head(hidden if last else model.transformer.ln_f(hidden))[0].float().softmax(-1)  # (T, V)
    top_p, top_id = probs.max(-1)
    final_p = probs.gather(-1, final[:, None])  # (T, 1)
    return top_p, top_id, (probs > final_p).sum(-1) + 1


def logit_lens(text: str, *, model_id: str | None = None) -> LogitLensResult:
    import torch

    text = require_text(text)
    loaded = models.get("decoder", model_id)
    require_head(loaded, "lm")  # every layer is read through it
    with loaded.use() as (tokenizer, model):
        if not hasattr(model, "transformer") or not hasattr(model.transformer, "ln_f"):
            raise InputError("error.lens_model", model=loaded.model_id)
        ids = tokenizer(text, return_tensors="pt")["input_ids"]
        truncated = ids.shape[1] > MAX_LENS_TOKENS
        ids = ids[:, :MAX_LENS_TOKENS].to(loaded.device)
        with torch.inference_mode():
            hidden = model(ids, output_hidden_states=True).hidden_states  # L + 1 of (1, T, H)
            final = model.lm_head(hidden[-1])[0].argmax(-1)  # (T,); the last state went through ln_f already
            rows = [_read(model, h, final, last=i == len(hidden) - 1) for i, h in enumerate(hidden)]
        top_p, top_id, ranks = (torch.stack(column) for column in zip(*rows))  # each (L + 1, T)
        names = {int(i): display_token(tokenizer, int(i)) for i in top_id.unique().tolist()}  # a guess stands alone
        tokens = display_tokens(tokenizer, ids[0].tolist())
    predictions = tuple(tuple(names[int(i)] for i in row) for row in top_id.tolist())
    layers = ("embeddings",) + tuple(f"layer {i}" for i in range(len(hidden) - 1))  # 0-based, as in Attention
    return LogitLensResult(
        text, tokens, layers, predictions, top_p.cpu().numpy().astype(np.float32),
        ranks.cpu().numpy(), truncated, loaded.model_id,
    )
