"""Attention tab: one run of BERT or GPT-2, then any layer, head and view redrawn from the stored weights."""

from __future__ import annotations

import csv
import json
import logging

import gradio as gr

from bg_demo import backend, figures
from bg_demo.backend.attention import ATTENTION_MAX_TOKENS, HEAD_STATS, VIEWS, attention_view
from bg_demo.figures.style import OKABE_ITO
from bg_demo.ui import common, downloads
from bg_demo.ui.links import Page
from bg_demo.ui.strings import every_language, t
from bg_demo.ui.view import intro

ROLES = ("encoder", "decoder")
log = logging.getLogger(__name__)


def notice(result) -> str:
    layers, heads = result.weights.shape[:2]
    read = t("attention.read", model=result.model_id, n=len(result.tokens), layers=layers, heads=heads)
    if not result.truncated:
        return read
    return f"{read} {t('attention.truncated', total=result.n_tokens_total, shown=len(result.tokens))}"


def show(text: str, role: str, model: str | None = None, progress=gr.Progress()):
    # a model of the other role (left in the picker by an example that switched the role) means the default; any
    # other id goes to the backend, which refuses one it does not offer for the role, naming those it does
    leftover = {value for other in ROLES if other != role for _, value in common.model_choices(other)}
    model = None if not model or model in leftover else model
    result = common.run(role, backend.attention, text, role, model_id=model, compact=True, progress=progress)
    marks = [t("attention.special") if special else None for special in result.special]
    return result, notice(result), common.token_view(result.tokens, marks), result.summary()


def fit_sliders(result, layer: int, head: int):
    """The sliders' ranges for the model just run; a choice beyond them moves to the last layer or head."""
    n_layers, n_heads = result.weights.shape[:2]
    return (
        gr.Slider(maximum=n_layers - 1, value=min(int(layer), n_layers - 1)),
        gr.Slider(maximum=n_heads - 1, value=min(int(head), n_heads - 1)),
    )


def draw(result, view: str, layer: int, head: int, hide: bool, stat: str):
    if result is None:
        return None
    return common.run(result.role, figures.attention_figure, result, view, layer, head, hide, stat)


def export(result, view: str, layer: int, head: int, hide: bool, stat: str):
    if result is None:
        raise gr.Error(t("attention.run_first"), print_exception=False)
    data = common.run(result.role, attention_view, result, view, layer, head, hide, stat)
    try:
        return write_files(data, f"attention-{result.role}-{view}-layer{data.layer}")
    except OSError as exc:  # a full disk, an unwritable temporary folder: said beside the button, without its path
        log.warning("the attention export could not be written: %s", exc)
        reason = exc.strerror or type(exc).__name__
        raise gr.Error(t("error.export_failed", reason=reason), print_exception=False) from None


def write_files(data, stem: str) -> list[str]:
    """The view as a long-form CSV and as JSON, in a fresh folder gradio may serve from (see `downloads`)."""
    folder = downloads.new_folder()
    with open(folder / f"{stem}.csv", "w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(data.rows())
    (folder / f"{stem}.json").write_text(json.dumps(data.to_dict(), ensure_ascii=False), encoding="utf-8")
    return [str(folder / f"{stem}.csv"), str(folder / f"{stem}.json")]


def _models_of(role: str):
    """The picker lists the models of the role just chosen, its default picked."""
    choices = common.model_choices(role)
    return gr.Dropdown(choices=choices, value="")


TAB_ID = "attention"


def build() -> list[Page]:
    with gr.Tab(t("attention.tab"), id=TAB_ID):
        intro("attention.about")
        with gr.Row():
            text = gr.Textbox(
                label=t("attention.text", n=ATTENTION_MAX_TOKENS), lines=1, max_lines=4, scale=3
            )
            with gr.Column(scale=1, min_width=220):
                choices = [(t(f"attention.role.{role}"), role) for role in ROLES]
                role = gr.Radio(choices, value="encoder", label=t("attention.role"))
                # every model of both roles, so a link may pick either; the role's choice narrows the list
                model = common.model_picker("encoder", also=common.model_choices("decoder")[1:],
                                            label=t("attention.model"))
                button = gr.Button(t("attention.run"), variant="primary")
        state = gr.State(None, time_to_live=common.STATE_SECONDS)  # the weights every redraw reads
        summary = gr.Markdown(render=False)
        tokens = gr.HighlightedText(
            label=t("attention.tokens"), color_map=dict.fromkeys(every_language("attention.special"), OKABE_ITO["sky"]), render=False
        )
        raw = gr.JSON(render=False)
        task = common.Task(show, {"text": text, "role": role, "model": model}, [state, summary, tokens, raw], page_id=TAB_ID,
                           api_name="attention")
        task.examples("attention")
        task.render([summary, tokens])
        # the controls beside the map on a laptop or projector, so a slider moves in sight of what it changes
        with gr.Row(equal_height=False):
            with gr.Column(scale=1, min_width=250):
                view = gr.Radio([(t(f"attention.view.{v}"), v) for v in VIEWS], value="head", label=t("attention.view"))
                layer = gr.Slider(0, 11, value=0, step=1, label=t("attention.layer"))
                head = gr.Slider(0, 11, value=0, step=1, label=t("attention.head"))
                hide = gr.Checkbox(value=False, label=t("attention.hide_special"))
                stats = [(t(f"attention.stat.{s}"), s) for s in HEAD_STATS]
                stat = gr.Dropdown(stats, value="entropy", label=t("attention.stat"))
            with gr.Column(scale=3, min_width=300):
                plot = gr.Plot(label=t("attention.plot"))
        with gr.Row():
            export_button = gr.Button(t("attention.export"), variant="secondary", scale=1)
            files = gr.File(label=t("attention.files"), file_count="multiple", interactive=False, height=110, scale=3)
        with gr.Accordion(t("common.raw"), open=False):
            raw.render()

        controls = [state, view, layer, head, hide, stat]
        view_fields = {"view": view, "layer": layer, "head": head, "hide": hide, "stat": stat}
        page = task.wire(button, text, fields=view_fields)
        redraw = common.shown_inline(draw, 1)  # its errors (and the export's) go to the page's error box too
        state.change(fit_sliders, [state, layer, head], [layer, head], api_visibility="private").then(
            redraw, controls, [plot, task.error], api_visibility="private"
        )
        gr.on(
            [view.input, layer.input, head.input, hide.input, stat.input],
            redraw,
            controls,
            [plot, task.error],
            api_visibility="private",
            trigger_mode="always_last",
        )
        role.input(_models_of, role, model, api_visibility="private", queue=False)
        export_button.click(common.shown_inline(export, 1), controls, [files, task.error], api_visibility="private")
    return [page]
