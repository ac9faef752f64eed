"""The Next token page (/next-token): GPT-2's next token up close, beside the Generate page's whole decodes. The
lab takes one step of generation at a time, with every filter shown; the logit lens (`logit_lens_tab`) reads the
guess after each layer. One model picker for both."""

from __future__ import annotations

import re

import gradio as gr

from bg_demo import backend, figures
from bg_demo.backend.generation.types import MAX_SEED
from bg_demo.errors import InputError
from bg_demo.look import Look
from bg_demo.ui import common, logit_lens_tab, why
from bg_demo.ui.links import Page, Run
from bg_demo.ui.page import Task
from bg_demo.ui.strings import rows, t, tab, table
from bg_demo.ui.view import intro

PAGE_ID = "next_token"
TAB_ID = PAGE_ID  # its id among the pages
PATH = "next-token"  # its address: /next-token
TITLE = "lab.tab"  # its name in the navigation
IDS = (PAGE_ID, logit_lens_tab.PAGE_ID)  # the pages a link opens here (`?tab=<id>`)
MAX_LINK_STEPS = 64  # steps a link takes again at most (one forward pass each)
HOW = {"greedy": "g", "sample": "s", "picked": "p"}  # how a step chose its token, as a link writes it
STEP = re.compile(r"([gsp])(\d+)(?:@(\d+))?")  # a step in a link: how, the token id, and for a sample its seed


def _lab(result, history, steps=()) -> dict:
    """The lab's result: the distribution now, the token ids so far, the steps taken (data: how each chose, with a
    sample's seed) and the steps as a link writes them."""
    return {"next": result, "ids": list(result.token_ids), "history": history, "steps": list(steps),
            "result": result.to_dict()}


def render(lab, look: Look):
    result = lab["next"]
    history = [[n, token, rank, final, look.t("lab.how.sample", seed=seed) if how == "sample" else
                look.t(f"lab.how.{how}")] for n, token, rank, final, how, seed in lab["history"]]
    return (figures.next_token_bars(result, look), result.context, rows("lab.history_headers", history, look),
            result.to_dict())


def choices(shown):
    """The picker lists the candidates of the distribution on screen, the first picked."""
    lab = getattr(shown, "result", None)
    if lab is None:
        return gr.skip()
    found = lab["next"].candidates
    return gr.Dropdown(choices=[(f"{c.rank}. {c.token!r}  {c.scaled:.1%}", c.token_id) for c in found],
                       value=found[0].token_id)


def show(text, temperature, top_k, top_p, seed=None, model=None, progress=None):
    """The distribution after `text`; without a seed, "Sample one" uses a freshly drawn one (shown in the steps)."""
    result = common.run("decoder", backend.next_token, text, temperature, top_k, top_p, seed=seed,
                        model_id=model or None, progress=progress)
    return _lab(result, [])


def step(lab, how, picked, temperature, top_k, top_p, seed, model=None):
    if not lab:
        raise InputError("lab.start_first")
    last = lab["result"]
    chosen = {"greedy": last["greedy"], "sample": last["sampled"]}.get(how)
    chosen = chosen or next((c for c in last["candidates"] if c["token_id"] == picked), last["greedy"])
    return _take(lab, how, chosen, temperature, top_k, top_p, _step_seed(seed, len(lab["ids"]) + 1), model)


def _take(lab, how, chosen, temperature, top_k, top_p, next_seed, model=None):
    """Append the chosen candidate (a dict of the last result's), then the distribution after it, drawn with
    `next_seed`."""
    last = lab["result"]
    row = [len(lab["history"]) + 1, chosen["token"], chosen["rank"], round(chosen["final"], 4), how,
           last["seed"] if how == "sample" else None]
    written = f"{HOW[how]}{chosen['token_id']}" + (f"@{last['seed']}" if how == "sample" else "")
    ids = lab["ids"] + [chosen["token_id"]]
    result = common.run("decoder", backend.next_token, "", temperature, top_k, top_p, seed=next_seed, token_ids=ids,
                        model_id=model or None)
    return _lab(result, lab["history"] + [row], lab.get("steps", []) + [written])


def restore(text, temperature, top_k, top_p, seed=None, model=None, steps="", progress=None):
    """The lab as a link left it: the distribution after `text`, then each step it names taken again (a sample
    drawn with the seed it was drawn with). A step the model does not offer (a link made with another model)
    ends the restoring there."""
    taken = read_steps(steps)
    seeds = [drawn if how == "sample" else None for how, _, drawn in taken] + [None]
    lab = show(text, temperature, top_k, top_p, seeds[0] if seeds[0] is not None else seed, model, progress)
    for number, (how, token_id, _) in enumerate(taken, start=1):
        last = lab["result"]
        chosen = next((c for c in (last["greedy"], last["sampled"], *last["candidates"]) if c["token_id"] == token_id),
                      None)
        if chosen is None:
            break
        next_seed = seeds[number] if seeds[number] is not None else _step_seed(seed, len(lab["ids"]) + 1)
        lab = _take(lab, how, chosen, temperature, top_k, top_p, next_seed, model)
    return lab


def read_steps(steps) -> list[tuple[str, int, int | None]]:
    """(how, token id, seed of a sample) for each step a link writes ("g464,p1234,s5678@42"), up to the first one
    that does not read as a step and at most MAX_LINK_STEPS."""
    names = {letter: how for how, letter in HOW.items()}
    taken = []
    for written in (str(steps).split(",") if steps else [])[:MAX_LINK_STEPS]:
        found = STEP.fullmatch(written.strip())
        if found is None:
            break
        letter, token_id, drawn = found.groups()
        taken.append((names[letter], int(token_id), int(drawn) if drawn is not None else None))
    return taken


def written_steps(shown) -> str:
    """The steps taken so far, as a link writes them."""
    lab = getattr(shown, "result", None)
    return ",".join(lab.get("steps", [])) if lab else ""


def explain(text: str, token_id=None, layer=None, head=None, model=None):
    """Why the picked candidate (the greedy one until another is picked) after the text now."""
    return backend.explain_next_token(text, token_id, layer, head, model_id=model or None)


def _step_seed(seed, n_tokens: int) -> int | None:
    """With a seed, a fresh draw at every step that a rerun repeats; without one, a new random seed each step."""
    if seed is None or not str(seed).strip():
        return None
    return (common.run("decoder", backend.seed_or_draw, seed) + n_tokens) % MAX_SEED


def build(reader) -> list[Page]:
    intro("lab.page")
    model = common.model_picker("decoder")  # one choice for the lab and the lens
    with gr.Tabs(overflow_behavior="wrap") as tabs:
        lab = build_lab(reader, model)
        lens = logit_lens_tab.build(reader, model)
    return [page.under(tabs, page.id) for page in (lab, lens)]


def build_lab(reader, model) -> Page:
    with tab("lab.sub", id=PAGE_ID):
        intro("lab.about")
        text = gr.Textbox(label=t("lab.text"), lines=1, max_lines=6)
        with gr.Row():
            temperature = gr.Slider(0.05, 2.0, value=1.0, step=0.05, label=t("generate.temperature"))
            top_k = gr.Slider(0, 100, value=0, step=1, label=t("lab.top_k"))
            top_p = gr.Slider(0.05, 1.0, value=1.0, step=0.05, label=t("lab.top_p"))
            seed = common.seed_box()
        show_button = gr.Button(t("lab.show"), variant="primary")
        plot = gr.Plot(label=t("lab.plot"), render=False)
        context = gr.Textbox(label=t("lab.context"), interactive=False, render=False)
        picked = gr.Dropdown(label=t("lab.pick"), choices=[], render=False)
        history = table("lab.history_headers", label=t("lab.history"), interactive=False, render=False)
        raw = gr.JSON(render=False)
        inputs = dict(zip(("text", "temperature", "top_k", "top_p", "seed", "model"),
                          (text, temperature, top_k, top_p, seed, model)))
        task = Task(reader, show, render, inputs, [plot, context, history, raw], page_id=PAGE_ID,
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
        why.section(reader, explain, {"text": context, "token_id": picked}, model=model, page_id=PAGE_ID,
                    api_name="explain_next_token")
        # the steps taken, as a link carries them: a link reopens the lab with its tokens appended
        steps = gr.Textbox("", visible=False)
        task.state.change(written_steps, task.state, steps, api_visibility="private", queue=False, show_progress="hidden")
        task.state.change(choices, task.state, picked, api_visibility="private", queue=False, show_progress="hidden")
        page = task.wire(show_button, text, fields={"steps": steps}, linked=False)  # a link restores its steps:
        restored, restored_inputs = task.also(restore, [*inputs.values(), steps])
        page.runs = (Run(restored, restored_inputs, task.targets, options=task.options),)
        stepped, stepped_inputs = task.also(step, [how := gr.State("greedy"), picked, temperature, top_k, top_p, seed,
                                                   model], with_result=True)
        for button, chosen in ((greedy, "greedy"), (sample, "sample"), (append, "picked")):
            button.click(lambda chosen=chosen: chosen, None, how, api_visibility="private", queue=False).then(
                stepped, stepped_inputs, task.targets, api_visibility="private", **task.options)
    return page
