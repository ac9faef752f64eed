"""Question-answering tab: the answer highlighted in its context, the runner-up spans, or "no answer"; and where
the answer looks: the attention from its first and last tokens in the window it came from."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.errors import InputError
from bg_demo.figures.style import OKABE_ITO
from bg_demo.look import Look
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.strings import every_language, examples, rows, t, table
from bg_demo.ui.view import intro


def summary(result, look: Look) -> str:
    if result.answer is not None:
        n = len(result.windows)
        score = f"{result.score:.1%}" if result.score >= 0.001 else "< 0.1%"
        return look.t("qa.found", answer=common.plain(result.answer), score=score, windows=n,
                      plural="" if n == 1 else "s")
    if not result.alternatives:
        return look.t("qa.none_no_span")
    best = result.alternatives[0]
    return look.t("qa.none", null=result.null_logit, best=common.plain(best.text), best_logit=best.logit)


def compute(question: str, context: str, progress=None):
    return common.run("qa", backend.answer, question, context, progress=progress)


def render(result, look: Look):
    spans = [] if result.answer is None else [{"entity": look.t("qa.answer"), "start": result.start, "end": result.end}]
    found = [[s.text, round(s.score, 4), s.start, s.end, s.window + 1] for s in result.alternatives]
    return (summary(result, look), {"text": result.context, "entities": spans}, rows("qa.table_headers", found, look),
            result.to_dict())


# --- where the answer looks: one model run per answer, kept in the session; every layer and head redrawn from it ---

def attention(raw, progress=None):
    """The attention rows of the answer on screen (`raw`: its JSON, as the page and the /qa API show it)."""
    if not raw:
        raise InputError("qa.attention.run_first")
    window = raw["alternatives"][0]["window"] if raw.get("answer") is not None and raw.get("alternatives") else None
    return common.run("qa", backend.answer_attention, raw["question"], raw["context"], raw.get("start"),
                      raw.get("end"), window, progress=progress)


def note(result, look: Look):
    """A line saying which window and tokens the rows come from."""
    return look.t("qa.attention.read", window=result.window + 1, windows=result.n_windows, n=len(result.tokens),
                  start=result.start, end=result.end)


def fit_sliders(shown, layer: int, head: int):
    """The sliders' ranges for the model that answered; a choice beyond them moves to the last layer or head."""
    result = getattr(shown, "result", None)
    if result is None:
        return gr.skip(), gr.skip()
    n_layers, n_heads = result.rows.shape[:2]
    return (gr.Slider(maximum=n_layers - 1, value=min(int(layer), n_layers - 1)),
            gr.Slider(maximum=n_heads - 1, value=min(int(head), n_heads - 1)))


def draw(result, look: Look, layer: int, head: int):
    """The figure for one layer and head, from the kept rows (no model runs)."""
    return figures.answer_attention_lines(result, look, layer, head)


def forget():
    """A new answer: the rows of the previous one are no longer what the page shows."""
    return None, "", None


def looks_section(reader, raw: gr.JSON) -> None:
    """A closed "Where the answer looks" panel: its one-line explanation, a button that reads the attention of the
    answer on screen (one model run), layer and head sliders, and the figure they redraw from the kept rows."""
    with gr.Accordion(t("qa.attention.title"), open=False):
        gr.Markdown(t("qa.attention.about"))
        button = gr.Button(t("qa.attention.run"), variant="secondary", elem_classes=["bg-run"])
        said = gr.Markdown(render=False)
        # a group of its own, as the "Why?" panel's: the answers' group runs many at once (`common.BATCHED`)
        task = Task(reader, attention, note, {"raw": raw}, [said], page_id=f"{TAB_ID}_attention")
        task.render([said])
        with gr.Row():
            layer = gr.Slider(0, 11, value=0, step=1, label=t("qa.attention.layer"))
            head = gr.Slider(0, 11, value=0, step=1, label=t("qa.attention.head"))
        plot = gr.Plot(label=t("qa.attention.plot"))
    task.on(button.click)
    redraw, inputs, outputs = task.view(draw, [plot], [layer, head], [layer.input, head.input],
                                        trigger_mode="always_last")
    task.state.change(fit_sliders, [task.state, layer, head], [layer, head], api_visibility="private",
                      show_progress="hidden").then(
        redraw, inputs, outputs, api_visibility="private")
    raw.change(forget, None, [task.state, said, plot], api_visibility="private", queue=False)


TAB_ID = "qa"
PATH = "qa"  # its address: /qa
TITLE = "qa.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def _rows(lang: str):
    """Questions with their context (the contexts are long, so each is written once in the examples)."""
    found = examples(lang)
    if "qa" not in found:
        return None
    return [[question, found["qa_contexts"][key]] for question, key in found["qa"]]


def build(reader) -> list[Page]:
    intro("qa.about")
    question = gr.Textbox(label=t("qa.question"))
    context = gr.Textbox(label=t("qa.context"), lines=6, max_lines=14)
    button = gr.Button(t("qa.run"), variant="primary")
    answer = gr.Markdown(label=t("qa.answer"), render=False)
    highlighted = gr.HighlightedText(
        label=t("qa.highlight"), color_map=dict.fromkeys(every_language("qa.answer"), OKABE_ITO["orange"]), render=False
    )
    found = table("qa.table_headers", label=t("qa.alternatives"), interactive=False, render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, compute, render, {"question": question, "context": context},
                [answer, highlighted, found, raw], page_id=TAB_ID, api_name="qa",
                concurrency_limit=common.BATCHED)
    page = task.build(button, question, rows=_rows, labels=lambda rows: [question for question, _ in rows])
    looks_section(reader, raw)
    why.section(reader, backend.explain_answer, {"question": question, "context": context}, page_id=TAB_ID,
                api_name="explain_answer", link=None)
    return [page]
