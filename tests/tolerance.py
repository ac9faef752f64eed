"""How close the app's numbers must come to float32 references, per dtype: the parity tests' tolerances.

The references (transformers' pipelines, `generate`, a forward pass of a reference model) run in float32; the app runs
each role in `config.settings().dtype(role)` (BG_DEMO_DTYPE, or the device's default). In float32 the two agree to
float32 rounding. float16 (10-bit mantissa: each rounding is off by up to 2**-11 of the value) and bfloat16 (7-bit
mantissa: 2**-8, eight times more) round every weight and activation, so their numbers move; the numbers below are
about twice the largest error measured on the tiny test models (2 layers; `bg_demo.tiny_models`) on the CPU, and keep
bfloat16's about eight times float16's.

Near ties. A reduced dtype can flip a choice that the reference makes by a hair. Every choice compared is the argmax
of a score: greedy decoding's processed logits (`greedy_step`), sampling's logits / temperature - log q over the
tokens its filters keep (`sampling_step`: torch.multinomial draws one token as the argmax of p / q, q ~ Exp(1) from
its generator, which `recorded_draws` replays), a beam's cumulative log-probability, a ranked list's probabilities.
Two scores are a near tie when they are within `tie` (each may move by `logit`). The rule for a sequence
(`assert_choices`): the app's tokens equal the reference's up to their first difference, and there the app's pick
must be a near tie with the reference's best, so that the dtype may order them either way; after it the contexts
differ and nothing more is compared, and the tests require that enough agreed to mean something (test_generate's
AT_LEAST). This is stricter than stopping at the reference's first near tie of its top two: with the tiny models'
flat distributions almost every step has one in bfloat16, and nothing would be compared. A ranked list
(`assert_ranked`) is compared at every rank: the same token, or a near tie.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Tolerance:
    dtype: str
    logit: float  # nats, on a logit, log-probability or loss (a cumulative one: times its number of tokens)
    probability: float  # absolute, on a probability or score in [0, 1]
    attention: float  # absolute, on an attention weight
    sums: float  # absolute, on a row of weights that sums to 1 (every weight is rounded to the dtype)
    hidden: float  # absolute on a cosine similarity of hidden states, relative on their norms
    attribution: float  # relative, on a gradient x input (against a float64 finite difference on the same weights)

    @property
    def tie(self) -> float:
        """Two scores closer than this (nats) are a near tie: each of the two may move by `logit`."""
        return 2 * self.logit


TOLERANCES = {
    "float32": Tolerance(
        "float32",
        logit=1e-5,  # float32 keeps 24 bits (6e-8): what differs is summation order and kernels, as it always did
        probability=1e-5,  # the same; a probability is at most 1
        attention=1e-6,  # one softmax per row, the same kernel as the reference's (eager attention)
        sums=1e-5,  # a row of up to 1,024 float32 weights summed in float32
        hidden=1e-6,  # a cosine in float64 of float32 states
        attribution=1e-3,  # the finite difference's own error (step 1e-4, in float64); measured 2.5e-7
    ),
    "float16": Tolerance(
        "float16",
        logit=2e-2,  # measured up to 0.011 (logits of size ~5 through 2 layers, 2**-11 per rounding)
        probability=2.5e-3,  # measured up to 1.2e-3 (NER's tags, probabilities ~0.2): three digits
        attention=3.5e-3,  # measured up to 1.7e-3 (a weight's scores move by ~logit, the weight by that share)
        sums=1e-3,  # each weight rounded by up to 2**-11 of itself: the row by up to 2**-11 = 4.9e-4 of 1
        hidden=2e-3,  # measured up to 8e-4 on cosines, 7e-4 relative on norms
        attribution=5e-3,  # measured up to 1.6e-3: the gradient flows back through float16 activations
    ),
    "bfloat16": Tolerance(
        "bfloat16",
        logit=1.6e-1,  # eight times float16's (3 fewer mantissa bits); measured up to 0.079
        probability=2e-2,  # measured up to 7e-3: a probability to about two digits
        attention=2.5e-2,  # measured up to 1.25e-2
        sums=8e-3,  # each weight rounded by up to 2**-8 of itself: the row by up to 3.9e-3 of 1, doubled
        hidden=1.5e-2,  # measured up to 4.7e-3 on cosines, 6.7e-3 relative on norms
        attribution=4e-2,  # eight times float16's; measured up to 1.4e-2
    ),
}


def tolerance(role: str) -> Tolerance:
    """The tolerance of the dtype `role` runs in now (the tests' environment: BG_DEMO_DTYPE, else the device's)."""
    from bg_demo import config

    return TOLERANCES[config.settings().dtype(role)]


def greedy_step(scores) -> tuple:
    """A choice of the reference that is the argmax of `scores` (V,), every token offered: see `assert_choices`."""
    return scores, torch.ones_like(scores, dtype=torch.bool)


def sampling_step(logits, q, tol: Tolerance, temperature=1.0, top_k=0, top_p=1.0) -> tuple:
    """A sampled choice of the reference, from its raw logits (V,) and its draw q (V,): the argmax of
    logits / temperature - log q, here times the temperature (logit units, as `tie` is), over the tokens its top-k
    and top-p filters keep. In a reduced dtype a token at a filter's edge may be kept or not: top-k's if its logit is
    a near tie with the k-th best's, top-p's if the probability ranked above it is within tie / temperature
    (relative: each probability may move by that share) of top_p. Returns (scores, surely): -inf for a token no dtype
    would keep, and which ones every dtype keeps."""
    logits = logits.float()
    maybe, surely = torch.ones_like(logits, dtype=torch.bool), torch.ones_like(logits, dtype=torch.bool)
    if top_k:
        kth, next_one = logits.topk(top_k + 1).values[-2:]
        maybe &= logits >= kth - tol.tie
        surely &= logits > next_one + tol.tie  # fewer than k tokens can overtake it
    if top_p < 1.0:
        probs = (logits / temperature).masked_fill(~maybe, -math.inf).softmax(-1)
        order = probs.argsort(descending=True)
        above = torch.empty_like(probs)
        above[order] = probs[order].cumsum(0) - probs[order]  # the probability ranked above each token
        share = tol.tie / temperature
        maybe &= above * (1 - share) < top_p
        surely &= above * (1 + share) < top_p
    return (logits - temperature * q.log()).masked_fill(~maybe, -math.inf), surely & maybe


def assert_choices(ours, theirs, steps, tol: Tolerance, *, where: str = "") -> int:
    """Token ids `ours` equal the reference's `theirs` up to their first difference, where the reference's step
    (`steps[i]`: (scores, surely) from `greedy_step` or `sampling_step`) must make the app's pick a near tie: offered,
    and scored within `tie` of the best token every dtype offers. Returns how many agree."""
    ours, theirs = list(ours), list(theirs)
    n = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    if n < min(len(ours), len(theirs)):
        scores, surely = steps[n]
        gap = float(scores.masked_fill(~surely, -math.inf).max() - scores[ours[n]])
        assert gap <= tol.tie, (
            f"{where} step {n}: the app picked {ours[n]}, the float32 reference {theirs[n]}, whose best is higher by "
            f"{gap:.3g}, more than a {tol.dtype} near tie ({tol.tie:.3g})")
    else:
        assert len(ours) == len(theirs), f"{where} the app made {len(ours)} tokens, the reference {len(theirs)}"
    return n


def assert_near_best(ours: int, scores, tol: Tolerance, where: str = "") -> bool:
    """One choice: `ours` is the argmax of the reference's `scores` or a near tie with it. Returns whether it is it."""
    best = int(scores.argmax())
    gap = float(scores[best] - scores[ours])
    assert gap <= tol.tie, f"{where}: the app picked {ours}, the reference {best}, higher by {gap:.3g} (> {tol.tie:.3g})"
    return ours == best


def assert_ranked(ours, theirs, log_p, tol: Tolerance, where: str = "") -> None:
    """A ranked list: at every rank the app's token is the reference's, or a near tie with it for the reference
    (`log_p`: its {token id: log-probability}, holding every token of both lists)."""
    for rank, (a, b) in enumerate(zip(ours, theirs, strict=True), start=1):
        gap = abs(log_p.get(a, -math.inf) - log_p[b])
        assert a == b or gap <= tol.tie, (
            f"{where} rank {rank}: the app's {a}, the float32 reference's {b}, whose log-probabilities are "
            f"{gap:.3g} apart, more than a {tol.dtype} near tie ({tol.tie:.3g})")


def assert_rank(rank: int, log_p, token: int, tol: Tolerance, where: str = "") -> None:
    """A token's rank (1: the most probable) under the reference's log-probabilities `log_p` (V,), up to near ties:
    tokens within `tie` of it may be counted above it or not."""
    others = torch.ones_like(log_p, dtype=torch.bool)
    others[token] = False
    surely = int(((log_p > log_p[token] + tol.tie) & others).sum()) + 1
    maybe = int(((log_p > log_p[token] - tol.tie) & others).sum()) + 1
    assert surely <= rank <= maybe, f"{where} rank {rank} of token {token}; the float32 reference's: {surely}-{maybe}"


@contextlib.contextmanager
def recorded_draws():
    """Within it, every torch.multinomial call of one sample per row (generate's sampling) records its q (rows, V):
    torch draws the sample as argmax(p / q) with q ~ Exp(1) from the same generator, so q is replayed from the
    generator's state before the call, and the replay is checked against the draw itself."""
    real, draws = torch.multinomial, []

    def multinomial(probs, num_samples, replacement=False, *, generator=None, **kwargs):
        gen = generator or (torch.default_generator if probs.device.type == "cpu"
                            else torch.cuda.default_generators[probs.device.index or 0])
        before = gen.get_state()
        picked = real(probs, num_samples, replacement, generator=generator, **kwargs)
        after = gen.get_state()
        gen.set_state(before)
        q = torch.empty_like(probs).exponential_(1, generator=gen)
        gen.set_state(after)
        assert num_samples == 1 and torch.equal((probs / q).argmax(-1, keepdim=True), picked), "torch samples otherwise"
        draws.append(q.float().cpu())
        return picked

    torch.multinomial = multinomial
    try:
        yield draws
    finally:
        torch.multinomial = real
