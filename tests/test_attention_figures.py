"""Attention and comparison figures, tested as data: their to_dict() holds the right arrays, ticks, axes and sizes."""

import base64

import numpy as np
import pytest

from bg_demo.backend import compare, predict_masked_both, same_word
from bg_demo.backend.attention import VIEWS, AttentionResult, head_stats, mean_over_heads, rollout
from bg_demo.errors import InputError
from bg_demo.figures import (
    aggregate_heatmap,
    attention_figure,
    causal_mask_figure,
    future_share_bars,
    head_heatmap,
    head_lines,
    head_overview,
    layer_heads,
    masked_both_bars,
    same_word_lines,
)
from bg_demo.figures.attention import LINE_BINS


def array(value) -> np.ndarray:
    """A plotly array from to_dict(): plotly 7 gives numpy input back as {"dtype", "bdata", "shape"}."""
    if isinstance(value, dict):
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", len(data))).split(",")]
        return data.reshape(shape)
    return np.asarray(value)


def synthetic(layers=2, heads=4, n=6, seed=0, special=None) -> AttentionResult:
    """Random softmax rows shaped like a model's attention, with [CLS] first and [SEP] last."""
    logits = np.random.default_rng(seed).standard_normal((layers, heads, n, n)) * 2
    weights = np.exp(logits)
    weights = (weights / weights.sum(axis=-1, keepdims=True)).astype(np.float32)
    tokens = ("[CLS]",) + tuple(f"w{i % 3}" for i in range(n - 2)) + ("[SEP]",)  # w0 w1 w2 w0 …: repeats
    special = special if special is not None else tuple(i in (0, n - 1) for i in range(n))
    return AttentionResult("x", "encoder", tokens, special, weights, False, n, "bidirectional", "synthetic")


def test_head_heatmap_is_the_head_as_float32_with_token_ticks():
    result = synthetic()
    fig = head_heatmap(result, 1, 2).to_dict()
    (trace,) = fig["data"]
    assert trace["type"] == "heatmap" and trace["z"]["dtype"] == "f4"  # sent as base64 float32
    np.testing.assert_array_equal(array(trace["z"]), result.weights[1, 2])
    layout = fig["layout"]
    for axis in ("xaxis", "yaxis"):
        assert layout[axis]["ticktext"] == list(result.tokens)  # repeated tokens keep their own column
        assert layout[axis]["tickvals"] == list(range(6))
    assert layout["yaxis"]["autorange"] == "reversed"  # query 0 on top
    assert "→" in trace["hovertemplate"] and "%{z" in trace["hovertemplate"]
    assert trace["coloraxis"] == "coloraxis" and layout["coloraxis"]["cmin"] == 0
    assert layout["coloraxis"]["cmax"] == pytest.approx(float(result.weights[1, 2].max()))
    assert "Layer 1, head 2" in layout["title"]["text"]


def test_head_heatmap_can_hide_the_special_tokens():
    result = synthetic()
    fig = head_heatmap(result, 0, 0, hide_special=True).to_dict()
    z = array(fig["data"][0]["z"])
    assert z.shape == (4, 4)
    np.testing.assert_allclose(z.sum(axis=-1), 1.0, atol=1e-6)
    assert fig["layout"]["xaxis"]["ticktext"] == list(result.tokens[1:-1])


def test_colour_scale_is_colour_blind_safe():
    layout = head_heatmap(synthetic(), 0, 0).to_dict()["layout"]
    colours = [colour for _, colour in layout["coloraxis"]["colorscale"]]
    assert colours[0] == "#440154" and colours[-1] == "#fde725"  # Viridis: dark purple to yellow, no red-green


@pytest.mark.parametrize("heads", [1, 3, 4, 12, 16])
def test_layer_heads_small_multiples_share_one_coloraxis(heads):
    result = synthetic(heads=heads)
    fig = layer_heads(result, 1).to_dict()
    assert len(fig["data"]) == heads
    for h, trace in enumerate(fig["data"]):
        assert trace["coloraxis"] == "coloraxis"
        np.testing.assert_array_equal(array(trace["z"]), result.weights[1, h])
        assert trace["hovertemplate"].startswith(f"head {h}<br>")
    layout = fig["layout"]
    assert [key for key in layout if key.startswith("coloraxis")] == ["coloraxis"]
    assert layout["coloraxis"]["cmax"] == pytest.approx(float(result.weights[1].max()))
    assert [note["text"] for note in layout["annotations"]] == [f"head {h}" for h in range(heads)]
    x_axes = [key for key in layout if key.startswith("xaxis")]
    assert len(x_axes) == heads  # four to a row: 1, 3, 4, 12 and 16 heads fill their grids
    assert all(layout[axis]["ticktext"] == list(result.tokens) for axis in x_axes)  # hover names the key


def test_layer_heads_of_twelve_heads_at_64_tokens_stays_under_400_kb():
    result = synthetic(layers=12, heads=12, n=64)
    fig = layer_heads(result, 5)
    size = len(fig.to_json())
    assert size <= 400_000, f"{size:,} bytes of JSON"
    assert len(fig.to_dict()["data"]) == 12


@pytest.mark.parametrize("stat", ["entropy", "to_special", "to_previous", "to_self"])
def test_head_overview_tiles_every_head_by_a_statistic(stat):
    result = synthetic(layers=3, heads=4)
    fig = head_overview(result, stat, selected=(2, 1)).to_dict()
    (trace,) = fig["data"]
    expected = getattr(head_stats(result.weights, result.sinks), stat)
    np.testing.assert_allclose(array(trace["z"]), expected, atol=1e-7)
    assert array(trace["z"]).shape == (3, 4)
    assert "layer %{y}" in trace["hovertemplate"] and "head %{x}" in trace["hovertemplate"]
    assert trace["xgap"] > 0 and trace["ygap"] > 0  # tiles
    (box,) = fig["layout"]["shapes"]
    assert (box["x0"], box["x1"], box["y0"], box["y1"]) == (0.5, 1.5, 1.5, 2.5)


def test_head_lines_draws_one_segment_per_weight_above_the_cut():
    result = synthetic(n=8)
    weights = result.weights[1, 3]
    fig = head_lines(result, 1, 3).to_dict()
    lines = [trace for trace in fig["data"] if trace.get("mode") == "lines"]
    segments = sum(int(np.isnan(array(trace["x"])).sum()) for trace in lines)
    assert segments == int((weights >= LINE_BINS[0]).sum())
    widths = [trace["line"]["width"] for trace in lines]
    assert widths == sorted(widths) and len(set(widths)) == len(widths)  # heavier bins, thicker lines
    (hover,) = [trace for trace in fig["data"] if trace.get("mode") == "markers"]
    assert len(hover["hovertext"]) == segments and all("→" in text for text in hover["hovertext"])
    columns = [trace for trace in fig["data"] if trace.get("mode") == "text"]
    assert [column["text"] for column in columns] == [list(result.tokens)] * 2


def test_head_lines_leaves_out_tiny_weights():
    weights = np.zeros((1, 1, 3, 3), dtype=np.float32)
    weights[0, 0] = [[1.0, 0.0, 0.0], [0.01, 0.99, 0.0], [0.5, 0.49, 0.01]]
    result = AttentionResult("x", "decoder", ("a", "b", "c"), (False,) * 3, weights, False, 3, "causal", "m")
    fig = head_lines(result, 0, 0).to_dict()
    (hover,) = [trace for trace in fig["data"] if trace.get("mode") == "markers"]
    assert sorted(hover["hovertext"]) == ["a → a: 1.000", "b → b: 0.990", "c → a: 0.500", "c → b: 0.490"]


def test_aggregate_views_show_the_mean_and_the_rollout():
    result = synthetic(layers=3)
    mean = attention_figure(result, "mean", layer=1).to_dict()
    np.testing.assert_allclose(array(mean["data"][0]["z"]), mean_over_heads(result.weights)[1], atol=1e-7)
    flow = attention_figure(result, "rollout", layer=2).to_dict()
    np.testing.assert_allclose(array(flow["data"][0]["z"]), rollout(result.weights)[2], atol=1e-7)
    plain = aggregate_heatmap(np.eye(3), ["a", "b", "a"], "Identity").to_dict()
    assert plain["layout"]["title"]["text"] == "Identity" and plain["layout"]["xaxis"]["ticktext"] == ["a", "b", "a"]


@pytest.mark.parametrize("view", VIEWS)
def test_attention_figure_draws_every_view(view):
    fig = attention_figure(synthetic(), view, layer=1, head=3, hide_special=True).to_dict()
    assert fig["data"] and fig["layout"]["height"] > 200


def test_attention_figure_takes_whole_floats_as_sliders_send_them():
    fig = attention_figure(synthetic(), "head", layer=1.0, head=2.0).to_dict()
    np.testing.assert_array_equal(array(fig["data"][0]["z"]), synthetic().weights[1, 2])
    assert fig["layout"]["title"]["text"].startswith("Layer 1, head 2<br>")  # ints, not "1.0"


def test_attention_figure_rejects_a_bad_choice():
    with pytest.raises(InputError, match="layer must be between 0 and 1"):
        attention_figure(synthetic(), "head", layer=5)


# --- BERT beside GPT-2 ------------------------------------------------------------------------------------


def test_causal_mask_is_lower_triangular():
    tokens = ["The", " cat", " sat", " the", " the"]
    fig = causal_mask_figure(5, tokens).to_dict()
    z = array(fig["data"][0]["z"])
    np.testing.assert_array_equal(z, np.tril(np.ones((5, 5))))
    assert fig["layout"]["xaxis"]["ticktext"] == tokens and fig["layout"]["yaxis"]["autorange"] == "reversed"


def test_future_share_bars_show_both_models_per_layer():
    result = compare("The animal didn't cross the street because it was tired.")
    fig = future_share_bars(result).to_dict()
    encoder, decoder = fig["data"]
    assert encoder["name"].startswith("BERT") and decoder["name"].startswith("GPT-2")
    np.testing.assert_allclose(array(encoder["y"]), result.encoder_future, atol=1e-7)
    assert (array(decoder["y"]) == 0).all() and decoder["text"] == ["0%", "0%"]
    assert fig["layout"]["barmode"] == "group"


def test_same_word_lines_one_line_per_model_up_to_one():
    result = same_word("I went to the bank to deposit cash", "I went to the bank to sit down", "bank")
    fig = same_word_lines(result).to_dict()
    encoder, decoder = fig["data"]
    np.testing.assert_allclose(array(encoder["y"]), result.encoder.similarity)
    np.testing.assert_allclose(array(decoder["y"]), result.decoder.similarity)
    low, high = fig["layout"]["yaxis"]["range"]
    assert 1.0 <= high <= 1.05 and low <= min(result.encoder.similarity)
    assert fig["layout"]["xaxis"]["ticktext"] == ["embeddings", "layer 0", "layer 1"]


def test_masked_both_bars_put_the_two_models_side_by_side():
    result = predict_masked_both("The cat sat on the [MASK].", top_k=4)
    fig = masked_both_bars(result).to_dict()
    bert, gpt2 = fig["data"]
    assert list(bert["x"]) == [guess.score for guess in result.encoder]
    assert list(gpt2["x"]) == [guess.score for guess in result.decoder]
    assert fig["layout"]["yaxis"]["ticktext"] == [guess.token for guess in result.encoder]
    assert fig["layout"]["yaxis2"]["ticktext"] == [guess.token for guess in result.decoder]
    assert [note["text"] for note in fig["layout"]["annotations"]][0].startswith("BERT")
