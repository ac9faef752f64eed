"""Beam search through `model.generate`, one request at a time per model, watched and stoppable between steps.

A `BeamRecorder` sits in the logits processors: first in the list it sees each running beam's
log-probabilities under the model (from which every chosen token's probability and rank follow, with
no second pass), last it sees them as beam search ranks them (for the cumulative scores the beam view
draws). Between steps it hands the device to whoever waits, and stops the search, keeping the best
beams so far, when the request is cancelled or out of time.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from bg_demo.backend.generation.types import BeamStep, GenerationResult, Handle, Request, TokenInfo, prompt_ids
from bg_demo.config import LIMITS
from bg_demo.tokens import display_tokens, readable_text


class Halt(Exception):
    """Raised inside `generate` to end a beam search early; `reason` is the result's `stopped`."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class BeamRecorder:
    """Watches beam search from inside `generate`; changes no score. Call order per step: `raw`, the
    repetition controls, then the recorder itself."""

    def __init__(self, tokenizer, prompt_length: int, on_step=lambda recorder: None):
        self.tokenizer, self.prompt_length, self.on_step = tokenizer, prompt_length, on_step
        self.steps: list[BeamStep] = []
        self.rows: list[tuple[int, ...]] = []  # the running beams' new tokens, as of the last step
        self.totals: list[float] = []  # their cumulative log-probabilities, as beam search ranks them
        self._chains: dict[tuple[int, ...], tuple[tuple[int, float, int], ...]] = {(): ()}  # row -> (id, p, rank)s
        self._eos: dict[tuple[int, ...], tuple[float, int]] = {}  # row -> (p, rank) of end-of-text after it
        self._raw_now = None  # (B, V) this step's log-probabilities under the model
        self._raw = None  # (rows, log-probs) of the step before
        self._scores = None  # (B, V) the step before's log-probabilities after the processors

    def raw(self, input_ids, scores):
        self._raw_now = scores.detach().float().clone()  # later processors may change scores in place
        return scores

    def __call__(self, input_ids, scores):
        rows = [tuple(row) for row in input_ids[:, self.prompt_length :].tolist()]
        if self._raw is not None:
            old_rows, old_raw = self._raw
            parent = {row: i for i, row in enumerate(old_rows)}
            for row in rows:
                if row not in self._chains:
                    self._chains[row] = self._chains[row[:-1]] + (_pick(old_raw[parent[row[:-1]]], row[-1]),)
            totals = [self.totals[parent[row[:-1]]] + float(self._scores[parent[row[:-1]], row[-1]]) for row in rows]
            beams = {(readable_text(self.tokenizer, row), total) for row, total in zip(rows, totals)}
            self.steps.append(BeamStep(len(rows[0]), tuple(sorted(beams, key=lambda beam: -beam[1]))))
        else:
            totals = [0.0] * len(rows)
        eos = self.tokenizer.eos_token_id
        for i, row in enumerate(rows):
            self._eos.setdefault(row, _pick(self._raw_now[i], eos)[1:])
        self.rows, self.totals = rows, totals
        self._raw, self._scores = (rows, self._raw_now), scores.detach().float().clone()
        self.on_step(self)
        return scores

    def best(self, n: int) -> list[tuple[int, ...]]:
        """The n running beams with the best cumulative scores."""
        order = sorted(range(len(self.rows)), key=lambda i: -self.totals[i])
        unique = list(dict.fromkeys(self.rows[i] for i in order))
        return unique[:n]

    def tokens(self, row: tuple[int, ...]) -> tuple[TokenInfo, ...]:
        """Each token of a beam (new tokens only, padding stripped) with its probability and rank."""
        if row in self._chains:
            picks = self._chains[row]
        elif row and row[-1] == self.tokenizer.eos_token_id and row[:-1] in self._eos:
            picks = self._chains[row[:-1]] + ((row[-1], *self._eos[row[:-1]]),)
        else:  # its last token was chosen at the final step, which no later call saw
            old_rows, old_raw = self._raw
            picks = self._chains[row[:-1]] + (_pick(old_raw[old_rows.index(row[:-1])], row[-1]),)
        labels = display_tokens(self.tokenizer, [t for t, _, _ in picks])  # as the engine's rows are labelled
        return tuple(TokenInfo(label, t, p, rank) for label, (t, p, rank) in zip(labels, picks))


def _pick(log_probs, token: int) -> tuple[int, float, int]:
    """(token, its probability, its rank) from one row of log-probabilities."""
    value = log_probs[token]
    return token, float(value.exp()), int((log_probs > value).sum()) + 1


def submit(loaded, request: Request) -> Handle:
    """Run a beam search in its own thread; see `engine.Handle`."""
    handle = Handle()
    threading.Thread(target=_run, args=(loaded, request, handle), name="bg-demo-beam", daemon=True).start()
    return handle


def _slot(loaded) -> threading.Lock:
    """The model's one beam search at a time (kept with the model, so it goes when the model goes)."""
    return loaded.attached("beam slot", lambda loaded: threading.Lock())


def _run(loaded, request: Request, handle: Handle) -> None:
    slot, base = _slot(loaded), request.started(loaded.model_id)
    try:
        if not slot.acquire(blocking=False):  # another beam search is running: wait, unless cancelled
            handle.put(replace(base, waiting=1))
            while not slot.acquire(timeout=0.1):
                if handle.cancelled.is_set():
                    handle.put(replace(base, done=True, stopped="stopped"))
                    return
        try:
            handle.put(_search(loaded, request, handle, base))
        finally:
            slot.release()
    except BaseException as exc:  # noqa: BLE001 - the request's consumer raises it
        handle.put(exc)


def _search(loaded, request: Request, handle: Handle, base: GenerationResult) -> GenerationResult:
    import torch
    from transformers import LogitsProcessorList, NoRepeatNGramLogitsProcessor, RepetitionPenaltyLogitsProcessor

    settings, started = request.settings, time.monotonic()

    def result(recorder, rows, **fields) -> GenerationResult:
        return replace(
            base, texts=tuple(recorder.tokenizer.decode(row, skip_special_tokens=True) for row in rows),
            generated=tuple(recorder.tokens(row) for row in rows), beam_steps=tuple(recorder.steps),
            seconds=time.monotonic() - started,
            ended=tuple(bool(row) and row[-1] == recorder.tokenizer.eos_token_id for row in map(list, rows)), **fields,
        )

    def between_steps(recorder: BeamRecorder) -> None:
        rows = recorder.best(settings.num_return_sequences)
        if recorder.steps:
            handle.put(result(recorder, rows))
        if handle.cancelled.is_set():
            raise Halt("stopped")
        if time.monotonic() - started >= LIMITS.generation_seconds:
            raise Halt("time budget")
        loaded.lock.pause()  # the decoding engine and the other tabs take their turns here

    with loaded.use() as (tokenizer, model):
        limit = getattr(model.config, "n_positions", None) or model.config.max_position_embeddings
        ids = prompt_ids(tokenizer, request.prompt, limit, settings.max_new_tokens)
        ids = torch.tensor([ids], device=loaded.device)
        recorder = BeamRecorder(tokenizer, ids.shape[1], between_steps)
        # the repetition controls go between the recorder's two halves, in generate's own order
        processors = [recorder.raw]
        if settings.repetition_penalty != 1.0:
            processors.append(RepetitionPenaltyLogitsProcessor(settings.repetition_penalty))
        if settings.no_repeat_ngram_size:
            processors.append(NoRepeatNGramLogitsProcessor(settings.no_repeat_ngram_size))
        kwargs = settings.generate_kwargs() | dict(no_repeat_ngram_size=0, repetition_penalty=1.0)
        try:
            with torch.inference_mode():
                output = model.generate(
                    input_ids=ids, attention_mask=torch.ones_like(ids), pad_token_id=tokenizer.eos_token_id,
                    logits_processor=LogitsProcessorList([*processors, recorder]), **kwargs,
                )
        except Halt as halt:
            return result(recorder, recorder.best(settings.num_return_sequences), done=True, stopped=halt.reason)
        eos = tokenizer.eos_token_id
        rows = [tuple(row[: row.index(eos) + 1] if eos in row else row) for row in output[:, ids.shape[1] :].tolist()]
        stopped = "end of text" if all(row and row[-1] == eos for row in rows) else "max new tokens"
        return result(recorder, rows, done=True, stopped=stopped)
