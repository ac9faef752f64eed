"""The language of each browser session: the browser's own at first, then whatever its switch says.

Labels are translated in the browser by Gradio's i18n (svelte-i18n's locale); the text the server makes
(figures, tables, errors, status lines) follows the language this module remembers for the session, which
the switch and the page load tell it. `?lang=ko` in a link opens the page in Korean; a choice made with the
switch is kept in the browser (localStorage) for the next visit."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict

import gradio as gr
from gradio.context import LocalContext

from bg_demo import text
from bg_demo.ui import reword
from bg_demo.ui.strings import words

MAX_SESSIONS = 10_000  # a session's choice is a few bytes; the oldest are forgotten first past this many
STORAGE_KEY = "bg_demo.lang"
ELEM_ID = "bg-language"
LABEL = "Language · 언어 · 言語"  # the same in every language: whoever cannot read the page can still find it

_sessions: OrderedDict[str, str] = OrderedDict()
_lock = threading.Lock()

# Runs in the page's <head>. Gradio picks the browser's language before any app script runs, so a language
# asked for by the link (?lang=) or kept from an earlier visit is applied through the same `changeLocale`
# Gradio's own settings panel calls (its module is already loaded: importing it again gives that instance).
# Gradio's settings panel may change the language too: the switch follows it.
HEAD = """<script>
(() => {
  const LANGS = %(langs)s, KEY = %(key)s;
  const norm = (tag) => { const l = String(tag || "").toLowerCase().split(/[-_]/)[0]; return LANGS.includes(l) ? l : null; };
  const asked = () => { let kept = null; try { kept = localStorage.getItem(KEY); } catch (e) {}
    return norm(new URLSearchParams(location.search).get("lang")) || norm(kept); };
  window.bgDemoLanguage = () => asked() || norm(document.documentElement.lang) || norm(navigator.language) || "en";
  window.bgDemoSetLocale = (lang) => {
    const core = performance.getEntriesByType("resource").map((e) => e.name)
      .find((name) => /\\/assets\\/core-[^/?]*\\.js/.test(name));
    if (core) import(core).then((m) => m.changeLocale && m.changeLocale(lang)).catch(() => {});
  };
  if (asked()) window.bgDemoSetLocale(asked());
  new MutationObserver(() => {
    const lang = norm(document.documentElement.lang);
    const input = lang && document.querySelector(`#%(elem)s input[value="${lang}"]`);
    if (input && !input.checked) input.click();
  }).observe(document.documentElement, {attributes: true, attributeFilter: ["lang"]});
})();
</script>""" % {"langs": json.dumps(list(text.LANGS)), "key": json.dumps(STORAGE_KEY), "elem": ELEM_ID}

# the switch: keep the choice, put it in the link if the link named one, and relabel the page at once
_CHOOSE = """(lang) => {
  try { localStorage.setItem(%(key)s, lang); } catch (e) {}
  const url = new URL(window.location.href);
  if (url.searchParams.has("lang")) { url.searchParams.set("lang", lang); history.replaceState(null, "", url); }
  window.bgDemoSetLocale && window.bgDemoSetLocale(lang);
  return lang;
}""" % {"key": json.dumps(STORAGE_KEY)}


def resolve() -> str | None:
    """The language of the request being served: its session's choice, else its browser's Accept-Language."""
    request = LocalContext.request.get(None)
    if request is None:
        return None
    session = getattr(request, "session_hash", None)
    if session:
        with _lock:
            chosen = _sessions.get(session)
        if chosen:
            return chosen
    headers = getattr(request, "headers", None) or {}
    return headers.get("accept-language")


def remember(lang: str, request: gr.Request) -> str:
    """Keep the session's language; returns it as the switch's value."""
    lang = text.language(lang)
    session = getattr(request, "session_hash", None)
    if session:
        with _lock:
            _sessions[session] = lang
            _sessions.move_to_end(session)
            while len(_sessions) > MAX_SESSIONS:
                _sessions.popitem(last=False)
    return lang


def forget(request: gr.Request) -> None:
    """A closed page: its language, and what a switch would have reworded."""
    session = getattr(request, "session_hash", None)
    with _lock:
        _sessions.pop(session, None)
    reword.KEPT.forget(session)


def switch() -> gr.Radio:
    """The visible language switch, each language named in itself; `wire` connects it once the page is built."""
    text.set_resolver(resolve)
    return gr.Radio([(text.NAMES[lang], lang) for lang in text.LANGS], value=text.DEFAULT, show_label=False, label=LABEL,
                    container=False, elem_id=ELEM_ID, elem_classes=["bg-language"], min_width=200)


def wire(demo: gr.Blocks, radio: gr.Radio, tables=()) -> None:
    """On page load and on every switch: remember the session's language, and relabel what the browser's own
    translation leaves alone: the tab bars (Gradio words a tab's label once, when the tab registers, so a later
    change of language missed every tab not on screen) and the tables' column names. After a switch, what the
    server worded on every page (figures, tables, status lines, errors) is worded again (see `reword`); call this
    once the whole page is built."""
    tables = list(tables)
    tabs = [block for block in demo.blocks.values() if isinstance(block, gr.Tab) and block.label is not None]

    def chosen(lang: str, request: gr.Request):
        lang = remember(lang, request)
        return (
            lang,
            *(gr.Tab(label=words(tab.label, lang)) for tab in tabs),
            *(gr.Dataframe(headers=text.t(key, lang).split("|")) for _, key in tables),
        )

    outputs = [radio, *tabs, *(component for component, _ in tables)]
    demo.load(chosen, radio, outputs, js="() => [window.bgDemoLanguage ? window.bgDemoLanguage() : 'en']",
              api_visibility="private", queue=False)
    again, shown = reword.rewording(demo)
    # a switch rewords the pages only when the session has something on screen (a page opened in the browser's
    # language is switched by the page itself, before anything is run): it changes `pending`, which starts it (a
    # component on the page, since the browser hears of a changed State only from a queued event)
    pending = gr.Number(0, visible="hidden", elem_id="bg-reword")

    def switched(lang: str, request: gr.Request):
        kept = reword.KEPT.of(getattr(request, "session_hash", None))
        return (*chosen(lang, request), time.monotonic_ns() % 2**52 if kept else gr.skip())

    radio.input(switched, radio, [*outputs, pending], js=_CHOOSE, api_visibility="private", queue=False)
    # queued: a page's figures take a moment to draw, and every client gets its turn
    pending.change(again, radio, shown, api_visibility="private", show_progress="hidden")
