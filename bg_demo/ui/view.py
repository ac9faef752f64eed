"""What keeps a page's result in view on a 768-px-high screen and on a phone: each tab's intro (folded to one line
once read), and the page script (assets/view.js) that scrolls a run's result or error into sight, lands a guided
step at the top of its tab and gives every chart its text alternative."""

from __future__ import annotations

import json

import gradio as gr

from bg_demo.ui import gradio_compat
from bg_demo.ui.strings import ASSETS, t

PLACEHOLDER = "/*gradio_compat.MARKUP*/ null"  # where assets/view.js takes the Gradio markup it reads


def script() -> str:
    """assets/view.js with Gradio's markup it reads (`gradio_compat.MARKUP`) filled in."""
    source = (ASSETS / "view.js").read_text(encoding="utf-8")
    if PLACEHOLDER not in source:
        raise ValueError(f"assets/view.js has no {PLACEHOLDER}: it would run without Gradio's markup")
    return source.replace(PLACEHOLDER, json.dumps(gradio_compat.MARKUP))


HEAD = f"<script>\n{script()}</script>"


def intro(key: str) -> gr.Markdown:
    """A tab's intro, `key` its text: the page folds it to its first line after the first run in the tab."""
    return gr.Markdown(t(key), elem_classes=["bg-about", f"bg-about-{key.replace('.', '-')}"])
