"""The decoding engine: one per decoder model, decoding every running greedy or sampling request in one batch.

A request joins at the next step (its prompt is run once, then its rows are added to the batch's KV
cache, left-padded to a common length) and leaves as soon as it is finished, stopped or out of time.
Each step is one forward pass of the whole batch on the model's own KV cache; each request then picks
its tokens with transformers' own logits processors and, when sampling, its own `torch.Generator`, so
its tokens do not depend on who else is in the batch. Each chosen token's probability and rank come
from the step's logits. Consumers see the engine through `Handle` (iterate it for updates, `cancel()`
it), which works the same from a thread or an event loop.

Why not transformers' `ContinuousBatchingManager` (measured in `bench/continuous_batching.py`): its
greedy tokens are right, and a running, tuned manager is as fast as one padded `generate` batch (its
defaults size the cache from 60% of RAM and are 4x slower), but the tabs need what it lacks: per-request
seeds (it seeds the process-wide generator), repetition penalty and no-repeat n-grams (dropped; the
n-gram processor sees no history), `do_sample` per request, each step's logits for the probability and
rank of the chosen token (it returns only a log-probability after the processors), and a final result
for a cancelled request (its stream never ends). This engine is a few hundred lines on the model's own
forward and `DynamicCache`.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from functools import partial

from bg_demo import config
from bg_demo.backend.generation.types import (
    Deferred,
    GenerationResult,
    GenerationSettings,
    Handle,
    Request,
    TokenInfo,
    prompt_ids,
)
from bg_demo.config import LIMITS
from bg_demo.tokens import display_tail, display_tokens, own_label

log = logging.getLogger(__name__)


class Tokens:
    """A request's rows as its consumer reads them. The engine's thread appends one entry a step (the step's token
    ids, probabilities, ranks and which rows were still running, plain lists of this request's rows); the consumer
    turns them into each row's `TokenInfo`s, labelled as `display_tokens` labels the row (`relabel_newest`), when it
    builds an update. So the engine's thread does nothing per row but slice the step's lists: labelling a token and
    making its record (~33 us a row) is the consumer's, for the updates it takes."""

    def __init__(self, rows: int, tokenizer) -> None:
        self.rows, self.tokenizer = rows, tokenizer
        self.steps: list[tuple[list, list, list, list]] = []  # appended by the engine's thread only
        self._labelled: list[list[TokenInfo]] = [[] for _ in range(rows)]
        self._read = 0  # steps turned into `_labelled`
        self._lock = threading.Lock()  # a consumer's builds, and a late one of an older update

    def add(self, ids: list, probabilities: list, ranks: list, running: list) -> None:
        self.steps.append((ids, probabilities, ranks, running))

    def upto(self, steps: int) -> tuple[tuple[TokenInfo, ...], ...]:
        """Each row's tokens after the first `steps` steps (the list only grows: a snapshot names its length)."""
        with self._lock:
            for ids, probabilities, ranks, running in self.steps[self._read : steps]:
                for i, row in enumerate(self._labelled):
                    if running[i]:
                        row.append(TokenInfo("", int(ids[i]), probabilities[i], int(ranks[i])))
                        relabel_newest(row, self.tokenizer)
            self._read = max(self._read, steps)
            if steps == self._read:
                return tuple(tuple(row) for row in self._labelled)
            # an older update built after a newer one: its rows as they were then (labels settle within 3 tokens,
            # so the cut row is labelled again)
            counts = [sum(1 for step in self.steps[:steps] if step[3][i]) for i in range(self.rows)]
            return tuple(tuple(_labels(row[:count], self.tokenizer)) for row, count in zip(self._labelled, counts))


def _labels(row: list[TokenInfo], tokenizer) -> list[TokenInfo]:
    labels = display_tokens(tokenizer, [info.token_id for info in row])
    return [replace(info, token=label) for info, label in zip(row, labels)]


@dataclass(eq=False)
class _Running:
    """One request inside the engine: its rows of the batch, and what it has made so far."""

    request: Request
    handle: Handle
    base: GenerationResult  # the empty result, filled in at each step
    ids: object  # (n, T) long tensor: prompt and new tokens, what the logits processors read (None without any)
    processors: object  # a LogitsProcessorList
    generator: object  # torch.Generator when sampling, else None
    started: float  # time.monotonic() when it started running
    unfinished: object  # (n,) long tensor on the device: 1 while a row has not made its end-of-text token
    tokens: Tokens  # per step, the rows' new tokens (labelled by the consumer)
    running_rows: list[bool] = field(default_factory=list)  # `unfinished` on the host, as of the last step
    steps: int = 0
    published: int = -1  # `steps` when the consumer was last sent a snapshot

    @property
    def rows(self) -> int:
        return self.tokens.rows

    def why_stopped(self) -> str:
        """Why it must stop now, or "" to go on; checked after each new token, like `generate`'s criteria."""
        if self.running_rows and not any(self.running_rows):
            return "end of text"
        if self.steps >= self.request.settings.max_new_tokens:
            return "max new tokens"
        if self.handle.cancelled.is_set():
            return "stopped"
        if time.monotonic() - self.started >= LIMITS.generation_seconds:
            return "time budget"
        return ""


def logits_processors(settings: GenerationSettings):
    """The processors `generate` builds for these settings, in its order (repetition controls, then the
    sampling warpers: temperature, top-k, top-p)."""
    from transformers import (
        LogitsProcessorList,
        NoRepeatNGramLogitsProcessor,
        RepetitionPenaltyLogitsProcessor,
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    processors = LogitsProcessorList()
    if settings.repetition_penalty != 1.0:
        processors.append(RepetitionPenaltyLogitsProcessor(settings.repetition_penalty))
    if settings.no_repeat_ngram_size:
        processors.append(NoRepeatNGramLogitsProcessor(settings.no_repeat_ngram_size))
    if settings.do_sample:
        if settings.temperature != 1.0:
            processors.append(TemperatureLogitsWarper(settings.temperature))
        if settings.top_k:
            processors.append(TopKLogitsWarper(top_k=settings.top_k))
        if settings.top_p < 1.0:
            processors.append(TopPLogitsWarper(top_p=settings.top_p))
    return processors


class DecodingEngine:
    """Batches every running request of one decoder model; a daemon thread does all the model work. Once closed
    (its model was unloaded) the thread ends as soon as no request waits or runs; a late request starts it again."""

    def __init__(self, loaded, max_rows: int | None = None, graphs: bool | None = None) -> None:
        self.loaded = loaded
        self.max_rows = max_rows or config.batch_rows(loaded.device)
        self.graphs = config.cuda_graphs() if graphs is None else graphs  # on CUDA: the step as a CUDA graph
        self._pending: deque[tuple[Request, Handle]] = deque()
        self._wake = threading.Condition()
        self._running: list[_Running] = []
        self._thread: threading.Thread | None = None
        self._closed = False
        # the batch (`static.StaticBatch`, made on first use): row i belongs to the request whose rows cover i, in
        # `_running` order
        self._batch = None

    def submit(self, request: Request) -> Handle:
        handle = Handle()
        with self._wake:
            if self._pending or self.rows + request.settings.num_return_sequences > self.max_rows:
                handle.put(request.started(self.loaded.model_id, waiting=len(self._pending) + 1))
            self._pending.append((request, handle))
            if self._thread is None:
                # in the context of the call that started it: one placed on a ZeroGPU Space's CPU keeps that placement
                # (`placement.on_cpu`) in the thread that runs its model
                self._thread = threading.Thread(target=contextvars.copy_context().run, args=(self._loop,),
                                                name="bg-demo-engine", daemon=True)
                self._thread.start()
            self._wake.notify()
        return handle

    def close(self) -> None:
        """Let the thread end once idle, and with it the engine's hold on the model. Never blocks: it sets a flag
        and wakes the thread (the condition's lock is only ever held for bookkeeping, never over a model call)."""
        with self._wake:
            self._closed = True
            self._wake.notify()

    @property
    def rows(self) -> int:
        return sum(running.rows for running in self._running)

    def _loop(self) -> None:
        while True:
            try:
                if not self._turn():
                    return
            except BaseException as exc:  # noqa: BLE001 - the engine must outlive any one request
                log.exception("the decoding engine failed; its running requests get the error")
                for running in self._running:
                    running.handle.put(exc)
                self._running, self._batch = [], None

    def _turn(self) -> bool:
        """Admit who waits (as many as fit), then one step of the batch; False when closed with nothing to do."""
        with self._wake:
            while not self._pending and not self._running:
                if self._closed:
                    self._thread = None  # the next submit (a request that still held the engine) starts another
                    return False
                self._wake.wait()
            arrivals = self._admissible()
        if arrivals:
            try:
                self._admit(arrivals)
            except BaseException as exc:  # noqa: BLE001 - the engine must outlive any one request
                # e.g. the device refused the turn: arrivals taken from `_pending` but not yet running get the
                # error here (`_loop` reaches only the running ones), or their consumers would wait for ever
                log.exception("admitting new requests failed; they get the error")
                running = {id(running.handle) for running in self._running}
                for _, handle in arrivals:
                    if id(handle) not in running and not handle.ended:
                        handle.put(exc)
        if self._running:
            self._step()
        return True

    def _admissible(self) -> list[tuple[Request, Handle]]:  # under self._wake
        """Take from the waiting requests as many as fit, in turns: each pass over the waiting list admits at most
        one request per client, and a client past its share (`LIMITS.client_rows` rows) gets more only while nobody
        else waits and as many rows stay free for whoever comes next, so one client's ten 5-sequence requests cannot
        fill the batch ahead of a student's one. A request too big for the
        batch runs on its own. Cancelled waiting requests end here without having run."""
        arrivals, free = [], self.max_rows - self.rows
        held = Counter()
        for running in self._running:
            held[running.request.client] += running.rows
        admitted_one = True
        while self._pending and admitted_one:
            admitted_one, turn = False, set()
            for item in list(self._pending):
                request, handle = item
                if handle.cancelled.is_set():
                    self._pending.remove(item)
                    handle.put(request.started(self.loaded.model_id, done=True, stopped="stopped"))
                    continue
                wanted, client = request.settings.num_return_sequences, request.client
                over_share = held[client] and held[client] + wanted > LIMITS.client_rows
                if over_share and (free - wanted < LIMITS.client_rows  # keep room for the next student to come
                                   or any(other.client != client for other, _ in self._pending)):
                    continue
                if client in turn:
                    continue
                if wanted > free and (arrivals or self._running):
                    return arrivals  # first come, first served for room in the batch: no one overtakes it
                self._pending.remove(item)
                arrivals.append(item)
                turn.add(client)
                held[client] += wanted
                free -= wanted
                admitted_one = True
        return arrivals

    def _admit(self, arrivals: list[tuple[Request, Handle]]) -> None:
        """Run the new prompts (in left-padded groups), pick their first tokens, and add their rows to the batch."""
        started = time.monotonic()
        with self.loaded.use(batch=True) as (tokenizer, model):
            limit = getattr(model.config, "n_positions", None) or model.config.max_position_embeddings
            prompts = []
            for request, handle in arrivals:
                try:
                    ids = prompt_ids(tokenizer, request.prompt, limit, request.settings.max_new_tokens)
                except BaseException as exc:  # noqa: BLE001 - the request's consumer raises it
                    handle.put(exc)
                    continue
                prompts.append((request, handle, ids))
            for group in _groups(prompts):
                try:
                    self._prefill(group, tokenizer, model, started)
                except BaseException as exc:  # noqa: BLE001 - the group's consumers raise it
                    log.exception("prefill failed")
                    for _, handle, _ in group:
                        handle.put(exc)
            self._publish(tokenizer)

    def _prefill(self, group, tokenizer, model, started: float) -> None:
        import torch
        from transformers import DynamicCache

        from bg_demo.backend.generation.static import StaticBatch

        device, eos = self.loaded.device, tokenizer.eos_token_id
        rows = [ids for request, _, ids in group for _ in range(request.settings.num_return_sequences)]
        width = max(len(ids) for ids in rows)
        ids = torch.tensor([[eos] * (width - len(row)) + row for row in rows], device=device)  # (R, T) left-padded
        mask = torch.tensor([[0] * (width - len(row)) + [1] * len(row) for row in rows], device=device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)  # each row counts from its own first token, as generate does
        cache = DynamicCache(config=model.config)
        with torch.inference_mode():
            logits = model(
                input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=cache, use_cache=True,
                logits_to_keep=1,
            ).logits[:, -1]
        runnings = []
        for request, handle, prompt in group:
            settings, n = request.settings, request.settings.num_return_sequences
            generator = None
            if settings.do_sample:
                generator = torch.Generator(device=device).manual_seed(settings.seed)
            processors = logits_processors(settings)
            runnings.append(_Running(
                request, handle, request.started(self.loaded.model_id),
                torch.tensor([prompt] * n, device=device) if processors else None,
                processors, generator, started, torch.ones(n, dtype=torch.long, device=device), Tokens(n, tokenizer),
            ))
        logits = logits.float()
        lse = logits.logsumexp(-1)
        top, best = logits.max(-1)
        chosen = self._choose(runnings, logits, best, (top - lse).exp(), lse, tokenizer)
        if self._batch is None:
            self._batch = StaticBatch(model, device, self.max_rows, self.graphs)
        self._batch.join(cache, mask, chosen)
        self._running.extend(runnings)

    def _step(self) -> None:
        """One forward pass of the whole batch, one token for every row, then out with the finished."""
        import torch

        with self.loaded.use(batch=True) as (tokenizer, _):
            logits, best, probability, lse = self._batch.step()
            with torch.inference_mode():
                self._batch.advance(self._choose(self._running, logits, best, probability, lse, tokenizer))
            self._publish(tokenizer)

    def _choose(self, runnings: list[_Running], logits, best, best_probability, lse, tokenizer):
        """Each request's next tokens from its rows of `logits` (B, V), as `generate` picks them; records each
        token's probability and rank under the model. `best`, `best_probability` and `lse` (B,): the greedy choice,
        its probability and the logits' log-sum-exp, computed with the logits (in the step's graph on CUDA), so a
        class of plain greedy rows costs no operation per request here. Returns the (B,) chosen ids."""
        import torch

        eos = tokenizer.eos_token_id
        own = [(i, running) for i, running in enumerate(runnings) if running.processors or running.generator is not None]
        picked, probabilities, ranks = best, best_probability, None
        if own:
            starts = [0]
            for running in runnings:
                starts.append(starts[-1] + running.rows)
            picked = best.clone()
            for i, running in own:
                rows = slice(starts[i], starts[i + 1])
                scores = running.processors(running.ids, logits[rows].clone()) if running.processors else logits[rows]
                if running.generator is not None:
                    picked[rows] = torch.multinomial(scores.softmax(-1), 1, generator=running.generator).squeeze(1)
                else:
                    picked[rows] = scores.argmax(-1)
            picked_logits = logits.gather(1, picked[:, None])  # (B, 1)
            probabilities = (picked_logits[:, 0] - lse).exp()
            ranks = (logits > picked_logits).sum(-1) + 1
        was_running = torch.cat([running.unfinished for running in runnings])
        picked = picked * was_running + eos * (1 - was_running)  # finished rows pad, as in generate  (B,)
        still = was_running * (picked != eos).long()
        # the step's one copy to the host: what the stream shows (token, probability, rank) and which rows go on;
        # float32 holds token ids exactly (below 2**24) and runs on every device (MPS has no float64). The greedy
        # choice is the best token: its rank is 1.
        ranks = torch.ones_like(probabilities) if ranks is None else ranks
        ids, probabilities, ranks, was_running_rows, still_running = torch.stack(
            [picked.float(), probabilities.float(), ranks.float(), was_running.float(), still.float()]
        ).tolist()
        row = 0
        for running in runnings:
            rows = slice(row, row + running.rows)
            running.tokens.add(ids[rows], probabilities[rows], ranks[rows], was_running_rows[rows])
            if running.processors:  # only they read the history; a greedy row's would be one more op per step
                running.ids = torch.cat([running.ids, picked[rows, None]], dim=1)
            running.unfinished = still[rows]
            running.running_rows = still_running[rows]
            running.steps += 1
            row += running.rows
        return picked

    def _publish(self, tokenizer) -> None:
        """Send every request its snapshot; the finished ones leave the batch."""
        keep, finished, row = [], [], 0
        for running in self._running:
            stopped = running.why_stopped()
            if stopped or running.published != running.steps:
                running.published = running.steps
                running.handle.put(snapshot(running, tokenizer, stopped))
            (finished if stopped else keep).append((running, range(row, row + running.rows)))
            row += running.rows
        if finished:
            self._running = [running for running, _ in keep]
            self._leave([i for _, rows in keep for i in rows])

    def _leave(self, keep: list[int]) -> None:
        """Keep only the rows `keep` of the batch. An empty batch on a CPU gives its buffers back (no graph holds
        them there)."""
        self._batch.leave(keep)
        if not keep and not self._batch.graphs:
            self._batch = None


def _groups(prompts, budget: int = 2048):
    """Prompts in groups for prefill, shortest first, each group's padded size at most `budget` tokens
    (so one long prompt is not padded onto many short ones)."""
    group, rows = [], 0
    for item in sorted(prompts, key=lambda item: len(item[2])):
        n = item[0].settings.num_return_sequences
        if group and (rows + n) * len(item[2]) > budget:
            yield group
            group, rows = [], 0
        group.append(item)
        rows += n
    if group:
        yield group


def relabel_newest(tokens: list[TokenInfo], tokenizer, n: int = 4) -> None:
    """Label the newest tokens of a row as `display_tokens` labels the whole row. A new token can complete a
    character begun up to 3 tokens before it (4 bytes at most), changing their labels ([0xEB] becomes
    나[1/3]); older labels are final, so streaming and the finished result show the same.

    A new token holding whole characters (most of them) cannot continue one left open before it: then no earlier
    label changes and the new one is its `own_label`, one lookup (labelling the tail each time was a tenth of the
    engine's thread at 32 rows of a small model)."""
    label = own_label(tokenizer, tokens[-1].token_id)
    if label is not None:
        if tokens[-1].token != label:
            tokens[-1] = replace(tokens[-1], token=label)
        return
    labels = display_tail(tokenizer, [info.token_id for info in tokens[-(n + 3) :]], min(n, len(tokens)))
    for k, label in zip(range(len(tokens) - len(labels), len(tokens)), labels):
        if tokens[k].token != label:
            tokens[k] = replace(tokens[k], token=label)


def snapshot(running: _Running, tokenizer, stopped: str) -> Deferred:
    """The request's result as of now, built when its consumer takes it (`Deferred`): the engine's thread only notes
    how many steps it holds (the consumer labels the rows' tokens, `Tokens.upto`)."""
    return Deferred(partial(_result, running.base, running.tokens, running.steps, time.monotonic() - running.started,
                            stopped, tokenizer), bool(stopped))


def _result(base: GenerationResult, tokens: Tokens, steps: int, seconds: float, stopped: str,
            tokenizer) -> GenerationResult:
    # in the consumer's thread, outside the device's turn: a fast tokenizer's `decode` keeps the interpreter lock
    # throughout, so it never meets another thread's change of the tokenizer's settings half-way (decodes in 4
    # threads against encodes switching truncation on and off, 85,000 of them in 8 s, raised nothing)
    generated = tokens.upto(steps)
    rows = [[info.token_id for info in row] for row in generated]
    return replace(
        base, texts=tuple(tokenizer.decode(ids, skip_special_tokens=True) for ids in rows), generated=generated,
        seconds=seconds, done=bool(stopped), stopped=stopped,
        ended=tuple(bool(ids) and ids[-1] == tokenizer.eos_token_id for ids in rows),
    )


def engine_for(loaded) -> DecodingEngine:
    """The one engine of a loaded decoder model, kept with the model (`LoadedModel.attached`): made on first use,
    closed when the store unloads the model, so the model's memory is freed once its last request is done."""
    return loaded.attached("engine", DecodingEngine)
