"""The app's pages, in teaching order: each a module of `bg_demo.ui` at its own address (`gr.Blocks.route`), whose
document and config carry only its own components and events, so a phone pays for the page it opens, not for the
whole app.

Why one page per tab rather than a few pages of related tabs: a lesson reads the tabs one at a time (the guided path
opens each once), a page is what a phone pays for on every visit, and grouping BERT's five tasks would make the first
visit of each pay for the other four. Generation is two pages: whole decodes (Generate), and one step up close (Next
token: the lab and the logit lens, which share a model picker); together they were 157 components, over the 150 a
page may carry. The tabs inside a page (Next token's two, Pre-training's four, Fine-tune's five) stay tabs: they
share a model picker, and Fine-tune's five share the examples a student edits and the table that compares them, so
splitting them would have a student's edited examples and results follow them from page to page.

A page module declares:

    TAB_ID = "fill_mask"     # its id among the pages (its API, its share link's `tab`)
    PATH = "fill-mask"       # its address: /fill-mask ("" for the Start page at /)
    TITLE = "fill_mask.tab"  # its name in the navigation (a key of the texts)
    IDS = (TAB_ID,)          # the ids a link (`?tab=<id>`) opens on this page
    def build(reader) -> list[links.Page]: ...   # its components and events, public Gradio only

and is one line of `PAGES` (CONTRIBUTING.md, "Adding a page")."""

from __future__ import annotations

from bg_demo.ui import (
    attention_tab,
    classify_tab,
    compare_tab,
    entities_tab,
    fill_mask_tab,
    finetune_tab,
    generate_tab,
    next_sentence_tab,
    next_token_tab,
    pretraining_tab,
    qa_tab,
    start_tab,
)

# Start first (the app's own address); then BERT's tasks, GPT-2, what is inside both, how each learns a task
PAGES = (
    start_tab,
    fill_mask_tab,
    classify_tab,
    entities_tab,
    qa_tab,
    next_sentence_tab,
    generate_tab,
    next_token_tab,
    attention_tab,
    compare_tab,
    pretraining_tab,
    finetune_tab,
)


def paths(pages=PAGES) -> dict[str, str]:
    """page id -> the address of the page that holds it ("" for the Start page)."""
    return {page_id: module.PATH for module in pages for page_id in module.IDS}
