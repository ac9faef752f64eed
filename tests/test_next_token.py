"""The next-token lab shows exactly what generate samples from, and the logit lens reads each layer."""

import numpy as np
import pytest
import torch

from bg_demo import models
from bg_demo.backend.logit_lens import MAX_LENS_TOKENS, logit_lens
from bg_demo.backend.next_token import next_token
from bg_demo.errors import InputError
from bg_demo.tokens import display_token, join_display
from tests.tolerance import assert_near_best, assert_rank, tolerance

pytestmark = pytest.mark.worker_side  # the next-token lab's and logit lens's own functions, as a GPU worker runs them

PROMPT = "The cat sat on the"
SETTINGS = [(1.0, 0, 1.0), (0.7, 0, 1.0), (1.5, 10, 1.0), (1.0, 0, 0.3), (0.8, 40, 0.6)]


def _generate_first_step(seed, temperature, top_k, top_p):
    """generate's first sampled token and the tokens its filters keep, on the app's own model in its own dtype: the
    lab must show what generate does with the same logits, exactly, in any dtype."""
    loaded = models.get("decoder")
    enc = loaded.tokenizer(PROMPT, return_tensors="pt").to(loaded.device)
    torch.manual_seed(seed)
    out = loaded.model.generate(
        **enc, do_sample=True, temperature=temperature, top_k=top_k, top_p=top_p, max_new_tokens=1,
        output_scores=True, return_dict_in_generate=True, pad_token_id=loaded.tokenizer.eos_token_id,
    )
    return int(out.sequences[0, -1]), torch.isfinite(out.scores[0][0]).cpu().numpy()


def _reference_logits(reference_model, text: str) -> torch.Tensor:
    """(T, V) logits of the float32 reference decoder at each token of `text`."""
    tokenizer, model = reference_model("decoder")
    with torch.no_grad():
        return model(**tokenizer(text, return_tensors="pt").to(model.device)).logits[0].cpu()


@pytest.mark.parity
@pytest.mark.parametrize(("temperature", "top_k", "top_p"), SETTINGS)
def test_kept_tokens_and_the_sample_equal_generate(temperature, top_k, top_p):
    result = next_token(PROMPT, temperature, top_k, top_p, n=50, seed=99)
    token, finite = _generate_first_step(99, temperature, top_k, top_p)
    assert result.kept == int(finite.sum())
    for candidate in result.candidates:
        assert candidate.kept_by_top_p == bool(finite[candidate.token_id])
        assert (candidate.final > 0) == candidate.kept_by_top_p
    assert result.sampled.token_id == token


@pytest.mark.parity
def test_distribution_is_the_models_and_filters_are_ordered(reference_model):
    tol = tolerance("decoder")
    result = next_token(PROMPT, 1.0, 5, 1.0, n=10, seed=0)
    log_p = _reference_logits(reference_model, PROMPT)[-1].log_softmax(-1)
    assert [c.score for c in result.candidates] == pytest.approx(log_p.exp().topk(10).values.tolist(),
                                                                  abs=tol.probability)
    assert [c.score for c in result.candidates] == pytest.approx([float(log_p[c.token_id].exp())
                                                                  for c in result.candidates], abs=tol.probability)
    assert [c.rank for c in result.candidates] == list(range(1, 11))
    for candidate in result.candidates:
        assert_rank(candidate.rank, log_p, candidate.token_id, tol)
    assert [c.kept_by_top_k for c in result.candidates] == [True] * 5 + [False] * 5
    assert sum(c.final for c in result.candidates) == pytest.approx(1.0, abs=1e-5)
    assert_near_best(result.greedy.token_id, log_p, tol)
    cumulative = [c.cumulative for c in result.candidates]
    assert cumulative == sorted(cumulative) and cumulative[4] == pytest.approx(1.0, abs=1e-5)


def test_temperature_sharpens_or_flattens():
    cold, warm = next_token(PROMPT, 0.5, seed=0), next_token(PROMPT, 2.0, seed=0)
    plain = next_token(PROMPT, 1.0, seed=0)
    assert cold.entropy_scaled < plain.entropy_scaled < warm.entropy_scaled
    assert cold.entropy == pytest.approx(warm.entropy)  # the model's own distribution does not change
    assert cold.candidates[0].scaled > plain.candidates[0].scaled > warm.candidates[0].scaled


def test_token_ids_continue_step_by_step():
    first = next_token(PROMPT, seed=0)
    chosen = first.candidates[2]
    step = next_token("", token_ids=list(first.token_ids) + [chosen.token_id], seed=0)
    assert step.token_ids == first.token_ids + (chosen.token_id,)
    assert step.context.endswith(join_display([chosen.token]))  # the label shows a space as ␣


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(temperature=0), "between 0.05 and 5"),
        (dict(top_k=-1), "between 0 and 1000"),
        (dict(top_p=0), "between 0.01 and 1"),
        (dict(token_ids=[10**9]), "start again"),
        (dict(token_ids=[True, 2]), "start again"),
    ],
)
def test_bad_lab_settings_say_what_to_change(kwargs, message):
    with pytest.raises(InputError, match=message):
        next_token(PROMPT, **kwargs)


@pytest.mark.parity
def test_logit_lens_last_layer_is_the_models_prediction(reference_model):
    tol = tolerance("decoder")
    result = logit_lens("The cat sat on the mat")
    loaded = models.get("decoder")
    log_p = _reference_logits(reference_model, "The cat sat on the mat").log_softmax(-1)  # (T, V)
    n_layers = loaded.model.config.n_layer
    assert result.layers == ("embeddings",) + tuple(f"layer {i}" for i in range(n_layers))
    assert result.probabilities.shape == (n_layers + 1, len(result.tokens))
    for shown, row in zip(result.predictions[-1], log_p, strict=True):
        assert shown in _near_best(loaded.tokenizer, row, tol)
    np.testing.assert_allclose(result.probabilities[-1], log_p.exp().max(-1).values.numpy(), atol=tol.probability)
    assert (result.final_rank[-1] == 1).all() and (result.final_rank >= 1).all()


def _near_best(tokenizer, log_p, tol) -> set[str]:
    """The labels of the tokens a reduced dtype may rank first under the reference's `log_p` (V,): near ties."""
    return {display_token(tokenizer, int(i)) for i in torch.nonzero(log_p >= log_p.max() - tol.tie).flatten()}


def test_logit_lens_cuts_long_text():
    result = logit_lens("the cat " * 60)
    assert result.truncated and len(result.tokens) == MAX_LENS_TOKENS
    with pytest.raises(InputError, match="empty"):
        logit_lens("  ")


@pytest.mark.parity
def test_logit_lens_every_layer_equals_ln_f_and_the_lm_head_on_its_hidden_state(reference_model):
    """An independent reference for every row: transformers' own model, `output_hidden_states`, then
    the final layer norm and the LM head (the last hidden state has had its layer norm already). In a reduced dtype
    a prediction or the final token may be another near the top, and a rank may count near ties either way."""
    tol = tolerance("decoder")
    text = "The cat sat on the mat"
    result = logit_lens(text)
    tokenizer, model = reference_model("decoder")
    with torch.no_grad():
        hidden = model(**tokenizer(text, return_tensors="pt").to(model.device), output_hidden_states=True).hidden_states
        normed = [model.transformer.ln_f(h) for h in hidden[:-1]] + [hidden[-1]]
        log_p = torch.stack([model.lm_head(h)[0].log_softmax(-1) for h in normed]).cpu()  # (L + 1, T, V)
    np.testing.assert_allclose(result.probabilities, log_p.exp().max(-1).values.numpy(), atol=tol.probability)
    for layer, (shown, rows) in enumerate(zip(result.predictions, log_p, strict=True)):
        for position, (label, row) in enumerate(zip(shown, rows, strict=True)):
            assert label in _near_best(tokenizer, row, tol), (layer, position)
    for position, label in enumerate(result.predictions[-1]):  # the final token: the reference's, or a near tie
        final = next(int(i) for i in log_p[-1, position].topk(50).indices if display_token(tokenizer, int(i)) == label)
        for layer in range(len(normed)):
            assert_rank(int(result.final_rank[layer, position]), log_p[layer, position], final, tol,
                        where=f"layer {layer}, position {position}")
    assert len(set(result.predictions)) > 1  # the layers differ: the test would notice a row read wrongly
