"""Tiny random models for every role, with real tokenizer classes, built offline and deterministically.

The tokenizers come from assets/corpus.txt: an uncased WordPiece (encoder, sentiment), a cased
WordPiece (ner, qa), and a GPT-2 byte-level BPE trained with the `tokenizers` library (decoder). The weights
are random, so predictions are meaningless, but every shape, head and code path is the real one.
"""

from __future__ import annotations

from pathlib import Path

from bg_demo.config import ROLES

CORPUS = Path(__file__).resolve().parent.parent / "assets" / "corpus.txt"
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
    import collections

    from tokenizers.pre_tokenizers import BertPreTokenizer

    text = "\n".join(corpus_lines())
    if lowercase:
        text = text.lower()
    words = collections.Counter(word for word, _ in BertPreTokenizer().pre_tokenize_str(text))
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
        paths[role] = path
    return paths
