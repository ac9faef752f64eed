"""Start here tab: what the app is, a guided path through the tabs, BERT and GPT-2 in one table, a glossary."""

from __future__ import annotations

import gradio as gr

from bg_demo.ui import lesson
from bg_demo.ui.strings import examples, joined, t

TAB_ID = "start"


def build() -> tuple[list[tuple], lesson.Maker]:
    """Lay out the tab; returns its (button, js) steps for `Links.wire` (each opens the guided path at its step)
    and the maker of a teacher's own lesson."""
    steps = []
    with gr.Tab(t("start.tab"), id=TAB_ID):
        # the guided path first, so its first step is on the first screen, even a phone's; the comparison after it
        gr.Markdown(t("app.intro"), elem_classes=["bg-about", "bg-about-start"])
        gr.Markdown(t("start.path"))
        for number in range(1, len(examples()["guided_path"]) + 1):
            button = gr.Button(t(f"start.step.{number}"), variant="secondary", size="md", elem_classes=["bg-step"])
            steps.append((button, lesson.step_js(number)))
        maker = lesson.Maker()
        gr.Markdown(joined("start.intro", "start.table", sep="\n\n"))
        with gr.Accordion(t("start.glossary_title"), open=False):
            gr.Markdown(t("start.glossary"))
    return steps, maker
