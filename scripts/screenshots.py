"""Screenshots of the real app for the README: each tab opened by a link that runs it, at 1366x768, and every page
on a 390x844 phone.

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

# file name -> (link query that opens a page and runs it, viewport): a laptop (1366x768) for every tab,
# and one phone (390x844), full pages
LAPTOP, PHONE = (1366, 768), (390, 844)
SHOTS = {
    "start": ("tab=start", LAPTOP),
    "fill_mask": ("tab=fill_mask&text=The+cat+sat+on+the+[MASK].&run=1", LAPTOP),
    "classify": ("tab=classify&text=I+loved+this+movie,+the+acting+was+wonderful.&run=1", LAPTOP),
    "ner": ("tab=ner&text=Apple+Inc.+was+founded+by+Steve+Jobs+in+Cupertino,+California.&run=1", LAPTOP),
    "qa": ("tab=qa&question=Who+introduced+the+Transformer?"
           "&context=The+Transformer+was+introduced+in+2017+by+Vaswani+and+colleagues+at+Google.&run=1", LAPTOP),
    "next_sentence": ("tab=next_sentence&first=The+man+went+to+the+store.&second=He+bought+milk.&run=1", LAPTOP),
    "generate": ("tab=generate&prompt=Once+upon+a+time&strategy=top_p&sequences=3&seed=42&run=1", LAPTOP),
    "attention": ("tab=attention&text=The+animal+didn%27t+cross+the+street+because+it+was+too+tired.&run=1", LAPTOP),
    "compare": ("tab=compare&text=The+animal+didn%27t+cross+the+street+because+it+was+too+tired.&run=1", LAPTOP),
    "pretraining": ("tab=mlm&text=The+quick+brown+fox+jumps+over+the+lazy+dog.&seed=0&run=1", LAPTOP),
    "why": ("tab=fill_mask&text=The+animal+didn%27t+cross+the+[MASK]+because+it+was+too+tired.&run=1", LAPTOP),
    # the fine-tune-or-prompt page on its built-in task: GPT-2 prompted 4-shot, BERT fine-tuned with LoRA
    "finetune_prompt": ("tab=prompt_gpt&run=1", LAPTOP),
    "finetune": ("tab=tune_bert&method=lora&steps=40&learning_rate=0.002&run=1", LAPTOP),
    # Korean and Japanese: the page in the language the link asks for, each with its language's models
    "ko_fill_mask": ("lang=ko&tab=fill_mask&text=서울은+한국의+[MASK]입니다.&model=google-bert/bert-base-multilingual-cased"
                     "&run=1", LAPTOP),
    "ko_attention": ("lang=ko&tab=attention&text=나는+학교에+갑니다.&role=decoder&model=skt/kogpt2-base-v2&run=1", LAPTOP),
    "ja_generate": ("lang=ja&tab=generate&prompt=日本の首都は&model=rinna/japanese-gpt2-small&max_new_tokens=20&run=1",
                    LAPTOP),
    "ja_tokens": ("lang=ja&tab=causal&text=東京は日本の首都です。&model=openai-community/gpt2&run=1", LAPTOP),
}
# every page on a phone, as a student opening the teacher's link sees it: the result brought into view
PHONE_PAGES = {
    "fill_mask": "tab=fill_mask&text=The+cat+sat+on+the+[MASK].&run=1",
    "classify": "tab=classify&text=I+loved+this+movie,+the+acting+was+wonderful.&run=1",
    "ner": "tab=ner&text=Apple+Inc.+was+founded+by+Steve+Jobs+in+Cupertino,+California.&run=1",
    "qa": SHOTS["qa"][0],
    "next_sentence": SHOTS["next_sentence"][0],
    "generate": "tab=generate&prompt=Once+upon+a+time&strategy=beam&max_new_tokens=30&run=1",
    "next_token": "tab=next_token&text=The+capital+of+France+is&run=1",
    "logit_lens": "tab=logit_lens&text=The+Eiffel+Tower+is+in+the+city+of&run=1",
    "attention": SHOTS["attention"][0],
    "attention_layer": "tab=attention&text=The+animal+didn%27t+cross+the+street+because+it+was+too+tired.&view=layer&run=1",
    "compare": SHOTS["compare"][0],
    "pretraining": SHOTS["pretraining"][0],
    "why": SHOTS["why"][0],
    "finetune": SHOTS["finetune"][0],
}
SHOTS.update({f"phone_{key}": (query, PHONE) for key, query in PHONE_PAGES.items()})
# after the page has run: texts to click in order, then what must be on screen before the picture
ACTIONS = {"why": (["Why? Attention from the prediction", "Explain this prediction"], "text=/ρ = /"),
           "phone_why": (["Why? Attention from the prediction", "Explain this prediction"], "text=/ρ = /"),
           "ko_attention": ([], ".js-plotly-plot"), "attention": ([], ".js-plotly-plot")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="use tiny random models (built into a temp dir)")
    parser.add_argument("--out", default="assets/screenshots")
    parser.add_argument("--only", nargs="*", default=list(SHOTS))
    parser.add_argument("--ray", default="", metavar="ADDRESS",
                        help="send the model calls to the Ray Serve model tier at ADDRESS; 'local': deploy it on this "
                             "machine first (deploy/serve.yaml on a fresh local Ray): every page through the cluster")
    args = parser.parse_args()
    if args.tiny or not os.environ.get("BG_DEMO_MODEL_DIR"):
        from bg_demo.tiny_models import build_hub_models, build_tiny_models

        tiny = tempfile.mkdtemp(prefix="bg-demo-tiny-")
        build_tiny_models(tiny)
        build_hub_models(tiny)
        os.environ["BG_DEMO_MODEL_DIR"] = tiny
        os.environ["HF_HUB_OFFLINE"] = "1"
    from playwright.sync_api import sync_playwright

    from bg_demo.ui import build_demo, launch_options

    if args.ray:
        from bg_demo.cluster import client, deployments

        if args.ray == "local":
            deployments.local()
        client.connect("auto" if args.ray == "local" else args.ray)
    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, **launch_options())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        for key in args.only:
            query, (width, height) = SHOTS[key]
            page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
            page.goto(f"{url}?{query}")
            page.wait_for_selector("[role=tablist]")
            page.wait_for_timeout(1500)  # the linked run starts once the page has loaded
            page.wait_for_function("() => !document.querySelector('.generating, .pending')", timeout=60_000)
            clicks, result = ACTIONS.get(key, ((), None))
            for text in clicks:
                page.locator(f"text={text} >> visible=true").first.click()
            if result:
                page.locator(f"{result} >> visible=true").first.wait_for(timeout=60_000)
            page.wait_for_timeout(800)
            if key.startswith("phone_"):  # a phone's picture shows the page's first figure, if it has one
                page.evaluate("() => { const plot = [...document.querySelectorAll('.js-plotly-plot')].find("
                              "(p) => p.offsetParent); if (plot) plot.closest('.block').scrollIntoView(); }")
                page.wait_for_timeout(300)
            # a phone shows its screen; the laptop pictures show whole pages
            page.screenshot(path=str(out / f"{key}.png"), full_page=not key.startswith("phone_"))
            page.close()
            print(out / f"{key}.png")
        browser.close()
    demo.close()
    if args.ray == "local":
        deployments.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
