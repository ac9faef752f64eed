"""Command line: `python -m bg_demo {serve,tiny-models,download}`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bg_demo.config import DEFAULT_MODELS, ROLES


def _serve(args) -> int:
    from bg_demo.ui import launch

    launch(server_name=args.host, server_port=args.port, share=args.share)
    return 0


def _tiny_models(args) -> int:
    from bg_demo.testing import build_tiny_models

    for role, path in build_tiny_models(args.dir, seed=args.seed, roles=args.roles).items():
        print(f"{role:10s} {path}")
    print(f"Run the app on them with: BG_DEMO_MODEL_DIR={args.dir} python app.py")
    return 0


def _download(args) -> int:
    from bg_demo.models import MODEL_CLASSES, hub_reachable

    if not hub_reachable():
        print(
            "error: the Hugging Face Hub cannot be reached (no network, or HF_HUB_OFFLINE is set). "
            "Run this on a machine with internet access, then copy the folder here.",
            file=sys.stderr,
        )
        return 2
    import transformers

    for role in args.roles:
        model_id, target = DEFAULT_MODELS[role], Path(args.dir) / role
        print(f"{role:10s} {model_id} -> {target}", flush=True)
        transformers.AutoTokenizer.from_pretrained(model_id).save_pretrained(target)
        getattr(transformers, MODEL_CLASSES[role]).from_pretrained(model_id).save_pretrained(target)
    print(f"Start the app offline with: BG_DEMO_MODEL_DIR={args.dir} python app.py")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bg_demo", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the web app")
    serve.add_argument("--host", default=None, help="address to bind (default: GRADIO_SERVER_NAME or 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default: GRADIO_SERVER_PORT or 7860)")
    serve.add_argument("--share", action="store_true", help="also open a public gradio.live link")
    serve.set_defaults(run=_serve)

    tiny = commands.add_parser("tiny-models", help="write tiny random models for every role into DIR/<role>")
    tiny.add_argument("dir")
    tiny.add_argument("--seed", type=int, default=0)
    tiny.add_argument("--roles", nargs="+", choices=ROLES, default=list(ROLES))
    tiny.set_defaults(run=_tiny_models)

    download = commands.add_parser("download", help="save the default Hub models into DIR/<role> for offline use")
    download.add_argument("dir")
    download.add_argument("--roles", nargs="+", choices=ROLES, default=list(ROLES))
    download.set_defaults(run=_download)

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
