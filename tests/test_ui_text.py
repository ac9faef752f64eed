"""Whatever a user typed is shown as text in every Markdown and HTML output of the app, never as markup."""

import html
import re

import pytest
from markdown_it import MarkdownIt

from bg_demo import backend
from bg_demo.backend.qa import AnswerResult, Span
from bg_demo.look import Look
from bg_demo.ui import common, compare_tab, generate_tab, page, qa_tab

PAYLOADS = [
    "<b style='font-size:40px'>bank</b>",
    "<img src=x onerror=alert(1)>",
    "**bold** _it_ [a link](javascript:alert(1)) `code` # heading",
    "$$x^2$$ a\\b | c ~~d~~",
]


TAG = re.compile(r"<[^>]+>")


def rendered(markdown: str) -> tuple[list[str], str]:
    """A Markdown value rendered as CommonMark (as the browser does): its tags, and the text a reader sees."""
    out = MarkdownIt("commonmark").render(markdown)
    return TAG.findall(out), html.unescape(TAG.sub("", out)).strip()


def assert_plain(make, payload: str) -> None:
    """`make(text)` shows `payload` character for character, with exactly the markup it gives a plain word."""
    tags, text = rendered(make(payload))
    assert payload in text
    assert tags == rendered(make("word"))[0]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_plain_keeps_every_character_and_no_markup(payload):
    assert_plain(common.plain, payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_an_error_message_quoting_the_user_is_text(payload):
    assert_plain(lambda text: page.show_error(f"Seed must be a whole number; got {text}.").value, payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_qa_answer_and_runner_up_are_text(payload):
    def found(text):
        return qa_tab.summary(AnswerResult("q", text, text, 0, len(text), 0.9, 1.0, (), ((0, len(text)),), "m"),
                              Look())

    def missing(text):
        span = Span(text, 0, len(text), 0.2, 3.0, 0)
        return qa_tab.summary(AnswerResult("q", text, None, None, None, 0.6, 4.0, (span,), ((0, len(text)),), "m"),
                              Look())

    assert_plain(found, payload)
    assert_plain(missing, payload)


@pytest.mark.parametrize("second", ["to deposit cash.", "of the river."])  # the second: "same sentences" note
def test_same_word_notes_are_text(second):
    def note(word):
        result = compare_tab.word_vectors(f"I sat by the {word} of the river.", f"I sat by the {word} {second}", word)
        return compare_tab.same_word(result, Look())[1]

    assert_plain(note, "<b style='font-size:40px'>bank</b>")


def test_the_gap_note_is_text():
    assert_plain(lambda text: compare_tab.gap(compare_tab.fill_gap(f"{text} [MASK] barked all night."), Look())[1],
                 "<b style='font-size:40px'>The</b>")


def test_generated_html_escapes_the_prompt_and_every_token():
    payload = "<b style='font-size:40px'>bank</b>"
    result = backend.generate(payload, "greedy", 4)
    text, *_ = generate_tab.render(result, Look())
    assert "<b style" not in text and html.escape(payload) in text
