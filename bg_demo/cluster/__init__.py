"""The model tier on a Ray Serve cluster: for a school, several front ends (Gradio processes behind a load balancer
with sticky sessions, `deploy/haproxy.cfg`) send their model calls to Ray Serve deployments on other machines.

In-process stays the default: one command, no Ray. A front end started with a Ray address (`python -m bg_demo serve
--ray ADDRESS`, or `BG_DEMO_RAY_ADDRESS`) connects to the cluster (`client.connect`) and from then on every backend
call named in `bg_demo.backend` goes there through `bg_demo.dispatch`, by name, with the same plain arguments,
and comes back as the same plain, picklable result: every tab, Stop, a closed tab, the "why" views, model choice and
the three languages work as in-process, because the front end runs the same UI code on the same results.

One Ray Serve application per role (`app_name(role)`), each a deployment of `deployments.RoleModels`: its replicas hold
that role's models (the default loaded at start, the alternatives a student picks loaded on first use, in the
replica's own model store) and run:
- `call`: any backend function that reads the role's models (attention, explanations, the logit lens...);
- `task`: the BERT tasks, batched across every front end with `@serve.batch` (`bg_demo.backend.batch`);
- `stream`: a generation, on the replica's batched decoding engine, streamed update by update.
A function that reads two roles' models (the Compare tab's) runs on the encoder's replicas, which load the decoder
for it. Replicas per role, CPUs and GPUs per replica are the deployment's options (`deploy/serve.yaml`).

Why one application per role: each role scales, restarts and is redeployed on its own (`serve deploy` of a config
that changes only the decoder's replicas leaves the BERT replicas running), and a front end finds a role's replicas
by the application's name (`serve.get_app_handle`) with no router of ours in between.

Nothing here imports Ray until a front end connects or a replica starts: `ray` is needed only where it is used.
"""

from __future__ import annotations

import os

from bg_demo import config

ENV = "BG_DEMO_RAY_ADDRESS"
APP_PREFIX = "bg-demo-"
# A function reading the encoder's and the decoder's models runs where the encoder's do.
SHARED_ROLE = "encoder"


def address(env=os.environ) -> str:
    """The Ray address a front end sends its model calls to ("auto": the cluster this machine has joined, or
    "HOST:6379"), or "" for calls in this process (the default)."""
    return env.get(ENV, "").strip()


def app_name(role: str) -> str:
    """The Ray Serve application that serves `role`'s models."""
    return APP_PREFIX + role


def route(entry, args: tuple, kwargs: dict) -> str:
    """The role whose replicas run a call of the table's `entry` (a `bg_demo.dispatch.Entry`) with these arguments."""
    named = {role for role, _ in entry.models_read(args, kwargs)}
    if len(named) != 1:
        return SHARED_ROLE
    role = named.pop()
    return role if role in config.ROLES else SHARED_ROLE  # a role that is no role: the call itself says so there
