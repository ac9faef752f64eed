"""Next-sentence tab: does sentence B follow sentence A? (BERT's NSP head)."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.figures.style import OKABE_ITO
from bg_demo.look import Look
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.strings import t
from bg_demo.ui.view import intro


def compute(first: str, second: str, model: str | None = None, progress=None):
    return common.run("encoder", backend.next_sentence, first, second, model_id=model or None, progress=progress)


def render(result, look: Look):
    scores = {look.t("nsp.is_next"): result.is_next, look.t("nsp.not_next"): result.not_next}
    segments = common.token_view(result.tokens, ["A" if s == 0 else "B" for s in result.segment_ids])
    return figures.label_bars(scores, look), segments, result.to_dict()


def explain(first: str, second: str, layer=None, head=None, model=None):
    return backend.explain_next_sentence(first, second, layer, head, model_id=model or None)


TAB_ID = "next_sentence"
PATH = "next-sentence"  # its address: /next-sentence
TITLE = "nsp.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("nsp.about")
    with gr.Row():
        first = gr.Textbox(label=t("nsp.first"), lines=1, max_lines=4)
        second = gr.Textbox(label=t("nsp.second"), lines=1, max_lines=4)
    with gr.Row():
        button = gr.Button(t("nsp.run"), variant="primary", scale=2)
        model = common.model_picker("encoder", scale=1)
    scores = gr.Plot(label=t("nsp.scores"), render=False)
    segments = gr.HighlightedText(
        label=t("nsp.segments"), color_map={"A": OKABE_ITO["sky"], "B": OKABE_ITO["orange"]}, render=False
    )
    raw = gr.JSON(render=False)
    task = Task(reader, compute, render, {"first": first, "second": second, "model": model},
                [scores, segments, raw], page_id=TAB_ID, api_name="next_sentence",
                concurrency_limit=common.BATCHED)
    page = task.build(button, first, second, rows="next_sentence")
    why.section(reader, explain, {"first": first, "second": second}, model=model, page_id=TAB_ID, api_name="explain_next_sentence",
                link=None)
    return [page]
