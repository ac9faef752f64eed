"""Explanations of a prediction: attention from its position and attribution of its probability, checked
against the tasks' own results, transformers' attention maps, integrated gradients' completeness and a
finite-difference estimate of the gradient."""

import copy

import numpy as np
import pytest
import torch

from bg_demo import backend, models
from bg_demo.backend import explain
from bg_demo.backend._common import Phrase
from bg_demo.errors import InputError
from tests.tolerance import tolerance

pytestmark = pytest.mark.worker_side  # explain's own functions and the device's turn, as a GPU worker runs them

CASES = {
    "fill_mask": lambda **kw: explain.explain_fill_mask("The cat sat on the [MASK].", **kw),
    "classify": lambda **kw: explain.explain_classify("I loved this movie.", **kw),
    "next_sentence": lambda **kw: explain.explain_next_sentence("The man went to the store.", "He bought milk.", **kw),
    "next_token": lambda **kw: explain.explain_next_token("The cat sat on the", **kw),
}


def test_the_explained_probability_is_the_one_each_tab_shows():
    assert CASES["fill_mask"]().score == pytest.approx(
        backend.fill_mask("The cat sat on the [MASK].").masks[0][0].score, rel=1e-5)
    classified = backend.classify("I loved this movie.")
    result = CASES["classify"]()
    assert result.target == Phrase("note.explain.label", {"label": classified.label})
    assert result.score == pytest.approx(classified.scores[classified.label], rel=1e-5)
    nsp = backend.next_sentence("The man went to the store.", "He bought milk.")
    assert CASES["next_sentence"]().score == pytest.approx(nsp.is_next, rel=1e-5)
    lab = backend.next_token("The cat sat on the", 1.0, n=1, seed=0)
    assert CASES["next_token"]().score == pytest.approx(lab.candidates[0].score, rel=1e-5)


@pytest.mark.parametrize("case", CASES)
def test_integrated_gradients_add_up_to_the_change_from_the_baseline(case):
    """Completeness: the attributions sum to f(input) - f(baseline); at IG_STEPS the gap is below 1e-3 (see `gap`)."""
    result = CASES[case]()
    change = result.score - result.baseline_score
    assert sum(result.integrated_gradients) - change == pytest.approx(result.completeness_gap, abs=1e-6)
    assert abs(result.completeness_gap) < gap(result)
    assert len(result.integrated_gradients) == len(result.gradient_x_input) == len(result.tokens)


def gap(result) -> float:
    """The completeness gap an explanation may leave: 1e-3 for the integral's 32 steps, and in a reduced dtype the
    step of f's rounding (tests/tolerance.py: a probability moves by up to `probability` between nearby inputs, so
    the gradients' integral may miss f's change by that much; measured: 2.3e-3 for sentiment in float16)."""
    return 1e-3 + tolerance(result.role).probability


def test_more_steps_close_the_gap():
    few, many = CASES["classify"](steps=4), CASES["classify"](steps=64)
    assert abs(many.completeness_gap) <= abs(few.completeness_gap)


@pytest.mark.parity
def test_gradient_x_input_agrees_with_a_finite_difference():
    """d f(α · e_t) / dα at α = 1 is ∇f · e_t, what gradient × input gives for token t (the app's gradients in its
    dtype, the difference quotient in float64 on the same weights)."""
    result = CASES["classify"]()
    loaded = models.get("sentiment")
    label = result.target.values["label"]
    with loaded.use() as (tokenizer, model):
        exact = copy.deepcopy(model).double().cpu()  # float64, so the difference quotient is not rounding noise
    encoding = tokenizer("I loved this movie.", return_tensors="pt")
    label_id = exact.config.label2id[label]
    with torch.inference_mode():
        embeddings = exact.get_input_embeddings()(encoding["input_ids"])

        def f(scale: float, t: int) -> float:
            scaled = embeddings.clone()
            scaled[0, t] *= scale
            logits = exact(inputs_embeds=scaled, attention_mask=encoding["attention_mask"]).logits
            return float(torch.softmax(logits, dim=-1)[0, label_id])

        eps = 1e-4
        for t in (1, 2):
            estimate = (f(1 + eps, t) - f(1 - eps, t)) / (2 * eps)
            assert result.gradient_x_input[t] == pytest.approx(estimate, rel=tolerance("sentiment").attribution,
                                                               abs=1e-7)


@pytest.mark.parity
@pytest.mark.parametrize(("role", "case"), [("encoder", "fill_mask"), ("decoder", "next_token")])
@pytest.mark.parametrize("head", [None, 1])
def test_attention_is_the_row_of_output_attentions_at_the_predictions_position(role, case, head, reference_model):
    tol = tolerance(role)
    result = CASES[case](layer=1, head=head)
    tokenizer, model = reference_model(role, eager=True)
    text = "The cat sat on the [MASK]." if role == "encoder" else "The cat sat on the"
    with torch.inference_mode():
        attentions = model(**tokenizer(text, return_tensors="pt").to(model.device), output_attentions=True).attentions
    (position,) = result.positions
    weights = attentions[1][0, :, position].cpu()  # (H, K)
    expected = weights.mean(dim=0) if head is None else weights[head]
    np.testing.assert_allclose(result.attention, expected.numpy(), rtol=1e-5, atol=max(tol.attention, 1e-7))
    assert sum(result.attention) == pytest.approx(1.0, abs=tol.sums)
    assert (result.layer, result.head) == (1, head)


def test_the_prediction_position_is_the_mask_cls_or_last_token():
    assert CASES["fill_mask"]().tokens[CASES["fill_mask"]().positions[0]] == "[MASK]"
    assert CASES["classify"]().positions == (0,) and CASES["next_sentence"]().positions == (0,)
    last = CASES["next_token"]()
    assert last.positions == (len(last.tokens) - 1,)


def test_the_default_layer_is_the_last():
    result = CASES["classify"]()
    assert result.layer == result.n_layers - 1 and result.head is None


@pytest.mark.parametrize(
    ("a", "b", "rho"),
    [([1, 2, 3, 4], [10, 20, 30, 40], 1.0), ([1, 2, 3], [3, 2, 1], -1.0), ([1, 1, 2], [1, 2, 3], 0.8660254),
     ([1, 1, 1], [1, 2, 3], 0.0)],
)
def test_spearman_uses_average_ranks(a, b, rho):
    assert explain.spearman(a, b) == pytest.approx(rho)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: CASES["classify"](layer=99), "Layer must be between"),
        (lambda: CASES["classify"](head=99), "Head must be between"),
        (lambda: explain.explain_classify("Fine.", label="MAYBE"), "label must be one of"),
        (lambda: explain.explain_fill_mask("No mask here."), r"\[MASK\]"),
        (lambda: explain.explain_fill_mask("The [MASK] sat.", mask=1), "Mask must be between 0 and 0"),
        (lambda: CASES["classify"](steps=1), "steps must be between"),
    ],
)
def test_bad_requests_say_what_to_change(call, message):
    with pytest.raises(InputError, match=message):
        call()


ENTITIES = "Apple Inc. was founded by Steve Jobs in Cupertino."


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # the page counts from 1 ("1 = the first"), and so does its message
        (lambda: explain.explain_fill_mask("The [MASK] sat.", mask=3, counted_from=1), r"Mask must be between 1 and 1; got 3\."),
        (lambda: explain.explain_fill_mask("The [MASK] sat.", mask=0, counted_from=1), r"Mask must be between 1 and 1; got 0\."),
        # only a guess on screen: the page shows top_k of them
        (lambda: explain.explain_fill_mask("The [MASK] sat.", mask=1, choice=7, top_k=5, counted_from=1),
         r"Guess must be between 1 and 5; got 7\."),
        (lambda: explain.explain_fill_mask("The [MASK] sat.", choice=5, top_k=5), r"Guess must be between 0 and 4; got 5\."),
        (lambda: explain.explain_entity(ENTITIES, 0, "average", counted_from=1), r"Entity must be between 1 and \d+; got 0\."),
    ],
)
def test_a_pick_is_counted_as_its_caller_counts(call, message):
    with pytest.raises(InputError, match=f"^{message}$"):
        call()


def test_counted_from_one_explains_the_same_prediction():
    text = "A [MASK] and a [MASK]."
    from_zero = explain.explain_fill_mask(text, mask=1, choice=2, steps=4)
    from_one = explain.explain_fill_mask(text, mask=2, choice=3, top_k=3, steps=4, counted_from=1)
    assert from_one.target == from_zero.target and from_one.score == from_zero.score
    entity = explain.explain_entity(ENTITIES, 1, "average", steps=4)
    assert explain.explain_entity(ENTITIES, 2, "average", steps=4, counted_from=1).target == entity.target


def test_another_model_gets_every_layer_and_head_to_pick_from_again():
    """The Why? panel offers the layers and heads of the model it explained last; another model may have more, so
    picking one offers them all again (an explanation refuses one its model lacks, naming the model's range)."""
    import asyncio

    import gradio as gr

    from bg_demo.ui import fill_mask_tab, language, screen, why
    from bg_demo.ui.gradio_compat import listeners, new_session
    from bg_demo.ui.page import Reader

    with gr.Blocks() as demo:
        fill_mask_tab.build(Reader(language.switch(), screen.box()))
    state = new_session(demo)

    def run(fn, values):
        event = next(event for event in listeners(demo) if event.fn is fn)
        return asyncio.run(demo.process_api(event, values, state))["data"]

    raw = explain.explain_fill_mask("The cat sat on the [MASK].", steps=4).to_dict()
    fitted = run(why.fit, [raw])
    assert [len(update["choices"]) for update in fitted] == [raw["n_layers"] + 1, raw["n_heads"] + 1]
    again = run(why.every_layer, [])
    assert [len(update["choices"]) for update in again] == [why.LAYERS + 1, why.HEADS + 1]


def test_an_entity_is_explained_by_its_own_tokens_tags():
    text = "Apple Inc. was founded by Steve Jobs in Cupertino, California."
    found = backend.recognize_entities(text, "average")
    result = explain.explain_entity(text, 0, "average")
    entity = found.entities[0]
    tags = [tag for tag in found.tags if tag.start < entity.end and tag.end > entity.start]
    assert [result.tokens[i] for i in result.positions] == [tag.token for tag in tags]
    assert result.score == pytest.approx(np.mean([tag.score for tag in tags]), rel=1e-5)
    assert abs(result.completeness_gap) < gap(result)


def test_an_answer_is_explained_from_its_start_and_end():
    context = "The Transformer was introduced in 2017 by Ashish Vaswani at Google."
    found = backend.answer("Who introduced it?", context)
    assert found.answer is not None  # the tiny model answers this one (a span, not "no answer")
    result = explain.explain_answer("Who introduced it?", context)
    assert result.score == pytest.approx(found.score, rel=1e-5)
    first, last = result.positions[0], result.positions[-1]
    assert result.target == Phrase("note.explain.answer", {"answer": found.answer}) and first <= last
    assert abs(result.completeness_gap) < gap(result)


def test_a_text_without_entities_says_so(monkeypatch):
    from types import SimpleNamespace

    from bg_demo.backend import entities

    # the tiny random model tags nearly every word; a real one finds nothing in "the weather is fine"
    monkeypatch.setattr(entities, "recognize_entities", lambda *args, **kwargs: SimpleNamespace(entities=()))
    with pytest.raises(InputError, match="No entity"):
        explain.explain_entity("the weather is fine", 0, "average")


def test_the_last_generated_token_is_explained_with_the_probability_its_colour_shows():
    generated = backend.generate("Once upon a time", "greedy", 5)
    tokens = generated.generated[0]
    result = explain.explain_generation("Once upon a time", [token.token_id for token in tokens])
    assert result.score == pytest.approx(tokens[-1].score, rel=1e-4)
    assert result.positions == (len(result.tokens) - 1,)  # read from the token before it, the context's last
    assert abs(result.completeness_gap) < gap(result)
    with pytest.raises(InputError, match="Generate a text first"):
        explain.explain_generation("Once", [])


# --- bounded cost: input size, chunks, the device's turn, a time budget ------------------------------------


def _limits(monkeypatch, **changes):
    import dataclasses

    monkeypatch.setattr(explain, "LIMITS", dataclasses.replace(explain.LIMITS, **changes))


def _spy_passes(monkeypatch, delay: float = 0.0):
    """Record the (rows, tokens) of every fill-mask pass the explanation runs, optionally slowing each."""
    shapes, real = [], explain.fill_mask_forward

    def spy(model, inputs, positions):
        shapes.append(tuple(inputs["input_ids"].shape))
        if delay:
            torch.randn(1)  # keep the thread busy in torch, as a real pass would
            import time

            time.sleep(delay)
        return real(model, inputs, positions)

    monkeypatch.setattr(explain, "fill_mask_forward", spy)
    return shapes


def test_an_input_past_the_explanation_limit_is_refused_with_its_size():
    text = "word " * 300 + "[MASK]."  # 303 tokens, under the task's 2,000 characters and 512 tokens
    assert len(backend.fill_mask(text).masks) == 1  # the task itself takes it
    with pytest.raises(InputError, match=r"at most 256 tokens.*makes \d+"):
        explain.explain_fill_mask(text)


def test_integrated_gradients_run_in_chunks_of_at_most_the_chunk_tokens(monkeypatch):
    _limits(monkeypatch, explain_chunk_tokens=40)
    shapes = _spy_passes(monkeypatch)
    result = explain.explain_fill_mask("The cat sat on the [MASK] near the old red door.", steps=32)
    n_tokens = len(result.tokens)
    gradient_passes = [rows * tokens for rows, tokens in shapes]
    assert max(gradient_passes) <= 40 and shapes.count((40 // n_tokens, n_tokens)) >= 32 // (40 // n_tokens)
    assert abs(result.completeness_gap) < gap(result)  # chunked, the steps still add up


def test_a_request_waiting_for_the_device_runs_between_two_chunks(monkeypatch):
    import threading

    _limits(monkeypatch, explain_chunk_tokens=1)  # one step per pass: 32 passes
    shapes = _spy_passes(monkeypatch, delay=0.02)
    backend.classify("warm up")  # both models loaded before the race starts
    finished = []
    explaining = threading.Thread(target=lambda: finished.append(explain.explain_fill_mask("The cat sat on the [MASK].")))
    explaining.start()
    while len(shapes) < 5 and explaining.is_alive():  # the explanation is under way
        threading.Event().wait(0.005)
    backend.classify("I loved this movie.")  # waits at most one pass, not the whole explanation
    passes_when_answered = len(shapes)
    explaining.join(timeout=60)
    assert finished and passes_when_answered < len(shapes) - 10


def test_a_request_waiting_for_the_device_runs_between_two_layers_of_a_pass(monkeypatch):
    """One chunk of all 32 steps (a pass as long as a 255-token input's single row on a real model): a student's
    request that comes during it is answered before the pass ends, not after it."""
    import threading
    import time

    _limits(monkeypatch, explain_chunk_tokens=100_000)  # every step in one pass
    real, big_pass, ended = explain.fill_mask_forward, threading.Event(), []

    def spy(model, inputs, positions):
        if inputs["input_ids"].shape[0] > 1:
            big_pass.set()
        try:
            return real(model, inputs, positions)
        finally:
            if big_pass.is_set():
                ended.append(time.monotonic())

    monkeypatch.setattr(explain, "fill_mask_forward", spy)
    finished, answered = _asked_during_an_explanation(big_pass, lambda: 0.05)
    assert finished and ended and answered < ended[0]


def _asked_during_an_explanation(started, delay) -> tuple[list, float]:
    """A student's sentiment, asked once `started` is set during a fill-mask explanation whose encoder layers each
    take `delay()` seconds longer: the explanation's result (in a list, empty if it did not end) and when the student
    was answered."""
    import threading
    import time

    backend.classify("warm up")  # both models loaded before the race starts
    encoder = models.get("encoder").model
    layers = max((m for m in encoder.modules() if isinstance(m, torch.nn.ModuleList)), key=len)
    slow = [layer.register_forward_hook(lambda *_: time.sleep(delay())) for layer in layers]  # the twin copies them
    try:
        finished = []
        explaining = threading.Thread(target=lambda: finished.append(explain.explain_fill_mask("The cat sat on the [MASK].")))
        explaining.start()
        assert started.wait(timeout=60)
        backend.classify("I loved this movie.")
        answered = time.monotonic()
        explaining.join(timeout=60)
    finally:
        for hook in slow:
            hook.remove()
    return finished, answered


def test_a_request_waiting_for_the_device_runs_between_two_layers_of_the_attention_pass(monkeypatch):
    """The pass that reads the attention maps (eager attention, the whole input) lets a student's request go
    between two of its layers too, as the gradient passes do, rather than holding the device to its end."""
    import threading
    import time

    real, reading, ended = explain._attention_rows, threading.Event(), []

    def spy(*args):
        reading.set()
        try:
            return real(*args)
        finally:
            ended.append(time.monotonic())
            reading.clear()

    def delay():  # the attention pass alone made long; the model others use is looked at meanwhile
        if not reading.is_set():
            return 0
        implementations.add(models.get("encoder").model.config._attn_implementation)
        return 0.1

    monkeypatch.setattr(explain, "_attention_rows", spy)
    implementations = set()
    finished, answered = _asked_during_an_explanation(reading, delay)
    assert finished and ended and answered < ended[0]
    assert implementations and "eager" not in implementations  # the model others use kept its own


def test_an_explanation_past_its_time_budget_stops_with_a_message(monkeypatch):
    _limits(monkeypatch, explain_chunk_tokens=1, explain_seconds=0.2)
    _spy_passes(monkeypatch, delay=0.05)
    with pytest.raises(InputError, match="budget"):
        explain.explain_fill_mask("The cat sat on the [MASK].")
    models.get("encoder").lock.acquire()  # the device turn was given back
    models.get("encoder").lock.release()


def test_the_generation_explained_has_a_bounded_prompt_and_token_list():
    with pytest.raises(InputError, match="characters long"):
        explain.explain_generation("x" * 10_000, [5, 6])
    with pytest.raises(InputError):
        explain.explain_generation("Hello", list(range(5000)))


def test_generations_beside_an_explanation_of_the_same_model_are_unchanged(monkeypatch):
    """Captum hooks the embedding layer during each chunk, and the device changes hands between two layers of a
    chunk: the explanation runs on a twin of the model, so nobody else's pass meets its hook."""
    import threading

    _limits(monkeypatch, explain_chunk_tokens=1)  # one step per chunk: many hand-overs, between chunks and layers
    prompt = "Once upon a time"
    alone = backend.generate(prompt, "greedy", 8).texts
    finished, errors, beside = threading.Event(), [], []

    def explain_repeatedly():
        try:
            for _ in range(3):
                explain.explain_next_token("The cat sat on the mat and looked at the", steps=32)
        except Exception as exc:  # noqa: BLE001 - shown by the assertion
            errors.append(repr(exc))
        finished.set()

    thread = threading.Thread(target=explain_repeatedly)
    thread.start()
    while not finished.is_set():
        try:
            beside.append(backend.generate(prompt, "greedy", 8).texts)
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))
    thread.join()
    assert errors == [] and len(beside) >= 3 and set(beside) == {alone}
