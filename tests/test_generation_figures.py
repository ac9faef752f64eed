"""Generation figures as data: coloured tokens, the next-token bars, the logit lens, the beams."""

from types import SimpleNamespace

import numpy as np

from bg_demo.backend import generate, logit_lens, next_token
from bg_demo.figures import (
    beam_figure,
    logit_lens_heatmap,
    next_token_bars,
    probability_legend_html,
    token_probability_html,
)
from bg_demo.figures.axes import MAP_MAX_HEIGHT, MAX_TICK_LABELS
from bg_demo.figures.generation import probability_colour


def test_token_html_colours_every_token_by_probability_and_escapes():
    result = generate("<b>Once</b> upon", "greedy", max_new_tokens=6)
    page = token_probability_html(result)
    assert "&lt;b&gt;Once&lt;/b&gt;" in page and "<b>" not in page
    assert page.count('class="bg-token"') == 6
    assert probability_legend_html().count('class="bg-token"') == 5
    for token in result.generated[0]:
        assert f"rank {token.rank} · p = {token.score:.2%}" in page
        assert probability_colour(token.score) in page


def test_probability_bins_are_ordered():
    assert probability_colour(0.9) != probability_colour(0.001)
    assert probability_colour(0.5) == probability_colour(0.99)


def test_next_token_bars_mark_what_each_filter_drops():
    result = next_token("The cat sat on the", 1.0, top_k=8, top_p=0.5, n=12, seed=0)
    fig = next_token_bars(result).to_dict()
    bars, model_marks, cumulative = fig["data"]
    assert list(fig["layout"]["xaxis"]["ticktext"]) == [c.token for c in result.candidates]
    colours = bars["marker"]["color"]
    assert colours[8:] == ["#bbbbbb"] * 4  # beyond top-k: grey
    kept = [c.kept_by_top_p for c in result.candidates]
    assert [colour == "#0072B2" for colour in colours] == kept
    assert list(model_marks["y"]) == [c.score for c in result.candidates]
    assert cumulative["yaxis"] == "y2" and np.all(np.diff(cumulative["y"]) >= 0)
    assert any(shape.get("y0") == 0.5 for shape in fig["layout"]["shapes"])  # the top-p line
    assert fig["layout"]["yaxis2"]["title"]["text"] == "cumulative probability"


def test_next_token_bars_thin_their_labels_and_hover_names_every_candidate():
    result = next_token("The cat sat on the", 1.0, n=50, seed=0)
    fig = next_token_bars(result).to_dict()
    assert len(fig["layout"]["xaxis"]["ticktext"]) <= MAX_TICK_LABELS
    assert [row[0] for row in fig["data"][0]["customdata"]] == [c.token for c in result.candidates]
    top = max(max(c.scaled, c.score) for c in result.candidates)
    assert fig["layout"]["yaxis"]["range"][1] >= top  # every bar and marker inside the percent axis


def test_logit_lens_heatmap_labels_layers_and_tokens():
    result = logit_lens("The cat sat on the mat")
    fig = logit_lens_heatmap(result).to_dict()
    heat = fig["data"][0]
    n_layers, n_tokens = result.probabilities.shape
    assert heat["z"]["dtype"] == "f4" and heat["z"]["shape"] == f"{n_layers}, {n_tokens}"  # float32, base64
    assert [list(row) for row in heat["text"]] == [list(row) for row in result.predictions]
    assert list(fig["layout"]["yaxis"]["ticktext"]) == list(result.layers)
    assert list(fig["layout"]["xaxis"]["ticktext"]) == list(result.tokens)
    assert list(heat["x"]) == [f"{token} #{i}" for i, token in enumerate(result.tokens)]  # hovers name the token
    assert list(heat["y"]) == list(result.layers)


def test_logit_lens_height_follows_the_layers_up_to_the_cap():
    def lens(n_layers, n_tokens=64):
        return SimpleNamespace(
            tokens=tuple(f" t{i}" for i in range(n_tokens)),
            layers=("embeddings",) + tuple(f"layer {i}" for i in range(n_layers - 1)),
            predictions=(("x",) * n_tokens,) * n_layers,
            probabilities=np.full((n_layers, n_tokens), 0.5, dtype=np.float32),
            final_rank=np.ones((n_layers, n_tokens), dtype=int),
        )

    heights = [logit_lens_heatmap(lens(n)).layout.height for n in (3, 7, 13, 25)]
    assert heights == sorted(heights) and heights[0] < heights[2] and heights[-1] == MAP_MAX_HEIGHT  # GPT-2: 13
    xaxis = logit_lens_heatmap(lens(13)).layout.xaxis
    assert len(xaxis.ticktext) <= MAX_TICK_LABELS  # 64 positions: every third labelled


def test_beam_figure_one_trace_per_beam_rank():
    result = generate("Once upon a time", "beam", max_new_tokens=5, num_beams=3)
    fig = beam_figure(result).to_dict()
    assert len(fig["data"]) == 3
    assert list(fig["data"][0]["y"]) == [step.beams[0][1] for step in result.beam_steps]
