"""Start here tab: BERT and GPT-2 in one table, a guided path through the tabs, and a glossary."""

from __future__ import annotations

import gradio as gr

from bg_demo.ui.strings import examples, t

TAB_ID = "start"


def build() -> list[tuple]:
    """Lay out the tab; returns its (button, page id, values) steps for `Links.wire`."""
    steps = []
    with gr.Tab(t("start.tab"), id=TAB_ID):
        gr.Markdown(t("start.intro"))
        gr.Markdown(t("start.table"))
        gr.Markdown(t("start.path"))
        for number, step in enumerate(examples()["guided_path"], start=1):
            button = gr.Button(t(f"start.step.{number}"), variant="secondary", size="md", elem_classes=["bg-step"])
            steps.append((button, step["page"], step["values"]))
        with gr.Accordion(t("start.glossary_title"), open=False):
            gr.Markdown(t("start.glossary"))
    return steps
