"""The class benchmark runs whole, on the tiny models: it calls the app's endpoints by their parameters as the
API describes them, so a change of an endpoint breaks it where no other test would look."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.server
def test_the_class_benchmark_runs_every_phase_on_the_tiny_models():
    done = subprocess.run(
        [sys.executable, "bench/classroom.py", "--size", "tiny", "--students", "2", "--requests", "20",
         "--why-tokens", "16"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    phases = [line.split(".")[0] for line in done.stdout.splitlines() if line[:2] in {f"{n}." for n in range(1, 7)}]
    assert phases == ["1", "2", "3", "4", "5", "6"], done.stdout
    assert done.stdout.count("requests lost: 0") == 2 and "; lost 0" in done.stdout, done.stdout
