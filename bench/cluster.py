"""The model tier on Ray Serve against models in the front end's process, on this machine, side by side in one run.

    python bench/cluster.py [--size base|tiny] [--students 20] [--skip 3 5] [--niceness 0]

A Ray head of our own (`ray start --head --block`, 2 CPUs, loopback, ports 8100-8159, its own temp folder) serves one
application per role (`bg_demo.cluster.deployments.local`); front ends are `python -m bg_demo serve` processes
(`tests.support.processes.start_front_end`, ports 8160-8162): one in-process (the default), up to two sending their
model calls to the tier; HAProxy (`tests.support.processes.Balancer`, ports 8170-8171). --size base (the default)
builds random weights with the real bert-base, DistilBERT and GPT-2 shapes, as bench/classroom.py does, whose
students, burst and page probe these phases reuse. Each phase prints a table:

1. in-process vs cluster (one replica per role): a lone student's generation (20 greedy tokens) and fill-mask,
   alternating between the two front ends, p50 of 10 each; classroom.py's burst (--students press Generate at once,
   one more uses the BERT tabs), twice on each (in-process, cluster, cluster, in-process), p50/p95; the ratios
   cluster/in-process against their targets (lone <= 1.2x, burst <= 1.3x). 1b: the same again with the replicas
   reniced to 0 (Ray runs them at 15, the front ends run at 0), then back.
2. 1 vs 2 decoder replicas behind one cluster front end: the same burst, and the most generations each replica's
   engine ran at once.
3. 1 vs 2 cluster front ends behind HAProxy (deploy/haproxy.cfg, sticky cookie): a burst of 2 x --students through
   the balancer, each student an httpx client that keeps its cookies; the page loaded through the balancer idle and
   every 0.5 s during the burst (p50, p95, max; target < 0.3 s); sessions broken (a session's requests reaching two
   front ends, read from HAProxy's log), requests sent without the cookie, requests lost: all must be 0.
4. a decoder replica killed (`ray.kill`, no restart) a second into a burst of --students generations (100 tokens
   with tiny models, 20 at base size: see LONG_TOKENS), once it runs a quarter of them: requests lost, and whether
   every student got a complete generation (done, all its tokens).
5. capacity of one decoder replica: 1, 5, 10, 20, 30, 40, 60 ... students generating at once through one front end,
   until the p50 passes 3x the lone student's; the largest within it.
6. resident memory: each replica (its own report), a front end in cluster mode and one in-process (`ps`, after
   their requests), and Ray's own processes (those of our head's session).
7. what N machines would hold, derived from phases 2, 3, 5 and 6, with the reasoning printed.

The students run in a process of their own, a fresh one for each measurement (its connections end with it), as they
would on their own devices. Ray runs its workers, the replicas among them, at nice 15 unless told otherwise
(--niceness). Everything started here is stopped at the end, on an error or Ctrl-C too: front ends, HAProxy, the Ray
head (by its own process, never `ray stop`, which would end every Ray on the machine).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import multiprocessing
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH.parent), str(BENCH)]  # the repository root (bg_demo, tests.support) and bench/ itself
import classroom  # noqa: E402 - bench/ is not a package: its sibling is found through the path above

from tests.support.processes import Balancer, start_front_end, stop_process, wait_for_port  # noqa: E402

HOST = "127.0.0.1"
RAY_PORTS = dict(port=8100, node_manager_port=8101, object_manager_port=8102, ray_client_server_port=8103,
                 dashboard_agent_listen_port=8104, dashboard_agent_grpc_port=8105, runtime_env_agent_port=8106,
                 metrics_export_port=8107, min_worker_port=8110, max_worker_port=8159)
ADDRESS = f"{HOST}:{RAY_PORTS['port']}"
IN_PROCESS_PORT, CLUSTER_PORTS, BALANCER_PORTS = 8160, (8161, 8162), (8170, 8171)
GENERATE = classroom.CALLS["/generate"]  # 20 greedy tokens
# phase 4: a kill a second in lands mid-stream, and the burst ends within the app's 30 s generation budget (at base
# size here 20 students x 100 tokens through the tier ran into it; 20 x 20 took ~15 s)
LONG_TOKENS = {"tiny": 100, "base": 20}
# phase 5; one address may hold 128 events (ui/serving.py); a 2-vCPU replica passes 3x between 1 and 5
LEVELS = (1, 2, 3, 4, 5, 10, 20, 30, 40, 60, 80, 100, 120)
SPAWN = multiprocessing.get_context("spawn")
# Ray's processes that every node runs (the rest run on the head only): phase 7 counts them on every machine
NODE_PROCESSES = ("raylet", "log_monitor", "ray::DashboardAgent", "ray::RuntimeEnvAgent", "ray::IDLE")


# --- the students' side, in a process of their own ---------------------------------------------------------------

_pressed = None  # in a students' process: set when its students press Generate (phase 4 kills a replica then)


def _teach(connection, pressed, function, args) -> None:
    global _pressed
    _pressed = pressed
    try:
        connection.send(("ok", function(*args)))
    except BaseException as exc:  # noqa: BLE001 - the benchmark's process raises it
        connection.send(("error", f"{type(exc).__name__}: {exc}"))


class Students:
    """`function(*args)` in a students' process of their own, spawned afresh (as classroom.py's: their clients do not
    take the servers' interpreter locks; their connections end with it). `pressed` is set when they press Generate.
    Leaving the block ends the process if it still runs (an error, Ctrl-C)."""

    def __init__(self, function, *args):
        self.pressed = SPAWN.Event()
        self._results, sending = SPAWN.Pipe(duplex=False)
        self.process = SPAWN.Process(target=_teach, args=(sending, self.pressed, function, args), daemon=True)
        self.process.start()
        sending.close()

    def result(self):
        try:
            kind, value = self._results.recv()
        except EOFError:
            raise RuntimeError(f"the students' process ended with status {self.process.exitcode}") from None
        self.process.join()
        if kind == "error":
            raise RuntimeError(f"in the students' process: {value}")
        return value

    def __enter__(self) -> Students:
        return self

    def __exit__(self, *exc) -> None:
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(10)


def in_class(function, *args):
    with Students(function, *args) as students:
        return students.result()


def plain(log: classroom.Log) -> dict:
    return dict(latencies={k: list(v) for k, v in log.latencies.items()}, lost=list(log.lost))


def warm(urls: list[str]) -> None:
    """Each front end's first calls (model loads, a session's first state) before anything is timed."""
    for url in urls:
        (client,) = classroom.clients(url, 1)
        for endpoint in ("/generate", "/fill_mask", "/classify"):
            classroom.Log().call(client, endpoint)
        client.close()


def alternate(urls: list[str], endpoints: tuple[str, ...], tries: int) -> dict:
    """One student per front end; each try calls every endpoint on every front end in turn, so that the machine's
    other load falls on both alike. {url: latencies}."""
    logs = {url: classroom.Log() for url in urls}
    clients = {url: classroom.clients(url, 1)[0] for url in urls}
    for url in urls:  # the session's first request builds its state: not timed
        classroom.Log().call(clients[url], "/classify")
    for _ in range(tries):
        for url in urls:
            for endpoint in endpoints:
                logs[url].call(clients[url], endpoint)
    for client in clients.values():
        client.close()
    return {url: plain(log) for url, log in logs.items()}


def burst(url: str, n: int, alone: dict, bert_tabs: bool = True, probe_url: str | None = None) -> dict:
    """classroom.py's burst; with `probe_url`, the page loaded there every 0.5 s while the students generate."""
    probe = classroom.Probe(probe_url) if probe_url else None
    result = classroom.burst(url, n, alone, bert_tabs=bert_tabs, probe=probe)
    pages = probe.times() if probe else []
    if probe:
        probe.stop()
    return dict(plain(result["log"]), wall=result["wall"], rate=result["rate"], pages=pages)


def page_loads(url: str, n: int = 6) -> list[float]:
    """The page loaded `n` times in a row, nothing else running: each load's seconds."""
    import urllib.request

    times = []
    for _ in range(n):
        started = time.perf_counter()
        with urllib.request.urlopen(url, timeout=30) as answer:
            answer.read()
        times.append(time.perf_counter() - started)
        time.sleep(0.2)
    return times


def long_burst(url: str, n: int, tokens: int) -> dict:
    """N students press Generate (`tokens` greedy tokens) at once; each one's outcome."""
    pool = classroom.clients(url, n)
    classroom.together([lambda c=c: classroom.Log().call(c, "/classify") for c in pool])
    args = ("Once upon a time", "greedy", tokens, *GENERATE[3:])
    outcomes = [None] * n

    def student(i, client):
        started = time.perf_counter()
        try:
            raw = client.predict(*args, api_name="/generate")[3]
            outcomes[i] = dict(seconds=time.perf_counter() - started, done=raw["done"], stopped=raw["stopped"],
                               tokens=len(raw["generated"][0]), text=raw["texts"][0])
        except Exception as exc:  # noqa: BLE001 - a request lost: counted
            outcomes[i] = dict(error=f"{type(exc).__name__}: {exc}"[:200])

    _pressed.set()
    wall = classroom.together([lambda i=i, c=c: student(i, c) for i, c in enumerate(pool)])
    return dict(outcomes=outcomes, wall=wall)


# --- the servers' side --------------------------------------------------------------------------------------------

class RayHead:
    """`ray start --head --block` on loopback with our ports and temp folder, in a session of its own: its processes
    are found by that session's id, and it is stopped by its own process (SIGTERM drains and ends what it started)."""

    def __init__(self, folder: Path):
        self.folder, self.process = folder, None

    def start(self) -> RayHead:
        ray = Path(sys.executable).parent / "ray"
        ports = [f"--{name.replace('_', '-')}={port}" for name, port in RAY_PORTS.items()]
        command = [str(ray), "start", "--head", "--block", "--num-cpus=2", "--include-dashboard=false",
                   "--disable-usage-stats", f"--node-ip-address={HOST}", f"--temp-dir={self.folder / 'ray'}", *ports]
        with open(self.folder / "ray-start.log", "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for_port(RAY_PORTS["port"], HOST, timeout=120, process=self.process)
        return self

    def processes(self) -> list[tuple[int, int, str]]:
        """(pid, rss bytes, command) of every process in the head's session (replicas and idle workers too)."""
        if self.process is None:
            return []
        out = subprocess.run(["ps", "-eo", "pid=,sid=,rss=,args="], capture_output=True, text=True).stdout
        found = []
        for line in out.splitlines():
            pid, sid, rss, args = line.split(None, 3)
            if int(sid) == self.process.pid:
                found.append((int(pid), int(rss) * 1024, args))
        return found

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()  # Ray drains the node, then ends the processes it started
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        with contextlib.suppress(ProcessLookupError):  # anything of its session left: by its process group id
            os.killpg(self.process.pid, signal.SIGKILL)


def _quiet() -> None:
    """Ray's progress lines (connecting, applications ready) are not for the tables; its warnings are."""
    import logging

    for name in ("ray", "ray.serve"):
        logging.getLogger(name).setLevel(logging.WARNING)


def _serve_shutdown() -> None:
    from ray import serve

    with contextlib.suppress(Exception):
        serve.shutdown()


class Servers:
    """Everything this run starts, stopped by `close()` whatever happened."""

    def __init__(self, folder: Path, model_dir: str):
        self.folder, self.model_dir = folder, model_dir
        self.head = RayHead(folder)
        self.front_ends: dict[int, subprocess.Popen] = {}
        self.balancer: Balancer | None = None
        self.tier = None
        self.decoders = 0

    def start_tier(self) -> None:
        from bg_demo.cluster import client

        self.head.start()
        self.scale(1)
        self.tier = client.Tier(ADDRESS).connect()

    def scale(self, decoders: int) -> float:
        """Deploy the tier, or only the decoder's application again, with `decoders` replicas; the seconds it took.
        (Deploying again starts every replica of the applications deployed afresh, the decoder's running one too:
        Serve takes each `serve.run` as new code. So only the decoder's is deployed again.)"""
        from bg_demo.cluster import deployments

        if decoders == self.decoders:
            return 0.0
        started = time.perf_counter()
        roles = ("decoder",) if self.decoders else None
        _quiet()
        deployments.local(roles=roles, replicas={"decoder": decoders}, address=ADDRESS,
                          env={"BG_DEMO_MODEL_DIR": self.model_dir})
        _quiet()  # again: Ray sets its loggers up when it starts
        deadline = time.monotonic() + 300
        while self.tier is not None and len(self.replicas("decoder")) != decoders:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the decoder has not {decoders} replicas after 300 s")
            time.sleep(0.5)
        self.decoders = decoders
        return time.perf_counter() - started

    def replicas(self, role: str, seconds: float = 60.0) -> list[dict]:
        """`Tier.replicas(role)`, asked again while it raises: right after a replica dies, Serve's handle still
        routes to it for a while, and a broadcast to it fails (ActorDiedError)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                return self.tier.replicas(role)
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def front_end(self, port: int, cluster: bool) -> str:
        env = {"BG_DEMO_RAY_ADDRESS": ADDRESS if cluster else ""}
        process = start_front_end(port, HOST, model_dir=self.model_dir, log_path=self.folder / f"front-end-{port}.log",
                                  env=env)
        self.front_ends[port] = process
        return f"http://{HOST}:{port}/"

    def wait(self) -> None:
        for port, process in self.front_ends.items():
            try:
                wait_for_port(port, HOST, timeout=300, process=process)
            except Exception:
                print((self.folder / f"front-end-{port}.log").read_text(errors="replace")[-3000:])
                raise

    def pid(self, port: int) -> int:
        return self.front_ends[port].pid

    def close(self) -> None:
        if self.balancer is not None:
            self.balancer.stop()
        for process in self.front_ends.values():
            stop_process(process)
        if self.tier is not None:  # the replicas first, so that Ray's drain has nothing to wait for
            ended = threading.Thread(target=_serve_shutdown, daemon=True)
            ended.start()
            ended.join(60)  # a cluster that does not answer: the head is stopped all the same
        with contextlib.suppress(Exception):
            import ray

            ray.shutdown()
        self.head.stop()


class Rows:
    """The most generations each decoder replica ran at once (its engine's rows), sampled while a burst runs."""

    def __init__(self, servers: Servers, every: float = 0.25):
        self.servers, self.every, self.most = servers, every, defaultdict(int)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Rows:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):  # a replica just killed: the next sample
                for info in self.servers.tier.replicas("decoder"):
                    self.most[info["name"]] = max(self.most[info["name"]], info["rows"])
            self._stop.wait(self.every)

    def text(self) -> str:
        return " / ".join(f"{rows}" for rows in sorted(self.most.values(), reverse=True)) or "-"


# --- measures ------------------------------------------------------------------------------------------------------

def p(values, q: float) -> float:
    return classroom.percentile(values, q)


def table(headers: list[str], rows: list[list]) -> None:
    cells = [[str(cell) for cell in row] for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    line = lambda row: "| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |"  # noqa: E731
    print(line(cells[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print(line(row))


def check(ok: bool) -> str:
    return "met" if ok else "MISSED"


def load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def rss(pid: int) -> int:
    """A process's resident memory in bytes, as `ps -o rss` gives it."""
    return int(subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True).stdout) * 1024


def niceness(pid: int) -> int:
    return int(subprocess.run(["ps", "-o", "ni=", "-p", str(pid)], capture_output=True, text=True).stdout)


def mb(size: float) -> str:
    return f"{size / 2**20:,.0f} MB"


def sessions(lines: list[str]) -> dict:
    """From HAProxy's request log: the front ends each session's requests reached, and its requests that came
    without a valid BGDEMO cookie (the third flag of the cookie field: V = valid)."""
    servers, uncookied = defaultdict(set), defaultdict(int)
    for line in lines:
        found = re.search(r"front_ends/(\S+) .* (\S)(\S)(\S)(\S) \d+/\d+/\d+/\d+/\d+ \d+/\d+ \"(\S+) (\S+)", line)
        if not found:
            continue
        session = re.search(r"(?:session_hash=|/heartbeat/)([A-Za-z0-9]+)", found.group(7))
        if session is None:
            continue
        servers[session.group(1)].add(found.group(1))
        if found.group(4) != "V":
            uncookied[session.group(1)] += 1
    return dict(servers=servers, uncookied=uncookied)


def side_by_side(urls: dict, args) -> dict:
    """Phase 1's measures on the in-process and the cluster front end, alternating; its table printed."""
    tried = in_class(alternate, list(urls.values()), ("/generate", "/fill_mask"), 10)
    alone = {name: {e: statistics.median(v) for e, v in tried[url]["latencies"].items()} for name, url in urls.items()}
    bursts = {name: dict(latencies=defaultdict(list), lost=[], wall=[]) for name in urls}
    for name in ("in-process", "cluster", "cluster", "in-process"):  # ABBA: the machine's drift falls on both alike
        result = in_class(burst, urls[name], args.students, alone[name])
        for endpoint, values in result["latencies"].items():
            bursts[name]["latencies"][endpoint] += values
        bursts[name]["lost"] += result["lost"]
        bursts[name]["wall"].append(result["wall"])
    lost = sum(len(tried[url]["lost"]) for url in urls.values()) + sum(len(b["lost"]) for b in bursts.values())
    rows = []
    for endpoint in ("/generate", "/fill_mask"):
        a, b = alone["in-process"][endpoint], alone["cluster"][endpoint]
        rows.append([f"lone {endpoint} p50 (10 tries)", f"{a:.3f}", f"{b:.3f}", f"{b / a:.2f}x", "<= 1.2x",
                     check(b / a <= 1.2)])
    for name, q in (("p50", 0.5), ("p95", 0.95)):
        a, b = (p(bursts[k]["latencies"]["/generate"], q) for k in ("in-process", "cluster"))
        rows.append([f"burst of {args.students} (x2): /generate {name}", f"{a:.2f}", f"{b:.2f}", f"{b / a:.2f}x",
                     "<= 1.3x", check(b / a <= 1.3)])
    a, b = (statistics.mean(bursts[k]["wall"]) for k in ("in-process", "cluster"))
    rows.append([f"burst of {args.students}: all done (wall, mean of 2)", f"{a:.2f}", f"{b:.2f}", f"{b / a:.2f}x", "",
                 ""])
    a, b = (p(bursts[k]["latencies"].get("/fill_mask", []), 0.5) for k in ("in-process", "cluster"))
    rows.append(["burst: the BERT-tab student's /fill_mask p50", f"{a:.3f}", f"{b:.3f}", f"{b / a:.2f}x", "", ""])
    table(["measure", "in-process s", "cluster s", "cluster/in-process", "target", ""], rows)
    print(f"requests lost: {lost}")
    for failure in [f for b in bursts.values() for f in b["lost"]][:5]:
        print("  ", failure)
    return alone


def renice(pids, value: int) -> None:
    """Every thread of each process to niceness `value` (Linux keeps one per thread; a new thread takes its
    creator's). Lowering it needs CAP_SYS_NICE: PermissionError otherwise."""
    for pid in pids:
        for thread in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(ProcessLookupError):
                os.setpriority(os.PRIO_PROCESS, int(thread), value)


def phase_lone(servers: Servers, urls: dict, args, results: dict) -> None:
    from bg_demo import config

    print(f"\n## 1. in-process vs cluster (one replica per role)   [{load()}]")
    servers.scale(1)
    results["alone"] = side_by_side(urls, args)
    pids = [info["pid"] for role in config.ROLES for info in servers.replicas(role)]
    was = niceness(pids[0])
    if was == 0:
        return
    print(f"\n## 1b. the same, with every replica's threads reniced from {was} (Ray's worker_niceness) to 0, as the "
          f"front ends run   [{load()}]")
    try:
        renice(pids, 0)
    except PermissionError:
        print("(not allowed to lower a niceness here: skipped)")
        return
    try:
        side_by_side(urls, args)
    finally:
        renice(pids, was)


def phase_replicas(servers: Servers, url: str, args, results: dict) -> None:
    print(f"\n## 2. 1 vs 2 decoder replicas (cluster, one front end)   [{load()}]")
    alone = results.get("alone", {}).get("cluster") or {"/generate": float("nan")}
    rows, measured, pids = [], {}, {}
    bert_before = {info["pid"] for role in ("encoder", "sentiment") for info in servers.replicas(role)}
    for decoders in (1, 2):
        took = servers.scale(decoders)
        pids[decoders] = sorted(info["pid"] for info in servers.replicas("decoder"))
        if took:
            in_class(warm, [url])
        with Rows(servers) as running:
            measured[decoders] = result = in_class(burst, url, args.students, alone)
        gen = result["latencies"]["/generate"]
        rows.append([decoders, f"{p(gen, 0.5):.2f}", f"{p(gen, 0.95):.2f}", f"{result['wall']:.2f}",
                     f"{result['rate']:.1f}x", running.text(), len(result["lost"]), f"{took:.0f} s" if took else "-"])
    table(["decoder replicas", f"/generate p50 s ({args.students} at once)", "p95 s", "all done s",
           "decoding vs one lone stream", "most rows at once, per replica", "lost", "scaled in"], rows)
    one, two = (p(measured[d]["latencies"]["/generate"], 0.5) for d in (1, 2))
    print(f"p50 with 2 replicas / with 1: {two / one:.2f}x (both replicas share this machine's 2 cores)")
    bert_after = {info["pid"] for role in ("encoder", "sentiment") for info in servers.replicas(role)}
    print(f"decoder replica pids with 1: {pids[1]}, with 2: {pids[2]} (deploying the decoder's application again "
          f"starts all its replicas anew); encoder and sentiment replicas kept: {bert_before == bert_after}")
    results["replicas"] = dict(one=one, two=two)


def phase_front_ends(servers: Servers, urls: list[str], ports: list[int], args, results: dict) -> None:
    n = 2 * args.students
    print(f"\n## 3. 1 vs 2 front ends behind HAProxy (cluster, {servers.decoders} decoder replicas), "
          f"{n} students   [{load()}]")
    alone = results.get("alone", {}).get("cluster") or {"/generate": float("nan")}
    in_class(warm, urls)
    rows, measured = [], {}
    for count, port in zip((1, 2), BALANCER_PORTS):
        (servers.folder / f"lb{count}").mkdir(exist_ok=True)
        servers.balancer = balancer = Balancer(ports[:count], port=port, host=HOST, folder=servers.folder / f"lb{count}")
        balancer.start()
        time.sleep(1.0)
        try:
            idle = in_class(page_loads, balancer.url)
            result = in_class(burst, balancer.url, n, alone, True, balancer.url)
            time.sleep(1.0)  # the students' process has ended: its streams are logged
            seen = sessions(balancer.log())
        finally:
            balancer.stop()
            servers.balancer = None
        broken = sum(1 for where in seen["servers"].values() if len(where) > 1)
        spread = defaultdict(int)
        for where in seen["servers"].values():
            spread["+".join(sorted(where))] += 1
        gen, pages = result["latencies"]["/generate"], result["pages"]
        measured[count] = dict(result, pages=pages, broken=broken)
        rows.append([count, f"{p(gen, 0.5):.2f}", f"{p(gen, 0.95):.2f}", f"{result['wall']:.2f}", f"{p(idle, 0.5):.3f}",
                     f"{p(pages, 0.5):.3f}", f"{p(pages, 0.95):.3f}", f"{max(pages, default=float('nan')):.3f}",
                     len(pages),
                     len(seen["servers"]), " ".join(f"{k}:{v}" for k, v in sorted(spread.items())), broken,
                     sum(1 for c in seen["uncookied"].values() if c), len(result["lost"])])
        for failure in result["lost"][:3]:
            print("  lost:", failure)
    table(["front ends", "/generate p50 s", "p95 s", "all done s", "page idle p50 s", "page p50 s (burst)",
           "page p95 s", "page max s", "page loads",
           "sessions", "sessions per front end", "broken", "sent without cookie", "lost"], rows)
    worst = max(max(m["pages"], default=float("nan")) for m in measured.values())
    print(f"page max < 0.3 s: {check(worst < 0.3)}; sessions broken and requests lost 0: "
          f"{check(all(m['broken'] == 0 and not m['lost'] for m in measured.values()))}")
    results["front_ends"] = {c: dict(p50=p(m["latencies"]["/generate"], 0.5), page_max=max(m["pages"], default=0.0),
                                     page_p50=p(m["pages"], 0.5), n=n) for c, m in measured.items()}


def phase_kill(servers: Servers, url: str, args, results: dict) -> None:
    import ray

    tokens = LONG_TOKENS[args.size]
    print(f"\n## 4. a decoder replica killed a second into {args.students} generations of {tokens} tokens   [{load()}]")
    servers.scale(2)
    in_class(warm, [url])
    before = servers.replicas("decoder")
    killed = None
    enough = max(1, args.students // 4)  # rows the killed replica should be running: a kill that moves generations
    with Students(long_burst, url, args.students, tokens) as students, Rows(servers) as running:
        students.pressed.wait(300)
        at = time.monotonic()
        time.sleep(1.0)
        while killed is None and students.process.is_alive():  # the busiest replica once it runs `enough`, or any after 10 s
            busiest = max(servers.replicas("decoder"), key=lambda info: info["rows"])
            if busiest["rows"] >= enough or (busiest["rows"] and time.monotonic() - at > 10):
                ray.kill(ray.get_actor(busiest["name"], namespace="serve"), no_restart=True)
                killed = dict(busiest, at=time.monotonic(), after=time.monotonic() - at)
            else:
                time.sleep(0.1)
        while killed is not None and "listed" not in killed:  # how long Tier.replicas fails after the kill
            try:
                servers.tier.replicas("decoder")
                killed["listed"] = time.monotonic() - killed["at"]
            except Exception:  # noqa: BLE001 - the dead replica is still in the handle's routing
                if time.monotonic() - killed["at"] > 120:
                    killed["listed"] = float("inf")
                time.sleep(0.2)
        result = students.result()
    outcomes = result["outcomes"]
    errors = [o["error"] for o in outcomes if "error" in o]
    complete = [o for o in outcomes if "error" not in o and o["done"] and (o["tokens"] == tokens
                                                                            or o["stopped"] == "end of text")]
    texts = {o["text"] for o in complete}
    stopped = defaultdict(int)
    for o in outcomes:
        if "error" not in o:
            stopped[o["stopped"]] += 1
    deadline = time.monotonic() + 120
    while len(servers.replicas("decoder")) != 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    after = servers.replicas("decoder")
    table(["measure", "value"], [
        ["decoder replicas before", ", ".join(f"{r['name']} (pid {r['pid']})" for r in before)],
        ["killed", f"{killed['name']} with {killed['rows']} rows running, {killed['after']:.1f} s after Generate"
         if killed else "none: the burst ended first"],
        ["most rows at once, per replica", running.text()],
        ["Tier.replicas('decoder') raised ActorDiedError after the kill for",
         f"{killed['listed']:.1f} s" if killed else "-"],
        ["students", len(outcomes)],
        ["requests lost", len(errors)],
        ["complete generations (done, all tokens)", f"{len(complete)}/{len(outcomes)}"],
        ["how they ended", ", ".join(f"{k}: {v}" for k, v in stopped.items())],
        ["distinct texts among the complete ones (same prompt, greedy)", len(texts)],
        ["slowest student s", f"{max((o.get('seconds', 0) for o in outcomes), default=0):.2f}"],
        ["all done s", f"{result['wall']:.2f}"],
        ["replicas after (Serve replaced the dead one)", ", ".join(f"{r['name']} (pid {r['pid']})" for r in after)],
    ])
    print(f"lost 0 and every generation complete: {check(killed is not None and not errors and len(complete) == len(outcomes))}")
    for error in errors[:5]:
        print("  ", error)


def phase_capacity(servers: Servers, url: str, args, results: dict) -> None:
    print(f"\n## 5. capacity of one decoder replica (students generating 20 tokens at once, one front end)   [{load()}]")
    servers.scale(1)
    in_class(warm, [url])
    lone = statistics.median(in_class(alternate, [url], ("/generate",), 5)[url]["latencies"]["/generate"])
    rows, within = [[1, f"{lone:.2f}", "-", "1.00x", "-", "-", 0]], 1
    for n in LEVELS[1:]:
        with Rows(servers) as running:
            result = in_class(burst, url, n, {"/generate": lone}, False)
        gen = result["latencies"]["/generate"]
        ratio = p(gen, 0.5) / lone
        rows.append([n, f"{p(gen, 0.5):.2f}", f"{p(gen, 0.95):.2f}", f"{ratio:.2f}x", f"{result['wall']:.2f}",
                     running.text(), len(result["lost"])])
        if ratio > 3 or result["lost"]:
            break
        within = n
    table(["students at once", "/generate p50 s", "p95 s", "p50/lone", "all done s", "most rows at once", "lost"], rows)
    last = "up to the largest level tried" if within == LEVELS[-1] else ""
    print(f"largest within 3x the lone student's p50: {within} student{'s' * (within != 1)} {last}".rstrip())
    results["capacity"] = dict(students=within, lone=lone)


def ray_label(command: str) -> str:
    """A Ray process's name: its actor (ray::...), its executable, or the script or module Python runs."""
    words = command.split()
    if words[0].startswith("ray::"):
        return words[0]
    if "python" not in Path(words[0]).name:
        return Path(words[0]).name
    if len(words) > 2 and Path(words[1]).name == "ray":
        return f"ray {words[2]}"
    script = next((Path(word).stem for word in words[1:] if word.endswith(".py")), None)
    return script or (words[words.index("-m") + 1] if "-m" in words else words[-1])


def phase_memory(servers: Servers, ports: dict, results: dict) -> None:
    from bg_demo import config

    print(f"\n## 6. resident memory   [{load()}]")
    rows, replica_pids, by_role = [], set(), {}
    for role in config.ROLES:
        for info in servers.replicas(role):
            replica_pids.add(info["pid"])
            by_role.setdefault(role, []).append(info["rss"])
            models = ", ".join(model for _, model in info["models"])
            rows.append([f"replica {role} ({info['name']})", mb(info["rss"]), models])
    for name, port in ports.items():
        rows.append([f"front end, {name}", mb(rss(servers.pid(port))), "after its phases' requests"])
    ray_total, ray_node = 0, 0
    for pid, size, command in servers.head.processes():
        if pid in replica_pids:
            continue
        if ray_label(command) == "ray start":  # --block keeps it: a head started without it has no such process
            rows.append([f"(ray start --block, pid {pid})", mb(size), "ours, to stop the head: not counted"])
            continue
        ray_total += size
        if ray_label(command) in NODE_PROCESSES:
            ray_node += size
        rows.append([f"Ray: {ray_label(command)} (pid {pid})", mb(size), ""])
    rows.append(["Ray's own processes, total", mb(ray_total), "raylet, gcs_server, Serve controller, agents, idle workers"])
    table(["process", "RSS", "models / note"], rows)
    print(f"of which every node of a cluster runs its own: {mb(ray_node)} ({', '.join(NODE_PROCESSES)}); "
          f"the head alone the rest: {mb(ray_total - ray_node)}")
    results["memory"] = dict(replicas={role: max(v) for role, v in by_role.items()}, ray_node=ray_node,
                             ray_head=ray_total - ray_node,
                             front_end=rss(servers.pid(ports["cluster"])),
                             in_process=rss(servers.pid(ports["in-process"])))


def phase_machines(results: dict) -> None:
    print("\n## 7. what N machines would hold")
    capacity, memory, front = results.get("capacity"), results.get("memory"), results.get("front_ends", {})
    if not capacity:
        print("(phase 5 was skipped: no capacity per replica to derive it from)")
        return
    per, replicas = capacity["students"], results.get("replicas")
    lines = [
        "Derived, not measured across machines (this run has one). Assumptions:",
        f"- a machine of 2 vCPU like this one runs one decoder replica, which holds {per} student{'s' * (per != 1)} "
        f"generating at once within 3x a lone student's p50 (phase 5: lone p50 {capacity['lone']:.2f} s).",
        "- decoder replicas on separate machines add up: each has its own 2 vCPU and memory bandwidth, which a "
        "replica's decoding steps use in full (phase 2 shows two replicas sharing them gain nothing).",
    ]
    if replicas:
        lines.append(f"  Phase 2 cannot show that they add up: there a second replica on the same 2 cores changed the burst "
                     f"p50 by {replicas['two'] / replicas['one']:.2f}x.")
    # a front end's limit: the most students per front end for which phase 3's page loads all stayed within target
    held = [front[c]["n"] // c for c in sorted(front) if front[c]["page_max"] < 0.3]
    limit, bound = max(held, default=None), ""
    if limit:
        lines.append(f"- a front end kept every page load under 0.3 s with {limit} students generating through it "
                     "(phase 3); its event loop's limit is at least that (not measured beyond).")
    elif front:
        limit, bound = min(front[c]["n"] // c for c in front), ">= "
        lines.append("- no front end kept every page load under 0.3 s in phase 3 ("
                     + "; ".join(f"{front[c]['n'] // c} students each: page p50 {front[c]['page_p50']:.3f} s, max "
                                 f"{front[c]['page_max']:.3f} s" for c in sorted(front))
                     + f"): a front end holds fewer than {limit} within target, so the front ends needed are at least "
                     "the count shown.")
    else:
        limit, bound = per, "? "
        lines.append("- phase 3 was skipped: one front end per decoder replica is assumed.")
    lines.append("- each machine runs its decoder replica and its front ends (they share its 2 vCPU, as everything "
                 "did in phases 1-5); machine 1 also runs the Ray head (GCS, Serve controller), HAProxy (~15 MB) and "
                 "one replica of each BERT role (encoder, sentiment, NER, QA).")
    print("\n".join(lines))
    rows = []
    for n in (1, 2, 4, 8):
        students = n * per
        fronts = max(1, math.ceil(students / limit))
        row = [n, n, students, f"{bound}{fronts}".replace("? ", "") + ("?" if bound == "? " else "")]
        if memory:
            bert = sum(size for role, size in memory["replicas"].items() if role != "decoder")
            each = memory["replicas"].get("decoder", 0) + memory["front_end"] * math.ceil(fronts / n) + memory["ray_node"]
            row += [mb(each + bert + memory["ray_head"] + 15 * 2**20), mb(each) if n > 1 else "-"]
        rows.append(row)
    headers = ["machines", "decoder replicas", "students generating at once (<= 3x lone)", "front ends"]
    if memory:
        headers += ["memory, machine 1", "memory, each other machine"]
    table(headers, rows)
    if memory:
        print("memory from phase 6: a machine's decoder replica, its share of the front ends, Ray's processes on every "
              "node (raylet, agents, log monitor, idle workers); machine 1 adds the BERT replicas and the head's own.")


# --- the run ------------------------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("base", "tiny"), default="base")
    parser.add_argument("--students", type=int, default=20, help="students in a burst (phase 3: twice as many)")
    parser.add_argument("--skip", type=int, nargs="*", default=[], metavar="PHASE", help="phases (1-7) to leave out")
    parser.add_argument("--niceness", type=int, default=None,
                        help="the replicas' niceness (Ray's worker_niceness; Ray's default is 15, the front ends run at 0)")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"# cluster benchmark: {args.size} models, {os.cpu_count()} CPUs, {args.students} students a burst; "
          f"{load()} at the start")
    model_dir = classroom.build_models(args.size)
    from bg_demo.tiny_models import build_tiny_models

    build_tiny_models(model_dir, roles=("ner", "qa"))  # every role is deployed; these two are not measured
    os.environ["BG_DEMO_MODEL_DIR"] = model_dir
    # `ray start` turns token authentication on (its token: ~/.ray/auth_token), but a driver joining with an address
    # takes it as off unless told, and is refused (InvalidAuthToken): the head, the front ends and this process all
    # read this (the front ends get this environment)
    os.environ["RAY_AUTH_MODE"] = "token"
    if args.niceness is not None:
        os.environ["RAY_worker_niceness"] = str(args.niceness)  # read by the raylet, which starts the replicas
    folder = Path(tempfile.mkdtemp(prefix="bgc-"))  # short: Ray's socket paths live under it
    servers = Servers(folder, model_dir)
    stop = lambda signum, frame: sys.exit(128 + signum)  # noqa: E731 - SIGTERM unwinds like Ctrl-C: cleanup runs
    signal.signal(signal.SIGTERM, stop)
    results: dict = {}
    finished = False
    try:
        servers.start_tier()
        signal.signal(signal.SIGTERM, stop)  # again: joining Ray installs its own handler, which ends the process
        urls = {"in-process": servers.front_end(IN_PROCESS_PORT, cluster=False),
                "cluster": servers.front_end(CLUSTER_PORTS[0], cluster=True)}
        servers.wait()
        in_class(warm, list(urls.values()))
        decoders = servers.replicas("decoder")
        nice = {info["pid"]: niceness(info["pid"]) for info in decoders}
        print(f"ready in {time.perf_counter() - started:.0f} s (models built, Ray head, tier deployed, front ends up); "
              f"replicas run at nice {sorted(set(nice.values()))}, the front ends at {niceness(servers.pid(CLUSTER_PORTS[0]))}; "
              f"a decoder replica runs {decoders[0]['threads']} torch threads with {decoders[0]['settings']}")
        if 1 not in args.skip:
            phase_lone(servers, urls, args, results)
        if 2 not in args.skip:
            phase_replicas(servers, urls["cluster"], args, results)
        if 3 not in args.skip:
            second = servers.front_end(CLUSTER_PORTS[1], cluster=True)
            servers.wait()
            phase_front_ends(servers, [urls["cluster"], second], list(CLUSTER_PORTS), args, results)
        if 4 not in args.skip:
            phase_kill(servers, urls["cluster"], args, results)
        if 5 not in args.skip:
            phase_capacity(servers, urls["cluster"], args, results)
        if 6 not in args.skip:
            phase_memory(servers, {"in-process": IN_PROCESS_PORT, "cluster": CLUSTER_PORTS[0]}, results)
        if 7 not in args.skip:
            phase_machines(results)
        finished = True
    finally:
        servers.close()
        if finished:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"\nlogs (Ray's, the front ends', HAProxy's) kept in {folder}")
        print(f"\nwall time {time.perf_counter() - started:.0f} s; {load()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
