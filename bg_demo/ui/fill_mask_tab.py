"""Fill-mask tab: BERT's guesses for every [MASK], as bars, with the filled sentence and the tokens."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.config import LIMITS
from bg_demo.figures.style import OKABE_ITO
from bg_demo.look import Look
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.strings import t
from bg_demo.ui.view import intro


def compute(text: str, top_k: int, model: str | None = None, progress=None):
    return common.run("encoder", backend.fill_mask, text, top_k, model_id=model or None, progress=progress)


def render(result, look: Look):
    masks = set(result.mask_positions)
    labels = ["[MASK]" if i in masks else None for i in range(len(result.tokens))]
    return result.filled, figures.fill_mask_bars(result, look), common.token_view(result.tokens, labels), result.to_dict()


def explain(text: str, mask: int, guess: int, layer=None, head=None, model=None, top_k=5):
    """The explanation of one guess at one mask, both counted from 1 as the page shows them; the guess is one of
    the `top_k` on screen."""
    return backend.explain_fill_mask(text, mask, guess, layer, head, top_k=top_k, counted_from=1,
                                     model_id=model or None)


def _which() -> dict:
    # no minimum or maximum: Gradio would refuse a value past one in its own words before the backend names the
    # range (from 1, as the boxes count) in the page's language
    return {
        "mask": gr.Number(1, label=t("why.mask"), min_width=120),
        "guess": gr.Number(1, label=t("why.guess"), min_width=120),
    }


TAB_ID = "fill_mask"
PATH = "fill-mask"  # its address: /fill-mask
TITLE = "fill_mask.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("fill_mask.about")
    with gr.Row():
        with gr.Column(scale=3, min_width=160):
            text = gr.Textbox(label=t("fill_mask.text"), lines=1, max_lines=4)
        with gr.Column(scale=1, min_width=160):
            top_k = gr.Slider(1, LIMITS.max_top_k, value=5, step=1, label=t("fill_mask.top_k"))
            model = common.model_picker("encoder")
            button = gr.Button(t("fill_mask.run"), variant="primary")
    filled = gr.Textbox(label=t("fill_mask.filled"), interactive=False, render=False)
    plot = gr.Plot(label=t("fill_mask.plot"), render=False)
    tokens = gr.HighlightedText(
        label=t("common.tokens"), color_map={"[MASK]": OKABE_ITO["orange"]}, show_inline_category=False, render=False
    )
    raw = gr.JSON(render=False)
    task = Task(reader, compute, render, {"text": text, "top_k": top_k, "model": model},
                [filled, plot, tokens, raw], page_id=TAB_ID, api_name="fill_mask",
                concurrency_limit=common.BATCHED)
    page = task.build(button, text, rows="fill_mask")
    why.section(reader, explain, {"text": text}, model=model, page_id=TAB_ID, api_name="explain_fill_mask", choices=_which,
                shown={"top_k": top_k})
    return [page]
