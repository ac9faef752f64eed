"""The model tier's Ray Serve deployments: one application per role, each a deployment of `RoleModels`.

Imported by Ray in each replica, and by `serve run` / `serve deploy` through `role_app` (`deploy/serve.yaml`); a
front end never imports it (it calls the applications by name, `client.py`). `local` starts the whole tier on this
machine, for tests, benchmarks and a one-machine trial.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import defaultdict
from pathlib import Path

from ray import serve

from bg_demo import cluster

log = logging.getLogger(__name__)

BATCH_SIZE = 32  # BERT task requests one padded forward pass takes at most
BATCH_WAIT_SECONDS = 0.005  # how long a lone request waits for others to join its batch (a forward takes ~0.1 s)
# Requests one replica takes at once: Ray Serve's default (5) would keep the sixth student's generation out of the
# replica's engine, whose batch is the point; the engine's own fair share and row limit decide who runs.
MAX_ONGOING = 256
# A stream sends an update at most this often (the newest; the final one at once): the page shows one every 0.15 s
# (`ui.common.STREAM_INTERVAL`), and on a GPU a class's engine makes hundreds of steps a second, each of which would
# cost a message through Ray.
STREAM_PACE_SECONDS = 0.1
CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "serve.yaml"  # the tier as a school deploys it
RUN_SETTINGS = ("OMP_WAIT_POLICY", "TOKENIZERS_PARALLELISM")  # how a replica runs, as `info` reports it


@serve.deployment(max_ongoing_requests=MAX_ONGOING, ray_actor_options={"num_cpus": 1})
class RoleModels:
    """One replica: a role's models in this process's model store, and the calls that read them."""

    def __init__(self, role: str, preload: bool = True, threads: int = 0) -> None:
        from bg_demo import config, models, placement
        from bg_demo.errors import ModelUnavailableError

        placement.serve_here()  # calls run here, even where the replica's environment names a Ray address
        if role not in config.ROLES:
            raise ValueError(f"no role {role!r}; one of {', '.join(config.ROLES)}")
        if threads:  # Ray gives a replica of n CPUs n threads (OMP_NUM_THREADS); a front-end-sized share may want more
            import torch

            torch.set_num_threads(threads)
        import ray

        self.role = role
        self.largest_batch = 0  # the most BERT task requests one `task` batch has taken
        self.name = ray.get_runtime_context().get_actor_name() or f"pid {os.getpid()}"
        if preload:  # the first student does not wait for the load; a model that cannot load says why when used
            try:
                models.get(role)
            except ModelUnavailableError:
                log.exception("the %s model could not be loaded at start-up", role)

    async def call(self, name: str, args: tuple, kwargs: dict):
        """Any backend call (by its name in the call table) that reads this role's models: its result, or `Failed`
        with the error a student reads."""
        return await asyncio.to_thread(_call, name, args, kwargs)

    @serve.batch(max_batch_size=BATCH_SIZE, batch_wait_timeout_s=BATCH_WAIT_SECONDS)
    async def task(self, requests: list[tuple[str, tuple, dict]]) -> list:
        """BERT task calls `(name, args, kwargs)` from every front end, collected by Ray Serve: one padded forward
        pass per task and model (`bg_demo.backend.batch`)."""
        self.largest_batch = max(self.largest_batch, len(requests))
        return await asyncio.to_thread(_tasks, requests)

    async def stream(self, name: str, args: tuple, kwargs: dict):
        """A generation: first this replica's name (the front end says where a request ran when it has to move it),
        then every update. A cancelled call (Stop, a closed tab) leaves the engine at its next step: closing this
        generator closes the engine handle's iteration, which cancels the request."""
        from bg_demo.dispatch import Failed
        from bg_demo.errors import BgDemoError

        yield self.name
        try:
            handle = await asyncio.to_thread(_call_raw, name, args, kwargs)
            sent = 0.0
            async for update in handle:
                now = time.monotonic()
                if update.done or now - sent >= STREAM_PACE_SECONDS:  # one a step would be skipped by the page
                    sent = now
                    yield update
        except BgDemoError as error:
            yield Failed(error)

    def info(self) -> dict:
        """This replica as data: its name, process, resident memory, models in memory, generations running, and how
        it runs (torch's threads, the config's settings it was started with)."""
        import torch

        from bg_demo import models
        from bg_demo.backend.generation import engine

        rows = 0
        if models.is_loaded("decoder"):
            rows = engine.engine_for(models.get("decoder")).rows
        return dict(name=self.name, role=self.role, pid=os.getpid(), rss=_rss(), rows=rows,
                    largest_batch=self.largest_batch, threads=torch.get_num_threads(),
                    settings={name: os.environ.get(name, "") for name in RUN_SETTINGS},
                    models=[(info.role, info.model_id) for info in models.snapshot().models])


def _call_raw(name: str, args: tuple, kwargs: dict):
    """The backend function the call table names `name`, run here."""
    from bg_demo.backend import CALLS

    return CALLS[name].function(*args, **kwargs)


def _call(name: str, args: tuple, kwargs: dict):
    from bg_demo.dispatch import Failed
    from bg_demo.errors import BgDemoError

    try:
        return _call_raw(name, args, kwargs)
    except BgDemoError as error:
        return Failed(error)


def _tasks(requests: list[tuple[str, tuple, dict]]) -> list:
    """Each request's result (or `Failed`), in order: the requests of one task run together."""
    from bg_demo.backend import batch
    from bg_demo.dispatch import Failed
    from bg_demo.errors import BgDemoError

    results: list = [None] * len(requests)
    by_task = defaultdict(list)
    for i, (name, args, kwargs) in enumerate(requests):
        by_task[name].append(i)
    for name, indices in by_task.items():
        if name not in batch.TASKS:
            for i in indices:
                results[i] = _call(*requests[i])
            continue
        answers = batch.run(name, [requests[i][1:] for i in indices])
        for i, answer in zip(indices, answers, strict=True):
            results[i] = Failed(answer) if isinstance(answer, BgDemoError) else answer
    return results


def _rss() -> int:
    """This process's resident memory in bytes."""
    import psutil

    return psutil.Process().memory_info().rss


def role_app(args: dict):
    """The application serving one role: `{"role": "decoder", "preload": true, "threads": 0}` (what `deploy/serve.yaml`
    gives each application; replicas, CPUs and GPUs per replica are set there under `deployments`)."""
    role = args["role"]
    return RoleModels.options(name=role).bind(role, bool(args.get("preload", True)), int(args.get("threads", 0)))


def applications(config: Path = CONFIG) -> list:
    """The applications a Ray Serve config file declares (Serve's own schema checks it): `deploy/serve.yaml`."""
    import yaml
    from ray.serve.schema import ServeDeploySchema

    return ServeDeploySchema.model_validate(yaml.safe_load(config.read_text())).applications


def local(roles=None, replicas: dict | None = None, cpus: dict | None = None, threads: dict | None = None,
          num_cpus: int | None = None, env: dict | None = None, address: str | None = None,
          config: Path = CONFIG) -> None:
    """Deploy the tier as `config` (`deploy/serve.yaml`) declares it, on this machine: on a fresh Ray (no dashboard,
    no HTTP proxy: the front ends call the applications through handles), or on the running cluster at `address`
    ("auto": the one `ray start --head` started here); waits until every replica is up. Per role, `replicas`
    overrides the config's replicas, `cpus` the CPUs Ray reserves per replica (default 0: a machine of 2 CPUs could
    not reserve the config's), `threads` torch's threads per replica (default: this machine's CPUs, as a process
    here has). The replicas read the model settings (`BG_DEMO_MODEL_DIR` and the like) from this process's
    environment and `env`, not from the config's, which names a school's folders; the config's other settings
    (how a replica runs) they take from it."""
    import ray
    from ray.serve import RunTarget, run_many

    replicas, cpus, threads = replicas or {}, cpus or {}, threads or {}
    apps = applications(config)
    names = [name for name in os.environ if name.startswith(("BG_DEMO_", "HF_")) and name != cluster.ENV]
    env_vars = {name: os.environ[name] for name in names} | _settings(apps) | (env or {})
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False, namespace="bg-demo", runtime_env={"env_vars": env_vars})
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, namespace="bg-demo",
                     runtime_env={"env_vars": env_vars})
    serve.start(proxy_location="Disabled")
    targets = []
    for application in apps:
        role = application.args["role"]
        if roles is not None and role not in roles:
            continue
        declared = application.deployments[0]
        deployment = RoleModels.options(
            name=declared.name, num_replicas=replicas.get(role, declared.num_replicas),
            max_ongoing_requests=declared.max_ongoing_requests, ray_actor_options={"num_cpus": cpus.get(role, 0)},
        ).bind(role, bool(application.args.get("preload", True)), threads.get(role, os.cpu_count() or 1))
        targets.append(RunTarget(deployment, name=application.name, route_prefix=application.route_prefix))
    run_many(targets)


def _settings(apps: list) -> dict:
    """The environment the config gives the replicas, without what names a school's machines (the model folder, the
    Hub's settings): how they run (`OMP_WAIT_POLICY`, `TOKENIZERS_PARALLELISM`)."""
    env: dict = {}
    for application in apps:
        for name, value in ((application.runtime_env or {}).get("env_vars") or {}).items():
            if not name.startswith(("BG_DEMO_", "HF_")):
                env[name] = str(value)
    return env


def shutdown() -> None:
    import ray

    serve.shutdown()
    ray.shutdown()
