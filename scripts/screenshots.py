"""Screenshots of the real app for the README: each tab after its first example has run.

    python scripts/screenshots.py [--tiny] [--out assets/screenshots]

With --tiny (or no BG_DEMO_MODEL_DIR), the app runs on freshly built tiny random models, so the
pictures show real layout and real plots but meaningless predictions; the README says so.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# tab label -> text of the example to click (its first example)
SHOTS = {
    "fill_mask": ("Fill-mask", "The cat sat on the [MASK]."),
    "classify": ("Sentiment", "I loved this movie, the acting was wonderful and the story was moving."),
    "ner": ("Entities", "Apple Inc. was founded by Steve Jobs in Cupertino, California."),
    "qa": ("Q&A", "Who wrote the paper that introduced the Transformer?"),
    "next_sentence": ("Next sentence", "He bought a gallon of milk."),
    "generate": ("Generate", "top-p 0.9, three samples, seed 42"),
    "attention": ("Attention", "The animal didn't cross the street"),
    "compare": ("BERT vs GPT-2", "The animal didn't cross the street"),
    "pretraining": ("Pretraining", "The quick brown fox jumps"),
    "start": ("Start here", None),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="use tiny random models (built into a temp dir)")
    parser.add_argument("--out", default="assets/screenshots")
    parser.add_argument("--only", nargs="*", default=list(SHOTS))
    args = parser.parse_args()
    if args.tiny or not os.environ.get("BG_DEMO_MODEL_DIR"):
        from bg_demo.testing import build_tiny_models

        tiny = tempfile.mkdtemp(prefix="bg-demo-tiny-")
        build_tiny_models(tiny)
        os.environ["BG_DEMO_MODEL_DIR"] = tiny
        os.environ["HF_HUB_OFFLINE"] = "1"
    from playwright.sync_api import sync_playwright

    from bg_demo.ui import build_demo, launch_options

    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, **launch_options())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        page = browser.new_page(viewport={"width": 1440, "height": 1000}, device_scale_factor=1)
        for key in args.only:
            tab, example = SHOTS[key]
            page.goto(url)  # a fresh page each time: the tab bar is measured once, on load
            page.wait_for_selector("[role=tablist]")
            page.wait_for_timeout(1500)  # let the stylesheet settle before gradio measures the tab bar
            page.get_by_role("tab", name=tab, exact=True).click()
            if example:
                page.locator(f"text={example[:40]} >> visible=true").first.click()
            page.wait_for_timeout(600)
            page.wait_for_selector(".pending", state="detached", timeout=60_000)
            page.wait_for_timeout(800)
            page.screenshot(path=str(out / f"{key}.png"), full_page=True)
            print(out / f"{key}.png")
        browser.close()
    demo.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
