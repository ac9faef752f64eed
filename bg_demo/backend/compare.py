"""BERT beside GPT-2: who may attend to whom, one word in two contexts, one gap filled from both sides or one."""

from __future__ import annotations

import dataclasses
import re
import statistics
import time
from dataclasses import dataclass

import numpy as np

from bg_demo import models
from bg_demo.backend._common import (
    Phrase,
    Result,
    largest,
    max_tokens,
    require_head,
    require_int,
    require_text,
    softmax,
)
from bg_demo.backend.attention import (
    ATTENTION_TYPES,
    AttentionResult,
    attention,
    display_tokens,
    future_share,
    require_role,
)
from bg_demo.backend.fill_mask import MASK_PATTERN, Prediction, fill_mask
from bg_demo.config import LIMITS
from bg_demo.errors import InputError
from bg_demo.text import Text
from bg_demo.tokens import SPACE, display_token

TIMING_TEXT = "The quick brown fox jumps over the lazy dog."  # the short input model_facts times
TIMING_RUNS = 3


@dataclass(frozen=True, eq=False)
class CompareResult(Result):
    text: str
    encoder: AttentionResult
    decoder: AttentionResult
    encoder_future: np.ndarray  # (L_enc,) per layer, share of attention on keys after the query: > 0
    decoder_future: np.ndarray  # (L_dec,) the same for GPT-2: exactly 0, its causal mask hides the right

    def compact(self) -> CompareResult:
        """The same result with float16 attention weights (see `AttentionResult.compact`)."""
        return dataclasses.replace(self, encoder=self.encoder.compact(), decoder=self.decoder.compact())

    def summary(self) -> dict:
        """to_dict() with each model's weights replaced by their shape."""
        return {
            "text": self.text,
            "encoder": self.encoder.summary(),
            "decoder": self.decoder.summary(),
            "encoder_future": self.encoder_future.tolist(),
            "decoder_future": self.decoder_future.tolist(),
        }


def compare(
    text: str, *, max_tokens: int | None = None, encoder_id: str | None = None, decoder_id: str | None = None,
    compact: bool = False,
) -> CompareResult:
    """The same text through both models, with how much each layer looks to the right of the query; `compact` as
    for `attention`."""
    encoder = attention(text, "encoder", max_tokens=max_tokens, model_id=encoder_id, compact=compact)
    decoder = attention(text, "decoder", max_tokens=max_tokens, model_id=decoder_id, compact=compact)
    return CompareResult(encoder.text, encoder, decoder, future_share(encoder.weights), future_share(decoder.weights))


# --- same word, different contexts -----------------------------------------------------------------


@dataclass(frozen=True)
class WordTrack(Result):
    """One model's vector for the target word, layer by layer, in both sentences."""

    role: str
    tokens: tuple[str, str]  # the token the vector is read at, in the first and in the second sentence
    positions: tuple[int, int]  # its index among each sentence's tokens
    split: bool  # the word is several tokens in a sentence: the vector of its first token is used
    similarity: tuple[float, ...]  # (L + 1,) cosine similarity: [0] the embeddings, [l + 1] after layer l
    model_id: str


@dataclass(frozen=True)
class SameWordResult(Result):
    first: str
    second: str
    word: str
    same_left_context: bool  # the texts agree up to and including the word: GPT-2 reads the same input there
    notes: tuple[Phrase, ...]  # what makes the experiment less clean than it should be; empty when nothing does
    encoder: WordTrack
    decoder: WordTrack


# Hangul, kana and CJK ideographs: scripts whose words are not set off by spaces (Japanese, Chinese) or
# carry attached particles (Korean 학교에 = 학교 + 에), so a word there has no word boundary to match
SPACELESS_SCRIPTS = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f]"
)


def find_word(text: str, word: str, what: str) -> tuple[int, int]:
    """Character span of the first whole-word, case-insensitive occurrence of `word`; for a word with Hangul,
    kana or CJK characters and no whole-word occurrence, its first occurrence anywhere (日本 in 東京は日本の首都です,
    학교 in 학교에 갔다); else an InputError."""
    match = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, flags=re.IGNORECASE)
    if match is None and SPACELESS_SCRIPTS.search(word):
        match = re.search(re.escape(word), text, flags=re.IGNORECASE)
    if match is None:
        raise InputError("error.word_missing", word=word, what=Text(f"error.word_missing.{what}"))
    return match.span()


def word_tokens(offsets, shown, start: int, end: int) -> list[int]:
    """The tokens whose character offsets overlap [start, end): a token that shares a character with the word
    counts (a GPT-2 byte piece, a KoGPT2 token with the particle attached), special tokens ((0, 0)) and
    space-only tokens (a lone ▁, whose offsets name the next character) do not."""
    return [
        k for k, ((s, e), label) in enumerate(zip(offsets, shown))
        if e > s and s < end and e > start and label.strip(SPACE)
    ]


def word_track(role: str, texts, spans, model_id: str | None = None) -> WordTrack:
    """Each layer's vector at the first token of the word at `spans[i]` of `texts[i]`, compared across the two."""
    import torch

    loaded = models.get(role, model_id)
    vectors, tokens, positions, split = [], [], [], False
    with loaded.use() as (tokenizer, model):
        for text, (start, end) in zip(texts, spans):
            encoding = tokenizer(text, return_tensors="pt", truncation=True, max_length=max_tokens(tokenizer, model),
                                 return_offsets_mapping=True)
            offsets = encoding.pop("offset_mapping")[0].tolist()
            shown = display_tokens(tokenizer, encoding["input_ids"][0].tolist())
            overlapping = word_tokens(offsets, shown, start, end)
            if not overlapping:
                raise InputError("error.word_out_of_reach", role=role)
            position = overlapping[0]
            split |= len(overlapping) > 1
            with torch.inference_mode():
                hidden = model.base_model(**encoding.to(loaded.device), output_hidden_states=True).hidden_states
            vectors.append(torch.stack(hidden)[:, 0, position].double().cpu().numpy())  # (L + 1, D)
            tokens.append(shown[position])
            positions.append(position)
    a, b = vectors
    similarity = (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))  # (L + 1,)
    return WordTrack(role, tuple(tokens), tuple(positions), split, tuple(similarity.tolist()), loaded.model_id)


def same_word(
    first: str, second: str, word: str, *, encoder_id: str | None = None, decoder_id: str | None = None
) -> SameWordResult:
    """How alike one word's vectors are in two sentences, layer by layer, for BERT and for GPT-2.

    When the sentences agree up to the word, GPT-2 (reading left to right) gives the same vector
    twice, at every layer; BERT reads the words after it too, so its vectors part from layer 0 on."""
    first, second = require_text(first, "first sentence"), require_text(second, "second sentence")
    word = require_text(word, "word", max_chars=100)
    spans = find_word(first, word, "first"), find_word(second, word, "second")
    texts = first, second
    same_left = first[: spans[0][1]] == second[: spans[1][1]]
    notes = []
    if first == second:
        notes.append(Phrase("note.compare.same_sentences", {"word": word}))
    elif not same_left:
        notes.append(Phrase("note.compare.differ_before", {"word": word}))
    encoder = word_track("encoder", texts, spans, encoder_id)
    decoder = word_track("decoder", texts, spans, decoder_id)
    for track in (encoder, decoder):
        if track.split:
            notes.append(Phrase(f"note.compare.split.{track.role}", {"word": word}))
    return SameWordResult(first, second, word, same_left, tuple(notes), encoder, decoder)


# --- one gap, two readers ------------------------------------------------------------------------


@dataclass(frozen=True)
class MaskedBothResult(Result):
    text: str  # the input, its mask written as the encoder's mask token
    left: str  # what GPT-2 reads: the text before the mask
    encoder: tuple[Prediction, ...]  # BERT's guesses for the gap from both sides, best first
    decoder: tuple[Prediction, ...]  # GPT-2's guesses for the next token after `left`, best first
    encoder_id: str
    decoder_id: str


def next_token_guesses(left: str, top_k: int, model_id: str | None = None) -> tuple[tuple[Prediction, ...], str]:
    """GPT-2's top-k next tokens after `left` (after <|endoftext|> when `left` is empty), and the model id."""
    import torch

    loaded = models.get("decoder", model_id)
    require_head(loaded, "lm")
    with loaded.use() as (tokenizer, model):
        ids = tokenizer(left)["input_ids"] if left else [tokenizer.bos_token_id]
        ids = ids[-max_tokens(tokenizer, model) :]  # the end nearest the gap matters most
        with torch.inference_mode():
            hidden = model.base_model(input_ids=torch.tensor([ids], device=loaded.device)).last_hidden_state
            logits = model.get_output_embeddings()(hidden[0, -1])  # (V,): the vocabulary at the last token only
        probs = softmax(logits.float().cpu().numpy())
        best = largest(probs, top_k)[0]
        guesses = tuple(Prediction(display_token(tokenizer, int(i)), int(i), float(probs[i])) for i in best)
    return guesses, loaded.model_id


def predict_masked_both(
    text: str, top_k: int = 5, *, encoder_id: str | None = None, decoder_id: str | None = None
) -> MaskedBothResult:
    """BERT fills the [MASK] reading both sides; GPT-2 predicts the same slot from the words before it."""
    text = require_text(text)
    top_k = require_int(top_k, "top-k", 1, LIMITS.max_top_k)
    masks = list(MASK_PATTERN.finditer(text))
    if len(masks) != 1:
        raise InputError("error.one_mask", n=len(masks))
    filled = fill_mask(text, top_k, model_id=encoder_id)
    left = text[: masks[0].start()].rstrip()  # GPT-2's tokens carry their own leading space
    guesses, decoder_model = next_token_guesses(left, top_k, decoder_id)
    return MaskedBothResult(filled.text, left, filled.masks[0], guesses, filled.model_id, decoder_model)


# --- the two models in numbers --------------------------------------------------------------------


@dataclass(frozen=True)
class ModelFacts(Result):
    role: str
    model_id: str
    architecture: str  # the model class, e.g. BertForPreTraining
    layers: int
    heads: int  # per layer
    hidden_size: int
    parameters: int  # every weight of the loaded model: body_parameters + head_parameters
    body_parameters: int  # the model body (BERT: embeddings, encoder, pooler: the paper's 110M for bert-base)
    head_parameters: int  # the heads on top (BERT: MLM transform + decoder bias + NSP); a tied weight adds nothing
    tied_head: bool  # the output (LM / MLM decoder) weight is the token embedding matrix itself, counted in the body
    missing_heads: tuple[str, ...]  # heads with no trained weights ("mlm", "nsp", "lm"): the tasks that read them refuse
    position_embedding: str  # how word order gets in, e.g. "learned absolute"
    max_positions: int  # rows of the position table
    max_length: int  # the most tokens one forward pass may take
    vocab_size: int
    attention_type: str  # "bidirectional" or "causal"
    forward_ms: float  # median of TIMING_RUNS forward passes over TIMING_TEXT on this machine
    forward_tokens: int  # tokens TIMING_TEXT makes
    device: str


def parameter_counts(model) -> tuple[int, int, int, bool]:
    """(total, body, heads, tied): parameters of the whole model, of its body (`base_model`) and of the heads on
    top, each tensor counted once, so a head weight tied to the token embeddings is part of the body only."""
    total = sum(p.numel() for p in model.parameters())  # parameters() yields a shared (tied) tensor once
    body = sum(p.numel() for p in model.base_model.parameters())
    output, inputs = model.get_output_embeddings(), model.get_input_embeddings()
    tied = output is not None and inputs is not None and output.weight is inputs.weight
    return total, body, total - body, tied


def position_embedding(config) -> str:
    kind = getattr(config, "position_embedding_type", None) or "absolute"
    if kind != "absolute":
        return kind
    return "sinusoidal absolute" if getattr(config, "sinusoidal_pos_embds", False) else "learned absolute"


def time_forward(loaded, encoding) -> float:
    """Median milliseconds of TIMING_RUNS forward passes of the model body (as loaded: sdpa by default)."""
    import torch

    def once() -> float:
        started = time.perf_counter()
        with torch.inference_mode():
            loaded.model.base_model(**encoding)
        if loaded.device.startswith("cuda"):
            torch.cuda.synchronize()
        return (time.perf_counter() - started) * 1000

    return statistics.median(once() for _ in range(TIMING_RUNS))


def model_facts(role: str, *, model_id: str | None = None) -> ModelFacts:
    role = require_role(role)
    loaded = models.get(role, model_id)
    with loaded.use() as (tokenizer, model):
        encoding = tokenizer(TIMING_TEXT, return_tensors="pt").to(loaded.device)
        forward_ms = time_forward(loaded, encoding)
        config = model.config
        total, body, heads, tied = parameter_counts(model)
        return ModelFacts(
            role,
            loaded.model_id,
            type(model).__name__,
            config.num_hidden_layers,
            config.num_attention_heads,
            config.hidden_size,
            total,
            body,
            heads,
            tied,
            tuple(sorted(loaded.missing_heads)),
            position_embedding(config),
            config.max_position_embeddings,
            max_tokens(tokenizer, model),
            config.vocab_size,
            ATTENTION_TYPES[role],
            round(forward_ms, 3),
            encoding["input_ids"].shape[1],
            loaded.device,
        )
