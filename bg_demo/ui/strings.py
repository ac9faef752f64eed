"""Every user-facing string of the UI, in one place (English now; other languages add a table of the same keys)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent.parent / "assets"

EN = {
    "app.title": "BERT & GPT-2, side by side",
    "app.intro": (
        "An interactive guide to the two pillars of pre-trained transformers: **BERT** reads a whole "
        "sentence at once and fills in blanks; **GPT-2** reads left to right and writes the next word. "
        "Pick a tab, try an example, then type your own text."
    ),
    "app.loading": "Loading the {role} model ({model}); the first request takes a little longer…",
    "app.unexpected": "Something went wrong on the server while running this request. Try again, or try a shorter text.",
    "common.run": "Run",
    "common.raw": "Raw result (JSON, as the API returns it)",
    "common.examples": "Examples: click one to load and run it",
    "common.tokens": "Tokens the model sees",
    # fill-mask
    "fill_mask.tab": "Fill-mask",
    "fill_mask.about": (
        "BERT was pre-trained by hiding words and guessing them back from **both** sides of the gap. "
        "Write `[MASK]` wherever a word is missing (any number of times) and see its top guesses with "
        "their probabilities. Try changing a word *after* the mask: the guesses change, because BERT "
        "reads the right-hand context too."
    ),
    "fill_mask.text": "Sentence with one or more [MASK]",
    "fill_mask.top_k": "Guesses per mask (top-k)",
    "fill_mask.filled": "Sentence with the best guess for each mask",
    "fill_mask.plot": "Top guesses per mask",
    "fill_mask.run": "Fill the masks",
    # sentiment
    "classify.tab": "Sentiment",
    "classify.about": (
        "A BERT-style encoder fine-tuned on movie reviews (SST-2) turns the vector of the `[CLS]` token "
        "into one probability per label. Try a mixed review, or a negation (\"not bad at all\"), and see "
        "how sure the model is."
    ),
    "classify.text": "Text to classify",
    "classify.scores": "Probability of each label",
    "classify.run": "Classify",
    # entities
    "ner.tab": "Entities",
    "ner.about": (
        "A BERT model fine-tuned for named entities tags every WordPiece token with a BIO label "
        "(B- begins an entity, I- continues it, O is outside). The aggregation strategy decides how "
        "tokens become entities: **none** shows raw tokens (with `##` pieces), **simple** merges "
        "neighbours, **first / average / max** first make each word agree on one label, so an entity "
        "is always made of whole words."
    ),
    "ner.text": "Text",
    "ner.aggregation": "Aggregation strategy",
    "ner.entities": "Entities found",
    "ner.table": "Entities (label, text, score, character span)",
    "ner.token_tags": "Each token's own label, before aggregation",
    "ner.run": "Find entities",
    # question answering
    "qa.tab": "Question answering",
    "qa.about": (
        "An extractive QA model does not write an answer: it points at where the answer **starts** and "
        "**ends** in the context. Long contexts are read in overlapping windows. When the score for the "
        "`[CLS]` token beats every span, the model is saying \"the answer is not in this text\"."
    ),
    "qa.question": "Question",
    "qa.context": "Context (long texts are read in overlapping windows)",
    "qa.answer": "Answer",
    "qa.highlight": "The answer inside its context",
    "qa.alternatives": "Best spans, best first",
    "qa.run": "Answer",
    "qa.found": "**{answer}** (probability {score}; read in {windows} window{plural})",
    "qa.none": (
        "**No answer**: the model thinks this context does not answer the question (no-answer score "
        "{null:.2f} beats the best span, \"{best}\", at {best_logit:.2f})."
    ),
    "qa.none_no_span": "**No answer**: the model found no span in the context.",
    # next sentence
    "nsp.tab": "Next sentence",
    "nsp.about": (
        "BERT's second pre-training task: given sentence A and sentence B, did B really follow A in "
        "the book, or was it picked at random? The `[CLS]` vector feeds a small two-way classifier. "
        "Segment ids (0 for A, 1 for B) tell the model which sentence each token belongs to."
    ),
    "nsp.first": "Sentence A",
    "nsp.second": "Sentence B",
    "nsp.scores": "Does B follow A?",
    "nsp.is_next": "IsNext",
    "nsp.not_next": "NotNext",
    "nsp.segments": "Tokens coloured by segment (A = 0, B = 1)",
    "nsp.run": "Predict",
}


def t(key: str, **values) -> str:
    """The text for `key`, with `values` filled in."""
    text = EN[key]
    return text.format(**values) if values else text


@cache
def examples() -> dict:
    """The example inputs of every tab (assets/examples.json)."""
    return json.loads((ASSETS / "examples.json").read_text(encoding="utf-8"))
