import math

import pytest

from bg_demo.backend import classify
from bg_demo.errors import InputError
from bg_demo.tiny_models import SENTIMENT_LABELS
from tests.tolerance import assert_ranked, tolerance

TEXTS = [
    "I loved this movie, the acting was wonderful.",
    "This film was a waste of time.",
    "ok",
    "The food was great but the service was slow. " * 10,
]


@pytest.mark.parity
@pytest.mark.parametrize("text", TEXTS)
def test_equals_the_text_classification_pipeline(text, pipeline_for):
    tol = tolerance("sentiment")
    reference = pipeline_for("text-classification", "sentiment")(text, top_k=None)
    result = classify(text).to_dict()
    assert set(result["scores"]) == set(SENTIMENT_LABELS)
    for row in reference:
        assert result["scores"][row["label"]] == pytest.approx(row["score"], abs=tol.probability)
    assert_ranked(list(result["scores"]), [row["label"] for row in reference],
                  {row["label"]: math.log(row["score"]) for row in reference}, tol)
    assert result["label"] == next(iter(result["scores"]))
    assert list(result["scores"].values()) == sorted(result["scores"].values(), reverse=True)
    assert sum(result["scores"].values()) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(("text", "message"), [("", "empty"), (" \t", "empty"), ("a " * 600, "at most 512"), (None, "must be text")])
def test_bad_input_says_what_to_change(text, message):
    with pytest.raises(InputError, match=message):
        classify(text)
