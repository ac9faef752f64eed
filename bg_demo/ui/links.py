"""Links a teacher can share: `?tab=<page>&<field>=<value>…` opens a page (a tab or a sub-tab) with its
inputs filled in. The same mechanism opens the steps of the guided path on the Start tab."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial

import gradio as gr

from bg_demo.ui.strings import t


@dataclass
class Page:
    id: str  # the value of the `tab` query parameter
    fields: dict  # query parameter -> input component
    path: tuple = field(default=())  # (gr.Tabs, tab id) pairs to select, outermost first

    def under(self, tabs: gr.Tabs, tab_id: str) -> Page:
        return Page(self.id, self.fields, ((tabs, tab_id), *self.path))


def share_row(page_id: str, fields: dict) -> None:
    """A "copy link" control: the link to this page with the inputs as they are now."""
    with gr.Row(equal_height=True):
        button = gr.Button(t("link.button"), size="sm", scale=1, min_width=160)
        url = gr.Textbox(show_label=False, placeholder=t("link.placeholder"), buttons=["copy"],
                         interactive=False, scale=5, elem_classes=["bg-share-url"])
    names = json.dumps(list(fields))
    js = (
        f"(...values) => {{ const p = new URLSearchParams({{tab: {json.dumps(page_id)}}});"
        f" {names}.forEach((n, i) => {{ if (values[i] !== null && values[i] !== undefined) p.set(n, values[i]); }});"
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
        return raw[: getattr(component, "max_length", None) or len(raw)]
    except (TypeError, ValueError):
        return None


class Links:
    """Opens pages: selects their tabs and fills their inputs; everything else is left as it is."""

    def __init__(self, pages: list[Page]):
        self.pages = {page.id: page for page in pages}
        self.tabs = list(dict.fromkeys(tabs for page in pages for tabs, _ in page.path))
        self.fields = list(dict.fromkeys(c for page in pages for c in page.fields.values()))

    def outputs(self) -> list:
        return [*self.tabs, *self.fields]

    def open(self, page_id: str, values: dict) -> list:
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
        return [*tab_updates, *field_updates]

    def on_load(self, request: gr.Request) -> list:
        params = dict(request.query_params) if request is not None else {}
        return self.open(params.pop("tab", ""), params)

    def wire(self, demo: gr.Blocks, steps=()) -> None:
        """Read the URL on load; make each (button, page id, values) step open its page."""
        demo.load(self.on_load, None, self.outputs(), api_visibility="private", queue=False)
        for button, page_id, values in steps:
            button.click(partial(self.open, page_id, values), None, self.outputs(), api_visibility="private", queue=False)
