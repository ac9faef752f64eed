import pytest
from tokenizers.pre_tokenizers import BertPreTokenizer

from bg_demo import models
from bg_demo.backend import recognize_entities
from bg_demo.backend.entities import STRATEGIES
from bg_demo.errors import InputError
from bg_demo.testing import CONLL_LABELS

TEXTS = [
    "Apple Inc. was founded by Steve Jobs in Cupertino, California.",
    "Angela Merkel met Emmanuel Macron in Berlin to talk about Zanzibar and Xylophones.",
    "Hugging Face is a company based in New York City.",
    "the quick brown fox",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("aggregation", STRATEGIES)
def test_equals_the_token_classification_pipeline(text, aggregation, pipeline_for):
    reference = pipeline_for("token-classification", "ner")(text, aggregation_strategy=aggregation)
    result = recognize_entities(text, aggregation).to_dict()
    key = "entity" if aggregation == "none" else "entity_group"
    assert [e["label"] for e in result["entities"]] == [r[key] for r in reference]
    assert [(e["start"], e["end"]) for e in result["entities"]] == [(r["start"], r["end"]) for r in reference]
    assert [e["word"] for e in result["entities"]] == [r["word"] for r in reference]
    assert [e["score"] for e in result["entities"]] == pytest.approx([float(r["score"]) for r in reference], abs=1e-5)
    assert all(e["text"] == text[e["start"] : e["end"]] for e in result["entities"])


@pytest.mark.parametrize("aggregation", ["first", "average", "max"])
def test_word_strategies_give_whole_words(aggregation):
    text = TEXTS[1]  # rare words split into ## pieces
    result = recognize_entities(text, aggregation)
    assert any(tag.token.startswith("##") for tag in result.tags), "the example must contain subword pieces"
    words = BertPreTokenizer().pre_tokenize_str(text)  # the words WordPiece splits into pieces
    starts, ends = {s for _, (s, _) in words}, {e for _, (_, e) in words}
    assert result.entities
    for entity in result.entities:
        assert "##" not in entity.word
        assert entity.start in starts and entity.end in ends, entity


def test_tokens_keep_every_tag_and_labels_are_conll():
    result = recognize_entities(TEXTS[0], "none")
    assert all(tag.label in CONLL_LABELS for tag in result.tags)
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(models.get("ner").location)
    assert [tag.token for tag in result.tags] == tokenizer.tokenize(TEXTS[0])  # every token, in order
    assert {e.label for e in result.entities} <= set(CONLL_LABELS) - {"O"}


def test_offsets_index_the_callers_text_even_with_surrounding_whitespace():
    text = "\n  Apple Inc. was founded by Steve Jobs.  "
    result = recognize_entities(text, "none")
    assert result.text == text
    assert all(tag.token.lstrip("#") == text[tag.start : tag.end] for tag in result.tags)


@pytest.mark.parametrize(
    ("text", "aggregation", "message"),
    [("", "simple", "empty"), ("Paris", "biggest", "Pick one of: none, simple"), ("a " * 600, "simple", "at most 512")],
)
def test_bad_input_says_what_to_change(text, aggregation, message):
    with pytest.raises(InputError, match=message):
        recognize_entities(text, aggregation)
