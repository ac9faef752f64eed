"""What every tab shares: running a backend call with a loading notice, relaying a stream, model pickers, token
views and example tables. How a page is wired (compute, state, render) is `bg_demo.ui.page`."""

from __future__ import annotations

import asyncio
import html
import re
import threading
from dataclasses import dataclass

import gradio as gr

from bg_demo import backend, config, text
from bg_demo.look import Look
from bg_demo.ui import gradio_compat, strings
from bg_demo.ui.session import SESSIONS
from bg_demo.ui.strings import t

STREAM_INTERVAL = 0.15  # seconds between two messages of one stream
# requests a BERT task's page (and its API endpoint and tutor tool, in the same group) runs at once: the backend runs
# the ones that meet at the device as one padded forward pass (`dispatch.Batcher`), so a class's clicks cost a few
# passes, not one turn each between two decoding steps; its "Why?" panel has a group of its own
BATCHED = 16


def run(role: str, fn, *args, progress=None, **kwargs):
    """Call a backend function, first saying (through `progress`, a `Loading`) which model is being loaded when the
    call must load one. The model named is the call's `model_id` (or `<role>_id`), else the role's default. Errors
    go to the caller as they are: a page words them (`page.failure`)."""
    if progress is not None:
        progress(role, kwargs.get("model_id") or kwargs.get(f"{role}_id"))
    return fn(*args, **kwargs)


class Loading:
    """A page's progress tracker, worded for its reader: `loading(role, model_id)` says which model is being loaded
    while a first call waits for it."""

    def __init__(self, progress: gr.Progress | None, look: Look):
        self.progress, self.look = progress, look

    def __call__(self, role: str, model_id: str | None = None) -> None:
        if self.progress is None or role not in config.ROLES or backend.model_is_loaded(role, model_id):
            return
        # no fraction: a load has no meaningful percentage, and "0.0%" would sit there until it ends
        model = config.public_name(model_id or backend.model_source(role))  # a local folder by its name only
        self.progress(None, desc=self.look.t("app.loading", role=self.look.t(f"app.role.{role}"), model=model))


async def stream(role: str, submit, session: str, progress: Loading | None = None, model_id: str | None = None,
                 kind: str = "generation", interval: float = STREAM_INTERVAL):
    """Start a backend stream with `submit()` (in a worker thread: it may load the model) and relay its updates on
    the event loop: no thread is held while a student waits, and a cancelled stream (Stop, a closed tab, an API
    cancel) only marks its request cancelled, never waits on the model. `interval`: the least time between two
    updates sent (the newest is kept); `kind`: which Stop ends it ("generation", "training").

    Stop reaches the stream from its first moment (`Started`: while its model loads and its request starts, too),
    and once it is stopped only its final update is sent: the page shows no step taken after the click."""
    started = Started()
    with SESSIONS.running(session, started, kind):
        if progress is not None:
            await asyncio.to_thread(progress, role, model_id)  # with a model tier, a call to it
        starting = asyncio.ensure_future(asyncio.to_thread(submit))
        try:
            handle = await asyncio.shield(starting)
        except asyncio.CancelledError:  # cut short while it started: what it starts is cancelled once it exists
            starting.add_done_callback(_cancel_started)
            raise
        started.attach(handle)
        try:
            async for update in handle:
                if handle.cancelled.is_set() and not update.done:
                    continue  # stopped: the final update (what it reached) is the next one sent
                yield update
                if not update.done:
                    # a student reads no faster than this, and every message costs the server the same whatever it
                    # holds: a class of streams sends fewer, fuller ones (the newest is kept); the final update ends
                    # the pause at once
                    await handle.pause(interval)
        finally:
            handle.cancel()  # a no-op once finished; at once when the stream was cut short


class Started:
    """A stream as Stop and a closed tab see it (`SESSIONS`), from before its backend handle exists: cancelled
    meanwhile, the handle is cancelled as soon as it is attached."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.handle = None

    def attach(self, handle) -> None:
        self.handle = handle
        if self.cancelled.is_set():  # set before `cancel` read no handle: one of the two sees the other
            handle.cancel()

    def cancel(self) -> None:
        self.cancelled.set()
        if self.handle is not None:
            self.handle.cancel()


def _cancel_started(starting: asyncio.Future) -> None:
    if not starting.cancelled() and starting.exception() is None:
        starting.result().cancel()


_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$])")


def plain(text) -> str:
    """Text a user typed (or a model produced from it), for a Markdown output: shown exactly as written,
    never as HTML, a link, emphasis or a formula. HTML's own characters become entities and Markdown's
    punctuation is backslash-escaped, which CommonMark renders as the character itself."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(str(text), quote=False))


def seed_box(**kwargs) -> gr.Textbox:
    """A seed that may stay empty (a new random one each run, reported with the result). A text box, because
    gradio's number box shows and sends 0 when empty, which made every "random" sample the same."""
    return gr.Textbox("", label=t("generate.seed"), placeholder=t("generate.seed_empty"), max_lines=1, **kwargs)


def model_label(model_id: str) -> str:
    """How a model is named in a picker, the same in every language: its Hub name, size and language (🌐: many);
    a local folder by its name (never its path, which is the server's business)."""
    info = config.MODEL_INFO.get(model_id)
    if info is None:  # a local folder (BG_DEMO_MODEL_DIR, BG_DEMO_<ROLE>): its name, marked as a folder
        return f"📁 {config.public_name(model_id)}" if config.is_local(model_id) else model_id
    language = "🌐" if info.language == "multilingual" else text.NAMES.get(info.language, info.language)
    return f"{model_id.split('/')[-1]} · {info.parameters / 1e6:.0f}M · {language}"


def model_choices(role: str) -> list[tuple[str, str]]:
    """The models a student may pick for a role, the configured one first, as the value "": the backend's
    default, whatever the server was started with (an API call that leaves the model out gets it too)."""
    default = config.model_source(role)
    others = [model for model in config.ALLOWED_MODELS[role] if model != default]
    return [(model_label(default), ""), *((model_label(model), model) for model in others)]


def model_picker(role: str, *, also=(), label=None, **kwargs) -> gr.Dropdown:
    """A choice of model for this browser only: another student's pick never changes it. Its value goes to the
    backend as `model_id`, which refuses anything outside the allowlist. `also`: more (label, id) choices,
    given here because Gradio rebuilds a session's copy of a component from what its constructor was given."""
    # any value passes the component, so the backend refuses an id outside the allowlist with its own message
    # (which names the allowed ids, the default's Hub id among them, which the list shows as "")
    return gr.Dropdown([*model_choices(role), *also], value="", label=label or t(f"common.model.{role}"),
                       allow_custom_value=True, **kwargs)


def token_view(tokens, labels=None) -> list[tuple[str, str | None]]:
    """Tokens for gr.HighlightedText, each its own piece, optionally labelled."""
    labels = labels if labels is not None else [None] * len(tokens)
    return [(f" {token} ", label) for token, label in zip(tokens, labels)]


def examples(path, inputs, outputs, fn, labels=None, *, samples=None, all_inputs=None, **options) -> Examples:
    """Example tables, one per language, each shown only on a page in that language (assets/style.css keys on
    <html lang>): the language's own rows where it has some (they pick its models), else the English ones, with the
    column names and choices in its words. A click on a row fills the inputs the row gives (an English row leaves
    the model picker alone; a Korean or Japanese row picks its language's model), then runs `fn` with every input
    as it is now (`all_inputs`: what the run reads, the inputs unless given); nothing is computed at startup.

    `path`: a key (or keys into nested tables) of assets/examples*.json, or `path(lang)` giving a language's rows;
    `samples(rows)` makes them table rows (the rows themselves unless given) and `labels(rows)` names them.

    The tables share one pair of events (fill, then run): a phone's first visit wires every event of the page, and
    three languages' own pairs (90 of the app's 310 events) cost a 4x-throttled phone 0.5 s to its tab bar (4.7 s
    against 4.2, visited as bench/page_weight.py's phone is)."""
    find = path if callable(path) else lambda lang: strings.example_rows(path, lang)
    english = find(text.DEFAULT)
    tables = {}
    for lang in text.LANGS:
        rows = find(lang) or english
        if not rows:
            continue
        shown = samples(rows) if samples else rows
        given = inputs[: len(shown[0])]
        # marked with its language itself, in no column of its own: a column would be one more component per table
        # and language, which the page's document, config and client all carry
        dataset = gr.Dataset(components=given, samples=shown, type="index", label=t("common.examples"),
                             sample_labels=labels(rows) if labels else None,
                             elem_classes=["bg-examples", f"bg-for-{lang}"])
        in_words(dataset, given, lang)
        tables[dataset] = shown
    widest = inputs[: max(len(shown[0]) for shown in tables.values())]
    by_id = {gradio_compat.block_id(dataset): shown for dataset, shown in tables.items()}  # a session's own copy too

    def fill(evt: gr.SelectData):
        rows = by_id.get(gradio_compat.block_id(evt.target)) if evt.target is not None else None
        if rows is None or not isinstance(evt.index, int) or not 0 <= evt.index < len(rows):
            return tuple(gr.skip() for _ in widest)  # no row of these tables: nothing to fill
        row = rows[evt.index]
        return tuple(gr.update(value=row[i]) if i < len(row) else gr.skip() for i in range(len(widest)))

    loaded = gr.on([dataset.select for dataset in tables], fill, None, widest, api_visibility="private", queue=False,
                   show_progress="hidden")
    ran = loaded.then(fn, all_inputs or inputs, outputs, api_visibility="private", **options)
    return Examples(list(tables), ran)


@dataclass(frozen=True)
class Examples:
    """A page's example tables (one per language) and the run a click on one of them starts."""

    tables: list  # gr.Dataset, one per language
    run: object  # the event that runs the page, for `cancels`


def in_words(dataset: gr.Dataset, inputs, lang: str) -> None:
    """An examples table in one language's words: its column names are the inputs' labels, and a choice shows
    its label, neither of which the browser translates there."""
    dataset.headers = [strings.words(component.label, lang) for component in inputs]
    # a sample is drawn from its value and, for a choice, the choice's label: the rest of each input's settings
    # (labels, info, sizes) would only make every page heavier, three languages over
    dataset.component_props = [
        {"choices": [(strings.words(label, lang), value) for label, value in props["choices"]]}
        if props.get("choices") else {}
        for props in dataset.component_props
    ]


def render_outputs(outputs) -> None:
    """Place outputs created with render=False (so examples can sit above them); the last, the raw
    JSON the API also returns, goes into a closed accordion."""
    *shown, raw = outputs
    for component in shown:
        component.render()
    with gr.Accordion(t("common.raw"), open=False):
        raw.render()
