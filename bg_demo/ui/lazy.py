"""Tabs built on their first opening: a phone's first visit pays for the Start tab, not for every tab.

Before it shows the tab bar, Gradio's client works through every component of the page it is sent, each against
every event (docs/page-weight.md): the whole app, ~1,000 components and ~200 events, cost a 4x-throttled phone
~2.3 s of its first visit. Here every tab is built and wired on the server as before (its events, its API
endpoint, its share link, its lesson steps and its "Why?" panel are the app's, the same for every visitor), but the
content of every tab except Start is left out of the layout a browser is first sent, and reaches a browser when
its tab is first opened there: the tab's `select` marks it opened in the page (no request), and that change, once,
is a `gr.render`'s one request, which sends the content as it stands for the session. Opened once, a tab stays as
the student left it.

The render puts the app's own blocks into its container: every session's is the same, built once, and what a
session's handlers changed (a label in another language) is read from the session's own table.

A row of tabs inside a tab shows its first tab with it; each of the others is built on its own first opening,
unless an event fired outside it writes into it (then it comes with the tab around it). So is a closed "Why?" panel:
Gradio's client mounts a closed accordion's content when a render sends it (a first page's layout leaves it to the
panel's opening), and every component mounted raises the cost of each later event on the page. A link or a lesson
step that opens a page first opens its tabs (`ui.links.OPEN_JS`): what it fills in and runs is then on the page.
"""

from __future__ import annotations

import json

import gradio as gr

from bg_demo.ui import gradio_compat

CONTENT_ID = "bg-tab-%s"  # the elem_id of a deferred tab's content: there once the tab has been opened
WAIT_MS = 30_000  # how long a link waits for its tab to open before it fills in what it can


DEFERRED: set[str] = set()  # the ids of the tabs built on opening (the app's layout makes the same set every build)
ON_OPENING = "bg_on_opening"  # the attribute a closed accordion built on its first opening is marked with
AS_BUILT: set = set()  # listeners' functions that write only what their outputs are built with (`as_built`)


ON_PAGE = "bg_on_page"  # the attribute a tab keeps its `on_page` events in


def on_page(tab: gr.Tab, filled: str, fn, inputs: list, outputs: list, **options) -> None:
    """Run `fn` when `tab` is opened, once its content is on the page with its values, which the page shows when an
    element `filled` (a CSS selector) has text: a tab built on its first opening gets its content a moment after it
    is selected, and its values a moment after that; before then its fields read as None or empty, and what is
    written to them is drawn over."""
    if not hasattr(tab, ON_PAGE):
        setattr(tab, ON_PAGE, [])
    getattr(tab, ON_PAGE).append((filled, fn, inputs, outputs, options))


def _wire_on_page(item) -> None:
    """`on_page`'s events, after the tab's own opening (Gradio's client runs an event's listeners in the order they
    were made, each one's browser function awaited before the next: one that waits for the content must come after
    the one that asks for it)."""
    for filled, fn, inputs, outputs, options in getattr(item, ON_PAGE, []):
        item.select(None, None, None, js=_WAIT_JS % json.dumps(filled), api_visibility="private", queue=False).then(
            fn, inputs, outputs, api_visibility="private", **options)


# a tab's select, once an element of its content has text (30 s at most)
_WAIT_JS = """() => new Promise((done) => { const since = Date.now();
  const ready = () => { const el = document.querySelector(%s); return el && el.textContent.trim(); };
  const wait = () => ready() || Date.now() - since > 30000 ? done() : setTimeout(wait, 30);
  wait(); })"""


def as_built(fn):
    """Mark `fn`, an event's function, as writing only what its outputs are built with (a "Why?" panel's
    every-layer choices, offered again when the page's model changes). An event from outside a tab that writes
    into it so does not keep the tab from being built on its own opening: the content sent then is what the event
    would have written."""
    AS_BUILT.add(fn)
    return fn


def defer(demo: gr.Blocks, item: gr.Tab, tab_id: str) -> None:
    """Leave `item`'s content out of the first page; send it to a browser when the tab is first opened there. So
    too each tab of a row of tabs inside it but the first (which shows with the row: Gradio's client mounts every
    tab a render sends, shown or not), and each closed panel in it (an accordion: Gradio's client mounts a closed
    one's content with a render, where a page's own first layout leaves it to the panel's opening), unless an event
    fired outside that tab or panel reaches into it (`_reached_from_outside`)."""
    for tabs in _nested_tabs(item):
        for sub in [child for child in tabs.children if isinstance(child, gr.Tab)][1:]:
            if not _reached_from_outside(demo, sub):
                defer(demo, sub, sub.id)
    for panel in _closed_panels(item):  # the tab's own and those of its sub-tabs sent with it
        if not _reached_from_outside(demo, panel):
            setattr(panel, ON_OPENING, True)
            _built_on_opening(demo, panel, panel.expand, None)
    DEFERRED.add(tab_id)
    _built_on_opening(demo, item, item.select, CONTENT_ID % tab_id)
    _wire_on_page(item)


def panels(demo: gr.Blocks) -> list:
    """The closed accordions of `demo` built on their first opening."""
    return [block for block in demo.blocks.values() if getattr(block, ON_OPENING, False)]


def _built_on_opening(demo: gr.Blocks, item, opening, elem_id: str | None) -> None:
    """Take `item`'s content out of the layout; a render sends it, once, after `opening` (its select or expand
    event) first fires in a page."""
    children = gradio_compat.take_children(item)
    with item:
        content = gr.Column(elem_id=elem_id)  # registered with the app, then taken out of the layout
        gradio_compat.adopt(content, children)
        # set in the page when the tab is selected or the panel opened: its change, once, is the render's one request
        opened = gr.Textbox("", visible="hidden", show_label=False, container=False)

        @gr.render(triggers=[opened.change], queue=False, show_progress="hidden")
        def _show():
            gradio_compat.render_here([content])

    # Gradio's client pushes each event's loading status, at every later event of the page, to every component
    # an event that ran named for its progress, and for a container first reads back every component in it: a
    # render names its container, the tab's whole content, so each opened tab was read back at every event
    # (~0.07 s each on a 4x-throttled phone; docs/page-weight.md). Its progress (hidden) is shown on the box instead.
    gradio_compat.progress_on(gradio_compat.render_listener(demo, item.children[-1]), opened)
    item.children.remove(content)
    opening(None, None, opened, js="() => 'opened'", api_visibility="private", queue=False)


def _reached_from_outside(demo: gr.Blocks, item) -> bool:
    """Whether an event fired outside `item` writes into it, other than with what its content is built with (the
    Fine-tune tab's summary, redrawn by its other tabs' results; the GPT-2 prompt its Load button fills; a raw
    result), or reads it (the Generate tab's repetition controls): a component not yet sent is read as None. Such a
    tab or panel comes with the one around it: a value written before its content reaches the browser would be drawn
    over by the content's first values."""
    inside = {gradio_compat.block_id(block) for block in _blocks(item)}
    for listener in gradio_compat.listeners(demo):
        if listener.fn in AS_BUILT:
            continue
        fired = listener
        while fired.trigger_after is not None:  # a `.then`: fired where the event it follows was
            fired = gradio_compat.listener(demo, fired.trigger_after)
        # a trigger not placed yet is a page's link trigger (`page.Task.run`, placed by `links.Links`): a link opens
        # the page's tabs before it fires one
        outside = [target for target, _ in fired.targets if target not in inside and target in demo.blocks]
        read = [block for block in listener.inputs if not isinstance(block, gr.State)]  # a State is the server's
        if outside and any(gradio_compat.block_id(block) in inside for block in (*listener.outputs, *read)):
            return True
    return False


def _blocks(block):
    yield block
    for child in getattr(block, "children", []):
        yield from _blocks(child)


def _closed_panels(block) -> list:
    """The accordions closed at first inside `block`, outermost first (a panel inside one comes with it), not those
    in a tab built on its own opening (it has been taken out already)."""
    found = []
    for child in getattr(block, "children", []):
        found += [child] if isinstance(child, gr.Accordion) and not child.open else _closed_panels(child)
    return found


def _nested_tabs(block) -> list:
    """The rows of tabs inside `block`, outermost first (not those inside one of them)."""
    found = []
    for child in getattr(block, "children", []):
        found += [child] if isinstance(child, gr.Tabs) else _nested_tabs(child)
    return found


def path(page_path) -> str:
    """The tabs of a page's `path` ((gr.Tabs, tab id) pairs), outermost first, as the browser opens them
    (`links.OPEN_JS`): a tab built on opening by its id, whose content the browser waits for; any other with ":"
    before it, which the browser selects alone: "generate/logit_lens", "generate/:generate_text"."""
    return "/".join(tab_id if tab_id in DEFERRED else f":{tab_id}" for _, tab_id in page_path)


# A JS function the page defines (in its <head>): `await window.bgDemoOpen(tab)` selects the tab `tab` (its button,
# as a click would, once the button is on the page: a tab inside another shows with that one's content) and
# resolves once it is selected and, for a tab built on opening, its content is on the page; after WAIT_MS at most.
# ":<id>" names a tab that is not built on opening (`path`): selected, it is there. `window.bgDemoOpening(opening)`
# opens an opening's tabs so (`links.OPEN_JS`).
HEAD = """<script>
window.bgDemoOpen = (tab) => new Promise((resolve) => {
  const built = !tab.startsWith(":"), id = built ? tab : tab.slice(1);
  const content = () => document.getElementById(%(content)s.replace("%%s", id));
  const button = () => document.querySelector(%(button)s.replace("%%s", id));
  const started = Date.now();
  let clicked = -Infinity;
  const wait = () => {
    const found = button(), selected = found && found.getAttribute("aria-selected") === "true";
    if (selected && (!built || content())) return requestAnimationFrame(() => resolve(true));
    if (found && !selected && Date.now() - clicked > 1000) {  // once; again only if a second passed unselected
      clicked = Date.now();
      found.click();
    }
    if (Date.now() - started > %(wait)d) return resolve(false);
    setTimeout(wait, 30);
  };
  wait();
});
// an opening (`<tabs>|<query>`: `path`, then the query): its tabs opened in order, then the opening as it was
window.bgDemoOpening = async (opening) => {
  for (const tab of String(opening || "").split("|")[0].split("/")) if (tab) await window.bgDemoOpen(tab);
  return opening;
};
</script>""" % {"content": json.dumps(CONTENT_ID), "button": json.dumps(gradio_compat.MARKUP["tab_button"]),
                "wait": WAIT_MS}
