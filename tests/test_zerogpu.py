"""On ZeroGPU, with every call placed on the GPU (BG_DEMO_ZEROGPU_PLACEMENT=gpu): every model call crosses to a forked
GPU worker and back by pickle (`tests.support.zerogpu.ForkingSpaces`, the stand-in for `spaces`), and none runs in the
main process, which has no GPU there. Placement by cost (cheap calls on the Space's own CPU) and what happens when
ZeroGPU refuses for quota: tests/test_zerogpu_placement.py."""

import os
import time

import pytest
from gradio_client import Client

from bg_demo import backend, dispatch, models, placement, text
from bg_demo.errors import InputError
from tests.support.zerogpu import stand_in
from tests.test_boundary import CALLS, _steady


@pytest.fixture
def zero_gpu(zero_gpu_everywhere, monkeypatch):
    """The stand-in for this test (or the session's, with BG_DEMO_TEST_ZEROGPU=1), every call placed on the GPU."""
    monkeypatch.setenv(placement.PLACEMENT_ENV, "gpu")
    with stand_in(zero_gpu_everywhere) as spaces:
        yield spaces


@pytest.fixture
def main_process_forwards():
    """The pids of every module forward run in this process from now on (a forked worker records in its own copy)."""
    import torch

    here, seen = os.getpid(), []
    hook = torch.nn.modules.module.register_module_forward_pre_hook(
        lambda module, args: seen.append(os.getpid()) if os.getpid() == here else None)
    # this process may also serve the app to another test file's browser (the session's `served`): a run a page left
    # behind ends first (it stops at its next step, as the ZeroGPU placement now refuses it), so that what is counted
    # is this test's calls alone
    deadline, count = time.monotonic() + 60, -1
    while count != len(seen) and time.monotonic() < deadline:
        count = len(seen)
        time.sleep(1.0)
    seen.clear()
    yield seen
    hook.remove()


@pytest.mark.parametrize("name", ["fill_mask", "answer", "generate", "generate_stream", "compare", "next_token",
                                  "explain_fill_mask", "explain_generation", "prompt_task", "fine_tune"])
def test_a_call_crosses_to_a_worker_and_gives_what_it_gives_here(name, zero_gpu, main_process_forwards):
    across = CALLS[name]()
    assert main_process_forwards == []  # the main process ran no forward pass: the worker did
    placement.stop_using()
    try:
        here = CALLS[name]()
    finally:
        placement.prepare(zero_gpu)
    assert name in called(zero_gpu)
    _assert_close(_steady(across.to_dict()), _steady(here.to_dict()))


def called(zero_gpu) -> set[str]:
    """The names of the calls that crossed to a worker (each crosses with its entry in the call table)."""
    return {entry.name for entry, _ in zero_gpu.calls}


def _assert_close(a, b, path="result"):
    """Equal, numbers to float32's rounding: a worker runs on one thread, so its sums add up in another order."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            _assert_close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_close(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert a == pytest.approx(b, rel=1e-5, abs=1e-6), path
    else:
        assert a == b, path


def test_no_model_call_runs_in_the_main_process(zero_gpu):
    loaded = models.get("encoder")
    with pytest.raises(RuntimeError, match="outside a GPU call"):
        with loaded.use():
            pass


def test_a_question_to_the_model_store_is_answered_here(zero_gpu):
    """Where the models are loaded (this process, on ZeroGPU): no worker, no GPU asked for."""
    before = len(zero_gpu.calls)
    models.get("encoder")
    assert backend.model_is_loaded("encoder") is True
    assert "encoder" in {info.role for info in backend.model_memory().models}
    assert len(zero_gpu.calls) == before


def test_a_student_s_mistake_crosses_as_a_worded_message(zero_gpu):
    with pytest.raises(InputError) as raised:
        backend.fill_mask("No gap in this sentence.")
    english = str(raised.value)
    with text.use("ko"):
        korean = str(raised.value)
    assert "[MASK]" in english and korean != english and "[MASK]" in korean
    assert zero_gpu.calls[-1][0] is backend.CALLS["fill_mask"]


def test_a_picked_model_is_loaded_here_before_the_call(zero_gpu, hub_models, monkeypatch):
    """A worker forked after the load finds the model in memory, as ZeroGPU moves what was placed at start-up."""
    from bg_demo import config

    monkeypatch.setenv("BG_DEMO_MODEL_DIR", str(hub_models["openai-community/gpt2"].parent.parent))
    config.settings.cache_clear()
    picked = "distilbert/distilgpt2"
    result = backend.logit_lens("The cat sat", model_id=picked)
    assert models.is_loaded("decoder", picked) and result.model_id == picked


def test_stop_ends_the_worker_and_frees_the_gpu(zero_gpu, monkeypatch):
    from bg_demo.backend.generation import engine

    step = engine.DecodingEngine._step  # the worker is a fork: the slower step goes with it
    monkeypatch.setattr(engine.DecodingEngine, "_step", lambda self: (time.sleep(0.05), step(self)))
    handle = backend.submit_generation("Once upon a time", backend.GenerationSettings("top_k", max_new_tokens=256,
                                                                                      seed=3))
    stream = iter(handle)
    first = next(stream)
    worker = zero_gpu.workers[-1]  # this generation's (with BG_DEMO_TEST_ZEROGPU=1 others may still be ending)
    assert worker.is_alive()
    handle.cancel()
    final = list(stream)[-1]
    assert final.done and final.stopped == "stopped" and first.n_tokens <= final.n_tokens < 256
    deadline = time.monotonic() + 10
    while worker.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not worker.is_alive()  # the worker ended at its next token: the GPU is given back


def test_a_fine_tuning_run_is_one_worker_and_stop_keeps_its_curve(zero_gpu):
    train = [["A good film.", "good"], ["A bad film.", "bad"]] * 4
    handle = backend.fine_tune("encoder", train, train, "lora", 200, None, 2)
    stream = iter(handle)
    first = next(stream)
    worker = zero_gpu.workers[-1]
    assert worker.is_alive() and zero_gpu.calls[-1][0] is backend.CALLS["fine_tune"]
    handle.cancel()
    final = list(stream)[-1] if not first.done else first
    assert final.done and final.stopped and first.step <= final.step < 200
    assert final.accuracy_after is not None and final.tuned is None  # the worker went with its weights
    deadline = time.monotonic() + 10
    while worker.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not worker.is_alive()


# The guided path's calls (assets/examples.json's guided_path, one per step: bench/zerogpu_lesson.py plays them
# through the app) as the dispatcher passes them to `Entry.duration`.
GUIDED_PATH = [
    ("fill_mask", ("The cat sat on the [MASK].",), {"top_k": 5}),
    ("classify", ("I loved this movie, the acting was wonderful and the story was moving.",), {}),
    ("recognize_entities", ("Angela Merkel met Emmanuel Macron in Berlin to talk about the European Union.", "average"),
     {}),
    ("answer", ("Who wrote the paper?", "Vaswani and colleagues wrote it."), {}),
    ("next_sentence", ("The man went to the store.", "He bought a gallon of milk."), {}),
    ("submit_generation", ("Artificial intelligence is", backend.GenerationSettings("greedy", max_new_tokens=40)), {}),
    ("next_token", ("The capital of France is", 1.0, 0, 0.9), {}),
    ("attention", ("The animal didn't cross the street because it was too tired.", "encoder"), {}),
    ("compare", ("I went to the bank to deposit cash.",), {}),
    ("mlm_corruption", ("The quick brown fox jumps over the lazy dog.",), {"seed": 0}),
    ("causal_lm", ("The capital of France is Paris.",), {}),
    ("prompt_task", ("decoder", [["Great.", "positive"]], [["Dull.", "negative"]], "{text} It was {label}.",
                     {"positive": "good", "negative": "bad"}), {"shots": 4}),
]


def test_each_call_asks_for_a_duration_that_fits_it(zero_gpu):
    """Short enough that an anonymous visitor (120 s a day; ZeroGPU refuses a call declaring more than is left) gets
    through the guided path even if every call used all it declared, on nodes where ZeroGPU scales a request by 1.5
    too; long enough for what each request asks: the duration is also the call's limit."""
    from bg_demo.config import LIMITS
    from bg_demo.ui.strings import examples

    backend.fill_mask("The [MASK] sat.")
    backend.generate("Once", "greedy", max_new_tokens=4)
    backend.generate("Once", "beam", max_new_tokens=200, num_beams=4)
    backend.explain_classify("Great film.", steps=4)
    (_, call), (_, short), (_, long), (_, explain) = zero_gpu.calls[-4:]
    assert call == dispatch.CALL_SECONDS <= 6 and explain == dispatch.EXPLAIN_SECONDS <= 10  # base-size, as dispatched
    assert dispatch.START_SECONDS < short < long == dispatch.START_SECONDS + LIMITS.generation_seconds  # budget caps it

    def asks(name, *args, **kwargs):
        return backend.CALLS[name].duration(args, kwargs)

    # more for a bigger model: gpt2-medium and bert-large (~2.8x base) get their passes' allowance scaled
    medium, large = "openai-community/gpt2-medium", "google-bert/bert-large-uncased"
    start = dispatch.START_SECONDS
    assert asks("logit_lens", "The cat", model_id=medium) >= start + 2.8 * (call - start)
    assert asks("attention", "The cat", "encoder", model_id=large) > asks("attention", "The cat", "encoder") == call
    assert asks("explain_next_token", "The cat", model_id=medium) >= start + 2.8 * (explain - start)
    assert asks("compare", "The cat") > call  # reads both roles' models
    # more for more tokens and more rows, whole seconds, never past the budget
    settings = [backend.GenerationSettings("top_p", max_new_tokens=n, num_return_sequences=rows)
                for n, rows in ((40, 1), (80, 1), (80, 2), (256, 5))]
    tokens = [asks("submit_generation", "Once", each) for each in settings]
    assert tokens == sorted(set(tokens)) and all(isinstance(seconds, int) for seconds in tokens)
    assert tokens[1] >= start + 80 * 0.04 and tokens[-1] == start + LIMITS.generation_seconds

    assert len(GUIDED_PATH) == len(examples()["guided_path"])
    declared = [asks(name, *args, **kwargs) for name, args, kwargs in GUIDED_PATH]
    assert sum(declared) * 1.5 <= 120  # 15 s a task (the old rule) made it 146 s, past 120 even unscaled


def test_the_defaults_are_placed_at_start_up(zero_gpu):
    from bg_demo import config

    models.STORE.clear()
    dispatch.place_defaults()
    assert all(models.is_loaded(role) for role in config.ROLES)


@pytest.mark.server
def test_the_app_s_endpoints_stream_and_explain_through_the_workers(zero_gpu, main_process_forwards, monkeypatch):
    from bg_demo.backend.generation import engine
    from bg_demo.ui import build_demo

    step = engine.DecodingEngine._step  # 50 ms a token, so the stream has updates to show
    monkeypatch.setattr(engine.DecodingEngine, "_step", lambda self: (time.sleep(0.05), step(self)))

    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    try:
        client = Client(url, verbose=False)
        *_, raw = client.predict("The [MASK] sat on the mat.", 3, api_name="/fill_mask")
        assert len(raw["masks"][0]) == 3
        job = client.submit("Once upon a time", "top_k", 12, 1.0, 5, 0.9, 3, 2, "3", 0, 1.0, api_name="/generate")
        updates = list(job)
        assert len(updates) > 2 and updates[-1][3]["done"] and len(updates[-1][3]["texts"]) == 2
        why = client.predict("I loved this movie.", "1", "0", api_name="/explain_classify")
        assert why[-1]["target"]["key"] == "note.explain.label"
    finally:
        demo.close()
    assert {"fill_mask", "submit_generation", "explain_classify"} <= called(zero_gpu)
    assert main_process_forwards == []


@pytest.fixture
def refusing(zero_gpu):
    """ZeroGPU refuses every call (no GPU free), in the caller's process, before any worker starts."""
    zero_gpu.refuse = "No GPU was available"
    yield zero_gpu
    zero_gpu.refuse, zero_gpu.refuse_title = None, "ZeroGPU client error"


def test_zerogpu_s_refusal_reaches_the_student_in_its_words_and_the_page_s_language(refusing):
    """The dispatcher lets ZeroGPU's refusal (a gr.Error from `spaces`) through as it is, from a call and from a
    stream; the page words it in its reader's language with ZeroGPU's own words inside (`ui.page.failure`)."""
    import asyncio

    import gradio as gr

    from bg_demo.ui import common, page

    async def stream():
        submit = lambda: backend.submit_generation("Once", backend.GenerationSettings("greedy", max_new_tokens=4))  # noqa: E731
        async for _ in common.stream("decoder", submit, "a-session"):
            pass

    with pytest.raises(gr.Error) as called:
        common.run("encoder", backend.fill_mask, "The [MASK] sat.")
    with pytest.raises(gr.Error) as streamed:
        asyncio.run(stream())
    assert called.value.message == streamed.value.message == "No GPU was available"
    said = {lang: page.failure(called.value, "fill_mask").render(lang) for lang in ("en", "ko", "ja")}
    for lang, words in said.items():
        assert words == text.t("app.gpu_service", lang, message="No GPU was available")
    assert len(set(said.values())) == 3  # one framing per language, ZeroGPU's own words inside each


def test_zerogpu_s_refusal_is_said_beside_the_page_s_outputs_in_its_reader_s_language(refusing):
    """What the student sees: a page's event (a call, and a stream) refused by ZeroGPU puts `app.gpu_service`, with
    ZeroGPU's words inside, into the page's error box in the language the page is read in, leaves the outputs on
    screen as they were, and keeps the refusal in the page's state (a language switch words it again from there)."""
    import asyncio

    import gradio as gr

    from bg_demo.ui import fill_mask_tab, generate_tab, language, screen
    from bg_demo.ui.common import plain
    from bg_demo.ui.gradio_compat import listeners
    from bg_demo.ui.page import Reader, Shown

    def handlers(tab) -> dict:
        """The events of one tab's pages by their functions' names (`<compute>_in_page`)."""
        with gr.Blocks() as demo:
            tab.build(Reader(language.switch(), screen.box()))
        return {getattr(event.fn, "__name__", None): event.fn for event in listeners(demo)}

    refusal = text.Text("app.gpu_service", message="No GPU was available")
    fill_mask = handlers(fill_mask_tab)["compute_in_page"]
    # a page event's values: its inputs, then the page's state (nothing shown yet), the language and the width
    *outputs, box, shown = fill_mask("The [MASK] sat.", 3, "", None, "ko", 390, None, None)
    assert box.visible and box.value == f"⚠️ {plain(refusal.render('ko'))}" and "No GPU was available" in box.value
    assert all(output == gr.skip() for output in outputs)
    assert isinstance(shown, Shown) and shown.result is None and shown.error == refusal

    async def generated(lang):
        generation = ["Once upon a time", "greedy", 4, 1.0, 50, 0.9, 4, 1, "", 0, 1.0, ""]
        return [update async for update in generate(*generation, None, lang, 1280, None, None)]

    generate = handlers(generate_tab)["generate_in_page"]

    for lang in ("ja", "en"):
        (*outputs, box, shown), = asyncio.run(generated(lang))  # one update: the refusal
        assert box.visible and box.value == f"⚠️ {plain(refusal.render(lang))}"
        assert all(output == gr.skip() for output in outputs) and shown.error == refusal


def test_on_zerogpu_numpy_multiplies_matrices_on_one_thread(zero_gpu, monkeypatch):
    """This process forks GPU workers while its other threads go on: OpenBLAS's fork handler waits for its thread
    pool, so a fork during another thread's matrix product (the attention views' rollout) deadlocked both."""
    import sys
    import types

    monkeypatch.setenv(placement.ENV, "true")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setitem(sys.modules, "spaces", types.SimpleNamespace(GPU=zero_gpu.GPU))  # `import spaces` finds it
    try:
        placement.prepare()
        assert os.environ.get("OPENBLAS_NUM_THREADS") == "1"
    finally:
        placement.prepare(zero_gpu)
