"""GPT-2 generation: greedy, beam search and sampling, streamed token by token.

Greedy and sampling requests go to the decoder's shared engine (`engine.py`), which decodes every running
request in one batch; beam search runs `model.generate` one request at a time (`beam.py`). Both follow
transformers' own decoding step for step: the same logits processors in the same order, the same draw for a
seed. Each chosen token's probability and rank under the model (temperature 1, no filters) are read from the
logits the decoding computed anyway. `types.py` holds what they all speak.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from bg_demo import config, models
from bg_demo.backend._common import require_head
from bg_demo.backend.generation import beam, engine
from bg_demo.backend.generation.types import (
    MAX_SEED,
    SAMPLING,
    STRATEGIES,
    BeamStep,
    GenerationResult,
    GenerationSettings,
    Handle,
    Request,
    TokenInfo,
    prompt_ids,
    seed_or_draw,
)

__all__ = [
    "MAX_SEED", "SAMPLING", "STRATEGIES", "BeamStep", "GenerationResult", "GenerationSettings", "Handle", "Request",
    "TokenInfo", "generate", "generate_stream", "prompt_ids", "seed_or_draw", "settings_of", "stopped", "submission",
    "submit",
]


def submit(prompt: str, settings: GenerationSettings, *, model_id: str | None = None, client: str = ""):
    """Start a generation; returns its `engine.Handle` (iterate it, sync or async, for the results; `cancel()` it).
    `client` names who asks (a browser session), for the engine's fair share."""
    request = Request.of(prompt, settings, client)
    loaded = models.get("decoder", model_id)
    require_head(loaded, "lm")
    if settings.strategy == "beam":
        return beam.submit(loaded, request)
    return engine.engine_for(loaded).submit(request)


def generate_stream(prompt: str, *args, model_id: str | None = None, **kwargs) -> Iterator[GenerationResult]:
    """Partial results while tokens arrive, then the finished result. The arguments after `prompt` are
    `GenerationSettings`' fields. An empty prompt starts from the beginning-of-text token."""
    handle = submit(prompt, GenerationSettings(*args, **kwargs), model_id=model_id)
    yield from handle


def generate(prompt: str, *args, model_id: str | None = None, **kwargs) -> GenerationResult:
    """Generate and return the finished result; the arguments are those of `generate_stream`."""
    *_, final = generate_stream(prompt, *args, model_id=model_id, **kwargs)
    return final


# A generation call's arguments, whichever of the three it is: `submit(prompt, settings, *, model_id, client)`, or
# `generate_stream`/`generate(prompt, *fields, model_id, **fields)`. The dispatcher and the model tier read them so.


def settings_of(args: tuple, kwargs: dict) -> GenerationSettings:
    """The settings a generation call's arguments give."""
    given = args[1] if len(args) > 1 else kwargs.get("settings")
    if isinstance(given, GenerationSettings):
        return given
    fields = {key: value for key, value in kwargs.items() if key not in ("prompt", "model_id", "client")}
    return GenerationSettings(*args[1:], **fields)


def submission(args: tuple, kwargs: dict) -> tuple[str, GenerationSettings, dict]:
    """`submit`'s arguments for any generation call: (prompt, settings, {model_id, client} as given)."""
    prompt = args[0] if args else kwargs["prompt"]
    return prompt, settings_of(args, kwargs), {key: kwargs[key] for key in ("model_id", "client") if key in kwargs}


def stopped(last: GenerationResult | None, args: tuple, kwargs: dict) -> GenerationResult:
    """The final result of a generation stopped before its worker or replica sent one: the newest update `last`, or
    an empty one, marked done and stopped."""
    if last is None:
        prompt, settings, options = submission(args, kwargs)
        model_id = options.get("model_id") or config.public_name(config.settings().source("decoder"))
        last = Request.of(prompt, settings).started(model_id)
    return replace(last, done=True, stopped="stopped", waiting=0)
