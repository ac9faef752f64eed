"""Many BERT task requests as one padded forward pass per model (`bg_demo.backend.batch`): every result equals the
single call's, a bad input is its own call's error only, and a group of one model runs its forward once."""

import importlib
import math
import threading
import time

import pytest

from bg_demo import backend, config, dispatch, models
from bg_demo.backend import batch, entities, qa
from bg_demo.errors import BgDemoError, MissingHeadError
from bg_demo.tiny_models import corpus_lines
from tests.conftest import TEST_ZEROGPU
from tests.tolerance import tolerance

# on ZeroGPU every model call runs in a GPU worker; a batch is made where the models live (a serving replica)
pytestmark = pytest.mark.skipif(TEST_ZEROGPU, reason="batches run where the models are, not through ZeroGPU")

classify, fill_mask, next_sentence = (importlib.import_module(f"bg_demo.backend.{name}")
                                      for name in ("classify", "fill_mask", "next_sentence"))
MODULES = {"fill_mask": fill_mask, "classify": classify, "recognize_entities": entities, "answer": qa,
           "next_sentence": next_sentence}
ROLES = {"fill_mask": "encoder", "classify": "sentiment", "recognize_entities": "ner", "answer": "qa",
         "next_sentence": "encoder"}
SHORT = "The Transformer was introduced in 2017 by Ashish Vaswani and colleagues at Google."
LONG = " ".join(corpus_lines() * 3)  # about 2,600 tokens: eleven windows of 384

# per task: calls of different lengths and one bad input (the last), all for the role's configured model
MIXED = {
    "fill_mask": [
        (("The cat sat on the [MASK].",), {"top_k": 5, "model_id": None}),
        (("I went to the [MASK] to deposit some [MASK] before the long weekend began in the old city.",), {"top_k": 3}),
        (("[MASK] [MASK] [MASK] on the mat.",), {}),
        (("Paris is the [MASK] of France.", 20), {}),
        (("There is no mask in this sentence.",), {}),
    ],
    "classify": [
        (("I loved this movie.",), {}),
        (("The plot dragged on and on, the actors seemed bored, and by the end I had stopped caring at all.",), {}),
        (("Fine.",), {"model_id": None}),
        (("   ",), {}),
    ],
    "recognize_entities": [
        (("Apple Inc. was founded by Steve Jobs in Cupertino, California.",), {}),
        (("Angela Merkel met Emmanuel Macron in Berlin to talk about Zanzibar and Xylophones.", "first"), {}),
        (("Hugging Face is a company based in New York City.",), {"aggregation": "average"}),
        (("  Paris  ",), {"aggregation": "none"}),
        (("Steve Jobs",), {"aggregation": "max"}),
        (("Berlin is in Germany.",), {"aggregation": "bogus"}),
    ],
    "answer": [
        (("Who introduced the Transformer?", SHORT), {}),
        (("What does it rely on?", LONG), {"n_best": 3}),
        (("When?", "It opened in 1901."), {"model_id": None}),
        (("word " * 300, SHORT), {}),
    ],
    "next_sentence": [
        (("The man went to the store.", "He bought a gallon of milk."), {}),
        (("The man went to the store after work because the fridge was empty and guests were coming.",
          "Penguins are flightless birds."), {}),
        (("Hi.", "Bye."), {"model_id": None}),
        (("a " * 300, "b " * 300), {}),
    ],
}

# an allowlisted encoder with its own tiny stand-in (a different vocabulary): its calls are a group of their own
SECOND_ENCODER = "google-bert/bert-base-multilingual-cased"
SECOND = {
    "fill_mask": [
        (("The cat sat on the [MASK].",), {"model_id": SECOND_ENCODER}),
        (("A much longer sentence for the second model, whose [MASK] is padded among short neighbours.",),
         {"top_k": 2, "model_id": SECOND_ENCODER}),
    ],
    "next_sentence": [
        (("The man went to the store.", "He bought a gallon of milk."), {"model_id": SECOND_ENCODER}),
        (("Hi.", "The weather in the mountains changed quickly that afternoon."), {"model_id": SECOND_ENCODER}),
    ],
}


def single(name, args, kwargs):
    """What the single call returns (the task's own function, not the backend's batching one), or its BgDemoError."""
    try:
        return getattr(backend, name).entry.function(*args, **kwargs)
    except BgDemoError as error:
        return error


def assert_same(name, ours, theirs):
    """Errors: same class and message key and values. Results: same class, to_dict() equal with floats within the
    tolerance of the task's role's dtype (a padded batch rounds otherwise than one row alone; tests/tolerance.py)."""
    assert type(ours) is type(theirs), (ours, theirs)
    if isinstance(theirs, BgDemoError):
        assert ours.text == theirs.text and ours.args == theirs.args
        return
    ours, theirs = ours.to_dict(), theirs.to_dict()
    if "filled" in theirs and [m[0]["token"] for m in ours["masks"]] != [m[0]["token"] for m in theirs["masks"]]:
        del ours["filled"], theirs["filled"]  # a best guess that is a near tie (below) fills the sentence otherwise
    _close(ours, theirs, "", tolerance(ROLES[name]))


def _close(ours, theirs, where, tol):
    if isinstance(theirs, float):  # a probability, or QA's logits (a span's: start + end)
        assert ours == pytest.approx(theirs, abs=2 * tol.logit if "logit" in where else tol.probability), where
    elif isinstance(theirs, list) and theirs and isinstance(theirs[0], dict) and "token_id" in theirs[0]:
        assert len(ours) == len(theirs), where  # fill-mask's ranked guesses: near ties may be ranked either way
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            if a["token_id"] == b["token_id"]:
                _close(a, b, f"{where}[{i}]", tol)
            else:
                assert abs(math.log(a["score"]) - math.log(b["score"])) <= tol.tie, f"{where}[{i}]"
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), where  # in order: a label's rank is part of the result
        for key in theirs:
            _close(ours[key], theirs[key], f"{where}.{key}", tol)
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _close(a, b, f"{where}[{i}]", tol)
    else:
        assert ours == theirs, where


@pytest.fixture
def passes(monkeypatch):
    """watch(name): the (model, inputs) of every call of that task module's `forward` from now on."""

    def watch(name):
        module, seen = MODULES[name], []
        real = module.forward

        def counted(model, inputs, *rest):
            seen.append((model, {key: value.clone() for key, value in inputs.items()}))
            return real(model, inputs, *rest)

        monkeypatch.setattr(module, "forward", counted)
        return seen

    return watch


@pytest.mark.parity
@pytest.mark.parametrize("name", batch.TASKS)
def test_a_mixed_batch_is_one_padded_pass_and_each_result_is_the_single_calls(name, passes):
    calls = MIXED[name]
    seen = passes(name)
    expected = [single(name, args, kwargs) for args, kwargs in calls]
    assert isinstance(expected[-1], BgDemoError) and not any(isinstance(e, BgDemoError) for e in expected[:-1])
    seen.clear()
    results = batch.run(name, calls)
    assert len(results) == len(calls)
    for ours, theirs in zip(results, expected, strict=True):
        assert_same(name, ours, theirs)
    assert len(seen) == 1  # one forward pass for the whole group
    inputs = seen[0][1]
    rows = sum(len(r.windows) for r in results[:-1]) if name == "answer" else len(calls) - 1
    assert inputs["input_ids"].shape[0] == rows  # every valid row (QA: every window of every request), no bad one
    assert (inputs["attention_mask"] == 0).any(dim=1).sum() >= 1  # short rows right-padded to the longest
    pad, pad_id = inputs["attention_mask"] == 0, models.get(ROLES[name]).tokenizer.pad_token_id
    assert (inputs["input_ids"][pad] == pad_id).all()
    assert all((inputs[key][pad] == 0).all() for key in inputs if key != "input_ids")  # DistilBERT: no segments


def test_the_qa_batch_reads_every_window_of_a_long_context():
    results = batch.run("answer", MIXED["answer"][:2])
    assert len(results[0].windows) == 1 and len(results[1].windows) > 3


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(SECOND))  # the tasks whose role offers a second model
def test_a_second_model_is_a_group_of_its_own(name, passes):
    assert SECOND_ENCODER in config.ALLOWED_MODELS[ROLES[name]]
    calls = [MIXED[name][0], *SECOND[name], MIXED[name][-1], MIXED[name][1]]
    seen = passes(name)
    expected = [single(name, args, kwargs) for args, kwargs in calls]
    own = "tiny-random/bert-base-uncased"  # the encoder role's own model, as its folder names it
    assert {e.model_id for e in expected if not isinstance(e, BgDemoError)} == {SECOND_ENCODER, own}
    seen.clear()
    results = batch.run(name, calls)
    for ours, theirs in zip(results, expected, strict=True):
        assert_same(name, ours, theirs)
    assert len(seen) == 2 and seen[0][0] is not seen[1][0]  # one pass per model
    assert sorted(inputs["input_ids"].shape[0] for _, inputs in seen) == [2, 2]


def test_the_configured_model_named_or_not_is_one_group(passes):
    seen = passes("classify")
    default = config.settings().source("sentiment")
    results = batch.run("classify", [(("Good.",), {}), (("Bad.",), {"model_id": default})])
    assert [r.label in r.scores for r in results] == [True, True]
    assert len(seen) == 1 and seen[0][1]["input_ids"].shape[0] == 2


@pytest.mark.parity
def test_errors_before_the_model_and_from_a_model_without_the_head_are_their_calls_own(passes):
    calls = [
        (("The [MASK] sat.",), {"top_k": 0}),  # checked before the model is fetched
        (("The [MASK] sat.",), {"model_id": "someone/else"}),  # not offered
        (("The [MASK] sat.",), {"model_id": "sentence-transformers/all-MiniLM-L6-v2"}),  # no MLM head
        (("The [MASK] sat.",), {}),
    ]
    expected = [single("fill_mask", args, kwargs) for args, kwargs in calls]
    assert isinstance(expected[2], MissingHeadError)
    seen = passes("fill_mask")
    results = batch.run("fill_mask", calls)
    for ours, theirs in zip(results, expected, strict=True):
        assert_same("fill_mask", ours, theirs)
    assert len(seen) == 1 and seen[0][1]["input_ids"].shape[0] == 1  # the MiniLM group had nothing to run


@pytest.mark.parity
def test_a_group_over_the_token_budget_runs_in_passes_of_similar_lengths(passes, monkeypatch):
    calls = [((f"The cat sat on the [MASK] {'and the dog ' * n}.",), {}) for n in (0, 30, 1, 2, 28)]
    expected = [single("fill_mask", args, kwargs) for args, kwargs in calls]
    seen = passes("fill_mask")
    monkeypatch.setattr(batch, "TOKENS_PER_PASS", 200)
    results = batch.run("fill_mask", calls)
    for ours, theirs in zip(results, expected, strict=True):
        assert_same("fill_mask", ours, theirs)
    shapes = [tuple(inputs["input_ids"].shape) for _, inputs in seen]
    assert len(shapes) == 2 and all(rows * length <= 200 for rows, length in shapes)
    assert sorted(rows for rows, _ in shapes) == [2, 3]  # the two long rows together, the three short ones together
    assert max(length for rows, length in shapes if rows == 3) < 20


def test_a_call_the_single_function_could_not_take_is_a_bug_that_propagates():
    with pytest.raises(TypeError):
        batch.run("classify", [(("Good.",), {}), (("Bad.",), {"no_such_argument": 1})])
    with pytest.raises(ValueError, match="no batched task"):
        batch.run("generate", [])


# --- this process's concurrent calls (`dispatch.Batcher`): the backend's functions batch whoever meets at the device


def waiting_for(condition, seconds=30):
    """Wait until `condition()`; fail (not hang) when it never comes."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the calls never met at the device"
        time.sleep(0.01)


def concurrently(name, calls):
    """Each call of `backend.<name>` in a thread of its own, started while this thread holds the device (so they all
    meet, as a class's requests do behind a decoding step); their results or errors, in order."""
    turn = models.get(ROLES[name]).lock
    gatherer = dispatch.batcher(getattr(backend, name).entry)
    results = [None] * len(calls)

    def one(i, args, kwargs):
        try:
            results[i] = getattr(backend, name)(*args, **kwargs)
        except BgDemoError as error:
            results[i] = error

    threads = [threading.Thread(target=one, args=(i, *call)) for i, call in enumerate(calls)]
    turn.acquire()
    try:
        for thread in threads:
            thread.start()
        waiting_for(lambda: len(gatherer._waiting) == len(calls))
    finally:
        turn.release()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.parity
@pytest.mark.parametrize("name", batch.TASKS)
def test_concurrent_calls_of_the_backend_meet_in_one_pass_each_with_its_own_result(name, passes):
    calls = MIXED[name]
    expected = [single(name, args, kwargs) for args, kwargs in calls]
    seen = passes(name)
    results = concurrently(name, calls)
    for ours, theirs in zip(results, expected, strict=True):
        assert_same(name, ours, theirs)  # the bad input is its own caller's error, the others their own results
    assert len(seen) == 1  # everyone who waited for the device ran in one forward pass
    rows = sum(len(r.windows) for r in results[:-1]) if name == "answer" else len(calls) - 1
    assert seen[0][1]["input_ids"].shape[0] == rows


def test_a_call_alone_runs_at_once_and_one_made_while_holding_the_device_does_not_wait_for_itself(passes):
    seen = passes("classify")
    assert backend.classify("Good.").label
    assert len(seen) == 1 and seen[0][1]["input_ids"].shape[0] == 1
    turn = models.get("sentiment").lock
    done = []
    with models.get("sentiment").use():  # e.g. a backend function that holds the device and asks for a task
        worker = threading.Thread(target=lambda: done.append(backend.classify("Fine.")))
        worker.start()  # another thread's call waits for the device...
        waiting_for(lambda: dispatch.batcher(backend.classify.entry)._waiting)
        assert backend.classify("Bad.").label  # ...this one, by the holder, runs now
        assert turn.held and not done
    worker.join(timeout=30)
    assert done and len(seen) == 3


def test_a_wrong_call_is_its_callers_bug_alone_and_a_failed_pass_is_every_callers_error(monkeypatch):
    with pytest.raises(TypeError):
        backend.classify("Good.", no_such_argument=1)

    def broken(model, inputs):
        raise RuntimeError("the device failed")

    monkeypatch.setattr(classify, "forward", broken)
    results = []

    def call():
        try:
            backend.classify("Good.")
        except RuntimeError as error:
            results.append(str(error))

    turn = models.get("sentiment").lock
    turn.acquire()
    threads = [threading.Thread(target=call) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        waiting_for(lambda: len(dispatch.batcher(backend.classify.entry)._waiting) == 3)
    finally:
        turn.release()
    for thread in threads:
        thread.join(timeout=30)
    assert results == ["the device failed"] * 3  # nobody waits for ever
    monkeypatch.undo()
    assert backend.classify("Good.").label  # and the next call runs


def test_the_bert_task_pages_reach_the_backend_many_at_once_and_their_why_panels_do_not():
    """Gradio runs a concurrency group at the lowest limit of its events: each BERT task's group (page, API endpoint,
    tutor tool) must run `common.BATCHED` requests at once for them to meet at the device, and its "Why?" panel, in
    a group of its own, stays at the default."""
    from bg_demo.ui import CONCURRENCY, build_demo, common, gradio_compat

    limits: dict[str, list] = {}
    for fn in gradio_compat.listeners(build_demo()):
        limit = CONCURRENCY if fn.concurrency_limit == "default" else fn.concurrency_limit
        limits.setdefault(fn.concurrency_id, []).append(limit)
    for group in ("fill_mask", "classify", "ner", "qa", "next_sentence"):
        assert min(limit for limit in limits[group] if limit is not None) == common.BATCHED, group
        assert min(limits[f"{group}_why"]) == CONCURRENCY
