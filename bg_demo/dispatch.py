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

import contextlib
import contextvars
import functools
import inspect
import logging
import math
import os
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
# the call may need, and no more: an anonymous visitor has 120 s a day; with placement by cost (below) the guided
# path's two GPU calls declare 11 s (16 s where ZeroGPU scales a request by 1.5, on its RTX PRO 6000 nodes; 62 s
# with every call on the GPU), so a student gets through it even if every call used all it declared
# (bench/zerogpu_lesson.py; docs/gpu.md, "What a lesson costs").
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

# Placement by cost on ZeroGPU (`Entry.place`). A GPU call costs a student at least CALL_SECONDS of a daily quota of
# 120 (anonymous) and a worker's start; a task of a few forward passes on a base-size model costs 0.03-0.3 s on the
# two vCPUs of a CPU Space at the lengths a lesson uses (bench/zerogpu_placement.py, measured on such a machine). So a
# "task" runs on the Space's own CPU, on CPU copies of its models, when its text is at most CPU_CHARACTERS long (there
# the slowest, BERT's attention maps, took 1.4 s, the others 0.3-1.0 s) and its models at most
# base size (CPU_MOST_SIZE, multilingual BERT's larger vocabulary included: gpt2-medium and bert-large cost ~3x, and
# go to the GPU); the rest go to a GPU worker: prompting (every row of a task's tables), explanations (~36
# passes with gradients: seconds on a CPU), generations (a class decoding at once), fine-tuning, long inputs and big
# models. A Space's own process gets the CPU Spaces give it (the Hub's docs do not say how many cores on ZeroGPU);
# the linear kernels of its CPU copies are chosen by measuring on it (`models.choose_linear_kernels`).
CPU_CHARACTERS = 2_000
CPU_MOST_SIZE = 1.5

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
    # a task that may run on a ZeroGPU Space's CPU (`place`): False for one whose passes grow with more than its text
    # (a prompt scored on every row of a task's tables: 4.6 s on 2 vCPUs for the built-in task, BERT as a cloze)
    cpu: bool = True

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

    def place(self, args: tuple, kwargs: dict) -> Literal["cpu", "gpu"]:
        """Where a call of this entry runs on ZeroGPU: "cpu" (this process, CPU copies of its models, no quota spent)
        or "gpu" (a GPU worker), by its cost (see CPU_CHARACTERS), unless BG_DEMO_ZEROGPU_PLACEMENT forces one."""
        forced = placement.placement_mode()
        if forced != "auto":
            return forced
        if self.kind != "task" or not self.cpu or characters(args, kwargs) > CPU_CHARACTERS:
            return "gpu"
        return "cpu" if largest(self, args, kwargs) <= CPU_MOST_SIZE else "gpu"

    @property
    def cpu_fallback(self) -> bool:
        """Whether a call ZeroGPU refuses (quota spent, no GPU free) runs on the Space's CPU instead: with placement by
        cost (BG_DEMO_ZEROGPU_PLACEMENT=gpu sends every call to the GPU and lets ZeroGPU's refusal through), every
        kind but a fine-tuning run, which would hold the CPU every other student's calls run on for minutes."""
        return self.kind != "training" and placement.placement_mode() == "auto"

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
    if placement.runs_here():
        return entry.function(*args, **kwargs)
    tier = placement.tier()
    if tier is not None:
        return tier.stream(entry, args, kwargs) if entry.streams else tier.call(entry, args, kwargs)
    if not placement.zero_gpu() or entry.kind == "store":
        return _here(entry, args, kwargs)
    if entry.place(args, kwargs) == "cpu":
        _record(entry, "cpu")
        return _on_cpu(entry, args, kwargs)
    _load_models(entry, args, kwargs)
    if entry.streams:
        return _stream(entry, args, kwargs)
    declared = entry.duration(args, kwargs)
    try:
        *_, result = placement.gpu_call(entry, args, kwargs)
    except Exception as error:
        refused = placement.refusal(error)
        if refused is None or not entry.cpu_fallback:
            _record(entry, "refused", declared, refused)
            raise
        log.info("%s: ZeroGPU refused it (%s): it runs on this CPU instead", entry.name, refused)
        _record(entry, "cpu", 0, refused)
        return _on_cpu(entry, args, kwargs)
    _record(entry, "gpu", declared)
    return raised(result)


def _here(entry: Entry, args: tuple, kwargs: dict):
    """A call in this process: a batched BERT task with the other callers of the moment, anything else alone."""
    if entry.batched is not None:
        return batcher(entry).call(args, kwargs)
    return entry.function(*args, **kwargs)


def _on_cpu(entry: Entry, args: tuple, kwargs: dict):
    """A ZeroGPU Space's call on its own CPU, on CPU copies of the models (`placement.on_cpu`)."""
    with placement.on_cpu():
        return _here(entry, args, kwargs)


@dataclass(frozen=True)
class Placed:
    """Where one call of a page's run went on ZeroGPU: `where` "cpu", "gpu" or "refused"; the seconds it declared to
    ZeroGPU's quota (0 on the CPU); `refusal`: why ZeroGPU refused it ("quota", "busy"), when it did."""

    name: str
    where: Literal["cpu", "gpu", "refused"]
    declared: int = 0
    refusal: str | None = None


class Spent:
    """Where the calls of one run went (`accounting`), for the page to say: what was asked of ZeroGPU, what ran on
    the CPU because ZeroGPU refused it. Filled by the dispatcher, read by the page; a stream's feeding thread adds
    to it too, so it is guarded."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[Placed] = []

    def add(self, placed: Placed) -> None:
        with self._lock:
            self._calls.append(placed)

    @property
    def calls(self) -> tuple[Placed, ...]:
        with self._lock:
            return tuple(self._calls)

    @property
    def declared(self) -> int:
        """GPU-seconds the run's calls declared to ZeroGPU (what its quota pre-check weighed)."""
        return sum(call.declared for call in self.calls)

    @property
    def fell_back(self) -> str | None:
        """Why ZeroGPU refused a call that then ran on the CPU ("quota", "busy"), or None."""
        return next((call.refusal for call in self.calls if call.where == "cpu" and call.refusal), None)


_spent: contextvars.ContextVar[Spent | None] = contextvars.ContextVar("bg_demo_spent", default=None)


@contextlib.contextmanager
def accounting():
    """Record where the calls made in this block go on ZeroGPU: `with accounting() as spent:` around a page's
    compute, then `spent.calls`. Outside such a block nothing is recorded."""
    spent = Spent()
    token = _spent.set(spent)
    try:
        yield spent
    finally:
        _spent.reset(token)


def account_in_this_context() -> Spent:
    """Record where the calls made from now on in this context go (a stream's handler: an async generator, whose
    steps a `with accounting()` would leave and enter again); the context is the event's own, and ends with it
    (`stop_accounting` ends the recording earlier)."""
    spent = Spent()
    _spent.set(spent)
    return spent


def stop_accounting() -> None:
    """Record nothing more in this context (the end of what `account_in_this_context` began)."""
    _spent.set(None)


def _record(entry: Entry, where: str, declared: int = 0, refusal: str | None = None) -> None:
    spent = _spent.get()
    if spent is not None:
        spent.add(Placed(entry.name, where, declared, refusal))


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
    "cuda" at start-up and moves them into each worker, where a load inside a call would be slow and lost after it;
    and its CPU copy, which the calls placed on this process's CPU read, so the first student does not wait for it.
    A role whose model cannot load is logged; its tabs say why when used."""
    if not placement.zero_gpu():
        return
    mode = placement.placement_mode()
    import torch

    # what the Space's own process has for the calls placed on it (the Hub's documentation does not say)
    log.info("ZeroGPU, placement %s: this process sees %d CPUs, and torch runs %d threads", mode,
             len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
             torch.get_num_threads())
    for role in config.ROLES:
        try:
            if mode != "cpu":
                models.get(role)
            if mode != "gpu":  # the CPU copy the calls placed on this process's CPU read (`Entry.place`)
                with placement.on_cpu():
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
    spent, declared = _spent.get(), entry.duration(args, kwargs)

    def feed() -> None:
        last, counted = None, False
        try:
            updates = placement.gpu_call(entry, args, kwargs)
            try:
                for update in updates:
                    if not counted:  # before the consumer can see the stream end: its page reads what it declared
                        counted = _add(spent, Placed(entry.name, "gpu", declared))
                    handle.put(last := raised(update))
                    if handle.cancelled.is_set() or update.done:
                        break
            finally:
                updates.close()
            if not counted:
                counted = _add(spent, Placed(entry.name, "gpu", declared))
            if last is None or not last.done:
                handle.put(entry.stream.stopped(last, args, kwargs))
        except BaseException as error:  # noqa: BLE001 - the consumer raises it
            refused = placement.refusal(error)
            if last is not None or refused is None or not entry.cpu_fallback:
                if not counted:
                    _add(spent, Placed(entry.name, "refused" if refused else "gpu", declared, refused))
                handle.put(error)
                return
            log.info("%s: ZeroGPU refused it (%s): it runs on this CPU instead", entry.name, refused)
            _add(spent, Placed(entry.name, "cpu", 0, refused))
            _relay(entry, args, kwargs, handle)

    # in the caller's context: `spaces` reads the visitor's request from Gradio's context variables (the token that
    # says whose quota pays: without it every stream went on the anonymous, per-address quota), and a page's
    # `accounting` is there too
    threading.Thread(target=contextvars.copy_context().run, args=(feed,), name="bg-demo-zerogpu-stream",
                     daemon=True).start()
    return handle


def _relay(entry: Entry, args: tuple, kwargs: dict, handle) -> None:
    """A stream ZeroGPU refused, run on this CPU instead, its updates put into the consumer's `handle`; the consumer's
    Stop cancels it at its next update."""
    try:
        with placement.on_cpu():
            inner = entry.function(*args, **kwargs)
        for update in inner:
            handle.put(update)
            if handle.cancelled.is_set():
                inner.cancel()
                break
    except BaseException as error:  # noqa: BLE001 - the consumer raises it
        handle.put(error)


def _add(spent: Spent | None, placed: Placed) -> bool:
    if spent is not None:
        spent.add(placed)
    return True


def _whole(seconds: float) -> int:
    return math.ceil(round(seconds, 6))  # up, but 75 tokens x 0.04 s (3.0000000000000004) is 3 s


def characters(args: tuple, kwargs: dict) -> int:
    """The characters of text a call is given: every string among its arguments, in lists and dicts too (a task's
    tables), which is what its passes grow with."""
    def count(value) -> int:
        if isinstance(value, str):
            return len(value)
        if isinstance(value, dict):
            return sum(count(item) for item in value.values())
        if isinstance(value, (list, tuple)):
            return sum(count(item) for item in value)
        return 0

    return count(list(args)) + count(kwargs)


def size(entry: Entry, args: tuple, kwargs: dict) -> float:
    """The parameters of the models a call reads, in base-size models (1 at least): the named model, else the one its
    role serves (its Hub id, else the role's default model, whose size the app is meant to run)."""
    return max(1.0, sum(_parameters(entry, args, kwargs)) / BASE_PARAMETERS)


def largest(entry: Entry, args: tuple, kwargs: dict) -> float:
    """The biggest model a call reads, in base-size models (Compare reads two base-size models: 1)."""
    return max(_parameters(entry, args, kwargs), default=0) / BASE_PARAMETERS


def _parameters(entry: Entry, args: tuple, kwargs: dict) -> list[int]:
    try:
        wanted = entry.models_read(args, kwargs)
    except TypeError:  # arguments the function will refuse itself, in the worker
        wanted = []
    parameters = []
    for role, model_id in wanted:
        if not model_id and role in config.ROLES:
            served = config.settings().source(role)
            model_id = served if served in config.MODEL_INFO else config.DEFAULT_MODELS[role]
        info = config.MODEL_INFO.get(config.hub_id(model_id))
        parameters.append(info.parameters if info is not None else BASE_PARAMETERS)
    return parameters
