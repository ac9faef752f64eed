"""The Gradio app: one tab per file, assembled here. Building the app loads no model."""

from __future__ import annotations

import os

import gradio as gr

from bg_demo.ui import (
    attention_tab,
    classify_tab,
    common,
    compare_tab,
    entities_tab,
    fill_mask_tab,
    generate_tab,
    next_sentence_tab,
    pretraining_tab,
    qa_tab,
    start_tab,
)
from bg_demo.ui.links import Links
from bg_demo.ui.strings import ASSETS, t

# in teaching order after "Start here": BERT's tasks, GPT-2, then what is inside both
TABS = (
    fill_mask_tab,
    classify_tab,
    entities_tab,
    qa_tab,
    next_sentence_tab,
    generate_tab,
    attention_tab,
    compare_tab,
    pretraining_tab,
)
QUEUE_SIZE = 64  # requests waiting beyond this get "queue full" instead of an endless wait
CONCURRENCY = 2  # requests run at once per event; each model also serialises its own calls


HEARTBEAT_SECONDS = "2"  # Gradio notices a closed page at its next heartbeat (15 s by default)


def build_demo() -> gr.Blocks:
    # a closed tab's generation is cancelled when Gradio notices the page is gone (see common.leave);
    # a heartbeat every 2 s costs each open page a few bytes
    os.environ.setdefault("GRADIO_HEARTBEAT_INTERVAL", HEARTBEAT_SECONDS)
    # delete_cache: files made for downloads are removed after an hour, so a busy Space does not fill its disk
    with gr.Blocks(title=t("app.title"), fill_width=True, delete_cache=(3600, 3600)) as demo:
        gr.Markdown(f"# {t('app.title')}\n{t('app.intro')}")
        # every tab stays in the bar, on as many lines as the screen needs, instead of a "…" menu
        with gr.Tabs(overflow_behavior="wrap") as tabs:
            steps = start_tab.build()
            pages = [page.under(tabs, tab.TAB_ID) for tab in TABS for page in tab.build()]
        Links(pages).wire(demo, steps)
        demo.unload(common.leave)
    demo.queue(max_size=QUEUE_SIZE, default_concurrency_limit=CONCURRENCY)
    return demo


def launch_options() -> dict:
    """What `launch()` needs besides the server address: theme and stylesheet."""
    return dict(theme=gr.themes.Soft(primary_hue="blue"), css_paths=[ASSETS / "style.css"])


def launch(demo: gr.Blocks | None = None, **kwargs) -> None:
    """Start the server; GRADIO_SERVER_NAME and GRADIO_SERVER_PORT apply unless given here."""
    demo = demo or build_demo()
    demo.launch(**{k: v for k, v in kwargs.items() if v is not None}, **launch_options())
