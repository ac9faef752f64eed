"""Links a teacher can share: `?tab=<page>&<field>=<value>…&run=1` opens a page (a tab or a sub-tab) with
its inputs and view controls filled in and, with `run=1`, runs it, so the link shows the result. The same
mechanism opens (and runs) the steps of the guided path on the Start tab."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import partial

import gradio as gr

from bg_demo.ui.strings import t

RUN = "run"  # the query parameter that runs the page once its fields are filled


@dataclass(frozen=True, eq=False)  # each Run is its own trigger: compared by identity
class Run:
    """What a page runs when a link asks for it: `fn(*inputs) -> outputs`, as its run button does."""

    fn: object
    inputs: list
    outputs: list
    needs: tuple = ()  # fields the link must give for this run (a page with several sections runs those it fills)
    options: dict = field(default_factory=dict)  # event options (concurrency group)


@dataclass
class Page:
    id: str  # the value of the `tab` query parameter
    fields: dict  # query parameter -> input component
    path: tuple = field(default=())  # (gr.Tabs, tab id) pairs to select, outermost first
    runs: tuple = field(default=())  # Run for each part of the page a link may run

    def under(self, tabs: gr.Tabs, tab_id: str) -> Page:
        return Page(self.id, self.fields, ((tabs, tab_id), *self.path), self.runs)


def share_row(page_id: str, fields: dict) -> None:
    """A "copy link" control: the link to this page with the inputs as they are now."""
    with gr.Row(equal_height=True):
        button = gr.Button(t("link.button"), size="sm", scale=1, min_width=160)
        url = gr.Textbox(show_label=False, placeholder=t("link.placeholder"), buttons=["copy"],
                         interactive=False, scale=5, elem_classes=["bg-share-url"])
    names = json.dumps(list(fields))
    js = (
        f"(...values) => {{ const p = new URLSearchParams({{tab: {json.dumps(page_id)}}});"
        f" {names}.forEach((n, i) => {{ if (values[i] !== null && values[i] !== undefined && values[i] !== '')"
        " p.set(n, values[i]); });"
        f" p.set({json.dumps(RUN)}, '1');"
        # the language on screen, so the class sees the page in the teacher's language (English needs no mark)
        " const lang = (document.documentElement.lang || '').split('-')[0];"
        " if (lang && lang !== 'en') p.set('lang', lang);"
        " const u = window.location.origin + window.location.pathname + '?' + p.toString();"
        " if (navigator.clipboard) navigator.clipboard.writeText(u).catch(() => {}); return u; }"
    )
    button.click(None, list(fields.values()), url, js=js, api_visibility="private")


def convert(component, raw: str):
    """The query string value as the component's value, or None when it does not fit."""
    try:
        if isinstance(component, (gr.Slider, gr.Number)):
            number = float(raw)
            low, high = getattr(component, "minimum", None), getattr(component, "maximum", None)
            if (low is not None and number < low) or (high is not None and number > high):
                return None
            return int(number) if number.is_integer() else number
        if isinstance(component, (gr.Radio, gr.Dropdown)):
            choices = [choice[1] if isinstance(choice, tuple) else choice for choice in component.choices]
            return raw if raw in choices else None
        if isinstance(component, gr.Checkbox):
            return raw.lower() in {"1", "true", "yes", "on"}
        return raw  # never cut: an over-long text is refused by the server, with its length and the limit
    except (TypeError, ValueError):
        return None


def _truthy(raw) -> bool:
    return str(raw).lower() in {"1", "true", "yes", "on"}


class Links:
    """Opens pages: selects their tabs, fills their inputs and, when asked, runs them; everything else is left
    as it is. A run is started through a hidden trigger per Run, so only the page asked for does any work."""

    def __init__(self, pages: list[Page]):
        self.pages = {page.id: page for page in pages}
        self.tabs = list(dict.fromkeys(tabs for page in pages for tabs, _ in page.path))
        self.fields = list(dict.fromkeys(c for page in pages for c in page.fields.values()))
        self.triggers = {run: gr.State(0) for page in pages for run in page.runs}

    def outputs(self) -> list:
        return [*self.tabs, *self.fields, *self.triggers.values()]

    def open(self, page_id: str, values: dict, run: bool = False) -> list:
        page = self.pages.get(page_id)
        if page is None:
            return [gr.skip()] * len(self.outputs())
        selected = dict(page.path)
        tab_updates = [gr.Tabs(selected=selected[tabs]) if tabs in selected else gr.skip() for tabs in self.tabs]
        wanted = {page.fields[name]: value for name, value in values.items() if name in page.fields}
        field_updates = []
        for component in self.fields:
            value = wanted.get(component)
            if isinstance(value, str):
                value = convert(component, value)
            field_updates.append(gr.skip() if value is None else gr.update(value=value))
        given = {name for name, value in values.items() if value not in (None, "")}
        started = {r for r in page.runs if run and set(r.needs) <= given}
        # a new value each time, so the trigger's change event fires even for the same link twice
        run_updates = [time.time_ns() if r in started else gr.skip() for r in self.triggers]
        return [*tab_updates, *field_updates, *run_updates]

    def on_load(self, request: gr.Request) -> list:
        params = dict(request.query_params) if request is not None else {}
        run = _truthy(params.pop(RUN, ""))
        return self.open(params.pop("tab", ""), params, run)

    def wire(self, demo: gr.Blocks, steps=()) -> None:
        """Read the URL on load; make each (button, page id, values) step open its page and run it."""
        # queued (a run's trigger fires from a queued event only), with no limit: opening never waits on a model
        demo.load(self.on_load, None, self.outputs(), api_visibility="private", concurrency_limit=None)
        for button, page_id, values in steps:
            opened = partial(self.open, page_id, values, True)
            button.click(opened, None, self.outputs(), api_visibility="private", concurrency_limit=None)
        for run, trigger in self.triggers.items():
            trigger.change(run.fn, run.inputs, run.outputs, api_visibility="private", **run.options)
