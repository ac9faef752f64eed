"""Shareable links: query parameters select a page and fill its inputs, and nothing else."""

import re

import gradio as gr
import pytest
from playwright.sync_api import expect

from bg_demo.ui import gradio_compat
from bg_demo.ui.links import Links, Page, Run, convert


@pytest.fixture
def links():
    with gr.Blocks():
        with gr.Tabs() as outer:
            with gr.Tab("A", id="a"):
                text = gr.Textbox(max_length=10)
                top_k = gr.Slider(1, 20, step=1)
            with gr.Tab("B", id="b"):
                with gr.Tabs() as inner:
                    with gr.Tab("B1", id="b1"):
                        choice = gr.Radio(["none", "simple"])
                        seed = gr.Number(precision=0)
    pages = [
        Page("a", {"text": text, "top_k": top_k}).under(outer, "a"),
        Page("b1", {"choice": choice, "seed": seed}, ((inner, "b1"),)).under(outer, "b"),
    ]
    return Links(pages), (outer, inner, text, top_k, choice, seed)


def _reader():
    """The reader's look, as the app builds it (inside a gr.Blocks): what every tab's pages read."""
    from bg_demo.ui import language, page, screen

    return page.Reader(language.switch(), screen.box())


def _value(update):
    return update.get("value") if isinstance(update, dict) else getattr(update, "value", update)


def test_outputs_are_every_field_and_no_tabs(links):
    """The browser selects a link's tabs (`OPEN_JS`): an event that wrote a gr.Tabs would have Gradio's client read
    back every tab under it at each later event."""
    links, components = links
    assert links.outputs() == list(components[2:])
    assert links.outputs_of("a") == list(components[2:4]) and links.outputs_of("b1") == list(components[4:])
    assert links.outputs_of("") == [] and links.outputs_of("nowhere") == []


def test_a_link_selects_nested_tabs_and_fills_only_its_page(links):
    links, _ = links
    # the page's tabs: selected in the browser, outermost first
    assert links.opening("?tab=b1&seed=4") == "b/b1|?tab=b1&seed=4"
    text, top_k, choice, seed = links.open("b1", {"choice": "simple", "seed": "42", "text": "ignored"})
    assert _value(choice) == "simple" and _value(seed) == 42
    assert text is gr.skip() or _value(text) is None  # another page's field is left alone
    assert top_k is gr.skip() or _value(top_k) is None


def test_values_are_checked_against_each_input(links):
    links, (outer, inner, text, top_k, choice, seed) = links
    assert convert(top_k, "7") == 7 and convert(top_k, "70") is None and convert(top_k, "seven") is None
    assert convert(choice, "simple") == "simple" and convert(choice, "evil") is None
    assert convert(text, "x" * 50) == "x" * 50  # never cut in the browser: the server says what is too long
    updates = links.open("a", {"top_k": "999", "text": "hello"})
    assert _value(updates[0]) == "hello" and _value(updates[1]) is None


def test_unknown_page_changes_nothing(links):
    links, components = links
    assert all(_value(update) is None for update in links.open("nowhere", {"text": "x"}))


def test_run_starts_only_the_runs_whose_fields_the_link_gives():
    with gr.Blocks():
        text, first, second = gr.Textbox("a default"), gr.Textbox(), gr.Textbox()
    whole = Run(print, [text], [])  # needs nothing: its one box has a default
    pair = Run(print, [first, second], [], needs=("first", "second"))
    links = Links([Page("p", {"text": text, "first": first, "second": second}, runs=(whole, pair))])
    *_, whole_trigger, pair_trigger = links.open("p", {"text": "hi"}, run=True)
    assert isinstance(whole_trigger, int) and _value(pair_trigger) is None
    *_, whole_trigger, pair_trigger = links.open("p", {"first": "a", "second": "b"}, run=True)
    assert isinstance(whole_trigger, int) and isinstance(pair_trigger, int)
    assert all(_value(update) is None for update in links.open("p", {"text": "hi"})[-2:])  # no run=1: nothing runs


def _by_component(links, updates) -> dict:
    return dict(zip(links.outputs(), updates))


def test_a_link_runs_only_once_every_box_the_page_starts_empty_is_filled():
    """A run reads its text boxes as the link leaves them: one the page starts empty must be given (an empty one
    too is not), or the page opens without running; a box with a default, or a seed box (""), may be left out."""
    with gr.Blocks():
        text, seed, first = gr.Textbox(), gr.Textbox(""), gr.Textbox("The man went to the store.")
        number = gr.Number(0, precision=0)
    run = Run(print, [text, seed, first, number], [])
    links = Links([Page("p", {"text": text, "seed": seed, "first": first, "number": number}, runs=(run,))])
    assert _value(links.open("p", {"number": "1"}, run=True)[-1]) is None  # no text: "The text must be text."
    assert _value(links.open("p", {"text": "", "seed": "", "number": "1"}, run=True)[-1]) is None
    assert isinstance(links.open("p", {"text": "hi", "seed": "", "first": ""}, run=True)[-1], int)
    updates = _by_component(links, links.open("p", {"text": "", "seed": "", "number": "1"}))
    assert _value(updates[text]) == "" and _value(updates[number]) == 1  # empty boxes are set as empty


def test_a_masked_lm_link_without_a_text_opens_the_page_without_running_it():
    """What "Another seed" and "Link to this" make on an untouched page: it used to run, and say
    "The text must be text."."""
    from bg_demo.ui import pretraining_tab

    with gr.Blocks():
        pages = {page.id: page for page in pretraining_tab.build(_reader())}
    links = Links(list(pages.values()))
    mlm = list(links.triggers).index(pages["mlm"].runs[0]) - len(links.triggers)
    for values in ({"text": "", "seed": "1", "model": ""}, {"seed": "1"}):
        updates = links.open("mlm", values, run=True)
        assert _value(updates[mlm]) is None
        assert _value(_by_component(links, updates)[pages["mlm"].fields["seed"]]) == 1
    assert isinstance(links.open("mlm", {"text": "The cat sat.", "seed": "1"}, run=True)[mlm], int)


@pytest.fixture
def attention_page():
    from bg_demo.ui import attention_tab

    with gr.Blocks():
        pages = attention_tab.build(_reader())
    links = Links(pages)
    return links, pages[0].fields


def test_the_attention_picker_lists_the_models_of_the_role_chosen(attention_page):
    from bg_demo.ui import attention_tab, common

    _, fields = attention_page
    assert fields["model"].choices == common.model_choices("encoder")  # not GPT-2's beside BERT's
    switched = attention_tab.models_of("decoder", "google-bert/bert-large-uncased")  # a click on the decoder
    assert switched.choices == common.model_choices("decoder") and switched.value == ""
    kept = attention_tab.models_of("decoder", "distilbert/distilgpt2")  # an example picking the role and a model
    assert kept.value == "distilbert/distilgpt2"


@pytest.mark.parametrize(
    ("given", "role", "model"),
    [
        ({"role": "decoder"}, "decoder", ""),  # the decoder's own default, listed with the decoder's models
        ({"model": "distilbert/distilgpt2"}, "decoder", "distilbert/distilgpt2"),  # the model says the role
        ({"role": "encoder", "model": "distilbert/distilgpt2"}, "encoder", ""),  # they disagree: the role wins
        ({"role": "decoder", "model": "distilbert/distilgpt2"}, "decoder", "distilbert/distilgpt2"),
    ],
)
def test_a_links_role_and_model_agree(attention_page, given, role, model):
    from bg_demo.ui import common

    links, fields = attention_page
    updates = _by_component(links, links.open("attention", {"text": "The cat sat.", **given}, run=True))
    assert _value(updates[fields["role"]]) == role
    assert updates[fields["model"]]["choices"] == common.model_choices(role)
    assert _value(updates[fields["model"]]) == model
    assert isinstance(updates[links.outputs()[-1]], int)  # and it runs


def test_a_result_names_the_role_and_model_that_made_it_in_the_picker():
    """An example may switch the role an instant before the picker follows: the run then takes the role's
    default, and the picker says so."""
    from types import SimpleNamespace

    from bg_demo.ui import attention_tab, common
    from bg_demo.ui.page import Shown

    result = attention_tab.show("The cat sat.", "encoder", "distilbert/distilgpt2")
    role, picker = attention_tab.ran(Shown(result))
    assert role == "encoder" and picker.value == "" and picker.choices == common.model_choices("encoder")
    role, picker = attention_tab.ran(Shown(SimpleNamespace(role="decoder", model_id="distilbert/distilgpt2")))
    assert role == "decoder" and picker.value == "distilbert/distilgpt2"


def test_a_compare_link_keeps_every_section_on_screen():
    from bg_demo.ui import compare_tab

    with gr.Blocks():
        (page,) = compare_tab.build(_reader())
    assert {"text", "first", "second", "word", "masked", "facts"} <= set(page.fields)
    links = Links([page])
    values = {"text": "a b", "first": "a b", "second": "c b", "word": "b", "masked": "a [MASK].", "facts": "true"}
    triggers = links.open("compare", values, run=True)[-len(page.runs):]
    assert len(triggers) == 4 and all(isinstance(trigger, int) for trigger in triggers)
    assert _value(links.open("compare", {**values, "facts": "false"}, run=True)[-1]) is None  # not measured


# --- the next-token lab: its steps ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab():
    from bg_demo.ui import common, next_token_tab

    with gr.Blocks():
        reader = _reader()
        model = common.model_picker("decoder")
        with gr.Tabs():
            page = next_token_tab.build_lab(reader, model)
    return next_token_tab, page


def test_a_next_token_link_takes_the_steps_again(lab):
    from bg_demo.look import Look
    from bg_demo.ui.page import Shown

    next_token_tab, page = lab
    settings = ("The cat sat on", 1.0, 0, 1.0)
    lab = next_token_tab.show(*settings, "")
    lab = next_token_tab.step(lab, "greedy", None, *settings[1:], "", None)
    third = lab["result"]["candidates"][2]["token_id"]
    lab = next_token_tab.step(lab, "picked", third, *settings[1:], "", None)
    lab = next_token_tab.step(lab, "sample", None, *settings[1:], "", None)  # no seed: a fresh one, kept
    written = next_token_tab.written_steps(Shown(lab))
    assert "steps" in page.fields and len(written.split(",")) == 3
    again = next_token_tab.restore(*settings, "", None, written)
    assert again["ids"] == lab["ids"]
    # the history: tokens, ranks, probabilities, how, the seed drawn
    history = [next_token_tab.render(found, Look())[2]["data"] for found in (again, lab)]
    assert history[0] == history[1] and len(history[0]) == 3
    assert next_token_tab.written_steps(Shown(again)) == written


def test_a_link_to_the_lab_runs_the_restoring_with_its_steps(lab):
    next_token_tab, page = lab
    links = Links([page])
    (run,) = page.runs
    assert page.fields["steps"] in run.inputs
    assert isinstance(links.open("next_token", {"text": "The cat", "steps": "g262"}, run=True)[-1], int)


def test_steps_a_link_cannot_read_end_the_restoring():
    from bg_demo.ui.next_token_tab import MAX_LINK_STEPS, read_steps

    assert read_steps("g1,p22,s333@4") == [("greedy", 1, None), ("picked", 22, None), ("sample", 333, 4)]
    assert read_steps("g1,x2,g3") == [("greedy", 1, None)] and read_steps("") == read_steps(None) == []
    assert len(read_steps(",".join(["g1"] * 500))) == MAX_LINK_STEPS


# --- no server path on the page ---------------------------------------------------------------------------------


def test_a_local_folder_is_named_never_its_path(monkeypatch):
    from dataclasses import replace

    from bg_demo import backend
    from bg_demo.look import Look
    from bg_demo.ui import attention_tab, compare_tab

    path = "/srv/classroom/models/encoder"
    result = replace(backend.attention("The cat sat.", "encoder"), model_id=path)
    notice = attention_tab.notice(result, Look())
    assert "/srv" not in notice and "encoder" in notice
    assert "/srv" not in str(attention_tab.named({"encoder": result.summary(), "decoder_id": path}))
    facts = backend.model_facts("encoder")
    monkeypatch.setattr(backend, "model_facts", lambda role, model_id=None: replace(facts, model_id=path))
    held = backend.model_memory()
    models = tuple(replace(info, model_id=path) for info in held.models) or ()
    monkeypatch.setattr(backend, "model_memory", lambda: replace(held, models=models))
    table, memory, raw = compare_tab.measured(compare_tab.measure(), Look())
    assert models and "/srv" not in str(table) + memory + str(raw)
    assert table["data"][0][1:] == ["encoder", "encoder"]


# --- in a real browser ------------------------------------------------------------------------------------------


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    yield context
    context.close()


def _visible(page, selector: str):
    return page.locator(f"{selector} >> visible=true")


def _link(page) -> str:
    """Press the page's "Link to this" and read the link it made."""
    _visible(page, "role=button[name='Link to this']").first.click()
    box = _visible(page, "role=textbox[name='Link to share']").first
    expect(box).to_have_value(re.compile(r"run=1"), timeout=30_000)
    return box.input_value()


def test_a_link_from_an_untouched_page_carries_its_empty_text(context, app_url):
    page = context.new_page()
    page.goto(app_url + "pretraining")
    _visible(page, "role=button[name='Another seed']").first.click()
    expect(_visible(page, "role=spinbutton[name='Seed (which tokens get picked)']")).to_have_value("1", timeout=30_000)
    link = _link(page)
    assert re.search(r"[?&]text=(&|$)", link) and "seed=1" in link  # every field as it is on screen
    other = context.new_page()
    other.goto(link)
    selected = other.get_by_role("tab", name="Masked LM (BERT)", exact=True)
    expect(selected).to_have_attribute("aria-selected", "true", timeout=30_000)
    expect(_visible(other, "role=spinbutton[name='Seed (which tokens get picked)']")).to_have_value("1")


@pytest.mark.parametrize(("lang", "button", "name", "said"), [
    ("en", "Link to this", "Link to share", "Link copied"),
    ("ko", "링크 만들기", "공유할 링크", "링크를 복사했어요"),
])
def test_the_link_box_has_a_name_and_says_the_link_is_copied_in_the_pages_language(context, app_url, lang, button,
                                                                                 name, said):
    page = context.new_page()
    page.goto(f"{app_url}?lang={lang}&tab=classify")
    _visible(page, f"role=button[name='{button}']").first.click()
    expect(_visible(page, f"role=textbox[name='{name}']").first).to_have_value(re.compile(r"tab=classify"),
                                                                             timeout=30_000)
    row = _visible(page, "div.row").filter(has=_visible(page, ".bg-share-url")).last  # beside the box
    expect(row.locator(".block.bg-share-status")).to_contain_text(said)


def test_a_link_to_the_decoder_shows_the_decoders_checkpoint_in_the_picker(context, app_url):
    page = context.new_page()
    page.goto(f"{app_url}?tab=attention&text=The+cat+sat.&role=decoder&run=1")
    expect(_visible(page, "text=read 4 tokens")).to_have_count(1, timeout=30_000)  # GPT-2 ran: no [CLS], [SEP]
    picker = _visible(page, "role=combobox[name='Checkpoint (which weights)']").first
    expect(picker).to_have_value("📁 tiny-random/gpt2")  # the role's model, by the name its folder gives
    picker.click()
    expect(_visible(page, "role=option").filter(has_text="distilgpt2")).to_have_count(1)
    expect(_visible(page, "role=option").filter(has_text="bert-large")).to_have_count(0)
    page.keyboard.press("Escape")
    page.get_by_role("radio", name="BERT (encoder: reads both ways)").check()  # the role switched: its default
    expect(picker).to_have_value("📁 tiny-random/bert-base-uncased")


def test_a_next_token_link_restores_the_steps_taken(context, app_url):
    page = context.new_page()
    page.goto(app_url + "next-token")
    _visible(page, "role=tab[name='Next-token lab']").first.click()
    _visible(page, "role=textbox[name='Text so far']").first.fill("The cat sat on")
    _visible(page, "role=button[name='Show the next-token distribution']").first.click()
    expect(_visible(page, "role=textbox[name='The text now']")).to_have_value("The cat sat on",
                                                                                               timeout=30_000)
    steps = _visible(page, "role=row").filter(has_text="greedy")  # the "Steps taken" table's rows
    for n in (1, 2):
        _visible(page, "role=button[name='Take the greedy token']").first.click()
        expect(steps).to_have_count(n, timeout=30_000)
    rows = steps.all_inner_texts()
    link = _link(page)
    assert "steps=" in link
    other = context.new_page()
    other.goto(link)
    restored = _visible(other, "role=row").filter(has_text="greedy")
    expect(restored).to_have_count(2, timeout=30_000)
    assert restored.all_inner_texts() == rows


def test_the_model_facts_are_worded_in_the_pages_language_before_measuring(context, app_url):
    page = context.new_page()
    page.goto(f"{app_url}?lang=ko&tab=compare")
    facts = _visible(page, "table").filter(has_text="GPT-2 (디코더)")  # the table's headers, before any row
    expect(facts).to_have_count(1, timeout=30_000)
    expect(facts).to_contain_text("항목")
    expect(_visible(page, "table").filter(has_text="GPT-2 (decoder)")).to_have_count(0)


def test_a_link_runs_a_page_through_the_event_its_button_and_enter_run():
    """A page's run button, its text box's Enter and a link's run (a change of the page's trigger) are one event,
    not one each: a phone's first visit wires every event of the app (bench/page_weight.py). A run whose page gives
    its own (the lab restoring its steps) gets an event of its own."""
    from bg_demo.ui import build_demo
    from bg_demo.ui.gradio_compat import block_id, listeners

    demo = build_demo()
    events = listeners(demo)
    changed = {target: d for d in events for target, name in d.targets if name == "change"}
    pages = {target: d for d in events for target, name in d.targets if name in ("click", "submit")}
    triggers = [block for block in gradio_compat.components(demo).values() if isinstance(block, gr.State) and block_id(block) in changed]
    shared = [changed[block_id(trigger)] for trigger in triggers
              if any(changed[block_id(trigger)] is d for d in pages.values())]
    assert len(shared) >= 18  # every tab's pages and sections that a link can run
    for dependency in shared:
        names = sorted({name for _, name in dependency.targets})
        assert names in (["change", "click"], ["change", "click", "submit"]), names
        assert dependency.fn.__name__.endswith("_in_page")
    restoring = [d for d in events if getattr(d.fn, "__name__", "") == "restore_in_page"]
    assert len(restoring) == 1 and [name for _, name in restoring[0].targets] == ["change"]


def test_each_pages_link_is_its_own_event_and_writes_that_page_alone():
    """On each page of the app, a link's query goes to the hidden box of the page it opens there, whose event writes
    that page's fields and runs and the lesson's bar, and no tab: every update the app's links make for a page lies
    among those outputs. A query for a page elsewhere in the app goes to that page's address, and opens nothing
    here."""
    from bg_demo.ui import build_demo, site
    from bg_demo.ui.gradio_compat import block_id, listeners
    from bg_demo.ui.links import href

    demo = build_demo()
    events = [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "on_opened"]
    every = {}  # each page of the app's Links -> its on_opened events by page id
    for event in events:
        every.setdefault(event.fn.func.__self__, {})[event.fn.args[0]] = event
    assert len(every) == len(site.PAGES)
    assert sorted(p for links in every for p in links.pages) == sorted(site.paths())
    routes = {d.fn.__self__: d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "route"}
    for links, by_page in every.items():
        assert sorted(by_page) == sorted(["", *links.pages])
        routed = routes[links]
        boxes = {page_id: block_id(by_page[page_id].inputs[0]) for page_id in by_page}
        *opening_boxes, away = [block_id(block) for block in routed.outputs]
        assert opening_boxes == [boxes[page_id] for page_id in ("", *links.pages)]
        bar = links.bar.outputs()
        for page_id, page in links.pages.items():
            event = by_page[page_id]
            assert not any(isinstance(block, gr.Tabs) for block in event.outputs)
            assert len(event.outputs) == len(set(page.fields.values())) + len(page.runs) + len(bar) < 40, page_id
            query = f"?tab={page_id}&run=1&" + "&".join(f"{name}=1" for name in page.fields)
            sent = dict(zip([*boxes.values(), away], links.route(query)))
            assert [box for box, value in sent.items() if value != gr.skip()] == [boxes[page_id]]
            wrote = {block_id(c) for c, update in zip(links.outputs(), links.on_opened(sent[boxes[page_id]]))
                     if update != gr.skip()}
            assert wrote and wrote <= {block_id(block) for block in event.outputs}, page_id
            assert links.on_opened_in(page_id, sent[boxes[page_id]])[-len(bar):] == [gr.skip()] * len(bar)
        # another page's link: its address, and nothing opened here
        other = next(page_id for page_id, path in site.paths().items() if path != links.here)
        *opened, gone = links.route(f"?tab={other}&text=hi&run=1")
        assert all(value == gr.skip() for value in opened)
        assert gone == f"{href(site.paths()[other])}?tab={other}&text=hi&run=1"
        # a lesson's step: its page's box here, else its page's address (a turn of the bar: a new history entry)
        second = links.page_of("?lesson=guided&step=2")
        *opened, gone = links.route("?lesson=guided&step=2&_=1")
        if second in links.pages:
            assert [box for box, value in zip(boxes.values(), opened) if value != gr.skip()] == [boxes[second]]
        else:
            assert gone == f"+{href(site.paths()[second])}?lesson=guided&step=2"
        nowhere = dict(zip(boxes.values(), links.route("?tab=nowhere")))
        assert [box for box, value in nowhere.items() if value != gr.skip()] == [boxes[""]]
        assert by_page[""].outputs == bar


@pytest.mark.parametrize("query", ["?tab=generate", "?tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1"])
def test_a_link_starts_only_what_it_asks_for(context, app_url, query):
    """A link sends the server its query and, with run=1, its page's run: nothing else. A page's own trigger of its
    run sits outside the tabs (`page.Task.run`); in a tab not yet shown, every link's update of it, even one that
    skips it, fired its change and ran every page of the app at once."""
    import json

    import httpx

    page = context.new_page()
    joined = []
    page.on("request", lambda r: joined.append(json.loads(r.post_data or "{}").get("fn_index"))
            if "queue/join" in r.url else None)
    page.goto(app_url + query)
    # the page that holds the link's tab (the browser goes there before the Start page loads)
    expect(page.locator("#bg-page-" + ("generate" if "generate" in query else "fill_mask"))).to_be_visible(
        timeout=30_000)
    if "run=1" in query:
        expect(_visible(page, "role=textbox[name='Sentence with the best guess for each mask']")).not_to_have_value(
            "", timeout=60_000)
    # the link's own event is joined once the tabs it opens are shown (`OPEN_JS`): on a busy machine, after the tab
    # is selected; a stray change would start by 1.5 s after it
    for _ in range(300):
        if joined:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(1500)
    names = {d["id"]: d["api_name"] for d in httpx.get(f"{app_url}config").json()["dependencies"]}
    ran = [names[n] for n in joined]
    assert ran[0].startswith("on_opened") and len(ran) == (2 if "run=1" in query else 1), ran
    assert all(name.startswith("compute_in_page") for name in ran[1:]), ran  # the fill-mask page's run
