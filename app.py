"""Entry point for `python app.py` and Hugging Face Spaces: `demo` is built here; the server starts only under __main__."""

import logging

from bg_demo.ui import build_demo, launch

demo = build_demo()

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    launch(demo)
