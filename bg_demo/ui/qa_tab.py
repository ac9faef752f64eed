"""Question-answering tab: the answer highlighted in its context, the runner-up spans, or "no answer"."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend
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
        why.section(backend.explain_answer, {"question": question, "context": context}, page_id=TAB_ID,
                    api_name="explain_answer", link=None)
    return [page]
