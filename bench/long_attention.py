"""Attention over long inputs at the real model sizes (random weights with the bert-base and GPT-2 shapes): for 128,
256, 512 (and 1,024 for GPT-2) tokens, the time to the first view, the time to switch head, layer or view, each
view's payload, and the server's memory per session with 40 sessions.

    python bench/long_attention.py [--repeats 3] [--sessions 40] [--skip-memory]

What is timed is what the server does for a click: the Attention tab's handler (the model run, or the shared copy
found), the figure, and the figure as the JSON gradio sends (plotly's to_json). The browser's drawing is not in it.
"Every view ready" is when the thread that prepares the views over every map (statistics, thumbnails, rollout) is
done; the switches are timed after it, as a student clicks after looking at the first view.
Memory: the process's resident set before and after 40 sessions each open a text and draw a view, kept as gradio
keeps them (each session's Ref in a list); once with 40 sessions on the teacher's one text, once with 40 texts,
where the shared copies' budget (BG_DEMO_ATTENTION_CACHE_MB) bounds what is kept.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.classroom import build_models  # noqa: E402

SIZES = {"encoder": (128, 256, 512), "decoder": (128, 256, 512, 1024)}
TARGETS = {"encoder": (512, 3.0), "decoder": (1024, 6.0)}  # (tokens, first view within s)
SWITCH_TARGET, PAYLOAD_TARGET, MEMORY_TARGET = 0.5, 1.0, 10.0  # s, MB, MB per session
WORDS = ("the river bank where the cat sat and watched boats drift past the old mill while children "
         "read stories about a walk to town on a quiet morning").split()


def rss_mb() -> float:
    """Resident set in MB, after handing freed heap back to the system (glibc keeps it otherwise, and a later
    allocation reusing it would not show as growth)."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def text_of(tokenizer, n: int, tag: str = "") -> str:
    """A text that makes exactly n tokens (special tokens counted), `tag` in front to make it a new text."""
    words = [tag] if tag else []
    i = 0
    while len(tokenizer(" ".join(words))["input_ids"]) < n:
        words.append(WORDS[i % len(WORDS)])
        i += 1
    while len(tokenizer(" ".join(words))["input_ids"]) > n:
        words.pop()
    return " ".join(words)


def timed(fn) -> tuple[float, object]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--size", choices=("base", "tiny"), default="base")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["BG_DEMO_MODEL_DIR"] = folder = build_models(args.size)
    import plotly.io as pio
    import torch
    from transformers import AutoTokenizer

    from bg_demo.look import Look
    from bg_demo.ui import attention_store, attention_tab

    tokenizers = {role: AutoTokenizer.from_pretrained(Path(folder) / role) for role in SIZES}
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {args.size} sizes (bert-base, GPT-2 small)")
    views = ("head", "focus", "layer", "heads", "overview", "lines", "mean", "rollout")
    laptop = Look("en", 1366)  # every figure drawn for a 1366-px page

    def shown(ref, view, layer=0, head=0, query=0):
        layer, head = min(layer, ref.shape[0] - 1), min(head, ref.shape[1] - 1)  # the tiny models have fewer
        fig = attention_tab.draw(ref, laptop, view, layer, head, False, "entropy", query, 4)
        return len(pio.to_json(fig, validate=False).encode())

    rows = []
    for role, sizes in SIZES.items():
        attention_tab.show(text_of(tokenizers[role], 16, "warm"), role)  # the model loaded before timing
        for n in sizes:
            firsts, ready, switches, payload = [], [], {}, {}
            for r in range(args.repeats):
                text = text_of(tokenizers[role], n, f"r{r}")
                seconds, (ref, *_) = timed(lambda text=text: attention_tab.show(text, role))
                draw_s, _ = timed(lambda ref=ref: shown(ref, "head"))
                firsts.append(seconds + draw_s)
                waited, _ = timed(lambda: [t.join() for t in list(attention_store.shared().preparing.values())])
                ready.append(seconds + draw_s + waited)  # the views over every map prepared, on their thread
                for label, call in (("head", lambda ref=ref: shown(ref, "head", 0, 3)),
                                    ("layer", lambda ref=ref: shown(ref, "head", 5, 3)),
                                    *((f"view:{v}", lambda ref=ref, v=v: shown(ref, v, 5, 3, n // 2))
                                      for v in views)):
                    seconds, size = timed(call)
                    switches.setdefault(label, []).append(seconds)
                    if label.startswith("view:"):
                        payload[label[5:]] = size
            switch = {label: statistics.median(values) for label, values in switches.items()}
            rows.append((role, n, statistics.median(firsts), switch, payload, statistics.median(ready)))
    print("\n## Time to the first view, to switch, and payloads (medians of", args.repeats, "runs)\n")
    print("| model | tokens | first view s | every view ready s | head switch s | layer switch s | slowest view switch s "
          "| largest figure MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for role, n, first, switch, payload, ready_s in rows:
        slowest = max((label for label in switch if label.startswith("view:")), key=switch.get)
        largest = max(payload, key=payload.get)
        print(f"| {role} | {n} | {first:.2f} | {ready_s:.2f} | {switch['head']:.3f} | {switch['layer']:.3f} | "
              f"{switch[slowest]:.3f} ({slowest[5:]}) | {payload[largest] / 1e6:.2f} ({largest}) |")
    print("\n## Each view at the longest input: switch time and payload\n")
    print("| model | tokens | " + " | ".join(views) + " |")
    print("|---|---:|" + "---:|" * len(views))
    for role, n, _, switch, payload, _ in rows:
        if n == SIZES[role][-1]:
            cells = [f"{switch['view:' + v]:.2f} s / {payload[v] / 1e6:.2f} MB" for v in views]
            print(f"| {role} | {n} | " + " | ".join(cells) + " |")
    verdicts = []
    for role, (n, limit) in TARGETS.items():
        _, _, first, switch, payload, _ = next(row for row in rows if row[0] == role and row[1] == n)
        verdicts.append(f"{role} {n}: first view {first:.2f} s (target {limit} s) "
                        f"{'met' if first <= limit else 'MISSED'}; slowest switch {max(switch.values()):.2f} s "
                        f"(target {SWITCH_TARGET} s) {'met' if max(switch.values()) <= SWITCH_TARGET else 'MISSED'}; "
                        f"largest figure {max(payload.values()) / 1e6:.2f} MB (target {PAYLOAD_TARGET} MB) "
                        f"{'met' if max(payload.values()) / 1e6 <= PAYLOAD_TARGET else 'MISSED'}")
    print("\n" + "\n".join(verdicts))
    if args.skip_memory:
        return 0

    print(f"\n## Server memory per session, {args.sessions} sessions (resident set growth / sessions)\n")
    print(f"shared copies' budget: {attention_store.shared().budget / 1e6:.0f} MB")
    print("| model | tokens | texts | model runs | kept copies | MB per session | target |")
    print("|---|---:|---|---:|---:|---:|---|")
    for role, (n, _) in TARGETS.items():
        for label, distinct in (("one (the teacher's link)", False), (f"{args.sessions} different", True)):
            store = attention_store.shared()
            store._results.clear()  # a fresh start: what the earlier phase kept is not counted
            runs = store.runs
            gc.collect()
            before = rss_mb()
            sessions = []
            for s in range(args.sessions):
                ref, *_ = attention_tab.show(text_of(tokenizers[role], n, f"s{s}" if distinct else "teacher"), role)
                attention_tab.draw(ref, laptop, "head", 1, 1, False, "entropy")
                sessions.append(ref)  # what gradio keeps per session: the state's Ref
            gc.collect()
            per = (rss_mb() - before) / args.sessions
            print(f"| {role} | {n} | {label} | {store.runs - runs} | {len(store)} | {per:.1f} | "
                  f"{'met' if per <= MEMORY_TARGET else 'MISSED'} (≤ {MEMORY_TARGET:.0f}) |")
            del sessions
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
