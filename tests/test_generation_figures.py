"""Generation figures as data: coloured tokens, the next-token bars, the logit lens, the beams."""

from types import SimpleNamespace

import numpy as np
import pytest

from bg_demo.backend import generate, logit_lens, next_token
from bg_demo.backend.generation.types import BeamStep
from bg_demo.figures import (
    beam_figure,
    logit_lens_heatmap,
    next_token_bars,
    probability_legend_html,
    token_probability_html,
)
from bg_demo.figures.axes import MAP_MAX_HEIGHT, MAX_TICK_LABELS
from bg_demo.figures.generation import probability_colour
from bg_demo.figures.style import OKABE_ITO, percent
from bg_demo.look import Look

EN = Look()  # English on a wide page


def test_token_html_colours_every_token_by_probability_and_escapes():
    result = generate("<b>Once</b> upon", "greedy", max_new_tokens=6)
    page = token_probability_html(result, EN)
    assert "&lt;b&gt;Once&lt;/b&gt;" in page and "<b>" not in page
    assert page.count('class="bg-token"') == 6
    assert probability_legend_html(EN).count('class="bg-token"') == 5
    for token in result.generated[0]:
        assert f"rank {token.rank} · p = {percent(token.score)}" in page  # never "0.0%" for a token it gives
        assert probability_colour(token.score) in page


def test_probability_bins_are_ordered():
    assert probability_colour(0.9) != probability_colour(0.001)
    assert probability_colour(0.5) == probability_colour(0.99)


def test_next_token_bars_mark_what_each_filter_drops():
    result = next_token("The cat sat on the", 1.0, top_k=8, top_p=0.5, n=12, seed=0)
    fig = next_token_bars(result, EN).to_dict()
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
    fig = next_token_bars(result, EN).to_dict()
    assert len(fig["layout"]["xaxis"]["ticktext"]) <= MAX_TICK_LABELS
    assert [row[0] for row in fig["data"][0]["customdata"]] == [c.token for c in result.candidates]
    top = max(max(c.scaled, c.score) for c in result.candidates)
    assert fig["layout"]["yaxis"]["range"][1] >= top  # every bar and marker inside the percent axis


def test_logit_lens_heatmap_labels_layers_and_tokens():
    result = logit_lens("The cat sat on the mat")
    fig = logit_lens_heatmap(result, EN).to_dict()
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

    heights = [logit_lens_heatmap(lens(n), EN).layout.height for n in (3, 7, 13, 25)]
    assert heights == sorted(heights) and heights[0] < heights[2] and heights[-1] == MAP_MAX_HEIGHT  # GPT-2: 13
    xaxis = logit_lens_heatmap(lens(13), EN).layout.xaxis
    assert len(xaxis.ticktext) <= MAX_TICK_LABELS  # 64 positions: every third labelled


def test_beam_figure_one_trace_per_beam_rank_by_how_far_it_trails_the_best():
    result = generate("Once upon a time", "beam", max_new_tokens=5, num_beams=3)
    fig = beam_figure(result, EN).to_dict()
    assert len(fig["data"]) == 3
    for rank, trace in enumerate(fig["data"]):
        steps = [step for step in result.beam_steps if rank < len(step.beams)]
        assert list(trace["y"]) == [step.beams[rank][1] - step.beams[0][1] for step in steps]  # the best at 0
        assert [row[0] for row in trace["customdata"]] == [step.beams[rank][1] for step in steps]  # the totals
    assert set(fig["data"][0]["y"]) == {0.0} and all(y <= 0 for trace in fig["data"] for y in trace["y"])


def long_beams(steps=121, beams=8, seed=0):
    """A beam search `steps` long keeping `beams` beams, best first at every step."""
    rng = np.random.default_rng(seed)
    totals, kept = np.zeros(beams), []
    for step in range(1, steps + 1):
        totals = np.sort(totals - rng.uniform(0.5, 3.0, beams))[::-1]
        kept.append(BeamStep(step, tuple((f"text {step} of beam {b}", float(totals[b])) for b in range(beams))))
    return SimpleNamespace(beam_steps=tuple(kept))


@pytest.mark.parametrize("page", [390, 1366])
def test_beam_figure_starts_at_step_0_in_okabe_ito_colours_at_any_length(page):
    """At 121 steps x 8 beams: one label per step smeared the axis, it started at -6, and plotly's default colours
    were not the README's Okabe-Ito palette."""
    fig = beam_figure(long_beams(), Look(width=page)).to_dict()
    xaxis = fig["layout"]["xaxis"]
    assert xaxis["range"][0] == 0 and xaxis["range"][1] >= 121 and "dtick" not in xaxis
    assert 2 <= xaxis["nticks"] <= (6 if page == 390 else 24)  # plotly picks round steps, as many as fit
    colours = [trace["line"]["color"] for trace in fig["data"]]
    assert set(colours) <= set(OKABE_ITO.values()) and len(set(colours)) == len(colours)
    assert all(trace["mode"] == "lines" for trace in fig["data"])  # markers would touch at 121 steps
    assert len(fig["data"]) == (4 if page == 390 else 8)  # a phone follows the best four


def test_beam_figure_marks_the_steps_of_a_short_search():
    fig = beam_figure(long_beams(steps=6, beams=3), EN).to_dict()
    assert all(trace["mode"] == "lines+markers" for trace in fig["data"])
    alt = fig["layout"]["meta"]["alt"]
    assert alt.startswith("The best 3 beams at each of 6 steps") and "'text 6 of beam 0'" in alt


def lens(n_layers=13, n_tokens=12, prediction=" Paris"):
    return SimpleNamespace(
        tokens=tuple(f" t{i}" for i in range(n_tokens)),
        layers=("embeddings",) + tuple(f"layer {i}" for i in range(n_layers - 1)),
        predictions=tuple(tuple("," if (i + j) % 2 else prediction for j in range(n_tokens)) for i in range(n_layers)),
        probabilities=np.full((n_layers, n_tokens), 0.5, dtype=np.float32),
        final_rank=np.ones((n_layers, n_tokens), dtype=int),
    )


def test_logit_lens_on_a_phone_writes_a_prediction_only_in_a_cell_that_holds_it():
    """12 positions in ~290 px: a cell is ~24 px, where " Paris" shrank to "- - -"; "," still fits."""
    fig = logit_lens_heatmap(lens(), Look(width=390)).to_dict()
    heat, layout = fig["data"][0], fig["layout"]
    cells = [cell for row in heat["text"] for cell in row]
    assert set(cells) == {",", ""} and cells.count(",") == 13 * 12 // 2
    assert [row[1] for row in heat["customdata"][0]][:2] == [" Paris", ","]  # the hover names every prediction
    assert heat["colorbar"]["orientation"] == "h"
    assert layout["xaxis"]["tickangle"] == -90 and len(layout["xaxis"]["ticktext"]) <= 18
    assert layout["yaxis"]["ticktext"][:2] == ["emb", "0"] and not layout["yaxis"].get("title")
    wide = logit_lens_heatmap(lens(), Look(width=1366)).to_dict()["data"][0]
    assert {cell for row in wide["text"] for cell in row} == {",", " Paris"}  # a laptop's cells hold them


def test_next_token_bars_on_a_phone_keep_the_width_for_the_bars():
    result = next_token("The cat sat on the", 1.0, top_p=0.9, n=20, seed=0)
    layout = next_token_bars(result, Look(width=390)).to_dict()["layout"]
    assert layout["xaxis"]["tickangle"] == -90 and len(layout["xaxis"]["ticktext"]) <= 18
    assert layout["yaxis2"]["showticklabels"] is False and not layout["yaxis2"].get("title")  # line and threshold stay
    assert not layout["yaxis"].get("title") and "probability" in [note["text"] for note in layout["annotations"]]
    wide = next_token_bars(result, Look(width=1366)).to_dict()["layout"]
    assert wide["yaxis2"]["title"]["text"] == "cumulative probability" and len(wide["xaxis"]["ticktext"]) == 20


def test_generation_figures_say_what_they_show():
    result = next_token("The cat sat on the", 1.0, n=5, seed=0)
    best = result.candidates[0]
    assert f"'{best.token}' ({best.scaled:.1%})" in next_token_bars(result, EN).layout.meta["alt"]
    alt = logit_lens_heatmap(lens(), EN).layout.meta["alt"]
    assert "13 layers" in alt and "(' t11') the last layer predicts ',' (50.0%)" in alt
