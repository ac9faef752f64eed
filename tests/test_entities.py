import pytest
import torch
from tokenizers.pre_tokenizers import BertPreTokenizer

from bg_demo import models
from bg_demo.backend import recognize_entities
from bg_demo.backend.entities import STRATEGIES
from bg_demo.errors import InputError
from bg_demo.tiny_models import CONLL_LABELS
from tests.tolerance import tolerance

TEXTS = [
    "Apple Inc. was founded by Steve Jobs in Cupertino, California.",
    "Angela Merkel met Emmanuel Macron in Berlin to talk about Zanzibar and Xylophones.",
    "Hugging Face is a company based in New York City.",
    "the quick brown fox",
]


@pytest.mark.parity
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("aggregation", STRATEGIES)
def test_equals_the_token_classification_pipeline(text, aggregation, pipeline_for):
    """The pipeline's entities, in order, up to the first that differs, which must lie where the float32 reference
    has a near tie (tests/tolerance.py): in a reduced dtype a tag may flip there, and the grouping after it."""
    tol = tolerance("ner")
    pipe = pipeline_for("token-classification", "ner")
    reference = pipe(text, aggregation_strategy=aggregation)
    result = recognize_entities(text, aggregation).to_dict()
    key = "entity" if aggregation == "none" else "entity_group"
    ours = [(e["label"], e["start"], e["end"], e["word"]) for e in result["entities"]]
    theirs = [(r[key], r["start"], r["end"], r["word"]) for r in reference]
    n = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    if ours != theirs:
        differ = ours[n:n + 1] + theirs[n:n + 1]
        start, end = min(e[1] for e in differ), max(e[2] for e in differ)
        assert _near_tie(_reference_tags(pipe, text), start, end, tol.tie), (n, ours[n:], theirs[n:])
    assert n >= min(len(theirs), 1)  # something agrees before a near tie
    assert [e["score"] for e in result["entities"][:n]] == pytest.approx(
        [float(r["score"]) for r in reference[:n]], abs=tol.probability)
    assert all(e["text"] == text[e["start"] : e["end"]] for e in result["entities"])


def _reference_tags(pipe, text):
    """The pipeline's model on `text`: each ordinary token's character span, word and tag probabilities, in float32."""
    encoding = pipe.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True, return_tensors="pt")
    spans, special = encoding.pop("offset_mapping")[0].tolist(), encoding.pop("special_tokens_mask")[0].tolist()
    words = encoding.word_ids(0)
    with torch.no_grad():
        probs = pipe.model(**encoding.to(pipe.device)).logits[0].float().softmax(-1).cpu()  # (T, tags)
    return [(span, word, p) for span, word, p, s in zip(spans, words, probs, special, strict=True) if not s]


def _near_tie(tags, start: int, end: int, tie: float) -> bool:
    """Whether a reduced dtype may tag text[start:end] otherwise: in a word it touches, a token's two best tags are a
    near tie, or the two best of its pieces' average (aggregation "average"), or its two most confident pieces, if
    they disagree (aggregation "max")."""
    for word in {word for (s, e), word, _ in tags if s < end and e > start}:
        pieces = torch.stack([p for _, w, p in tags if w == word]).log()  # (pieces, tags)
        best = pieces.topk(2, dim=-1).values
        average = pieces.exp().mean(0).log().topk(2).values
        confident, tag = pieces.max(-1)
        order = confident.argsort(descending=True)
        if ((best[:, 0] - best[:, 1]) <= tie).any() or average[0] - average[1] <= tie:
            return True
        if len(order) > 1 and tag[order[0]] != tag[order[1]] and confident[order[0]] - confident[order[1]] <= tie:
            return True
    return False


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
