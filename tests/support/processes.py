"""Front ends as processes of their own, behind HAProxy, for tests and benchmarks: `start_front_end` runs
`python -m bg_demo serve` on a port, `Balancer` runs deploy/haproxy.cfg in front of several of them."""

from __future__ import annotations

import os
from pathlib import Path

from bg_demo.config import ROLES

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CONFIG = ROOT / "deploy" / "haproxy.cfg"
_PRIVILEGED = ("user", "group", "chroot")  # the deployed balancer drops to Debian's haproxy user; a test need not


def haproxy() -> str | None:
    """The haproxy executable (Debian's package installs /usr/sbin/haproxy), or None."""
    import shutil

    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port no one listens on now (the system's pick)."""
    import socket

    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, host: str = "127.0.0.1", timeout: float = 120.0, process=None) -> None:
    """Return once something accepts connections on host:port; raise if `process` (the one meant to listen) ends
    first, or after `timeout` seconds."""
    import socket
    import time

    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} ended with status {process.returncode} before listening on {port}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:.0f} s") from None
            time.sleep(0.1)


def start_front_end(port: int, host: str = "127.0.0.1", model_dir=None, log_path=None, env=None):
    """`python -m bg_demo serve` on host:port as a process of its own (a `subprocess.Popen`; stop it with
    `stop_process`), offline, with every role loaded from `model_dir` when it is given (no BG_DEMO_<ROLE> override
    from the caller's environment). Its output goes to `log_path` (or nowhere). It is not waited for: see
    `wait_for_port`."""
    import subprocess
    import sys

    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", **(env or {})}
    if model_dir is not None:
        for role in ROLES:
            environment.pop(f"BG_DEMO_{role.upper()}", None)
        environment["BG_DEMO_MODEL_DIR"] = str(model_dir)
    output = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    try:
        return subprocess.Popen([sys.executable, "-m", "bg_demo", "serve", "--host", host, "--port", str(port)],
                                env=environment, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
    finally:
        if log_path:
            output.close()


def stop_process(process, timeout: float = 15.0) -> None:
    """SIGTERM (a front end then runs its exit handlers), then SIGKILL if it has not ended within `timeout`."""
    import subprocess

    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def haproxy_config(ports, listen_port: int, host: str = "127.0.0.1", source=HAPROXY_CONFIG) -> str:
    """deploy/haproxy.cfg for front ends on host:port for each of `ports`: its `bind` line listens on
    host:listen_port, and its `server` lines become one per port, named f1, f2, ... with the same cookie value
    and the options of the file's first server line; its privilege drop (user, group, chroot) is left out."""
    lines, servers = [], None
    for line in Path(source).read_text(encoding="utf-8").splitlines():
        words = line.split("#", 1)[0].split()
        if words and words[0] == "bind":
            line = f"    bind {host}:{listen_port}"
        elif words and words[0] in _PRIVILEGED:
            continue
        elif words and words[0] == "server":
            if servers is None:  # the first one: its options (after name and address) for every new line
                options = words[3:]
                servers = [_server_line(f"f{i}", f"{host}:{port}", options) for i, port in enumerate(ports, 1)]
                lines.extend(servers)
            continue
        lines.append(line)
    if servers is None or not any(line.split()[:1] == ["bind"] for line in lines):
        raise ValueError(f"{source} has no `bind` line or no `server` line to replace")
    return "\n".join(lines) + "\n"


def _server_line(name: str, address: str, options: list[str]) -> str:
    options = list(options)
    if "cookie" in options:
        options[options.index("cookie") + 1] = name
    return "    " + " ".join(["server", name, address, *options])


class Balancer:
    """HAProxy running deploy/haproxy.cfg (see `haproxy_config`) in the foreground, in front of front ends already
    listening on `ports`; a context manager that waits for its port and stops it on exit.

        with Balancer([7951, 7952]) as balancer:
            urllib.request.urlopen(balancer.url)
            balancer.log()  # HAProxy's request log so far: one line per finished request, naming f1, f2, ...
    """

    def __init__(self, ports, port: int | None = None, host: str = "127.0.0.1", folder=None) -> None:
        import tempfile

        self.ports, self.host = list(ports), host
        self.port = port or free_port(host)
        self.folder = Path(folder or tempfile.mkdtemp(prefix="bg-haproxy-"))
        self.config = self.folder / "haproxy.cfg"
        self.log_path = self.folder / "haproxy.log"
        self.process = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> Balancer:
        import subprocess

        executable = haproxy()
        if executable is None:
            raise FileNotFoundError("haproxy is not installed (Debian: apt-get install haproxy)")
        self.config.write_text(haproxy_config(self.ports, self.port, self.host), encoding="utf-8")
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen([executable, "-f", str(self.config), "-db"], stdout=log,
                                            stderr=subprocess.STDOUT)
        try:
            wait_for_port(self.port, self.host, timeout=30, process=self.process)
        except Exception:
            self.stop()
            raise RuntimeError(f"haproxy did not start: {self.log_path.read_text(errors='replace')}") from None
        return self

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)

    def log(self) -> list[str]:
        return self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()

    def __enter__(self) -> Balancer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
