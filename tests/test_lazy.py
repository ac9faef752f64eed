"""Tabs built on their first opening (`bg_demo.ui.lazy`): the first page holds the tab bar and the Start tab; a tab's
content reaches a browser when the tab is opened there, and a link or a lesson step opens its tab first."""

import asyncio
import re

import gradio as gr
import pytest
from playwright.sync_api import expect

from bg_demo import text
from bg_demo.ui import TABS, lazy, lesson, serving, start_tab
from bg_demo.ui.gradio_compat import block_id, listeners, new_session, render_listener


@pytest.fixture(scope="module")
def demo():
    from bg_demo.ui import build_demo

    return build_demo()


def _ids(block) -> set:
    found = {block_id(block)}
    for child in getattr(block, "children", []):
        found |= _ids(child)
    return found


def _content(demo, tab_id: str):
    return next(b for b in demo.blocks.values() if isinstance(b, gr.Column) and b.elem_id == lazy.CONTENT_ID % tab_id)


def _laid(demo) -> set:
    config = demo.get_config_file()
    serving._leave_out_unlaid(config)  # as the page a browser is sent
    return {component["id"] for component in config["components"]}


def test_the_first_page_holds_the_tab_bar_and_the_start_tab_and_no_other_tabs_content(demo):
    laid = _laid(demo)
    tabs = [b for b in demo.blocks.values() if isinstance(b, gr.Tab) and b.id in {t.TAB_ID for t in TABS}]
    assert len(tabs) == len(TABS) and all(block_id(tab) in laid for tab in tabs)  # every tab's button
    start = next(b for b in demo.blocks.values() if isinstance(b, gr.Tab) and b.id == start_tab.TAB_ID)
    assert _ids(start) <= laid  # the Start tab, whole
    for tab in TABS:
        content = _ids(_content(demo, tab.TAB_ID))
        assert len(content) > 10 and not content & laid, tab.TAB_ID
    assert len(laid) < len(demo.blocks) / 4  # ~175 of ~1,000


def test_a_tab_that_events_from_outside_write_into_comes_with_the_tab_around_it(demo):
    """The Fine-tune tab's summary is redrawn by its other tabs' results and its Load button fills the GPT-2 prompt's
    template: a value written before a tab's content reached the browser would be drawn over, so these come with their
    tab. A tab only a link fires into (the link opens it first) is built on its own opening, and so is one an event
    writes into only with what it is built with (the Next-token lab: Generate's model picker offers its "Why?"
    panel every layer again)."""
    assert {"ft_summary", "prompt_gpt"}.isdisjoint(lazy.DEFERRED)
    assert {"tune_bert", "tune_gpt", "causal", "nsp", "logit_lens", "next_token"} <= lazy.DEFERRED
    summary = next(b for b in demo.blocks.values() if isinstance(b, gr.Tab) and b.id == "ft_summary")
    assert _ids(summary) <= _ids(_content(demo, "finetune")) and len(_ids(summary)) > 5  # whole, in its tab's content


def test_an_event_marked_as_built_writes_what_its_outputs_are_built_with(demo):
    """`lazy.as_built` lets a tab an event writes into be built on opening: only true if the event writes what the
    tab's content is sent with anyway."""
    marked = [d for d in listeners(demo) if d.fn in lazy.AS_BUILT]
    assert len(marked) >= 6  # each "Why?" panel beside a model picker
    for dependency in marked:
        for block, update in zip(dependency.outputs, dependency.fn(), strict=True):
            assert [(_key(label), value) for label, value in update.choices] == \
                [(_key(label), value) for label, value in block.choices], block.label


def _key(label):
    from bg_demo.ui.strings import key_of

    return key_of(label) or label


def test_a_closed_panel_comes_on_its_first_opening_unless_an_event_from_outside_reaches_into_it(demo):
    """Gradio's client mounts every component a render sends, a closed accordion's too (its first page leaves those
    to the panel's opening): each "Why?" panel is built on its own first opening, as a tab is. A raw result (written
    by its page's run) and the Generate tab's repetition controls (read by it) come with their tab."""
    panels = lazy.panels(demo)
    assert len(panels) >= 9 and all(_key(panel.label) == "why.title" for panel in panels)
    config = demo.get_config_file()
    renders = {d["targets"][0][0]: d for d in config["dependencies"] if d.get("render_id") is not None}
    for panel in panels:
        trigger, container = panel.children  # the hidden box the panel's expand sets, and the render's place
        assert isinstance(trigger, gr.Textbox) and trigger.visible == "hidden" and container.children == []
        assert block_id(trigger) in renders
        opening = [(block_id(panel), "expand")]
        expand = [d for d in config["dependencies"] if [tuple(t) for t in d["targets"]] == opening]
        assert len(expand) == 1 and expand[0]["outputs"] == [block_id(trigger)] and expand[0]["js"]
    closed = [b for b in demo.blocks.values() if isinstance(b, gr.Accordion) and not b.open]
    kept = {_key(b.label) for b in closed if b not in panels}
    assert {"common.raw", "generate.repetition"} <= kept and "why.title" not in kept


def test_a_deferred_tabs_blocks_stay_registered_with_their_events_and_api(demo):
    """The server serves every tab as before: its API endpoint, its links and its events reach blocks it holds."""
    public = [d for d in listeners(demo) if d.api_name and d.api_visibility == "public"]
    assert {"fill_mask", "generate", "explain_fill_mask", "compare"} <= {d.api_name for d in public}
    for dependency in listeners(demo):
        for block in (*dependency.inputs, *dependency.outputs):
            assert demo.blocks.get(block_id(block)) is block, dependency.api_name


def test_a_link_and_a_lesson_step_name_the_tab_they_open_first(demo):
    links = next(d.fn.func.__self__ for d in listeners(demo) if getattr(d.fn, "__name__", "") == "on_opened")
    query = "?tab=logit_lens&text=Hello&run=1"
    assert links.opening(query) == f"generate/logit_lens|{query}"  # a sub-tab's page: its tab, then the sub-tab
    query = "?tab=generate&prompt=Hello"
    # the first sub-tab shows with its row: selected alone (":"), as a tab that an event writes into is
    assert links.opening(query) == f"generate/:generate_text|{query}"
    assert links.opening("?tab=next_token").partition("|")[0] == "generate/next_token"
    assert links.opening("?tab=nowhere") == "|?tab=nowhere"
    first = links.pages[re.search(r"tab=(\w+)", lesson.guided()[0][0])[1]]
    assert links.opening("?lesson=guided&step=1").partition("|")[0] == lazy.path(first.path)
    assert links.opening("?lesson=damaged!&step=1").partition("|")[0] == ""


def test_no_event_keeps_a_loading_status_on_a_tabs_content(demo):
    """Gradio's client pushes every event's loading status, at each later event of the page, to each component an
    event that ran named for its progress, reading back every component inside a container first. A render's
    output is its container, the whole tab: its progress goes on its trigger, a hidden box, so an opened tab is not
    read back at every event; and no server event's progress lands on a container holding more than a few
    components (the lesson bar's row)."""
    config = demo.get_config_file()
    renders = [d for d in config["dependencies"] if d.get("render_id") is not None]
    assert len(renders) == len(lazy.DEFERRED) + len(lazy.panels(demo)) > 20
    for dependency in renders:
        (box,) = [demo.blocks[i] for i in dependency["show_progress_on"]]
        assert isinstance(box, gr.Textbox) and box.visible == "hidden"
        assert [target for target, _ in dependency["targets"]] == [block_id(box)]  # the render's own trigger
    for dependency in config["dependencies"]:
        if dependency.get("backend_fn"):
            for i in dependency["show_progress_on"] or dependency["outputs"]:
                block = demo.blocks[i]
                assert len(_ids(block)) <= 8, (dependency["id"], block)  # a container and what it holds


def test_a_render_sends_the_tab_as_it_stands_in_the_session(demo):
    """A language switch before the tab is opened changes its table's column names for this session (Gradio holds
    each as an unrendered copy); the render sends the tab with them, and a new page's layout is left as it was.
    (The tab labels are the browser's: it words a rendered tab's label key in its own language.)"""
    session = new_session(demo)
    headers = next(d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "headers_in")
    asyncio.run(demo.process_api(headers, ["ko"], session))
    item = next(b for b in demo.blocks.values() if isinstance(b, gr.Tab) and b.id == "ner")
    container = next(child for child in item.children if isinstance(child, gr.Column))
    output = asyncio.run(demo.process_api(render_listener(demo, container), [], session))
    sent = {c["id"]: c for c in output["render_config"]["components"]}
    assert _ids(_content(demo, "ner")) <= set(sent)
    tables = [c["props"] for c in sent.values() if c["type"] == "dataframe"]
    assert tables and all(props["headers"] == text.t("ner.table_headers", "ko").split("|") for props in tables), tables
    assert container.children == [] and not _ids(_content(demo, "ner")) & _laid(demo)  # a new page's: as it was


# --- in a browser ---------------------------------------------------------------------------------------------------


@pytest.fixture
def phone(browser, app_url):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(app_url)
    yield page
    page.close()


def test_a_tab_opened_on_a_phone_shows_its_content_and_keeps_what_was_typed(phone):
    expect(phone.get_by_role("tab", name="Start here")).to_be_visible(timeout=30_000)
    assert phone.locator("#" + lazy.CONTENT_ID % "classify").count() == 0  # not on the page before it is opened
    phone.get_by_role("tab", name="Sentiment").click()
    box = phone.get_by_label("Text to classify")
    box.fill("What a lovely, warm film.")
    phone.get_by_role("button", name="Classify", exact=True).click()
    expect(phone.locator("#" + lazy.CONTENT_ID % "classify").get_by_text("Positive").first).to_be_visible(
        timeout=30_000)
    phone.get_by_role("tab", name="Start here").click()
    phone.get_by_role("tab", name="Sentiment").click()
    expect(box).to_have_value("What a lovely, warm film.")  # opened once: the tab stays as the student left it


def test_a_language_chosen_before_a_tab_is_opened_words_its_sub_tabs(phone):
    expect(phone.get_by_role("tab", name="Start here")).to_be_visible(timeout=30_000)
    phone.locator("#bg-language").get_by_text("한국어").click()
    phone.locator('button[role=tab][data-tab-id="generate"]').click()
    sub = phone.locator('button[role=tab][data-tab-id="next_token"]')
    expect(sub).to_be_visible(timeout=30_000)
    assert re.search(r"[\uac00-\ud7a3]", sub.inner_text()), sub.inner_text()


def test_a_why_panel_s_content_comes_when_it_is_first_opened(phone, app_url):
    phone.goto(f"{app_url}?tab=classify")
    expect(phone.get_by_role("button", name="Classify", exact=True)).to_be_visible(timeout=30_000)
    explain = phone.locator("button", has_text="Explain this prediction")
    assert explain.count() == 0  # not on the page, hidden or not, before its panel is opened
    phone.get_by_text("Why? Attention from the prediction").first.click()
    expect(explain).to_be_visible(timeout=30_000)
