"""A lesson in a real browser, at the sizes a class uses: the projector (1024×768) and a student's phone (390×844).
Each step of the guided path opens its own page of the app (its address in the address bar, with the step) and lands
with its result on the first screen and Next on screen, the page never scrolling sideways; Next and Previous go from
page to page; a teacher's own lesson, made on the Start page from the links they made, starts at its first step's
page, opens in their language, step by step, with its pages, inputs and notes, and keeps its place through a language
switch."""

import json
import re
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from bg_demo import text
from bg_demo.ui import lesson, site
from bg_demo.ui.gradio_compat import MARKUP

BUSY = json.dumps(MARKUP["busy"])  # an output still being computed or streamed

expect.set_options(timeout=60_000)  # a run on a busy 2-core machine
SIZES = {"phone": (390, 844), "projector": (1024, 768)}
WHERE = f"{MARKUP['block']}.bg-lesson-where"  # the bar's line (its Markdown's box)
ROOM = 100  # px of a result that must show above the bar: its first output's top, and something of it
PATHS = site.paths()  # page id -> the address of the page of the app that holds it

# Records, in the page, each output block of the page's own content (`.bg-page`: not its header, navigation or lesson
# bar) whose status tracker changes, busy or done (Gradio's markup, as bg_demo/ui/gradio_compat.py names it): the
# first after a step is the top of the step's result. The app's own scrolling (assets/view.js) reads the same; this
# test reads only where it ends. An init script: it runs again on every page a lesson goes to.
_RECORD = """((GRADIO) => {
  window.__busy = [];
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      const el = m.target;
      if (!(el instanceof Element) || !el.classList.contains(GRADIO.tracker)) continue;
      if (!GRADIO.tracker_shown.some((name) => el.classList.contains(name))) continue;
      const block = el.closest(GRADIO.block);
      if (block && block.closest(".bg-page") && !window.__busy.includes(block)) window.__busy.push(block);
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["class"]});  // no <html> yet
})(%s);""" % json.dumps(MARKUP)

# where the step's first output is (not a field the step fills in: Gradio's client gives an event's inputs a status
# too, as view.js knows), where the bar is, and how far the page scrolls sideways
_WHERE = """() => {
  const control = (block) => [...block.querySelectorAll("input:not([disabled]):not([type=hidden]), " +
    "textarea:not([disabled]):not([readonly]), select:not([disabled])")].some((field) => field.getClientRects().length);
  const first = window.__busy.find((block) => block.isConnected && block.getClientRects().length && !control(block));
  const bar = document.querySelector(".bg-lesson").getBoundingClientRect();
  const next = document.querySelector(".bg-lesson-next").getBoundingClientRect();
  return {top: first ? first.getBoundingClientRect().top : null, height: window.innerHeight, bar: bar.top,
          next: [next.top, next.bottom, next.left, next.right], width: window.innerWidth,
          sideways: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth};
}"""


def _idle(page) -> None:
    page.wait_for_function(f"() => window.__busy.length > 0 && !document.querySelector({BUSY})",
                           timeout=90_000)


def _settled(page) -> dict:
    """Where things are once the page has stopped scrolling: a finished result is kept in view while it is drawn
    (view.js's SETTLE_MS, 3 s), so the page must keep still for a while, up to 4 s."""
    still, last = 0, None
    for _ in range(20):
        page.wait_for_timeout(200)
        now = page.evaluate("() => [window.scrollY, document.documentElement.scrollHeight]")
        still = still + 1 if now == last else 0
        last = now
        if still >= 5:
            break
    return page.evaluate(_WHERE)


@pytest.fixture(params=list(SIZES), scope="module")
def size(request):
    return request.param


_TABS = {"ft_checkpoint": "ft_summary"}  # a tab whose id is not its page's


def _module(page_id: str):
    """The page of the app (`site.PAGES`) that holds `page_id`."""
    return next(module for module in site.PAGES if page_id in module.IDS)


def _on_page(page, app_url: str, page_id: str, k: int | None = None) -> None:
    """The browser is at the address of the page of the app holding `page_id` (with step k of the lesson, when given:
    a reload stays on the step), with that page's content on screen, the page marked in the navigation, and the tabs
    inside it that `page_id` is (if any) selected."""
    module = _module(page_id)
    expect(page).to_have_url(re.compile("^" + re.escape(app_url + module.PATH) + r"(\?|$)"))
    if k is not None:
        expect(page).to_have_url(re.compile(rf"[?&]step={k}(&|$)"))
    expect(page.locator(f"#bg-page-{module.TAB_ID}")).to_be_visible()
    expect(page.locator(f".bg-nav-{module.PATH or 'start'}")).to_have_class(re.compile(r"\bprimary\b"))
    if len(module.IDS) > 1:  # a page of tabs: the one that is `page_id`
        expect(page.locator(MARKUP["tab_button"] % _TABS.get(page_id, page_id))).to_have_attribute(
            "aria-selected", "true")


def _page(browser, size, lang="en"):
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height}, is_mobile=size == "phone",
                            has_touch=size == "phone", locale={"en": "en-US", "ko": "ko-KR", "ja": "ja-JP"}[lang])
    page.set_default_timeout(60_000)
    page.add_init_script(_RECORD)
    return page


# the error boxes the page shows (the app's own, beside each output, and the lesson bar's): none on a guided step
_ERRORS = """() => [...document.querySelectorAll(".bg-error")].filter((box) => box.getClientRects().length
  && box.textContent.trim()).map((box) => box.textContent.trim().slice(0, 200))"""


@pytest.mark.parametrize("lang", text.LANGS)
def test_every_guided_step_lands_with_its_result_and_next_on_the_first_screen(browser, app_url, size, lang):
    """All twelve steps in each language (a Korean or Japanese path reads its language on its own models) at each
    size: the result on the first screen, Next on screen, no error box, nothing sideways."""
    page = _page(browser, size, lang)
    steps = lesson.guided(lang)
    # the first step's own page, as the Start page's first step links to it
    page.goto(app_url + lesson.step_link(1, PATHS) + ("" if lang == text.DEFAULT else f"&lang={lang}"))
    for k in range(1, len(steps) + 1):
        tab = dict(parse_qsl(steps[k - 1][0]))["tab"]
        _on_page(page, app_url, tab, k)  # the step's own page, its address naming the step
        expect(page.locator(WHERE)).to_contain_text(text.t("lesson.step", lang, k=k, n=len(steps)))
        _idle(page)
        where = _settled(page)
        assert page.evaluate(_ERRORS) == [], f"step {k} ({tab}) in {lang} at {size}"
        assert where["top"] is not None, f"step {k} ({tab}): no output ran"
        assert 0 <= where["top"] <= where["bar"] - ROOM, f"step {k} ({tab}) in {lang} at {size}: result at {where}"
        top, bottom, left, right = where["next"]
        assert 0 <= top and bottom <= where["height"] and 0 <= left and right <= where["width"], where
        assert where["sideways"] <= 0, f"step {k} ({tab}) at {size} scrolls sideways by {where['sideways']} px"
        assert dict(parse_qsl(urlsplit(page.url).query)).get("step") == str(k)  # a reload stays on the step
        if k < len(steps):
            page.evaluate("window.__busy = []")
            page.locator(".bg-lesson-next").click()
    expect(page.locator(".bg-lesson-next")).to_be_disabled()
    page.close()


def test_a_start_step_opens_the_path_there_and_previous_goes_back(browser, app_url):
    """A step on the Start page is a link to its page at that step; Previous goes to the page before, as a new entry
    of the browser's history, so Back returns to the step the student left."""
    page = _page(browser, "projector")
    page.goto(app_url)
    step = page.locator(".bg-step", has_text=text.t("start.step.4").split(" · ", 1)[1][:20]).first
    expect(step).to_contain_text(text.t("start.step.4").split(" · ", 1)[0])
    step.click()
    _on_page(page, app_url, "qa", 4)
    expect(page.locator(WHERE)).to_contain_text("Step 4 of 12")
    _idle(page)
    page.evaluate("window.__busy = []")
    page.locator(".bg-lesson-previous").click()
    _on_page(page, app_url, "ner", 3)
    expect(page.locator(WHERE)).to_contain_text("Step 3 of 12")
    _idle(page)
    where = _settled(page)
    assert where["top"] is not None and 0 <= where["top"] <= where["bar"] - ROOM, where
    page.go_back()  # the step before Previous
    _on_page(page, app_url, "qa", 4)
    expect(page.locator(WHERE)).to_contain_text("Step 4 of 12")
    page.close()


# a teacher's lesson: (page, its page's name in the navigation (a key), the text box's value, what else the link
# sets, the note)
LESSON = [
    ("fill_mask", "fill_mask.tab", "Paris is the [MASK] of France.", {"top_k": "3"}, "1위 단어는?"),
    ("classify", "classify.tab", "Not bad at all.", {}, "부정문일까요? <b>굵게</b>"),
    ("ner", "ner.tab", "Ada Lovelace met Charles Babbage in London.", {"aggregation": "first"}, ""),
    ("next_sentence", "nsp.tab", "The man went to the store.", {"second": "He bought milk."}, "다음 문장"),
    ("generate", "generate.tab", "Once upon a time", {"strategy": "greedy", "max_new_tokens": "8"}, "그리디"),
    ("attention", "attention.tab", "The animal was tired.", {"role": "encoder"}, "어텐션"),
    ("compare", "compare.tab", "I went to the bank.", {}, "두 모델"),
    ("classify", "classify.tab", "What a wonderful day.", {}, "다시 감정 분석"),
]


def _field(page_id: str) -> str:
    return {"generate": "prompt", "next_sentence": "first"}.get(page_id, "text")


def test_a_teachers_lesson_made_from_their_links_opens_in_their_language_step_by_step(browser, app_url):
    # each link as its page's "Link to this" makes it: the page's own address
    links = [f"{app_url}{PATHS[page_id]}?" + urlencode({"tab": page_id, _field(page_id): value, **more, "run": "1",
                                                         "lang": "ko"})
             for page_id, _, value, more, _ in LESSON]
    teacher = _page(browser, "projector", "ko")
    teacher.add_init_script(f"localStorage.setItem({json.dumps(lesson.LINKS_KEY)}, {json.dumps(json.dumps(links))})")
    teacher.goto(f"{app_url}?lang=ko")
    teacher.get_by_text(text.t("lesson.title", "ko")).click()
    teacher.get_by_role("button", name=text.t("lesson.fill", "ko")).click()
    box = teacher.locator(".bg-lesson-lines textarea")
    expect(box).to_have_value("\n".join(links))
    box.fill("\n".join(f"{link} {note}".rstrip() for link, (*_, note) in zip(links, LESSON)))
    teacher.get_by_role("button", name=text.t("lesson.make", "ko")).click()
    made = teacher.locator(".bg-lesson-link textarea, .bg-lesson-link input").first
    expect(made).to_have_value(re.compile(r"lesson="))
    link = made.input_value()
    # the lesson starts at its first step's own page
    assert link.startswith(f"{app_url}{PATHS[LESSON[0][0]]}?lesson=") and "lang=ko" in link
    teacher.close()

    student = _page(browser, "phone", "en")  # a browser in English: the link opens the lesson in Korean
    student.goto(link)
    for k, (page_id, tab_key, value, more, note) in enumerate(LESSON, start=1):
        where = student.locator(WHERE)
        expect(where).to_contain_text(f"{len(LESSON)}단계 중 {k}단계")
        if note:
            expect(where).to_contain_text(note)  # the teacher's words as written, markup shown as text
        _on_page(student, app_url, page_id, k)  # its own page, its address naming the step
        expect(student.locator(f".bg-nav-{PATHS[page_id]}")).to_have_text(text.t(tab_key, "ko"), use_inner_text=True)
        student.wait_for_function("(value) => [...document.querySelectorAll('.bg-page textarea')]"
                                  ".some((box) => box.offsetParent && box.value === value)", arg=value)
        _idle(student)
        if k == 4:  # the language switch keeps the lesson's place and rewords its bar
            student.locator("#bg-language input[value=ja]").click()
            expect(where).to_contain_text(f"ステップ {k} / {len(LESSON)}")
            student.locator("#bg-language input[value=ko]").click()
            expect(where).to_contain_text(f"{len(LESSON)}단계 중 {k}단계")
        if k < len(LESSON):
            student.evaluate("window.__busy = []")
            student.locator(".bg-lesson-next").click()
    student.close()


# the block at the top of the screen (the first that starts on it, not an examples table: one per language) and where
# it is; the app keeps the same one there
_TOP = """() => {
  const on = [...document.querySelectorAll(%s)].filter((b) => !b.closest(".bg-lesson, .bg-examples")
    && !b.querySelector(%s)
    && b.getClientRects().length && b.getBoundingClientRect().bottom > 8);
  const block = on.find((b) => b.getBoundingClientRect().top >= 0) || on[0];
  window.__top = block;
  return Math.round(block.getBoundingClientRect().top);
}""" % (json.dumps(MARKUP["block"]), json.dumps(MARKUP["block"]))


@pytest.mark.parametrize("size", list(SIZES))
def test_a_language_switch_mid_lesson_keeps_the_reader_s_place_and_a_step_loading_is_worded_in_the_new_language(
        browser, app_url, size):
    """A reader who scrolls up to the switch is taken back to the result they were reading, which stays where it
    was while the page is worded again; a step asked for just before a switch arrives with its bar in the new
    language."""
    page = _page(browser, size)
    page.goto(f"{app_url}?lesson=guided&step=2")  # a lesson's link at the app's own address: sent on to the step's page
    _on_page(page, app_url, "classify", 2)
    expect(page.locator(WHERE)).to_contain_text("Step 2 of 12")
    _idle(page)
    _settled(page)
    assert page.evaluate("() => window.scrollY") > 0  # the step's result was led into view
    before = page.evaluate(_TOP)
    page.mouse.wheel(0, -5000)  # up to the switch, as a reader goes
    page.wait_for_function("() => window.scrollY === 0")
    page.wait_for_timeout(400)  # the app reads where the reader was once the scrolling stops
    page.locator("#bg-language input[value=ja]").click()
    expect(page.locator(WHERE)).to_contain_text("ステップ 2 / 12")
    _settled(page)
    assert page.evaluate("() => window.__top.isConnected && window.scrollY > 0")
    assert abs(page.evaluate("() => window.__top.getBoundingClientRect().top") - before) <= 2
    # Next, then the switch before the step has landed: its bar ends in the language switched to
    page.evaluate("window.__busy = []")
    page.locator(".bg-lesson-next").click()
    page.locator("#bg-language input[value=ko]").click()
    expect(page.locator(WHERE)).to_contain_text("12단계 중 3단계")
    _on_page(page, app_url, "ner", 3)
    _idle(page)
    _settled(page)
    expect(page.locator(WHERE)).to_contain_text("12단계 중 3단계")
    page.close()
