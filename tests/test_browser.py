"""A real browser (Debian's chromium driven by Playwright) uses the app as a student would."""

import re

import pytest
from playwright.sync_api import expect


@pytest.fixture
def page(browser, app_url):
    """A fresh page per test, so no toast or state leaks from one test into the next: each test opens the app's
    page it needs at its address (`bg_demo.ui.site`)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    yield page
    page.close()


def _go(page, app_url: str, path: str = "", sub: str | None = None) -> None:
    """The app's page at `path` ("" the Start page), then its sub-tab `sub`, as a student opens them."""
    page.goto(f"{app_url}{path}")
    if sub:
        _visible(page, f"role=tab[name='{sub}']").first.click()


def _shown(page, path: str):
    """The navigation's link to the page at `path` marked as the page on screen (the only one so marked)."""
    return page.locator(f".bg-nav-link.primary.bg-nav-{path or 'start'}")


def test_fill_mask_example_runs_and_shows_its_result(page, app_url):
    _go(page, app_url, "fill-mask")
    page.get_by_text("The cat sat on the [MASK].").first.click()  # an example: loads and runs
    filled = page.get_by_label("Sentence with the best guess for each mask")
    expect(filled).not_to_have_value("", timeout=30_000)
    assert "[MASK]" not in filled.input_value()
    assert filled.input_value().startswith("The cat sat on the")
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=30_000)
    assert page.locator(".js-plotly-plot .bars .point").count() == 5  # top-5 bars drawn
    expect(page.locator(".toast-body.error")).to_have_count(0)


def test_bad_input_shows_a_clear_error(page, app_url):
    _go(page, app_url, "fill-mask")
    box = page.get_by_label("Sentence with one or more [MASK]")
    box.fill("A sentence without any blank.")
    page.get_by_role("button", name="Fill the masks").click()
    expect(page.get_by_text("Put at least one [MASK]")).to_be_visible(timeout=30_000)


def test_generation_example_streams_into_coloured_tokens(page, app_url):
    _go(page, app_url, "generate")
    page.get_by_text("top-p 0.9, three samples, seed 42").click()
    expect(page.get_by_text(re.compile(r"new tokens in .* · stopped at"))).to_be_visible(timeout=60_000)
    expect(page.get_by_text("· seed 42")).to_be_visible()
    assert page.locator(".bg-tokens").count() == 3  # three samples side by side
    assert page.locator(".bg-tokens .bg-token[title^='rank']").count() >= 3
    expect(page.locator(".toast-body.error")).to_have_count(0)


@pytest.fixture
def slow_decoding(monkeypatch):
    """Each decoding step takes 50 ms longer, so a person has time to press Stop mid-stream."""
    import time

    from bg_demo.backend.generation.engine import DecodingEngine

    step = DecodingEngine._step
    monkeypatch.setattr(DecodingEngine, "_step", lambda self: (time.sleep(0.05), step(self)))


def test_stop_ends_the_stream_with_its_coloured_partial_result(page, app_url, slow_decoding):
    _go(page, app_url, "generate")
    page.get_by_label("Prompt (empty = start").fill("Once upon a time")
    page.get_by_label("temperature", exact=True).check()
    page.get_by_label("New tokens").fill("256")
    page.get_by_role("button", name="Generate", exact=True).click()
    expect(page.get_by_text(re.compile(r"writing… [1-9]\d* new tokens so far"))).to_be_visible(timeout=30_000)
    page.get_by_role("button", name="Stop", exact=True).click()
    status = page.get_by_text(re.compile(r"stopped after \d+ tokens \(Stop pressed\)"))
    expect(status).to_be_visible(timeout=10_000)
    n = int(re.search(r"stopped after (\d+) tokens", status.inner_text()).group(1))
    assert 0 < n < 256
    assert page.locator(".bg-tokens .bg-token[title^='rank']").count() == n  # every token so far, coloured
    expect(page.get_by_text(re.compile(r"· seed \d+"))).to_be_visible()


def test_closing_the_tab_mid_stream_frees_its_place_in_the_batch(browser, app_url, slow_decoding, in_flight):
    import time

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _go(page, app_url, "generate")
    page.get_by_label("Prompt (empty = start").fill("Once upon a time")
    page.get_by_label("New tokens").fill("256")
    page.get_by_role("button", name="Generate", exact=True).click()
    expect(page.get_by_text(re.compile(r"writing… [1-9]\d* new tokens so far"))).to_be_visible(timeout=30_000)
    assert in_flight() == 1
    started = time.monotonic()
    page.close()
    while in_flight() and time.monotonic() < started + 30:
        time.sleep(0.05)
    # it left the batch when the tab closed, not at its last token (256 steps of 50 ms: 13 s)
    assert in_flight() == 0 and time.monotonic() - started < 12


def _visible(page, selector: str):
    return page.locator(f"{selector} >> visible=true")


def test_a_shared_link_restores_its_tab_and_inputs(page, app_url):
    page.goto(f"{app_url}?tab=ner&text=Angela+Merkel+visited+Paris.&aggregation=first")  # a link made at the root
    expect(_shown(page, "entities")).to_be_visible(timeout=30_000)  # it opened the Entities page
    expect(page.locator(".bg-nav-link.primary")).to_have_count(1)
    expect(_visible(page, "textarea").first).to_have_value("Angela Merkel visited Paris.")
    expect(_visible(page, "input[type=radio][value=first]")).to_be_checked()


def test_the_copy_link_control_makes_a_link_that_reopens_the_example(page, browser, app_url):
    _go(page, app_url, "next-token", "Logit lens")
    _visible(page, "textarea").first.fill("one two three four")
    _visible(page, "role=button[name='Link to this']").first.click()
    link = _visible(page, ".bg-share-url textarea, .bg-share-url input").first
    expect(link).to_have_value(re.compile(r"tab=logit_lens&text=one\+two\+three\+four"))
    other = browser.new_page()
    other.goto(link.input_value())
    expect(_shown(other, "next-token")).to_be_visible(timeout=30_000)
    expect(other.get_by_role("tab", name="Logit lens", exact=True)).to_have_attribute("aria-selected", "true")
    expect(other.locator("textarea >> visible=true").first).to_have_value("one two three four")
    other.close()


def test_start_here_opens_a_step_with_its_example_and_runs_it(page, app_url):
    _go(page, app_url)
    page.get_by_role("link", name="1 · BERT fills in the blank").click()  # a link to the step's page
    expect(_shown(page, "fill-mask")).to_be_visible(timeout=30_000)
    expect(_visible(page, "textarea").first).to_have_value("The cat sat on the [MASK].")
    filled = page.get_by_label("Sentence with the best guess for each mask")
    expect(filled).to_have_value(re.compile(r"^The cat sat on the .+\.$"), timeout=30_000)  # the step ran


def test_keyboard_only_fill_mask(page, app_url):
    _go(page, app_url)
    link = page.get_by_role("link", name="Fill-mask", exact=True)  # the navigation's link to the page
    link.focus()
    page.keyboard.press("Enter")
    expect(_shown(page, "fill-mask")).to_be_visible(timeout=30_000)
    box = _visible(page, "textarea").first
    box.focus()
    page.keyboard.type("The cat sat on the [MASK].")
    page.keyboard.press("Enter")  # Enter sends the sentence
    filled = page.get_by_label("Sentence with the best guess for each mask")
    expect(filled).not_to_have_value("", timeout=30_000)


def test_keyboard_only_generation(page, app_url):
    page.goto(f"{app_url}?tab=generate")  # a link made at the root opens the Generate page
    prompt = page.get_by_label("Prompt (empty = start")
    prompt.focus()
    page.keyboard.type("Once upon a time")
    page.keyboard.press("Tab")  # the Generate button comes right after the prompt
    expect(page.get_by_role("button", name="Generate", exact=True)).to_be_focused()
    prompt.focus()
    page.keyboard.press("Enter")  # Enter sends, as in every other box
    expect(page.get_by_text(re.compile(r"new tokens in"))).to_be_visible(timeout=30_000)
    assert prompt.input_value() == "Once upon a time"  # no newline was added


@pytest.mark.parametrize(
    ("query", "link"),
    [("tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1", True),
     ("tab=classify&text=I+loved+this+movie.&run=1", False)],
)
def test_the_why_view_explains_the_prediction_on_screen(page, app_url, query, link):
    page.goto(f"{app_url}?{query}")
    expect(_visible(page, ".js-plotly-plot").first).to_be_visible(timeout=30_000)  # the prediction first
    _visible(page, "text=Why? Attention from the prediction").first.click()
    page.get_by_role("button", name="Explain this prediction").click()
    expect(_visible(page, "text=/ρ = [+-]\\d\\.\\d\\d/").first).to_be_visible(timeout=60_000)
    rows = _visible(page, ".js-plotly-plot .ytick >> text=integrated gradients")
    expect(rows.first).to_be_visible()
    expect(_visible(page, "text=Open this layer and head in the Attention tab")).to_have_count(1 if link else 0)


def test_a_512_token_text_on_a_phone_draws_every_view_and_scrolls_nothing_sideways(browser, app_url):
    """A page of text on a 390-px phone: the head at full resolution, then the focus window and every head's map,
    each drawn (its title on screen) while the page stays as wide as the phone."""
    from urllib.parse import urlencode

    page_text = " ".join(f"Sentence {i} tells of the river bank and a walk to town." for i in range(60))
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        phone.goto(f"{app_url}?{urlencode({'tab': 'attention', 'text': page_text, 'role': 'encoder', 'run': '1'})}")
        expect(phone.get_by_text("512 tokens").first).to_be_visible(timeout=60_000)  # the notice: cut at BERT's limit
        expect(phone.locator(".js-plotly-plot .gtitle", has_text="Layer 0, head 0")).to_be_visible(timeout=60_000)
        for view, title in (("Focus on a query (full resolution)", "where '[CLS]' #0 looks"),
                            ("Every head's map (thumbnails)", "Every head: 2 layers × 4 heads")):
            phone.get_by_label(view).check()
            expect(phone.locator(".js-plotly-plot .gtitle", has_text=title)).to_be_visible(timeout=60_000)
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        expect(phone.locator(".toast-body.error")).to_have_count(0)
    finally:
        phone.close()


@pytest.fixture
def slow_training(monkeypatch):
    """Each optimiser step takes 150 ms longer, so a 200-step run is still going when a person presses Stop (30 s:
    on a busy 2-core machine the page's own work while the steps stream in can hold a click for many seconds)."""
    import time

    from bg_demo.backend import finetune

    batches = finetune._batches

    def slow(*args):
        for batch in batches(*args):
            time.sleep(0.15)
            yield batch

    monkeypatch.setattr(finetune, "_batches", slow)


def _start_lora_run(page, steps: int = 200) -> None:
    """On the Fine-tune page: BERT fine-tuned with LoRA for `steps` steps, started."""
    page.get_by_role("tab", name="BERT · fine-tune").click()
    page.get_by_label("LoRA + head").locator("visible=true").check()
    box = page.get_by_label("Optimiser steps").locator("visible=true").and_(page.locator("input[type=number]"))
    box.fill(str(steps))
    box.press("Enter")
    page.get_by_role("button", name="Fine-tune", exact=True).locator("visible=true").click()


def test_fine_tune_or_prompt_prompts_trains_stops_and_sums_up(page, app_url, slow_training):
    _go(page, app_url, "finetune")
    page.get_by_role("tab", name="GPT-2 · prompt").click()
    page.get_by_role("button", name="Score the test sentences").locator("visible=true").click()
    expect(page.get_by_text(re.compile(r"4-shot · test accuracy \d+% on 16 sentences"))).to_be_visible(timeout=60_000)
    expect(page.get_by_text("(before calibration:").first).to_be_visible()

    _start_lora_run(page)
    expect(page.get_by_text(re.compile(r"Step \d+ of 200 · loss"))).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Stop", exact=True).locator("visible=true").click(timeout=60_000)
    expect(page.get_by_text(re.compile(r"Stopped after \d+ of 200 steps"))).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"LoRA \+ head · \d+ steps on 16 examples · test accuracy"))).to_be_visible()

    box = page.get_by_label("sentence", exact=True).locator("visible=true")
    box.fill("What a wonderful, funny film.")
    page.get_by_role("button", name="Classify it").locator("visible=true").click()
    expect(page.get_by_text("Your fine-tuned model's probabilities").locator("visible=true")).to_be_visible()
    expect(page.locator(".js-plotly-plot .bars .point").locator("visible=true")).to_have_count(2, timeout=30_000)

    page.get_by_role("tab", name="All four").click()
    summary = page.get_by_text(re.compile(r"BERT fine-tuned \(LoRA \+ head\)")).first
    expect(summary).to_be_visible(timeout=10_000)
    expect(page.get_by_text(re.compile(r"GPT-2 prompted \(4-shot, calibrated\)")).first).to_be_visible()
    expect(page.locator(".toast-body.error")).to_have_count(0)


def test_a_link_carries_the_task_s_tables_and_runs_the_prompt(page, app_url):
    import json
    from urllib.parse import urlencode

    train = [["a great film", "yes"], ["a bad film", "no"], ["great fun", "yes"], ["bad acting", "no"]]
    test = [["great", "yes"], ["bad", "no"], ["a great day", "yes"]]
    query = urlencode({"tab": "prompt_gpt", "train": json.dumps(train), "test": json.dumps(test),
                       "template": "Review: {text}\nSentiment:", "label_words": "good, bad", "shots": "2", "run": "1"})
    page.goto(f"{app_url}?{query}")
    expect(page.get_by_text(re.compile(r"2-shot · test accuracy \d+% on 3 sentences"))).to_be_visible(timeout=60_000)
    expect(page.get_by_text("a great day").locator("visible=true").first).to_be_visible()  # in the scores table


@pytest.fixture
def stop_mid_evaluation(monkeypatch):
    """Steps of 0.1 s, and the run's first evaluation (after step 20 of 200) held in its first chunk until Stop reaches
    the server: Stop comes while the run is in the middle of its work, with nothing in flight to the page. Records
    each update the page is sent (`tune_status` draws every one) and the moment Stop reached the server."""
    import threading
    import time
    from types import SimpleNamespace

    import torch

    from bg_demo.backend import finetune
    from bg_demo.ui import finetune_tab
    from bg_demo.ui.session import SESSIONS

    batches, vectors, cancel, status = finetune._batches, finetune._Body.vectors, SESSIONS.cancel, finetune_tab.tune_status
    stopped, held, sent = threading.Event(), threading.Event(), []

    def slow(*args):
        for batch in batches(*args):
            time.sleep(0.25)
            yield batch

    def holding(self, batch):
        if torch.is_inference_mode_enabled() and not held.is_set():
            held.set()
            stopped.wait(60)
        return vectors(self, batch)

    def cancelling(session, kind=None):
        found = cancel(session, kind)
        if kind == "tune_bert":  # this page's Stop (a tab closing meanwhile cancels every kind)
            sent.append(("stop", None, None))
            stopped.set()
        return found

    def drawn(result, look):
        sent.append(("update", result.step, result.done))
        return status(result, look)

    monkeypatch.setattr(finetune, "_batches", slow)
    monkeypatch.setattr(finetune._Body, "vectors", holding)
    monkeypatch.setattr(SESSIONS, "cancel", cancelling)
    monkeypatch.setattr(finetune_tab, "tune_status", drawn)
    monkeypatch.setattr(finetune_tab, "TRAINING_INTERVAL", 0.01)  # every step sent: none held back by the relay
    return SimpleNamespace(sent=sent, held=held)


# what the fine-tune page's status shows from the click on Stop on: the words it keeps (`data-bg-frozen`, drawn by
# assets/style.css) or its own
# What the fine-tune status shows from the Stop click on: "frozen: ..." once the page's Stop code has frozen it (the
# words kept at the click), "live: ..." before that (the click's own handler runs a moment after the click, when Gradio
# dispatches it) and after the final result thaws it.
WATCH_STATUS = """() => {
  window.bgSeen = []; window.bgClicked = false;
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (button && button.innerText.trim() === 'Stop') window.bgClicked = true;
  }, true);
  new MutationObserver(() => {
    if (!window.bgClicked) return;
    const box = [...document.querySelectorAll('.bg-tune-status')].find((e) => e.offsetParent !== null);
    if (box) window.bgSeen.push(box.dataset.bgFrozen !== undefined ? `frozen: ${box.dataset.bgFrozen}`
                                                                     : `live: ${box.innerText}`);
  }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
}"""


def test_stop_on_a_fine_tune_page_shows_no_step_after_it_and_says_what_it_learnt(page, app_url, stop_mid_evaluation):
    _go(page, app_url, "finetune")
    _start_lora_run(page)
    assert stop_mid_evaluation.held.wait(60)  # step 20 taken, its evaluation under way
    expect(page.get_by_text("Step 19 of 200 · loss")).to_be_visible(timeout=60_000)  # the newest the run sent
    page.evaluate(WATCH_STATUS)
    page.get_by_role("button", name="Stop", exact=True).locator("visible=true").click(timeout=60_000)
    stopped = page.get_by_text(re.compile(r"Stopped after 20 of 200 steps: test accuracy \d+% with what it learnt"))
    expect(stopped).to_be_visible(timeout=30_000)
    shown = [int(found) for text in page.evaluate("() => window.bgSeen") for found in re.findall(r"Step (\d+) of", text)]
    assert all(step <= 19 for step in shown)  # the counter climbed no further after the click
    sent = stop_mid_evaluation.sent
    after = sent[[kind for kind, *_ in sent].index("stop") + 1:]
    assert after == [("update", 20, True)]  # the server sent nothing but the final result after Stop reached it

    _start_lora_run(page, 3)  # a run that ends before its Stop arrives: its whole result, saying so
    expect(page.get_by_text(re.compile(r"· 3 steps on 16 examples · test accuracy"))).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Stop", exact=True).locator("visible=true").click()
    expect(page.get_by_text("Stop came after the last step")).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"Stopped after"))).to_have_count(0)
    expect(page.locator(".toast-body.error")).to_have_count(0)


@pytest.fixture
def slow_stop(monkeypatch):
    """Steps of 0.25 s, each sent to the page, and a Stop that reaches the run only once two more steps have been sent
    after it reached the server (a busy server: the page gets steps the server sent before it knew of the click).
    Not faster: at 0.1 s a step, a CI machine's browser, busy with the other worker's tests, drew the curve ten
    times a second and took the Stop click after the 200 steps had run."""
    import asyncio
    import time

    from bg_demo.backend import finetune
    from bg_demo.ui import finetune_tab
    from bg_demo.ui.session import SESSIONS

    batches, stop, status = finetune._batches, SESSIONS.stop, finetune_tab.tune_status
    sent = []

    def slow(*args):
        for batch in batches(*args):
            time.sleep(0.25)
            yield batch

    async def late(session, wait=2.0, kind="generation"):
        seen = len(sent)
        while sum(1 for done in sent[seen:] if not done) < 2 and kind == "tune_bert":
            await asyncio.sleep(0.01)
        return await stop(session, wait, kind)

    def drawn(result, look):
        sent.append(result.done)
        return status(result, look)

    monkeypatch.setattr(finetune, "_batches", slow)
    monkeypatch.setattr(SESSIONS, "stop", late)
    monkeypatch.setattr(finetune_tab, "tune_status", drawn)
    monkeypatch.setattr(finetune_tab, "TRAINING_INTERVAL", 0.01)


def test_the_step_counter_stops_at_the_click_even_for_steps_already_on_their_way(page, app_url, slow_stop):
    _go(page, app_url, "finetune")
    page.get_by_role("tab", name="BERT · fine-tune").click()
    steps = page.get_by_label("Optimiser steps").locator("visible=true").and_(page.locator("input[type=number]"))
    steps.fill("200")
    steps.press("Enter")
    page.get_by_role("button", name="Fine-tune", exact=True).locator("visible=true").click()
    expect(page.get_by_text(re.compile(r"Step [3-9]\d* of 200 · loss"))).to_be_visible(timeout=60_000)
    page.evaluate(WATCH_STATUS)
    page.get_by_role("button", name="Stop", exact=True).locator("visible=true").click(timeout=60_000)
    status = page.get_by_text(re.compile(r"Stopped after \d+ of 200 steps"))
    expect(status).to_be_visible(timeout=30_000)
    seen = page.evaluate("() => window.bgSeen")
    first = next(i for i, text in enumerate(seen) if text.startswith("frozen: "))  # the page's Stop code ran
    frozen = [int(found) for text in seen[first:] if text.startswith("frozen: ")
              for found in re.findall(r"Step (\d+) of", text)]
    # the live status may show again once Stop's wait is over, a moment before the final result replaces it: at the
    # step it was frozen at, never a later one
    later = [int(found) for text in seen[first:] if text.startswith("live: ")
             for found in re.findall(r"Step (\d+) of", text)]
    stopped = int(re.search(r"Stopped after (\d+)", status.inner_text()).group(1))
    assert frozen and len(set(frozen)) == 1  # the step on screen at the click, kept until the result came
    assert all(step == frozen[0] for step in later), later  # no step the run sent after the click was shown
    assert stopped >= frozen[0] + 2  # the run did go on until Stop reached it, and the result says how far
