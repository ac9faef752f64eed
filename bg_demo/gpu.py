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

import functools
import logging
import os
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

ENV = "SPACES_ZERO_GPU"

# Seconds a call may hold a ZeroGPU GPU, counted against the visitor's daily quota (a shorter one also queues
# sooner). A call is one forward pass or a few on a model of at most 355M parameters, well under a second on a GPU;
# the rest covers a worker's start (forking, moving the weights in). A generation's time budget is
# LIMITS.generation_seconds whatever it asks for; an explanation's is its ~36 passes.
CALL_SECONDS = 15
EXPLAIN_SECONDS = 40
GENERATION_START_SECONDS = 10
GENERATION_SECONDS_PER_TOKEN = 0.04  # per new token of every sequence (beams count): GPT-2 medium's step on ZeroGPU


@dataclass(frozen=True)
class _Failed:
    """An error the student can act on (an InputError, a model that cannot load), crossing back as a value: ZeroGPU
    passes only gradio's own errors through, and would show any other as "ZeroGPU worker error"."""

    error: BaseException


_spaces = None  # the `spaces` module (or a stand-in) while ZeroGPU is in use, else None
_dispatch = None  # `_run` decorated by `spaces.GPU`
_in_worker = False  # True inside a GPU worker or a model-tier replica (a process of its own): model calls run here
_tier = None  # the Ray Serve model tier (`bg_demo.cluster.client.Tier`) this front end sends its calls to, or None
_FUNCTIONS: dict[str, tuple] = {}  # name -> (backend function, its roles, whether it streams)


def zero_gpu() -> bool:
    """Whether model calls go to ZeroGPU workers."""
    return _spaces is not None


def in_worker() -> bool:
    return _in_worker


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
        import spaces as spaces_module
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # a worker is a fork: its tokenizers run on one thread
    _spaces, _dispatch = spaces_module, spaces_module.GPU(duration=duration)(_run)


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

    _, roles, _ = _FUNCTIONS[name]
    wanted = roles(*args, **kwargs) if callable(roles) else [(role, kwargs.get("model_id")) for role in roles]
    for role, model_id in wanted:
        if role in models.MODEL_CLASSES:  # a role that is no role: the call itself says so, in the worker
            models.get(role, model_id)


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
    """Seconds to ask ZeroGPU for one call (see the constants above): a generation's from its length."""
    from bg_demo.config import LIMITS

    if name.startswith("explain"):
        return EXPLAIN_SECONDS
    if name not in GENERATIONS:
        return CALL_SECONDS
    settings = _generation_settings(args, kwargs)
    rows = max(settings.num_return_sequences, settings.num_beams)
    wanted = GENERATION_START_SECONDS + GENERATION_SECONDS_PER_TOKEN * settings.max_new_tokens * rows
    return int(min(wanted, LIMITS.generation_seconds + GENERATION_START_SECONDS))


GENERATIONS = ("submit", "generate_stream", "generate")  # submit(prompt, settings), the others (prompt, *fields)


def _generation_settings(args, kwargs):
    from bg_demo.backend.generation import GenerationSettings

    given = args[1] if len(args) > 1 else kwargs.get("settings")
    if isinstance(given, GenerationSettings):
        return given
    return GenerationSettings(*args[1:], **{k: v for k, v in kwargs.items() if k not in ("model_id", "client")})


prepare()
