"""The app with the real `spaces` package, as a ZeroGPU Space runs it: `python app.py` with SPACES_ZERO_GPU set and
ZeroGPU's device API stood in for on loopback (`tests/zerogpu_api.py`), which refuses every GPU call as a busy or
exhausted ZeroGPU does. What is checked is what happens in the app's own process: the defaults placed under
`spaces`' CUDA emulation at start-up, a model a student picks loaded under it too (in one of Gradio's worker
threads), and ZeroGPU's own refusals reaching the student in its words. What needs a GPU worker (a forked process
with a GPU) is tested with the forking stand-in, in tests/test_zerogpu.py.

The real package refuses torch's CPU build (it reads `torch.version.cuda`) and Spaces install it only on Python 3.12,
so these tests run in a Python 3.12 virtual environment installed from requirements.txt as a Space installs it
(torch 2.11.0's CUDA build, which runs on a machine with no GPU until something asks CUDA itself): `.ci/run`'s
second leg, with BG_DEMO_REQUIRE_SPACES=1, where a missing package fails them. Elsewhere they are skipped, saying why."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _spaces_build() -> str:
    """Why this interpreter cannot run the real `spaces` package, or "" when it can."""
    if importlib.util.find_spec("spaces") is None:
        return "the `spaces` package is not installed (requirements.txt installs it on Python 3.12, as Spaces do)"
    import torch

    if not torch.version.cuda:
        return f"torch {torch.__version__} is a CPU build, which the real `spaces` package refuses"
    return ""


MISSING = _spaces_build()
if MISSING and os.environ.get("BG_DEMO_REQUIRE_SPACES") == "1":
    raise RuntimeError(f"BG_DEMO_REQUIRE_SPACES=1, but {MISSING}")
pytestmark = [pytest.mark.server,  # `python app.py` as a process
              pytest.mark.skipif(bool(MISSING), reason=f"{MISSING}: .ci/run runs these in its Python 3.12 leg")]

PICKED_ENCODER = "google-bert/bert-base-multilingual-cased"
PICKED_DECODER = "distilbert/distilgpt2"


class Space:
    """The app and the device API stand-in, each a process of its own, and what they printed."""

    def __init__(self, model_dir: Path, logs: Path) -> None:
        from tests.support.processes import free_port, wait_for_port

        self.api_port, self.app_port = free_port(), free_port()
        self.api_log, self.app_log = logs / "device_api.log", logs / "app.log"
        self.api = subprocess.Popen([sys.executable, str(ROOT / "tests" / "zerogpu_api.py"), str(self.api_port)],
                                    stdout=self.api_log.open("w"), stderr=subprocess.STDOUT)
        wait_for_port(self.api_port, process=self.api, timeout=30)
        env = {
            **{key: value for key, value in os.environ.items() if not key.startswith(("BG_DEMO_", "GRADIO_"))},
            "SPACES_ZERO_GPU": "true",  # what Spaces set on ZeroGPU hardware
            "SPACES_ZERO_DEVICE_API_URL": f"http://127.0.0.1:{self.api_port}",
            "BG_DEMO_MODEL_DIR": str(model_dir),
            "HF_HUB_OFFLINE": "1",
            "GRADIO_ANALYTICS_ENABLED": "False",
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_SERVER_PORT": str(self.app_port),
            "PYTHONUNBUFFERED": "1",
        }
        self.app = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env,
                                    stdout=self.app_log.open("w"), stderr=subprocess.STDOUT)
        wait_for_port(self.app_port, process=self.app, timeout=180)
        self.url = f"http://127.0.0.1:{self.app_port}"

    def set_mode(self, mode: str) -> None:
        """What /schedule answers from now on: "busy" (503) or "quota" (429 with the visitor's quota)."""
        import urllib.request

        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{self.api_port}/mode/{mode}", method="POST"))

    def scheduled(self) -> list[str]:
        """The /schedule requests ZeroGPU's client sent, in order."""
        return [line for line in self.api_log.read_text().splitlines() if line.startswith("POST /schedule")]

    def close(self) -> None:
        for process in (self.app, self.api):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture(scope="module")
def space(tiny_dir, tmp_path_factory):
    running = Space(tiny_dir, tmp_path_factory.mktemp("space"))
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def client(space):
    from gradio_client import Client

    space.set_mode("busy")
    return Client(space.url, verbose=False)


def _refusal(call) -> str:
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as raised:
        call()
    return str(raised.value)


def test_the_defaults_are_placed_under_the_emulation_at_start_up(space):
    log = space.app_log.read_text()
    assert "POST /startup-report" in space.api_log.read_text()  # spaces' start-up ran: it packs what was placed
    assert "could not be placed" not in log and "Low-level CUDA init" not in log


def test_a_default_model_s_call_ends_in_zerogpu_s_words(space, client):
    message = _refusal(lambda: client.predict("The [MASK] sat on the mat.", 3, api_name="/fill_mask"))
    assert "No GPU was available" in message and message.startswith("ZeroGPU, the shared GPU service")
    assert "durationSeconds=" in space.scheduled()[-1]


def test_a_picked_model_loads_and_its_call_ends_in_zerogpu_s_words(space, client):
    before = len(space.scheduled())
    message = _refusal(lambda: client.predict("The [MASK] sat on the mat.", 3, PICKED_ENCODER, api_name="/fill_mask"))
    assert "No GPU was available" in message  # not "could not be loaded": the load came first, and worked
    log = space.app_log.read_text()
    assert "Low-level CUDA init" not in log and "could not be loaded" not in log
    assert f"loaded the encoder model {PICKED_ENCODER}" in log
    assert len(space.scheduled()) == before + 1


def test_a_picked_decoder_s_stream_ends_in_zerogpu_s_words(space, client):
    job = client.submit("Once upon a time", "top_k", 12, 1.0, 5, 0.9, 2, 2, "3", 0, 1.0, PICKED_DECODER,
                        api_name="/generate")
    message = _refusal(job.result)
    assert "No GPU was available" in message
    assert f"loaded the decoder model {PICKED_DECODER}" in space.app_log.read_text()


def test_a_spent_quota_is_said_in_zerogpu_s_words_and_the_app_stays_up(space, client):
    import urllib.request

    space.set_mode("quota")
    message = _refusal(lambda: client.predict("I loved this film.", api_name="/classify"))
    assert "reached its GPU limit" in message and message.startswith("ZeroGPU, the shared GPU service")
    space.set_mode("busy")
    assert space.app.poll() is None
    with urllib.request.urlopen(space.url + "/", timeout=30) as page:
        assert page.status == 200
    message = _refusal(lambda: client.predict("The [MASK] sat on the mat.", 3, api_name="/fill_mask"))
    assert "No GPU was available" in message
