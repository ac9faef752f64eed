"""Start here page: what the app is, a guided path through the tabs, BERT and GPT-2 in one table, a glossary."""

from __future__ import annotations

import gradio as gr

from bg_demo.ui import lesson
from bg_demo.ui.strings import examples, joined, t

TAB_ID = "start"
PATH = ""  # the app's own address: /
TITLE = "start.tab"  # its name in the navigation
IDS = ()  # no link opens a page here by `?tab=`: its steps and lessons open the others


def build(reader, pages: dict, paths: dict) -> list:
    """Lay out the page: each step of the guided path a link to its page, opened at that step (the page runs it as
    it runs a shared link), and the maker of a teacher's own lesson (`pages`: every page of the app by id, filled in
    once all are built; `paths`: page id -> its page's address). No page of its own for a link to open."""
    # the guided path first, so its first step is on the first screen, even a phone's; the comparison after it
    gr.Markdown(t("app.intro"), elem_classes=["bg-about", "bg-about-start"])
    gr.Markdown(t("start.path"))
    for number in range(1, len(examples()["guided_path"]) + 1):
        gr.Button(t(f"start.step.{number}"), link=lesson.step_link(number, paths), variant="secondary", size="md",
                  elem_classes=["bg-step"])
    lesson.Maker().wire(reader, pages, paths)
    gr.Markdown(joined("start.intro", "start.table", sep="\n\n"))
    with gr.Accordion(t("start.glossary_title"), open=False):
        gr.Markdown(t("start.glossary"))
    return []
