"""Every user-facing string of the app (UI, figures, errors) in English, Korean and Japanese, and the language
of the request being served. Plain Python: the backend, the figures and the UI all read their text here.

A string is looked up by key (`t("fill_mask.run")`); `{name}` fields are filled with `str.format` (in Korean, a
particle written "이(가)" is then chosen by the word before it: see `bg_demo.text.korean`). The
language is the one of the request being served: the UI installs a resolver that reads it from the browser
session (see `bg_demo.ui.language`); outside a request, and for API callers, it is English. `use(lang)` sets
it explicitly (tests, scripts).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache

from bg_demo.text import korean

LANGS = ("en", "ko", "ja")
NAMES = {"en": "English", "ko": "한국어", "ja": "日本語"}  # each language named in itself, for the switch
DEFAULT = "en"

_explicit: ContextVar[str | None] = ContextVar("bg_demo_language", default=None)


@cache
def tables() -> dict[str, dict[str, str]]:
    """language -> {key: text}; imported on first use."""
    from bg_demo.text.en import EN
    from bg_demo.text.ja import JA
    from bg_demo.text.ko import KO

    return {"en": EN, "ko": KO, "ja": JA}


def language(tag) -> str:
    """A supported language for a BCP 47 tag or an Accept-Language header ("ko-KR", "ja,en;q=0.8"), else English."""
    for part in str(tag or "").split(","):
        primary = part.split(";")[0].strip().lower().split("-")[0].split("_")[0]
        if primary in LANGS:
            return primary
    return DEFAULT


def current() -> str:
    """The language `use` set for what is running, else English."""
    explicit = _explicit.get()
    return explicit if explicit is not None else DEFAULT


@contextmanager
def use(lang: str):
    """Serve everything inside in `lang`."""
    token = _explicit.set(language(lang))
    try:
        yield
    finally:
        _explicit.reset(token)


class Text:
    """A message to be put into words later, in whatever language is being served then (an error's text
    is chosen when it is shown, not when it is raised)."""

    __slots__ = ("key", "values")

    def __init__(self, key: str, **values):
        if key not in tables()["en"]:
            raise KeyError(f"no text has the key {key!r}")
        self.key, self.values = key, values

    def __str__(self) -> str:
        return t(self.key, **self.values)

    def render(self, lang: str | None = None) -> str:
        return t(self.key, lang, **self.values)

    def __repr__(self) -> str:
        return f"Text({self.key!r}, **{self.values!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Text) and (self.key, self.values) == (other.key, other.values)

    __hash__ = None  # its values are a dict

    def __reduce__(self):  # every pickle protocol (__slots__ alone needs protocol 2), e.g. in an error from a worker
        return _text, (self.key, self.values)


def _text(key: str, values: dict) -> Text:
    return Text(key, **values)


def t(key: str, lang: str | None = None, /, **values) -> str:
    """The text for `key` in `lang` (the language being served when None), with `values` filled in. A value
    that is itself a `Text` is put into the same language first."""
    lang = language(lang) if lang else current()
    table = tables()
    template = table[lang].get(key)
    if template is None:
        template = table[DEFAULT][key]  # a KeyError here is a bug: every key exists in English
    if not values:
        return template
    values = {name: value.render(lang) if isinstance(value, Text) else value for name, value in values.items()}
    return korean.fill(template, values) if lang == "ko" else template.format(**values)
