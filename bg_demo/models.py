"""Lazy, thread-safe loading and caching of (tokenizer, model), looked up by (role, model id)."""

from __future__ import annotations

import functools
import gc
import logging
import os
import re
import socket
import threading
import time
from collections import OrderedDict, deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bg_demo import config, placement
from bg_demo.errors import InputError, ModelUnavailableError

log = logging.getLogger(__name__)

# role -> transformers auto class; the encoder keeps BERT's pretraining heads (MLM + NSP)
MODEL_CLASSES = {
    "encoder": "AutoModelForPreTraining",
    "sentiment": "AutoModelForSequenceClassification",
    "ner": "AutoModelForTokenClassification",
    "qa": "AutoModelForQuestionAnswering",
    "decoder": "AutoModelForCausalLM",
}


# A background waiter's turn comes after at most this many turns of others in a row: a run's step waits for up to
# this many requests (or decoding steps) to go first, and nobody waits behind more than one background step.
FOREGROUND_STREAK = 4


class DeviceTurn:
    """A re-entrant lock handed over in arrival order: one model call at a time on a device.

    Two forward passes at once on a 2-core CPU fight over the cores and both slow down, so every
    model call on a device takes a turn. `threading.RLock` promises no order, and the decoding loop,
    which asks again straight after each step, would starve everyone else; here waiters are served
    first come, first served, and `pause()` lets a long holder (beam search) step aside between steps.
    A `batch` turn (a decoding step, which serves every student in the batch at once) does not queue
    behind every single request: batch and single turns alternate while both are waiting. A `background` turn (a
    step of a fine-tuning run, which a student watches for minutes) lets other waiters go first, but gets a turn after
    at most `FOREGROUND_STREAK` of theirs: a class's runs neither hold up the other tabs nor stop while they are used."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._owner: int | None = None
        self._depth = 0
        self._batch_turn = False  # whether the current (or last) turn was a batch turn
        self._streak = 0  # turns in a row given to others while background work waited, or not
        # (wake-up, thread, depth, batch, background)
        self._waiters: deque[tuple[threading.Event, int, int, bool, bool]] = deque()

    def acquire(self, depth: int = 1, *, batch: bool = False, background: bool = False) -> None:
        me = threading.get_ident()
        with self._guard:
            if self._owner == me:
                self._depth += depth
                return
            if self._owner is None and not self._waiters:
                self._owner, self._depth, self._batch_turn = me, depth, batch
                self._streak = 0 if background else self._streak + 1
                return
            wake = threading.Event()
            self._waiters.append((wake, me, depth, batch, background))
        wake.wait()  # the thread that handed over made this one the owner before waking it

    def release(self) -> None:
        with self._guard:
            if self._owner != threading.get_ident():
                raise RuntimeError("release of a device turn this thread does not hold")
            self._depth -= 1
            if self._depth == 0:
                self._hand_over()

    def pause(self) -> None:
        """Let every thread already waiting take its turn, then carry on (at any depth)."""
        with self._guard:
            if self._owner != threading.get_ident():
                raise RuntimeError("pause of a device turn this thread does not hold")
            if not self._waiters:
                return
            depth = self._depth
            self._hand_over()
        self.acquire(depth)

    def _choose(self):  # under self._guard, with waiters
        foreground = [waiter for waiter in self._waiters if not waiter[4]]
        if not foreground:
            return self._waiters[0]
        if len(foreground) < len(self._waiters) and self._streak >= FOREGROUND_STREAK:
            return next(waiter for waiter in self._waiters if waiter[4])  # the background one waiting longest
        chosen = foreground[0]
        if not self._batch_turn:  # after a single request, a waiting batch goes next
            chosen = next((waiter for waiter in foreground if waiter[3]), chosen)
        return chosen

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    @property
    def held(self) -> bool:
        """Whether the calling thread holds the turn."""
        return self._owner == threading.get_ident()

    def _hand_over(self) -> None:  # under self._guard
        if not self._waiters:
            self._owner, self._depth = None, 0
            return
        chosen = self._choose()
        self._waiters.remove(chosen)
        wake, self._owner, self._depth, self._batch_turn, background = chosen
        self._streak = 0 if background else self._streak + 1
        wake.set()


_TURNS: dict[str, DeviceTurn] = {}
_TURNS_GUARD = threading.Lock()


def device_turn(device: str) -> DeviceTurn:
    """The one DeviceTurn of a device, shared by every model on it."""
    with _TURNS_GUARD:
        return _TURNS.setdefault(device, DeviceTurn())


@dataclass(eq=False)
class LoadedModel:
    role: str
    model_id: str  # the Hub id, or the name of the local folder a role was configured with (`location` has its path)
    tokenizer: Any
    model: Any  # a transformers PreTrainedModel in eval mode on `device`
    device: str
    load_seconds: float = 0.0
    lock: DeviceTurn = field(default=None, repr=False)  # the device's turn, shared by the models on it
    missing_heads: frozenset[str] = frozenset()  # heads with no trained weights: "mlm", "nsp" (encoder), "lm" (decoder)
    nbytes: int = 0  # parameters + buffers, what the store's memory budget counts
    location: str = ""  # where it was loaded from: `model_id`, or a local copy of it
    # a CPU copy for this process's own calls on ZeroGPU (`placement.on_cpu`): it runs here, from any thread (the
    # decoding engine's too), where a model placed for the GPU workers runs only in a worker
    here: bool = False
    _evicted: bool = field(default=False, init=False, repr=False)
    _attached: dict = field(default_factory=dict, init=False, repr=False)  # name -> state made for this model
    _evict_guard: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.lock is None:
            self.lock = device_turn(self.device)

    @property
    def evicted(self) -> bool:
        """Whether the store has dropped it (requests that hold it still work; new ones load it again)."""
        return self._evicted

    def attached(self, name: str, make):
        """The one `name` of this model (its decoding engine, its beam-search slot), made by `make(self)` on first
        use. Per-model state lives here, with the model, so it goes when the model goes: when the store drops the
        model, each one's `close()` (if it has one) is called. A model already dropped gets a fresh one per call,
        closed and kept by nobody: a request that still holds the model works, and nothing keeps its memory alive."""
        with self._evict_guard:
            if not self._evicted:
                if name not in self._attached:
                    self._attached[name] = make(self)
                return self._attached[name]
        made = make(self)
        _close(made)
        return made

    def mark_evicted(self) -> None:
        """The store dropped it: close what was attached to it, once. Called outside the store's locks; a `close()`
        never blocks on a model call (the engine's sets a flag)."""
        with self._evict_guard:
            self._evicted, attached, self._attached = True, list(self._attached.values()), {}
        for state in attached:
            try:
                _close(state)
            except Exception:  # noqa: BLE001 - one failing close must not keep the others from letting go
                log.exception("closing what was attached to %s failed", self.model_id)

    @contextmanager
    def use(self, *, eager_attention: bool = False, batch: bool = False, background: bool = False):
        """Exclusive use of tokenizer and model while holding the device's turn: fast tokenizers are
        not thread-safe, two forward passes at once fight over the CPU's cores, and the attention
        implementation is switched to eager only for the calls that read attention maps."""
        if placement.zero_gpu() and not placement.runs_here() and not self.here:  # placed for the GPU workers
            raise RuntimeError(f"a call of the {self.role} model outside a GPU call: on ZeroGPU this process has no GPU")
        self.lock.acquire(batch=batch, background=background)
        try:
            previous = self.model.config._attn_implementation
            if eager_attention and previous != "eager":
                self.model.set_attn_implementation("eager")
            try:
                yield self.tokenizer, self.model
            finally:
                if self.model.config._attn_implementation != previous:
                    self.model.set_attn_implementation(previous)
        finally:
            self.lock.release()


def _close(state) -> None:
    close = getattr(state, "close", None)
    if close is not None:
        close()


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hub answers at all; lets a load fail in seconds rather than after retries."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return False
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return True  # behind a proxy a direct probe proves nothing: let the download itself decide
    endpoint = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    host, port = endpoint.hostname or "huggingface.co", endpoint.port or (80 if endpoint.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
        return True
    except OSError:
        return False


def _from_pretrained(loader, source: str, **kwargs):
    """Local folder or Hub cache first; the network only when the Hub is reachable."""
    try:
        return loader.from_pretrained(source, local_files_only=True, **kwargs)
    except OSError:
        if Path(source).is_dir() or not hub_reachable():
            raise
        return loader.from_pretrained(source, **kwargs)


# an absolute path on the server ("/srv/models/encoder"), but not a URL's path: its last part is what a student sees
_SERVER_PATH = re.compile(r"(?<![\w:/.~-])/(?:[^\s'\"`/]+/)*([^\s'\"`/]+)/?")


def _reason(exc: BaseException) -> str:
    """The first line of a load failure for the student: a server path in it cut to its last part (the log has it all)."""
    text = str(exc).strip().splitlines()
    first = _SERVER_PATH.sub(r"\1", text[0]) if text else type(exc).__name__
    return first if len(first) <= 240 else first[:237] + "..."


def load_tokenizer(location: str, options: dict):
    """A tokenizer loaded with its model's quirks (`config.TOKENIZER_OPTIONS`), including the two that transformers
    5's tokenizers-backed classes take but ignore: `do_lower_case` and `add_eos_token`."""
    import transformers

    options = dict(options)
    tokenizer = _from_pretrained(getattr(transformers, options.pop("tokenizer_class", "AutoTokenizer")), location,
                                 **options)
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if options.get("do_lower_case") and backend is not None:
        normalizer = backend.normalizer
        if normalizer is None or normalizer.normalize_str("A") != "a":
            from tokenizers import normalizers

            # first, as the slow tokenizer lower-cased the text before SentencePiece normalised it
            backend.normalizer = normalizers.Sequence([normalizers.Lowercase(), *([normalizer] if normalizer else [])])
    if "add_eos_token" in options:
        tokenizer.add_eos_token = options["add_eos_token"]  # rebuilds the post-processor (T5Tokenizer's adds </s>)
    return tokenizer


def missing_heads(role: str, model, missing_keys) -> frozenset[str]:
    """The heads a checkpoint has no weights for (`from_pretrained` gave them random ones), or the model class has
    none of: "mlm" and "nsp" for the encoder (a MiniLM body has neither; DistilBERT has no NSP), "lm" for the
    decoder (a tied LM head shares the token embeddings, so it is missing only when they are)."""
    body = model.base_model_prefix + "."
    heads = {key for key in missing_keys if not key.startswith(body)}  # e.g. cls.predictions.bias, lm_head.weight
    found = set()
    if role == "encoder":
        nsp = {key for key in heads if "seq_relationship" in key}
        has_nsp = getattr(getattr(model, "cls", None), "seq_relationship", None) is not None
        if nsp or not has_nsp or any(key.startswith(body + "pooler.") for key in missing_keys):
            found.add("nsp")  # the NSP head reads the pooler's output
        if heads - nsp or model.get_output_embeddings() is None:
            found.add("mlm")
    elif role == "decoder" and (heads or model.get_output_embeddings() is None):
        found.add("lm")
    return frozenset(found)


# One load at a time in the whole process. `from_pretrained` is not thread-safe: it swaps process-wide functions
# for the time of a load (torch.nn.init's, PreTrainedModel.init_weights and tie_weights, torch.linspace; see
# transformers/initialization.py) and puts back what it found, so two loads at once can each restore the other's
# stand-ins (seen as "Cannot copy out of meta tensor; no data!"), and the first look-ups of transformers' lazy
# module race ("module 'transformers' has no attribute 'AutoModelFor...'"). Five tabs' first requests on a fresh
# server failed 4 of 5 times before this lock. It is not a device turn: model calls go on while a model loads.
_LOADING = threading.Lock()


def vocabulary_by_columns(model) -> None:
    """Store the vocabulary matrix (the output projection, tied to the token embeddings) a column at a time, for a
    CPU. Its product with a few hidden states is the costliest single step of a fill-mask guess and of a decoding
    step, and torch's CPU kernels read the transposed layout faster: 0.60x the time at one row, 0.90-0.95x at 20
    rows, 0.97x at 128 (30,522 and 50,257 words by 768, torch 2.13 on 2 vCPUs); GPT-2 decodes 1.15x as fast, and
    fill-mask on a short sentence is 0.83-0.87x the fill-mask pipeline instead of 0.90 (`bench/bench_cpu.py`,
    `bench/engine.py`). The layers' own matrices measured 1.0-1.22x slower so and stay as they are; a GPU's kernels
    take either layout, and bfloat16's CPU kernels measured 1.05-1.31x slower so (`BG_DEMO_DTYPE`). The token
    embeddings share the tensor and look up their rows strided (0.7 ms for 512 tokens). Values are unchanged; a
    product sums in another order (~1e-6 of the logits' scale)."""
    import torch

    output = model.get_output_embeddings()
    weight = getattr(output, "weight", None)
    if weight is not None and weight.dim() == 2 and weight.dtype == torch.float32 and weight.is_contiguous():
        weight.data = weight.data.t().contiguous().t()  # tied: the input embeddings hold the same Parameter


@functools.cache
def _onednn_linear():
    """torch's oneDNN linear kernel, or None where this build of torch has none or it does not give what
    `torch.nn.functional.linear` gives on a small probe (checked once). It is the one torch operator the app calls
    by a private name (the `torch.ops.mkldnn` operator torch's own compiler emits for a linear layer on a CPU);
    tests/test_model_store.py pins it: present here, and equal to `torch.nn.functional.linear`."""
    import torch

    kernel = getattr(torch.ops.mkldnn, "_linear_pointwise", None) if torch.backends.mkldnn.is_available() else None
    if kernel is None:
        return None
    try:
        # fixed values, not random ones: the probe leaves torch's random generator where it was
        x, weight, bias = (torch.arange(n, dtype=torch.float32).reshape(shape).sin() for n, shape in
                           ((48, (3, 16)), (128, (8, 16)), (8, (8,))))
        with torch.inference_mode():
            same = torch.allclose(kernel(x, weight, bias, "none", [], ""), torch.nn.functional.linear(x, weight, bias),
                                  atol=1e-5, rtol=1e-5)
    except Exception:  # noqa: BLE001 - a build whose kernel fails keeps torch's own
        log.warning("torch's oneDNN linear kernel failed a probe; linear layers keep torch's own", exc_info=True)
        return None
    return kernel if same else None


@functools.cache
def _onednn_with_gradient():
    """An autograd function over the oneDNN kernel, for a pass that needs the gradient with respect to a layer's
    input only (an explanation's integrated gradients: the shared weights are frozen). The kernel itself has no
    backward (torch would pass it by, with a wrong gradient), so the backward is written here: the gradient
    with respect to the input is the output's gradient times the matrix, the same kernel on the transposed view."""
    import torch
    from torch.autograd.function import once_differentiable

    class OneDNNLinear(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, matrix, bias):
            ctx.save_for_backward(matrix)
            return _onednn_linear()(x, matrix, bias, "none", [], "")

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (matrix,) = ctx.saved_tensors
            return _onednn_linear()(grad.contiguous(), matrix.t(), None, "none", [], ""), None, None

    return OneDNNLinear


def _linear_through_onednn(self, x):
    """The forward set on a linear layer by `linear_layers_through_onednn`: oneDNN's kernel, with its own backward
    when the gradient must reach the layer's input; the layer's own forward when its weight or bias is trained (a
    fine-tuning run), for another dtype or device, or for a number of rows at which torch's own kernel measured
    faster on this machine (`_bg_onednn_rows`, set by `choose_linear_kernels`)."""
    import torch

    weight, bias = self.weight, self.bias
    if x.dtype == weight.dtype == torch.float32 and x.device.type == weight.device.type == "cpu":
        grad = torch.is_grad_enabled()
        chosen = getattr(self, "_bg_onednn_rows", None)
        if not (grad and (weight.requires_grad or (bias is not None and bias.requires_grad))) and (
                chosen is None or _faster_at(chosen, x.numel() // max(1, x.shape[-1]))):
            # a Conv1D (GPT-2) keeps its matrix as (inputs, outputs): the kernel reads the transposed view in place
            matrix = weight.t() if getattr(self, "nf", None) is not None else weight
            if grad and x.requires_grad:
                return _onednn_with_gradient().apply(x, matrix, bias)
            return _onednn_linear()(x, matrix, bias, "none", [], "")
    return type(self).forward(self, x)


def _faster_at(chosen: tuple[tuple[int, bool], ...], rows: int) -> bool:
    """Whether oneDNN measured faster at the measured row count nearest `rows` (by ratio: 40 rows is nearer 64 than
    8). `chosen`: (rows, oneDNN faster) pairs, by rows."""
    best, answer = None, True
    for measured, faster in chosen:
        distance = max(measured, rows) / max(1, min(measured, rows))
        if best is None or distance < best:
            best, answer = distance, faster
    return answer


def linear_layers_through_onednn(model, chosen: tuple[tuple[int, bool], ...] | None = None) -> int:
    """Run the inference of every linear layer of a model held on a CPU in float32 through oneDNN, torch's other CPU
    kernel library, instead of its BLAS (MKL on x86); returns how many layers it set. MKL repacks the weight for
    every product of a few rows, so a layer cost about as much at 9 rows as at 64: through oneDNN a bert-base-size
    stack of layers (340 MB of weights) takes 0.43-0.47x the time at 9 to 64 rows and 0.57x at one row, the
    vocabulary projection 0.37-0.44x at 1 to 20 rows, and an explanation's pass (forward and the input's gradient)
    0.42-0.49x at 128 to 2,048 rows (torch 2.13, 2 vCPUs of an AMD EPYC; `bench/bench_cpu.py`). Each layer keeps
    its class, parameters and layout (shared, tied, read by the views as before): only its `forward` changes. A
    layer whose weight is being trained (a fine-tuning run) takes torch's own path. The sums run in another order:
    outputs differ by ~1e-6 of their scale."""
    import types

    import torch
    from transformers.pytorch_utils import Conv1D

    if _onednn_linear() is None:
        return 0
    routed = 0
    for module in model.modules():
        if type(module) in (torch.nn.Linear, Conv1D) and module.weight.dtype == torch.float32:
            module.forward = types.MethodType(_linear_through_onednn, module)
            if chosen is not None:  # at the row counts where oneDNN measured faster (`choose_linear_kernels`)
                module._bg_onednn_rows = chosen
            routed += 1
    return routed


# the rows a CPU model's linear layers multiply: a decoding step or one masked word; a sentence, a few students'
# step; a class's step or a long text
KERNEL_ROWS = (1, 16, 128)
# what the measurement reads: the first linear layers of the model, in order, up to this many weights (two blocks of
# bert-base or GPT-2, 56 MB in float32: more than a CPU's cache holds, so read from memory as a forward pass reads
# them), not the whole model (GPT-2's every layer, its vocabulary head too, took 3.6-3.8 s to measure at load)
MEASURED_WEIGHTS = 14_000_000
MARGIN = 0.95  # torch's own kernel takes a row count from oneDNN when it measures at most this fraction of its time


def choose_linear_kernels(model, rows: tuple[int, ...] = KERNEL_ROWS, repeats: int = 3) -> dict[int, bool]:
    """Measure, on this machine, the model's own first linear layers (`MEASURED_WEIGHTS`, each with its own weights,
    read from memory as a forward pass reads them) through oneDNN and through torch's own kernel at each of `rows`,
    taking turns; route every linear layer through oneDNN at the row counts where it was faster (a call takes the
    choice of the measured count nearest its rows), and leave them torch's where it never was. Returns {rows: oneDNN
    faster}.

    The choice was once made for every CPU on one measurement (oneDNN 0.43-0.57x the time on an AMD EPYC); on an
    Intel Xeon with AMX, with that routing, a GPT-2-size greedy `generate` took 1.12x plain transformers' time.
    Measuring costs 0.4-0.8 s at load for a base-size model on 2 vCPUs, logged with what it found
    (BG_DEMO_CPU_LINEAR=onednn or torch skips it and takes that kernel at every row count)."""
    import torch
    from transformers.pytorch_utils import Conv1D

    wanted = os.environ.get("BG_DEMO_CPU_LINEAR", "measure").strip().lower()
    if _onednn_linear() is None or wanted == "torch":
        return dict.fromkeys(rows, False)
    layers = [module for module in model.modules()
              if type(module) in (torch.nn.Linear, Conv1D) and module.weight.dtype == torch.float32]
    if wanted == "onednn":
        faster = dict.fromkeys(rows, True)
    else:
        faster, measured, weights = {}, [], 0
        for module in layers:
            if weights >= MEASURED_WEIGHTS:
                break
            measured.append(module)
            weights += module.weight.numel()
        generator = torch.Generator().manual_seed(0)  # its own: loading leaves torch's random generator as it was
        with torch.inference_mode():
            for n in rows:
                cases = []
                for module in measured:
                    conv = type(module) is Conv1D
                    width = module.weight.shape[0] if conv else module.weight.shape[1]
                    cases.append((module, module.weight.t() if conv else module.weight,
                                  torch.randn(n, width, generator=generator)))

                def ours(cases=cases):
                    for module, matrix, x in cases:
                        _onednn_linear()(x, matrix, module.bias, "none", [], "")

                def theirs(cases=cases):
                    for module, _, x in cases:
                        type(module).forward(module, x)

                times = {ours: [], theirs: []}
                turns = repeats + 2 if n <= 16 else repeats  # the few rows' passes are cheap and the noisier
                for turn in range(turns + 1):  # the first turn warms both up
                    for fn in (ours, theirs) if turn % 2 else (theirs, ours):
                        started = time.perf_counter()
                        fn()
                        if turn:
                            times[fn].append(time.perf_counter() - started)
                # oneDNN unless torch's own is clearly the faster: on a close call (16 rows on an AMD EPYC: 0.85-1.0x)
                # this machine's noise would decide, load by load, and a class's step ran 12% slower the time it did
                faster[n] = min(times[theirs]) >= MARGIN * min(times[ours])
                log.info("linear layers at %d row(s): oneDNN %.1f ms, torch's own %.1f ms", n,
                         min(times[ours]) * 1000, min(times[theirs]) * 1000)
    if any(faster.values()):
        linear_layers_through_onednn(model, tuple(sorted(faster.items())))
    return faster


def gelu_in_one_kernel(model) -> int:
    """Swap GPT-2's activation (transformers' `NewGELUActivation`: the tanh approximation of GELU written as eight
    tensor operations) for transformers' own `GELUTanh`, the same formula in torch's one fused kernel; returns how
    many it swapped. On a CPU GPT-2 decodes 59.2 tokens/s so instead of 55.0 (`bench/bench_cpu.py`); at 20 rows
    the eight operations took ~2 ms of a ~36-ms step (torch's profiler). The values agree to rounding (~1e-7)."""
    from transformers.activations import GELUTanh, NewGELUActivation

    swapped = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is NewGELUActivation:
                setattr(parent, name, GELUTanh())
                swapped += 1
    return swapped


def load_model(role: str, model_id: str, device: str | None = None) -> LoadedModel:
    """Load a role's tokenizer and model, from a local copy when there is one (`Settings.location`), on the
    configured device, or on `device` (a CPU copy on ZeroGPU, `placement.on_cpu`, in float32); any failure is logged
    with its cause and becomes a ModelUnavailableError. Records the heads it has no trained weights for, and its size."""
    settings = config.settings()
    location = settings.location(model_id)
    device = device or settings.device
    dtype = settings.dtype(role) if device == settings.device else config.dtypes(device)[role]
    log.info("loading the %s model %s from %s on %s in %s", role, model_id, location, device, dtype)
    try:
        with _LOADING:
            started = time.perf_counter()  # from the moment it loads, not from when it began to wait
            import torch
            import transformers

            tokenizer = load_tokenizer(location, config.TOKENIZER_OPTIONS.get(model_id, {}))
            model_class = getattr(transformers, MODEL_CLASSES[role])
            model, info = _from_pretrained(model_class, location, dtype=getattr(torch, dtype),
                                           output_loading_info=True)
            if device != "cpu":
                placement.emulate_cuda_here()  # on ZeroGPU, "cuda" is emulated here: the weights stay for the workers
            # served for reading only: a fine-tuning run trains pieces of its own (`bg_demo.backend.finetune`), and
            # no gradient ever builds up on the shared weights
            model.to(device).eval().requires_grad_(False)
            if device == "cpu":
                vocabulary_by_columns(model)
                choose_linear_kernels(model)
                gelu_in_one_kernel(model)
    except Exception as exc:  # noqa: BLE001 - every failure must reach the user as one actionable message
        log.error("the %s model %s could not be loaded from %s", role, model_id, location, exc_info=exc)
        raise ModelUnavailableError(role, config.public_name(model_id), _reason(exc)) from exc
    missing = missing_heads(role, model, info["missing_keys"])
    if missing:
        log.warning("%s has no trained weights for its %s head(s); the tasks that read them refuse it",
                    model_id, ", ".join(sorted(missing)))
    seconds = time.perf_counter() - started
    log.info("loaded the %s model %s in %.1f s", role, model_id, seconds)
    # named as clients will see it (a local folder by its name); `location` keeps where it came from
    return LoadedModel(role, config.public_name(model_id), tokenizer, model, device, seconds,
                       missing_heads=missing, nbytes=model.get_memory_footprint(return_buffers=True), location=location)


@dataclass(frozen=True)
class LoadedInfo:
    role: str
    model_id: str
    nbytes: int  # parameters + buffers
    missing_heads: tuple[str, ...]


@dataclass(frozen=True)
class StoreSnapshot:
    """What is in memory, for the UI: read-only, taken at one moment."""

    budget: int  # bytes of weights the store keeps loaded at once
    used: int  # bytes the loaded models take together
    models: tuple[LoadedInfo, ...]  # least recently used first: the first is the next to be unloaded


class ModelStore:
    """Loads each (role, model id) once, on first use, and keeps the loaded ones within a memory budget by
    unloading the least recently used; a failed load is not cached, so the next request retries.

    Unloading drops a model from the store only: a request that holds it keeps it and finishes, and what was made
    for it lets go when told (`LoadedModel.attached`), so its memory is freed once the last user is done. The budget
    is checked with the new model's measured size once it is loaded; one bigger than the budget is kept alone."""

    def __init__(self, loader=load_model, budget: int | None = None):
        self._loader = loader
        self._budget = budget  # None: the settings' (BG_DEMO_MEMORY_BUDGET_GB)
        # (role, model id, device: None for the configured one, "cpu" for a CPU copy on ZeroGPU) -> the model, least
        # recently used first
        self._loaded: OrderedDict[tuple[str, str, str | None], LoadedModel] = OrderedDict()
        self._key_locks: dict[tuple[str, str, str | None], threading.Lock] = {}
        self._guard = threading.Lock()  # over the two dicts only: never held while a model loads

    @property
    def budget(self) -> int:
        return self._budget if self._budget is not None else config.settings().memory_budget

    def resolve(self, role: str, model_id: str | None = None) -> str:
        """The model a request for `role` reads: the role's own (`model_id` None, or the role's source), else an
        allowed Hub id (given in full or by its short name, `config.hub_id`), else an InputError listing them."""
        default = config.settings().source(role)
        model_id = config.hub_id(model_id)
        if model_id is None or model_id == default:
            return default
        if model_id not in config.ALLOWED_MODELS[role]:
            allowed = ", ".join(config.ALLOWED_MODELS[role])
            raise InputError("error.not_offered", model=model_id, role=role, choices=allowed)
        return model_id

    def get(self, role: str, model_id: str | None = None) -> LoadedModel:
        """The loaded model (loading it first if needed), now the most recently used: on ZeroGPU, inside
        `placement.on_cpu()`, its CPU copy."""
        key = (role, self.resolve(role, model_id), _copy_device())
        with self._guard:
            if (loaded := self._touch(key)) is not None:
                return loaded
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:  # one load per key; loads of other keys go on in parallel
            with self._guard:
                if (loaded := self._touch(key)) is not None:
                    return loaded
            if key[2] is None:
                loaded = self._loader(role, key[1])
            else:  # a CPU copy, for the calls placed on this process's CPU
                loaded = self._loader(role, key[1], device=key[2])
                loaded.here = True
            budget = self.budget
            with self._guard:
                evicted = self._make_room(getattr(loaded, "nbytes", 0), budget)
                self._loaded[key] = loaded
        self._let_go(evicted)
        return loaded

    def _touch(self, key) -> LoadedModel | None:  # under self._guard
        loaded = self._loaded.get(key)
        if loaded is not None:
            self._loaded.move_to_end(key)
        return loaded

    def _make_room(self, nbytes: int, budget: int) -> list[LoadedModel]:  # under self._guard
        """Drop the least recently used models until `nbytes` more fit in the budget (or none is left)."""
        used = sum(getattr(loaded, "nbytes", 0) for loaded in self._loaded.values())
        evicted = []
        while self._loaded and used + nbytes > budget:
            _, loaded = self._loaded.popitem(last=False)
            used -= getattr(loaded, "nbytes", 0)
            evicted.append(loaded)
        if nbytes > budget:
            log.warning("a model of %.2f GiB is bigger than the whole memory budget (%.2f GiB): it is kept alone",
                        nbytes / 2**30, budget / 2**30)
        return evicted

    def _let_go(self, evicted: list[LoadedModel]) -> None:
        """Tell each dropped model it is dropped (outside the locks), then collect what nothing holds any more."""
        for loaded in evicted:
            log.info("unloading the %s model %s (%.2f GiB) to stay within the memory budget", loaded.role,
                     loaded.model_id, getattr(loaded, "nbytes", 0) / 2**30)
            loaded.mark_evicted()
        if evicted:
            gc.collect()  # transformers models hold reference cycles: free their tensors now, not at some later gc

    def is_loaded(self, role: str, model_id: str | None = None) -> bool:
        return (role, self.resolve(role, model_id), _copy_device()) in self._loaded

    def snapshot(self) -> StoreSnapshot:
        """The loaded models (least recently used first), their sizes and the budget, for the UI."""
        with self._guard:
            models = tuple(  # each named as it names itself: a local folder by its name, not its path
                LoadedInfo(role, loaded.model_id, getattr(loaded, "nbytes", 0), tuple(sorted(loaded.missing_heads)))
                for (role, *_), loaded in self._loaded.items()
            )
        return StoreSnapshot(self.budget, sum(info.nbytes for info in models), models)

    def clear(self) -> None:
        """Drop every model (as unloading does: requests that hold one finish)."""
        with self._guard:
            evicted = list(self._loaded.values())
            self._loaded.clear()
            self._key_locks.clear()
        for loaded in evicted:
            loaded.mark_evicted()


STORE = ModelStore()


def _copy_device() -> str | None:
    """The device of the copy a call made here reads: "cpu" for a call placed on a ZeroGPU Space's own CPU (its
    models are copies of their own: the configured ones there are placed for the GPU workers, and run only in a
    worker), else None (the configured device)."""
    return "cpu" if placement.cpu_here() and placement.zero_gpu() else None


def _after_fork_in_child() -> None:
    """A forked process (a ZeroGPU worker) has only the thread that forked it: locks that other threads held stay
    held, and the threads that per-model state refers to (a decoding engine's) do not exist. It starts its own."""
    global _LOADING, _TURNS_GUARD
    _LOADING, _TURNS_GUARD = threading.Lock(), threading.Lock()
    _TURNS.clear()
    STORE._guard, STORE._key_locks = threading.Lock(), {}
    for loaded in STORE._loaded.values():
        loaded._evict_guard, loaded._attached, loaded.lock = threading.Lock(), {}, device_turn(loaded.device)


os.register_at_fork(after_in_child=_after_fork_in_child)


def get(role: str, model_id: str | None = None) -> LoadedModel:
    """The loaded model for a role (the configured one unless an allowed `model_id` is given)."""
    return STORE.get(role, model_id)


def is_loaded(role: str, model_id: str | None = None) -> bool:
    """Whether the role's model (its configured one unless `model_id`) is in memory (the UI warns before a load); with
    a model tier, in the memory of the replica that answers (`bg_demo.backend.model_is_loaded`)."""
    return STORE.is_loaded(role, model_id)


def snapshot() -> StoreSnapshot:
    """Which models are in memory (least recently used first), their bytes, and the budget; with a model tier, those
    of a decoder replica (`bg_demo.backend.model_memory`)."""
    return STORE.snapshot()
