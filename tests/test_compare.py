"""BERT beside GPT-2: attention to later tokens, the same word in two contexts, one gap read two ways, the facts."""

import json
import math
import re

import numpy as np
import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForPreTraining, AutoTokenizer

from bg_demo.backend import attention, compare, fill_mask, model_facts, predict_masked_both, same_word
from bg_demo.errors import InputError
from bg_demo.tokens import symbols
from tests.tolerance import assert_ranked, tolerance

FIRST = "I went to the bank to deposit cash"
SECOND = "I went to the bank to sit down"


@pytest.fixture(scope="module")
def reference(tiny_dir):
    """A role's tokenizer and model, loaded here, independently of bg_demo.models."""
    classes = {"encoder": AutoModelForPreTraining, "decoder": AutoModelForCausalLM}
    cache = {}

    def load(role):
        if role not in cache:
            path = tiny_dir / role
            cache[role] = AutoTokenizer.from_pretrained(path), classes[role].from_pretrained(path, dtype=torch.float32).eval()
        return cache[role]

    return load


def test_compare_runs_both_models_and_only_bert_looks_right():
    text = "The animal didn't cross the street because it was tired."
    result = compare(text)
    np.testing.assert_array_equal(result.encoder.weights, attention(text, "encoder").weights)
    np.testing.assert_array_equal(result.decoder.weights, attention(text, "decoder").weights)
    assert result.encoder_future.shape == result.decoder_future.shape == (2,)
    assert (result.decoder_future == 0.0).all()
    assert (result.encoder_future > 0.05).all()
    summary = json.loads(json.dumps(result.summary()))
    assert "weights" not in summary["encoder"] and summary["decoder"]["shape"][:2] == [2, 4]
    assert summary["decoder_future"] == [0.0, 0.0]


def test_compare_rejects_empty_text():
    with pytest.raises(InputError, match="empty"):
        compare("   ")


# --- same word, different contexts ---------------------------------------------------------------------


def _keys(result) -> list[str]:
    """The texts of a result's notes (the UI words them; see test_ui_text and test_figures)."""
    return [note.key for note in result.notes]


def test_gpt2_gives_the_same_vector_and_bert_does_not():
    result = same_word(FIRST, SECOND, "bank")
    assert result.same_left_context and result.notes == ()
    for track in (result.encoder, result.decoder):
        assert len(track.similarity) == 3  # the embeddings and 2 layers
        assert track.similarity[0] == pytest.approx(1.0, abs=1e-6)  # same token, same position
        assert track.positions[0] == track.positions[1] and not track.split
    assert result.decoder.similarity == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)
    assert result.encoder.similarity[-1] < 1 - 1e-3
    assert result.encoder.tokens == ("bank", "bank") and result.decoder.tokens == ("␣bank", "␣bank")


@pytest.mark.parity
def test_similarity_equals_cosine_of_the_reference_hidden_states(reference):
    result = same_word(FIRST, SECOND, "bank")
    for role, track in (("encoder", result.encoder), ("decoder", result.decoder)):
        tokenizer, model = reference(role)
        vectors = []
        for text, position in zip((FIRST, SECOND), track.positions):
            with torch.inference_mode():
                hidden = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True).hidden_states
            vectors.append(torch.stack(hidden)[:, 0, position].double())
        expected = torch.nn.functional.cosine_similarity(vectors[0], vectors[1], dim=-1).numpy()
        np.testing.assert_allclose(track.similarity, expected, atol=tolerance(role).hidden)


def test_word_matches_whole_words_in_any_case():
    result = same_word("Bank robbers ran.", "BANK robbers hid.", "bank")
    assert result.encoder.positions == (1, 1)  # after [CLS]
    assert not result.same_left_context  # "Bank" and "BANK" are different text for GPT-2
    assert _keys(result)[0] == "note.compare.differ_before" and result.notes[0].values == {"word": "bank"}
    with pytest.raises(InputError, match="not in the first sentence"):
        same_word("The banking crisis.", "The bank opened.", "bank")


def test_different_left_context_is_computed_with_a_note():
    result = same_word("You went to the bank to deposit cash", SECOND, "bank")
    assert not result.same_left_context
    assert _keys(result) == ["note.compare.differ_before"]
    assert result.decoder.similarity[-1] < 1 - 1e-4  # now GPT-2's inputs differ too


def test_a_split_word_uses_its_first_token_and_says_so():
    result = same_word("I saw a zyxwv today", "I saw a zyxwv yesterday", "zyxwv")
    assert result.encoder.split and result.encoder.tokens == ("z", "z")
    assert "note.compare.split.encoder" in _keys(result)
    assert result.decoder.similarity == pytest.approx([1.0] * 3, abs=1e-5)


def test_identical_sentences_get_a_note():
    result = same_word(FIRST, FIRST, "bank")
    assert _keys(result) == ["note.compare.same_sentences"]
    assert result.encoder.similarity == pytest.approx([1.0] * 3, abs=1e-6)


@pytest.mark.parametrize(
    ("first", "second", "word", "message"),
    [
        (FIRST, "I sat down", "bank", "not in the second sentence"),
        ("I sat down", SECOND, "bank", "not in the first sentence"),
        (FIRST, SECOND, "  ", "word is empty"),
        ("", SECOND, "bank", "first sentence is empty"),
        (FIRST, SECOND, "ban", "'ban' is not in the first"),
    ],
)
def test_same_word_bad_input_says_what_to_change(first, second, word, message):
    with pytest.raises(InputError, match=message):
        same_word(first, second, word)


# --- one gap, two readers -----------------------------------------------------------------------------


def _reference_next_tokens(reference, ids):
    """The float32 reference decoder's next-token log-probabilities (V,) after `ids`."""
    tokenizer, model = reference("decoder")
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
    return torch.log_softmax(logits.double(), dim=-1)


def _assert_guesses(guesses, log_p):
    """GPT-2's guesses are the reference's top ones, rank by rank up to near ties (tests/tolerance.py), each with
    its probability."""
    tol = tolerance("decoder")
    top = log_p.topk(len(guesses)).indices.tolist()
    assert_ranked([guess.token_id for guess in guesses], top, dict(enumerate(log_p.tolist())), tol)
    assert [guess.score for guess in guesses] == pytest.approx([float(log_p[guess.token_id].exp()) for guess in guesses],
                                                               abs=tol.probability)


@pytest.mark.parity
@pytest.mark.parametrize("text", ["The cat sat on the [mask].", "The [MASK] barked at the mailman all night."])
def test_bert_reads_both_sides_gpt2_the_left(text, reference):
    result = predict_masked_both(text)
    assert result.encoder == fill_mask(text, top_k=5).masks[0]
    left = text[: text.lower().index("[mask]")].rstrip()
    assert result.left == left
    _assert_guesses(result.decoder, _reference_next_tokens(reference, reference("decoder")[0](left)["input_ids"]))
    for guess in result.decoder:  # decoded text, a space as ␣; a lone byte of a multi-byte character in hex (not �)
        decoded = reference("decoder")[0].decode([guess.token_id])
        assert guess.token == symbols(decoded) if "\ufffd" not in decoded else re.fullmatch(r".*\[0x[0-9A-F]{2}.*", guess.token)
    assert "[MASK]" in result.text


@pytest.mark.parity
def test_a_mask_at_the_start_gives_gpt2_only_the_start_token(reference):
    tokenizer, _ = reference("decoder")
    result = predict_masked_both("[MASK] sat on the mat.", top_k=3)
    assert result.left == ""
    _assert_guesses(result.decoder, _reference_next_tokens(reference, [tokenizer.eos_token_id]))
    assert len(result.encoder) == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("The cat sat on the mat.", "exactly one \\[MASK\\].*has 0"),
        ("The [MASK] sat on the [mask].", "exactly one \\[MASK\\].*has 2"),
        ("", "empty"),
    ],
)
def test_masked_both_bad_input_says_what_to_change(text, message):
    with pytest.raises(InputError, match=message):
        predict_masked_both(text)


# --- the two models in numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "kind", "positions", "attention_type"),
    [("encoder", "BertForPreTraining", 512, "bidirectional"), ("decoder", "GPT2LMHeadModel", 1024, "causal")],
)
def test_model_facts(role, kind, positions, attention_type, reference):
    facts = model_facts(role)
    _, model = reference(role)
    assert (facts.layers, facts.heads, facts.hidden_size) == (2, 4, 32)
    assert facts.parameters == sum(p.numel() for p in model.parameters())
    assert facts.architecture == kind and facts.attention_type == attention_type
    assert facts.max_positions == facts.max_length == positions
    assert facts.position_embedding == "learned absolute"
    assert facts.vocab_size == model.config.vocab_size
    assert facts.forward_tokens == len(reference(role)[0]("The quick brown fox jumps over the lazy dog.")["input_ids"])
    assert math.isfinite(facts.forward_ms) and facts.forward_ms > 0
    assert json.loads(json.dumps(facts.to_dict()))["role"] == role


def test_model_facts_rejects_other_roles():
    with pytest.raises(InputError, match="'encoder'"):
        model_facts("ner")


# --- the tabs build and their handlers give what the components expect ---------------------------------


def test_tabs_build_and_compare_handlers_fit_their_components():
    import gradio as gr

    from bg_demo import text
    from bg_demo.look import Look
    from bg_demo.ui import attention_tab, compare_tab, language, screen
    from bg_demo.ui.gradio_compat import listeners
    from bg_demo.ui.page import Reader, Shown

    with gr.Blocks() as demo:
        reader = Reader(language.switch(), screen.box())
        attention_tab.build(reader)
        compare_tab.build(reader)
    names = {dep.api_name for dep in listeners(demo) if dep.api_visibility == "public"}
    assert {"attention", "compare"} <= names
    look = Look()
    result = compare_tab.attend("The cat sat on the mat.")
    mask, future, raw = compare_tab.attended(result, look)
    assert mask is not None and future is not None and raw["encoder"]["tokens"] == list(result.encoder.tokens)
    layer, head = compare_tab.fit_sliders(Shown(result), 7, 2)  # what the page's state holds
    assert (layer.maximum, layer.value, head.maximum, head.value) == (1, 1, 3, 2)
    encoder_plot, decoder_plot = compare_tab.draw_heads(result, look, layer.value, head.value)
    assert encoder_plot.data[0].z.shape == (len(result.encoder.tokens),) * 2
    table, held, raw = compare_tab.measured(compare_tab.measure(), look)
    rows = table["data"]
    assert table["headers"] == ["fact", "BERT (encoder)", "GPT-2 (decoder)"]
    # the card follows the chosen models and counts the body and the heads apart
    facts = {row[0]: row[1:] for row in rows}
    body, heads, total = (facts[text.t(f"compare.facts.{name}")] for name in ("body_parameters", "head_parameters",
                                                                                 "parameters"))
    for column in range(2):
        assert int(body[column].replace(",", "")) + int(heads[column].split()[0].replace(",", "")) == int(
            total[column].replace(",", ""))
    assert "In memory on this server now" in held and "GB budget" in held
    chosen, _, _ = compare_tab.measured(
        compare_tab.measure("google-bert/bert-base-multilingual-cased", "skt/kogpt2-base-v2"), look)
    assert [row[1:] for row in chosen["data"] if row[0] == "Model"] == [
        ["google-bert/bert-base-multilingual-cased", "skt/kogpt2-base-v2"]]
    assert [row[0] for row in rows][:3] == ["Model", "Architecture", "Layers"] and rows[2][1:] == ["2", "2"]


def test_simultaneous_compares_of_one_text_run_the_models_once(monkeypatch):
    """A class opening the teacher's Compare link asks for one text at once: one run of both models, not one each."""
    import threading
    import time

    from bg_demo.ui import attention_store  # gradio: here, so the module runs where gradio is not installed
    from bg_demo.ui.attention_store import AttentionStore

    store, calls, real = AttentionStore(budget_bytes=10**9), [], attention_store.backend.compare

    def slow(*args, **kwargs):  # the models take a while: every student's request arrives while they run
        calls.append(args)
        time.sleep(0.2)
        return real(*args, **kwargs)

    monkeypatch.setattr(attention_store.backend, "compare", slow)
    start, refs = threading.Barrier(8), []

    def ask():
        start.wait()
        refs.append(store.compare(FIRST))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and store.runs == 1 and len(refs) == 8 and len(store) == 2
    assert len({(ref.encoder.key, ref.decoder.key) for ref in refs}) == 1
