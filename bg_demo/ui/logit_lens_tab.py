"""Logit lens (on the Next token page): GPT-2's next-token guess after every layer."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.backend.logit_lens import MAX_LENS_TOKENS
from bg_demo.look import Look
from bg_demo.ui import common
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.strings import t, tab
from bg_demo.ui.view import intro


def compute(text, model=None, progress=None):
    return common.run("decoder", backend.logit_lens, text, model_id=model or None, progress=progress)


def render(result, look: Look):
    note = look.t("lens.truncated", n=MAX_LENS_TOKENS) if result.truncated else ""
    return figures.logit_lens_heatmap(result, look), note, result.to_dict()


PAGE_ID = "logit_lens"


def build(reader, model) -> Page:
    with tab("lens.sub", id=PAGE_ID):
        intro("lens.about")
        text = gr.Textbox(label=t("lens.text"), lines=1, max_lines=4)
        button = gr.Button(t("lens.run"), variant="primary")
        plot = gr.Plot(label=t("lens.plot"), render=False)
        note = gr.Markdown(render=False)
        raw = gr.JSON(render=False)
        task = Task(reader, compute, render, {"text": text, "model": model}, [plot, note, raw], page_id=PAGE_ID,
                    api_name="logit_lens", concurrency_id="decoder")
        return task.build(button, text, rows="logit_lens")
