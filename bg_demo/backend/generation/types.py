"""What generation speaks: its settings, requests, results and the consumer's `Handle` (a leaf: it imports no
other generation module, so the engine, beam search and the package's entry points all import it, not each other).
"""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass, replace

from bg_demo.backend._common import Result, require_float, require_int, require_text
from bg_demo.config import LIMITS
from bg_demo.errors import InputError

STRATEGIES = ("greedy", "beam", "temperature", "top_k", "top_p")
SAMPLING = ("temperature", "top_k", "top_p")
MAX_SEED = 2**31 - 1


def seed_or_draw(seed) -> int:
    """The seed given (a whole number, as text or a number), or a freshly drawn one when it is left empty:
    every sample has a seed to report, so any sample can be repeated."""
    if seed is None or not str(seed).strip():
        return random.randrange(MAX_SEED)
    return require_int(str(seed).strip(), "Seed", 0, MAX_SEED)


@dataclass(frozen=True)
class GenerationSettings:
    """How to generate: validated on construction (an InputError says what to change), and normalised so
    that a setting the strategy does not use is off; a sampling strategy without a seed draws one."""

    strategy: str = "greedy"
    max_new_tokens: int = 40
    temperature: float = 1.0
    top_k: int = 50  # 0 = off; used by "top_k" only
    top_p: float = 0.9  # 1.0 = off; used by "top_p" only
    num_beams: int = 4  # used by "beam" only
    num_return_sequences: int = 1
    seed: int | None = None  # sampling only
    no_repeat_ngram_size: int = 0
    repetition_penalty: float = 1.0

    def __post_init__(self) -> None:
        strategy = self.strategy
        if strategy not in STRATEGIES:
            raise InputError("error.strategy", got=strategy, choices=", ".join(STRATEGIES))
        sampling, beam = strategy in SAMPLING, strategy == "beam"
        values = dict(
            max_new_tokens=require_int(self.max_new_tokens, "New tokens", 1, LIMITS.max_new_tokens),
            num_return_sequences=require_int(self.num_return_sequences, "Sequences", 1, LIMITS.max_sequences),
            no_repeat_ngram_size=require_int(self.no_repeat_ngram_size, "No-repeat n-gram size", 0, 10),
            repetition_penalty=require_float(self.repetition_penalty, "Repetition penalty", 1.0, 3.0),
            num_beams=require_int(self.num_beams, "Beams", 2, LIMITS.max_beams) if beam else 1,
            temperature=require_float(self.temperature, "Temperature", 0.05, 5.0) if sampling else 1.0,
            top_k=require_int(self.top_k, "Top-k", 1, 1000) if strategy == "top_k" else 0,
            top_p=require_float(self.top_p, "Top-p", 0.01, 1.0) if strategy == "top_p" else 1.0,
            seed=None,
        )
        if sampling:
            values["seed"] = seed_or_draw(self.seed)
        if beam and values["num_return_sequences"] > values["num_beams"]:
            raise InputError("error.beam_sequences")
        if strategy == "greedy" and values["num_return_sequences"] > 1:
            raise InputError("error.greedy_sequences")
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def do_sample(self) -> bool:
        return self.strategy in SAMPLING

    def generate_kwargs(self) -> dict:
        """The same settings as `model.generate` arguments (what beam search and the tests' reference use)."""
        kwargs = dict(
            max_new_tokens=self.max_new_tokens, num_return_sequences=self.num_return_sequences,
            no_repeat_ngram_size=self.no_repeat_ngram_size, repetition_penalty=self.repetition_penalty,
            do_sample=self.do_sample, num_beams=self.num_beams,
        )
        if self.do_sample:
            kwargs |= dict(temperature=self.temperature, top_k=self.top_k, top_p=self.top_p)
        return kwargs


@dataclass(frozen=True)
class TokenInfo(Result):
    token: str  # its label in the sequence (bg_demo.tokens.display_tokens): ␣ for a space, 나[1/3] for a byte piece
    token_id: int
    score: float  # its probability under the model, before temperature or filters
    rank: int  # 1 = the model's most likely token at that step


@dataclass(frozen=True)
class BeamStep(Result):
    step: int  # new tokens so far
    # (text generated so far, cumulative log-probability), best first; the text is the beam view's label
    # (bg_demo.tokens.readable_text: a character cut at the end shows as its bytes, never U+FFFD)
    beams: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class GenerationResult(Result):
    prompt: str
    strategy: str
    # the continuations, without the prompt, as data: tokenizer.decode(new ids, skip_special_tokens=True), so bytes
    # that make no character (one cut at the end, say) are U+FFFD; the views show `generated`'s labels instead
    texts: tuple[str, ...]
    generated: tuple[tuple[TokenInfo, ...], ...]  # per continuation, its tokens as far as it has got
    beam_steps: tuple[BeamStep, ...]  # beam search only: the beams kept at each step
    seed: int | None  # the seed used (drawn at random when none was given), None when deterministic
    settings: dict  # the `model.generate` arguments these settings equal
    seconds: float  # from the moment the request started running
    done: bool  # False for the partial results of a stream
    stopped: str  # "end of text", "max new tokens", "time budget", "stopped", or "" while running
    model_id: str
    waiting: int = 0  # requests ahead of this one while it waits to start (0 once running)
    ended: tuple[bool, ...] = ()  # per continuation, whether it has made its end-of-text token (its last)

    @property
    def n_tokens(self) -> int:
        return sum(len(tokens) for tokens in self.generated)


@dataclass(frozen=True)
class Request:
    """One generation to run: a prompt (empty: start from the beginning-of-text token) and its settings."""

    prompt: str
    settings: GenerationSettings
    client: str = ""  # who asked (a browser session): the engine gives each client a fair share of its rows

    @classmethod
    def of(cls, prompt: str, settings: GenerationSettings, client: str = "") -> Request:
        prompt = "" if prompt is None else str(prompt)
        if prompt.strip():
            prompt = require_text(prompt, "prompt", LIMITS.max_prompt_chars)
        return cls(prompt.strip(), settings, str(client or ""))

    def started(self, model_id: str, **fields) -> GenerationResult:
        """An empty result for this request (with `fields` changed); the engines fill it in."""
        settings = self.settings
        empty = GenerationResult(
            self.prompt, settings.strategy, (), (), (), settings.seed, settings.generate_kwargs(), 0.0, False, "",
            model_id,
        )
        return replace(empty, **fields)


def prompt_ids(tokenizer, prompt: str, limit: int, new_tokens: int) -> list[int]:
    """The prompt's token ids, or the beginning-of-text token when the prompt is empty."""
    ids = tokenizer(prompt)["input_ids"] if prompt else [tokenizer.bos_token_id]
    if len(ids) + new_tokens > limit:
        raise InputError("error.prompt_tokens", n=len(ids), new=new_tokens, limit=limit)
    return ids


@dataclass(frozen=True)
class Deferred:
    """An update the consumer builds when it takes it: `build()` gives the GenerationResult. The engine puts one
    per step for every request and a consumer takes a few a second (the app's streams pause between messages),
    so the work of the result (decoding each row's text) is done for the updates taken only, in the consumer's
    thread, not in the engine's, which every student's next token waits for. `build` reads nothing the engine
    changes after the put (it holds copies)."""

    build: object  # () -> GenerationResult
    done: bool


class Handle:
    """The consumer's end of one request. Iterate it (`for` in a thread, `async for` on an event loop)
    for snapshots of the result, the last one with `done`; an error in the request is raised there.
    Updates are snapshots, so a slow consumer skips to the newest (an update never taken is never built:
    `Deferred`). `cancel()` never blocks: the request leaves at its next step and ends with
    `stopped == "stopped"`. Leaving the loop early (a closed tab, `break`, an exception) cancels too."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._latest: GenerationResult | BaseException | None = None
        self._ready = threading.Event()
        self._waker: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        self._ended = False  # the final update (or the error) has been put
        self._pausing: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    @property
    def ended(self) -> bool:
        """Whether the final update (or the error) has been put."""
        return self._ended

    def put(self, update: GenerationResult | Deferred | BaseException) -> None:
        """Engine side: the newest snapshot (or the error that ended the request)."""
        final = isinstance(update, BaseException) or update.done
        with self._lock:
            self._latest = update
            self._ended = self._ended or final
            # a consumer in its pause looks for the newest update when the pause ends: its event loop is not woken
            # at every step meanwhile (a class's streams would wake the server's loop at every step of every student)
            quiet = self._pausing is not None and not final
            wakers = [None if quiet else self._waker, self._pausing if final else None]
            if quiet and self._pausing[0].is_closed():
                self.cancel()  # the consumer's loop has closed: nobody is listening
        self._ready.set()
        for waker in wakers:
            if waker is None:
                continue
            loop, event = waker
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the consumer's loop has closed: nobody is listening
                self.cancel()

    async def pause(self, seconds: float) -> None:
        """Wait `seconds` before taking the next update (a consumer that shows a few updates a second), or less:
        the final update, or an error, ends the wait at once, so the result is never held back by the pause."""
        event = asyncio.Event()
        with self._lock:
            if self._ended:
                return
            self._pausing = (asyncio.get_running_loop(), event)
        try:
            await asyncio.wait_for(event.wait(), seconds)
        except TimeoutError:
            pass
        finally:
            with self._lock:
                self._pausing = None
                held = self._latest is not None and self._waker is not None
            if held:
                self._waker[1].set()  # what was put during the pause (this runs on the consumer's loop)

    def cancel(self) -> None:
        self.cancelled.set()

    def _take(self):
        with self._lock:
            update, self._latest = self._latest, None
            self._ready.clear()
        if isinstance(update, BaseException):
            raise update
        if isinstance(update, Deferred):
            return update.build()
        return update

    def __iter__(self):
        try:
            while True:
                self._ready.wait()
                update = self._take()
                if update is not None:
                    yield update
                    if update.done:
                        return
        finally:
            self.cancel()

    async def _updates(self):
        event = asyncio.Event()
        with self._lock:
            self._waker = (asyncio.get_running_loop(), event)
            if self._latest is not None:
                event.set()
        try:
            while True:
                await event.wait()
                event.clear()
                update = self._take()
                if update is not None:
                    yield update
                    if update.done:
                        return
        finally:
            self.cancel()

    def __aiter__(self):
        return self._updates()
