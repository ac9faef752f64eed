"""Fine-tuning on one machine: how fast each method steps, then a class starting runs at once through the app's API.

    PYTHONPATH=. python bench/finetune.py [--size base|tiny] [--students 20] [--steps 30] [--lora-steps 3]

--size base (the default) builds random weights with the real bert-base, DistilBERT and GPT-2 shapes, fed by the tiny
models' tokenizers (`classroom.build_models`), so each step costs what it costs with the default models. The task is
the page's built-in English sentiment task (assets/tasks.json: 16 train, 16 test sentences). Phases, each a table:

1. methods: in a process of its own, `backend.finetune` runs each method ("head", "lora", "layers" with 2 layers) on
   BERT (encoder) and GPT-2 (decoder), `--steps` steps of a batch of 8, after a 1-step warm-up of each. Per run: the
   optimiser steps per second (steps without an evaluation only: each step's time from the run's own clock), the
   steps per second of the whole run (its encoding, evaluations and final pass included), its seconds, the bytes of
   what it learnt (`Tuned.nbytes`, what the server keeps per student), the weights it changed, and each against
   "head" on the same model.
2. class: the app is served (like `bench/classroom.py`: students in a process of their own, on 127.0.0.1). N students
   who have the app open (one /classify each beforehand) start a fine-tuning run at the same moment through the
   `/fine_tune` endpoint (streamed), with the page's defaults (encoder, "head", 30 steps, its learning rate, batch 8,
   seed 0); one more student, the probe, clicks /classify and /fill_mask in turn, half a second apart, all along.
   Per student: the seconds to the first streamed loss and to the final result (p50/p95/max). The probe's latency
   against its lone latency (median of 5 calls of each, measured just before the class, same run; the target is at
   most 3x), requests lost (must be 0), the server's resident memory before and after, and the memory each session
   keeps: the learnt weights the server holds for the class's sessions (`ui.session.TUNED`, asked of the server), the
   final JSON's `tuned_bytes`, and the growth of resident memory divided by N.
3. the same class with method "lora" (`--lora-steps` steps: each LoRA step and evaluation is a pass through the whole
   model; the target is at most 10 MB kept per session).

Every number is measured in this run; the settings used are printed with it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.classroom import Log, Student, build_models, percentile, rss_mb, together  # noqa: E402 - after the path
from bg_demo.config import LIMITS  # noqa: E402

BATCH, LAYERS, SEED = 8, 2, 0  # the page's defaults
PROBE = ("/classify", "/fill_mask")
LOSS = re.compile(r"loss (\d|nan|inf)")  # a running status line with a loss ("Step 3 of 30 · loss 0.693 · …")


def task() -> dict:
    return json.loads((ROOT / "assets" / "tasks.json").read_text(encoding="utf-8"))["en"]["sentiment"]


def settle() -> None:
    """Wait for the fine-tuning runs' worker threads to end: `run_to_end` returns once the final result is put, while
    its (daemon) thread may still be in torch; a process that exits then can abort ("terminate called without an
    active exception")."""
    for thread in threading.enumerate():
        if thread.name == "bg-demo-fine-tune":
            thread.join(timeout=60)


# --- 1. methods, in-process -------------------------------------------------------------------------------------------


def speeds(steps: int, size: str) -> None:
    """Phase 1 (in a process of its own, so the server starts clean): every method on both models."""
    sys.stdout.reconfigure(line_buffering=True)
    import torch

    from bg_demo.backend.finetune import METHODS, fine_tune, run_to_end

    data = task()
    train, test = data["train"], data["test"]
    for role in ("encoder", "decoder"):  # load the models, import PEFT, first passes: before any clock runs
        for method in METHODS:
            run_to_end(role, train, test, method, steps=1, batch_size=BATCH, seed=SEED, layers=LAYERS)
    settle()
    print(f"\n1. methods: {steps} steps of a batch of {BATCH} on {len(train)} train / {len(test)} test sentences, "
          f"{size} models, in-process; torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'model':16s} {'method':9s} {'steps/s':>8s} {'x head':>7s} {'run st/s':>9s} {'run s':>7s} {'x head':>7s} "
          f"{'learnt bytes':>13s} {'changed':>12s} {'of all':>7s}")
    for role in ("encoder", "decoder"):
        head = None
        for method in METHODS:
            seen, final = [], None
            for final in fine_tune(role, train, test, method, steps=steps, batch_size=BATCH, seed=SEED, layers=LAYERS):
                seen.append((final.step, final.seconds, len(final.evaluations), final.done))
            settle()  # the run's thread gone before the next run starts
            # a step's own time: from the update before it, where nothing else happened between (no evaluation; the
            # handle keeps only the newest update, so a skipped one leaves a gap of two steps, not counted)
            times = [b[1] - a[1] for a, b in zip(seen, seen[1:])
                     if not b[3] and b[0] == a[0] + 1 and b[2] == a[2]]
            rate = 1 / statistics.median(times) if times else float("nan")
            whole = final.step / final.seconds
            head = head or (rate, final.seconds)
            name = {"encoder": "BERT (encoder)", "decoder": "GPT-2 (decoder)"}[role]
            label = method if method != "layers" else f"layers {LAYERS}"
            print(f"{name:16s} {label:9s} {rate:8.1f} {rate / head[0]:6.2f}x {whole:9.2f} {final.seconds:7.1f} "
                  f"{final.seconds / head[1]:6.2f}x {final.tuned.nbytes:13,d} {final.changed:12,d} "
                  f"{final.changed / final.total:7.2%}")
    print("steps/s: optimiser steps without an evaluation (median); run st/s: steps over the whole run's seconds; "
          "x head: against head on the same model (steps/s, then seconds)")


# --- 2. a class through the app -------------------------------------------------------------------------------------


def ask_tuned(conn, sessions: list[str]) -> dict:
    """What the server keeps for `sessions` (their fine-tuned models' bytes) and in all."""
    conn.send(sessions)
    return conn.recv()


def answer_tuned(conn, page: str) -> None:
    """Server side of `ask_tuned`: reads the session store of this process."""
    from bg_demo.ui.session import TUNED

    while True:
        try:
            sessions = conn.recv()
        except (EOFError, OSError):
            return
        found = [TUNED.get(session, page) for session in sessions]
        conn.send(dict(kept=[tuned.nbytes for tuned in found if tuned is not None], total=TUNED.nbytes,
                       models=len(TUNED)))


def run_student(student: Student, values: list) -> tuple[float | None, float, list, int]:
    """Start a run on `/fine_tune` and read its stream: seconds to the first update with a loss, to the final result,
    the final outputs, and how many updates were streamed before it."""
    started = time.perf_counter()
    event = student.submit("/fine_tune", values)
    first, updates = None, 0
    with student.http.stream("GET", "gradio_api/queue/data", params={"session_hash": student.session}) as stream:
        for line in stream.iter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("event_id") != event:
                continue
            if message.get("msg") == "process_generating":
                updates += 1
            if message.get("msg") == "process_generating" and first is None:
                status = (message.get("output") or {}).get("data") or [None]
                if LOSS.search(json.dumps(status[0], ensure_ascii=False)):  # the first update whole, later ones diffs
                    first = time.perf_counter() - started
            elif message.get("msg") == "process_completed":
                if not message.get("success"):
                    raise RuntimeError(str(message.get("output"))[:200])
                return first, time.perf_counter() - started, message["output"]["data"], updates
    raise RuntimeError("the stream ended without a result")


def lone(probe: Student, repeats: int = 5) -> tuple[dict, list]:
    log = Log()
    for _ in range(repeats):
        for endpoint in PROBE:
            log.call(probe, endpoint)
    return {endpoint: statistics.median(values) for endpoint, values in log.latencies.items()}, log.lost


def lesson(url: str, server: int, conn, n: int, values: list) -> dict:
    """N students start a run with `values` at once while the probe clicks the BERT tabs."""
    probe = Student(url)
    alone, lost = lone(probe)
    students = [Student(url) for _ in range(n)]
    opened = Log()
    together([lambda s=s: opened.call(s, "/classify") for s in students])  # the app open: each session built
    memory_before = rss_mb(server)
    kept_before = ask_tuned(conn, [s.session for s in students])
    probed, done = Log(), threading.Event()

    def probing():
        while not done.is_set():
            for endpoint in PROBE:
                probed.call(probe, endpoint)
                if done.wait(0.5):  # half a second to read the result
                    return

    found, failed = [None] * n, []

    def student(i: int) -> None:
        try:
            found[i] = run_student(students[i], values)
        except Exception as exc:  # noqa: BLE001 - counted and reported
            failed.append(f"/fine_tune: {type(exc).__name__}: {exc}")

    prober = threading.Thread(target=probing)
    prober.start()
    wall = together([lambda i=i: student(i) for i in range(n)])
    done.set()
    prober.join()
    memory_after = rss_mb(server)
    kept = ask_tuned(conn, [s.session for s in students])
    for s in [*students, probe]:
        s.close()
    return dict(alone=alone, probed=probed, runs=[r for r in found if r is not None], wall=wall,
                lost=[*lost, *opened.lost, *failed, *probed.lost], memory=(memory_before, memory_after),
                kept_before=kept_before, kept=kept)


def report(title: str, n: int, result: dict) -> float:
    print(f"\n{title}")
    runs = result["runs"]
    print(f"{'per student':18s} {'runs':>5s} {'p50 s':>7s} {'p95 s':>7s} {'max s':>7s}")
    firsts = [run[0] for run in runs if run[0] is not None]
    for name, values in (("first loss point", firsts), ("final result", [run[1] for run in runs])):
        print(f"{name:18s} {len(values):5d} {percentile(values, 0.5):7.2f} {percentile(values, 0.95):7.2f} "
              f"{max(values, default=float('nan')):7.2f}")
    if len(firsts) < len(runs):
        print(f"({len(runs) - len(firsts)} runs streamed no update with a loss before their result)")
    updates = [run[3] for run in runs]
    print(f"all {n} done in {result['wall']:.1f} s; updates streamed per run: median {percentile(updates, 0.5)}, "
          f"{min(updates, default=0)} to {max(updates, default=0)}")
    print(f"{'probe':11s} {'calls':>5s} {'lone s':>7s} {'p50 s':>7s} {'p95 s':>7s} {'max s':>7s} "
          f"{'p50/lone':>8s} {'p95/lone':>8s} {'max/lone':>8s}")
    worst = 0.0
    for endpoint in PROBE:
        values, base = result["probed"].latencies.get(endpoint, []), result["alone"].get(endpoint, float("nan"))
        p50, p95, top = percentile(values, 0.5), percentile(values, 0.95), max(values, default=float("nan"))
        worst = max(worst, p95 / base) if values else worst
        print(f"{endpoint:11s} {len(values):5d} {base:7.2f} {p50:7.2f} {p95:7.2f} {top:7.2f} "
              f"{p50 / base:7.1f}x {p95 / base:7.1f}x {top / base:7.1f}x")
    print(f"probe p95 against lone: {worst:.1f}x (target: at most 3x): {'met' if worst <= 3 else 'NOT met'}")
    lost = result["lost"]
    print(f"requests lost: {len(lost)}")
    for failure in lost[:5]:
        print("  ", failure[:200])
    before, after = result["memory"]
    print(f"server resident memory: {before:.0f} MB before, {after:.0f} MB after (+{after - before:.0f} MB, "
          f"{(after - before) / n:.1f} MB per student)")
    kept, sent = result["kept"]["kept"], [run[2][-1].get("tuned_bytes") for run in runs if isinstance(run[2][-1], dict)]
    per = statistics.mean(kept) if kept else float("nan")
    print(f"kept by the server for the class's sessions: {len(kept)} models, {sum(kept):,} bytes, {per / 2**20:.3f} MB "
          f"per session ({len(result['kept_before']['kept'])} before the class); the whole store: "
          f"{result['kept']['models']} models, {result['kept']['total']:,} bytes")
    print(f"final JSON tuned_bytes: {sorted(set(sent)) if sent else 'none read'}")
    return per


def teach(url: str, server: int, conn, args, tables: tuple, rates: dict) -> None:
    """The students' side: both classes against the server at `url` (process id `server`)."""
    sys.stdout.reconfigure(line_buffering=True)
    train, test = tables
    # 2b: the same class again, as long as a run may be, so the probe gets enough calls for its p95
    for number, method, steps in (("2", "head", args.steps), ("2b", "head", LIMITS.tune_steps),
                                  ("3", "lora", args.lora_steps)):
        values = ["", train, test, method, steps, rates[method], BATCH, SEED, LAYERS]  # "": the page's default model
        result = lesson(url, server, conn, args.students, values)
        title = (f"{number}. class: {args.students} students start fine-tuning at once (encoder, {method}, {steps} "
                 f"steps, learning rate {rates[method]:g}, batch {BATCH}, seed {SEED}), one more clicks the BERT tabs")
        per = report(title, args.students, result)
        if method == "lora":
            print(f"LoRA memory kept per session: {per / 2**20:.3f} MB (target: at most 10 MB): "
                  f"{'met' if per <= 10 * 2**20 else 'NOT met'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("base", "tiny"), default="base")
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--steps", type=int, default=30, help="steps of phase 1 and of the head class (the page's)")
    parser.add_argument("--lora-steps", type=int, default=3, help="steps of the LoRA class")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    started = time.perf_counter()
    os.environ["BG_DEMO_MODEL_DIR"] = build_models(args.size)
    spawn = multiprocessing.get_context("spawn")
    phase = spawn.Process(target=speeds, args=(args.steps, args.size))
    phase.start()
    phase.join()
    if phase.exitcode:
        return phase.exitcode

    import torch

    from bg_demo.backend import classify, fill_mask
    from bg_demo.backend.finetune import RATES, run_to_end
    from bg_demo.ui import build_demo
    from bg_demo.ui.finetune_tab import NAMES
    from bg_demo.ui.strings import headers

    data = task()
    fill_mask("A [MASK]."), classify("Warm up.")  # load before timing
    # warmed on other sentences: the class's are read for the first time by its runs (the server keeps the frozen
    # model's vectors of sentences it has read: the first student's run computes them for the others)
    other = json.loads((ROOT / "assets" / "tasks.json").read_text(encoding="utf-8"))["en"]["topic"]
    for method in ("head", "lora"):
        run_to_end("encoder", other["train"], other["test"], method, steps=1)
    # the tables as the page sends them (a plain list of rows is made into this by the guard, `serving.Guard`, which
    # this server runs without, as bench/classroom.py does: its per-address shares would hold a class on one address)
    tables = tuple({"headers": headers("ft.data_headers"), "data": data[part]} for part in ("train", "test"))
    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    print(f"\nserver: torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs; "
          f"{args.size} models")
    here, there = spawn.Pipe()
    threading.Thread(target=answer_tuned, args=(here, f"tune_{NAMES['encoder']}"), daemon=True).start()
    students = spawn.Process(target=teach, args=(url, os.getpid(), there, args, tables, dict(RATES)))
    students.start()
    students.join()
    demo.close()
    settle()
    print(f"\nwhole benchmark: {time.perf_counter() - started:.0f} s")
    return students.exitcode


if __name__ == "__main__":
    sys.exit(main())
