"""A stand-in for ZeroGPU's `spaces` package on a CPU: every GPU call forks a worker and pickles what crosses.

    from tests.support.zerogpu import ForkingSpaces
    spaces = ForkingSpaces()
    placement.prepare(spaces)  # every model call now runs in a forked worker, as on a ZeroGPU Space
"""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def stand_in(session=None):
    """The stand-in a test uses: the session's (`session`, with BG_DEMO_TEST_ZEROGPU=1), or a fresh one prepared for the
    test and let go after it."""
    from bg_demo import placement

    if session is not None:
        yield session
        return
    spaces = ForkingSpaces()
    placement.prepare(spaces)
    try:
        yield spaces
    finally:
        placement.stop_using()


class ForkingSpaces:
    """A stand-in for the `spaces` package on a ZeroGPU Space, for tests on a CPU
    (`bg_demo.placement.prepare(stand_in)`).

    As ZeroGPU does (spaces 0.51, zero/wrappers.py): each call of a function decorated with `GPU` runs in a process
    forked from this one; its arguments, and each value it yields, cross by pickle; leaving the stream early sets a
    stop flag the worker reads after its next yield, then closes the function; an exception that is not gradio's
    comes back as a bare "ZeroGPU worker error". The duration is computed from the arguments, as ZeroGPU does, and
    recorded with the function's name in `calls`. Unlike ZeroGPU, every call forks a fresh worker (ZeroGPU reuses
    idle ones): nothing one call leaves in its worker can help the next. With `refuse` set, every call is refused in
    the caller's process before a worker starts, as ZeroGPU's scheduler refuses one (no GPU free, the visitor's quota
    spent): a `gr.Error` with those words. `held` has the seconds each call's worker ran, from its fork to its exit:
    what ZeroGPU would take from the visitor's quota, on this machine (`bench/zerogpu_lesson.py`)."""

    def __init__(self) -> None:
        import threading

        self.calls: list[tuple[str, float]] = []  # (first argument: the dispatched backend function, duration)
        self.held: dict[int, float] = {}  # index in `calls` -> seconds its worker ran, fork to exit, once it has ended
        self.workers: list = []  # every worker process started, alive or ended
        self.refuse: str | None = None  # ZeroGPU's words for a refusal, e.g. "No GPU was available"
        self.refuse_title = "ZeroGPU client error"  # the title `spaces` gives it (`quota` sets its own)
        self._lock = threading.Lock()  # `calls` grows from several threads: each call knows its index

    def quota(self, anonymous: bool = True) -> None:
        """Refuse every call as ZeroGPU does once the visitor's daily quota is spent, in `spaces` 0.51's words
        (spaces/zero/client.py): an anonymous visitor's (a quota per network address), or a signed-in one's."""
        self.refuse_title = "ZeroGPU quota exceeded"
        self.refuse = ("Space app has reached its GPU limit. Try re-running outside of examples if it happened after "
                       "clicking one" if anonymous else
                       "You have exceeded your free ZeroGPU quota (8s requested vs. 7s left). Try again in 3:12:00. ")

    def live(self) -> int:
        """Workers still running: a GPU held."""
        return sum(worker.is_alive() for worker in self.workers)

    def GPU(self, task=None, *, duration=None, size=None):  # noqa: N802 - the name `spaces` gives it
        if task is None:
            return lambda task: self.GPU(task, duration=duration, size=size)
        import functools
        import inspect

        if not inspect.isgeneratorfunction(task):
            raise NotImplementedError("the stand-in runs generator functions (the app's dispatcher is one)")

        @functools.wraps(task)
        def call(*args, **kwargs):
            seconds = duration(*args, **kwargs) if callable(duration) else (duration or 60)
            with self._lock:
                self.calls.append((args[0] if args else "", seconds))
                index = len(self.calls) - 1
            if self.refuse is not None:
                import gradio as gr

                raise gr.Error(self.refuse, title=self.refuse_title, print_exception=False)
            return _forked_stream(task, args, kwargs, self.workers, functools.partial(self.held.__setitem__, index))

        return call


class ZeroGPUWorkerError(RuntimeError):
    """What ZeroGPU raises in the main process for a worker's exception that is not a gradio error."""


def _forked_stream(task, args, kwargs, workers: list, ended=None):
    """Fork a worker for one call and yield what it sends; `ended(seconds)` hears how long it ran, fork to exit."""
    import multiprocessing
    import pickle
    import threading
    import time

    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    stop = context.Event()
    payload = pickle.dumps((args, kwargs))  # what ZeroGPU sends its worker: arguments that do not pickle fail here
    worker = context.Process(target=_worker, args=(task, payload, sending, stop), daemon=True)
    started = time.perf_counter()
    worker.start()
    workers.append(worker)
    sending.close()

    def reap() -> None:  # whenever it ends
        worker.join()
        if ended is not None:
            ended(time.perf_counter() - started)

    threading.Thread(target=reap, daemon=True).start()
    try:
        while True:
            try:
                kind, value = pickle.loads(receiving.recv_bytes())
            except EOFError:
                raise ZeroGPUWorkerError("GPU task aborted") from None
            if kind == "end":
                return
            if kind == "error":
                raise ZeroGPUWorkerError(value)
            try:
                yield value
            except GeneratorExit:
                stop.set()
                raise
    finally:
        receiving.close()


def _worker(task, payload, sending, stop) -> None:
    """The forked worker: run the task, pickling every value it yields back, until it ends or is stopped."""
    import pickle

    import torch

    torch.set_num_threads(1)  # a fork must not enter the parent's OpenMP pool (GNU OpenMP is not fork-safe)
    args, kwargs = pickle.loads(payload)
    stream = task(*args, **kwargs)
    try:
        for value in stream:
            if stop.is_set():
                break
            sending.send_bytes(pickle.dumps(("value", value)))
    except Exception as error:  # noqa: BLE001 - crosses as ZeroGPU passes it: its class name only
        sending.send_bytes(pickle.dumps(("error", type(error).__name__)))
    finally:
        stream.close()
    sending.send_bytes(pickle.dumps(("end", None)))
    sending.close()
