"""Two front ends (`python -m bg_demo serve` processes) behind HAProxy running deploy/haproxy.cfg: a browser session
stays on the front end that served its page, and new sessions are spread over both."""

import re
import time

import pytest
from conftest import TEST_DEVICE
from playwright.sync_api import expect

from tests.support.processes import Balancer, free_port, haproxy, start_front_end, stop_process, wait_for_port

pytestmark = [pytest.mark.cluster, pytest.mark.server,
              pytest.mark.skipif(haproxy() is None, reason="haproxy is not installed (.ci/run installs Debian's)")]

TITLE = ".js-plotly-plot .gtitle >> visible=true"  # "Layer 0, head 0": the attention map's title
TEXT = "The cat sat on the mat."


@pytest.fixture(scope="module")
def balancer(tiny_dir, tmp_path_factory):
    """HAProxy on loopback in front of two front ends on the tiny models; its log and the front ends' in one folder."""
    folder = tmp_path_factory.mktemp("balancer")
    ports = [free_port()]
    while len(ports) < 2:
        ports += [port for port in [free_port()] if port not in ports]
    front_ends = [start_front_end(port, model_dir=tiny_dir, log_path=folder / f"front-end-{port}.log",
                                  env={"BG_DEMO_DEVICE": TEST_DEVICE}) for port in ports]
    try:
        for port, process in zip(ports, front_ends):
            wait_for_port(port, timeout=180, process=process)
        with Balancer(ports, folder=folder) as running:
            yield running
    finally:
        for process in front_ends:
            stop_process(process)


def open_session(browser, url: str):
    """A fresh browser session (its own cookies): a page, and the Gradio session hashes its requests carry."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    hashes = set()

    def remember(request):
        found = re.search(r"session_hash=(\w+)|/heartbeat/(\w+)", request.url)
        if found:
            hashes.add(found.group(1) or found.group(2))

    page.on("request", remember)
    page.goto(url)
    return context, page, hashes


def front_end_of(context) -> str:
    """The front end HAProxy chose for this session: the value of the cookie it inserted (f1 or f2)."""
    return {cookie["name"]: cookie["value"] for cookie in context.cookies()}["BGDEMO"]


def servers_of(balancer, session_hash: str) -> set[str]:
    """Every front end that served a request naming this Gradio session (its event streams and its heartbeat),
    from HAProxy's log (a request is logged when it ends: the heartbeat when the page has closed)."""
    deadline = time.monotonic() + 30
    while True:
        lines = [line for line in balancer.log() if session_hash in line]
        if any("/heartbeat/" in line for line in lines) or time.monotonic() > deadline:
            return {re.search(r" front_ends/(\w+) ", line).group(1) for line in lines}
        time.sleep(0.2)


def test_a_session_redraws_from_the_state_kept_on_its_front_end(browser, balancer):
    context, page, hashes = open_session(browser, f"{balancer.url}attention")  # the attention page
    page.get_by_label("Text (read up to").fill(TEXT)
    page.get_by_role("button", name="Show attention").click()
    expect(page.locator(TITLE).first).to_have_text("Layer 0, head 0", timeout=60_000)
    # a redraw reads the weights the run kept in gr.State, in the memory of the front end that ran it
    head = page.get_by_label("number input for Head (0 = the first)")
    head.fill("2")
    head.press("Enter")
    expect(page.locator(TITLE).first).to_have_text("Layer 0, head 2", timeout=30_000)
    expect(page.locator(".toast-body.error")).to_have_count(0)
    chosen = front_end_of(context)
    context.close()
    (session_hash,) = hashes
    assert servers_of(balancer, session_hash) == {chosen}  # its streams and heartbeat: all on one front end


def test_new_sessions_are_spread_over_both_front_ends_and_each_works(browser, balancer):
    sessions, chosen = [], []
    for _ in range(3):  # each kept open: an open page holds a connection, so the next session goes elsewhere
        context, page, _ = open_session(browser, f"{balancer.url}?tab=attention&text=The+cat+sat+on+the+mat.&run=1")
        sessions.append(context)
        expect(page.locator(TITLE).first).to_have_text("Layer 0, head 0", timeout=60_000)
        expect(page.locator(".toast-body.error")).to_have_count(0)
        chosen.append(front_end_of(context))
    for context in sessions:
        context.close()
    assert sorted(set(chosen)) == ["f1", "f2"], chosen
