"""What a lesson costs one student on ZeroGPU: every call of the guided path and of a typical 45-minute lesson, in
the GPU-seconds it declares (what ZeroGPU's quota pre-check weighs) and the ones it uses (what ZeroGPU deducts).

    python bench/zerogpu_lesson.py [--quick] [--json PATH] [--placement gpu,auto]

The app runs on the tiny models (`bg_demo.tiny_models`), every model call routed through `ForkingSpaces`, the CPU
stand-in for `spaces` (one forked worker per call), and is driven through its API with gradio_client, one student
at a time. For each call: the dispatched backend function, its declared duration (`bg_demo.dispatch.Entry.duration`, which
depends on the request, not on the tiny weights) and the seconds its worker ran, fork to exit, on this CPU. An
anonymous visitor has 120 GPU-seconds a day, and ZeroGPU refuses a call whose declared duration is more than what
is left: a call fits when the seconds used so far plus its declared ones are at most 120. The used column is the
stand-in's, not a GPU's: on ZeroGPU a call uses a worker's start (nothing when an idle worker is reused) and
milliseconds of compute, which this machine cannot measure; so each total is also given as the worst case, every
call using all it declared, and as the use per call up to which every call passes the pre-check.

Each lesson is played once per placement (`--placement`, both by default, side by side in one run): "gpu", every
model call sent to a GPU worker (the app before placement by cost), and "auto", placement by cost, where a cheap call
runs on the Space's own CPU and declares nothing (`bg_demo.dispatch.Entry.place`). The last table compares them.

--quick plays the lesson's parts once each (a smoke run); --json PATH writes every call.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

QUOTA_SECONDS = 120  # an anonymous visitor's ZeroGPU quota, a day
SCALED_NODES = 1.5  # spaces 0.51 (zero/configs.json) multiplies a request by this on its RTX PRO 6000 nodes

# page id -> the API endpoint that runs what the page's run button runs, which a guided step's button starts (the
# pretraining lab's NSP page has no endpoint of its own: it runs the Next sentence tab's handler)
PAGE_ENDPOINTS = {
    "fill_mask": "/fill_mask", "mlm": "/mlm_corruption", "embeddings": "/input_representation",
    "nsp": "/next_sentence", "attention": "/attention", "generate": "/generate", "next_token": "/next_token",
    "causal": "/causal_lm", "compare": "/compare", "qa": "/qa", "classify": "/classify", "ner": "/ner",
    "next_sentence": "/next_sentence",
    # GPT-2's prompting page has no endpoint of its own: /prompt_task is the same call (a "task", one duration)
    "prompt_gpt": "/prompt_task",
}

MEDIUM = "openai-community/gpt2-medium"
STORY = "Once upon a time, in a small village by the sea,"
# After the guided path (about 15 minutes, the class together), 30 minutes of exercises, each student on their own:
# what a teacher typically sets, as (part, endpoint, the calls' arguments). Every call is one student's click.
LESSON = [
    ("fill-mask, own sentences", "/fill_mask", [dict(text=text) for text in (
        "Paris is the [MASK] of France.", "The doctor picked up [MASK] bag.", "The nurse picked up [MASK] bag.",
        "I drink [MASK] every morning.", "The [MASK] barked at the postman.", "She plays the [MASK] in a band.",
        "The weather today is [MASK].", "He went to the [MASK] to buy bread.")]),
    ("Why? on a fill-mask guess", "/explain_fill_mask", [dict(text="The doctor picked up [MASK] bag.")]),
    ("sentiment", "/classify", [dict(text=text) for text in (
        "I loved this movie.", "The plot was dull and far too long.", "Not bad at all, I suppose.")]),
    ("Why? on a sentiment", "/explain_classify", [dict(text="Not bad at all, I suppose.")]),
    ("named entities", "/ner", [dict(text="Ada Lovelace worked with Charles Babbage in London."),
                                dict(text="Google released BERT in 2018.")]),
    ("attention views", "/attention", [
        dict(text="The trophy didn't fit in the suitcase because it was too big.", role="encoder"),
        dict(text="The cat that the dog chased ran away.", role="encoder"),
        dict(text="The cat that the dog chased ran away.", role="decoder")]),
    ("generations, 40-80 tokens", "/generate", [
        dict(prompt=STORY, strategy="greedy", max_new_tokens=40),
        dict(prompt=STORY, strategy="top_k", max_new_tokens=60, seed="7"),
        dict(prompt=STORY, strategy="top_p", max_new_tokens=80, sequences=2, seed="7"),
        dict(prompt=STORY, strategy="beam", max_new_tokens=40, num_beams=4)]),
    ("gpt2-medium generation, 60 tokens", "/generate", [
        dict(prompt=STORY, strategy="top_p", max_new_tokens=60, seed="7", model=MEDIUM)]),
    ("next-token lab", "/next_token", [dict(text=text) for text in (
        "The best thing about school is", "My favourite food is", "The capital of Italy is")]),
    ("logit lens", "/logit_lens", [dict(text="The Eiffel Tower is in the city of")]),
    ("questions", "/qa", [dict(question=question, context="BERT was released by Google in 2018. GPT-2 was "
                                                          "released by OpenAI in 2019 and has 1.5 billion parameters.")
                          for question in ("Who released GPT-2?", "When was BERT released?")]),
]


@dataclass
class Call:
    function: str  # the backend function the dispatcher ran
    declared: int  # seconds asked of ZeroGPU
    used: float  # seconds its worker ran on this CPU, fork to exit


@dataclass
class Part:
    label: str
    endpoint: str
    calls: list = field(default_factory=list)


def build_models() -> str:
    """The tiny models, Hub stand-ins included, and gpt2-medium's id over the tiny GPT-2 (its duration follows its
    id); removed at exit. Returns the folder for BG_DEMO_MODEL_DIR."""
    import atexit

    from bg_demo.config import hub_folder
    from bg_demo.tiny_models import build_hub_models, build_tiny_models

    folder = tempfile.mkdtemp(prefix="bg-demo-zerogpu-lesson-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    build_tiny_models(folder)
    build_hub_models(folder)
    shutil.copytree(hub_folder(folder, "openai-community/gpt2"), hub_folder(folder, MEDIUM))
    return folder


def _nothing():
    yield None


def worker_start(spaces_class, times: int = 5) -> float:
    """Median seconds, fork to exit, of a stand-in call that does nothing: the worker's start on this machine."""
    spaces = spaces_class()
    nothing = spaces.GPU(duration=1)(_nothing)
    for _ in range(times):
        list(nothing())
        _wait_ended(spaces, 0)
    return statistics.median(spaces.held.values())


def _wait_ended(spaces, first: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while any(index not in spaces.held for index in range(first, len(spaces.calls))):
        if time.monotonic() > deadline:
            raise TimeoutError("a stand-in worker did not end")
        time.sleep(0.005)


def play(client, spaces, endpoint: str, arguments: dict) -> list[Call]:
    """One click: the endpoint's calls, once every worker it started has ended."""
    first = len(spaces.calls)
    client.predict(api_name=endpoint, **arguments)
    _wait_ended(spaces, first)
    return [Call(entry.name, int(declared), round(spaces.held[index], 3))  # each crossed with its call table entry
            for index, (entry, declared) in enumerate(spaces.calls[first:], start=first)]


def guided_parts(client) -> list[tuple[Part, dict]]:
    """(part, arguments) for each guided step: its page's endpoint with the step's values."""
    from bg_demo.ui.strings import examples

    parameters = {name: {p["parameter_name"] for p in info["parameters"]}
                  for name, info in client.view_api(return_format="dict", print_info=False)["named_endpoints"].items()}
    found = []
    for number, step in enumerate(examples()["guided_path"], start=1):
        endpoint = PAGE_ENDPOINTS.get(step["page"])
        if endpoint is None:
            raise SystemExit(f"guided step {number} opens page {step['page']!r}: add its endpoint to PAGE_ENDPOINTS")
        unknown = set(step["values"]) - parameters[endpoint]
        if unknown:
            raise SystemExit(f"guided step {number}: {endpoint} has no parameter {sorted(unknown)}")
        found.append((Part(f"{number} {step['page']}", endpoint), {**page_defaults(step["page"]), **step["values"]}))
    return found


def page_defaults(page: str) -> dict:
    """What a step's page holds before its values are set, where its endpoint needs more than they give: GPT-2's
    prompting page starts with the built-in task, its template and label words, 4 examples and calibration."""
    if page != "prompt_gpt":
        return {}
    from bg_demo.ui.finetune_tab import TASKS, built_in

    task = built_in(TASKS[0], "en")
    return dict(model="decoder", train=task["train"], test=task["test"], template=task["decoder"]["template"],
                label_words=", ".join(task["decoder"]["words"]), shots=4, seed=0, calibrate=True)


def account(parts: list[Part], used_before: float = 0.0) -> list[dict]:
    """Per part: its calls, declared and used seconds, and whether each call passed the pre-check (the seconds used
    before it plus its declared ones at most the quota), the tightest such sum shown."""
    used_so_far, rows = used_before, []
    for part in parts:
        tightest = 0.0
        for call in part.calls:
            tightest = max(tightest, used_so_far + call.declared)
            used_so_far += call.used
        rows.append(dict(part=part.label, endpoint=part.endpoint, n_calls=len(part.calls),
                         declared=sum(c.declared for c in part.calls), used=round(sum(c.used for c in part.calls), 3),
                         tightest=round(tightest, 3), fits=tightest <= QUOTA_SECONDS))
    return rows


def break_even(calls: list[Call]) -> float:
    """The average seconds each call may use for the whole sequence to pass the pre-check: at call k (from 0), k
    calls used plus its declared seconds at most the quota."""
    return min(((QUOTA_SECONDS - call.declared) / k for k, call in enumerate(calls) if k), default=float("inf"))


def print_table(title: str, rows: list[dict], calls: list[Call]) -> None:
    print(f"\n{title}")
    print(f"  {'step':<36} {'endpoint':<22} {'calls':>5} {'declared s':>10} {'used s':>7}  pre-check: used so far + "
          f"declared <= {QUOTA_SECONDS}")
    for row in rows:
        verdict = f"fits: {row['tightest']:.1f} <=" if row["fits"] else f"REFUSED: {row['tightest']:.1f} >"
        print(f"  {row['part']:<36} {row['endpoint']:<22} {row['n_calls']:>5} {row['declared']:>10} {row['used']:>7.2f}  "
              f"{verdict} {QUOTA_SECONDS}")
    declared, used = sum(c.declared for c in calls), sum(c.used for c in calls)
    print(f"  {'total':<36} {'':<22} {len(calls):>5} {declared:>10} {used:>7.2f}")
    worst = "fits" if declared <= QUOTA_SECONDS else "does not fit"
    scaled = "fits" if declared * SCALED_NODES <= QUOTA_SECONDS else "does not fit"
    print(f"  every call using all it declared: {declared} s of {QUOTA_SECONDS}: {worst}; on nodes where ZeroGPU scales "
          f"a request by {SCALED_NODES}: {declared * SCALED_NODES:.0f} s: {scaled}")
    print(f"  every call passes the pre-check as long as each uses at most {break_even(calls):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="each lesson part once")
    parser.add_argument("--json", type=Path, help="write every call here")
    parser.add_argument("--placement", default="gpu,auto", help="placements to play, in turn (gpu, auto, cpu)")
    options = parser.parse_args()

    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # a bar per model loaded, and every worker loads none
    folder = build_models()
    from bg_demo import config

    for role in config.ROLES:
        os.environ.pop(f"BG_DEMO_{role.upper()}", None)
    os.environ["BG_DEMO_MODEL_DIR"] = folder
    os.environ["BG_DEMO_DEVICE"] = "cpu"
    config.settings.cache_clear()

    from gradio_client import Client

    from bg_demo import dispatch, placement
    from bg_demo.ui import build_demo
    from tests.support.processes import free_port
    from tests.support.zerogpu import ForkingSpaces

    started = worker_start(ForkingSpaces)
    spaces = ForkingSpaces()
    placement.prepare(spaces)
    dispatch.place_defaults()
    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=free_port(), quiet=True)
    played = {}
    try:
        client = Client(url, verbose=False)
        for mode in options.placement.split(","):
            os.environ[placement.PLACEMENT_ENV] = mode  # read at each call
            spaces = ForkingSpaces()
            placement.prepare(spaces)
            played[mode] = lesson(client, spaces, options.quick)
    finally:
        demo.close()
        placement.stop_using()

    print("What one student's calls cost on ZeroGPU (an anonymous visitor has 120 GPU-seconds a day)")
    print("  declared: seconds a call asks ZeroGPU for (Entry.duration); the quota pre-check refuses a call whose")
    print("            declared seconds are more than the student has left; a call placed on the Space's CPU declares 0")
    print("  used:     seconds the call's worker ran, fork to exit, on this machine's CPU stand-in (ForkingSpaces, tiny")
    print("            models). NOT a GPU's: on ZeroGPU a call uses a worker's start (none when an idle worker is")
    print("            reused) plus milliseconds of compute, which this machine cannot measure")
    print(f"  a worker's start here (a stand-in call that does nothing, fork to exit): {started:.3f} s")
    summary, record = {}, {}
    for mode, (guided, extra) in played.items():
        print(f"\n=== placement {mode!r}" + (" (every model call on the GPU: before placement by cost)"
                                               if mode == "gpu" else " (by cost: cheap calls on the Space's CPU)"))
        guided_calls = [c for p in guided for c in p.calls]
        lesson_calls = guided_calls + [c for p in extra for c in p.calls]
        guided_rows = account(guided)
        print_table(f"Guided path (Start tab, {len(guided)} steps; each step is its page's endpoint)", guided_rows,
                    guided_calls)
        total = dict(part=f"guided path ({len(guided)} steps, above)", endpoint="", n_calls=len(guided_calls),
                     declared=sum(c.declared for c in guided_calls), used=round(sum(c.used for c in guided_calls), 3),
                     tightest=max(r["tightest"] for r in guided_rows), fits=all(r["fits"] for r in guided_rows))
        lesson_rows = [total, *account(extra, used_before=total["used"])]
        print_table("A 45-minute lesson (the guided path with the class, then 30 minutes of exercises"
                    + (", --quick: each part once)" if options.quick else ")"), lesson_rows, lesson_calls)
        summary[mode] = (sum(c.declared for c in guided_calls), sum(c.declared for c in lesson_calls),
                         len(guided_calls), len(lesson_calls))
        record[mode] = dict(
            guided=[dict(row, calls=[asdict(call) for call in part.calls]) for part, row in zip(guided, guided_rows)],
            lesson=[dict(row, calls=[asdict(call) for call in part.calls])
                    for part, row in zip(extra, lesson_rows[1:])])
    print("\nPer student, declared GPU-seconds (scaled: x1.5, ZeroGPU's factor on its Blackwell nodes)")
    print(f"  {'placement':<10} {'guided path':>12} {'scaled':>7} {'GPU calls':>9}   {'45-min lesson':>13} {'scaled':>7} "
          f"{'GPU calls':>9}")
    for mode, (guided_s, lesson_s, guided_n, lesson_n) in summary.items():
        print(f"  {mode:<10} {guided_s:>12} {guided_s * SCALED_NODES:>7.0f} {guided_n:>9}   {lesson_s:>13} "
              f"{lesson_s * SCALED_NODES:>7.0f} {lesson_n:>9}")
    print("  targets: the guided path <= 20 s declared; a 45-minute lesson <= 120 s declared, scaling included")
    if options.json:
        options.json.write_text(json.dumps(dict(
            quota_s=QUOTA_SECONDS, worker_start_s=started, quick=options.quick,
            rules=dict(start_s=dispatch.START_SECONDS, call_s=dispatch.CALL_SECONDS,
                       explain_s=dispatch.EXPLAIN_SECONDS, generation_start_s=dispatch.GENERATION_START_SECONDS,
                       generation_s_per_token=dispatch.GENERATION_SECONDS_PER_TOKEN,
                       base_parameters=dispatch.BASE_PARAMETERS, cpu_characters=dispatch.CPU_CHARACTERS),
            placements=record,
        ), indent=1))


def lesson(client, spaces, quick: bool) -> tuple[list[Part], list[Part]]:
    """One student's guided path and exercises, each part with the GPU calls it made."""
    guided = []
    for part, arguments in guided_parts(client):
        part.calls = play(client, spaces, part.endpoint, arguments)
        guided.append(part)
    extra = []
    for label, endpoint, clicks in LESSON:
        part = Part(label, endpoint)
        for arguments in clicks[:1] if quick else clicks:
            part.calls += play(client, spaces, endpoint, arguments)
        extra.append(part)
    return guided, extra


if __name__ == "__main__":
    main()
