"""A real browser (Debian's chromium driven by Playwright) uses the app as a student would."""

import pytest
from playwright.sync_api import expect, sync_playwright

from bg_demo.ui import build_demo, launch_options

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def app_url(tiny_dir):
    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, **launch_options())
    yield url
    demo.close()


@pytest.fixture(scope="module")
def page(app_url):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(app_url)
        yield page
        browser.close()


def test_fill_mask_example_runs_and_shows_its_result(page):
    page.get_by_role("tab", name="Fill-mask").click()
    page.get_by_text("The cat sat on the [MASK].").first.click()  # an example: loads and runs
    filled = page.get_by_label("Sentence with the best guess for each mask")
    expect(filled).not_to_have_value("", timeout=30_000)
    assert "[MASK]" not in filled.input_value()
    assert filled.input_value().startswith("The cat sat on the")
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=30_000)
    assert page.locator(".js-plotly-plot .bars .point").count() == 5  # top-5 bars drawn
    expect(page.locator(".toast-body.error")).to_have_count(0)


def test_bad_input_shows_a_clear_error(page):
    page.get_by_role("tab", name="Fill-mask").click()
    box = page.get_by_label("Sentence with one or more [MASK]")
    box.fill("A sentence without any blank.")
    page.get_by_role("button", name="Fill the masks").click()
    expect(page.get_by_text("Put at least one [MASK]")).to_be_visible(timeout=30_000)
