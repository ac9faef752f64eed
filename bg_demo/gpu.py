"""Where model calls run: in this process (a CPU, or a GPU this process owns), or on ZeroGPU in a GPU worker.

On a ZeroGPU Space (`SPACES_ZERO_GPU` is set) the main process never has a GPU: `import spaces` makes
`torch.cuda.is_available()` say yes there, and a GPU exists only inside a call of a function decorated with
`@spaces.GPU`, which runs in a forked worker; its arguments, yields and results cross by pickle. So there, every
backend call named in `bg_demo.backend` goes through `dispatch`, the one decorated function (ZeroGPU keeps warm
workers per decorated function, so one dispatcher is warm for every tab), with a duration computed from the
request. The models are loaded in the main process, at start-up for the roles' defaults (ZeroGPU packs what is
placed on "cuda" there and moves it into each worker), before the call for a model a student picks. A generation
is one call of the dispatcher that streams, ended by Stop or a closed tab. Everywhere else a backend call is an
ordinary call in this process, and generations share the batched decoding engine.

`prepare()` runs when `bg_demo` is imported, so `spaces` comes before anything touches CUDA.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

ENV = "SPACES_ZERO_GPU"

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
# is allowed seconds, scaled by the parameters of the models the call reads (`_size`: gpt2-medium and bert-large
# ~2.8x, a compare both roles' models). A generation's step is latency-bound on a GPU (~10-25 ms from GPT-2 to
# gpt2-medium in eager PyTorch): 40 ms per new token of every row, never past the engine's LIMITS.generation_seconds,
# after which it stops itself.
START_SECONDS = 4  # a cold worker's start, in every duration
CALL_SECONDS = 5  # a task on a base-size model: the start and 1 s of passes
EXPLAIN_SECONDS = 8  # an explanation on a base-size model: the start and 4 s for its ~36 passes with gradients
GENERATION_START_SECONDS = START_SECONDS  # a generation: the start, then its tokens
GENERATION_SECONDS_PER_TOKEN = 0.04  # per new token of every row (sequences and beams count): gpt2-medium's step x2
BASE_PARAMETERS = 125_000_000  # a base-size model (bert-base, GPT-2): the compute allowances above are for one


@dataclass(frozen=True)
class _Failed:
    """An error the student can act on (an InputError, a model that cannot load), crossing back as a value: ZeroGPU
    passes only gradio's own errors through, and would show any other as "ZeroGPU worker error"."""

    error: BaseException


_spaces = None  # the `spaces` module (or a stand-in) while ZeroGPU is in use, else None
_emulating = threading.local()  # `.on`: this thread is in spaces' CUDA emulation (see `emulate_cuda_here`)
_dispatch = None  # `_run` decorated by `spaces.GPU`
_in_worker = False  # True inside a GPU worker or a model-tier replica (a process of its own): model calls run here
_tier = None  # the Ray Serve model tier (`bg_demo.cluster.client.Tier`) this front end sends its calls to, or None
_FUNCTIONS: dict[str, tuple] = {}  # name -> (backend function, its roles, whether it streams)


def zero_gpu() -> bool:
    """Whether model calls go to ZeroGPU workers."""
    return _spaces is not None


def in_worker() -> bool:
    return _in_worker


# On ZeroGPU this process forks a GPU worker for a call while its other threads go on, and numpy's OpenBLAS must then
# run on one thread: OpenBLAS's fork handler waits for its thread pool, so a fork while another thread is inside a
# matrix product (the attention views' rollout, prepared on a thread of their own) deadlocked both (seen with
# BG_DEMO_TEST_ZEROGPU=1: the forking thread stuck in os.fork, the views' thread in `layers[i] @ flow[i - 1]`).
# The main process's own numpy work is small (the model calls run in the workers), so one thread costs nothing there.
SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1"}


def requested(env=os.environ) -> bool:
    """Whether this process runs on a ZeroGPU Space (Spaces sets `SPACES_ZERO_GPU` there)."""
    return env.get(ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def prepare(spaces_module=None) -> None:
    """On ZeroGPU, import `spaces` (before torch touches CUDA) and decorate the dispatcher; `spaces_module` is a
    stand-in for tests (`bg_demo.testing.ForkingSpaces`). Elsewhere, nothing."""
    global _spaces, _dispatch
    if spaces_module is None:
        if not requested():
            return
        for name, value in SINGLE_THREADED_BLAS.items():  # before `spaces` imports torch, and torch numpy
            os.environ.setdefault(name, value)
        import spaces as spaces_module
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # a worker is a fork: its tokenizers run on one thread
    _spaces, _dispatch = spaces_module, spaces_module.GPU(duration=duration)(_run)
    _emulating.on = True  # importing `spaces` put the importing thread in its emulation


def emulate_cuda_here() -> None:
    """On ZeroGPU, put this thread in `spaces`' CUDA emulation, where placing a model on "cuda" keeps its weights
    in this process's memory for ZeroGPU to move into each GPU worker. `spaces` enters that mode (a torch function
    mode, which torch keeps per thread) only in the thread that imported it and in threads of its own; a model a
    student picks is loaded in one of Gradio's worker threads, where `model.to("cuda")` reached torch's real CUDA
    initialisation and failed ("Low-level CUDA init reached"). Entered once per thread and kept, as `spaces` does for
    its own threads (`spaces.zero.wrappers`); a second entry would stack the mode twice. A no-op elsewhere, and with
    the forking stand-in, which places on the CPU."""
    if _spaces is None or getattr(_emulating, "on", False):
        return
    enter_mode = getattr(getattr(getattr(_spaces, "zero", None), "torch", None), "enter_mode", None)
    if enter_mode is not None:
        enter_mode()
    _emulating.on = True


def stop_using() -> None:
    """Back to ordinary calls in this process (tests)."""
    global _spaces, _dispatch
    _spaces = _dispatch = None


def use_tier(tier) -> None:
    """Send every model call to `tier` (a `bg_demo.cluster.client.Tier`), or, given None, run them here again."""
    global _tier
    _tier = tier


def tier():
    """The model tier calls go to, or None when they run in this process (or on ZeroGPU)."""
    return _tier


def serve_here() -> None:
    """This process is where model calls run (a model-tier replica), whatever its environment says."""
    global _in_worker
    _in_worker = True


@contextlib.contextmanager
def running_here():
    """Model calls made in this block run in this process, as they do inside a GPU worker or a model-tier replica
    (tests of what runs there: the decoding engine, a model's turn), whatever mode the process is in."""
    global _in_worker
    before, _in_worker = _in_worker, True
    try:
        yield
    finally:
        _in_worker = before


def function(name: str):
    """The backend function `name` (as `dispatched` registered it), its roles, and whether it streams."""
    return _FUNCTIONS[name]


def place_defaults() -> None:
    """On ZeroGPU, load every role's default model now, in the main process: ZeroGPU packs the weights placed on
    "cuda" at start-up and moves them into each worker, where a load inside a call would be slow and lost after it.
    A role whose model cannot load is logged; its tabs say why when used."""
    if not zero_gpu():
        return
    from bg_demo import config, models
    from bg_demo.errors import ModelUnavailableError

    for role in config.ROLES:
        try:
            models.get(role)
        except ModelUnavailableError:
            log.exception("the %s model could not be placed at start-up", role)


def dispatched(function, roles, stream: bool = False):
    """`function` as the backend exports it: called here, or on ZeroGPU sent to a GPU worker by name. `roles` names
    the roles whose models it reads, or is a function of its arguments that does (their models are loaded here
    first). A `stream` function returns a `Handle` (a generation). A front end with a model tier sends the call there
    (`bg_demo.cluster`)."""
    name = function.__name__
    _FUNCTIONS[name] = (function, roles, stream)

    @functools.wraps(function)
    def call(*args, **kwargs):
        if _in_worker:
            return function(*args, **kwargs)
        if _tier is not None:
            return _tier.stream(name, args, kwargs) if stream else _tier.call(name, args, kwargs)
        if _spaces is None:
            return function(*args, **kwargs)
        _load_models(name, args, kwargs)
        if stream:
            return _stream(name, args, kwargs)
        *_, result = _dispatch(name, args, kwargs)
        if isinstance(result, _Failed):
            raise result.error
        return result

    return call


def _load_models(name: str, args, kwargs) -> None:
    """Load (in this process) the models a call will read, so a fresh worker finds them in memory."""
    from bg_demo import models

    for role, model_id in _models_read(name, args, kwargs):
        if role in models.MODEL_CLASSES:  # a role that is no role: the call itself says so, in the worker
            models.get(role, model_id)


def _models_read(name: str, args, kwargs) -> list[tuple[str, str | None]]:
    """(role, model id or None for the role's own) of each model a call of `name` reads."""
    _, roles, _ = _FUNCTIONS[name]
    return roles(*args, **kwargs) if callable(roles) else [(role, kwargs.get("model_id")) for role in roles]


def _run(name: str, args, kwargs):
    """The worker's side: run the backend function `name`, yielding its result, or each update of a stream."""
    global _in_worker
    _in_worker = True
    function, _, stream = _FUNCTIONS[name]
    from bg_demo.errors import BgDemoError

    try:
        if stream:
            yield from function(*args, **kwargs)  # a Handle: leaving early (Stop) cancels the request
        else:
            yield function(*args, **kwargs)
    except BgDemoError as error:
        yield _Failed(error)


def _stream(name: str, args, kwargs):
    """A generation on ZeroGPU: one streaming call of the dispatcher, fed into a `Handle` by a thread of its own, so
    the consumer (a Gradio event loop) never waits on the worker. Cancelling the handle closes the call, which ends
    the request in the worker at its next token and gives the GPU back; the consumer's last update is then the
    newest one, marked stopped, as the engine ends a cancelled request."""
    from bg_demo.backend.generation import Handle

    handle = Handle()

    def feed() -> None:
        last = None
        try:
            updates = _dispatch(name, args, kwargs)
            try:
                for update in updates:
                    if isinstance(update, _Failed):
                        raise update.error
                    handle.put(last := update)
                    if handle.cancelled.is_set() or update.done:
                        break
            finally:
                updates.close()
            if last is None or not last.done:
                handle.put(_stopped(last, name, args, kwargs))
        except BaseException as error:  # noqa: BLE001 - the consumer raises it
            handle.put(error)

    threading.Thread(target=feed, name="bg-demo-zerogpu-stream", daemon=True).start()
    return handle


def _stopped(last, name: str, args, kwargs):
    """The final result of a generation stopped before the worker sent one: the newest update, or an empty one."""
    from dataclasses import replace

    from bg_demo import config
    from bg_demo.backend.generation import Request

    if last is None:
        model_id = kwargs.get("model_id") or config.public_name(config.settings().source("decoder"))
        last = Request.of(args[0], _generation_settings(args, kwargs)).started(model_id)
    return replace(last, done=True, stopped="stopped", waiting=0)


def duration(name: str, args, kwargs) -> int:
    """Whole seconds to ask ZeroGPU for one call (see the constants above): the start, and the compute its request
    needs: a task's or an explanation's by the size of the models it reads, a generation's by its new tokens and rows,
    capped by the engine's time budget."""
    from bg_demo.config import LIMITS

    if name in GENERATIONS:
        settings = _generation_settings(args, kwargs)
        rows = max(settings.num_return_sequences, settings.num_beams)
        tokens = GENERATION_SECONDS_PER_TOKEN * settings.max_new_tokens * rows
        return _whole(GENERATION_START_SECONDS + min(tokens, LIMITS.generation_seconds))
    whole = EXPLAIN_SECONDS if name.startswith("explain") else CALL_SECONDS
    return _whole(START_SECONDS + (whole - START_SECONDS) * _size(name, args, kwargs))


def _whole(seconds: float) -> int:
    return math.ceil(round(seconds, 6))  # up, but 75 tokens x 0.04 s (3.0000000000000004) is 3 s


def _size(name: str, args, kwargs) -> float:
    """The parameters of the models a call reads, in base-size models (1 at least): the named model, else the one its
    role serves (its Hub id, else the role's default model, whose size the app is meant to run)."""
    from bg_demo import config

    try:
        wanted = _models_read(name, args, kwargs) if name in _FUNCTIONS else []
    except TypeError:  # arguments the function will refuse itself, in the worker
        wanted = []
    parameters = 0
    for role, model_id in wanted:
        if not model_id and role in config.ROLES:
            served = config.settings().source(role)
            model_id = served if served in config.MODEL_INFO else config.DEFAULT_MODELS[role]
        info = config.MODEL_INFO.get(model_id)
        parameters += info.parameters if info is not None else BASE_PARAMETERS
    return max(1.0, parameters / BASE_PARAMETERS)


GENERATIONS = ("submit", "generate_stream", "generate")  # submit(prompt, settings), the others (prompt, *fields)


def _generation_settings(args, kwargs):
    from bg_demo.backend.generation import GenerationSettings

    given = args[1] if len(args) > 1 else kwargs.get("settings")
    if isinstance(given, GenerationSettings):
        return given
    return GenerationSettings(*args[1:], **{k: v for k, v in kwargs.items() if k not in ("model_id", "client")})


prepare()
