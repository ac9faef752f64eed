"""The pretraining lab: BERT's 15% / 80-10-10 corruption, its input embeddings, GPT-2's causal LM loss."""

import collections
import math

import pytest
import torch

from bg_demo import models
from bg_demo.backend.pretraining import IGNORE, causal_lm, choose_targets, input_representation, mlm_corruption
from bg_demo.errors import InputError
from bg_demo.figures import causal_loss_bars
from bg_demo.figures.style import BADGE_CLEARANCE, LINE
from bg_demo.look import Look
from tests.tolerance import tolerance

pytestmark = pytest.mark.worker_side  # the pretraining lab's own functions, as a GPU worker runs them

SENTENCE = "The quick brown fox jumps over the lazy dog while the five boxing wizards jump quickly."


def test_fifteen_percent_of_ordinary_tokens_at_least_one():
    special = [True] + [False] * 40 + [True]
    positions, treatments, randoms = choose_targets(special, 1000, {0, 1, 2}, seed=3)
    assert len(positions) == 6 and positions == sorted(set(positions))  # round(0.15 * 40)
    assert 0 not in positions and 41 not in positions
    assert not {0, 1, 2} & set(randoms)
    assert len(choose_targets([True, False, True], 1000, set(), seed=0)[0]) == 1  # one token: still one target
    assert choose_targets(special, 1000, {0, 1, 2}, seed=3) == (positions, treatments, randoms)  # same seed, same draw


def test_eighty_ten_ten_over_many_draws():
    counts = collections.Counter()
    for seed in range(600):
        counts.update(choose_targets([False] * 20, 1000, set(), seed)[1])
    total = sum(counts.values())
    assert abs(counts["mask"] / total - 0.8) < 0.03
    assert abs(counts["random"] / total - 0.1) < 0.02
    assert abs(counts["keep"] / total - 0.1) < 0.02


@pytest.mark.parity
def test_corruption_labels_and_loss_match_bert(tiny_dir):
    result = mlm_corruption(SENTENCE, seed=11)
    loaded = models.get("encoder")
    targets = {target.position for target in result.targets}
    assert [i for i, label in enumerate(result.labels) if label != IGNORE] == sorted(targets)
    for target in result.targets:
        shown = result.corrupted[target.position]
        assert (shown == "[MASK]") == (target.treatment == "mask")
        if target.treatment == "keep":
            assert shown == result.original[target.position]
    untouched = [i for i in range(len(result.original)) if i not in targets]
    assert all(result.original[i] == result.corrupted[i] for i in untouched)
    # the loss is exactly what BERT's own MLM head computes with these labels
    from transformers import BertForMaskedLM

    reference = BertForMaskedLM.from_pretrained(tiny_dir / "encoder", dtype=torch.float32).eval()
    ids = torch.tensor([loaded.tokenizer.convert_tokens_to_ids(list(result.corrupted))])
    with torch.no_grad():
        expected = reference(input_ids=ids, labels=torch.tensor([result.labels])).loss
    assert result.loss == pytest.approx(float(expected), abs=tolerance("encoder").logit)  # a mean of log-probabilities


@pytest.mark.parity
def test_input_representation_sums_to_berts_embeddings(reference_model):
    result = input_representation("The man went to the store.", "He bought milk.")
    tokens = [row.token for row in result.rows]
    assert tokens[0] == "[CLS]" and tokens.count("[SEP]") == 2
    assert [row.position_id for row in result.rows] == list(range(len(tokens)))
    first_sep = tokens.index("[SEP]")
    assert {row.segment_id for row in result.rows[: first_sep + 1]} == {0}
    assert {row.segment_id for row in result.rows[first_sep + 1 :]} == {1}
    tokenizer, model = reference_model("encoder")  # float32: the sum's norms within the role's dtype's rounding
    embeddings = model.bert.embeddings
    enc = tokenizer("The man went to the store.", "He bought milk.", return_tensors="pt").to(model.device)
    with torch.no_grad():
        summed = (
            embeddings.word_embeddings(enc["input_ids"])
            + embeddings.token_type_embeddings(enc["token_type_ids"])
            + embeddings.position_embeddings(torch.arange(len(tokens), device=model.device))[None]
        )
        assert torch.allclose(embeddings.LayerNorm(summed), embeddings(**{k: enc[k] for k in ("input_ids", "token_type_ids")}), atol=1e-5)
    assert [row.sum_norm for row in result.rows] == pytest.approx(summed[0].norm(dim=-1).tolist(),
                                                                  rel=tolerance("encoder").hidden, abs=1e-5)
    assert result.hidden_size == model.config.hidden_size


@pytest.mark.parity
def test_causal_lm_loss_is_gpt2s_own(reference_model):
    tol = tolerance("decoder")
    text = "Once upon a time in a distant galaxy, a small robot dreamed."
    result = causal_lm(text)
    loaded = models.get("decoder")
    _, model = reference_model("decoder")
    ids = loaded.tokenizer(text, return_tensors="pt")["input_ids"].to(model.device)
    with torch.no_grad():
        expected = model(ids, labels=ids).loss.cpu()
    assert result.loss == pytest.approx(float(expected), abs=tol.logit)
    assert result.perplexity == pytest.approx(float(torch.exp(expected)), rel=tol.logit)  # exp: a loss's error, relative
    assert len(result.steps) == ids.shape[1] - 1
    assert result.steps[0].context == loaded.tokenizer.decode(ids[0, :1]) and result.steps[-1].target.strip() == "."
    assert all(step.loss == pytest.approx(-math.log(step.score)) for step in result.steps)


@pytest.mark.parametrize(
    ("fn", "args", "message"),
    [
        (mlm_corruption, ("",), "empty"),
        (mlm_corruption, ("Hi", -1), "Seed must be between"),
        (mlm_corruption, ("\u200b",), "no words the model can read"),
        (input_representation, ("  ", "B"), "empty"),
        (causal_lm, ("\n",), "empty"),
        (causal_lm, ("word " * 1200,), "at most 1024"),
    ],
)
def test_bad_input_says_what_to_change(fn, args, message):
    with pytest.raises(InputError, match=message):
        fn(*args)


def test_causal_loss_bars_state_the_mean_in_the_subtitle_not_over_the_bars():
    result = causal_lm("Once upon a time in a distant galaxy, a small robot dreamed.")
    layout = causal_loss_bars(result, Look()).to_dict()["layout"]
    assert not layout.get("annotations")  # nothing drawn inside the plot
    assert f"perplexity {result.perplexity:.1f}" in layout["title"]["subtitle"]["text"]
    (mean,) = layout["shapes"]
    assert mean["y0"] == mean["y1"] == pytest.approx(result.loss)
    assert layout["margin"]["t"] >= BADGE_CLEARANCE + 2 * LINE  # the badge, the title and its subtitle


def test_a_seed_out_of_range_is_refused_beside_the_output_in_the_pages_language(browser, app_url):
    """Seed −3 typed on a Korean page: the app's own message, in Korean, in the page's error box beside the output;
    no toast of Gradio's own (English, in a corner) before the app's code runs."""
    from playwright.sync_api import expect

    from bg_demo import text

    page = browser.new_page(locale="ko-KR", viewport={"width": 1280, "height": 900})
    page.goto(f"{app_url}?tab=mlm")
    page.get_by_label(text.t("pre.text", "ko")).filter(visible=True).fill("The cat sat on the mat.")
    page.get_by_label(text.t("pre.seed", "ko")).filter(visible=True).fill("-3")
    page.get_by_role("button", name=text.t("pre.corrupt", "ko")).click()
    message = text.t("error.out_of_range", "ko", what=text.Text("field.Seed"), low=0, high=2**31 - 1, got="-3")
    expect(page.locator(".block.bg-error").filter(visible=True)).to_have_text(f"⚠️ {message}", timeout=30_000)
    expect(page.locator(".toast-body")).to_have_count(0)
    page.close()
