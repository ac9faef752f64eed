"""Which calls are cheap on a CPU: what each backend call costs on 2 vCPUs at base size, the list ZeroGPU's placement
by cost (`bg_demo.dispatch.Entry.place`) is decided from.

    python bench/zerogpu_placement.py [--repeats 3] [--json PATH]
    python bench/zerogpu_placement.py --servers [--requests 20]   # with the real `spaces` package (Python 3.12)

Random weights with the real shapes (bert-base for the encoder, NER and QA roles, DistilBERT for sentiment, GPT-2 for
the decoder) cost what the real models cost. Each call runs in this process on the CPU, as a ZeroGPU Space's own
process runs a call placed there: first the values the guided path and the lesson use (ordinary lengths), then the
same calls at the longest input the placement keeps on the CPU (`dispatch.CPU_CHARACTERS`), then the calls it sends
to the GPU whatever their length (explanations, generation, a GPT-2 prompt with examples), for contrast. Each line
gives the median of `--repeats` runs after one warm-up, and where the app places the call on ZeroGPU.

--servers compares a BERT tab on a ZeroGPU Space (placed on its CPU) with the same tab on a plain CPU Space, side by
side in one run: `python app.py` served twice on these models, one at a time, once as a CPU Space and once as a
ZeroGPU Space runs it (SPACES_ZERO_GPU set, the real `spaces` package, ZeroGPU's device API stood in for on loopback
by tests/zerogpu_api.py: a call placed on the CPU never asks it); each serves `--requests` calls of /classify and of
/fill_mask, one student at a time, through gradio_client; the median of each and their ratio (target: within 1.5x).
It needs the interpreter a Space has (Python 3.12, requirements.txt: torch's CUDA build, which the real package
wants, runs here with no GPU).

The figure to weigh a CPU call against is what the same call costs on ZeroGPU: a worker's start (none when an idle
one is reused; not measured here: no GPU) plus its compute, and at least `dispatch.CALL_SECONDS` of the student's
daily quota declared.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("BG_DEMO_DEVICE", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

STORY = "Artificial intelligence is transforming the world by"
CONTEXT = ("The Transformer is a neural network architecture introduced in 2017 by Ashish Vaswani and his colleagues at "
           "Google in the paper \"Attention Is All You Need\". Instead of recurrence, it relies entirely on "
           "self-attention to draw global dependencies between the words of a sentence, which lets it train much "
           "faster on GPUs. The original model translated English into German and French. In 2018, Google released "
           "BERT, an encoder-only Transformer pre-trained with masked language modelling and next sentence "
           "prediction. BERT-base has 12 layers, 12 attention heads and 110 million parameters. In 2019, OpenAI "
           "released GPT-2, a decoder-only Transformer that predicts each next token from the tokens on its left.")


def build_models() -> str:
    """Base-size random models for every role, with the tiny models' tokenizers; removed at exit (1.6 GB)."""
    import torch
    from transformers import (
        AutoTokenizer,
        BertConfig,
        BertForPreTraining,
        BertForQuestionAnswering,
        BertForTokenClassification,
        DistilBertConfig,
        DistilBertForSequenceClassification,
        GPT2Config,
        GPT2LMHeadModel,
    )

    from bg_demo.tiny_models import CONLL_LABELS, bert_uncased_tokenizer, build_tiny_models, gpt2_tokenizer

    folder = tempfile.mkdtemp(prefix="bg-demo-placement-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    build_tiny_models(folder)
    torch.manual_seed(0)
    root = Path(folder)
    # the real vocabularies (bert-base-uncased's WordPiece, GPT-2's BPE): a text makes as many tokens as it will
    for role in ("encoder", "sentiment", "ner", "qa"):
        bert_uncased_tokenizer().save_pretrained(root / role)
    gpt2_tokenizer().save_pretrained(root / "decoder")
    sentiment = dict(id2label={0: "NEGATIVE", 1: "POSITIVE"}, label2id={"NEGATIVE": 0, "POSITIVE": 1})
    ner = dict(id2label=dict(enumerate(CONLL_LABELS)), label2id={label: i for i, label in enumerate(CONLL_LABELS)})
    BertForPreTraining(BertConfig()).save_pretrained(root / "encoder")
    DistilBertForSequenceClassification(DistilBertConfig(**sentiment)).save_pretrained(root / "sentiment")
    BertForTokenClassification(BertConfig(**ner)).save_pretrained(root / "ner")
    BertForQuestionAnswering(BertConfig()).save_pretrained(root / "qa")
    gpt2 = AutoTokenizer.from_pretrained(root / "decoder")
    GPT2LMHeadModel(GPT2Config(eos_token_id=gpt2.eos_token_id, bos_token_id=gpt2.bos_token_id)).save_pretrained(
        root / "decoder")
    return folder


def calls(long_text: str) -> list[tuple[str, str, tuple, dict]]:
    """(part, backend function, args, kwargs): ordinary lengths, the longest kept on the CPU, then the GPU's."""
    from bg_demo.ui.finetune_tab import TASKS, built_in

    task = built_in(TASKS[0], "en")
    prompt = dict(train=task["train"], test=task["test"], shots=4, seed=0, calibrate=True)
    bert_prompt = dict(model="encoder", template=task["encoder"]["template"],
                       label_words=", ".join(task["encoder"]["words"]), **prompt)
    gpt_prompt = dict(model="decoder", template=task["decoder"]["template"],
                      label_words=", ".join(task["decoder"]["words"]), **prompt)
    masked = long_text[: len(long_text) - 7] + " [MASK]."
    return [
        ("ordinary", "fill_mask", ("The cat sat on the [MASK].",), {}),
        ("ordinary", "classify", ("I loved this movie, the acting was wonderful and the story was moving.",), {}),
        ("ordinary", "recognize_entities",
         ("Angela Merkel met Emmanuel Macron in Berlin to talk about the European Union.",), {}),
        ("ordinary", "answer", ("Who wrote the paper that introduced the Transformer?", CONTEXT), {}),
        ("ordinary", "next_sentence", ("The man went to the store.", "He bought a gallon of milk."), {}),
        ("ordinary", "next_token", ("The capital of France is",), {}),
        ("ordinary", "attention", ("The animal didn't cross the street because it was too tired.", "encoder"), {}),
        ("ordinary", "attention", ("The animal didn't cross the street because it was too tired.", "decoder"), {}),
        ("ordinary", "compare", ("I went to the bank to deposit cash.",), {}),
        ("ordinary", "mlm_corruption",
         ("The quick brown fox jumps over the lazy dog while the five boxing wizards jump quickly.",), {}),
        ("ordinary", "causal_lm", ("The capital of France is Paris.",), {}),
        ("ordinary", "logit_lens", ("The Eiffel Tower is in the city of",), {}),
        ("ordinary", "prompt_task", (), bert_prompt),
        ("longest on the CPU", "fill_mask", (masked,), {}),
        ("longest on the CPU", "classify", (long_text,), {}),
        ("longest on the CPU", "recognize_entities", (long_text,), {}),
        ("longest on the CPU", "attention", (long_text, "encoder"), {}),
        ("longest on the CPU", "attention", (long_text, "decoder"), {}),
        ("longest on the CPU", "next_token", (long_text,), {}),
        ("on the GPU", "prompt_task", (), gpt_prompt),
        ("on the GPU", "explain_classify", ("Not bad at all, I suppose.",), {}),
        ("on the GPU", "generate", (STORY,), dict(strategy="greedy", max_new_tokens=40)),
    ]


ROOT = Path(__file__).resolve().parent.parent
SERVED = [("/classify", ("I loved this movie, the acting was wonderful and the story was moving.",)),
          ("/fill_mask", ("The cat sat on the [MASK].", 5))]


def serve(folder: str, zero_gpu: bool, requests: int) -> dict[str, float]:
    """`python app.py` on `folder`'s models, as a CPU Space or a ZeroGPU Space runs it: the median seconds of each
    endpoint's calls, one at a time, after one warm-up call each."""
    import subprocess

    from gradio_client import Client

    from tests.support.processes import free_port, wait_for_port

    logs = Path(tempfile.mkdtemp(prefix="bg-demo-placement-logs-"))
    atexit.register(shutil.rmtree, logs, ignore_errors=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("BG_DEMO_", "GRADIO_", "SPACES_"))}
    port = free_port()
    env.update(BG_DEMO_MODEL_DIR=folder, HF_HUB_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False",
               GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port), BG_DEMO_MCP="0")
    processes = []
    if zero_gpu:
        api_port = free_port()
        processes.append(subprocess.Popen([sys.executable, str(ROOT / "tests" / "zerogpu_api.py"), str(api_port)],
                                          stdout=(logs / "api.log").open("w"), stderr=subprocess.STDOUT))
        wait_for_port(api_port, process=processes[-1], timeout=30)
        env.update(SPACES_ZERO_GPU="true", SPACES_ZERO_DEVICE_API_URL=f"http://127.0.0.1:{api_port}")
    else:
        env["BG_DEMO_DEVICE"] = "cpu"
    processes.append(subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env,
                                      stdout=(logs / "app.log").open("w"), stderr=subprocess.STDOUT))
    try:
        wait_for_port(port, process=processes[-1], timeout=600)
        client = Client(f"http://127.0.0.1:{port}", verbose=False)
        medians = {}
        for endpoint, args in SERVED:
            client.predict(*args, api_name=endpoint)
            timings = []
            for _ in range(requests):
                started = time.perf_counter()
                client.predict(*args, api_name=endpoint)
                timings.append(time.perf_counter() - started)
            medians[endpoint] = statistics.median(timings)
        if zero_gpu and "POST /schedule" in (logs / "api.log").read_text():
            raise SystemExit("a BERT tab asked ZeroGPU for a GPU: it was meant to run on the Space's CPU")
        return medians
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=30)


def servers(requests: int) -> None:
    import importlib.util

    import torch

    if importlib.util.find_spec("spaces") is None or not torch.version.cuda:
        raise SystemExit("--servers needs the real `spaces` package and torch's CUDA build: run it with Python 3.12 "
                         "and requirements.txt, as a Space installs them")
    folder = build_models()
    print(f"torch {torch.__version__}, {os.cpu_count()} CPUs; base-size random weights; {requests} calls each, one "
          f"student at a time, median, after a warm-up call")
    plain, zero = serve(folder, False, requests), serve(folder, True, requests)
    print(f"  {'endpoint':<12} {'CPU Space s':>12} {'ZeroGPU, on its CPU s':>22} {'ratio':>6}  target <= 1.5")
    for endpoint, _ in SERVED:
        print(f"  {endpoint:<12} {plain[endpoint]:>12.3f} {zero[endpoint]:>22.3f} {zero[endpoint] / plain[endpoint]:>6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--servers", action="store_true", help="a BERT tab on ZeroGPU's CPU against a CPU Space's")
    parser.add_argument("--requests", type=int, default=20)
    options = parser.parse_args()
    if options.servers:
        servers(options.requests)
        return

    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    folder = build_models()
    from bg_demo import config

    for role in config.ROLES:
        os.environ.pop(f"BG_DEMO_{role.upper()}", None)
    os.environ["BG_DEMO_MODEL_DIR"] = folder
    config.settings.cache_clear()

    import torch

    from bg_demo import backend, dispatch, models
    from bg_demo.errors import InputError

    for role in config.ROLES:
        models.get(role)
    words = "The committee met on Tuesday to discuss the new budget for the city's schools and parks. "
    long_text = (words * (dispatch.CPU_CHARACTERS // len(words) + 1))[: dispatch.CPU_CHARACTERS - 10].rstrip() + "."
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs; base-size random "
          f"weights; median of {options.repeats} after a warm-up; the longest input kept on the CPU: "
          f"{dispatch.CPU_CHARACTERS} characters of text")
    print(f"  {'part':<20} {'call':<22} {'chars':>6} {'CPU s':>7}  on ZeroGPU")
    rows = []
    for part, name, args, kwargs in calls(long_text):
        function = getattr(backend, name)
        timings = []
        try:
            for _ in range(options.repeats + 1):
                started = time.perf_counter()
                function(*args, **kwargs)
                timings.append(time.perf_counter() - started)
        except InputError as error:  # a limit of the call's own (the app refuses it on any hardware)
            print(f"  {part:<20} {name:<22} refused: {error}")
            continue
        seconds = statistics.median(timings[1:])
        where = function.entry.place(args, kwargs)
        label = name + (f" ({kwargs['model']})" if "model" in kwargs else f" ({args[1]})" if name == "attention" else "")
        characters = dispatch.characters(args, kwargs)
        print(f"  {part:<20} {label:<22} {characters:>6} {seconds:>7.3f}  {where}")
        rows.append(dict(part=part, call=label, characters=characters, cpu_s=round(seconds, 4), placed=where))
    if options.json:
        options.json.write_text(json.dumps(dict(cpu_characters=dispatch.CPU_CHARACTERS, rows=rows), indent=1))


if __name__ == "__main__":
    main()
