import pytest
import torch

from bg_demo.backend import next_sentence
from bg_demo.errors import InputError
from tests.tolerance import tolerance

PAIRS = [
    ("The man went to the store.", "He bought a gallon of milk."),
    ("The man went to the store.", "Penguins are flightless birds."),
]


@pytest.mark.parity
@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_equals_bert_for_next_sentence_prediction(first, second, tiny_dir):
    from transformers import AutoTokenizer, BertForNextSentencePrediction

    tokenizer = AutoTokenizer.from_pretrained(tiny_dir / "encoder")
    reference = BertForNextSentencePrediction.from_pretrained(tiny_dir / "encoder", dtype=torch.float32).eval()
    with torch.no_grad():
        probs = reference(**tokenizer(first, second, return_tensors="pt")).logits.softmax(-1)[0]
    result = next_sentence(first, second)
    assert result.is_next == pytest.approx(float(probs[0]), abs=tolerance("encoder").probability)
    assert result.is_next + result.not_next == pytest.approx(1.0, abs=1e-6)


def test_segments_mark_the_two_sentences():
    result = next_sentence(*PAIRS[0])
    first_sep = result.tokens.index("[SEP]")
    assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"
    assert set(result.segment_ids[: first_sep + 1]) == {0}
    assert set(result.segment_ids[first_sep + 1 :]) == {1}


@pytest.mark.parametrize(("first", "second"), [("", "B."), ("A.", "  "), ("a " * 300, "b " * 300)])
def test_bad_input_says_what_to_change(first, second):
    with pytest.raises(InputError, match="empty|at most 512"):
        next_sentence(first, second)
