"""Attention and comparison figures, tested as data: their to_dict() holds the right arrays, ticks, axes and sizes."""

import base64
from types import SimpleNamespace

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
from bg_demo.figures.attention import LINE_BINS, PANEL_TICK_LABELS
from bg_demo.figures.axes import (
    MAP_MAX_HEIGHT,
    MAP_MIN_HEIGHT,
    MAX_LABEL_CHARS,
    MAX_TICK_LABELS,
    NARROW_LABEL_PX,
    TICK_NUDGE,
    labels_across,
)
from bg_demo.figures.style import MAX_HEIGHT, text_width
from bg_demo.look import Look

EN = Look()  # English on a wide page


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


def long_tokens(n, heads=4) -> AttentionResult:
    """`synthetic` with n tokens, every seventh of them long."""
    result = synthetic(heads=heads, n=n)
    tokens = tuple("internationalisation" if i % 7 == 3 else f"w{i}" for i in range(n))
    return AttentionResult("x", "encoder", tokens, result.special, result.weights, False, n, "bidirectional", "s")


def test_head_heatmap_is_the_head_in_thousandths_with_token_ticks():
    result = synthetic()
    fig = head_heatmap(result, EN, 1, 2).to_dict()
    (trace,) = fig["data"]
    assert trace["type"] == "heatmap" and trace["z"]["dtype"] == "u2"  # sent as base64 uint16: whole thousandths
    np.testing.assert_array_equal(array(trace["z"]), np.rint(result.weights[1, 2] * 1000))
    # the hover prints them as weights to 3 decimals: "05,d" with "." grouping thousands (123 -> 0.123)
    assert "%{z:05,d}" in trace["hovertemplate"] and fig["layout"]["separators"] == ",."
    names = [f"{token} #{i}" for i, token in enumerate(result.tokens)]  # repeated tokens keep their own column
    assert list(trace["x"]) == names and list(trace["y"]) == names
    layout = fig["layout"]
    for axis in ("xaxis", "yaxis"):
        assert layout[axis]["type"] == "category"
        assert layout[axis]["ticktext"] == list(result.tokens)
        assert layout[axis]["tickvals"] == pytest.approx([i + TICK_NUDGE for i in range(6)])
    assert layout["yaxis"]["autorange"] == "reversed"  # query 0 on top
    assert "%{y} → key %{x}" in trace["hovertemplate"] and "%{z" in trace["hovertemplate"]
    assert trace["coloraxis"] == "coloraxis" and layout["coloraxis"]["cmin"] == 0
    assert layout["coloraxis"]["cmax"] == round(float(result.weights[1, 2].max()) * 1000)
    bar = layout["coloraxis"]["colorbar"]  # ticks at thousandths, labelled as weights
    assert [float(text) * 1000 for text in bar["ticktext"]] == pytest.approx(bar["tickvals"])
    assert "Layer 1, head 2" in layout["title"]["text"]


def test_head_heatmap_can_hide_the_special_tokens():
    result = synthetic()
    fig = head_heatmap(result, EN, 0, 0, hide_special=True).to_dict()
    z = array(fig["data"][0]["z"])
    assert z.shape == (4, 4)
    np.testing.assert_allclose(z.sum(axis=-1) / 1000, 1.0, atol=0.003)  # each rounded to a thousandth
    assert fig["layout"]["xaxis"]["ticktext"] == list(result.tokens[1:-1])


HEATMAPS = {
    "head": lambda result, look=EN: head_heatmap(result, look, 0, 1),
    "mean": lambda result, look=EN: attention_figure(result, look, "mean", layer=1),
    "rollout": lambda result, look=EN: attention_figure(result, look, "rollout", layer=1),
    "mask": lambda result, look=EN: causal_mask_figure(len(result.tokens), look, result.tokens),
    "lines": lambda result, look=EN: head_lines(result, look, 0, 1),
}


@pytest.mark.parametrize("view", HEATMAPS)
def test_maps_grow_with_their_tokens_up_to_a_768_px_screen(view):
    heights = [HEATMAPS[view](synthetic(n=n)).layout.height for n in (3, 8, 16, 40, 128)]
    assert heights[0] == MAP_MIN_HEIGHT and heights[-1] == MAP_MAX_HEIGHT
    assert heights == sorted(heights) and heights[1] < heights[2] < heights[3]  # follows the rows until the cap
    assert MAP_MAX_HEIGHT <= 560  # with the sliders beside it, the whole map is in sight on a 768-px screen


@pytest.mark.parametrize("view", ["head", "mean", "mask"])
def test_maps_fill_the_width_with_their_labels_beside_them(view):
    """A square-cell constraint (scaleanchor) centred the map and left its query labels ~240 px away."""
    layout = HEATMAPS[view](synthetic(n=10)).layout
    assert layout.width is None and layout.yaxis.scaleanchor is None and layout.xaxis.scaleanchor is None
    assert layout.margin.l <= 10 and layout.template.layout.yaxis.automargin is True  # the labels push the margin


@pytest.mark.parametrize("view", ["head", "mean", "rollout", "mask"])
def test_many_tokens_thin_and_shorten_labels_but_hovers_name_them_whole(view):
    result = long_tokens(60)
    fig = HEATMAPS[view](result).to_dict()
    trace, layout = fig["data"][0], fig["layout"]
    for axis in ("xaxis", "yaxis"):
        ticks = layout[axis]
        assert 10 <= len(ticks["ticktext"]) <= MAX_TICK_LABELS
        assert all(len(label) <= MAX_LABEL_CHARS for label in ticks["ticktext"])
        assert "internati…" in ticks["ticktext"]
        # plotly hovers show the tick text of a tick within range / 10,000: these never match, so the hover
        # shows the category, the whole token
        assert min(abs(value - round(value)) for value in ticks["tickvals"]) > 60 / 10_000
    assert list(trace["x"])[3] == "internationalisation #3" and list(trace["y"]) == list(trace["x"])
    assert "%{x}" in trace["hovertemplate"] and "%{y}" in trace["hovertemplate"]


def test_head_lines_name_every_kth_token_shortened():
    result = long_tokens(60)
    columns = [trace for trace in head_lines(result, EN, 0, 0).to_dict()["data"] if trace.get("mode") == "text"]
    for column in columns:
        assert len(column["text"]) <= MAX_TICK_LABELS and "internati…" in column["text"]
        assert list(array(column["y"])) == list(range(0, 60, 3))


def test_colour_scale_is_colour_blind_safe():
    layout = head_heatmap(synthetic(), EN, 0, 0).to_dict()["layout"]
    colours = [colour for _, colour in layout["coloraxis"]["colorscale"]]
    assert colours[0] == "#440154" and colours[-1] == "#fde725"  # Viridis: dark purple to yellow, no red-green


@pytest.mark.parametrize("heads", [1, 3, 4, 12, 16])
def test_layer_heads_small_multiples_share_one_coloraxis(heads):
    result = synthetic(heads=heads)
    fig = layer_heads(result, EN, 1).to_dict()
    assert len(fig["data"]) == heads
    for h, trace in enumerate(fig["data"]):
        assert trace["coloraxis"] == "coloraxis"
        np.testing.assert_array_equal(array(trace["z"]), np.rint(result.weights[1, h] * 1000))  # thousandths
        assert trace["hovertemplate"].startswith(f"head {h}<br>")
    layout = fig["layout"]
    assert [key for key in layout if key.startswith("coloraxis")] == ["coloraxis"]
    assert layout["coloraxis"]["cmax"] == round(float(result.weights[1].max()) * 1000)
    assert [note["text"] for note in layout["annotations"]] == [f"head {h}" for h in range(heads)]
    x_axes = [key for key in layout if key.startswith("xaxis")]
    assert len(x_axes) == heads  # four to a row: 1, 3, 4, 12 and 16 heads fill their grids
    assert all(layout[axis]["ticktext"] == list(result.tokens) for axis in x_axes)
    assert layout["height"] <= MAX_HEIGHT


def test_layer_heads_label_the_outer_panels_and_hover_names_query_key_head_weight():
    result = long_tokens(40, heads=12)
    fig = layer_heads(result, EN, 1)
    layout = fig.to_dict()["layout"]
    labelled_x = [f"xaxis{i}" for i in (9, 10, 11, 12)]  # the bottom row of a 3 x 4 grid
    labelled_y = [f"yaxis{i}" if i > 1 else "yaxis" for i in (1, 5, 9)]  # the left column
    for name in [key for key in layout if key.startswith(("xaxis", "yaxis"))]:
        axis = layout[name]
        assert axis["showticklabels"] == (name in labelled_x + labelled_y), name
        assert 0 < len(axis["ticktext"]) <= PANEL_TICK_LABELS and "internati…" in axis["ticktext"]
    for h, trace in enumerate(fig.data):
        assert trace.x[3] == "internationalisation #3" and trace.y == trace.x  # the whole token in the hover
        assert all(part in trace.hovertemplate for part in (f"head {h}", "query %{y}", "key %{x}", "%{z"))


def test_layer_heads_of_twelve_heads_at_64_tokens_stays_under_400_kb():
    result = synthetic(layers=12, heads=12, n=64)
    fig = layer_heads(result, EN, 5)
    size = len(fig.to_json())
    assert size <= 400_000, f"{size:,} bytes of JSON"
    assert len(fig.to_dict()["data"]) == 12


@pytest.mark.parametrize("stat", ["entropy", "to_special", "to_previous", "to_self"])
def test_head_overview_tiles_every_head_by_a_statistic(stat):
    result = synthetic(layers=3, heads=4)
    fig = head_overview(result, EN, stat, selected=(2, 1)).to_dict()
    (trace,) = fig["data"]
    expected = getattr(head_stats(result.weights, result.sinks), stat)
    np.testing.assert_allclose(array(trace["z"]), expected, atol=1e-7)
    assert array(trace["z"]).shape == (3, 4)
    assert "layer %{y}" in trace["hovertemplate"] and "head %{x}" in trace["hovertemplate"]
    assert trace["xgap"] > 0 and trace["ygap"] > 0  # tiles
    (box,) = fig["layout"]["shapes"]
    assert (box["x0"], box["x1"], box["y0"], box["y1"]) == (0.5, 1.5, 1.5, 2.5)
    assert MAP_MIN_HEIGHT <= fig["layout"]["height"] <= MAP_MAX_HEIGHT


def test_head_overview_share_colour_bar_labels_never_repeat():
    result = synthetic(layers=3, heads=4)
    colorbar = head_overview(result, EN, "to_special").layout.coloraxis.colorbar
    values = head_stats(result.weights, result.sinks).to_special
    ticks = np.arange(0, values.max() + colorbar.dtick, colorbar.dtick)
    shown = [tick for tick in ticks if values.min() - 1e-9 <= tick <= values.max() + 1e-9]
    labels = [f"{tick:{colorbar.tickformat[1:]}}" for tick in shown]
    assert len(labels) >= 2 and len(set(labels)) == len(labels)


def test_head_lines_draws_one_segment_per_weight_above_the_cut():
    result = synthetic(n=8)
    weights = result.weights[1, 3]
    fig = head_lines(result, EN, 1, 3).to_dict()
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
    fig = head_lines(result, EN, 0, 0).to_dict()
    (hover,) = [trace for trace in fig["data"] if trace.get("mode") == "markers"]
    assert sorted(hover["hovertext"]) == ["a #0 → a #0: 1.000", "b #1 → b #1: 0.990", "c #2 → a #0: 0.500", "c #2 → b #1: 0.490"]


def test_aggregate_views_show_the_mean_and_the_rollout():
    result = synthetic(layers=3)
    mean = attention_figure(result, EN, "mean", layer=1).to_dict()
    np.testing.assert_allclose(array(mean["data"][0]["z"]) / 1000, mean_over_heads(result.weights)[1], atol=5e-4 + 1e-7)
    flow = attention_figure(result, EN, "rollout", layer=2).to_dict()
    np.testing.assert_allclose(array(flow["data"][0]["z"]) / 1000, rollout(result.weights)[2], atol=1e-3)
    plain = aggregate_heatmap(np.eye(3), EN, ["a", "b", "a"], "Identity").to_dict()
    assert plain["layout"]["title"]["text"] == "Identity" and plain["layout"]["xaxis"]["ticktext"] == ["a", "b", "a"]


@pytest.mark.parametrize("view", VIEWS)
def test_attention_figure_draws_every_view(view):
    fig = attention_figure(synthetic(), EN, view, layer=1, head=3, hide_special=True).to_dict()
    assert fig["data"] and fig["layout"]["height"] > 200


def test_attention_figure_takes_whole_floats_as_sliders_send_them():
    fig = attention_figure(synthetic(), EN, "head", layer=1.0, head=2.0).to_dict()
    np.testing.assert_array_equal(array(fig["data"][0]["z"]), np.rint(synthetic().weights[1, 2] * 1000))
    assert fig["layout"]["title"]["text"] == "Layer 1, head 2"  # ints, not "1.0"


def test_attention_figure_rejects_a_bad_choice():
    with pytest.raises(InputError, match="layer must be between 0 and 1"):
        attention_figure(synthetic(), EN, "head", layer=5)


# --- BERT beside GPT-2 ------------------------------------------------------------------------------------


def test_causal_mask_is_lower_triangular():
    tokens = ["The", " cat", " sat", " the", " the"]
    fig = causal_mask_figure(5, EN, tokens).to_dict()
    z = array(fig["data"][0]["z"])
    np.testing.assert_array_equal(z, np.tril(np.ones((5, 5))))
    assert fig["layout"]["xaxis"]["ticktext"] == tokens and fig["layout"]["yaxis"]["autorange"] == "reversed"
    assert list(fig["data"][0]["x"])[3:] == [" the #3", " the #4"]  # the two " the" keep their own columns


def test_future_share_bars_show_both_models_per_layer():
    result = compare("The animal didn't cross the street because it was tired.")
    fig = future_share_bars(result, EN).to_dict()
    encoder, decoder = fig["data"]
    assert encoder["name"].startswith("BERT") and decoder["name"].startswith("GPT-2")
    np.testing.assert_allclose(array(encoder["y"]), result.encoder_future, atol=1e-7)
    assert (array(decoder["y"]) == 0).all() and decoder["text"] == ["0%", "0%"]
    assert fig["layout"]["barmode"] == "group"


def test_future_share_axis_labels_never_repeat_for_small_shares():
    """".0%" over 0-3% printed "0%, 1%, 1%, 2%": the step sets the decimals."""
    result = SimpleNamespace(encoder_future=[0.02, 0.024], decoder_future=[0.0, 0.0])
    yaxis = future_share_bars(result, EN).layout.yaxis
    low, high = yaxis.range
    labels = [f"{tick:{yaxis.tickformat[1:]}}" for tick in np.arange(low, high + 1e-12, yaxis.dtick)]
    assert len(labels) >= 3 and len(set(labels)) == len(labels)


def test_same_word_lines_one_line_per_model_up_to_one():
    result = same_word("I went to the bank to deposit cash", "I went to the bank to sit down", "bank")
    fig = same_word_lines(result, EN).to_dict()
    encoder, decoder = fig["data"]
    np.testing.assert_allclose(array(encoder["y"]), result.encoder.similarity)
    np.testing.assert_allclose(array(decoder["y"]), result.decoder.similarity)
    low, high = fig["layout"]["yaxis"]["range"]
    assert 1.0 <= high <= 1.05 and low <= min(result.encoder.similarity)
    assert list(encoder["x"]) == ["embeddings", "layer 0", "layer 1"]  # categories: the hover names the layer
    assert "%{x}" in encoder["hovertemplate"]


def test_masked_both_bars_put_the_two_models_side_by_side():
    result = predict_masked_both("The cat sat on the [MASK].", top_k=4)
    fig = masked_both_bars(result, EN).to_dict()
    bert, gpt2 = fig["data"]
    assert list(bert["x"]) == [guess.score for guess in result.encoder]
    assert list(gpt2["x"]) == [guess.score for guess in result.decoder]
    assert fig["layout"]["yaxis"]["ticktext"] == [guess.token for guess in result.encoder]
    assert fig["layout"]["yaxis2"]["ticktext"] == [guess.token for guess in result.decoder]
    assert fig["layout"]["annotations"][0]["text"].startswith("BERT")
    assert fig["layout"]["xaxis"]["title"]["text"] == fig["layout"]["xaxis2"]["title"]["text"] == "probability"


# --- on a phone (390 px) and on a laptop (1366 px) ---------------------------------------------------------------

PHONE, LAPTOP = 390, 1366


def on(page: int, build):
    """`build(look)` drawn for a page `page` px wide, as data."""
    return build(Look(width=page)).to_dict()


@pytest.mark.parametrize("view", ["head", "mean", "rollout"])
def test_a_map_on_a_phone_takes_the_width_with_its_colour_bar_under_it(view):
    """At 41 tokens a laptop's layout left the map ~165 px of a 326-px figure and the colour bar a third."""
    result = long_tokens(41)
    phone, laptop = (on(page, lambda look: HEATMAPS[view](result, look)) for page in (PHONE, LAPTOP))
    bar = phone["layout"]["coloraxis"]["colorbar"]
    assert bar["orientation"] == "h" and bar["y"] < 0 and bar["yanchor"] == "top"  # under the plot, across it
    assert laptop["layout"]["coloraxis"]["colorbar"].get("orientation", "v") == "v"  # beside it
    x, y = phone["layout"]["xaxis"], phone["layout"]["yaxis"]
    assert x["tickangle"] == -90 and len(x["ticktext"]) <= labels_across(290) < 41  # thinned by the px they get
    assert all(text_width(label, y["tickfont"]["size"]) <= NARROW_LABEL_PX for label in y["ticktext"])
    assert not y.get("title", {}).get("text") and "row is a query" in phone["layout"]["title"]["subtitle"]["text"]
    assert len(laptop["layout"]["xaxis"]["ticktext"]) > len(x["ticktext"])
    assert phone["layout"]["height"] - phone["layout"]["margin"]["t"] - phone["layout"]["margin"]["b"] >= 270  # square


@pytest.mark.parametrize(("heads", "rows"), [(12, 6), (16, 8), (3, 2), (1, 1)])
def test_a_layers_heads_reflow_to_two_a_row_on_a_phone_on_one_colour_axis(heads, rows):
    result = long_tokens(41, heads=heads)
    phone, laptop = (on(page, lambda look: layer_heads(result, look, 1)) for page in (PHONE, LAPTOP))

    def columns(layout):
        return len({tuple(axis["domain"]) for key, axis in layout.items() if key.startswith("xaxis")})

    def rows_of(layout):
        return len({tuple(axis["domain"]) for key, axis in layout.items() if key.startswith("yaxis")})

    assert columns(phone["layout"]) == min(2, heads) and rows_of(phone["layout"]) == rows
    assert columns(laptop["layout"]) == min(4, heads)
    assert [key for key in phone["layout"] if key.startswith("coloraxis")] == ["coloraxis"]
    assert phone["layout"]["coloraxis"]["colorbar"]["orientation"] == "h"
    assert all(trace["coloraxis"] == "coloraxis" for trace in phone["data"])
    assert phone["layout"]["height"] > laptop["layout"]["height"] or heads <= 2  # taller: the phone scrolls
    cols = min(2, heads)
    panel = (290 - 12 * (cols - 1)) / cols
    for key, axis in phone["layout"].items():
        if key.startswith("xaxis") and axis["showticklabels"]:
            assert len(axis["ticktext"]) <= labels_across(panel) and axis["tickangle"] == -90


def test_head_lines_on_a_phone_name_every_token_apart_from_the_lines():
    """The lines started where the labels ended and crossed them; a phone's figure grows to name every token."""
    result = long_tokens(41)
    for page in (PHONE, LAPTOP):
        fig = on(page, lambda look: head_lines(result, look, 0, 0))
        left, right = [trace for trace in fig["data"] if trace.get("mode") == "text"]
        assert max(array(left["x"])) < 0 and min(array(right["x"])) > 1  # a gap between labels and lines
        low, high = fig["layout"]["xaxis"]["range"]
        assert low < min(array(left["x"])) and high > max(array(right["x"]))
    phone = on(PHONE, lambda look: head_lines(result, look, 0, 0))
    (left, _) = [trace for trace in phone["data"] if trace.get("mode") == "text"]
    assert list(array(left["y"])) == list(range(41))  # every token named, one line each
    assert phone["layout"]["height"] >= 41 * 16


def test_head_overview_on_a_phone_keeps_its_numbers_apart():
    result = synthetic(layers=24, heads=16)
    phone = on(PHONE, lambda look: head_overview(result, look, "to_self"))
    laptop = on(LAPTOP, lambda look: head_overview(result, look))
    assert phone["layout"]["coloraxis"]["colorbar"]["orientation"] == "h"
    assert phone["layout"]["xaxis"]["dtick"] >= 2 and phone["layout"]["yaxis"]["dtick"] >= 2  # "15" in ~18 px
    assert laptop["layout"]["xaxis"]["dtick"] == 1
    assert not phone["layout"]["yaxis"].get("title", {}).get("text")  # "layer" across the top instead
    assert "layer" in [note["text"] for note in phone["layout"]["annotations"]]


def test_the_causal_mask_on_a_phone_is_square_with_upright_key_labels():
    tokens = [f"token{i}" for i in range(30)]
    phone = on(PHONE, lambda look: causal_mask_figure(30, look, tokens))
    layout = phone["layout"]
    assert layout["xaxis"]["tickangle"] == -90 and len(layout["xaxis"]["ticktext"]) <= labels_across(290)
    assert layout["height"] - layout["margin"]["t"] - layout["margin"]["b"] >= 270


def test_future_share_bars_print_their_percentages_only_where_a_bar_holds_them():
    result = SimpleNamespace(encoder_future=np.linspace(0.1, 0.4, 12), decoder_future=np.zeros(12))
    phone, laptop = (on(page, lambda look: future_share_bars(result, look)) for page in (PHONE, LAPTOP))
    assert all("text" not in bar for bar in phone["data"])  # 24 bars in ~290 px: ~9 px each
    assert all(len(bar["text"]) == 12 for bar in laptop["data"])
    assert phone["layout"]["legend"]["yref"] == "container"  # across the foot of the figure


@pytest.mark.parametrize("page", [PHONE, LAPTOP])
def test_masked_both_bars_share_one_probability_scale(page):
    """BERT's and GPT-2's bars had each their own x range, so their lengths could not be compared."""
    guesses = [SimpleNamespace(token=f"w{i}", score=s) for i, s in enumerate((0.62, 0.2, 0.05))]
    small = [SimpleNamespace(token=f"v{i}", score=s) for i, s in enumerate((0.03, 0.02, 0.01))]
    result = SimpleNamespace(encoder=guesses, decoder=small)
    layout = on(page, lambda look: masked_both_bars(result, look))["layout"]
    assert layout["xaxis"]["range"] == layout["xaxis2"]["range"] and layout["xaxis"]["range"][1] >= 0.62
    assert layout["xaxis"]["dtick"] == layout["xaxis2"]["dtick"]
    if page == PHONE:  # one above the other, each the full width, titles on one line each where they fit
        assert layout["xaxis"]["domain"] == layout["xaxis2"]["domain"] == [0.0, 1.0]
        assert layout["yaxis"]["domain"] != layout["yaxis2"]["domain"]
        for note in [note for note in layout["annotations"] if note.get("yref") == "paper"]:
            assert all(text_width(line, 16) <= 326 - 8 for line in note["text"].split("<br>"))
    else:
        assert layout["yaxis"]["domain"] == layout["yaxis2"]["domain"]


def test_attention_figures_say_what_they_show():
    result = synthetic()
    matrix = result.weights[1, 2]
    q, k = np.unravel_index(np.argmax(matrix), matrix.shape)
    alt = head_heatmap(result, EN, 1, 2).layout.meta["alt"]
    assert alt.startswith("Layer 1, head 2: a heatmap over 6 tokens")
    assert f"{matrix[q, k]:.3f}, goes from '{result.tokens[q]}' to '{result.tokens[k]}'" in alt
    values = head_stats(result.weights, result.sinks).entropy
    top = np.unravel_index(np.argmax(values), values.shape)
    assert f"layer {top[0]}, head {top[1]}, at {values[top]:.2f}" in head_overview(result, EN).layout.meta["alt"]
    heads = result.weights[0]
    h, q, k = np.unravel_index(np.argmax(heads), heads.shape)
    alt = layer_heads(result, EN, 0).layout.meta["alt"]
    assert f"{heads[h, q, k]:.3f}, is in head {h}, from '{result.tokens[q]}' to '{result.tokens[k]}'" in alt


@pytest.mark.parametrize(("query", "span"), [(0, 1), (20, 3), (37, 3)])
def test_the_focus_map_names_the_tokens_it_shows(query, span):
    """The map under the strip shows tokens k0..k1 around the chosen rows: its title says which, in every language
    (it said "13 tokens a side" for a window of rows 0-12: 13 was its whole width)."""
    from bg_demo.backend.attention import attention_view, focus_keys
    from bg_demo.figures.attention import focus_view

    result = long_tokens(40)
    first = attention_view(result, "focus", 0, 1, query=query, span=span).query_start
    k0, k1 = focus_keys(40, first, first + span - 1)
    for lang in ("en", "ko", "ja"):
        fig = focus_view(result, Look(lang), 0, 1, query=query, span=span)
        titles = [a["text"] for a in fig.to_dict()["layout"]["annotations"]]
        assert any(f"{k0}–{k1}" in title for title in titles), titles
        heat = [trace for trace in fig.to_dict()["data"] if trace["type"] == "heatmap"][-1]
        assert array(heat["z"]).shape[0] == k1 - k0 + 1  # the map is that window
