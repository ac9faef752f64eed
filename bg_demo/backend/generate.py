"""GPT-2 generation: greedy, beam search and sampling through `model.generate`, streamed token by token.

Every strategy is one set of `generate` arguments (see `generation_kwargs`), so what the app does is
exactly what transformers does. After generating, one forward pass over each sequence gives every new
token's probability and rank under the model (temperature 1, no filters): how surprised it was.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from bg_demo import models
from bg_demo.backend._common import Result, require_float, require_int, require_text, token_text
from bg_demo.config import LIMITS
from bg_demo.errors import InputError

STRATEGIES = ("greedy", "beam", "temperature", "top_k", "top_p")
SAMPLING = ("temperature", "top_k", "top_p")
# Seeded sampling draws from torch's global generator: one seeded draw at a time, across all models,
# each inside torch.random.fork_rng so the process's own random state is left as it was.
SAMPLING_LOCK = threading.Lock()


@dataclass(frozen=True)
class TokenInfo(Result):
    text: str  # the token decoded on its own (no byte-level artefacts)
    token_id: int
    probability: float  # under the model, before temperature or filters
    rank: int  # 1 = the model's most likely token at that step


@dataclass(frozen=True)
class BeamStep(Result):
    step: int  # new tokens so far
    beams: tuple[tuple[str, float], ...]  # (text generated so far, cumulative log-probability), best first


@dataclass(frozen=True)
class GenerationResult(Result):
    prompt: str
    strategy: str
    texts: tuple[str, ...]  # the continuations, without the prompt
    tokens: tuple[tuple[TokenInfo, ...], ...]  # per continuation; filled in when done
    beam_steps: tuple[BeamStep, ...]  # beam search only: the beams kept at each step
    seed: int | None  # the seed used (drawn at random when none was given), None when deterministic
    settings: dict  # the arguments passed to `model.generate`
    seconds: float
    done: bool  # False for the partial results of a stream
    stopped: str  # "end of text", "max new tokens", "time budget", or "" while streaming
    model_id: str


@dataclass(frozen=True)
class Request:
    prompt: str
    strategy: str
    kwargs: dict  # for model.generate
    seed: int | None


def generation_kwargs(
    strategy: str,
    max_new_tokens: int = 40,
    temperature: float = 1.0,
    top_k: int = 50,
    top_p: float = 0.9,
    num_beams: int = 4,
    num_return_sequences: int = 1,
    no_repeat_ngram_size: int = 0,
    repetition_penalty: float = 1.0,
) -> dict:
    """Validated `model.generate` arguments for a strategy; filters a strategy does not use are off."""
    if strategy not in STRATEGIES:
        raise InputError(f"Unknown strategy '{strategy}'. Pick one of: {', '.join(STRATEGIES)}.")
    kwargs = dict(
        max_new_tokens=require_int(max_new_tokens, "New tokens", 1, LIMITS.max_new_tokens),
        num_return_sequences=require_int(num_return_sequences, "Sequences", 1, LIMITS.max_sequences),
        no_repeat_ngram_size=require_int(no_repeat_ngram_size, "No-repeat n-gram size", 0, 10),
        repetition_penalty=require_float(repetition_penalty, "Repetition penalty", 1.0, 3.0),
        do_sample=strategy in SAMPLING,
        num_beams=1,
        max_time=LIMITS.generation_seconds,
    )
    if strategy == "beam":
        kwargs["num_beams"] = require_int(num_beams, "Beams", 2, LIMITS.max_beams)
        if kwargs["num_return_sequences"] > kwargs["num_beams"]:
            raise InputError("Beam search returns at most one sequence per beam: raise the beams or lower the sequences.")
    elif strategy == "greedy" and kwargs["num_return_sequences"] > 1:
        raise InputError("Greedy decoding always gives the same text: ask for one sequence, or pick a sampling strategy.")
    if strategy in SAMPLING:
        kwargs["temperature"] = require_float(temperature, "Temperature", 0.05, 5.0)
        kwargs["top_k"] = require_int(top_k, "Top-k", 1, 1000) if strategy == "top_k" else 0
        kwargs["top_p"] = require_float(top_p, "Top-p", 0.01, 1.0) if strategy == "top_p" else 1.0
    return kwargs


def prepare(prompt: str, strategy: str = "greedy", seed: int | None = None, **settings) -> Request:
    """Validate everything that needs no model."""
    prompt = "" if prompt is None else str(prompt)
    if prompt.strip():
        prompt = require_text(prompt, "prompt", LIMITS.max_prompt_chars)
    kwargs = generation_kwargs(strategy, **settings)
    if kwargs["do_sample"]:
        seed = random.randrange(2**31) if seed in (None, "") else require_int(seed, "Seed", 0, 2**31 - 1)
    else:
        seed = None
    return Request(prompt.strip(), strategy, kwargs, seed)


def prompt_ids(tokenizer, prompt: str, limit: int, new_tokens: int):
    """(1, T) ids of the prompt, or of the beginning-of-text token when the prompt is empty."""
    import torch

    ids = tokenizer(prompt, return_tensors="pt")["input_ids"] if prompt else torch.tensor([[tokenizer.bos_token_id]])
    if ids.shape[1] + new_tokens > limit:
        raise InputError(
            f"The prompt makes {ids.shape[1]} tokens and {new_tokens} new ones were asked for; "
            f"the decoder reads at most {limit}. Shorten the prompt or ask for fewer tokens."
        )
    return ids


def generate_stream(
    prompt: str,
    strategy: str = "greedy",
    max_new_tokens: int = 40,
    temperature: float = 1.0,
    top_k: int = 50,
    top_p: float = 0.9,
    num_beams: int = 4,
    num_return_sequences: int = 1,
    seed: int | None = None,
    *,
    no_repeat_ngram_size: int = 0,
    repetition_penalty: float = 1.0,
    model_id: str | None = None,
) -> Iterator[GenerationResult]:
    """Partial results while tokens arrive (sampling and greedy), then the finished result.

    An empty prompt starts from the beginning-of-text token. `seed` only matters when sampling."""
    request = prepare(
        prompt, strategy, seed, max_new_tokens=max_new_tokens, temperature=temperature, top_k=top_k,
        top_p=top_p, num_beams=num_beams, num_return_sequences=num_return_sequences,
        no_repeat_ngram_size=no_repeat_ngram_size, repetition_penalty=repetition_penalty,
    )
    yield from run(request, model_id=model_id)


def generate(prompt: str, strategy: str = "greedy", *args, **kwargs) -> GenerationResult:
    """Generate and return the finished result; the arguments are those of `generate_stream`."""
    *_, final = generate_stream(prompt, strategy, *args, **kwargs)
    return final


def run(request: Request, *, model_id: str | None = None) -> Iterator[GenerationResult]:
    """Yield partial results while tokens arrive (not for beam search), then the finished result.

    All model work happens in one worker thread that holds the model's lock from start to end: the
    caller may advance this generator from different threads (Gradio does), so no lock may be held
    across a `yield`. Abandoning the generator stops the generation at its next step."""
    loaded = models.get("decoder", model_id)
    updates: queue.Queue = queue.Queue()
    stop = threading.Event()
    worker = threading.Thread(target=_work, args=(loaded, request, updates, stop), name="bg-demo-generate", daemon=True)
    worker.start()
    try:
        while True:
            update = updates.get()
            if isinstance(update, BaseException):
                raise update
            yield update
            if update.done:
                return
    finally:
        stop.set()
        worker.join()


def _work(loaded, request: Request, updates: queue.Queue, stop: threading.Event) -> None:
    """Generate under the model's lock, putting partial results, then the final one (or the error), on `updates`."""
    import torch

    try:
        with loaded.use() as (tokenizer, model):
            limit = getattr(model.config, "n_positions", None) or model.config.max_position_embeddings
            ids = prompt_ids(tokenizer, request.prompt, limit, request.kwargs["max_new_tokens"]).to(loaded.device)
            partial = GenerationResult(
                request.prompt, request.strategy, (), (), (), request.seed, request.kwargs, 0.0, False, "",
                loaded.model_id,
            )
            started = time.perf_counter()

            def on_step(rows):
                texts = tuple(tokenizer.decode(row) for row in rows)
                updates.put(replace(partial, texts=texts, seconds=time.perf_counter() - started))

            kwargs = dict(
                request.kwargs,
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                pad_token_id=tokenizer.eos_token_id,
                stopping_criteria=[_StopOnEvent(stop)],
            )
            recorder = BeamRecorder(tokenizer, ids.shape[1])
            if request.kwargs["num_beams"] > 1:
                output = model.generate(**kwargs, logits_processor=[recorder])
            else:
                with seeded(request.seed):
                    output = model.generate(**kwargs, streamer=TokenStreamer(on_step))
            seconds = time.perf_counter() - started  # generation only, not the scoring pass below
            new = [_strip_padding(row, tokenizer.eos_token_id) for row in output[:, ids.shape[1] :].tolist()]
            tokens = token_probabilities(tokenizer, model, ids[0].tolist(), new, loaded.device)
            texts = tuple(tokenizer.decode(row) for row in new)
        stopped = _why_stopped(new, tokenizer.eos_token_id, request.kwargs, seconds)
        steps = tuple(recorder.steps)
        updates.put(replace(partial, texts=texts, tokens=tokens, beam_steps=steps, seconds=seconds, done=True, stopped=stopped))
    except BaseException as exc:  # noqa: BLE001 - handed to the consuming thread, which raises it
        updates.put(exc)


@contextmanager
def seeded(seed: int | None):
    """Run sampling from torch's global generator seeded with `seed` (nothing to do for None)."""
    import torch

    if seed is None:
        yield
        return
    with SAMPLING_LOCK, torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def _strip_padding(row: list[int], eos: int) -> list[int]:
    """Keep tokens up to and including the first end-of-text (finished sequences are padded with it)."""
    return row[: row.index(eos) + 1] if eos in row else row


def _why_stopped(rows, eos: int, kwargs: dict, seconds: float) -> str:
    if all(row and row[-1] == eos for row in rows):
        return "end of text"
    if max(len(row) for row in rows) >= kwargs["max_new_tokens"]:
        return "max new tokens"
    return "time budget" if seconds >= kwargs["max_time"] else "end of text"


def token_probabilities(tokenizer, model, prompt: list[int], rows: list[list[int]], device) -> tuple:
    """Per new token: its probability and rank under the model, from one forward pass per sequence."""
    import torch

    result = []
    with torch.inference_mode():
        for row in rows:
            if not row:
                result.append(())
                continue
            ids = torch.tensor([prompt + row], device=device)
            logits = model(ids).logits[0, len(prompt) - 1 : -1].float()  # (N new, V): the step before each token
            probs = logits.softmax(-1)
            chosen = probs[torch.arange(len(row)), torch.tensor(row)]
            ranks = (probs > chosen[:, None]).sum(-1) + 1
            result.append(
                tuple(
                    TokenInfo(token_text(tokenizer, t), t, float(p), int(r))
                    for t, p, r in zip(row, chosen.tolist(), ranks.tolist())
                )
            )
    return tuple(result)


class TokenStreamer:
    """A `generate` streamer that calls `on_step(rows)` after each step with every sequence's new ids so far."""

    def __init__(self, on_step):
        self.on_step = on_step
        self.rows: list[list[int]] | None = None  # None until generate has pushed the prompt

    def put(self, value) -> None:
        if self.rows is None:  # generate first pushes the prompt
            self.rows = []
            return
        step = value.reshape(-1).tolist()
        self.rows = [row + [token] for row, token in zip(self.rows or [[] for _ in step], step)]
        self.on_step(self.rows)

    def end(self) -> None:
        pass


class _StopOnEvent:
    """A stopping criterion that ends generation once the event is set."""

    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        return torch.full((input_ids.shape[0],), self.event.is_set(), dtype=torch.bool, device=input_ids.device)


class BeamRecorder:
    """A logits processor that watches beam search: at each step it sees the running beams and their
    next-token log-probabilities (after the other processors), from which each beam's cumulative
    log-probability follows. It changes nothing."""

    def __init__(self, tokenizer, prompt_length: int):
        self.tokenizer, self.prompt_length = tokenizer, prompt_length
        self.steps: list[BeamStep] = []
        self._previous = None  # (rows, log-probs (B, V), cumulative scores)

    def __call__(self, input_ids, scores):
        rows = [tuple(row) for row in input_ids[:, self.prompt_length :].tolist()]
        if self._previous is None:
            totals = [0.0] * len(rows)
        else:
            old_rows, old_scores, old_totals = self._previous
            parent = {row: i for i, row in enumerate(old_rows)}
            totals = [old_totals[parent[row[:-1]]] + float(old_scores[parent[row[:-1]], row[-1]]) for row in rows]
            beams = sorted({(self.tokenizer.decode(list(row)), total) for row, total in zip(rows, totals)}, key=lambda b: -b[1])
            self.steps.append(BeamStep(len(rows[0]), tuple(beams)))
        self._previous = (rows, scores.detach().float().cpu(), totals)
        return scores
