"""Korean particles that follow the word before them: a text writes "{what}이(가)" and the reader sees "텍스트가"
or "질문이", chosen by how the filled-in word ends when read aloud (its final consonant, batchim).

The marks resolved are the usual Korean notations: 이(가), 은(는), 을(를), 과(와) (either form first), (으)로 and
(이) before an ending ("(이)나"). A word whose ending cannot be told (a Chinese character, a symbol) keeps the mark,
the neutral form Korean writers use. Only the text's own words are changed, never a filled-in value.
"""

from __future__ import annotations

import re
import string

# final consonants, as the jongseong index of a Hangul syllable: only "none" and ㄹ change a particle's form
NONE, K, N, L, M, P, NG = 0, 1, 4, 8, 16, 17, 21

# each mark: (after a final consonant, after none); (으)로 is also "로" after ㄹ
_PAIRS = {"이(가)": ("이", "가"), "가(이)": ("이", "가"), "은(는)": ("은", "는"), "는(은)": ("은", "는"),
          "을(를)": ("을", "를"), "를(을)": ("을", "를"), "과(와)": ("과", "와"), "와(과)": ("과", "와")}
_MARK = re.compile("|".join(re.escape(mark) for mark in _PAIRS) + r"|\(으\)로|\(이\)(?=[가-힣])")

_CLOSING = "'\"’”`)]」』》〉*_"  # quotes and brackets around a word: the particle follows the word inside
_DIGITS = (NG, L, NONE, M, NONE, NONE, K, L, L, NONE)  # 영 일 이 삼 사 오 육 칠 팔 구
# trailing zeros -> the unit read last: 십 백 천, then 만 (10⁴), 억 (10⁸), 조 (10¹²), 경 (10¹⁶)
_UNITS = (P, K, N, *(N,) * 4, *(K,) * 4, *(NONE,) * 4)
_LETTERS = {"l": L, "r": L, "m": M, "n": N}  # letter names: 엘 알 엠 엔; every other letter's name ends in a vowel
_NUMBER = re.compile(r"(\d[\d,]*)(?:\.(\d+))?$")
_LATIN = re.compile(r"[A-Za-z]+$")
_TAIL = 64  # characters before a mark that decide it (a number's digits, a word's letters)


def final(word: str) -> int | None:
    """The final consonant of `word` read aloud in Korean (NONE for a vowel), or None when it cannot be told.
    Digits are read as Korean numbers (3 삼, 10 십, 2 이), short capitals letter by letter (NER 엔이알), other Latin
    words as they sound (model 모델, medium 미디엄, base 베이스)."""
    word = word.rstrip(_CLOSING)
    if not word:
        return None
    last = word[-1]
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28
    number = _NUMBER.search(word)
    if number:
        return _number(*number.groups())
    letters = _LATIN.search(word)
    if letters:
        return _latin(letters.group())
    if last == "%":  # 퍼센트
        return NONE
    if last in "んン":
        return N
    if "\u3041" <= last <= "\u30ff":  # other kana end in a vowel
        return NONE
    return None


def _number(whole: str, fraction: str | None) -> int:
    if fraction:  # decimals are read digit by digit
        return _DIGITS[int(fraction[-1])]
    value = int(whole.replace(",", ""))
    if value == 0:
        return _DIGITS[0]
    digits = str(value)
    zeros = len(digits) - len(digits.rstrip("0"))
    if zeros == 0:
        return _DIGITS[int(digits[-1])]
    return _UNITS[zeros - 1] if zeros <= len(_UNITS) else NG  # past 조: 경


def _latin(letters: str) -> int:
    lower = letters.lower()
    if len(letters) == 1 or (len(letters) <= 3 and letters.isupper()):  # spelled out: "NER", "x"
        return _LETTERS.get(lower[-1], NONE)
    for ending, consonant in (("ng", NG), ("m", M), ("me", M), ("n", N), ("ne", N), ("l", L), ("le", L)):
        if lower.endswith(ending):
            return consonant
    return NONE


def _choose(mark: str, consonant: int | None) -> str:
    if consonant is None:
        return mark
    if mark == "(으)로":
        return "로" if consonant in (NONE, L) else "으로"
    if mark == "(이)":
        return "" if consonant == NONE else "이"
    after_consonant, after_vowel = _PAIRS[mark]
    return after_vowel if consonant == NONE else after_consonant


def resolve(literal: str, before: str = "") -> str:
    """`literal` (a text's own words) with each particle mark chosen by the word before it; `before` is what
    precedes `literal` in the finished text."""
    if "(" not in literal:
        return literal
    out, start = [], 0
    for match in _MARK.finditer(literal):
        out.append(literal[start:match.start()])
        preceding = (before[-_TAIL:] + "".join(out)[-_TAIL:])[-_TAIL:]
        out.append(_choose(match.group(), final(preceding)))
        start = match.end()
    out.append(literal[start:])
    return "".join(out)


def pattern(literal: str) -> str:
    """A regular expression for `literal` as it may read once filled: each mark as either of its forms (or as it is
    written, after a word that cannot be read), the rest as written. For tests that recognise a finished text."""
    parts, start = [], 0
    for match in _MARK.finditer(literal):
        parts.append(re.escape(literal[start:match.start()]))
        mark = match.group()
        forms = {"(으)로": ("으로", "로"), "(이)": ("이", "")}.get(mark) or _PAIRS[mark]
        parts.append("(?:" + "|".join(re.escape(form) for form in (*forms, mark)) + ")")
        start = match.end()
    parts.append(re.escape(literal[start:]))
    return "".join(parts)


_FORMATTER = string.Formatter()


def fill(template: str, values: dict) -> str:
    """`template.format(**values)`, with the template's particle marks chosen by the words filled in before them."""
    out: list[str] = []
    for literal, name, spec, conversion in _FORMATTER.parse(template):
        out.append(resolve(literal, "".join(out)))
        if name is None:
            continue
        value, _ = _FORMATTER.get_field(name, (), values)
        value = _FORMATTER.convert_field(value, conversion)
        if spec and "{" in spec:
            spec = _FORMATTER.vformat(spec, (), values)
        out.append(_FORMATTER.format_field(value, spec or ""))
    return "".join(out)
