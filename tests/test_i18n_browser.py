"""The app in a Korean and a Japanese browser, and the language switch, in a real browser (Debian's chromium)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from bg_demo import text


def _literal_start(key: str, lang: str) -> str:
    """The words a text starts with before its first filled-in value."""
    return text.t(key, lang).split("{")[0].strip()


def _pattern(key: str, lang: str) -> re.Pattern:
    """A text in one language with any value where its fields are."""
    return re.compile(".*".join(re.escape(part) for part in re.split(r"\{[^}]*\}", text.t(key, lang))))


@pytest.fixture
def open_in(browser, app_url):
    pages = []

    def make(locale: str, query: str = ""):
        """A new browser in `locale` at the app's address `query` (a page's address and its query: "fill-mask?...")."""
        context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(app_url + query)
        pages.append(context)
        # the page is built in the browser first (seconds on a busy machine): every check below is about the app
        page.locator("#bg-language").wait_for(timeout=60_000)
        return page

    yield make
    for context in pages:
        context.close()


def test_a_korean_browser_gets_korean_labels_examples_and_server_text(open_in):
    page = open_in("ko-KR")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("#bg-language input[value='ko']")).to_be_checked()
    # the navigation is worded in Korean: its link opens the fill-mask page
    nav = page.locator(".bg-nav .bg-nav-fill-mask")
    expect(nav).to_have_text(text.t("fill_mask.tab", "ko"), use_inner_text=True)
    nav.click()
    page.wait_for_url(re.compile(r"/fill-mask(\?|$)"), timeout=30_000)
    expect(page.locator("#bg-page-fill_mask")).to_be_visible(timeout=60_000)
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    # the Korean example block (the English one is hidden); it picks the multilingual encoder
    page.locator(".bg-examples.bg-for-ko").get_by_text("서울은 한국의 [MASK]입니다.").first.click()
    filled = page.get_by_label(text.t("fill_mask.filled", "ko"))
    expect(filled).not_to_have_value("", timeout=60_000)
    assert filled.input_value().startswith("서울은 한국의") and "[MASK]" not in filled.input_value()
    expect(page.get_by_text("The cat sat on the [MASK].")).to_be_hidden()
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    # the server's own words come in Korean: an error, with the input's name in Korean too
    box = page.get_by_label(text.t("fill_mask.text", "ko"))
    box.fill("빈칸이 없는 문장")
    box.press("Enter")
    expect(page.get_by_text(_literal_start("error.no_mask", "ko"))).to_be_visible(timeout=30_000)


def test_a_japanese_browser_generates_with_the_japanese_example(open_in):
    page = open_in("ja-JP")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    nav = page.locator(".bg-nav .bg-nav-generate")
    expect(nav).to_have_text(text.t("generate.tab", "ja"), use_inner_text=True)
    nav.click()
    page.wait_for_url(re.compile(r"/generate(\?|$)"), timeout=30_000)
    expect(page.locator("#bg-page-generate")).to_be_visible(timeout=60_000)
    page.locator(".bg-examples.bg-for-ja").get_by_text("貪欲法").first.click()  # a Japanese example: a Japanese prompt and the Japanese GPT-2
    expect(page.get_by_text(_pattern("generate.status", "ja"))).to_be_visible(timeout=90_000)
    shown = page.locator(".bg-tokens").first.inner_text()
    assert "\\x" not in shown and "\ufffd" not in shown
    expect(page.locator(".toast-body.error")).to_have_count(0)


def test_the_switch_relabels_the_page_and_the_server_follows(open_in):
    page = open_in("en-US")
    nav = page.locator(".bg-nav .bg-nav-fill-mask")
    expect(nav).to_have_text("Fill-mask", use_inner_text=True)
    page.locator("#bg-language").get_by_text("日本語").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(nav).to_have_text(text.t("fill_mask.tab", "ja"), use_inner_text=True)  # the navigation relabelled in the browser
    nav.click()  # another page: it opens in the language chosen on this one
    page.wait_for_url(re.compile(r"/fill-mask(\?|$)"), timeout=30_000)
    expect(page.locator("#bg-page-fill_mask")).to_be_visible(timeout=60_000)
    expect(page.locator("html")).to_have_attribute("lang", "ja", timeout=15_000)
    expect(page.locator("#bg-language input[value='ja']")).to_be_checked()
    box = page.get_by_label(text.t("fill_mask.text", "ja"))
    box.fill("no blank here")
    box.press("Enter")
    # in the error box (the tab's intro, drawn in Japanese when the tab is opened, shares its first words)
    expect(page.locator(".bg-error").get_by_text(_literal_start("error.no_mask", "ja"))).to_be_visible(timeout=30_000)
    # the choice is kept for the next visit
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "ja", timeout=15_000)
    expect(page.locator("#bg-language input[value='ja']")).to_be_checked()


def test_a_link_can_ask_for_a_language(open_in):
    page = open_in("en-US", "?lang=ko&tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1")
    expect(page.locator("html")).to_have_attribute("lang", "ko", timeout=15_000)
    page.wait_for_url(re.compile(r"/fill-mask\?"), timeout=30_000)  # the link's tab is on the fill-mask page
    expect(page.get_by_label(text.t("fill_mask.filled", "ko"))).not_to_have_value("", timeout=60_000)
    # the navigation too, a page not opened included
    expect(page.locator(".bg-nav .bg-nav-generate")).to_have_text(text.t("generate.tab", "ko"), use_inner_text=True, timeout=10_000)
    expect(page.locator(".bg-nav").get_by_text("Generate", exact=True).filter(visible=True)).to_have_count(0)


def test_link_to_this_carries_the_language_on_screen(open_in):
    page = open_in("ja-JP", "?tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1")
    expect(page.get_by_label(text.t("fill_mask.filled", "ja"))).not_to_have_value("", timeout=60_000)
    page.get_by_role("button", name=text.t("link.button", "ja")).filter(visible=True).first.click()
    url = page.locator(".bg-share-url textarea, .bg-share-url input").filter(visible=True).first
    expect(url).to_have_value(re.compile(r"lang=ja"), timeout=10_000)
    assert "tab=fill_mask" in url.input_value() and "run=1" in url.input_value()


def test_gradios_own_language_setting_moves_the_switch_and_the_server(open_in):
    page = open_in("en-US")
    page.get_by_text("Settings").last.click()
    page.locator("input[aria-label=Language]").click()
    page.get_by_role("option", name="한국어").first.click()
    page.keyboard.press("Escape")
    expect(page.locator("#bg-language input[value='ko']")).to_be_checked(timeout=10_000)
    # the navigation follows, and the server, which now words things in Korean: its error, in Korean
    expect(page.locator(".bg-nav .bg-nav-generate")).to_have_text(text.t("generate.tab", "ko"), use_inner_text=True, timeout=10_000)
    settings = page.get_by_role("dialog", name=re.compile(".+"))
    settings.locator(".backdrop").click(position={"x": 5, "y": 5})  # the settings panel closed, as a click beside it does
    expect(settings).to_have_count(0, timeout=10_000)
    page.locator(".bg-nav .bg-nav-fill-mask").click()
    page.wait_for_url(re.compile(r"/fill-mask(\?|$)"), timeout=30_000)
    expect(page.locator("#bg-language input[value='ko']")).to_be_checked(timeout=60_000)
    box = page.get_by_label(text.t("fill_mask.text", "ko"))
    box.fill("no blank here")
    box.press("Enter")
    expect(page.locator(".bg-error").get_by_text(_literal_start("error.no_mask", "ko"))).to_be_visible(timeout=30_000)


def test_a_switch_rewords_the_figure_and_the_error_on_screen(open_in):
    page = open_in("en-US", "fill-mask")
    expect(page.locator("#bg-page-fill_mask")).to_be_visible(timeout=60_000)
    box = page.get_by_label(text.t("fill_mask.text", "en"))
    box.fill("The cat sat on the [MASK].")
    box.press("Enter")
    axis = page.locator(".js-plotly-plot .xtitle").first
    expect(axis).to_have_text(text.t("fig.tasks.probability", "en"), timeout=60_000)
    box.fill("no blank here")
    box.press("Enter")  # the error goes beside the figure, which stays
    error = page.locator(".bg-error").filter(visible=True).first
    expect(error).to_contain_text(_literal_start("error.no_mask", "en"), timeout=30_000)
    page.locator("#bg-language").get_by_text("한국어").click()
    expect(axis).to_have_text(text.t("fig.tasks.probability", "ko"), timeout=30_000)
    expect(error).to_contain_text(_literal_start("error.no_mask", "ko"))
    expect(page.locator(".toast-body.error")).to_have_count(0)


_MAP = """(want) => {
  const plots = [...document.querySelectorAll(".js-plotly-plot")].filter((el) => el.offsetParent !== null);
  const map = plots.find((el) => el.layout && el.layout.coloraxis);
  if (!map) return false;
  const bar = (map.layout.coloraxis.colorbar || {}).orientation || "v";
  const title = String((map.layout.title || {}).text || "");
  return bar === want.bar && title.startsWith(want.title);
}"""


def test_a_phone_turned_gets_the_map_drawn_for_its_width_in_the_language_on_screen(open_in):
    page = open_in("ko-KR", "?tab=attention&text=The+cat+sat+on+the+mat.&run=1")
    title = _literal_start("fig.attention.head_title", "ko")
    page.wait_for_function(_MAP, arg={"bar": "v", "title": title}, timeout=60_000)  # a laptop's map
    page.set_viewport_size({"width": 390, "height": 844})  # narrower than look.NARROW: drawn again for a phone
    page.wait_for_function(_MAP, arg={"bar": "h", "title": title}, timeout=30_000)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_function(_MAP, arg={"bar": "v", "title": title}, timeout=30_000)
    expect(page.locator(".toast-body.error")).to_have_count(0)
