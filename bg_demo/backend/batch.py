"""Many requests of one BERT task as one padded forward pass per model: what a serving layer's batching method
(a Ray Serve `@serve.batch` one) calls with the requests it has collected.

Each call is checked and tokenised by the task's own `preprocess`; the rows of every valid call that reads the same
model (a QA request gives one row per window) are stacked, right-padded (pad token, attention 0, segment 0), and
run through the task's own `forward` once; each row's logits are cut back to its own length and go through the
task's own `postprocess`. Right padding changes a BERT-family model's logits by float noise only, so every result
equals the single call's. A call's `BgDemoError` is its result: one bad input spoils no other call."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bg_demo import models
from bg_demo.backend import entities, qa
from bg_demo.errors import BgDemoError

# the modules (the package exports functions under these three names)
classify, fill_mask, next_sentence = (importlib.import_module(f"bg_demo.backend.{name}")
                                      for name in ("classify", "fill_mask", "next_sentence"))

TASKS = ("fill_mask", "classify", "recognize_entities", "answer", "next_sentence")

# The most tokens (rows x padded length) one forward pass takes: a group over it runs in several passes, its longest
# rows together, so a long input is not padded onto many short ones. 8,192 is 16 rows of BERT's 512, 21 QA windows.
TOKENS_PER_PASS = 8192


@dataclass
class _Row:
    """One sequence of a call (a QA window is one), as its task tokenised it."""

    inputs: dict  # name -> (T,) tensor: input_ids, attention_mask, token_type_ids
    extra: Any = None  # what the task's forward needs beside it (fill-mask: the masks' positions)
    output: Any = None  # the forward pass's output for this row alone, cut to its length

    @property
    def length(self) -> int:
        return self.inputs["input_ids"].shape[-1]


@dataclass(frozen=True)
class _Task:
    role: str
    function: Callable  # the single call: its signature reads each call's (args, kwargs)
    preprocess: Callable  # (loaded, tokenizer, model, arguments) -> (prepared, [(inputs, extra)] one per row)
    forward: Callable  # (model, padded inputs (B, T), rows) -> each row's output
    postprocess: Callable  # (loaded, tokenizer, model, arguments, prepared, its rows' outputs) -> result
    check: Callable = lambda arguments: None  # the checks the single call makes before it fetches the model


def run(name: str, calls: list[tuple[tuple, dict]]) -> list:
    """One result per call, in order: what `name(*args, **kwargs)` returns for it, or the BgDemoError it raises.

    Calls are grouped by the model they read (their `model_id`, None for the role's configured one); each group
    runs in one turn of the device, one forward pass per `TOKENS_PER_PASS` tokens."""
    if name not in _TASKS:
        raise ValueError(f"no batched task {name!r}; tasks are {', '.join(TASKS)}")
    task = _TASKS[name]
    signature = inspect.signature(task.function)
    results: list = [None] * len(calls)
    groups: dict[models.LoadedModel, list[tuple[int, dict]]] = {}
    for index, (args, kwargs) in enumerate(calls):
        bound = signature.bind(*args, **kwargs)  # a TypeError here is the caller's bug: it propagates
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        try:
            task.check(arguments)
            loaded = models.get(task.role, arguments["model_id"])
        except BgDemoError as error:
            results[index] = error
            continue
        groups.setdefault(loaded, []).append((index, arguments))
    for loaded, members in groups.items():
        for index, result in _run_group(task, loaded, members):
            results[index] = result
    return results


def _run_group(task: _Task, loaded, members: list[tuple[int, dict]]):
    """(index, result or error) for the calls that read one model."""
    import torch

    prepared, rows, done = {}, {}, []
    with loaded.use(batch=True) as (tokenizer, model):
        for index, arguments in members:
            try:
                prepared[index], own = task.preprocess(loaded, tokenizer, model, arguments)
            except BgDemoError as error:
                done.append((index, error))
                continue
            rows[index] = [_Row(inputs, extra) for inputs, extra in own]
        with torch.inference_mode():
            for n, chunk in enumerate(_chunks([row for own in rows.values() for row in own], TOKENS_PER_PASS)):
                if n:
                    loaded.lock.pause()  # a big batch is several passes: whoever waits goes between two
                padded = _pad(chunk, tokenizer.pad_token_id, loaded.device)
                for row, output in zip(chunk, task.forward(model, padded, chunk), strict=True):
                    row.output = output
        for index, arguments in members:
            if index in prepared:
                try:
                    outputs = [row.output for row in rows[index]]
                    done.append((index, task.postprocess(loaded, tokenizer, model, arguments, prepared[index], outputs)))
                except BgDemoError as error:
                    done.append((index, error))
    return done


def _chunks(rows: list[_Row], budget: int):
    """The rows in passes of at most `budget` tokens (rows x the longest; a row longer than that goes alone),
    longest first, so that each pass pads its rows to a length near their own."""
    chunk: list[_Row] = []
    for row in sorted(rows, key=lambda row: -row.length):
        if chunk and (len(chunk) + 1) * chunk[0].length > budget:
            yield chunk
            chunk = []
        chunk.append(row)
    if chunk:
        yield chunk


def _pad(rows: list[_Row], pad_id: int | None, device) -> dict:
    """The rows' inputs right-padded to the longest, (B, T) each: pad token, attention 0, segment 0 on padding."""
    import torch

    length = max(row.length for row in rows)
    padded = {}
    for name, first in rows[0].inputs.items():
        fill = (pad_id or 0) if name == "input_ids" else 0
        stacked = torch.full((len(rows), length), fill, dtype=first.dtype, device=device)
        for r, row in enumerate(rows):
            stacked[r, : row.length] = row.inputs[name]
        padded[name] = stacked
    return padded


def _one(inputs: dict) -> dict:
    """A batch of one's inputs as one row: name -> (T,)."""
    return {name: value[0] for name, value in inputs.items()}


def _per_sequence(output, rows: list[_Row]) -> list:
    """(B, ...) output of one value per sequence: each row's."""
    return list(output)


def _per_token(output, rows: list[_Row]) -> list:
    """(B, T, ...) output: each row's, cut to its own length."""
    return [output[r, : row.length] for r, row in enumerate(rows)]


# fill-mask: each row's masks are its own, so the MLM head reads (rows, columns) pairs: (N masks, V) logits
def _fill_mask_check(arguments: dict) -> None:
    arguments["top_k"] = fill_mask.check(arguments["top_k"])


def _fill_mask_preprocess(loaded, tokenizer, model, arguments: dict):
    prepared = fill_mask.preprocess(loaded, tokenizer, model, arguments["text"])
    return prepared, [(_one(prepared.inputs), prepared.positions)]


def _fill_mask_forward(model, inputs: dict, rows: list[_Row]) -> list:
    import torch

    device = inputs["input_ids"].device
    at = [(r, position) for r, row in enumerate(rows) for position in row.extra]
    row_index, column_index = (torch.tensor(index, device=device) for index in zip(*at, strict=True))
    logits = fill_mask.forward(model, inputs, (row_index, column_index))  # (N, V)
    return list(torch.split(logits, [len(row.extra) for row in rows]))  # each (masks, V)


def _fill_mask_postprocess(loaded, tokenizer, model, arguments: dict, prepared, outputs: list):
    return fill_mask.postprocess(tokenizer, prepared, outputs[0], arguments["top_k"], loaded.model_id)


def _classify_preprocess(loaded, tokenizer, model, arguments: dict):
    inputs = classify.preprocess(loaded, tokenizer, model, arguments["text"])
    return inputs, [(_one(inputs), None)]


def _classify_postprocess(loaded, tokenizer, model, arguments: dict, inputs, outputs: list):
    return classify.postprocess(tokenizer, model.config, arguments["text"], inputs, outputs[0], loaded.model_id)


def _entities_check(arguments: dict) -> None:
    arguments["text"], arguments["aggregation"] = entities.check(arguments["text"], arguments["aggregation"])


def _entities_preprocess(loaded, tokenizer, model, arguments: dict):
    prepared = entities.preprocess(loaded, tokenizer, model, arguments["text"])
    return prepared, [(_one(prepared.inputs), None)]


def _entities_postprocess(loaded, tokenizer, model, arguments: dict, prepared, outputs: list):
    return entities.postprocess(tokenizer, model, arguments["text"], arguments["aggregation"], prepared,
                                outputs[0], loaded.model_id)


# QA: one row per window, each as wide as its request's windows (padded to their longest, as the single call reads them)
def _qa_preprocess(loaded, tokenizer, model, arguments: dict):
    prepared = qa.preprocess(tokenizer, arguments["question"], arguments["context"])
    windows = len(prepared.offsets)
    return prepared, [({name: value[w] for name, value in prepared.encoding.items()}, None) for w in range(windows)]


def _qa_forward(model, inputs: dict, rows: list[_Row]) -> list:
    starts, ends = qa.forward(model, inputs)  # each (B, T)
    return list(zip(_per_token(starts, rows), _per_token(ends, rows), strict=True))


def _qa_postprocess(loaded, tokenizer, model, arguments: dict, prepared, outputs: list):
    starts = np.stack([start.float().cpu().numpy() for start, _ in outputs])  # (windows, T)
    ends = np.stack([end.float().cpu().numpy() for _, end in outputs])
    return qa.postprocess(prepared, starts, ends, arguments["n_best"], loaded.model_id)


def _next_sentence_preprocess(loaded, tokenizer, model, arguments: dict):
    inputs = next_sentence.preprocess(loaded, tokenizer, model, arguments["first"], arguments["second"])
    return inputs, [(_one(inputs), None)]


def _next_sentence_postprocess(loaded, tokenizer, model, arguments: dict, inputs, outputs: list):
    return next_sentence.postprocess(tokenizer, arguments["first"], arguments["second"], inputs, outputs[0],
                                     loaded.model_id)


# each forward is looked up in its module when called, so the module's own (or a test's stand-in) is the one run
_TASKS = {
    "fill_mask": _Task("encoder", fill_mask.fill_mask, _fill_mask_preprocess, _fill_mask_forward,
                       _fill_mask_postprocess, _fill_mask_check),
    "classify": _Task("sentiment", classify.classify, _classify_preprocess,
                      lambda model, inputs, rows: _per_sequence(classify.forward(model, inputs), rows),
                      _classify_postprocess),
    "recognize_entities": _Task("ner", entities.recognize_entities, _entities_preprocess,
                                lambda model, inputs, rows: _per_token(entities.forward(model, inputs), rows),
                                _entities_postprocess, _entities_check),
    "answer": _Task("qa", qa.answer, _qa_preprocess, _qa_forward, _qa_postprocess),
    "next_sentence": _Task("encoder", next_sentence.next_sentence, _next_sentence_preprocess,
                           lambda model, inputs, rows: _per_sequence(next_sentence.forward(model, inputs), rows),
                           _next_sentence_postprocess),
}
