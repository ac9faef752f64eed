"""The tiny offline models: real tokenizer classes, the right heads and labels, same seed same files."""

import subprocess
import sys

from bg_demo.testing import CONLL_LABELS, SENTIMENT_LABELS, build_tiny_models


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


def test_cli_builds_every_role(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bg_demo", "tiny-models", str(tmp_path), "--roles", "ner", "decoder"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "BG_DEMO_MODEL_DIR" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decoder", "ner"]


def test_download_without_network_fails_fast_with_a_message(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bg_demo", "download", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "cannot be reached" in done.stderr and "Traceback" not in done.stderr
