"""The screens a class uses, in a real browser: a phone (390×844), a projector (1024×768) and a laptop
(1366×768). Every page runs its example on a phone and on a 768-px-high screen: the page never scrolls sideways, the
result is brought into view, and on a phone every figure has the width, with no label on another and no title cut or
under the plot's label badge, and a text with a long unbroken word breaks rather than widen the page; every main tab
is a link in the navigation; a link restores and runs its view."""

import json
import re

import pytest
from playwright.sync_api import expect

from bg_demo.ui.gradio_compat import MARKUP

expect.set_options(timeout=60_000)  # a run on a busy 2-core machine
SIZES = {"phone": (390, 844), "projector": (1024, 768), "laptop": (1366, 768)}
MAIN_PAGES = ["Start here", "Fill-mask", "Sentiment", "Entities", "Q&A", "Next sentence", "Generate", "Attention",
              "BERT vs GPT-2", "Pretraining", "Fine-tune or prompt?"]
PLOT = ".js-plotly-plot .main-svg"
# (page id, text of its first example, what only a finished run puts on screen)
BUSY = json.dumps(MARKUP["busy"])  # an output still being computed or streamed
BLOCK = json.dumps(MARKUP["block"])  # the box around a component

PAGES = [
    ("fill_mask", "The cat sat on the [MASK].", PLOT),
    ("classify", "I loved this movie, the acting", PLOT),
    ("ner", "Apple Inc. was founded by Steve Jobs", ".textfield .token .label"),  # tokens with their tags
    ("qa", "Who wrote the paper that introduced the Transformer?", "text=/read in 1 window|No answer/"),
    ("next_sentence", "He bought a gallon of milk.", PLOT),
    ("generate", "greedy: watch it loop", "text=/new tokens in/"),
    ("next_token", "The capital of France is", PLOT),
    ("logit_lens", "The Eiffel Tower is in the city of", PLOT),
    ("attention", "The animal didn't cross the street", PLOT),
    ("compare", "The animal didn't cross the street", PLOT),
    ("mlm", "The quick brown fox jumps", "text=MLM loss on this sentence"),
    ("embeddings", "My dog is cute.", PLOT),
    ("causal", "The capital of France is Paris.", PLOT),
]
# a word no line can hold, and a URL: the page must break them, not widen
LONG = "Supercalifragilistic" * 12 + " https://example.org/" + "a/b-c_d" * 30


def _visible(page, selector: str):
    return page.locator(f"{selector} >> visible=true")


def _overflow(page) -> int:
    """How far the page scrolls sideways, in CSS pixels."""
    return page.evaluate(
        "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth"
    )


# Every problem of a shown Plotly figure a reader would see: a plotting area narrower than MIN_PLOT_SHARE of the
# screen, two tick labels of one axis on top of each other, a title, subplot title or colour-bar title cut by the
# figure's edge or under gradio's label badge. Returns one line per problem.
MIN_PLOT_SHARE = 0.7
_FIGURE_PROBLEMS = """(share) => {
  const problems = [], inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1
    && a.bottom <= b.bottom + 1;
  const meets = (a, b, gap) => a.left < b.right - gap && b.left < a.right - gap && a.top < b.bottom - gap
    && b.top < a.bottom - gap;
  for (const plot of document.querySelectorAll(".js-plotly-plot")) {
    if (!plot.offsetParent || !plot._fullLayout) continue;
    const name = (plot.layout.title && plot.layout.title.text) || "a figure";
    const frame = plot.getBoundingClientRect();
    if (plot._fullLayout._size.w < share * window.innerWidth)
      problems.push(`${name}: plotting area ${Math.round(plot._fullLayout._size.w)} px wide`);
    for (const layer of plot.querySelectorAll(".xaxislayer-above, .yaxislayer-above")) {
      const labels = [...layer.querySelectorAll(".xtick text, .ytick text")].filter((t) => t.textContent.trim())
        .map((t) => [t.textContent, t.getBoundingClientRect()]);
      for (let i = 0; i + 1 < labels.length; i++)
        for (let j = i + 1; j < labels.length; j++)
          if (meets(labels[i][1], labels[j][1], 1)) problems.push(`${name}: "${labels[i][0]}" on "${labels[j][0]}"`);
    }
    const block = plot.closest(%(block)s), badge = block && block.querySelector("[data-testid=block-label]");
    const badgeBox = badge && badge.offsetParent ? badge.getBoundingClientRect() : null;
    for (const title of plot.querySelectorAll(".gtitle, .annotation-text, .cbtitle text, .g-xtitle text, .g-ytitle text")) {
      if (!title.textContent.trim()) continue;
      const box = title.getBoundingClientRect();
      if (!inside(box, frame)) problems.push(`${name}: "${title.textContent}" cut by the edge`);
      if (badgeBox && meets(box, badgeBox, 0)) problems.push(`${name}: "${title.textContent}" under the label badge`);
    }
  }
  return problems;
}""".replace("%(block)s", BLOCK)


def _figure_problems(page) -> list[str]:
    return page.evaluate(_FIGURE_PROBLEMS, MIN_PLOT_SHARE)


def _idle(page) -> None:
    """Wait until no output is still being computed or streamed."""
    page.wait_for_function(f"() => !document.querySelector({BUSY})", timeout=60_000)


def _submitted(page):
    """Around an action that runs the page: waits until the server has taken the run (the page marks its outputs
    pending before it asks), so that `_idle` then waits for this run's end."""
    return page.expect_response(lambda response: "/queue/join" in response.url)


# the top of `element` on screen with room under it (a result seen, not a sliver at the bottom), in the page: what
# a run's scrolling ends at
_IN_VIEW = """(element) => { const box = element.getBoundingClientRect();
  return box.top >= 0 && box.top <= window.innerHeight - Math.min(box.height, 120); }"""


@pytest.fixture(params=list(SIZES), scope="module")
def size(request):
    return request.param


@pytest.fixture
def screen(browser, app_url, size):
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(60_000)
    yield page, app_url
    page.close()


# how a student reaches each part of a page: its page's address (`bg_demo.ui.site`), then its sub-tab (the text key
# of its label)
SUB_TABS = {"next_token": "lab.sub", "logit_lens": "lens.sub", "mlm": "pre.mlm",
            "embeddings": "pre.embeddings", "causal": "pre.causal"}


@pytest.fixture(params=["phone", "projector"], scope="module")
def run_screen(browser, app_url, request):
    """The two screen heights a run is checked on: a phone's 844 px and the 768 px a projector (1024×768) and a
    laptop (1366×768) share; the laptop's wider page is checked by the tests of every size. One browser page a
    size: a student goes from page to page (each page's outputs start empty: every page is run once)."""
    width, height = SIZES[request.param]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(60_000)
    yield page, request.param, app_url
    page.close()


def _open(page, app_url: str, page_id: str) -> None:
    """The page `page_id` as a student opens it: its page's address, then its sub-tab."""
    from bg_demo.text import t
    from bg_demo.ui import site

    path = site.paths()[page_id]
    page.goto(f"{app_url}{path}")
    expect(page.locator(f".bg-nav-link.primary.bg-nav-{path}")).to_be_visible()  # that page, not another
    _idle(page)  # and its opening's own work done (its load events), as a student reading it first finds it
    page.wait_for_timeout(500)
    if page_id in SUB_TABS:
        _visible(page, f"role=tab[name='{t(SUB_TABS[page_id])}']").first.click()


@pytest.mark.parametrize(("page_id", "example", "result"), PAGES, ids=[p[0] for p in PAGES])
def test_every_page_runs_its_example_in_view_without_sideways_scrolling(run_screen, page_id, example, result):
    page, size, app_url = run_screen
    _open(page, app_url, page_id)
    _visible(page, f"text={example}").first.click()
    expect(_visible(page, result).first).to_be_visible()
    _idle(page)
    assert _overflow(page) <= 0
    if size == "phone":  # a phone shows the result's first output; its figure may come after the page's controls
        assert _figure_problems(page) == []
    else:  # a 768-px-high screen: the page brings its result into view (its scrolling may still be under way)
        page.wait_for_function(_IN_VIEW, arg=_visible(page, result).first.element_handle(), timeout=10_000)
        return  # the long word's check: a ~1,700-px word pushes any page sideways unless it breaks; the phone's here
    box = _visible(page, "textarea").first
    box.fill(f"{box.input_value()} {LONG}")
    with _submitted(page):
        box.press("Enter")
    _idle(page)
    assert _overflow(page) <= 0
    expect(page.locator(".toast-body.error")).to_have_count(0)  # a problem is said beside the output, not in a toast


def _nav(page):
    return page.locator(".bg-nav")


def test_every_main_page_is_one_click_away(screen, size):
    page, url = screen
    page.goto(url)
    for name in MAIN_PAGES:  # all in the navigation (wrapped onto more lines on a phone), none in a "…" menu
        expect(_nav(page).get_by_role("link", name=name, exact=True)).to_be_visible()
    assert _overflow(page) <= 0
    first = _nav(page).get_by_role("link", name="Start here", exact=True)
    last = _nav(page).get_by_role("link", name="Pretraining", exact=True)
    if size != "phone":  # one line from 1024 px up
        assert abs(first.bounding_box()["y"] - last.bounding_box()["y"]) < 4
    _nav(page).get_by_role("link", name="Attention", exact=True).click()
    expect(page.get_by_role("button", name="Show attention")).to_be_visible()


def test_the_page_keeps_one_width_from_page_to_page(screen):
    page, url = screen
    page.goto(url)
    widths = set()
    for name, path in (("Fill-mask", "fill-mask"), ("Q&A", "qa"), ("Generate", "generate"), ("Attention", "attention")):
        _nav(page).get_by_role("link", name=name, exact=True).click()
        expect(page.locator(f".bg-nav-link.primary.bg-nav-{path}")).to_be_visible()
        widths.add(round(page.locator(".gradio-container").first.bounding_box()["width"]))
    assert len(widths) == 1


def test_the_attention_map_fits_beside_its_sliders_on_a_768_px_screen(browser, app_url):
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{app_url}?tab=attention&text=The+animal+didn%27t+cross+the+street+because+it+was+tired&run=1")
    plot = _visible(page, PLOT).first
    expect(plot).to_be_visible(timeout=60_000)
    head = page.get_by_label("number input for Head (0 = the first)")
    plot.scroll_into_view_if_needed()
    box, slider = plot.bounding_box(), head.bounding_box()
    assert box["height"] <= 768 - 100  # the map and its controls share one screen
    assert slider["y"] >= 0 and slider["y"] + slider["height"] <= 768  # the Head slider is on screen with it
    page.close()


def test_a_link_restores_the_attention_view_and_runs_it(browser, app_url):
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(f"{app_url}?tab=attention&text=The+cat+sat+on+the+mat.&role=decoder&view=layer&layer=1&head=1"
              "&hide=true&stat=to_self&run=1")
    expect(_visible(page, PLOT).first).to_be_visible(timeout=60_000)  # it ran: the link shows the result
    expect(page.get_by_label("number input for Layer (0 = the first)")).to_have_value("1")
    expect(page.get_by_label("number input for Head (0 = the first)")).to_have_value("1")
    expect(page.get_by_label("Hide special tokens")).to_be_checked()
    expect(page.get_by_label("All heads of the layer")).to_be_checked()
    expect(page.get_by_label("GPT-2 (decoder: reads left to right)")).to_be_checked()
    # and the copy-link control makes the same link back, with run=1
    page.get_by_role("button", name="Link to this").click()
    link = _visible(page, ".bg-share-url textarea, .bg-share-url input").first
    expect(link).to_have_value(re.compile(r"tab=attention&.*layer=1&head=1&hide=true&stat=to_self.*&run=1"))
    page.close()


def test_a_seedless_sample_differs_from_the_last_and_shows_its_seed(browser, app_url):
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(f"{app_url}?tab=generate")
    page.get_by_label("top_p", exact=True).check()
    # the Generate tab's own seed box (the Next-token lab's, on the same page, is hidden under its own sub-tab)
    expect(page.get_by_label("Seed (empty").locator("visible=true")).to_have_value("")  # empty, not 0
    page.get_by_label("Prompt (empty = start").fill("Once upon a time")
    runs = []
    for _ in range(2):
        page.get_by_role("button", name="Generate", exact=True).click()
        last = runs[-1][0] if runs else "none"
        # the finished status of this run: one with a seed other than the last run's
        status = page.get_by_text(re.compile(rf"new tokens in .* · seed (?!{last}\b)\d+"))
        expect(status).to_be_visible(timeout=60_000)
        runs.append((re.search(r"seed (\d+)", status.inner_text()).group(1), page.locator(".bg-tokens").inner_text()))
    (seed_a, text_a), (seed_b, text_b) = runs
    assert seed_a != seed_b and text_a != text_b
    page.close()


def test_user_html_is_shown_as_text_in_the_compare_notes(browser, app_url):
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    word = "<b style='font-size:40px'>bank</b>"
    page.goto(f"{app_url}?tab=compare")
    page.get_by_label("First sentence").fill(f"I sat by the {word} of the river.")
    page.get_by_label("Second sentence").fill(f"I sat by the {word} of the river.")
    page.get_by_label("Word in both sentences").fill(word)
    page.get_by_role("button", name="Compare the word's vectors").click()
    note = _visible(page, "text=/The two sentences are the same/").first
    expect(note).to_contain_text(word, timeout=60_000)  # the tags are on screen as characters
    assert page.locator(".prose b").count() == 0  # and nothing was made bold by them
    page.close()


def test_an_error_stays_beside_the_outputs_and_keeps_the_last_result(browser, app_url):
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.clock.install()  # the page's timers, which a toast's leaving waits on, moved on below without waiting
    page.goto(f"{app_url}?tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1")
    filled = page.get_by_label("Sentence with the best guess for each mask")
    expect(filled).not_to_have_value("", timeout=60_000)
    before = filled.input_value()
    box = page.get_by_label("Sentence with one or more [MASK]")
    box.fill("A sentence without any blank.")
    box.press("Enter")
    error = _visible(page, ".bg-error").first
    expect(error).to_contain_text("Put at least one [MASK]", timeout=60_000)
    expect(error).to_contain_text("The result below is still the one before")  # it does not pass for the answer
    page.clock.fast_forward(11_000)  # longer than a toast stays
    expect(error).to_be_visible()
    assert filled.input_value() == before
    box.fill("The dog sat on the [MASK].")
    box.press("Enter")
    expect(error).to_be_hidden(timeout=60_000)  # the next good run clears it
    page.close()


def test_an_over_long_paste_is_refused_with_its_length_and_nothing_is_cut(browser, app_url):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{app_url}?tab=fill_mask")
    text = "word " * 1000 + "[MASK]"
    box = page.get_by_label("Sentence with one or more [MASK]")
    box.fill(text)
    assert box.input_value() == text  # the box keeps the whole paste, [MASK] included
    box.press("Enter")
    expect(_visible(page, ".bg-error").first).to_contain_text("5,006 characters long; the limit is 2,000")
    page.close()


@pytest.mark.parametrize("size", ["projector", "phone"])
def test_generates_status_is_on_screen_after_several_long_sequences(browser, app_url, size):
    """Five sequences of 200 tokens: the status line (how many, how long, why each stopped) heads the result, in
    view when the run ends, where it was ~2,000 px below the screen under the sequences on a projector; on a phone a
    link that sets the strategy led to the sliders it enabled (their progress showed) instead of the result."""
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{app_url}?tab=generate&prompt=Once+upon+a+time&strategy=top_p&max_new_tokens=200&sequences=5&seed=1"
              "&run=1")
    status = page.get_by_text(re.compile(r"5 sequences × .* new tokens? in .* s"))
    expect(status).to_be_visible(timeout=90_000)
    _idle(page)
    page.wait_for_function(_IN_VIEW, arg=status.element_handle(), timeout=10_000)
    texts = _visible(page, ".bg-tokens")
    assert texts.count() == 5 and texts.nth(4).bounding_box()["y"] > height  # the sequences go on below it
    page.close()


def test_an_explanation_is_brought_into_view_and_a_panel_opened_after_a_result_stays_open(browser, app_url):
    """On a phone: "Explain this prediction" computes under its button, and its result is brought into view as a
    run's is (it stayed under the fold); a panel opened within the 3 s a finished result is kept in view is not
    pulled back to that result."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(f"{app_url}?tab=classify&text=Not+bad+at+all%2C+I+suppose.&run=1")
    expect(_visible(page, PLOT).first).to_be_visible(timeout=60_000)
    _idle(page)
    panel = _visible(page, "text=Why? Attention from the prediction").first
    panel.click()
    button = page.get_by_role("button", name="Explain this prediction")
    button.scroll_into_view_if_needed()
    button.click()
    plot = _visible(page, f"{PLOT}").nth(1)  # the page's chart, then the explanation's
    expect(plot).to_be_visible(timeout=90_000)
    _idle(page)
    explained = _visible(page, "text=Attention and attribution, token by token").first
    page.wait_for_function(_IN_VIEW, arg=explained.element_handle(), timeout=10_000)

    # a new result, and at once a panel far under it folded by the reader: the page stays where they took it
    page.get_by_role("button", name="Classify", exact=True).click()
    _idle(page)
    page.mouse.wheel(0, 400)  # the reader scrolls down to it
    page.wait_for_timeout(300)
    _visible(page, "text=Raw result (JSON, as the API returns it)").first.click()
    y = page.evaluate("window.scrollY")
    assert y > 300
    page.wait_for_timeout(3_500)
    assert abs(page.evaluate("window.scrollY") - y) < 40
    page.close()


def test_the_focus_sliders_sit_beside_the_map_on_a_projector_and_under_it_on_a_phone(browser, app_url):
    """The focus window's sliders were under the eight views' list (below the map on a projector), and on a phone
    every slider was a screen above the map: now beside its top, and on a phone right under it."""
    link = f"{app_url}?tab=attention&text=The+animal+didn%27t+cross+the+street+because+it+was+tired&view=focus&run=1"
    for width, height in ((1024, 768), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(link)
        plot = _visible(page, PLOT).first
        expect(plot).to_be_visible(timeout=60_000)
        _idle(page)
        query = page.get_by_label("number input for Focus: query token (position)")
        span = page.get_by_label("number input for Focus: queries from there")
        layer = page.get_by_label("number input for Layer (0 = the first)")
        map_box = _visible(page, ".bg-redrawn").first.bounding_box()
        titles = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .annotation-text')]"
                               ".map((t) => t.textContent)")
        assert any("tokens 0–" in title for title in titles), titles  # the window it shows ("13 tokens a side")
        if width > 700:  # beside the map, within its height: one screen shows both
            for slider in (query, span):
                box = slider.bounding_box()
                assert map_box["y"] <= box["y"] <= map_box["y"] + min(map_box["height"], 768 - 100), (width, box)
        else:  # under the map, the first slider within a thumb's reach of it
            assert 0 <= layer.bounding_box()["y"] - (map_box["y"] + map_box["height"]) <= 200
            assert query.bounding_box()["y"] - (map_box["y"] + map_box["height"]) <= 400
        page.close()


CUE_MS = 300  # a busy cue a reader sees as the answer to their click


def test_a_512_token_view_shows_it_is_being_drawn_at_once_on_a_slow_phone(browser, app_url):
    """At 4x CPU a 512-token map takes seconds to draw: from a control's click the map is veiled with a spinner
    (painted within 0.3 s), until it is drawn."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    cdp = page.context.new_cdp_session(page)
    words = " ".join(["the animal crossed the wide street"] * 90)  # > 512 tokens: cut to the model's 512
    page.goto(f"{app_url}?tab=attention&text={words.replace(' ', '+')}&run=1")
    chart = _visible(page, ".bg-redrawn").first
    expect(_visible(page, PLOT).first).to_be_visible(timeout=90_000)
    _idle(page)
    expect(chart).not_to_have_attribute("aria-busy", "true", timeout=60_000)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.evaluate("""(chart) => { window.__cue = null; window.__clicked = null;
      document.addEventListener("pointerdown", () => { window.__clicked = performance.now(); }, {capture: true});
      new MutationObserver(() => { if (chart.getAttribute("aria-busy") === "true" && window.__cue === null)
        requestAnimationFrame(() => { window.__cue = performance.now(); }); })
        .observe(chart, {attributes: true, attributeFilter: ["aria-busy"]}); }""", chart.element_handle())
    page.get_by_label("Every head's map (thumbnails)").click(delay=80)  # another view, tapped as a thumb taps
    page.wait_for_function("() => window.__cue !== null && window.__clicked !== null", timeout=20_000)
    cue = page.evaluate("window.__cue - window.__clicked")
    expect(chart).not_to_have_attribute("aria-busy", "true", timeout=90_000)  # drawn: the veil lifts
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    assert cue <= CUE_MS, f"the cue was painted {cue:.0f} ms after the click"
    page.close()


def test_no_chart_toolbar_covers_a_charts_label_on_a_phone(browser, app_url):
    """Plotly's toolbar sat over the label badge of every chart on a 390-px phone (shown on a tap, or under the
    mouse)."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(f"{app_url}?tab=classify&text=I+loved+this+movie.&run=1")
    plot = _visible(page, PLOT).first
    expect(plot).to_be_visible(timeout=60_000)
    _idle(page)
    plot.hover()
    plot.tap()
    covered = page.evaluate("""() => [...document.querySelectorAll(".js-plotly-plot")].filter((plot) => plot.offsetParent)
      .map((plot) => { const block = plot.closest(%(block)s), badge = block && block.querySelector("[data-testid=block-label]");
        const bar = plot.querySelector(".modebar-container");
        if (!badge || !bar || !bar.getClientRects().length) return false;
        const a = badge.getBoundingClientRect(), b = bar.getBoundingClientRect();
        return b.width > 0 && b.height > 0 && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; })"""
        .replace("%(block)s", BLOCK))
    assert covered and not any(covered)
    page.close()


def test_the_share_row_wraps_on_a_phone_and_its_link_and_line_are_read_whole(browser, app_url):
    """On a 390-px phone the line saying the link is copied was squeezed to a letter a line, which stretched the row
    (and its button) ~760 px tall and left the link ~6 lines in a narrow box: the line now shares a line with the
    button, the link under them at the row's width."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    page.goto(f"{app_url}?tab=classify&text=I+loved+this+movie.&run=1")
    expect(_visible(page, PLOT).first).to_be_visible(timeout=60_000)
    _idle(page)
    page.get_by_role("button", name="Link to this").filter(visible=True).first.click()
    url = _visible(page, ".bg-share-url textarea, .bg-share-url input").first
    expect(url).to_have_value(re.compile(r"tab=classify"), timeout=10_000)
    status = _visible(page, ".bg-share-status").first
    expect(status).not_to_have_text("", timeout=10_000)
    row = status.locator("xpath=ancestor::div[contains(@class,'bg-share-row')][1]")
    row_box, url_box, status_box = row.bounding_box(), url.bounding_box(), status.bounding_box()
    assert row_box["height"] < 250, row_box
    assert url_box["width"] > 0.8 * row_box["width"] and status_box["width"] > 100, (url_box, status_box)
    assert row_box["x"] + row_box["width"] <= 390 and _overflow(page) <= 0
    page.close()


def test_the_start_tables_gpt2_column_is_on_a_phones_screen(browser, app_url):
    """The BERT-beside-GPT-2 table hid its GPT-2 column in a sideways scroll of its own on a 390-px phone."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    page.goto(app_url)
    table = _visible(page, ".prose table").first
    expect(table).to_be_visible(timeout=60_000)
    table.scroll_into_view_if_needed()
    hidden = table.evaluate("(table) => table.scrollWidth - table.clientWidth")
    right = page.get_by_role("columnheader", name="GPT-2").first.bounding_box()
    assert hidden <= 0 and right["x"] + right["width"] <= 390
    page.close()


@pytest.mark.parametrize("page_id", ["generate", "tune_bert"])
def test_a_sliders_name_never_stands_upright_on_a_phone(browser, app_url, page_id):
    """Japanese slider names ("バッチサイズ", "ビーム数") stood one or two characters a line on a 390-px phone where
    sliders share a row: a name that wraps keeps four characters a line or more."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    page.goto(f"{app_url}?tab={page_id}&lang=ja")
    expect(_visible(page, "input[type=range]").first).to_be_attached(timeout=60_000)
    page.wait_for_timeout(500)
    names = page.evaluate("""() => [...document.querySelectorAll("input[type=range]")].filter((r) => r.offsetParent)
      .map((r) => { const name = r.closest(%(block)s).querySelector("[data-testid=block-info]");
        const box = name.getBoundingClientRect();
        return [name.textContent.trim(), Math.round(box.width), Math.round(box.height),
                parseFloat(getComputedStyle(name).lineHeight) || 20]; })""".replace("%(block)s", BLOCK))
    assert names
    upright = [(name, w, h) for name, w, h, line in names if h > 1.5 * line and len(name) / round(h / line) < 4]
    assert upright == []
    page.close()


def test_going_from_every_head_at_a_glance_to_the_thumbnails_draws_no_nan_rect(browser, app_url):
    """Plotly drew the thumbnails over the overview in place and logged `<rect> attribute height: "NaN"` (the
    overview's colour bar was its trace's own, the thumbnails' the layout's)."""
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{app_url}?tab=attention&text=The+cat+sat+on+the+mat.&run=1")
    expect(_visible(page, PLOT).first).to_be_visible(timeout=60_000)
    _idle(page)
    for view in ("Every head at a glance", "Every head's map (thumbnails)", "Every head at a glance"):
        page.get_by_role("radio", name=view).click()
        _idle(page)
        page.wait_for_timeout(1_500)  # drawn
    assert [error for error in errors if "NaN" in error] == []
    page.close()


def test_a_long_contexts_why_draws_every_token_wide_enough_to_see_on_a_projector(browser, app_url):
    """The Q&A "Why?" of the guided path's context (228 tokens) drew 1-4 px columns at 1024 px: each line of
    tokens now gives each one 12 px or more."""
    from urllib.parse import urlencode

    from bg_demo.figures.explain import MIN_CELL_PX
    from bg_demo.ui.strings import examples

    values = next(step["values"] for step in examples()["guided_path"] if step["page"] == "qa")
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{app_url}?{urlencode({'tab': 'qa', **values, 'run': '1'})}")
    expect(_visible(page, "text=/read in 1 window|No answer/").first).to_be_visible(timeout=60_000)
    _idle(page)
    _visible(page, "text=Why? Attention from the prediction").first.click()
    page.get_by_role("button", name="Explain this prediction").click()
    explained = _visible(page, "text=Attention and attribution, token by token").first
    expect(explained).to_be_visible(timeout=90_000)
    _idle(page)
    page.wait_for_timeout(1_000)
    widths = page.evaluate("""() => [...document.querySelectorAll(".js-plotly-plot")].filter((p) => p.offsetParent
        && p._fullLayout && (p.layout.title.text || "").startsWith("Why p(")).flatMap((p) =>
        Object.keys(p._fullLayout).filter((k) => /^xaxis\\d*$/.test(k)).map((k) => {
          const axis = p._fullLayout[k]; return axis._length / (axis.range[1] - axis.range[0]); }))""")
    assert widths and min(widths) >= MIN_CELL_PX * 0.9, widths
    page.close()
