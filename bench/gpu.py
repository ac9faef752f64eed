"""The app's figures on one device (a GPU when there is one), through the backend's public API, side by side in one run.

    python bench/gpu.py [--device cuda] [--size base|tiny] [--students 1,20,64] [--new-tokens 64] [--repeats 5]
                        [--think 0.25] [--models DIR] [--phases lone,decoding,step,load,finetune] [--graphs off,on]
                        [--json PATH]

--size base (the default) loads random weights with the real shapes (bert-base for the encoder, NER and QA,
DistilBERT for sentiment, GPT-2 for the decoder; the tiny models' tokenizers feed them, as in bench/limits.py),
built in a temporary folder unless --models names a folder to keep them in (built there the first time, then read
from it). --size tiny loads the project's tiny models (`bg_demo.tiny_models`): a smoke run of every phase on a CPU in
about a minute. --device sets BG_DEMO_DEVICE (default: the app's own choice, CUDA first); the dtype is the app's
(float16 on CUDA). Each figure is the median of --repeats runs after a warm-up; the variants of a table take turns,
so whatever else loads the machine hits them alike. No timing is asserted; the targets are printed beside them.
--phases runs some of 2-4 (phase 4 needs 2's lone latencies; `decoding` alone loads the decoder alone); --json is
written again after each phase, so a run cut short still leaves the figures it has.

1. the device, dtype, versions, and each role's model (parameters, MB, load time).
2. lone: each task alone (fill-mask, sentiment, entities, Q&A, next sentence, attention on the encoder and on the
   decoder, logit lens, one fill-mask explanation).
3. decoding: N students (--students) each submit a greedy --new-tokens generation at the same moment from their own
   thread (`backend.submit_generation`, one client id each: the batched engine), against one left-padded
   `model.generate` batch of the same prompts on the same model: new tokens/s, engine/generate, and N ÷ one
   stream, each with the engine's step captured as a CUDA graph and not (--graphs; on a CPU both run uncaptured)
   (targets on CUDA: one stream >= 3x generate; 64 students >= 30x one stream and >= 1.5x one padded generate batch
   of 64, their first tokens p95 <= 0.5 s).
3b. step: one decoding step of the largest class's rows on the engine's static batch, uncaptured and as a graph
   (target <= 2 ms at 64 rows), the first graph step's time in a fresh batch (the capture), and the two steps'
   greedy tokens compared: with --size tiny and --phases step, the GPU check's capture pre-check.
4. the BERT tabs under load: while the largest class generates, one thread per tab (fill-mask, sentiment,
   entities, Q&A) sends its request, reads the answer for about --think seconds, and sends again; p50/p95
   against the tab's lone latency (target: p95 <= 3x lone), --repeats bursts pooled.
5. finetune: the fine-tune-or-prompt page's runs on the built-in English sentiment task (16 train, 16 test sentences):
   for BERT and GPT-2, each method (head only, LoRA, the last 2 layers), 30 AdamW steps of a batch of 8, after a
   warm-up run: steps/s, the run's seconds, the learnt weights' bytes; and one few-shot prompt scoring per role.
6. memory: the peak of each phase and variant (CUDA: torch.cuda.max_memory_allocated; CPU: the process's peak
   resident memory, VmHWM) and what stays allocated (resident) after it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # bench/engine.py imports bench_cpu as a top-level module

from bench.bench_cpu import median_seconds  # noqa: E402 - after the path is set
from bench.classroom import CALLS, TEXT, percentile, rss_mb, together  # noqa: E402
from bench.engine import PROMPTS  # noqa: E402
from bench.limits import FIRST, build_all, hwm_mb, reset_peak  # noqa: E402

os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # transformers' loading bars, one per model

MB = 2**20
BERT_TABS = ("fill-mask", "sentiment", "entities", "Q&A")
NEXT_SENTENCE = ("The man went to the store.", "He bought a gallon of milk.")
LOAD_TARGET = 3.0  # p95 under load / lone
STREAM_TARGET = 3.0  # one stream through the engine / raw generate (on CUDA, graphs on; 1.0 on a CPU)
CLASS_TARGET = (64, 30.0)  # 64 students >= 30x one stream's rate
BATCH_TARGET = 1.5  # 64 students through the engine / one padded generate batch of 64
STEP_TARGET = 0.002  # a step of 64 rows, in seconds
FIRST_TOKEN_TARGET = 0.5  # p95 of the first token's wait, 64 students arriving at once


# --- models ----------------------------------------------------------------------------------------------------------


def prepare_models(size: str, folder: str | None) -> str:
    """A folder with encoder/ sentiment/ ner/ qa/ decoder/ of `size`: `folder` as it is when it has all five,
    else built (into `folder` when given, kept; else into a temporary one, removed at exit)."""
    from bg_demo.config import ROLES
    from bg_demo.tiny_models import build_tiny_models

    if folder and all((Path(folder) / role / "config.json").is_file() for role in ROLES):
        return folder
    started = time.perf_counter()
    if size == "tiny":
        if not folder:
            folder = tempfile.mkdtemp(prefix="bg-demo-gpu-tiny-")
            import atexit

            atexit.register(shutil.rmtree, folder, ignore_errors=True)
        build_tiny_models(folder)
    else:
        built = build_all()  # a temporary folder, removed at exit unless moved away
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            for role in ROLES:
                shutil.rmtree(Path(folder) / role, ignore_errors=True)
                shutil.move(str(Path(built) / role), str(Path(folder) / role))
        else:
            folder = built
    print(f"built the {size} models in {folder} in {time.perf_counter() - started:.0f} s", flush=True)
    return folder


def point_app_at(folder: str, device: str | None) -> None:
    """The app reads its models from `folder` and runs on `device` (its own choice when None): set before the
    settings are first read, and read again."""
    from bg_demo import config

    os.environ["BG_DEMO_MODEL_DIR"] = folder
    for role in config.ROLES:
        os.environ.pop(f"BG_DEMO_{role.upper()}", None)  # BG_DEMO_<ROLE> would win over the folder
    if device:
        os.environ["BG_DEMO_DEVICE"] = device
    config.settings.cache_clear()


def sync() -> None:
    """Wait for the device's queued work (CUDA runs asynchronously), so a wall time covers it."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


# --- memory ----------------------------------------------------------------------------------------------------------


class Memory:
    """The peak of each phase (the largest over its runs) and what stays after it: CUDA's allocator on a CUDA
    device, else this process's resident memory (VmHWM, reset before each run where the kernel allows)."""

    def __init__(self, device: str):
        import torch

        self.cuda = device.startswith("cuda") and torch.cuda.is_available()
        self.phases: dict[str, dict] = {}
        self.peak_resets = True

    @contextmanager
    def phase(self, name: str):
        import torch

        if self.cuda:
            sync()
            torch.cuda.reset_peak_memory_stats()
        else:
            self.peak_resets &= reset_peak(os.getpid())
        try:
            yield
        finally:
            if self.cuda:
                sync()
                now = dict(peak_mb=torch.cuda.max_memory_allocated() / MB, after_mb=torch.cuda.memory_allocated() / MB,
                           reserved_mb=torch.cuda.max_memory_reserved() / MB)
            else:
                now = dict(peak_mb=hwm_mb(os.getpid()), after_mb=rss_mb())
            seen = self.phases.setdefault(name, now)
            for key, value in now.items():
                seen[key] = max(seen[key], value) if key != "after_mb" else value

    def wrap(self, name: str, fn):
        def run():
            with self.phase(name):
                return fn()
        return run

    def print(self) -> None:
        kind = "CUDA allocated (max_memory_allocated)" if self.cuda else "process resident (VmHWM / VmRSS)"
        print(f"\n6. memory, {kind}, MB")
        print(f"{'phase':44s} {'peak':>9s} {'after':>9s}" + (f" {'reserved':>9s}" if self.cuda else ""))
        for name, seen in self.phases.items():
            line = f"{name:44s} {seen['peak_mb']:9.0f} {seen['after_mb']:9.0f}"
            print(line + (f" {seen['reserved_mb']:9.0f}" if self.cuda else ""))
        if not self.cuda and not self.peak_resets:
            print("(the kernel refused to reset VmHWM: each peak is since the process started)")


# --- 1. the device and the models ------------------------------------------------------------------------------------


def environment() -> dict:
    import torch
    import transformers

    from bg_demo import config

    settings = config.settings()
    dtypes = ", ".join(f"{role} {dtype}" for role, dtype in settings.dtypes.items())
    info = dict(device=settings.device, dtype=dtypes, torch=torch.__version__,
                transformers=transformers.__version__, cpus=os.cpu_count(), torch_threads=torch.get_num_threads())
    if settings.device.startswith("cuda") and torch.cuda.is_available():
        index = torch.device(settings.device).index or 0
        properties = torch.cuda.get_device_properties(index)
        info |= dict(gpu=torch.cuda.get_device_name(index), gpu_memory_gb=properties.total_memory / 2**30,
                     cuda=torch.version.cuda, capability=f"{properties.major}.{properties.minor}")
    return info


def load_all(memory: Memory, roles) -> list[dict]:
    """Each of `roles`' models loaded (as a first request would), and what it is."""
    from bg_demo import models

    rows = []
    with memory.phase("models loaded"):
        for role in roles:
            loaded = models.get(role)
            parameters = {id(p): p.numel() for p in loaded.model.parameters()}  # a tied weight once
            rows.append(dict(role=role, model=loaded.model_id, cls=type(loaded.model).__name__,
                             parameters=sum(parameters.values()), mb=loaded.nbytes / MB,
                             dtype=str(next(loaded.model.parameters()).dtype).removeprefix("torch."),
                             device=str(loaded.device), load_s=loaded.load_seconds))
    return rows


def print_environment(info: dict, rows: list[dict]) -> None:
    print("\n1. device and models")
    where = f"{info['gpu']} ({info['gpu_memory_gb']:.0f} GiB, CUDA {info['cuda']}, sm {info['capability']})" \
        if "gpu" in info else f"{info['cpus']} CPUs, {info['torch_threads']} torch threads"
    print(f"device {info['device']}: {where}; dtype {info['dtype']}; torch {info['torch']}, "
          f"transformers {info['transformers']}")
    print(f"{'role':10s} {'model':12s} {'class':38s} {'params M':>9s} {'MB':>7s} {'dtype':>9s} {'load s':>7s}")
    for row in rows:
        print(f"{row['role']:10s} {row['model'][:12]:12s} {row['cls']:38s} {row['parameters'] / 1e6:9.2f} "
              f"{row['mb']:7.1f} {row['dtype']:>9s} {row['load_s']:7.1f}")


# --- 2. lone latency -------------------------------------------------------------------------------------------------


def tasks() -> dict:
    """Each tab's request, as the app makes it (the texts the other benches send)."""
    from bg_demo import backend

    fill_text, classify_text = CALLS["/fill_mask"][0], CALLS["/classify"][0]
    return {
        "fill-mask": lambda: backend.fill_mask(fill_text, 5),
        "sentiment": lambda: backend.classify(classify_text),
        "entities": lambda: backend.recognize_entities(FIRST["/ner"][0]),
        "Q&A": lambda: backend.answer(*FIRST["/qa"]),
        "next sentence": lambda: backend.next_sentence(*NEXT_SENTENCE),
        "attention (encoder)": lambda: backend.attention(TEXT, "encoder"),
        "attention (decoder)": lambda: backend.attention(TEXT, "decoder"),
        "logit lens": lambda: backend.logit_lens(TEXT),
        "explanation (fill-mask)": lambda: backend.explain_fill_mask(fill_text),
    }


def lone(repeats: int, memory: Memory) -> dict:
    """Each task's median latency; a task that fails (a model or dtype the device cannot run it with) is reported
    and left out, and the others still run."""
    variants, failed = {}, {}
    for name, fn in tasks().items():
        try:
            memory.wrap(f"lone: {name}", fn)()  # its first call, before any is timed
            variants[name] = memory.wrap(f"lone: {name}", fn)
        except Exception as exc:  # noqa: BLE001 - reported
            failed[name] = f"{type(exc).__name__}: {exc}"[:300]
    result = median_seconds(variants, repeats)
    print(f"\n2. lone latency (median of {repeats} after a warm-up)")
    print(f"{'task':26s} {'ms':>9s}")
    for name, seconds in result.items():
        print(f"{name:26s} {seconds * 1000:9.1f}")
    for name, error in failed.items():
        print(f"{name:26s} failed: {error}")
    return result | {name: float("nan") for name in failed}


# --- 3. decoding -----------------------------------------------------------------------------------------------------


def class_prompts(n: int) -> list[str]:
    return [PROMPTS[i % len(PROMPTS)] for i in range(n)]


def through_engine(n: int, new_tokens: int, runs: list, started_event: threading.Event | None = None) -> None:
    """`n` students submit a greedy generation each at the same moment, from their own thread with their own client
    id, and read it to the end; appends {tokens, wall, first token times, stopped, errors} to `runs`."""
    from bg_demo import backend

    settings = backend.GenerationSettings(strategy="greedy", max_new_tokens=new_tokens, num_return_sequences=1)
    prompts = class_prompts(n)
    finals, firsts, errors = [None] * n, [None] * n, []

    def student(i: int) -> None:
        started = time.perf_counter()
        try:
            for result in backend.submit_generation(prompts[i], settings, client=f"student-{i}"):
                if firsts[i] is None and result.n_tokens:
                    firsts[i] = time.perf_counter() - started
                    if started_event is not None:
                        started_event.set()
                finals[i] = result
        except Exception as exc:  # noqa: BLE001 - counted and reported
            errors.append(f"{type(exc).__name__}: {exc}")

    wall = together([lambda i=i: student(i) for i in range(n)])
    done = [final for final in finals if final is not None and final.done]
    runs.append(dict(wall=wall, tokens=sum(final.n_tokens for final in done), firsts=[f for f in firsts if f],
                     stopped=Counter(final.stopped for final in done), errors=errors + ["no final result"] * (n - len(done))))


def padded_generate(prompts: list[str], new_tokens: int) -> None:
    """One left-padded `model.generate` batch of `prompts` on the app's decoder (pad = end of text, with an
    attention mask), each making exactly `new_tokens`, in the model's device turn as the engine's steps are."""
    import torch

    from bg_demo import models

    loaded = models.get("decoder")
    with loaded.use(batch=True) as (tokenizer, model):
        rows = [tokenizer(prompt)["input_ids"] for prompt in prompts]
        width, pad = max(map(len, rows)), tokenizer.eos_token_id
        ids = torch.tensor([[pad] * (width - len(row)) + row for row in rows], device=loaded.device)
        mask = torch.tensor([[0] * (width - len(row)) + [1] * len(row) for row in rows], device=loaded.device)
        with torch.inference_mode():
            out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=new_tokens,
                                 min_new_tokens=new_tokens, do_sample=False, pad_token_id=pad)
        sync()
    if out.shape[1] != width + new_tokens:
        raise RuntimeError(f"generate made {out.shape[1] - width} tokens, not {new_tokens}")


def use_graphs(on: bool) -> None:
    """The decoder's engine with its step captured as a CUDA graph (on CUDA) or not, from its next step."""
    from bg_demo import models
    from bg_demo.backend.generation import engine

    decoding = engine.engine_for(models.get("decoder"))
    decoding.graphs = on
    if decoding._batch is not None:
        decoding._batch.graphs = on and decoding._batch.device.type == "cuda"


def graph_label(on: bool) -> str:
    return "graphs on" if on else "graphs off"


def decoding(students: list[int], new_tokens: int, repeats: int, memory: Memory, graphs: list[bool]) -> list[dict]:
    from bg_demo import config

    runs: dict[tuple, list] = {(n, on): [] for n in students for on in graphs}
    variants = {}
    for n in students:
        for on in graphs:
            def run(n=n, on=on):
                use_graphs(on)
                through_engine(n, new_tokens, runs[n, on])
            variants[f"engine, {n} students, {graph_label(on)}"] = memory.wrap(
                f"engine: {n} students, {graph_label(on)}", run)
        variants[f"generate, {n} prompts"] = memory.wrap(f"model.generate: {n} prompts",
                                                         lambda n=n: padded_generate(class_prompts(n), new_tokens))
    result = median_seconds(variants, repeats)
    rows = []
    for n in students:
        generate_s = result[f"generate, {n} prompts"]
        for on in graphs:
            timed = runs[n, on][1:]  # the first was the warm-up
            tokens = statistics.median(run["tokens"] for run in timed)
            firsts = [f for run in timed for f in run["firsts"]]
            engine_s = result[f"engine, {n} students, {graph_label(on)}"]
            rows.append(dict(students=n, graphs=on, engine_s=engine_s, engine_tokens=tokens,
                             engine_tps=tokens / engine_s, generate_s=generate_s, generate_tps=n * new_tokens / generate_s,
                             first_token_p50_s=percentile(firsts, 0.5), first_token_p95_s=percentile(firsts, 0.95),
                             stopped=dict(sum((run["stopped"] for run in timed), Counter())),
                             errors=[e for run in runs[n, on] for e in run["errors"]]))
    ones = {row["graphs"]: row for row in rows if row["students"] == 1}
    for row in rows:
        one = ones.get(row["graphs"])
        row["engine_vs_generate"] = row["engine_tps"] / row["generate_tps"]
        row["engine_vs_one_stream"] = row["engine_tps"] / one["engine_tps"] if one else None
        row["generate_vs_one_stream"] = row["generate_tps"] / one["generate_tps"] if one else None

    device = config.settings().device
    print(f"\n3. decoding: greedy, {new_tokens} new tokens per student, median of {repeats} after a warm-up; "
          f"the engine runs at most {config.batch_rows(device)} rows at once on {device}, later students wait; "
          "graphs: the step as a CUDA graph (on a CPU both run uncaptured)")
    print(f"{'students':>8s} {'graphs':>6s} {'engine s':>9s} {'tok/s':>9s} {'generate s':>11s} {'tok/s':>9s} "
          f"{'eng/gen':>8s} {'eng N÷1':>8s} {'gen N÷1':>8s} {'1st tok p50':>12s} {'p95':>7s}  stopped")
    for row in rows:
        ratio = (f"{row['engine_vs_one_stream']:7.1f}x {row['generate_vs_one_stream']:7.1f}x"
                 if row["engine_vs_one_stream"] is not None else f"{'-':>8s} {'-':>8s}")
        stopped = ", ".join(f"{k} {v}" for k, v in row["stopped"].items())
        print(f"{row['students']:8d} {'on' if row['graphs'] else 'off':>6s} {row['engine_s']:9.3f} "
              f"{row['engine_tps']:9.1f} {row['generate_s']:11.3f} "
              f"{row['generate_tps']:9.1f} {row['engine_vs_generate']:7.2f}x {ratio} "
              f"{row['first_token_p50_s'] * 1000:10.0f}ms {row['first_token_p95_s'] * 1000:5.0f}ms  {stopped}")
        for error in Counter(row["errors"]).most_common(3):
            print(f"  {row['students']} students: {error[1]} x {error[0][:200]}")
    students_target, speedup_target = CLASS_TARGET
    for row in rows:
        label = graph_label(row["graphs"])
        if row["students"] == 1:
            print(f"one stream through the engine, {label}: {row['engine_vs_generate']:.2f}x raw generate "
                  f"(target >= {STREAM_TARGET:.1f}x on CUDA, 1.0x on a CPU)")
        if row["students"] == students_target:
            if row["engine_vs_one_stream"] is not None:
                print(f"{students_target} students, {label}: {row['engine_vs_one_stream']:.1f}x one stream's rate "
                      f"(target >= {speedup_target:.0f}x)")
            print(f"{students_target} students, {label}: {row['engine_vs_generate']:.2f}x one padded generate batch "
                  f"(target >= {BATCH_TARGET:.1f}x); first token p95 {row['first_token_p95_s']:.2f} s "
                  f"(target <= {FIRST_TOKEN_TARGET} s)")
    if any(row["engine_tokens"] < row["students"] * new_tokens for row in rows):
        print("(some streams stopped before --new-tokens, at end of text or the time budget: the engine's rates "
              "count the tokens made)")
    return rows


# --- 3b. one step, and its capture ----------------------------------------------------------------------------------


def step(rows: int, repeats: int, memory: Memory) -> dict:
    """One decoding step of `rows` rows on the engine's static batch (`generation.static.StaticBatch`), uncaptured
    and as a CUDA graph, side by side: each step's wall time (the device synchronised after it), the first graph
    step's time in a fresh batch (its capture, what a cold ZeroGPU worker would pay once per bucket), and the two
    steps' logits against each other (the same kernels: they must agree). On a CPU both run uncaptured. Raises
    when the captured step's greedy tokens differ from the uncaptured one's: the GPU check's pre-check."""
    import torch
    from transformers import DynamicCache

    from bg_demo import models
    from bg_demo.backend.generation.static import StaticBatch

    loaded = models.get("decoder")
    with loaded.use(batch=True) as (_, model):
        generator = torch.Generator().manual_seed(0)
        ids = torch.randint(0, model.config.vocab_size, (rows, 16), generator=generator).to(loaded.device)
        mask = torch.ones_like(ids)

        def fresh(graphs: bool) -> StaticBatch:
            cache = DynamicCache(config=model.config)
            with torch.inference_mode():
                logits = model(input_ids=ids, attention_mask=mask, past_key_values=cache, use_cache=True,
                               logits_to_keep=1).logits[:, -1]
            batch = StaticBatch(model, loaded.device, rows, graphs)
            batch.join(cache, mask, logits.argmax(-1))
            return batch

        def timed(batch: StaticBatch):
            def run():
                batch.step()
                sync()
            return run

        eager, graphed = fresh(False), fresh(True)
        sync()
        started = time.perf_counter()
        graphed_out = [tensor.clone() for tensor in graphed.step()]
        sync()
        first_s = time.perf_counter() - started
        eager_out = eager.step()
        captured = graphed.graphs
        difference = float((eager_out[0] - graphed_out[0]).abs().max())
        same_tokens = bool(torch.equal(eager_out[1], graphed_out[1]))
        times = median_seconds({"uncaptured": timed(eager), "graph": timed(graphed)}, max(repeats, 30))
    record = dict(rows=rows, device=str(loaded.device), captured=captured, captures=graphed.captures,
                  first_graph_step_s=first_s, capture_s=graphed.capture_seconds, uncaptured_s=times["uncaptured"],
                  graph_s=times["graph"], logits_max_difference=difference, same_greedy_tokens=same_tokens)
    print(f"\n3b. one step of {rows} rows on {loaded.device}: uncaptured {times['uncaptured'] * 1000:.2f} ms, "
          f"{'as a CUDA graph' if captured else 'uncaptured too (no capture here)'} {times['graph'] * 1000:.2f} ms "
          f"(target <= {STEP_TARGET * 1000:.0f} ms at 64 rows); the first graph step in a fresh batch {first_s:.3f} s "
          f"(capture {graphed.capture_seconds:.3f} s); logits differ by at most {difference:.2e}, greedy tokens "
          f"{'the same' if same_tokens else 'DIFFERENT'}")
    if not same_tokens:
        raise RuntimeError("the captured step's greedy tokens differ from the uncaptured step's")
    return record


# --- 4. the BERT tabs under load -------------------------------------------------------------------------------------


def under_load(n: int, new_tokens: int, repeats: int, think: float, alone: dict, memory: Memory) -> dict:
    """While `n` students generate, one thread per BERT tab sends its request, reads the answer about `think`
    seconds (0.5x to 1.5x, at random), and sends again, from the class's first token until its last student is done."""
    every = tasks()
    latencies = {name: [] for name in BERT_TABS}
    bursts, errors = [], Counter()
    for burst in range(repeats):
        generating, finished = threading.Event(), threading.Event()

        def tab(name: str, rng: random.Random) -> None:
            generating.wait()
            while not finished.is_set():
                started = time.perf_counter()
                try:
                    every[name]()
                    latencies[name].append(time.perf_counter() - started)
                except Exception as exc:  # noqa: BLE001 - counted and reported
                    errors[f"{name}: {type(exc).__name__}: {exc}"[:200]] += 1
                finished.wait(think * rng.uniform(0.5, 1.5))

        threads = [threading.Thread(target=tab, args=(name, random.Random(burst * 10 + i)))
                   for i, name in enumerate(BERT_TABS)]
        for thread in threads:
            thread.start()
        with memory.phase(f"under load: {n} students + BERT tabs"):
            through_engine(n, new_tokens, bursts, generating)
            finished.set()
            generating.set()  # even if no token came
            for thread in threads:
                thread.join()
    tokens, wall = sum(b["tokens"] for b in bursts), sum(b["wall"] for b in bursts)
    rows = {}
    print(f"\n4. the BERT tabs while {n} students generate {new_tokens} greedy tokens each: one thread per tab, "
          f"~{think:.2f} s between requests, {repeats} bursts pooled")
    print(f"{'tab':12s} {'calls':>6s} {'lone ms':>8s} {'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s} {'p50/lone':>9s} "
          f"{'p95/lone':>9s}")
    for name, values in latencies.items():
        base = alone[name]
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        worst = max(values, default=float("nan"))
        rows[name] = dict(calls=len(values), lone_s=base, p50_s=p50, p95_s=p95, max_s=worst, p50_vs_lone=p50 / base,
                          p95_vs_lone=p95 / base)
        print(f"{name:12s} {len(values):6d} {base * 1000:8.1f} {p50 * 1000:8.1f} {p95 * 1000:8.1f} {worst * 1000:8.1f} "
              f"{p50 / base:8.1f}x {p95 / base:8.1f}x")
    print(f"target: p95 <= {LOAD_TARGET:.0f}x lone; decoding meanwhile {tokens / wall:.1f} tokens/s "
          f"({tokens} tokens in {wall:.2f} s over {repeats} bursts)")
    generation_errors = [e for b in bursts for e in b["errors"]]
    for error, count in (errors + Counter(generation_errors)).most_common(5):
        print(f"  failed {count} x {error}")
    return dict(students=n, tabs=rows, decoding_tps=tokens / wall, errors=dict(errors),
                generation_errors=generation_errors)


# --- main ------------------------------------------------------------------------------------------------------------


def finetune(memory: Memory) -> list[dict]:
    """Steps per second of each method and role, and a few-shot prompt's scoring; a failure is reported, not raised."""
    from bg_demo import backend
    from bg_demo.backend.finetune import run_to_end

    task = json.loads((Path(__file__).resolve().parent.parent / "assets" / "tasks.json").read_text())["en"]["sentiment"]
    rows = []
    print("\n5. fine-tuning (30 AdamW steps, batch 8, built-in sentiment task; after a warm-up run)")
    print(f"{'role':8s} {'method':8s} {'steps/s':>9s} {'seconds':>9s} {'learnt bytes':>13s} {'test acc':>9s}")
    for role in ("encoder", "decoder"):
        for method in ("head", "lora", "layers"):
            try:
                memory.wrap(f"finetune: {role} {method}", lambda: run_to_end(role, task["train"], task["test"],
                                                                             method, 3, None, 8, 0, 2))()
                sync()
                started = time.perf_counter()
                result = memory.wrap(f"finetune: {role} {method}", lambda: run_to_end(
                    role, task["train"], task["test"], method, 30, None, 8, 0, 2))()
                sync()
                seconds = time.perf_counter() - started
                row = dict(role=role, method=method, steps_per_s=30 / seconds, seconds=seconds,
                           learnt_bytes=result.tuned.nbytes, changed=result.changed,
                           accuracy_after=result.accuracy_after)
                print(f"{role:8s} {method:8s} {row['steps_per_s']:9.1f} {seconds:9.2f} {row['learnt_bytes']:13,d} "
                      f"{result.accuracy_after:9.0%}")
            except Exception as exc:  # noqa: BLE001 - reported
                row = dict(role=role, method=method, error=f"{type(exc).__name__}: {exc}"[:300])
                print(f"{role:8s} {method:8s} failed: {row['error']}")
            rows.append(row)
        try:
            shots = 4 if role == "decoder" else 2
            started = time.perf_counter()
            backend.prompt_task(role, task["train"], task["test"], task[role]["template"], task[role]["words"], shots,
                                0, role == "decoder")
            sync()
            rows.append(dict(role=role, method=f"prompt {shots}-shot", seconds=time.perf_counter() - started))
            print(f"{role:8s} prompt {shots}-shot: {rows[-1]['seconds']:.2f} s for 16 test sentences")
        except Exception as exc:  # noqa: BLE001 - reported
            rows.append(dict(role=role, method="prompt", error=f"{type(exc).__name__}: {exc}"[:300]))
            print(f"{role:8s} prompt failed: {rows[-1]['error']}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", help="sets BG_DEMO_DEVICE (cuda, cuda:1, cpu, mps); default: the app's choice")
    parser.add_argument("--size", choices=("base", "tiny"), default="base")
    parser.add_argument("--students", default="1,20,64", help="comma-separated class sizes; the largest also loads "
                        "the BERT tabs in phase 4")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--think", type=float, default=0.25, help="phase 4: seconds between one tab's requests")
    parser.add_argument("--models", help="a folder for the models of --size: read if it has all five roles, "
                        "else built there and kept")
    parser.add_argument("--phases", default="lone,decoding,step,load,finetune",
                        help="comma-separated, of lone (2), decoding (3), step (3b), load (4; needs lone), finetune (5)")
    parser.add_argument("--graphs", default="off,on", help="decoding with the step as a CUDA graph off, on, or both "
                        "side by side (off,on); phase 4 runs with the last")
    parser.add_argument("--json", help="write every figure to this file (again after each phase)")
    args = parser.parse_args()
    phases = {phase.strip() for phase in args.phases.split(",") if phase.strip()}
    if not phases or phases - {"lone", "decoding", "step", "load", "finetune"} or (
            "load" in phases and "lone" not in phases):
        parser.error(f"--phases takes some of lone,decoding,step,load,finetune (load needs lone); got {args.phases!r}")
    graphs = [{"off": False, "on": True}.get(word.strip()) for word in args.graphs.split(",") if word.strip()]
    if not graphs or None in graphs:
        parser.error(f"--graphs takes off, on or off,on; got {args.graphs!r}")
    try:
        students = sorted({int(n) for n in args.students.split(",") if n.strip()})
    except ValueError:
        parser.error(f"--students takes comma-separated numbers, e.g. 1,20,64; got {args.students!r}")
    if not students or min(students) < 1 or args.new_tokens < 1 or args.repeats < 1:
        parser.error("--students, --new-tokens and --repeats must be positive")

    started = time.perf_counter()
    folder = prepare_models(args.size, args.models)
    point_app_at(folder, args.device)
    from bg_demo import config

    memory = Memory(config.settings().device)
    info = environment()
    rows = load_all(memory, config.ROLES if phases - {"decoding", "step"} else ("decoder",))
    print_environment(info, rows)
    print(f"models: {args.size} ({folder})", flush=True)
    figures = dict(environment=info, size=args.size, phases=sorted(phases), new_tokens=args.new_tokens,
                   repeats=args.repeats, models=rows, memory=memory.phases,
                   memory_kind="cuda_allocated" if memory.cuda else "process_resident")

    def save(**done) -> None:
        figures.update(done, seconds=time.perf_counter() - started)
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2, default=str) + "\n")

    save()
    if "lone" in phases:
        save(lone_s=lone(args.repeats, memory))
    if "decoding" in phases:
        save(decoding=decoding(students, args.new_tokens, args.repeats, memory, graphs))
    if "step" in phases:
        save(step=step(max(students), args.repeats, memory))
    use_graphs(graphs[-1])
    if "load" in phases:
        save(under_load=under_load(max(students), args.new_tokens, args.repeats, args.think, figures["lone_s"], memory))
    if "finetune" in phases:
        save(finetune=finetune(memory))
    memory.print()
    print(f"\nall in {time.perf_counter() - started:.0f} s")
    save()
    if args.json:
        print(f"figures written to {args.json}")
    loaded = figures.get("under_load", {})
    failed = any(row["errors"] for row in figures.get("decoding", [])) or loaded.get("errors") \
        or loaded.get("generation_errors") or any("error" in row for row in figures.get("finetune", []))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
