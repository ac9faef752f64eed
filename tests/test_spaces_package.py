"""The app with the real `spaces` package, as a ZeroGPU Space runs it: `python app.py` with SPACES_ZERO_GPU set and
ZeroGPU's device API stood in for on loopback (`tests/zerogpu_api.py`), which refuses every GPU call as a busy or
exhausted ZeroGPU does. What is checked is what happens in the app's own process: the defaults placed under
`spaces`' CUDA emulation at start-up, with CPU copies beside them; a cheap call (a BERT task, at ordinary lengths) run
on the Space's own CPU, asking ZeroGPU for nothing; a model a student picks loaded under the emulation too (in one of
Gradio's worker threads); a call ZeroGPU refuses run on the CPU instead where it can, and one that cannot (a
fine-tuning run) answered in ZeroGPU's words, with when the quota comes back and the sign-in hint, in en/ko/ja. What
needs a GPU worker (a forked process with a GPU) is tested with the forking stand-in, in tests/test_zerogpu.py and
tests/test_zerogpu_placement.py.

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


TRAIN = [["great great great", "yes"], ["bad bad bad", "no"], ["great film great", "yes"], ["bad film bad", "no"]] * 2
TEST = [["great great", "yes"], ["bad bad", "no"]]
LONG = "Ada Lovelace met Charles Babbage in London to discuss the engine. " * 64  # a QA context past CPU_CHARACTERS


def _token(user: str = "a-student") -> str:
    """An X-IP-Token as the Hub's page sends it (a JWT; `spaces` reads its payload unverified and passes it on):
    ZeroGPU then knows the visitor, and its quota refusal says when the quota comes back."""
    import base64
    import json

    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'user': user})}.signature"


def test_the_defaults_are_placed_under_the_emulation_at_start_up_with_cpu_copies_beside(space):
    log = space.app_log.read_text()
    assert "POST /startup-report" in space.api_log.read_text()  # spaces' start-up ran: it packs what was placed
    assert "could not be placed" not in log and "Low-level CUDA init" not in log
    for role in ("encoder", "sentiment", "ner", "qa", "decoder"):
        assert f"loading the {role} model" in log
        assert any(f"loading the {role} model" in line and " on cpu in float32" in line for line in log.splitlines())


def test_a_bert_task_runs_on_the_space_s_cpu_and_asks_zerogpu_for_nothing(space, client):
    before = len(space.scheduled())
    *_, raw = client.predict("The [MASK] sat on the mat.", 3, api_name="/fill_mask")
    assert len(raw["masks"][0]) == 3
    *_, raw = client.predict("I loved this film.", api_name="/classify")
    assert set(raw["scores"])
    *_, raw = client.predict("Who met Babbage?", "Ada met Babbage in London.", api_name="/qa")
    assert "score" in raw
    assert len(space.scheduled()) == before  # no GPU asked for: no quota spent
    assert "Low-level CUDA init" not in space.app_log.read_text()


def test_a_picked_model_loads_and_runs_on_the_cpu_copy(space, client):
    before = len(space.scheduled())
    *_, raw = client.predict("The [MASK] sat on the mat.", 3, PICKED_ENCODER, api_name="/fill_mask")
    assert raw["model_id"] == PICKED_ENCODER
    log = space.app_log.read_text()
    assert "Low-level CUDA init" not in log and "could not be loaded" not in log
    assert f"loaded the encoder model {PICKED_ENCODER}" in log
    assert len(space.scheduled()) == before


def test_a_picked_decoder_s_stream_zerogpu_refuses_runs_on_the_cpu(space, client):
    """No GPU free (503): the generation goes to the CPU, and streams to its end there."""
    before = len(space.scheduled())
    job = client.submit("Once upon a time", "top_k", 12, 1.0, 5, 0.9, 2, 2, "3", 0, 1.0, PICKED_DECODER,
                        api_name="/generate")
    *_, raw = job.result()
    assert raw["done"] and len(raw["texts"]) == 2 and raw["model_id"] == PICKED_DECODER
    assert len(space.scheduled()) > before  # asked, refused, then run here
    log = space.app_log.read_text()
    assert f"loaded the decoder model {PICKED_DECODER}" in log and "ZeroGPU refused it (busy)" in log


def test_with_the_quota_spent_what_can_run_on_the_cpu_completes(space, client):
    space.set_mode("quota")
    before = len(space.scheduled())
    *_, raw = client.predict("Who met Babbage?", LONG, api_name="/qa")  # a long context: the GPU's, refused
    assert "score" in raw
    why = client.predict("I loved this movie.", "1", "0", api_name="/explain_classify")
    assert why[-1]["target"]["key"] == "note.explain.label"
    job = client.submit("Once upon a time", "greedy", 8, 1.0, 5, 0.9, 2, 1, "", 0, 1.0, api_name="/generate")
    assert job.result()[-1]["done"]
    assert len(space.scheduled()) >= before + 3  # each asked ZeroGPU first
    assert space.app_log.read_text().count("ZeroGPU refused it (quota)") >= 3


@pytest.mark.parametrize("lang", ["en", "ko", "ja"])
def test_with_the_quota_spent_a_fine_tuning_run_is_answered_in_zerogpu_s_words(space, lang):
    """An anonymous visitor: ZeroGPU's words (it does not say when), and signing in for a quota of one's own; a
    visitor ZeroGPU knows (by the token the Hub's page sends): when the quota comes back."""
    from gradio_client import Client

    from bg_demo import text

    space.set_mode("quota")
    fine_tune = ("encoder", TRAIN, TEST, "head", 5, 0.05, 8, 0, 2, lang)
    anonymous = _refusal(lambda: Client(space.url, verbose=False).submit(*fine_tune, api_name="/fine_tune").result())
    assert "reached its GPU limit" in anonymous
    assert text.t("app.gpu_quota.sign_in", lang) in anonymous
    assert text.t("app.gpu_quota.when_unknown", lang) in anonymous
    known = Client(space.url, verbose=False, headers={"X-IP-Token": _token()})
    signed_in = _refusal(lambda: known.submit(*fine_tune, api_name="/fine_tune").result())
    assert "Try again in 3:12:00" in signed_in and text.t("app.gpu_quota.when", lang, hours=3, minutes=12) in signed_in
    assert text.t("app.gpu_quota.sign_in", lang) not in signed_in
    assert space.app.poll() is None


def test_the_app_stays_up_and_says_zerogpu_s_words_when_nothing_else_can(space, client):
    import urllib.request

    space.set_mode("busy")
    message = _refusal(lambda: client.submit("encoder", TRAIN, TEST, "head", 5, 0.05, 8, 0, 2,
                                             api_name="/fine_tune").result())
    assert "No GPU was available" in message and message.startswith("ZeroGPU, the shared GPU service")
    assert space.app.poll() is None
    with urllib.request.urlopen(space.url + "/", timeout=30) as page:
        assert page.status == 200
