"""Driving a built app's page events in a test as the browser does, without a server (see `bg_demo.ui.page`).

A page's event reads `[*inputs, state, lang, width]` and writes `[*outputs, error box, state]`; `run` calls its
handler with those values and splits what comes back. A change of look (the language switch, a width crossing) runs
one event, `rerender`, over every page's kept state: `switch` calls it with the states a test kept.

    fill = event(demo, api="fill_mask")              # the page behind the /fill_mask endpoint
    outputs, box, shown = run(fill, ["The cat sat on the [MASK].", 3, ""])
    changed = switch(demo, "ko", 1280, {fill.outputs[-1]: shown})   # {block id: value} of what it sends
"""

from __future__ import annotations

import asyncio
import inspect

import gradio as gr

from bg_demo import look
from bg_demo.ui.gradio_compat import block_id, listeners, new_session
from bg_demo.ui.page import Shown

SKIP = gr.skip()


def _name(dependency) -> str:
    return getattr(dependency.fn, "__name__", "")


def _id(block) -> int:
    return block if isinstance(block, int) else block_id(block)


def event(demo: gr.Blocks, *, name: str | None = None, api: str | None = None, outputs_contain=None,
          concurrency_id: str | None = None):
    """The first event of `demo` that matches everything given: its handler's `name`, the page of the named `api`
    endpoint (a private event writing that endpoint's outputs first), a block among its outputs, its concurrency
    id. Several events share one handler (a button, Enter, each language's examples): any of them will do."""
    found = listeners(demo)
    if api is not None:
        (endpoint,) = [d for d in found if d.api_name == api and d.api_visibility == "public"]
        head = [block_id(block) for block in endpoint.outputs]
        found = [d for d in found if d is not endpoint and [block_id(b) for b in d.outputs[:len(head)]] == head
                 and _name(d).endswith("_in_page")]
    if name is not None:
        found = [d for d in found if _name(d) == name]
    if outputs_contain is not None:
        found = [d for d in found if _id(outputs_contain) in {block_id(b) for b in d.outputs}]
    if concurrency_id is not None:
        found = [d for d in found if d.concurrency_id == concurrency_id]
    if not found:
        raise LookupError(f"no event with name={name!r} api={api!r} concurrency_id={concurrency_id!r}")
    return found[0]


def call(dependency, *values, request=None):
    """What the handler of `dependency` gives for `values` (every input, in order); a stream run to its end (its
    last message)."""
    takes = inspect.signature(dependency.fn).parameters
    # after the inputs, as Gradio adds them: the request, and the progress tracker (none here)
    extra = [value for name, value in (("request", request), ("progress", None)) if name in takes]
    found = dependency.fn(*values, *extra)
    if inspect.isasyncgen(found):
        async def last():
            final = None
            async for final in found:
                pass
            return final

        return asyncio.run(last())
    return found


def run(dependency, values, lang: str = "en", width=look.WIDE, shown=None, request=None):
    """A page event run as the browser runs it, with the page's state `shown` (what an earlier run kept):
    `(outputs, error box, state)`."""
    *outputs, box, kept = call(dependency, *values, shown, lang, width, request=request)
    return outputs, box, kept


def rerendering(demo: gr.Blocks):
    """The first event that renders a page again from its state (the Start page's: each page has its own, the same
    after a switch and after a crossing; `switch` runs every page's)."""
    return event(demo, name="rerender")


def switch(demo: gr.Blocks, lang: str, width=look.WIDE, states=None, controls=None) -> dict:
    """What the change of look to `lang` and `width` sends, by output block id (only what it changes), for the
    pages' states `{state block (or id): Shown}` (the others hold nothing) and any view controls set to other than
    their defaults `{block (or id): value}`."""
    states = {_id(block): value for block, value in (states or {}).items()}
    controls = {_id(block): value for block, value in (controls or {}).items()}
    sent = {}
    # each page of the app renders its own again (its own switch and width): every page's, as the pages' states given
    for dependency in [d for d in listeners(demo) if getattr(d.fn, "__name__", "") == "rerender"]:
        values = []
        for block in dependency.inputs[2:]:
            if isinstance(block, gr.State):
                values.append(states.get(block_id(block)))
            else:
                values.append(controls.get(block_id(block), block.value))
        found = call(dependency, lang, width, *values)
        sent.update({block_id(block): value for block, value in zip(dependency.outputs, found) if value != SKIP})
    return sent


def kept(result=None, error=None) -> Shown:
    """A page's state holding `result` (and `error`)."""
    return Shown(result, error)


def through_gradio(demo: gr.Blocks, dependency, values, session=None, request=None):
    """`dependency` run the way the server runs it: inputs preprocessed, outputs postprocessed, and the page's
    states read from and kept in `session` (a Gradio session, `gradio_compat.new_session`; a fresh one unless given),
    which Gradio then hashes to see which changed. `values`: every input, a state's as None (Gradio reads the
    session's). Returns `(data, session)`: the outputs as the browser receives them (a state's value kept:
    `gradio_compat.session_value(session, block)`)."""
    session = session if session is not None else new_session(demo)
    found = asyncio.run(demo.process_api(dependency, list(values), session, request=request))
    return found["data"], session
