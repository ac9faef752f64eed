"""What an API call sends, checked against the inputs it fills before a handler sees it, refused in the caller's words.

Gradio checks a value in its component's `preprocess`, before the event's function runs, and outside the request:
a string or a list sent to a number fails there with a TypeError that the API reports as `{"error": null}`, a
400-digit number or NaN with an OverflowError or a ValueError, and its own range and choice messages are English
whatever the caller's language. An event's `validator` runs after that preprocessing, so it comes too late. So the
named endpoints take their values raw (`preprocess=False`, see `common.Task`) and `checked` prepares them inside
the request, where `bg_demo.text` knows the caller's language: a value an input cannot use becomes a gr.Error that
says what to send, and one it can use goes through the component's own `preprocess`, as it would have.
The browser's own controls send only values they can hold, so its events keep Gradio's preprocessing. A call with
more or fewer values than its endpoint takes never reaches a handler: `miscount` says so (`serving.Guard` asks it).

`describe` words what a developer reads about the endpoints (the "Use via API" page, `/gradio_api/info`,
gradio_client's `view_api`): labels in words, a name for every value, and example inputs that run as shown."""

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
from bg_demo.ui import gradio_compat
from bg_demo.ui.strings import words


def checked(fn, components: list, lang_at: int | None = None):
    """`fn` for an event wired with `preprocess=False`: its first len(components) arguments, the raw values, are
    prepared by `prepare` first (the arguments Gradio adds after them, a gr.Request or gr.Progress, pass as they are).
    A refusal is worded in the language the call sends at `lang_at` (its `lang`), else English."""
    n = len(components)

    def prepared(args) -> list:
        asked = args[lang_at] if lang_at is not None and len(args) > lang_at else None
        lang = text.language(asked) if isinstance(asked, str) else text.DEFAULT
        return [*(prepare(c, value, lang) for c, value in zip(components, args[:n])), *args[n:]]

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


def prepare(component, value, lang: str = text.DEFAULT):
    """The value as the component's `preprocess` makes it, or a gr.Error saying in `lang` what the input takes."""
    if isinstance(component, (gr.Slider, gr.Number)):
        _check_number(component, value, lang)
    elif isinstance(component, (gr.Radio, gr.Dropdown)):
        _check_choice(component, value, lang)
    elif isinstance(component, gr.Textbox):
        value = _check_text(component, value, lang)
    return component.preprocess(value)


def _refuse(key: str, component, lang: str, **values):
    label = words(component.label, lang) or text.t("input.this", lang)
    raise gr.Error(text.t(key, lang, what=label, **values), print_exception=False)


def _check_text(component, value, lang: str):
    if value is None:
        return value  # left out: the handler (or the backend) says what it needs
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # a number typed as one, e.g. a seed: as Gradio itself passes it on
    if not isinstance(value, str):
        _refuse("input.not_text", component, lang, got=shown(value))
    if not value.isascii() and not encodable(value):
        _refuse("input.not_unicode", component, lang)
    return value


def _check_number(component, value, lang: str) -> None:
    if value is None and isinstance(component, gr.Number):
        return  # an empty number box: the handler (or the backend) says what it needs
    low, high, whole = component.minimum, component.maximum, _whole(component)
    if not _fits(value, low, high, whole):
        # one message says what the input takes, whatever was wrong (no input of the app has a maximum only)
        bounds = ".between" if low is not None and high is not None else ".at_least" if low is not None else ""
        _refuse(f"input.{'whole' if whole else 'number'}{bounds}", component, lang, low=low, high=high, got=shown(value))


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


def _check_choice(component, value, lang: str) -> None:
    if value is None or getattr(component, "multiselect", False):
        return  # left out: the handler (or the backend) says what it needs
    values = [choice for _, choice in component.choices]
    if getattr(component, "allow_custom_value", False):
        if isinstance(value, str):
            return  # a model picker: the backend refuses an id it does not offer, naming the ones it does
    elif _scalar(value) and value in values:
        return
    if not values:
        _refuse("input.no_choices", component, lang, got=shown(value))
    listed = ", ".join(json.dumps(choice, ensure_ascii=False) for choice in values)
    _refuse("input.not_choice", component, lang, choices=listed, got=shown(value))


def _scalar(value) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


LOOK_CLASS = "bg-look"  # marks an endpoint's optional trailing `lang` and `width` inputs (see `page.Task`)


def _endpoint(blocks: gr.Blocks, api_name: str | None, fn_index) -> dict | None:
    """The public config of the named endpoint a call asks for (by its name, or by its `fn_index`), else None."""
    if api_name is None and fn_index is None:
        return None
    dependency = next((d for d in blocks.config["dependencies"]
                       if (d.get("api_name") == api_name if api_name is not None else d["id"] == fn_index)), None)
    if dependency is None or not dependency.get("api_name") or dependency.get("api_visibility") == "private":
        return None  # no endpoint of that name (Gradio says so), or a private event of the page
    return dependency


def completed(blocks: gr.Blocks, data, *, api_name: str | None = None, fn_index=None) -> list | None:
    """The values of a call that leaves out only the optional `lang` and `width` at the end (a client written
    before they existed, or one content with English and a wide page), with their defaults added; else None."""
    dependency = _endpoint(blocks, api_name, fn_index)
    if dependency is None or not isinstance(data, list):
        return None
    inputs = [block for key in dependency["inputs"] if (block := gradio_compat.component(blocks, key)) is not None]
    optional = 0
    while optional < len(inputs) and LOOK_CLASS in (inputs[-1 - optional].elem_classes or ()):
        optional += 1
    missing = len(inputs) - len(data)
    if not 0 < missing <= optional:
        return None
    return [*data, *(component.value for component in inputs[len(data):])]


def miscount(blocks: gr.Blocks, data, *, api_name: str | None = None, fn_index=None) -> dict | None:
    """What to tell a call to a named endpoint (by its name, or by its `fn_index` as Gradio's clients join the queue)
    that sends more or fewer values than the endpoint takes: `{"endpoint", "count", "names", "got"}`, else None.

    Gradio checks the count only inside the request, after our middleware and before our handler: too few fail
    there with a message for a developer's JavaScript that the API reports as `{"error": null}`, too many are
    dropped without a word. A REST call sends either every input or only those the API lists (Gradio fills the
    others, e.g. a gr.State); the browser's own events send what they take."""
    if not isinstance(data, list):
        return None  # not a list of values: Gradio's own check of the body says so
    dependency = _endpoint(blocks, api_name, fn_index)
    if dependency is None:
        return None
    inputs = dependency["inputs"]
    listed = [key for key in inputs if (block := gradio_compat.component(blocks, key)) and gradio_compat.in_api(block)]
    if len(data) in (len(inputs), len(listed)):
        return None
    endpoint = f"/{dependency['api_name']}"
    described = gradio_compat.api_info(blocks, all_endpoints=True)["named_endpoints"].get(endpoint, {})
    names = [parameter["parameter_name"] for parameter in described.get("parameters", ())]
    return {"endpoint": endpoint, "count": len(listed), "plural": "" if len(listed) == 1 else "s",
            "names": ", ".join(names), "got": len(data)}


# --- the API page -------------------------------------------------------------------------------------------------

# inputs that no example row of a page fills, with an example the endpoint takes (each runs: tests/test_api_page.py)
EXAMPLES = {
    # a generation as /generate returns it, cut to what the explanation reads: one sequence of one token (" the" in
    # GPT-2's vocabulary)
    "/explain_generation": {"result": {"generated": [[{"token": " the", "token_id": 262}]]}},
    "/explain_next_token": {"text": "The capital of France is"},
    # the fine-tune-or-prompt page: its tables as rows, and a prompt's result as /prompt_task returns it, cut to what
    # the explanation reads
    **{name: {"train": [["A wonderful, funny film.", "positive"], ["A dull and far too long film.", "negative"]],
              "test": [["What a lovely story.", "positive"], ["The plot was boring.", "negative"]]}
       for name in ("/prompt_task", "/fine_tune", "/checkpoint_scores")},
    "/explain_prompt_bert": {"result": {"prompts": ["What a lovely story. It was [MASK]."], "labels": ["positive"],
                                        "label_words": ["great"], "predictions": ["positive"]}},
    "/explain_prompt_gpt": {"result": {"prompts": ["Review: What a lovely story.\nSentiment:"], "labels": ["positive"],
                                       "label_words": ["positive"], "predictions": ["positive"]}},
    # a run's result as /fine_tune returns it, cut to what the explanation reads: its model is the caller's session's,
    # so a client that has not run /fine_tune is told to, first
    **{name: {"result": {"texts": ["What a lovely story.", "The plot was boring."]}}
       for name in ("/explain_tune_bert", "/explain_tune_gpt")},
}
# what a value the page shows without a label is, by its kind: the JSON result, or a Markdown summary of it
_UNLABELLED = {gr.JSON: "common.raw", gr.Markdown: "common.summary"}


def describe(demo: gr.Blocks) -> None:
    """Have the app's API description (which Gradio builds from the layout) say what a developer needs: each label
    in words (the page's labels are I18n keys, which only the browser's pages translate: the API page showed
    "[object Object]"), a name for each value the page shows without a label, and as each input's example the
    first English example of its page (Gradio's own, "Hello!!", is no sentence with a [MASK]), so that every call
    the page shows runs as shown. Read from the app's config (`demo.config`, what
    `/config` sends every client): which components each named endpoint takes and gives, and each example table's."""
    # read from the layout as built, once: read again after a student had clicked an example in a browser, a table
    # could read as in no language, and the API page showed Gradio's "Hello!!" for the text it fills
    shown = _first_examples(demo)

    def amend(info: dict) -> None:
        values = _endpoints(demo)
        for name, endpoint in info.get("named_endpoints", {}).items():
            inputs, outputs = values.get(name, ((), ()))
            for (key, component), parameter in zip(inputs, endpoint["parameters"]):
                # a function's endpoint (`gr.api`: the tutor's tools) names each value after its parameter
                parameter["label"] = parameter["parameter_name"] if _bare(component) else _named(component)
                parameter["example_input"] = _writable(EXAMPLES.get(name, {}).get(
                    parameter["parameter_name"], shown.get(key, parameter["example_input"])))
            for (_, component), output in zip(outputs, endpoint["returns"]):
                output["label"] = text.t("common.raw", text.DEFAULT) if _bare(component) else _named(component)

    gradio_compat.describe_api(demo, amend)


def _endpoints(demo: gr.Blocks) -> dict:
    """"/name" -> ([(id, component) of each input], [(id, component) of each output]) of every named endpoint, the
    values the API leaves out (a State's) left out, as Gradio's API description lists them."""
    def values(ids) -> list:
        blocks = [(key, gradio_compat.component(demo, key)) for key in ids]
        return [(key, block) for key, block in blocks if block is not None and gradio_compat.in_api(block)]

    return {f"/{dependency['api_name']}": (values(dependency["inputs"]), values(dependency["outputs"]))
            for dependency in demo.config["dependencies"] if dependency.get("api_name")}


def _bare(component) -> bool:
    """Whether a value is a function's parameter or result (`gr.api`), with no component on the page."""
    return gradio_compat.is_bare_value(component)


def _named(component) -> str:
    """A value's label in English words (the API's language), or what it is where the page shows it unlabelled."""
    if component.label is None:
        key = next((key for kind, key in _UNLABELLED.items() if isinstance(component, kind)), None)
        return text.t(key, text.DEFAULT) if key else ""
    return words(component.label, text.DEFAULT)


def _writable(value):
    """A text as the page's code snippets can hold it. Gradio writes a text between double quotes as it is (gradio_client
    2.7.2), in Python and JavaScript, and that JSON between single quotes for the shell: a quote or a line break in
    it ends the string there. Typographic quotes read the same and end nothing."""
    if not isinstance(value, str):
        return value
    pieces = value.replace("\r", " ").replace("\n", " ").replace("\\", "/").replace("'", "’").split('"')
    return "".join(piece + ("“" if i % 2 == 0 else "”") for i, piece in enumerate(pieces[:-1])) + pieces[-1]


def _first_examples(demo: gr.Blocks) -> dict:
    """component id -> its value in the first English example table that fills it."""
    found: dict = {}
    for config in demo.config["components"]:
        block = gradio_compat.component(demo, config["id"])
        rows = gradio_compat.example_rows(block) if isinstance(block, gr.Dataset) else []
        if rows and _language(block) == text.DEFAULT:
            for key, value in zip(config["props"].get("component_ids", ()), rows[0]):
                found.setdefault(key, value)
    return found


def _language(block) -> str | None:
    """The language an example table is shown in (`common.examples` marks it bg-for-<lang>)."""
    while block is not None:
        for name in getattr(block, "elem_classes", None) or ():
            if name.startswith("bg-for-"):
                return name.removeprefix("bg-for-")
        block = gradio_compat.container(block)
    return None
