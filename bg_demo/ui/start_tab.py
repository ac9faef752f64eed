"""Start here tab: what the app is, a guided path through the tabs, BERT and GPT-2 in one table, a glossary."""

from __future__ import annotations

import gradio as gr

from bg_demo.ui.strings import examples, joined, t

TAB_ID = "start"


def build() -> list[tuple]:
    """Lay out the tab; returns its (button, page id, values) steps for `Links.wire`."""
    steps = []
    with gr.Tab(t("start.tab"), id=TAB_ID):
        # the guided path first, so its first step is on the first screen, even a phone's; the comparison after it
        gr.Markdown(t("app.intro"), elem_classes=["bg-about", "bg-about-start"])
        gr.Markdown(t("start.path"))
        for number, step in enumerate(examples()["guided_path"], start=1):
            button = gr.Button(t(f"start.step.{number}"), variant="secondary", size="md", elem_classes=["bg-step"])
            steps.append((button, step["page"], step["values"]))
        gr.Markdown(joined("start.intro", "start.table", sep="\n\n"))
        with gr.Accordion(t("start.glossary_title"), open=False):
            gr.Markdown(t("start.glossary"))
    return steps
