"""The "why" view under a task's result: attention from the prediction beside attribution of it, run only
when asked (an explanation costs dozens of passes; the prediction stays as fast as before)."""

from __future__ import annotations

import inspect
from urllib.parse import urlencode

import gradio as gr

from bg_demo import figures
from bg_demo.look import Look
from bg_demo.ui.page import Task
from bg_demo.ui.strings import I18N, t

LAYERS, HEADS = 24, 16  # choices offered before a model is loaded; the first explanation fits them to the model


def _choice(value):
    return None if value in (None, "", "last", "mean") else int(value)


def summary(result, look: Look, link_text: str | None) -> str:
    """Rank correlation, completeness, why they can disagree, and a link to the Attention tab at this view."""
    head = look.t("why.mean") if result.head is None else look.t("why.head_n", head=result.head)
    lines = [
        look.t("why.spearman", rho=result.spearman, n=len(result.tokens), layer=result.layer, head=head),
        look.t("why.completeness", total=sum(result.integrated_gradients), p=result.score,
               base=result.baseline_score, gap=abs(result.completeness_gap), steps=result.steps),
        look.t("why.disagree"),
    ]
    if link_text is not None:
        view = {"view": "mean"} if result.head is None else {"view": "head", "head": result.head}
        role = "decoder" if result.role == "decoder" else "encoder"
        query = urlencode({"tab": "attention", "text": link_text, "role": role, "layer": result.layer, **view,
                           "run": 1})
        lines.append(look.t("why.link", url=f"?{query}"))
    return "\n\n".join(lines)


def _layers(n: int, label=t) -> list[tuple[str, str]]:
    """The layer choices: "last", then each layer. Labelled with I18n keys (`label`: `I18N` once the page is built),
    which the browser words in the page's language, now and after a switch."""
    return [(label("why.last"), "last"), *((str(i), str(i)) for i in range(n))]


def _heads(n: int, label=t) -> list[tuple[str, str]]:
    return [(label("why.mean"), "mean"), *((str(i), str(i)) for i in range(n))]


def fit(raw):
    """The layer and head choices of the model just explained (read from its result)."""
    if not raw:
        return gr.skip(), gr.skip()
    return gr.Dropdown(choices=_layers(raw["n_layers"], I18N)), gr.Dropdown(choices=_heads(raw["n_heads"], I18N))


def every_layer():
    """The choices offered before a model is explained, for another model of the page (it may have more layers than
    the one explained last; an explanation refuses a layer or head its model lacks, naming the model's range): those
    the panel is built with."""
    return gr.Dropdown(choices=_layers(LAYERS, I18N)), gr.Dropdown(choices=_heads(HEADS, I18N))


def first_input(text, *_):
    return text


def section(reader, explain, inputs: dict, *, page_id: str, api_name: str, link=first_input, choices=None,
            model: gr.Dropdown | None = None, shown: dict | None = None) -> None:
    """A closed "Why?" panel: layer and head choices, an Explain button, the rows and the summary, and a
    named API endpoint. explain(*inputs, layer, head) -> Explanation, layer/head None for "last"/"mean";
    link(*inputs) is the text the Attention tab is opened with (None: no link, for a model that tab does not
    show); choices() makes the panel's own inputs (which mask, entity or sequence), added after `inputs`;
    `model` is the page's model picker, passed as explain(..., model=…) and last in the API's inputs but for
    `shown`: the page's inputs an explanation must agree with (how many guesses are on screen), passed by name.
    An `explain` that takes `request` is given Gradio's (the session's own state: a student's fine-tuned model)."""
    shown = shown or {}
    asks = "request" in inspect.signature(explain).parameters
    with gr.Accordion(t("why.title"), open=False):
        gr.Markdown(t("why.about"))
        with gr.Row(equal_height=True):
            inputs = {**inputs, **(choices() if choices else {})}
            layer = gr.Dropdown(_layers(LAYERS), value="last", label=t("why.layer"), min_width=120)
            head = gr.Dropdown(_heads(HEADS), value="mean", label=t("why.head"), min_width=120)
            button = gr.Button(t("why.run"), variant="secondary", min_width=160, elem_classes=["bg-run"])
        plot = gr.Plot(label=t("why.plot"), render=False)
        notes = gr.Markdown(render=False)
        raw = gr.JSON(render=False)

        def why(*values, request=None):
            n = len(values) - len(shown)
            values, options = values[:n], dict(zip(shown, values[n:]))
            if asks:
                options["request"] = request
            if model is not None:
                *values, chosen = values
                options["model"] = chosen or None
            *given, layer_value, head_value = values
            result = explain(*given, _choice(layer_value), _choice(head_value), **options)
            return result, link(*given) if link is not None else None

        why.__name__ = api_name  # its page event: "<api_name>_in_page"; its endpoint: `page.endpoint_function`

        def render(found, look: Look):
            result, text = found
            return figures.explanation_rows(result, look), summary(result, look, text), result.to_dict()

        picked = {"model": model} if model is not None else {}
        fields = {**inputs, "layer": layer, "head": head, **picked, **shown}
        task = Task(reader, why, render, fields, [plot, notes, raw], page_id=page_id, api_name=api_name,
                    concurrency_id=f"{page_id}_why")  # its own group: the page's runs many at once
        task.render()
        task.wire(button, share=False, linked=False)  # a link opens the page, not its panel
        for event in task.events:
            event.then(fit, raw, [layer, head], api_visibility="private", show_progress="hidden")
        if model is not None:
            model.change(every_layer, None, [layer, head], api_visibility="private", queue=False, show_progress="hidden")
