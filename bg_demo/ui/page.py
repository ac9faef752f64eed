"""A page is `compute → state → render(result, look)`.

A page declares `compute(*inputs) -> result` (the backend's plain, picklable data; an async generator of results
for a stream) and `render(result, look) -> outputs` (words and figures in the reader's language, for the reader's
screen). An input event runs compute, keeps the result in the page's `gr.State` (`Shown`), and renders it; a change
of look (the language switch, a width crossing) renders every page again from its state: no model call, nothing
replayed. The reader's look is two inputs of every event (`Reader`: the switch and the page width), never a
session-wide lookup; an API caller passes `lang` and `width` the same way (both optional).

    task = Task(reader, compute, render, {"text": text}, [plot, tokens, raw], page_id="classify", api_name="classify")
    page = task.build(button, text, rows="classify")
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import gradio as gr

from bg_demo import dispatch, placement, text
from bg_demo import look as looks
from bg_demo.errors import BgDemoError
from bg_demo.look import Look
from bg_demo.text import Text
from bg_demo.ui import common, payloads
from bg_demo.ui.links import Page, Run, share_row
from bg_demo.ui.session import SESSIONS

log = logging.getLogger(__name__)

STATE_SECONDS = 3600  # a page's kept result expires this long after its last update (or when its tab closes)
WORDLESS = (gr.State, gr.JSON, gr.File)  # outputs whose values hold no words: a change of look leaves them


# after a run: its page's link kept in this browser tab (`links.head`: `bgDemoRemember`), for the navigation
_REMEMBER = "(...values) => { window.bgDemoRemember && window.bgDemoRemember(%s, %s, values); }"


@dataclass(frozen=True, eq=False)  # hashed by identity: Gradio hashes a state to see it change, and a result may
class Shown:  # hold dicts or lists (a field-wise hash raised "unhashable type" after the event, in Gradio)
    """What a page's state holds: the result on screen and the error beside it (a `BgDemoError` or a `Text`, put
    into words when rendered), either may be None. An error leaves the previous result on screen."""

    result: object = None
    error: object = None


def _as_sent(component):
    """An input as an API call sends it: a table as its rows in JSON (`[[text, label], ...]`), which the backend checks
    and words its refusal of, where Gradio's own table value would be refused before any handler runs, in its own
    words; everything else as it is."""
    if isinstance(component, gr.Dataframe):
        return gr.JSON(visible=False, label=component.label)
    return component


def _alias(component, name: str):
    """An endpoint's optional trailing input under a former name of `component` (`Task`'s `aliases`): the same kind
    of value, empty (0 or "": a default a client may leave out) unless a call gives it; the backend checks the
    value as it checks the input's own."""
    options = dict(visible=False, label=name, elem_classes=[payloads.LOOK_CLASS])
    if isinstance(component, (gr.Slider, gr.Number)):
        return gr.Number(0, precision=0 if getattr(component, "step", 1) == 1 else None, **options)
    return gr.Textbox("", **options)


RUN_CLASS = "bg-run"  # a button that computes a result under it: the page script leads the result into view (view.js)


def run_button(button: gr.Button) -> gr.Button:
    """Mark `button` as one that computes a result under it, for the page script (assets/view.js), which would
    otherwise have to tell a run button by Gradio's own markup."""
    if RUN_CLASS not in (button.elem_classes or []):
        button.elem_classes = [*(button.elem_classes or []), RUN_CLASS]
    return button


def failure(exc: BaseException, what: str):
    """An exception from compute as data the page can word: the student's mistake or a missing model as it is,
    ZeroGPU's own refusal (a gr.Error from `spaces`: no GPU free, the visitor's quota spent) with its words kept, and
    anything else as "something went wrong" (logged with its trace)."""
    if isinstance(exc, BgDemoError):
        return exc
    if isinstance(exc, gr.Error):
        log.warning("%s: the GPU service refused it: %s", what, exc.message)
        if placement.refusal(exc) == "quota":
            return quota_words(str(exc.message))
        return Text("app.gpu_service", message=str(exc.message))
    log.error("%s failed", what, exc_info=exc)
    return Text("app.unexpected")


def quota_words(message: str) -> Text:
    """ZeroGPU's quota refusal, worded for a student: ZeroGPU's words, when the quota comes back (where ZeroGPU says),
    and, to an anonymous visitor (a quota per network address), signing in for one of their own."""
    wait = placement.quota_wait(message)
    if wait is None:
        when = Text("app.gpu_quota.when_unknown")
    else:
        minutes = -(-int(wait.total_seconds()) // 60)  # up: "in 0 min" would say it is back
        when = Text("app.gpu_quota.when", hours=minutes // 60, minutes=minutes % 60)
    sign_in = Text("app.gpu_quota.sign_in") if placement.anonymous(message) else ""
    return Text("app.gpu_quota", message=message, when=when, sign_in=sign_in)


def gpu_note(spent: dispatch.Spent, session: str | None, look: Look) -> str | None:
    """On ZeroGPU, what a run's calls cost the student, for the box above the outputs: a call ZeroGPU refused that ran
    on the CPU instead, and the GPU time the run declared with the session's total so far (which it adds to). None
    where there is nothing to say: not on ZeroGPU, or a run that stayed on the CPU."""
    if not placement.zero_gpu():
        return None
    lines = [fell_back] if (fell_back := fell_back_words(spent, look)) else []
    if spent.declared:
        total = SESSIONS.declared(session, spent.declared) if session else spent.declared
        lines.append(look.t("gpu.note.declared", seconds=spent.declared, total=total,
                            anonymous=placement.QUOTA_SECONDS["anonymous"], signed_in=placement.QUOTA_SECONDS["free"]))
    return " ".join(lines) or None


def fell_back_words(spent: dispatch.Spent, look: Look) -> str | None:
    """On ZeroGPU, why a call of the run went to the CPU after ZeroGPU refused it; None when none did."""
    why = spent.fell_back
    return look.t(f"gpu.note.{why}") if why is not None and placement.zero_gpu() else None


def show_note(message: str) -> gr.Markdown:
    """The box above the outputs saying `message`, a note on the run (not an error: the result is the inputs')."""
    return gr.Markdown(value=f"ℹ️ {common.plain(message)}", visible=True)


def error_box() -> gr.Markdown:
    """Where a page says what went wrong, next to its outputs; hidden until then."""
    return gr.Markdown(visible=False, elem_classes=["bg-error"], render=False)


def show_error(message: str, kept: str | None = None) -> gr.Markdown:
    """The error box saying `message`; `kept`: the words that say the result under it is the one before (an error
    leaves it on screen, where it would otherwise pass for the answer to the inputs that failed)."""
    note = f"\n\n*{common.plain(kept)}*" if kept else ""
    return gr.Markdown(value=f"⚠️ {common.plain(message)}{note}", visible=True)


def kept_words(shown, look: Look) -> str | None:
    """What `show_error` says of the result on screen, when a page keeps one (`Shown`) under its error."""
    return look.t("app.kept_result") if isinstance(shown, Shown) and shown.result is not None else None


def hide_error() -> gr.Markdown:
    return gr.Markdown(value="", visible=False)


@dataclass(eq=False)
class View:
    """Outputs a page renders from its state: `render(result, look, *controls) -> outputs` (the controls: view
    settings the page reads besides its result, e.g. the attention map's layer and head)."""

    state: gr.State
    render: Callable
    outputs: list
    controls: list = field(default_factory=list)
    error: gr.Markdown | None = None  # the page's error box, worded from the state's error


class Reader:
    """The reader's look as components every event reads (the language switch, the page's width, which the browser
    fills in), and every page's views, so that a change of look re-renders what is on screen from state."""

    def __init__(self, lang: gr.Radio, width: gr.Number):
        self.lang, self.width = lang, width
        self.views: list[View] = []
        # (fn, inputs, outputs, options) of events a change of language runs after the page's own relabelling
        # (`language.wire`): Gradio's client starts a change's listeners one after another, in the order they were made
        self.on_language: list[tuple] = []
        self._endpoint: tuple | None = None

    def endpoint_inputs(self) -> tuple:
        """What every named endpoint of the page shares: the hidden button its listener hangs on (an API call names
        the listener, never the button) and its optional trailing `lang` and `width` (a call that leaves both out
        gets English and a wide page: `payloads.completed`). One of each per page, made with its first endpoint: each
        endpoint's own would add three components per endpoint to what the page's document and its browser carry."""
        if self._endpoint is None:
            self._endpoint = (
                gr.Button(visible=False),
                gr.Textbox(text.DEFAULT, visible=False, label="lang", elem_classes=[payloads.LOOK_CLASS]),
                gr.Number(looks.WIDE, visible=False, label="width", precision=0, elem_classes=[payloads.LOOK_CLASS]),
            )
        return self._endpoint

    @property
    def inputs(self) -> list:
        return [self.lang, self.width]

    def rerendering(self):
        """`(handler, inputs, outputs)` of the event that renders every page again in the reader's new look: each
        view with something kept, from its state, with no model call. Outputs without words are left alone.

        Wire it with `preprocess=False`: a view's controls are read as the browser sends them and prepared (as Gradio
        would) only for a view with something kept; a control the browser sends as None (a panel's control never
        shown) is refused by Gradio's own preparation, which would fail the whole event."""
        views = list(self.views)
        inputs = [*self.inputs, *(block for v in views for block in (v.state, *v.controls))]
        outputs, index = [], {}
        for v in views:
            for block in (*v.outputs, *([v.error] if v.error is not None else [])):
                if not isinstance(block, WORDLESS) and id(block) not in index:
                    index[id(block)] = len(outputs)
                    outputs.append(block)

        def rerender(lang, width, *values):
            look = Look(self.lang.preprocess(lang), self.width.preprocess(width))
            found = [gr.skip()] * len(outputs)
            at = 0
            for v in views:
                shown, raw = values[at], values[at + 1: at + 1 + len(v.controls)]
                at += 1 + len(v.controls)
                if not isinstance(shown, Shown):
                    continue
                try:
                    controls = [control.preprocess(value) for control, value in zip(v.controls, raw)]
                except Exception as exc:  # a control off the page: the view is left as it is
                    log.debug("a view's controls could not be read: %s", exc)
                    continue
                for block, value in _rendered(v, shown, look, controls):
                    if id(block) in index:
                        found[index[id(block)]] = value
            return found

        return rerender, inputs, outputs


def _rendered(view: View, shown, look: Look, controls) -> list:
    """(block, value) pairs a view shows for `shown` in `look`; none when nothing is kept."""
    if not isinstance(shown, Shown):
        return []
    pairs = []
    if shown.result is not None:
        try:
            pairs += zip(view.outputs, _tuple(view.render(shown.result, look, *controls)))
        except Exception as exc:  # a view's own error (an export, a control out of range) is said by its event
            log.debug("a view could not be rendered again: %s", exc)
    if view.error is not None:
        pairs.append((view.error, hide_error() if shown.error is None
                      else show_error(look.words(shown.error), kept_words(shown, look))))
    return pairs


def _session(request) -> str | None:
    return getattr(request, "session_hash", None)


def _tuple(values) -> tuple:
    return values if isinstance(values, tuple) else (values,)


@functools.cache
def _special(fn) -> frozenset:
    """Which of `request`, `progress` a compute function takes (by keyword); read once per function."""
    names = inspect.signature(fn).parameters
    return frozenset(name for name in ("request", "progress") if name in names)


def _signature(names: list[str]) -> inspect.Signature:
    """A handler's signature as Gradio reads it: one positional parameter per input, then the request and the
    progress tracker Gradio adds (`gradio.helpers.special_args` finds them by annotation and default)."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature([
        *(inspect.Parameter(name, kind) for name in names),
        inspect.Parameter("request", kind, default=None, annotation=gr.Request),
        inspect.Parameter("progress", kind, default=gr.Progress()),
    ])


def endpoint_function(api_name: str) -> str:
    """The name of a page endpoint's function. Not the endpoint's own: Gradio's MCP server names each tool after its
    function, giving a later function of the same name another (`classify_1`), and it counts the page endpoints it
    leaves out (`tutor_tools.hide_pages`): the tutor's tools, on a page built after the others, keep their names."""
    return f"page_{api_name}"


def _with_signature(fn, name: str, names: list[str]):
    fn.__name__ = fn.__qualname__ = name
    fn.__signature__ = _signature(names)
    fn.__annotations__ = {"request": gr.Request}
    return fn


class Task:
    """One run of a page, wired as every page wires it: examples that load and run, an error box above the outputs,
    the outputs (the raw JSON last, folded), the browser's triggers (buttons, Enter), a named API endpoint, a share
    row and the Page a link opens and runs.

    `compute(*inputs) -> result` (may take `request=` and `progress=`: a progress tracker that names a model being
    loaded, in the reader's words) and `render(result, look) -> outputs`. The browser's events keep the result in
    the page's state and put an error into the error box, leaving the previous result on screen; the API endpoint
    (on a hidden button) computes and renders in the `lang` and `width` it is sent, and an error stays an error."""

    def __init__(self, reader: Reader, compute, render, inputs: dict, outputs: list, *, page_id: str,
                 api_name: str | None = None, concurrency_id: str | None = None,
                 concurrency_limit: int | str | None = "default", aliases: dict[str, str] | None = None):
        self.reader, self.compute, self.render_fn = reader, compute, render
        self.inputs, self.outputs = inputs, outputs
        self.page_id, self.api_name = page_id, api_name
        # an endpoint's former parameter name -> the input it now names: a client written against the old name keeps
        # working (an optional trailing parameter, as `lang` and `width` are; when given, it wins)
        self.aliases = dict(aliases or {})
        self.error = error_box()
        self.state = gr.State(None, time_to_live=STATE_SECONDS)
        self.options = dict(concurrency_id=concurrency_id or page_id, concurrency_limit=concurrency_limit)
        self.events: list = []
        self.trigger = None  # a link's way to run the page (`run`)
        self.stream = inspect.isasyncgenfunction(compute)
        self.handler = self._page_handler(compute)
        reader.views.append(View(self.state, render, list(outputs), error=self.error))
        if api_name:  # first, so that no private event of the page takes the name
            endpoint, lang, width = reader.endpoint_inputs()
            former = [_alias(inputs[name], alias) for alias, name in self.aliases.items()]
            components = [*(_as_sent(component) for component in inputs.values()), lang, width, *former]
            # raw values, prepared inside the request: what the inputs cannot use is refused in the caller's words
            api = payloads.checked(self._api_handler(), components, lang_at=len(inputs))
            endpoint.click(api, components, outputs, api_name=api_name, preprocess=False, **self.options)

    @property
    def all_inputs(self) -> list:
        """What the page's events read: its inputs, its state (the result an error leaves on screen), the look."""
        return [*self.inputs.values(), self.state, *self.reader.inputs]

    @property
    def targets(self) -> list:
        return [*self.outputs, self.error, self.state]

    @staticmethod
    def _call(compute, values, request, progress, look: Look):
        takes = _special(compute)
        extra = {}
        if "request" in takes:
            extra["request"] = request
        if "progress" in takes:
            extra["progress"] = common.Loading(progress, look)
        return compute(*values, **extra)

    def _page_handler(self, compute, names=None, with_result: bool = False):
        n, what = len(self.outputs), self.page_id
        # named after its compute: a private event's name never takes the API's
        name = f"{getattr(compute, '__name__', what)}_in_page"
        names = [*(names or self.inputs), "shown", "lang", "width"]

        def split(args):
            *values, shown, lang, width, request, progress = args
            shown = shown if isinstance(shown, Shown) else Shown()
            if with_result:
                values = [shown.result, *values]
            return values, shown, Look(lang, width), request, progress

        def failed(exc, shown: Shown, look: Look):
            error = failure(exc, what)
            return (*[gr.skip()] * n, show_error(look.words(error), kept_words(shown, look)), Shown(shown.result, error))

        if self.stream:
            async def streamed(*args):
                values, shown, look, request, progress = split(args)
                # where the run's calls go on ZeroGPU: this event's context, which its model calls' threads copy
                spent = dispatch.account_in_this_context()
                box = None  # the box above the outputs, sent once as an update: every message after sends a plain value
                try:
                    async with contextlib.aclosing(self._call(compute, values, request, progress, look)) as results:
                        async for result in results:
                            if box is None:  # a call ZeroGPU refused has already gone to the CPU: say so from the start
                                box = fell_back_words(spent, look) or ""
                                box_value = show_note(box) if box else hide_error()
                            else:
                                box_value = f"ℹ️ {common.plain(box)}" if box else ""
                            yield (*_tuple(self.render_fn(result, look)), box_value, Shown(result))
                except Exception as exc:
                    yield failed(exc, shown, look)
                    return
                finally:
                    dispatch.stop_accounting()
                if spent.declared and (note := gpu_note(spent, _session(request), look)):
                    yield (*[gr.skip()] * n, show_note(note), gr.skip())

            return _with_signature(streamed, name, names)

        def handler(*args):
            values, shown, look, request, progress = split(args)
            with dispatch.accounting() as spent:
                try:
                    result = self._call(compute, values, request, progress, look)
                except Exception as exc:
                    return failed(exc, shown, look)
            note = gpu_note(spent, _session(request), look)
            return (*_tuple(self.render_fn(result, look)), show_note(note) if note else hide_error(), Shown(result))

        return _with_signature(handler, name, names)

    def _api_handler(self):
        names = [*self.inputs, "lang", "width", *self.aliases]
        at = {alias: list(self.inputs).index(name) for alias, name in self.aliases.items()}

        def split(args):
            """(values, lang, width, request, progress), each former name's value, when given, in its input's place."""
            n = len(self.inputs)
            values, (lang, width), former, (request, progress) = (list(args[:n]), args[n:n + 2], args[n + 2:-2],
                                                                   args[-2:])
            for alias, value in zip(self.aliases, former):
                if value not in (None, 0, ""):  # given
                    values[at[alias]] = value
            return values, lang, width, request, progress

        def refused(exc, look: Look):
            return gr.Error(look.words(failure(exc, self.api_name)), print_exception=False)

        if self.stream:
            async def streamed(*args):
                values, lang, width, request, progress = split(args)
                look = Look(lang, width)
                try:
                    async with contextlib.aclosing(self._call(self.compute, values, request, progress, look)) as results:
                        async for result in results:
                            yield self.render_fn(result, look)
                except Exception as exc:
                    raise refused(exc, look) from None

            return _with_signature(streamed, endpoint_function(self.api_name), names)

        def api(*args):
            values, lang, width, request, progress = split(args)
            look = Look(lang, width)
            try:
                return self.render_fn(self._call(self.compute, values, request, progress, look), look)
            except Exception as exc:
                raise refused(exc, look) from None

        return _with_signature(api, endpoint_function(self.api_name), names)

    def also(self, compute, inputs: list, *, with_result: bool = False) -> tuple:
        """Another way to compute the page's result (a step from the one on screen: `compute(result, *inputs)` with
        `with_result`), rendered and kept as the page's own: `(handler, its inputs)` for an event or a Run."""
        handler = self._page_handler(compute, [f"value_{i}" for i in range(len(inputs))], with_result)
        return handler, [*inputs, self.state, *self.reader.inputs]

    # --- layout and wiring ------------------------------------------------------------------------------------------

    def on(self, trigger, **options) -> None:
        """Run the page on `trigger` (an event listener, e.g. `radio.input`), or on any of a list of them, as one
        event: a phone's first visit pays for every event's wiring (`common.examples`)."""
        options = {"api_visibility": "private", **self.options, **options}
        if isinstance(trigger, list):
            self.events.append(gr.on(trigger, self.handler, self.all_inputs, self.targets, **options))
        else:
            self.events.append(trigger(self.handler, self.all_inputs, self.targets, **options))

    def examples(self, path, labels=None) -> common.Examples:
        """The examples at `path` in assets/examples*.json (or `path(lang)`: rows made for a language), for every
        language that has some (`common.examples`); `labels(rows)` names the rows."""
        return common.examples(path, list(self.inputs.values()), self.targets, self.handler, labels,
                               all_inputs=self.all_inputs, **self.options)

    def render(self, outputs=None) -> None:
        """The error box, then the outputs made with render=False (all of them unless given)."""
        self.error.render()
        if outputs is None:
            common.render_outputs(self.outputs)
        else:
            for component in outputs:
                component.render()

    def wire(self, *triggers, fields: dict | None = None, needs: tuple = (), share: bool = True,
             linked: bool = True) -> Page:
        """Run on each trigger (a Textbox on Enter, anything else on click) and, with `linked`, when a link asks
        (`Run.trigger`), all through one event; add the share row (the inputs plus any view `fields`) and return
        the page, with `needs` the fields a link must give to run it (no run without `linked`: the page gives its
        own)."""
        runs = (self.run(needs),) if linked else ()
        for trigger in triggers:
            if isinstance(trigger, gr.Button):
                run_button(trigger)
        listened = [trigger.submit if isinstance(trigger, gr.Textbox) else trigger.click for trigger in triggers]
        fields = {**self.inputs, **(fields or {})}
        if listened or runs:
            self.on([*listened, *(run.trigger.change for run in runs)])
            if share:  # a run's link kept in the browser: the navigation comes back to the page as it was left
                self.events[-1].success(None, list(fields.values()), None, js=_REMEMBER % (
                    json.dumps(self.page_id), json.dumps(list(fields))), api_visibility="private", queue=False)
        if share:
            share_row(self.page_id, fields)
        return Page(self.page_id, fields, runs=runs)

    def run(self, needs: tuple = ()) -> Run:
        """The page's run as a link starts it: the event its button runs, fired by a change of `trigger`."""
        if self.trigger is None:
            self.trigger = gr.State(0)
        return Run(self.handler, self.all_inputs, self.targets, needs, self.options, trigger=self.trigger)

    def build(self, button, *submit, rows=None, labels=None, fields=None) -> Page:
        """The usual page: examples, error box and outputs, then the wiring."""
        if rows is not None:
            self.examples(rows, labels)
        self.render()
        return self.wire(button, *submit, fields=fields)

    def view(self, render, outputs: list, controls: list, triggers=(), **options):
        """More outputs drawn from the page's result with view `controls` (`render(result, look, *controls)`), on
        each of `triggers` and whenever the look changes; an error goes to the page's error box. Returns the
        handler, for more events."""
        self.reader.views.append(View(self.state, render, list(outputs), list(controls)))
        n = len(outputs)

        def redraw(shown, lang, width, *values):
            look = Look(lang, width)
            if not isinstance(shown, Shown) or shown.result is None:
                return (*[gr.skip()] * n, gr.skip())
            try:
                return (*_tuple(render(shown.result, look, *values)), gr.skip())
            except Exception as exc:
                return (*[gr.skip()] * n, show_error(look.words(failure(exc, self.page_id)), kept_words(shown, look)))

        inputs = [self.state, *self.reader.inputs, *controls]
        if triggers:
            gr.on(list(triggers), redraw, inputs, [*outputs, self.error], api_visibility="private", **options)
        return redraw, inputs, [*outputs, self.error]
