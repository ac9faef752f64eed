"""The decoding engine against plain `model.generate`, at GPT-2 size (random weights), side by side in one run.

    python bench/engine.py [--new-tokens 20] [--students 20] [--repeats 3]

Two questions: is one student alone as fast through the engine as through `generate` (the engine also
records every token's probability and rank), and how close does the engine come, with every request
submitted on its own, to one padded `generate` batch of all of them (which no server can form, since
students do not arrive together)? The variants take turns; each figure is the median of the repeats.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench_cpu import median_seconds  # noqa: E402 - after the path is set

PROMPTS = ["Once upon a time", "The capital of France is", "In the beginning", "My favourite food is",
           "Machine learning is", "The weather today", "She opened the door and", "Attention is all you need"]


def load_gpt2():
    """GPT-2 (124M) with random weights and the tiny models' byte-level BPE tokenizer, as a LoadedModel."""
    import torch
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    from bg_demo.models import LoadedModel
    from bg_demo.tiny_models import build_tiny_models

    folder = Path(tempfile.mkdtemp(prefix="bg-demo-bench-"))
    build_tiny_models(folder, roles=("decoder",))
    tokenizer = AutoTokenizer.from_pretrained(folder / "decoder")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id))
    return LoadedModel("decoder", "gpt2-size (random weights)", tokenizer, model.eval(), "cpu")


def plain_generate(loaded, prompts: list[str], new_tokens: int):
    """One left-padded `generate` batch of every prompt, each making exactly `new_tokens`."""
    import torch

    tokenizer = loaded.tokenizer
    tokenizer.padding_side, tokenizer.pad_token = "left", tokenizer.eos_token
    batch = tokenizer(prompts, return_tensors="pt", padding=True)
    with torch.inference_mode():
        loaded.model.generate(**batch, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                              pad_token_id=tokenizer.eos_token_id)


def through_engine(engine, prompts: list[str], new_tokens: int):
    """Every prompt submitted as its own request at once, each read by its own thread, as the app does."""
    from bg_demo.backend.generation.types import GenerationSettings, Request

    handles = [engine.submit(Request.of(p, GenerationSettings("greedy", new_tokens))) for p in prompts]
    finals = [None] * len(handles)

    def read(i):
        *_, finals[i] = handles[i]

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(handles))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(final.n_tokens == new_tokens for final in finals), [final.stopped for final in finals]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new-tokens", type=int, default=20)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import torch

    from bg_demo.backend.generation.engine import DecodingEngine

    loaded = load_gpt2()
    engine = DecodingEngine(loaded, max_rows=max(32, args.students))
    n, one = args.new_tokens, PROMPTS[:1]
    many = [PROMPTS[i % len(PROMPTS)] for i in range(args.students)]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs; "
          f"GPT-2 size, greedy, {n} new tokens, median of {args.repeats}")
    result = median_seconds({
        "1 student: model.generate": lambda: plain_generate(loaded, one, n),
        "1 student: engine": lambda: through_engine(engine, one, n),
        f"{args.students} students: one padded model.generate batch": lambda: plain_generate(loaded, many, n),
        f"{args.students} students: engine, each submitted on its own": lambda: through_engine(engine, many, n),
    }, args.repeats)
    rows = list(result.items())
    print(f"\n{'variant':58s} {'seconds':>8s} {'tokens/s':>9s}")
    for name, seconds in rows:
        students = 1 if name.startswith("1 ") else args.students
        print(f"{name:58s} {seconds:8.2f} {students * n / seconds:9.1f}")
    (_, alone_plain), (_, alone_engine), (_, batch_plain), (_, batch_engine) = rows
    print(f"\nlone speed, engine vs generate: {alone_plain / alone_engine:.2f}x")
    print(f"{args.students} students, engine vs one padded batch: {batch_plain / batch_engine:.2f}x")
    rate = args.students * alone_engine / batch_engine
    print(f"{args.students} students, engine aggregate vs one stream: {rate:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
