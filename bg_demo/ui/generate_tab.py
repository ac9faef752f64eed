"""The Generate page (GPT-2): whole decodes, every strategy, streamed; one step at a time is the Next token page."""

from __future__ import annotations

import gradio as gr

from bg_demo import backend, figures
from bg_demo.backend.generation.types import SAMPLING, STRATEGIES, GenerationSettings
from bg_demo.config import ENGINE_ROWS, LIMITS
from bg_demo.errors import InputError
from bg_demo.look import Look
from bg_demo.tokens import join_display
from bg_demo.ui import common, why
from bg_demo.ui.links import Page
from bg_demo.ui.page import Task
from bg_demo.ui.session import SESSIONS
from bg_demo.ui.strings import t
from bg_demo.ui.view import intro


def _plural(n) -> str:
    """English's plural ending for a count (Korean and Japanese leave it out)."""
    return "" if str(n) == "1" else "s"


def status(result, look: Look) -> str:
    """One line on the run: its new tokens, per sequence when there are several (each sequence's, not their sum as
    if it were one text), how long it took and why it stopped."""
    t = look.t
    seed = t("generate.status_seed", seed=result.seed) if result.seed is not None else ""
    if result.waiting:
        return t("generate.waiting", n=result.waiting, plural=_plural(result.waiting))
    lengths = sorted(len(tokens) for tokens in result.generated) or [0]
    each = str(lengths[0]) if lengths[0] == lengths[-1] else f"{lengths[0]}–{lengths[-1]}"
    counts = dict(tokens=result.n_tokens, sequences=len(lengths), each=each, seed=seed)
    several = "_sequences" if len(lengths) > 1 else ""
    if not result.done:
        return t(f"generate.streaming{several}", plural=_plural(each if several else result.n_tokens), **counts)
    rate = result.n_tokens / result.seconds if result.seconds > 0 else 0.0
    ended = sum(result.ended)
    if len(lengths) > 1 and 0 < ended < len(lengths) and result.stopped in ("max new tokens", "time budget", "stopped"):
        # some sequences made their end-of-text token first: each reason, with how many it stopped
        rest = t(f"generate.rest.{result.stopped}", seconds=LIMITS.generation_seconds)
        why = t("generate.why.mixed", ended=ended, sequences=len(lengths), rest=rest)
    else:
        why = t(f"generate.why.{result.stopped}", tokens=lengths[-1], plural=_plural(lengths[-1]),
                seconds=LIMITS.generation_seconds)
    return t(f"generate.status{several}", seconds=result.seconds, rate=rate, why=why,
             plural=_plural(each if several else result.n_tokens), **counts)


def render(result, look: Look):
    cards = [
        (f"<h4>{look.t('generate.sequence', n=i + 1)}</h4>" if len(result.texts) > 1 else "")
        + figures.token_probability_html(result, look, i)
        for i in range(len(result.texts))
    ]
    if not result.done:
        # while streaming only the text and the status change; plain values, because Gradio rebuilds a
        # component for every update object (gr.skip() included) in every message, which a class of
        # streams pays on the event loop
        return "".join(cards), None, status(result, look), None
    cards.append(figures.probability_legend_html(look))
    beams = gr.Plot(figures.beam_figure(result, look), visible=True) if result.beam_steps else gr.Plot(visible=False)
    return "".join(cards), beams, status(result, look), result.to_dict()


async def generate(prompt, strategy, max_new_tokens, temperature, top_k, top_p, num_beams, num_return_sequences,
                   seed=None, no_repeat_ngram_size=0, repetition_penalty=1.0, model=None, request=None, progress=None):
    """Stream a generation; `seed` may be left out (None): a sampling strategy then draws one and reports it."""
    def submit():
        settings = GenerationSettings(
            strategy, max_new_tokens, temperature, top_k, top_p, num_beams, num_return_sequences, seed,
            no_repeat_ngram_size, repetition_penalty,
        )
        return backend.submit_generation(prompt, settings, model_id=model or None, client=session)

    session = request.session_hash if request is not None else ""
    async for result in common.stream("decoder", submit, session, progress, model or None):
        yield result


def explain(prompt: str, result: dict | None, sequence=1, layer=None, head=None, model=None):
    """Why the last token of a sequence on screen (counted from 1): its probability at temperature 1, as coloured."""
    generated = _read(result, "generated", list) or [[]]
    chosen = _sequence(sequence, len(generated))
    return backend.explain_generation(prompt, [token.get("token_id") for token in generated[chosen]], layer, head,
                                      model_id=model or None)


def written(prompt: str, result: dict | None, sequence=1) -> str | None:
    """The text on screen (the prompt and that sequence, read from its token labels: whole characters, where the
    result's `texts` would end a cut one with U+FFFD), for the Attention tab's link."""
    generated = _read(result, "generated", list) or [[]]
    tokens = generated[_sequence(sequence, len(generated))]
    return f"{prompt}{join_display([token['token'] for token in tokens])}" or None


def _read(result, name: str, kind: type) -> list:
    """result[name], a list of `kind` (token lists hold dicts), from a generation's raw result; [] when the value
    is anything else (an API call may send any JSON): the explanation then asks for a generation first."""
    found = result.get(name) if isinstance(result, dict) else None
    if not isinstance(found, list) or not all(isinstance(item, kind) for item in found):
        return []
    if kind is list and not all(isinstance(token, dict) for item in found for token in item):
        return []
    return found


def _sequence(number, available: int) -> int:
    """The index of the sequence the page's box picks (it counts from 1), or a message naming those on screen."""
    fits = isinstance(number, (int, float)) and not isinstance(number, bool) and 1 <= number <= available
    if not fits or number != int(number):  # NaN passes no comparison; 1.5 is no sequence
        raise InputError("why.sequence_range", n=available)  # shown beside the outputs like a backend's
    return int(number) - 1


async def stop_generating(request: gr.Request) -> None:
    """End this browser's generations: each stream sends its partial result, coloured, as its last."""
    await SESSIONS.stop(request.session_hash)


def controls_for(strategy: str):
    """Only the settings a strategy uses are editable."""
    sampling = strategy in SAMPLING
    return (
        gr.Slider(interactive=sampling),
        gr.Slider(interactive=strategy == "top_k"),
        gr.Slider(interactive=strategy == "top_p"),
        gr.Slider(interactive=strategy == "beam"),
        gr.Textbox(interactive=sampling),
    )


TAB_ID = "generate"
PATH = "generate"  # its address: /generate
TITLE = "generate.tab"  # its name in the navigation
IDS = (TAB_ID,)  # the pages a link opens here (`?tab=<id>`)


def build(reader) -> list[Page]:
    intro("generate.about")
    model = common.model_picker("decoder")
    with gr.Column(elem_classes=["bg-generate"]):  # Stop stays in reach while a generation runs (style.css)
        return [_build_generation(reader, model)]


def _build_generation(reader, model) -> Page:
    # the prompt sends on Enter like every other box (Shift+Enter for a new line), and Generate and Stop come
    # right after it, one Tab press away
    with gr.Row(equal_height=True):
        prompt = gr.Textbox(label=t("generate.prompt"), lines=1, max_lines=6, scale=4, min_width=240)
        with gr.Column(scale=1, min_width=160):
            run = gr.Button(t("generate.run"), variant="primary")
            stop = gr.Button(t("generate.stop"), variant="stop", elem_classes=["bg-stop"])
    strategy = gr.Radio([(t(f"generate.strategy.{s}"), s) for s in STRATEGIES], value="greedy",
                        label=t("generate.strategy"))
    with gr.Row():
        # a box, not a slider: a slider's box brings a typed 0 or 100000 back within its range without a word;
        # here the backend refuses it beside the output, naming the range the label shows
        max_new_tokens = gr.Number(40, label=t("generate.max_new_tokens", high=LIMITS.max_new_tokens), min_width=160)
        temperature = gr.Slider(0.05, 2.0, value=1.0, step=0.05, label=t("generate.temperature"), interactive=False)
        top_k = gr.Slider(1, 200, value=50, step=1, label=t("generate.top_k"), interactive=False)
        top_p = gr.Slider(0.05, 1.0, value=0.9, step=0.05, label=t("generate.top_p"), interactive=False)
    with gr.Row():
        num_beams = gr.Slider(2, LIMITS.max_beams, value=4, step=1, label=t("generate.num_beams"), interactive=False)
        sequences = gr.Slider(1, LIMITS.max_sequences, value=1, step=1, label=t("generate.num_return_sequences"))
        seed = common.seed_box(interactive=False)
    with gr.Accordion(t("generate.repetition"), open=False):
        with gr.Row():
            no_repeat = gr.Slider(0, 6, value=0, step=1, label=t("generate.no_repeat"))
            penalty = gr.Slider(1.0, 2.0, value=1.0, step=0.05, label=t("generate.penalty"))
    text = gr.HTML(label=t("generate.output"), render=False)
    beams = gr.Plot(label=t("generate.beams"), visible=False, render=False)
    summary = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    names = ("prompt", "strategy", "max_new_tokens", "temperature", "top_k", "top_p", "num_beams", "sequences", "seed",
             "no_repeat_ngram_size", "repetition_penalty", "model")
    inputs = [prompt, strategy, max_new_tokens, temperature, top_k, top_p, num_beams, sequences, seed, no_repeat,
              penalty, model]
    # generations wait on the engine without holding a thread: as many run at once as the engine has rows on the
    # largest device (64 on CUDA; a CPU's 32 rows leave the others waiting in the engine, told their place)
    task = Task(reader, generate, render, dict(zip(names, inputs)), [text, beams, summary, raw], page_id=TAB_ID,
                api_name="generate", concurrency_id="generate", concurrency_limit=ENGINE_ROWS,
                # transformers' name, the backend's, which the endpoint took before it took `sequences`
                aliases={"num_return_sequences": "sequences"})
    # examples only fill the inputs, then start the same Generate event, so Stop can stop every run
    loaded = common.examples("generate", inputs, task.targets, task.handler,
                             lambda rows: [row["label"] for row in rows],
                             samples=lambda rows: [row["inputs"] for row in rows], all_inputs=task.all_inputs,
                             **task.options)
    # the status line first: after Stop with several long sequences it was screens below them, out of sight
    task.render([summary, text, beams])
    with gr.Accordion(t("common.raw"), open=False):
        raw.render()
    page = task.wire(run, prompt)
    # Stop ends a running generation with its result so far, then cancels any still waiting in the queue
    stop.click(stop_generating, None, None, api_visibility="private", concurrency_limit=None).then(
        None, cancels=[*task.events, loaded.run]
    )
    strategy.change(controls_for, strategy, [temperature, top_k, top_p, num_beams, seed], api_visibility="private",
                    show_progress="hidden")
    def which() -> dict:
        # no minimum or maximum: `explain` names the sequences on screen, beside the output, in the page's language
        return {"sequence": gr.Number(1, label=t("why.sequence"), min_width=120)}

    why.section(reader, explain, {"prompt": prompt, "result": raw}, model=model, page_id=TAB_ID, api_name="explain_generation",
                link=written, choices=which)
    return page
