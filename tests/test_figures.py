"""Figures are tested as data: their to_dict() holds the right traces, labels and sizes. A figure is a pure function of
its result and the reader's `Look` (language, page width): every test passes one, no context is set."""

import functools
import subprocess
import sys
import textwrap
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from bg_demo import backend, figures, text
from bg_demo.backend import fill_mask
from bg_demo.backend._common import Phrase
from bg_demo.backend.attention import AttentionResult
from bg_demo.figures import fill_mask_bars, label_bars
from bg_demo.figures.axes import NARROW_LABEL_PX, UPRIGHT_LABEL_PX, percent_ticks, token_names
from bg_demo.figures.style import BADGE_CLEARANCE, LINE, MAX_HEIGHT, NARROW_MAX_HEIGHT, text_width
from bg_demo.figures.tasks import BAR_HEIGHT
from bg_demo.look import Look

EN = Look()  # English on a wide page: what an API caller gets when it says nothing


def test_fill_mask_bars_one_chart_per_mask_best_on_top():
    result = fill_mask("I went to the [MASK] to deposit some [MASK].", top_k=4)
    fig = fill_mask_bars(result, EN).to_dict()
    bars = fig["data"]
    assert len(bars) == 2 and all(bar["type"] == "bar" and bar["orientation"] == "h" for bar in bars)
    for bar, choices, axis in zip(bars, result.masks, ["yaxis", "yaxis2"]):
        assert list(bar["x"]) == [choice.score for choice in choices]
        assert list(bar["customdata"]) == [choice.token for choice in choices]
        assert list(fig["layout"][axis]["ticktext"]) == [choice.token for choice in choices]
        assert fig["layout"][axis]["autorange"] == "reversed"
    titles = [note["text"] for note in fig["layout"]["annotations"]]
    assert titles == ["[MASK] 1 of 2", "[MASK] 2 of 2"]
    assert fig["layout"]["height"] > 200


def test_fill_mask_bars_single_mask_has_plain_title():
    fig = fill_mask_bars(fill_mask("The cat sat on the [MASK].", top_k=20), EN).to_dict()
    assert [note["text"] for note in fig["layout"]["annotations"]] == ["[MASK]"]
    assert len(fig["data"][0]["y"]) == 20


# --- label_bars: the Sentiment and Next-sentence scores in the look of fill_mask_bars -----------------------


def test_label_bars_best_first_with_percent_labels():
    fig = label_bars({"NEGATIVE": 0.1, "POSITIVE": 0.85, "NEUTRAL": 0.05}, EN, title="Sentiment").to_dict()
    (bar,) = fig["data"]
    assert bar["type"] == "bar" and bar["orientation"] == "h"
    assert list(bar["x"]) == [0.85, 0.1, 0.05] and list(bar["customdata"]) == ["POSITIVE", "NEGATIVE", "NEUTRAL"]
    assert bar["text"] == ["85.0%", "10.0%", "5.0%"] and bar["textposition"] == "outside"
    layout = fig["layout"]
    assert layout["yaxis"]["ticktext"] == ["POSITIVE", "NEGATIVE", "NEUTRAL"]
    assert layout["yaxis"]["autorange"] == "reversed"
    assert layout["xaxis"]["tickformat"].endswith("%") and layout["xaxis"]["title"]["text"] == "probability"
    assert layout["title"]["text"] == "Sentiment"


def test_label_bars_height_follows_the_bars():
    two = label_bars({"IsNext": 0.7, "NotNext": 0.3}, EN).layout.height
    five = label_bars({str(i): 0.2 for i in range(5)}, EN).layout.height
    assert five - two == 3 * BAR_HEIGHT and two <= MAX_HEIGHT


def test_label_bars_looks_like_fill_mask_bars():
    """One helper draws both: the same trace and axis styling, only the data differ."""
    guesses = [SimpleNamespace(token=token, score=score) for token, score in (("bank", 0.6), ("shop", 0.3))]
    mask = fill_mask_bars(SimpleNamespace(masks=(tuple(guesses),)), EN).to_dict()
    label = label_bars({"bank": 0.6, "shop": 0.3}, EN).to_dict()
    (mask_bar,), (label_bar,) = mask["data"], label["data"]
    assert {k: v for k, v in mask_bar.items() if k not in ("xaxis", "yaxis")} == label_bar  # subplot refs aside
    for axis in ("xaxis", "yaxis"):
        assert {k: v for k, v in mask["layout"][axis].items() if k not in ("anchor", "domain")} == label["layout"][axis]
    assert mask["layout"]["bargap"] == label["layout"]["bargap"]


# --- percent axes: no two tick labels alike ------------------------------------------------------------------


def tick_labels(axis: dict, low: float, high: float) -> list[str]:
    """The labels plotly draws on a linear axis from tick0 in steps of dtick, formatted like d3 does ".N%"."""
    ticks = np.arange(axis.get("tick0", 0), high + axis["dtick"] * 1e-6, axis["dtick"])
    return [f"{tick:{axis['tickformat'][1:]}}" for tick in ticks if tick >= low - 1e-12]


@pytest.mark.parametrize("top", [0.0004, 0.003, 0.012, 0.03, 0.07, 0.3, 1.0, 1.05])
def test_percent_ticks_never_repeat_a_label(top):
    ticks = percent_ticks(top)
    labels = tick_labels(ticks, 0.0, top)
    assert 3 <= len(labels) <= 11 and len(set(labels)) == len(labels)


def test_percent_ticks_choose_decimals_from_the_step():
    assert percent_ticks(0.03)["tickformat"] == ".0%" and percent_ticks(0.03)["dtick"] == pytest.approx(0.01)
    assert percent_ticks(0.02)["tickformat"] == ".1%"  # steps of 0.5%
    assert percent_ticks(0.012)["tickformat"] == ".2%"  # steps of 0.25%
    assert percent_ticks(0.001)["tickformat"] == ".2%"  # steps of 0.02%


# --- every figure: sized for the screen, clear of gradio's label badge, axes titled ---------------------------


def attention_result(n=6) -> AttentionResult:
    weights = np.full((2, 4, n, n), 1 / n, dtype=np.float32)
    tokens = tuple(f"w{i}" for i in range(n))
    return AttentionResult("x", "encoder", tokens, (False,) * n, weights, False, n, "bidirectional", "synthetic")


# Each model result once for the module (functools.cache): a figure is drawn for a dozen checks at two widths, and
# every check reads the same result.
@functools.cache
def answer_attention():
    context = "The Transformer was introduced in 2017 by Ashish Vaswani at Google."
    found = backend.answer("Who introduced it?", context)
    window = found.alternatives[0].window if found.alternatives else None
    return backend.answer_attention("Who introduced it?", context, found.start, found.end, window)


@functools.cache
def tuned():
    """A finished LoRA run on a small task: its loss curve and its vectors before and after."""
    from bg_demo.backend.finetune import run_to_end

    rows = [["A good film.", "good"], ["A bad film.", "bad"], ["Good fun.", "good"], ["Bad acting.", "bad"]]
    return run_to_end("encoder", rows, rows, "lora", 4, None, 2)


RESULTS = {  # figure name -> the result it draws, made on first use and kept
    name: functools.cache(make) for name, make in {
        "future_share_bars": lambda: backend.compare("The cat sat on the mat."),
        "same_word_lines": lambda: backend.same_word("a bank loan", "a river bank", "bank"),
        "masked_both_bars": lambda: backend.predict_masked_both("The cat sat on the [MASK]."),
        "fill_mask_bars": lambda: fill_mask("A [MASK] and a [MASK] and a [MASK].", top_k=20),
        "next_token_bars": lambda: backend.next_token("The cat", 1.0, top_p=0.9, n=30, seed=0),
        "logit_lens_heatmap": lambda: backend.logit_lens("The cat sat on the mat"),
        "beam_figure": lambda: backend.generate("Once", "beam", max_new_tokens=3, num_beams=2),
        "embedding_norms": lambda: backend.input_representation("The man.", "He left."),
        "causal_loss_bars": lambda: backend.causal_lm("Once upon a time there was a robot."),
        "explanation_rows": lambda: backend.explain_fill_mask("The cat sat on the [MASK]."),
    }.items()
}


def _drawn_from_result(name: str):
    return lambda look: getattr(figures, name)(RESULTS[name](), look)


FIGURES = {  # each drawn for the Look it is given
    "head_heatmap": lambda look: figures.head_heatmap(attention_result(), look, 0, 0),
    "aggregate_heatmap": lambda look: figures.aggregate_heatmap(np.eye(3), look, ["a", "b", "c"], "Identity"),
    "layer_heads": lambda look: figures.layer_heads(attention_result(), look, 0),
    "head_overview": lambda look: figures.head_overview(attention_result(), look, "to_self"),
    "head_lines": lambda look: figures.head_lines(attention_result(), look, 0, 0),
    "causal_mask_figure": lambda look: figures.causal_mask_figure(4, look),
    **{name: _drawn_from_result(name) for name in RESULTS},
    "label_bars": lambda look: figures.label_bars({"POSITIVE": 0.9, "NEGATIVE": 0.1}, look),
    "answer_attention_lines": lambda look: figures.answer_attention_lines(answer_attention(), look, 0, 0),
    "training_curve": lambda look: figures.training_curve(tuned(), look),
    "vector_map": lambda look: figures.vector_map(tuned(), look),
}
# the figures drawn with a colour scale (one colour bar), and those with an x axis of tokens
COLOUR_SCALED = ("head_heatmap", "aggregate_heatmap", "layer_heads", "head_overview", "logit_lens_heatmap",
                 "explanation_rows")
TOKEN_AXES = ("head_heatmap", "aggregate_heatmap", "layer_heads", "causal_mask_figure", "same_word_lines",
              "next_token_bars", "logit_lens_heatmap", "embedding_norms", "causal_loss_bars", "explanation_rows",
              "answer_attention_lines")


def test_every_public_figure_is_checked_here():
    builders = {name for name in figures.__all__ if not name.endswith("_html") and name != "attention_figure"}
    assert builders == set(FIGURES)


PHONE, LAPTOP = 390, 1366  # px of page: the narrow and the wide layouts
PHONE_PLOT = 326  # px a full-width figure gets on a 390-px page (measured in Chromium)


def drawn(name: str, page: int) -> dict:
    """FIGURES[name] drawn for a page `page` px wide, as data."""
    return FIGURES[name](Look(width=page)).to_dict()


@pytest.mark.parametrize("page", [LAPTOP, PHONE])
@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_has_a_height_that_fits_and_no_fixed_width(name, page):
    layout = drawn(name, page)["layout"]
    assert "width" not in layout  # the width follows the column gr.Plot sits in
    tallest = MAX_HEIGHT if page == LAPTOP else NARROW_MAX_HEIGHT  # a phone scrolls: readable before short
    assert 0 < layout["height"] <= tallest  # set, so the page does not jump when the figure arrives


def _lines(text: str) -> int:
    return text.count("<br>") + 1 if text else 0


@pytest.mark.parametrize("page", [LAPTOP, PHONE])
@pytest.mark.parametrize("name", FIGURES)
def test_every_title_and_subplot_title_clears_the_label_badge(name, page):
    """gr.Plot draws its label in a ~36-px badge over the figure's top-left corner."""
    layout = drawn(name, page)["layout"]
    height, top = layout["height"], layout["margin"]["t"]
    title = layout.get("title", {})
    lines = 0
    if title.get("text"):
        assert (title["yref"], title["yanchor"]) == ("container", "top")
        assert (1 - title["y"]) * height >= BADGE_CLEARANCE - 1e-9  # the title's top edge is under the badge
        lines = _lines(title["text"]) + _lines(title.get("subtitle", {}).get("text", ""))
    subplot_titles = [note for note in layout.get("annotations", ()) if note.get("yref") == "paper"]
    lines += max((_lines(note["text"]) for note in subplot_titles), default=0)
    assert top >= BADGE_CLEARANCE + LINE * lines


@pytest.mark.parametrize("name", FIGURES)
def test_every_quantity_axis_is_titled_and_every_percent_axis_reads_uniquely(name):
    layout = FIGURES[name](EN).to_dict()["layout"]
    for key, axis in layout.items():
        if not key.startswith(("xaxis", "yaxis")) or axis.get("visible") is False or "ticktext" in axis:
            continue  # token axes name their tokens; head_lines hides its axes
        assert axis.get("title", {}).get("text"), f"{name}: {key} has no title"
        if "%" in axis.get("tickformat", ""):
            labels = tick_labels(axis, *axis["range"])
            assert len(set(labels)) == len(labels) >= 2, f"{name}: {key} prints {labels}"


# --- on a phone: every figure designed for ~326 px, not a laptop's figure shrunk ---------------------------------


@pytest.mark.parametrize("name", FIGURES)
def test_on_a_phone_every_title_line_fits_the_width(name):
    """The title and subtitle wrap (a long word is cut) so that no line runs past the figure's right edge."""
    layout = drawn(name, PHONE)["layout"]
    title = layout.get("title", {})
    texts = [(title.get("text", ""), title.get("font", {}).get("size", 18)),
             (title.get("subtitle", {}).get("text", ""), title.get("subtitle", {}).get("font", {}).get("size", 13))]
    texts += [(note["text"], note.get("font", {}).get("size", 15)) for note in layout.get("annotations", ())]
    for words, size in texts:
        for line in words.split("<br>"):
            assert text_width(line, size) <= PHONE_PLOT - 16, (name, line)
    if "<br>" in title.get("text", ""):  # plotly starts a title of several lines ~0.7 em higher than one of one line
        assert title["pad"]["t"] >= 0.7 * title["font"]["size"]
    wide = drawn(name, LAPTOP)["layout"].get("title", {}).get("text", "")
    assert "<br>" not in wide  # a laptop's titles are one line, as before


@pytest.mark.parametrize("name", COLOUR_SCALED)
def test_on_a_phone_colour_bars_lie_under_the_plot_and_on_a_laptop_beside_it(name):
    def bars(fig):
        found = [trace["colorbar"] for trace in fig["data"] if "colorbar" in trace and trace.get("showscale", True)]
        axis = fig["layout"].get("coloraxis", {})
        return found + ([axis["colorbar"]] if "colorbar" in axis else [])

    (phone,), (laptop,) = bars(drawn(name, PHONE)), bars(drawn(name, LAPTOP))  # one: small multiples share theirs
    assert phone["orientation"] == "h" and phone["yanchor"] == "top" and phone["y"] < 0  # under the plot's foot
    assert text_width(phone["title"]["text"], 15) <= PHONE_PLOT and phone["title"]["side"] == "top"
    assert laptop.get("orientation", "v") == "v"


def _axes(layout: dict, prefix: str):
    return [(key, axis) for key, axis in layout.items() if key.startswith(prefix) and axis.get("showticklabels", True)]


@pytest.mark.parametrize("name", FIGURES)
def test_on_a_phone_the_margins_leave_the_plot_most_of_the_width(name):
    """Labels beside the plot are short (NARROW_LABEL_PX), y axes are named across their top: the plot keeps at
    least 70% of a 390-px screen (273 of the 326 px), where a laptop's layout left a map ~110 px."""
    layout = drawn(name, PHONE)["layout"]
    margin = layout["margin"]
    assert margin["l"] + margin["r"] <= 20
    for key, axis in _axes(layout, "yaxis"):
        if axis.get("ticktext") and axis.get("visible", True):
            widest = max(text_width(label, axis["tickfont"]["size"]) for label in axis["ticktext"])
            assert widest <= NARROW_LABEL_PX, (name, key, axis["ticktext"])
        assert not axis.get("title", {}).get("text"), (name, key)  # an upright title would take ~20 px more


@pytest.mark.parametrize("name", TOKEN_AXES)
def test_token_labels_are_thinned_by_the_pixels_they_get(name):
    """On a phone x axes of tokens turn their labels upright (-90°: a label takes its line, UPRIGHT_LABEL_PX,
    along the axis) and name as many as fit the plot's ~300 px; a laptop's axes keep their angle and up to 24."""
    phone, laptop = drawn(name, PHONE)["layout"], drawn(name, LAPTOP)["layout"]
    tokens = [(key, axis) for key, axis in _axes(phone, "xaxis") if "ticktext" in axis]
    assert tokens, name  # the figure names its tokens along x
    for key, axis in tokens:
        assert axis.get("tickangle") == -90, (name, key)
        assert len(axis["ticktext"]) * UPRIGHT_LABEL_PX <= PHONE_PLOT, (name, key)
    for key, axis in _axes(laptop, "xaxis"):
        assert axis.get("tickangle", -45) != -90, (name, key)


def test_a_long_token_axis_names_fewer_tokens_on_a_phone_than_on_a_laptop():
    from bg_demo.figures.axes import UPRIGHT_LABEL_PX as pitch

    result = backend.causal_lm("One two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                               "fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two.")
    counts = {}
    for page in (PHONE, LAPTOP):
        counts[page] = len(figures.causal_loss_bars(result, Look(width=page)).layout.xaxis.ticktext)
    assert counts[PHONE] < counts[LAPTOP] and counts[PHONE] * pitch <= PHONE_PLOT


def test_on_a_phone_a_bar_chart_puts_each_label_above_its_bar():
    """Labels beside the bars took ~170 px of a phone's ~326; above them they read whole and the bars keep the width."""
    scores = {"internationalisation": 0.6, "cat": 0.3, "dog": 0.1}
    fig = label_bars(scores, Look(width=PHONE)).to_dict()
    layout = fig["layout"]
    assert layout["yaxis"]["showticklabels"] is False
    notes = [note for note in layout["annotations"] if note.get("yref") == "y"]
    assert [note["text"] for note in notes] == list(scores)
    (bar,) = fig["data"]
    for i, note in enumerate(notes):  # each label's foot on its bar's top edge, from the bar's start
        assert note["x"] == 0 and note["yanchor"] == "bottom" and note["xanchor"] == "left"
        assert note["y"] == pytest.approx(i - (1 - layout["bargap"]) / 2)
    low, high = layout["yaxis"]["range"]
    assert high < -0.5 < len(scores) - 0.5 == low  # best on top, with room above it for its label


@pytest.mark.parametrize("page", [PHONE, LAPTOP])
def test_a_bar_near_100_percent_keeps_room_for_its_percent_label(page):
    """"93.0%" beside a bar that ends at 93% of an axis capped at 100% ran off a phone's right edge."""
    layout = label_bars({"POSITIVE": 0.93, "NEGATIVE": 0.07}, Look(width=page)).layout
    plot = (PHONE_PLOT if page == PHONE else 1300) - 40
    top = layout.xaxis.range[1]
    assert 0.93 / top * plot + text_width("93.0%", layout.font.size) <= plot


def test_the_why_panel_on_a_phone_names_its_rows_above_them_and_writes_tokens_only_where_they_fit():
    """Its row names were cut at the left ("adient × input") and its map was ~60 px wide on a phone."""
    from dataclasses import replace

    result = backend.explain_fill_mask("The cat sat on the [MASK].")
    result = replace(result, tokens=("[CLS]", "internationalisation", *result.tokens[2:]))
    phone = figures.explanation_rows(result, Look(width=PHONE)).to_dict()
    laptop = figures.explanation_rows(result, Look(width=LAPTOP)).to_dict()
    (cells,), (wide,) = phone["data"], laptop["data"]
    assert cells["text"][0][1] == "" and cells["text"][0][0] == "[CLS]"  # ~35-px cells: the long word only hovers
    assert wide["text"][0][1] == "internationalisation"
    layout = phone["layout"]
    assert layout["yaxis"]["showticklabels"] is False
    rows = [note for note in layout["annotations"] if note.get("yref") == "y"]
    assert [note["text"] for note in rows] == list(cells["y"])
    assert all(note["xref"] == "paper" and note["x"] == 0 and note["xanchor"] == "left" for note in rows)
    assert cells["ygap"] >= 18  # the gap above each row holds its name


# --- a text alternative for every figure: layout.meta.alt, in the language served ---------------------------------


@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_says_what_it_shows_in_words(name):
    for page in (PHONE, LAPTOP):
        alt = drawn(name, page)["layout"]["meta"]["alt"]
        assert len(alt) > 40 and "{" not in alt and alt.endswith((".", "?", "'")), (name, alt)


@pytest.mark.parametrize("name", sorted(set(FIGURES) - {"aggregate_heatmap"}))  # its title is the caller's
def test_every_text_alternative_comes_from_the_text_table(korean, name):
    alt = FIGURES[name](korean).to_dict()["layout"]["meta"]["alt"]
    assert alt.startswith("KO:"), (name, alt)  # every word of it from the table, in the language served


def test_text_alternatives_give_the_main_reading():
    masks = fill_mask("A [MASK] and a [MASK].", top_k=3)
    alt = fill_mask_bars(masks, EN).layout.meta["alt"]
    for choices in masks.masks:
        assert f"'{choices[0].token}' ({choices[0].score:.1%})" in alt
    assert "'POSITIVE' (90.0%)" in label_bars({"NEGATIVE": 0.1, "POSITIVE": 0.9}, EN).layout.meta["alt"]
    lab = backend.next_token("The cat", 1.0, n=5, seed=0)
    best = lab.candidates[0]
    assert f"'{best.token}' ({best.scaled:.1%})" in figures.next_token_bars(lab, EN).layout.meta["alt"]
    why = backend.explain_classify("I loved it.", label="POSITIVE")
    credited = why.tokens[int(np.argmax(why.integrated_gradients))]
    assert f"Why p(POSITIVE) = {why.score:.1%}" in figures.explanation_rows(why, EN).layout.meta["alt"]
    assert f"'{credited}' the most" in figures.explanation_rows(why, EN).layout.meta["alt"]
    assert "레이블 1개" in label_bars({"a": 1.0}, Look("ko")).layout.meta["alt"]
    assert "1 個のラベル" in label_bars({"a": 1.0}, Look("ja")).layout.meta["alt"]


def test_a_text_alternative_is_plain_text_naming_tokens_as_typed():
    """meta.alt is read out (an aria-label), never drawn by plotly: a token's "<" is a "<" there, not "&lt;"."""
    alt = label_bars({MARKUP: 0.9, "x": 0.1}, EN).layout.meta["alt"]
    assert MARKUP in alt and "&lt;" not in alt


def test_the_cumulative_axis_is_titled():
    layout = FIGURES["next_token_bars"](EN).layout
    assert layout.yaxis2.title.text == "cumulative probability" and layout.yaxis2.overlaying == "y"


# --- user text and model tokens are shown as text: plotly draws <b>, <i>, <span style>, <a> as markup ---------

MARKUP = "<b style='font-size:40px'>bank</b>"


def _with_markup():
    """Every figure, fed MARKUP wherever a token or a user's word reaches it."""
    from dataclasses import replace

    tokens = ("[CLS]", MARKUP, "x", "[SEP]")
    attention = replace(attention_result(4), tokens=tokens)
    lab = backend.next_token("The cat", 1.0, n=5, seed=0)
    lens = backend.logit_lens("The cat sat")
    beams = backend.generate("Once", "beam", max_new_tokens=2, num_beams=2)
    embeddings = backend.input_representation("The man.", "He left.")
    causal = backend.causal_lm("Once upon a time.")
    masked = backend.predict_masked_both("The cat sat on the [MASK].")
    why = backend.explain_classify("I loved it.")
    context = "Ada wrote the paper in London. " * 3
    question, answered = next((q, a) for q in ("Who wrote the paper?", "Where?", "What?")
                              if (a := backend.answer(q, context)).answer)
    looked = backend.answer_attention(question, context, answered.start, answered.end, answered.alternatives[0].window)
    run = tuned()
    return {
        "vector_map": figures.vector_map(replace(run, texts=(MARKUP, *run.texts[1:])), EN),
        "answer_attention_lines": figures.answer_attention_lines(
            replace(looked, tokens=(looked.tokens[0], MARKUP, *looked.tokens[2:])), EN, 0, 0
        ),
        "head_heatmap": figures.head_heatmap(attention, EN, 0, 0),
        "aggregate_heatmap": figures.aggregate_heatmap(np.eye(4), EN, tokens, "mean"),
        "layer_heads": figures.layer_heads(attention, EN, 0),
        "head_lines": figures.head_lines(attention, EN, 0, 0),
        "causal_mask_figure": figures.causal_mask_figure(4, EN, tokens),
        "same_word_lines": figures.same_word_lines(
            replace(backend.same_word("a bank", "a bank", "bank"), word=MARKUP), EN),
        "masked_both_bars": figures.masked_both_bars(
            replace(masked, encoder=(replace(masked.encoder[0], token=MARKUP),)), EN),
        "fill_mask_bars": figures.fill_mask_bars(
            SimpleNamespace(masks=((SimpleNamespace(token=MARKUP, score=0.5),),)), EN),
        "label_bars": figures.label_bars({MARKUP: 0.9, "x": 0.1}, EN),
        "next_token_bars": figures.next_token_bars(
            replace(lab, candidates=(replace(lab.candidates[0], token=MARKUP), *lab.candidates[1:])), EN
        ),
        "logit_lens_heatmap": figures.logit_lens_heatmap(
            replace(lens, tokens=(MARKUP, *lens.tokens[1:]),
                    predictions=tuple((MARKUP, *row[1:]) for row in lens.predictions)), EN
        ),
        "beam_figure": figures.beam_figure(
            replace(beams, beam_steps=tuple(replace(step, beams=((MARKUP, step.beams[0][1]),))
                                            for step in beams.beam_steps)), EN
        ),
        "embedding_norms": figures.embedding_norms(
            replace(embeddings, rows=(replace(embeddings.rows[0], token=MARKUP), *embeddings.rows[1:])), EN
        ),
        "causal_loss_bars": figures.causal_loss_bars(
            replace(causal, steps=(replace(causal.steps[0], target=MARKUP), *causal.steps[1:])), EN
        ),
        "explanation_rows": figures.explanation_rows(
            replace(why, target=Phrase("note.explain.next", {"word": MARKUP}), tokens=(MARKUP, *why.tokens[1:])), EN
        ),
    }


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple, np.ndarray)):
        for item in value:
            yield from _strings(item)


def test_tokens_and_user_words_reach_every_figure_as_text_never_as_markup():
    built = _with_markup()
    # those three show no tokens nor a student's words
    assert set(built) | {"future_share_bars", "head_overview", "training_curve"} == set(FIGURES)
    for name, fig in built.items():
        drawn = fig.to_dict()
        drawn["layout"].pop("meta", None)  # the text alternative is no plotly label: see the next test
        strings = list(_strings(drawn))
        assert not any("<b style" in s for s in strings), name  # plotly would draw it 40 px bold
        assert any("&lt;b style=" in s for s in strings), name  # the characters are there, as entities


@pytest.mark.parametrize(
    ("explain", "named"),
    [
        (lambda: backend.explain_next_sentence("The man left.", "He came back."), "p(IsNext)"),
        (lambda: backend.explain_classify("I loved it.", label="POSITIVE"), "p(POSITIVE)"),
        (lambda: backend.explain_fill_mask("A [MASK] and a [MASK].", mask=1), "p('{word}' at [MASK] 2)"),
        (lambda: backend.explain_next_token("The cat sat on the"), "p('{word}' next)"),
    ],
)
def test_the_explanation_title_names_the_prediction_in_words(explain, named):
    """The backend names what it explains as data (a text key and its values); the figure puts it into words."""
    result = explain()
    title = figures.explanation_rows(result, EN).to_dict()["layout"]["title"]["text"]
    assert title == f"Why {named.format(**result.target.values)} = {result.score:.1%}"


def test_explanation_rows_share_one_scale_with_raw_values_in_the_hover():
    result = backend.explain_fill_mask("The cat sat on the [MASK].")
    (heatmap,) = figures.explanation_rows(result, EN).to_dict()["data"]
    assert list(heatmap["y"]) == ["attention", "gradient × input", "integrated gradients"]
    z, raw = np.asarray(heatmap["z"]), np.asarray(heatmap["customdata"])
    np.testing.assert_allclose(raw[2], result.integrated_gradients)
    np.testing.assert_allclose(raw[0], result.attention)
    for row, values in zip(z, raw, strict=True):  # each row scaled by its own largest magnitude
        np.testing.assert_allclose(row, values / np.abs(values).max())
    assert (heatmap["zmin"], heatmap["zmax"]) == (-1, 1) and np.abs(z).max() == pytest.approx(1.0)


# --- a figure's words come from the text tables, in the language served ------------------------------------------


@pytest.fixture
def korean(monkeypatch):
    """A Korean reader's Look, with each figure's and note's text "KO:" + its English (whether or not the
    translator has written it yet), so every word a figure shows can be traced to the table."""
    from bg_demo import text

    tables = text.tables()
    marked = {key: "KO:" + words for key, words in tables["en"].items() if key.startswith(("fig.", "note."))}
    monkeypatch.setitem(tables, "ko", {**tables["ko"], **marked})
    return Look("ko")


def _layout_titles(layout: dict) -> list[str]:
    """The title and subtitle, every axis title and the shared colour bar's title of a figure's layout."""
    title = layout.get("title", {})
    texts = [title.get("text"), title.get("subtitle", {}).get("text")]
    texts += [axis.get("title", {}).get("text") for key, axis in layout.items() if key.startswith(("xaxis", "yaxis"))]
    texts.append(layout.get("coloraxis", {}).get("colorbar", {}).get("title", {}).get("text"))
    return [words for words in texts if words]


@pytest.mark.parametrize("name", sorted(set(FIGURES) - {"aggregate_heatmap"}))  # its title is the caller's
def test_every_figure_title_and_axis_title_comes_from_the_text_table(korean, name):
    layout = FIGURES[name](korean).to_dict()["layout"]
    titles = _layout_titles(layout)
    assert titles and all(words.startswith("KO:") for words in titles), (name, titles)
    subplot_titles = [note["text"] for note in layout.get("annotations", ()) if note.get("yref") == "paper"]
    assert all("KO:" in words for words in subplot_titles), (name, subplot_titles)  # "BERT:<br>KO:…"


def test_attention_words_come_from_the_text_table(korean):
    fig = figures.head_heatmap(attention_result(), korean, 1, 2).to_dict()
    layout = fig["layout"]
    assert layout["title"]["text"] == "KO:Layer 1, head 2"
    assert layout["xaxis"]["title"]["text"].startswith("KO:") and layout["yaxis"]["title"]["text"].startswith("KO:")
    assert fig["data"][0]["hovertemplate"].startswith("KO:query %{y} → KO:key %{x}<br>KO:weight %{z:05,d}")
    overview = figures.head_overview(attention_result(), korean, "entropy").to_dict()
    assert overview["layout"]["title"]["text"] == "KO:Every head at a glance: KO:entropy (bits)"
    assert overview["layout"]["coloraxis"]["colorbar"]["title"]["text"] == "KO:entropy"


def test_explanation_words_come_from_the_text_table(korean):
    result = backend.explain_fill_mask("The cat sat on the [MASK].")
    assert result.target.key == "note.explain.mask"  # the backend names what it explains as data; the figure words it
    fig = figures.explanation_rows(result, korean).to_dict()
    (heatmap,) = fig["data"]
    assert all(row.startswith("KO:") for row in heatmap["y"]) and heatmap["colorbar"]["title"]["text"].startswith("KO:")
    layout = fig["layout"]
    assert layout["title"]["text"].startswith("KO:Why KO:p(") and layout["yaxis"]["title"]["text"].startswith("KO:")


def test_generation_words_come_from_the_text_table(korean):
    lens = figures.logit_lens_heatmap(backend.logit_lens("The cat sat"), korean).to_dict()
    assert lens["layout"]["title"]["text"] == "KO:What each layer would predict next"
    assert all(layer.startswith("KO:") for layer in lens["data"][0]["y"])  # "embeddings", "layer 0", …
    assert lens["layout"]["yaxis"]["title"]["text"] == "KO:layer"
    assert "KO:probability of each new token: " in figures.probability_legend_html(korean)
    result = backend.generate("Once", "greedy", max_new_tokens=2)
    assert 'title="KO:rank ' in figures.token_probability_html(result, korean)


def test_pretraining_words_come_from_the_text_table(korean):
    norms = figures.embedding_norms(backend.input_representation("The man.", "He left."), korean).to_dict()
    assert norms["layout"]["title"]["text"] == "KO:Lengths of BERT's input embeddings"
    assert norms["layout"]["yaxis"]["title"]["text"] == "KO:L2 norm"
    assert [bar["name"] for bar in norms["data"]] == ["KO:token", "KO:segment", "KO:position", "KO:sum"]


def test_task_bar_words_come_from_the_text_table(korean):
    fig = fill_mask_bars(fill_mask("A [MASK] and a [MASK].", top_k=3), korean).to_dict()
    assert [note["text"] for note in fig["layout"]["annotations"]] == ["KO:[MASK] 1 of 2", "KO:[MASK] 2 of 2"]
    assert fig["layout"]["xaxis"]["title"]["text"] == "KO:probability"


def test_same_word_notes_come_from_the_text_table(korean):
    from bg_demo.ui import compare_tab

    result = compare_tab.word_vectors("a bank loan", "a bank loan", "bank", progress=None)
    note = compare_tab.same_word(result, Look("ko"))[1]  # the UI's own words (a note, not a figure)
    assert note.startswith("KO:The two sentences are the same")


# --- a figure is a pure function of (result, look): no gradio, no context, the reader's language and width ---------

_PURE = textwrap.dedent('''
    import json, sys

    import numpy as np

    from bg_demo import figures
    from bg_demo.backend.attention import AttentionResult
    from bg_demo.backend.fill_mask import FillMaskResult, Prediction
    from bg_demo.look import Look

    guesses = tuple(Prediction(token, i, score) for i, (token, score) in enumerate((("bank", 0.6), ("shop", 0.3))))
    masks = FillMaskResult("A [MASK] or a [MASK].", (), (2, 5), (guesses, guesses), "A bank or a bank.", "tiny")
    n = 6
    weights = np.random.default_rng(0).dirichlet(np.ones(n), size=(2, 4, n)).astype(np.float32)  # (L, H, Q, K)
    attention = AttentionResult("x", "encoder", tuple(f"w{i}" for i in range(n)), (False,) * n, weights, False, n,
                                "bidirectional", "synthetic")
    drawn = {}
    for lang, width in (("ko", 390), ("en", 1366)):
        look = Look(lang, width)
        drawn[f"{lang}/{width}"] = dict(bars=figures.fill_mask_bars(masks, look).to_plotly_json(),
                                        map=figures.head_heatmap(attention, look, 1, 2).to_plotly_json())
    print(json.dumps(dict(gradio="gradio" in sys.modules, drawn=drawn), default=lambda value: None))
''')


def test_a_figure_is_drawn_for_the_look_it_is_given_without_gradio_or_any_context():
    """`figures.X(result, Look("ko", 390))` draws the Korean phone figure in a fresh process that never imports gradio
    and sets no language or width anywhere; Look("en", 1366) draws the English laptop one from the same result."""
    import json

    from bg_demo import text

    ran = subprocess.run([sys.executable, "-c", _PURE], capture_output=True, text=True, check=True, timeout=120)
    out = json.loads(ran.stdout.strip().splitlines()[-1])
    assert out["gradio"] is False
    phone, laptop = out["drawn"]["ko/390"], out["drawn"]["en/1366"]
    assert phone != laptop
    bars = phone["bars"]["layout"]
    assert [note["text"] for note in bars["annotations"] if note.get("yref") == "paper"] == [
        text.t("fig.tasks.mask_of", "ko", i=i, n=2) for i in (1, 2)]
    assert bars["xaxis"]["title"]["text"] == text.t("fig.tasks.probability", "ko")
    assert bars["yaxis"]["showticklabels"] is False  # the phone's layout: each label above its bar
    assert [note["text"] for note in bars["annotations"] if note.get("yref") == "y"] == ["bank", "shop"]
    wide_bars = laptop["bars"]["layout"]
    assert wide_bars["xaxis"]["title"]["text"] == "probability" and wide_bars["yaxis"]["ticktext"] == ["bank", "shop"]
    heat = phone["map"]["layout"]
    assert heat["title"]["text"] == text.t("fig.attention.head_title", "ko", layer=1, head=2)
    assert heat["coloraxis"]["colorbar"]["orientation"] == "h"  # the phone's colour bar, under the map
    assert heat["coloraxis"]["colorbar"]["title"]["text"] == text.t("fig.attention.weight", "ko")
    wide_heat = laptop["map"]["layout"]
    assert wide_heat["title"]["text"] == "Layer 1, head 2" and "orientation" not in wide_heat["coloraxis"]["colorbar"]
    assert heat["height"] != wide_heat["height"]



@pytest.mark.parametrize("width", [PHONE, LAPTOP])
def test_a_long_texts_why_wraps_its_rows_onto_lines_with_every_token_readable(width):
    """228 tokens (a Q&A context) drew 1-4 px columns: the rows wrap onto lines of tokens, each token
    MIN_CELL_PX wide or more, in order, with the same values and one colour scale."""
    from dataclasses import replace

    from bg_demo.figures.axes import plot_px
    from bg_demo.figures.explain import MIN_CELL_PX

    short = backend.explain_fill_mask("The cat sat on the [MASK].")
    n = 228
    rng = np.random.default_rng(0)
    values = {name: tuple(float(v) for v in rng.standard_normal(n))
              for name in ("attention", "gradient_x_input", "integrated_gradients")}
    result = replace(short, tokens=tuple(f"w{i}" for i in range(n)), special=(False,) * n, **values)
    look = Look(width=width)
    fig = figures.explanation_rows(result, look).to_dict()
    lines = fig["data"]
    assert len(lines) > 1 and all(line["type"] == "heatmap" and line["coloraxis"] == "coloraxis" for line in lines)
    per_line = max(len(line["x"]) for line in lines)
    assert plot_px(look) / per_line >= MIN_CELL_PX * 0.8  # beside the rows' names on a laptop
    assert [x for line in lines for x in line["x"]] == token_names(result.tokens)  # every token, in order
    raw = np.concatenate([np.asarray(line["customdata"]) for line in lines], axis=1)
    np.testing.assert_allclose(raw[2], result.integrated_gradients)
    z = np.concatenate([np.asarray(line["z"]) for line in lines], axis=1)
    np.testing.assert_allclose(z[0], raw[0] / np.abs(raw[0]).max())  # one scale per row, across the lines
    layout = fig["layout"]
    assert (layout["coloraxis"]["cmin"], layout["coloraxis"]["cmax"]) == (-1, 1)
    assert layout["height"] <= 2400
    short_fig = figures.explanation_rows(short, look).to_dict()
    assert len(short_fig["data"]) == 1  # a short text stays one line


def test_the_vector_maps_legend_shows_each_label_filled_and_one_hollow_marker_for_a_wrong_prediction():
    """The legend says what the markers mean: a label's entry is filled whatever its first sentence's prediction (a
    hollow one beside a label's name would read as "wrong"), and one hollow entry says what hollow means."""
    run = tuned()
    # every "good" sentence predicted wrong before: their markers are all hollow on the map
    fig = figures.vector_map(replace(run, probabilities_before=tuple({"good": 0.1, "bad": 0.9} for _ in run.texts)),
                             EN).to_dict()
    shown = [trace for trace in fig["data"] if trace.get("showlegend", True)]
    assert [trace["name"] for trace in shown] == [*run.labels, text.t("fig.ft.wrong", "en")]
    for trace in shown[:-1]:  # each label: filled with its colour
        assert trace["marker"]["color"] == trace["marker"]["line"]["color"] != "white", trace
    assert shown[-1]["marker"]["color"] == "white"  # "hollow: predicted wrong"
    drawn = [trace for trace in fig["data"] if trace["x"] != (None,) and trace["x"] != [None]]
    assert drawn and all(trace.get("showlegend") is False for trace in drawn)
    assert any("white" in list(trace["marker"]["color"]) for trace in drawn)  # the map itself has hollow ones


def test_a_probability_the_model_gives_never_reads_as_zero_percent():
    from bg_demo.figures.style import percent

    assert [percent(p) for p in (0.5, 0.0123, 0.001, 0.00023, 4e-7, 0.0)] == [
        "50.0%", "1.2%", "0.1%", "0.023%", "< 0.0001%", "0%"]
    result = replace(RESULTS["explanation_rows"](), score=0.00023)  # a guess the model gives 0.023%
    title = figures.explanation_rows(result, EN).to_dict()["layout"]["title"]["text"]
    assert "0.023%" in title and "0.0%" not in title
