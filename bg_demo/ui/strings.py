"""The UI's words. A label built once (a button, a tab, an explanation) goes to the browser as a `gr.I18n`
key, so the browser shows it in its language; text made while serving a request (a status line, an error,
a table) is put into words by `bg_demo.text` in that request's language. `t` does whichever fits."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import gradio as gr

from bg_demo import text
from bg_demo.ui import gradio_compat

MARKER = "__i18n__"  # how gr.I18n marks a key inside a string
ASSETS = Path(__file__).resolve().parent.parent.parent / "assets"

# labels that need more than a key (filled-in values, or several keys in one Markdown): one derived key each,
# with its words in every language, added to the translations the browser gets
_DERIVED: dict[str, dict[str, str]] = {lang: {} for lang in text.LANGS}


def building() -> bool:
    """Whether the app's layout is being built (labels become I18n keys) rather than a request served."""
    return gradio_compat.building()


def compose(key: str, words):
    """A label whose words in each language are `words(lang)`, sent as one I18n key."""
    for lang in text.LANGS:
        _DERIVED[lang][key] = words(lang)
    return I18N(key)


# the keys labels were built with: the only ones the browser needs (errors, figures and notes are worded on the
# server), which keeps the page small
_SENT: set[str] = set()


def t(key: str, **values):
    """The words for `key`: an I18n label while the layout is built, else the text in the request's language."""
    if not building():
        return text.t(key, **values)
    if not values:
        _SENT.add(key)
        return I18N(key)
    # no braces or quotes in a key: the browser finds a key inside the JSON of its marker
    digest = hashlib.sha1(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:10]
    derived = f"{key}#{digest}"
    return compose(derived, lambda lang: text.t(key, lang, **values))


def joined(*keys: str, sep: str = "\n"):
    """Several texts in one label (a Markdown heading and its paragraph)."""
    return compose("+".join(keys), lambda lang: sep.join(text.t(key, lang) for key in keys))


def key_of(label) -> str | None:
    """The I18n key of a label made while building (its marker, if already turned into text); None for plain text."""
    if isinstance(label, str) and label.startswith(MARKER):
        return json.loads(label[len(MARKER):])["key"]
    key = getattr(label, "key", None)  # an I18n label as `I18N(key)` made it
    return key if isinstance(key, str) else None


def words(label, lang: str) -> str:
    """A label made while building (an I18n key, or plain text) in one language's words."""
    key = key_of(label)
    if key is not None:
        return _DERIVED[lang].get(key) or (text.t(key, lang) if key in text.tables()[text.DEFAULT] else "")
    return "" if label is None else str(label)


def every_language(key: str, **values) -> list[str]:
    """The words for `key` in each language: for a colour map that must match labels made in any of them."""
    return [text.t(key, lang, **values) for lang in text.LANGS]


def translations() -> dict[str, dict[str, str]]:
    """language -> {key: words} for every label built (the derived ones included)."""
    return {lang: {**{key: table[key] for key in _SENT if key in table}, **_DERIVED[lang]}
            for lang, table in text.tables().items()}


I18N = gr.I18n()  # makes the labels' keys while the pages are built; `i18n` gives the browser their words


def i18n() -> gr.I18n:
    """The translations the browser gets (a launch option): read once every page is built, with every derived label.
    Read before any page is built it holds no label's words, and every page would show its keys: said in the log."""
    if not _SENT:
        logging.getLogger(__name__).warning("the translations were read before any page was built: labels will show "
                                            "their keys (build the app first, then read its launch options)")
    return gr.I18n(**translations())


HEADERS = "bg_headers"  # the attribute a table made by `table` keeps its headers' text key in


def headers(key: str, lang: str = text.DEFAULT) -> list[str]:
    """A table's column names (`a|b|c` in the texts) in `lang` (English while building: the language switch words
    them for the page)."""
    return text.t(key, lang).split("|")


@dataclass
class Built:
    """What a page's build made that its language switch relabels (`language.wire`): its tables, with the key of
    their headers, and its tabs."""

    tables: list = field(default_factory=list)  # (gr.Dataframe, headers key)
    tabs: list = field(default_factory=list)  # gr.Tab


_BUILDING: list[Built] = []  # the page being built, innermost last (`collecting`)


@contextlib.contextmanager
def collecting():
    """Collect the tables and tabs made by `table` and `tab` while a page is built."""
    built = Built()
    _BUILDING.append(built)
    try:
        yield built
    finally:
        _BUILDING.remove(built)


def table(key: str, **kwargs) -> gr.Dataframe:
    """A Dataframe whose headers follow the page's language: the page load and the language switch relabel it
    (`collecting`, `language.wire`)."""
    component = gr.Dataframe(headers=headers(key), **kwargs)
    if _BUILDING:
        _BUILDING[-1].tables.append((component, key))
    return component


def tab(key: str, **kwargs) -> gr.Tab:
    """A tab labelled with the text `key`, which the language switch relabels (`collecting`, `language.wire`)."""
    made = gr.Tab(t(key), **kwargs)
    if _BUILDING:
        _BUILDING[-1].tabs.append(made)
    return made


def rows(key: str, data: list, look, phone: tuple[int, ...] | None = None, widths: list[str] | None = None):
    """A table's value with its headers in the reader's language (a plain list would take the English ones); on a
    phone's narrow page, only the columns `phone` names (by index), each as wide as `widths` says if given (Gradio
    sizes a column to its longest cell), so that what matters is on screen rather than a sideways scroll away (the
    rest is in the raw result)."""
    names = headers(key, look.lang)
    if phone is not None and look.narrow:
        names, data = [names[i] for i in phone], [[row[i] for i in phone] for row in data]
        if widths is not None:
            return gr.Dataframe({"data": data, "headers": names}, column_widths=widths)
    return {"data": data, "headers": names}


@cache
def examples(lang: str = text.DEFAULT) -> dict:
    """The example inputs of every tab in one language: assets/examples.json (English) or examples.<lang>.json,
    which holds only the tabs where the language's own models make sense (their rows pick those models)."""
    path = ASSETS / ("examples.json" if lang == text.DEFAULT else f"examples.{lang}.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def example_rows(path, lang: str = text.DEFAULT):
    """The rows at `path` (a key, or keys into nested tables) in one language's examples; None if it has none."""
    found = examples(lang)
    for key in (path,) if isinstance(path, str) else path:
        if not isinstance(found, dict) or key not in found:
            return None
        found = found[key]
    return found
