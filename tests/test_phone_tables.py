"""Tables on a phone: the columns that matter on screen, not a sideways scroll away (the Entities, Masked LM and
Causal LM tables); a wide page keeps every column."""

import gradio as gr

from bg_demo import backend, text
from bg_demo.look import Look
from bg_demo.ui import entities_tab, pretraining_tab

PHONE, WIDE = Look("ko", 390), Look("ko", 1366)


def _value(table) -> dict:
    return table.value if isinstance(table, gr.Dataframe) else table


def _names(key: str, lang: str) -> list[str]:
    return text.t(key, lang).split("|")


def test_the_entities_table_on_a_phone_shows_label_text_and_score_in_set_widths():
    result = backend.recognize_entities("Angela Merkel met Emmanuel Macron in Berlin.", "simple")
    phone, wide = entities_tab.render(result, PHONE)[1], entities_tab.render(result, WIDE)[1]
    assert isinstance(phone, gr.Dataframe) and len(phone.column_widths) == 3  # the text wraps in its share
    assert _value(phone)["headers"] == _names("ner.table_headers", "ko")[:3]
    assert all(len(row) == 3 for row in _value(phone)["data"]) and len(_value(phone)["data"]) == len(result.entities)
    assert _value(wide)["headers"] == _names("ner.table_headers", "ko")  # a wide page: every column


def test_the_masked_lm_tables_on_a_phone_keep_what_the_model_reads_and_guesses():
    result = backend.mlm_corruption("The quick brown fox jumps over the lazy dog.", 0)
    tokens, targets = pretraining_tab.corrupted(result, PHONE)[:2]
    names, target_names = _names("pre.token_headers", "ko"), _names("pre.target_headers", "ko")
    assert tokens["headers"] == names[1:] and all(len(row) == 4 for row in tokens["data"])
    assert _value(targets)["headers"] == [target_names[1], target_names[4], target_names[5]]
    wide_tokens, wide_targets = pretraining_tab.corrupted(result, WIDE)[:2]
    assert wide_tokens["headers"] == names and wide_targets["headers"] == target_names


def test_the_causal_lm_table_on_a_phone_shows_the_end_of_the_text_read_the_target_and_its_probability():
    long = "The capital of France is Paris, and the capital of Italy is Rome."
    result = backend.causal_lm(long)
    phone = pretraining_tab.causal_shown(result, PHONE)[0]
    assert phone["headers"] == _names("pre.causal_headers", "ko")[:3]
    contexts = [row[0] for row in phone["data"]]
    assert max(map(len, contexts)) <= pretraining_tab.PHONE_CONTEXT and contexts[-1].startswith("…")
    assert result.steps[-1].context.endswith(contexts[-1][1:])  # the end of what was read, where the target follows
    assert pretraining_tab.causal_shown(result, WIDE)[0]["data"][-1][0] == result.steps[-1].context
