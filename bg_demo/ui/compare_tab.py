"""BERT vs GPT-2 tab: the causal mask, attention to later tokens, one word in two contexts, one gap, two models."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, config, figures, text
from bg_demo.look import Look
from bg_demo.text import tables
from bg_demo.ui import attention_store, common
from bg_demo.ui.attention_tab import maps, named
from bg_demo.ui.links import Page, share_row
from bg_demo.ui.page import Task
from bg_demo.ui.strings import joined, rows, t, table
from bg_demo.ui.view import intro

ROLES = ("encoder", "decoder")
FACTS = ("model_id", "architecture", "layers", "heads", "hidden_size", "body_parameters", "head_parameters",
         "parameters", "missing_heads", "vocab_size")
FACTS += ("position_embedding", "max_positions", "max_length", "attention_type")  # then the forward time
KINDS = ("position_embedding", "attention_type")  # facts the backend gives as identifiers ("learned absolute")


def attend(text: str, encoder: str | None = None, decoder: str | None = None, progress=None):
    # refs: the maps are kept once for a class
    return common.run("encoder", attention_store.shared().compare, text, encoder_id=encoder or None,
                      decoder_id=decoder or None, progress=progress)


def attended(result, look: Look):
    mask = figures.causal_mask_figure(len(result.decoder.tokens), look, result.decoder.tokens)
    return mask, figures.future_share_bars(result, look), named(result.summary())


def fit_sliders(shown, layer: int, head: int):
    """Ranges both models have, so one layer and head index is valid for each."""
    result = getattr(shown, "result", None)
    if result is None:
        return gr.skip(), gr.skip()
    n_layers = min(result.encoder.shape[0], result.decoder.shape[0])
    n_heads = min(result.encoder.shape[1], result.decoder.shape[1])
    return (
        gr.Slider(maximum=n_layers - 1, value=min(int(layer), n_layers - 1)),
        gr.Slider(maximum=n_heads - 1, value=min(int(head), n_heads - 1)),
    )


def draw_heads(result, look: Look, layer: int, head: int):
    layer, head = int(layer), int(head)
    encoder, decoder = (maps(ref) for ref in (result.encoder, result.decoder))
    return figures.head_heatmap(encoder, look, layer, head), figures.head_heatmap(decoder, look, layer, head)


def word_vectors(first: str, second: str, word: str, encoder: str | None = None, decoder: str | None = None,
                 progress=None):
    return common.run("encoder", backend.same_word, first, second, word, encoder_id=encoder or None,
                      decoder_id=decoder or None, progress=progress)


def same_word(result, look: Look):
    notes = " ".join(look.t(note.key, **note.values) for note in result.notes)
    note = common.plain(notes) if notes else look.t("compare.same.clean", word=common.plain(result.word))
    return figures.same_word_lines(result, look), note, named(result.to_dict())


def fill_gap(text: str, encoder: str | None = None, decoder: str | None = None, progress=None):
    return common.run("encoder", backend.predict_masked_both, text, encoder_id=encoder or None,
                      decoder_id=decoder or None, progress=progress)


def gap(result, look: Look):
    left = look.t("compare.masked.left", left=common.plain(result.left or "<|endoftext|>"))
    return figures.masked_both_bars(result, look), left, named(result.to_dict())


def measure(encoder: str | None = None, decoder: str | None = None, progress=None):
    """Both models' facts, and which models the server holds now (read with them: a figure of that moment)."""
    chosen = {"encoder": encoder or None, "decoder": decoder or None}
    facts = [common.run(role, backend.model_facts, role, model_id=chosen[role], progress=progress) for role in ROLES]
    return facts, backend.model_memory()


def measured(found, look: Look):
    facts, held = found
    rows_ = [[look.t(f"compare.facts.{name}")] + [_value(f, name, look) for f in facts] for name in FACTS]
    timing = [_timing(f, look) for f in facts]
    shown = rows("compare.facts.headers", [*rows_, [look.t("compare.facts.forward"), *timing]], look)
    return shown, memory(held, look), [named(f.to_dict()) for f in facts]


def memory(held, look: Look) -> str:
    """Which models the server held, against its budget (the least recently used is unloaded first)."""
    names = ", ".join(look.t("compare.memory.model", model=config.public_name(info.model_id), gb=info.nbytes / 1e9)
                      for info in held.models)
    return look.t("compare.memory", models=names or "—", used=held.used / 1e9, budget=held.budget / 1e9)


def _timing(facts, look: Look) -> str:
    return look.t("compare.facts.forward_value", ms=facts.forward_ms, tokens=facts.forward_tokens, device=facts.device)


def _value(facts, name: str, look: Look) -> str:
    value = getattr(facts, name)
    if name == "model_id":  # a local folder by its name, never its path on the server
        return config.public_name(value)
    if name == "head_parameters" and facts.tied_head:
        return look.t("compare.facts.tied", n=value)
    if name == "missing_heads":
        return ", ".join(look.t(f"compare.facts.head.{head}") for head in value) or look.t("compare.facts.none")
    if name in KINDS:  # worded where a text has them; a kind read from a model's config is shown as it is
        key = f"compare.facts.kind.{value.replace(' ', '_')}"
        return look.t(key) if key in tables()["en"] else value
    return f"{value:,}" if isinstance(value, int) else str(value)


TAB_ID = "compare"
PATH = "compare"  # its address: /compare
TITLE = "compare.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("compare.about")
    with gr.Row():  # any encoder beside any decoder, for every section below
        models = {"encoder": common.model_picker("encoder"), "decoder": common.model_picker("decoder")}
    attention, view_fields = _attention_section(reader, models)
    same = _same_word_section(reader, models)
    masked = _masked_section(reader, models)
    facts, on_screen = _facts_section(reader, models)
    # every section's inputs, and whether the facts are measured: a link reopens every section on screen
    fields = {**attention.inputs, **view_fields, **same.inputs, **masked.inputs, "facts": on_screen}
    share_row(TAB_ID, fields)
    # a link runs each section whose inputs it fills
    runs = (attention.run(("text",)), same.run(("first", "second", "word")), masked.run(("masked",)),
            facts.run(("facts",)))
    return [Page(TAB_ID, fields, runs=runs)]


def _attention_section(reader, models: dict) -> tuple[Task, dict]:
    with gr.Row():
        text = gr.Textbox(label=t("compare.text"), lines=1, max_lines=4, scale=3)
        button = gr.Button(t("compare.run"), variant="primary", scale=1, min_width=160)
    mask = gr.Plot(label=t("compare.mask_plot"), render=False)
    future = gr.Plot(label=t("compare.future_plot"), render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, attend, attended, {"text": text, **models}, [mask, future, raw], page_id=TAB_ID,
                api_name="compare")
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
    redraw, inputs, outputs = task.view(draw_heads, [encoder_plot, decoder_plot], [layer, head],
                                        [layer.input, head.input], trigger_mode="always_last")
    task.state.change(fit_sliders, [task.state, layer, head], [layer, head], api_visibility="private",
                      show_progress="hidden").then(
        redraw, inputs, outputs, api_visibility="private")
    return task, {"layer": layer, "head": head}


def _same_word_section(reader, models: dict) -> Task:
    gr.Markdown(joined("compare.same.title", "compare.same.about"))
    with gr.Row():
        first = gr.Textbox(label=t("compare.same.first"), scale=3)
        second = gr.Textbox(label=t("compare.same.second"), scale=3)
        word = gr.Textbox(label=t("compare.same.word"), scale=1)
    button = gr.Button(t("compare.same.run"), variant="primary")
    plot = gr.Plot(label=t("compare.same.plot"), render=False)
    note = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, word_vectors, same_word, {"first": first, "second": second, "word": word, **models},
                [plot, note, raw], page_id="compare_same_word")
    task.examples(("compare", "same_word"))
    task.render()
    task.wire(button, word, share=False)  # the tab's one share row carries every section
    return task


def _masked_section(reader, models: dict) -> Task:
    gr.Markdown(joined("compare.masked.title", "compare.masked.about"))
    text = gr.Textbox(label=t("compare.masked.text"))
    button = gr.Button(t("compare.masked.run"), variant="primary")
    plot = gr.Plot(label=t("compare.masked.plot"), render=False)
    left = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, fill_gap, gap, {"masked": text, **models}, [plot, left, raw], page_id="compare_masked")
    task.examples(("compare", "masked"))
    task.render()
    task.wire(button, text, share=False)
    return task


def _facts_section(reader, models: dict) -> tuple[Task, gr.Checkbox]:
    gr.Markdown(joined("compare.facts.title", "compare.facts.about"))
    button = gr.Button(t("compare.facts.run"), elem_classes=["bg-run"])
    facts = table("compare.facts.headers", label=t("compare.facts.table"), interactive=False, render=False)
    held = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, measure, measured, dict(models), [facts, held, raw], page_id="compare_facts")
    task.render()
    task.wire(button, share=False)
    on_screen = gr.Checkbox(False, visible=False)  # for the link: the facts are on screen
    held.change(lambda: True, None, on_screen, api_visibility="private", queue=False)
    headers_follow_language(reader, facts, "compare.facts.headers")
    return task, on_screen


def headers_follow_language(reader, component: gr.Dataframe, key: str) -> None:
    """A table's column names in the page's language from the start, and after a switch, with its rows kept.
    The switch's own relabel (`language.wire`) sets the table's `headers`, which a table shows only once a value
    comes with them: an empty one kept the English names it was built with until its first result."""
    def relabel(lang: str, shown):  # the table as the browser sends it (None when it sends none)
        data = shown.get("data") or [] if isinstance(shown, dict) else []
        return {"headers": text.t(key, text.language(lang)).split("|"), "data": data}

    reader.lang.change(relabel, [reader.lang, component], component, api_visibility="private", queue=False,
                       preprocess=False)
