"""A classroom on one CPU: many students calling the app at once, through the Gradio API, on loopback.

    python bench/load.py [--students 20] [--rounds 3] [--size base|tiny]

--size base (the default) serves random weights with the real bert-base and GPT-2 shapes (the
tiny tokenizers feed them), so the cost per request is that of the default models; --size tiny
serves the test models. Each student runs, `--rounds` times: a fill-mask, a sentiment and a
20-token greedy generation. Prints the latency of each endpoint and the number of failures.
The load stays on 127.0.0.1 and ends by itself.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CALLS = {
    "/fill_mask": ("The cat sat on the [MASK].", 5),
    "/classify": ("I loved this movie, the acting was wonderful.",),
    "/generate": ("Once upon a time", "greedy", 20, 1.0, 50, 0.9, 4, 1, None, 0, 1.0),
}


def build_models(size: str) -> str:
    from bg_demo.testing import build_tiny_models

    folder = tempfile.mkdtemp(prefix=f"bg-demo-load-{size}-")
    build_tiny_models(folder, roles=("encoder", "sentiment", "decoder"))
    if size == "base":
        import torch
        from transformers import (
            BertConfig,
            BertForPreTraining,
            DistilBertConfig,
            DistilBertForSequenceClassification,
            GPT2Config,
            GPT2LMHeadModel,
        )

        torch.manual_seed(0)
        labels = dict(id2label={0: "NEGATIVE", 1: "POSITIVE"}, label2id={"NEGATIVE": 0, "POSITIVE": 1})
        BertForPreTraining(BertConfig()).save_pretrained(Path(folder) / "encoder")
        DistilBertForSequenceClassification(DistilBertConfig(**labels)).save_pretrained(Path(folder) / "sentiment")
        GPT2LMHeadModel(GPT2Config()).save_pretrained(Path(folder) / "decoder")
    return folder


def student(url: str, rounds: int, latencies: dict, failures: list) -> None:
    from gradio_client import Client

    client = Client(url, verbose=False)
    for _ in range(rounds):
        for endpoint, args in CALLS.items():
            started = time.perf_counter()
            try:
                client.predict(*args, api_name=endpoint)
                latencies[endpoint].append(time.perf_counter() - started)
            except Exception as exc:  # noqa: BLE001 - counted and reported
                failures.append(f"{endpoint}: {exc}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", choices=("base", "tiny"), default="base")
    args = parser.parse_args()
    os.environ["BG_DEMO_MODEL_DIR"] = build_models(args.size)
    from bg_demo.backend import classify, fill_mask, generate
    from bg_demo.ui import build_demo

    fill_mask("A [MASK]."), classify("Warm up."), generate("Warm", max_new_tokens=2)  # load before timing
    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    latencies = {endpoint: [] for endpoint in CALLS}
    failures: list[str] = []
    started = time.perf_counter()
    threads = [threading.Thread(target=student, args=(url, args.rounds, latencies, failures)) for _ in range(args.students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=1800)
    wall = time.perf_counter() - started
    demo.close()

    print(f"{args.students} students x {args.rounds} rounds, {args.size} models, {wall:.1f} s in all")
    print(f"{'endpoint':14s} {'calls':>6s} {'median s':>9s} {'p95 s':>7s} {'max s':>7s}")
    for endpoint, values in latencies.items():
        values.sort()
        p95 = values[int(0.95 * (len(values) - 1))] if values else float("nan")
        median = statistics.median(values) if values else float("nan")
        print(f"{endpoint:14s} {len(values):6d} {median:9.2f} {p95:7.2f} {max(values, default=float('nan')):7.2f}")
    print(f"failures: {len(failures)}")
    for failure in failures[:5]:
        print("  ", failure[:200])
    return 0


if __name__ == "__main__":
    sys.exit(main())
