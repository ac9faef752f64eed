"""What an API call sends, checked against the inputs it fills before a handler sees it, refused in the caller's words.

Gradio checks a value in its component's `preprocess`, before the event's function runs, and outside the request:
a string or a list sent to a number fails there with a TypeError that the API reports as `{"error": null}`, a
400-digit number or NaN with an OverflowError or a ValueError, and its own range and choice messages are English
whatever the caller's language. An event's `validator` runs after that preprocessing, so it comes too late. So the
named endpoints take their values raw (`preprocess=False`, see `common.Task`) and `checked` prepares them inside
the request, where `bg_demo.text` knows the caller's language: a value an input cannot use becomes a gr.Error that
says what to send, and one it can use goes through the component's own `preprocess`, as it would have.
The browser's own controls send only values they can hold, so its events keep Gradio's preprocessing."""

from __future__ import annotations

import functools
import inspect
import json
import math
from contextlib import aclosing

import gradio as gr

from bg_demo import text
from bg_demo.backend._common import encodable
from bg_demo.errors import shown
from bg_demo.ui.strings import words


def checked(fn, components: list):
    """`fn` for an event wired with `preprocess=False`: its first len(components) arguments, the raw values, are
    prepared by `prepare` first (the arguments Gradio adds after them, a gr.Request or gr.Progress, pass as they are)."""
    n = len(components)

    def prepared(args) -> list:
        return [*(prepare(c, value) for c, value in zip(components, args[:n])), *args[n:]]

    if inspect.isasyncgenfunction(fn):

        @functools.wraps(fn)  # gradio reads the signature (progress, request) through __wrapped__
        async def streamed(*args, **kwargs):
            async with aclosing(fn(*prepared(args), **kwargs)) as updates:  # a cancel closes the stream at once
                async for update in updates:
                    yield update

        return streamed

    @functools.wraps(fn)
    def call(*args, **kwargs):
        return fn(*prepared(args), **kwargs)

    return call


def prepare(component, value):
    """The value as the component's `preprocess` makes it, or a gr.Error saying what the input takes."""
    if isinstance(component, (gr.Slider, gr.Number)):
        _check_number(component, value)
    elif isinstance(component, (gr.Radio, gr.Dropdown)):
        _check_choice(component, value)
    elif isinstance(component, gr.Textbox):
        value = _check_text(component, value)
    return component.preprocess(value)


def _refuse(key: str, component, **values):
    label = words(component.label, text.current()) or text.t("input.this")
    raise gr.Error(text.t(key, what=label, **values), print_exception=False)


def _check_text(component, value):
    if value is None:
        return value  # left out: the handler (or the backend) says what it needs
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # a number typed as one, e.g. a seed: as Gradio itself passes it on
    if not isinstance(value, str):
        _refuse("input.not_text", component, got=shown(value))
    if not value.isascii() and not encodable(value):
        _refuse("input.not_unicode", component)
    return value


def _check_number(component, value) -> None:
    if value is None and isinstance(component, gr.Number):
        return  # an empty number box: the handler (or the backend) says what it needs
    low, high, whole = component.minimum, component.maximum, _whole(component)
    if not _fits(value, low, high, whole):
        # one message says what the input takes, whatever was wrong (no input of the app has a maximum only)
        bounds = ".between" if low is not None and high is not None else ".at_least" if low is not None else ""
        _refuse(f"input.{'whole' if whole else 'number'}{bounds}", component, low=low, high=high, got=shown(value))


def _fits(value, low, high, whole: bool) -> bool:
    """Whether a value is a finite number within the bounds, and whole if asked (a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return (low is None or value >= low) and (high is None or value <= high) and (not whole or value == int(value))


def _whole(component) -> bool:
    """Whether the input takes whole numbers only: a number box without decimals, a slider in steps of 1."""
    if isinstance(component, gr.Slider):
        step = component.step or 0
        return step > 0 and float(step).is_integer() and float(component.minimum).is_integer()
    return component.precision == 0


def _check_choice(component, value) -> None:
    if value is None or getattr(component, "multiselect", False):
        return  # left out: the handler (or the backend) says what it needs
    values = [choice for _, choice in component.choices]
    if getattr(component, "allow_custom_value", False):
        if isinstance(value, str):
            return  # a model picker: the backend refuses an id it does not offer, naming the ones it does
    elif _scalar(value) and value in values:
        return
    if not values:
        _refuse("input.no_choices", component, got=shown(value))
    listed = ", ".join(json.dumps(choice, ensure_ascii=False) for choice in values)
    _refuse("input.not_choice", component, choices=listed, got=shown(value))


def _scalar(value) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)
