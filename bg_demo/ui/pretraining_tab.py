"""Pretraining lab tab: BERT's masked-LM corruption and NSP, its input embeddings, GPT-2's causal LM loss."""

from __future__ import annotations

import random

import gradio as gr

from bg_demo import backend, figures
from bg_demo.look import Look
from bg_demo.ui import common
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.strings import examples, rows, t, tab, table
from bg_demo.ui.view import intro


def corrupt(text, seed, model=None, progress=None):
    return common.run("encoder", backend.mlm_corruption, text, seed, model_id=model or None, progress=progress)


def corrupted(result, look: Look):
    targets = {target.position for target in result.targets}
    shown = [
        [i, original, shown, result.labels[i], "✓" if i in targets else ""]
        for i, (original, shown) in enumerate(zip(result.original, result.corrupted))
    ]
    targets_shown = [
        [tg.position, tg.original, tg.shown, look.t(f"pre.treatment.{tg.treatment}"),
         ", ".join(f"{w} {p:.0%}" for w, p in tg.predictions), round(tg.score, 4), round(tg.loss, 3)]
        for tg in result.targets
    ]
    n = len(result.targets)
    # a phone: each token as read, as seen, its label and whether it is a target; each target's guesses
    return (rows("pre.token_headers", shown, look, phone=(1, 2, 3, 4)),
            rows("pre.target_headers", targets_shown, look, phone=(1, 4, 5), widths=["25%", "50%", "25%"]),
            look.t("pre.loss", loss=result.loss, n=n, plural="" if n == 1 else "s"), result.to_dict())


def representation(first, second, model=None, progress=None):
    return common.run("encoder", backend.input_representation, first, second, model_id=model or None,
                      progress=progress)


def represented(result, look: Look):
    found = [
        [r.token, r.token_id, r.segment_id, r.position_id, *(round(v, 3) for v in
         (r.token_norm, r.segment_norm, r.position_norm, r.sum_norm))]
        for r in result.rows
    ]
    return rows("pre.embedding_headers", found, look), figures.embedding_norms(result, look), result.to_dict()


def causal(text, model=None, progress=None):
    return common.run("decoder", backend.causal_lm, text, model_id=model or None, progress=progress)


PHONE_CONTEXT = 16  # characters of the text read so far a phone's table shows: its end, where the target follows


def _end(context: str) -> str:
    return context if len(context) <= PHONE_CONTEXT else "…" + context[-(PHONE_CONTEXT - 1):]


def causal_shown(result, look: Look):
    steps = [[_end(s.context) if look.narrow else s.context, s.target, round(s.score, 4), round(s.loss, 3), s.rank]
             for s in result.steps]
    summary = look.t("pre.causal_loss", loss=result.loss, perplexity=result.perplexity)
    # a phone: the end of the text read so far, the target and its probability
    return rows("pre.causal_headers", steps, look, phone=(0, 1, 2)), figures.causal_loss_bars(result, look), summary, result.to_dict()


def random_second() -> str:
    return random.choice(examples()["pretraining"]["random_sentences"])


TAB_ID = "pretraining"
SUB_PAGES = ("mlm", "nsp", "embeddings", "causal")
PATH = "pretraining"  # its address: /pretraining
TITLE = "pre.tab"  # its name in the navigation
IDS = SUB_PAGES  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("pre.about")
    with gr.Row():  # one choice of each model for the whole lab
        encoder = common.model_picker("encoder")
        decoder = common.model_picker("decoder")
    with gr.Tabs(overflow_behavior="wrap") as tabs:
        with tab("pre.mlm", id="mlm"):
            mlm = _build_mlm(reader, encoder)
        with tab("pre.nsp", id="nsp"):
            nsp = _build_nsp(reader, encoder)
        with tab("pre.embeddings", id="embeddings"):
            embeddings = _build_embeddings(reader, encoder)
        with tab("pre.causal", id="causal"):
            causal_lm = _build_causal(reader, decoder)
    return [Page(page.id, page.fields, ((tabs, page.id),), page.runs) for page in (mlm, nsp, embeddings, causal_lm)]


def _build_mlm(reader, model) -> Page:
    gr.Markdown(t("pre.mlm.about"))
    with gr.Row():
        text = gr.Textbox(label=t("pre.text"), lines=1, max_lines=4, scale=4)
        # no minimum: the backend refuses a seed out of its range with a message beside the output
        seed = gr.Number(0, label=t("pre.seed"), scale=1)
    with gr.Row():
        button = gr.Button(t("pre.corrupt"), variant="primary")
        again = gr.Button(t("pre.reroll"), elem_classes=["bg-run"])
    tokens = table("pre.token_headers", label=t("pre.tokens"), interactive=False, render=False)
    guesses = table("pre.target_headers", label=t("pre.targets"), interactive=False, render=False, wrap=True)
    loss = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, corrupt, corrupted, {"text": text, "seed": seed, "model": model}, [tokens, guesses, loss, raw],
                page_id="mlm", api_name="mlm_corruption", concurrency_id="encoder")
    task.examples(("pretraining", "mlm"))
    task.error.render()
    common.render_outputs([loss, tokens, guesses, raw])  # the loss first: the headline above the tables it sums up
    page = task.wire(button, text)
    # the next seed, then the same run: the seed box shows which draw is on screen
    task.on(again.click(lambda value: int(value or 0) + 1, seed, seed, api_visibility="private", queue=False).then)
    return page


def _build_nsp(reader, model) -> Page:
    from bg_demo.ui.next_sentence_tab import compute, render  # the same page as the Next sentence tab

    gr.Markdown(t("pre.nsp.about"))
    with gr.Row():
        first = gr.Textbox(label=t("nsp.first"), value="The man went to the store.")
        second = gr.Textbox(label=t("nsp.second"), value="He bought a gallon of milk.")
    with gr.Row():
        button = gr.Button(t("nsp.run"), variant="primary")
        swap = gr.Button(t("pre.swap"), elem_classes=["bg-run"])
    scores = gr.Plot(label=t("nsp.scores"), render=False)
    segments = gr.HighlightedText(label=t("nsp.segments"), render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, compute, render, {"first": first, "second": second, "model": model}, [scores, segments, raw],
                page_id="nsp", concurrency_id="encoder")
    page = task.build(button, first, second)
    task.on(swap.click(random_second, None, second, api_visibility="private", queue=False).then)
    return page


def _build_embeddings(reader, model) -> Page:
    gr.Markdown(t("pre.embeddings.about"))
    with gr.Row():
        first = gr.Textbox(label=t("pre.first"))
        second = gr.Textbox(label=t("pre.second"))
    button = gr.Button(t("pre.show"), variant="primary")
    ids = table("pre.embedding_headers", label=t("pre.ids"), interactive=False, render=False)
    plot = gr.Plot(label=t("pre.norms"), render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, representation, represented, {"first": first, "second": second, "model": model},
                [ids, plot, raw], page_id="embeddings", api_name="input_representation", concurrency_id="encoder")
    task.examples(("pretraining", "embeddings"))
    task.error.render()
    common.render_outputs([plot, ids, raw])  # the sizes' picture first, in sight with the controls; the ids under it
    return task.wire(button, first, second)


def _build_causal(reader, model) -> Page:
    gr.Markdown(t("pre.causal.about"))
    text = gr.Textbox(label=t("pre.text"), lines=1, max_lines=6)
    button = gr.Button(t("pre.causal_run"), variant="primary")
    steps = table("pre.causal_headers", label=t("pre.causal_table"), interactive=False, render=False, wrap=True)
    plot = gr.Plot(label=t("pre.causal_plot"), render=False)
    summary = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, causal, causal_shown, {"text": text, "model": model}, [steps, plot, summary, raw],
                page_id="causal", api_name="causal_lm", concurrency_id="decoder")
    return task.build(button, text, rows=("pretraining", "causal"))
