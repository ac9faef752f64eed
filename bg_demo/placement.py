"""Where this process's model calls run: here, in ZeroGPU's GPU workers, or on the Ray Serve model tier; set at start-up.

On a ZeroGPU Space (`SPACES_ZERO_GPU` is set) the main process never has a GPU: `import spaces` makes
`torch.cuda.is_available()` say yes there, and a GPU exists only inside a call of a function decorated with
`@spaces.GPU`, which runs in a forked worker; its arguments, yields and results cross by pickle. `prepare()` imports
`spaces` and decorates the one function ZeroGPU runs (`_on_gpu`: ZeroGPU keeps warm workers per decorated function,
so one is warm for every tab); it runs when `bg_demo` is imported, so `spaces` comes before anything touches CUDA.
What a call does there, and how long it may take, its entry in the call table says (`bg_demo.dispatch`).

A leaf: it imports nothing of bg_demo, so `models` may ask it where calls run.
"""

from __future__ import annotations

import contextlib
import os
import threading

ENV = "SPACES_ZERO_GPU"

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
