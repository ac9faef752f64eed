"""The next-token lab shows exactly what generate samples from, and the logit lens reads each layer."""

import numpy as np
import pytest
import torch

from bg_demo import models
from bg_demo.backend.logit_lens import MAX_LENS_TOKENS, logit_lens
from bg_demo.backend.next_token import next_token
from bg_demo.errors import InputError
from bg_demo.tokens import display_token, join_display

PROMPT = "The cat sat on the"
SETTINGS = [(1.0, 0, 1.0), (0.7, 0, 1.0), (1.5, 10, 1.0), (1.0, 0, 0.3), (0.8, 40, 0.6)]


def _generate_first_step(seed, temperature, top_k, top_p):
    loaded = models.get("decoder")
    enc = loaded.tokenizer(PROMPT, return_tensors="pt")
    torch.manual_seed(seed)
    out = loaded.model.generate(
        **enc, do_sample=True, temperature=temperature, top_k=top_k, top_p=top_p, max_new_tokens=1,
        output_scores=True, return_dict_in_generate=True, pad_token_id=loaded.tokenizer.eos_token_id,
    )
    return int(out.sequences[0, -1]), torch.isfinite(out.scores[0][0]).numpy()


@pytest.mark.parametrize(("temperature", "top_k", "top_p"), SETTINGS)
def test_kept_tokens_and_the_sample_equal_generate(temperature, top_k, top_p):
    result = next_token(PROMPT, temperature, top_k, top_p, n=50, seed=99)
    token, finite = _generate_first_step(99, temperature, top_k, top_p)
    assert result.kept == int(finite.sum())
    for candidate in result.candidates:
        assert candidate.kept_by_top_p == bool(finite[candidate.token_id])
        assert (candidate.final > 0) == candidate.kept_by_top_p
    assert result.sampled.token_id == token


def test_distribution_is_the_models_and_filters_are_ordered():
    result = next_token(PROMPT, 1.0, 5, 1.0, n=10, seed=0)
    loaded = models.get("decoder")
    with torch.no_grad():
        probs = loaded.model(**loaded.tokenizer(PROMPT, return_tensors="pt")).logits[0, -1].softmax(-1)
    assert [c.score for c in result.candidates] == pytest.approx(probs.topk(10).values.tolist(), abs=1e-6)
    assert [c.rank for c in result.candidates] == list(range(1, 11))
    assert [c.kept_by_top_k for c in result.candidates] == [True] * 5 + [False] * 5
    assert sum(c.final for c in result.candidates) == pytest.approx(1.0, abs=1e-5)
    assert result.greedy.token_id == int(probs.argmax())
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


def test_logit_lens_last_layer_is_the_models_prediction():
    result = logit_lens("The cat sat on the mat")
    loaded = models.get("decoder")
    with torch.no_grad():
        logits = loaded.model(**loaded.tokenizer("The cat sat on the mat", return_tensors="pt")).logits[0]
    n_layers = loaded.model.config.n_layer
    assert result.layers == ("embeddings",) + tuple(f"layer {i}" for i in range(n_layers))
    assert result.probabilities.shape == (n_layers + 1, len(result.tokens))
    expected = [display_token(loaded.tokenizer, i) for i in logits.argmax(-1).tolist()]
    assert list(result.predictions[-1]) == expected
    assert np.allclose(result.probabilities[-1], logits.softmax(-1).max(-1).values.numpy(), atol=1e-5)
    assert (result.final_rank[-1] == 1).all() and (result.final_rank >= 1).all()


def test_logit_lens_cuts_long_text():
    result = logit_lens("the cat " * 60)
    assert result.truncated and len(result.tokens) == MAX_LENS_TOKENS
    with pytest.raises(InputError, match="empty"):
        logit_lens("  ")


def test_logit_lens_every_layer_equals_ln_f_and_the_lm_head_on_its_hidden_state(tiny_dir):
    """An independent reference for every row: transformers' own model, `output_hidden_states`, then
    the final layer norm and the LM head (the last hidden state has had its layer norm already)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    text = "The cat sat on the mat"
    result = logit_lens(text)
    tokenizer = AutoTokenizer.from_pretrained(tiny_dir / "decoder")
    model = AutoModelForCausalLM.from_pretrained(tiny_dir / "decoder").eval()
    with torch.no_grad():
        hidden = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True).hidden_states
        normed = [model.transformer.ln_f(h) for h in hidden[:-1]] + [hidden[-1]]
        probs = torch.stack([model.lm_head(h)[0].softmax(-1) for h in normed])  # (L + 1, T, V)
    final = probs[-1].argmax(-1)  # (T,)
    top = probs.max(-1)
    np.testing.assert_allclose(result.probabilities, top.values.numpy(), atol=1e-5)
    expected = tuple(tuple(display_token(tokenizer, int(i)) for i in row) for row in top.indices.tolist())
    assert result.predictions == expected
    chosen = probs.gather(-1, final[None, :, None].expand(len(normed), -1, 1))
    np.testing.assert_array_equal(result.final_rank, ((probs > chosen).sum(-1) + 1).numpy())
    assert len(set(result.predictions)) > 1  # the layers differ: the test would notice a row read wrongly
