"""BERT vs GPT-2 tab: the causal mask, attention to later tokens, one word in two contexts, one gap, two models."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.config import LIMITS
from bg_demo.ui import common
from bg_demo.ui.links import Page, share_row
from bg_demo.ui.strings import examples, t

ROLES = ("encoder", "decoder")
FACTS = ("model_id", "architecture", "layers", "heads", "hidden_size", "parameters", "vocab_size")
FACTS += ("position_embedding", "max_positions", "max_length", "attention_type")  # then the forward time


def attend(text: str, progress=gr.Progress()):
    result = common.run("encoder", backend.compare, text, progress=progress)
    mask = figures.causal_mask_figure(len(result.decoder.tokens), result.decoder.tokens)
    return result.compact(), mask, figures.future_share_bars(result), result.summary()


def fit_sliders(result, layer: int, head: int):
    """Ranges both models have, so one layer and head index is valid for each."""
    n_layers = min(result.encoder.weights.shape[0], result.decoder.weights.shape[0])
    n_heads = min(result.encoder.weights.shape[1], result.decoder.weights.shape[1])
    return (
        gr.Slider(maximum=n_layers - 1, value=min(int(layer), n_layers - 1)),
        gr.Slider(maximum=n_heads - 1, value=min(int(head), n_heads - 1)),
    )


def draw_heads(result, layer: int, head: int):
    if result is None:
        return None, None
    layer, head = int(layer), int(head)
    return figures.head_heatmap(result.encoder, layer, head), figures.head_heatmap(result.decoder, layer, head)


def word_vectors(first: str, second: str, word: str, progress=gr.Progress()):
    result = common.run("encoder", backend.same_word, first, second, word, progress=progress)
    note = " ".join(result.notes) if result.notes else t("compare.same.clean", word=result.word)
    return figures.same_word_lines(result), note, result.to_dict()


def fill_gap(text: str, progress=gr.Progress()):
    result = common.run("encoder", backend.predict_masked_both, text, progress=progress)
    left = t("compare.masked.left", left=result.left or "<|endoftext|>")
    return figures.masked_both_bars(result), left, result.to_dict()


def measure(progress=gr.Progress()):
    facts = [common.run(role, backend.model_facts, role, progress=progress) for role in ROLES]
    rows = [[t(f"compare.facts.{name}")] + [_value(getattr(f, name)) for f in facts] for name in FACTS]
    timing = [_timing(f) for f in facts]
    return [*rows, [t("compare.facts.forward"), *timing]], [f.to_dict() for f in facts]


def _timing(facts) -> str:
    return t("compare.facts.forward_value", ms=facts.forward_ms, tokens=facts.forward_tokens, device=facts.device)


def _value(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


TAB_ID = "compare"


def build() -> list[Page]:
    with gr.Tab(t("compare.tab"), id=TAB_ID):
        gr.Markdown(t("compare.about"))
        fields = _attention_section()
        fields |= _same_word_section()
        fields |= _masked_section()
        _facts_section()
        share_row(TAB_ID, fields)
    return [Page(TAB_ID, fields)]


def _attention_section() -> dict:
    with gr.Row():
        text = gr.Textbox(label=t("compare.text"), lines=1, max_lines=4, max_length=LIMITS.max_chars, scale=3)
        button = gr.Button(t("compare.run"), variant="primary", scale=1)
    state = gr.State(None, time_to_live=common.STATE_SECONDS)  # both models' weights, for the redraws
    mask = gr.Plot(label=t("compare.mask_plot"), render=False)
    future = gr.Plot(label=t("compare.future_plot"), render=False)
    raw = gr.JSON(render=False)
    outputs = [state, mask, future, raw]
    common.examples([text], outputs, attend, examples()["compare"]["attention"])
    with gr.Row():
        mask.render()
        future.render()
    with gr.Row():
        layer = gr.Slider(0, 11, value=0, step=1, label=t("compare.layer"))
        head = gr.Slider(0, 11, value=0, step=1, label=t("compare.head"))
    with gr.Row():
        encoder_plot = gr.Plot(label=t("compare.encoder_plot"))
        decoder_plot = gr.Plot(label=t("compare.decoder_plot"))
    with gr.Accordion(t("common.raw"), open=False):
        raw.render()
    button.click(attend, [text], outputs, api_name="compare")
    text.submit(attend, [text], outputs, api_visibility="private")
    state.change(fit_sliders, [state, layer, head], [layer, head], api_visibility="private").then(
        draw_heads, [state, layer, head], [encoder_plot, decoder_plot], api_visibility="private"
    )
    gr.on(
        [layer.input, head.input],
        draw_heads,
        [state, layer, head],
        [encoder_plot, decoder_plot],
        api_visibility="private",
        trigger_mode="always_last",
    )
    return {"text": text}


def _same_word_section() -> dict:
    gr.Markdown(f"{t('compare.same.title')}\n{t('compare.same.about')}")
    with gr.Row():
        first = gr.Textbox(label=t("compare.same.first"), max_length=LIMITS.max_chars, scale=3)
        second = gr.Textbox(label=t("compare.same.second"), max_length=LIMITS.max_chars, scale=3)
        word = gr.Textbox(label=t("compare.same.word"), max_length=100, scale=1)
    button = gr.Button(t("compare.same.run"), variant="primary")
    plot = gr.Plot(label=t("compare.same.plot"), render=False)
    note = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    outputs = [plot, note, raw]
    common.examples([first, second, word], outputs, word_vectors, examples()["compare"]["same_word"])
    common.render_outputs(outputs)
    button.click(word_vectors, [first, second, word], outputs, api_visibility="private")
    return {"first": first, "second": second, "word": word}


def _masked_section() -> dict:
    gr.Markdown(f"{t('compare.masked.title')}\n{t('compare.masked.about')}")
    text = gr.Textbox(label=t("compare.masked.text"), max_length=LIMITS.max_chars)
    button = gr.Button(t("compare.masked.run"), variant="primary")
    plot = gr.Plot(label=t("compare.masked.plot"), render=False)
    left = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    outputs = [plot, left, raw]
    common.examples([text], outputs, fill_gap, examples()["compare"]["masked"])
    common.render_outputs(outputs)
    button.click(fill_gap, [text], outputs, api_visibility="private")
    text.submit(fill_gap, [text], outputs, api_visibility="private")
    return {"masked": text}


def _facts_section() -> None:
    gr.Markdown(f"{t('compare.facts.title')}\n{t('compare.facts.about')}")
    button = gr.Button(t("compare.facts.run"))
    headers = t("compare.facts.headers").split("|")
    table = gr.Dataframe(headers=headers, label=t("compare.facts.table"), interactive=False, render=False)
    raw = gr.JSON(render=False)
    outputs = [table, raw]
    common.render_outputs(outputs)
    button.click(measure, None, outputs, api_visibility="private")
