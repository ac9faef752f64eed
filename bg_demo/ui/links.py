"""Links a teacher can share: `<page's address>?tab=<page>&<field>=<value>…&run=1` opens a page (a page of the app,
or a tab inside one) with its inputs and view controls filled in and, with `run=1`, runs it, so the link shows the
result. The same mechanism opens (and runs) the steps of a lesson. A link made before the app had pages (the app's
own address with `?tab=`) opens the page that holds its tab: the browser goes there before the page loads (`head`);
a lesson's step on another page is gone to once the server has read the lesson (`Links.route`)."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import parse_qsl, urlencode

import gradio as gr

from bg_demo import text
from bg_demo.ui.strings import I18N, t

RUN = "run"  # the query parameter that runs the page once its fields are filled
LESSON, STEP, GUIDED = "lesson", "step", "guided"  # a lesson's parameters (`ui.lesson`); the built-in lesson
LANG_ASKED = "_lang"  # the page's language, which the browser adds to the query it hands the server
NONCE = "_"  # a new value on each click, so that the same step asked twice still runs
MOST_STEPS = 12  # steps in a lesson; also the links "Link to this" keeps for one
LINKS_KEY = "bg_demo.links"  # where the browser keeps the page links it made, newest last, for a lesson
# on load: the query when it opens a page or a lesson (with the page's language), else nothing
_LINK_QUERY = f"""() => {{
  const p = new URLSearchParams(window.location.search);
  if (!p.has("tab") && !p.has({json.dumps(LESSON)})) return "";
  p.set({json.dumps(LANG_ASKED)}, window.bgDemoLanguage ? window.bgDemoLanguage() : "");
  return "?" + p.toString();
}}"""
# the browser goes to another page's address ("+" first: as a new entry of its history, else in this one's place)
_GO = """(url) => { if (!url) return;
  if (url.startsWith("+")) window.location.assign(url.slice(1)); else window.location.replace(url); }"""
# the opening's tabs selected in the browser, outermost first, then the opening handed to the server as it was; one
# call of the page's own function, as each page's link event carries this in the page
OPEN_JS = "(opening) => window.bgDemoOpening ? window.bgDemoOpening(opening) : opening"
LAST_KEY = "bg_demo.last."  # + a page's address: the link of the student's last run there (sessionStorage)
WAIT_MS = 30_000  # how long a link waits for a tab of its page to be selected before it fills in what it can

# Runs in the page's <head>.
# - Where the page is: `window.bgDemoHere()` is [the app's root address, this page's address among PATHS]. A link
#   with `?tab=` for a page elsewhere (one made before the app had pages) goes there at once, before this page loads.
# - `await window.bgDemoShare(tab, names, values)`: the link to page `tab` with the fields `names` as they are
#   (`values`, an empty one too, so the link opens the page as it is on screen; a table's rows as JSON), which runs
#   it, in the language on screen (English needs no mark); kept (each once, the newest last, at most MOST_STEPS) for
#   a lesson, copied if the browser lets it; then [the link, the line saying it is ready or copied] (an I18n key, as
#   a built label is, which the browser words in the page's language). One function the page defines: each page's
#   "Link to this" event calls it rather than carrying it.
# - `window.bgDemoRemember(tab, names, values)`: the same link kept as this page's last run (sessionStorage), which
#   the navigation opens when the student comes back (a page's result is still there: its link, run again).
# - `await window.bgDemoOpen(id)` selects the tab `id` of this page (its button, as a click would) and resolves once
#   it is selected (after WAIT_MS at most); `window.bgDemoOpening(opening)` opens an opening's tabs so (`OPEN_JS`).
_HEAD = """<script>
(() => {
  const PATHS = %(paths)s, KNOWN = new Set(Object.values(PATHS)), LAST = %(last)s;
  window.bgDemoHere = () => {
    const parts = window.location.pathname.split("/"), last = parts[parts.length - 1];
    const here = KNOWN.has(last) ? last : "";
    return [parts.slice(0, -1).join("/") + "/", here];
  };
  const [root, here] = window.bgDemoHere();
  const asked = new URLSearchParams(window.location.search).get("tab");
  if (asked !== null && asked in PATHS && PATHS[asked] !== here) {
    window.location.replace(root + PATHS[asked] + window.location.search + window.location.hash);
  }
  const link = (tab, names, values) => {
    const p = new URLSearchParams({tab});
    names.forEach((n, i) => { const v = values[i];
      p.set(n, v !== null && typeof v === "object" ? JSON.stringify(v.data ?? v) : (v ?? "")); });
    p.set(%(run)s, "1");
    const lang = (document.documentElement.lang || "").split("-")[0];
    if (lang && lang !== "en") p.set("lang", lang);
    return window.location.origin + window.location.pathname + "?" + p.toString();
  };
  window.bgDemoShare = async (tab, names, values) => {
    const u = link(tab, names, values);
    try {
      const key = %(key)s;
      let kept = JSON.parse(localStorage.getItem(key) || "[]");
      if (!Array.isArray(kept)) kept = [];
      kept = kept.filter((k) => k !== u);
      kept.push(u);
      localStorage.setItem(key, JSON.stringify(kept.slice(-%(most)d)));
    } catch (e) {}
    let copied = false;
    if (navigator.clipboard) { try { await navigator.clipboard.writeText(u); copied = true; } catch (e) {} }
    return [u, copied ? %(copied)s : %(ready)s];
  };
  window.bgDemoRemember = (tab, names, values) => {
    try { sessionStorage.setItem(LAST + window.bgDemoHere()[1], link(tab, names, values)); } catch (e) {}
  };
  // the navigation: a page the student ran before opens as they left it (its last run's link)
  document.addEventListener("click", (event) => {
    const a = event.target.closest && event.target.closest(".bg-nav a[href]");
    if (!a) return;
    const target = new URL(a.href, window.location.href).pathname.split("/").pop();
    let kept = null;
    try { kept = sessionStorage.getItem(LAST + target); } catch (e) {}
    if (kept && target !== window.bgDemoHere()[1]) a.href = kept;
  }, true);
  window.bgDemoOpen = (id) => new Promise((resolve) => {
    const button = () => document.querySelector(%(button)s.replace("%%s", id));
    const started = Date.now();
    let clicked = -Infinity;
    const wait = () => {
      const found = button(), selected = found && found.getAttribute("aria-selected") === "true";
      if (selected) return requestAnimationFrame(() => resolve(true));
      if (found && Date.now() - clicked > 1000) {  // once; again only if a second passed unselected
        clicked = Date.now();
        found.click();
      }
      if (Date.now() - started > %(wait)d) return resolve(false);
      setTimeout(wait, 30);
    };
    wait();
  });
  window.bgDemoOpening = async (opening) => {
    for (const tab of String(opening || "").split("|")[0].split("/")) if (tab) await window.bgDemoOpen(tab);
    return opening;
  };
})();
</script>"""


def head(paths: dict) -> str:
    """The script every page's <head> carries (`_HEAD`); `paths`: page id -> the address of its page
    (`site.paths`)."""
    from bg_demo.ui import gradio_compat

    return _HEAD % {"paths": json.dumps(paths), "last": json.dumps(LAST_KEY), "run": json.dumps(RUN),
                    "key": json.dumps(LINKS_KEY), "most": MOST_STEPS, "copied": json.dumps(str(I18N("link.copied"))),
                    "ready": json.dumps(str(I18N("link.ready"))), "wait": WAIT_MS,
                    "button": json.dumps(gradio_compat.MARKUP["tab_button"])}


def href(path: str) -> str:
    """A link to the page at `path` ("" the Start page) from any page of the app: relative, so the app works behind
    a proxy's prefix (every page is one level under the app's root)."""
    return path or "./"


@dataclass(frozen=True, eq=False)  # each Run is its own trigger: compared by identity
class Run:
    """What a page runs when a link asks for it: `fn(*inputs) -> outputs`, as its run button does."""

    fn: object
    inputs: list
    outputs: list
    needs: tuple = ()  # fields the link must give for this run (a page with several sections runs those it fills);
    # none named: every text box the run reads that the page starts empty (one with a default may be left out)
    options: dict = field(default_factory=dict)  # event options (concurrency group)
    # a State whose change already runs `fn` in the page's own event (`page.Task.run`: one event, not two, for a
    # phone's first visit to wire); None: `Links` makes one, and its event
    trigger: object = None


@dataclass(frozen=True)
class Follows:
    """A field whose choices follow another field's value: a model picker lists the models of the role chosen."""

    field: str  # the follower (a gr.Dropdown), by its query parameter
    leader: str  # the field it follows (a gr.Radio)
    choices: Callable[[str], list]  # the leader's value -> the follower's (label, value) choices, the default first


@dataclass
class Page:
    id: str  # the value of the `tab` query parameter
    fields: dict  # query parameter -> input component
    path: tuple = field(default=())  # (gr.Tabs, tab id) pairs to select, outermost first
    runs: tuple = field(default=())  # Run for each part of the page a link may run
    follows: tuple = field(default=())  # Follows: fields a link sets together, so that they agree
    # lang -> {field: value}: what a link opening the page in that language puts in the fields it does not give
    # (the Fine-tune tab's built-in task, in the page's language); None: such fields stay as they are
    defaults: Callable[[str], dict] | None = None

    def under(self, tabs: gr.Tabs, tab_id: str) -> Page:
        return dataclasses.replace(self, path=((tabs, tab_id), *self.path))


def share_row(page_id: str, fields: dict) -> None:
    """A "copy link" control: the link to this page with every input as it is now (an empty one too, so the link
    opens the page as it is on screen), and, beside it, a line saying the link is ready or copied."""
    with gr.Row(equal_height=True, elem_classes=["bg-share-row"]):
        button = gr.Button(t("link.button"), size="sm", scale=1, min_width=160)
        url = gr.Textbox(label=t("link.label"), show_label=False, placeholder=t("link.placeholder"), buttons=["copy"],
                         interactive=False, scale=5, elem_classes=["bg-share-url"])
        said = gr.Markdown("", scale=1, min_width=160, elem_classes=["bg-share-status"])
    t("link.copied"), t("link.ready")  # the line's two keys, which `HEAD` returns, among the translations sent
    js = f"(...values) => window.bgDemoShare({json.dumps(page_id)}, {json.dumps(list(fields))}, values)"
    button.click(None, list(fields.values()), [url, said], js=js, api_visibility="private")


def convert(component, raw: str):
    """The query string value as the component's value, or None when it does not fit."""
    try:
        if isinstance(component, (gr.Slider, gr.Number)):
            number = float(raw)
            low, high = getattr(component, "minimum", None), getattr(component, "maximum", None)
            if (low is not None and number < low) or (high is not None and number > high):
                return None
            return int(number) if number.is_integer() else number
        if isinstance(component, (gr.Radio, gr.Dropdown)):
            choices = [choice[1] if isinstance(choice, tuple) else choice for choice in component.choices]
            return raw if raw in choices else None
        if isinstance(component, gr.Checkbox):
            return raw.lower() in {"1", "true", "yes", "on"}
        if isinstance(component, gr.Dataframe):  # rows as JSON, each a list of cells; the server checks the rest
            rows = json.loads(raw)
            fits = isinstance(rows, list) and all(isinstance(row, list) and all(isinstance(cell, (str, int, float))
                                                                            for cell in row) for row in rows)
            return rows if fits else None
        return raw  # never cut: an over-long text is refused by the server, with its length and the limit
    except (TypeError, ValueError):
        return None


def _truthy(raw) -> bool:
    return str(raw).lower() in {"1", "true", "yes", "on"}


def _given(value) -> bool:
    """Whether a link gives a field a value a run can use (an empty box or an unticked box gives none)."""
    return value is not None and value is not False and value != ""


def needs(page: Page, run: Run) -> tuple:
    """The fields a link must give for `run`: its own, else the text boxes it reads that the page starts empty
    (a seed box starts as "", which the run takes as "draw one")."""
    if run.needs:
        return tuple(run.needs)
    return tuple(name for name, component in page.fields.items()
                 if component in run.inputs and isinstance(component, gr.Textbox) and component.value is None)


def _choice_values(choices) -> list:
    return [choice[1] if isinstance(choice, tuple) else choice for choice in choices]


def agree(page: Page, values: dict) -> dict:
    """{component: value or update} for the fields that follow another: the leader the link gives (else the one
    whose choices hold the link's pick), and the follower among the leader's choices, its first (the default)
    unless the link picks one of them. A link that gives neither leaves both as they are."""
    found = {}
    for follows in page.follows:
        leader, follower = page.fields[follows.leader], page.fields[follows.field]
        raw = values.get(follows.leader)
        lead = convert(leader, raw) if isinstance(raw, str) else raw
        pick = values.get(follows.field)
        if lead is None and pick:
            lead = next((value for value in _choice_values(leader.choices)
                         if pick in _choice_values(follows.choices(value))), None)
        if lead is None:
            continue
        options = follows.choices(lead)
        allowed = _choice_values(options)
        found[leader] = lead
        found[follower] = gr.update(choices=options, value=pick if pick in allowed else allowed[0])
    return found


def _plain(value):
    """A field's value as a link sets it (an update's value)."""
    return value.get("value") if isinstance(value, dict) else value


class Links:
    """Opens pages: selects their tabs (in the browser: `opening`), fills their inputs and, when asked, runs them;
    everything else is left as it is. A run is started through a hidden trigger per Run, so only the page asked for
    does any work. With a lesson's bar (`ui.lesson.Bar`), a link may open a lesson's step too.

    Each page's link is an event of its own, whose outputs are that page's fields and runs (and the bar): Gradio's
    client keeps every component an event has written, and at each later event of the page reads back the value
    of each one, and of everything under it (docs/page-weight.md).

    One `Links` per page of the app (`here`: its address): `pages` are the ones on it; a link or a lesson's step for a
    page elsewhere is gone to (`route`), where that page's own `Links` opens it."""

    def __init__(self, pages: list[Page], bar=None, here: str = "", known: dict | None = None):
        self.pages = {page.id: page for page in pages}
        # every page of the app (`known`: `site.paths()`) and these, here: id -> the address of the page holding it
        self.known = {**(known or {}), **dict.fromkeys(self.pages, here)}
        self.here = here
        self.fields = list(dict.fromkeys(c for page in pages for c in page.fields.values()))
        self.triggers = {run: gr.State(0) if run.trigger is None else run.trigger for page in pages for run in page.runs}
        self.bar = bar

    def outputs(self) -> list:
        return [*self.fields, *self.triggers.values(), *(self.bar.outputs() if self.bar else [])]

    def outputs_of(self, page_id: str) -> list:
        """The outputs a link to `page_id` writes: its page's fields and runs, then the bar's ("": the bar's)."""
        page = self.pages.get(page_id)
        own = [] if page is None else [*page.fields.values(), *(self.triggers[run] for run in page.runs)]
        return [*dict.fromkeys(own), *(self.bar.outputs() if self.bar else [])]

    def open(self, page_id: str, values: dict, run: bool = False, lang: str | None = None) -> list:
        """The updates of `outputs()` but the bar's that fill `page_id` with `values` (and run it), the page's
        `defaults` in `lang` where `values` give none: all skipped for no page. Its tabs are opened in the browser
        first (`opening`)."""
        page = self.pages.get(page_id)
        if page is None:
            return [gr.skip()] * (len(self.fields) + len(self.triggers))
        wanted = {page.fields[name]: convert(page.fields[name], value) if isinstance(value, str) else value
                  for name, value in values.items() if name in page.fields}
        if page.defaults is not None:
            for name, value in page.defaults(text.language(lang)).items():
                if wanted.get(page.fields[name]) is None:
                    wanted[page.fields[name]] = value
        wanted.update(agree(page, values))
        field_updates = []
        for component in self.fields:
            value = wanted.get(component)
            if value is not None and not isinstance(value, dict):  # a dict: an update made by `agree`
                value = gr.update(value=value)
            field_updates.append(gr.skip() if value is None else value)
        given = {name for name, component in page.fields.items() if _given(_plain(wanted.get(component)))}
        started = {r for r in page.runs if run and set(needs(page, r)) <= given}
        # a new value each time, so the trigger's change event fires even for the same link twice
        run_updates = [time.time_ns() if r in started else gr.skip() for r in self.triggers]
        return [*field_updates, *run_updates]

    def page_of(self, query: str) -> str:
        """The id of the page a query opens (a lesson's: its step's), on this page of the app or another, or "" for
        none."""
        params = dict(parse_qsl(query.lstrip("?"), keep_blank_values=True))
        page_id = self.bar.page_of(self, params) if self.bar is not None and LESSON in params else params.get("tab", "")
        return page_id if page_id in self.known else ""

    def opening(self, query: str) -> str:
        """`<tabs>|<query>`: the query, after the ids of the tabs to select for the page it opens ("generate/
        logit_lens", "" for none), which the page selects before the query is followed (`OPEN_JS`)."""
        page = self.pages.get(self.page_of(query))
        return f"{'/'.join(tab_id for _, tab_id in page.path) if page is not None else ''}|{query}"

    def elsewhere(self, query: str) -> str:
        """The address (relative to this page) that opens `query` where its page is, when that is another page of
        the app; "" when it is here, or nowhere."""
        chosen = self.page_of(query)
        if not chosen or chosen in self.pages or self.known[chosen] == self.here:
            return ""
        kept = [(name, value) for name, value in parse_qsl(query.lstrip("?"), keep_blank_values=True)
                if name not in (NONCE, LANG_ASKED)]
        turned = NONCE in dict(parse_qsl(query.lstrip("?")))  # the bar's Previous or Next (`lesson.Bar.turn`)
        return f"{'+' if turned else ''}{href(self.known[chosen])}?{urlencode(kept)}"

    def route(self, query: str) -> list:
        """The opening of `query`, for the hidden box of the page it opens ("" for none; the others skipped), whose
        change is that page's link event, then the address of another page of the app to go to instead ("" for
        none). A new value each time, so the same link twice is followed twice."""
        away = self.elsewhere(query)
        if away:
            return [*[gr.skip()] * (1 + len(self.pages)), away]
        opening = f"{self.opening(query)}&{NONCE}={time.time_ns()}"
        chosen = self.page_of(query) if self.page_of(query) in self.pages else ""
        return [*(opening if page_id == chosen else gr.skip() for page_id in ("", *self.pages)), gr.skip()]

    def turned(self, by: int, shown, lang: str) -> list:
        """The bar's Previous (`by` -1) or Next (+1): [the step's query, for this page to open as it opens a link, or
        the address of the step's page when it is another one, where the browser goes straight away] (the other
        skipped). One round trip from the click to the next page, where a query would take two (`route`)."""
        query = self.bar.turn(by, shown, lang)
        if not isinstance(query, str):
            return [gr.skip(), gr.skip()]
        away = self.elsewhere(query)
        return [gr.skip(), away] if away else [query, gr.skip()]

    def on_opened(self, opening: str) -> list:
        """Follow the query of an `opening` (`<tabs>|<query>`) once its tabs are open: updates of `outputs()`."""
        return self.on_query(opening.partition("|")[2])

    def on_opened_in(self, page_id: str, opening: str) -> list:
        """`on_opened`, as the updates of `outputs_of(page_id)`: what a link to that page writes."""
        updates = dict(zip(self.outputs(), self.on_opened(opening)))
        return [updates[component] for component in self.outputs_of(page_id)]

    def on_query(self, query: str) -> list:
        """Open what the page's query string (`?tab=…&…`, or a lesson's `?lesson=…&step=k`) asks for; a later
        value of a repeated name wins."""
        params = dict(parse_qsl(query.lstrip("?"), keep_blank_values=True))
        if self.bar is not None and LESSON in params:
            return self.bar.follow(self, params)
        run = _truthy(params.pop(RUN, ""))
        lang = params.pop(LANG_ASKED, None) or params.get("lang")
        return [*self.open(params.pop("tab", ""), params, run, lang), *(self.bar.skip() if self.bar else [])]

    def wire(self, demo: gr.Blocks, lang=None) -> None:
        """Read the URL on load, go to another page of the app when it names one (`route`), and make the bar's
        Previous and Next (which read the page's language from `lang`) turn."""
        # The browser reads its own URL and hands the server the query only when it names a page or a lesson: an
        # event with a server function marks every output of every event as loading and back, each a walk of the
        # page's whole component tree, which cost a 4x-throttled phone ~0.5 s of its first visit
        # (`bench/page_weight.py`). A plain visit leaves the box empty, so its change event never fires.
        query = gr.Textbox("", visible="hidden", show_label=False, container=False, elem_id="bg-link-query")
        # for each page (and for a query that opens none), the query with the tabs it opens, which the browser opens
        # before the server follows the query (`OPEN_JS`): each page's own event, which writes that page alone
        openings = {page_id: gr.Textbox("", visible="hidden", show_label=False, container=False)
                    for page_id in ("", *self.pages)}
        # another page's address: a lesson's step there, or an old link's page (`route`); a turn of the bar adds to
        # the browser's history (Back goes to the step before), a link's page takes its place
        away = gr.Textbox("", visible="hidden", show_label=False, container=False)
        away.change(None, away, None, js=_GO, api_visibility="private", queue=False)
        demo.load(None, None, query, js=_LINK_QUERY, api_visibility="private", queue=False)
        query.change(self.route, query, [*openings.values(), away], api_visibility="private", queue=False,
                     show_progress="hidden")
        for page_id, opening in openings.items():
            # queued (a run's trigger fires from a queued event only), with no limit: opening never waits on a model
            # no progress shown on the fields it fills: the page's own run shows its progress, and its result is what
            # the page script leads into view (assets/view.js)
            follow = partial(self.on_opened_in, page_id)
            follow.__name__ = "on_opened"  # its endpoint's name (private): each page's is "on_opened_<n>"
            opening.change(follow, opening, self.outputs_of(page_id), js=OPEN_JS, api_visibility="private",
                           concurrency_limit=None, show_progress="hidden")
        if self.bar is not None:  # the step before or after: its page's address, or a query this page opens
            for button, by in ((self.bar.previous, -1), (self.bar.next, 1)):
                button.click(partial(self.turned, by), [self.bar.state, lang], [query, away],
                             api_visibility="private", queue=False, show_progress="hidden")
        for run, trigger in self.triggers.items():
            if run.trigger is None:
                trigger.change(run.fn, run.inputs, run.outputs, api_visibility="private", **run.options)
