import math

import pytest

from bg_demo.backend import fill_mask
from bg_demo.errors import InputError
from tests.tolerance import assert_ranked, tolerance

TEXTS = [
    "The cat sat on the [MASK].",
    "The capital of France is [MASK].",
    "I went to the [MASK] to deposit some [MASK].",
    "[MASK] [MASK] [MASK] on the mat.",
]


@pytest.mark.parity
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("top_k", [1, 5, 20])
def test_equals_the_fill_mask_pipeline(text, top_k, pipeline_for):
    """Rank by rank the pipeline's token, or a near tie with it (tests/tolerance.py), with its probability; the
    pipeline is asked for more, for the probabilities of the tokens it ranks a little lower."""
    tol = tolerance("encoder")
    reference = pipeline_for("fill-mask", "encoder")(text, top_k=top_k + 20)
    if text.count("[MASK]") == 1:
        reference = [reference]
    result = fill_mask(text, top_k=top_k).to_dict()
    assert len(result["masks"]) == text.count("[MASK]")
    for ours, theirs in zip(result["masks"], reference, strict=True):
        found = {p["token"]: p for p in theirs}
        assert_ranked([p["token_id"] for p in ours], [p["token"] for p in theirs[:top_k]],
                      {token: math.log(p["score"]) for token, p in found.items()}, tol)
        assert [p["token"] for p in ours] == [found[p["token_id"]]["token_str"] for p in ours]
        assert [p["score"] for p in ours] == pytest.approx([found[p["token_id"]]["score"] for p in ours],
                                                           abs=tol.probability)


def test_masks_in_any_case_are_the_models_mask():
    lower = fill_mask("The cat sat on the [mask]. A <Mask> sang.").to_dict()
    upper = fill_mask("The cat sat on the [MASK]. A [MASK] sang.").to_dict()
    assert lower["masks"] == upper["masks"]
    assert lower["text"] == "The cat sat on the [MASK]. A [MASK] sang."


def test_result_holds_tokens_positions_and_filled_sentence():
    result = fill_mask("The cat sat on the [MASK].", top_k=3)
    assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"
    assert [result.tokens[i] for i in result.mask_positions] == ["[MASK]"]
    assert result.filled == f"The cat sat on the {result.masks[0][0].token}."
    scores = [p.score for p in result.masks[0]]
    assert scores == sorted(scores, reverse=True) and len(scores) == 3


@pytest.mark.parametrize(
    ("text", "words", "filled"),
    [
        ("to the [MASK].", ["##s"], "to the ##s."),  # after a space a piece stays a marked piece
        ("play[MASK] now", ["##ing"], "playing now"),  # written against a word, it continues it
        ("[MASK] and [MASK]", ["cats", "dogs"], "cats and dogs"),
    ],
)
def test_filled_sentence_joins_a_piece_only_to_the_word_it_touches(text, words, filled):
    from bg_demo.backend.fill_mask import _fill

    assert _fill(text, "[MASK]", words) == filled


@pytest.mark.parametrize(
    ("text", "top_k", "message"),
    [
        ("", 5, "empty"),
        ("   \n ", 5, "empty"),
        ("The cat sat on the mat.", 5, "[MASK]"),
        ("The cat sat on the [MASK].", 0, "between 1 and 20"),
        ("The cat sat on the [MASK].", 1000, "between 1 and 20"),
        ("The cat sat on the [MASK].", "many", "whole number"),
        ("a " * 600 + "[MASK]", 5, "at most 512"),
        ("x" * 5000 + " [MASK]", 5, "limit is 2,000"),
        ("[MASK] " * 21, 5, "at most 20 masks"),
    ],
)
def test_bad_input_says_what_to_change(text, top_k, message):
    with pytest.raises(InputError, match=message if message != "[MASK]" else r"\[MASK\]"):
        fill_mask(text, top_k=top_k)


def test_the_vocabulary_head_reads_the_masks_hidden_states_only():
    """The MLM head (a vocabulary-wide projection) runs at the masks, not at every token: at bert-base size, 128
    tokens, that is 114 ms instead of 137 (docs/performance.md)."""
    from bg_demo import models

    model = models.get("encoder").model
    seen = []
    hook = model.cls.predictions.register_forward_hook(lambda _, args, output: seen.append(tuple(args[0].shape)))
    try:
        result = fill_mask("I went to the [MASK] to deposit some [MASK] before the long weekend.")
    finally:
        hook.remove()
    assert len(result.tokens) > 10
    assert seen == [(2, model.config.hidden_size)]  # two masks' hidden states, not the sentence's


def test_the_best_guesses_are_a_full_stable_sort_s_first_k():
    import numpy as np

    from bg_demo.backend._common import largest

    rng = np.random.default_rng(0)
    values = rng.integers(0, 50, size=(3, 1000)).astype(np.float32)  # many ties
    for k in (1, 5, 20, 1000):
        assert (largest(values, k) == np.argsort(-values, axis=-1, kind="stable")[:, :k]).all()
