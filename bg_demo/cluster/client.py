"""A front end's side of the model tier: connect to the Ray cluster, send each backend call to its role's
application, stream generations back, and keep a student's request alive when a replica dies.

- A call (`Tier.call`, given the call table's entry, `bg_demo.dispatch.Entry`) goes to its role's replicas
  (`cluster.route`) by name: the batched BERT tasks to `task` (batched there with other front ends' requests), the rest
  to `call`. It comes back as the backend's own result, or raises the backend's own error (it crosses as a value,
  `dispatch.Failed`, so it keeps its class and is worded here, in the page's language). A replica that dies during a call: the call is sent again, to another replica (calls only read).
- A generation (`Tier.stream`) returns a `Handle` like the in-process engine's, fed by a thread of its own, so the
  Gradio event loop never waits on Ray. Stop or a closed tab cancel the Ray call (on another thread: Ray's cancel
  can wait for the request to reach a replica), and the replica's engine drops the request at its next step.
- A replica that dies mid-stream: the request is sent again with the same settings, seed included (the settings
  are made here, so a sampling seed is drawn once, here), to another replica. It makes the same tokens; the student
  sees the stream go on from where it was (updates that only catch up are not shown again). When no replica can
  take it, the student reads `error.cluster_lost`; when the cluster cannot be reached, `error.cluster_unreachable`
  with its address. Never a hang: every wait on Ray has a time limit.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time

from bg_demo import backend, cluster, placement
from bg_demo.backend import generation
from bg_demo.backend.generation import GenerationSettings, Handle
from bg_demo.dispatch import raised
from bg_demo.errors import BgDemoError, ClusterUnavailableError

log = logging.getLogger(__name__)

CONNECT_SECONDS = 30.0  # a cluster that has not answered by then is unreachable
# A call's result: an explanation may take LIMITS.explain_seconds of passes plus its waits; nothing takes longer.
CALL_SECONDS = 300.0
RETRIES = 3  # times a call or a generation is sent again after its replica died
RETRY_PAUSE_SECONDS = 0.5  # before sending again: the dead replica leaves the routing table in the meantime
SUBMIT = backend.submit_generation.entry.name  # how every generation goes to a decoder replica: (prompt, settings)

# Ray's cancel can wait until the request has reached a replica: never on a Gradio event loop (a cancelled generator
# is closed there; a wait there would freeze every user's page), so cancels run on these threads.
_cancels = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="bg-demo-ray-cancel")


class RemoteHandle(Handle):
    """A generation running on a replica: `cancel()` also cancels its Ray call, without waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.call = None  # the current Ray call (a DeploymentResponseGenerator)
        self.replicas: list[str] = []  # where it ran, in order: more than one when it was moved after a failure

    def cancel(self) -> None:
        first = not self.cancelled.is_set()
        super().cancel()
        call = self.call
        if first and call is not None:
            _cancels.submit(call.cancel)


class Tier:
    """The model tier at a Ray address, as the backend's calls see it."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._handles: dict[str, object] = {}
        self._yes: set = set()  # questions answered yes, kept (`Entry.remember_yes`: the loading notice is a notice)
        self._lock = threading.Lock()

    def connect(self) -> Tier:
        """Join the cluster as a driver (this process runs no replicas), and check that every role is served."""
        import ray

        if not ray.is_initialized():
            _reachable(self.address)
            try:
                ray.init(address=self.address, log_to_driver=False, namespace="bg-demo")
            except Exception as error:  # noqa: BLE001 - whatever Ray raises, the student reads the address
                raise ClusterUnavailableError(self.address, _reason(error)) from error
        from bg_demo import config

        for role in config.ROLES:
            self.handle(role)
        return self

    def handle(self, role: str):
        """The role's application, found by name (`cluster.app_name`)."""
        with self._lock:
            if role in self._handles:
                return self._handles[role]
        from ray import serve

        try:
            status = serve.status().applications.get(cluster.app_name(role))
        except Exception as error:  # noqa: BLE001
            raise ClusterUnavailableError(self.address, _reason(error)) from error
        if status is None:
            raise ClusterUnavailableError(self.address, cluster.app_name(role), key="error.cluster_not_deployed")
        handle = serve.get_app_handle(cluster.app_name(role))
        with self._lock:
            return self._handles.setdefault(role, handle)

    def replicas(self, role: str) -> list[dict]:
        """What each running replica of the role says of itself (`RoleModels.info`): name, process, memory, models,
        generations running."""
        answers = self.handle(role).broadcast("info").results(return_exceptions=True)
        return [answer for answer in answers if isinstance(answer, dict)]  # a replica that just died is left out

    def call(self, entry, args: tuple, kwargs: dict):
        """A call of the table's `entry` (`bg_demo.dispatch.Entry`) with these arguments, run by a replica of its role."""
        if entry.kind == "generation":  # streamed, as every generation: the settings are made here, a seed drawn once
            *_, final = self.stream(entry, args, kwargs)
            return final
        asked = (entry.name, args, tuple(kwargs.items())) if entry.remember_yes else None
        if asked is not None and asked in self._yes:
            return True  # asked before every request: a model once loaded is not asked about again (a round trip)
        result = raised(self._ask(entry, args, kwargs))
        if asked is not None and result is True:
            self._yes.add(asked)
        return result

    def _ask(self, entry, args: tuple, kwargs: dict):
        """The replica's answer (a result, or `Failed`): sent again, to another replica, when its replica died."""
        handle = self.handle(cluster.route(entry, args, kwargs))
        for attempt in range(RETRIES + 1):
            try:
                if entry.batched:
                    return handle.task.remote((entry.name, args, kwargs)).result(timeout_s=CALL_SECONDS)
                return handle.call.remote(entry.name, args, kwargs).result(timeout_s=CALL_SECONDS)
            except Exception as error:  # noqa: BLE001 - Ray's errors become the student's message
                if not _replica_gone(error) or attempt == RETRIES:
                    raise _worded(self.address, error) from error
                log.warning("a replica died during %s; sending it again (%s)", entry.name, _reason(error))
                time.sleep(RETRY_PAUSE_SECONDS)

    def stream(self, entry, args: tuple, kwargs: dict) -> RemoteHandle:
        """A generation (any of the table's, `entry`) on a decoder replica, sent as `submit_generation`, or another
        stream (a fine-tuning run) on a replica of its role; its updates come through the returned handle."""
        if entry.kind != "generation":
            handle = RemoteHandle()
            threading.Thread(target=self._feed_other, args=(handle, entry, args, kwargs), name="bg-demo-ray-stream",
                             daemon=True).start()
            return handle
        prompt, settings, kwargs = generation.submission(args, kwargs)
        handle = RemoteHandle()
        threading.Thread(target=self._feed, args=(handle, prompt, settings, kwargs), name="bg-demo-ray-stream",
                         daemon=True).start()
        return handle

    def _feed_other(self, handle: RemoteHandle, entry, args: tuple, kwargs: dict) -> None:
        """A stream that is not a generation (a fine-tuning run): its updates as they come. It is not sent again when
        its replica dies (a run holds minutes of its student's steps, which another replica would start over): the
        student reads that the server stopped, and presses the button again. Stopped early, it ends with its newest
        update (`entry.stream.stopped`): the replica's run is cancelled with its Ray call."""
        last = None
        try:
            replica = self.handle(cluster.route(entry, args, kwargs)).options(stream=True)
            handle.call = call = replica.stream.remote(entry.name, args, kwargs)
            try:
                if handle.cancelled.is_set():
                    _cancels.submit(call.cancel)
                else:
                    for update in call:
                        if isinstance(update, str):
                            handle.replicas.append(update)
                            continue
                        handle.put(last := raised(update))
                        if update.done or handle.cancelled.is_set():
                            break
            except BgDemoError:
                raise
            except Exception as error:  # noqa: BLE001 - Ray's errors become the student's message
                if not handle.cancelled.is_set():
                    raise _worded(self.address, error) from error
            if last is None or not last.done:
                handle.put(entry.stream.stopped(last, args, kwargs))
        except BaseException as error:  # noqa: BLE001 - the consumer raises it
            handle.put(error)

    def _feed(self, handle: RemoteHandle, prompt: str, settings: GenerationSettings, kwargs: dict) -> None:
        last, shown = None, (-1, -1)
        try:
            decoder = self.handle("decoder").options(stream=True)
            for attempt in range(RETRIES + 1):
                handle.call = call = decoder.stream.remote(SUBMIT, (prompt, settings), kwargs)
                if handle.cancelled.is_set():
                    _cancels.submit(call.cancel)
                    break
                try:
                    for update in call:
                        if isinstance(update, str):
                            handle.replicas.append(update)
                            continue
                        update = raised(update)
                        if update.done or _progress(update) > shown:
                            handle.put(last := update)
                            shown = _progress(update)
                        if update.done or handle.cancelled.is_set():
                            break
                    break
                except BgDemoError:
                    raise
                except Exception as error:  # noqa: BLE001
                    if handle.cancelled.is_set():
                        break
                    if not _replica_gone(error):
                        raise _worded(self.address, error) from error
                    if attempt == RETRIES:
                        raise ClusterUnavailableError(self.address, _reason(error), key="error.cluster_lost") from error
                    log.warning("the replica %s died during a generation; sending it again with the same seed (%s)",
                                handle.replicas[-1] if handle.replicas else "?", _reason(error))
                    time.sleep(RETRY_PAUSE_SECONDS)
            if last is None or not last.done:
                handle.put(generation.stopped(last, (prompt, settings), kwargs))
        except BaseException as error:  # noqa: BLE001 - the consumer raises it
            handle.put(error)


def _reachable(address: str) -> None:
    """A ClusterUnavailableError at once when nothing listens at a HOST:PORT address: Ray's own connect would retry
    for minutes. ("auto" is this machine's cluster, which Ray finds, or says it cannot, at once.)"""
    import socket

    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise ClusterUnavailableError(address, _reason(error)) from error


def _progress(update) -> tuple[int, int]:
    """How far a generation has got: its tokens, and beam search's steps."""
    return update.n_tokens, len(update.beam_steps)


def _replica_gone(error: BaseException) -> bool:
    """Whether the call failed because its replica died or left (another replica can take it)."""
    from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError
    from ray.serve.exceptions import DeploymentUnavailableError, ReplicaUnavailableError

    return isinstance(error, (ActorDiedError, ActorUnavailableError, RayActorError, ReplicaUnavailableError,
                              DeploymentUnavailableError))


def _worded(address: str, error: BaseException) -> BaseException:
    """Ray's error as the student's: the cluster's address and what happened. A bug (an error of the backend that
    is not a BgDemoError) stays what it is."""
    from ray.exceptions import GetTimeoutError, RayError, RayTaskError
    from ray.serve.exceptions import RayServeException

    if isinstance(error, RayTaskError) and isinstance(error.cause, BaseException):
        return error.cause  # the replica's own error: a BgDemoError there is one here too
    if isinstance(error, RayServeException | RayError | GetTimeoutError | TimeoutError | ConnectionError):
        cause = getattr(error, "cause", None)
        if isinstance(cause, BgDemoError):
            return cause
        return ClusterUnavailableError(address, _reason(error), key="error.cluster_lost" if _replica_gone(error)
                                       else "error.cluster_unreachable")
    return error


def _reason(error: BaseException) -> str:
    """Ray's error in one short line."""
    line = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
    line = line if len(line) <= 160 else line[:159] + "…"
    return f"{type(error).__name__}: {line}" if line else type(error).__name__


_tier: Tier | None = None
_connect_lock = threading.Lock()


def connect(address: str | None = None) -> Tier | None:
    """Send this front end's model calls to the cluster at `address` (default: `BG_DEMO_RAY_ADDRESS`); with neither,
    leave them in this process and return None. Connecting twice to the same address is one connection."""
    global _tier
    address = (address if address is not None else cluster.address()).strip()
    if not address:
        return None
    with _connect_lock:
        if _tier is None or _tier.address != address:
            _tier = Tier(address).connect()
            placement.use_tier(_tier)
            log.info("model calls go to the Ray cluster at %s", address)
    return _tier


def disconnect() -> None:
    """Model calls run in this process again (tests)."""
    global _tier
    with _connect_lock:
        _tier = None
        placement.use_tier(None)
