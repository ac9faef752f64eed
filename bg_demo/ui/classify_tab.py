"""Sentiment tab: every label of the sentiment model with its probability."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.look import Look
from bg_demo.text import tables
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.strings import t
from bg_demo.ui.view import intro


def compute(text: str, progress=None):
    return common.run("sentiment", backend.classify, text, progress=progress)


def render(result, look: Look):
    scores = {label_words(label, look): score for label, score in result.scores.items()}
    return figures.label_bars(scores, look), common.token_view(result.tokens), result.to_dict()


def label_words(label: str, look: Look) -> str:
    """A model's label as the page shows it: with its meaning in the page's language where the texts know the
    label (the SST-2 model's), else as the model names it."""
    key = f"classify.label.{label}"
    return look.t(key) if key in tables()["en"] else label


def explain(text: str, layer=None, head=None):
    """Why the most probable label."""
    return backend.explain_classify(text, None, layer, head)


TAB_ID = "classify"
PATH = "sentiment"  # its address: /sentiment
TITLE = "classify.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("classify.about")
    text = gr.Textbox(label=t("classify.text"), lines=1, max_lines=6)
    button = gr.Button(t("classify.run"), variant="primary")
    scores = gr.Plot(label=t("classify.scores"), render=False)
    tokens = gr.HighlightedText(label=t("common.tokens"), show_legend=False, render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, compute, render, {"text": text}, [scores, tokens, raw], page_id=TAB_ID, api_name="classify",
                concurrency_limit=common.BATCHED)
    page = task.build(button, text, rows="classify")
    # the Attention tab shows the encoder, not this classifier: no link there
    why.section(reader, explain, {"text": text}, page_id=TAB_ID, api_name="explain_classify",
                link=None)
    return [page]
