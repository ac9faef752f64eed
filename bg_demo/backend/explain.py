"""Why did the model say that? One prediction on screen, explained two ways on the same tokens:

- **attention from the prediction's position**: the row of the attention map for the `[MASK]`, the
  `[CLS]` or the last token, at the layer the student picks, for one head or the mean of the heads;
- **attribution of the prediction's probability** to each input token: gradient × input, and integrated
  gradients from a baseline where every ordinary token is replaced by padding (special tokens kept).

Both attributions are Captum's (`LayerGradientXActivation` and `LayerIntegratedGradients` on the input
embedding layer), run on the same forward pass the task uses, so what is explained is exactly the
probability the tab shows. Attention is not explanation (Jain & Wallace 2019; Wiegreffe & Pinter 2019):
the rank correlation between the two is printed beside them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bg_demo import models
from bg_demo.backend import entities, qa  # the modules (the package exports no functions of these names)
from bg_demo.backend._common import (
    Phrase,
    Result,
    check_length,
    max_tokens,
    require_head,
    require_int,
    require_pick,
    require_text,
)
from bg_demo.backend.classify import forward as classify_forward
from bg_demo.backend.classify import preprocess as classify_preprocess
from bg_demo.backend.classify import probabilities
from bg_demo.backend.fill_mask import forward as fill_mask_forward
from bg_demo.backend.fill_mask import preprocess as fill_mask_preprocess
from bg_demo.backend.generation.types import prompt_ids
from bg_demo.backend.next_sentence import forward as next_sentence_forward
from bg_demo.backend.next_sentence import preprocess as next_sentence_preprocess
from bg_demo.config import LIMITS
from bg_demo.errors import InputError, shown
from bg_demo.tokens import display_token, display_tokens

# Integrated gradients' step count: 32 (Gauss-Legendre, Captum's default rule) keeps the completeness gap under
# 1e-3 of the probability on the test models and under 1e-4 at bert-base and DistilBERT size, where doubling the
# steps halves a gap already far below what the colours show and doubles the time (bench/explain.py: a 14-token
# sentence on 2 vCPUs, 3.4 s for BERT fill-mask, 1.8 s for DistilBERT sentiment).
IG_STEPS = 32
MAX_IG_STEPS = 256


@dataclass(frozen=True)
class Explanation(Result):
    role: str  # "encoder", "sentiment", "decoder": the model that made the prediction
    model_id: str
    target: Phrase  # what is explained, for the UI to word: note.explain.mask {word: "paris", mask: "[MASK] 1"}
    score: float  # that probability, as the tab shows it
    tokens: tuple[str, ...]  # the input tokens, special ones included
    special: tuple[bool, ...]  # which tokens are special ([CLS], [SEP], [MASK], <|endoftext|>)
    positions: tuple[int, ...]  # the token positions the attention is read from
    layer: int
    head: int | None  # None: the mean of the layer's heads
    n_layers: int
    n_heads: int
    attention: tuple[float, ...]  # per token: the attention from `positions` (their mean) to it
    gradient_x_input: tuple[float, ...]  # per token: gradient · embedding, summed over the hidden size
    integrated_gradients: tuple[float, ...]  # per token: integrated gradients, summed over the hidden size
    baseline_score: float  # the probability with every ordinary token replaced by padding
    completeness_gap: float  # sum(integrated_gradients) - (score - baseline_score)
    steps: int  # integrated-gradients steps
    spearman: float  # rank correlation of attention with |integrated gradients| over the tokens


@dataclass
class _Target:
    """One prediction, ready to explain: the inputs of a batch of one, and the probability as a function of
    the model's output (batch,) so Captum can batch the interpolation steps."""

    loaded: Any
    inputs: dict  # input_ids first, then the other tensors the forward takes (attention_mask, token_type_ids)
    score: Callable  # forward's output -> (batch,) probability
    positions: tuple[int, ...]
    target: Phrase
    forward: Callable = None  # (model, **inputs) -> output; the model's own forward unless a head needs less
    model: Any = None  # the module explained (a student's own, `explain_module`); the loaded model unless given


def _whole_model(model, **inputs):
    return model(**inputs)


def explain_fill_mask(text: str, mask: int = 0, choice: int = 0, layer: int | None = None, head: int | None = None,
                      steps: int = IG_STEPS, *, top_k: int = LIMITS.max_top_k, counted_from: int = 0,
                      token_id: int | None = None, model_id: str | None = None) -> Explanation:
    """Explain the probability of the `choice`-th best guess (0 = the best) at the `mask`-th [MASK], one of the
    `top_k` best (the guesses on screen), or of `token_id` there when given (a cloze prompt's label word). `mask`
    and `choice` count from `counted_from` (a page counts from 1)."""
    import torch

    top_k = require_int(top_k, "top-k", 1, LIMITS.max_top_k)
    loaded = models.get("encoder", model_id)
    with loaded.use() as (tokenizer, model):
        prepared = fill_mask_preprocess(loaded, tokenizer, model, text)  # the tab's own checks and tokens
        n_masks = len(prepared.positions)
        mask = require_pick(mask, "Mask", n_masks, counted_from)
        choice = require_pick(choice, "Guess", top_k, counted_from)
        position = prepared.positions[mask]
        if token_id is None:
            with torch.inference_mode():
                logits = fill_mask_forward(model, prepared.inputs, [position])[0, 0]
            token_id = int(torch.argsort(logits, descending=True, stable=True)[choice])
        token_id = require_int(token_id, "Token id", 0, model.config.vocab_size - 1)  # a row of the MLM head
        word = display_token(tokenizer, token_id)

    def at_mask(model, **inputs):  # (batch, vocabulary) at the mask only, as the tab computes it
        return fill_mask_forward(model, inputs, [position])[:, 0]

    def score(logits):
        return torch.softmax(logits.float(), dim=-1)[:, token_id]

    label = f"[MASK] {mask + 1}" if n_masks > 1 else "[MASK]"
    what = Phrase("note.explain.mask", {"word": word, "mask": label})
    target = _Target(loaded, prepared.inputs, score, (position,), what, at_mask)
    return _explain(target, layer, head, steps)


def explain_classify(text: str, label: str | None = None, layer: int | None = None, head: int | None = None,
                     steps: int = IG_STEPS, *, model_id: str | None = None) -> Explanation:
    """Explain the probability of `label` (default: the most probable one), read from [CLS]."""
    import torch

    loaded = models.get("sentiment", model_id)
    with loaded.use() as (tokenizer, model):
        inputs = classify_preprocess(loaded, tokenizer, model, text)  # the tab's own checks and tokens
        labels = model.config.label2id
        if label is None:
            with torch.inference_mode():
                label_id = int(classify_forward(model, inputs)[0].argmax())
        elif isinstance(label, str) and label in labels:  # a list or a dict is no label (nor a key of the table)
            label_id = int(labels[label])
        else:
            raise InputError("error.label", labels=", ".join(labels), got=shown(label))
        name, config = model.config.id2label[label_id], model.config

    def score(logits):
        return probabilities(config, logits.float())[:, label_id]

    def logits_of(model, **inputs):
        return classify_forward(model, inputs)

    what = Phrase("note.explain.label", {"label": name})
    return _explain(_Target(loaded, inputs, score, (0,), what, logits_of), layer, head, steps)


def explain_next_sentence(first: str, second: str, layer: int | None = None, head: int | None = None,
                          steps: int = IG_STEPS, *, model_id: str | None = None) -> Explanation:
    """Explain the probability that sentence B follows sentence A (IsNext), read from [CLS]."""
    import torch

    loaded = models.get("encoder", model_id)
    with loaded.use() as (tokenizer, model):
        inputs = next_sentence_preprocess(loaded, tokenizer, model, first, second)  # the tab's own checks

    def is_next(model, **inputs):  # the NSP head only: BertForPreTraining would compute every MLM logit too
        return next_sentence_forward(model, inputs)

    def score(logits):
        return torch.softmax(logits.float(), dim=-1)[:, 0]

    what = Phrase("note.explain.is_next")
    return _explain(_Target(loaded, inputs, score, (0,), what, is_next), layer, head, steps)


def explain_next_token(text: str, token_id: int | None = None, layer: int | None = None, head: int | None = None,
                       steps: int = IG_STEPS, *, token_ids=None, model_id: str | None = None) -> Explanation:
    """Explain GPT-2's probability of `token_id` (default: its most probable next token) after `text` (or after
    the context `token_ids`), with attention read from the last token."""
    import torch

    loaded = models.get("decoder", model_id)
    require_head(loaded, "lm")
    if token_ids is None:
        text = require_text(text, "text", LIMITS.max_prompt_chars)
    with loaded.use() as (tokenizer, model):
        if token_ids is None:  # the prompt's tokens as the Next-token lab and generation make them
            ids = prompt_ids(tokenizer, text, model.config.n_positions, 1)
        else:
            ids = [require_int(i, "Token id", 0, model.config.vocab_size - 1) for i in token_ids]
            check_length(len(ids), max_tokens(tokenizer, model), "decoder")
        ids = torch.tensor([ids], device=loaded.device)
        inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        last = inputs["input_ids"].shape[1] - 1
        if token_id is None:
            with torch.inference_mode():
                token_id = int(model(**inputs).logits[0, -1].argmax())
        token_id = require_int(token_id, "Token id", 0, model.config.vocab_size - 1)
        word = display_token(tokenizer, token_id)

    def last_logits(model, **inputs):  # (batch, vocabulary): the LM head at the last position only
        return model(**inputs, logits_to_keep=1).logits[:, -1]

    def score(logits):
        return torch.softmax(logits.float(), dim=-1)[:, token_id]

    what = Phrase("note.explain.next", {"word": word})
    return _explain(_Target(loaded, inputs, score, (last,), what, last_logits), layer, head, steps)


def explain_entity(text: str, entity: int = 0, aggregation: str = "average", layer: int | None = None,
                   head: int | None = None, steps: int = IG_STEPS, *, counted_from: int = 0,
                   model_id: str | None = None) -> Explanation:
    """Explain one entity the tab found (`counted_from` = the first; a page counts from 1): the mean, over its
    tokens, of the probability of each token's own tag, with attention read from those tokens (the mean of their rows)."""
    import torch

    found = entities.recognize_entities(text, aggregation, model_id=model_id)
    if not found.entities:
        raise InputError("error.no_entity")
    chosen = found.entities[require_pick(entity, "Entity", len(found.entities), counted_from)]
    loaded = models.get("ner", model_id)
    with loaded.use() as (tokenizer, model):
        prepared = entities.preprocess(loaded, tokenizer, model, text)  # the tab's own tokens and offsets
        pairs = zip(prepared.offsets, prepared.special, strict=True)
        positions = tuple(i for i, ((start, end), mark) in enumerate(pairs)
                          if not mark and start < chosen.end and end > chosen.start)
        with torch.no_grad():  # not inference mode: the tags take part in the gradient passes
            tags = entities.forward(model, prepared.inputs)[0, list(positions)].argmax(dim=-1)  # as shown

    def score(logits):
        probs = torch.softmax(logits[:, list(positions)].float(), dim=-1)  # (B, P, labels)
        return probs.gather(-1, tags.expand(probs.shape[0], -1).unsqueeze(-1)).squeeze(-1).mean(dim=-1)

    def logits_of(model, **inputs):
        return entities.forward(model, inputs)

    what = Phrase("note.explain.entity", {"text": chosen.text, "label": chosen.label})
    target = _Target(loaded, prepared.inputs, score, positions, what, logits_of)
    return _explain(target, layer, head, steps)


def explain_answer(question: str, context: str, layer: int | None = None, head: int | None = None,
                   steps: int = IG_STEPS, *, model_id: str | None = None) -> Explanation:
    """Explain the answer the tab shows: P(start) × P(end) of its span in the window it was read from, with
    attention read from its start and end tokens; for "no answer", the [CLS] score of the first window."""
    import torch

    found = qa.answer(question, context, model_id=model_id)
    window = found.alternatives[0].window if found.answer is not None else 0
    loaded = models.get("qa", model_id)
    with loaded.use() as (tokenizer, model):
        prepared = qa.preprocess(tokenizer, question, context)  # the tab's own windows
    offsets, sequence = prepared.offsets[window], prepared.sequence_ids[window]
    length = int(prepared.encoding["attention_mask"][window].sum())  # this window without the batch's padding
    inputs = {name: value[window : window + 1, :length].to(loaded.device) for name, value in prepared.encoding.items()}
    keep = torch.tensor([i == 0 or s == 1 for i, s in enumerate(sequence[:length])], device=loaded.device)
    if found.answer is None:
        first = last = 0
        what = Phrase("note.explain.no_answer")
    else:
        # the span's tokens: qa._decode cut the answer at their offsets, in this window
        context_tokens = [i for i, s in enumerate(sequence) if s == 1]
        first = next(i for i in context_tokens if offsets[i][0] == found.start)
        last = next(i for i in context_tokens if i >= first and offsets[i][1] == found.end)
        what = Phrase("note.explain.answer", {"answer": found.answer})

    def score(logits):
        start_logits, end_logits = logits
        start = torch.softmax(start_logits.float().masked_fill(~keep, float("-inf")), dim=-1)[:, first]
        end = torch.softmax(end_logits.float().masked_fill(~keep, float("-inf")), dim=-1)[:, last]
        return start * end

    def logits_of(model, **inputs):
        return qa.forward(model, inputs)

    positions = tuple(dict.fromkeys((first, last)))
    return _explain(_Target(loaded, inputs, score, positions, what, logits_of), layer, head, steps)


def explain_generation(prompt: str, token_ids, layer: int | None = None, head: int | None = None,
                       steps: int = IG_STEPS, *, model_id: str | None = None) -> Explanation:
    """Explain the last token of a generation: its probability (at temperature 1, as the colours show) after
    the prompt and the tokens generated before it. token_ids: the generated tokens, in order."""
    if not token_ids:
        raise InputError("error.generate_first")
    if prompt and prompt.strip():
        prompt = require_text(prompt, "prompt", LIMITS.max_prompt_chars)
    if not isinstance(token_ids, (list, tuple)) or len(token_ids) > LIMITS.max_new_tokens:
        raise InputError("error.token_ids_unfit")
    loaded = models.get("decoder", model_id)
    require_head(loaded, "lm")
    with loaded.use() as (tokenizer, model):
        context = prompt_ids(tokenizer, prompt or "", model.config.n_positions, len(token_ids))
    *before, last = token_ids
    return explain_next_token("", last, layer, head, steps, token_ids=[*context, *before], model_id=model_id)


def explain_module(loaded, module, inputs: dict, score: Callable, positions, target: Phrase, layer: int | None = None,
                   head: int | None = None, steps: int = IG_STEPS) -> Explanation:
    """Explain a module of one's own that reads the loaded model's tokens (a student's fine-tuned model:
    `finetune.explain_tuned`), as every prediction here is explained: on a twin of it (the module's tensors, hooks of
    its own), in the loaded model's turns of the device. `module(**inputs)` gives what `score` reads; the module has
    a transformers body as `base_model`, and `config`, `get_input_embeddings` and `set_attn_implementation` as a
    transformers model has them."""
    return _explain(_Target(loaded, inputs, score, tuple(positions), target, None, module), layer, head, steps)


# --- the shared machinery ------------------------------------------------------------------------------------


def _explain(target: _Target, layer: int | None, head: int | None, steps: int) -> Explanation:
    import torch

    steps = require_int(steps, "Integrated-gradients steps", 2, MAX_IG_STEPS)
    loaded = target.loaded
    ids = target.inputs["input_ids"]
    n_tokens = ids.shape[1]
    if n_tokens > LIMITS.explain_tokens:
        raise InputError("error.explain_tokens", n=n_tokens, limit=LIMITS.explain_tokens)
    names = [name for name in target.inputs if name != "input_ids"]
    extra = tuple(target.inputs[name] for name in names)
    run = target.forward or _whole_model
    budget = _Budget(loaded.lock, LIMITS.explain_seconds)
    with loaded.use() as (tokenizer, model):
        twin = _twin(model if target.model is None else target.model, budget.share)

        def forward(input_ids, *values):
            return target.score(run(twin, input_ids=input_ids, **dict(zip(names, values, strict=True))))

        with torch.inference_mode():
            probability = float(forward(ids, *extra)[0])
        budget.step()
        rows = _attention_rows(twin, target)  # (L, H, P, K)
        n_layers, n_heads = rows.shape[:2]
        layer = n_layers - 1 if layer is None else require_int(layer, "Layer", 0, n_layers - 1)
        head = None if head is None or head == "" else require_int(head, "Head", 0, n_heads - 1)
        attention = (rows[layer].mean(dim=0) if head is None else rows[layer, head]).mean(dim=0).numpy()  # (K,)
        special = _special(tokenizer, ids[0].tolist())
        baseline = ids.clone()
        baseline[0, ~torch.tensor(special, device=ids.device)] = _padding_id(tokenizer)
        budget.step()
        gxi, ig, delta = _attributions(twin, forward, ids, baseline, extra, steps, budget)
        budget.step()
        with torch.inference_mode():
            baseline_probability = float(forward(baseline, *extra)[0])
        tokens = display_tokens(tokenizer, ids[0].tolist())  # the labels every view shows (bg_demo.tokens)
    return Explanation(
        loaded.role, loaded.model_id, target.target, probability, tokens, tuple(special), target.positions, layer,
        head, int(n_layers), int(n_heads), _floats(attention), _floats(gxi), _floats(ig), baseline_probability,
        delta, steps, spearman(attention, np.abs(ig)),
    )


def _attention_rows(twin, target: _Target):
    """(layers, heads, positions, keys) float32 on the CPU: the attention rows of the explained positions, read
    from the twin's body (the head's logits over every position are not needed for them). Only this pass
    needs eager attention; the gradient passes run on the model's own (faster) implementation. It runs on the
    twin, which lets whoever waits go between two layers, as the explanation's other passes do: read from the model
    itself, it held the device for a whole pass (0.54 s at 255 tokens, bert-base size, on a slow day of this
    project's 2-vCPU machine). The twin's configuration is its own, so the model others use meanwhile keeps its
    implementation."""
    import torch

    previous = twin.config._attn_implementation
    twin.set_attn_implementation("eager")
    try:
        with torch.inference_mode():
            output = twin.base_model(**target.inputs, output_attentions=True)
    finally:
        twin.set_attn_implementation(previous)
    positions = list(target.positions)
    return torch.stack([layer[0][:, positions].float().cpu() for layer in output.attentions])


def _attributions(model, forward, ids, baseline, extra, steps: int, budget: _Budget):
    """Captum's gradient x input and integrated gradients on the input embedding layer, summed over the hidden
    size: (T,), (T,) and the completeness gap. The steps run in chunks of at most `LIMITS.explain_chunk_tokens`
    tokens (rows x tokens), with `budget.step()` between two chunks."""
    import torch
    from captum.attr import LayerGradientXActivation, LayerIntegratedGradients

    embeddings = model.get_input_embeddings()
    with torch.enable_grad():
        gxi = LayerGradientXActivation(forward, embeddings).attribute(ids, additional_forward_args=extra)
        budget.step()
        integrated = LayerIntegratedGradients(forward, embeddings)
        # Captum runs the chunks one after another, each through `ig._attribute`, and hooks the embedding layer
        # (model-wide state) only inside a chunk: between two is the one place another request may use the model.
        chunk = integrated.ig._attribute

        def paced(*args, **kwargs):
            budget.step()
            return chunk(*args, **kwargs)

        integrated.ig._attribute = paced
        rows = max(1, min(steps, LIMITS.explain_chunk_tokens // ids.shape[1]))
        ig, delta = integrated.attribute(
            ids, baselines=baseline, additional_forward_args=extra, n_steps=steps, internal_batch_size=rows,
            return_convergence_delta=True,
        )
    def summed(attribution):
        return attribution[0].sum(dim=-1).detach().float().cpu().numpy()

    return summed(gxi), summed(ig), float(delta[0])


def _twin(model, share: Callable[[], None]):
    """The model's modules again on the same weights (every parameter and buffer is the model's own, nothing is
    copied), with `share()` called before each layer's forward and before its backward: an explanation's pass with
    gradients (1.6 s for 255 tokens at bert-base size on 2 vCPUs, and one row is the smallest pass there is) lets
    whoever waits for the device go between two layers, not after the whole pass. The explanation runs on the twin
    alone, so Captum's hook on the embedding layer, installed for a whole chunk of steps, is never met by another
    request, which runs on the model itself meanwhile. Made per explanation: ~240 modules, milliseconds."""
    import copy

    import torch

    shared = {id(tensor): tensor for tensor in (*model.parameters(), *model.buffers())}
    twin = copy.deepcopy(model, shared)
    layers = max((modules for modules in twin.modules() if isinstance(modules, torch.nn.ModuleList)), key=len)

    def before_backward(_, __, output):
        hidden = output if isinstance(output, torch.Tensor) else next(
            (value for value in output if isinstance(value, torch.Tensor)), None)
        if hidden is not None and hidden.requires_grad:
            hidden.register_hook(lambda _: share())  # runs when the backward pass reaches this layer's output

    for layer in layers:
        layer.register_forward_pre_hook(lambda *_: share())
        layer.register_forward_hook(before_backward)
    return twin


class _Budget:
    """An explanation's share of the device. It gives whoever waits the device between two of its layers
    (`share()`, from its twin's hooks) and between two passes, in turns by arrival: a student's request waits for
    one layer of the explanation, not the whole of it, and the explanation is slowed only by what the others use.
    It counts only its own time, not the time it stood aside, against `seconds`, and stops with a message past it,
    so an input too slow for the machine never holds the device for long."""

    def __init__(self, turn, seconds: float):
        self.turn, self.seconds, self.started, self.away = turn, seconds, time.monotonic(), 0.0

    def share(self) -> None:
        """Let whoever waits for the device go first, then carry on. A no-op on a thread that does not hold the
        device's turn (a GPU's backward pass runs on a device thread of its own)."""
        if self.turn.held and self.turn.waiting:
            left = time.monotonic()
            self.turn.pause()
            self.away += time.monotonic() - left

    def step(self) -> None:
        """Between two passes: stop past the time budget, else share the device."""
        if time.monotonic() - self.started - self.away > self.seconds:
            raise InputError("error.explain_time", seconds=self.seconds)
        self.share()


def _special(tokenizer, ids: list[int]) -> list[bool]:
    marks = set(tokenizer.all_special_ids)
    return [i in marks for i in ids]


def _padding_id(tokenizer) -> int:
    """The baseline token: padding where the model has it (BERT), else end-of-text (GPT-2)."""
    for token_id in (tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id):
        if token_id is not None:
            return int(token_id)
    raise InputError("error.no_baseline")


def _floats(values) -> tuple[float, ...]:
    return tuple(float(v) for v in np.asarray(values, dtype=np.float64))


def spearman(a, b) -> float:
    """Spearman's rank correlation of two equal-length vectors (average ranks for ties); 0 when either is
    constant. Written here rather than importing scipy for one formula."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ra, rb = _ranks(a), _ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def _ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.arange(len(values), dtype=np.float64)
    for value in np.unique(values):  # ties share their average rank
        tied = values == value
        ranks[tied] = ranks[tied].mean()
    return ranks
