"""What keeps a page's result in view on a 768-px-high screen and on a phone: each tab's intro (folded to one line
once read), and the page script (assets/view.js) that scrolls a run's result or error into sight, lands a guided
step at the top of its tab and gives every chart its text alternative."""

from __future__ import annotations

import gradio as gr

from bg_demo.ui.strings import ASSETS, t

HEAD = f"<script>\n{(ASSETS / 'view.js').read_text(encoding='utf-8')}</script>"


def intro(key: str) -> gr.Markdown:
    """A tab's intro, `key` its text: the page folds it to its first line after the first run in the tab."""
    return gr.Markdown(t(key), elem_classes=["bg-about", f"bg-about-{key.replace('.', '-')}"])
