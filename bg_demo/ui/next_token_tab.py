"""Next-token lab (inside the Generate tab): one step of generation at a time, with every filter shown."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.backend.generation.types import MAX_SEED
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.strings import rows, t, table
from bg_demo.ui.view import intro

PAGE_ID = "next_token"


def _show(result, history):
    """Outputs for a fresh distribution; the state keeps ids, history and the last result's choices."""
    choices = [(f"{c.rank}. {c.token!r}  {c.scaled:.1%}", c.token_id) for c in result.candidates]
    state = {"ids": list(result.token_ids), "history": history, "result": result.to_dict()}
    picked = gr.Dropdown(choices=choices, value=result.candidates[0].token_id)
    shown = rows("lab.history_headers", history)
    return figures.next_token_bars(result), result.context, picked, shown, state, result.to_dict()


def show(text, temperature, top_k, top_p, seed=None, model=None, progress=gr.Progress()):
    """The distribution after `text`; without a seed, "Sample one" uses a freshly drawn one (shown in the steps)."""
    result = common.run("decoder", backend.next_token, text, temperature, top_k, top_p, seed=seed,
                        model_id=model or None, progress=progress)
    return _show(result, [])


def step(how, picked, state, temperature, top_k, top_p, seed, model=None):
    if not state:
        raise gr.Error(t("lab.start_first"), print_exception=False)
    last = state["result"]
    chosen = {"greedy": last["greedy"], "sample": last["sampled"]}.get(how)
    chosen = chosen or next((c for c in last["candidates"] if c["token_id"] == picked), last["greedy"])
    label = t("lab.how.sample", seed=last["seed"]) if how == "sample" else t(f"lab.how.{how}")
    row = [len(state["history"]) + 1, chosen["token"], chosen["rank"], round(chosen["final"], 4), label]
    ids = state["ids"] + [chosen["token_id"]]
    step_seed = _step_seed(seed, len(ids))
    result = common.run("decoder", backend.next_token, "", temperature, top_k, top_p, seed=step_seed, token_ids=ids,
                        model_id=model or None)
    return _show(result, state["history"] + [row])


def explain(text: str, token_id=None, layer=None, head=None, model=None):
    """Why the picked candidate (the greedy one until another is picked) after the text now."""
    return backend.explain_next_token(text, token_id, layer, head, model_id=model or None)


def _step_seed(seed, n_tokens: int) -> int | None:
    """With a seed, a fresh draw at every step that a rerun repeats; without one, a new random seed each step."""
    if seed is None or not str(seed).strip():
        return None
    return (common.run("decoder", backend.seed_or_draw, seed) + n_tokens) % MAX_SEED


def build(model) -> Page:
    with gr.Tab(t("lab.sub"), id=PAGE_ID):
        intro("lab.about")
        text = gr.Textbox(label=t("lab.text"), lines=1, max_lines=6)
        with gr.Row():
            temperature = gr.Slider(0.05, 2.0, value=1.0, step=0.05, label=t("generate.temperature"))
            top_k = gr.Slider(0, 100, value=0, step=1, label=t("lab.top_k"))
            top_p = gr.Slider(0.05, 1.0, value=1.0, step=0.05, label=t("lab.top_p"))
            seed = common.seed_box()
        show_button = gr.Button(t("lab.show"), variant="primary")
        state = gr.State(None, time_to_live=common.STATE_SECONDS)
        plot = gr.Plot(label=t("lab.plot"), render=False)
        context = gr.Textbox(label=t("lab.context"), interactive=False, render=False)
        picked = gr.Dropdown(label=t("lab.pick"), choices=[], render=False)
        history = table("lab.history_headers", label=t("lab.history"), interactive=False, render=False)
        raw = gr.JSON(render=False)
        inputs = dict(zip(("text", "temperature", "top_k", "top_p", "seed", "model"),
                          (text, temperature, top_k, top_p, seed, model)))
        task = common.Task(show, inputs, [plot, context, picked, history, state, raw], page_id=PAGE_ID,
                           api_name="next_token", concurrency_id="decoder")
        task.examples("next_token")
        task.render([plot, context])
        with gr.Row():
            greedy = gr.Button(t("lab.greedy"))
            sample = gr.Button(t("lab.sample"))
            picked.render()
            append = gr.Button(t("lab.append"))
        history.render()
        with gr.Accordion(t("common.raw"), open=False):
            raw.render()
        why.section(explain, {"text": context, "token_id": picked}, model=model, page_id=PAGE_ID, api_name="explain_next_token")
        page = task.wire(show_button, text)
        stepped = common.shown_inline(step, len(task.outputs))
        for button, how in ((greedy, "greedy"), (sample, "sample"), (append, "picked")):
            button.click(stepped, [gr.State(how), picked, state, temperature, top_k, top_p, seed, model], task.targets,
                         api_visibility="private", **task.options)
    return page
