"""Where the answer looks: the attention rows of the answer's first and last tokens, in the window it came from."""

import json
import pickle

import numpy as np
import pytest
import torch

from bg_demo import backend, figures, text
from bg_demo.backend.qa_attention import PARTS
from bg_demo.errors import InputError
from bg_demo.figures.axes import MAX_TICK_LABELS, TICK_NUDGE
from bg_demo.look import NARROW, PAGE_PADDING, Look
from bg_demo.tiny_models import corpus_lines
from bg_demo.ui import gradio_compat
from tests.tolerance import tolerance

WINDOW, STRIDE = 384, 128
LONG = " ".join(corpus_lines() * 3)  # several windows
QUESTIONS = ("Who wrote the paper?", "Where is the company based?", "When?", "What is it?")


@pytest.fixture
def answered(tiny_dir):
    """A question whose answer the tiny model finds in a window other than the first, and that answer."""
    for question in QUESTIONS:
        result = backend.answer(question, LONG)
        if result.answer is not None and result.alternatives[0].window > 0:
            return question, result
    pytest.fail("no question of QUESTIONS is answered from a later window by the tiny model")


def _looked(question, result):
    return backend.answer_attention(question, LONG, result.start, result.end, result.alternatives[0].window)


def reference(tiny_dir, question, context, window: int):
    """transformers itself, on its own: the window's ids, offsets and sequence ids, and every layer's and head's
    attention (L, H, T, T), from the whole QA model run with eager attention on that window alone."""
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_dir / "qa")
    model = AutoModelForQuestionAnswering.from_pretrained(tiny_dir / "qa", attn_implementation="eager",
                                                          dtype=torch.float32).eval()
    enc = tokenizer(question, context, truncation="only_second", max_length=WINDOW, stride=STRIDE,
                    return_overflowing_tokens=True, return_offsets_mapping=True)
    ids, types = enc["input_ids"][window], enc["token_type_ids"][window]
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), token_type_ids=torch.tensor([types]), output_attentions=True)
    weights = torch.stack(out.attentions)[:, 0].numpy()  # (L, H, T, T)
    tokens = tokenizer.convert_ids_to_tokens(ids)
    return len(enc["input_ids"]), tokens, enc["offset_mapping"][window], enc.sequence_ids(window), weights


@pytest.mark.parity
def test_the_rows_are_transformers_attention_from_the_answers_first_and_last_tokens(answered, tiny_dir):
    question, result = answered
    looked = _looked(question, result)
    window = result.alternatives[0].window
    n_windows, tokens, offsets, sequence, weights = reference(tiny_dir, question, LONG, window)
    assert looked.window == window > 0 and looked.n_windows == n_windows == len(result.windows) > 2
    assert looked.tokens == tuple(tokens)  # the window as preprocess builds it, padding left out
    assert looked.parts == tuple("special" if s is None else PARTS[1 + s] for s in sequence)
    # the tokens it reads from are the answer's own: their offsets span exactly the answer in the context
    assert sequence[looked.start] == sequence[looked.end] == 1
    assert (offsets[looked.start][0], offsets[looked.end][1]) == (result.start, result.end)
    assert looked.answer == result.answer == LONG[result.start : result.end]
    layers, heads = weights.shape[:2]
    assert looked.rows.shape == (layers, heads, 2, len(tokens)) and looked.rows.dtype == np.float16
    expected = weights[:, :, [looked.start, looked.end], :]  # every layer and head, the two rows
    # kept in float16 (to 2**-11 of a weight, under 1e-3), from the model's dtype (tests/tolerance.py)
    np.testing.assert_allclose(looked.rows.astype(np.float32), expected, atol=1e-3 + tolerance("qa").attention, rtol=0)
    np.testing.assert_allclose(looked.rows.astype(np.float32).sum(-1), 1.0, atol=2e-2)


def test_the_window_matters(answered, tiny_dir):
    """Another window the same span is read in gives other rows; a window without it is refused."""
    question, result = answered
    window = result.alternatives[0].window
    other = next(w for w in (window - 1, window + 1) if 0 <= w < len(result.windows))
    lo, hi = result.windows[other]
    if lo <= result.start and result.end <= hi:  # the overlap holds it: read there, it is another window's rows
        there = backend.answer_attention(question, LONG, result.start, result.end, other)
        assert there.window == other and there.tokens != _looked(question, result).tokens
    far = next(w for w, (lo, hi) in enumerate(result.windows) if hi <= result.start or lo >= result.end)
    with pytest.raises(InputError, match=f"not a span of the context's tokens in window {far + 1}"):
        backend.answer_attention(question, LONG, result.start, result.end, far)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("Who?", LONG, None, None, None), "no answer to look from"),
        (("Who?", LONG, 0, 5, 99), "window"),
        (("Who?", LONG, 5, 5, 0), "end"),
        (("Who?", LONG, 0, len(LONG) + 9, 0), "end"),
        (("Who?", LONG, "a", 5, 0), "start"),
        (("", LONG, 0, 5, 0), "question is empty"),
        (("Who?", " ", 0, 1, 0), "context is empty"),
    ],
)
def test_bad_input_says_what_to_change(args, message):
    with text.use("en"), pytest.raises(InputError, match=message):
        backend.answer_attention(*args)


def test_the_result_pickles_and_keeps_only_two_rows(answered):
    looked = _looked(*answered)
    copy = pickle.loads(pickle.dumps(looked))
    np.testing.assert_array_equal(copy.rows, looked.rows)
    summary = looked.summary()
    assert "rows" not in summary and summary["shape"] == list(looked.rows.shape)
    assert json.loads(json.dumps(summary)) == summary


# --- the figure --------------------------------------------------------------------------------------------------


def _bert_base_sized(looked):
    """The same window with bert-base's 12 layers x 12 heads of rows (the figure's size follows the model's)."""
    rows = np.random.default_rng(0).random((12, 12, 2, len(looked.tokens))).astype(np.float16)
    return type(looked)(**{**looked.__dict__, "rows": rows})


def test_the_figure_draws_both_rows_over_the_keys_with_the_regions_and_the_answer_marked(answered):
    looked = _looked(*answered)
    assert len(looked.tokens) == WINDOW  # a full window: the size that matters
    fig = figures.answer_attention_lines(looked, Look("en", 1024), 1, 2)
    start, end = fig.data
    np.testing.assert_array_equal(start.y, looked.rows[1, 2, 0].astype(np.float32))
    np.testing.assert_array_equal(end.y, looked.rows[1, 2, 1].astype(np.float32))
    assert list(start.x) == list(range(WINDOW))
    # the hover: the whole token (its position and part) and the weight to 3 decimals
    assert start.customdata[looked.start] == f"{looked.tokens[looked.start]} #{looked.start} · context"
    assert start.customdata[0] == "[CLS] #0 · special" and start.customdata[1].endswith("· question")
    assert "%{y:.3f}" in start.hovertemplate and "%{customdata}" in start.hovertemplate
    assert looked.tokens[looked.start] in start.name and looked.tokens[looked.end] in end.name
    # labels thinned: at most MAX_TICK_LABELS at 1024 px
    ticks = fig.layout.xaxis.tickvals
    assert len(ticks) <= MAX_TICK_LABELS < WINDOW and ticks[0] == TICK_NUDGE
    bands = {(s.x0, s.x1) for s in fig.layout.shapes}
    question = [i for i, part in enumerate(looked.parts) if part == "question"]
    assert (question[0] - 0.5, question[-1] + 0.5) in bands
    assert (looked.start - 0.5, looked.end + 0.5) in bands
    words = {a.text for a in fig.layout.annotations}
    assert {"question", "<b>answer</b>"} <= words
    assert "layer 1, head 2" in fig.layout.title.text
    assert fig.layout.meta["alt"].startswith("Where the answer looks: layer 1, head 2")


@pytest.mark.parametrize("width", [390, 1024, 1280])
def test_the_figure_fits_the_screen_and_stays_under_a_megabyte(answered, width):
    big = _bert_base_sized(_looked(*answered))
    fig = figures.answer_attention_lines(big, Look("en", width), 11, 11)
    assert len(fig.to_json()) < 1_000_000
    axis = fig.layout.xaxis
    if width < NARROW:  # a phone: upright labels, as many as fit, and the whole width
        assert axis.tickangle == -90 and len(axis.tickvals) <= (width - PAGE_PADDING) // 16
        assert fig.layout.margin.l <= 4 and fig.layout.legend.orientation == "h"
    else:
        assert len(axis.tickvals) <= MAX_TICK_LABELS
    assert fig.layout.height <= (2400 if width < NARROW else 600)


def test_the_figure_refuses_a_layer_or_head_the_model_lacks(answered):
    looked = _looked(*answered)
    layers, heads = looked.rows.shape[:2]
    with text.use("en"):  # the error's words, chosen when it is shown
        with pytest.raises(InputError, match="layer"):
            figures.answer_attention_lines(looked, Look("en"), layers, 0)
        with pytest.raises(InputError, match="head"):
            figures.answer_attention_lines(looked, Look("en"), 0, heads)


def test_the_figure_is_worded_in_the_language_of_its_look(answered):
    looked = _looked(*answered)
    for lang in text.LANGS:
        fig = figures.answer_attention_lines(looked, Look(lang), 0, 0)
        assert fig.layout.title.text == text.t("fig.qa_attention.title", lang, layer=0, head=0)
        assert fig.layout.xaxis.title.text == text.t("fig.qa_attention.keys", lang)


# --- the tab -----------------------------------------------------------------------------------------------------


@pytest.fixture
def demo(tiny_dir):
    from bg_demo.ui import build_demo

    return build_demo()


def _pages(demo):
    """The QA page, its "Where the answer looks" run (from the answer's JSON on screen) and that view's redraw of
    one layer and head."""
    from bg_demo.ui.gradio_compat import listeners
    from tests.support.pages import event

    answer = event(demo, api="qa")
    look = event(demo, name="attention_in_page")  # qa_tab.attention
    state = look.outputs[-1]
    (redraw,) = {d.fn: d for d in listeners(demo)
                 if getattr(d.fn, "__name__", "") == "redraw" and d.inputs[0] is state}.values()
    return answer, look, redraw


def test_the_tab_reads_the_answers_window_once_and_redraws_any_layer_and_head_from_it(answered, demo, monkeypatch):
    import gradio as gr

    from bg_demo.ui import qa_tab
    from tests.support.pages import call, run

    question, _ = answered
    calls = []
    real = backend.answer_attention

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(backend, "answer_attention", counted)
    answer, look, redraw = _pages(demo)
    (*_, raw), box, _ = run(answer, [question, LONG])
    assert box.visible is False
    (note,), box, kept = run(look, [raw])
    state = kept.result
    assert box.visible is False and len(calls) == 1 and kept.error is None
    assert state.window == raw["alternatives"][0]["window"] and (state.start, state.end) != (None, None)
    assert f"Window {state.window + 1} of {len(raw['windows'])}" in note
    assert look.inputs[0] is answer.outputs[-3]  # it reads the answer's JSON on screen
    assert redraw.outputs[-1] is look.outputs[-2]  # a redraw's error goes to the view's own error box
    layers, heads = state.rows.shape[:2]
    layer_slider, head_slider = qa_tab.fit_sliders(kept, 99, 0)
    assert layer_slider.maximum == layers - 1 and layer_slider.value == layers - 1
    for layer, head in ((0, 0), (layers - 1, heads - 1), (1, 0)):
        fig, box = call(redraw, kept, "en", 1280, layer, head)
        assert box == gr.skip()  # the box is left as it is
        np.testing.assert_array_equal(fig.data[0].y, state.rows[layer, head, 0].astype(np.float32))
    assert len(calls) == 1  # redraws read the kept rows: the model ran once
    _, box = call(redraw, kept, "en", 1280, layers, 0)  # a layer the model lacks: said in the error box
    assert box.visible is True and "layer" in box.value


def test_the_tab_says_when_there_is_no_answer_to_look_from(answered, demo):
    import gradio as gr

    from tests.support.pages import call, run

    _, look, redraw = _pages(demo)
    _, result = answered
    _, _, before = run(look, [result.to_dict()])  # a view on screen from an earlier answer
    silent = dict(result.to_dict(), answer=None, start=None, end=None)  # as /qa gives a "no answer"
    outputs, box, kept = run(look, [silent], shown=before)
    assert outputs == [gr.skip()] and kept.result is before.result  # the previous view stays
    assert box.visible is True and "no answer to look from" in box.value
    _, box, kept = run(look, [None])
    assert box.visible is True and "Answer" in box.value and "first" in box.value and kept.result is None
    assert call(redraw, kept, "en", 1280, 0, 0) == (gr.skip(), gr.skip())  # nothing to draw from


def _switch(demo, state, lang, width, shown, controls):
    """What the QA page's own language switch sends (its rerender, after the switch's input: each page has its own),
    by output block id (only what it changes), with the page's `state` holding `shown` and `controls` set."""
    import gradio as gr

    from bg_demo.ui import language
    from bg_demo.ui.gradio_compat import block_id, listener, listeners
    from tests.support.pages import SKIP, call

    (rerender,) = [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "rerender"
                   and [(gradio_compat.components(demo)[t].elem_id, name) for t, name in listener(demo, d.trigger_after).targets]
                   == [(language.ELEM_ID, "input")] and any(block is state for block in d.inputs)]
    assert rerender.page == "qa"
    controls = {block_id(block): value for block, value in controls.items()}
    values = [shown if block is state else None if isinstance(block, gr.State)
              else controls.get(block_id(block), block.value) for block in rerender.inputs[2:]]
    found = call(rerender, lang, width, *values)
    return {block_id(block): value for block, value in zip(rerender.outputs, found) if value != SKIP}


def test_a_language_switch_redraws_the_view_from_the_kept_rows(answered, demo, monkeypatch):
    """The view's note and figure are rendered again in the new language from the kept rows."""
    from bg_demo.ui.gradio_compat import block_id
    from tests.support.pages import run

    _, result = answered
    calls = []
    real = backend.answer_attention
    monkeypatch.setattr(backend, "answer_attention", lambda *a, **k: calls.append(a) or real(*a, **k))
    _, look, redraw = _pages(demo)
    _, _, kept = run(look, [result.to_dict()])
    state = kept.result
    layer, head = redraw.inputs[3:]
    values = _switch(demo, look.outputs[-1], "ko", 1280, kept, {layer: 1, head: 2})
    assert len(calls) == 1  # drawn again from the kept rows, not run again
    title = text.t("fig.qa_attention.title", "ko", layer=1, head=2)
    assert values[block_id(redraw.outputs[0])].layout.title.text == title
    assert values[block_id(look.outputs[0])].startswith(text.t("qa.attention.read", "ko", window=state.window + 1,
                                                         windows=state.n_windows, n=len(state.tokens),
                                                         start=state.start, end=state.end))
    assert values[block_id(look.outputs[-2])].visible is False  # no error


@pytest.mark.parametrize("width", [390, 1024])
@pytest.mark.parametrize("lang", ["en", "ko", "ja"])
def test_the_regions_names_never_cover_each_other(answered, width, lang):
    """An answer that starts the context, right after the question: on a phone the question's name and the
    answer's sat on each other."""
    from bg_demo.figures.axes import plot_px
    from bg_demo.figures.qa_attention import LABEL_SIZE
    from bg_demo.figures.style import text_width

    looked = _looked(*answered)
    question = [i for i, part in enumerate(looked.parts) if part == "question"]
    first_context = looked.parts.index("context")
    for start in (first_context, first_context + 1, first_context + 6):
        moved = type(looked)(**{**looked.__dict__, "start": start, "end": start + 1})
        look = Look(lang, width)
        fig = figures.answer_attention_lines(moved, look, 0, 0)
        per_token = plot_px(look) / len(moved.tokens)
        boxes = []
        for label in fig.layout.annotations:
            if label.yref != "paper" or label.y != 1 or label.xref != "x":
                continue
            w = text_width(label.text, LABEL_SIZE)
            left = (label.x + 0.5) * per_token + (label.xshift or 0) - {"left": 0, "center": w / 2, "right": w}[
                label.xanchor]
            boxes.append((left, left + w, label.text))
        assert len(boxes) >= 2 and question
        boxes.sort()
        for (_, right, a), (left, _, b) in zip(boxes, boxes[1:]):
            assert right <= left + 0.5, f"{a!r} covers {b!r} at {width}px ({lang})"
