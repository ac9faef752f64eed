"""On ZeroGPU with placement by cost (BG_DEMO_ZEROGPU_PLACEMENT unset: "auto"): a cheap call runs on the Space's own
CPU and declares nothing to the student's quota; the rest cross to a GPU worker (`tests.support.zerogpu.ForkingSpaces`,
the stand-in for `spaces`); a call ZeroGPU refuses for quota runs on the CPU with a note when it can, and is refused in
ZeroGPU's words, with when the quota comes back and how to get one's own, when it cannot. The same with the real
`spaces` package: tests/test_spaces_package.py."""

import asyncio

import gradio as gr
import pytest

from bg_demo import backend, config, dispatch, models, placement, text
from bg_demo.ui.strings import examples
from tests.support.zerogpu import stand_in
from tests.test_zerogpu import GUIDED_PATH

# a QA context of 4,160 characters (its limit is 20,000: it is read in windows): past CPU_CHARACTERS, so on the GPU
LONG = "Ada Lovelace met Charles Babbage in London to discuss the engine. " * 64


@pytest.fixture
def auto(zero_gpu_everywhere, monkeypatch):
    """The stand-in, placement by cost."""
    monkeypatch.setenv(placement.PLACEMENT_ENV, "auto")
    with stand_in(zero_gpu_everywhere) as spaces:
        yield spaces


@pytest.fixture
def quota(auto):
    """ZeroGPU refuses every GPU call: the anonymous visitor's daily quota is spent."""
    auto.quota(anonymous=True)
    yield auto
    auto.refuse, auto.refuse_title = None, "ZeroGPU client error"


def place(name, *args, **kwargs) -> str:
    return backend.CALLS[name].place(args, kwargs)


def test_cheap_calls_go_to_the_cpu_and_the_rest_to_the_gpu():
    """The list bench/zerogpu_placement.py measured: a BERT task, an attention view, the next-token lab or Compare at
    ordinary lengths take 0.03-0.3 s on 2 vCPUs; a long input, a bigger model, prompting, explanations, generation and
    fine-tuning go to a GPU worker."""
    for name, args in [("fill_mask", ("The [MASK] sat.",)), ("classify", ("Great film.",)),
                       ("recognize_entities", ("Ada met Charles in London.",)), ("answer", ("Who?", "Ada did.")),
                       ("next_sentence", ("A.", "B.")), ("attention", ("The cat sat.", "decoder")),
                       ("compare", ("I went to the bank.",)), ("next_token", ("The cat",)),
                       ("logit_lens", ("The cat",)), ("causal_lm", ("The cat sat.",))]:
        assert place(name, *args) == "cpu", name
    assert place("answer", "Who met Babbage?", LONG) == "gpu"  # a long input
    assert place("attention", "The cat sat.", "encoder", model_id="google-bert/bert-large-uncased") == "gpu"
    assert place("attention", "The cat sat.", "encoder", model_id="google-bert/bert-base-multilingual-cased") == "cpu"
    assert place("prompt_task", "encoder", [["Good.", "pos"]], [["Bad.", "neg"]], "{text} [MASK].", "good, bad") == "gpu"
    assert place("explain_classify", "Great film.") == "gpu"
    assert place("generate", "Once", "greedy", max_new_tokens=4) == "gpu"


@pytest.mark.parametrize("forced", ["gpu", "cpu"])
def test_a_setting_forces_every_call_one_way(forced, monkeypatch):
    monkeypatch.setenv(placement.PLACEMENT_ENV, forced)
    assert place("fill_mask", "The [MASK] sat.") == place("explain_classify", "Great film.") == forced
    monkeypatch.setenv(placement.PLACEMENT_ENV, "sometimes")
    with pytest.raises(ValueError, match="auto, gpu, cpu"):
        place("fill_mask", "The [MASK] sat.")


def test_the_guided_path_declares_at_most_20_gpu_seconds_and_the_bert_tabs_none():
    assert len(GUIDED_PATH) == len(examples()["guided_path"])
    declared = {name: backend.CALLS[name].duration(args, kwargs) for name, args, kwargs in GUIDED_PATH
                if backend.CALLS[name].place(args, kwargs) == "gpu"}
    assert sum(declared.values()) <= 20, declared  # 62 s with every call on the GPU
    assert not {"fill_mask", "classify", "recognize_entities", "answer", "next_sentence"} & declared.keys()


def test_a_cheap_call_runs_here_and_asks_zerogpu_for_nothing(auto):
    before = len(auto.calls)
    with dispatch.accounting() as spent:
        here = backend.fill_mask("The [MASK] sat on the mat.")
        attention = backend.attention("The cat sat.", "encoder")
    assert len(auto.calls) == before  # no GPU call, so no quota
    assert [(call.name, call.where, call.declared) for call in spent.calls] == [("fill_mask", "cpu", 0),
                                                                               ("attention", "cpu", 0)]
    assert spent.declared == 0 and spent.fell_back is None
    placement.stop_using()
    try:
        assert backend.fill_mask("The [MASK] sat on the mat.").to_dict() == here.to_dict()
        assert backend.attention("The cat sat.", "encoder").tokens == attention.tokens
    finally:
        placement.prepare(auto)


def test_a_costly_call_goes_to_a_worker_and_is_counted(auto):
    with dispatch.accounting() as spent:
        backend.explain_classify("Great film.", steps=4)
    entry, declared = auto.calls[-1]
    assert entry is backend.CALLS["explain_classify"] and spent.declared == declared == dispatch.EXPLAIN_SECONDS
    assert [call.where for call in spent.calls] == ["gpu"]


def test_a_cpu_copy_is_a_model_of_its_own_where_the_configured_device_is_the_gpu(auto, monkeypatch):
    """On a Space the configured models are placed on "cuda" (emulated, for the workers): a call placed on the CPU
    reads a CPU copy, loaded and kept beside them, never the one placed for the workers."""
    loads = []

    def loader(role, model_id, device=None):
        loads.append((role, device))
        return models.LoadedModel(role, model_id, None, None, device or "cuda", nbytes=1)

    monkeypatch.setenv("BG_DEMO_DEVICE", "cuda")  # the store's key, not a load: the loader makes no model
    config.settings.cache_clear()
    store = models.ModelStore(loader, budget=10)
    placed = store.get("encoder")
    with placement.on_cpu():
        copy = store.get("encoder")
        assert store.get("encoder") is copy and store.is_loaded("encoder")
    assert placed is not copy and placed.device == "cuda" and copy.device == "cpu" and copy.here and not placed.here
    assert loads == [("encoder", None), ("encoder", "cpu")] and store.get("encoder") is placed


def test_a_cpu_copy_runs_from_any_thread_and_the_model_placed_for_the_workers_from_none(auto):
    """A decoding engine's thread (started by whichever call came first) runs a CPU copy's steps; the model placed
    for the workers is refused in this process whatever the thread."""
    import threading

    placed = models.get("decoder")
    with placement.on_cpu():
        copy = models.get("decoder")
    assert copy is not placed and copy.here and not placed.here
    used = []

    def engine_like() -> None:  # a thread of its own: not in the placing call's context
        with copy.use() as (tokenizer, model):
            used.append(model)
        try:
            with placed.use():
                used.append("placed")
        except RuntimeError as refused:
            used.append(str(refused))

    thread = threading.Thread(target=engine_like)
    thread.start()
    thread.join()
    assert used[0] is copy.model and "outside a GPU call" in used[1]


def test_a_refused_call_that_can_run_on_the_cpu_runs_there_and_says_why(quota):
    with dispatch.accounting() as spent:
        long = backend.answer("Who met Babbage?", LONG)  # a long input: placed on the GPU, refused, run here
        why = backend.explain_classify("Great film.", steps=4)
    assert "score" in long.to_dict() and why.to_dict()["target"]
    assert [(call.name, call.where, call.refusal) for call in spent.calls] == [("answer", "cpu", "quota"),
                                                                               ("explain_classify", "cpu", "quota")]
    assert spent.fell_back == "quota" and spent.declared == 0


def test_a_refused_stream_runs_on_the_cpu_to_its_end(quota):
    with dispatch.accounting() as spent:
        handle = backend.submit_generation("Once upon a time", backend.GenerationSettings("greedy", max_new_tokens=6))
    final = list(handle)[-1]
    assert final.done and final.n_tokens == 6 and final.stopped == "max new tokens"
    assert [(call.where, call.refusal) for call in spent.calls] == [("cpu", "quota")]
    placement.stop_using()
    try:
        here = backend.generate("Once upon a time", "greedy", max_new_tokens=6)
    finally:
        placement.prepare(quota)
    assert final.texts == here.texts


def test_a_refused_fine_tuning_run_says_when_the_quota_comes_back_and_how_to_get_one_s_own(quota):
    """A run that cannot go to the CPU: ZeroGPU's words, and in the page's language when the quota comes back (where
    ZeroGPU says) and, to an anonymous visitor, signing in."""
    from bg_demo.ui import page

    train = [["A good film.", "good"], ["A bad film.", "bad"]] * 4
    with dispatch.accounting() as spent:
        handle = backend.fine_tune("encoder", train, train, "head", 4, None, 2)
        with pytest.raises(gr.Error) as refused:
            list(handle)
    assert [(call.where, call.refusal) for call in spent.calls] == [("refused", "quota")]
    anonymous = page.failure(refused.value, "fine_tune")
    quota.quota(anonymous=False)
    with pytest.raises(gr.Error) as signed_in:
        list(backend.fine_tune("encoder", train, train, "head", 4, None, 2))
    known = page.failure(signed_in.value, "fine_tune")
    for lang in text.LANGS:
        words = anonymous.render(lang)
        assert "reached its GPU limit" in words  # ZeroGPU's own words, inside the page's
        assert text.t("app.gpu_quota.sign_in", lang) in words and text.t("app.gpu_quota.when_unknown", lang) in words
        words = known.render(lang)
        assert text.t("app.gpu_quota.when", lang, hours=3, minutes=12) in words and "Try again in 3:12:00" in words
        assert text.t("app.gpu_quota.sign_in", lang) not in words
    assert len({anonymous.render(lang) for lang in text.LANGS}) == 3


def test_the_page_notes_a_cpu_run_and_the_gpu_time_the_session_declared(auto):
    """Beside the outputs, in the page's language: a run ZeroGPU refused that ran on the CPU, and the GPU time a run
    declared with the session's total, which grows with each run."""
    from bg_demo.ui import language, qa_tab, screen
    from bg_demo.ui.common import plain
    from bg_demo.ui.gradio_compat import listeners
    from bg_demo.ui.page import Reader

    with gr.Blocks() as demo:
        qa_tab.build(Reader(language.switch(), screen.box()))
    handlers = {getattr(event.fn, "__name__", None): event.fn for event in listeners(demo)}
    qa = handlers["compute_in_page"]
    request = type("Request", (), {"session_hash": "a-student"})()

    *_, box, _ = qa("Who met Babbage?", "Ada met Babbage.", None, "ko", 390, request, None)  # on the CPU: nothing said
    assert not box.visible
    *_, box, _ = qa("Who met Babbage?", LONG, None, "ko", 390, request, None)  # a long context: on the GPU
    seconds = backend.CALLS["answer"].duration(("Who met Babbage?", LONG), {})
    assert box.visible and box.value.startswith("ℹ️") and plain(text.t(
        "gpu.note.declared", "ko", seconds=seconds, total=seconds, anonymous=120, signed_in=300)) in box.value
    *_, box, _ = qa("Who met Babbage?", LONG, None, "en", 390, request, None)
    assert f"asked for {2 * seconds} s so far" in box.value
    auto.quota()
    try:
        *_, box, _ = qa("Who met Babbage?", LONG, None, "ja", 390, request, None)
    finally:
        auto.refuse = None
    assert box.visible and plain(text.t("gpu.note.quota", "ja")) in box.value


def _generate_page():
    from bg_demo.ui import generate_tab, language, screen
    from bg_demo.ui.gradio_compat import listeners
    from bg_demo.ui.page import Reader

    with gr.Blocks() as demo:
        generate_tab.build(Reader(language.switch(), screen.box()))
    generate = {getattr(event.fn, "__name__", None): event.fn for event in listeners(demo)}["generate_in_page"]

    async def updates(lang):
        generation = ["Once upon a time", "greedy", 4, 1.0, 50, 0.9, 4, 1, "", 0, 1.0, ""]
        request = type("Request", (), {"session_hash": "a-streaming-student"})()
        return [update async for update in generate(*generation, None, lang, 1280, request, None)]

    return lambda lang: asyncio.run(updates(lang))


def test_a_stream_page_notes_its_cpu_run_from_its_first_update(quota):
    from bg_demo.ui.common import plain

    (*_, first_box, _), *rest = _generate_page()("en")
    assert first_box.visible and plain(text.t("gpu.note.quota", "en")) in first_box.value
    assert all(plain(text.t("gpu.note.quota", "en")) in box for *_, box, _ in rest)


def test_a_stream_page_says_what_its_gpu_run_declared_once_it_ends(auto):
    from bg_demo.ui.common import plain

    *streamed, (*outputs, box, state) = _generate_page()("ja")
    seconds = backend.CALLS["submit_generation"].duration(
        ("Once upon a time", backend.GenerationSettings("greedy", max_new_tokens=4)), {})
    assert streamed and not streamed[0][-2].visible  # nothing to say while it streams on the GPU
    assert all(output == gr.skip() for output in outputs) and state == gr.skip()  # the result stays as streamed
    assert box.visible and plain(text.t("gpu.note.declared", "ja", seconds=seconds, total=seconds, anonymous=120,
                                        signed_in=300)) in box.value


def _components(demo, kind) -> list:
    from bg_demo.ui.gradio_compat import components

    return [block for block in components(demo).values() if isinstance(block, kind)]


def test_the_start_page_says_why_to_sign_in_and_has_the_button_on_a_space(auto, monkeypatch):
    """On ZeroGPU the Start page says why signing in helps, in the page's language; on a Space with OAuth (the README's
    `hf_oauth: true`) it carries Gradio's sign-in button. Elsewhere Gradio would mock the button with the machine's
    own token and refuse to launch without one: no button there."""
    from bg_demo.ui import build_demo, start_tab, strings

    monkeypatch.delenv("SYSTEM", raising=False)
    demo = build_demo([start_tab])
    line = strings.key_of(next(markdown.value for markdown in _components(demo, gr.Markdown)
                               if "gpu.sign_in" in str(strings.key_of(markdown.value))))
    assert line.startswith("gpu.sign_in") and not _components(demo, gr.LoginButton)
    for lang in text.LANGS:
        assert "120" in text.t("gpu.sign_in", lang, anonymous=120, signed_in=300)
    from bg_demo.ui.gradio_compat import oauth_settings

    # what a Space with `hf_oauth: true` sets (Gradio reads its OAuth settings when it is imported)
    space = dict(OAUTH_CLIENT_ID="a-client", OAUTH_CLIENT_SECRET="a-secret", OAUTH_SCOPES="openid profile",
                 OPENID_PROVIDER_URL="http://127.0.0.1:9")
    for name, value in space.items():
        monkeypatch.setenv(name, value)
        monkeypatch.setattr(oauth_settings(), name, value)
    monkeypatch.setenv("SYSTEM", "spaces")
    monkeypatch.setenv("SPACE_ID", "a-teacher/bg-demo")
    assert len(_components(build_demo([start_tab]), gr.LoginButton)) == 1
    placement.stop_using()
    try:
        assert not _components(build_demo([start_tab]), gr.LoginButton)  # not on ZeroGPU: no quota to speak of
    finally:
        placement.prepare(auto)
