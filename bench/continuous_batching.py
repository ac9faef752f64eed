"""Throughput of transformers' continuous batching (generate_batch) against one padded model.generate, on CPU.

    python bench/continuous_batching.py [--repeats 3]

GPT-2 124M with random weights (torch.manual_seed(0); GPT2LMHeadModel(GPT2Config())), 20 prompts of 5-8 random
token ids, 20 new greedy tokens each, no EOS stop. Rows, measured in turns so load on the machine hits all alike:
  plain generate, batch 1 / batch 20   left padding + attention mask, pad_token_id=eos, min_new_tokens=20
  generate_batch, default config       ContinuousBatchingConfig() as shipped (cache sized from free RAM)
  generate_batch, tuned (sdpa / eager) small cache sized for the workload
  running manager, tuned               init_continuous_batching() once, then add_requests() per round: serving cost
"seconds" is the median wall time of one call (generate_batch rows include building and tearing down the manager);
tok/s counts generated tokens; "vs b20" is tok/s over plain generate batch 20; "same" compares greedy tokens with
plain generate batch 20, row by row. No network: weights are random and nothing is downloaded.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from transformers import GenerationConfig, GPT2Config, GPT2LMHeadModel
from transformers.generation.configuration_utils import ContinuousBatchingConfig
from transformers.utils import logging

NEW_TOKENS = 20
EOS = 50256
TUNED = {"page_size": 32, "num_blocks": 32, "max_batch_tokens": 256}  # 20 requests x 1 page of 32 tokens each


def make_prompts(count: int = 20) -> list[list[int]]:
    generator = torch.Generator().manual_seed(1)
    lengths = torch.randint(5, 9, (count,), generator=generator).tolist()
    return [torch.randint(0, EOS, (n,), generator=generator).tolist() for n in lengths]


def plain_generate(model: GPT2LMHeadModel, prompts: list[list[int]]) -> list[list[int]]:
    width = max(map(len, prompts))
    input_ids = torch.tensor([[EOS] * (width - len(p)) + p for p in prompts])
    attention_mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    out = model.generate(
        input_ids=input_ids, attention_mask=attention_mask, pad_token_id=EOS, do_sample=False,
        max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS,
    )  # fmt: skip
    return out[:, width:].tolist()


def cb_generation_config() -> GenerationConfig:
    # eos_token_id=-1 disables the EOS stop, the continuous-batching counterpart of min_new_tokens=max_new_tokens
    return GenerationConfig(max_new_tokens=NEW_TOKENS, do_sample=False, eos_token_id=-1)


def generate_batch(model: GPT2LMHeadModel, prompts: list[list[int]], attn: str, **cb_kwargs) -> list[list[int]]:
    config = ContinuousBatchingConfig(**cb_kwargs) if cb_kwargs else None
    model.set_attn_implementation(attn)
    try:
        out = model.generate_batch(prompts, generation_config=cb_generation_config(), continuous_batching_config=config)
    finally:
        model.set_attn_implementation("sdpa")
    return [result.generated_tokens for result in out.values()]  # generate_batch returns them in input order


class RunningManager:
    """A manager started once and fed requests, as a server would; generation runs on its own thread."""

    def __init__(self, model: GPT2LMHeadModel) -> None:
        config = ContinuousBatchingConfig(**TUNED)
        self.manager = model.init_continuous_batching(cb_generation_config(), continuous_batching_config=config)
        self.manager.start()

    def __call__(self, prompts: list[list[int]]) -> list[list[int]]:
        request_ids = self.manager.add_requests(prompts, max_new_tokens=NEW_TOKENS)
        results = {}
        while len(results) < len(request_ids):
            result = self.manager.get_result(timeout=60)
            if result is None:
                raise RuntimeError("continuous batching manager stopped answering")
            if result.is_finished():
                results[result.request_id] = result
        return [results[request_id].generated_tokens for request_id in request_ids]

    def close(self) -> None:
        self.manager.stop(block=True)
        self.manager.destroy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    logging.set_verbosity_error()

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).eval()
    prompts = make_prompts()
    running = RunningManager(model)
    variants = {
        "plain generate, batch 1": (1, lambda: plain_generate(model, prompts[:1])),
        "plain generate, batch 20": (20, lambda: plain_generate(model, prompts)),
        "generate_batch, default config (sdpa)": (20, lambda: generate_batch(model, prompts, "sdpa")),
        "generate_batch, tuned, sdpa": (20, lambda: generate_batch(model, prompts, "sdpa", **TUNED)),
        "generate_batch, tuned, paged|eager": (20, lambda: generate_batch(model, prompts, "paged|eager", **TUNED)),
        "running manager, tuned, sdpa": (20, lambda: running(prompts)),
    }
    try:
        outputs = {name: fn() for name, (_, fn) in variants.items()}  # warm-up, and the tokens to compare
        times = {name: [] for name in variants}
        for _ in range(args.repeats):
            for name, (_, fn) in variants.items():
                started = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - started)
    finally:
        running.close()

    reference = outputs["plain generate, batch 20"]
    base_rate = 20 * NEW_TOKENS / statistics.median(times["plain generate, batch 20"])
    print(f"\nGPT-2 124M on CPU ({torch.get_num_threads()} threads), {len(prompts)} prompts of 5-8 tokens, "
          f"{NEW_TOKENS} new tokens, median of {args.repeats}; tuned = {TUNED}")  # fmt: skip
    print(f"{'variant':40s} {'seconds':>8s} {'min s':>7s} {'tokens':>6s} {'tok/s':>7s} {'vs b20':>7s} {'same':>6s}")
    for name, (rows, _) in variants.items():
        seconds = statistics.median(times[name])
        rate = rows * NEW_TOKENS / seconds
        same = sum(a == b for a, b in zip(outputs[name], reference))
        print(f"{name:40s} {seconds:8.2f} {min(times[name]):7.2f} {rows * NEW_TOKENS:6d} {rate:7.1f} "
              f"{rate / base_rate:6.2f}x {same:>3d}/{rows}")  # fmt: skip


if __name__ == "__main__":
    main()
