"""What labelling every new token costs a stream, on a decoder whose tokenizer has many added tokens.

    python bench/labels.py [--added 5000] [--new-tokens 40] [--repeats 5]

The engine labels each new token (`bg_demo.tokens`) as it decodes. On the tiny decoder a forward pass costs
almost nothing, so the engine's speed next to plain `model.generate` on the same model is what the labels
cost; the tokenizer first alone, then with `--added` tokens added (transformers 5 rebuilds
`added_tokens_decoder` at every access, so the labels must not read it per token).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench_cpu import median_seconds  # noqa: E402 - after the path is set

PROMPT = "Once upon a time in a distant galaxy,"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--added", type=int, default=5000)
    parser.add_argument("--new-tokens", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from bg_demo.backend.generation.engine import DecodingEngine
    from bg_demo.backend.generation.types import GenerationSettings, Request
    from bg_demo.models import LoadedModel
    from bg_demo.tiny_models import build_tiny_models

    folder = build_tiny_models(tempfile.mkdtemp(prefix="bg-demo-bench-"), roles=("decoder",))["decoder"]
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    n = args.new_tokens
    settings = GenerationSettings("greedy", n)

    def plain(tokenizer):
        ids = tokenizer(PROMPT, return_tensors="pt")
        with torch.inference_mode():
            model.generate(**ids, max_new_tokens=n, min_new_tokens=n, do_sample=False,
                           pad_token_id=tokenizer.eos_token_id)

    print(f"tiny decoder, greedy, {n} new tokens, median of {args.repeats}")
    print(f"\n{'tokenizer':28s} {'generate ms':>12s} {'engine ms':>10s} {'engine speed':>13s}")
    for added in (0, args.added):
        tokenizer = AutoTokenizer.from_pretrained(folder)
        tokenizer.add_tokens([f"<added_{i}>" for i in range(added)])
        engine = DecodingEngine(LoadedModel("decoder", "tiny", tokenizer, model, "cpu"))
        # min_new_tokens is generate's; the engine may stop at end of text, so the rate is per token made
        made = []

        def through_engine():
            *_, final = engine.submit(Request.of(PROMPT, settings))
            made.append(final.n_tokens)

        result = median_seconds({"generate": lambda: plain(tokenizer), "engine": through_engine}, args.repeats)
        per_token = result["engine"] / max(1, min(made)) * n
        print(f"{f'{added} added tokens':28s} {result['generate'] * 1000:12.1f} {per_token * 1000:10.1f} "
              f"{result['generate'] / per_token:12.2f}x")
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
