"""Where this process's model calls run: here, in ZeroGPU's GPU workers, or on the Ray Serve model tier; set at start-up.

On a ZeroGPU Space (`SPACES_ZERO_GPU` is set) the main process never has a GPU: `import spaces` makes
`torch.cuda.is_available()` say yes there, and a GPU exists only inside a call of a function decorated with
`@spaces.GPU`, which runs in a forked worker; its arguments, yields and results cross by pickle. `prepare()` imports
`spaces` and decorates the one function ZeroGPU runs (`_on_gpu`: ZeroGPU keeps warm workers per decorated function,
so one is warm for every tab); it runs when `bg_demo` is imported, so `spaces` comes before anything touches CUDA.
What a call does there, and how long it may take, its entry in the call table says (`bg_demo.dispatch`).

On ZeroGPU not every call goes to a GPU worker: a call that is cheap on a CPU runs in this process, on CPU copies of
its models (`on_cpu()`), and spends none of the student's GPU quota (`dispatch.Entry.place`; BG_DEMO_ZEROGPU_PLACEMENT
forces every call one way). ZeroGPU's refusals (`refusal`) are read here, the one module that knows `spaces`' words.

A leaf: it imports nothing of bg_demo, so `models` may ask it where calls run.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import threading
from datetime import timedelta

ENV = "SPACES_ZERO_GPU"
PLACEMENT_ENV = "BG_DEMO_ZEROGPU_PLACEMENT"  # "auto" (by cost, the default), "gpu" (every call), "cpu" (none)
PLACEMENTS = ("auto", "gpu", "cpu")

# On ZeroGPU this process forks a GPU worker for a call while its other threads go on, and numpy's OpenBLAS must then
# run on one thread: OpenBLAS's fork handler waits for its thread pool, so a fork while another thread is inside a
# matrix product (the attention views' rollout, prepared on a thread of their own) deadlocked both (seen with
# BG_DEMO_TEST_ZEROGPU=1: the forking thread stuck in os.fork, the views' thread in `layers[i] @ flow[i - 1]`).
# The main process's own numpy work is small (the model calls run in the workers), so one thread costs nothing there.
SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1"}

_spaces = None  # the `spaces` module (or a stand-in) while ZeroGPU is in use, else None
_emulating = threading.local()  # `.on`: this thread is in spaces' CUDA emulation (see `emulate_cuda_here`)
_gpu_call = None  # `_on_gpu` decorated by `spaces.GPU`
_in_worker = False  # True inside a GPU worker or a model-tier replica (a process of its own): model calls run here
_tier = None  # the Ray Serve model tier (`bg_demo.cluster.client.Tier`) this front end sends its calls to, or None
# a call made in this context runs on this process's CPU, on CPU copies of its models (`on_cpu`); a context variable,
# so a Gradio handler's thread and an event loop's task each have their own
_on_cpu: contextvars.ContextVar[bool] = contextvars.ContextVar("bg_demo_on_cpu", default=False)


def requested(env=os.environ) -> bool:
    """Whether this process runs on a ZeroGPU Space (Spaces sets `SPACES_ZERO_GPU` there)."""
    return env.get(ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def prepare(spaces_module=None) -> None:
    """On ZeroGPU, import `spaces` (before torch touches CUDA) and decorate the function its workers run;
    `spaces_module` is a stand-in for tests (`tests.support.zerogpu.ForkingSpaces`). Elsewhere, nothing."""
    global _spaces, _gpu_call
    if spaces_module is None:
        if not requested():
            return
        for name, value in SINGLE_THREADED_BLAS.items():  # before `spaces` imports torch, and torch numpy
            os.environ.setdefault(name, value)
        import spaces as spaces_module
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # a worker is a fork: its tokenizers run on one thread
    _spaces, _gpu_call = spaces_module, spaces_module.GPU(duration=_duration)(_on_gpu)
    _emulating.on = True  # importing `spaces` put the importing thread in its emulation


def _on_gpu(entry, args, kwargs):
    """The one function ZeroGPU runs, in a GPU worker: the worker's side of a call of the table's `entry` (a
    `bg_demo.dispatch.Entry`, which crosses by pickle with its arguments), yielding its result or each update."""
    global _in_worker
    _in_worker = True
    yield from entry.run(args, kwargs)


def _duration(entry, args, kwargs) -> int:
    """The whole seconds a call asks ZeroGPU for, computed from the request as its entry's kind says."""
    return entry.duration(args, kwargs)


def placement_mode(env=os.environ) -> str:
    """Where a ZeroGPU Space's calls run (BG_DEMO_ZEROGPU_PLACEMENT): "auto", by cost (the default); "gpu", every
    model call in a GPU worker (as before placement by cost); "cpu", every call in this process, no GPU asked for."""
    wanted = env.get(PLACEMENT_ENV, "").strip().lower() or "auto"
    if wanted not in PLACEMENTS:
        raise ValueError(f"{PLACEMENT_ENV} must be one of {', '.join(PLACEMENTS)}; got {wanted!r}")
    return wanted


@contextlib.contextmanager
def on_cpu():
    """Model calls made in this block run in this process on its CPU, on CPU copies of their models (`models.get`
    loads and keeps them beside the copies placed for ZeroGPU): a call placed on the CPU, or one ZeroGPU refused."""
    token = _on_cpu.set(True)
    try:
        yield
    finally:
        _on_cpu.reset(token)


def cpu_here() -> bool:
    """Whether model calls made here run on this process's CPU whatever the configured device (`on_cpu`)."""
    return _on_cpu.get()


# ZeroGPU's refusals, as `spaces` 0.51 raises them before any worker starts (spaces/zero/client.py `schedule`): a
# `gr.Error` titled "ZeroGPU quota exceeded" when the visitor's daily quota cannot cover the call's declared duration
# ("You have exceeded your free ZeroGPU quota (10s requested vs. 7s left). Try again in 3:12:00." for a visitor
# ZeroGPU knows, by the token the Hub's page sends; "Space app has reached its GPU limit." for one it does not, whose
# quota is their network address's), and "No GPU was available" (after 60 s in its queue) when none is free.
QUOTA_TITLE = "ZeroGPU quota exceeded"
# GPU-seconds a day ZeroGPU gives a visitor (the Hub's figures in 2026: 2 minutes anonymous, 5 with a free account,
# 40 with PRO, which spaces 0.51 names too, `PRO_QUOTA_MINUTES`): what the page tells a student their run is weighed on
QUOTA_SECONDS = {"anonymous": 120, "free": 300, "pro": 2400}
_WAIT = re.compile(r"Try again in (?:(\d+) days?, )?(\d+):(\d\d):(\d\d)")


def refusal(error: BaseException) -> str | None:
    """What ZeroGPU's refusal `error` says: "quota" (the visitor's daily GPU time is spent), "busy" (no GPU was
    free), or None for anything else (an error of the call itself)."""
    title, message = str(getattr(error, "title", "") or ""), str(getattr(error, "message", "") or "")
    if title == QUOTA_TITLE or "reached its GPU limit" in message or "ZeroGPU quota" in message:
        return "quota"
    if "No GPU was available" in message:
        return "busy"
    return None


def quota_wait(message: str) -> timedelta | None:
    """When the quota comes back, as ZeroGPU's refusal says ("Try again in 3:12:00"); None where it does not say
    (an anonymous visitor's refusal)."""
    found = _WAIT.search(message or "")
    if found is None:
        return None
    days, hours, minutes, seconds = (int(part or 0) for part in found.groups())
    return timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)


def anonymous(message: str) -> bool:
    """Whether ZeroGPU's quota refusal is an anonymous visitor's (a quota per network address, shared by everyone
    behind it): signing in gives the student a quota of their own."""
    return "reached its GPU limit" in (message or "")


def gpu_call(entry, args, kwargs):
    """Run a call of `entry` in a ZeroGPU worker: a generator of what it yields (ZeroGPU's refusal raises here)."""
    return _gpu_call(entry, args, kwargs)


def zero_gpu() -> bool:
    """Whether model calls go to ZeroGPU workers."""
    return _spaces is not None


def spaces():
    """The `spaces` module (or its stand-in) in use, or None."""
    return _spaces


def in_worker() -> bool:
    """Whether model calls run in this process whatever the mode: a GPU worker, a model-tier replica."""
    return _in_worker


def runs_here() -> bool:
    """Whether a model call made here runs here: in a worker or a replica, or placed on this process's CPU."""
    return _in_worker or _on_cpu.get()


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
    global _spaces, _gpu_call
    _spaces = _gpu_call = None


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


prepare()
