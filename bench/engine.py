"""The decoding engine against plain `model.generate`, at GPT-2 size (random weights), side by side in one run.

    python bench/engine.py [--new-tokens 20] [--students 20] [--repeats 3]

Two questions: is one student alone as fast through the engine as through `generate` (the engine also
records every token's probability and rank), and how close does the engine come, with every request
submitted on its own, to one padded `generate` batch of all of them (which no server can form, since
students do not arrive together)? The variants take turns; each figure is the median of the repeats.

Then the roofline: the decoding step's matrix products alone (GPT-2's every linear layer and the vocabulary head,
at 1 row and at --students rows, timed with the same torch), the floor no decoding of those tokens can go under,
and how near the engine comes to it; one step with the cache grown as transformers grows it against the engine's
(`generation.static.StaticBatch`); the engine's own work per step apart from the model's (on the tiny decoder, whose
forward pass costs almost nothing: its steps against `generate`'s, its readers reading every step and as the page
reads); and the BERT side's one parity of cost: `backend.fill_mask` against transformers'
`pipeline("fill-mask")` on the same bert-base-size weights (the vocabulary head at the masks only).

The GPT-2 is held as `bg_demo.models.load_model` holds a model on a CPU (the vocabulary by columns, the linear
layers through oneDNN, the activation in one kernel); the fill-mask model is loaded by `load_model` itself, while the
pipeline loads its own as transformers does.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench_cpu import median_seconds  # noqa: E402 - after the path is set

PROMPTS = ["Once upon a time", "The capital of France is", "In the beginning", "My favourite food is",
           "Machine learning is", "The weather today", "She opened the door and", "Attention is all you need"]


def load_gpt2(plain: bool = False):
    """GPT-2 (124M) with random weights and the tiny models' byte-level BPE tokenizer, as a LoadedModel: held as the
    app holds it on a CPU, or with `plain` as transformers loads it (no CPU choices of the app's)."""
    import torch
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    from bg_demo.models import LoadedModel, choose_linear_kernels, gelu_in_one_kernel, vocabulary_by_columns
    from bg_demo.tiny_models import build_tiny_models

    folder = Path(tempfile.mkdtemp(prefix="bg-demo-bench-"))
    build_tiny_models(folder, roles=("decoder",))
    tokenizer = AutoTokenizer.from_pretrained(folder / "decoder")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id))
    if not plain:
        vocabulary_by_columns(model)  # as `bg_demo.models.load_model` lays it out and runs it on a CPU
        chosen = choose_linear_kernels(model)
        print("linear layers through oneDNN at " + ", ".join(f"{rows} row(s): {'yes' if faster else 'no'}"
                                                             for rows, faster in chosen.items()), flush=True)
        gelu_in_one_kernel(model)
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


def through_engine(engine, prompts: list[str], new_tokens: int, pause: float = 0.0):
    """Every prompt submitted as its own request at once, each read by its own thread, as the app does; `pause`:
    the reader's rest after each update (the page's streams rest `STREAM_INTERVAL` between two messages)."""
    from bg_demo.backend.generation.types import GenerationSettings, Request

    handles = [engine.submit(Request.of(p, GenerationSettings("greedy", new_tokens), client=f"student-{i}"))
               for i, p in enumerate(prompts)]
    finals = [None] * len(handles)

    def read(i):
        for update in handles[i]:
            finals[i] = update
            if pause and not update.done:
                time.sleep(pause)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(handles))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if not all(final.n_tokens == new_tokens for final in finals):
        raise RuntimeError(f"not every request made {new_tokens} tokens: " + ", ".join(
            sorted({final.stopped for final in finals if final.n_tokens != new_tokens})))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new-tokens", type=int, default=20)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import torch

    from bg_demo.backend.generation.engine import DecodingEngine

    loaded, raw = load_gpt2(), load_gpt2(plain=True)
    engine = DecodingEngine(loaded, max_rows=max(32, args.students))
    n, one = args.new_tokens, PROMPTS[:1]
    many = [PROMPTS[i % len(PROMPTS)] for i in range(args.students)]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs; "
          f"GPT-2 size, greedy, {n} new tokens, median of {args.repeats}")
    result = median_seconds({
        "1 student: model.generate": lambda: plain_generate(loaded, one, n),
        "1 student: engine": lambda: through_engine(engine, one, n),
        "1 student: raw generate (transformers as loaded)": lambda: plain_generate(raw, one, n),
        f"{args.students} students: one padded model.generate batch": lambda: plain_generate(loaded, many, n),
        f"{args.students} students: engine, each submitted on its own": lambda: through_engine(engine, many, n),
    }, args.repeats)
    rows = list(result.items())
    print(f"\n{'variant':58s} {'seconds':>8s} {'tokens/s':>9s}")
    for name, seconds in rows:
        students = 1 if name.startswith("1 ") else args.students
        print(f"{name:58s} {seconds:8.2f} {students * n / seconds:9.1f}")
    (_, alone_plain), (_, alone_engine), (_, alone_raw), (_, batch_plain), (_, batch_engine) = rows
    print(f"\nlone speed, engine vs generate: {alone_plain / alone_engine:.2f}x; vs raw generate (no CPU choices): "
          f"{alone_raw / alone_engine:.2f}x (target >= 1.0x)")
    print(f"{args.students} students, engine vs one padded batch: {batch_plain / batch_engine:.2f}x")
    rate = args.students * alone_engine / batch_engine
    print(f"{args.students} students, engine aggregate vs one stream: {rate:.1f}x")
    roofline(loaded.model, args.students, n, alone_engine, batch_engine, args.repeats)
    cache_growth(loaded.model, args.students, args.repeats)
    host_work(args.students, args.repeats)
    in_bfloat16(loaded, args.students, n, args.repeats, alone_engine, batch_engine)
    fill_mask_parity(args.repeats)
    return 0


def roofline(model, students: int, new_tokens: int, alone: float, together: float, repeats: int) -> None:
    """The decoding step's matrix products alone, at 1 row and at `students` rows: the floor of the engine's time."""
    import torch

    # every linear layer (GPT-2's Conv1D holds its weight (in, out), a Linear, the vocabulary head, (out, in)),
    # each called as the model calls it: through the kernel `bg_demo.models.load_model` gives it
    layers = [(module, module.weight.shape[0] if type(module).__name__ == "Conv1D" else module.weight.shape[1])
              for module in model.modules() if type(module).__name__ in ("Conv1D", "Linear")]
    flops_per_row = 2 * sum(module.weight.numel() for module, _ in layers)

    def step(rows: int):
        inputs = [torch.randn(rows, width) for _, width in layers]
        return lambda: [module(x) for x, (module, _) in zip(inputs, layers, strict=True)]

    with torch.inference_mode():
        times = median_seconds({1: step(1), students: step(students)}, max(repeats, 5))
    flops = flops_per_row * students
    floor_alone, floor_together = times[1] * new_tokens, times[students] * new_tokens
    print(f"\nroofline: a decoding step's matrix products alone take {times[1] * 1000:.1f} ms at 1 row, "
          f"{times[students] * 1000:.1f} ms at {students} rows ({flops / times[students] / 1e9:.0f} GFLOP/s)")
    print(f"{students} x {new_tokens} tokens: floor {floor_together:.2f} s ({students * new_tokens / floor_together:.0f} "
          f"tokens/s); the engine {together:.2f} s, {floor_together / together:.0%} of it")
    print(f"lone: floor {floor_alone:.2f} s, the engine {alone:.2f} s; so a class of {students} can be at best "
          f"{floor_together / alone:.2f}x a lone student's time (engine now: {together / alone:.2f}x), and decode at "
          f"most {students * alone / floor_together:.1f}x one stream (engine now: {students * alone / together:.1f}x)")


def cache_growth(model, students: int, repeats: int) -> None:
    """One decoding step of `students` rows with transformers' `DynamicCache` (a new tensor for the whole cache at
    every step, the mask built by transformers) against the engine's `static.StaticBatch` (the step's column written
    in place into static buffers, the mask the batch's own), at three cache lengths."""
    import torch
    from transformers import DynamicCache

    from bg_demo.backend.generation.static import StaticBatch

    print(f"\na step of {students} rows, on transformers' DynamicCache vs on the engine's static batch (ms)")
    for length in (30, 100, 200):
        ids = torch.randint(0, model.config.vocab_size, (students, length))
        mask = torch.ones(students, length + 1, dtype=torch.long)
        last, positions = ids[:, -1:], torch.full((students, 1), length)
        dynamic, prefill = DynamicCache(config=model.config), DynamicCache(config=model.config)
        with torch.inference_mode():
            for cache in (dynamic, prefill):
                model(input_ids=ids, attention_mask=mask[:, :length], past_key_values=cache, use_cache=True,
                      logits_to_keep=1)
        batch = StaticBatch(model, "cpu", students, graphs=False)
        batch.join(prefill, mask[:, :length], last[:, 0])

        def dynamic_step():
            with torch.inference_mode():
                model(input_ids=last, attention_mask=mask, position_ids=positions, past_key_values=dynamic,
                      use_cache=True)
            dynamic.crop(-1)  # back to `length` columns, so every repeat is the same step

        times = median_seconds({"DynamicCache": dynamic_step, "static batch": batch.step}, max(repeats, 10))
        print(f"  {length:4d} tokens cached: " + ", ".join(f"{name} {seconds * 1000:.1f}" for name, seconds in times.items()))


def host_work(students: int, repeats: int, new_tokens: int = 64) -> None:
    """What the engine's own work costs a step, apart from the model: on the tiny decoder a forward pass costs
    almost nothing, so its steps against `generate`'s on the same model are the engine's bookkeeping (choosing,
    labelling, publishing) and its readers' wake-ups, read at every step and as the page reads (a rest of
    `STREAM_INTERVAL` after each update)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from bg_demo.backend.generation.engine import DecodingEngine
    from bg_demo.models import LoadedModel
    from bg_demo.tiny_models import build_tiny_models
    from bg_demo.ui.common import STREAM_INTERVAL

    folder = build_tiny_models(tempfile.mkdtemp(prefix="bg-demo-bench-"), roles=("decoder",))["decoder"]
    loaded = LoadedModel("decoder", "tiny", AutoTokenizer.from_pretrained(folder),
                         AutoModelForCausalLM.from_pretrained(folder).eval(), "cpu")
    engine = DecodingEngine(loaded, max_rows=max(32, students))
    many = [PROMPTS[i % len(PROMPTS)] for i in range(students)]
    times = median_seconds({
        "generate": lambda: plain_generate(loaded, many, new_tokens),
        "engine, read at every step": lambda: through_engine(engine, many, new_tokens),
        "engine, read as the page reads": lambda: through_engine(engine, many, new_tokens, STREAM_INTERVAL),
    }, max(repeats, 5))
    print(f"\nthe engine's own work: {students} students x {new_tokens} tokens on the tiny decoder, ms per step")
    for name, seconds in times.items():
        extra = "" if name == "generate" else f" (+{(seconds - times['generate']) / new_tokens * 1000:.2f} ms)"
        print(f"  {name:32s} {seconds / new_tokens * 1000:6.2f}{extra}")


def in_bfloat16(loaded, students: int, new_tokens: int, repeats: int, alone: float, together: float) -> None:
    """The same engine with the decoder's weights in bfloat16 (what BG_DEMO_DTYPE=bfloat16 loads): on a CPU with
    bfloat16 matrix units (AVX512-BF16, AMX) its steps are cheaper; the probabilities keep about two digits."""
    import copy

    import torch

    from bg_demo.backend.generation.engine import DecodingEngine
    from bg_demo.models import LoadedModel

    model = copy.deepcopy(loaded.model).to(torch.bfloat16)
    vocabulary = model.get_output_embeddings().weight
    vocabulary.data = vocabulary.data.contiguous()  # by rows, as `load_model` leaves a bfloat16 model
    half = LoadedModel("decoder", loaded.model_id, loaded.tokenizer, model, "cpu")
    engine = DecodingEngine(half, max_rows=max(32, students))
    many = [PROMPTS[i % len(PROMPTS)] for i in range(students)]
    try:
        times = median_seconds({1: lambda: through_engine(engine, PROMPTS[:1], new_tokens),
                                students: lambda: through_engine(engine, many, new_tokens)}, repeats)
    except RuntimeError as exc:  # a CPU with no bfloat16 units can be slower than a request's time budget
        print(f"\nthe decoder in bfloat16: not measured ({exc})")
        return
    print(f"\nthe decoder in bfloat16: 1 student {times[1]:.2f} s ({alone / times[1]:.2f}x float32's speed), "
          f"{students} students {times[students]:.2f} s ({together / times[students]:.2f}x); {students} students vs a lone "
          f"float32 student: {times[students] / alone:.2f}x, aggregate {students * alone / times[students]:.1f}x one "
          "float32 stream")


def fill_mask_parity(repeats: int) -> None:
    """`backend.fill_mask` against `pipeline("fill-mask")`, bert-base size, a short and a longer sentence."""
    import torch
    from transformers import BertConfig, BertForPreTraining, pipeline

    from bg_demo.tiny_models import build_tiny_models

    folder = Path(tempfile.mkdtemp(prefix="bg-demo-bench-"))
    build_tiny_models(folder, roles=("encoder",))  # the tokenizer; the weights are bert-base's shape below
    torch.manual_seed(0)
    BertForPreTraining(BertConfig()).save_pretrained(folder / "encoder")
    os.environ["BG_DEMO_MODEL_DIR"] = str(folder)
    from bg_demo import backend

    reference = pipeline("fill-mask", model=str(folder / "encoder"), dtype="float32")

    def bare(text):  # the pipeline's own model (as transformers loads it), one forward pass and nothing else
        with torch.inference_mode():
            reference.model(**reference.tokenizer(text, return_tensors="pt"))

    print(f"\n{'fill-mask, bert-base size (targets: <= 1.0x bare, <= 0.85x pipeline)':58s} {'bare':>8s} "
          f"{'pipeline':>9s} {'bg_demo':>8s} {'/bare':>6s} {'/pipe':>6s}")
    for text in ("The cat sat on the [MASK].",
                 "The animal didn't cross the street because it was too [MASK], said the man who saw it happen."):
        times = median_seconds({"bare": lambda t=text: bare(t), "pipeline": lambda t=text: reference(t, top_k=5),
                                "ours": lambda t=text: backend.fill_mask(t, 5)}, max(repeats, 20))
        tokens = len(backend.fill_mask(text).tokens)
        print(f"{f'{tokens} tokens, one mask':58s} {times['bare'] * 1000:6.1f}ms {times['pipeline'] * 1000:7.1f}ms "
              f"{times['ours'] * 1000:6.1f}ms {times['ours'] / times['bare']:6.2f} {times['ours'] / times['pipeline']:6.2f}")


if __name__ == "__main__":
    sys.exit(main())
