"""Attention tab: one run of BERT or GPT-2, then any layer, head and view redrawn from the stored weights.

A session keeps a `Ref` (attention_store.py); the maps themselves are kept once for every session showing the same
text, so a class opening the teacher's 512-token link holds one copy, not forty."""

from __future__ import annotations

import csv
import json
import logging

import gradio as gr

from bg_demo import config, figures
from bg_demo.backend.attention import FOCUS_MAX_QUERIES, HEAD_STATS, VIEWS, AttentionResult, attention_view
from bg_demo.errors import InputError
from bg_demo.figures.style import OKABE_ITO
from bg_demo.look import Look
from bg_demo.ui import attention_store, common, downloads
from bg_demo.ui.links import Follows, Page
from bg_demo.ui.page import Task, failure, hide_error, show_error
from bg_demo.ui.strings import every_language, t
from bg_demo.ui.view import intro

ROLES = ("encoder", "decoder")
log = logging.getLogger(__name__)


def notice(result, look: Look) -> str:
    layers, heads = result.shape[:2] if hasattr(result, "shape") else result.weights.shape[:2]
    model = config.public_name(result.model_id)  # a local folder by its name, never its path on the server
    read = look.t("attention.read", model=model, n=len(result.tokens), layers=layers, heads=heads)
    if not result.truncated:
        return read
    return f"{read} {look.t('attention.truncated', total=result.n_tokens_total, shown=len(result.tokens))}"


def show(text: str, role: str, model: str | None = None, progress=None):
    # a model of the other role (an example may switch the role an instant before the picker follows) means the
    # role's default, which the picker then shows (see `ran`); any other id goes to the backend, which refuses one
    # it does not offer for the role, naming those it does
    leftover = {value for other in ROLES if other != role for _, value in common.model_choices(other)}
    model = None if not model or model in leftover else model
    return common.run(role, attention_store.shared().open, text, role, model_id=model, progress=progress)


def render(ref, look: Look):
    marks = [look.t("attention.special") if special else None for special in ref.special]
    return notice(ref, look), common.token_view(ref.tokens, marks), named(ref.summary())


MODEL_KEYS = ("model_id", "encoder_id", "decoder_id")  # where a result names the model that made it


def named(data):
    """A result's JSON with every model named as the page names it: a local folder by its name, never its path."""
    if isinstance(data, dict):
        return {key: config.public_name(value) if key in MODEL_KEYS and isinstance(value, str) else named(value)
                for key, value in data.items()}
    return [named(value) for value in data] if isinstance(data, list) else data


def fit_sliders(shown, layer: int, head: int, query: int):
    """The sliders' ranges for the model just run; a choice beyond them moves to the last layer, head or token."""
    ref = getattr(shown, "result", None)
    if ref is None:
        return gr.skip(), gr.skip(), gr.skip()
    n_layers, n_heads, n_tokens = ref.shape[:3]
    return (
        gr.Slider(maximum=n_layers - 1, value=min(int(layer), n_layers - 1)),
        gr.Slider(maximum=n_heads - 1, value=min(int(head), n_heads - 1)),
        gr.Slider(maximum=n_tokens - 1, value=min(int(query), n_tokens - 1)),
    )


def maps(ref):
    """The result a ref stands for: the shared copy, or the model run again if it was dropped for room (a result
    itself, as a caller of these functions may hand one, is its own)."""
    if isinstance(ref, AttentionResult):
        return ref
    return common.run(ref.role, attention_store.shared().result, ref)


def draw(ref, look: Look, view: str, layer: int, head: int, hide: bool, stat: str, query: int = 0, span: int = 1):
    return figures.attention_figure(maps(ref), look, view, layer, head, hide, stat, query, span)


def focus_controls(view: str):
    """The focus window's sliders, shown with its view only."""
    return gr.Slider(visible=view == "focus"), gr.Slider(visible=view == "focus")


def export(shown, lang: str, width, view: str, layer: int, head: int, hide: bool, stat: str, query: int = 0,
           span: int = 1):
    """The view on screen as files, or a message in the error box (no result yet, a disk that refused them)."""
    look = Look(lang, width)
    ref = getattr(shown, "result", None)
    try:
        if ref is None:
            raise InputError("attention.run_first")
        data = attention_view(maps(ref), view, layer, head, hide, stat, query, span)
        return write_files(data, f"attention-{ref.role}-{view}-layer{data.layer}"), hide_error()
    except OSError as exc:  # a full disk, an unwritable temporary folder: said beside the button, without its path
        log.warning("the attention export could not be written: %s", exc)
        error = InputError("error.export_failed", reason=exc.strerror or type(exc).__name__)
    except Exception as exc:
        error = failure(exc, "attention export")
    return gr.skip(), show_error(look.words(error))


def write_files(data, stem: str) -> list[str]:
    """The view as a long-form CSV and as JSON, in a fresh folder gradio may serve from (see `downloads`)."""
    folder = downloads.new_folder()
    with open(folder / f"{stem}.csv", "w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(data.rows())
    (folder / f"{stem}.json").write_text(json.dumps(data.to_dict(), ensure_ascii=False), encoding="utf-8")
    return [str(folder / f"{stem}.csv"), str(folder / f"{stem}.json")]


def models_of(role: str, model: str | None = None):
    """The picker lists the models of the role just chosen: the model picked with it (an example's, a link's) when
    it is one of them, else the role's default."""
    choices = common.model_choices(role)
    values = [value for _, value in choices]
    return gr.Dropdown(choices=choices, value=model if model in values else "")


def ran(shown):
    """The role and the model that made the result on screen, as the radio and the picker show them ("" for the
    role's default), so the page never names one model while showing another's attention."""
    result = getattr(shown, "result", None)
    if result is None:
        return gr.skip(), gr.skip()
    others = [value for _, value in common.model_choices(result.role)[1:]]
    model = result.model_id if result.model_id in others else ""
    return result.role, models_of(result.role, model)


def _label_models(dataset: gr.Dataset) -> None:
    """An examples table shows a model by its picker label, though the picker lists one role's models at a time."""
    every = [choice for role in ROLES for choice in common.model_choices(role)[1:]]
    props = dataset.component_props
    if len(props) > 2:  # the rows that pick a model (a Korean or Japanese one)
        props[2] = {"choices": [*props[2].get("choices", []), *every]}


TAB_ID = "attention"
PATH = "attention"  # its address: /attention
TITLE = "attention.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("attention.about")
    with gr.Row():
        text = gr.Textbox(
            label=t("attention.text"), lines=1, max_lines=4, scale=3
        )
        with gr.Column(scale=1, min_width=220):
            choices = [(t(f"attention.role.{role}"), role) for role in ROLES]
            role = gr.Radio(choices, value="encoder", label=t("attention.role"))
            # the role's models only: choosing the other role swaps them (`models_of`)
            model = common.model_picker("encoder", label=t("attention.model"))
            button = gr.Button(t("attention.run"), variant="primary")
    summary = gr.Markdown(render=False)
    tokens = gr.HighlightedText(  # a page of 512 tokens scrolls in its own box, so the map stays near the top
        label=t("attention.tokens"), color_map=dict.fromkeys(every_language("attention.special"), OKABE_ITO["sky"]),
        render=False, elem_classes=["bg-token-list"],
    )
    raw = gr.JSON(render=False)
    task = Task(reader, show, render, {"text": text, "role": role, "model": model}, [summary, tokens, raw],
                page_id=TAB_ID, api_name="attention")
    state = task.state  # the weights every redraw reads (a `Ref`: see attention_store)
    for dataset in task.examples("attention").tables:  # a row's model by its label, whichever role it is for
        _label_models(dataset)
    task.render([summary, tokens])
    # the controls beside the map on a laptop or projector, so a slider moves in sight of what it changes; on a
    # phone under it (the row's order reversed: assets/style.css), the sliders a thumb's reach below the map.
    # bg-redraws / bg-redrawn: the map shows it is being drawn from the moment a control moves (assets/view.js)
    with gr.Row(equal_height=False, elem_classes=["bg-attention-view"]):
        with gr.Column(scale=1, min_width=250, elem_classes=["bg-redraws"]):
            # the sliders first, the focus window's too: beside the top of the map on a 768-px screen, above
            # the eight views' list
            layer = gr.Slider(0, 11, value=0, step=1, label=t("attention.layer"))
            head = gr.Slider(0, 11, value=0, step=1, label=t("attention.head"))
            query = gr.Slider(0, 511, value=0, step=1, label=t("attention.query"), visible=False)
            span = gr.Slider(1, FOCUS_MAX_QUERIES, value=1, step=1, label=t("attention.span"), visible=False)
            view = gr.Radio([(t(f"attention.view.{v}"), v) for v in VIEWS], value="head", label=t("attention.view"))
            hide = gr.Checkbox(value=False, label=t("attention.hide_special"))
            stats = [(t(f"attention.stat.{s}"), s) for s in HEAD_STATS]
            stat = gr.Dropdown(stats, value="entropy", label=t("attention.stat"))
        with gr.Column(scale=3, min_width=300):
            plot = gr.Plot(label=t("attention.plot"), elem_classes=["bg-redrawn"])
    with gr.Row():
        export_button = gr.Button(t("attention.export"), variant="secondary", scale=1)
        files = gr.File(label=t("attention.files"), file_count="multiple", interactive=False, height=110, scale=3)
    with gr.Accordion(t("common.raw"), open=False):
        raw.render()

    controls = [view, layer, head, hide, stat, query, span]
    view_fields = {"view": view, "layer": layer, "head": head, "hide": hide, "stat": stat, "query": query,
                   "span": span}
    page = task.wire(button, text, fields=view_fields)
    page.follows = (Follows("model", "role", common.model_choices),)  # a link's role and model agree
    redraw, inputs, outputs = task.view(
        draw, [plot], controls, [view.input, layer.input, head.input, hide.input, stat.input, query.input,
                                 span.input], trigger_mode="always_last")
    state.change(fit_sliders, [state, layer, head, query], [layer, head, query], api_visibility="private",
                 show_progress="hidden").then(
        redraw, inputs, outputs, api_visibility="private"
    )
    view.change(focus_controls, view, [query, span], api_visibility="private", queue=False, show_progress="hidden")
    # any change of role (a click, an example, a link) swaps the picker's models; a result names what made it
    role.change(models_of, [role, model], model, api_visibility="private", queue=False, show_progress="hidden")
    state.change(ran, state, [role, model], api_visibility="private", queue=False, show_progress="hidden")
    export_button.click(export, [state, *reader.inputs, *controls], [files, task.error], api_visibility="private")
    return [page]
