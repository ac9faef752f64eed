"""Shareable links: query parameters select a page and fill its inputs, and nothing else."""

import gradio as gr
import pytest

from bg_demo.ui.links import Links, Page, Run, convert


@pytest.fixture
def links():
    with gr.Blocks():
        with gr.Tabs() as outer:
            with gr.Tab("A", id="a"):
                text = gr.Textbox(max_length=10)
                top_k = gr.Slider(1, 20, step=1)
            with gr.Tab("B", id="b"):
                with gr.Tabs() as inner:
                    with gr.Tab("B1", id="b1"):
                        choice = gr.Radio(["none", "simple"])
                        seed = gr.Number(precision=0)
    pages = [
        Page("a", {"text": text, "top_k": top_k}).under(outer, "a"),
        Page("b1", {"choice": choice, "seed": seed}, ((inner, "b1"),)).under(outer, "b"),
    ]
    return Links(pages), (outer, inner, text, top_k, choice, seed)


def _value(update):
    return update.get("value") if isinstance(update, dict) else getattr(update, "value", update)


def test_outputs_are_every_tabs_then_every_field(links):
    links, components = links
    assert links.outputs() == list(components)


def test_a_link_selects_nested_tabs_and_fills_only_its_page(links):
    links, _ = links
    outer, inner, text, top_k, choice, seed = links.open("b1", {"choice": "simple", "seed": "42", "text": "ignored"})
    assert outer.selected == "b" and inner.selected == "b1"
    assert _value(choice) == "simple" and _value(seed) == 42
    assert text is gr.skip() or _value(text) is None  # another page's field is left alone
    assert top_k is gr.skip() or _value(top_k) is None


def test_values_are_checked_against_each_input(links):
    links, (outer, inner, text, top_k, choice, seed) = links
    assert convert(top_k, "7") == 7 and convert(top_k, "70") is None and convert(top_k, "seven") is None
    assert convert(choice, "simple") == "simple" and convert(choice, "evil") is None
    assert convert(text, "x" * 50) == "x" * 50  # never cut in the browser: the server says what is too long
    updates = links.open("a", {"top_k": "999", "text": "hello"})
    assert _value(updates[2]) == "hello" and _value(updates[3]) is None


def test_unknown_page_changes_nothing(links):
    links, components = links
    assert all(_value(update) is None for update in links.open("nowhere", {"text": "x"}))


def test_run_starts_only_the_runs_whose_fields_the_link_gives():
    with gr.Blocks():
        text, first, second = gr.Textbox(), gr.Textbox(), gr.Textbox()
    whole = Run(print, [text], [])
    pair = Run(print, [first, second], [], needs=("first", "second"))
    links = Links([Page("p", {"text": text, "first": first, "second": second}, runs=(whole, pair))])
    *_, whole_trigger, pair_trigger = links.open("p", {"text": "hi"}, run=True)
    assert isinstance(whole_trigger, int) and _value(pair_trigger) is None
    *_, whole_trigger, pair_trigger = links.open("p", {"first": "a", "second": "b"}, run=True)
    assert isinstance(whole_trigger, int) and isinstance(pair_trigger, int)
    assert all(_value(update) is None for update in links.open("p", {"text": "hi"})[-2:])  # no run=1: nothing runs
