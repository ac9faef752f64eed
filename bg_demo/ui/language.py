"""The language of each page: the browser's own at first, then whatever its switch says.

Labels are translated in the browser by Gradio's i18n (svelte-i18n's locale); the text the server makes (figures,
tables, errors, status lines) is worded in the switch's value, which every event sends (`page.Reader`): the server
remembers nothing. `?lang=ko` in a link opens the page in Korean; a choice made with the switch is kept in the
browser (localStorage) for the next visit."""

from __future__ import annotations

import json

import gradio as gr

from bg_demo import text
from bg_demo.ui import gradio_compat, strings

STORAGE_KEY = "bg_demo.lang"
ELEM_ID = "bg-language"
LABEL = "Language · 언어 · 言語"  # the same in every language: whoever cannot read the page can still find it

# Runs in the page's <head>. Gradio picks the browser's language before any app script runs, so a language
# asked for by the link (?lang=) or kept from an earlier visit is applied through the same `changeLocale`
# Gradio's own settings panel calls (its module is already loaded: importing it again gives that instance).
# Gradio's settings panel may change the language too: the switch follows it.
HEAD = """<script>
(() => {
  const LANGS = %(langs)s, KEY = %(key)s;
  const norm = (tag) => { const l = String(tag || "").toLowerCase().split(/[-_]/)[0]; return LANGS.includes(l) ? l : null; };
  const linked = norm(new URLSearchParams(location.search).get("lang"));
  // a link's language (?lang=) stays with the student from page to page in this browser tab; a choice made with
  // the switch is kept for the next visit too
  try { if (linked) sessionStorage.setItem(KEY, linked); } catch (e) {}
  const asked = () => { let kept = null, here = null;
    try { here = sessionStorage.getItem(KEY); kept = localStorage.getItem(KEY); } catch (e) {}
    return norm(new URLSearchParams(location.search).get("lang")) || norm(here) || norm(kept); };
  window.bgDemoLanguage = () => asked() || norm(document.documentElement.lang) || norm(navigator.language) || "en";
  window.bgDemoSetLocale = %(change_locale)s;
  if (asked()) window.bgDemoSetLocale(asked());
  new MutationObserver(() => {
    const lang = norm(document.documentElement.lang);
    const input = lang && document.querySelector(`#%(elem)s input[value="${lang}"]`);
    if (input && !input.checked) input.click();
  }).observe(document.documentElement, {attributes: true, attributeFilter: ["lang"]});
})();
</script>""" % {"langs": json.dumps(list(text.LANGS)), "key": json.dumps(STORAGE_KEY), "elem": ELEM_ID,
     "change_locale": gradio_compat.CHANGE_LOCALE_JS}

# the switch: keep the choice, put it in the link if the link named one, and relabel the page at once
_CHOOSE = """(lang) => {
  window.bgDemoKeepPlace && window.bgDemoKeepPlace();  // the reader's place stays while the page is reworded
  try { localStorage.setItem(%(key)s, lang); sessionStorage.setItem(%(key)s, lang); } catch (e) {}
  const url = new URL(window.location.href);
  if (url.searchParams.has("lang")) { url.searchParams.set("lang", lang); history.replaceState(null, "", url); }
  window.bgDemoSetLocale && window.bgDemoSetLocale(lang);
  return lang;
}""" % {"key": json.dumps(STORAGE_KEY)}


# on load: the language asked for (the link's, the one kept, the browser's), or nothing for the page's own, which
# leaves the switch as it is and fires nothing
_ASKED = "() => { const lang = window.bgDemoLanguage ? window.bgDemoLanguage() : %(default)s;" \
    " return lang === %(default)s ? undefined : lang; }" % {"default": json.dumps(text.DEFAULT)}

# the tab bars in the switch's language, from the browser alone: once Gradio's client has the language (the <html>
# element's `lang` follows its locale), each tab gets its label's key again, which the client words in it
_RELABEL = """async (lang) => {
  const keys = %(keys)s, label = %(label)s, html = document.documentElement;
  if (html.lang !== lang) {
    window.bgDemoSetLocale && window.bgDemoSetLocale(lang);
    const since = performance.now();
    await new Promise((done) => { const wait = () => html.lang === lang || performance.now() - since > 5000 ? done()
      : setTimeout(wait, 20); wait(); });
  }
  return keys.map((key) => label(key));
}"""


def switch() -> gr.Radio:
    """The visible language switch, each language named in itself; `wire` connects it once the page is built."""
    return gr.Radio([(text.NAMES[lang], lang) for lang in text.LANGS], value=text.DEFAULT, show_label=False, label=LABEL,
                    container=False, elem_id=ELEM_ID, elem_classes=["bg-language"], min_width=200)


def wire(demo: gr.Blocks, reader, tables=(), tabs=()) -> None:
    """On page load and on every switch: relabel what the browser's own translation leaves alone: the page's tabs
    (Gradio words a tab's label once, when the tab registers, so a later change of language missed every tab not
    on screen) and its tables' column names (`strings.collecting`). After a switch, the page renders what it shows
    again in the new language, from its state (`page.Reader.rerendering`). Call this once the page is built."""
    radio = reader.lang
    tables = list(tables)
    tabs = [block for block in tabs if strings.key_of(block.label) is not None]

    def headers_in(lang: str):
        lang = text.language(lang)
        made = tuple(gr.Dataframe(headers=text.t(key, lang).split("|")) for _, key in tables)
        return made[0] if len(made) == 1 else made

    # The load sets the switch only for a language other than the page's own, and a switch's change does the rest:
    # an English visit fires nothing. The tabs are relabelled by an event with no server function: Gradio's client
    # pushes a loading status to every output of a server event at each later event of the page, and for a
    # container (a tab) reads back every component in it first, so tabs written by the server would make every
    # opened tab cost something at each later event (docs/page-weight.md, "The first switch to a tab").
    demo.load(None, None, radio, js=_ASKED, api_visibility="private", queue=False)
    relabel = _RELABEL % {"keys": json.dumps([strings.key_of(tab.label) for tab in tabs]),
                          "label": gradio_compat.I18N_LABEL_JS}
    if tabs:
        radio.change(None, radio, tabs, js=relabel, api_visibility="private", queue=False, show_progress="hidden")
    if tables:
        radio.change(headers_in, radio, [component for component, _ in tables], api_visibility="private",
                     queue=False, show_progress="hidden")
    for fn, inputs, outputs, options in reader.on_language:  # after the relabelling above (`page.Reader`)
        radio.change(fn, inputs, outputs, api_visibility="private", **options)
    rerender, inputs, shown = reader.rerendering()
    # queued: a page's figures take a moment to draw, and every client gets its turn
    radio.input(None, radio, None, js=_CHOOSE, api_visibility="private", queue=False).then(
        rerender, inputs, shown, api_visibility="private", show_progress="hidden", preprocess=False)
