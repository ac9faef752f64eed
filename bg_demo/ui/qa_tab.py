"""Question-answering tab: the answer highlighted in its context, the runner-up spans, or "no answer"; and where
the answer looks: the attention from its first and last tokens in the window it came from."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.figures.style import OKABE_ITO
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.strings import every_language, examples, rows, t, table
from bg_demo.ui.view import intro


def summary(result) -> str:
    if result.answer is not None:
        n = len(result.windows)
        score = f"{result.score:.1%}" if result.score >= 0.001 else "< 0.1%"
        return t("qa.found", answer=common.plain(result.answer), score=score, windows=n, plural="" if n == 1 else "s")
    if not result.alternatives:
        return t("qa.none_no_span")
    best = result.alternatives[0]
    return t("qa.none", null=result.null_logit, best=common.plain(best.text), best_logit=best.logit)


def predict(question: str, context: str, progress=gr.Progress()):
    result = common.run("qa", backend.answer, question, context, progress=progress)
    spans = [] if result.answer is None else [{"entity": t("qa.answer"), "start": result.start, "end": result.end}]
    found = [[s.text, round(s.score, 4), s.start, s.end, s.window + 1] for s in result.alternatives]
    return summary(result), {"text": result.context, "entities": spans}, rows("qa.table_headers", found), result.to_dict()


# --- where the answer looks: one model run per answer, kept in the session; every layer and head redrawn from it ---


def look(raw, progress=gr.Progress()):
    """The attention rows of the answer on screen (`raw`: its JSON, as the page and the /qa API show it), and a
    line saying which window and tokens they come from."""
    if not raw:
        raise gr.Error(t("qa.attention.run_first"), print_exception=False)
    window = raw["alternatives"][0]["window"] if raw.get("answer") is not None and raw.get("alternatives") else None
    result = common.run("qa", backend.answer_attention, raw["question"], raw["context"], raw.get("start"),
                        raw.get("end"), window, progress=progress)
    note = t("qa.attention.read", window=result.window + 1, windows=result.n_windows, n=len(result.tokens),
             start=result.start, end=result.end)
    return result, note


def fit_sliders(result, layer: int, head: int):
    """The sliders' ranges for the model that answered; a choice beyond them moves to the last layer or head."""
    if result is None:
        return gr.skip(), gr.skip()
    n_layers, n_heads = result.rows.shape[:2]
    return (gr.Slider(maximum=n_layers - 1, value=min(int(layer), n_layers - 1)),
            gr.Slider(maximum=n_heads - 1, value=min(int(head), n_heads - 1)))


def draw(result, layer: int, head: int):
    """The figure for one layer and head, from the kept rows (no model runs)."""
    if result is None:
        return None
    return common.run("qa", figures.answer_attention_lines, result, layer, head)


def forget():
    """A new answer: the rows of the previous one are no longer what the page shows."""
    return None, "", None


def looks_section(raw: gr.JSON, error: gr.Markdown, options: dict) -> None:
    """A closed "Where the answer looks" panel: its one-line explanation, a button that reads the attention of the
    answer on screen (one model run), layer and head sliders, and the figure they redraw from the kept rows. Its
    errors go to the page's error box."""
    state = gr.State(None, time_to_live=common.STATE_SECONDS)  # the rows every redraw reads
    with gr.Accordion(t("qa.attention.title"), open=False):
        gr.Markdown(t("qa.attention.about"))
        button = gr.Button(t("qa.attention.run"), variant="secondary")
        note = gr.Markdown()
        with gr.Row():
            layer = gr.Slider(0, 11, value=0, step=1, label=t("qa.attention.layer"))
            head = gr.Slider(0, 11, value=0, step=1, label=t("qa.attention.head"))
        plot = gr.Plot(label=t("qa.attention.plot"))
    button.click(common.shown_inline(look, 2), raw, [state, note, error], api_visibility="private", **options)
    redraw = common.shown_inline(draw, 1)
    state.change(fit_sliders, [state, layer, head], [layer, head], api_visibility="private").then(
        redraw, [state, layer, head], [plot, error], api_visibility="private"
    )
    gr.on([layer.input, head.input], redraw, [state, layer, head], [plot, error], api_visibility="private",
          trigger_mode="always_last")
    raw.change(forget, None, [state, note, plot], api_visibility="private", queue=False)


TAB_ID = "qa"


def _rows(lang: str):
    """Questions with their context (the contexts are long, so each is written once in the examples)."""
    found = examples(lang)
    if "qa" not in found:
        return None
    return [[question, found["qa_contexts"][key]] for question, key in found["qa"]]


def build() -> list[Page]:
    with gr.Tab(t("qa.tab"), id=TAB_ID):
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
        task = common.Task(predict, {"question": question, "context": context}, [answer, highlighted, found, raw],
                           page_id=TAB_ID, api_name="qa")
        page = task.build(button, question, rows=_rows, labels=lambda rows: [question for question, _ in rows])
        looks_section(raw, task.error, task.options)
        why.section(backend.explain_answer, {"question": question, "context": context}, page_id=TAB_ID,
                    api_name="explain_answer", link=None)
    return [page]
