"""Sentiment tab: every label of the sentiment model with its probability."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend
from bg_demo.config import LIMITS
from bg_demo.ui import common
from bg_demo.ui.links import Page, share_row
from bg_demo.ui.strings import examples, t


def predict(text: str, progress=gr.Progress()):
    result = common.run("sentiment", backend.classify, text, progress=progress)
    return result.scores, common.token_view(result.tokens), result.to_dict()


TAB_ID = "classify"


def build() -> list[Page]:
    with gr.Tab(t("classify.tab"), id=TAB_ID):
        gr.Markdown(t("classify.about"))
        text = gr.Textbox(label=t("classify.text"), lines=3, max_length=LIMITS.max_chars)
        button = gr.Button(t("classify.run"), variant="primary")
        scores = gr.Label(label=t("classify.scores"), render=False)
        tokens = gr.HighlightedText(label=t("common.tokens"), show_legend=False, render=False)
        raw = gr.JSON(render=False)
        outputs = [scores, tokens, raw]
        common.examples([text], outputs, predict, examples()["classify"])
        common.render_outputs(outputs)
        button.click(predict, [text], outputs, api_name="classify")
        text.submit(predict, [text], outputs, api_visibility="private")
        fields = {"text": text}
        share_row(TAB_ID, fields)
    return [Page(TAB_ID, fields)]
