"""What every tab shares: running a backend call with a loading notice and user-facing errors."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import inspect
import logging
import re
import threading
import time
from contextlib import contextmanager

import gradio as gr

from bg_demo import backend, config, text
from bg_demo.errors import BgDemoError
from bg_demo.ui import payloads, reword, strings
from bg_demo.ui.links import Page, Run, share_row
from bg_demo.ui.strings import t

log = logging.getLogger(__name__)

STREAM_INTERVAL = 0.15  # seconds between two messages of one stream
STATE_SECONDS = 3600  # a session's stored results expire this long after their last update (or when its tab closes)


def run(role: str, fn, *args, progress: gr.Progress | None = None, **kwargs):
    """Call a backend function; a user mistake or a missing model becomes a gr.Error the user can act on.
    The model a first-load notice names is the call's `model_id` (or `<role>_id`), else the role's default.
    Inside a page's handler the outcome is kept for a language switch, which replays it (see `reword`)."""
    tape = reword.tape() if reword.taped(fn) else None
    if tape is not None and tape.replaying:
        return tape.replay(reword.name_of(fn))
    with _user_errors(getattr(fn, "__name__", str(fn))):
        _loading_notice(role, progress, kwargs.get("model_id") or kwargs.get(f"{role}_id"))
        return fn(*args, **kwargs) if tape is None else tape.kept(fn, *args, **kwargs)


class Streams:
    """The generations each browser session has running, so that Stop can end them with their result
    (the engine finishes a cancelled request and its stream yields it) instead of cutting the stream."""

    def __init__(self) -> None:
        self._by_session: dict[str, set] = {}
        self._lock = threading.Lock()

    @contextmanager
    def running(self, session: str, handle):
        with self._lock:
            self._by_session.setdefault(session, set()).add(handle)
        try:
            yield handle
        finally:
            with self._lock:
                handles = self._by_session.get(session, set())
                handles.discard(handle)
                if not handles:
                    self._by_session.pop(session, None)

    def of(self, session: str) -> set:
        with self._lock:
            return set(self._by_session.get(session, ()))

    def cancel(self, session: str) -> set:
        """Cancel the session's generations (they leave the batch at their next step); never blocks."""
        handles = self.of(session)
        for handle in handles:
            handle.cancel()
        return handles

    async def stop(self, session: str, wait: float = 2.0) -> int:
        """Cancel the session's generations and wait (without blocking the event loop) until their streams
        have sent their last result. Returns how many there were."""
        handles = self.cancel(session)
        deadline = time.monotonic() + wait
        while handles & self.of(session) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return len(handles)


STREAMS = Streams()


def leave(request: gr.Request) -> None:
    """A closed tab: Gradio runs this when the page's heartbeat ends, but would let a running
    generation go on to its end, so its requests are cancelled here."""
    STREAMS.cancel(request.session_hash)


async def stream(role: str, submit, session: str, progress: gr.Progress | None = None, model_id: str | None = None):
    """Start a backend stream with `submit()` (in a worker thread: it may load the model) and relay its
    updates on the event loop: no thread is held while a student waits, and a cancelled stream (Stop, a
    closed tab, an API cancel) only marks its request cancelled, never waits on the model. Inside a page's handler
    the last update (or the error) is kept for a language switch, which gets it back instead of a new stream."""
    tape = reword.tape()
    if tape is not None and tape.replaying:
        yield tape.replay(reword.STREAM)
        return
    with _user_errors(role):
        await asyncio.to_thread(_loading_notice, role, progress, model_id)  # with a model tier, a call to it
        try:
            handle = await asyncio.to_thread(submit)
        except Exception as exc:
            reword.keep_update(exc, failed=True)
            raise
        try:
            with STREAMS.running(session, handle):
                async for update in handle:
                    reword.keep_update(update)
                    yield update
                    if not update.done:
                        # a student reads no faster than this, and every message costs the server the same
                        # whatever it holds: a class of streams sends fewer, fuller ones (the newest is kept); the
                        # final update ends the pause at once
                        await handle.pause(STREAM_INTERVAL)
        finally:
            handle.cancel()  # a no-op once finished; at once when the stream was cut short


def _loading_notice(role: str, progress: gr.Progress | None, model_id: str | None = None) -> None:
    if progress is not None and role in config.ROLES and not backend.model_is_loaded(role, model_id):
        # no fraction: a load has no meaningful percentage, and "0.0%" would sit there until it ends
        model = config.public_name(model_id or backend.model_source(role))  # a local folder by its name only
        progress(None, desc=t("app.loading", role=t(f"app.role.{role}"), model=model))


@contextmanager
def _user_errors(what: str):
    try:
        yield
    except BgDemoError as exc:
        raise gr.Error(str(exc), print_exception=False) from None
    except gr.Error as exc:  # ZeroGPU's own refusals (no GPU free, the visitor's quota spent): its words, framed
        log.warning("%s: the GPU service refused it: %s", what, exc.message)
        raise reword.gpu_refusal(exc) from None
    except Exception:
        log.exception("%s failed", what)
        raise gr.Error(t("app.unexpected"), print_exception=False) from None


_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$])")


def plain(text) -> str:
    """Text a user typed (or a model produced from it), for a Markdown output: shown exactly as written,
    never as HTML, a link, emphasis or a formula. HTML's own characters become entities and Markdown's
    punctuation is backslash-escaped, which CommonMark renders as the character itself."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(str(text), quote=False))


def error_box() -> gr.Markdown:
    """Where a page says what went wrong, next to its outputs; hidden until then."""
    return gr.Markdown(visible=False, elem_classes=["bg-error"], render=False)


def show_error(message: str) -> gr.Markdown:
    return gr.Markdown(value=f"⚠️ {plain(message)}", visible=True)


def hide_error() -> gr.Markdown:
    return gr.Markdown(value="", visible=False)


def shown_inline(fn, n_outputs: int):
    """`fn` for the browser: a user error goes into the page's error box (the extra, last output) and the
    previous result stays, instead of a toast that vanishes and outputs that turn into "Error" pills.
    The API keeps calling `fn` itself, so a developer still gets an error. Each call is kept for the browser
    session (its values and the backend's results), so that a language switch can reword it (see `reword`)."""
    if inspect.isasyncgenfunction(fn):

        @functools.wraps(fn)  # gradio reads the signature through __wrapped__ (progress, request)
        async def streamed(*args, **kwargs):
            call = reword.begin(args, kwargs)
            hide = hide_error()  # once: an update object costs the event loop in every message of every stream
            try:
                async with contextlib.aclosing(fn(*args, **kwargs)) as updates:
                    while True:
                        with reword.using(call.tape):  # each step: a generator's context is its caller's
                            try:
                                values = await anext(updates)
                            except StopAsyncIteration:
                                break
                        yield (*_tuple(values), hide)
                        hide = ""  # a plain value for the hidden box from then on
            except gr.Error as exc:
                call.failed = True
                yield (*[gr.skip()] * n_outputs, show_error(exc.message))
            reword.keep(streamed, call)

        streamed.__name__ = f"{fn.__name__}_in_page"  # a private event's name never takes the API's
        setattr(streamed, reword.MARK, True)
        return streamed

    @functools.wraps(fn)
    def handler(*args, **kwargs):
        with reword.recording(handler, args, kwargs) as call:
            try:
                values = fn(*args, **kwargs)
            except gr.Error as exc:
                call.failed = True
                return (*[gr.skip()] * n_outputs, show_error(exc.message))
        return (*_tuple(values), hide_error())

    handler.__name__ = f"{fn.__name__}_in_page"
    setattr(handler, reword.MARK, True)
    return handler


def _stateless(fn, outputs: list):
    """`fn` for the API: what it puts in a gr.State is for the page's own redraws, which an API caller never runs,
    so nothing is kept there (kept, every anonymous call's results would stay in its session for an hour)."""
    states = [isinstance(output, gr.State) for output in outputs]
    if not any(states) or not inspect.isfunction(fn) or inspect.isgeneratorfunction(fn):
        return fn

    @functools.wraps(fn)
    def api(*args, **kwargs):
        return tuple(None if state else value for value, state in zip(_tuple(fn(*args, **kwargs)), states))

    return api


def _tuple(values) -> tuple:
    return values if isinstance(values, tuple) else (values,)


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


def localized(path, make) -> list:
    """One block of examples per language, shown only on a page in that language (assets/style.css keys on
    <html lang>): the language's own rows where it has some (they pick its models), else the English ones, and
    the column names in its words. `make(rows, lang)` builds a block."""
    find = path if callable(path) else lambda lang: strings.example_rows(path, lang)
    english = find(text.DEFAULT)
    made = []
    for lang in text.LANGS:
        rows = find(lang) or english
        if not rows:
            continue
        with gr.Column(elem_classes=["bg-examples", f"bg-for-{lang}"]):
            made.append(make(rows, lang))
    return made


def in_words(block: gr.Examples, inputs, lang: str) -> None:
    """An examples table in one language's words: its column names are the inputs' labels, and a choice shows
    its label, neither of which the browser translates there."""
    block.dataset.headers = [strings.words(component.label, lang) for component in inputs]
    # a sample is drawn from its value and, for a choice, the choice's label: the rest of each input's settings
    # (labels, info, sizes) would only make every page heavier, three languages over
    block.dataset.component_props = [
        {"choices": [(strings.words(label, lang), value) for label, value in props["choices"]]}
        if props.get("choices") else {}
        for props in block.dataset.component_props
    ]


def examples(inputs, outputs, fn, rows, labels=None, lang: str = text.DEFAULT, **options) -> gr.Examples:
    """Examples that fill the inputs they give (an English row leaves the model picker alone; a Korean or
    Japanese row picks its language's model), then run with every input as it is now; nothing is computed
    at startup."""
    width = len(rows[0])
    block = gr.Examples(rows, inputs=inputs[:width], label=t("common.examples"), example_labels=labels,
                        api_visibility="private")
    in_words(block, inputs[:width], lang)
    block.load_input_event.then(fn, inputs, outputs, api_visibility="private", **options)
    return block


def render_outputs(outputs) -> None:
    """Place outputs created with render=False (so examples can sit above them); the last, the raw
    JSON the API also returns, goes into a closed accordion."""
    *shown, raw = outputs
    for component in shown:
        component.render()
    with gr.Accordion(t("common.raw"), open=False):
        raw.render()


class Task:
    """One run of a page, wired as every page wires it: examples that load and run, an error box above the
    outputs, the outputs (the raw JSON last, folded), the browser's triggers (buttons, Enter), a named API
    endpoint, a share row and the Page a link opens and runs.

    The API endpoint sits on a hidden button and calls `fn` itself, so API errors stay errors, with its values
    checked by `payloads.checked` (an API call may send anything); the browser's events call `fn` through
    `shown_inline`, which keeps the message on the page."""

    def __init__(self, fn, inputs: dict, outputs: list, *, page_id: str, api_name: str | None = None,
                 concurrency_id: str | None = None, concurrency_limit: int | str | None = "default"):
        self.fn, self.inputs, self.outputs = fn, inputs, outputs
        self.page_id, self.api_name = page_id, api_name
        self.error = error_box()
        self.handler = shown_inline(fn, len(outputs))
        self.options = dict(concurrency_id=concurrency_id or page_id, concurrency_limit=concurrency_limit)
        self.events: list = []
        if api_name:  # first, so that no private event of the page takes the name
            endpoint = gr.Button(visible=False)
            # raw values, prepared inside the request: what the inputs cannot use is refused in the caller's words
            api = payloads.checked(_stateless(fn, outputs), list(inputs.values()))
            endpoint.click(api, list(inputs.values()), outputs, api_name=api_name, preprocess=False, **self.options)

    @property
    def targets(self) -> list:
        return [*self.outputs, self.error]

    def examples(self, path, labels=None) -> list:
        """The examples at `path` in assets/examples*.json (or `path(lang)`: rows made for a language), for
        every language that has some; `labels(rows)` names the rows."""
        def make(rows, lang):
            return examples(list(self.inputs.values()), self.targets, self.handler, rows,
                            labels(rows) if labels else None, lang, **self.options)

        return localized(path, make)

    def render(self, outputs=None) -> None:
        """The error box, then the outputs made with render=False (all of them unless given)."""
        self.error.render()
        if outputs is None:
            render_outputs(self.outputs)
        else:
            for component in outputs:
                component.render()

    def wire(self, *triggers, fields: dict | None = None, needs: tuple = (), share: bool = True) -> Page:
        """Run on each trigger (a Textbox on Enter, anything else on click), add the share row (the inputs plus
        any view `fields`) and return the page, with `needs` the fields a link must give to run it."""
        inputs = list(self.inputs.values())
        for trigger in triggers:
            event = trigger.submit if isinstance(trigger, gr.Textbox) else trigger.click
            self.events.append(event(self.handler, inputs, self.targets, api_visibility="private", **self.options))
        fields = {**self.inputs, **(fields or {})}
        if share:
            share_row(self.page_id, fields)
        return Page(self.page_id, fields, runs=(self.run(needs),))

    def run(self, needs: tuple = ()) -> Run:
        return Run(self.handler, list(self.inputs.values()), self.targets, needs, self.options)

    def build(self, button, *submit, rows=None, labels=None, fields=None) -> Page:
        """The usual page: examples, error box and outputs, then the wiring."""
        if rows is not None:
            self.examples(rows, labels)
        self.render()
        return self.wire(button, *submit, fields=fields)
