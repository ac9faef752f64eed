"""Token ids as text a student can read, the same way in every view (no gradio, no torch).

The convention:
- A token shows the text it carries. GPT-2's `Ġ` and SentencePiece's `▁` (a leading space) show as `␣`,
  a newline as `↵`, a tab as `⇥`. BERT's `##` continuations and special tokens (`[CLS]`, `<|endoftext|>`)
  stay as they are.
- Byte-level tokens (GPT-2) and byte-fallback tokens (`<0xEB>`) may hold part of a multi-byte UTF-8
  character: such a token shows that character followed by the bytes it holds, `나[1/3]` (byte 1 of
  the 3 of 나), `나[2-3/3]`; one that ends a character and starts another shows both, `나[3/3]는[1/3]`.
  The characters come from decoding the bytes of the whole sequence, so a piece is named by its
  neighbours; bytes that make no character there (a lone token) show in hex, `[0xEB]`.

`display_tokens` labels a sequence, `display_token` one token alone (a candidate list), `readable_text`
decodes a context or a window of one without ever showing U+FFFD, and `join_display` turns labels back
into the text (what the labels promise: joining a sequence's labels gives back its text).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

SPACE, NEWLINE, TAB = "␣", "↵", "⇥"
_SYMBOLS = {" ": SPACE, "\n": NEWLINE, "\t": TAB, "\r": ""}  # "\r\n" shows as one ↵
_BYTE_FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_LABEL = re.compile(r"(.)\[(\d+)(?:-(\d+))?/(\d+)\]", re.DOTALL)  # a character and the bytes of it a token holds
_HEX = re.compile(r"\[0x[0-9A-F]{2}(?: 0x[0-9A-F]{2})*\]")

BYTES, METASPACE, WORDPIECE, PLAIN = "bytes", "metaspace", "wordpiece", "plain"  # how a tokenizer writes its tokens


@functools.cache
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-to-character table, reversed: the character a byte-level token writes for each byte."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            chars[byte] = chr(byte)
        else:
            chars[byte] = chr(256 + extra)
            extra += 1
    return {char: byte for byte, char in chars.items()}


def _decoder_types(state) -> set[str]:
    """Every decoder type named in a `tokenizers` decoder's JSON (a Sequence names its parts)."""
    if isinstance(state, dict):
        return {state.get("type", "")} | {t for value in state.values() for t in _decoder_types(value)}
    if isinstance(state, list):
        return {t for value in state for t in _decoder_types(value)}
    return set()


def kind(tokenizer) -> str:
    """How the tokenizer writes tokens: BYTES (GPT-2's byte-level BPE), METASPACE (SentencePiece-style `▁`,
    maybe with `<0xNN>` byte fallback), WORDPIECE (BERT's `##`) or PLAIN (text as it is)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    decoder = getattr(backend, "decoder", None)
    if decoder is not None:
        types = _decoder_types(json.loads(decoder.__getstate__()))
        if "ByteLevel" in types:
            return BYTES
        if types & {"Metaspace", "ByteFallback"}:
            return METASPACE
        if "WordPiece" in types:
            return WORDPIECE
        return PLAIN
    if hasattr(tokenizer, "byte_decoder"):  # a Python ("slow") tokenizer
        return BYTES
    if hasattr(tokenizer, "sp_model"):
        return METASPACE
    return WORDPIECE if hasattr(tokenizer, "wordpiece_tokenizer") else PLAIN


def _token_bytes(token: str, how: str) -> bytes:
    if how == BYTES:
        decoder = _byte_decoder()
        if all(char in decoder for char in token):
            return bytes(decoder[char] for char in token)
        return token.encode("utf-8")
    fallback = _BYTE_FALLBACK.fullmatch(token)
    if fallback:
        return bytes([int(fallback.group(1), 16)])
    return token.replace("▁", " ").encode("utf-8")


def _characters(data: bytes) -> list[tuple[int, int, str | None]]:
    """(start, end, character) for each UTF-8 character in `data`; a byte that starts none is (i, i + 1, None)."""
    units, i = [], 0
    while i < len(data):
        lead = data[i]
        size = (
            1
            if lead < 0x80
            else 2
            if 0xC2 <= lead <= 0xDF
            else 3
            if 0xE0 <= lead <= 0xEF
            else 4
            if 0xF0 <= lead <= 0xF4
            else 0
        )
        if size and i + size <= len(data):
            try:
                units.append((i, i + size, data[i : i + size].decode("utf-8")))
                i += size
                continue
            except UnicodeDecodeError:
                pass
        units.append((i, i + 1, None))
        i += 1
    return units


def symbols(text: str) -> str:
    """Whitespace drawn: ␣ for a space, ↵ for a newline, ⇥ for a tab."""
    return "".join(_SYMBOLS.get(char, char) for char in text.replace("\r\n", "\n"))


def _label(data: bytes, units, start: int, end: int, *, draw: bool) -> str:
    """The text of bytes [start, end) of `data`: whole characters as they are, cut ones with their
    [k/n] label, bytes of no character in hex. `draw` shows whitespace as symbols."""
    parts, loose = [], []
    for first, last, char in units:
        if last <= start or first >= end:
            continue
        if char is None:
            loose.append(f"0x{data[first]:02X}")
            continue
        if loose:
            parts.append(f"[{' '.join(loose)}]")
            loose = []
        shown = symbols(char) if draw else char
        if start <= first and last <= end:
            parts.append(shown)
        else:
            k, m, n = max(start, first) - first + 1, min(end, last) - first, last - first
            parts.append(f"{shown or char}[{k}/{n}]" if k == m else f"{shown or char}[{k}-{m}/{n}]")
    if loose:
        parts.append(f"[{' '.join(loose)}]")
    return "".join(parts)


@dataclass(frozen=True)
class _Reading:
    """What labelling a tokenizer's ids needs from the tokenizer itself, worked out once (see `_reading`)."""

    how: str  # kind(tokenizer)
    added: dict[int, str]  # the id of every special or added token -> its content
    size: int  # len(tokenizer) when this was worked out: adding tokens changes it
    own: dict[int, str | None] = field(default_factory=dict)  # `own_label`'s answers, filled in as asked


_READING = "_bg_demo_reading"  # the tokenizer attribute that keeps its _Reading


def _reading(tokenizer) -> _Reading:
    """How the tokenizer writes tokens, and its added tokens, read once per tokenizer.

    transformers 5 rebuilds `added_tokens_decoder` from the Rust tokenizer at every access (a dict of
    every added token, milliseconds for a tokenizer with thousands), and `kind` parses the decoder's
    JSON, while a stream labels each new token of every row. The answer is kept on the tokenizer itself
    rather than in a module-level table: the tokenizer belongs to its loaded model, so the answer goes
    when the model does, with no registry to clean up and no lock (two threads that both find none
    work out the same value). Tokens added later (`add_tokens`) change `len(tokenizer)`, a cheap check."""
    size = len(tokenizer)
    reading = getattr(tokenizer, "__dict__", {}).get(_READING)
    if reading is None or reading.size != size:
        added = getattr(tokenizer, "added_tokens_decoder", {}) or {}
        reading = _Reading(kind(tokenizer), {int(i): str(getattr(t, "content", t)) for i, t in added.items()}, size)
        try:
            setattr(tokenizer, _READING, reading)
        except AttributeError:  # an object that takes no new attributes: worked out at each call
            pass
    return reading


def _runs(tokenizer, ids: Sequence[int]):
    """Split a sequence into runs, (None, [index]) for a special or added token and (bytes, [(index, start,
    end)]) for a run of ordinary tokens whose bytes decode together; and {index: text} of the special ones."""
    reading = _reading(tokenizer)
    pieces = tokenizer.convert_ids_to_tokens([int(i) for i in ids])
    runs, data, spans = [], bytearray(), []
    for index, (token_id, piece) in enumerate(zip(ids, pieces)):
        if int(token_id) in reading.added or piece is None:
            if spans:
                runs.append((bytes(data), spans))
                data, spans = bytearray(), []
            runs.append((None, [index]))
            continue
        piece_bytes = _token_bytes(piece, reading.how)
        spans.append((index, len(data), len(data) + len(piece_bytes)))
        data += piece_bytes
    if spans:
        runs.append((bytes(data), spans))
    specials = {
        spans[0]: _written(reading.added.get(int(ids[spans[0]])), pieces[spans[0]], int(ids[spans[0]]))
        for data, spans in runs if data is None
    }
    return runs, specials


def _written(content: str | None, piece, token_id: int) -> str:
    """A special or added token as written (its content); an id the tokenizer has no token for, as its number."""
    if content is None and piece is None:
        return unknown(token_id)
    return content if content is not None else str(piece)


def unknown(token_id: int) -> str:
    """An id past the tokenizer's vocabulary: a model's embedding table may have more rows than the tokenizer
    has tokens (padded to a round size), and such a row can still be predicted."""
    return f"[id {token_id}]"


def display_tokens(tokenizer, ids: Sequence[int]) -> tuple[str, ...]:
    """One display string per token id (see the module's docstring for the convention)."""
    ids = [int(i) for i in ids]
    how = _reading(tokenizer).how
    if how == WORDPIECE:
        pieces = tokenizer.convert_ids_to_tokens(ids)
        return tuple(unknown(i) if p is None else p for i, p in zip(ids, pieces))
    if how == PLAIN:
        pieces = tokenizer.convert_ids_to_tokens(ids)
        return tuple(unknown(i) if p is None else symbols(str(p).replace("▁", " ").replace("Ġ", " "))
                     for i, p in zip(ids, pieces))
    shown = [""] * len(ids)
    runs, specials = _runs(tokenizer, ids)
    for data, spans in runs:
        if data is None:
            shown[spans[0]] = specials[spans[0]]
            continue
        units = _characters(data)
        for index, start, end in spans:
            shown[index] = _label(data, units, start, end, draw=True)
    return tuple(shown)


def display_token(tokenizer, token_id: int) -> str:
    """One token alone (a candidate in a list of guesses): a byte it cannot complete shows in hex."""
    return display_tokens(tokenizer, [int(token_id)])[0]


def own_label(tokenizer, token_id: int) -> str | None:
    """The label of a token that reads the same in every sequence and, added at the end of one, leaves the labels
    before it as they were: a token holding whole characters ("␣the", "나": its bytes are valid UTF-8 on their own,
    so they continue no character left open before them), a special or added token, an id with no token. None for
    a token that may continue a character (a byte-level piece starting inside one, `<0x82>`). A stream labels most
    new tokens with this one lookup (`display_tail` otherwise); the answers are kept with the tokenizer's reading,
    at most one per id."""
    reading = _reading(tokenizer)
    token_id = int(token_id)
    label = reading.own.get(token_id, False)
    if label is not False:
        return label
    label = display_tokens(tokenizer, [token_id])[0]
    if reading.how in (BYTES, METASPACE) and token_id not in reading.added:
        piece = tokenizer.convert_ids_to_tokens(token_id)
        if piece is not None:
            try:
                _token_bytes(piece, reading.how).decode("utf-8")
            except UnicodeDecodeError:
                label = None
    reading.own[token_id] = label  # two threads asking at once write the same answer
    return label


def display_tail(tokenizer, ids: Sequence[int], n: int) -> tuple[str, ...]:
    """`display_tokens(tokenizer, ids)[-n:]`, reading only the last n + 3 ids (a UTF-8 character is at
    most 4 bytes, so no earlier token changes how the last n show): cheap for a growing generation."""
    if n <= 0:
        return ()
    return display_tokens(tokenizer, list(ids)[-(n + 3) :])[-n:]


def readable_text(tokenizer, ids: Sequence[int], start: int = 0, end: int | None = None) -> str:
    """The text of ids[start:end] (a context, or a window of a longer sequence), as `tokenizer.decode` gives
    it, but never with U+FFFD: a character cut by the window's edge shows with its [k/n] label (named from
    the whole of `ids`), bytes that make no character in hex."""
    ids = [int(i) for i in ids]
    end = len(ids) if end is None else end
    text = tokenizer.decode(ids[start:end])
    how = _reading(tokenizer).how
    if "\ufffd" not in text or how not in (BYTES, METASPACE):
        return text
    runs, specials = _runs(tokenizer, ids)
    parts = []
    for data, spans in runs:
        if data is None:
            if start <= spans[0] < end:
                parts.append(specials[spans[0]])
            continue
        inside = [(s, e) for index, s, e in spans if start <= index < end]
        if inside:
            parts.append(_label(data, _characters(data), inside[0][0], inside[-1][1], draw=False))
    text = "".join(parts)
    return text[1:] if how == METASPACE and text.startswith(" ") else text


def join_display(shown: Sequence[str]) -> str:
    """The text a sequence of display strings stands for: whitespace symbols back to whitespace, and each
    cut character counted once, at the token that holds its last byte (hex bytes are dropped)."""

    def whole(match: re.Match) -> str:
        char, last, n = match.group(1), match.group(3) or match.group(2), match.group(4)
        return char if last == n else ""

    text = _HEX.sub("", _LABEL.sub(whole, "".join(shown)))
    return text.replace(SPACE, " ").replace(NEWLINE, "\n").replace(TAB, "\t")
