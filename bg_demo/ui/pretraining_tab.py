"""Pretraining lab tab: BERT's masked-LM corruption and NSP, its input embeddings, GPT-2's causal LM loss."""

from __future__ import annotations

import random

import gradio as gr

from bg_demo import backend, figures
from bg_demo.config import LIMITS
from bg_demo.ui import common
from bg_demo.ui.links import Page, share_row
from bg_demo.ui.strings import examples, t


def _headers(key: str) -> list[str]:
    return t(key).split("|")


def corrupt(text, seed, progress=gr.Progress()):
    result = common.run("encoder", backend.mlm_corruption, text, seed, progress=progress)
    targets = {target.position for target in result.targets}
    tokens = [
        [i, original, shown, result.labels[i], "✓" if i in targets else ""]
        for i, (original, shown) in enumerate(zip(result.original, result.corrupted))
    ]
    guesses = [
        [tg.position, tg.original, tg.shown, tg.treatment, ", ".join(f"{w} {p:.0%}" for w, p in tg.predictions),
         round(tg.probability, 4), round(tg.loss, 3)]
        for tg in result.targets
    ]
    n = len(result.targets)
    return tokens, guesses, t("pre.loss", loss=result.loss, n=n, plural="" if n == 1 else "s"), result.to_dict()


def reroll(text, seed):
    return int(seed or 0) + 1, *corrupt(text, int(seed or 0) + 1, progress=None)


def representation(first, second, progress=gr.Progress()):
    result = common.run("encoder", backend.input_representation, first, second, progress=progress)
    rows = [
        [r.token, r.token_id, r.segment_id, r.position_id, *(round(v, 3) for v in
         (r.token_norm, r.segment_norm, r.position_norm, r.sum_norm))]
        for r in result.rows
    ]
    return rows, figures.embedding_norms(result), result.to_dict()


def causal(text, progress=gr.Progress()):
    result = common.run("decoder", backend.causal_lm, text, progress=progress)
    rows = [[s.context, s.target, round(s.probability, 4), round(s.loss, 3), s.rank] for s in result.steps]
    summary = t("pre.causal_loss", loss=result.loss, perplexity=result.perplexity)
    return rows, figures.causal_loss_bars(result), summary, result.to_dict()


def random_second() -> str:
    return random.choice(examples()["pretraining"]["random_sentences"])


TAB_ID = "pretraining"
SUB_PAGES = ("mlm", "nsp", "embeddings", "causal")


def build() -> list[Page]:
    rows = examples()["pretraining"]
    with gr.Tab(t("pre.tab"), id=TAB_ID):
        gr.Markdown(t("pre.about"))
        with gr.Tabs() as tabs:
            with gr.Tab(t("pre.mlm"), id="mlm"):
                mlm = _build_mlm(rows["mlm"])
            with gr.Tab(t("pre.nsp"), id="nsp"):
                nsp = _build_nsp()
            with gr.Tab(t("pre.embeddings"), id="embeddings"):
                embeddings = _build_embeddings(rows["embeddings"])
            with gr.Tab(t("pre.causal"), id="causal"):
                causal_lm = _build_causal(rows["causal"])
    pages = zip(SUB_PAGES, (mlm, nsp, embeddings, causal_lm))
    return [Page(page_id, fields, ((tabs, page_id),)) for page_id, fields in pages]


def _build_mlm(rows) -> dict:
    gr.Markdown(t("pre.mlm.about"))
    with gr.Row():
        text = gr.Textbox(label=t("pre.text"), lines=2, max_length=LIMITS.max_chars, scale=4)
        seed = gr.Number(0, precision=0, minimum=0, label=t("pre.seed"), scale=1)
    with gr.Row():
        button = gr.Button(t("pre.corrupt"), variant="primary")
        again = gr.Button(t("pre.reroll"))
    tokens = gr.Dataframe(headers=_headers("pre.token_headers"), label=t("pre.tokens"), interactive=False, render=False)
    guesses = gr.Dataframe(headers=_headers("pre.target_headers"), label=t("pre.targets"), interactive=False, render=False)
    loss = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    outputs = [tokens, guesses, loss, raw]
    button.click(corrupt, [text, seed], outputs, api_name="mlm_corruption", concurrency_id="encoder")
    again.click(reroll, [text, seed], [seed, *outputs], api_visibility="private", concurrency_id="encoder")
    common.examples([text, seed], outputs, corrupt, rows)
    common.render_outputs(outputs)
    return _shared("mlm", {"text": text, "seed": seed})


def _build_nsp() -> dict:
    from bg_demo.ui.next_sentence_tab import predict  # the same handler as the Next sentence tab

    gr.Markdown(t("pre.nsp.about"))
    with gr.Row():
        first = gr.Textbox(label=t("nsp.first"), value="The man went to the store.", max_length=LIMITS.max_chars)
        second = gr.Textbox(label=t("nsp.second"), value="He bought a gallon of milk.", max_length=LIMITS.max_chars)
    with gr.Row():
        button = gr.Button(t("nsp.run"), variant="primary")
        swap = gr.Button(t("pre.swap"))
    scores = gr.Label(label=t("nsp.scores"), render=False)
    segments = gr.HighlightedText(label=t("nsp.segments"), render=False)
    raw = gr.JSON(render=False)
    outputs = [scores, segments, raw]
    common.render_outputs(outputs)
    button.click(predict, [first, second], outputs, api_visibility="private", concurrency_id="encoder")
    swap.click(random_second, None, second, api_visibility="private").then(
        predict, [first, second], outputs, api_visibility="private", concurrency_id="encoder"
    )
    return _shared("nsp", {"first": first, "second": second})


def _build_embeddings(rows) -> dict:
    gr.Markdown(t("pre.embeddings.about"))
    with gr.Row():
        first = gr.Textbox(label=t("pre.first"), max_length=LIMITS.max_chars)
        second = gr.Textbox(label=t("pre.second"), max_length=LIMITS.max_chars)
    button = gr.Button(t("pre.show"), variant="primary")
    table = gr.Dataframe(headers=_headers("pre.embedding_headers"), label=t("pre.ids"), interactive=False, render=False)
    plot = gr.Plot(label=t("pre.norms"), render=False)
    raw = gr.JSON(render=False)
    outputs = [table, plot, raw]
    button.click(representation, [first, second], outputs, api_name="input_representation", concurrency_id="encoder")
    common.examples([first, second], outputs, representation, rows)
    common.render_outputs(outputs)
    return _shared("embeddings", {"first": first, "second": second})


def _build_causal(rows) -> dict:
    gr.Markdown(t("pre.causal.about"))
    text = gr.Textbox(label=t("pre.text"), lines=2, max_length=LIMITS.max_prompt_chars)
    button = gr.Button(t("pre.causal_run"), variant="primary")
    table = gr.Dataframe(headers=_headers("pre.causal_headers"), label=t("pre.causal_table"), interactive=False, render=False)
    plot = gr.Plot(render=False)
    summary = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    outputs = [table, plot, summary, raw]
    button.click(causal, [text], outputs, api_name="causal_lm", concurrency_id="decoder")
    common.examples([text], outputs, causal, rows)
    common.render_outputs(outputs)
    return _shared("causal", {"text": text})


def _shared(page_id: str, fields: dict) -> dict:
    share_row(page_id, fields)
    return fields
