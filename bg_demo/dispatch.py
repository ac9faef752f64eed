"""The call table's entries and the dispatcher: each backend call runs here, in a ZeroGPU worker, or on the model tier.

The backend registers every function that reads a model (`dispatched`): an `Entry` says its name, the function, the
roles whose models it reads, its kind and so its duration rule, and how it crosses (a stream, a batched BERT task).
`bg_demo.backend.CALLS` is the table, by name. A call of a registered function is an ordinary call in this process,
except where `bg_demo.placement` says otherwise:
- on ZeroGPU it crosses to a GPU worker with its entry (`placement.gpu_call`), after the models it reads are loaded
  here (ZeroGPU packs what is placed on "cuda" in this process and moves it into each worker); a generation is one
  streaming call, ended by Stop or a closed tab; the worker's duration comes from the request (`Entry.duration`);
- a front end with a model tier sends it to the tier (`bg_demo.cluster.client.Tier`), which names it by `Entry.name`.
A student's error crosses back as a value (`Failed`) and is raised here, with its class and its words.

It imports nothing of the backend (which imports it): what it needs of a generation the entry carries (`Generation`).
"""

from __future__ import annotations

import functools
import inspect
import logging
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from bg_demo import config, models, placement
from bg_demo.errors import BgDemoError, ModelUnavailableError

log = logging.getLogger(__name__)

# Seconds a call asks ZeroGPU for (`duration`), in whole seconds (spaces reads `timedelta.seconds`). ZeroGPU takes from
# the visitor's daily quota the time a call really held its GPU, but refuses a call whose *declared* duration is more
# than the visitor has left, and may abort one that runs past it (spaces 0.51 warns then). So a duration is the most
# the call may need, and no more: an anonymous visitor has 120 s a day, and the guided path's 10 calls declare 52 s
# (78 s where ZeroGPU scales a request by 1.5, on its RTX PRO 6000 nodes), so a student gets through it even if every
# call used all it declared (bench/zerogpu_lesson.py; docs/gpu.md, "What a lesson costs").
# A call uses a worker's start plus its compute. The start: ZeroGPU reuses an idle worker (nothing to start) or forks
# one, which creates its CUDA context and moves in the weights placed at start-up (the five defaults, ~1.9 GB on the
# GPU: well under a second at an H100's or H200's copy rate); we expect 1-2 s for a cold one (not measured: no GPU
# was at hand) and allow twice that. The CPU stand-in (2 shared vCPUs, tiny models, the same bench) runs a call that
# does nothing in 0.03-0.11 s from fork to exit, a task in 0.05-0.6 s (2.3 s once, under load), the whole guided path
# in 1.0-5.2 s: a fork, not a GPU, so a floor, not a figure to budget on. The compute: a forward pass of a 110-124M
# model over 512 tokens takes milliseconds on a GPU, an explanation's ~36 passes with gradients under a second; each
# is allowed seconds, scaled by the parameters of the models the call reads (`size`: gpt2-medium and bert-large
# ~2.8x, a compare both roles' models). A generation's step is latency-bound on a GPU (~10-25 ms from GPT-2 to
# gpt2-medium in eager PyTorch): 40 ms per new token of every row, never past the engine's LIMITS.generation_seconds,
# after which it stops itself.
START_SECONDS = 4  # a cold worker's start, in every duration
CALL_SECONDS = 5  # a task on a base-size model: the start and 1 s of passes
EXPLAIN_SECONDS = 8  # an explanation on a base-size model: the start and 4 s for its ~36 passes with gradients
GENERATION_START_SECONDS = START_SECONDS  # a generation: the start, then its tokens
GENERATION_SECONDS_PER_TOKEN = 0.04  # per new token of every row (sequences and beams count): gpt2-medium's step x2
# A fine-tuning run (`bg_demo.backend.finetune`): per step of a base-size model, forward and backward over a batch of
# up to 32 sentences of up to 128 tokens (~8 forward passes' work; milliseconds on a GPU, allowed 0.1 s), and its
# evaluations (at most 11 passes over both tables); never past TRAINING_MOST_SECONDS, scaled by `size`
TRAINING_SECONDS_PER_STEP = 0.1
TRAINING_EVALUATION_SECONDS = 2
TRAINING_MOST_SECONDS = 60
BASE_PARAMETERS = 125_000_000  # a base-size model (bert-base, GPT-2): the compute allowances above are for one

# What a call is, which decides its duration and where it runs:
# "task": a few forward passes (a BERT task, attention, the logit lens, Compare): CALL_SECONDS, scaled by `size`;
# "explain": an attribution, ~36 passes with gradients: EXPLAIN_SECONDS, scaled by `size`;
# "generation": decoding, by new tokens and rows (`Entry.generation` reads its settings from its arguments);
# "training": a fine-tuning run, streamed, by its steps (`Entry.training` reads them from its arguments);
# "store": a question to the model store (what is loaded, its bytes): asked where the models are, never of a GPU.
Kind = Literal["task", "explain", "generation", "training", "store"]
KINDS = ("task", "explain", "generation", "training", "store")
STREAMING = ("generation", "training")

# The roles whose models a call reads: names, or a function of the call's arguments giving (role, model id or None
# for the role's own) for each model.
Roles = tuple[str, ...] | Callable[..., list[tuple[str, str | None]]]


@dataclass(frozen=True)
class Failed:
    """An error the student can act on (an InputError, a model that cannot load), crossing back as a value from a
    GPU worker or a model-tier replica: ZeroGPU passes only gradio's own errors through, and would show any other as
    "ZeroGPU worker error"; here it is raised again with its class and its words."""

    error: BaseException


@dataclass(frozen=True)
class Generation:
    """What the dispatcher needs of a generation, given by the backend (never imported here): a call's
    `GenerationSettings` from its arguments, a fresh `Handle` for a stream's updates, and the final result of a
    stream stopped before its worker sent one (`bg_demo.backend.generation.settings_of`, `Handle`, `stopped`)."""

    settings: Callable[[tuple, dict], Any]  # (args, kwargs) -> GenerationSettings
    handle: Callable[[], Any]  # () -> Handle
    stopped: Callable[[Any, tuple, dict], Any]  # (last update or None, args, kwargs) -> the final, stopped result


@dataclass(frozen=True)
class Training:
    """What the dispatcher needs of a fine-tuning run, given by the backend: a call's steps from its arguments, a fresh
    `Handle`, and the final result of a run stopped before its worker sent one (`bg_demo.backend.finetune`)."""

    steps: Callable[[tuple, dict], int]  # (args, kwargs) -> the steps the run asks for
    handle: Callable[[], Any]
    stopped: Callable[[Any, tuple, dict], Any]


@dataclass(frozen=True)
class Entry:
    """One backend function in the call table. Crosses to a GPU worker by pickle, so its functions are module-level."""

    name: str  # the backend's name for it: how the model tier's replicas and the table know it
    function: Callable  # the backend function itself: what runs where the models are
    kind: Kind
    roles: Roles = ()
    streams: bool = False  # returns a `Handle` whose updates cross one by one (a generation that streams)
    # a BERT task's batch runner, `(name, [(args, kwargs)]) -> [result or BgDemoError]` (`bg_demo.backend.batch.run`):
    # the model tier batches the task across front ends, this process across its own concurrent calls (`Batcher`)
    batched: Callable | None = None
    remember_yes: bool = False  # a front end keeps a yes from the tier (asked before every request, for a notice)
    generation: Generation | None = None  # for a generation: what its arguments and its stream are
    training: Training | None = None  # for a fine-tuning run: its steps and its stream

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: no kind {self.kind!r}; one of {', '.join(KINDS)}")
        if (self.kind == "generation") != (self.generation is not None):
            raise ValueError(f"{self.name}: a generation, and only a generation, says what its arguments are")
        if (self.kind == "training") != (self.training is not None):
            raise ValueError(f"{self.name}: a fine-tuning run, and only one, says what its steps are")
        if self.streams and self.kind not in STREAMING:
            raise ValueError(f"{self.name}: only a generation or a fine-tuning run streams")

    @property
    def stream(self) -> Generation | Training | None:
        """What a streaming call's updates go into (`handle`) and how a stopped one ends (`stopped`)."""
        return self.generation or self.training

    def models_read(self, args: tuple, kwargs: dict) -> list[tuple[str, str | None]]:
        """(role, model id or None for the role's own) of each model a call reads."""
        if callable(self.roles):
            return self.roles(*args, **kwargs)
        return [(role, kwargs.get("model_id")) for role in self.roles]

    def duration(self, args: tuple, kwargs: dict) -> int:
        """Whole seconds to ask ZeroGPU for one call (see the constants above): the start, and the compute its request
        needs: a task's or an explanation's by the size of the models it reads, a generation's by its new tokens and
        rows, capped by the engine's time budget."""
        if self.kind == "generation":
            settings = self.generation.settings(args, kwargs)
            rows = max(settings.num_return_sequences, settings.num_beams)
            tokens = GENERATION_SECONDS_PER_TOKEN * settings.max_new_tokens * rows
            return _whole(GENERATION_START_SECONDS + min(tokens, config.LIMITS.generation_seconds))
        if self.kind == "store":
            raise ValueError(f"{self.name} asks the model store: it never runs on a GPU")
        if self.kind == "training":
            compute = TRAINING_SECONDS_PER_STEP * self.training.steps(args, kwargs) + TRAINING_EVALUATION_SECONDS
            return _whole(START_SECONDS + min(compute * size(self, args, kwargs), TRAINING_MOST_SECONDS))
        whole = EXPLAIN_SECONDS if self.kind == "explain" else CALL_SECONDS
        return _whole(START_SECONDS + (whole - START_SECONDS) * size(self, args, kwargs))

    def run(self, args: tuple, kwargs: dict):
        """Where the models are (a GPU worker): the call's result, or each update of a stream; a student's error as a
        `Failed` value."""
        try:
            if self.streams:
                yield from self.function(*args, **kwargs)  # a Handle: leaving early (Stop) cancels the request
            else:
                yield self.function(*args, **kwargs)
        except BgDemoError as error:
            yield Failed(error)


def dispatched(name: str, function: Callable, kind: Kind, roles: Roles = (), **options) -> Callable:
    """`function` as the backend exports it under `name`: called here, on ZeroGPU in a GPU worker, or on the model
    tier (see the module's docstring). `options` are the rest of its `Entry`, which the result keeps as `.entry`."""
    entry = Entry(name, function, kind, roles, **options)

    @functools.wraps(function)
    def call(*args, **kwargs):
        return send(entry, args, kwargs)

    call.entry = entry
    return call


def send(entry: Entry, args: tuple, kwargs: dict):
    """One call of `entry`, run where this process's calls run."""
    if placement.in_worker():
        return entry.function(*args, **kwargs)
    tier = placement.tier()
    if tier is not None:
        return tier.stream(entry, args, kwargs) if entry.streams else tier.call(entry, args, kwargs)
    if not placement.zero_gpu() or entry.kind == "store":
        if entry.batched is not None:
            return batcher(entry).call(args, kwargs)
        return entry.function(*args, **kwargs)
    _load_models(entry, args, kwargs)
    if entry.streams:
        return _stream(entry, args, kwargs)
    *_, result = placement.gpu_call(entry, args, kwargs)
    return raised(result)


class Batcher:
    """This process's concurrent calls of one batched BERT task, run as one padded forward pass per model.

    The first caller leads: it waits for the device's turn (`models.DeviceTurn`), and whoever calls meanwhile joins
    it; with the turn, it takes every call waiting and runs them with the task's batch runner (`Entry.batched`), then
    hands each caller its own result (or raises its own error). A call made while the device is free runs at once,
    alone: batching adds no wait, it only gathers the calls that would have queued for the device anyway, and a
    caller who comes while a batch runs leads the next one. A class's forty sentiment requests cost one or a few
    passes, not forty turns between decoding steps.

    Written here rather than with Gradio's `batch=True`: that batches one event's calls only (a page, its API
    endpoint and the tutor's tool are three events), waits for a batch to fill, and hands the handler lists, where
    each page renders its own result in its reader's language; this batches every caller of the backend function,
    from any page, endpoint or thread."""

    def __init__(self, entry: Entry) -> None:
        self.entry, self._signature = entry, inspect.signature(entry.function)
        self._guard = threading.Lock()
        self._waiting: list[_Call] = []
        self._led = False  # a leader is waiting for the device's turn, and will take the calls waiting

    def call(self, args: tuple, kwargs: dict):
        self._signature.bind(*args, **kwargs)  # a wrong call is its own caller's TypeError
        mine, turn = _Call(args, kwargs), self._turn(args, kwargs)
        if turn is not None and turn.held:
            # called while this thread holds the device (inside another model call): alone, or it would wait for itself
            self._run([mine], None)
        else:
            with self._guard:
                self._waiting.append(mine)
                lead, self._led = not self._led, True
            if lead:
                self._run(None, turn)
            mine.done.wait()
        if isinstance(mine.result, BaseException):
            raise mine.result
        return mine.result

    def _run(self, calls: list[_Call] | None, turn: models.DeviceTurn | None) -> None:
        """Run `calls`, or (None) as the leader: with the device's `turn`, every call waiting; each gets its result."""
        def take() -> list[_Call]:
            with self._guard:
                taken, self._waiting, self._led = self._waiting, [], False
            return taken

        try:
            if turn is not None:
                turn.acquire()
            try:
                calls = calls if calls is not None else take()
                results = self.entry.batched(self.entry.name, [(call.args, call.kwargs) for call in calls])
            finally:
                if turn is not None:
                    turn.release()
        except BaseException as error:  # noqa: BLE001 - every caller of the batch raises it
            calls = calls if calls is not None else take()
            results = [error] * len(calls)
        for call, result in zip(calls, results, strict=True):
            call.result = result
            call.done.set()

    def _turn(self, args: tuple, kwargs: dict) -> models.DeviceTurn | None:
        """The turn of the device a call's model is on (loading it, if need be); None when it cannot load, which the
        batch runner then reports to its caller."""
        try:
            (role, model_id), *_ = self.entry.models_read(args, kwargs)
            return models.get(role, model_id).lock
        except BgDemoError:
            return None


@dataclass(eq=False)
class _Call:
    args: tuple
    kwargs: dict
    result: Any = None
    done: threading.Event = field(default_factory=threading.Event)


_BATCHERS: dict[str, Batcher] = {}
_BATCHERS_GUARD = threading.Lock()


def batcher(entry: Entry) -> Batcher:
    """The one `Batcher` of a batched entry in this process."""
    with _BATCHERS_GUARD:
        if _BATCHERS.get(entry.name) is None or _BATCHERS[entry.name].entry is not entry:
            _BATCHERS[entry.name] = Batcher(entry)
        return _BATCHERS[entry.name]


def raised(result):
    """A call's result as it came back from a worker or a replica: the result, or its `Failed` error raised."""
    if isinstance(result, Failed):
        raise result.error
    return result


def place_defaults() -> None:
    """On ZeroGPU, load every role's default model now, in the main process: ZeroGPU packs the weights placed on
    "cuda" at start-up and moves them into each worker, where a load inside a call would be slow and lost after it.
    A role whose model cannot load is logged; its tabs say why when used."""
    if not placement.zero_gpu():
        return
    for role in config.ROLES:
        try:
            models.get(role)
        except ModelUnavailableError:
            log.exception("the %s model could not be placed at start-up", role)


def _load_models(entry: Entry, args: tuple, kwargs: dict) -> None:
    """Load (in this process) the models a call will read, so a fresh worker finds them in memory."""
    for role, model_id in entry.models_read(args, kwargs):
        if role in models.MODEL_CLASSES:  # a role that is no role: the call itself says so, in the worker
            models.get(role, model_id)


def _stream(entry: Entry, args: tuple, kwargs: dict):
    """A generation on ZeroGPU: one streaming call of a worker, fed into a `Handle` by a thread of its own, so the
    consumer (a Gradio event loop) never waits on the worker. Cancelling the handle closes the call, which ends the
    request in the worker at its next token and gives the GPU back; the consumer's last update is then the newest
    one, marked stopped, as the engine ends a cancelled request."""
    handle = entry.stream.handle()

    def feed() -> None:
        last = None
        try:
            updates = placement.gpu_call(entry, args, kwargs)
            try:
                for update in updates:
                    handle.put(last := raised(update))
                    if handle.cancelled.is_set() or update.done:
                        break
            finally:
                updates.close()
            if last is None or not last.done:
                handle.put(entry.stream.stopped(last, args, kwargs))
        except BaseException as error:  # noqa: BLE001 - the consumer raises it
            handle.put(error)

    threading.Thread(target=feed, name="bg-demo-zerogpu-stream", daemon=True).start()
    return handle


def _whole(seconds: float) -> int:
    return math.ceil(round(seconds, 6))  # up, but 75 tokens x 0.04 s (3.0000000000000004) is 3 s


def size(entry: Entry, args: tuple, kwargs: dict) -> float:
    """The parameters of the models a call reads, in base-size models (1 at least): the named model, else the one its
    role serves (its Hub id, else the role's default model, whose size the app is meant to run)."""
    try:
        wanted = entry.models_read(args, kwargs)
    except TypeError:  # arguments the function will refuse itself, in the worker
        wanted = []
    parameters = 0
    for role, model_id in wanted:
        if not model_id and role in config.ROLES:
            served = config.settings().source(role)
            model_id = served if served in config.MODEL_INFO else config.DEFAULT_MODELS[role]
        info = config.MODEL_INFO.get(config.hub_id(model_id))
        parameters += info.parameters if info is not None else BASE_PARAMETERS
    return max(1.0, parameters / BASE_PARAMETERS)
