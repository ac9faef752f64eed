"""The "Use via API" page as a developer reads it: every endpoint, its parameters and outputs named in words, and
the call it shows runs as shown; the README lists the same endpoints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import httpx
import pytest
from gradio_client import Client

README = Path(__file__).resolve().parent.parent / "README.md"
GRADIO_NAME = re.compile(r"^(param|value|parameter)_\d+$")  # what Gradio calls a value it cannot name


@pytest.fixture(scope="module")
def info(app_url) -> dict:
    return httpx.get(f"{app_url}gradio_api/info").json()["named_endpoints"]


def readme_endpoints() -> set[str]:
    """The endpoints README.md's "Using it from code" section names (`/name` in backticks)."""
    section = README.read_text(encoding="utf-8").split("## Using it from code", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`(/[a-z_]+)`", section))


def test_the_readme_lists_every_named_endpoint_and_no_other(info):
    assert readme_endpoints() == set(info)


def test_every_parameter_and_output_has_a_name(app_url):
    endpoints = Client(app_url, verbose=False).view_api(print_info=False, return_format="dict")["named_endpoints"]
    unnamed = [(endpoint, value.get("parameter_name"), value["label"])
               for endpoint, described in endpoints.items()
               for value in (*described["parameters"], *described["returns"])
               if GRADIO_NAME.match(value.get("parameter_name") or "p") or not isinstance(value["label"], str)
               or not value["label"] or GRADIO_NAME.match(value["label"])]
    assert unnamed == []
    assert [p["parameter_name"] for p in endpoints["/explain_fill_mask"]["parameters"]] == [
        "text", "mask", "guess", "layer", "head", "model", "top_k"]


def test_no_label_or_description_is_an_object(info):
    """The API page writes each label and description into its text: an object there reads "[object Object]"."""
    for described in info.values():
        for value in (*described["parameters"], *described["returns"]):
            assert isinstance(value["label"], str)
            assert isinstance(value["python_type"]["type"], str)
            assert isinstance(value["python_type"]["description"], (str, type(None)))


@pytest.mark.parametrize("endpoint", sorted(readme_endpoints()))
def test_each_endpoint_runs_the_call_the_api_page_shows(info, endpoint):
    """The Python snippet of the page, run as it is: a client, the call with the example inputs, a print."""
    snippet = info[endpoint]["code_snippets"]["python"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(snippet, endpoint, "exec"), {})  # noqa: S102 - the app's own snippet, against the test server
    assert printed.getvalue().strip()


def test_the_page_shows_its_examples_and_the_page_s_words(info):
    fill_mask = info["/fill_mask"]
    assert "[MASK]" in fill_mask["parameters"][0]["example_input"]
    assert "[MASK]" in fill_mask["code_snippets"]["python"]
    assert [value["label"] for value in fill_mask["returns"]][-1] == "Raw result (JSON, as the API returns it)"
    assert info["/qa"]["parameters"][0]["label"] == "Question"
    # the snippets write a text between quotes as it is (in the shell, the JSON between single quotes)
    texts = [p["example_input"] for described in info.values() for p in described["parameters"]
             if isinstance(p["example_input"], str)]
    assert not [text for text in texts if set(text) & set("\"'\\\n")]
    assert "“Attention Is All You Need”" in info["/qa"]["parameters"][1]["example_input"]


def test_the_api_page_in_a_browser_shows_no_object_and_no_unnamed_value(app_url, browser):
    page = browser.new_page()
    try:
        page.goto(app_url)
        page.get_by_role("tab", name="Fill-mask").wait_for()
        page.get_by_text("Use via API").click()
        page.get_by_text("/explain_generation").first.wait_for()
        shown = page.inner_text("body")
    finally:
        page.close()
    assert "[object Object]" not in shown
    assert not re.search(r"\b(param|value|parameter)_\d+\b", shown)
    assert 'text="The cat sat on the [MASK]."' in shown
