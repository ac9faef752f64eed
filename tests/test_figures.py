"""Figures are tested as data: their to_dict() holds the right traces, labels and sizes."""

from bg_demo.backend import fill_mask
from bg_demo.figures import fill_mask_bars


def test_fill_mask_bars_one_chart_per_mask_best_on_top():
    result = fill_mask("I went to the [MASK] to deposit some [MASK].", top_k=4)
    fig = fill_mask_bars(result).to_dict()
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
    fig = fill_mask_bars(fill_mask("The cat sat on the [MASK].", top_k=20)).to_dict()
    assert [note["text"] for note in fig["layout"]["annotations"]] == ["[MASK]"]
    assert len(fig["data"][0]["y"]) == 20
