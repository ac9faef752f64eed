"""Fine-tuning a pre-trained model for a labelled task: a few real AdamW steps, streamed, on a student's own copy.

A classification head (a `torch.nn.Linear`) reads one vector per sentence: BERT's `[CLS]` (position 0 of the last
layer) or GPT-2's last token (GPT-1's recipe, as `GPT2ForSequenceClassification` reads it). `method` says what trains:
- "head": the head only, on the frozen model's vectors (a linear probe): the body runs once, the steps are the head's;
- "lora": the head and LoRA matrices (PEFT; rank `LORA_RANK` on the attention projections PEFT picks for the
  architecture), the body's own weights frozen;
- "layers": the head and the last `layers` layers (GPT-2: and its final layer norm), the rest frozen.

The shared model never changes. A run builds its own body (`_Body`): a copy of the module tree whose frozen weights
are the shared model's own tensors (no copy of them), with the trained pieces (LoRA matrices, the last layers) its own.
Dropout stays off (the model in eval mode) and the batches, the head and LoRA's matrices are drawn from the run's seed
only, never torch's global generator, which other students' threads share: a run repeats exactly with its seed.

Each part of a step, and each evaluation chunk, is one turn of the device (`LoadedModel.use(background=True)`): a
class's runs take turns with each other and step aside for the other tabs' requests. The run streams a `TuneResult`
after every step through a `Handle`. A cancelled run (Stop) ends at the next boundary between two parts of its work
(a part of a step, an evaluation chunk, the wait for a turn): a step not finished is not taken, an evaluation under
way is dropped. It keeps what it learnt: the final result holds the test accuracy then (the test sentences only, read
in the student's own turns: the student is waiting for it) and the learnt weights as arrays (`Tuned`), which cross
by pickle, so `predict_tuned` and `explain_tuned` can apply them again anywhere.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import dataclasses
import functools
import math
import threading
import time
import warnings
from dataclasses import dataclass

import numpy as np

from bg_demo import models, placement
from bg_demo.backend._common import Result, check_length, field, require_float, require_int, require_text
from bg_demo.backend.generation.types import Handle
from bg_demo.backend.labelled import labelled
from bg_demo.backend.prompting import by_label, which_model
from bg_demo.config import LIMITS
from bg_demo.dispatch import TRAINING_MOST_SECONDS
from bg_demo.errors import InputError, shown

# PEFT 0.21 asks a model `is_gradient_checkpointing`, which transformers 5 deprecates with a FutureWarning on every
# LoRA run: the answer is right, the warning is for PEFT's authors
warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)

METHODS = ("head", "lora", "layers")
# AdamW's learning rate when a call leaves it out: a head on frozen vectors takes big steps; LoRA's small matrices
# mid-sized ones; whole layers the small steps of a usual BERT fine-tuning (2e-5..1e-4), a little higher for a few steps
RATES = {"head": 1e-2, "lora": 2e-3, "layers": 1e-4}
LORA_RANK, LORA_ALPHA = 8, 16
EVALUATIONS = 10  # train and test accuracy this many times in a run (and after its last step)
# One turn of the device holds a few sentences only, so a student's request waits behind ~0.1 s of a run at most
# (on 2 vCPUs, base size): a forward pass over INFER_TOKENS padded tokens, or a forward and backward pass over
# TRAIN_TOKENS (about three forward passes' work); GPU_TURNS times more on a GPU, where a turn costs milliseconds
INFER_TOKENS = 96
TRAIN_TOKENS = 32
GPU_TURNS = 32
HEAD_STD = 0.02  # the head's initial weights: BERT's and GPT-2's `initializer_range`


def require_method(method) -> str:
    if method not in METHODS:
        raise InputError("error.tune_method", got=shown(method), choices=", ".join(METHODS))
    return method


@dataclass(frozen=True)
class Tuned:
    """What a run learnt, as arrays (they cross by pickle): the head, and the LoRA matrices or the layers' weights,
    by their names in the run's body; enough for `predict_tuned` to apply them to the shared model again."""

    model_id: str
    source: str | None  # the model as the run was asked for it: an allowed id, or None for the role's own
    role: str
    method: str
    layers: int
    labels: tuple[str, ...]
    weights: dict  # name -> float32 numpy array
    changed: int  # weights (numbers) the run changed

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in self.weights.values())


@dataclass(frozen=True)
class TuneResult(Result):
    model_id: str
    role: str
    method: str
    layers: int  # trained layers ("layers" only; 0 otherwise)
    steps: int  # asked for
    learning_rate: float
    batch_size: int
    seed: int
    labels: tuple[str, ...]
    texts: tuple[str, ...]  # the test sentences
    truth: tuple[str, ...]
    step: int  # steps taken so far
    losses: tuple[float, ...]  # one per step taken: the batch's mean cross-entropy
    evaluations: tuple[tuple[int, float, float], ...]  # (step, train accuracy, test accuracy)
    accuracy_before: float  # test accuracy with the untrained head
    probabilities_before: tuple[dict, ...]  # {label: p} per test sentence, untrained
    points_before: tuple[tuple[float, float], ...]  # the test sentences' vectors, 2-D (PCA), before
    accuracy_after: float | None  # once done
    probabilities_after: tuple[dict, ...]
    predictions_after: tuple[str, ...]
    points_after: tuple[tuple[float, float], ...]
    changed: int  # weights the run changes: the head's, plus the LoRA matrices' or the layers'
    total: int  # weights of the model's body and the head
    train_examples: int
    seconds: float  # since the run began
    done: bool = False
    stopped: bool = False  # ended early (Stop): `accuracy_after` is what was learnt by then
    tuned_bytes: int = 0  # the learnt weights' size, once done
    tuned: Tuned | None = dataclasses.field(default=None, repr=False)  # the learnt weights, once done
    # Stop was pressed once the run had taken its last step (the page marks it): the result is the whole run's
    stop_after_end: bool = False

    def to_dict(self) -> dict:
        found = super().to_dict()
        found.pop("tuned")  # arrays stay on the server; `tuned_bytes` says how big
        return found


@dataclass(frozen=True)
class Settings:
    """A run's checked arguments."""

    role: str
    model_id: str | None
    method: str
    steps: int
    learning_rate: float
    batch_size: int
    seed: int
    layers: int


def settings_of(args: tuple, kwargs: dict) -> Settings:
    """A call's `Settings`, checked (how long a run may take, for ZeroGPU's duration, reads them)."""
    return _settings(*args, **kwargs)[0]


def steps_of(args: tuple, kwargs: dict) -> int:
    """The steps a call asks for (ZeroGPU's duration grows with them)."""
    return settings_of(args, kwargs).steps


def _settings(model, train, test, method="head", steps=30, learning_rate=None, batch_size=8, seed=0, layers=2):
    role, model_id = which_model(model)
    task = labelled(train, test)
    method = require_method(method)
    steps = require_int(steps, "steps", 1, LIMITS.tune_steps)
    rate = RATES[method] if learning_rate in (None, "") else require_float(learning_rate, "learning rate", 1e-6, 1.0)
    batch_size = require_int(batch_size, "batch size", 1, LIMITS.tune_batch)
    seed = require_int(seed, "Seed", 0, 2**31 - 1)
    layers = require_int(layers, "layers", 1, LIMITS.tune_layers) if method == "layers" else 0
    return Settings(role, model_id, method, steps, rate, batch_size, seed, layers), task


def fine_tune(model, train, test, method: str = "head", steps: int = 30, learning_rate: float | None = None,
              batch_size: int = 8, seed: int = 0, layers: int = 2) -> Handle:
    """Start a run (see the module's docstring); iterate the returned `Handle` for a `TuneResult` after each step, the
    last one `done`. `model` as `prompting.which_model` reads it: an allowed id, or "encoder" / "decoder"."""
    settings, task = _settings(model, train, test, method, steps, learning_rate, batch_size, seed, layers)
    loaded = models.get(settings.role, settings.model_id)
    layers_in = _layer_list(loaded.model.base_model)
    if settings.method == "layers" and settings.layers > len(layers_in):
        raise InputError("error.out_of_range", what=field("layers"), low=1, high=len(layers_in), got=settings.layers)
    handle = Handle()
    # in the caller's context: a run placed on a ZeroGPU Space's CPU (`placement.on_cpu`) stays there in its thread
    handle.thread = threading.Thread(target=contextvars.copy_context().run,
                                     args=(_run, handle, loaded, settings, task), name="bg-demo-fine-tune", daemon=True)
    handle.thread.start()
    return handle


def run_to_end(*args, **kwargs) -> TuneResult:
    """A whole run, its final result, once its thread has let go of everything (for scripts and tests: a process that
    exits while a daemon thread still frees torch's tensors can abort)."""
    last = None
    handle = fine_tune(*args, **kwargs)
    for last in handle:
        pass
    handle.thread.join()
    return last


def stopped(last, args: tuple, kwargs: dict) -> TuneResult:
    """The final result of a run stopped before its worker sent one: its newest update, marked done and stopped (on
    ZeroGPU the worker is gone with its weights: the run's last evaluation is what it learnt)."""
    if last is None:
        raise InputError("error.tune_stopped_early")
    done = last.evaluations[-1][2] if last.evaluations else last.accuracy_before
    return dataclasses.replace(last, done=True, stopped=True, accuracy_after=done)


# --- the run ------------------------------------------------------------------------------------------------------


# Runs training the last layers at once, per process: each holds copies of its layers in float32 with their gradients
# and AdamW's two moments (~0.5 GB for 4 layers of bert-base, ~1 GB of bert-large or gpt2-medium); later ones wait
LAYERS_AT_ONCE = 4
_LAYERS = threading.BoundedSemaphore(LAYERS_AT_ONCE)


class _Stopped(Exception):  # noqa: N818 - a signal, not an error
    """Stop (or the run's time) met between two parts of a run's work: the part under way was the last."""


def _stopper(handle: Handle, deadline: float = math.inf):
    """The check a run makes between two parts of its work: raises `_Stopped` once cancelled or past `deadline`."""

    def check() -> None:
        if handle.cancelled.is_set() or time.perf_counter() > deadline:
            raise _Stopped

    return check


def _run(handle: Handle, loaded, settings: Settings, task) -> None:
    try:
        with _slot(handle) if settings.method == "layers" else contextlib.nullcontext():
            for update in _steps(handle, loaded, settings, task):
                handle.put(update)
    except BaseException as error:  # noqa: BLE001 - the consumer raises it
        handle.put(error)


@contextlib.contextmanager
def _slot(handle: Handle):
    """One of the `LAYERS_AT_ONCE` places of runs training last layers, waited for as long as the run is not stopped
    (Stop meanwhile: the run ends before its first step)."""
    while not _LAYERS.acquire(timeout=0.05):
        if handle.cancelled.is_set():
            raise InputError("error.tune_stopped_early")
    try:
        yield
    finally:
        _LAYERS.release()


def _steps(handle: Handle, loaded, s: Settings, task):
    import torch

    started = time.perf_counter()
    generator = torch.Generator().manual_seed(s.seed)
    train_x, test_x = _encode(loaded, [text for text, _ in task.train]), _encode(loaded, [text for text, _ in task.test])
    train_y, test_y = torch.tensor(task.ids(task.train)), task.ids(task.test)
    with loaded.use(background=True):  # the copy is made from the model as calls leave it (its attention kernel)
        body = _Body(loaded, s.method, s.layers, generator)
    try:  # the vectors before any step, a few sentences per turn (Stop here: nothing learnt, nothing to show)
        stop = _stopper(handle)
        before_train, before_test = _frozen(loaded, train_x, check=stop), _frozen(loaded, test_x, check=stop)
    except _Stopped:
        raise InputError("error.tune_stopped_early") from None
    head = torch.nn.Linear(before_test.shape[1], len(task.labels))  # drawn on the CPU, where the generator is
    with torch.no_grad():
        head.weight.normal_(0.0, HEAD_STD, generator=generator)
        head.bias.zero_()
    head = head.to(loaded.device)
    parameters = [*head.parameters(), *body.trained]
    optimizer = torch.optim.AdamW(parameters, lr=s.learning_rate)
    changed = sum(p.numel() for p in parameters)
    total = sum(p.numel() for p in loaded.model.base_model.parameters()) + sum(p.numel() for p in head.parameters())
    p_before = _probabilities(head, before_test)
    shown_test = tuple(text for text, _ in task.test)
    truth = tuple(label for _, label in task.test)
    base = dict(model_id=loaded.model_id, role=s.role, method=s.method, layers=s.layers, steps=s.steps,
                learning_rate=s.learning_rate, batch_size=s.batch_size, seed=s.seed, labels=task.labels,
                texts=shown_test, truth=truth, accuracy_before=_accuracy(p_before, test_y),
                probabilities_before=by_label(task.labels, p_before), points_before=_pca(before_test),
                accuracy_after=None, probabilities_after=(), predictions_after=(), points_after=(), changed=changed,
                total=total, train_examples=len(task.train))
    order = np.random.default_rng(s.seed)
    batches = _batches(order, len(task.train), s.batch_size)
    every = max(1, s.steps // EVALUATIONS)
    losses, evaluations = [], []
    # a run stops itself after its time (a GPU worker's is what it asked ZeroGPU for, less its start): its result is
    # then what it learnt, marked stopped, where ZeroGPU would end the call and lose it
    check = _stopper(handle, started + (TRAINING_MOST_SECONDS if placement.in_worker() else LIMITS.tune_seconds))
    try:
        for step in range(1, s.steps + 1):
            check()
            rows = next(batches)
            optimizer.zero_grad(set_to_none=True)
            loss = 0.0
            # the batch's mean loss, its gradient summed over parts of a few sentences, each part one turn of the
            # device (gradient accumulation: the same step as the whole batch at once, to float rounding), so that
            # nobody waits behind a whole batch's backward pass; Stop between two parts: this step is not taken
            for part in _parts([train_x[i] for i in rows], _budget(loaded, TRAIN_TOKENS)) if s.method != "head" else [
                    range(len(rows))]:
                check()
                with loaded.use(background=True), torch.enable_grad():
                    check()  # Stop while this part waited for its turn
                    chosen = [rows[i] for i in part]
                    if s.method == "head":
                        vectors = before_train[chosen].to(loaded.device)
                    else:
                        vectors = body.vectors(_padded(loaded, [train_x[i] for i in chosen]))
                    part_loss = torch.nn.functional.cross_entropy(head(vectors.float()),
                                                                  train_y[chosen].to(loaded.device),
                                                                  reduction="sum") / len(rows)
                    part_loss.backward()
                    loss += float(part_loss.detach())
            check()
            with loaded.use(background=True):
                optimizer.step()
            losses.append(loss)
            if step % every == 0 or step == s.steps:  # Stop in an evaluation drops it (the step is taken)
                evaluations.append((step, *_evaluate(loaded, body, head, s.method, (before_train, before_test),
                                                     (train_x, test_x), (train_y, test_y), check)))
            yield TuneResult(**base, step=step, losses=tuple(losses), evaluations=tuple(evaluations),
                             seconds=time.perf_counter() - started)
    except _Stopped:
        pass
    # what it learnt: the test sentences read once more (a student who pressed Stop waits for it: in foreground
    # turns, as any request of theirs); a run that took every step also gets its final train accuracy, one that
    # stopped only where it is free (a head's frozen vectors)
    asked = handle.cancelled.is_set()
    after_test = before_test if s.method == "head" else _vectors(loaded, body, test_x, background=not asked)
    p_after = _probabilities(head, after_test)
    whole = len(losses) == s.steps
    if (whole or s.method == "head") and (not evaluations or evaluations[-1][0] != len(losses)):
        after_train = before_train if s.method == "head" else _vectors(loaded, body, train_x, background=not asked)
        evaluations.append((len(losses), _accuracy(_probabilities(head, after_train), train_y),
                            _accuracy(p_after, test_y)))
    tuned = Tuned(loaded.model_id, s.model_id, s.role, s.method, s.layers, task.labels, body.weights(head), changed)
    _let_go(body, optimizer)
    del body, optimizer, parameters
    after = dict(accuracy_after=_accuracy(p_after, test_y), probabilities_after=by_label(task.labels, p_after),
                 predictions_after=tuple(task.labels[int(i)] for i in p_after.argmax(-1)), points_after=_pca(after_test))
    yield TuneResult(**{**base, **after}, step=len(losses), losses=tuple(losses), evaluations=tuple(evaluations),
                     seconds=time.perf_counter() - started, done=True, stopped=not whole,
                     tuned_bytes=tuned.nbytes, tuned=tuned)


def _let_go(body, optimizer) -> None:
    """Break the reference cycles that hold a run's own weights (the last layers': ~28 MB a layer at base size, with
    AdamW's two moments as much again), so they go when the run does: AdamW's own cycle (emptied), and each module of
    the run's copy whose `forward` is set on it, bound to it (`models.linear_layers_through_onednn`). A full
    `gc.collect()` did it before, holding every thread of the server for ~0.8 s (575k objects in the served app),
    the student waiting for the result among them. The shared model ("head" reads it) is left as it is."""
    optimizer.state.clear()
    optimizer.param_groups.clear()
    if body.module is not body.shared.module:  # a copy: its modules are the run's own
        for module in body.module.modules():
            vars(module).pop("forward", None)


def _batches(rng: np.random.Generator, n: int, size: int):
    """Row indices of each step's batch: the train rows shuffled by the seed, epoch after epoch."""
    queue: list[int] = []
    while True:
        while len(queue) < size:
            queue += [int(i) for i in rng.permutation(n)]
        yield queue[:size]
        queue = queue[size:]


def _evaluate(loaded, body, head, method, cached, encoded, labels, check=None) -> tuple[float, float]:
    """(train accuracy, test accuracy) with the run's body and head as they are now; `check()` between two chunks."""
    found = []
    for vectors, x, y in zip(cached, encoded, labels):
        if method != "head":
            vectors = _vectors(loaded, body, x, check=check)
        found.append(_accuracy(_probabilities(head, vectors), y))
    return tuple(found)


def _accuracy(p: np.ndarray, truth) -> float:
    truth = np.asarray(truth)
    return float(np.mean(p.argmax(-1) == truth)) if len(truth) else math.nan


def _probabilities(head, vectors) -> np.ndarray:
    import torch

    with torch.no_grad():
        return head(vectors.to(head.weight.device).float()).softmax(-1).cpu().numpy().astype(np.float64)


def _pca(vectors) -> tuple[tuple[float, float], ...]:
    """Each vector's coordinates on the two directions along which the vectors vary most (PCA by SVD), signs fixed
    so that each direction's largest loading is positive: the same vectors always draw the same picture."""
    x = vectors.detach().float().cpu().numpy().astype(np.float64)
    x = x - x.mean(0, keepdims=True)
    if len(x) < 2:
        return tuple((0.0, 0.0) for _ in x)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    axes = vt[:2]
    axes *= np.sign(axes[np.arange(len(axes)), np.abs(axes).argmax(1)])[:, None]
    points = x @ axes.T
    if points.shape[1] < 2:
        points = np.pad(points, ((0, 0), (0, 2 - points.shape[1])))
    return tuple((float(a), float(b)) for a, b in points)


# --- tokens and vectors -------------------------------------------------------------------------------------------


def _encode(loaded, texts: list[str]) -> list[list[int]]:
    """Each sentence's token ids (special tokens included), within `LIMITS.task_tokens`."""
    with loaded.use() as (tokenizer, _):
        encoded = [tokenizer(text)["input_ids"] for text in texts]
    for ids in encoded:
        check_length(len(ids), LIMITS.task_tokens, loaded.role, "sentence")
    return encoded


def _padded(loaded, rows: list[list[int]]):
    """(input_ids, attention_mask), right-padded (GPT-2 with its end-of-text token, which the mask hides)."""
    import torch

    tokenizer = loaded.tokenizer
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    width = max(len(row) for row in rows)
    ids = torch.tensor([row + [pad] * (width - len(row)) for row in rows], device=loaded.device)
    mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for row in rows], device=loaded.device)
    return ids, mask


def _read(role: str, hidden, mask):
    """(B, H): the vector the head reads: [CLS] (BERT) or the last real token (GPT-2)."""
    import torch

    if role == "encoder":
        return hidden[:, 0]
    return hidden[torch.arange(len(hidden), device=hidden.device), mask.sum(1) - 1]


def _budget(loaded, tokens: int) -> int:
    """Tokens (sentences x padded length) one turn of the device may take: `tokens` on a CPU, where one forward pass
    over 128 tokens of a base-size model takes ~0.1 s on 2 vCPUs, and GPU_TURNS times that on a GPU (milliseconds)."""
    return tokens if str(loaded.device).startswith("cpu") else tokens * GPU_TURNS


def _parts(encoded: list[list[int]], budget: int) -> list[range]:
    """Consecutive sentences, as many per part as fit `budget` padded tokens (at least one)."""
    parts, start = [], 0
    while start < len(encoded):
        end, longest = start, 0
        while end < len(encoded) and (end == start or max(longest, len(encoded[end])) * (end - start + 1) <= budget):
            longest = max(longest, len(encoded[end]))
            end += 1
        parts.append(range(start, end))
        start = end
    return parts


def _vectors(loaded, body, encoded: list[list[int]], background: bool = True, check=None):
    """(N, H) float32 on the CPU: every sentence's vector, without gradients, a few sentences per turn (a run's
    background turns, or a student's own request's), `check()` before each (and once its turn has come)."""
    import torch

    check = check or _nothing
    found = []
    for part in _parts(encoded, _budget(loaded, INFER_TOKENS)):
        check()
        with loaded.use(background=background), torch.inference_mode():
            check()
            found.append(body.vectors(_padded(loaded, [encoded[i] for i in part])).float().cpu())
    return torch.cat(found)


def _nothing() -> None:
    """The check of work nobody can stop (a student's own request)."""


class _FrozenVectors:
    """The shared model's vectors of sentences already read, by token ids: what every "before" picture and every
    head-only run reads. A class fine-tuning the same task reads the same sentences: the first run computes them, the
    others find them (each looks inside its own turn of the device, after the runs before it). A pure function of
    the shared model, kept with it (`LoadedModel.attached`), the least recently used dropped past `SIZE` sentences."""

    SIZE = 4096  # sentences: 12 MB of base-size vectors

    def __init__(self, loaded):
        from cachetools import LRUCache

        self._found: LRUCache = LRUCache(maxsize=self.SIZE)
        self._lock = threading.Lock()

    def get(self, ids: list[int]):
        with self._lock:
            return self._found.get(tuple(ids))

    def put(self, ids: list[int], vector) -> None:
        with self._lock:
            self._found[tuple(ids)] = vector


def _frozen(loaded, encoded: list[list[int]], background: bool = True, check=None):
    """(N, H) float32 on the CPU: the shared model's vectors, from `_FrozenVectors` where it has them; `check()`
    between two turns."""
    import torch

    check = check or _nothing
    known = loaded.attached("frozen_vectors", _FrozenVectors)
    shared = _Shared(loaded)
    found: list = [None] * len(encoded)
    missing = list(range(len(encoded)))
    while missing:
        check()
        with loaded.use(background=background), torch.inference_mode():
            check()
            for i in missing:
                found[i] = known.get(encoded[i])
            missing = [i for i in missing if found[i] is None]
            if not missing:
                break
            part = [missing[i] for i in _parts([encoded[i] for i in missing], _budget(loaded, INFER_TOKENS))[0]]
            vectors = shared.vectors(_padded(loaded, [encoded[i] for i in part])).float().cpu()
            for i, vector in zip(part, vectors):
                found[i] = vector
                known.put(encoded[i], vector.clone())  # its own storage, not a view of the batch's states
            missing = [i for i in missing if found[i] is None]
    return torch.stack(found) if found else torch.empty(0)


class _Shared:
    """The shared model's own body, read without gradients (the vectors before any training)."""

    def __init__(self, loaded):
        self.module, self.role = loaded.model.base_model, loaded.role

    def vectors(self, batch):
        """(B, H): each sentence's vector in a batch of (input_ids, attention_mask), as the head reads it."""
        ids, mask = batch
        return _read(self.role, self.module(input_ids=ids, attention_mask=mask).last_hidden_state, mask)


def _layer_list(base):
    """The body's stack of layers (BERT's `encoder.layer`, DistilBERT's `transformer.layer`, GPT-2's `h`)."""
    import torch

    return max((m for m in base.modules() if isinstance(m, torch.nn.ModuleList)), key=len)


def _shared_copy(module, own=()):
    """A copy of `module`'s tree of modules whose tensors are `module`'s own (no weight is copied), except those of
    the modules in `own`, which are the copy's: what a run trains is its own, everything else stays the shared
    model's and is never written."""
    mine = {id(t) for m in own for t in (*m.parameters(), *m.buffers())}
    memo = {id(t): t for t in (*module.parameters(), *module.buffers()) if id(t) not in mine}
    return copy.deepcopy(module, memo)


class _Body(_Shared):
    """A run's body: the shared one ("head"), a LoRA-adapted copy ("lora", through PEFT), or a copy whose last
    `layers` layers are its own ("layers"). `trained` lists the parameters the optimiser changes."""

    def __init__(self, loaded, method: str, layers: int, generator, weights: dict | None = None):
        import torch

        self.role, self.method, self.shared = loaded.role, method, _Shared(loaded)
        base = loaded.model.base_model
        self.module, self.trained = base, []
        if method == "lora":
            from peft import LoraConfig, get_peft_model, set_peft_model_state_dict

            gpt2 = base.config.model_type == "gpt2"
            config = LoraConfig(r=LORA_RANK, lora_alpha=LORA_ALPHA, lora_dropout=0.0, fan_in_fan_out=gpt2)
            # target_modules left to PEFT: its table names each architecture's attention projections (BERT's query
            # and value, DistilBERT's q_lin and v_lin, GPT-2's c_attn)
            self.module = get_peft_model(_shared_copy(base), config)
            self.trained = [p for p in self.module.parameters() if p.requires_grad]
            with torch.no_grad():  # PEFT draws A from torch's global generator, which other threads share
                for name, p in self.module.named_parameters():
                    if "lora_A" in name:  # drawn on the CPU (the generator's device), as PEFT draws it
                        drawn = torch.empty(p.shape, dtype=torch.float32)
                        torch.nn.init.kaiming_uniform_(drawn, a=math.sqrt(5), generator=generator)
                        p.copy_(drawn)
            if weights is not None:
                set_peft_model_state_dict(self.module, {k[len("lora."):]: torch.from_numpy(v) for k, v in
                                                        weights.items() if k.startswith("lora.")})
        elif method == "layers":
            own = [*_layer_list(base)[-layers:], *([base.ln_f] if hasattr(base, "ln_f") else [])]
            self.module = _shared_copy(base, own)
            copied = _layer_list(self.module)
            self.own = [*copied[-layers:], *([self.module.ln_f] if hasattr(self.module, "ln_f") else [])]
            self.trained = [p for m in self.own for p in m.parameters()]
            for p in self.trained:  # the copy's own; the shared model's stay frozen (`models.load_model`)
                p.requires_grad_(True)
            if self.trained and self.trained[0].dtype != torch.float32:  # half precision (a GPU): train in float32
                for m in self.own:
                    m.float()
                copied[-layers].register_forward_pre_hook(_to_float32, with_kwargs=True)
            if weights is not None:
                with torch.no_grad():
                    for name, p in self._named_own():
                        p.copy_(torch.from_numpy(weights[f"layers.{name}"]))
        self.module.eval()  # no dropout: a run repeats exactly with its seed

    def _named_own(self):
        for k, m in enumerate(self.own):
            for name, p in m.named_parameters():
                yield f"{k}.{name}", p

    def weights(self, head) -> dict:
        """The run's learnt weights as float32 arrays, by name: "head.*", "lora.*" or "layers.*"."""
        found = {f"head.{name}": p for name, p in head.named_parameters()}
        if self.method == "lora":
            from peft import get_peft_model_state_dict

            found.update({f"lora.{name}": p for name, p in get_peft_model_state_dict(self.module).items()})
        elif self.method == "layers":
            found.update({f"layers.{name}": p for name, p in self._named_own()})
        return {name: p.detach().float().cpu().numpy().copy() for name, p in found.items()}


def _to_float32(module, args, kwargs):
    """A float32 layer after half-precision ones: its floating inputs as float32."""
    import torch

    def cast(value):
        return value.float() if isinstance(value, torch.Tensor) and value.is_floating_point() else value

    return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}


# --- trying a learnt model ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TriedResult(Result):
    model_id: str
    method: str
    labels: tuple[str, ...]
    text: str
    probabilities: dict  # {label: p}
    prediction: str


def predict_tuned(tuned: Tuned, text: str) -> TriedResult:
    """A learnt model (`TuneResult.tuned`) on a sentence of the student's own: its weights applied to a body of its own
    again (the shared model unchanged), then the head."""
    import torch

    if not isinstance(tuned, Tuned):
        raise InputError("error.tune_nothing")
    text = require_text(text, "sentence", LIMITS.task_text_chars)
    loaded = models.get(tuned.role, tuned.source)
    with loaded.use():
        body = _Body(loaded, tuned.method, tuned.layers, torch.Generator(), tuned.weights)
    head = torch.nn.Linear(tuned.weights["head.weight"].shape[1], len(tuned.labels)).to(loaded.device)
    with torch.no_grad():
        head.weight.copy_(torch.from_numpy(tuned.weights["head.weight"]))
        head.bias.copy_(torch.from_numpy(tuned.weights["head.bias"]))
    encoded = _encode(loaded, [text])
    # a student's own request: foreground turns, as every other tab's
    vectors = _frozen(loaded, encoded, False) if tuned.method == "head" else _vectors(loaded, body, encoded, False)
    p = _probabilities(head, vectors)
    return TriedResult(loaded.model_id, tuned.method, tuned.labels, text, by_label(tuned.labels, p)[0],
                       tuned.labels[int(p[0].argmax())])


def explain_tuned(tuned: Tuned, text: str, layer: int | None = None, head: int | None = None,
                  steps: int | None = None):
    """Why a learnt model (`TuneResult.tuned`) gives a sentence the label it predicts: the probability of that label,
    with attention from the position its head reads ([CLS], or GPT-2's last token) beside integrated gradients and
    gradient x input (`explain.Explanation`). Computed on the student's own model, rebuilt from its weights as
    `predict_tuned` rebuilds it (the shared model is never changed, and no other model is read)."""
    import torch

    from bg_demo.backend import explain
    from bg_demo.backend._common import Phrase

    if not isinstance(tuned, Tuned):
        raise InputError("error.tune_nothing")
    text = require_text(text, "sentence", LIMITS.task_text_chars)
    loaded = models.get(tuned.role, tuned.source)
    (ids,) = _encode(loaded, [text])
    with loaded.use():  # the copy is made from the model as calls leave it (its attention kernel)
        model = _student(loaded, tuned)
    inputs = {"input_ids": torch.tensor([ids], device=loaded.device)}
    inputs["attention_mask"] = torch.ones_like(inputs["input_ids"])
    with loaded.use(), torch.no_grad():
        label = int(model(**inputs)[0].argmax())

    def score(logits):
        return torch.softmax(logits.float(), dim=-1)[:, label]

    position = 0 if tuned.role == "encoder" else len(ids) - 1  # the vector the head reads (`_read`)
    what = Phrase("note.explain.label", {"label": tuned.labels[label]})
    options = {} if steps is None else {"steps": steps}
    return explain.explain_module(loaded, model, inputs, score, (position,), what, layer, head, **options)


def _student(loaded, tuned: Tuned):
    """A learnt model as one module (`_student_class`): a body of its own (the shared one for "head", which is only
    read) and its head, every weight frozen (an explanation's gradients are the input's, not the weights')."""
    import torch

    body = _Body(loaded, tuned.method, tuned.layers, torch.Generator(), tuned.weights)
    head = torch.nn.Linear(tuned.weights["head.weight"].shape[1], len(tuned.labels)).to(loaded.device)
    with torch.no_grad():
        head.weight.copy_(torch.from_numpy(tuned.weights["head.weight"]))
        head.bias.copy_(torch.from_numpy(tuned.weights["head.bias"]))
    for p in (*body.trained, *head.parameters()):
        p.requires_grad_(False)
    return _student_class()(body.module, head.eval(), loaded.role)


@functools.cache
def _student_class():
    """The class of a learnt model as one module, made on first use (torch is imported only where a model is)."""
    import torch

    class Student(torch.nn.Module):
        """A body (BERT's or GPT-2's, maybe PEFT-wrapped) and a head: `forward` gives the head's logits (B, labels)
        from the vector it reads. A transformers model where an explanation reads one: `base_model` (the body),
        `config`, the input embeddings and the attention kernel are the body's."""

        def __init__(self, body, head, role: str):
            super().__init__()
            self.body, self.head, self.role = body, head, role

        @property
        def base_model(self):
            return self.body

        def _transformer(self):  # the transformers model inside PEFT's wrapping, or the body itself
            return self.body.get_base_model() if hasattr(self.body, "get_base_model") else self.body

        @property
        def config(self):
            return self._transformer().config

        def get_input_embeddings(self):
            return self._transformer().get_input_embeddings()

        def set_attn_implementation(self, name: str) -> None:
            self._transformer().set_attn_implementation(name)

        def forward(self, input_ids, attention_mask):
            hidden = self.body(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            return self.head(_read(self.role, hidden, attention_mask).float())

    return Student


# --- the Sentiment tab's checkpoint on the same test sentences ----------------------------------------------------


@dataclass(frozen=True)
class CheckpointResult(Result):
    model_id: str
    labels: tuple[str, ...]  # the task's labels
    checkpoint_labels: tuple[str, ...]  # the checkpoint's label for each of them
    probabilities: tuple[dict, ...]  # {task label: p} per test sentence
    predictions: tuple[str, ...]
    accuracy: float


def checkpoint_scores(train, test, *, model_id: str | None = None) -> CheckpointResult:
    """The sentiment role's fine-tuned checkpoint (the Sentiment tab's) on the task's test sentences, its labels
    matched to the task's by name (case aside): a task with other labels is refused, saying which it knows."""
    from bg_demo.backend import batch

    task = labelled(train, test)
    loaded = models.get("sentiment", model_id)
    known = {label.lower(): label for label in loaded.model.config.id2label.values()}
    missing = [label for label in task.labels if label.lower() not in known]
    if missing:
        raise InputError("error.checkpoint_labels", labels=", ".join(missing), known=", ".join(known.values()))
    results = batch.run("classify", [((text,), {"model_id": model_id}) for text, _ in task.test])
    for result in results:
        if isinstance(result, BaseException):
            raise result
    probabilities = []
    for result in results:
        p = np.array([result.scores[known[label.lower()]] for label in task.labels])
        probabilities.append(p / p.sum())
    p = np.array(probabilities)
    truth = task.ids(task.test)
    return CheckpointResult(loaded.model_id, task.labels, tuple(known[label.lower()] for label in task.labels),
                            by_label(task.labels, p), tuple(task.labels[int(i)] for i in p.argmax(-1)),
                            _accuracy(p, truth))
