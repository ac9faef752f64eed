"""The page width of each browser session, so the server draws figures for the screen they are shown on (see
`bg_demo.figures.screen`). The page reports it when it loads and again when it crosses the narrow threshold (a
phone turned, a window resized); the next figure drawn uses it."""

from __future__ import annotations

import threading
from collections import OrderedDict

import gradio as gr
from gradio.context import LocalContext

from bg_demo.figures import screen

MAX_SESSIONS = 10_000  # a few bytes each; the oldest are forgotten first past this many
ELEM_ID = "bg-screen"
_sessions: OrderedDict[str, int] = OrderedDict()
_lock = threading.Lock()

# Runs in the page's <head>: when the window crosses the narrow threshold, the hidden button reports the new width.
HEAD = """<script>
(() => {
  const NARROW = %(narrow)d;
  let wasNarrow = window.innerWidth < NARROW, timer = null;
  window.addEventListener("resize", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const isNarrow = window.innerWidth < NARROW;
      if (isNarrow === wasNarrow) return;
      wasNarrow = isNarrow;
      const button = document.querySelector("#%(elem)s-report");
      if (button) button.click();
    }, 300);
  });
})();
</script>""" % {"narrow": screen.NARROW, "elem": ELEM_ID}
_WIDTH = "() => [window.innerWidth]"


def resolve() -> int | None:
    """The page width of the request being served, if its session has told it."""
    request = LocalContext.request.get(None)
    session = getattr(request, "session_hash", None) if request is not None else None
    if not session:
        return None
    with _lock:
        return _sessions.get(session)


def remember(width, request: gr.Request) -> None:
    width = screen.clamp(width)
    session = getattr(request, "session_hash", None)
    if width is None or not session:
        return
    with _lock:
        _sessions[session] = width
        _sessions.move_to_end(session)
        while len(_sessions) > MAX_SESSIONS:
            _sessions.popitem(last=False)


def forget(request: gr.Request) -> None:
    session = getattr(request, "session_hash", None)
    with _lock:
        _sessions.pop(session, None)


def wire(demo: gr.Blocks) -> None:
    """Learn the page's width on load and whenever it crosses the narrow threshold; forget it when the tab closes."""
    screen.set_resolver(resolve)
    box = gr.Number(visible="hidden", elem_id=ELEM_ID, show_label=False)  # never seen: no words to translate
    report = gr.Button("", visible="hidden", elem_id=f"{ELEM_ID}-report")
    options = dict(js=_WIDTH, api_visibility="private", queue=False)
    demo.load(remember, box, None, **options)
    report.click(remember, box, None, **options)
    demo.unload(forget)
