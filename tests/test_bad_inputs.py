"""Bad input through the public API: every named endpoint, every parameter, a battery of values the app cannot use.
Each probe must come back as a result or as a message in the app's own words (one of its texts, filled in), never
the generic "something went wrong", an empty error or Gradio's own English; the counts are printed."""

from __future__ import annotations

import asyncio
import json
import math
import re
import string
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import httpx
import pytest

from bg_demo import backend, text
from bg_demo.config import LIMITS
from bg_demo.errors import InputError
from bg_demo.text import Text, korean
from bg_demo.ui import gradio_compat
from bg_demo.ui.common import plain
from bg_demo.ui.strings import words

# a valid value for each text parameter without a default, so that each probe changes one input only
TEXTS = {
    "/fill_mask": ["The cat sat on the [MASK]."],
    "/explain_fill_mask": ["The cat sat on the [MASK]."],
    "/ner": ["Apple Inc. was founded by Steve Jobs in Cupertino."],
    "/explain_entity": ["Apple Inc. was founded by Steve Jobs in Cupertino."],
    "/qa": ["Who introduced it?", "The Transformer was introduced in 2017 by Ashish Vaswani at Google."],
    "/explain_answer": ["Who introduced it?", "The Transformer was introduced in 2017 by Ashish Vaswani at Google."],
    "/next_sentence": ["The man went to the store.", "He bought milk."],
    "/explain_next_sentence": ["The man went to the store.", "He bought milk."],
    "/input_representation": ["My dog is cute.", "He likes playing."],
}
SENTENCE = "The cat sat on the mat."
FAST = {("/generate", "max_new_tokens"): 3}  # a valid value that keeps the baseline quick
# the most characters a text parameter takes where it is not LIMITS.max_chars (the rest of the names: LIMITS.max_chars)
LONGER = {
    ("/qa", "context"): LIMITS.max_context_chars,
    ("/explain_answer", "context"): LIMITS.max_context_chars,
    ("/generate", "prompt"): LIMITS.max_prompt_chars,
    ("/explain_generation", "prompt"): LIMITS.max_prompt_chars,
    ("/next_token", "text"): LIMITS.max_prompt_chars,
    ("/explain_next_token", "text"): LIMITS.max_prompt_chars,
    ("/causal_lm", "text"): LIMITS.max_prompt_chars,
    ("/attention", "text"): LIMITS.max_prompt_chars,  # a page: up to GPT-2's 1,024 tokens
    ("/compare", "text"): LIMITS.max_prompt_chars,
}


def battery(kind: str, limit: int) -> list:
    """Values a parameter of this kind cannot use (or, for a few, can: 5 is a fine seed, None a left-out choice)."""
    if kind == "text":
        # a lone surrogate (no browser sends one; JSON can), other types, empty, and one character over the limit:
        # mostly spaces (which a silent strip would take) and words
        return ["a \ud800 b", ["a"], 5, {"a": 1}, None, "", "a" + " " * limit, ("word " * limit)[: limit + 1]]
    if kind == "number":
        return ["abc", [1], {}, "1e400", 10**400, math.nan, math.inf, None, True, 0.5]
    if kind == "model":
        return ["someone/unknown-model", "/etc", "../x", 5, [1], None]
    if kind == "choice":
        return ["not-a-choice", 12345, ["a"], {}, None]
    if kind == "value":  # a function's parameter (`gr.api`: the tutor's tools), sent as any JSON value
        return ["abc", 5, [1], {}, None]
    return ["abc", 5, [1], {}, None, {"generated": 5}, {"generated": [["x"]]}, {"generated": [[{"token_id": "x"}]]}]


def kind_of(parameter: dict) -> str:
    """text, number, model (a picker of Hub ids), choice (a fixed set) or json, from the API's description."""
    component = parameter["component"]
    if component == "Api":
        return "value"
    if component == "Textbox":
        return "text"
    if component in ("Number", "Slider"):
        return "number"
    if component in ("Dropdown", "Radio"):
        choices = parameter["type"].get("enum") or []
        return "model" if any("/" in str(choice) for choice in choices) else "choice"
    return "json"


# --- the client: Gradio's plain HTTP API, so that any JSON can be sent (gradio_client's httpx encodes strictly
# as UTF-8 and refuses NaN, which a raw request does not) ---------------------------------------------------------


def sent(data: list, lang: str = "en", width=1280) -> list:
    """An endpoint's values as a REST call sends them: the page's inputs, then the reader's `lang` and `width` (the
    two values every endpoint ends with; gradio_client fills them in when left out, a REST call sends them)."""
    return [*data, lang, width]


def call(url: str, api_name: str, data: list, lang: str | None = None) -> tuple[str, object]:
    """("complete", outputs) or ("error", message) for one request to a named endpoint (`lang`: the browser's
    Accept-Language header)."""
    # ensure_ascii: a lone surrogate travels as \\ud800; NaN as NaN. One session per thread, as a browser tab has:
    # Gradio builds a new session's copy of the whole page's config (~0.2 s here)
    body = json.dumps({"data": data, "session_hash": f"bad-inputs-{threading.get_ident()}"})
    headers = {"Content-Type": "application/json", **({"Accept-Language": lang} if lang else {})}
    with httpx.Client(base_url=f"{url.rstrip('/')}/gradio_api", timeout=120, headers=headers) as http:
        posted = http.post(f"/call{api_name}", content=body)
        if posted.status_code != 200:
            return "error", f"HTTP {posted.status_code}"
        event = None
        with http.stream("GET", f"/call{api_name}/{posted.json()['event_id']}") as stream:
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and event in ("complete", "error"):
                    found = json.loads(line.split(":", 1)[1])
                    if event == "complete":
                        return "complete", found
                    return "error", found.get("error") if isinstance(found, dict) else found
    return "error", None


def _pattern(template: str) -> str:
    parts = []
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(korean.pattern(literal))  # a Korean particle mark reads as either of its forms
        if name is not None:
            parts.append(".*?")
    return "".join(parts)


def _literal(template: str) -> str:
    return "".join(literal for literal, *_ in string.Formatter().parse(template))


def worded(lang: str = "en") -> re.Pattern:
    """Any of the app's texts in `lang`, filled in with anything (an error message is one whole text)."""
    table = text.tables()[lang]
    templates = sorted((template for key, template in table.items()
                        if key != "app.unexpected" and len(_literal(template)) >= 10), key=len, reverse=True)
    return re.compile("|".join(f"(?:{_pattern(template)})" for template in templates), re.DOTALL)


def classify(outcome: tuple[str, object], words: re.Pattern) -> str:
    event, message = outcome
    if event == "complete":
        return "answer"
    if not message or not str(message).strip():
        return "empty"
    if any(str(message) == text.t("app.unexpected", lang) for lang in text.LANGS):
        return "generic"
    return "worded" if words.fullmatch(str(message)) else "foreign"


@pytest.fixture(scope="module")
def app(served):
    return served


def baseline(name: str, parameters: list[dict], generated=None) -> list:
    """Valid arguments for an endpoint: its defaults, a sentence for each text, a generation's result for a result."""
    texts = iter(TEXTS.get(name, []))
    values = []
    for parameter in parameters:
        kind, key = kind_of(parameter), (name, parameter["parameter_name"])
        if key in FAST:
            values.append(FAST[key])
        elif parameter["parameter_has_default"]:
            values.append(parameter["parameter_default"])
        elif kind == "text":
            values.append(next(texts, SENTENCE))
        elif kind == "json":  # the Why? panel of generation reads the result on screen
            values.append(generated)
        elif kind == "value":  # a tool's argument: the example the API page shows, which runs
            values.append(parameter["example_input"])
        else:
            values.append(None)
    return values


def probes(url: str, endpoints: dict, generate: dict) -> list[tuple[str, str, str, object, list]]:
    """(endpoint, parameter, kind, bad value, arguments) for every parameter of every endpoint of `endpoints`;
    `generate`: /generate's description (a generation's result is what the Why? panel of generation reads)."""
    event, outputs = call(url, "/generate", baseline("/generate", generate["parameters"]))
    assert event == "complete", outputs
    found = []
    for name, endpoint in endpoints.items():
        parameters = endpoint["parameters"]
        valid = baseline(name, parameters, generated=outputs[-1])
        for i, parameter in enumerate(parameters):
            kind, limit = kind_of(parameter), LONGER.get((name, parameter["parameter_name"]), LIMITS.max_chars)
            for bad in battery(kind, limit):
                found.append((name, parameter["parameter_name"], kind, bad, [*valid[:i], bad, *valid[i + 1:]]))
    return found


def _printable(part) -> str:
    return str(part).encode("utf-8", "backslashreplace").decode()  # a message may quote a lone surrogate back


TOOLS = "/tutor_"  # the AI tutor's endpoints: their battery runs in tests/test_mcp.py, beside this file's


def test_every_bad_input_gets_a_worded_message(app, tiny_dir):
    demo, url = app
    endpoints = gradio_compat.api_info(demo)["named_endpoints"]  # what "Use via API" lists
    assert {"/fill_mask", "/attention", "/generate", "/input_representation", "/explain_generation"} <= set(endpoints)
    battery_is_worded(url, {name: e for name, e in endpoints.items() if not name.startswith(TOOLS)},
                      endpoints["/generate"], tiny_dir)


def battery_is_worded(url: str, endpoints: dict, generate: dict, tiny_dir) -> None:
    """Every probe of `endpoints` answered or refused in the app's words (never a generic or foreign message)."""
    sent = probes(url, endpoints, generate)
    words = worded("en")
    with ThreadPoolExecutor(4) as pool:  # a Gradio session per thread; the tiny models answer in milliseconds
        outcomes = list(pool.map(lambda probe: call(url, probe[0], probe[4]), sent))
    found = [classify(outcome, words) for outcome in outcomes]
    counts = Counter(found)
    print(f"\n{len(sent)} probes on {len(endpoints)} endpoints: {dict(sorted(counts.items()))}")
    by_kind = Counter((probe[2], outcome) for probe, outcome in zip(sent, found))
    print("   by parameter kind:", ", ".join(f"{kind}/{outcome} {n}" for (kind, outcome), n in sorted(by_kind.items())))
    bad = [(name, parameter, repr(value)[:40], outcome[1] if outcome[0] == "error" else "")
           for (name, parameter, _, value, _), outcome, kind in zip(sent, outcomes, found)
           if kind in ("generic", "empty", "foreign")]
    for line in bad[:40]:
        print("  ", *map(_printable, line))
    assert counts["generic"] == counts["empty"] == counts["foreign"] == 0, bad[:20]
    assert counts["worded"] > counts["answer"]  # the battery is mostly refused, each time with a message
    # the models load from local folders here: results and messages name them, never their server paths
    answers = json.dumps(outcomes, ensure_ascii=False)
    name = "tiny-random/bert-base-uncased"
    assert str(tiny_dir) not in answers
    assert f'"model_id": "{name}"' in answers or f'\\"model\\":\\"{name}\\"' in answers


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_a_refusal_is_worded_in_the_language_asked_for(app, lang):
    _, url = app
    words = worded(lang)
    cases = [
        ("/fill_mask", ["The cat sat on the [MASK].", "abc", ""]),  # a number that is not one
        ("/fill_mask", ["The cat sat on the [MASK].", 500, ""]),  # out of range
        ("/ner", ["Apple was founded by Steve Jobs.", "loudest"]),  # not one of the choices
        ("/attention", ["The cat sat.", "encoder", "someone/unknown-model"]),  # a model that is not offered
        ("/classify", ["\ud800"]),  # a lone surrogate
    ]
    for name, data in cases:  # the call names its language as a browser does (a tag, or a header's list)
        event, message = call(url, name, sent(data, f"{lang}-XX,{lang};q=0.9"))
        assert event == "error" and words.fullmatch(message), (name, message)
        assert not worded("en").fullmatch(message), (name, message)


def test_attention_refuses_a_model_it_does_not_offer_like_every_other_page(app):
    _, url = app
    event, message = call(url, "/attention", sent(["The cat sat.", "encoder", "someone/unknown-model"]))
    assert event == "error" and "not offered for the encoder role" in message and "bert-base-uncased" in message
    # a model of the other role, left in the picker by an example that switched the role, means the role's default
    event, outputs = call(url, "/attention", sent(["The cat sat.", "encoder", "openai-community/gpt2"]))
    assert event == "complete" and outputs[-1]["role"] == "encoder"
    assert outputs[-1]["model_id"] == "tiny-random/bert-base-uncased"  # the role's own model, by its name


def test_a_folder_that_will_not_load_is_named_without_its_path(app, monkeypatch, tmp_path):
    from bg_demo import config, models

    _, url = app
    monkeypatch.setenv("BG_DEMO_SENTIMENT", str(tmp_path / "missing-model"))
    config.settings.cache_clear()
    models.STORE.clear()
    event, message = call(url, "/classify", sent(["I loved it."]))
    assert event == "error" and "'missing-model'" in message and "BG_DEMO_SENTIMENT" in message
    assert str(tmp_path) not in message


# --- number boxes in the browser: Gradio's own preprocessing runs first, then the page's handler ----------------


def in_page(demo, handler: str, values: list, lang: str) -> list:
    """What a page in `lang` gets when the browser sends `values` to its event whose function is `handler`: Gradio's
    preprocessing, the handler and the postprocessing, as for a click. An error Gradio raises itself (its toast in
    the corner, in English) comes out as an exception."""
    from bg_demo.ui.gradio_compat import listeners, new_session

    event = next(fn for fn in listeners(demo) if getattr(fn.fn, "__name__", None) == handler)
    # then the page's kept result (none yet), its language and its width: what every page event reads
    data = asyncio.run(demo.process_api(event, [*values, None, lang, 1280], new_session(demo)))["data"]
    return data[:-1]  # less the page's state


def test_no_number_box_has_bounds_that_gradio_enforces_before_our_checks(app):
    """A number box with a minimum or a maximum makes Gradio refuse a value past it in its own English, in a corner
    toast, before the handler runs; the bounds are checked by the app instead. (A slider keeps its range: the
    browser brings its box back within it, so it never sends a value past it.)"""
    demo, _ = app
    bounded = [(words(block.label, "en"), block.minimum, block.maximum) for block in gradio_compat.components(demo).values()
               if isinstance(block, gr.Number) and (block.minimum is not None or block.maximum is not None)]
    assert bounded == []
    boxes = {words(block.label, "en") for block in gradio_compat.components(demo).values() if isinstance(block, gr.Number)}
    assert {"Seed (which tokens get picked)", "Which [MASK] (1 = the first)", "Which guess (1 = the best)"} <= boxes


ENTITIES = "Apple Inc. was founded by Steve Jobs in Cupertino."
MASKED = "The cat sat on the [MASK]."


def _generation(max_new_tokens) -> list:
    """The Generate page's inputs, greedy, with `max_new_tokens`."""
    return ["Once upon a time", "greedy", max_new_tokens, 1.0, 50, 0.9, 4, 1, "", 0, 1.0, ""]


def _out_of_range(field: str, low, high, got) -> tuple[str, dict]:
    return "error.out_of_range", dict(what=Text(f"field.{field}"), low=low, high=high, got=got)


@pytest.mark.parametrize(
    ("handler", "values", "message"),
    [
        ("corrupt_in_page", [SENTENCE, -3, ""], _out_of_range("Seed", 0, 2**31 - 1, "-3")),
        ("generate_in_page", _generation(0), _out_of_range("New tokens", 1, LIMITS.max_new_tokens, "0")),
        ("generate_in_page", _generation(-3), _out_of_range("New tokens", 1, LIMITS.max_new_tokens, "-3")),
        ("generate_in_page", _generation(100000), _out_of_range("New tokens", 1, LIMITS.max_new_tokens, "100000")),
        # the Why? panels count as their fields do: from 1
        ("explain_fill_mask_in_page", [MASKED, 3, 1, "last", "mean", "", 5], _out_of_range("Mask", 1, 1, "3")),
        ("explain_fill_mask_in_page", [MASKED, 0, 1, "last", "mean", "", 5], _out_of_range("Mask", 1, 1, "0")),
        # only a guess on screen (top-k) can be explained
        ("explain_fill_mask_in_page", [MASKED, 1, 7, "last", "mean", "", 5], _out_of_range("Guess", 1, 5, "7")),
        ("explain_fill_mask_in_page", [MASKED, 1, 0, "last", "mean", "", 5], _out_of_range("Guess", 1, 5, "0")),
        ("explain_entity_in_page", [ENTITIES, "average", 0, "last", "mean"], _out_of_range("Entity", 1, "{n}", "0")),
        ("explain_entity_in_page", [ENTITIES, "average", 99, "last", "mean"], _out_of_range("Entity", 1, "{n}", "99")),
        ("explain_generation_in_page", ["Once upon a time", "{generated}", 0, "last", "mean", ""],
         ("why.sequence_range", dict(n=1))),
        ("explain_generation_in_page", ["Once upon a time", "{generated}", 2, "last", "mean", ""],
         ("why.sequence_range", dict(n=1))),
        # a layer the model does not have: the list offers more than a small model's layers until it has explained
        ("explain_classify_in_page", ["I loved it.", "7", "mean"], _out_of_range("Layer", 0, 1, "7")),
    ],
)
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_number_out_of_range_is_refused_beside_the_output_in_the_pages_language(app, handler, values, message, lang):
    demo, _ = app
    if "{generated}" in values:  # the result on screen, which the generation's panel reads
        generated = backend.generate("Once upon a time", "greedy", max_new_tokens=3).to_dict()
        values = [generated if value == "{generated}" else value for value in values]
    key, fill = message
    if "{n}" in fill.values():  # how many entities the tiny model finds
        n = len(backend.recognize_entities(ENTITIES, "average").entities)
        fill = {name: n if value == "{n}" else value for name, value in fill.items()}
    *outputs, box = in_page(demo, handler, values, lang)
    assert box["visible"] and box["value"] == f"⚠️ {plain(text.t(key, lang, **fill))}"
    assert all(_unchanged(output) for output in outputs)  # the result on screen stays


def _unchanged(output) -> bool:
    """An output update that changes nothing (a gr.skip(); an HTML output's carries its empty props)."""
    return output.get("__type__") == "update" and "value" not in output and "value" not in output.get("props", {})


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("/mlm_corruption", [SENTENCE, -3, ""], "Seed must be between 0 and 2147483647; got -3."),
        ("/mlm_corruption", [SENTENCE, 2.5, ""], "Seed must be a whole number between 0 and 2147483647; got 2.5."),
        ("/generate", _generation(100000), f"New tokens must be between 1 and {LIMITS.max_new_tokens}; got 100000."),
        ("/explain_fill_mask", [MASKED, 3, 1, "last", "mean", "", 5], "Mask must be between 1 and 1; got 3."),
        ("/explain_fill_mask", [MASKED, 1, 7, "last", "mean", "", 5], "Guess must be between 1 and 5; got 7."),
    ],
)
def test_the_api_refuses_a_number_out_of_range_with_the_range(app, name, data, message):
    _, url = app
    assert call(url, name, sent(data)) == ("error", message)


# --- the same rules, one function at a time -----------------------------------------------------------------


@pytest.mark.parametrize("value", [10**400, -(10**400), "1e400", "nan", "inf", math.nan, math.inf, True, "abc", [1],
                                   {}, None, 2.5, "9" * 400])
def test_require_int_refuses_anything_but_a_whole_number(value):
    from bg_demo.backend._common import require_int
    from bg_demo.errors import InputError

    with pytest.raises(InputError) as caught:
        require_int(value, "Seed", 0, 10)
    assert str(caught.value).startswith("Seed must be") and len(str(caught.value)) < 120  # the value quoted, cut short


def test_require_int_keeps_what_it_always_took():
    from bg_demo.backend._common import require_int

    assert require_int("7", "Seed", 0, 10) == 7 and require_int(7.0, "Seed", 0, 10) == 7
    assert require_int(10**400, "Seed", 0, 10**401) == 10**400  # compared as an int, never through a float


@pytest.mark.parametrize("value", [10**400, "1e400", "nan", "-inf", math.nan, math.inf, True, "abc", [1], None])
def test_require_float_refuses_anything_but_a_finite_number_in_range(value):
    from bg_demo.backend._common import require_float
    from bg_demo.errors import InputError

    with pytest.raises(InputError, match="^Temperature must be"):
        require_float(value, "Temperature", 0.05, 5.0)


def test_require_text_refuses_a_lone_surrogate_and_keeps_real_characters():
    from bg_demo.backend._common import require_text
    from bg_demo.errors import InputError

    for bad in ("\ud800", "a \udfff b", "😀\udc00"):
        with pytest.raises(InputError, match="lone surrogate"):
            require_text(bad)
    with pytest.raises(InputError, match="must be text"):
        require_text(["a"])
    assert require_text(" 😀 한국어 ") == "😀 한국어"  # characters beyond the BMP are text like any other


def test_the_second_sentence_is_bounded_like_the_first():
    from bg_demo.backend import input_representation
    from bg_demo.errors import InputError

    with pytest.raises(InputError, match="second sentence is 2,001 characters long; the limit is 2,000"):
        input_representation("My dog is cute.", "a" + " " * LIMITS.max_chars)
    with pytest.raises(InputError, match="second sentence must be text"):
        input_representation("My dog is cute.", ["He likes playing."])
    alone = input_representation("My dog is cute.", "   ")  # left out: one sentence, as before
    assert alone.second == "" and {row.segment_id for row in alone.rows} == {0}


def test_the_next_token_labs_text_is_bounded_before_it_is_stripped():
    from bg_demo.backend import next_token
    from bg_demo.errors import InputError

    with pytest.raises(InputError, match="6,001 characters long"):
        next_token("a" + " " * LIMITS.max_prompt_chars)


def test_an_export_that_cannot_be_written_says_so_beside_the_output(tmp_path, monkeypatch):
    from bg_demo import backend
    from bg_demo.ui import attention_tab, downloads
    from bg_demo.ui.page import Shown

    result = backend.attention("The cat sat.", "encoder")
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setattr(downloads, "_root", blocked)  # where the exports go cannot hold a folder
    for lang in ("en", "ko"):  # in the page's language
        files, box = attention_tab.export(Shown(result), lang, 1280, "head", 0, 0, False, "entropy")
        assert box.visible and box.value == f"⚠️ {plain(text.t('error.export_failed', lang, reason='Not a directory'))}"
        assert str(tmp_path) not in box.value and files == gr.skip()  # the files on screen stay
    assert "서버에 파일을 쓰지 못했어요(Not a directory)" in box.value.replace("\\", "")  # the last: Korean
    _, box = attention_tab.export(Shown(result), "en", 1280, "head", 0, 0, False, "entropy")
    assert "could not be written on the server (Not a directory)" in box.value.replace("\\", "")  # Markdown's escapes


def test_a_local_folder_is_named_by_its_model_everywhere_never_by_its_role_or_path(tiny_dir, tmp_path):
    from bg_demo import config, models
    from bg_demo.look import Look
    from bg_demo.ui import common, compare_tab

    # the offline classroom's layout (DIR/<role>): each folder names its model (`tiny-models`, `download` write it)
    assert config.public_name(str(tiny_dir / "encoder")) == "tiny-random/bert-base-uncased"
    assert config.public_name("./models/enc") == "enc"  # a folder of the teacher's own: by its name
    assert config.public_name("google-bert/bert-base-uncased") == "google-bert/bert-base-uncased"
    assert common.model_label(str(tiny_dir / "decoder")) == "📁 tiny-random/gpt2"
    assert models.get("encoder").model_id == "tiny-random/bert-base-uncased"
    assert models.get("encoder").location == str(tiny_dir / "encoder")
    table, held, raw = compare_tab.measured(compare_tab.measure(), Look())  # the facts card and the memory line
    shown = json.dumps([table, held, raw], ensure_ascii=False)
    assert str(tiny_dir) not in shown and raw[0]["model_id"] == "tiny-random/bert-base-uncased"
    # a role's folder with no name written in it (copied by hand): its architecture, never the role alone
    (tmp_path / "decoder").mkdir()
    (tmp_path / "decoder" / "config.json").write_text('{"model_type": "gpt2"}')
    assert config.public_name(str(tmp_path / "decoder")) == "gpt2 (decoder)"
    config.name_folder(tmp_path / "decoder", "openai-community/gpt2")  # as `download` writes it
    config._folder_name.cache_clear()
    assert config.public_name(str(tmp_path / "decoder")) == "openai-community/gpt2"
    reason = models._reason(OSError("Incorrect path_or_model_id: '/srv/models/enc'. Please provide a folder."))
    assert reason == "Incorrect path_or_model_id: 'enc'. Please provide a folder."


def test_the_first_load_notice_names_a_folder_by_its_name(tiny_dir):
    from bg_demo import models
    from bg_demo.look import Look
    from bg_demo.ui import common

    models.STORE.clear()
    said = []
    common.Loading(lambda fraction, desc: said.append(desc), Look())("encoder")
    assert said and "(tiny-random/bert-base-uncased)" in said[0] and str(tiny_dir) not in said[0]


@pytest.mark.parametrize("lang", ["en", "ko", "ja"])
def test_a_task_cell_too_long_is_named_by_its_table_and_row(lang):
    """A sentence over the limit in the fine-tune page's tables: the message says which table, which row, and by how
    much, in the page's language."""
    from bg_demo.backend.labelled import labelled

    long = "word " * 80
    with pytest.raises(InputError) as raised:
        labelled([["fine", "a"], ["good", "b"]], [["fine", "a"], [long, "b"]])
    words = raised.value.text.render(lang)
    expected = text.t("error.task_cell", lang, what=text.t("field.test", lang), row=2, problem=text.t(
        "error.too_long", lang, what=text.t("field.sentence", lang), n=len(long), limit=300))
    assert words == expected and "2" in words and text.t("field.test", lang) in words
