"""Entities tab: named entities highlighted in the text, and how each aggregation strategy groups tokens."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend
from bg_demo.backend.entities import STRATEGIES
from bg_demo.figures.style import ENTITY_COLOURS
from bg_demo.look import Look
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.strings import rows, t, table
from bg_demo.ui.view import intro

COLOURS = {**ENTITY_COLOURS, **{f"{p}-{k}": c for k, c in ENTITY_COLOURS.items() for p in "BI"}}


def compute(text: str, aggregation: str, progress=None):
    return common.run("ner", backend.recognize_entities, text, aggregation, progress=progress)


def render(result, look: Look):
    spans = [{"entity": e.label, "start": e.start, "end": e.end} for e in result.entities]
    found = [[e.label, e.text, round(e.score, 4), e.start, e.end] for e in result.entities]
    tags = common.token_view([tag.token for tag in result.tags], [tag.label for tag in result.tags])
    # a phone: label, text, score (no offsets), the text wrapped in half the width
    table_ = rows("ner.table_headers", found, look, phone=(0, 1, 2), widths=["22%", "50%", "28%"])
    return {"text": result.text, "entities": spans}, table_, tags, result.to_dict()


def explain(text: str, aggregation: str, entity: int, layer=None, head=None):
    """Why one entity of the table (counted from 1, grouped by the tab's aggregation) got its tags."""
    return backend.explain_entity(text, entity, aggregation, layer, head, counted_from=1)


TAB_ID = "ner"
PATH = "entities"  # its address: /entities
TITLE = "ner.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("ner.about")
    with gr.Row():
        text = gr.Textbox(label=t("ner.text"), lines=1, max_lines=4, scale=3)
        aggregation = gr.Radio([(t(f"ner.aggregation.{s}"), s) for s in STRATEGIES], value="average",
                               label=t("ner.aggregation"), scale=2)
    button = gr.Button(t("ner.run"), variant="primary")
    highlighted = gr.HighlightedText(label=t("ner.entities"), color_map=COLOURS, render=False)
    found = table("ner.table_headers", label=t("ner.table"), interactive=False, render=False, wrap=True)
    tags = gr.HighlightedText(label=t("ner.token_tags"), color_map=COLOURS, render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, compute, render, {"text": text, "aggregation": aggregation},
                [highlighted, found, tags, raw], page_id=TAB_ID, api_name="ner",
                concurrency_limit=common.BATCHED)
    page = task.build(button, text, rows="ner")
    # another strategy regroups the same text at once
    task.on(aggregation.input, trigger_mode="always_last")
    def which() -> dict:
        # no minimum: the backend names the range, from 1 as the box counts, in the page's language
        return {"entity": gr.Number(1, label=t("why.entity"), min_width=120)}

    # no link: the Attention tab shows the encoder, not this model
    why.section(reader, explain, {"text": text, "aggregation": aggregation}, page_id=TAB_ID, api_name="explain_entity",
                link=None, choices=which)
    return [page]
