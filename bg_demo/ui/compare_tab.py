"""BERT vs GPT-2 tab: the causal mask, attention to later tokens, one word in two contexts, one gap, two models."""

from __future__ import annotations

import gradio as gr
from gradio.context import Context

from bg_demo import backend, config, figures
from bg_demo.text import t as in_language
from bg_demo.text import tables
from bg_demo.ui import attention_store, common, language
from bg_demo.ui.attention_tab import maps, named
from bg_demo.ui.links import Page, share_row
from bg_demo.ui.strings import joined, rows, t, table
from bg_demo.ui.view import intro

ROLES = ("encoder", "decoder")
FACTS = ("model_id", "architecture", "layers", "heads", "hidden_size", "body_parameters", "head_parameters",
         "parameters", "missing_heads", "vocab_size")
FACTS += ("position_embedding", "max_positions", "max_length", "attention_type")  # then the forward time
KINDS = ("position_embedding", "attention_type")  # facts the backend gives as identifiers ("learned absolute")


def attend(text: str, encoder: str | None = None, decoder: str | None = None, progress=gr.Progress()):
    result = common.run("encoder", attention_store.shared().compare, text, encoder_id=encoder or None,
                        decoder_id=decoder or None, progress=progress)  # refs: the maps are kept once for a class
    mask = figures.causal_mask_figure(len(result.decoder.tokens), result.decoder.tokens)
    return result, mask, figures.future_share_bars(result), named(result.summary())


def fit_sliders(result, layer: int, head: int):
    """Ranges both models have, so one layer and head index is valid for each."""
    n_layers = min(result.encoder.shape[0], result.decoder.shape[0])
    n_heads = min(result.encoder.shape[1], result.decoder.shape[1])
    return (
        gr.Slider(maximum=n_layers - 1, value=min(int(layer), n_layers - 1)),
        gr.Slider(maximum=n_heads - 1, value=min(int(head), n_heads - 1)),
    )


def draw_heads(result, layer: int, head: int):
    if result is None:
        return None, None
    layer, head = int(layer), int(head)
    encoder, decoder = (maps(ref) for ref in (result.encoder, result.decoder))
    return figures.head_heatmap(encoder, layer, head), figures.head_heatmap(decoder, layer, head)


def word_vectors(first: str, second: str, word: str, encoder: str | None = None, decoder: str | None = None,
                 progress=gr.Progress()):
    result = common.run("encoder", backend.same_word, first, second, word, encoder_id=encoder or None,
                        decoder_id=decoder or None, progress=progress)
    notes = " ".join(t(note.key, **note.values) for note in result.notes)
    note = common.plain(notes) if notes else t("compare.same.clean", word=common.plain(result.word))
    return figures.same_word_lines(result), note, named(result.to_dict())


def fill_gap(text: str, encoder: str | None = None, decoder: str | None = None, progress=gr.Progress()):
    result = common.run("encoder", backend.predict_masked_both, text, encoder_id=encoder or None,
                        decoder_id=decoder or None, progress=progress)
    left = t("compare.masked.left", left=common.plain(result.left or "<|endoftext|>"))
    return figures.masked_both_bars(result), left, named(result.to_dict())


def measure(encoder: str | None = None, decoder: str | None = None, progress=gr.Progress()):
    chosen = {"encoder": encoder or None, "decoder": decoder or None}
    facts = [common.run(role, backend.model_facts, role, model_id=chosen[role], progress=progress) for role in ROLES]
    found = [[t(f"compare.facts.{name}")] + [_value(f, name) for f in facts] for name in FACTS]
    timing = [_timing(f) for f in facts]
    table = rows("compare.facts.headers", [*found, [t("compare.facts.forward"), *timing]])
    return table, memory(), [named(f.to_dict()) for f in facts]


def memory() -> str:
    """Which models the server holds now, against its budget (the least recently used is unloaded first)."""
    held = backend.model_memory()
    names = ", ".join(t("compare.memory.model", model=config.public_name(info.model_id), gb=info.nbytes / 1e9)
                      for info in held.models)
    return t("compare.memory", models=names or "—", used=held.used / 1e9, budget=held.budget / 1e9)


def _timing(facts) -> str:
    return t("compare.facts.forward_value", ms=facts.forward_ms, tokens=facts.forward_tokens, device=facts.device)


def _value(facts, name: str) -> str:
    value = getattr(facts, name)
    if name == "model_id":  # a local folder by its name, never its path on the server
        return config.public_name(value)
    if name == "head_parameters" and facts.tied_head:
        return t("compare.facts.tied", n=value)
    if name == "missing_heads":
        return ", ".join(t(f"compare.facts.head.{head}") for head in value) or t("compare.facts.none")
    if name in KINDS:  # worded where a text has them; a kind read from a model's config is shown as it is
        key = f"compare.facts.kind.{value.replace(' ', '_')}"
        return t(key) if key in tables()["en"] else value
    return f"{value:,}" if isinstance(value, int) else str(value)


TAB_ID = "compare"


def build() -> list[Page]:
    with gr.Tab(t("compare.tab"), id=TAB_ID):
        intro("compare.about")
        with gr.Row():  # any encoder beside any decoder, for every section below
            models = {"encoder": common.model_picker("encoder"), "decoder": common.model_picker("decoder")}
        attention, view_fields = _attention_section(models)
        same = _same_word_section(models)
        masked = _masked_section(models)
        facts, measured = _facts_section(models)
        # every section's inputs, and whether the facts are measured: a link reopens every section on screen
        fields = {**attention.inputs, **view_fields, **same.inputs, **masked.inputs, "facts": measured}
        share_row(TAB_ID, fields)
    # a link runs each section whose inputs it fills
    runs = (attention.run(("text",)), same.run(("first", "second", "word")), masked.run(("masked",)),
            facts.run(("facts",)))
    return [Page(TAB_ID, fields, runs=runs)]


def _attention_section(models: dict) -> tuple[common.Task, dict]:
    with gr.Row():
        text = gr.Textbox(label=t("compare.text"), lines=1, max_lines=4, scale=3)
        button = gr.Button(t("compare.run"), variant="primary", scale=1, min_width=160)
    state = gr.State(None, time_to_live=common.STATE_SECONDS)  # both models' weights, for the redraws
    mask = gr.Plot(label=t("compare.mask_plot"), render=False)
    future = gr.Plot(label=t("compare.future_plot"), render=False)
    raw = gr.JSON(render=False)
    task = common.Task(attend, {"text": text, **models}, [state, mask, future, raw], page_id=TAB_ID, api_name="compare")
    task.examples(("compare", "attention"))
    task.render([])
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
    task.wire(button, text, share=False)
    redraw, plots = common.shown_inline(draw_heads, 2), [encoder_plot, decoder_plot, task.error]
    state.change(fit_sliders, [state, layer, head], [layer, head], api_visibility="private").then(
        redraw, [state, layer, head], plots, api_visibility="private"
    )
    gr.on([layer.input, head.input], redraw, [state, layer, head], plots, api_visibility="private",
          trigger_mode="always_last")
    return task, {"layer": layer, "head": head}


def _same_word_section(models: dict) -> common.Task:
    gr.Markdown(joined("compare.same.title", "compare.same.about"))
    with gr.Row():
        first = gr.Textbox(label=t("compare.same.first"), scale=3)
        second = gr.Textbox(label=t("compare.same.second"), scale=3)
        word = gr.Textbox(label=t("compare.same.word"), scale=1)
    button = gr.Button(t("compare.same.run"), variant="primary")
    plot = gr.Plot(label=t("compare.same.plot"), render=False)
    note = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = common.Task(word_vectors, {"first": first, "second": second, "word": word, **models}, [plot, note, raw],
                       page_id="compare_same_word")
    task.examples(("compare", "same_word"))
    task.render()
    task.wire(button, word, share=False)  # the tab's one share row carries every section
    return task


def _masked_section(models: dict) -> common.Task:
    gr.Markdown(joined("compare.masked.title", "compare.masked.about"))
    text = gr.Textbox(label=t("compare.masked.text"))
    button = gr.Button(t("compare.masked.run"), variant="primary")
    plot = gr.Plot(label=t("compare.masked.plot"), render=False)
    left = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = common.Task(fill_gap, {"masked": text, **models}, [plot, left, raw], page_id="compare_masked")
    task.examples(("compare", "masked"))
    task.render()
    task.wire(button, text, share=False)
    return task


def _facts_section(models: dict) -> tuple[common.Task, gr.Checkbox]:
    gr.Markdown(joined("compare.facts.title", "compare.facts.about"))
    button = gr.Button(t("compare.facts.run"))
    facts = table("compare.facts.headers", label=t("compare.facts.table"), interactive=False, render=False)
    held = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = common.Task(measure, dict(models), [facts, held, raw], page_id="compare_facts")
    task.render()
    task.wire(button, share=False)
    measured = gr.Checkbox(False, visible=False)  # for the link: the facts are on screen
    held.change(lambda: True, None, measured, api_visibility="private", queue=False)
    headers_follow_language(facts, "compare.facts.headers")
    return task, measured


def headers_follow_language(component: gr.Dataframe, key: str) -> None:
    """A table's column names in the page's language from the start, and after a switch, with its rows kept.
    The switch's own relabel (`language.wire`) sets the table's `headers`, which a table shows only once a value
    comes with them: an empty one kept the English names it was built with until its first result."""
    root = Context.root_block
    switch = next((block for block in getattr(root, "blocks", {}).values()
                   if getattr(block, "elem_id", None) == language.ELEM_ID), None)
    if switch is None:  # a tab built alone (a test): English, as built
        return

    def relabel(lang: str, shown):
        data = shown.values.tolist() if hasattr(shown, "values") else []
        return {"headers": in_language(key, lang).split("|"), "data": data}

    switch.change(relabel, [switch, component], component, api_visibility="private", queue=False)
