"""Attention over a whole input: BERT's 512 positions, GPT-2's 1,024 (the tiny models' configs have the real limits).

Every view's values equal transformers' own `output_attentions` where shown in full, pooled views equal a reference
max-pooling written here as plain loops, every figure at 512 and 1,024 tokens stays under 1 MB, and the maps are kept
once for all the sessions showing the same text."""

import base64
import pickle
import threading

import numpy as np
import plotly.io as pio
import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForPreTraining, AutoTokenizer

from bg_demo import models
from bg_demo.backend import attention
from bg_demo.backend.attention import (
    FOCUS_RADIUS,
    FULL_CELLS,
    PANEL_CELLS,
    THUMB_CELLS,
    VIEWS,
    attention_view,
    blocks,
    pool_max,
)
from bg_demo.figures import attention_figure, causal_mask_figure
from bg_demo.figures.attention import LINES_MAX, thousandths
from bg_demo.figures.axes import MAX_TICK_LABELS
from bg_demo.look import Look
from tests.tolerance import tolerance

LIMITS = {"encoder": 512, "decoder": 1024}
REFERENCE_CLASSES = {"encoder": AutoModelForPreTraining, "decoder": AutoModelForCausalLM}
MB = 1_000_000
# a page of varied English: enough tokens to pass both limits, words that repeat and words that do not
PAGE = " ".join(f"Sentence {i} tells of the river bank, the cat number {i * 7} and a walk to town." for i in range(72))


@pytest.fixture(scope="module")
def long_results(tiny_dir):
    """Each role's result at its model's limit, with transformers' own weights for the same tokens."""
    from bg_demo import config

    out = {}
    with pytest.MonkeyPatch.context() as env:  # as tests/conftest.py's tiny_env, which runs after a module's fixtures
        env.setenv("BG_DEMO_MODEL_DIR", str(tiny_dir))
        config.settings.cache_clear()
        for role in LIMITS:
            out[role] = attention(PAGE, role, compact=True), None
    config.settings.cache_clear()
    for role in LIMITS:
        tokenizer = AutoTokenizer.from_pretrained(tiny_dir / role)
        model = REFERENCE_CLASSES[role].from_pretrained(tiny_dir / role, attn_implementation="eager",
                                                        dtype=torch.float32).eval()
        encoding = tokenizer(PAGE, truncation=True, max_length=LIMITS[role], return_tensors="pt")
        with torch.inference_mode():
            expected = torch.stack(model(**encoding, output_attentions=True).attentions)[:, 0].numpy()
        out[role] = out[role][0], expected
    return out


def kept(role: str, rounding: float = 1e-3) -> float:
    """How far a weight the views show may be from the reference's: kept in float16 (to 2**-11 of itself, under
    `rounding`), from the role's dtype (tests/tolerance.py)."""
    return rounding + tolerance(role).attention


def reference_pool(matrix: np.ndarray, f: int) -> np.ndarray:
    """Max-pooling written out: cell (i, j) is the largest weight of rows i*f.. and columns j*f.. (cut at the edge)."""
    q, k = matrix.shape
    out = np.zeros((-(-q // f), -(-k // f)), dtype=np.float32)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = matrix[i * f:(i + 1) * f, j * f:(j + 1) * f].max()
    return out


# --- every position the model reads -------------------------------------------------------------------------------


@pytest.mark.parity
@pytest.mark.parametrize("role", LIMITS)
def test_the_whole_input_up_to_the_models_limit_equals_output_attentions(role, long_results):
    result, expected = long_results[role]
    n = LIMITS[role]
    assert result.weights.shape == expected.shape == (2, 4, n, n) and result.weights.dtype == np.float16
    assert result.truncated and result.n_tokens_total > n
    np.testing.assert_allclose(result.weights.astype(np.float32), expected, atol=kept(role), rtol=0)


def test_a_shorter_limit_can_still_be_asked_for():
    result = attention(PAGE, "decoder", max_tokens=300)
    assert result.weights.shape[-1] == 300 and result.truncated


# --- the views as data ---------------------------------------------------------------------------------------------


@pytest.mark.parity
@pytest.mark.parametrize("role", LIMITS)
def test_one_head_is_full_resolution_to_512_and_a_reference_max_pool_past_it(role, long_results):
    result, expected = long_results[role]
    data = attention_view(result, "head", 1, 3)
    f = -(-LIMITS[role] // FULL_CELLS)  # 1 for BERT's 512, 2 for GPT-2's 1,024
    assert data.block == f and data.values.shape == (LIMITS[role] // f,) * 2
    np.testing.assert_allclose(data.values, reference_pool(expected[1, 3], f), atol=kept(role))


@pytest.mark.parity
@pytest.mark.parametrize("role", LIMITS)
def test_the_focus_window_is_full_resolution_at_any_length(role, long_results):
    result, expected = long_results[role]
    data = attention_view(result, "focus", 0, 2, query=700 if role == "decoder" else 300, span=3)
    first = data.query_start
    assert data.block == 1 and data.values.shape == (3, LIMITS[role]) and first in (300, 700)
    np.testing.assert_allclose(data.values, expected[0, 2, first:first + 3], atol=kept(role))
    csv = data.rows()  # the CSV names the query by its place in the text, not in the window
    assert csv[1][:2] == [first, result.tokens[first]]


@pytest.mark.parity
def test_a_layers_panels_and_every_heads_thumbnails_are_reference_max_pools(long_results):
    result, expected = long_results["encoder"]
    layer = attention_view(result, "layer", 1)
    f = -(-512 // PANEL_CELLS)
    assert layer.values.shape == (4, PANEL_CELLS, PANEL_CELLS) and layer.block == f
    for head in range(4):
        np.testing.assert_allclose(layer.values[head], reference_pool(expected[1, head], f), atol=kept("encoder"))
    heads = attention_view(result, "heads")
    g = -(-512 // THUMB_CELLS)
    assert heads.block == g and heads.values.shape == (2, 4, -(-512 // g), -(-512 // g))
    np.testing.assert_allclose(heads.values[0, 1], reference_pool(expected[0, 1], g), atol=kept("encoder"))


def test_max_pooling_keeps_a_diagonal_and_a_sink_that_averaging_would_fade():
    n = 100
    diagonal = np.eye(n, dtype=np.float32)
    sink = np.zeros((n, n), dtype=np.float32)
    sink[:, 0] = 1.0  # every query on the first token
    pooled_diagonal, f = pool_max(diagonal, 10)
    assert f == 10 and np.array_equal(np.diagonal(pooled_diagonal), np.ones(10))  # a mean would give 0.1
    pooled_sink, _ = pool_max(sink, 10)
    assert np.array_equal(pooled_sink[:, 0], np.ones(10)) and pooled_sink[:, 1:].max() == 0
    odd, f = pool_max(np.arange(49, dtype=np.float32).reshape(7, 7) / 49, 3)  # 7 = 3 + 3 + 1: a short last block
    np.testing.assert_array_equal(odd, reference_pool(np.arange(49, dtype=np.float32).reshape(7, 7) / 49, 3))
    assert blocks(7, 3) == [(0, 2), (3, 5), (6, 6)]


def test_thousandths_are_the_weights_to_three_decimals():
    weights = np.array([0.0, 0.0004, 0.0005001, 0.1234, 0.9996, 1.0], dtype=np.float32)
    assert thousandths(weights).tolist() == [0, 0, 1, 123, 1000, 1000]


# --- the figures as data: size, shape, labels ----------------------------------------------------------------------


def weight(trace) -> np.ndarray:
    """A heatmap's z as sent: plotly gives numpy input back as {"dtype", "bdata", "shape"} (base64)."""
    z = trace["z"]
    if isinstance(z, dict):
        data = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
        return data.reshape([int(n) for n in str(z.get("shape", len(data))).split(",")])
    return np.asarray(z)


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "phone"])
@pytest.mark.parametrize("role", LIMITS)
@pytest.mark.parametrize("view", VIEWS)
def test_every_view_at_the_models_limit_is_under_1_mb_with_thinned_labels(view, role, narrow, long_results):
    result, _ = long_results[role]
    fig = attention_figure(result, Look(width=390 if narrow else 1366), view, 1, 2, query=40, span=4)
    sent = pio.to_json(fig, validate=False)
    assert len(sent.encode()) <= MB, f"{view} at {LIMITS[role]} tokens: {len(sent) / MB:.2f} MB"
    layout = fig.layout.to_plotly_json()
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and "ticktext" in axis:
            assert len(axis["ticktext"]) <= MAX_TICK_LABELS
    assert layout["meta"]["alt"]


def test_a_pooled_head_names_every_token_its_cells_cover(long_results):
    result, expected = long_results["decoder"]
    fig = attention_figure(result, Look(), "head", 1, 3).to_plotly_json()
    (trace,) = fig["data"]
    assert len(trace["x"]) == 512 and trace["x"][1] == f"{result.tokens[2]} … {result.tokens[3]} #2–3"
    assert "largest weight" in trace["hovertemplate"] and "%{z:05,d}" in trace["hovertemplate"]
    np.testing.assert_array_equal(weight(trace), thousandths(reference_pool(result.weights[1, 3].astype(np.float32), 2)))
    assert "2×2 tokens" in fig["layout"]["title"]["subtitle"]["text"]


@pytest.mark.parity
def test_the_focus_figure_shows_the_rows_and_the_map_around_them_at_full_resolution(long_results):
    result, expected = long_results["encoder"]
    fig = attention_figure(result, Look(), "focus", 0, 1, query=200, span=2).to_plotly_json()
    strip, around = fig["data"]
    np.testing.assert_array_equal(weight(strip), thousandths(result.weights[0, 1, 200:202].astype(np.float32)))
    first, last = 200 - FOCUS_RADIUS, 201 + FOCUS_RADIUS
    assert list(around["x"]) == [f"{result.tokens[i]} #{i}" for i in range(first, last + 1)]
    np.testing.assert_allclose(weight(around) / 1000, expected[0, 1, first:last + 1, first:last + 1],
                               atol=kept("encoder", 1.1e-3))  # and to thousandths
    assert f"#{200}" in fig["layout"]["title"]["text"]


def test_the_lines_view_draws_the_strongest_lines_and_names_every_token(long_results):
    result, _ = long_results["encoder"]
    fig = attention_figure(result, Look(), "lines", 1, 0).to_plotly_json()
    hover_points = [trace for trace in fig["data"] if trace.get("mode") == "markers" and trace.get("hovertext")]
    lines_hover = hover_points[0]
    assert len(lines_hover["hovertext"]) <= LINES_MAX
    names = [list(trace["hovertext"]) for trace in hover_points[1:]]
    assert names and all(len(column) == 512 and column[5] == f"{result.tokens[5]} #5" for column in names)


def test_the_causal_mask_at_1024_tokens_is_pooled_and_still_a_triangle(long_results):
    result, _ = long_results["decoder"]
    fig = causal_mask_figure(len(result.tokens), Look(), result.tokens)
    sent = pio.to_json(fig, validate=False)
    z = weight(fig.to_plotly_json()["data"][0])
    assert len(sent) < MB and z.shape == (128, 128)
    np.testing.assert_array_equal(z, np.tril(np.ones((128, 128))))


# --- memory for a class ---------------------------------------------------------------------------------------------


def test_forty_sessions_on_the_teachers_text_share_one_copy_and_keep_kilobytes(monkeypatch):
    from bg_demo.ui import attention_store  # gradio: here, so the module runs where gradio is not installed
    from bg_demo.ui.attention_store import AttentionStore, Ref

    store = AttentionStore(budget_bytes=10**9)
    calls = []
    real = attention_store.backend.attention

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(attention_store.backend, "attention", counted)
    refs = []
    threads = [threading.Thread(target=lambda: refs.append(store.open(PAGE, "encoder"))) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and store.runs == 1 and len(refs) == 40 and len(store) == 1
    assert all(isinstance(ref, Ref) and ref.shape == (2, 4, 512, 512) for ref in refs)
    assert max(len(pickle.dumps(ref)) for ref in refs) < 100_000  # what a session keeps: the tokens, not the maps
    assert store.result(refs[0]) is store.result(refs[-1])


def test_the_budget_drops_the_least_recent_and_a_dropped_ref_is_made_again(monkeypatch):
    from bg_demo.ui import attention_store  # gradio: here, so the module runs where gradio is not installed
    from bg_demo.ui.attention_store import AttentionStore

    first = attention(PAGE, "encoder", compact=True)
    size = attention_store.size_of(first)
    store = AttentionStore(budget_bytes=int(size * 2.5))  # room for two
    refs = [store.open(f"{i} {PAGE}", "encoder") for i in range(3)]
    assert len(store) == 2 and store.runs == 3 and store.used() <= store.budget
    again = store.result(refs[0])  # dropped: the model runs once more, with the same tokens
    assert store.runs == 4 and again.tokens == refs[0].tokens and again.weights.shape == refs[0].shape
    assert store.result(refs[2]) is not None and store.runs == 4  # the most recent stayed


def test_a_redraw_reads_the_shared_maps_without_the_model(monkeypatch):
    from bg_demo.ui import attention_tab, compare_tab
    from bg_demo.ui.attention_store import Ref

    ref = attention_tab.show(PAGE, "decoder")  # what the page keeps in its state
    both = compare_tab.attend(PAGE)
    assert isinstance(ref, Ref) and ref.shape[-1] == 1024

    def no_model(*args, **kwargs):
        raise AssertionError("the model was called again")

    monkeypatch.setattr(models.STORE, "get", no_model)
    look = Look()
    for view in ("head", "focus", "heads", "overview", "rollout"):
        assert attention_tab.draw(ref, look, view, 1, 2, False, "entropy", 900, 2) is not None
    encoder_plot, decoder_plot = compare_tab.draw_heads(both, look, 1, 3)
    assert encoder_plot is not None and decoder_plot is not None
    assert both.decoder.key == ref.key  # the BERT vs GPT-2 tab found the Attention tab's copy
