"""The README and CONTRIBUTING.md as a newcomer follows them: every command in their ```bash blocks is run here (or,
for the install and CI lines, is the line CI itself runs), the README's Python example runs against a served app,
and every link between the docs leads to a file that is there."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import free_port, stop_process, wait_for_port

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def blocks(path: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def commands() -> list[str]:
    return [line.strip() for path in DOCS for block in blocks(path, "bash") for line in block.splitlines()
            if line.strip()]


def _run(command: str, *extra: str, timeout: float = 300, **env) -> subprocess.CompletedProcess:
    """`command` as a shell would split it, `python` being this interpreter, with `extra` arguments after it."""
    words = shlex.split(command)
    words[0] = sys.executable if words[0] == "python" else words[0]
    return subprocess.run([*words, *extra], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **env})


def in_ci(command: str) -> None:
    """The line CI runs (.ci/run): installing, then the whole suite, exactly as written."""
    assert command in CI or f"{command}\n" in CI, command


def ci_script(command: str) -> None:
    assert command == "bash .ci/run" and _run("bash -n .ci/run").returncode == 0


def selects(command: str) -> None:
    """A pytest line: it collects, here, and its marks pick what they name from a file of browser tests
    (tests/test_screens.py) and one of none (tests/test_lint.py)."""
    done = _run(command, "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", "tests/test_lint.py",
                "tests/test_screens.py", timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    files = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    expression = shlex.split(command)[-1]
    assert files == ({"tests/test_screens.py"} if expression == "browser" else {"tests/test_lint.py"}), files


def builds_tiny_models(command: str, tmp_path: Path) -> None:
    folder = shlex.split(command)[-1]
    done = _run(command.replace(folder, str(tmp_path / "tiny")), "--hub", timeout=300)
    assert done.returncode == 0, done.stderr
    assert {"encoder", "decoder", "qa", "ner", "sentiment"} <= {p.name for p in (tmp_path / "tiny").iterdir()}


def serves_the_app(command: str, tiny_dir: Path) -> None:
    """`python app.py` (after the install CI runs) answers with the page, on the tiny models."""
    assert command.startswith("pip install -r requirements.txt && ") and "-r requirements.txt" in (
        ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    port = free_port()
    env = {**os.environ, "BG_DEMO_MODEL_DIR": str(tiny_dir), "GRADIO_SERVER_PORT": str(port),
           "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    app = subprocess.Popen([sys.executable, *shlex.split(command.split(" && ", 1)[1])[1:]], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process=app)
        import httpx

        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=60)
        assert page.status_code == 200 and "BERT" in page.text
    finally:
        stop_process(app)


CHECKS = {  # every command the two files give, and how it is run here
    "pip install -r requirements.txt && python app.py": "serves_the_app",
    "pip install -r requirements-dev.txt && python -m pytest": "in_ci",
    "python -m pytest": "in_ci",
    'python -m pytest -m "not browser and not server and not cluster"': "selects",
    "python -m pytest -m browser": "selects",
    "bash .ci/run": "ci_script",
    "python -m bg_demo tiny-models /tmp/tiny": "builds_tiny_models",
}


def test_every_command_in_the_readme_and_contributing_is_checked_here():
    assert sorted(set(commands())) == sorted(CHECKS)


@pytest.mark.server
@pytest.mark.parametrize("command", sorted(CHECKS))
def test_each_command_runs(command, tmp_path, tiny_dir):
    check = CHECKS[command]
    if check == "serves_the_app":
        serves_the_app(command, tiny_dir)
    elif check == "builds_tiny_models":
        builds_tiny_models(command, tmp_path)
    else:
        globals()[check](command)


def test_the_fast_subset_leaves_out_every_tier():
    """The fast line's marks leave out the browser, the servers and the clusters (the marks tests/conftest.py puts)."""
    fast = next(command for command in CHECKS if "not browser" in command)
    expression = shlex.split(fast)[-1]
    assert {"browser", "server", "cluster"} <= set(re.findall(r"not (\w+)", expression))


def test_the_readme_s_python_example_runs_against_the_app(app_url):
    (example,) = blocks(ROOT / "README.md", "python")
    assert "http://127.0.0.1:7860/" in example
    printed = []
    exec(compile(example.replace("http://127.0.0.1:7860/", app_url), "README.md", "exec"),  # noqa: S102
         {"print": printed.append})
    (guess,) = printed
    assert set(guess) >= {"token", "token_id", "score"}


def test_every_link_between_the_docs_leads_to_a_file():
    for path in [*DOCS, *(ROOT / "docs").glob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (path.parent / target).exists(), (path.name, target)


def test_a_test_that_starts_a_server_without_its_mark_fails_saying_which_mark():
    """CONTRIBUTING's promise: the fast subset cannot grow slow unseen (tests/conftest.py's guard; this test is
    unmarked, so its server is refused before it starts)."""
    import gradio as gr

    with gr.Blocks() as demo:
        gr.Textbox()
    try:
        with pytest.raises(pytest.fail.Exception, match=r"is not marked `server`: mark it \(pytest.mark.server\)"):
            demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    finally:
        demo.close()
