"""The AI tutor's MCP tools at the real models' sizes: what each result weighs on the largest input it accepts, and
what a tutor's flood costs a student.

    python bench/mcp_tutor.py [--phase sizes flood abandon] [--shape base large]

sizes: every tool (`bg_demo.tutor`) called in this process on its largest accepted input, with random weights in
the real shapes (--shape base: bert-base, DistilBERT, GPT-2; large: 24 layers of 16 heads, bert-large and
gpt2-medium, for the tools whose result grows with the layers and heads); prints the bytes of JSON an assistant
receives (`tutor_tools.as_json`) against the 64 KB limit (`tutor.RESULT_LIMIT`).

flood: `python app.py` (MCP on) at base size; a student calls /classify alone, then again while one MCP client,
from another process, keeps 150 `classify` calls in flight (each sent again as soon as it is answered or refused: the
same queue and concurrency group as the student's, the hardest case for fairness); prints the student's latencies
against the lone median, and what became of the assistant's calls (answered, or refused past its share, in words).

abandon: `python app.py` at base size; an assistant starts its whole share of the longest generations and its process
ends (a client that gave up: its connections close); prints how soon after that the same assistant's next small call
is let in (its share freed: the calls it left are ended on the server).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FLOOD = 150
STUDENT_CALLS = 20
STUDENT_TEXT = "I loved this movie, the acting was wonderful."
WORDS = "the cat sat on the mat while a dog ran past the red house".split()


# --- sizes ------------------------------------------------------------------------------------------------------------


def build_large() -> str:
    """24 layers of 16 heads: bert-large's and gpt2-medium's shapes (random weights), the tiny tokenizers kept."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForPreTraining, GPT2Config, GPT2LMHeadModel

    from bg_demo.tiny_models import build_tiny_models

    folder = tempfile.mkdtemp(prefix="bg-demo-mcp-large-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # 1.8 GB of weights
    build_tiny_models(folder, roles=("encoder", "decoder"))
    torch.manual_seed(0)
    BertForPreTraining(BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                  intermediate_size=4096)).save_pretrained(Path(folder) / "encoder")
    gpt2 = AutoTokenizer.from_pretrained(Path(folder) / "decoder")
    GPT2LMHeadModel(GPT2Config(n_embd=1024, n_layer=24, n_head=16, eos_token_id=gpt2.eos_token_id,
                               bos_token_id=gpt2.bos_token_id)).save_pretrained(Path(folder) / "decoder")
    return folder


def fitted(role: str, tokens: int, chars: int, masks: int = 0, start: str = "") -> str:
    """Words until the text makes `tokens` tokens for `role`'s tokenizer (special tokens included) or reaches
    `chars` characters; `masks` [MASK]s spread through it."""
    from bg_demo import models

    tokenizer = models.get(role).tokenizer
    words, i = [start] if start else [], 0
    while True:
        word = "[MASK]" if masks and i % max(1, tokens // (masks + 1)) == 1 and words.count("[MASK]") < masks \
            else WORDS[i % len(WORDS)]
        candidate = " ".join([*words, word])
        if len(candidate) > chars or len(tokenizer(candidate)["input_ids"]) > tokens:
            return " ".join(words)
        words.append(word)
        i += 1


def largest_inputs(shape: str) -> dict:
    """tool -> [(what, arguments)]: the largest input each accepts (at the binding limit: characters, tokens, rows)."""
    from bg_demo.backend.attention import SUMMARY_TOKENS
    from bg_demo.backend.logit_lens import MAX_LENS_TOKENS
    from bg_demo.backend.next_token import MAX_CANDIDATES
    from bg_demo.config import LIMITS

    long_bert = fitted("encoder", 510, LIMITS.max_chars)
    long_gpt = fitted("decoder", 1000, LIMITS.max_chars)
    summary = fitted("encoder", SUMMARY_TOKENS + 20, LIMITS.max_chars)
    cases = {
        "attention_summary": [(f"{role}: every layer's top keys", {"text": summary, "role": role})
                              for role in ("encoder", "decoder")] + [
            (f"{role}: one head's map", {"text": summary, "role": role, "layer": 1, "head": 1})
            for role in ("encoder", "decoder")],
        "logit_lens": [(f"{MAX_LENS_TOKENS}+ tokens", {"text": fitted("decoder", MAX_LENS_TOKENS + 30, LIMITS.max_chars)})],
        "compare": [("64+ tokens, same word", {"text": summary, "word": "cat",
                                                "second": fitted("encoder", 400, LIMITS.max_chars, start="cat")})],
    }
    if shape == "large":
        return cases
    row = fitted("encoder", 60, LIMITS.task_text_chars)
    # the longest labels a task takes; label words of one token each (as a teacher picks them: "great, terrible"),
    # since a word of several tokens costs a forward pass per (prompt, word) and changes nothing in the result's size
    labels = [f"{i}".rjust(LIMITS.label_chars, "l") for i in range(LIMITS.task_labels)]
    words = ["good", "bad", "red", "blue", "cat", "dog", "yes", "no"][:LIMITS.task_labels]
    rows = [[row, labels[i % len(labels)]] for i in range(LIMITS.task_rows)]
    return {
        **cases,
        "fill_mask": [(f"{LIMITS.max_masks} masks, top {LIMITS.max_top_k}",
                       {"text": fitted("encoder", 510, LIMITS.max_chars, masks=LIMITS.max_masks),
                        "top_k": LIMITS.max_top_k})],
        "classify": [("510 tokens", {"text": long_bert})],
        "entities": [("2,000 characters, every token its own entity", {"text": long_bert, "aggregation": "none"})],
        "answer": [("20,000-character context", {"question": "Where did the cat sit?",
                                                 "context": (long_bert + " ") * 9})],
        "next_sentence": [("510 tokens", {"first": fitted("encoder", 255, LIMITS.max_chars),
                                          "second": fitted("encoder", 250, LIMITS.max_chars)})],
        "generate": [(f"{LIMITS.max_new_tokens} new tokens, sampled",
                      {"prompt": "Once upon a time", "strategy": "top_p", "max_new_tokens": LIMITS.max_new_tokens,
                       "seed": 0})],
        "next_token": [(f"{MAX_CANDIDATES} candidates", {"text": long_gpt, "candidates": MAX_CANDIDATES})],
        "explain": [(f"{LIMITS.explain_tokens} tokens", {"task": "classify",
                                                         "text": fitted("encoder", LIMITS.explain_tokens, LIMITS.max_chars)})],
        "prompt_task": [(f"{LIMITS.task_rows} rows each, {LIMITS.task_labels} labels, {LIMITS.max_shots} shots",
                         {"train": rows, "test": rows, "template": "Review: {text}\nSentiment:",
                          "label_words": ", ".join(words), "model": "decoder", "shots": LIMITS.max_shots})],
    }


def sizes(shape: str) -> int:
    """Print each tool's result size on its largest inputs; 1 if any is over the limit."""
    from bg_demo import tutor
    from bg_demo.ui.tutor_tools import as_json

    over = 0
    print(f"\nsizes, {shape} shapes: bytes of JSON an assistant receives (limit {tutor.RESULT_LIMIT:,})")
    print(f"  {'tool':<18} {'input':<46} {'bytes':>8} {'seconds':>8}")
    for name, cases in largest_inputs(shape).items():
        fn = getattr(tutor, name)
        for what, arguments in cases:
            started = time.perf_counter()
            result = fn(**arguments)
            if asyncio.iscoroutine(result):
                result = asyncio.run(result)
            size = len(as_json(result).encode("utf-8"))
            over += size > tutor.RESULT_LIMIT
            mark = "" if size <= tutor.RESULT_LIMIT else "  OVER"
            print(f"  {name:<18} {what:<46} {size:>8,} {time.perf_counter() - started:>8.1f}{mark}", flush=True)
    return 1 if over else 0


# --- flood ------------------------------------------------------------------------------------------------------------


def _flood(url: str, n: int, out, seconds: float = 0.0, rounds: int = 0, start: float = 0.0,
           period: float = 0.0) -> None:
    """One MCP client, from another process (its own interpreter, as an assistant's): `rounds` bursts of `n` classify
    calls at once, the first at `start` (time.time()) and one every `period` seconds; or, with `seconds`, `n` calls
    kept in flight that long, each sent again as soon as it is answered or refused."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    os.nice(19)  # the assistant's machine, not the server's: its own work waits for the server's
    counts = {"answered": 0, "refused": 0}
    messages = set()

    async def one(session):
        answer = await session.call_tool("classify", {"text": STUDENT_TEXT})
        counts["refused" if answer.isError else "answered"] += 1
        if answer.isError:
            messages.add(answer.content[0].text)

    async def go():
        async with streamable_http_client(f"{url}gradio_api/mcp/") as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            started = time.perf_counter()
            await session.call_tool("classify", {"text": STUDENT_TEXT})  # Gradio's MCP server makes its client
            counts["first call s"] = round(time.perf_counter() - started, 2)
            for r in range(rounds):
                await asyncio.sleep(max(0.0, start + r * period - time.time()))
                await asyncio.gather(*(one(session) for _ in range(n)))
            deadline = time.perf_counter() + seconds

            async def again():
                while time.perf_counter() < deadline:
                    await one(session)

            await asyncio.gather(*(again() for _ in range(n if seconds else 0)))

    asyncio.run(go())
    out.put({**counts, "messages": sorted(messages)})


def _api_flood(url: str, n: int, out, rounds: int, start: float, period: float) -> None:
    """Any other client, for comparison: `rounds` bursts of `n` /classify joins at once from one API session."""
    import uuid
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from bench.classroom import CALLS
    from bench.limits import Refused, endpoints, join

    os.nice(19)  # as the assistant's (see _flood)
    fn, session = endpoints(url)["classify"], uuid.uuid4().hex[:11]
    http = httpx.Client(base_url=url, timeout=600, limits=httpx.Limits(max_connections=n + 10))
    counts = {"answered": 0, "refused": 0}
    messages = set()

    def send(_):
        try:
            join(http, fn, session, CALLS["/classify"])
            return None
        except Refused as refused:
            return refused.detail

    with ThreadPoolExecutor(n) as pool:
        for r in range(rounds):
            time.sleep(max(0.0, start + r * period - time.time()))
            for refusal in pool.map(send, range(n)):
                counts["refused" if refusal else "answered"] += 1
                messages |= {refusal} if refusal else set()
    out.put({**counts, "messages": sorted(messages)})


def _assistant(url: str, target=_flood, **how):
    """The assistant's process (or, with `target=_api_flood`, an API script's), started, and the queue its counts
    come back on."""
    out = multiprocessing.get_context("spawn").Queue()
    process = multiprocessing.get_context("spawn").Process(target=target, args=(url, FLOOD, out), kwargs=how)
    process.start()
    return process, out


def student_latencies(url: str, n: int, warm: int = 5) -> list[float]:
    from gradio_client import Client

    client = Client(url, verbose=False)
    for _ in range(warm):  # the session's first calls build its state and load the model
        client.predict(STUDENT_TEXT, api_name="/classify")
    times = []
    for _ in range(n):
        started = time.perf_counter()
        client.predict(STUDENT_TEXT, api_name="/classify")
        times.append(time.perf_counter() - started)
        time.sleep(0.2)  # a student reads the result
    return times


def _report(title: str, base: float, during: list[float], flooded: dict, who: str = "the assistant") -> float:
    worst = max(during) / base
    p95 = sorted(during)[max(0, round(0.95 * len(during)) - 1)]
    print(f"  {title}")
    print(f"    student: median {statistics.median(during) * 1000:6.0f} ms, p95 {p95 * 1000:6.0f} ms, max "
          f"{max(during) * 1000:6.0f} ms: {statistics.median(during) / base:.2f}x the lone median (p95 "
          f"{p95 / base:.2f}x, worst {worst:.2f}x; target <= 3x)")
    first = f" (its first call, {flooded['first call s']} s, before)" if "first call s" in flooded else ""
    print(f"    {who}: {flooded['answered']} calls answered or queued, {flooded['refused']} refused{first}")
    for message in flooded["messages"]:
        print(f"      refused with: {message}")
    return worst


def flood() -> int:
    from gradio_client import Client

    from bench.limits import Server, build_all

    folder = build_all()
    with Server(folder) as server:
        lone = student_latencies(server.url, STUDENT_CALLS)
        # bursts: 150 calls at once, the student's call 50 ms after each burst starts; an assistant's, then an API
        # script's (any other client) for comparison
        student = Client(server.url, verbose=False)
        student.predict(STUDENT_TEXT, api_name="/classify")
        burst, bursts = {}, {}
        for target in (_flood, _api_flood):
            period, start = 3.0, time.time() + 8.0  # the flooding process starts and connects within the 8 s
            process, out = _assistant(server.url, target, rounds=STUDENT_CALLS, start=start, period=period)
            burst[target] = []
            for r in range(STUDENT_CALLS):
                time.sleep(max(0.0, start + r * period + 0.05 - time.time()))
                began = time.perf_counter()
                student.predict(STUDENT_TEXT, api_name="/classify")
                burst[target].append(time.perf_counter() - began)
            bursts[target] = out.get(timeout=300)
            process.join()
        # sustained: 150 calls kept in flight, a call sent again as soon as it comes back
        seconds = STUDENT_CALLS * 0.6 + 15
        process, out = _assistant(server.url, seconds=seconds)
        time.sleep(5.0)  # the assistant's process has started and its calls fill the queue
        sustained = student_latencies(server.url, STUDENT_CALLS, warm=1)
        kept = out.get(timeout=seconds + 120)
        process.join()
    base = statistics.median(lone)
    print(f"\nflood: one MCP client against a student calling /classify {STUDENT_CALLS} times (base size, "
          f"{os.cpu_count()} CPUs; the flooding process on the same machine, at the lowest priority, nice 19, as if it "
          f"ran on its own)")
    print(f"  student alone: median {base * 1000:6.0f} ms, max {max(lone) * 1000:6.0f} ms")
    worst = _report(f"an assistant: {FLOOD} MCP calls at once, {STUDENT_CALLS} times, the student's 50 ms after each",
                    base, burst[_flood], bursts[_flood])
    _report(f"any other client: {FLOOD} API requests at once from one session, the same way", base,
            burst[_api_flood], bursts[_api_flood], who="the script")
    _report(f"{FLOOD} calls kept in flight for {seconds:.0f} s (each sent again at once: a runaway script)", base,
            sustained, kept)
    return 0 if worst <= 3 else 1


def _going_away(url: str, token: str, n: int, arguments: dict) -> None:
    """An assistant's process: `n` calls of `generate` at once, until the process is ended (its connections close)."""
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def calls():
        async with httpx.AsyncClient(headers={"Authorization": token}, timeout=300) as http, \
                streamable_http_client(url, http_client=http) as (read, write, _), ClientSession(read, write) as opened:
            await opened.initialize()
            await asyncio.gather(*(opened.call_tool("generate", arguments) for _ in range(n)))

    asyncio.run(calls())


SMALL = {"prompt": "Once upon a time", "max_new_tokens": 2}


async def _small_call(url: str, token: str) -> tuple[bool, float]:
    """One small `generate` call as an assistant makes it: (answered, seconds); refused when its share is full."""
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    started = time.perf_counter()
    async with httpx.AsyncClient(headers={"Authorization": token}, timeout=300) as http, \
            streamable_http_client(url, http_client=http) as (read, write, _), ClientSession(read, write) as opened:
        await opened.initialize()
        found = await opened.call_tool("generate", SMALL)
    return not found.isError, time.perf_counter() - started


def abandon(rounds: int = 3) -> int:
    """An assistant starts its whole share (8) of the longest generations and goes away; the same assistant's next
    small call is sent at once, and again every 50 ms while it is refused: how long after it went its share is back."""
    from bench.limits import Server, build_all
    from bg_demo import config
    from bg_demo.ui.serving import EVENTS_PER_SESSION

    folder = build_all()
    long = {"prompt": "Once upon a time", "strategy": "temperature", "max_new_tokens": config.LIMITS.max_new_tokens}
    with Server(folder) as server:
        url = f"{server.url}gradio_api/mcp/"
        lone = sorted(asyncio.run(_small_call(url, "Bearer bench-lone"))[1] for _ in range(3))[1]
        freed = []
        for r in range(rounds):
            token = f"Bearer bench-gone-{r}"
            going = multiprocessing.get_context("spawn").Process(target=_going_away,
                                                                 args=(url, token, EVENTS_PER_SESSION, long))
            going.start()
            deadline = time.monotonic() + 120  # its calls are in once the same assistant's next one is refused
            while asyncio.run(_small_call(url, token))[0]:
                if time.monotonic() > deadline or not going.is_alive():
                    raise RuntimeError(f"the assistant's calls never filled its share (its process: {going.exitcode})")
                time.sleep(0.2)
            going.kill()
            gone = time.perf_counter()
            going.join()
            refused = 0
            while True:
                answered, seconds = asyncio.run(_small_call(url, token))
                if answered:
                    break
                refused += 1
                time.sleep(0.05)
            total = time.perf_counter() - gone
            freed.append(total - seconds)
            print(f"  round {r + 1}: its share full (a small call refused), then the assistant went; its next small "
                  f"call answered {total:.2f} s after ({refused} refused first; the call itself {seconds:.2f} s, "
                  f"alone {lone:.2f} s)")
    worst = max(freed)
    print(f"\nabandon: an assistant's {EVENTS_PER_SESSION} longest generations given up on (its process ended), base "
          f"size, {os.cpu_count()} CPUs: its share back within {worst:.2f} s at worst (the wait before its next call "
          f"could start; target <= 1 s)")
    return 0 if worst <= 1.0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase", nargs="+", choices=("sizes", "flood", "abandon"), default=["sizes", "flood"])
    parser.add_argument("--shape", nargs="+", choices=("base", "large"), default=["base", "large"])
    args = parser.parse_args()
    failed = 0
    if "sizes" in args.phase:
        for shape in args.shape:
            # each shape in a process of its own: the roles' models are read from BG_DEMO_MODEL_DIR once per process
            if os.environ.get("BG_DEMO_MCP_BENCH_SHAPE") == shape:
                return sizes(shape)
            from bench.limits import build_all

            folder = build_all() if shape == "base" else build_large()
            env = {**os.environ, "BG_DEMO_MODEL_DIR": folder, "BG_DEMO_MCP_BENCH_SHAPE": shape}
            failed |= subprocess.call([sys.executable, __file__, "--phase", "sizes", "--shape", shape], env=env)
    if "flood" in args.phase:
        failed |= flood()
    if "abandon" in args.phase:
        failed |= abandon()
    return failed


if __name__ == "__main__":
    sys.exit(main())
