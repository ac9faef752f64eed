"""The limits a class cannot push the app past, measured against `python app.py` served in a process of its own.

    python bench/limits.py [--phases cold,explain,sessions,flood] [--trials 10] [--calls 1000] [--models DIR]

The models are random weights with the real shapes (bert-base for the encoder, NER and QA, DistilBERT, GPT-2; the
tiny models' tokenizers feed them), built in a temporary folder unless --models names a folder of them. Every phase
starts its own server on 127.0.0.1 and stops it at its end; memory is the server process's, resident (VmRSS) and
its peak (VmHWM, reset before each explanation). The phases, each printed as a table:

1. cold: on a fresh server (a new one per trial), five students send the first request of five tabs (/fill_mask,
   /classify, /ner, /qa, /generate) at the same moment: answers per trial and the time to the last one
   (target: 5/5 in every trial).
2. explain: the worst accepted explanations, a fill-mask text and a GPT-2 prompt of exactly LIMITS.explain_tokens
   tokens, each while another student sends 20-token /generate and /fill_mask requests back to back: wall time,
   peak and resident memory, and the other requests' latencies against their lone ones (targets: peak <= 4 GB, no
   other request waits more than 3 s longer than alone); then memory after each of five more in a row.
3. sessions: --calls /classify calls, then 200 /compare calls, each with a new session hash (what an API script
   does), from 4 threads: memory growth per call (target: 1,000 calls <= 100 MB).
4. flood: 150 /fill_mask requests at once from one session, then from 150 sessions, all from 127.0.0.1: accepted
   and refused (status and message), and another student's /fill_mask and /generate, timed once the flood is
   queued or refused, against their lone latencies (target: within 3x); that student comes from the same address,
   then (a flood of its own) from another one, named in X-Forwarded-For as a proxy in front of the app names it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import classroom  # noqa: E402
from bench.classroom import CALLS, TEXT, Log, build_models, rss_mb, together  # noqa: E402

FIRST = {  # each tab's first request, as a student's first click sends it
    "/fill_mask": CALLS["/fill_mask"],
    "/classify": CALLS["/classify"],
    "/ner": ("Ada Lovelace was born in London.", "average"),
    "/qa": ("Where was Ada born?", "Ada Lovelace was born in London in 1815."),
    "/generate": CALLS["/generate"],  # 20 greedy tokens
}
EXPLAINED = {"/explain_fill_mask": ("encoder", " [MASK]."), "/explain_next_token": ("decoder", "")}  # role, tail
PHASES = ("cold", "explain", "sessions", "flood")
THREADS = 4  # the sessions phase's callers
COMPARES = 200
FLOOD = 150
GB = 1024  # MB
OTHER_ADDRESS = "192.0.2.7"  # a documentation address (RFC 5737): another network's student


def build_all() -> str:
    """classroom.build_models("base"), plus NER and QA at bert-base size (their tiny tokenizers and labels kept)."""
    folder = build_models("base")  # removed at exit
    import torch
    from transformers import BertConfig, BertForQuestionAnswering, BertForTokenClassification

    from bg_demo.tiny_models import build_tiny_models

    build_tiny_models(folder, roles=("ner", "qa"))
    torch.manual_seed(0)
    ner = json.loads((Path(folder) / "ner" / "config.json").read_text())
    labels = dict(id2label={int(k): v for k, v in ner["id2label"].items()}, label2id=ner["label2id"])
    BertForTokenClassification(BertConfig(**labels)).save_pretrained(Path(folder) / "ner")
    BertForQuestionAnswering(BertConfig()).save_pretrained(Path(folder) / "qa")
    return folder


# --- the server and its memory --------------------------------------------------------------------------------------


def hwm_mb(pid: int) -> float:
    """A process's peak resident memory since it started or since `reset_peak` (Linux)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


def reset_peak(pid: int) -> bool:
    """Start VmHWM again from the current VmRSS (Linux >= 4.0); False where the kernel refuses."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`python app.py` serving the models in `folder` on a free loopback port, until `stop()` (or the `with` ends)."""

    def __init__(self, folder: str, timeout: float = 300):
        port = free_port()
        env = {**os.environ, "BG_DEMO_MODEL_DIR": folder, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False",
               "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
        self.log = tempfile.TemporaryFile()
        started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.pid, self.url = self.process.pid, f"http://127.0.0.1:{port}/"
        try:
            self._wait(timeout)
        except BaseException:
            self.stop()
            raise
        self.ready = time.perf_counter() - started  # seconds until the page's config answered

    def _wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}):\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url + "config", timeout=5) as answer:
                    answer.read()
                return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"the server did not answer in {timeout:.0f} s:\n{self.tail()}")

    def tail(self, n: int = 2000) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-n:]

    def rss(self) -> float:
        return rss_mb(self.pid)

    def peak(self) -> float:
        return hwm_mb(self.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# --- clients --------------------------------------------------------------------------------------------------------


class Refused(RuntimeError):
    """The queue did not take a request: its HTTP status and Gradio's message."""

    def __init__(self, status: int, detail: str):
        super().__init__(f"refused {status}: {detail}")
        self.status, self.detail = status, detail


def body(fn_index: int, session: str, args, look: bool = True) -> dict:
    return {"data": [*args, *(classroom.LOOK if look else ())], "fn_index": fn_index, "session_hash": session, "event_data": None, "trigger_id": None}


def join(http, fn_index: int, session: str, args, look: bool = True) -> str:
    """Queue one request (with the reader's look, as a page sends it, unless `look` is False); its event id, or
    Refused."""
    answer = http.post("gradio_api/queue/join", json=body(fn_index, session, args, look))
    if answer.status_code != 200:
        try:
            detail = str(answer.json().get("detail"))
        except ValueError:
            detail = answer.text
        raise Refused(answer.status_code, detail[:200])
    return answer.json()["event_id"]


class Student(classroom.Student):
    """classroom's Student (a page open: heartbeat, one session), whose refused requests say why."""

    def submit(self, endpoint: str, args, look: bool = True) -> str:  # classroom.Student.predict passes `look`
        return join(self.http, self.fn[endpoint.strip("/")], self.session, args, look)


class Visitor(Student):
    """An API script: no page (so no heartbeat), a new session hash for every call."""

    def __init__(self, url: str, fn: dict, http=None):
        import httpx

        self.url, self.fn, self.session = url, fn, ""
        self.http = http or httpx.Client(base_url=url, timeout=600)

    def predict(self, *args, api_name: str):
        self.session = uuid.uuid4().hex[:11]
        return super().predict(*args, api_name=api_name)


def endpoints(url: str) -> dict:
    """api_name -> fn_index, from the page's config."""
    with urllib.request.urlopen(url + "config", timeout=30) as answer:
        config = json.load(answer)
    return {dep["api_name"]: i for i, dep in enumerate(config["dependencies"]) if dep.get("api_name")}


def lone(student, names, repeats: int = 3) -> dict:
    """The median latency of each endpoint, one request at a time (the first of each is a warm-up, not counted)."""
    log = Log()
    for name in names:
        Log().call(student, name)
    for _ in range(repeats):
        for name in names:
            log.call(student, name)
    if log.lost:
        raise RuntimeError(f"a lone request failed: {log.lost[0]}")
    return {name: statistics.median(log.latencies[name]) for name in names}


def print_lost(log: Log, indent: str = "  ") -> None:
    for failure, count in Counter(log.lost).most_common(5):
        print(f"{indent}{count} x {failure[:200]}")


# --- 1. cold ---------------------------------------------------------------------------------------------------------


def cold(folder: str, args) -> None:
    names = list(FIRST)
    print(f"\n1. cold: five tabs' first requests at the same moment on a fresh server; trials: {args.trials}")
    print(f"{'trial':>5s} {'ready s':>8s} {'answers':>8s} " + " ".join(f"{n[1:]:>10s}" for n in names)
          + f" {'last s':>7s} {'peak MB':>8s}")
    full = answers = 0
    for trial in range(1, args.trials + 1):
        with Server(folder) as server:
            students = [Student(server.url) for _ in names]
            log = Log()
            together([lambda s=s, n=n: log.call(s, n, FIRST[n]) for s, n in zip(students, names)])
            peak = server.peak()
            for student in students:
                student.close()
        ok = sum(len(values) for values in log.latencies.values())
        full, answers = full + (ok == len(names)), answers + ok
        times = " ".join(f"{log.latencies[n][0]:10.2f}" if log.latencies[n] else f"{'failed':>10s}" for n in names)
        last = max((v[0] for v in log.latencies.values()), default=float("nan"))
        print(f"{trial:5d} {server.ready:8.1f} {ok:6d}/5 {times} {last:7.2f} {peak:8.0f}")
        print_lost(log, "      ")
    print(f"{answers}/{len(names) * args.trials} answers; 5/5 in {full} of {args.trials} trials "
          f"(target: {args.trials} of {args.trials})")


# --- 2. explain ------------------------------------------------------------------------------------------------------


def exactly(tokenizer, n: int, tail: str = "") -> str:
    """A text of exactly `n` tokens as the app counts them (special tokens included): TEXT's words in turn, then
    `tail`; where the next word would go past `n`, a shorter filler goes instead."""
    def count(text: str) -> int:
        return len(tokenizer(text)["input_ids"])

    words, text = itertools.cycle(TEXT.split()), ""
    for _ in range(20 * n):
        have = count(text + tail)
        if have >= n:
            break
        for word in (next(words), "a", ",", "."):
            if count(f"{text} {word}".lstrip() + tail) <= n:
                text = f"{text} {word}".lstrip()
                break
    if count(text + tail) != n:
        raise ValueError(f"could not make a text of exactly {n} tokens (got {count(text + tail)})")
    return text + tail


def api_defaults(url: str, name: str) -> list:
    """The endpoint's parameters' defaults (None for a parameter without one), from the API description that
    gradio_client's view_api() reads; less the reader's look (`lang`, `width`), which every request adds."""
    with urllib.request.urlopen(url + "gradio_api/info", timeout=30) as answer:
        api = json.load(answer)["named_endpoints"]
    if name not in api:
        raise KeyError(f"the app has no {name} endpoint")
    return [p["parameter_default"] if p.get("parameter_has_default") else None for p in api[name]["parameters"]
            if p.get("parameter_name") not in ("lang", "width")]


def under_load(server: Server, student: Student, name: str, args, other: Student | None) -> dict:
    """Run one request (its peak memory measured from now) while `other` sends /generate and /fill_mask back to back;
    its wall time, its error (None if it answered), memory, and the other's latencies."""
    log, done = Log(), threading.Event()

    def keep_busy():
        while not done.is_set():
            for endpoint in ("/generate", "/fill_mask"):
                if not done.is_set():
                    log.call(other, endpoint)

    busy = threading.Thread(target=keep_busy)
    reset = reset_peak(server.pid)
    if other is not None:
        busy.start()
    started, error = time.perf_counter(), None
    try:
        student.predict(*args, api_name=name)
    except Exception as exc:  # noqa: BLE001 - reported
        error = f"{type(exc).__name__}: {exc}"
    wall = time.perf_counter() - started
    done.set()
    if other is not None:
        busy.join()
    return dict(wall=wall, error=error, peak=server.peak(), reset=reset, rss=server.rss(), log=log)


def explain(folder: str, args) -> None:
    from transformers import AutoTokenizer

    from bg_demo.config import LIMITS

    limit = LIMITS.explain_tokens
    with Server(folder) as server:
        texts, calls = {}, {}
        for name, (role, tail) in EXPLAINED.items():
            tokenizer = AutoTokenizer.from_pretrained(Path(folder) / role)
            texts[name] = exactly(tokenizer, limit, tail)
            calls[name] = (texts[name], *api_defaults(server.url, name)[1:])
        student, other = Student(server.url), Student(server.url)
        alone = lone(other, ("/generate", "/fill_mask"))
        for name in EXPLAINED:  # a short one first: the models' first use and the explanation's code path
            student.predict(TEXT[:30] + EXPLAINED[name][1], *calls[name][1:], api_name=name)
        print(f"\n2. explain: the worst accepted explanations ({limit} tokens, LIMITS.explain_tokens), while another "
              "student sends /generate (20 tokens) and /fill_mask back to back")
        print(f"server: {server.rss():.0f} MB resident, {server.peak():.0f} MB peak so far; "
              "lone latency (median of 3): " + ", ".join(f"{n} {s:.2f} s" for n, s in alone.items()))
        print(f"{'explanation':20s} {'tokens':>6s} {'chars':>6s} {'wall s':>7s} {'answer':>7s} {'peak MB':>8s} "
              f"{'after MB':>9s} {'other':>10s} {'n':>3s} {'lone s':>7s} {'median s':>9s} {'max s':>7s} "
              f"{'max/lone':>9s} {'max wait s':>11s}")
        results = {}
        for name in EXPLAINED:
            result = results[name] = under_load(server, student, name, calls[name], other)
            for i, endpoint in enumerate(alone):
                values = result["log"].latencies.get(endpoint, [])
                left = (f"{name[1:]:20s} {limit:6d} {len(texts[name]):6d} {result['wall']:7.1f} "
                        f"{'yes' if result['error'] is None else 'NO':>7s} {result['peak']:8.0f} {result['rss']:9.0f}"
                        if i == 0 else " " * 71)
                if values:
                    worst, base = max(values), alone[endpoint]
                    print(f"{left} {endpoint[1:]:>10s} {len(values):3d} {base:7.2f} {statistics.median(values):9.2f} "
                          f"{worst:7.2f} {worst / base:8.1f}x {worst - base:11.2f}")
                else:
                    print(f"{left} {endpoint[1:]:>10s}   0 {alone[endpoint]:7.2f}   (none finished)")
            if result["error"]:
                print(f"  {name} failed: {result['error'][:300]}")
            print_lost(result["log"])
        if not all(r["reset"] for r in results.values()):
            print("(the kernel refused to reset VmHWM: peaks are since the server started)")
        peak = max(r["peak"] for r in results.values())
        waits = [max(r["log"].latencies[e]) - alone[e] for r in results.values() for e in alone
                 if r["log"].latencies[e]]
        print(f"peak {peak:.0f} MB (target <= {4 * GB} MB); longest extra wait of another request "
              f"{max(waits, default=float('nan')):.2f} s (target <= 3 s)")

        names, after = list(EXPLAINED), []
        before = server.rss()
        reset_peak(server.pid)
        for i in range(args.explanations):
            name = names[i % len(names)]
            result = under_load(server, student, name, calls[name], None)
            answered = "answered" if result["error"] is None else "failed"
            after.append(f"{result['rss']:.0f} MB ({answered} in {result['wall']:.0f} s)")
        print(f"{args.explanations} more in a row ({', '.join(n[1:] for n in names)} in turn, alone): resident "
              f"{before:.0f} MB before; after each: {', '.join(after)}; peak {server.peak():.0f} MB")
        student.close()
        other.close()


# --- 3. sessions -----------------------------------------------------------------------------------------------------


def many(url: str, fn: dict, endpoint: str, n: int) -> tuple[Log, float]:
    """`n` calls to `endpoint`, each with a new session hash, from THREADS threads; the log and the wall time."""
    log, tickets = Log(), itertools.count()

    def caller():
        visitor = Visitor(url, fn)
        while next(tickets) < n:
            log.call(visitor, endpoint)
        visitor.http.close()

    return log, together([caller] * THREADS)


def sessions(folder: str, args) -> None:
    with Server(folder) as server:
        fn = endpoints(server.url)
        warm, _ = many(server.url, fn, "/classify", 5)
        warm_compare, _ = many(server.url, fn, "/compare", 5)
        print(f"\n3. sessions: calls from {THREADS} threads, each with a new session hash (no page, no heartbeat)")
        print(f"{'endpoint':10s} {'calls':>6s} {'answered':>9s} {'wall s':>7s} {'p50 s':>6s} {'RSS before MB':>14s} "
              f"{'after MB':>9s} {'growth MB':>10s} {'KB/call':>8s} {'peak MB':>8s}")
        total = 0.0
        for endpoint, n in (("/classify", args.calls), ("/compare", COMPARES)):
            before = server.rss()
            log, wall = many(server.url, fn, endpoint, n)
            after = server.rss()
            answered = len(log.latencies[endpoint])
            total += after - before
            print(f"{endpoint[1:]:10s} {n:6d} {answered:9d} {wall:7.1f} "
                  f"{classroom.percentile(log.latencies[endpoint], 0.5):6.2f} {before:14.0f} {after:9.0f} "
                  f"{after - before:10.1f} {(after - before) * 1024 / n:8.1f} {server.peak():8.0f}")
            print_lost(log)
        print_lost(warm)
        print_lost(warm_compare)
        time.sleep(10)
        print(f"resident after 10 s idle: {server.rss():.0f} MB; target: 1,000 calls <= 100 MB growth "
              f"(measured: {total:.1f} MB over {args.calls + COMPARES} calls)")


# --- 4. flood --------------------------------------------------------------------------------------------------------


def collect(http, session: str, events: set, timeout: float = 600) -> Counter:
    """Read one session's event stream until every one of `events` completed; outcomes counted by message."""
    outcomes, pending, deadline = Counter(), set(events), time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        with http.stream("GET", "gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("msg") == "process_completed" and message.get("event_id") in pending:
                    pending.discard(message["event_id"])
                    outcomes["answered" if message.get("success") else str(message.get("output"))[:200]] += 1
                if not pending:
                    break
    outcomes["no result (stream ended)"] += len(pending)
    return +outcomes


def flood(url: str, fn: dict, one_session: bool, other: Student) -> dict:
    """FLOOD /fill_mask requests at once, from one session or each from its own; once every one was queued or
    refused, `other` times a /fill_mask and a /generate, one after the other."""
    import httpx

    http = httpx.Client(base_url=url, timeout=600, limits=httpx.Limits(max_connections=FLOOD + 10))
    shared = uuid.uuid4().hex[:11]
    refused, accepted, outcomes, lock = Counter(), set(), Counter(), threading.Lock()
    arrived, all_queued = itertools.count(1), threading.Event()

    def send():
        visitor = Visitor(url, fn, http)
        visitor.session = shared if one_session else uuid.uuid4().hex[:11]
        event = None
        try:
            event = join(http, fn["fill_mask"], visitor.session, CALLS["/fill_mask"])
            with lock:
                accepted.add(event)
        except Exception as exc:  # noqa: BLE001 - counted
            with lock:
                refused[f"{exc}"[:200]] += 1
        if next(arrived) == FLOOD:
            all_queued.set()
        if event and not one_session:
            try:
                visitor.result(event)
                outcome = "answered"
            except Exception as exc:  # noqa: BLE001 - counted
                outcome = str(exc)[:200]
            with lock:
                outcomes[outcome] += 1

    started = time.perf_counter()
    sending = threading.Thread(target=together, args=([send] * FLOOD,))
    sending.start()
    all_queued.wait(timeout=600)
    queued = time.perf_counter() - started
    reading = None
    if one_session:
        reading = threading.Thread(target=lambda: outcomes.update(collect(http, shared, set(accepted))))
        reading.start()
    log = Log()
    for endpoint in ("/fill_mask", "/generate"):
        log.call(other, endpoint)
    sending.join()
    if reading is not None:
        reading.join()
    http.close()
    return dict(refused=refused, accepted=len(accepted), outcomes=outcomes, queued=queued, log=log,
                wall=time.perf_counter() - started)


def floods(folder: str, args) -> None:
    with Server(folder) as server:
        fn = endpoints(server.url)
        # on loopback every client has one address; the app reads a proxy's X-Forwarded-For as the client's
        others = {"same address": Student(server.url), "other address": Student(server.url)}
        others["other address"].http.headers["X-Forwarded-For"] = OTHER_ADDRESS
        alone = {label: lone(student, ("/fill_mask", "/generate")) for label, student in others.items()}
        print(f"\n4. flood: {FLOOD} /fill_mask requests at once from 127.0.0.1; once all are queued or refused, "
              "another student times a /fill_mask and a /generate (20 tokens): from the same address, and (in a flood "
              f"of its own) from another ({OTHER_ADDRESS} in X-Forwarded-For, as a proxy in front would send it)")
        print("lone latency (median of 3): " + "; ".join(
            f"{label}: " + ", ".join(f"{n} {s:.2f} s" for n, s in times.items()) for label, times in alone.items()))
        print(f"{'flood':12s} {'other student':>14s} {'accepted':>9s} {'refused':>8s} {'answered':>9s} "
              f"{'queued s':>9s} {'all done s':>11s} {'endpoint':>10s} {'s':>6s} {'x lone':>7s}")
        for label, one_session in (("1 session", True), (f"{FLOOD} sessions", False)):
            for who, student in others.items():  # a flood of its own for each, so both see the same moment of one
                result = flood(server.url, fn, one_session, student)
                n_refused = sum(result["refused"].values())
                for i, endpoint in enumerate(("/fill_mask", "/generate")):
                    left = (f"{label:12s} {who:>14s} {result['accepted']:9d} {n_refused:8d} "
                            f"{result['outcomes']['answered']:9d} {result['queued']:9.2f} {result['wall']:11.1f}"
                            if i == 0 else " " * 78)
                    values = result["log"].latencies.get(endpoint)
                    base = alone[who][endpoint]
                    seconds = f"{values[0]:6.2f} {values[0] / base:6.1f}x" if values else f"{'failed':>6s}"
                    print(f"{left} {endpoint[1:]:>10s} {seconds}")
                for message, count in result["refused"].most_common(3):
                    print(f"  flood refused {count} x: {message}")
                for message, count in result["outcomes"].most_common():
                    if message != "answered":
                        print(f"  flood accepted but failed {count} x: {message}")
                print_lost(result["log"], f"  {who}: ")
                time.sleep(2)  # the last streams close
        print("target: the other student within 3x of alone")
        for student in others.values():
            student.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    parser.add_argument("--trials", type=int, default=10, help="cold: fresh servers")
    parser.add_argument("--calls", type=int, default=1000, help="sessions: /classify calls")
    parser.add_argument("--explanations", type=int, default=5, help="explain: how many in a row at the end")
    parser.add_argument("--models", help="a folder with encoder/ sentiment/ ner/ qa/ decoder/ (default: built)")
    args = parser.parse_args()
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    if unknown := set(phases) - set(PHASES):
        parser.error(f"unknown phases {', '.join(sorted(unknown))}; phases are {', '.join(PHASES)}")
    folder = args.models or build_all()
    print(f"{os.cpu_count()} CPUs; models in {folder}; phases {', '.join(phases)}")
    started = time.perf_counter()
    run, failed = {"cold": cold, "explain": explain, "sessions": sessions, "flood": floods}, []
    for phase in phases:
        begun = time.perf_counter()
        try:
            run[phase](folder, args)
        except Exception:  # noqa: BLE001 - the phase's server is stopped; the next phases still run
            traceback.print_exc()
            failed.append(phase)
        print(f"({phase}: {time.perf_counter() - begun:.0f} s)", flush=True)
    print(f"\nall phases in {time.perf_counter() - started:.0f} s", f"(failed: {', '.join(failed)})" if failed else "")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
