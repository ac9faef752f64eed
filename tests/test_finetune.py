"""Fine-tune or prompt?: prompting's label probabilities against a direct computation with transformers, fine-tuning's
runs (repeatable per seed, learning, LoRA through PEFT, the shared model untouched, Stop keeps what was learnt), the
device's turns, the per-session store of learnt models, and the page through Gradio."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from bg_demo import backend, config, models
from bg_demo.errors import InputError
from tests.tolerance import tolerance

TASKS = json.loads((Path(__file__).resolve().parent.parent / "assets" / "tasks.json").read_text(encoding="utf-8"))
SENTIMENT = TASKS["en"]["sentiment"]
TRAIN, TEST = SENTIMENT["train"], SENTIMENT["test"]
# a toy task the tiny models can learn: each label's sentences share their words
TOY_TRAIN = [["great great great", "yes"], ["bad bad bad", "no"], ["great film great", "yes"],
             ["bad film bad", "no"]] * 2
TOY_TEST = [["great great", "yes"], ["bad bad", "no"]]


def words(role: str) -> str:
    return ", ".join(SENTIMENT[role]["words"])


# --- prompting ------------------------------------------------------------------------------------------------------


def _direct_decoder(reference_model, prompts, label_words):
    """Each prompt's label probabilities as the issue defines them: the summed log-probabilities of each label word's
    tokens (" " + word) after the prompt, normalised over the labels, by a plain float32 forward pass per sequence."""
    tokenizer, model = reference_model("decoder")
    found = []
    for prompt in prompts:
        scores = []
        for word in label_words:
            ids = tokenizer(prompt)["input_ids"]
            word_ids = tokenizer(" " + word, add_special_tokens=False)["input_ids"]
            with torch.no_grad():
                log_probs = model(torch.tensor([ids + word_ids], device=model.device)).logits[0].log_softmax(-1)
            scores.append(sum(float(log_probs[len(ids) - 1 + k, token]) for k, token in enumerate(word_ids)))
        found.append(torch.tensor(scores).softmax(-1).numpy())
    return np.array(found)


def _direct_encoder(reference_model, prompts, label_words):
    """The label words' logits at the [MASK] of each prompt, softmax over the labels."""
    import transformers

    tokenizer, pretraining = reference_model("encoder")
    ids = [tokenizer.convert_tokens_to_ids(word) for word in label_words]
    found = []
    for prompt in prompts:
        encoding = tokenizer(prompt, return_tensors="pt").to(pretraining.device)
        with torch.no_grad():
            logits = pretraining(**encoding).prediction_logits[0]
        at = int((encoding["input_ids"][0] == tokenizer.mask_token_id).nonzero()[0, 0])
        found.append(logits[at, ids].softmax(-1).cpu().numpy())
    assert isinstance(pretraining, transformers.BertForPreTraining)
    return np.array(found)


@pytest.mark.parity
@pytest.mark.parametrize("calibrate", [False, True])
@pytest.mark.parametrize("role", ["decoder", "encoder"])
def test_prompting_equals_a_direct_computation_on_the_returned_prompts(role, calibrate, reference_model):
    label_words = SENTIMENT[role]["words"]
    result = backend.prompt_task(role, TRAIN, TEST, SENTIMENT[role]["template"], label_words, 3, 7, calibrate)
    direct = (_direct_decoder if role == "decoder" else _direct_encoder)(reference_model, result.prompts, label_words)
    raw = np.array([[row[label] for label in result.labels] for row in result.raw])
    np.testing.assert_allclose(raw, direct, atol=tolerance(role).probability)
    shown = np.array([[row[label] for label in result.labels] for row in result.probabilities])
    if calibrate:  # Zhao et al.: divided by the content-free input's probabilities, normalised again
        free = (_direct_decoder if role == "decoder" else _direct_encoder)(
            reference_model, [result.content_free_prompt], label_words)[0]
        expected = direct / free
        expected /= expected.sum(-1, keepdims=True)
        np.testing.assert_allclose(shown, expected, atol=tolerance(role).probability * 4)
        assert "N/A" in result.content_free_prompt
    else:
        np.testing.assert_array_equal(shown, raw)
        assert result.content_free is None
    assert result.predictions == tuple(result.labels[i] for i in shown.argmax(-1))
    assert result.accuracy == pytest.approx(np.mean([p == t for p, t in zip(result.predictions, result.truth)]))


def test_few_shot_writes_the_seed_s_examples_with_their_label_words_before_each_sentence():
    result = backend.prompt_task("decoder", TRAIN, TEST, "Review: {text}\nSentiment:", "positive, negative", 3, 5)
    again = backend.prompt_task("decoder", TRAIN, TEST, "Review: {text}\nSentiment:", "positive, negative", 3, 5)
    other = backend.prompt_task("decoder", TRAIN, TEST, "Review: {text}\nSentiment:", "positive, negative", 3, 6)
    assert result.examples == again.examples and len(result.examples) == 3
    assert other.examples != result.examples
    word = {"positive": "positive", "negative": "negative"}
    expected = "\n\n".join([*(f"Review: {TRAIN[i][0]}\nSentiment: {word[TRAIN[i][1]]}" for i in result.examples),
                            f"Review: {TEST[0][0]}\nSentiment:"])
    assert result.prompts[0] == expected
    zero = backend.prompt_task("decoder", TRAIN, TEST, "Review: {text}\nSentiment:", "positive, negative", 0, 5)
    assert zero.prompts[0] == f"Review: {TEST[0][0]}\nSentiment:" and zero.train_examples == 0
    assert sum(map(sum, result.confusion)) == len(TEST)


def test_gpt2_shows_what_it_writes_after_each_prompt(reference_model):
    result = backend.prompt_task("decoder", TRAIN, TEST[:2], "Review: {text}\nSentiment:", words("decoder"))
    tokenizer, model = reference_model("decoder")
    ids = tokenizer(result.prompts[0], return_tensors="pt").to(model.device)
    out = model.generate(**ids, max_new_tokens=config.LIMITS.continuation_tokens, do_sample=False,
                         pad_token_id=tokenizer.eos_token_id)
    expected = tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
    assert result.continuations[0] == expected and len(result.continuations) == 2


@pytest.mark.parametrize(("change", "key"), [
    (dict(template="no slot [MASK]"), "error.template_slot"),
    (dict(template="{text} no mask"), "error.template_mask"),
    (dict(label_words="great"), "error.label_words"),
    (dict(label_words="great, great"), "error.label_words_repeat"),
    (dict(label_words="great, positive"), "error.label_word_tokens"),  # "positive" is two tokens of the tiny vocabulary
    (dict(test=[["fine", "maybe"]]), "error.task_unknown_label"),
    (dict(train=[["only one label", "yes"]]), "error.task_labels"),
    (dict(train=[["text", ""]] + TRAIN), "error.task_no_label"),
    (dict(train=[[f"sentence {i}", "ab"[i % 2]] for i in range(config.LIMITS.task_rows + 1)]), "error.task_too_many"),
    (dict(shots=config.LIMITS.max_shots + 1), "error.out_of_range"),
    (dict(model="gpt2-xl"), "error.task_model"),
    (dict(test=[["It was a [mask] day.", "positive"]] + TEST), "error.task_mask"),  # a second blank in its prompt
])
def test_what_prompting_cannot_use_is_refused_with_what_to_change(change, key):
    given = dict(model="encoder", train=TRAIN, test=TEST, template="{text} It was [MASK].",
                 label_words="great, terrible", shots=0)
    given.update(change)
    with pytest.raises(InputError) as refused:
        backend.prompt_task(**given)
    assert refused.value.text.key == key


def test_a_prompt_past_the_model_s_length_is_refused_not_cut():
    long = [["xqz " * 70, "a"], ["zqx " * 70, "b"]] * 4  # under 300 characters each, ~210 tokens
    with pytest.raises(InputError) as refused:
        backend.prompt_task("encoder", long, long[:2], "{text} It was [MASK].", "great, terrible", 8)
    assert refused.value.text.key == "error.too_many_tokens"


# --- fine-tuning ----------------------------------------------------------------------------------------------------


def _weights(result):
    return {name: array for name, array in result.tuned.weights.items()}


@pytest.mark.parametrize("role", ["encoder", "decoder"])
@pytest.mark.parametrize("method", ["head", "lora", "layers"])
def test_a_run_repeats_exactly_with_its_seed_and_differs_with_another(role, method):
    from bg_demo.backend.finetune import run_to_end

    first = run_to_end(role, TRAIN, TEST, method, 6, None, 4, 3, 1)
    again = run_to_end(role, TRAIN, TEST, method, 6, None, 4, 3, 1)
    other = run_to_end(role, TRAIN, TEST, method, 6, None, 4, 4, 1)
    assert first.losses == again.losses and first.probabilities_after == again.probabilities_after
    for name, array in _weights(first).items():
        np.testing.assert_array_equal(array, _weights(again)[name])
    assert first.losses != other.losses
    assert first.done and not first.stopped and first.step == 6 and len(first.losses) == 6


@pytest.mark.parametrize("role", ["encoder", "decoder"])
@pytest.mark.parametrize("method", ["head", "lora", "layers"])
def test_the_loss_falls_on_a_learnable_task(role, method):
    from bg_demo.backend.finetune import RATES, run_to_end

    rate = {"head": 5e-2, "lora": 1e-2, "layers": 3e-3}[method]
    assert rate >= RATES[method]
    result = run_to_end(role, TOY_TRAIN, TOY_TEST, method, 40, rate, 8, 0, 2)
    assert np.mean(result.losses[-5:]) < 0.5 * np.mean(result.losses[:5])
    assert result.evaluations[-1][1] == 1.0  # every train sentence right at the end


@pytest.mark.worker_side
@pytest.mark.parametrize("role", ["encoder", "decoder"])
def test_fine_tuning_leaves_the_shared_model_as_it_was(role):
    from bg_demo.backend.finetune import run_to_end

    loaded = models.get(role)
    before = {name: p.detach().clone() for name, p in loaded.model.state_dict().items()}
    with loaded.use() as (tokenizer, model):
        ids = tokenizer("The weather is lovely today.", return_tensors="pt").to(loaded.device)
        with torch.inference_mode():
            logits = model(**ids).logits if role == "decoder" else model(**ids).prediction_logits
    for method in ("lora", "layers"):
        run_to_end(role, TOY_TRAIN, TOY_TEST, method, 8, 1e-2, 8, 0, 2)
    after = loaded.model.state_dict()
    assert before.keys() == after.keys()
    for name, tensor in before.items():
        assert torch.equal(tensor, after[name]), name
    assert not any(p.requires_grad or p.grad is not None for p in loaded.model.parameters())
    with loaded.use() as (tokenizer, model):
        with torch.inference_mode():
            again = model(**ids).logits if role == "decoder" else model(**ids).prediction_logits
    assert torch.equal(logits, again)
    assert not any("lora" in name for name, _ in loaded.model.named_modules())  # no adapter left in the shared tree


@pytest.mark.worker_side
def test_lora_goes_through_peft():
    import peft

    from bg_demo.backend.finetune import _Body, run_to_end

    loaded = models.get("encoder")
    body = _Body(loaded, "lora", 0, torch.Generator().manual_seed(0))
    assert isinstance(body.module, peft.PeftModel)
    assert {type(m).__name__ for m in body.module.modules()} >= {"Linear"}
    assert any(isinstance(m, peft.tuners.lora.LoraLayer) for m in body.module.modules())
    result = run_to_end("encoder", TOY_TRAIN, TOY_TEST, "lora", 3, None, 4, 0)
    lora = {name for name in result.tuned.weights if name.startswith("lora.")}
    assert lora and all("lora_A" in name or "lora_B" in name for name in lora)
    expected = sum(p.numel() for p in body.trained) + result.tuned.weights["head.weight"].size + len(result.labels)
    assert result.changed == expected


@pytest.mark.parametrize("method", ["head", "lora", "layers"])
def test_a_learnt_model_gives_on_a_sentence_what_it_gave_in_its_run(method):
    result = backend.fine_tune("decoder", TRAIN, TEST, method, 5, None, 4, 0, 1)
    *_, final = result
    tried = backend.predict_tuned(final.tuned, TEST[2][0])
    for label in final.labels:
        assert tried.probabilities[label] == pytest.approx(final.probabilities_after[2][label], abs=1e-5)


def test_stop_keeps_what_was_learnt_so_far():
    handle = backend.fine_tune("encoder", TRAIN, TEST, "lora", 200, None, 4, 0)
    seen = 0
    for update in handle:
        seen += 1
        if seen == 3:
            handle.cancel()
        if update.done:
            break
    assert update.done and update.stopped and 3 <= update.step < 200
    assert len(update.losses) == update.step and update.accuracy_after is not None
    assert update.tuned is None or update.tuned.weights  # a worker gone with its weights keeps none (ZeroGPU)


@pytest.mark.parametrize(("change", "key"), [
    (dict(method="all"), "error.tune_method"),
    (dict(steps=config.LIMITS.tune_steps + 1), "error.out_of_range"),
    (dict(batch_size=0), "error.out_of_range"),
    (dict(learning_rate=5), "error.out_of_range"),
    (dict(method="layers", layers=config.LIMITS.tune_layers + 1), "error.out_of_range"),
    (dict(test=[]), "error.task_empty"),
])
def test_what_fine_tuning_cannot_use_is_refused_before_it_starts(change, key):
    given = dict(model="encoder", train=TRAIN, test=TEST)
    given.update(change)
    with pytest.raises(InputError) as refused:
        backend.fine_tune(**given)
    assert refused.value.text.key == key


def test_a_run_is_one_streaming_call_whose_duration_grows_with_its_steps():
    entry = backend.CALLS["fine_tune"]
    assert entry.kind == "training" and entry.streams
    short = entry.duration(("encoder", TRAIN, TEST, "head", 10), {})
    long = entry.duration(("encoder", TRAIN, TEST, "head", 200), {})
    assert short < long <= 4 + 60


def test_the_sentiment_checkpoint_scores_the_same_test_sentences(pipeline_for):
    result = backend.checkpoint_scores(
        [[text, {"positive": "POSITIVE", "negative": "NEGATIVE"}[label]] for text, label in TRAIN],
        [[text, {"positive": "POSITIVE", "negative": "NEGATIVE"}[label]] for text, label in TEST])
    reference = pipeline_for("text-classification", "sentiment")(TEST[0][0], top_k=None)
    by_label = {row["label"]: row["score"] for row in reference}
    assert result.probabilities[0]["POSITIVE"] == pytest.approx(by_label["POSITIVE"], abs=tolerance("sentiment").probability)
    result = backend.checkpoint_scores(TRAIN, TEST)  # "positive" matches "POSITIVE", case aside
    assert result.checkpoint_labels == ("POSITIVE", "NEGATIVE")
    with pytest.raises(InputError) as refused:
        backend.checkpoint_scores(TASKS["en"]["topic"]["train"], TASKS["en"]["topic"]["test"])
    assert refused.value.text.key == "error.checkpoint_labels"


# --- the device's turns ---------------------------------------------------------------------------------------------


def test_a_student_s_request_goes_before_waiting_training_steps_but_they_still_get_turns():
    turn = models.DeviceTurn()
    order, started = [], []
    turn.acquire()  # the device is busy; everyone below queues

    def take(name, background):
        started.append(name)
        turn.acquire(background=background)
        order.append(name)
        turn.release()

    threads = [threading.Thread(target=take, args=(f"step{i}", True)) for i in range(3)]
    for thread in threads:
        thread.start()
        while len(started) < len(threads[: threads.index(thread) + 1]):
            time.sleep(0.001)
    time.sleep(0.05)
    asked = threading.Thread(target=take, args=("student", False))
    asked.start()
    time.sleep(0.05)
    turn.release()
    for thread in [*threads, asked]:
        thread.join(5)
    assert order[0] == "student" and sorted(order[1:]) == ["step0", "step1", "step2"]


def test_background_work_gets_a_turn_after_a_streak_of_others():
    turn = models.DeviceTurn()
    for _ in range(models.FOREGROUND_STREAK):
        turn.acquire()
        turn.release()
    turn.acquire()
    order = []

    def take(name, background):
        turn.acquire(background=background)
        order.append(name)
        turn.release()

    waiting = [threading.Thread(target=take, args=("step", True)), threading.Thread(target=take, args=("other", False))]
    for thread in waiting:
        thread.start()
        time.sleep(0.05)
    turn.release()
    for thread in waiting:
        thread.join(5)
    assert order == ["step", "other"]  # the streak was long enough: the step goes first


# --- the session's own models ---------------------------------------------------------------------------------------


def test_a_session_s_learnt_model_is_its_own_bounded_and_let_go_when_it_leaves():
    from types import SimpleNamespace

    from bg_demo.ui.session import TunedModels

    store = TunedModels(capacity=1000)
    small, big = SimpleNamespace(nbytes=400), SimpleNamespace(nbytes=2000)
    assert store.keep("a", "tune_bert", small) and store.get("b", "tune_bert") is None
    assert store.get("a", "tune_bert") is small and store.nbytes == 400
    assert not store.keep("a", "tune_gpt", big) and store.get("a", "tune_gpt") is None  # bigger than the store
    store.keep("b", "tune_bert", SimpleNamespace(nbytes=400))
    store.keep("c", "tune_bert", SimpleNamespace(nbytes=400))  # over 1000 bytes: the least recently used goes
    assert store.get("a", "tune_bert") is None and store.nbytes == 800
    store.forget("b")
    assert store.get("b", "tune_bert") is None and len(store) == 1


@pytest.mark.worker_side
def test_a_step_in_parts_of_a_few_sentences_is_the_step_of_the_whole_batch(monkeypatch):
    from bg_demo.backend import finetune

    monkeypatch.setattr(finetune, "TRAIN_TOKENS", 10**6)
    whole = finetune.run_to_end("encoder", TRAIN, TEST, "lora", 4, None, 8, 0)
    monkeypatch.setattr(finetune, "TRAIN_TOKENS", 1)  # one sentence per turn, on a GPU too
    monkeypatch.setattr(finetune, "GPU_TURNS", 1)
    turns = []
    loaded = models.get("encoder")
    acquire = loaded.lock.acquire
    monkeypatch.setattr(loaded.lock, "acquire", lambda *a, **k: (turns.append(k.get("background")), acquire(*a, **k)))
    parts = finetune.run_to_end("encoder", TRAIN, TEST, "lora", 4, None, 8, 0)
    np.testing.assert_allclose(parts.losses, whole.losses, rtol=1e-5)
    for name, array in whole.tuned.weights.items():
        np.testing.assert_allclose(parts.tuned.weights[name], array, atol=1e-5)
    assert turns.count(True) >= 4 * 8  # every sentence of every step its own background turn


@pytest.mark.worker_side
def test_a_class_reading_the_same_sentences_computes_the_frozen_vectors_once():
    from bg_demo.backend import finetune

    loaded = models.get("decoder")
    sentences = [[f"{text} (once)", label] for text, label in TRAIN]
    passes = []
    hook = loaded.model.base_model.register_forward_pre_hook(lambda module, args: passes.append(1))
    try:
        first = finetune.run_to_end("decoder", sentences, sentences, "head", 3, None, 4, 0)
        counted = len(passes)
        again = finetune.run_to_end("decoder", sentences, sentences, "head", 3, None, 4, 1)
    finally:
        hook.remove()
    assert counted > 0 and len(passes) == counted  # the second run found every vector
    assert first.points_before == again.points_before
    known = loaded.attached("frozen_vectors", finetune._FrozenVectors)
    with loaded.use() as (tokenizer, _):
        ids = tokenizer(sentences[0][0])["input_ids"]
    vector = known.get(ids)
    assert vector.untyped_storage().nbytes() == vector.nbytes  # its own storage, not its batch's hidden states


def test_a_run_stops_itself_at_its_time_and_keeps_what_it_learnt(monkeypatch):
    import dataclasses

    from bg_demo.backend import finetune

    monkeypatch.setattr(finetune, "LIMITS", dataclasses.replace(finetune.LIMITS, tune_seconds=0.0))
    result = finetune.run_to_end("encoder", TRAIN, TEST, "head", 50, None, 4, 0)
    assert result.done and result.stopped and result.step < 50 and result.tuned is not None


def test_stop_on_one_fine_tune_page_leaves_the_other_model_s_run():
    import asyncio

    from bg_demo.backend.generation.types import Handle
    from bg_demo.ui.session import Sessions

    sessions, bert, gpt = Sessions(), Handle(), Handle()
    with sessions.running("s", bert, "tune_bert"), sessions.running("s", gpt, "tune_gpt"):
        asyncio.run(sessions.stop("s", 0.05, kind="tune_bert"))
        assert bert.cancelled.is_set() and not gpt.cancelled.is_set()


def test_a_run_stopped_in_its_worker_is_drawn_without_its_after_picture():
    """On ZeroGPU or the tier, Stop ends with the newest update (`finetune.stopped`): no per-sentence after."""
    from bg_demo.backend import finetune
    from bg_demo.look import Look
    from bg_demo.ui.finetune_tab import tuned

    handle = backend.fine_tune("encoder", TRAIN, TEST, "head", 3, None, 4, 0)
    *updates, _ = handle
    stopped = finetune.stopped(updates[-1], (), {})
    status, curve, compared, drawn, raw = tuned(stopped, Look("en", 1280))
    assert "Stopped after" in status and curve is not None and compared is None and drawn is None
    assert raw["stopped"] and raw["accuracy_after"] == updates[-1].evaluations[-1][2]


@pytest.mark.worker_side
@pytest.mark.parametrize("method", ["lora", "layers"])
def test_a_run_s_body_copies_no_frozen_weight(method):
    """A class of runs costs what each trains, not a model each: the body's frozen tensors are the shared model's."""
    from bg_demo.backend.finetune import _Body

    loaded = models.get("decoder")
    shared = {t.data_ptr() for t in (*loaded.model.base_model.parameters(), *loaded.model.base_model.buffers())}
    body = _Body(loaded, method, 1, torch.Generator().manual_seed(0))
    trained = {p.data_ptr() for p in body.trained}
    own = [name for name, p in body.module.named_parameters() if p.data_ptr() not in shared]
    assert own and all(p.data_ptr() in trained for name, p in body.module.named_parameters() if name in own)
    frozen = [p for p in body.module.parameters() if p.data_ptr() not in trained]
    assert frozen and all(p.data_ptr() in shared for p in frozen)


# --- Stop: at the next part, the page shown no step after it, and always a word on what it did -------------------


@pytest.mark.worker_side
@pytest.mark.parametrize("where", ["a part of a step", "an evaluation chunk", "the wait for a turn"])
def test_stop_ends_a_run_at_its_next_part_and_its_last_pass_reads_the_test_sentences_only(monkeypatch, where):
    """Stop while the run is in the middle of `where` (a part of step 2, the first evaluation's first chunk, or the
    wait for the turn of step 2's next part): the run starts no part of its work after it (the one under way was the
    last), and what it learnt is read on the test sentences only, in the student's own (foreground) turns."""
    from bg_demo.backend import finetune

    for name in ("TRAIN_TOKENS", "INFER_TOKENS", "GPU_TURNS"):  # one sentence a part and a chunk, on a GPU too
        monkeypatch.setattr(finetune, name, 1)
    loaded = models.get("encoder")
    cancelled, reached, go_on = threading.Event(), threading.Event(), threading.Event()
    turns, passes = [], []  # the run's turns (background?, after Stop?) and its body's passes (training?, after?)
    acquire = loaded.lock.acquire

    def taking(*args, **kwargs):
        if threading.current_thread().name == "bg-demo-fine-tune":
            turns.append((kwargs.get("background", False), cancelled.is_set()))
        return acquire(*args, **kwargs)

    vectors = finetune._Body.vectors

    def watched(self, batch):
        training = torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
        passes.append((training, cancelled.is_set()))
        trained = sum(1 for was_training, _ in passes if was_training)
        stop_here = not training and where == "an evaluation chunk" or training and trained == 7  # step 2, part 3
        if stop_here and not reached.is_set():
            reached.set()
            go_on.wait(30)  # the part is slow: Stop comes while it runs
        return vectors(self, batch)

    monkeypatch.setattr(loaded.lock, "acquire", taking)
    monkeypatch.setattr(finetune._Body, "vectors", watched)
    handle = finetune.fine_tune("encoder", TRAIN, TEST, "lora", 10, None, 4, 0)  # an evaluation after every step
    assert reached.wait(30)
    if where == "the wait for a turn":  # someone else's request takes the device, the run waits for its next part
        holding, held = threading.Event(), threading.Event()

        def other_request():
            acquire()
            held.set()
            holding.wait(30)
            loaded.lock.release()

        other = threading.Thread(target=other_request)
        other.start()
        while loaded.lock.waiting == 0:  # the other request waits for the part under way
            time.sleep(0.001)
        go_on.set()
        assert held.wait(30)
        while loaded.lock.waiting == 0:  # and now the run waits for its turn
            time.sleep(0.001)
        cancelled.set()
        handle.cancel()
        holding.set()
        other.join(30)
    else:
        cancelled.set()
        handle.cancel()
        go_on.set()
    *_, final = handle
    handle.thread.join(30)
    assert [background for background, after in turns if after and background] == []  # no part started after Stop
    assert not any(training for training, after in passes if after)
    assert sum(1 for background, after in turns if after) == len(TEST)  # then the test sentences, one a turn
    assert final.done and final.stopped and final.step == 1 and len(final.losses) == 1  # step 2 was not taken
    assert [step for step, *_ in final.evaluations] == ([] if where == "an evaluation chunk" else [1])
    truth = [final.labels.index(label) for label in final.truth]
    p_after = np.array([[row[label] for label in final.labels] for row in final.probabilities_after])
    assert final.accuracy_after == pytest.approx(np.mean(p_after.argmax(-1) == truth))
    assert final.tuned is not None and final.tuned.weights


@pytest.mark.worker_side
@pytest.mark.parametrize("method", ["lora", "layers"])
def test_a_run_lets_its_weights_go_at_its_end_without_collecting_the_whole_heap(monkeypatch, method):
    """The trained weights (and AdamW's moments with them) are freed when the run ends, by reference counting: a full
    `gc.collect()` there held every thread of the server for ~0.8 s, the student's result among them."""
    import gc
    import weakref

    from bg_demo.backend import finetune

    alive, collected = [], []
    made = finetune._Body.__init__

    def watched(self, *args, **kwargs):
        made(self, *args, **kwargs)
        alive.extend(weakref.ref(p) for p in self.trained)

    monkeypatch.setattr(finetune._Body, "__init__", watched)
    monkeypatch.setattr(gc, "collect", lambda *args: collected.append(args) or 0)
    gc.disable()
    try:
        finetune.run_to_end("encoder", TOY_TRAIN, TOY_TEST, method, 3, None, 4, 0, 1)
        assert alive and not [ref for ref in alive if ref() is not None]
    finally:
        gc.enable()
    assert collected == []


def _update(step, done=False):
    from types import SimpleNamespace

    return SimpleNamespace(step=step, done=done)


def test_a_stopped_stream_sends_no_step_after_the_stop_only_its_final_result():
    """A step the run had made before Stop reached it, still held by the relay (its pause), is not sent after it."""
    import asyncio

    from bg_demo.backend.generation.types import Handle
    from bg_demo.ui import common
    from bg_demo.ui.session import SESSIONS

    handle, final = Handle(), _update(3, done=True)

    async def relay():
        seen = []
        async for update in common.stream("encoder", lambda: handle, "stop-relay", kind="tune_bert", interval=0):
            seen.append(update)
            if update.step == 1:
                handle.put(_update(2))  # made before Stop reached the run, not sent yet
                SESSIONS.cancel("stop-relay", "tune_bert")
                asyncio.get_running_loop().call_later(0.2, handle.put, final)
        return seen

    handle.put(_update(1))
    assert [update.step for update in asyncio.run(relay())] == [1, 3]


def test_stop_reaches_a_stream_before_its_run_exists():
    """Stop while the run starts (its model loading, its thread starting) cancels the run as soon as it exists; so
    does a stream cut short then (a closed tab), where the run would otherwise go on unseen to its end."""
    import asyncio

    from bg_demo.backend.generation.types import Handle
    from bg_demo.ui import common
    from bg_demo.ui.session import SESSIONS

    async def start(session: str, stop):
        gate, handle = threading.Event(), Handle()
        stream = common.stream("encoder", lambda: (gate.wait(10), handle)[1], session, kind="tune_bert")
        first = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.1)  # the stream waits for its run to start
        assert len(SESSIONS.streams(session, "tune_bert")) == 1  # Stop can reach it already
        stop(first, session)
        gate.set()
        for _ in range(500):
            if handle.cancelled.is_set():
                break
            await asyncio.sleep(0.01)
        assert handle.cancelled.is_set()
        handle.put(_update(0, done=True))
        return first

    def stopped(_, session):
        SESSIONS.cancel(session, "tune_bert")

    async def both():
        first = await start("stop-starting", stopped)
        assert (await first).done
        cut = await start("cut-starting", lambda first, _: first.cancel())
        with pytest.raises(asyncio.CancelledError):
            await cut

    asyncio.run(both())


def test_the_page_says_stopped_with_what_was_learnt_or_that_the_run_had_already_ended():
    import dataclasses

    from bg_demo.backend import finetune
    from bg_demo.look import Look
    from bg_demo.ui.finetune_tab import stop_noted, tune_status
    from bg_demo.ui.page import Shown

    english = Look("en", 1280)
    handle = finetune.fine_tune("encoder", TRAIN, TEST, "head", 3, None, 4, 0)
    *updates, whole = handle
    whole = dataclasses.replace(whole, tuned=None)
    assert not whole.stopped and "Stop came" not in tune_status(whole, english)
    status, curve, compared, drawn, raw, kept = stop_noted(Shown(whole), english)
    assert status.startswith("**Stop came after the last step**: the run had already finished its 3 steps")
    assert kept.result.stop_after_end and raw["stop_after_end"] and compared is not None
    assert stop_noted(kept, english) is None  # said once
    stopped = finetune.stopped(updates[-1], (), {})
    line = tune_status(stopped, english)
    assert line.startswith(f"**Stopped after {stopped.step} of 3 steps**: test accuracy "
                           f"**{stopped.accuracy_after:.0%}**")
    assert stop_noted(Shown(stopped), english) is None  # a stopped run says so itself
    assert stop_noted(Shown(updates[-1]), english) is None  # still running: Stop will end it
    assert stop_noted(Shown(whole, error=InputError("error.tune_stopped_early")), english) is None
    assert stop_noted(Shown(), english) is None
    for lang in ("ko", "ja"):
        assert str(stopped.step) in tune_status(stopped, Look(lang, 1280)).split("\n")[0]
        assert tune_status(dataclasses.replace(whole, stop_after_end=True), Look(lang, 1280)).startswith("**")


# --- "Why?" for a student's own model -------------------------------------------------------------------------------

TUNE_RATES = {"head": 5e-2, "lora": 1e-2, "layers": 3e-3}


def _learnt(role: str, method: str, seed: int = 0):
    from bg_demo.backend.finetune import run_to_end

    return run_to_end(role, TOY_TRAIN, TOY_TEST, method, 8, TUNE_RATES[method], 8, seed, 1)


def _own_reference(reference_model, role: str, tuned):
    """The student's model built here from its arrays on transformers' own float32 model (eager attention): the body,
    its last layer replaced by the learnt one ("layers"), and the head. (LoRA is PEFT's: `test_lora_goes_through_peft`.)"""
    import copy

    tokenizer, reference = reference_model(role, eager=True)
    body = copy.deepcopy(reference.base_model)
    if tuned.method == "layers":
        from bg_demo.backend.finetune import _layer_list

        own = [_layer_list(body)[-1], *([body.ln_f] if hasattr(body, "ln_f") else [])]
        with torch.no_grad():
            for k, module in enumerate(own):
                for name, p in module.named_parameters():
                    p.copy_(torch.from_numpy(tuned.weights[f"layers.{k}.{name}"]))
    head = torch.nn.Linear(*tuned.weights["head.weight"].shape[::-1]).to(reference.device)
    with torch.no_grad():
        head.weight.copy_(torch.from_numpy(tuned.weights["head.weight"]))
        head.bias.copy_(torch.from_numpy(tuned.weights["head.bias"]))
    return tokenizer, body, head


@pytest.mark.parity
@pytest.mark.parametrize("role", ["encoder", "decoder"])
@pytest.mark.parametrize("method", ["head", "layers"])
def test_a_learnt_model_s_why_is_its_own_attention_and_gradients(role, method, reference_model):
    """Attention from the position the head reads, and gradient x input of the predicted label's probability, equal
    those of the student's model rebuilt here on transformers' own (the shared body, or its learnt last layer)."""
    tol = tolerance(role)
    tuned = _learnt(role, method).tuned
    result = backend.explain_tuned(tuned, TOY_TEST[0][0])
    tokenizer, body, head = _own_reference(reference_model, role, tuned)
    ids = tokenizer(TOY_TEST[0][0], return_tensors="pt").to(body.device)
    position = 0 if role == "encoder" else ids["input_ids"].shape[1] - 1
    embedded = []
    hook = body.get_input_embeddings().register_forward_hook(lambda m, a, out: embedded.append(out) or out)
    try:
        output = body(**ids, output_attentions=True)
    finally:
        hook.remove()
    p = head(output.last_hidden_state[:, position]).softmax(-1)[0]
    label = int(p.argmax())
    (gradient,) = torch.autograd.grad(p[label], embedded[0])
    assert result.target.values["label"] == tuned.labels[label] and result.positions == (position,)
    assert result.score == pytest.approx(float(p[label].detach()), abs=tol.probability)
    expected = output.attentions[-1][0, :, position].mean(dim=0).detach().cpu().numpy()
    np.testing.assert_allclose(result.attention, expected, rtol=1e-5, atol=max(tol.attention, 1e-7))
    np.testing.assert_allclose(result.gradient_x_input, (gradient * embedded[0])[0].sum(-1).detach().cpu().numpy(),
                               rtol=tol.attribution, atol=1e-6)
    assert abs(result.completeness_gap) < 1e-3 + tol.probability


@pytest.mark.parametrize("role", ["encoder", "decoder"])
@pytest.mark.parametrize("method", ["head", "lora", "layers"])
def test_a_learnt_model_explains_the_label_and_probability_it_gives(role, method, reference_model):
    """Each method: the label explained is the one the learnt model predicts, with the probability "Try your model"
    shows; integrated gradients add up; LoRA's and the layers' attention is their own body's, not the shared model's."""
    tol = tolerance(role)
    tuned = _learnt(role, method).tuned
    result = backend.explain_tuned(tuned, TOY_TEST[1][0])
    tried = backend.predict_tuned(tuned, TOY_TEST[1][0])
    assert result.target.key == "note.explain.label" and result.target.values["label"] == tried.prediction
    assert result.score == pytest.approx(tried.probabilities[tried.prediction], abs=tol.probability)
    change = result.score - result.baseline_score
    assert sum(result.integrated_gradients) - change == pytest.approx(result.completeness_gap, abs=1e-6)
    assert abs(result.completeness_gap) < 1e-3 + tol.probability
    assert sum(result.attention) == pytest.approx(1.0, abs=tol.sums) and len(result.tokens) == len(result.attention)
    tokenizer, shared = reference_model(role, eager=True)
    with torch.inference_mode():
        ids = tokenizer(TOY_TEST[1][0], return_tensors="pt").to(shared.device)
        attentions = shared.base_model(**ids, output_attentions=True).attentions
    theirs = attentions[-1][0, :, result.positions[0]].mean(dim=0).cpu().numpy()
    if method == "head":
        np.testing.assert_allclose(result.attention, theirs, rtol=1e-5, atol=max(tol.attention, 1e-7))
    else:  # LoRA changes the attention projections; the learnt last layer is that layer
        assert np.abs(np.array(result.attention) - theirs).max() > 10 * max(tol.attention, 1e-6)


@pytest.mark.worker_side
@pytest.mark.parametrize("role", ["encoder", "decoder"])
def test_explaining_a_learnt_model_leaves_the_shared_model_as_it_was(role):
    from bg_demo.backend import finetune

    loaded = models.get(role)
    learnt = [_learnt(role, method).tuned for method in finetune.METHODS]
    before = {name: p.detach().clone() for name, p in loaded.model.state_dict().items()}
    kernel = loaded.model.config._attn_implementation

    def hooks():  # the shared model's own (another page may keep some): an explanation adds none
        return {name: (tuple(m._forward_hooks), tuple(m._forward_pre_hooks), tuple(m._backward_hooks))
                for name, m in loaded.model.named_modules()}

    hooked = hooks()
    for tuned in learnt:
        finetune.explain_tuned(tuned, TOY_TEST[0][0], steps=4)
    after = loaded.model.state_dict()
    for name, tensor in before.items():
        assert torch.equal(tensor, after[name]), name
    assert loaded.model.config._attn_implementation == kernel
    assert not any(p.requires_grad or p.grad is not None for p in loaded.model.parameters())
    assert hooks() == hooked
    assert not any("lora" in name for name, _ in loaded.model.named_modules())


def test_the_why_panel_explains_this_session_s_own_model_never_another_s():
    """The page's handler finds the session's own learnt model (`TUNED`): two students' models explain differently,
    each as the backend explains it; a session without one is told to fine-tune first (nobody else's is used)."""
    from types import SimpleNamespace

    from bg_demo.ui.finetune_tab import _explaining_tuned
    from bg_demo.ui.session import TUNED

    explain = _explaining_tuned("encoder")
    mine, theirs = _learnt("encoder", "lora", seed=0), _learnt("encoder", "lora", seed=1)
    shown = mine.to_dict()
    TUNED.keep("why-mine", "tune_bert", mine.tuned)
    TUNED.keep("why-theirs", "tune_bert", theirs.tuned)
    try:
        found = explain(shown, 2, None, None, request=SimpleNamespace(session_hash="why-mine"))
        other = explain(shown, 2, None, None, request=SimpleNamespace(session_hash="why-theirs"))
        assert found.to_dict() == backend.explain_tuned(mine.tuned, TOY_TEST[1][0]).to_dict()
        assert other.to_dict() == backend.explain_tuned(theirs.tuned, TOY_TEST[1][0]).to_dict()
        assert found.gradient_x_input != other.gradient_x_input
        for session, sentence, key in (("why-nobody", 1, "error.tune_why_first"), ("why-mine", 3, "ft.why_range"),
                                       ("why-mine", 1.5, "ft.why_range")):
            with pytest.raises(InputError) as refused:
                explain(shown, sentence, None, None, request=SimpleNamespace(session_hash=session))
            assert refused.value.text.key == key
        with pytest.raises(InputError) as refused:  # nothing on screen yet
            explain(None, 1, None, None, request=SimpleNamespace(session_hash="why-mine"))
        assert refused.value.text.key == "error.tune_why_first"
    finally:
        TUNED.forget("why-mine")
        TUNED.forget("why-theirs")


def test_the_why_endpoint_explains_the_caller_s_own_fine_tuned_model(app_url):
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    client = Client(app_url, verbose=False)
    job = client.submit("encoder", TOY_TRAIN, TOY_TEST, "head", 5, 0.05, 8, 0, 2, api_name="/fine_tune")
    *_, raw = job.result()
    plot, notes, explained = client.predict(raw, 2, "last", "mean", api_name="/explain_tune_bert")
    label = raw["predictions_after"][1]
    assert explained["target"] == {"key": "note.explain.label", "values": {"label": label}}
    assert explained["score"] == pytest.approx(raw["probabilities_after"][1][label], abs=tolerance("encoder").probability)
    assert "ρ =" in notes and plot is not None
    assert "Attention tab" not in notes  # the student's model is not the one the Attention tab shows
    with pytest.raises(AppError, match="Fine-tune a model on this page first"):  # another caller has none
        Client(app_url, verbose=False).predict(raw, 2, "last", "mean", api_name="/explain_tune_bert")
