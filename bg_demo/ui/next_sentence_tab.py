"""Next-sentence tab: does sentence B follow sentence A? (BERT's NSP head)."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend
from bg_demo.config import LIMITS
from bg_demo.figures.style import OKABE_ITO
from bg_demo.ui import common
from bg_demo.ui.links import Page, share_row
from bg_demo.ui.strings import examples, t


def predict(first: str, second: str, progress=gr.Progress()):
    result = common.run("encoder", backend.next_sentence, first, second, progress=progress)
    scores = {t("nsp.is_next"): result.is_next, t("nsp.not_next"): result.not_next}
    segments = common.token_view(result.tokens, ["A" if s == 0 else "B" for s in result.segment_ids])
    return scores, segments, result.to_dict()


TAB_ID = "next_sentence"


def build() -> list[Page]:
    with gr.Tab(t("nsp.tab"), id=TAB_ID):
        gr.Markdown(t("nsp.about"))
        with gr.Row():
            first = gr.Textbox(label=t("nsp.first"), lines=2, max_length=LIMITS.max_chars)
            second = gr.Textbox(label=t("nsp.second"), lines=2, max_length=LIMITS.max_chars)
        button = gr.Button(t("nsp.run"), variant="primary")
        scores = gr.Label(label=t("nsp.scores"), render=False)
        segments = gr.HighlightedText(
            label=t("nsp.segments"), color_map={"A": OKABE_ITO["sky"], "B": OKABE_ITO["orange"]}, render=False
        )
        raw = gr.JSON(render=False)
        outputs = [scores, segments, raw]
        common.examples([first, second], outputs, predict, examples()["next_sentence"])
        common.render_outputs(outputs)
        button.click(predict, [first, second], outputs, api_name="next_sentence")
        fields = {"first": first, "second": second}
        share_row(TAB_ID, fields)
    return [Page(TAB_ID, fields)]
