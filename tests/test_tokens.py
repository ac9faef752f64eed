"""Tokens shown as text in every view (bg_demo.tokens), checked with real vocabularies: GPT-2's byte-level BPE,
bert-base-uncased's WordPiece, a multilingual cased WordPiece and KoGPT2/rinna-style ▁ tokenizers, on Korean,
Japanese, emoji and accented text; then every token-showing view run on tiny models with those tokenizers."""

import re

import pytest
from transformers import AutoTokenizer
from transformers.convert_slow_tokenizer import bytes_to_unicode

from bg_demo import config
from bg_demo.backend import attention, causal_lm, generate, generate_stream, logit_lens, next_token, same_word
from bg_demo.backend.compare import find_word
from bg_demo.backend.generation.engine import relabel_newest
from bg_demo.backend.generation.types import TokenInfo
from bg_demo.errors import InputError
from bg_demo.tiny_models import multilingual_lines
from bg_demo.tokens import display_tail, display_token, display_tokens, join_display, readable_text

KOREAN, JAPANESE, EMOJI, ACCENTS = "나는 학생입니다", "東京は日本の首都です。", "I love 🍕!", "café naïve"
TEXTS = (KOREAN, JAPANESE, EMOJI, ACCENTS, "학교에 갔다", "Tab\there,\nnew line  two spaces")
GPT2, BERT, MBERT = "openai-community/gpt2", "google-bert/bert-base-uncased", "google-bert/bert-base-multilingual-cased"
KOGPT2, RINNA = "skt/kogpt2-base-v2", "rinna/japanese-gpt2-small"
UNREADABLE = re.compile(r"\ufffd|\\x[0-9a-fA-F]{2}|[ĠĊ▁]")  # U+FFFD, escapes, byte-level or ▁ marks


@pytest.fixture(scope="module")
def tokenizers(hub_models):
    return {
        model_id: AutoTokenizer.from_pretrained(hub_models[model_id]) for model_id in (GPT2, BERT, MBERT, KOGPT2, RINNA)
    }


def byte_ids(tokenizer, data: bytes) -> list[int]:
    """GPT-2's one-byte tokens for `data`: any split of a text into bytes is a valid GPT-2 sequence."""
    table = bytes_to_unicode()
    return tokenizer.convert_tokens_to_ids([table[b] for b in data])


# --- the labels ------------------------------------------------------------------------------------


def test_gpt2_labels_each_byte_piece_with_its_character(tokenizers):
    gpt2 = tokenizers[GPT2]
    assert display_tokens(gpt2, gpt2(KOREAN)["input_ids"]) == (
        "나[1/3]",
        "나[2/3]",
        "나[3/3]",
        "는[1/3]",
        "는[2/3]",
        "는[3/3]",
        "␣",
        "학[1-2/3]",
        "학[3/3]",
        "생[1/3]",
        "생[2/3]",
        "생[3/3]",
        "입[1/3]",
        "입[2/3]",
        "입[3/3]",
        "니[1-2/3]",
        "니[3/3]",
        "다[1-2/3]",
        "다[3/3]",
    )
    assert display_tokens(gpt2, gpt2(JAPANESE)["input_ids"]) == (
        "東[1-2/3]",
        "東[3/3]",
        "京[1-2/3]",
        "京[3/3]",
        "は",
        "日[1-2/3]",
        "日[3/3]",
        "本[1-2/3]",
        "本[3/3]",
        "の首[1/3]",
        "首[2/3]",
        "首[3/3]",
        "都[1-2/3]",
        "都[3/3]",
        "で",
        "す",
        "。",
    )  # "の首[1/3]": a whole の, then the first byte of 首
    assert display_tokens(gpt2, gpt2(EMOJI)["input_ids"]) == ("I", "␣love", "␣🍕[1-2/4]", "🍕[3/4]", "🍕[4/4]", "!")
    assert display_tokens(gpt2, gpt2(ACCENTS)["input_ids"]) == ("c", "af", "é", "␣naïve")


def test_a_token_ending_one_character_and_starting_the_next_shows_both(tokenizers):
    gpt2 = tokenizers[GPT2]
    table = {char: byte for byte, char in bytes_to_unicode().items()}
    pieces = (bytes(table[c] for c in token) for token in gpt2.get_vocab() if all(c in table for c in token))
    tail, lead = next(  # a real GPT-2 token of two bytes: the last of one 3-byte character, the first of another
        (p[0], p[1]) for p in sorted(pieces) if len(p) == 2 and 0x80 <= p[0] <= 0xBF and 0xE1 <= p[1] <= 0xEC
    )
    first, second = bytes([0xE3, 0x81, tail]).decode(), bytes([lead, 0x80, 0x80]).decode()
    ids = byte_ids(gpt2, bytes([0xE3, 0x81])) + [
        gpt2.convert_tokens_to_ids(bytes_to_unicode()[tail] + bytes_to_unicode()[lead])
    ]
    ids += byte_ids(gpt2, bytes([0x80, 0x80]))
    assert display_tokens(gpt2, ids) == (
        f"{first}[1/3]",
        f"{first}[2/3]",
        f"{first}[3/3]{second}[1/3]",
        f"{second}[2/3]",
        f"{second}[3/3]",
    )
    assert join_display(display_tokens(gpt2, ids)) == first + second


def test_a_lone_byte_piece_shows_its_bytes_in_hex(tokenizers):
    gpt2 = tokenizers[GPT2]
    ids = gpt2(KOREAN)["input_ids"]
    assert display_token(gpt2, ids[0]) == "[0xEB]"  # alone, the first byte of 나 names no character
    assert display_token(gpt2, gpt2(JAPANESE)["input_ids"][9]) == "の[0xE9]"
    assert display_token(gpt2, gpt2(EMOJI)["input_ids"][2]) == "␣[0xF0 0x9F]"
    assert display_token(gpt2, gpt2.eos_token_id) == "<|endoftext|>"


def test_leading_spaces_and_whitespace_are_drawn(tokenizers):
    gpt2, kogpt2, rinna = tokenizers[GPT2], tokenizers[KOGPT2], tokenizers[RINNA]
    assert display_tokens(gpt2, gpt2("a\n\tb  c")["input_ids"]) == ("a", "↵", "⇥", "b", "␣", "␣c")
    assert display_tokens(kogpt2, kogpt2(KOREAN)["input_ids"])[:2] == ("␣나는", "␣학")  # ▁ (U+2581) as ␣
    assert display_tokens(rinna, rinna("학교에 갔다")["input_ids"]) == ("␣학교에", "␣갔다", "</s>")
    assert display_tokens(tokenizers[BERT], tokenizers[BERT]("playing")["input_ids"]) == ("[CLS]", "playing", "[SEP]")
    assert "##" in "".join(display_tokens(tokenizers[BERT], tokenizers[BERT]("tokenization")["input_ids"]))


@pytest.mark.parametrize("model_id", [GPT2, BERT, MBERT, KOGPT2, RINNA])
@pytest.mark.parametrize("text", TEXTS)
def test_no_escape_and_no_replacement_character_anywhere(tokenizers, model_id, text):
    tokenizer = tokenizers[model_id]
    ids = tokenizer(text)["input_ids"]
    shown = display_tokens(tokenizer, ids)
    assert len(shown) == len(ids) and all(shown)
    lone = [display_token(tokenizer, i) for i in ids]
    windows = [readable_text(tokenizer, ids, a, b) for a in range(len(ids)) for b in range(a + 1, len(ids) + 1)]
    cut = [readable_text(tokenizer, ids[:k]) for k in range(1, len(ids) + 1)]
    for label in (*shown, *lone, *windows, *cut):
        assert not UNREADABLE.search(label), (label, shown)


@pytest.mark.parametrize("text", TEXTS)
def test_joining_the_labels_gives_back_the_text(tokenizers, text):
    assert join_display(display_tokens(tokenizers[GPT2], tokenizers[GPT2](text)["input_ids"])) == text
    for model_id in (KOGPT2, RINNA):  # SentencePiece's ▁ before the first word, and rinna's </s> after the last
        tokenizer = tokenizers[model_id]
        if tokenizer.unk_token_id not in tokenizer(text)["input_ids"]:
            joined = join_display(display_tokens(tokenizer, tokenizer(text)["input_ids"])).removesuffix("</s>")
            assert "".join(joined.split()) == "".join(text.split())  # their pre-tokenizers drop some whitespace


def test_readable_text_labels_a_window_cut_inside_a_character(tokenizers):
    gpt2 = tokenizers[GPT2]
    ids = gpt2(EMOJI)["input_ids"]  # I, ␣love, ␣🍕[1-2/4], 🍕[3/4], 🍕[4/4], !
    assert readable_text(gpt2, ids) == gpt2.decode(ids) == EMOJI
    assert readable_text(gpt2, ids, 0, 3) == "I love 🍕[1-2/4]"
    assert readable_text(gpt2, ids, 3, 6) == "🍕[3-4/4]!"
    assert readable_text(gpt2, ids[:4]) == "I love [0xF0 0x9F 0x8D]"  # the end of a context: no neighbour to name it
    assert "\ufffd" in gpt2.decode(ids[:4])  # what decode would have shown


def test_display_tail_is_the_end_of_display_tokens(tokenizers):
    gpt2 = tokenizers[GPT2]
    ids = gpt2(KOREAN + " " + EMOJI)["input_ids"]
    for k in range(1, len(ids) + 1):
        assert display_tail(gpt2, ids[:k], 4) == display_tokens(gpt2, ids[:k])[-4:]


def test_streamed_labels_settle_to_the_finished_ones(tokenizers):
    """The engine labels each new token and its 3 predecessors; token by token it ends as display_tokens."""
    gpt2 = tokenizers[GPT2]
    ids = gpt2(KOREAN + EMOJI)["input_ids"]
    final = display_tokens(gpt2, ids)
    row: list[TokenInfo] = []
    for k, token_id in enumerate(ids):
        row.append(TokenInfo("", token_id, 0.5, 1))
        relabel_newest(row, gpt2)
        assert tuple(info.token for info in row[: max(0, k - 3)]) == final[: max(0, k - 3)]  # older labels final
    assert tuple(info.token for info in row) == final


@pytest.mark.parametrize("model_id", [GPT2, KOGPT2, RINNA])
def test_streamed_labels_are_the_whole_rows_labels_at_every_token(tokenizers, model_id, monkeypatch):
    """After each new token the row's labels are `display_tokens` of the row so far, for any ids: text in four
    scripts, then random ids (byte pieces, ▁ pieces, `<0xNN>` fallbacks, the end-of-text token anywhere). Most
    tokens of a text take the one-lookup path (`own_label`); a piece that may continue a character, the tail's."""
    import random

    from bg_demo.backend.generation import engine

    tokenizer = tokenizers[model_id]
    tails = []
    monkeypatch.setattr(engine, "display_tail", lambda *args: tails.append(1) or display_tail(*args))
    english = tokenizer("The cat sat on the mat, and then it slept.")["input_ids"]
    rng = random.Random(0)
    rows = [english, tokenizer(" ".join(TEXTS))["input_ids"]]
    rows += [[rng.randrange(len(tokenizer)) for _ in range(40)] for _ in range(6)]
    rows += [rng.sample(rows[1], len(rows[1])) + [tokenizer.eos_token_id] + rows[1][:5]]
    if model_id == GPT2:
        rows.append(byte_ids(tokenizer, (KOREAN + EMOJI).encode()))
    for number, ids in enumerate(rows):
        row: list[TokenInfo] = []
        for k, token_id in enumerate(ids, start=1):
            row.append(TokenInfo("", token_id, 0.5, 1))
            relabel_newest(row, tokenizer)
            assert tuple(info.token for info in row) == display_tokens(tokenizer, ids[:k]), (number, k)
        if number == 0:
            assert not tails  # plain English: every token holds whole characters
    if model_id == GPT2:  # byte-level: pieces of Korean, Japanese and the emoji may continue a character
        assert tails


def test_a_tokenizers_added_tokens_are_read_once(monkeypatch):
    """transformers 5 rebuilds `added_tokens_decoder` at every access (milliseconds with thousands of added
    tokens) and a stream labels every new token: the labels read it once per tokenizer, and again only
    when tokens are added."""
    from bg_demo.tiny_models import bpe_tokenizer

    tokenizer = bpe_tokenizer()
    tokenizer.add_tokens([f"<extra_{i}>" for i in range(100)])
    reads, original = [], type(tokenizer).added_tokens_decoder
    monkeypatch.setattr(type(tokenizer), "added_tokens_decoder",
                        property(lambda self: reads.append(1) or original.fget(self)))
    ids = tokenizer(f"{KOREAN} <extra_7> {EMOJI}")["input_ids"] + [tokenizer.eos_token_id]
    row: list[TokenInfo] = []
    for k, token_id in enumerate(ids, start=1):  # as a stream labels its row, and the views their text
        row.append(TokenInfo("", token_id, 0.5, 1))
        relabel_newest(row, tokenizer)
        display_token(tokenizer, token_id)
        readable_text(tokenizer, ids[:k])
    assert len(reads) == 1
    assert tuple(info.token for info in row) == display_tokens(tokenizer, ids)
    assert "<extra_7>" in display_tokens(tokenizer, ids) and display_tokens(tokenizer, ids)[-1] == "<|endoftext|>"
    tokenizer.add_tokens(["<late>"])  # a tokenizer changed after use is read again
    assert display_tokens(tokenizer, tokenizer("a <late>")["input_ids"])[-1] == "<late>" and len(reads) == 2


def test_the_multilingual_vocabulary_reads_korean_and_japanese(tokenizers):
    mbert = tokenizers[MBERT]
    assert mbert.tokenize(JAPANESE) == [
        "東",
        "京",
        "は",
        "日",
        "本",
        "の",
        "首",
        "都",
        "です",
        "。",
    ]  # ideographs alone
    assert mbert.tokenize(KOREAN) == ["나는", "학생입니다"] and mbert.tokenize(ACCENTS) == ["café", "naïve"]
    for line in multilingual_lines():  # every Hangul syllable and kana of the corpus is reachable
        assert mbert.unk_token not in mbert.tokenize(line), line


# --- the views, on tiny models with these tokenizers ------------------------------------------------


@pytest.fixture
def on(hub_models, monkeypatch):
    """Point the encoder and decoder roles at Hub stand-ins: on(encoder=..., decoder=...)."""

    def point(encoder=MBERT, decoder=GPT2):
        monkeypatch.setenv("BG_DEMO_ENCODER", str(hub_models[encoder]))
        monkeypatch.setenv("BG_DEMO_DECODER", str(hub_models[decoder]))
        config.settings.cache_clear()

    return point


def readable(labels) -> bool:
    return not any(UNREADABLE.search(label) for label in labels)


@pytest.mark.parametrize("decoder", [GPT2, KOGPT2, RINNA])
@pytest.mark.parametrize("text", [KOREAN, JAPANESE, EMOJI, ACCENTS])
def test_attention_and_logit_lens_show_readable_tokens(on, tokenizers, decoder, text):
    on(decoder=decoder)
    tokenizer = tokenizers[decoder]
    expected = display_tokens(tokenizer, tokenizer(text)["input_ids"])
    result = attention(text, "decoder")
    assert result.tokens == expected and result.to_dict()["tokens"] == list(expected)
    lens = logit_lens(text)
    assert lens.tokens == expected
    assert readable(expected) and all(readable(row) for row in lens.predictions)
    encoder = attention(text, "encoder")
    assert "[UNK]" not in encoder.tokens and readable(encoder.tokens)


def test_attention_tokens_name_the_korean_characters(on):
    on()
    assert attention(KOREAN, "decoder").tokens[:4] == ("나[1/3]", "나[2/3]", "나[3/3]", "는[1/3]")
    assert attention(KOREAN, "encoder").tokens == ("[CLS]", "나는", "학생입니다", "[SEP]")


@pytest.mark.parametrize("decoder", [GPT2, KOGPT2, RINNA])
def test_generation_labels_its_tokens_as_the_whole_row(on, tokenizers, decoder):
    on(decoder=decoder)
    tokenizer = tokenizers[decoder]
    streamed = list(generate_stream(KOREAN, "greedy", max_new_tokens=24))
    final = streamed[-1]
    ids = [info.token_id for info in final.generated[0]]
    assert tuple(info.token for info in final.generated[0]) == display_tokens(tokenizer, ids)
    assert final.texts == (tokenizer.decode(ids, skip_special_tokens=True),)  # data: the labels are the view's
    assert readable(info.token for info in final.generated[0])
    for partial in streamed[:-1]:  # a streamed label older than the last 4 tokens is already the final one
        shown = [info.token for info in partial.generated[0]] if partial.generated else []
        assert shown[: max(0, len(shown) - 4)] == [info.token for info in final.generated[0]][: max(0, len(shown) - 4)]
    beam = generate(KOREAN, "beam", max_new_tokens=8, num_beams=2)
    beam_ids = [info.token_id for info in beam.generated[0]]
    assert tuple(info.token for info in beam.generated[0]) == display_tokens(tokenizer, beam_ids)
    assert all(readable(text for text, _ in step.beams) for step in beam.beam_steps)


def test_causal_lm_targets_and_contexts_are_labelled(on, tokenizers):
    on()
    gpt2 = tokenizers[GPT2]
    ids = gpt2(KOREAN)["input_ids"]
    result = causal_lm(KOREAN)
    assert tuple(step.target for step in result.steps) == display_tokens(gpt2, ids)[1:]
    contexts = [step.context for step in result.steps[:4]]  # the text read so far, a cut character labelled
    assert contexts == ["나[1/3]", "나[1-2/3]", "나", "나는[1/3]"]
    assert result.steps[-1].context.startswith("…") and result.steps[-1].context.endswith("니다[1-2/3]")
    assert all("\ufffd" not in step.context and "\\x" not in step.context for step in result.steps)


def test_next_token_context_and_candidates(on, tokenizers):
    on()
    gpt2 = tokenizers[GPT2]
    result = next_token(KOREAN, n=30, seed=0)
    assert result.context == KOREAN and readable(c.token for c in result.candidates)
    cut = next_token("", token_ids=gpt2(KOREAN)["input_ids"][:2], seed=0)  # the lab after 2 of 나's 3 bytes
    assert cut.context == "[0xEB 0x82]"


def test_find_word_in_text_without_spaces_or_with_particles():
    assert find_word(JAPANESE, "日本", "first") == (3, 5)
    assert find_word("학교에 갔다", "학교", "first") == (0, 2)
    assert find_word("the banking bank", "bank", "first") == (12, 16)  # Latin script: whole words only
    with pytest.raises(InputError):
        find_word("the banking sector", "bank", "first")


@pytest.mark.parametrize("decoder", [GPT2, KOGPT2, RINNA])
def test_same_word_finds_japanese_and_korean_words(on, decoder):
    on(decoder=decoder)
    result = same_word(JAPANESE, "東京は日本の大都市です。", "日本")
    assert result.same_left_context and result.encoder.tokens == ("日", "日") and result.encoder.split
    assert result.decoder.positions[0] == result.decoder.positions[1]
    korean = same_word("학교에 갔다", "학교가 끝났다", "학교")
    assert korean.encoder.tokens == ("학교에", "학교가")
    assert readable(korean.decoder.tokens) and readable(result.decoder.tokens)
    if decoder == GPT2:  # 日本 is 4 byte pieces; the same left context gives GPT-2 the same vectors
        assert result.decoder.tokens == ("日[1-2/3]", "日[1-2/3]") and result.decoder.split
        assert result.decoder.similarity == pytest.approx([1.0] * 3, abs=1e-5)
        assert korean.decoder.tokens == ("학[1-2/3]", "학[1-2/3]")


def test_an_id_past_the_tokenizers_vocabulary_shows_as_its_number():
    """A model's embedding table may have more rows than its tokenizer has tokens (padded to a round size), and
    such a row can be a guess: it shows as its id, never as None or an empty label."""
    from bg_demo.tiny_models import bpe_tokenizer, wordpiece_tokenizer

    beyond = 10**6
    for tokenizer in (wordpiece_tokenizer(True), bpe_tokenizer()):
        assert display_tokens(tokenizer, [tokenizer.convert_tokens_to_ids("the"), beyond])[1] == f"[id {beyond}]"
        assert display_token(tokenizer, beyond) == f"[id {beyond}]"
