"""What every tab shares: running a backend call with a loading notice and user-facing errors."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import gradio as gr

from bg_demo import backend
from bg_demo.errors import BgDemoError
from bg_demo.ui.strings import t

log = logging.getLogger(__name__)


def run(role: str, fn, *args, progress: gr.Progress | None = None, **kwargs):
    """Call a backend function; a user mistake or a missing model becomes a gr.Error the user can act on."""
    _loading_notice(role, progress)
    with _user_errors(getattr(fn, "__name__", str(fn))):
        return fn(*args, **kwargs)


def stream(role: str, results, progress: gr.Progress | None = None):
    """Iterate a backend generator with the same error handling as `run`."""
    _loading_notice(role, progress)
    with _user_errors(role):
        yield from results


def _loading_notice(role: str, progress: gr.Progress | None) -> None:
    if progress is not None and not backend.model_is_loaded(role):
        progress(0.0, desc=t("app.loading", role=role, model=backend.model_source(role)))


@contextmanager
def _user_errors(what: str):
    try:
        yield
    except BgDemoError as exc:
        raise gr.Error(str(exc), print_exception=False) from None
    except Exception:
        log.exception("%s failed", what)
        raise gr.Error(t("app.unexpected"), print_exception=False) from None


def token_view(tokens, labels=None) -> list[tuple[str, str | None]]:
    """Tokens for gr.HighlightedText, each its own piece, optionally labelled."""
    labels = labels if labels is not None else [None] * len(tokens)
    return [(f" {token} ", label) for token, label in zip(tokens, labels)]


def examples(inputs, outputs, fn, rows, labels=None) -> gr.Examples:
    """Examples that load into the inputs and run at once; nothing is computed at startup."""
    return gr.Examples(
        rows,
        inputs=inputs,
        outputs=outputs,
        fn=fn,
        run_on_click=True,
        cache_examples=False,
        label=t("common.examples"),
        example_labels=labels,
        api_visibility="private",
    )


def render_outputs(outputs) -> None:
    """Place outputs created with render=False (so examples can sit above them); the last, the raw
    JSON the API also returns, goes into a closed accordion."""
    *shown, raw = outputs
    for component in shown:
        component.render()
    with gr.Accordion(t("common.raw"), open=False):
        raw.render()
