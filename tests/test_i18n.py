"""English, Korean and Japanese: every text in all three, every label of the app a translation key, and the
server's own text (errors, tables, figures) in the language of the session that asked."""

from __future__ import annotations

import asyncio
import re
import string
from collections import Counter
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from bg_demo import text


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


def test_the_session_language_beats_the_browser_header(monkeypatch):
    from gradio.context import LocalContext

    from bg_demo.ui import language

    request = SimpleNamespace(session_hash="s-1", headers={"accept-language": "ja-JP,ja;q=0.9"})
    token = LocalContext.request.set(request)
    text.set_resolver(language.resolve)
    try:
        assert text.current() == "ja"  # nothing chosen yet: the browser's language
        language.remember("ko", request)
        assert text.current() == "ko"  # the switch wins
        language.forget(request)
        assert text.current() == "ja"
    finally:
        LocalContext.request.reset(token)
        text.set_resolver(None)
    assert text.current() == "en"  # no request: English


def test_remembered_sessions_are_bounded(monkeypatch):
    from bg_demo.ui import language

    monkeypatch.setattr(language, "MAX_SESSIONS", 3)
    monkeypatch.setattr(language, "_sessions", type(language._sessions)())
    for n in range(5):
        language.remember("ko", SimpleNamespace(session_hash=f"s{n}"))
    assert list(language._sessions) == ["s2", "s3", "s4"]


def test_a_tables_headers_come_in_the_language_served():
    from bg_demo.ui.strings import rows

    with text.use("ja"):
        table = rows("qa.table_headers", [["x", 0.5, 0, 1, 1]])
    assert table["headers"] == text.t("qa.table_headers", "ja").split("|")
    assert len(table["headers"]) == len(text.t("qa.table_headers", "en").split("|"))


def _visible_words(demo):
    """Every label, info, placeholder, Markdown/Button text and choice label of the visible app that is
    plain text rather than a translation key."""
    import gradio as gr

    from bg_demo.ui import common

    neutral = {label for role in ("encoder", "decoder") for label, _ in common.model_choices(role)}
    neutral |= set(text.NAMES.values()) | {"Language · 언어 · 言語"}
    found = []
    for block in demo.blocks.values():
        if getattr(block, "visible", True) in (False, "hidden"):
            continue  # the hidden buttons that carry the API endpoints, the page's width report
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
    from bg_demo.ui.strings import I18N

    demo = build_demo()
    assert _visible_words(demo) == []
    translations = I18N.translations_dict
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
    from bg_demo.ui import pretraining_tab

    sentence = "The quick brown fox jumps over the lazy dog near the quiet river bank today."
    with text.use(lang):
        _, targets, *_ = pretraining_tab.corrupt(sentence, 3, progress=None)
    column = targets["headers"].index(text.t("pre.target_headers", lang).split("|")[3])
    shown = {row[column] for row in targets["data"]}
    words = {text.t(f"pre.treatment.{kind}", lang) for kind in ("mask", "random", "keep")}
    assert shown and shown <= words


# A language switch rewords what is on screen: each page's last call is replayed in the new language from what the
# backend gave it (no model runs again), as the browser's switch does after remembering the language


@contextmanager
def _session(name: str):
    from gradio.context import LocalContext

    from bg_demo.ui import language

    request = SimpleNamespace(session_hash=name, headers={"accept-language": "en-US"})
    token = LocalContext.request.set(request)
    text.set_resolver(language.resolve)
    try:
        yield request
    finally:
        language.forget(request)
        LocalContext.request.reset(token)
        text.set_resolver(None)


def _page_handler(demo, fn):
    """The handler the built app runs in the browser for a tab's function, and the outputs it writes."""
    from bg_demo.ui import reword

    for dependency in demo.fns.values():  # the API endpoint wraps `fn` too, but keeps nothing
        if getattr(dependency.fn, "__wrapped__", None) is fn and getattr(dependency.fn, reword.MARK, False):
            return dependency.fn, dependency.outputs
    raise LookupError(fn)


def _switch(demo, request, lang: str) -> dict:
    """What the switch to `lang` sends, by output id (only what it changes)."""
    import gradio as gr

    from bg_demo.ui import language, reword

    language.remember(lang, request)
    again, shown = reword.rewording(demo)
    values = asyncio.run(again(lang, request))
    return {block._id: value for block, value in zip(shown, values) if value != gr.skip()}


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


def _boxed(words: str) -> str:
    """An error box's text for an error worded `words`."""
    from bg_demo.ui.common import plain

    return "⚠️ " + plain(words)


def test_a_switch_redraws_fill_mask_sentiment_and_next_sentence_in_the_new_language_without_a_model(counted):
    from bg_demo.ui import build_demo, classify_tab, fill_mask_tab, next_sentence_tab

    demo = build_demo()
    with _session("switch-figures") as request:
        fill, fill_out = _page_handler(demo, fill_mask_tab.predict)
        sentiment, sentiment_out = _page_handler(demo, classify_tab.predict)
        nsp, nsp_out = _page_handler(demo, next_sentence_tab.predict)
        fill("The cat sat on the [MASK] by the [MASK].", 3, "", progress=None)
        sentiment("What a fine day.", progress=None)
        nsp("The man went to the store.", "He bought a gallon of milk.", "", progress=None)
        assert dict(counted) == {"fill_mask": 1, "classify": 1, "next_sentence": 1}
        shown = _switch(demo, request, "ko")
    assert dict(counted) == {"fill_mask": 1, "classify": 1, "next_sentence": 1}  # drawn again, not run again
    probability = text.t("fig.tasks.probability", "ko")
    bars = shown[fill_out[1]._id]
    assert bars.layout.xaxis.title.text == probability
    assert [note.text for note in bars.layout.annotations][:2] == [text.t("fig.tasks.mask_of", "ko", i=i, n=2)
                                                                  for i in (1, 2)]
    assert shown[sentiment_out[0]._id].layout.xaxis.title.text == probability
    labels = set(shown[nsp_out[0]._id].data[0].customdata)
    assert labels == {text.t("nsp.is_next", "ko"), text.t("nsp.not_next", "ko")}
    for outputs in (fill_out, sentiment_out, nsp_out):
        assert shown[outputs[-1]._id].visible is False  # no error: the box stays hidden
        assert outputs[-2]._id not in shown  # the raw JSON holds no words: not sent again


def test_a_switch_rewords_the_error_boxes(counted):
    from bg_demo.ui import build_demo, fill_mask_tab, next_sentence_tab

    demo = build_demo()
    with _session("switch-errors") as request:
        fill, fill_out = _page_handler(demo, fill_mask_tab.predict)
        nsp, nsp_out = _page_handler(demo, next_sentence_tab.predict)
        fill("The cat sat on the [MASK].", 3, "", progress=None)
        english = fill("no blank here", 3, "", progress=None)[-1].value  # the result above stays on screen
        assert english == _boxed(text.t("error.no_mask", "en", mask="[MASK]"))
        nsp("", "He bought a gallon of milk.", "", progress=None)
        shown = _switch(demo, request, "ja")
        assert shown[fill_out[-1]._id].value == _boxed(text.t("error.no_mask", "ja", mask="[MASK]"))
        assert shown[fill_out[1]._id].layout.xaxis.title.text == text.t("fig.tasks.probability", "ja")
        what = text.t("field.first sentence", "ja")
        assert shown[nsp_out[-1]._id].value == _boxed(text.t("error.empty", "ja", what=what))
        # a later run that succeeds is what the page shows: the switch keeps its box hidden
        fill("The cat sat on the [MASK].", 3, "", progress=None)
        shown = _switch(demo, request, "ko")
        assert shown[fill_out[-1]._id].visible is False
        assert shown[nsp_out[-1]._id].value.startswith(_boxed(text.t("field.first sentence", "ko")))
    assert counted["fill_mask"] == 3 and counted["next_sentence"] == 1


def test_a_switch_redraws_the_attention_and_compare_pages_from_their_kept_results(counted):
    from bg_demo.ui import attention_tab, build_demo, compare_tab

    demo = build_demo()
    with _session("switch-attention") as request:
        show, show_out = _page_handler(demo, attention_tab.show)
        draw, draw_out = _page_handler(demo, attention_tab.draw)
        result, *_ = show("The cat sat on the mat.", "encoder", "", progress=None)
        draw(result, "head", 1, 0, False, "entropy")
        attend, attend_out = _page_handler(demo, compare_tab.attend)
        heads, heads_out = _page_handler(demo, compare_tab.draw_heads)
        both, *_ = attend("The cat sat on the mat.", "", "", progress=None)
        heads(both, 1, 1)
        shown = _switch(demo, request, "ko")
    assert dict(counted) == {"attention": 1, "compare": 1}
    assert shown[draw_out[0]._id].layout.title.text.startswith(text.t("fig.attention.head_title", "ko", layer=1, head=0))
    with text.use("ko"):
        assert shown[show_out[1]._id] == attention_tab.notice(result)
    assert show_out[0]._id not in shown  # the kept weights are not sent again
    encoder_plot, decoder_plot = (shown[block._id] for block in heads_out[:2])
    assert encoder_plot.layout.title.text.startswith(text.t("fig.attention.head_title", "ko", layer=1, head=1))
    assert decoder_plot.layout.title.text.startswith(text.t("fig.attention.head_title", "ko", layer=1, head=1))
    assert shown[attend_out[2]._id].layout.yaxis.title.text == text.t("fig.attention.future_axis", "ko")


def test_a_switch_rewords_a_finished_generations_status_line(counted):
    from bg_demo.ui import build_demo, generate_tab

    demo = build_demo()
    with _session("switch-generate") as request:
        stream, outputs = _page_handler(demo, generate_tab.generate)

        async def finish():
            last = None
            async for last in stream("Hello there", "greedy", 4, 1.0, 50, 0.9, 4, 1, "", 0, 1.0, "", request=request,
                                     progress=None):
                pass
            return last

        english = asyncio.run(finish())
        assert counted["submit_generation"] == 1
        shown = _switch(demo, request, "ko")
    status = 2  # the outputs: the text, the beams, the status line, the raw result
    assert english[status] != shown[outputs[status]._id]
    assert _pattern("generate.status", "ko").fullmatch(shown[outputs[status]._id])
    assert counted["submit_generation"] == 1


def _pattern(key: str, lang: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in re.split(r"\{[^}]*\}", text.t(key, lang))), re.S)


def test_kept_calls_are_bounded_and_forgotten_with_the_page():
    from bg_demo.ui import language, reword

    kept = reword.Kept(sessions=2)
    for n in range(3):
        kept.keep(f"s{n}", "handler", reword.Call(0, (), {}, reword.Tape()))
    assert kept.of("s0") == [] and len(kept.of("s2")) == 1
    # a result, then an error beside it: both kept, in order; a result after them replaces both
    shown, failed, again = (reword.Call(0, (n,), {}, reword.Tape(), failed=n == 1) for n in range(3))
    for call in (shown, failed):
        kept.keep("s1", "handler", call)
    assert [call for _, call in kept.of("s1")] == [shown, failed]
    kept.keep("s1", "handler", again)
    assert [call for _, call in kept.of("s1")] == [again]
    kept.forget("s2")
    assert kept.of("s2") == []
    reword.KEPT.keep("gone", "handler", reword.Call(0, (), {}, reword.Tape()))
    language.forget(SimpleNamespace(session_hash="gone"))
    assert reword.KEPT.of("gone") == []


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_loading_notice_names_the_role_in_the_page_language(monkeypatch, lang):
    from bg_demo import backend
    from bg_demo.ui import common

    monkeypatch.setattr(backend, "model_is_loaded", lambda role, model_id=None: False)
    said = []
    with text.use(lang):
        common._loading_notice("sentiment", lambda _, desc: said.append(desc))
    assert said and said[0].startswith(text.t("app.role.sentiment", lang))  # the model itself: by its name


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_sentiment_labels_are_worded_beside_the_models_own(lang):
    from bg_demo.ui import classify_tab

    with text.use(lang):
        figure, *_ = classify_tab.predict("What a fine day.", progress=None)
    shown = set(figure.data[0].customdata)
    assert shown == {text.t("classify.label.POSITIVE", lang), text.t("classify.label.NEGATIVE", lang)}
    assert all(label.startswith(("POSITIVE", "NEGATIVE")) and label not in ("POSITIVE", "NEGATIVE") for label in shown)
