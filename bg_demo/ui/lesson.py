"""Lessons: pages in an order, each opened and run as a shared link opens and runs it, one step at a time, with
"Step k of n", a note for the class and Previous / Next on screen (the bar, at the bottom of the window).

The built-in lesson is the guided path (`?lesson=guided`); a teacher's own lesson is carried whole by its link
(`?lesson=<code>&step=k`): the code is the steps, each a page's link ("Link to this") and a one-line note, as JSON,
zlib-compressed and base64url-encoded. Nothing of a lesson is kept on the server; a link is bounded (`MOST_STEPS`
steps, `MOST_NOTE` characters a note, `MOST_CODE` characters in all), and one over a bound is refused in words.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
import zlib
from urllib.parse import parse_qsl, urlencode, urlsplit

import gradio as gr

from bg_demo import config, text
from bg_demo.errors import InputError
from bg_demo.look import Look
from bg_demo.text import Text
from bg_demo.ui import common
from bg_demo.ui.links import GUIDED, LANG_ASKED, LESSON, LINKS_KEY, MOST_STEPS, NONCE, STEP, href
from bg_demo.ui.page import Shown, View, error_box, hide_error, run_button, show_error
from bg_demo.ui.strings import examples, t

MOST_NOTE = 200  # characters
MOST_CODE = 6000  # characters of the lesson's code: the whole link stays under the ~8 KB servers and browsers take
_MOST_INFLATED = 64 * 1024  # bytes a code may inflate to (a link is never a zip bomb)
_LEFT_OUT = {"lang", "run", LESSON, STEP, LANG_ASKED, NONCE}  # a page link's parameters a step does not keep
STATE_SECONDS = 3 * 3600  # a lesson's place is kept this long after the last step (a lesson lasts a class)


MODEL_FIELDS = ("model", "encoder", "decoder")  # a page's fields that pick a model


def guided(lang: str = text.DEFAULT) -> list[list]:
    """The guided path's steps in `lang`: [query, note] pairs, the note a key of the texts with what the bar says
    of the step's models (`{"key", "models", "english_only"}`). A Korean or Japanese path reads that language's
    sentences on the models made for it (multilingual BERT, KoGPT2, rinna's GPT-2); a step whose only model reads
    English (sentiment, entities, answers) keeps its English sentence, and its note says why."""
    own = examples(lang).get("guided_path") or examples()["guided_path"]
    return [[urlencode({"tab": step["page"], **step["values"]}),
             {"key": f"start.step.{number}", "english_only": bool(step.get("english_only")),
              "models": [step["values"][name] for name in MODEL_FIELDS if step["values"].get(name)]
              or list(step.get("models", []))}]
            for number, step in enumerate(own, start=1)]


def encode(steps: list[list]) -> str:
    """The code of a lesson's [query, note] steps, for its link."""
    raw = json.dumps(steps, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def decode(code: str, pages, lang: str = text.DEFAULT) -> list[list]:
    """A link's lesson code as [query, note] steps, each a page of `pages` (the guided path's in `lang`);
    InputError when it is not one."""
    if code == GUIDED:
        return guided(lang)
    try:
        if len(code) > MOST_CODE:
            raise ValueError("too long")
        packed = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, _MOST_INFLATED)
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("inflates too far, or cut short")
        steps = json.loads(raw.decode("utf-8"))
    except (ValueError, binascii.Error, zlib.error, UnicodeDecodeError) as exc:
        raise InputError("lesson.damaged") from exc
    fits = (isinstance(steps, list) and 0 < len(steps) <= MOST_STEPS and all(
        isinstance(step, list) and len(step) == 2 and isinstance(step[0], str) and isinstance(step[1], str)
        and len(step[1]) <= MOST_NOTE and dict(parse_qsl(step[0])).get("tab") in pages for step in steps))
    if not fits:
        raise InputError("lesson.damaged")
    return steps


def _query(link: str) -> str:
    """The query of a page's link (a whole address, or only what follows its "?")."""
    link = link.strip()
    return urlsplit(link).query if "://" in link or link.startswith("/") else link.lstrip("?")


def make(lines: str, pages: dict) -> list[list]:
    """A teacher's steps (a page's link on each line, then a space and the note, if any) as a lesson's steps;
    InputError saying which line to change and how when one does not fit. `pages`: page id -> its `links.Page`."""
    given = [(number, line.strip()) for number, line in enumerate(str(lines or "").splitlines(), start=1)
             if line.strip()]
    if not given:
        raise InputError("lesson.empty")
    if len(given) > MOST_STEPS:
        raise InputError("lesson.too_many", count=len(given), most=MOST_STEPS)
    steps = []
    for number, line in given:
        link, _, note = line.partition(" ")
        note = " ".join(note.split())
        params = dict(parse_qsl(_query(link), keep_blank_values=True))
        page = pages.get(params.get("tab", ""))
        if page is None:
            raise InputError("lesson.not_a_page", row=number, link=link[:80])
        if len(note) > MOST_NOTE:
            raise InputError("lesson.note_long", row=number, count=len(note), most=MOST_NOTE)
        values = {name: value for name, value in params.items() if name in page.fields and name not in _LEFT_OUT}
        steps.append([urlencode({"tab": page.id, **values}), note])
    raw = len(json.dumps(steps, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if raw > _MOST_INFLATED:  # a text that compresses well would pass as a short link that `decode` then refuses
        raise InputError("lesson.too_much", count=raw, most=_MOST_INFLATED)
    code = encode(steps)
    if len(code) > MOST_CODE:
        raise InputError("lesson.too_long", count=len(code), most=MOST_CODE)
    return steps


def address(code: str, k: int, lang: str | None = None) -> str:
    """The query of a lesson's link at step k (opening in `lang`, when another than the page's own)."""
    params = {LESSON: code, STEP: str(k)}
    if lang and lang != text.DEFAULT:
        params["lang"] = lang
    return "?" + urlencode(params)


def step_number(raw, n: int) -> int:
    """A link's step (1 to n; the first when it names none that fits)."""
    try:
        return min(max(int(raw), 1), n)
    except (TypeError, ValueError):
        return 1


def note_words(note, lang: str) -> str:
    """A step's note as the bar shows it: the teacher's own words as written, or a built-in step's in `lang`."""
    if isinstance(note, dict):
        label = text.t(note["key"], lang)
        number, dot, rest = label.partition(" · ")
        words = rest if dot and number.isdigit() else label  # the app's own words, Markdown as written
        if note.get("english_only") and lang != text.DEFAULT:
            words += " · " + text.t("lesson.english_only", lang)
        elif note.get("models") and lang != text.DEFAULT:  # the language's own models, named as the pickers do
            words += " · " + text.t("lesson.models", lang, models=", ".join(
                f"`{config.public_name(model).rpartition('/')[2]}`" for model in note["models"]))
        return words
    return common.plain(note)


def where_words(position: dict, look: Look) -> str:
    """The bar's line: "Step k of n" and the step's note."""
    steps, k = position["steps"], position["k"]
    counter = f"**{look.words(Text('lesson.step', k=k, n=len(steps)))}**"
    note = note_words(steps[k - 1][1], look.lang)
    return f"{counter} · {note}" if note else counter


def _reworded(shown, lang):
    """The bar's line for the step kept in `shown`, in `lang`."""
    if not isinstance(shown, Shown) or not isinstance(shown.result, dict):
        return gr.skip()
    return where_words(shown.result, Look(text.language(lang)))


class Bar:
    """The lesson's bar: Previous, "Step k of n" with the note, Next; hidden until a lesson opens. Its line is a
    view of its state (the lesson and the step), so the language switch rewords it."""

    def __init__(self, reader):
        self.reader = reader
        with gr.Row(visible=False, equal_height=True, elem_classes=["bg-lesson"]) as self.row:
            self.previous = gr.Button(t("lesson.previous"), size="sm", scale=0, min_width=80,
                                      elem_classes=["bg-lesson-turn", "bg-lesson-previous"])
            with gr.Column(scale=1, min_width=120):
                self.where = gr.Markdown("", elem_classes=["bg-lesson-where"])
                self.error = error_box()
                self.error.render()
            self.next = gr.Button(t("lesson.next"), size="sm", variant="primary", scale=0, min_width=80,
                                  elem_classes=["bg-lesson-turn", "bg-lesson-next"])
        self.state = gr.State(None, time_to_live=STATE_SECONDS)
        # the link of the step on screen, which the browser puts in its address bar (a reload stays on the step)
        self.address = gr.Textbox("", visible="hidden", show_label=False, container=False, elem_id="bg-lesson-address")
        self.address.change(None, self.address, None, js=_SET_ADDRESS, api_visibility="private", queue=False)
        reader.views.append(View(self.state, lambda position, look: where_words(position, look), [self.where],
                                 error=self.error))
        # a step asked for before a change of language arrives worded in the language it was asked in: its line is
        # worded again in the page's own once it lands
        self.state.change(_reworded, [self.state, reader.lang], [self.where], api_visibility="private", queue=False,
                          show_progress="hidden")

    def outputs(self) -> list:
        return [self.row, self.where, self.previous, self.next, self.state, self.address, self.error]

    def skip(self) -> list:
        return [gr.skip()] * len(self.outputs())

    def follow(self, links, params: dict) -> list:
        """What a link's `lesson` and `step` open: the step's page, filled in and run (`links.open`), and the bar."""
        lang = text.language(params.get(LANG_ASKED) or params.get("lang"))
        try:
            steps = decode(params.get(LESSON, ""), links.known, lang)
        except InputError as exc:
            return [*links.open("", {}), *self.refused(exc, lang)]
        position = {"lesson": params[LESSON], "steps": steps, "k": step_number(params.get(STEP), len(steps))}
        return self.go(links, position, lang)

    def turn(self, by: int, shown, lang: str):
        """The query of the step before (`by` -1) or after (+1) the one the bar shows, which the page then opens as
        it opens a link (`links.Links`: its tab first); a skip when nothing is kept (expired): the bar stays."""
        position = shown.result if isinstance(shown, Shown) else None
        if not isinstance(position, dict):
            return gr.skip()
        k = step_number(position["k"] + by, len(position["steps"]))
        return address(position["lesson"], k) + "&" + urlencode({LANG_ASKED: text.language(lang),
                                                                 NONCE: str(time.time_ns())})

    def page_of(self, links, params: dict) -> str:
        """The page a lesson's link (`lesson`, `step`) opens, or "" for a lesson that cannot be followed."""
        try:
            steps = decode(params.get(LESSON, ""), links.known,
                           text.language(params.get(LANG_ASKED) or params.get("lang")))
        except InputError:
            return ""
        query = steps[step_number(params.get(STEP), len(steps)) - 1][0]
        return dict(parse_qsl(query, keep_blank_values=True)).get("tab", "")

    def go(self, links, position: dict, lang: str) -> list:
        """The page of the position's step, opened and run, and the bar at that step."""
        params = dict(parse_qsl(position["steps"][position["k"] - 1][0], keep_blank_values=True))
        return [*links.open(params.pop("tab", ""), params, True, lang), *self.shown(position, lang)]

    def shown(self, position: dict, lang: str) -> list:
        """The bar at `position` ({"lesson": code, "steps": [...], "k": k}), worded in `lang`."""
        k, n = position["k"], len(position["steps"])
        return [gr.Row(visible=True), where_words(position, Look(lang)), gr.Button(interactive=k > 1),
                gr.Button(interactive=k < n), Shown(position), address(position["lesson"], k), hide_error()]

    def refused(self, error: InputError, lang: str) -> list:
        """The bar saying why a lesson's link cannot be followed."""
        return [gr.Row(visible=True), "", gr.Button(interactive=False), gr.Button(interactive=False),
                Shown(error=error), gr.skip(), show_error(Look(lang).words(error))]


# the step's link in the address bar, keeping the language the address named
_SET_ADDRESS = """(query) => {
  if (!query) return;
  const lang = new URLSearchParams(window.location.search).get("lang"), params = new URLSearchParams(query);
  if (lang && !params.has("lang")) params.set("lang", lang);
  history.replaceState(null, "", window.location.pathname + "?" + params.toString());
}"""


def step_link(k: int, paths: dict, lesson: str = GUIDED) -> str:
    """The address of a lesson's step k, relative to any page of the app: the page of its step (`paths`: page id ->
    its page's address), with the lesson and the step (the page then opens it as it opens a link:
    `links.Links`). For the built-in lesson only (a teacher's lesson's pages are read from its code on the
    server)."""
    page_id = dict(parse_qsl(guided()[k - 1][0])).get("tab", "")
    return href(paths.get(page_id, "")) + address(lesson, k)


class Maker:
    """"Your own lesson" on the Start tab: page links (one a line, each with its note) made into one lesson link."""

    def __init__(self):
        with gr.Accordion(t("lesson.title"), open=False, elem_classes=["bg-lesson-maker"]):
            gr.Markdown(t("lesson.how"))
            self.lines = gr.Textbox(label=t("lesson.steps"), placeholder=t("lesson.steps_placeholder"), lines=4,
                                    max_lines=MOST_STEPS + 2, elem_classes=["bg-lesson-lines"])
            with gr.Row():
                self.fill = gr.Button(t("lesson.fill"), size="sm", scale=1)
                self.make = run_button(gr.Button(t("lesson.make"), variant="primary", size="sm", scale=1))
            self.error = error_box()
            self.error.render()
            self.link = gr.Textbox(label=t("lesson.label"), interactive=False, buttons=["copy"],
                                   placeholder=t("lesson.placeholder"), elem_classes=["bg-lesson-link"])
            self.base = gr.Textbox("", visible="hidden", show_label=False, container=False)
        self.state = gr.State(None, time_to_live=STATE_SECONDS)

    def wire(self, reader, pages: dict, paths: dict) -> None:
        """`pages`: every page of the app by id (`links.Page`), read when a lesson is made (filled in as the app's
        pages are built, after this one); `paths`: page id -> the address of its page."""
        reader.views.append(View(self.state, lambda made, look: made["link"], [self.link], error=self.error))

        def made(lines, base, lang, width):
            look = Look(lang, width)
            try:
                steps = make(lines, pages)
            except InputError as exc:
                return Shown(error=exc), gr.skip(), show_error(look.words(exc))
            base = base if base.startswith(("http://", "https://")) and "?" not in base else ""
            # the first step's own page: the lesson opens there, with no detour through this one
            first = paths.get(dict(parse_qsl(steps[0][0])).get("tab", ""), "")
            link = base + first + address(encode(steps), 1, look.lang)
            return Shown({"link": link}), link, hide_error()

        # the browser adds the page's own address, which the server cannot know behind a proxy
        self.make.click(made, [self.lines, self.base, *reader.inputs], [self.state, self.link, self.error],
                        js="(lines, base, lang, width) => [lines, window.location.origin + window.bgDemoHere()[0], "
                           "lang, width]", api_visibility="private", queue=False)
        self.fill.click(None, self.lines, self.lines, js=_FILL % {"key": json.dumps(LINKS_KEY)},
                        api_visibility="private", queue=False)


# the links this browser made, each on its line after those already there (each once)
_FILL = """(lines) => {
  let links = [];
  try { links = JSON.parse(localStorage.getItem(%(key)s) || "[]"); } catch (e) {}
  if (!Array.isArray(links)) links = [];
  const have = String(lines || "").split("\\n").filter((line) => line.trim());
  const known = new Set(have.map((line) => line.trim().split(" ")[0]));
  return [...have, ...links.map(String).filter((link) => !known.has(link))].join("\\n");
}"""
