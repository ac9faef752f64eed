"""The "why" view at the real model sizes (random weights with the bert-base, DistilBERT and GPT-2 shapes):
what an explanation costs beside the plain prediction, and how the integrated-gradients step count trades
time for the completeness gap.

    python bench/explain.py [--repeats 3]

One table per task; the variants take turns in one run (bench_cpu.median_seconds), every ratio is
against the plain prediction of the same sentence.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_cpu import median_seconds  # noqa: E402
from bench.classroom import build_models  # noqa: E402

SENTENCE = "The animal didn't cross the street because it was too tired."  # a one-sentence input, 14 tokens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["BG_DEMO_MODEL_DIR"] = build_models("base")
    import torch

    from bg_demo import backend

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; bert-base / DistilBERT / GPT-2 sizes")
    masked = SENTENCE.replace("street", "[MASK]")
    tasks = {
        "fill-mask (BERT)": (lambda: backend.fill_mask(masked),
                             lambda steps: backend.explain_fill_mask(masked, steps=steps)),
        "sentiment (DistilBERT)": (lambda: backend.classify(SENTENCE),
                                   lambda steps: backend.explain_classify(SENTENCE, steps=steps)),
        "next token (GPT-2)": (lambda: backend.next_token(SENTENCE, 1.0, seed=0),
                               lambda steps: backend.explain_next_token(SENTENCE, steps=steps)),
    }
    for name, (predict, explain) in tasks.items():
        variants = {"prediction alone": predict}
        variants |= {f"explanation, {steps} IG steps": (lambda s=steps: explain(s)) for steps in (16, 32, 64)}
        times = median_seconds(variants, args.repeats)
        gaps = {steps: abs(explain(steps).completeness_gap) for steps in (16, 32, 64)}
        base = times["prediction alone"]
        print(f"\n{name}: '{SENTENCE}'")
        print(f"{'variant':32s} {'seconds':>8s} {'vs prediction':>14s} {'|completeness gap|':>19s}")
        for variant, seconds in times.items():
            steps = int(variant.split(", ")[1].split()[0]) if "," in variant else None
            gap = f"{gaps[steps]:.1e}" if steps else ""
            print(f"{variant:32s} {seconds:8.2f} {seconds / base:13.1f}x {gap:>19s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
