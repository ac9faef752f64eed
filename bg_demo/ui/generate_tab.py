"""Generate tab (GPT-2): decoding strategies with streaming, then the next-token lab and the logit lens."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.backend.generate import SAMPLING, STRATEGIES, GenerationSettings
from bg_demo.config import LIMITS
from bg_demo.ui import common, logit_lens_tab, next_token_tab
from bg_demo.ui.links import Page, share_row
from bg_demo.ui.strings import examples, t


def status(result) -> str:
    seed = t("generate.status_seed", seed=result.seed) if result.seed is not None else ""
    if result.waiting:
        return t("generate.waiting", n=result.waiting)
    if not result.done:
        return t("generate.streaming", tokens=result.n_tokens, seed=seed)
    rate = result.n_tokens / result.seconds if result.seconds > 0 else 0.0
    why = t(f"generate.why.{result.stopped}", tokens=result.n_tokens, seconds=LIMITS.generation_seconds)
    return t("generate.status", tokens=result.n_tokens, seconds=result.seconds, rate=rate, seed=seed, why=why)


def view(result):
    cards = [
        (f"<h4>{t('generate.sequence', n=i + 1)}</h4>" if len(result.texts) > 1 else "")
        + figures.token_probability_html(result, i)
        for i in range(len(result.texts))
    ]
    if not result.done:
        # while streaming only the text and the status change; plain values, because Gradio rebuilds a
        # component for every update object (gr.skip() included) in every message, which a class of
        # streams pays on the event loop
        return "".join(cards), None, status(result), None
    cards.append(figures.probability_legend_html())
    beams = gr.Plot(figures.beam_figure(result), visible=True) if result.beam_steps else gr.Plot(visible=False)
    return "".join(cards), beams, status(result), result.to_dict()


async def generate(prompt, strategy, max_new_tokens, temperature, top_k, top_p, num_beams, num_return_sequences,
                   seed, no_repeat_ngram_size, repetition_penalty, request: gr.Request, progress=gr.Progress()):
    def submit():
        settings = GenerationSettings(
            strategy, max_new_tokens, temperature, top_k, top_p, num_beams, num_return_sequences, seed,
            no_repeat_ngram_size, repetition_penalty,
        )
        return backend.submit_generation(prompt, settings)

    async for result in common.stream("decoder", submit, request.session_hash, progress):
        yield view(result)


async def stop_generating(request: gr.Request) -> None:
    """End this browser's generations: each stream sends its partial result, coloured, as its last."""
    await common.STREAMS.stop(request.session_hash)


def controls_for(strategy: str):
    """Only the settings a strategy uses are editable."""
    sampling = strategy in SAMPLING
    return (
        gr.Slider(interactive=sampling),
        gr.Slider(interactive=strategy == "top_k"),
        gr.Slider(interactive=strategy == "top_p"),
        gr.Slider(interactive=strategy == "beam"),
        gr.Number(interactive=sampling),
    )


TAB_ID = "generate"


def build() -> list[Page]:
    with gr.Tab(t("generate.tab"), id=TAB_ID):
        gr.Markdown(t("generate.about"))
        with gr.Tabs() as tabs:
            with gr.Tab(t("generate.sub"), id="generate_text"):
                fields = _build_generation()
            lab = next_token_tab.build()
            lens = logit_lens_tab.build()
    return [
        Page(TAB_ID, fields, ((tabs, "generate_text"),)),
        Page(next_token_tab.PAGE_ID, lab, ((tabs, next_token_tab.PAGE_ID),)),
        Page(logit_lens_tab.PAGE_ID, lens, ((tabs, logit_lens_tab.PAGE_ID),)),
    ]


def _build_generation() -> dict:
    prompt = gr.Textbox(label=t("generate.prompt"), lines=2, max_length=LIMITS.max_prompt_chars)
    strategy = gr.Radio(list(STRATEGIES), value="greedy", label=t("generate.strategy"))
    with gr.Row():
        max_new_tokens = gr.Slider(1, LIMITS.max_new_tokens, value=40, step=1, label=t("generate.max_new_tokens"))
        temperature = gr.Slider(0.05, 2.0, value=1.0, step=0.05, label=t("generate.temperature"), interactive=False)
        top_k = gr.Slider(1, 200, value=50, step=1, label=t("generate.top_k"), interactive=False)
        top_p = gr.Slider(0.05, 1.0, value=0.9, step=0.05, label=t("generate.top_p"), interactive=False)
    with gr.Row():
        num_beams = gr.Slider(2, LIMITS.max_beams, value=4, step=1, label=t("generate.num_beams"), interactive=False)
        sequences = gr.Slider(1, LIMITS.max_sequences, value=1, step=1, label=t("generate.num_return_sequences"))
        seed = gr.Number(None, precision=0, label=t("generate.seed"), interactive=False)
    with gr.Accordion(t("generate.repetition"), open=False):
        with gr.Row():
            no_repeat = gr.Slider(0, 6, value=0, step=1, label=t("generate.no_repeat"))
            penalty = gr.Slider(1.0, 2.0, value=1.0, step=0.05, label=t("generate.penalty"))
    with gr.Row():
        run = gr.Button(t("generate.run"), variant="primary")
        stop = gr.Button(t("generate.stop"), variant="stop")
    text = gr.HTML(label=t("generate.output"), render=False)
    beams = gr.Plot(label=t("generate.beams"), visible=False, render=False)
    summary = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    inputs = [prompt, strategy, max_new_tokens, temperature, top_k, top_p, num_beams, sequences, seed, no_repeat,
              penalty]
    outputs = [text, beams, summary, raw]
    # generations wait on the engine without holding a thread: as many run at once as the engine has rows
    streaming = dict(concurrency_id="generate", concurrency_limit=LIMITS.batch_rows)
    clicked = run.click(generate, inputs, outputs, api_name="generate", **streaming)
    submitted = prompt.submit(generate, inputs, outputs, api_visibility="private", **streaming)
    rows = examples()["generate"]  # after the click: the examples' own event must not take the name
    # examples only fill the inputs, then start the same Generate event, so Stop can stop every run
    loaded = gr.Examples(
        [row["inputs"] for row in rows], inputs, label=t("common.examples"),
        example_labels=[row["label"] for row in rows], api_visibility="private",
    ).load_input_event.then(generate, inputs, outputs, api_visibility="private", **streaming)
    common.render_outputs(outputs)
    # Stop ends a running generation with its result so far, then cancels any still waiting in the queue
    stop.click(stop_generating, None, None, api_visibility="private", concurrency_limit=None).then(
        None, cancels=[clicked, submitted, loaded]
    )
    strategy.change(controls_for, strategy, [temperature, top_k, top_p, num_beams, seed], api_visibility="private")
    names = ("prompt", "strategy", "max_new_tokens", "temperature", "top_k", "top_p", "num_beams", "sequences", "seed",
             "no_repeat_ngram_size", "repetition_penalty")
    fields = dict(zip(names, inputs))
    share_row(TAB_ID, fields)
    return fields
