"""A class on one machine: students using the running app at once through the Gradio API, on loopback.

    python bench/classroom.py [--size base|tiny] [--requests 1000] [--students 20 40]

--size base (the default) serves random weights with the real bert-base, DistilBERT and GPT-2 shapes
(the tiny models' tokenizers feed them), so each request costs what it costs with the default models.
The phases, each printed as a table, every ratio against the lone student measured in the same run:

1. lone: one student calls each endpoint in turn: the lone latency of each.
2. burst: N students who have the app open (one request each beforehand: Gradio builds a session's
   state on its first request) press Generate (20 greedy tokens) at the same moment, while one more clicks
   through the BERT tabs (half a second to read each result); p50/p95 of each, and the decoding rate
   against one stream.
3. stop: N students start 200-token generations and leave after a second, half pressing Stop (an
   API cancel), half closing their tab (their heartbeat ends); then a beam search (8 beams) is
   stopped and one student generates right after it.
4. class: 40 students send `--requests` mixed requests (fill-mask, sentiment, generation, attention,
   compare; one generation in ten stopped mid-stream): resident memory after the first 100 and at the end.
5. BERT requests: 16 students send /classify at the same moment, against one student sending 16 one after another
   (requests per second), and the ceiling: one forward pass's worth of requests under Gradio's own cost of a request
   that does no work (`/tutor_glossary`, 16 at once).
6. a "Why?" (fill-mask, `--why-tokens` tokens) alone, then beside one student asking for a sentiment every 0.5 s:
   the explanation's time against its lone time, and the student's slowest answer.

All along, a probe loads the page every 0.5 s; each phase prints its slowest answer. Requests lost
(errors other than the cancels the benchmark itself makes) must be 0. The students run in a process of
their own, as they would on their own devices (in the server's process their clients would take its
interpreter lock); memory is the server's. Traffic stays on 127.0.0.1. The server runs with the app's launch options
(its page rendered once, trimmed and compressed) but not its guard: every student here shares one address.
"""

from __future__ import annotations

import argparse
import atexit
import json
import multiprocessing
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TEXT = "The animal didn't cross the street because it was too tired."
LOOK = ("en", 1280)  # English, a laptop-wide page
CALLS = {
    "/fill_mask": ("The cat sat on the [MASK].", 5, ""),  # "": the page's default model
    "/classify": ("I loved this movie, the acting was wonderful.",),
    "/generate": ("Once upon a time", "greedy", 20, 1.0, 50, 0.9, 4, 1, None, 0, 1.0, ""),
    "/attention": (TEXT, "encoder", ""),
    "/compare": (TEXT, "", ""),
}
LONG = ("Once upon a time", "temperature", 200, 1.0, 50, 0.9, 4, 1, None, 0, 1.0, "")
FIVE = ("Once upon a time", "temperature", 200, 1.0, 50, 0.9, 4, 5, None, 0, 1.0, "")  # five sequences
BEAM = ("Once upon a time", "beam", 200, 1.0, 50, 0.9, 8, 1, None, 0, 1.0, "")
BERT = ("/fill_mask", "/classify")


def build_models(size: str) -> str:
    from bg_demo.tiny_models import build_tiny_models

    folder = tempfile.mkdtemp(prefix=f"bg-demo-classroom-{size}-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # the base-size weights take 1.2 GB
    build_tiny_models(folder, roles=("encoder", "sentiment", "decoder"))
    if size == "base":
        import torch
        from transformers import (
            AutoTokenizer,
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
        gpt2 = AutoTokenizer.from_pretrained(Path(folder) / "decoder")
        config = GPT2Config(eos_token_id=gpt2.eos_token_id, bos_token_id=gpt2.bos_token_id)
        GPT2LMHeadModel(config).save_pretrained(Path(folder) / "decoder")
    return folder


def rss_mb(pid: int | str = "self") -> float:
    """A process's resident memory (Linux)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


class Probe:
    """Loads the page (what a student's browser loads first) every 0.5 s; `slowest()` since the last `reset()`."""

    def __init__(self, url: str):
        self.url, self._times, self._stop = url, [], threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self._stop.is_set():
            started = time.perf_counter()
            with urllib.request.urlopen(self.url, timeout=30) as answer:
                answer.read()
            self._times.append(time.perf_counter() - started)
            time.sleep(0.5)

    def reset(self) -> None:
        self._times = []

    def times(self) -> list[float]:
        """Every page load's seconds since the last `reset()`."""
        return list(self._times)

    def slowest(self) -> float:
        return max(self._times, default=0.0)

    def stop(self) -> None:
        self._stop.set()


class Student:
    """One browser tab's worth of the Gradio protocol over plain HTTP: join the queue, read the event
    stream until the result, cancel, keep a heartbeat (closing it is what closing a tab does). Much
    lighter than gradio_client, so the students' side takes little of the machine the server runs on,
    as it would on their own devices."""

    def __init__(self, url: str):
        import httpx

        self.url, self.session = url, uuid.uuid4().hex[:11]
        self.http = httpx.Client(base_url=url, timeout=600)
        config = self.http.get("config").json()
        self.fn = {dep["api_name"]: i for i, dep in enumerate(config["dependencies"]) if dep.get("api_name")}
        self.heartbeat = self.http.stream("GET", f"gradio_api/heartbeat/{self.session}")
        self.heartbeat.__enter__()

    def submit(self, endpoint: str, args, look: bool = True) -> str:
        # every page's endpoint ends with the reader's `lang` and `width`, /generate then with the former name of
        # `sequences` (0: not given) (the app's guard fills them in when a call leaves them out; the server here runs
        # without the guard's per-address shares, so the class sends them)
        former = (0,) if look and endpoint.strip("/") == "generate" else ()
        body = {"data": [*args, *(LOOK if look else ()), *former], "fn_index": self.fn[endpoint.strip("/")], "session_hash": self.session,
                "event_data": None, "trigger_id": None}
        return self.http.post("gradio_api/queue/join", json=body).json()["event_id"]

    def result(self, event: str) -> list:
        """Read the session's event stream until `event` completes; its output, or an error."""
        with self.http.stream("GET", "gradio_api/queue/data", params={"session_hash": self.session}) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("event_id") == event and message.get("msg") == "process_completed":
                    if not message.get("success"):
                        raise RuntimeError(str(message.get("output"))[:200])
                    return message["output"]["data"]
        raise RuntimeError("the stream ended without a result")

    def predict(self, *args, api_name: str, look: bool = True):
        return self.result(self.submit(api_name, args, look))

    def cancel(self, endpoint: str, event: str) -> None:
        body = {"session_hash": self.session, "fn_index": self.fn[endpoint.strip("/")], "event_id": event}
        self.http.post("gradio_api/cancel", json=body)

    def close(self) -> None:
        """Leave as a closed tab does: the heartbeat ends."""
        self.heartbeat.__exit__(None, None, None)
        self.http.close()


class Log:
    """Latencies per endpoint and the requests lost, from many threads."""

    def __init__(self):
        self.latencies, self.lost, self._lock = defaultdict(list), [], threading.Lock()

    def call(self, client, endpoint: str, args=None) -> None:
        started = time.perf_counter()
        try:
            client.predict(*(args or CALLS[endpoint]), api_name=endpoint)
        except Exception as exc:  # noqa: BLE001 - counted and reported
            with self._lock:
                self.lost.append(f"{endpoint}: {type(exc).__name__}: {exc}")
            return
        with self._lock:
            self.latencies[endpoint].append(time.perf_counter() - started)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[round(q * (len(values) - 1))] if values else float("nan")


def clients(url: str, n: int) -> list:
    return [Student(url) for _ in range(n)]


def together(targets) -> float:
    """Run the callables in threads that start at the same moment; the wall time until all are done."""
    barrier = threading.Barrier(len(targets))
    threads = [threading.Thread(target=lambda fn=fn: (barrier.wait(), fn())) for fn in targets]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    return time.perf_counter() - started


def lone(url: str, repeats: int = 5) -> dict:
    log, (client,) = Log(), clients(url, 1)
    for _ in range(repeats):
        for endpoint in CALLS:
            log.call(client, endpoint)
    return {endpoint: statistics.median(values) for endpoint, values in log.latencies.items()}


def burst(url: str, n: int, alone: dict, bert_tabs: bool = True, probe: Probe | None = None) -> dict:
    """N students press Generate at once (with `bert_tabs`, while one more clicks through the BERT tabs); `probe`,
    if given, is reset at that moment."""
    students, bert = clients(url, n), clients(url, 1)[0] if bert_tabs else None
    log, done = Log(), threading.Event()
    together([lambda c=c: Log().call(c, "/classify") for c in [*students, *([bert] if bert else [])]])  # app open

    def use_bert_tabs():  # a student clicking through the BERT tabs, half a second to read each result
        while bert and not done.is_set():
            for endpoint in BERT:
                log.call(bert, endpoint)
                time.sleep(0.5)

    prober = threading.Thread(target=use_bert_tabs)
    prober.start()
    if probe is not None:
        probe.reset()
    wall = together([lambda c=c: log.call(c, "/generate") for c in students])
    done.set()
    prober.join()
    one_stream = 20 / alone["/generate"]
    return dict(log=log, wall=wall, rate=n * 20 / wall / one_stream)


def stop(url: str, n: int, alone: dict, probe: Probe, args=LONG) -> dict:
    students = clients(url, n)
    probe.reset()
    events = [client.submit("/generate", args) for client in students]
    time.sleep(1.0)
    for i, (client, event) in enumerate(zip(students, events)):
        client.cancel("/generate", event) if i % 2 else client.close()  # Stop, or a closed tab
    time.sleep(1.0)
    storm = probe.slowest()
    (student,) = clients(url, 1)
    event = student.submit("/generate", BEAM)
    time.sleep(1.0)
    student.cancel("/generate", event)
    log = Log()
    log.call(student, "/generate")
    return dict(storm=storm, after_beam=log.latencies["/generate"][0] / alone["/generate"] if log.latencies else None,
                lost=log.lost)


def lesson(url: str, students: int, requests: int, server: int) -> dict:
    """`requests` mixed requests from `students` sessions; memory after the first 100 and at the end."""
    pool, log = clients(url, students), Log()
    endpoints = list(CALLS)
    counter, lock, memory = [0], threading.Lock(), {}
    early = min(100, requests)  # memory is read after this many requests (a short run: at its last) and at the end

    def student(client, rng):
        while True:
            with lock:
                if counter[0] >= requests:
                    return
                counter[0] += 1
                if counter[0] == early:
                    memory["early"] = early, rss_mb(server)
            endpoint = rng.choice(endpoints)
            if endpoint == "/generate" and rng.random() < 0.1:
                event = client.submit("/generate", LONG)
                time.sleep(rng.uniform(0.2, 1.0))
                client.cancel("/generate", event)
            else:
                log.call(client, endpoint)

    wall = together([lambda c=c, i=i: student(c, random.Random(i)) for i, c in enumerate(pool)])
    memory["at the end"] = rss_mb(server)
    return dict(log=log, wall=wall, memory=memory)


def at_once(url: str, endpoint: str, args, n: int, look: bool = True) -> float:
    """Requests per second: `n` students (sessions already open) send `args` to `endpoint` at the same moment."""
    pool = clients(url, n)
    together([lambda c=c: c.predict(*args, api_name=endpoint, look=look) for c in pool])  # open, and warm
    wall = together([lambda c=c: c.predict(*args, api_name=endpoint, look=look) for c in pool])
    for client in pool:
        client.close()
    return n / wall


def bert_requests(url: str, n: int = 16) -> dict:
    """`n` /classify at once against one after another, and the ceiling under Gradio's cost of a no-op request."""
    (student,) = clients(url, 1)
    args = CALLS["/classify"]
    student.predict(*args, api_name="/classify")
    started = time.perf_counter()
    for _ in range(n):
        student.predict(*args, api_name="/classify")
    in_turn = n / (time.perf_counter() - started)
    together_rate = at_once(url, "/classify", args, n)
    noop = at_once(url, "/tutor_glossary", ("en",), n, look=False)
    from bg_demo.backend import classify  # in the students' process: one forward pass of the same sentence, alone
    classify(*args)
    started = time.perf_counter()
    for _ in range(5):
        classify(*args)
    forward = (time.perf_counter() - started) / 5
    return dict(in_turn=in_turn, together=together_rate, noop=noop, ceiling=1 / (1 / noop + forward))


def why_beside(url: str, folder: str, tokens: int, probe: Probe) -> dict:
    """A "Why?" on a fill-mask guess of `tokens` tokens, alone, then while one student asks for a sentiment every
    0.5 s; the explanation's seconds each time and the student's latencies."""
    from transformers import AutoTokenizer

    from bench.limits import api_defaults, exactly

    text = exactly(AutoTokenizer.from_pretrained(Path(folder) / "encoder"), tokens, " [MASK].")
    args = (text, *api_defaults(url, "/explain_fill_mask")[1:])  # the look is added per request
    explainer, student = clients(url, 2)
    explainer.predict("A [MASK].", *args[1:], api_name="/explain_fill_mask")  # its code path warm
    started = time.perf_counter()
    explainer.predict(*args, api_name="/explain_fill_mask")
    alone = time.perf_counter() - started
    log, done = Log(), threading.Event()

    def ask():
        while not done.is_set():
            log.call(student, "/classify")
            time.sleep(0.5)

    asking = threading.Thread(target=ask)
    probe.reset()
    asking.start()
    started = time.perf_counter()
    explainer.predict(*args, api_name="/explain_fill_mask")
    beside = time.perf_counter() - started
    done.set()
    asking.join()
    return dict(alone=alone, beside=beside, log=log)


def print_latencies(title: str, log: Log, alone: dict) -> None:
    print(f"\n{title}")
    print(f"{'endpoint':12s} {'calls':>6s} {'p50 s':>7s} {'p95 s':>7s} {'p50/lone':>9s} {'p95/lone':>9s}")
    for endpoint, values in sorted(log.latencies.items()):
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        base = alone[endpoint]
        print(f"{endpoint:12s} {len(values):6d} {p50:7.2f} {p95:7.2f} {p50 / base:8.1f}x {p95 / base:8.1f}x")
    print(f"requests lost: {len(log.lost)}")
    for failure in log.lost[:5]:
        print("  ", failure[:200])


def served() -> dict:
    """The app's launch options (its page kept rendered, trimmed and compressed: what the probe loads), less the guard:
    every student here comes from one address, which the guard would hold to one school router's share."""
    from bg_demo.ui import launch_options, serving

    options = launch_options()
    middleware = [m for m in options["app_kwargs"]["middleware"] if m.cls is not serving.Guard]
    return {**options, "app_kwargs": {**options["app_kwargs"], "middleware": middleware}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("base", "tiny"), default="base")
    parser.add_argument("--students", type=int, nargs="+", default=[20, 40])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--why-tokens", type=int, default=255, help="the explained sentence's tokens (0: no phase 6)")
    args = parser.parse_args()
    os.environ["BG_DEMO_MODEL_DIR"] = args.folder = build_models(args.size)
    import torch

    from bg_demo.backend import classify, fill_mask, generate
    from bg_demo.ui import build_demo

    fill_mask("A [MASK]."), classify("Warm up."), generate("Warm", max_new_tokens=2)  # load before timing
    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, **served())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs; {args.size} models")
    students = multiprocessing.get_context("spawn").Process(target=teach, args=(url, os.getpid(), args))
    students.start()
    students.join()
    demo.close()
    return students.exitcode


def teach(url: str, server: int, args) -> None:
    """The students' side: every phase, against the server at `url` (process id `server`)."""
    probe = Probe(url)
    memory_before = rss_mb(server)
    alone = lone(url)
    print("\n1. lone student (median of 5)")
    for endpoint, seconds in alone.items():
        print(f"{endpoint:12s} {seconds:7.2f} s")
    print(f"slowest page: {probe.slowest():.2f} s; one stream decodes {20 / alone['/generate']:.1f} tokens/s")

    for n in args.students:
        probe.reset()
        result = burst(url, n, alone)
        title = f"2. burst: {n} students press Generate at once, one more uses the BERT tabs"
        print_latencies(title, result["log"], alone)
        print(f"all {n} done in {result['wall']:.1f} s: decoding {result['rate']:.1f}x one stream; "
              f"slowest page {probe.slowest():.2f} s")

    for n in args.students:
        result = stop(url, n, alone, probe)
        print(f"\n3. stop: {n} students leave 200-token streams after 1 s (half Stop, half close the tab)")
        print(f"slowest page while they stopped: {result['storm']:.2f} s")
        print(f"a generation right after a stopped 8-beam search: {result['after_beam']:.1f}x a lone one; "
              f"lost {len(result['lost'])}")
    result = stop(url, 3, alone, probe, FIVE)
    print(f"slowest page while 3 students' 5-sequence 200-token streams were stopped: {result['storm']:.2f} s")

    probe.reset()
    result = lesson(url, 40, args.requests, server)
    title = f"4. class: 40 students, {args.requests} mixed requests in {result['wall']:.0f} s"
    print_latencies(title, result["log"], alone)
    memory = result["memory"]
    early, early_mb = memory["early"]
    print(f"server resident memory: {memory_before:.0f} MB before, {early_mb:.0f} MB after {early} requests, "
          f"{memory['at the end']:.0f} MB after {args.requests} "
          f"({memory['at the end'] / early_mb - 1:+.1%}); slowest page {probe.slowest():.2f} s")

    rates = bert_requests(url)
    print("\n5. BERT requests: 16 students send /classify at the same moment, one student sends 16 in turn")
    print(f"in turn {rates['in_turn']:.1f} req/s; at once {rates['together']:.1f} req/s "
          f"({rates['together'] / rates['in_turn']:.2f}x), {rates['together'] / rates['ceiling']:.0%} of the ceiling: "
          f"{rates['ceiling']:.1f} req/s (one forward pass each under Gradio's own cost of a no-op request, "
          f"{rates['noop']:.0f} req/s at once)")

    if args.why_tokens:
        result = why_beside(url, args.folder, args.why_tokens, probe)
        classify_alone = alone["/classify"]
        slowest = max(result["log"].latencies["/classify"], default=float("nan"))
        print(f"\n6. a \"Why?\" on a fill-mask guess ({args.why_tokens} tokens) beside one student asking for a "
              "sentiment every 0.5 s")
        print(f"the explanation: {result['alone']:.1f} s alone, {result['beside']:.1f} s beside the student "
              f"({result['beside'] / result['alone']:.2f}x); the student's {len(result['log'].latencies['/classify'])} "
              f"answers: slowest {slowest:.2f} s (lone {classify_alone:.2f} s); lost {len(result['log'].lost)}; "
              f"slowest page {probe.slowest():.2f} s")
    probe.stop()


if __name__ == "__main__":
    sys.exit(main())
