"""Start here page: what the app is, a guided path through the tabs, BERT and GPT-2 in one table, a glossary."""

from __future__ import annotations

import os

import gradio as gr

from bg_demo import placement
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
    if placement.zero_gpu():  # after the steps (the first is on a phone's first screen), which cost no GPU time first
        sign_in()
    lesson.Maker().wire(reader, pages, paths)
    gr.Markdown(joined("start.intro", "start.table", sep="\n\n"))
    with gr.Accordion(t("start.glossary_title"), open=False):
        gr.Markdown(t("start.glossary"))
    return []


def sign_in() -> None:
    """On ZeroGPU: why a student signs in (ZeroGPU counts an anonymous visitor's GPU time per network address, so a
    class behind one school router shares one quota), and Gradio's button that does it where it can (`can_sign_in`)."""
    with gr.Column(elem_classes=["bg-sign-in"]):  # the button under the words: on a phone, too, both at full size
        gr.Markdown(t("gpu.sign_in", anonymous=placement.QUOTA_SECONDS["anonymous"],
                      signed_in=placement.QUOTA_SECONDS["free"]), elem_classes=["bg-about"])
        if can_sign_in():
            gr.LoginButton(size="md", elem_classes=["bg-sign-in-button"])


def can_sign_in(env=os.environ) -> bool:
    """Whether Gradio's sign-in button works here: on a Space (SYSTEM=spaces and SPACE_ID, what Gradio reads) whose
    README asks for OAuth (`hf_oauth: true`, which makes the Space set OAUTH_CLIENT_ID and the rest). Elsewhere Gradio
    mocks it with the machine's own Hugging Face token and refuses to launch without one."""
    return env.get("SYSTEM") == "spaces" and bool(env.get("SPACE_ID")) and bool(env.get("OAUTH_CLIENT_ID"))
