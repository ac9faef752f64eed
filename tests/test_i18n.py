"""English, Korean and Japanese: every text in all three, every label of the app a translation key, and the
server's own text (errors, tables, figures) in the language each event sends (the switch), rendered again from the
pages' kept results when the look changes."""

from __future__ import annotations

import re
import string
from collections import Counter
from types import SimpleNamespace

import pytest

from bg_demo import text
from bg_demo.ui import gradio_compat


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_text_has_all_three_languages():
    tables = text.tables()
    english = tables["en"]
    assert len(english) > 250
    for lang in ("ko", "ja"):
        table = tables[lang]
        assert set(table) == set(english), (lang, sorted(set(english) ^ set(table))[:10])
        for key, words in table.items():
            assert words.strip(), (lang, key)
            # the same fields, except English's plural ending, which the other two do not need
            assert _fields(words) <= _fields(english[key]), (lang, key)
            assert _fields(english[key]) - _fields(words) <= {"plural"}, (lang, key)
            if not key.startswith("field.") and len(english[key]) > 12 and not key.startswith("start.step."):
                assert words != english[key], f"{lang}:{key} is still English"


def test_text_is_filled_in_the_language_asked_for():
    assert text.t("error.too_many_masks", "en", limit=20, n=21) == "Use at most 20 masks; this sentence has 21."
    korean = text.t("error.too_many_masks", "ko", limit=20, n=21)
    japanese = text.t("error.too_many_masks", "ja", limit=20, n=21)
    assert "20" in korean and "21" in korean and korean != japanese
    with text.use("ja"):
        assert text.current() == "ja" and text.t("error.too_many_masks", limit=20, n=21) == japanese
    assert text.current() == "en"


@pytest.mark.parametrize("tag, lang", [("ko-KR", "ko"), ("ja,en;q=0.8", "ja"), ("fr-FR, ko;q=0.5", "ko"),
                                       ("de", "en"), ("", "en"), (None, "en"), ("JA_jp", "ja")])
def test_a_browser_language_tag_picks_a_supported_language(tag, lang):
    assert text.language(tag) == lang


def test_errors_are_put_into_words_when_shown_in_the_language_served():
    from bg_demo.backend import fill_mask
    from bg_demo.errors import InputError

    with pytest.raises(InputError) as caught:
        fill_mask("no mask here")
    error = caught.value
    assert str(error).startswith("Put at least one [MASK]")
    with text.use("ko"):
        assert str(error) == text.t("error.no_mask", "ko", mask="[MASK]") != text.t("error.no_mask", "en", mask="[MASK]")
    with text.use("ja"):
        assert "[MASK]" in str(error) and str(error) == text.t("error.no_mask", "ja", mask="[MASK]")


def test_an_inputs_name_inside_an_error_is_translated_too():
    from bg_demo.backend._common import require_text
    from bg_demo.errors import InputError

    with pytest.raises(InputError) as caught:
        require_text("   ", "question")
    with text.use("ko"):
        assert text.t("field.question", "ko") in str(caught.value)


def test_the_switch_sent_with_each_event_words_it_and_the_server_remembers_none():
    """The language is an input of every event (the switch's value): the next event, in another language, is worded
    in that one; an event that sends none is English. On load the switch takes the browser's language."""
    from bg_demo.ui import build_demo
    from bg_demo.ui.gradio_compat import listeners
    from tests.support.pages import call, event, run

    demo = build_demo()
    fill = event(demo, api="fill_mask")
    for lang in ("ko", "ja", None, "ko"):
        _, box, _ = run(fill, ["no blank here", 3, ""], lang=lang)
        assert box.value == _boxed(text.t("error.no_mask", lang or "en", mask="[MASK]"))
    # the tables' relabelling, on a change of a page's switch, reads a language as a browser's tag gives it too
    relabellings = [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "headers_in"]
    assert relabellings
    for headers in relabellings:
        def sent(lang, headers=headers):
            return [value.headers for value in _tuple(call(headers, lang))]

        assert sent("ja-JP") == sent("ja") != sent("en") and sent("de") == sent("en")


def test_the_load_and_the_switch_relabel_every_table_of_the_app_even_an_empty_one(monkeypatch):
    """A table shows its column names only in the words it was built with until a value comes with them: each
    page's load and switch send each of its tables (every one `strings.table` made while the page was built) its
    headers in the language chosen."""
    import gradio as gr

    from bg_demo.ui import build_demo, language
    from bg_demo.ui.gradio_compat import block_id, listeners
    from tests.support.pages import call

    built = _recording_pages(monkeypatch)
    demo = build_demo()
    made = [(table, key) for page in built for table, key in page.tables]
    assert {key for _, key in made} >= {"ner.table_headers", "qa.table_headers", "lab.history_headers",
                                        "pre.token_headers", "compare.facts.headers"}
    relabellings = [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "headers_in"]
    with_tables = [page for page in built if page.tables]
    assert len(relabellings) == len(with_tables) > 1  # one per page that has a table, and none elsewhere
    for page in with_tables:
        tables = [table for table, _ in page.tables]
        (headers,) = [d for d in relabellings if block_id(tables[0]) in {block_id(b) for b in d.outputs}]
        ((target, trigger),) = headers.targets  # the load sets the switch for another language than English
        switch = gradio_compat.components(demo)[target]
        assert (switch.elem_id, trigger) == (language.ELEM_ID, "change")
        assert switch.page == tables[0].page == headers.page  # the page's own switch
        assert [block_id(b) for b in headers.outputs] == [block_id(table) for table in tables]
        sent = [value for value in _tuple(call(headers, "ko")) if isinstance(value, gr.Dataframe)]
        assert [value.headers for value in sent] == [text.t(key, "ko").split("|") for _, key in page.tables]


def test_the_tab_bars_are_relabelled_in_the_browser_and_no_server_event_writes_a_tab():
    """Gradio's client re-reads every component inside each output of a server event at every later event of the
    page: a tab written by the server made every opened tab cost that (docs/page-weight.md). So every page's tabs
    follow its switch through an event with no server function, which gives each tab its label's key again."""
    import json
    import re

    import gradio as gr

    from bg_demo.ui import build_demo, language, strings
    from bg_demo.ui.gradio_compat import block_id, listeners

    demo = build_demo()
    tabs = [block for block in gradio_compat.components(demo).values() if isinstance(block, (gr.Tab, gr.Tabs))]
    written = {block_id(block) for block in tabs}
    for dependency in listeners(demo):
        if dependency.fn is not None:
            assert not written & {block_id(block) for block in dependency.outputs}, dependency.fn.__name__
    relabels = [d for d in listeners(demo) if written & {block_id(block) for block in d.outputs}]
    labelled = [tab for tab in tabs if isinstance(tab, gr.Tab) and tab.label is not None]
    pages = {tab.page for tab in labelled}
    assert len(labelled) >= 11 and pages >= {"next-token", "pretraining", "finetune"}  # 2 + 4 + 5 sub-tabs
    assert sorted(relabel.page for relabel in relabels) == sorted(pages)  # one per page with tabs
    for relabel in relabels:
        ((target, trigger),) = relabel.targets
        assert (gradio_compat.components(demo)[target].elem_id, trigger) == (language.ELEM_ID, "change") and relabel.fn is None
        assert gradio_compat.components(demo)[target].page == relabel.page  # the page's own switch
        own = [tab for tab in labelled if tab.page == relabel.page]
        assert relabel.outputs == own and len(own) >= 2
        keys = json.loads(re.search(r"const keys = (\[.*?\])", relabel.js).group(1))
        assert keys == [strings.key_of(tab.label) for tab in own] and None not in keys
    assert {strings.words(tab.label, "ko") for tab in labelled} <= set(strings.translations()["ko"].values())


def test_every_page_event_reads_the_look_and_keeps_its_state_and_a_change_of_look_rerenders_once():
    import gradio as gr

    from bg_demo.ui import build_demo, language, lesson, page, screen, site
    from bg_demo.ui.gradio_compat import block_id, listener, listeners

    demo = build_demo()
    events = [d for d in listeners(demo) if getattr(d.fn, "__name__", "").endswith("_in_page")]
    assert len({d.fn for d in events}) > 20  # every tab's pages, their why panels, the lab's steps
    for dependency in events:
        *_, state, lang, width = dependency.inputs
        assert (lang.elem_id, width.elem_id) == (language.ELEM_ID, screen.ELEM_ID), dependency.fn.__name__
        assert isinstance(state, gr.State) and dependency.outputs[-1] is state  # read, then written
        assert state.time_to_live == page.STATE_SECONDS  # a kept result expires with the page
        assert "bg-error" in dependency.outputs[-2].elem_classes
    # on each page, its switch and its width report are each followed by one event, rerendering the page from its
    # states, and only that page's
    rerenders = [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "rerender"]
    followed = {}
    for dependency in rerenders:
        before = listener(demo, dependency.trigger_after)
        assert {gradio_compat.components(demo)[target].page for target, _ in before.targets} == {dependency.page}
        followed.setdefault(dependency.page, []).extend(
            (gradio_compat.components(demo)[target].elem_id, name) for target, name in before.targets)
    assert set(followed) == {module.PATH for module in site.PAGES}
    for page_path, triggers in followed.items():
        assert sorted(triggers) == [(language.ELEM_ID, "input"), (f"{screen.ELEM_ID}-report", "click")], page_path
    # every page's state, and only those, with the lesson's bar (its step) and, on Start, its maker (the link made)
    kept = [(d.page, block_id(block)) for d in listeners(demo) if getattr(d.fn, "__name__", "") in ("on_opened", "made")
            for block in d.outputs if isinstance(block, gr.State) and block.time_to_live == lesson.STATE_SECONDS]
    for rerender in rerenders:
        assert [block.elem_id for block in rerender.inputs[:2]] == [language.ELEM_ID, screen.ELEM_ID]
        assert {block.page for block in (*rerender.inputs, *rerender.outputs)} == {rerender.page}
        read = {block_id(block) for block in rerender.inputs if isinstance(block, gr.State)}
        own_kept = {block for page_path, block in kept if page_path == rerender.page}
        assert len(own_kept) == (2 if rerender.page == "" else 1), rerender.page
        assert read == {block_id(d.outputs[-1]) for d in events if d.page == rerender.page} | own_kept
    # every page but Start (its guide and lesson maker run nothing) has its own
    assert {d.page for d in events} == {module.PATH for module in site.PAGES} - {""}


def test_kept_results_pass_through_gradios_state_tracking_and_the_rerender(counted):
    """Around a handler the server keeps each page's state in the session and hashes it to see whether it changed:
    results holding dicts and lists (the sentiment's scores, the lab's steps) must pass, then be rendered again."""
    import gradio as gr

    from bg_demo.ui import build_demo
    from bg_demo.ui.gradio_compat import block_id, session_value
    from bg_demo.ui.page import Shown
    from tests.support.pages import event, through_gradio

    demo = build_demo()
    sentiment, lab, step = event(demo, api="classify"), event(demo, api="next_token"), event(demo, name="step_in_page")
    _, session = through_gradio(demo, sentiment, ["What a fine day.", None, "en", 1280])
    through_gradio(demo, lab, ["The cat sat on", 1.0, 0, 1.0, "", "", None, "en", 1280], session)
    data, _ = through_gradio(demo, step, [None, None, 1.0, 0, 1.0, "", "", None, "en", 1280], session)
    kept = session_value(session, lab.outputs[-1])
    assert isinstance(kept, Shown) and len(kept.result["history"]) == 1 and kept.error is None
    assert data[-2]["visible"] is False  # no error
    assert isinstance(session_value(session, sentiment.outputs[-1]), Shown)
    shown = {}
    for state in (sentiment.outputs[-1], lab.outputs[-1]):  # two pages: each page's own switch rerenders it
        rerender = _rerender_of(demo, state)
        values = [None if isinstance(block, gr.State) else block.value for block in rerender.inputs[2:]]
        data, _ = through_gradio(demo, rerender, ["ko", 1280, *values], session)
        shown.update({block_id(block): value for block, value in zip(rerender.outputs, data)})
    assert text.t("fig.tasks.probability", "ko") in str(shown[block_id(sentiment.outputs[0])])
    assert shown[block_id(lab.outputs[2])]["headers"] == text.t("lab.history_headers", "ko").split("|")
    assert counted["classify"] == 1


def test_the_sessions_store_is_bounded_and_idle_sessions_expire():
    from bg_demo.ui.session import Sessions

    sessions = Sessions(capacity=3, seconds=60)
    for n in range(3):
        sessions.get(f"s{n}")
    sessions.get("s0")  # used again: s1 is now the least recently used
    sessions.get("s3")
    assert len(sessions) == 3 and sessions.peek("s1") is None
    assert all(sessions.peek(f"s{n}") is not None for n in (0, 2, 3))
    now = [0.0]  # the clock the store reads, moved by hand
    idle = Sessions(capacity=3, seconds=0.5, timer=lambda: now[0])
    idle.get("a")
    idle.get("b")
    now[0] += 0.3
    idle.get("a")  # used: its idle time starts again
    now[0] += 0.3
    assert idle.peek("b") is None and idle.peek("a") is not None
    now[0] += 0.6
    assert len(idle) == 0 and idle.peek("a") is None


def test_leaving_cancels_the_sessions_streams_and_drops_it():
    from bg_demo.ui.session import Sessions

    class Handle:
        cancelled = False

        def cancel(self):
            self.cancelled = True

    sessions = Sessions(capacity=4, seconds=60)
    mine, other = Handle(), Handle()
    with sessions.running("gone", mine), sessions.running("stays", other):
        assert sessions.streams("gone") == {mine}
        sessions.leave(SimpleNamespace(session_hash="gone"))
        assert mine.cancelled and not other.cancelled
        assert sessions.peek("gone") is None and sessions.streams("gone") == set()
        assert sessions.streams("stays") == {other}
    assert sessions.streams("stays") == set()  # a finished stream leaves its session
    sessions.leave(SimpleNamespace(session_hash="never seen"))  # a page that ran nothing: nothing to do
    assert sessions.peek("never seen") is None


def test_a_tables_headers_come_in_the_language_served():
    from bg_demo.look import Look
    from bg_demo.ui.strings import rows

    table = rows("qa.table_headers", [["x", 0.5, 0, 1, 1]], Look("ja"))
    assert table["headers"] == text.t("qa.table_headers", "ja").split("|")
    assert len(table["headers"]) == len(text.t("qa.table_headers", "en").split("|"))


def _visible_words(demo):
    """Every label, info, placeholder, Markdown/Button text and choice label of the visible app that is
    plain text rather than a translation key."""
    import gradio as gr

    from bg_demo.ui import common

    neutral = {label for role in ("encoder", "decoder") for label, _ in common.model_choices(role)}
    neutral |= set(text.NAMES.values()) | {"Language · 언어 · 言語"}
    # the navigation: each page's name in every language, from its key (`ui.navigation`), the page's own shown
    from bg_demo.ui import navigation, site

    neutral |= {navigation(module, site.PAGES) for module in site.PAGES}
    found = []
    for block in gradio_compat.components(demo).values():
        if getattr(block, "visible", True) in (False, "hidden") or gradio_compat.is_bare_value(block):
            continue  # the hidden buttons that carry the API endpoints, the page's width report, `gr.api`'s values
        words = [getattr(block, attr, None) for attr in ("label", "info", "placeholder")]
        if isinstance(block, (gr.Markdown, gr.Button, gr.HTML)):
            words.append(block.value)
        if isinstance(block, (gr.Radio, gr.Dropdown)):
            words += [choice[0] if isinstance(choice, (tuple, list)) else choice for choice in block.choices or []]
        for word in words:
            if isinstance(word, str) and word.strip() and not word.startswith("__i18n__") and not word.isdigit():
                if word not in neutral:
                    found.append((type(block).__name__, word))
    return found


def test_every_word_of_the_built_app_is_a_translation_key():
    from bg_demo.ui import build_demo
    from bg_demo.ui.strings import translations as sent

    demo = build_demo()
    assert _visible_words(demo) == []
    translations = sent()  # what the browser gets (`strings.i18n`), read once every page is built
    assert set(translations) == set(text.LANGS)
    # the labels made with values (and several texts in one Markdown) exist in every language too
    assert set(translations["ko"]) == set(translations["en"]) == set(translations["ja"])


def test_each_languages_examples_pick_that_languages_models():
    from bg_demo import config
    from bg_demo.ui.strings import examples

    allowed = {model for models in config.ALLOWED_MODELS.values() for model in models}
    for lang in ("ko", "ja"):
        own = examples(lang)
        assert {"fill_mask", "generate", "attention", "compare"} <= set(own)

        def models_in(value):
            if isinstance(value, dict):
                return [m for v in value.values() for m in models_in(v)]
            if isinstance(value, list):
                return [m for v in value for m in models_in(v)]
            return [value] if isinstance(value, str) and value.count("/") == 1 and " " not in value else []

        picked = models_in(own)
        assert picked and set(picked) <= allowed
        assert "google-bert/bert-base-multilingual-cased" in picked


# Korean particles: chosen by the word they follow, never shown as "이(가)"

PARTICLE_MARKS = re.compile(r"이\(가\)|은\(는\)|을\(를\)|과\(와\)|\(으\)로|\(이\)")


def test_a_korean_particle_follows_the_final_consonant_of_the_word_before_it():
    field = text.Text
    # 텍스트 ends in a vowel, 질문 in a consonant (batchim)
    assert text.t("error.empty", "ko", what=field("field.text")).startswith("텍스트가 비어 있어요")
    assert text.t("error.empty", "ko", what=field("field.question")).startswith("질문이 비어 있어요")
    assert text.t("input.whole", "ko", what="시드", got="'x'").startswith("‘시드’는 정수여야")
    assert text.t("input.whole", "ko", what="반복 페널티", got="'x'").startswith("‘반복 페널티’는")
    assert text.t("input.whole", "ko", what="층", got="'x'").startswith("‘층’은 정수여야")


@pytest.mark.parametrize("word, particle", [
    ("google-bert/bert-base-uncased", "를"),  # 언케이스드
    ("rinna/japanese-gpt2-medium", "을"),  # 미디엄
    ("gpt2", "를"),  # 2: 이
    ("model-3", "을"),  # 3: 삼
    ("NER", "을"),  # spelled: 엔이알
    ("QA", "를"),  # 큐에이
    ("bank", "를"),  # 뱅크
    ("model", "을"),  # 모델
])
def test_a_particle_after_a_model_id_or_a_latin_word_follows_how_it_is_read(word, particle):
    message = text.t("note.compare.split.encoder", "ko", word=word)
    assert f"'{word}'{particle} 여러 토큰으로" in message


@pytest.mark.parametrize("seed, form", [(3, "3으로"), (2, "2로"), (1, "1로"), (10, "10으로"), (1000, "1000으로"),
                                        (0, "0으로"), (25, "25로")])
def test_a_particle_after_a_number_follows_its_korean_reading(seed, form):
    assert text.t("lab.how.sample", "ko", seed=seed) == f"시드 {form} 샘플링"


def test_a_particle_after_a_word_that_cannot_be_read_keeps_both_forms_and_never_changes_the_value():
    kanji = text.t("note.compare.split.encoder", "ko", word="漢字")
    assert "'漢字'을(를)" in kanji  # the neutral notation: no reading to go by
    quoted = text.t("error.word_missing", "ko", word="이(가)", what="첫 번째")
    assert quoted.startswith("단어 '이(가)'가 첫 번째 문장에")  # the value as typed, the particle after it chosen


def test_no_korean_text_shows_a_particle_mark_once_filled():
    import string as strings

    korean = text.tables()["ko"]
    marked = [key for key, words in korean.items() if PARTICLE_MARKS.search(words)]
    assert len(marked) > 15
    for key in marked:
        values = {name: (1234 if spec else "모델") for _, name, spec, _ in strings.Formatter().parse(korean[key]) if name}
        assert not PARTICLE_MARKS.search(text.t(key, "ko", **values)), key
    # numbers written into a Korean text take their particle the same way
    assert text.t("qa.none", "ko", null=3.0, best="x", best_logit=1.0).count("3.00이 가장") == 1
    assert "0.5000으로, 확률" in text.t("why.completeness", "ko", total=0.5, p=0.6, base=0.1, gap=0.0, steps=8)


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_pretraining_labs_treatment_column_is_worded_in_the_page_language(lang):
    from bg_demo.look import Look
    from bg_demo.ui import pretraining_tab

    sentence = "The quick brown fox jumps over the lazy dog near the quiet river bank today."
    _, targets, *_ = pretraining_tab.corrupted(pretraining_tab.corrupt(sentence, 3), Look(lang))
    column = targets["headers"].index(text.t("pre.target_headers", lang).split("|")[3])
    shown = {row[column] for row in targets["data"]}
    words = {text.t(f"pre.treatment.{kind}", lang) for kind in ("mask", "random", "keep")}
    assert shown and shown <= words


# A change of look (the language switch, a width crossing) renders what is on screen again: every page with a kept
# result is rendered from its state in the new look (no model runs again), its error reworded; the others are left


@pytest.fixture
def counted(monkeypatch):
    """backend function name -> how many times the tabs called it."""
    import functools

    from bg_demo import backend

    calls = Counter()

    def count(name):
        real = getattr(backend, name)

        @functools.wraps(real)
        def counting(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(backend, name, counting)

    for name in ("fill_mask", "classify", "next_sentence", "attention", "compare", "submit_generation"):
        count(name)
    return calls


def _tuple(values) -> tuple:
    return values if isinstance(values, tuple) else (values,)


def _recording_pages(monkeypatch) -> list:
    """What each page's build collects for its switch to relabel (`strings.collecting`: its tables and tabs), one
    `strings.Built` per page in the order the pages are built, once `build_demo` has run."""
    import contextlib

    from bg_demo.ui import strings

    built, real = [], strings.collecting

    @contextlib.contextmanager
    def recording():
        with real() as made:
            yield made
        built.append(made)

    monkeypatch.setattr(strings, "collecting", recording)
    return built


def _rerenders(demo, after: str = "language") -> list:
    """Every page's own rerender: the one after its language switch (`after="language"`) or after its width report
    (`after="screen"`), one per page."""
    from bg_demo.ui import language, screen
    from bg_demo.ui.gradio_compat import listener, listeners

    trigger = {"language": (language.ELEM_ID, "input"), "screen": (f"{screen.ELEM_ID}-report", "click")}[after]
    found = []
    for dependency in listeners(demo):
        if getattr(dependency.fn, "__name__", "") == "rerender":
            before = listener(demo, dependency.trigger_after)
            if [(gradio_compat.components(demo)[target].elem_id, name) for target, name in before.targets] == [trigger]:
                found.append(dependency)
    assert len({d.page for d in found}) == len(found) > 1  # one per page
    return found


def _rerender_of(demo, state, after: str = "language"):
    """The rerender of the page that holds `state`: its own switch's."""
    from bg_demo.ui.gradio_compat import block_id

    (found,) = [d for d in _rerenders(demo, after) if block_id(state) in {block_id(b) for b in d.inputs}]
    return found


def _switch(demo, lang: str, width=None, states=None, controls=None, after: str = "language") -> dict:
    """What the change of look to `lang` and `width` sends on every page (each page its own switch and its own
    rerender, over its own states), by output block id (only what it changes), for the pages' states
    `{state block: Shown}` (the others hold nothing) and view controls set to other than their defaults
    `{block: value}`. Every state given is read by exactly one page; no two pages write one block."""
    import gradio as gr

    from bg_demo import look
    from bg_demo.ui.gradio_compat import block_id
    from tests.support.pages import SKIP, call

    width = look.WIDE if width is None else width
    states = {block_id(block): value for block, value in (states or {}).items()}
    controls = {block_id(block): value for block, value in (controls or {}).items()}
    shown, readers = {}, Counter()
    for dependency in _rerenders(demo, after):
        values = []
        readers.update({block_id(b) for b in dependency.inputs if isinstance(b, gr.State)} & set(states))
        for block in dependency.inputs[2:]:
            if isinstance(block, gr.State):  # (a state two views of one page draw from is read once per view)
                values.append(states.get(block_id(block)))
            else:
                values.append(controls.get(block_id(block), block.value))
        for block, value in zip(dependency.outputs, call(dependency, lang, width, *values)):
            if value != SKIP:
                assert block_id(block) not in shown, block
                shown[block_id(block)] = value
    assert all(readers[state] == 1 for state in states), readers
    return shown


def _boxed(words: str) -> str:
    """An error box's text for an error worded `words`."""
    from bg_demo.ui.common import plain

    return "⚠️ " + plain(words)


def _shown_ids(dependency) -> set[int]:
    """The outputs of a page event a change of look renders again: all but the raw JSON and the state."""
    from bg_demo.ui.gradio_compat import block_id

    *outputs, raw, box, _ = dependency.outputs
    return {block_id(block) for block in (*outputs, box)}


def test_a_switch_redraws_fill_mask_sentiment_and_next_sentence_in_the_new_language_without_a_model(counted):
    from bg_demo.ui import build_demo
    from bg_demo.ui.gradio_compat import block_id
    from tests.support.pages import event, run

    demo = build_demo()
    fill = event(demo, api="fill_mask")
    sentiment = event(demo, api="classify")
    nsp = event(demo, api="next_sentence")
    _, _, fill_kept = run(fill, ["The cat sat on the [MASK] by the [MASK].", 3, ""])
    _, _, sentiment_kept = run(sentiment, ["What a fine day."])
    _, _, nsp_kept = run(nsp, ["The man went to the store.", "He bought a gallon of milk.", ""])
    assert dict(counted) == {"fill_mask": 1, "classify": 1, "next_sentence": 1}
    states = {fill.outputs[-1]: fill_kept, sentiment.outputs[-1]: sentiment_kept, nsp.outputs[-1]: nsp_kept}
    shown = _switch(demo, "ko", 1280, states)
    assert dict(counted) == {"fill_mask": 1, "classify": 1, "next_sentence": 1}  # drawn again, not run again
    # these three pages, and nothing else: the pages with nothing kept are left as they are
    assert set(shown) == _shown_ids(fill) | _shown_ids(sentiment) | _shown_ids(nsp)
    probability = text.t("fig.tasks.probability", "ko")
    bars = shown[block_id(fill.outputs[1])]
    assert bars.layout.xaxis.title.text == probability
    assert [note.text for note in bars.layout.annotations][:2] == [text.t("fig.tasks.mask_of", "ko", i=i, n=2)
                                                                  for i in (1, 2)]
    assert shown[block_id(sentiment.outputs[0])].layout.xaxis.title.text == probability
    labels = set(shown[block_id(nsp.outputs[0])].data[0].customdata)
    assert labels == {text.t("nsp.is_next", "ko"), text.t("nsp.not_next", "ko")}
    for dependency in (fill, sentiment, nsp):
        assert shown[block_id(dependency.outputs[-2])].visible is False  # no error: the box stays hidden
        assert block_id(dependency.outputs[-3]) not in shown  # the raw JSON holds no words: not sent again
    # and back: the same figure as the English run drew
    english = _switch(demo, "en", 1280, states)
    drawn, *_ = run(fill, ["The cat sat on the [MASK] by the [MASK].", 3, ""])
    assert english[block_id(fill.outputs[1])].to_json() == drawn[1].to_json()


def _kept(lang: str) -> str:
    from bg_demo.ui.common import plain

    return f"\n\n*{plain(text.t('app.kept_result', lang))}*"


def test_a_switch_rewords_the_error_boxes(counted):
    import gradio as gr

    from bg_demo.ui import build_demo
    from bg_demo.ui.gradio_compat import block_id
    from tests.support.pages import event, run

    demo = build_demo()
    fill = event(demo, api="fill_mask")
    nsp = event(demo, api="next_sentence")
    _, _, fill_kept = run(fill, ["The cat sat on the [MASK].", 3, ""])
    outputs, box, fill_kept = run(fill, ["no blank here", 3, ""], shown=fill_kept)  # the result above stays
    # and says the result under it is the one before, which a page without a result yet does not say
    assert box.value == _boxed(text.t("error.no_mask", "en", mask="[MASK]")) + _kept("en")
    assert all(output == gr.skip() for output in outputs) and fill_kept.result is not None
    _, _, nsp_kept = run(nsp, ["", "He bought a gallon of milk.", ""])
    assert nsp_kept.result is None and nsp_kept.error is not None
    shown = _switch(demo, "ja", 1280, {fill.outputs[-1]: fill_kept, nsp.outputs[-1]: nsp_kept})
    assert shown[block_id(fill.outputs[-2])].value == _boxed(text.t("error.no_mask", "ja", mask="[MASK]")) + _kept("ja")
    assert shown[block_id(fill.outputs[1])].layout.xaxis.title.text == text.t("fig.tasks.probability", "ja")
    what = text.t("field.first sentence", "ja")
    assert shown[block_id(nsp.outputs[-2])].value == _boxed(text.t("error.empty", "ja", what=what))
    assert set(shown) & set(_shown_ids(nsp)) == {block_id(nsp.outputs[-2])}  # nothing drawn yet: only its error
    # a later run that succeeds is what the page shows: the switch keeps its box hidden
    _, _, fill_kept = run(fill, ["The cat sat on the [MASK].", 3, ""], lang="ja", shown=fill_kept)
    shown = _switch(demo, "ko", 1280, {fill.outputs[-1]: fill_kept, nsp.outputs[-1]: nsp_kept})
    assert shown[block_id(fill.outputs[-2])].visible is False
    assert shown[block_id(nsp.outputs[-2])].value.startswith(_boxed(text.t("field.first sentence", "ko")))
    assert counted["fill_mask"] == 3 and counted["next_sentence"] == 1


def _redraw(demo, state):
    """A page's view event: the one that draws more outputs from its state with view controls."""
    from bg_demo.ui.gradio_compat import block_id, listeners
    from tests.support.pages import event

    for dependency in listeners(demo):
        if getattr(dependency.fn, "__name__", "") == "redraw" and block_id(dependency.inputs[0]) == block_id(state):
            return dependency
    return event(demo, name="redraw", outputs_contain=state)  # none: says what was looked for


def _attention_pages(demo):
    """The Attention tab's and the BERT vs GPT-2 tab's runs, their view events and their controls as the test sets
    them (layer 1, head 0 on the map; layer 1, head 1 on the two maps)."""
    from tests.support.pages import event

    attention, compare = event(demo, api="attention"), event(demo, api="compare")
    map_view, heads_view = _redraw(demo, attention.outputs[-1]), _redraw(demo, compare.outputs[-1])
    view, layer, head, hide, stat, query, span = map_view.inputs[3:]
    controls = {view: "head", layer: 1, head: 0, hide: False, stat: "entropy"}
    layer, head = heads_view.inputs[3:]
    controls.update({layer: 1, head: 1})
    return attention, compare, map_view, heads_view, controls


def test_a_switch_redraws_the_attention_and_compare_pages_from_their_kept_results(counted):
    from bg_demo.look import Look
    from bg_demo.ui import attention_tab, build_demo
    from bg_demo.ui.gradio_compat import block_id
    from tests.support.pages import call, run

    demo = build_demo()
    attention, compare, map_view, heads_view, controls = _attention_pages(demo)
    _, _, attention_kept = run(attention, ["The cat sat on the mat.", "encoder", ""])
    english, box = call(map_view, attention_kept, "en", 1280, *(controls.get(b, b.value) for b in map_view.inputs[3:]))
    assert english.layout.title.text.startswith(text.t("fig.attention.head_title", "en", layer=1, head=0))
    _, _, compare_kept = run(compare, ["The cat sat on the mat.", "", ""])
    shown = _switch(demo, "ko", 1280, {attention.outputs[-1]: attention_kept, compare.outputs[-1]: compare_kept},
                   controls)
    assert dict(counted) == {"attention": 1, "compare": 1}
    plot = shown[block_id(map_view.outputs[0])]
    assert plot.layout.title.text.startswith(text.t("fig.attention.head_title", "ko", layer=1, head=0))
    assert shown[block_id(attention.outputs[0])] == attention_tab.notice(attention_kept.result, Look("ko"))
    assert block_id(attention.outputs[2]) not in shown  # the raw JSON holds no words: not sent again
    encoder_plot, decoder_plot = (shown[block_id(block)] for block in heads_view.outputs[:2])
    assert encoder_plot.layout.title.text.startswith(text.t("fig.attention.head_title", "ko", layer=1, head=1))
    assert decoder_plot.layout.title.text.startswith(text.t("fig.attention.head_title", "ko", layer=1, head=1))
    assert shown[block_id(compare.outputs[1])].layout.yaxis.title.text == text.t("fig.attention.future_axis", "ko")


def test_a_width_crossing_redraws_the_map_for_a_phone_from_the_kept_result(counted):
    from bg_demo import figures
    from bg_demo.look import Look
    from bg_demo.ui import attention_tab, build_demo
    from bg_demo.ui.gradio_compat import block_id
    from tests.support.pages import run

    demo = build_demo()
    attention, _, map_view, _, controls = _attention_pages(demo)
    _, _, kept = run(attention, ["The cat sat on the mat.", "encoder", ""])
    states = {attention.outputs[-1]: kept}
    map_id = block_id(map_view.outputs[0])
    phone, laptop = (_switch(demo, "ja", width, states, controls, after="screen")[map_id] for width in (390, 1280))
    assert dict(counted) == {"attention": 1}
    result = attention_tab.maps(kept.result)
    drawn = figures.attention_figure(result, Look("ja", 390), "head", 1, 0, False, "entropy", 0, 1)
    assert phone.to_json() == drawn.to_json()  # the narrow figure: the whole width, the colour bar under the map
    assert phone.layout.coloraxis.colorbar.orientation == "h" and phone.layout.xaxis.tickangle == -90
    assert laptop.layout.coloraxis.colorbar.orientation != "h" and laptop.layout.xaxis.tickangle != -90
    assert phone.layout.title.text == laptop.layout.title.text == drawn.layout.title.text  # in Japanese both


def test_a_switch_rewords_a_finished_generations_status_line(counted):
    from bg_demo.ui import build_demo
    from bg_demo.ui.gradio_compat import block_id
    from tests.support.pages import event, run

    demo = build_demo()
    generate = event(demo, api="generate")
    request = SimpleNamespace(session_hash="switch-generate", headers={})
    values = ["Hello there", "greedy", 4, 1.0, 50, 0.9, 4, 1, "", 0, 1.0, ""]
    english, box, kept = run(generate, values, request=request)
    assert counted["submit_generation"] == 1 and kept.result.done
    shown = _switch(demo, "ko", 1280, {generate.outputs[-1]: kept})
    status = 2  # the outputs: the text, the beams, the status line, the raw result
    assert _pattern("generate.status", "en").fullmatch(english[status])
    assert english[status] != shown[block_id(generate.outputs[status])]
    assert _pattern("generate.status", "ko").fullmatch(shown[block_id(generate.outputs[status])])
    assert dict(counted) == {"submit_generation": 1}  # no model call of any kind


def _pattern(key: str, lang: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in re.split(r"\{[^}]*\}", text.t(key, lang))), re.S)


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_loading_notice_names_the_role_in_the_page_language(monkeypatch, lang):
    from bg_demo import backend
    from bg_demo.look import Look
    from bg_demo.ui import common

    monkeypatch.setattr(backend, "model_is_loaded", lambda role, model_id=None: False)
    said = []
    common.Loading(lambda _, desc: said.append(desc), Look(lang))("sentiment")
    assert said and said[0].startswith(text.t("app.role.sentiment", lang))  # the model itself: by its name


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_sentiment_labels_are_worded_beside_the_models_own(lang):
    from bg_demo.look import Look
    from bg_demo.ui import classify_tab

    figure, *_ = classify_tab.render(classify_tab.compute("What a fine day."), Look(lang))
    shown = set(figure.data[0].customdata)
    assert shown == {text.t("classify.label.POSITIVE", lang), text.t("classify.label.NEGATIVE", lang)}
    assert all(label.startswith(("POSITIVE", "NEGATIVE")) and label not in ("POSITIVE", "NEGATIVE") for label in shown)


def test_no_korean_text_writes_a_fixed_particle_after_a_filled_in_value():
    """A particle after a value must be a mark ("{weight}은(는)") that `text.korean` resolves by the value's last
    sound: a fixed one reads wrong for half the values ("가중치 0.393는" for 영점삼구삼은)."""
    import re

    from bg_demo.text import tables

    fixed = re.compile(r"\{[a-z_]+(?::[^}]*)?\}(?:으로|는|은|가|를|을|와|과|로|이)(?![가-힣(])")
    found = [f"{key}: {value}" for key, value in tables()["ko"].items() if fixed.search(value)]
    assert found == []


def test_a_page_s_example_tables_one_per_language_share_one_fill_and_one_run():
    """Each page's examples are a table per language (the page shows its own language's), and the three share one
    event that fills the inputs, then one run: a phone's first visit loads every event's wiring (0.6 s for three
    languages' own pairs at 4x CPU throttling, bench/page_weight.py). A Korean row fills its text and picks its
    Korean model; an English row fills the text and leaves the model picker alone."""
    import gradio as gr

    from bg_demo.ui import build_demo, payloads
    from bg_demo.ui.gradio_compat import block_id, listeners

    demo = build_demo()
    tables = {block_id(block): block for block in gradio_compat.components(demo).values() if isinstance(block, gr.Dataset)}
    fills = [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "fill"]
    assert len(tables) >= 30 and len(fills) * len(text.LANGS) == len(tables)
    numbers = {id(d): n for n, d in enumerate(listeners(demo))}
    for dependency in fills:
        shown = [tables[target] for target, name in dependency.targets if name == "select"]
        assert sorted(payloads._language(table) for table in shown) == sorted(text.LANGS)
        (then,) = [d for d in listeners(demo) if d.trigger_after == numbers[id(dependency)]]
        assert then.fn.__name__.endswith("_in_page")  # the page's own run, as its button runs it

    # the fill-mask page's: a Korean row gives the text, top-k and its model; an English row the text and top-k
    from bg_demo.ui import strings

    korean, english = (strings.example_rows("fill_mask", lang)[1] for lang in ("ko", "en"))
    (fill_mask,) = [d for d in fills if gradio_compat.example_rows(tables[d.targets[0][0]]) == strings.example_rows("fill_mask")]
    by_lang = {payloads._language(tables[target]): tables[target] for target, _ in fill_mask.targets}
    sent = fill_mask.fn(gr.SelectData(by_lang["ko"], {"index": 1, "value": korean}))
    assert len(korean) == 3 and [update["value"] for update in sent] == korean
    sent = fill_mask.fn(gr.SelectData(by_lang["en"], {"index": 1, "value": english}))
    assert len(english) == 2 and [update["value"] for update in sent[:2]] == english
    assert isinstance(sent[2], type(gr.skip())) and sent[2] == gr.skip()  # the model picker left as it is


def test_an_examples_click_that_names_no_row_fills_nothing():
    """A select event the tables never sent (another page's table, an index past the rows, no table) changes no
    input."""
    import gradio as gr

    from bg_demo.ui import build_demo
    from bg_demo.ui.gradio_compat import block_id, listeners

    demo = build_demo()
    fill = next(d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "fill")
    mine = {target for target, _ in fill.targets}
    tables = [block for block in gradio_compat.components(demo).values() if isinstance(block, gr.Dataset)]
    own = next(table for table in tables if block_id(table) in mine)
    other = next(table for table in tables if block_id(table) not in mine)
    assert any(update != gr.skip() for update in fill.fn(gr.SelectData(own, {"index": 0, "value": None})))
    for target, index in ((other, 0), (own, len(gradio_compat.example_rows(own))), (own, "0"), (None, 0)):
        sent = fill.fn(gr.SelectData(target, {"index": index, "value": None}))
        assert all(update == gr.skip() for update in sent), (target, index)


def test_the_navigation_names_each_page_in_every_language_from_its_key():
    import html

    from bg_demo.ui import navigation, site

    markup = navigation(site.PAGES[1], site.PAGES)
    for module in site.PAGES:
        for lang in text.LANGS:
            assert f'<span class="bg-word bg-for-{lang}" lang="{lang}">{html.escape(text.t(module.TITLE, lang))}</span>' in markup
    assert markup.count('aria-current="page"') == 1 and 'class="bg-nav-link bg-nav-fill-mask primary"' in markup


def test_translations_read_before_any_page_is_built_say_so(monkeypatch, caplog):
    """Launch options read before the app is built would send no label's words (every page showing its keys)."""
    from bg_demo.ui import strings

    monkeypatch.setattr(strings, "_SENT", set())
    strings.i18n()
    assert "before any page was built" in caplog.text
    caplog.clear()
    monkeypatch.setattr(strings, "_SENT", {"start.tab"})
    strings.i18n()
    assert "before any page was built" not in caplog.text
