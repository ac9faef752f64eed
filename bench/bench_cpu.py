"""CPU benchmarks at the real model sizes (random weights with bert-base / GPT-2 configs), side by side.

    python bench/bench_cpu.py [--tokens 128] [--repeats 5] [--new-tokens 48]

Prints one table per question; every ratio compares two ways of doing the same work, measured in
the same run on the same machine. Weights are random because the Hub is not needed for timing:
the shapes, and so the cost, are those of google-bert/bert-base-uncased and openai-community/gpt2.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_seconds(variants: dict, repeats: int) -> dict:
    """Median wall time of each variant; the variants take turns, so load on the machine hits all alike."""
    for fn in variants.values():
        fn()  # warm-up
    times = {name: [] for name in variants}
    for _ in range(repeats):
        for name, fn in variants.items():
            started = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def table(title: str, rows: list[tuple[str, float]], unit: str = "ms") -> None:
    base = rows[0][1]
    print(f"\n{title}")
    print(f"{'variant':48s} {unit:>10s} {'vs first':>9s}")
    for name, value in rows:
        shown = value * 1000 if unit == "ms" else value
        print(f"{name:48s} {shown:10.1f} {value / base:8.2f}x")


def bench_bert(tokens: int, repeats: int) -> None:
    import copy

    import torch
    from transformers import BertConfig, BertForPreTraining

    from bg_demo.backend.fill_mask import mlm_logits
    from bg_demo.models import choose_linear_kernels, linear_layers_through_onednn

    torch.manual_seed(0)
    config = BertConfig()  # bert-base: 12 layers, 12 heads, hidden 768, vocabulary 30,522
    model = BertForPreTraining(config).eval()
    ids = torch.randint(1000, config.vocab_size, (1, tokens))
    ids[0, tokens // 2] = 103  # one [MASK]
    encoding = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    positions = torch.tensor([tokens // 2])

    with torch.inference_mode():
        result = median_seconds({
            "MLM head on every token (model(...).prediction_logits)": lambda: model(**encoding).prediction_logits,
            "MLM head at the mask only (bg_demo.fill_mask)": lambda: mlm_logits(model, encoding, positions),
        }, repeats)
    table(f"Fill-mask, bert-base, {tokens} tokens, one mask", list(result.items()))

    def body(implementation: str, **kwargs):
        def run():
            model.set_attn_implementation(implementation)
            return model.bert(**encoding, **kwargs)
        return run

    routed = copy.deepcopy(model)
    linear_layers_through_onednn(routed)  # oneDNN at every row count
    chosen = copy.deepcopy(model)
    picked = choose_linear_kernels(chosen)  # as bg_demo.models loads a model for a CPU: measured here
    print("\nbert-base: linear layers through oneDNN (measured at load, this machine) at "
          + ", ".join(f"{rows} row(s): {'yes' if faster else 'no'}" for rows, faster in picked.items()))

    def routed_body():
        return routed.bert(**encoding)

    def chosen_body():
        return chosen.bert(**encoding)

    with torch.inference_mode():
        result = median_seconds({
            "sdpa (tasks that need no attention map)": body("sdpa"),
            "eager": body("eager"),
            "eager + output_attentions (Attention tab)": body("eager", output_attentions=True),
            "sdpa, linear layers through oneDNN at every row count": routed_body,
            "sdpa, the kernel measured faster here (bg_demo on a CPU)": chosen_body,
        }, repeats)
    model.set_attn_implementation("sdpa")
    table(f"BERT body, bert-base, {tokens} tokens", list(result.items()))


def bench_vocabulary(repeats: int) -> None:
    """The vocabulary projection (hidden states times the tied token-embedding matrix), the matrix stored by rows
    as it is saved against by columns as `bg_demo.models.vocabulary_by_columns` lays it out for a CPU."""
    import torch

    from bg_demo.models import vocabulary_by_columns

    torch.manual_seed(0)
    for name, words in (("bert-base", 30_522), ("GPT-2", 50_257)):
        head = torch.nn.Linear(768, words, bias=False)
        by_columns = torch.nn.Linear(768, words, bias=False)
        by_columns.weight.data.copy_(head.weight.data)
        vocabulary_by_columns(type("Model", (), {"get_output_embeddings": lambda self, h=by_columns: h})())
        for rows in (1, 20, 128):
            hidden = torch.randn(rows, 768)
            with torch.inference_mode():
                result = median_seconds({"by rows (as saved)": lambda: head(hidden),
                                         "by columns (bg_demo on a CPU)": lambda: by_columns(hidden)},
                                        max(repeats, 20))
            table(f"{name} vocabulary projection ({words} x 768), {rows} row(s)", list(result.items()))


def bench_linear_kernels(repeats: int) -> None:
    """torch's own linear kernel (its BLAS: MKL on x86) against oneDNN's, as `bg_demo.models.linear_layers_through_onednn`
    runs a CPU model's inference: a bert-base-size stack of layers (12 x query, key, value, output, feed-forward in
    and out: 340 MB of weights, more than any cache, as a forward pass reads them), and the vocabulary projections
    by columns, as the app holds them, at the rows a guess, a sentence and a class's decoding step multiply."""
    import copy
    import types

    import torch

    from bg_demo.models import _linear_through_onednn, linear_layers_through_onednn

    torch.manual_seed(0)
    shapes = [(768, 768)] * 4 + [(3072, 768), (768, 3072)]
    stack = torch.nn.Sequential(*(torch.nn.Linear(i, o) for _ in range(12) for o, i in shapes)).eval()
    through = copy.deepcopy(stack)
    linear_layers_through_onednn(through)
    for rows in (1, 9, 20, 64):
        inputs = {width: torch.randn(rows, width) for width in (768, 3072)}
        with torch.inference_mode():
            result = median_seconds({
                "torch's own (MKL)": lambda: [layer(inputs[layer.in_features]) for layer in stack],
                "oneDNN (bg_demo on a CPU)": lambda: [layer(inputs[layer.in_features]) for layer in through],
            }, max(repeats, 10))
        table(f"bert-base's 72 linear layers, {rows} row(s)", list(result.items()))
    for rows in (128, 2048):  # an explanation's batched pass, forward and the gradient back to its input
        inputs = {width: torch.randn(rows, width, requires_grad=True) for width in (768, 3072)}

        def pass_back(layers):
            def run():
                for layer in layers:
                    layer(inputs[layer.in_features]).sum().backward()
            return run

        for layers in (stack, through):
            layers.requires_grad_(False)
        result = median_seconds({"torch's own (MKL)": pass_back(stack), "oneDNN (bg_demo on a CPU)": pass_back(through)},
                                max(repeats, 5))
        table(f"bert-base's 72 linear layers, {rows} rows, forward and the input's gradient", list(result.items()))
    for name, words in (("bert-base", 30_522), ("GPT-2", 50_257)):
        head = torch.nn.Linear(768, words, bias=False)
        head.weight.data = head.weight.data.t().contiguous().t()  # by columns, as `vocabulary_by_columns` holds it
        routed = types.SimpleNamespace(weight=head.weight, bias=None)
        for rows in (1, 20):
            hidden = torch.randn(rows, 768)
            with torch.inference_mode():
                result = median_seconds({"torch's own (MKL)": lambda: head(hidden),
                                         "oneDNN (bg_demo on a CPU)": lambda: _linear_through_onednn(routed, hidden)},
                                        max(repeats, 20))
            table(f"{name} vocabulary projection by columns, {rows} row(s)", list(result.items()))


def bench_gpt2(new_tokens: int) -> None:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from bg_demo.models import (
        choose_linear_kernels,
        gelu_in_one_kernel,
        linear_layers_through_onednn,
        vocabulary_by_columns,
    )

    torch.manual_seed(0)
    config = GPT2Config()  # gpt2: 12 layers, 12 heads, hidden 768, vocabulary 50,257
    model = GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, config.vocab_size, (1, 12))
    kwargs = dict(max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False, pad_token_id=0)
    half = GPT2LMHeadModel(config).eval()
    half.load_state_dict(model.state_dict())
    half.to(torch.bfloat16)
    by_columns = GPT2LMHeadModel(config).eval()
    by_columns.load_state_dict(model.state_dict())
    vocabulary_by_columns(by_columns)
    onednn = GPT2LMHeadModel(config).eval()
    onednn.load_state_dict(model.state_dict())
    vocabulary_by_columns(onednn)
    linear_layers_through_onednn(onednn)
    fused = GPT2LMHeadModel(config).eval()
    fused.load_state_dict(model.state_dict())
    vocabulary_by_columns(fused)  # as bg_demo.models loads a model for a CPU: the kernels measured here
    picked = choose_linear_kernels(fused)
    gelu_in_one_kernel(fused)
    print("\nGPT-2: linear layers through oneDNN (measured at load, this machine) at "
          + ", ".join(f"{rows} row(s): {'yes' if faster else 'no'}" for rows, faster in picked.items()))

    def decode(m):
        return lambda: m.generate(ids, attention_mask=torch.ones_like(ids), **kwargs)

    with torch.inference_mode():
        result = median_seconds({"greedy, float32, vocabulary by rows (as saved)": decode(model),
                                 "greedy, float32, vocabulary by columns": decode(by_columns),
                                 "greedy, float32, by columns, linear layers through oneDNN": decode(onednn),
                                 "greedy, float32, by columns, kernels measured, GELU in one kernel (bg_demo)":
                                     decode(fused),
                                 "greedy, bfloat16": decode(half)}, 3)
    rows = [(name, new_tokens / seconds) for name, seconds in result.items()]
    table(f"GPT-2 (124M) greedy decoding, {new_tokens} new tokens", rows, unit="tokens/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--new-tokens", type=int, default=48)
    args = parser.parse_args()
    import torch

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs")
    bench_vocabulary(args.repeats)
    bench_linear_kernels(args.repeats)
    bench_bert(args.tokens, args.repeats)
    bench_gpt2(args.new_tokens)
    return 0


if __name__ == "__main__":
    sys.exit(main())
