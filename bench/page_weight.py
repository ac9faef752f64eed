"""What a first visit to the page costs a phone: bytes on the wire and the time until the tab bar shows.

    python bench/page_weight.py [--down 1600] [--up 750] [--latency 150] [--cpu-throttle 4] [--repeats 1]
                                [--app-only] [--before REV] [--lesson-only] [--floor]

Serves the app on the tiny models (`BG_DEMO_MODEL_DIR` if set, else built in a temporary folder) on loopback,
once per setting, each adding one step to the one before: the page as Gradio sends it (and with the theme's web
fonts), gzip-compressed, trimmed (`serving.Lighter`), then with the device's own fonts: the app's launch options.
Each is opened in Chromium (Debian's, through playwright) with an empty cache, on a link throttled through the
DevTools protocol (`Network.emulateNetworkConditions`: 1.6 Mbit/s down, 750 kbit/s up, 150 ms latency: a phone on
a weak signal), and printed as one row of a table:

- the document: as the browser reads it, and on the wire;
- first visit: every byte the page moved (`encodedDataLength`: headers and bodies as sent, compressed where
  they were), and the seconds from navigation until the tab bar is visible;
- reload (the cache warm): what the page moves again;
- its CPU: the seconds the page's main thread ran until the tab bar showed (`Performance.getMetrics`
  ThreadTime): the browser's own work, which a phone does several times slower.

The phone's CPU is emulated too: Chromium runs the page's main thread `--cpu-throttle` times slower
(`Emulation.setCPUThrottlingRate`; 4 is DevTools' "mid-tier mobile"). Then the app's own setting is opened once more
on loopback (no link emulation, the same CPU throttling): what the page's own work costs when the bytes are free;
and there each page of the app is opened by its address (its components and events, its document, the seconds until
its content shows, its main thread's CPU), then each from the one before through the navigation (the seconds from
the click until its content is painted).

`--floor` opens an empty Gradio page (one HTML block, Gradio's default options) and the Start page in turn, on
loopback with the CPU throttled: what Gradio's own client costs before the app adds anything, beside the app.

With `--before REV` (a git revision: `c55d775`, the app before its pages), that build's own bench/page_weight.py runs
first in the same run, on the same models, browser and settings, from a copy of the revision (`git archive`), and
the two are printed one after the other, then side by side: the first visit until the app's navigation shows (the
tab bar before, the page's navigation now), its CPU, and opening another part of the app (a tab's first selection
before, a page from the navigation now).

Last, the guided lesson as a student follows it (`?lesson=guided&step=1`, then Next to the last step, the CPU
throttled, on loopback): the seconds from each Next until the step's own result is shown (its run done: every output
block of the page that went busy is idle again). With `--before REV`, the revision's app (`python app.py` in its copy)
is walked first by the same code, in the same run, and the two are printed side by side: the same links and the
same bar (`.bg-lesson-next`, `.bg-lesson-where`) in both builds, a tab switch then, a page now.

The bytes depend on nothing else; the seconds also on this machine's CPU (on a shared machine, compare rows of one
run only). Uvicorn speaks HTTP/1.1, so the browser fetches Gradio's ~80 script and style modules six at a time,
each paying the link's latency; behind an HTTPS proxy that speaks HTTP/2 to browsers they share one connection.
"""

from __future__ import annotations

import argparse
import atexit
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
TAB_BAR = ".bg-nav"  # the app's navigation: every page shows it with the page
PAGE = ".bg-page"  # a page's own content (ui/__init__.py `build_page`)
SETTLE_SECONDS = 2.0  # a visit is over when nothing new has loaded for this long (the heartbeat stream stays open)
READ_MS = 4000  # a lesson's student reads each step's result this long before Next (the page's scrolling, 3 s, over)
SETTLE_MOST = 30.0  # or this long after the tab bar showed, whatever still trickles in


def models() -> None:
    if os.environ.get("BG_DEMO_MODEL_DIR"):
        return
    from bg_demo.tiny_models import build_tiny_models

    folder = tempfile.mkdtemp(prefix="bg-demo-page-weight-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    build_tiny_models(folder)
    os.environ["BG_DEMO_MODEL_DIR"] = folder


APP = "+ device fonts (the app)"  # the setting `bg_demo.ui.launch` uses (`settings`' last)
SETTINGS = ("as Gradio sends it", "+ gzip", "+ trimmed", APP)  # `settings`' names, in order


def settings() -> dict:
    """name -> the launch options of that setting: the app's own, less what the setting leaves out."""
    import gradio as gr
    from starlette.middleware.gzip import GZipMiddleware

    from bg_demo.ui import launch_options, serving

    def without(*left_out, web_fonts=False):
        options = launch_options()
        kept = [m for m in options["app_kwargs"]["middleware"] if m.cls not in left_out]
        if web_fonts:  # the theme as it was: Soft's Montserrat and IBM Plex Mono
            options["theme"] = gr.themes.Soft(primary_hue="blue")
        return {**options, "app_kwargs": {**options["app_kwargs"], "middleware": kept}}

    return dict(zip(SETTINGS, (without(GZipMiddleware, serving.Lighter, web_fonts=True),
                               without(serving.Lighter, web_fonts=True), without(web_fonts=True), without())))


class Visit:
    """One page load in a fresh browser context, its network seen through the DevTools protocol."""

    def __init__(self, browser, url: str, link: dict | None, throttle: float = 1.0):
        self.context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                           is_mobile=True, has_touch=True)
        self.page = self.context.new_page()
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.send("Network.enable")
        self.cdp.send("Performance.enable")
        if link is not None:
            self.cdp.send("Network.emulateNetworkConditions", {"offline": False, **link})
        if throttle > 1:
            self.cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        self.url = url
        self.requests: dict[str, dict] = {}
        self.last_event = time.monotonic()
        self.cdp.on("Network.responseReceived", self._response)
        self.cdp.on("Network.dataReceived", self._data)
        self.cdp.on("Network.loadingFinished", self._finished)

    def _entry(self, request_id: str) -> dict:
        self.last_event = time.monotonic()
        return self.requests.setdefault(request_id, {"url": "", "type": "", "wire": 0, "streamed": 0, "done": False})

    def _response(self, event) -> None:
        entry = self._entry(event["requestId"])
        entry["url"], entry["type"] = event["response"]["url"], event.get("type", "")

    def _data(self, event) -> None:
        self._entry(event["requestId"])["streamed"] += event.get("encodedDataLength", 0)

    def _finished(self, event) -> None:
        entry = self._entry(event["requestId"])
        entry["wire"], entry["done"] = event["encodedDataLength"], True

    def load(self, reload: bool = False) -> float:
        """Navigate (or reload), wait for the tab bar, then for the traffic to settle; seconds to the tab bar."""
        self.requests.clear()
        start = time.monotonic()
        if reload:
            self.page.reload(wait_until="commit")
        else:
            self.page.goto(self.url, wait_until="commit")
        self.page.locator(TAB_BAR).first.wait_for(state="visible", timeout=120_000)
        shown = time.monotonic() - start
        metrics = self.cdp.send("Performance.getMetrics")["metrics"]
        self.cpu_at_tab_bar = next(m["value"] for m in metrics if m["name"] == "ThreadTime")  # the page's main thread
        settled = time.monotonic() + SETTLE_MOST
        while time.monotonic() - self.last_event < SETTLE_SECONDS and time.monotonic() < settled:
            self.page.wait_for_timeout(200)
        return shown

    def bytes(self) -> int:
        return sum(entry["wire"] if entry["done"] else entry["streamed"] for entry in self.requests.values())

    def document(self) -> int:
        return sum(entry["wire"] for entry in self.requests.values() if entry["type"] == "Document")

    def switches(self) -> list[tuple[str, float]]:
        """Open each other page of the app from the navigation, in order: (its address, seconds from the click until
        its content is visible and two frames were painted), each from the page before."""
        times = []
        for path in [module.PATH for module in _pages()][1:]:
            link = self.page.locator(f".bg-nav-{path} a, a.bg-nav-{path}").first
            start = time.monotonic()
            link.click()
            self.page.wait_for_url(f"**/{path}*", timeout=120_000)
            self.page.locator(PAGE).first.wait_for(state="visible", timeout=120_000)
            self.page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            times.append((path, time.monotonic() - start))
        return times

    def close(self) -> None:
        self.context.close()


def _pages():
    from bg_demo.ui import site

    return site.PAGES


def each_page(browser, url: str, throttle: float) -> list[dict]:
    """Each page of the app opened by its address in a fresh browser (loopback, the CPU throttled): its components
    and events (its own config), its document, the seconds until its content shows and its main thread's CPU."""
    import json

    config = json.loads(urllib.request.urlopen(url + "config").read())
    rows = []
    for module in _pages():
        visit = Visit(browser, url + module.PATH, None, throttle)
        try:
            start = time.monotonic()
            visit.page.goto(visit.url, wait_until="commit")
            visit.page.locator(PAGE).first.wait_for(state="visible", timeout=120_000)
            shown = time.monotonic() - start
            metrics = visit.cdp.send("Performance.getMetrics")["metrics"]
            page = config["page"][module.PATH]
            rows.append({"path": module.PATH or "/", "components": len(page["components"]),
                         "events": len(page["dependencies"]), "raw": document_size(url + module.PATH),
                         "shown": shown, "cpu": next(m["value"] for m in metrics if m["name"] == "ThreadTime")})
        finally:
            visit.close()
    return rows


def document_size(url: str) -> int:
    """The document as the browser reads it (uncompressed)."""
    return len(urllib.request.urlopen(url).read())


def measure(name: str, setting: str, browser, link: dict | None, repeats: int, throttle: float = 1.0,
            switches: bool = False, pages: bool = False) -> dict:
    from bg_demo.ui import build_demo

    demo = build_demo()
    # the launch options of `setting`, read once the app is built, as `bg_demo.ui.launch` reads them: the page's
    # translations are those of the labels built
    options = settings()[setting]
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, **options)
    try:
        raw = document_size(url)
        firsts, shown, reloads, docs, cpu, switched = [], [], [], [], [], []
        for _ in range(repeats):
            visit = Visit(browser, url, link, throttle)
            try:
                shown.append(visit.load())
                cpu.append(visit.cpu_at_tab_bar)
                firsts.append(visit.bytes())
                docs.append(visit.document())
                if switches:
                    switched.append(visit.switches())
                visit.load(reload=True)
                reloads.append(visit.bytes())
            finally:
                visit.close()
        every = each_page(browser, url, throttle) if pages else []

    finally:
        demo.close()
    return {"setting": name, "raw": raw, "doc_wire": statistics.median(docs),
            "first": statistics.median(firsts), "reload": statistics.median(reloads), "tab_bar": statistics.median(shown),
            "cpu": statistics.median(cpu),
            "switches": [(label, statistics.median(t for run in switched for name, t in run if name == label))
                         for label, _ in switched[0]] if switched else [], "pages": every}


# Records each output block that goes busy (a status tracker shown: Gradio's markup, as gradio_compat names it),
# outside the page's header and lesson bar; an init script, so it runs again on each page a lesson opens. The bench
# reads the installed Gradio's markup for both builds (the same Gradio).
_BUSY_RECORD = """((GRADIO) => {
  window.__busy = [];
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      const el = m.target;
      if (!(el instanceof Element) || !el.classList.contains(GRADIO.tracker)) continue;
      if (!GRADIO.tracker_shown.some((name) => el.classList.contains(name))) continue;
      const block = el.closest(GRADIO.block);
      if (block && !block.closest(".bg-lesson, .bg-header, .bg-error") && !window.__busy.includes(block)) window.__busy.push(block);
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["class"]});
})(%s);"""


def floor(browser, throttle: float, repeats: int) -> dict:
    """What Gradio's own page costs before the app adds anything: a page of one HTML block holding the app's
    navigation marker, served by the same Gradio with its default options, and the app's Start page, opened in turn
    (loopback, the CPU throttled, a fresh browser each): {name: [(seconds until the marker shows, main-thread
    CPU), ...]}."""
    import gradio as gr

    from bg_demo.ui import build_demo

    with gr.Blocks() as bare:
        gr.HTML('<nav class="bg-nav">·</nav>')
    app = build_demo()
    _, bare_url, _ = bare.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    _, app_url, _ = app.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, **settings()[APP])
    found = {"an empty Gradio page": [], "the Start page": []}
    try:
        for _ in range(repeats):
            for name, url in zip(found, (bare_url, app_url)):
                visit = Visit(browser, url, None, throttle)
                try:
                    found[name].append((visit.load(), visit.cpu_at_tab_bar))
                finally:
                    visit.close()
    finally:
        bare.close()
        app.close()
    return found


def lesson_steps(browser, url: str, throttle: float) -> list[tuple[int, float]]:
    """The guided lesson walked as a student walks it: (step, seconds from Next until that step's result is shown:
    its run done)."""
    import json

    from bg_demo.ui.gradio_compat import MARKUP

    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    page.add_init_script(_BUSY_RECORD % json.dumps(MARKUP))
    if throttle > 1:  # the CPU of each page the lesson opens: the session follows the tab from page to page
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    # done: an output of the step went busy (a block with no field to type in or pick: the fields a link fills go
    # busy too, as Gradio's client marks an event's inputs) and nothing is busy any more
    idle = """() => {
      const control = (block) => [...block.querySelectorAll("input:not([disabled]):not([type=hidden]), " +
        "textarea:not([disabled]):not([readonly]), select:not([disabled])")].length > 0;
      return window.__busy.some((block) => block.isConnected && !control(block)) && !document.querySelector(%s);
    }""" % json.dumps(MARKUP["busy"])
    times = []
    try:
        page.goto(url + "?lesson=guided&step=1")
        page.wait_for_function(idle, timeout=120_000)
        for k in range(2, 100):
            next_ = page.locator(".bg-lesson-next")
            if next_.is_disabled():
                break
            page.wait_for_timeout(READ_MS)  # the student reads the result, and the page has settled, before Next
            page.evaluate("window.__busy = []")
            start = time.monotonic()
            next_.click()
            page.wait_for_url(re.compile(rf"[?&]step={k}(&|$)"), timeout=120_000)
            page.wait_for_function(idle, timeout=120_000, polling=50)
            times.append((k, time.monotonic() - start))
    finally:
        context.close()
    return times


def serve(folder: str, port: int) -> subprocess.Popen:
    """The app of the tree at `folder` (`python app.py`: its own launch options) on loopback at `port`, started."""
    server = subprocess.Popen([sys.executable, "app.py"], cwd=folder, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              env={**os.environ, "PYTHONPATH": folder, "GRADIO_SERVER_NAME": "127.0.0.1",
                                   "GRADIO_SERVER_PORT": str(port)})
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
            return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"the app in {folder} exited ({server.returncode})") from None
            time.sleep(1)
    server.kill()
    raise RuntimeError(f"the app in {folder} did not start")


def copy_of(revision: str) -> str:
    """A copy of `revision`'s tree (`git archive`), removed at exit."""
    root = Path(__file__).resolve().parent.parent
    copy = tempfile.mkdtemp(prefix="bg-demo-before-")
    atexit.register(shutil.rmtree, copy, ignore_errors=True)
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", revision], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", copy], input=archive, check=True)
    return copy


def before(revision: str, args, copy: str) -> str:
    """The output of `revision`'s own bench/page_weight.py, run from its copy on this run's models."""
    command = [sys.executable, "bench/page_weight.py", "--down", str(args.down), "--up", str(args.up), "--latency",
               str(args.latency), "--cpu-throttle", str(args.cpu_throttle), "--repeats", str(args.repeats)]
    run = subprocess.run(command + (["--app-only"] if args.app_only else []), cwd=copy, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": copy})
    if run.returncode != 0:
        raise RuntimeError(f"the bench of {revision} failed:\n{run.stderr[-3000:]}")
    return run.stdout


ROW = re.compile(r"^(?P<name>\S.*?)\s+\d+ KB\s+\d+ KB\s+\d+ KB\s+\d+ KB\s+(?P<shown>[\d.]+)s\s+(?P<cpu>[\d.]+)s$")
OPENED = re.compile(r"^  (?P<name>\S.*?)\s+(?P<seconds>[\d.]+) s$")


def read_before(output: str) -> dict:
    """The figures of the earlier build's table: {setting: (seconds to its tab bar, CPU)} and each tab's first
    opening on loopback (seconds)."""
    rows = {m["name"]: (float(m["shown"]), float(m["cpu"])) for m in map(ROW.match, output.splitlines()) if m}
    opened = [float(m["seconds"]) for m in map(OPENED.match, output.splitlines()) if m]
    return {"rows": rows, "opened": opened}


def side_by_side(revision: str, old: dict, rows: list[dict]) -> None:
    """Before and now, with the ratio (now / before: under 0.5 is the pages' target, half of the earlier figure)."""
    def line(what, a, b):
        print(f"  {what:52s} {a:7.2f}s {b:7.2f}s {b / a if a else float('nan'):6.2f}x")

    print(f"\nbefore ({revision}) and now, side by side (now / before):")
    print(f"  {'':52s} {'before':>8s} {'now':>8s} {'ratio':>7s}")
    for row in rows:
        earlier = old["rows"].get(row["setting"])
        if earlier:
            line(f"{row['setting']}: navigation shown", earlier[0], row["tab_bar"])
            line(f"{row['setting']}: its CPU until then", earlier[1], row["cpu"])
    now = [seconds for _, seconds in rows[-1]["switches"]]
    if old["opened"] and now:
        line("another part opened (tab before, page now): median", statistics.median(old["opened"]),
             statistics.median(now))
        line("another part opened: the slowest", max(old["opened"]), max(now))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--down", type=float, default=1600, help="kbit/s")
    parser.add_argument("--up", type=float, default=750, help="kbit/s")
    parser.add_argument("--latency", type=float, default=150, help="ms")
    parser.add_argument("--cpu-throttle", type=float, default=4, help="how many times slower the page's CPU runs")
    parser.add_argument("--repeats", type=int, default=1, help="visits per setting (medians are shown)")
    parser.add_argument("--app-only", action="store_true", help="only the app's own setting, on the link and on loopback")
    parser.add_argument("--before", metavar="REV", help="a git revision measured first in the same run, side by side")
    parser.add_argument("--lesson-only", action="store_true", help="only the guided lesson's steps")
    parser.add_argument("--floor", action="store_true",
                        help="only an empty Gradio page beside the Start page, in turn (--repeats each)")
    args = parser.parse_args()
    link = {"latency": args.latency, "downloadThroughput": args.down * 1000 / 8, "uploadThroughput": args.up * 1000 / 8}
    models()
    old_tree = copy_of(args.before) if args.before else None
    earlier = before(args.before, args, old_tree) if args.before and not args.lesson_only else ""
    from playwright.sync_api import sync_playwright

    rows, steps = [], {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            if args.floor:
                print(f"on loopback, a 390 x 844 phone viewport, its CPU {args.cpu_throttle:g}x slower; "
                      f"{args.repeats} visits each, in turn:")
                for name, visits in floor(browser, args.cpu_throttle, args.repeats).items():
                    print(f"  {name:22s} shown {statistics.median(s for s, _ in visits):5.2f} s "
                          f"({min(s for s, _ in visits):.2f}-{max(s for s, _ in visits):.2f}), "
                          f"its CPU {statistics.median(c for _, c in visits):5.2f} s (medians)")
                return 0
            if not args.lesson_only:
                for name in SETTINGS:  # each measured with its options read once the app is built (`measure`)
                    if not args.app_only or name == APP:
                        rows.append(measure(name, name, browser, link, args.repeats, args.cpu_throttle))
                rows.append(measure("the app, on loopback", APP, browser, None, args.repeats, args.cpu_throttle,
                                    switches=True, pages=True))
            trees = {**({"before": old_tree} if old_tree else {}), "now": str(Path(__file__).resolve().parent.parent)}
            for port, (name, tree) in enumerate(trees.items(), start=7890):
                server = serve(tree, port)
                try:
                    steps[name] = lesson_steps(browser, f"http://127.0.0.1:{port}/", args.cpu_throttle)
                finally:
                    server.terminate()
                    server.wait(30)
        finally:
            browser.close()
    if args.lesson_only:
        lesson_table(steps, args.before)
        return 0
    if earlier:
        print(f"=== before: {args.before} (its own bench/page_weight.py) ===\n{earlier}\n=== now ===")
    print(f"first visit on {args.down:g} kbit/s down, {args.up:g} kbit/s up, {args.latency:g} ms latency; "
          f"a 390 x 844 phone viewport, its CPU {args.cpu_throttle:g}x slower; median of {args.repeats}")
    print(f"\n{'setting':26s} {'document':>9s} {'on wire':>8s} {'first visit':>12s} {'reload':>8s} "
          f"{'tab bar':>8s} {'its CPU':>8s}")
    for row in rows:
        print(f"{row['setting']:26s} {row['raw'] / 1000:6.0f} KB {row['doc_wire'] / 1000:5.0f} KB "
              f"{row['first'] / 1000:9.0f} KB {row['reload'] / 1000:5.0f} KB {row['tab_bar']:7.1f}s "
              f"{row['cpu']:7.1f}s")
    print("\ndocument: the HTML as the browser reads it; on wire: as sent (headers included); first visit, reload: "
          "every byte the page moved;\ntab bar: seconds until it shows on the throttled link; its CPU: the seconds the "
          "page's main thread ran until then (its own work, which other load on this machine only delays)")
    print("\neach page by its address (the app, on loopback, the CPU throttled; a fresh browser each):")
    print(f"  {'page':16s} {'components':>10s} {'events':>7s} {'document':>9s} {'shown':>7s} {'its CPU':>8s}")
    for row in rows[-1]["pages"]:
        print(f"  {row['path']:16s} {row['components']:10d} {row['events']:7d} {row['raw'] / 1000:6.0f} KB "
              f"{row['shown']:6.2f}s {row['cpu']:7.2f}s")
    print("\neach page opened from the one before through the navigation (seconds from the click to its content "
          "painted):")
    for label, seconds in rows[-1]["switches"]:
        print(f"  {label[:40]:40s} {seconds:6.2f} s")
    if earlier:
        side_by_side(args.before, read_before(earlier), rows)
    lesson_table(steps, args.before)
    return 0


def lesson_table(steps: dict, revision: str | None) -> None:
    print("\nthe guided lesson, each step from Next until its result shows (seconds; on loopback, the CPU throttled):")
    names = list(steps)
    print(f"  {'step':>5s} " + " ".join(f"{(revision if n == 'before' else n):>9s}" for n in names)
          + ("    ratio" if len(names) == 2 else ""))
    for row in zip(*(steps[n] for n in names)):
        ratio = f" {row[1][1] / row[0][1]:7.2f}x" if len(row) == 2 else ""
        print(f"  {row[0][0]:5d} " + " ".join(f"{seconds:8.2f}s" for _, seconds in row) + ratio)
    for what, pick in (("median", statistics.median), ("slowest", max)):
        figures = [pick(seconds for _, seconds in steps[n]) for n in names]
        ratio = f" {figures[1] / figures[0]:7.2f}x" if len(figures) == 2 else ""
        print(f"  {what:>5s} " + " ".join(f"{f:8.2f}s" for f in figures) + ratio)


if __name__ == "__main__":
    sys.exit(main())
