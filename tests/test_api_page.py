"""The "Use via API" page as a developer reads it: every endpoint, its parameters and outputs named in words, and
the call it shows runs as shown; docs/api.md lists the same endpoints."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import httpx
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError
from playwright.sync_api import expect

from bg_demo import text

API_DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
GRADIO_NAME = re.compile(r"^(param|value|parameter)_\d+$")  # what Gradio calls a value it cannot name


@pytest.fixture(scope="module")
def info(app_url) -> dict:
    return httpx.get(f"{app_url}gradio_api/info").json()["named_endpoints"]


def documented_endpoints() -> set[str]:
    """The endpoints docs/api.md's "Endpoints" section names (`/name` in backticks)."""
    section = API_DOC.read_text(encoding="utf-8").split("\n## Endpoints\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`(/[a-z_]+)`", section))


def test_the_api_doc_lists_every_named_endpoint_and_no_other(info):
    assert documented_endpoints() == set(info)


def test_every_parameter_and_output_has_a_name(app_url):
    endpoints = Client(app_url, verbose=False).view_api(print_info=False, return_format="dict")["named_endpoints"]
    unnamed = [(endpoint, value.get("parameter_name"), value["label"])
               for endpoint, described in endpoints.items()
               for value in (*described["parameters"], *described["returns"])
               if GRADIO_NAME.match(value.get("parameter_name") or "p") or not isinstance(value["label"], str)
               or not value["label"] or GRADIO_NAME.match(value["label"])]
    assert unnamed == []
    assert [p["parameter_name"] for p in endpoints["/explain_fill_mask"]["parameters"]] == [
        "text", "mask", "guess", "layer", "head", "model", "top_k", "lang", "width"]


def test_no_label_or_description_is_an_object(info):
    """The API page writes each label and description into its text: an object there reads "[object Object]"."""
    for described in info.values():
        for value in (*described["parameters"], *described["returns"]):
            assert isinstance(value["label"], str)
            assert isinstance(value["python_type"]["type"], str)
            assert isinstance(value["python_type"]["description"], (str, type(None)))
    # in words, not the page's text keys (which only the browser's tabs translate)
    labels = {value["label"] for described in info.values() for value in described["parameters"]}
    assert {"Sentence with one or more [MASK]", "Question"} <= labels
    assert not [label for label in labels if re.fullmatch(r"[a-z_]+(\.[a-z_0-9]+)+", label)]


# endpoints that read what the same client made before (its fine-tuned model, the session's own): the page's call,
# alone in a new client, is refused with what to run first
NEEDS_EARLIER = {"/explain_tune_bert": "Fine-tune a model on this page first",
                 "/explain_tune_gpt": "Fine-tune a model on this page first"}


@pytest.mark.parametrize("endpoint", sorted(documented_endpoints()))
def test_each_endpoint_runs_the_call_the_api_page_shows(info, endpoint):
    """The Python snippet of the page, run as it is: a client, the call with the example inputs, a print."""
    snippet = info[endpoint]["code_snippets"]["python"]
    printed = io.StringIO()
    if endpoint in NEEDS_EARLIER:
        with pytest.raises(AppError, match=NEEDS_EARLIER[endpoint]):
            exec(compile(snippet, endpoint, "exec"), {})  # noqa: S102 - the app's own snippet, against the test server
        return
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


def test_the_examples_stay_after_a_student_runs_one(app_url, browser):
    page = browser.new_page()
    try:
        page.goto(f"{app_url}?tab=fill_mask")
        page.get_by_text("The cat sat on the [MASK].").first.click()  # an example: loads and runs
        expect(page.get_by_label("Sentence with the best guess for each mask")).not_to_have_value("")
    finally:
        page.close()
    info = httpx.get(f"{app_url}gradio_api/info").json()["named_endpoints"]
    assert info["/fill_mask"]["parameters"][0]["example_input"] == "The cat sat on the [MASK]."


def test_the_api_page_in_a_browser_shows_no_object_and_no_unnamed_value(app_url, browser):
    # each page's "Use via API" lists that page's endpoints (Gradio's pages): the first call of /fill-mask with its
    # example, the Why? endpoint of /generate
    shown = {}
    for path, wanted in [("fill-mask", 'text="The cat sat on the [MASK]."'), ("generate", "/explain_generation")]:
        page = browser.new_page()
        try:
            page.goto(f"{app_url}{path}")
            page.locator(".bg-nav").wait_for()  # the page has drawn
            page.get_by_text("Use via API").click()
            # the page opens on its MCP tab once it has found the app's MCP server (its tools: test_mcp.py); then Python
            page.get_by_text("MCP Server URL").first.wait_for()
            page.get_by_text("Python", exact=True).first.click()
            page.get_by_text(wanted).first.wait_for()
            shown[path] = page.inner_text("body")
        finally:
            page.close()
    assert "/generate" not in shown["fill-mask"] and "/fill_mask" not in shown["generate"]  # each its own page's
    for body in shown.values():
        assert "[object Object]" not in body
        assert not re.search(r"\b(param|value|parameter)_\d+\b", body)


# --- a call with the wrong number of values -----------------------------------------------------------------------

# /explain_fill_mask's values before it gained `top_k` (what an older client sends)
WHY_FILL_MASK = ["The cat sat on the [MASK].", 1, 1, "last", "mean", ""]


def rest(app_url: str, endpoint: str, data: list, **headers) -> tuple[int, object]:
    """A REST call as Gradio's docs show it (curl): POST the values to `/gradio_api/call/<name>`, then read the
    result's event stream. (status, JSON body) when the POST is refused, else (200, (last event, its data))."""
    posted = httpx.post(f"{app_url}gradio_api/call{endpoint}", json={"data": data}, headers=headers, timeout=30)
    if posted.status_code != 200:
        return posted.status_code, posted.json()
    last, kind = ("", None), ""
    with httpx.stream("GET", f"{app_url}gradio_api/call{endpoint}/{posted.json()['event_id']}", timeout=60) as events:
        for line in events.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and kind != "heartbeat":
                last = (kind, json.loads(line[5:]))
    return 200, last


def names(info: dict, endpoint: str) -> list[str]:
    return [parameter["parameter_name"] for parameter in info[endpoint]["parameters"]]


def test_a_call_with_too_few_values_is_told_the_endpoint_s_parameters(app_url, info):
    """Gradio's own answer was `event: error`, `data: {"error": null}`."""
    taken = names(info, "/explain_fill_mask")
    assert taken[:7] == ["text", "mask", "guess", "layer", "head", "model", "top_k"]
    assert rest(app_url, "/explain_fill_mask", WHY_FILL_MASK) == (422, {"detail": (
        f"/explain_fill_mask takes {len(taken)} values: {', '.join(taken)}; it was sent 6.")})


def test_a_call_with_too_many_values_is_refused_rather_than_cut_short(app_url, info):
    """Gradio ran the call on the first values and dropped the rest without a word."""
    values = [parameter["example_input"] for parameter in info["/classify"]["parameters"]]
    taken = names(info, "/classify")
    assert rest(app_url, "/classify", [*values, "extra"]) == (422, {"detail": (
        f"/classify takes {len(taken)} values: {', '.join(taken)}; it was sent {len(taken) + 1}.")})
    status, (event, _) = rest(app_url, "/classify", values)
    assert (status, event) == (200, "complete")


def test_lang_and_width_may_be_left_out_or_given(app_url, info):
    """A client written before `lang` and `width` (or content with English and a wide page) sends the values before
    them; one that sends them gets the page's words in its language."""
    values = [parameter["example_input"] for parameter in info["/classify"]["parameters"]]
    assert names(info, "/classify")[-2:] == ["lang", "width"]
    status, (event, english) = rest(app_url, "/classify", values[:-2])
    assert (status, event) == (200, "complete")
    status, (event, korean) = rest(app_url, "/classify", [*values[:-2], "ko", 390])
    assert (status, event) == (200, "complete")
    assert english[0] != korean[0]  # the figure: its words and its layout
    assert "긍정" in json.dumps(korean[0], ensure_ascii=False) or "부정" in json.dumps(korean[0], ensure_ascii=False)
    status, (event, refused) = rest(app_url, "/classify", ["", "ja", 1280])
    assert (status, event) == (200, "error")
    assert refused["error"] == text.t("error.empty", "ja", what=text.Text("field.text"))


def test_the_count_is_told_in_the_caller_s_language_and_to_gradio_s_clients_too(app_url, info):
    taken = len(names(info, "/explain_fill_mask"))
    status, answer = rest(app_url, "/explain_fill_mask", WHY_FILL_MASK, **{"Accept-Language": "ko"})
    assert status == 422 and answer["detail"].startswith(f"/explain_fill_mask 엔드포인트는 값 {taken}개를 받아요")
    # the queue's own protocol (gradio_client, @gradio/client): the endpoint by its index
    dependencies = httpx.get(f"{app_url}config").json()["dependencies"]
    index = next(d["id"] for d in dependencies if d.get("api_name") == "explain_fill_mask")
    joined = httpx.post(f"{app_url}gradio_api/queue/join", json={
        "data": WHY_FILL_MASK, "fn_index": index, "session_hash": "arity-test", "event_data": None, "trigger_id": None})
    assert joined.status_code == 422 and "it was sent 6" in joined.json()["detail"]


def test_one_value_is_one_value_and_the_page_s_own_events_are_not_counted():
    import gradio as gr

    from bg_demo import text
    from bg_demo.ui import payloads

    with gr.Blocks() as demo:
        box, kept = gr.Textbox(), gr.State()
        gr.Button().click(lambda value, _: value, [box, kept], box, api_name="echo")
        gr.Button().click(lambda value: value, box, box, api_visibility="private")
    wrong = payloads.miscount(demo, ["a", "b", "c"], api_name="echo")
    assert text.t("error.wrong_count", "en", **wrong) == "/echo takes 1 value: value; it was sent 3."
    assert payloads.miscount(demo, ["a"], api_name="echo") is None  # the values the API lists (the State left out)
    assert payloads.miscount(demo, ["a", None], api_name="echo") is None  # or every input
    private = next(d["id"] for d in demo.config["dependencies"] if d["api_visibility"] == "private")
    assert payloads.miscount(demo, [], fn_index=private) is None
    assert payloads.miscount(demo, "not a list", api_name="echo") is None  # Gradio's own check of the body
