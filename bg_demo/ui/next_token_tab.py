"""Next-token lab (inside the Generate tab): one step of generation at a time, with every filter shown."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.config import LIMITS
from bg_demo.ui import common
from bg_demo.ui.links import share_row
from bg_demo.ui.strings import examples, t

HEADERS = t("lab.history_headers").split("|")
PAGE_ID = "next_token"


def _show(result, history):
    """Outputs for a fresh distribution; the state keeps ids, history and the last result's choices."""
    choices = [(f"{c.rank}. {c.text!r}  {c.scaled:.1%}", c.token_id) for c in result.candidates]
    state = {"ids": list(result.token_ids), "history": history, "result": result.to_dict()}
    picked = gr.Dropdown(choices=choices, value=result.candidates[0].token_id)
    return figures.next_token_bars(result), result.context, picked, history, state, result.to_dict()


def show(text, temperature, top_k, top_p, seed, progress=gr.Progress()):
    result = common.run("decoder", backend.next_token, text, temperature, top_k, top_p, seed=seed, progress=progress)
    return _show(result, [])


def step(how, picked, state, temperature, top_k, top_p, seed):
    if not state:
        raise gr.Error(t("lab.start_first"))
    last = state["result"]
    chosen = {"greedy": last["greedy"], "sample": last["sampled"]}.get(how)
    chosen = chosen or next((c for c in last["candidates"] if c["token_id"] == picked), last["greedy"])
    row = [len(state["history"]) + 1, chosen["text"], chosen["rank"], round(chosen["final"], 4), how]
    ids = state["ids"] + [chosen["token_id"]]
    step_seed = None if seed is None else int(seed) + len(ids)  # a fresh draw at every step, still reproducible
    result = common.run("decoder", backend.next_token, "", temperature, top_k, top_p, seed=step_seed, token_ids=ids)
    return _show(result, state["history"] + [row])


def build() -> dict:
    with gr.Tab(t("lab.sub"), id=PAGE_ID):
        gr.Markdown(t("lab.about"))
        text = gr.Textbox(label=t("lab.text"), lines=2, max_length=LIMITS.max_prompt_chars)
        with gr.Row():
            temperature = gr.Slider(0.05, 2.0, value=1.0, step=0.05, label=t("generate.temperature"))
            top_k = gr.Slider(0, 100, value=0, step=1, label=t("lab.top_k"))
            top_p = gr.Slider(0.05, 1.0, value=1.0, step=0.05, label=t("lab.top_p"))
            seed = gr.Number(0, precision=0, label=t("generate.seed"))
        show_button = gr.Button(t("lab.show"), variant="primary")
        state = gr.State(None, time_to_live=common.STATE_SECONDS)
        plot = gr.Plot(label=t("lab.plot"), render=False)
        context = gr.Textbox(label=t("lab.context"), interactive=False, render=False)
        picked = gr.Dropdown(label=t("lab.pick"), choices=[], render=False)
        history = gr.Dataframe(headers=HEADERS, label=t("lab.history"), interactive=False, render=False)
        raw = gr.JSON(render=False)
        inputs = [text, temperature, top_k, top_p, seed]
        outputs = [plot, context, picked, history, state, raw]
        common.examples(inputs, outputs, show, examples()["next_token"])
        plot.render()
        context.render()
        with gr.Row():
            greedy = gr.Button(t("lab.greedy"))
            sample = gr.Button(t("lab.sample"))
            picked.render()
            append = gr.Button(t("lab.append"))
        history.render()
        with gr.Accordion(t("common.raw"), open=False):
            raw.render()
        settings = [state, temperature, top_k, top_p, seed]
        show_button.click(show, inputs, outputs, api_name="next_token", concurrency_id="decoder")
        for button, how in ((greedy, "greedy"), (sample, "sample"), (append, "picked")):
            button.click(
                step, [gr.State(how), picked, *settings], outputs, api_visibility="private", concurrency_id="decoder"
            )
        fields = dict(zip(("text", "temperature", "top_k", "top_p", "seed"), inputs))
        share_row(PAGE_ID, fields)
    return fields
