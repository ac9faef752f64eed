"""Roles, sources, lazy thread-safe loading, and what happens when a model cannot be loaded."""

import subprocess
import sys
import threading

import pytest

from bg_demo import backend, config, models, placement
from bg_demo.errors import InputError, ModelUnavailableError


def test_source_precedence(tmp_path):
    (tmp_path / "encoder").mkdir()
    env = {"BG_DEMO_MODEL_DIR": str(tmp_path)}
    assert config.model_source("encoder", env) == str(tmp_path / "encoder")
    assert config.model_source("decoder", env) == config.DEFAULT_MODELS["decoder"]  # no folder: the Hub id
    env["BG_DEMO_ENCODER"] = "/somewhere/else"
    assert config.model_source("encoder", env) == "/somewhere/else"
    with pytest.raises(KeyError, match="roles are"):
        config.model_source("vision", env)


def test_device_choice_prefers_cuda_then_mps_and_honours_the_override(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert config.choose_device({}) == "cuda"
    assert config.choose_device({"BG_DEMO_DEVICE": "CPU"}) == "cpu"  # the override wins
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert config.choose_device({}) == "mps"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert config.choose_device({}) == "cpu"
    monkeypatch.delenv("BG_DEMO_DTYPE", raising=False)
    config.settings.cache_clear()
    assert set(config.settings().dtypes.values()) == {"float32"}  # tests pin BG_DEMO_DEVICE=cpu: full precision


def test_importing_the_app_loads_no_model_and_no_torch():
    code = "import sys, app; assert 'torch' not in sys.modules and 'transformers' not in sys.modules; print(app.demo)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_each_model_loads_once_under_many_threads():
    calls = []

    def loader(role, source):
        calls.append(role)
        return models.load_model(role, source)

    store = models.ModelStore(loader)
    results = []
    threads = [threading.Thread(target=lambda: results.append(store.get("encoder"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["encoder"]
    assert all(result is results[0] for result in results)
    assert store.is_loaded("encoder") and not store.is_loaded("decoder")


def test_concurrent_requests_on_one_model_agree():
    """Six threads at once (the backend runs those that meet at the device as one batch): each gets the single call's
    guesses, with the probabilities within float noise (a batch's matrix products round otherwise than one row's)."""
    from tests.test_batch import assert_same

    expected = backend.fill_mask.entry.function("The cat sat on the [MASK].")
    outcomes = []

    def work():
        outcomes.append(backend.fill_mask("The cat sat on the [MASK]."))

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == 6
    for outcome in outcomes:
        assert_same("fill_mask", outcome, expected)


def test_unloadable_model_names_role_id_and_fix_and_others_keep_working(monkeypatch, tmp_path):
    missing = str(tmp_path / "no-such-model")
    monkeypatch.setenv("BG_DEMO_SENTIMENT", missing)
    config.settings.cache_clear()
    models.STORE.clear()
    with pytest.raises(ModelUnavailableError) as caught:
        backend.classify("I loved it")
    message = str(caught.value)
    assert "sentiment" in message and "'no-such-model'" in message
    assert str(tmp_path) not in message  # a server path never reaches a student; the log has it
    assert "python -m bg_demo download" in message and "BG_DEMO_SENTIMENT" in message
    assert backend.fill_mask("The cat sat on the [MASK].").masks  # another role still works
    assert not models.is_loaded("sentiment")  # nothing cached: the next request tries again


def test_hub_id_offline_fails_fast():
    store = models.ModelStore()  # bert-large: allowed, and with no local copy under BG_DEMO_MODEL_DIR/hub
    with pytest.raises(ModelUnavailableError, match="google-bert/bert-large-uncased"):
        store.get("encoder", "google-bert/bert-large-uncased")


def test_model_ids_outside_the_allowlist_are_refused():
    with pytest.raises(InputError, match="not offered"):
        models.STORE.get("decoder", "someone/remote-code-model")


def test_an_allowed_model_is_also_named_by_its_short_name_and_resolves_to_its_hub_id():
    """The part after the org (`gpt2`, `bert-base-uncased`: also the Hub's older un-namespaced names) names the same
    model wherever a model id is checked: the store, and prompting's own choice of role."""
    from bg_demo.backend.prompting import which_model

    assert len(config.SHORT_NAMES) == len(config.ALLOWED_IDS)  # no two allowed models share a short name
    for role, allowed in config.ALLOWED_MODELS.items():
        for model in allowed:
            assert models.STORE.resolve(role, model.split("/")[-1]) == model
            assert models.STORE.resolve(role, model) == model
    assert models.STORE.resolve("decoder", "gpt2") == "openai-community/gpt2"
    assert which_model("bert-base-multilingual-cased") == ("encoder", "google-bert/bert-base-multilingual-cased")
    assert which_model("kogpt2-base-v2") == ("decoder", "skt/kogpt2-base-v2")
    # a short name of another role's model (named by its Hub id), or one no allowed model has, is refused with the
    # role's choices listed
    for role, name, named in (("encoder", "gpt2", "openai-community/gpt2"), ("decoder", "gpt3", "gpt3"),
                              ("encoder", "bert-base", "bert-base")):
        with pytest.raises(InputError, match=f"'{named}' is not offered for the {role} role. Pick one of: "
                                             f"{config.ALLOWED_MODELS[role][0]}, "):
            models.STORE.resolve(role, name)


def test_eager_attention_only_inside_use():
    loaded = models.get("encoder")
    before = loaded.model.config._attn_implementation
    with placement.running_here(), loaded.use(eager_attention=True) as (_, model):  # where calls run (ZeroGPU: a worker)
        assert model.config._attn_implementation == "eager"
    assert loaded.model.config._attn_implementation == before


def test_each_role_has_its_dtype_on_cuda_and_float32_elsewhere_unless_one_is_asked_for():
    assert config.dtypes("cpu", {}) == config.dtypes("mps", {}) == dict.fromkeys(config.ROLES, "float32")
    assert config.dtypes("cpu", {"BG_DEMO_DTYPE": "BFloat16 "}) == dict.fromkeys(config.ROLES, "bfloat16")
    assert config.dtypes("mps", {"BG_DEMO_DTYPE": "float16"}) == dict.fromkeys(config.ROLES, "float16")
    on_cuda = config.dtypes("cuda", {})
    assert on_cuda["decoder"] == "float16" and {on_cuda[role] for role in config.ROLES if role != "decoder"} == {"float32"}
    assert config.dtypes("cuda:1", {"BG_DEMO_DTYPE": "bfloat16"}) == dict.fromkeys(config.ROLES, "bfloat16")
    with pytest.raises(ValueError, match="BG_DEMO_DTYPE"):
        config.dtypes("cuda", {"BG_DEMO_DTYPE": "int8"})
    with pytest.raises(ValueError, match="BG_DEMO_DTYPE"):
        config.dtypes("cpu", {"BG_DEMO_DTYPE": "half"})


def test_the_model_is_loaded_in_the_dtype_asked_for_on_any_device(monkeypatch):
    import torch

    monkeypatch.setenv("BG_DEMO_DTYPE", "bfloat16")  # the test device, the CPU by default, honours it too
    config.settings.cache_clear()
    loaded = models.load_model("encoder", config.settings().source("encoder"))
    assert loaded.model.dtype == torch.bfloat16


def test_the_engine_runs_a_gpus_rows_on_cuda_and_captures_its_step_except_on_zerogpu():
    """`config.batch_rows`: 64 rows at once on CUDA, the CPU's 32 elsewhere. `config.cuda_graphs`: the step as a CUDA
    graph unless BG_DEMO_CUDA_GRAPHS=0, and on ZeroGPU (a fresh worker a call) only when asked for."""
    from bg_demo import config

    assert config.batch_rows("cuda") == config.batch_rows("cuda:1") == config.LIMITS.gpu_batch_rows == 64
    assert config.batch_rows("cpu") == config.batch_rows("mps") == config.LIMITS.batch_rows == 32
    assert config.ENGINE_ROWS == 64
    assert config.cuda_graphs({}) and not config.cuda_graphs({"BG_DEMO_CUDA_GRAPHS": "0"})
    assert not config.cuda_graphs({"SPACES_ZERO_GPU": "true"})
    assert config.cuda_graphs({"SPACES_ZERO_GPU": "true", "BG_DEMO_CUDA_GRAPHS": "1"})
