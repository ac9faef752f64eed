"""The page width, so the server draws figures for the screen they are shown on (see `bg_demo.look`). A hidden number
holds it: the browser fills it in when the page loads and again when the window crosses the narrow threshold (a
phone turned, a window resized), and every event sends it (`page.Reader`); a crossing renders the pages again."""

from __future__ import annotations

import gradio as gr

from bg_demo import look

ELEM_ID = "bg-screen"

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
</script>""" % {"narrow": look.NARROW, "elem": ELEM_ID}
_WIDTH = "() => window.innerWidth"


def box() -> gr.Number:
    """The page width in CSS px, never seen (no words to translate); wide until the browser says."""
    return gr.Number(look.WIDE, visible="hidden", elem_id=ELEM_ID, show_label=False, precision=0)


def wire(demo: gr.Blocks, reader) -> None:
    """The browser fills in its width on load (in the page: no request) and whenever it crosses the narrow
    threshold, which then renders every page again for the new width."""
    report = gr.Button("", visible="hidden", elem_id=f"{ELEM_ID}-report")
    demo.load(None, None, reader.width, js=_WIDTH, api_visibility="private", queue=False)
    rerender, inputs, shown = reader.rerendering()
    report.click(None, None, reader.width, js=_WIDTH, api_visibility="private", queue=False).then(
        rerender, inputs, shown, api_visibility="private", show_progress="hidden", preprocess=False)
