"""Stop on a fine-tuning page, in a real browser: how long after the click the run takes its last step, and how long
until the page says "Stopped", on a calm server and on a busy one (other students' runs going).

    PYTHONPATH=. python bench/tune_stop.py [--size base|tiny] [--trials 5] [--others 0 2] [--method lora]
                                           [--step-sleep 0.15]

The app is served in this process (as the tests serve it) on base-size shapes with random weights (`--size base`,
`bench/classroom.build_models`) or the tiny models, and Debian's chromium (Playwright) opens the BERT fine-tune page by
a link that starts a run of 200 steps (the page's batch of 8, `--method`, seed 100 + trial) and, once the page shows
a step past a few drawn at random, presses Stop. With `--others N`, N other students (plain HTTP clients, as
`bench/classroom.py`'s) each keep a run of the same kind going on /fine_tune the whole time. `--step-sleep S` makes
every step S seconds longer (as tests/test_browser.py's fixtures do), so that steps come faster than the page is sent
them (on the tiny models: the browser tests' case).

Per trial, every time from one clock (the machine's wall clock: the page's `performance.timeOrigin` and
`Date.now()`, the server's `time.time()`), measured from the click, i.e. the moment the browser received the input
(`event.timeStamp` of the click on Stop; a page busy drawing handles it later): when Playwright was asked to click
(before: it waits for the button to be still and uncovered), when the page handled the click, when the server
cancelled the run, the run's last step (the time its update was made; 0 when none was taken after the click), its
final result, and the page's "Stopped" (a MutationObserver on the status); the steps the run finished after the
click, and the running steps the page showed after it. Every number is measured in this run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.classroom import Student, build_models, served  # noqa: E402 - after the path
from tests.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

STEPS, BATCH = 200, 8
STATUS = ".bg-tune-status"
# in the page, once: the click on Stop as the page gets it, and every text the status shows, with the page's clock
WATCH = """() => {
  window.__seen = []; window.__click = null;
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (button && button.innerText.trim() === 'Stop' && window.__click === null)
      window.__click = [performance.timeOrigin + event.timeStamp, Date.now()];
  }, true);
  const note = () => {  // what the status shows: the words it keeps from the click on (`data-bg-frozen`), or its own
    const box = [...document.querySelectorAll('%s')].find((e) => e.offsetParent !== null);
    if (box) window.__seen.push([Date.now(), box.dataset.bgFrozen !== undefined ? box.dataset.bgFrozen : box.innerText]);
  };
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true,
                                                     attributes: true});
}""" % STATUS


class Clock:
    """The server side, seen from this process: when each run made each update (by its seed) and when Stop reached
    the server (its cancel of a session's runs)."""

    def __init__(self):
        from bg_demo.backend import finetune
        from bg_demo.ui.session import SESSIONS

        self.updates: list[tuple[float, int, int, bool]] = []  # (time, seed, step, done)
        self.cancels: list[float] = []
        steps, cancel = finetune._steps, SESSIONS.cancel

        def timed(handle, loaded, settings, task):
            for update in steps(handle, loaded, settings, task):
                self.updates.append((time.time(), settings.seed, update.step, update.done))
                yield update

        def cancelled(session, kind=None):
            self.cancels.append(time.time())
            return cancel(session, kind)

        finetune._steps, SESSIONS.cancel = timed, cancelled

    def of(self, seed: int) -> list[tuple[float, int, bool]]:
        return [(at, step, done) for at, s, step, done in list(self.updates) if s == seed]


def slower(seconds: float) -> None:
    """Every step of every run `seconds` longer (its batch drawn that much later)."""
    from bg_demo.backend import finetune

    batches = finetune._batches

    def slow(*args):
        for batch in batches(*args):
            time.sleep(seconds)
            yield batch

    finetune._batches = slow


def other_runs(url: str, n: int, values: list, done: threading.Event) -> list[threading.Thread]:
    """N students each keeping a run going on /fine_tune until `done` (a run that ends is started again)."""

    def keep() -> None:
        student = Student(url)
        try:
            while not done.is_set():
                event = student.submit("/fine_tune", values)
                with student.http.stream("GET", "gradio_api/queue/data",
                                         params={"session_hash": student.session}) as stream:
                    for line in stream.iter_lines():
                        if done.is_set():
                            student.cancel("/fine_tune", event)
                            break
                        if line.startswith("data:") and json.loads(line[5:]).get("msg") == "process_completed":
                            break
        finally:
            student.close()

    threads = [threading.Thread(target=keep, daemon=True) for _ in range(n)]
    for thread in threads:
        thread.start()
    return threads


def trial(browser, url: str, clock: Clock, seed: int, method: str, after: int) -> dict:
    """One student starts a run, presses Stop once the page shows step `after` or later, and waits for "Stopped"."""
    import re

    from playwright.sync_api import expect

    from bg_demo.backend.finetune import RATES

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{url}?tab=tune_bert&method={method}&steps={STEPS}&learning_rate={RATES[method]}&batch_size={BATCH}"
                  f"&seed={seed}&run=1")
        page.evaluate(WATCH)
        running = re.compile(r"Step (\d+) of %d" % STEPS)
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            shown = page.locator(f"{STATUS} >> visible=true").first.inner_text() if page.locator(
                f"{STATUS} >> visible=true").count() else ""
            found = running.search(shown)
            if found and int(found.group(1)) >= after:
                break
            page.wait_for_timeout(50)
        asked = time.time()
        page.get_by_role("button", name="Stop", exact=True).locator("visible=true").click(timeout=120_000)
        expect(page.get_by_text(re.compile(r"Stopped after \d+ of %d steps" % STEPS))).to_be_visible(timeout=300_000)
        click, seen = page.evaluate("() => window.__click"), page.evaluate("() => window.__seen")
    finally:
        page.close()
    click, handled = click[0] / 1000, click[1] / 1000
    updates = clock.of(seed)
    final, ended = next((step, at) for at, step, done in updates if done)
    last_step = max((at for at, step, done in updates if not done and step == final), default=None)
    before = max((step for at, step, done in updates if not done and at < click), default=0)
    cancel = min((at for at in clock.cancels if at >= click - 1), default=float("nan"))
    shown_before = [int(m.group(1)) for at, text in seen if at / 1000 < click and (m := running.search(text))]
    shown_after = [int(m.group(1)) for at, text in seen if at / 1000 >= click and (m := running.search(text))]
    stopped = min(at / 1000 for at, text in seen if "Stopped after" in text and at / 1000 >= click)
    return dict(
        asked=asked - click,
        handled=handled - click,
        to_cancel=cancel - click,
        to_last_step=max(0.0, last_step - click) if last_step is not None else 0.0,
        to_end=ended - click,
        steps_after=final - before,
        shown_at_click=shown_before[-1] if shown_before else 0,
        new_steps_shown=len({s for s in shown_after if s > (shown_before[-1] if shown_before else 0)}),
        to_stopped=stopped - click,
        final=final,
    )


def report(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    print(f"{'trial':>5s} {'shown':>6s} {'final':>6s} {'steps after':>12s} {'new steps shown':>16s} {'asked s':>8s} "
          f"{'handled s':>10s} {'to cancel s':>12s} {'to last step s':>15s} {'to result s':>12s} {'to Stopped s':>13s}")
    for i, row in enumerate(rows, 1):
        print(f"{i:5d} {row['shown_at_click']:6d} {row['final']:6d} {row['steps_after']:12d} "
              f"{row['new_steps_shown']:16d} {row['asked']:8.2f} {row['handled']:10.2f} {row['to_cancel']:12.2f} "
              f"{row['to_last_step']:15.2f} {row['to_end']:12.2f} {row['to_stopped']:13.2f}")
    for key in ("handled", "to_cancel", "to_last_step", "to_end", "to_stopped"):
        values = [row[key] for row in rows]
        print(f"  {key}: median {statistics.median(values):.2f} s, max {max(values):.2f} s")
    print(f"  steps finished after the click: {[row['steps_after'] for row in rows]}; new running steps the page "
          f"showed after it: {[row['new_steps_shown'] for row in rows]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("base", "tiny"), default="base")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--others", type=int, nargs="+", default=[0, 2], help="other students' runs going")
    parser.add_argument("--method", default="lora", choices=("head", "lora", "layers"))
    parser.add_argument("--step-sleep", type=float, default=0.0, help="seconds added to every step")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    os.environ["BG_DEMO_MODEL_DIR"] = build_models(args.size)

    import torch
    from playwright.sync_api import sync_playwright

    from bg_demo.backend.finetune import RATES, run_to_end
    from bg_demo.ui import build_demo
    from bg_demo.ui.strings import headers

    data = json.loads((ROOT / "assets" / "tasks.json").read_text(encoding="utf-8"))["en"]["sentiment"]
    run_to_end("encoder", data["train"], data["test"], args.method, steps=1)  # loaded, PEFT imported, vectors read
    if args.step_sleep:
        slower(args.step_sleep)
    clock = Clock()
    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, **served())
    tables = [{"headers": headers("ft.data_headers"), "data": data[part]} for part in ("train", "test")]
    values = ["", *tables, args.method, STEPS, RATES[args.method], BATCH, 0, 2]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs; {args.size} models; "
          f"load average before {os.getloadavg()[0]:.2f}")
    draw, seeds = random.Random(0), iter(range(100, 10**6))  # a seed per trial: the clock finds each run by it
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for others in args.others:
            done = threading.Event()
            threads = other_runs(url, others, values, done)
            rows = [trial(browser, url, clock, next(seeds), args.method, draw.randint(2, 6))
                    for _ in range(args.trials)]
            done.set()
            for thread in threads:
                thread.join(timeout=120)
            report(f"{args.method}, {STEPS} steps, batch {BATCH}, {args.size} models, steps {args.step_sleep} s longer, "
                   f"{others} other runs going (load average now {os.getloadavg()[0]:.2f})", rows)
        browser.close()
    demo.close()
    for thread in threading.enumerate():  # the runs' threads gone before the process ends (torch may abort else)
        if thread.name == "bg-demo-fine-tune":
            thread.join(timeout=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
