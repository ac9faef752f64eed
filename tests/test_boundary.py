"""The backend is a boundary another process can host (a ZeroGPU worker pickles its results back): every result
and every error survives pickling, and a result holds data only, never words of the language being served."""

import ast
import json
import pickle
from pathlib import Path

import pytest

from bg_demo import backend, text
from bg_demo.errors import BgDemoError, InputError, MissingHeadError, ModelUnavailableError
from bg_demo.text import Text

MASKED = "The cat sat on the [MASK]."
CONTEXT = "The Transformer was introduced in 2017 by Ashish Vaswani at Google."
ENTITIES = "Apple Inc. was founded by Steve Jobs in Cupertino, California."


def _generated_ids() -> list[int]:
    return [info.token_id for info in backend.generate("Once", "greedy", max_new_tokens=2).generated[0]]


def _answer_attention():
    found = backend.answer("Who introduced it?", CONTEXT)
    window = found.alternatives[0].window if found.alternatives else None
    return backend.answer_attention("Who introduced it?", CONTEXT, found.start, found.end, window)


def _last(stream):
    *_, result = stream
    return result


# every public function that takes a user's input, called on the tiny models
TASK = [["A good film.", "good"], ["A bad film.", "bad"], ["Good fun.", "good"]]
CALLS = {
    "fill_mask": lambda: backend.fill_mask("I went to the [MASK] to deposit some [MASK].", top_k=3),
    "classify": lambda: backend.classify("I loved this movie."),
    "recognize_entities": lambda: backend.recognize_entities(ENTITIES, "average"),
    "answer": lambda: backend.answer("Who introduced it?", CONTEXT),
    "answer_attention": _answer_attention,
    "next_sentence": lambda: backend.next_sentence("The man went to the store.", "He bought milk."),
    "generate": lambda: backend.generate("Once upon a time", "beam", max_new_tokens=3, num_beams=2),
    "generate_stream": lambda: _last(backend.generate_stream("Once", "top_k", max_new_tokens=3, seed=1)),
    "attention": lambda: backend.attention("The animal was tired.", "decoder"),
    "attention_summary": lambda: backend.attention_summary("The animal was tired.", "encoder", layer=1, head=0),
    "compare": lambda: backend.compare("The animal was tired."),
    "same_word": lambda: backend.same_word("I saw a zyxwv today", "You saw a zyxwv today", "zyxwv"),
    "predict_masked_both": lambda: backend.predict_masked_both("The [MASK] barked all night.", top_k=3),
    "model_facts": lambda: backend.model_facts("encoder"),
    "logit_lens": lambda: backend.logit_lens("The cat sat"),
    "next_token": lambda: backend.next_token("The cat sat on the", 0.8, top_k=5, n=3, seed=0),
    "mlm_corruption": lambda: backend.mlm_corruption("The quick brown fox jumps over the lazy dog.", seed=3),
    "input_representation": lambda: backend.input_representation("My dog is cute.", "He likes playing."),
    "causal_lm": lambda: backend.causal_lm("The capital of France is Paris."),
    "explain_fill_mask": lambda: backend.explain_fill_mask(MASKED, steps=4),
    "explain_classify": lambda: backend.explain_classify("I loved this movie.", steps=4),
    "explain_next_sentence": lambda: backend.explain_next_sentence("The man left.", "He came back.", steps=4),
    "explain_next_token": lambda: backend.explain_next_token("The cat sat on the", steps=4),
    "explain_entity": lambda: backend.explain_entity(ENTITIES, 0, "average", steps=4),
    "explain_answer": lambda: backend.explain_answer("Who introduced it?", CONTEXT, steps=4),
    "explain_generation": lambda: backend.explain_generation("Once", _generated_ids(), steps=4),
    "prompt_task": lambda: backend.prompt_task("decoder", TASK, TASK, "Review: {text}\nSentiment:", "good, bad", 1,
                                               calibrate=True),
    "fine_tune": lambda: _last(backend.fine_tune("encoder", TASK, TASK, "lora", 3, None, 2)),
    "predict_tuned": lambda: backend.predict_tuned(_last(backend.fine_tune("decoder", TASK, TASK, "head", 2)).tuned,
                                                   "A good day."),
    "explain_tuned": lambda: backend.explain_tuned(_last(backend.fine_tune("encoder", TASK, TASK, "lora", 2)).tuned,
                                                   "A good day.", steps=4),
    "explain_prompted": lambda: backend.explain_prompted("decoder", "Review: A good film.\nSentiment:", "good",
                                                         steps=4),
    "checkpoint_scores": lambda: backend.checkpoint_scores(
        [["I loved it.", "POSITIVE"], ["I hated it.", "NEGATIVE"]], [["A lovely day.", "POSITIVE"]]),
}
# exported, but no result of a user's input: settings, seeds, a running generation's handle, the model store, the
# call table
NOT_RESULTS = {"GenerationSettings", "seed_or_draw", "submit_generation", "model_is_loaded", "model_memory",
               "model_source", "CALLS"}
VOLATILE = {"seconds", "forward_ms"}  # wall-clock times: two runs never agree on them


def test_every_public_function_is_checked():
    assert set(CALLS) == set(backend.__all__) - NOT_RESULTS


def _steady(value):
    """A result's to_dict() without its wall-clock times."""
    if isinstance(value, dict):
        return {key: _steady(item) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return [_steady(item) for item in value]
    return value


@pytest.fixture
def marked_korean(monkeypatch):
    """Korean served, with every text "KO:" + its English: any text that reaches a result shows."""
    tables = text.tables()
    monkeypatch.setitem(tables, "ko", {key: "KO:" + words for key, words in tables["en"].items()})
    with text.use("ko"):
        yield


@pytest.mark.parametrize("name", CALLS)
def test_a_result_pickles_and_holds_no_words(name, marked_korean):
    korean = CALLS[name]()
    with text.use("en"):
        english = CALLS[name]()
    copy = pickle.loads(pickle.dumps(korean))
    assert type(copy) is type(korean)
    assert copy.to_dict() == korean.to_dict()
    data = korean.to_dict()
    assert json.loads(json.dumps(data)) == data  # plain values: no Text, no object that words itself
    assert _steady(data) == _steady(english.to_dict())  # the same in every language: the UI words it
    assert "KO:" not in json.dumps(data, ensure_ascii=False)


def test_no_backend_module_puts_anything_into_words():
    """The backend names texts (error keys, phrases); only the UI and the figures call `t`."""
    for path in Path(backend.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "bg_demo.text":
                assert "t" not in {alias.name for alias in node.names}, path.name


# --- errors cross the boundary too -----------------------------------------------------------------------------

ERRORS = {
    "key": lambda: BgDemoError("error.empty", what=Text("field.text")),
    "words": lambda: BgDemoError("A model's own message, passed on as it is."),
    "input": lambda: InputError("error.too_long", what=Text("field.text"), n=5001, limit=5000),
    "unavailable": lambda: ModelUnavailableError("encoder", "some/model", "no network"),
    "missing_mlm": lambda: MissingHeadError("some/model", "mlm"),
    "missing_lm": lambda: MissingHeadError("some/model", "lm"),
}


def _raised(call):
    with pytest.raises(BgDemoError) as caught:
        call()
    return caught.value


RAISED = {
    "bad_int": lambda: _raised(lambda: backend.fill_mask(MASKED, top_k="many")),
    "no_mask": lambda: _raised(lambda: backend.fill_mask("No mask here.")),
    "no_word": lambda: _raised(lambda: backend.same_word("A bank.", "A river.", "bank")),
}


@pytest.mark.parametrize("name", [*ERRORS, *RAISED])
def test_an_error_pickles_with_its_class_attributes_and_words(name):
    error = {**ERRORS, **RAISED}[name]()
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and copy.args == error.args
    assert vars(copy) == vars(error)
    for lang in text.LANGS:
        with text.use(lang):
            assert str(copy) == str(error)


def test_an_error_is_worded_in_the_language_of_whoever_shows_it():
    """Pickled in one language, shown in another: the words are chosen when shown."""
    with text.use("ja"):
        copy = pickle.loads(pickle.dumps(MissingHeadError("some/model", "nsp")))
    with text.use("ko"):
        assert str(copy) == text.t("error.missing_head.nsp", "ko", model="some/model", instead=copy.text.values["instead"])


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_text_pickles_at_every_protocol(protocol):
    message = Text("error.too_long", what=Text("field.text"), n=5001, limit=5000)
    copy = pickle.loads(pickle.dumps(message, protocol=protocol))
    assert copy == message and copy.render("ko") == message.render("ko")
