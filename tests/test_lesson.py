"""Lessons: the guided path and a teacher's own lesson, carried whole by one link (`bg_demo.ui.lesson`), opened step
by step by the app's own link handlers (`links.Links`, one per page of the app: a step on another page is gone to,
`Links.route`) and its bar's Previous and Next."""

import hashlib
import json
import zlib
from base64 import urlsafe_b64encode
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import gradio as gr
import pytest

from bg_demo import text
from bg_demo.errors import InputError
from bg_demo.look import Look
from bg_demo.ui import common, finetune_tab, lesson, site
from bg_demo.ui.gradio_compat import listeners
from bg_demo.ui.links import LANG_ASKED, convert, href
from bg_demo.ui.page import Shown


class App:
    """The built app as a browser meets it: one link handler (`links.Links`, with its lesson bar) per page of the app,
    by its address, and the lesson maker's handler (on Start)."""

    def __init__(self, demo):
        found = [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "on_opened"]
        self.at = {}  # a page's address -> its Links
        for event in found:
            links = event.fn.func.__self__
            self.at[links.here] = links
        assert sorted(self.at) == sorted(module.PATH for module in site.PAGES)
        self.made = next(d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "made").fn

    def holding(self, page_id: str):
        """The Links of the page of the app that holds `page_id`."""
        return next(links for links in self.at.values() if page_id in links.pages)

    def visit(self, query: str, here: str = "", lang: str | None = None) -> tuple:
        """`query` handed over at the page at `here` as the browser hands it (`Links.route`), and at the page it
        sends the browser to, if another (the browser goes there and hands the query over again, with the page's
        language): (the Links of the page it ends on, the opening its event follows, the updates of that Links'
        `outputs()`, the addresses gone to, each with its "+" when it adds to the history)."""
        gone = []
        for _ in range(3):
            links = self.at[here]
            *openings, away = links.route(query)
            if away is gr.skip() or away == gr.skip():
                break
            gone.append(away)
            target = urlsplit(away.lstrip("+"))
            here = "" if target.path in ("./", "") else target.path
            query = "?" + target.query + (f"&{LANG_ASKED}={lang}" if lang else "")
        else:
            raise AssertionError(f"sent on and on: {gone}")
        chosen = [opening for opening in openings if opening != gr.skip()]
        assert len(chosen) == 1, (here, query, openings)
        return links, chosen[0], links.on_opened(chosen[0]), gone


@pytest.fixture(scope="module")
def app():
    """The app's link handlers, one per page, and the maker's handler, from the built app."""
    from bg_demo.ui import build_demo

    return App(build_demo())


def _bar(links, updates) -> list:
    """The bar's updates, from `links.outputs()` updates."""
    return updates[-len(links.bar.outputs()):]


def _turn(app, links, by: int, shown, lang: str) -> tuple:
    """Previous (-1) or Next (+1) as the page takes it (`Links.turned`): the step's page, when it is another, gone
    to straight away (as a new entry of the browser's history, which hands its query over with the page's
    language); else the step's query, handed over at the page on screen."""
    query, away = links.turned(by, shown, lang)
    if away == gr.skip():
        assert not links.elsewhere(query)  # a step on another page is gone to at once: no second round trip
        return app.visit(query, links.here, lang)
    assert query == gr.skip()
    target = urlsplit(away.lstrip("+"))
    here = "" if target.path in ("./", "") else target.path
    found, opening, updates, gone = app.visit(f"?{target.query}&{LANG_ASKED}={lang}", here, lang)
    assert gone == []  # no detour once there
    return found, opening, updates, [away]


def _value(update):
    return update.get("value") if isinstance(update, dict) else getattr(update, "value", update)


def _opened(links, updates) -> tuple:
    """{component: update} and the runs started, from `Links.outputs()` updates."""
    by = dict(zip(links.outputs(), updates))
    runs = [r for r, trigger in links.triggers.items() if isinstance(by[trigger], int)]
    return by, runs


# Eight steps a teacher might make: pages of every kind, their inputs and their view controls, a note on most
# (markup in one, shown as text; the teacher's language in two), none on one.
EIGHT = [
    ("fill_mask", {"text": "Paris is the [MASK] of France.", "top_k": "3"}, "Which guess comes first?"),
    ("classify", {"text": "Not bad at all."}, "A negation: is it <b>positive</b> *or* not?"),
    ("ner", {"text": "Ada Lovelace met Charles Babbage in London.", "aggregation": "first"}, ""),
    ("qa", {"question": "Who met Babbage?", "context": "Ada Lovelace met Charles Babbage in London."},
     "답은 어디에 있을까요?"),
    ("generate", {"prompt": "Once upon a time", "strategy": "top_k", "max_new_tokens": "12", "seed": "7"},
     "同じシードなら同じ文"),
    ("attention", {"text": "The animal was tired.", "role": "decoder", "layer": "2", "head": "1"}, "Layer 2, head 1"),
    ("compare", {"text": "I went to the bank.", "layer": "1"}, "Both models, one sentence"),
    ("mlm", {"text": "The quick brown fox jumps over the lazy dog.", "seed": "3"}, "15% of the words"),
]


def _share_link(page: str, values: dict, lang: str) -> str:
    """A link as a page's "Link to this" makes it: every field, run=1, the page's language."""
    params = {"tab": page, **values, "run": "1"}
    if lang != "en":
        params["lang"] = lang
    return "http://127.0.0.1:7860/?" + urlencode(params)


@pytest.mark.parametrize("lang", text.LANGS)
def test_a_teachers_eight_step_lesson_round_trips_pages_inputs_views_and_notes(app, lang):
    lines = "\n".join(f"{_share_link(page, values, lang)} {note}".rstrip() for page, values, note in EIGHT)
    state, link, error = app.made(lines, "http://school.example/demo/", lang, 1280)
    # the link starts at the first step's own page, under the app's root
    assert _value(error) in ("", None) and link.startswith("http://school.example/demo/fill-mask?lesson=")
    query = urlsplit(link).query
    assert dict(parse_qsl(query)).get("lang") == (None if lang == "en" else lang)  # opens in the teacher's language
    code = dict(parse_qsl(query))["lesson"]

    shown = links = None
    for k, (page_id, values, note) in enumerate(EIGHT, start=1):
        if k == 1:  # the link as the browser hands it over on load, with the language it reads from the link
            links, opening, updates, gone = app.visit(f"?{query}&{LANG_ASKED}={lang}", "fill-mask", lang)
            assert gone == []  # already on its page: no detour
        else:  # then Next, from the step the bar keeps, on the page on screen
            before = links.here
            links, opening, updates, gone = _turn(app, links, 1, shown, lang)
            # another page: gone to as a new entry of the browser's history (Back: the step before)
            assert gone == ([] if links.here == before else [f"+{href(links.here)}?lesson={code}&step={k}"]), k
        assert links.here == site.paths()[page_id]  # the step opens on its own page of the app
        by, runs = _opened(links, updates[: -len(links.bar.outputs())])
        page = links.pages[page_id]
        # the browser opens the page's tabs inside it, if any (`links.OPEN_JS`)
        assert [tab for tab in opening.partition("|")[0].split("/") if tab] == [t for _, t in page.path]
        assert links.page_of(opening.partition("|")[2]) == page_id  # whose own event follows the step
        for name, raw in values.items():
            wanted = convert(page.fields[name], raw)
            assert wanted is not None and _value(by[page.fields[name]]) == wanted, (page_id, name)
        assert runs and set(runs) <= set(page.runs)  # it runs, as the guided path does; no other page does
        row, where, previous, nxt, shown, address, _ = _bar(links, updates)
        counter = Look(lang).words(text.Text("lesson.step", k=k, n=len(EIGHT)))
        assert where == (f"**{counter}** · {common.plain(note)}" if note else f"**{counter}**")
        assert row.visible and previous.interactive == (k > 1) and nxt.interactive == (k < len(EIGHT))
        assert dict(parse_qsl(address.lstrip("?"))) == {"lesson": code, "step": str(k)}
    assert "&lt;b&gt;" in lesson.note_words(EIGHT[1][2], lang)  # the teacher's markup is shown as text
    # Next on the last step stays there; Previous goes back, to the same page and values
    last, _, updates, gone = _turn(app, links, 1, shown, lang)
    assert last is links and gone == [] and _bar(last, updates)[4].result["k"] == len(EIGHT)
    back, _, updates, gone = _turn(app, links, -1, shown, lang)
    assert back.here == "compare" and gone == [f"+compare?lesson={code}&step={len(EIGHT) - 1}"]
    by, _ = _opened(back, updates[: -len(back.bar.outputs())])
    assert _value(by[back.pages["compare"].fields["text"]]) == "I went to the bank."


def test_a_teachers_lesson_link_starts_at_its_first_steps_page_even_inside_one(app):
    """A lesson whose first step is a tab inside a page (Pre-training's masked words) opens at that page's address,
    which opens the tab; a link made on an app behind a proxy's prefix keeps the prefix."""
    lines = "?tab=mlm&text=The+cat+sat.\n?tab=classify&text=Fine."
    _, link, error = app.made(lines, "https://proxy.example/some/prefix/", "en", 1280)
    assert _value(error) in ("", None) and link.startswith("https://proxy.example/some/prefix/pretraining?lesson=")
    links, opening, updates, gone = app.visit("?" + urlsplit(link).query, "pretraining", "en")
    assert gone == [] and links.here == "pretraining" and opening.partition("|")[0].split("/")[-1] == "mlm"
    by, runs = _opened(links, updates[: -len(links.bar.outputs())])
    assert _value(by[links.pages["mlm"].fields["text"]]) == "The cat sat." and runs
    # handed over at Start (an older link, or one pasted there), the server sends the browser on, in its place
    _, _, _, gone = app.visit("?" + urlsplit(link).query, "", "en")
    assert [away.partition("?")[0] for away in gone] == ["pretraining"]
    _, link, _ = app.made(lines, "not a url", "en", 1280)  # no address the browser could give: relative
    assert link.startswith("pretraining?lesson=")


def test_the_bar_is_reworded_by_the_language_switch(app):
    links, _, updates, gone = app.visit("?lesson=guided&step=3&_lang=en")
    assert links.here == "entities" and gone == ["entities?lesson=guided&step=3"]  # from Start, to the step's page
    shown = _bar(links, updates)[4]
    view = next(v for v in links.bar.reader.views if v.state is links.bar.state)
    for lang, counter in (("ko", "12단계 중 3단계"), ("ja", "ステップ 3 / 12"), ("en", "Step 3 of 12")):
        words = view.render(shown.result, Look(lang))
        assert words.startswith(f"**{counter}** · ") and text.t("start.step.3", lang).split(" · ", 1)[1] in words


def test_the_guided_path_visits_the_fine_tuned_tasks_and_ends_on_fine_tune_or_prompt(app):
    steps = lesson.guided()
    pages = [dict(parse_qsl(query))["tab"] for query, _ in steps]
    assert {"classify", "ner", "qa"} <= set(pages) and len(set(pages)) == len(pages) <= lesson.MOST_STEPS
    assert site.paths()[pages[-1]] == "finetune"
    assert pages.index("attention") < pages.index("mlm")  # what the models do, then how they were trained
    for k, (query, note) in enumerate(steps, start=1):
        assert text.t(note["key"]).startswith(f"{k} · ")
        # the Start page's step button: a link straight to the step's page, which opens it with no detour
        address, _, asked = lesson.step_link(k, site.paths()).partition("?")
        assert address == site.paths()[pages[k - 1]]
        links, _, updates, gone = app.visit("?" + asked, address)
        assert gone == [] and links.here == address and _bar(links, updates)[4].result["k"] == k
        by, runs = _opened(links, updates[: -len(links.bar.outputs())])
        page = links.pages[pages[k - 1]]
        assert page.runs[0] in runs and set(runs) <= set(page.runs), pages[k - 1]  # every step runs its page
        for name, raw in dict(parse_qsl(query)).items():
            if name != "tab":
                assert _value(by[page.fields[name]]) == convert(page.fields[name], raw)


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_guided_path_in_korean_and_japanese_reads_that_language_on_its_models_and_says_so(app, lang):
    """Each step of a Korean or Japanese path gives its own language's sentence and model (multilingual BERT, KoGPT2
    or rinna's GPT-2), which its note names; a step whose only model reads English keeps its English sentence and
    its note says why; the last step fills the built-in task in the page's language."""
    gpt = {"ko": "skt/kogpt2-base-v2", "ja": "rinna/japanese-gpt2-small"}[lang]
    steps, english = lesson.guided(lang), lesson.guided()
    assert [dict(parse_qsl(q))["tab"] for q, _ in steps] == [dict(parse_qsl(q))["tab"] for q, _ in english]
    script = {"ko": "\uac00", "ja": "\u3041"}[lang]  # the first syllable / kana: a sentence in the language
    for k, ((query, note), (english_query, _)) in enumerate(zip(steps, english), start=1):
        params = dict(parse_qsl(query))
        words = lesson.note_words(note, lang)
        if note["english_only"]:  # sentiment, entities, answers: English-only models, so English sentences
            assert query == english_query and text.t("lesson.english_only", lang) in words
            continue
        models = [params[name] for name in lesson.MODEL_FIELDS if name in params] or note["models"]
        assert models and set(models) <= {"google-bert/bert-base-multilingual-cased", gpt}, (k, models)
        assert all(model.rpartition("/")[2] in words for model in models), words
        typed = [value for name, value in params.items() if name in ("text", "first", "prompt")]
        assert all(any(script <= ch for ch in value) for value in typed) and (typed or k == len(steps)), params
        links, _, updates, _ = app.visit(f"?lesson=guided&step={k}&{LANG_ASKED}={lang}", lang=lang)
        assert links.here == site.paths()[params["tab"]]
        by, runs = _opened(links, updates[: -len(links.bar.outputs())])
        page = links.pages[params["tab"]]
        assert page.runs[0] in runs, params["tab"]
        for name in params.keys() - {"tab"}:
            assert _value(by[page.fields[name]]) == convert(page.fields[name], params[name])
    # the last step: GPT-2 prompted on the built-in task in the page's language (its tables, template and model)
    links, _, updates, _ = app.visit(f"?lesson=guided&step={len(steps)}&{LANG_ASKED}={lang}", lang=lang)
    page = links.pages["prompt_gpt"]
    by, _ = _opened(links, updates[: -len(links.bar.outputs())])
    task = finetune_tab.built_in("sentiment", lang)
    assert by[page.fields["train"]] == {"headers": text.t("ft.data_headers", lang).split("|"), "data": task["train"]}
    assert by[page.fields["test"]]["data"] == task["test"]
    assert _value(by[page.fields["template"]]) == task["decoder"]["template"]
    assert _value(by[page.fields["model"]]) == gpt
    assert lesson.note_words(english[0][1], "en") == text.t("start.step.1").split(" · ", 1)[1]  # English: as it was


def test_a_link_to_a_fine_tune_page_fills_the_task_in_its_language_where_it_gives_none(app):
    links = app.holding("prompt_bert")
    page = links.pages["prompt_bert"]
    for lang in text.LANGS:
        by, _ = _opened(links, links.on_query(f"?tab=prompt_bert&run=1&{LANG_ASKED}={lang}")[
            : -len(links.bar.outputs())])
        task, models = finetune_tab.built_in("sentiment", lang), finetune_tab.built_in_models(lang)
        assert by[page.fields["train"]]["data"] == task["train"], lang
        assert _value(by[page.fields["template"]]) == task["encoder"]["template"]
        assert _value(by[page.fields["model"]]) == models["encoder"]
    rows = [["mine", "a"], ["yours", "b"]]  # what a link gives is what it opens with
    by, _ = _opened(links, links.on_query(f"?tab=prompt_bert&train={quote(json.dumps(rows))}&{LANG_ASKED}=ko")[
        : -len(links.bar.outputs())])
    assert _value(by[page.fields["train"]]) == rows
    assert by[page.fields["test"]]["data"] == finetune_tab.built_in("sentiment", "ko")["test"]


def test_a_change_of_language_gives_the_fine_tune_page_its_task_in_that_language_and_keeps_what_a_student_wrote():
    english = finetune_tab.load("sentiment", "en")
    sent = [{"headers": ["sentence", "label"], "data": english[0]}, {"headers": ["sentence", "label"],
                                                                      "data": [["my own", "x"], ["rows", "y"]]},
            *english[2:]]
    found = finetune_tab.follow("ko", "sentiment", *sent)
    korean = finetune_tab.load("sentiment", "ko")
    assert found[0] == {"headers": text.t("ft.data_headers", "ko").split("|"), "data": korean[0]}
    assert found[1]["data"] == [["my own", "x"], ["rows", "y"]]  # a student's rows stay, their headers in Korean
    assert found[2:] == list(korean[2:])  # the template, label words and models, untouched by the student
    edited = finetune_tab.follow("ja", "sentiment", *sent[:2], "Review: {text}!", *sent[3:])
    assert edited[2] == "Review: {text}!" and edited[3] == finetune_tab.load("sentiment", "ja")[3]
    # not on the page yet: values only (a skip or a component would leave the tab's first opening empty)
    assert finetune_tab.follow("ko", "sentiment", *[None] * 8)[2:] == list(korean[2:])


def test_the_add_a_row_button_gives_a_table_one_empty_row_with_its_headers_in_the_page_s_language():
    rows = [["fine", "a"], ["bad", "b"]]
    found = finetune_tab.add_row(rows, "ja")
    assert found == {"headers": text.t("ft.data_headers", "ja").split("|"), "data": [*rows, ["", ""]]}
    assert finetune_tab.add_row(None, "en")["data"] == [["", ""]]


def _every_page(app) -> dict:
    """Every page of the app by id (`links.Page`), as the lesson maker reads them."""
    return {page_id: page for links in app.at.values() for page_id, page in links.pages.items()}


def _noise(seed: int) -> str:
    """3,200 characters that compress no better than text does."""
    return "".join(hashlib.sha256(f"{seed}-{i}".encode()).hexdigest() for i in range(50))


@pytest.mark.parametrize("lines, key, values", [
    ("", "lesson.empty", {}),
    ("  \n\n ", "lesson.empty", {}),
    ("?tab=fill_mask&text=a\nhttp://x/?tab=nowhere&text=b note", "lesson.not_a_page", {"row": 2}),
    ("just some words", "lesson.not_a_page", {"row": 1}),
    ("?tab=classify&text=a " + "n" * 201, "lesson.note_long", {"row": 1, "count": 201, "most": 200}),
    ("\n".join(["?tab=classify&text=a"] * 13), "lesson.too_many", {"count": 13, "most": 12}),
    ("\n".join(f"?tab=qa&question=q&context={_noise(k)}" for k in range(4)), "lesson.too_long",
     {"most": lesson.MOST_CODE}),
    # a long text that compresses to a short link, which the link's reader would refuse as past its bound
    ("?tab=classify&text=" + "x" * 70_000, "lesson.too_much", {"most": 64 * 1024}),
])
def test_a_lesson_that_does_not_fit_is_refused_in_words_that_say_what_to_change(app, lines, key, values):
    with pytest.raises(InputError) as refused:
        lesson.make(lines, _every_page(app))
    assert refused.value.text.key == key and values.items() <= refused.value.text.values.items()
    for lang in text.LANGS:  # beside the link box, in the page's language, with the numbers to act on
        state, link, error = app.made(lines, "http://x/", lang, 1280)
        assert link is gr.skip() or _value(link) is None
        assert error.visible and common.plain(Look(lang).words(refused.value)) in error.value
        assert all(str(number) in error.value for number in values.values())


def test_a_lesson_keeps_only_each_pages_own_fields_and_runs_every_step(app):
    pages = _every_page(app)
    steps = lesson.make("http://h/app/sentiment?tab=classify&text=Hi&lang=ko&run=0&evil=1&lesson=x  a  note \n"
                        "?tab=fill_mask&text=A+%5BMASK%5D.", pages)
    assert steps == [["tab=classify&text=Hi", "a note"], ["tab=fill_mask&text=A+%5BMASK%5D.", ""]]
    assert lesson.decode(lesson.encode(steps), pages) == steps
    assert lesson.decode(lesson.encode(steps), site.paths()) == steps  # as each page reads it (every page's id)


@pytest.mark.parametrize("code", [
    "", "guided!", "%%%", "eNoDAAAAAAE",  # empty, not base64, an empty document
    lesson.encode([]), lesson.encode([["tab=nowhere", ""]]), lesson.encode([["tab=classify", 3]]),
    lesson.encode([["tab=classify&text=a", ""]] * 13), lesson.encode([["tab=classify", "n" * 201]]),
    lesson.encode([["tab=classify", ""]])[:-6],  # cut short
    urlsafe_b64encode(zlib.compress(b"[" * 1_000_000, 9)).decode().rstrip("="),  # 1.4 KB inflating to 1 MB
])
def test_a_damaged_lesson_link_opens_nothing_and_says_so_in_the_bar(app, code):
    with pytest.raises(InputError) as refused:
        lesson.decode(code, site.paths())
    assert refused.value.text.key == "lesson.damaged"
    for here in ("", "qa"):  # on Start, or on a page: it stays there and says so
        links, _, updates, gone = app.visit("?" + urlencode({"lesson": code, "step": "2", LANG_ASKED: "ja"}), here)
        assert links.here == here and gone == []
        assert all(update == gr.skip() for update in updates[: -len(links.bar.outputs())])  # no page opened
        row, where, previous, nxt, shown, address, error = _bar(links, updates)
        assert row.visible and not previous.interactive and not nxt.interactive and isinstance(shown, Shown)
        assert error.visible and common.plain(text.t("lesson.damaged", "ja")) in error.value


def test_a_step_out_of_range_opens_the_nearest_and_an_expired_bar_does_nothing(app):
    n = len(lesson.guided())
    for asked, k, where in (("0", 1, "fill-mask"), ("-3", 1, "fill-mask"), ("99", n, "finetune"),
                            ("two", 1, "fill-mask"), ("", 1, "fill-mask")):
        links, _, updates, _ = app.visit(f"?lesson=guided&step={asked}")
        assert _bar(links, updates)[4].result["k"] == k and links.here == where
        assert links.bar.turn(1, None, "en") == gr.skip()


def test_the_makers_words_name_the_limits_it_enforces():
    for lang in text.LANGS:
        how = text.t("lesson.how", lang)
        assert str(lesson.MOST_STEPS) in how and str(lesson.MOST_NOTE) in how
