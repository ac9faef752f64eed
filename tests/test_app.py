"""The app through its public API, as a developer calls it: every endpoint via gradio_client."""

import html
import json
import re

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

from bg_demo import config, models, text
from bg_demo.backend.qa import AnswerResult, Span
from bg_demo.figures.style import FONT, NARROW_FONT_SIZE
from bg_demo.look import Look
from bg_demo.ui.qa_tab import summary


@pytest.fixture(scope="module")
def client(served):
    return Client(served[1], verbose=False)


def test_api_lists_the_named_endpoints(client):
    names = set(client.view_api(print_info=False, return_format="dict")["named_endpoints"])
    assert {"/fill_mask", "/classify", "/ner", "/qa", "/next_sentence", "/generate", "/next_token", "/logit_lens"} <= names


def test_fill_mask(client):
    filled, plot, tokens, raw = client.predict("The cat sat on the [mask].", 3, api_name="/fill_mask")
    assert len(raw["masks"]) == 1 and len(raw["masks"][0]) == 3
    assert filled == raw["filled"] and "[MASK]" not in filled
    (bars,) = json.loads(plot["plot"])["data"]  # the figure draws the result's three guesses, best first
    assert bars["x"] == pytest.approx([guess["score"] for guess in raw["masks"][0]])
    assert [piece["class_or_confidence"] for piece in tokens if piece["class_or_confidence"]] == ["[MASK]"]


def _layout(plot) -> dict:
    return json.loads(plot["plot"])["layout"]


def test_the_api_draws_in_the_language_and_for_the_width_it_is_sent(client):
    """`lang` and `width`, the last two values of every endpoint, both optional: a Korean caller on a phone gets
    the figure worded in Korean and laid out for a narrow page; one that leaves them out, English and wide."""
    sentence = "The cat sat on the [MASK]."
    _, plot, _, raw = client.predict(sentence, 3, lang="ko", width=390, api_name="/fill_mask")
    layout = _layout(plot)
    assert layout["xaxis"]["title"]["text"] == text.t("fig.tasks.probability", "ko") == "확률"
    assert layout["meta"]["alt"].startswith("[MASK] 1개 각각에 대한 BERT의 상위 추측")
    assert layout["font"]["size"] == NARROW_FONT_SIZE and not layout["yaxis"].get("ticktext")  # labels above bars
    _, plot, _, same = client.predict(sentence, 3, api_name="/fill_mask")  # both left out
    layout = _layout(plot)
    assert same["masks"] == raw["masks"]  # the same result, drawn for another reader
    assert layout["xaxis"]["title"]["text"] == "probability" and layout["meta"]["alt"].startswith("Bars of BERT")
    assert layout["font"]["size"] == FONT["size"] and layout["yaxis"]["ticktext"]  # wide: labels beside the bars
    _, plot, _, _ = client.predict(sentence, 3, "", "ja", 1280, api_name="/fill_mask")  # by position, wide
    layout = _layout(plot)
    assert layout["xaxis"]["title"]["text"] == "確率" and layout["font"]["size"] == FONT["size"]


@pytest.mark.parametrize(
    ("args", "key", "values"),
    [
        (("No mask here.", 3), "error.no_mask", dict(mask="[MASK]")),  # the backend's refusal
        (("The [MASK] sat.", 500), "input.whole.between",  # the values' check, before the page runs
         dict(what=text.Text("fill_mask.top_k"), low=1, high=20, got="500")),
    ],
)
def test_an_api_error_is_worded_in_the_language_the_call_names(client, args, key, values):
    for lang in ("ko", "en"):
        with pytest.raises(AppError) as caught:
            client.predict(*args, lang=lang, api_name="/fill_mask")
        assert caught.value.message == text.t(key, lang, **values)
    with pytest.raises(AppError) as caught:  # left out: English
        client.predict(*args, api_name="/fill_mask")
    assert caught.value.message == text.t(key, "en", **values)


def test_a_streams_refusal_of_a_value_is_worded_in_the_language_the_call_names(client):
    """/generate streams: its values are checked at its first step, in the `lang` the call sends."""
    from bg_demo.config import LIMITS

    for lang in ("ja", "en"):
        with pytest.raises(AppError) as caught:  # "three" sequences: no number
            client.predict("Hello", "greedy", 5, 1.0, 50, 0.9, 4, "three", "", 0, 1.0, "", lang, 1280,
                           api_name="/generate")
        label = text.t("generate.num_return_sequences", lang)
        assert caught.value.message == text.t("input.whole.between", lang, what=label, low=1,
                                              high=LIMITS.max_sequences, got="'three'")


def test_the_api_takes_an_allowed_model_and_refuses_any_other(client):
    _, _, _, raw = client.predict("서울은 한국의 [MASK]입니다.", 3, "google-bert/bert-base-multilingual-cased",
                                  api_name="/fill_mask")
    assert raw["model_id"] == "google-bert/bert-base-multilingual-cased" and len(raw["masks"][0]) == 3
    with pytest.raises(AppError, match="not offered for the encoder role.*bert-base-multilingual-cased"):
        client.predict("The cat sat on the [MASK].", 3, "someone/remote-code-model", api_name="/fill_mask")
    with pytest.raises(AppError, match="not offered for the decoder role"):
        client.predict("Hello", "greedy", 5, 1.0, 50, 0.9, 4, 1, "", 0, 1.0, "google-bert/bert-base-uncased",
                       api_name="/generate")


def test_a_model_without_the_head_a_task_needs_says_so_and_works_elsewhere(client):
    minilm = "sentence-transformers/all-MiniLM-L6-v2"
    with pytest.raises(AppError, match="has no masked-word \\(MLM\\) head.*Pick google-bert/bert-base-uncased"):
        client.predict("The cat sat on the [MASK].", 3, minilm, api_name="/fill_mask")
    with pytest.raises(AppError, match="has no next-sentence \\(NSP\\) head"):
        client.predict("The man went to the store.", "He bought milk.", minilm, api_name="/next_sentence")
    summary, tokens, raw = client.predict("The cat sat on the mat.", "encoder", minilm, api_name="/attention")
    assert raw["model_id"] == minilm and raw["shape"][:2] == [6, 12]  # the real MiniLM: 6 layers of 12 heads


def _bars(plot) -> dict:
    """label -> probability, read back from a probability bar figure as the browser receives it."""
    (bars,) = json.loads(plot["plot"])["data"]
    return dict(zip(bars["customdata"], bars["x"]))


def test_classify(client):
    scores, _, raw = client.predict("I loved this movie.", api_name="/classify")
    assert _bars(scores) == pytest.approx(raw["scores"])
    assert set(raw["scores"]) == {"NEGATIVE", "POSITIVE"}


def test_ner(client):
    highlighted, table, tags, raw = client.predict(
        "Apple Inc. was founded by Steve Jobs in Cupertino, California.", "average", api_name="/ner"
    )
    assert raw["aggregation"] == "average"
    assert len(table["data"]) == len(raw["entities"])
    assert [piece["class_or_confidence"] for piece in tags] == [token["label"] for token in raw["tags"]]
    entities = [(p["token"], p["class_or_confidence"]) for p in highlighted if p["class_or_confidence"]]
    assert entities == [(e["text"], e["label"]) for e in raw["entities"]]


def test_qa(client):
    context = "The Transformer was introduced in 2017 by Ashish Vaswani at Google."
    text, highlighted, table, raw = client.predict("Who introduced it?", context, api_name="/qa")
    assert raw["context"] == context
    assert ("No answer" in text) == (raw["answer"] is None)
    assert len(table["data"]) == len(raw["alternatives"]) > 0


def test_next_sentence(client):
    scores, segments, raw = client.predict("The man went to the store.", "He bought milk.", api_name="/next_sentence")
    assert [piece["class_or_confidence"] for piece in segments] == ["A" if s == 0 else "B" for s in raw["segment_ids"]]
    assert _bars(scores) == pytest.approx({"IsNext": raw["is_next"], "NotNext": 1 - raw["is_next"]})


@pytest.mark.parametrize(
    ("args", "api_name", "message"),
    [
        (("", 5), "/fill_mask", "empty"),
        (("No mask here.", 5), "/fill_mask", "[MASK]"),
        (("The [MASK] sat.", 500), "/fill_mask", "a whole number between 1 and 20; got 500"),  # checked first
        (("   ",), "/classify", "empty"),
        (("Paris", "loudest"), "/ner", "must be one of: \"none\", \"simple\""),  # checked first
        (("", "Some context."), "/qa", "question is empty"),
        (("A.", ""), "/next_sentence", "empty"),
    ],
)
def test_bad_input_reaches_the_client_as_a_clear_message(client, args, api_name, message):
    with pytest.raises(Exception) as caught:
        client.predict(*args, api_name=api_name)
    assert message in str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_unloadable_model_message_reaches_the_client(client, monkeypatch, tmp_path):
    monkeypatch.setenv("BG_DEMO_SENTIMENT", str(tmp_path / "missing"))
    config.settings.cache_clear()
    models.STORE.clear()
    with pytest.raises(Exception, match="BG_DEMO_SENTIMENT"):
        client.predict("I loved it.", api_name="/classify")
    assert client.predict("A.", "B.", api_name="/next_sentence")[2]["is_next"] >= 0


def test_no_answer_is_said_plainly():
    span = Span("Hello", 0, 5, 0.2, 3.0, 0)
    result = AnswerResult("q", "Hello", None, None, None, 0.6, 4.0, (span,), ((0, 5),), "m")
    assert summary(result, Look()).startswith("**No answer**") and "Hello" in summary(result, Look())
    assert summary(result, Look("ko")).startswith("**답 없음**")


GENERATE_DEFAULTS = dict(max_new_tokens=10, temperature=1.0, top_k=20, top_p=0.9, num_beams=3, sequences=1,
                         seed=None, no_repeat=0, penalty=1.0)


def _generate_args(prompt, strategy, **overrides):
    settings = {**GENERATE_DEFAULTS, **overrides}
    return (prompt, strategy, *settings.values())


@pytest.fixture
def slow_decoding(monkeypatch):
    """Each decoding step takes 0.1 s longer, as on a busy machine."""
    import time

    from bg_demo.backend.generation import engine

    step = engine.DecodingEngine._step
    monkeypatch.setattr(engine.DecodingEngine, "_step", lambda self: (time.sleep(0.1), step(self)))


def test_generate_streams_text_that_only_grows(client, slow_decoding):
    job = client.submit(*_generate_args("Once upon a time", "top_k", seed=5, sequences=2), api_name="/generate")
    updates = list(job)
    assert len(updates) >= 4  # updates while the tokens arrive, then the finished result
    texts = [update[0] for update in updates]
    plain = [re.sub(r"<[^>]+>", "", html.unescape(text)) for text in texts]
    for before, after in zip(plain, plain[1:]):
        assert len(after) >= len(before)
    final = job.outputs()[-1]
    assert final[3]["done"] and final[3]["seed"] == 5 and len(final[3]["texts"]) == 2
    assert "title=\"rank" in final[0]  # finished tokens carry rank and probability on hover
    assert "seed 5" in final[2]


def test_generate_seed_is_optional_and_each_unseeded_sample_draws_a_new_one(client):
    endpoint = client.view_api(print_info=False, return_format="dict")["named_endpoints"]["/generate"]
    seed = next(p for p in endpoint["parameters"] if p["parameter_name"] == "seed")
    assert seed["parameter_has_default"]
    runs = [client.predict(prompt="Once upon a time", strategy="top_p", max_new_tokens=8, api_name="/generate")
            for _ in range(2)]
    seeds = [raw["seed"] for *_, raw in runs]
    assert None not in seeds and seeds[0] != seeds[1]
    assert all(f"seed {raw['seed']}" in summary for _, _, summary, raw in runs)  # shown, so it can be repeated
    again = client.predict(prompt="Once upon a time", strategy="top_p", max_new_tokens=8, seed=str(seeds[0]),
                           api_name="/generate")
    assert again[3]["texts"] == runs[0][3]["texts"]


def test_an_api_cancel_takes_the_request_out_of_the_batch(client, slow_decoding, in_flight):
    import time

    job = client.submit(*_generate_args("Once upon a time", "temperature", max_new_tokens=256), api_name="/generate")
    deadline = time.monotonic() + 30
    while in_flight() == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert in_flight() == 1
    job.cancel()
    while in_flight() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert in_flight() == 0
    args = _generate_args("Once upon a time", "greedy", max_new_tokens=3)
    _, _, summary, raw = client.predict(*args, api_name="/generate")
    assert raw["done"] and len(raw["generated"][0]) == 3 and "new-token limit" in summary


def test_a_session_whose_heartbeat_ends_leaves_the_batch(client, slow_decoding, in_flight):
    """Gradio runs unload events when a page's heartbeat ends; the app cancels that session's generations."""
    import time

    leaving = Client(client.src, verbose=False)
    leaving.submit(*_generate_args("Once upon a time", "temperature", max_new_tokens=256), api_name="/generate")
    deadline = time.monotonic() + 30
    while in_flight() == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert in_flight() == 1
    leaving.close()  # its heartbeat ends, as when a tab closes
    while in_flight() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert in_flight() == 0  # long before its 256 tokens (25 s at 0.1 s a step)


def test_generate_beam_shows_the_beams(client):
    text, beams, summary, raw = client.predict(*_generate_args("Once upon a time", "beam", sequences=2), api_name="/generate")
    assert raw["strategy"] == "beam" and len(raw["texts"]) == 2 and raw["beam_steps"]
    assert beams is not None and "stopped" in summary


def test_next_token_and_logit_lens(client):
    from bg_demo.ui import next_token_tab
    from bg_demo.ui.page import Shown

    plot, context, history, raw = client.predict("The cat", 0.8, 5, 1.0, 3, api_name="/next_token")
    assert context == "The cat" and raw["kept"] == 5 and raw["top_k"] == 5
    assert len(raw["candidates"]) == 20 and history["data"] == []
    # the page's picker lists the candidates on screen, read from the page's state
    picker = next_token_tab.choices(Shown(next_token_tab.show("The cat", 0.8, 5, 1.0, 3)))
    assert len(picker.choices) == 20 and picker.value == raw["candidates"][0]["token_id"]
    figure, note, lens = client.predict("The cat sat on the mat", api_name="/logit_lens")
    assert lens["layers"][0] == "embeddings" and len(lens["predictions"][-1]) == len(lens["tokens"])


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (dict(strategy="beam", sequences=5), "one sequence per beam"),
        (dict(prompt="word " * 1100), "the decoder reads at most 1024"),
    ],
)
def test_generate_refuses_what_it_cannot_do(client, overrides, message):
    prompt, strategy = overrides.pop("prompt", "Hello"), overrides.pop("strategy", "greedy")
    with pytest.raises(Exception, match=message):
        client.predict(*_generate_args(prompt, strategy, **overrides), api_name="/generate")


def test_attention_and_compare_endpoints(client):
    summary, tokens, raw = client.predict("The cat sat on the mat.", "decoder", api_name="/attention")
    assert raw["role"] == "decoder" and raw["attention_type"] == "causal"
    assert raw["shape"][2] == raw["shape"][3] == len(raw["tokens"]) == len(tokens)
    mask, future, both = client.predict("The cat sat on the mat.", api_name="/compare")
    assert max(both["decoder_future"]) == 0.0 and min(both["encoder_future"]) > 0.0


def test_pretraining_endpoints(client):
    tokens, targets, loss_text, raw = client.predict(
        "The quick brown fox jumps over the lazy dog.", 3, api_name="/mlm_corruption"
    )
    assert raw["seed"] == 3 and len(targets["data"]) == len(raw["targets"]) >= 1
    assert f"{raw['loss']:.3f}" in loss_text
    table, plot, raw = client.predict("My dog is cute.", "He likes playing.", api_name="/input_representation")
    assert [row[0] for row in table["data"]] == [row["token"] for row in raw["rows"]]
    table, plot, summary, raw = client.predict("The cat sat on the mat.", api_name="/causal_lm")
    assert len(table["data"]) == len(raw["steps"]) and f"{raw['perplexity']:.1f}" in summary


def test_pretraining_and_attention_refuse_bad_input(client):
    with pytest.raises(Exception, match="empty"):
        client.predict("   ", 0, api_name="/mlm_corruption")
    with pytest.raises(Exception, match="empty"):
        client.predict("", "encoder", api_name="/attention")


@pytest.mark.parametrize(
    ("args", "api_name", "target"),
    [
        (("The cat sat on the [MASK].", 1, 1, "last", "mean"), "/explain_fill_mask", "note.explain.mask"),
        (("I loved this movie.", "1", "0"), "/explain_classify", "note.explain.label"),
        (("The man went to the store.", "He bought milk.", "0", "mean"), "/explain_next_sentence", "note.explain.is_next"),
        (("The cat sat on the", None, "last", "mean"), "/explain_next_token", "note.explain.next"),
    ],
)
def test_explanations_through_the_api(client, args, api_name, target):
    plot, notes, raw = client.predict(*args, api_name=api_name)
    assert raw["target"]["key"] == target  # data: the plot's title words it
    assert len(raw["attention"]) == len(raw["integrated_gradients"]) == len(raw["tokens"])
    assert abs(raw["completeness_gap"]) < 1e-3
    assert f"ρ = {raw['spearman']:+.2f}" in notes
    (heatmap,) = json.loads(plot["plot"])["data"]
    assert heatmap["customdata"][2] == pytest.approx(raw["integrated_gradients"])


def test_an_explanation_links_to_the_attention_tab_at_its_layer_and_head(client):
    _, notes, raw = client.predict("The cat sat on the [MASK].", 1, 1, "1", "0", api_name="/explain_fill_mask")
    assert (raw["layer"], raw["head"]) == (1, 0)
    assert "?tab=attention&text=The+cat+sat+on+the+%5BMASK%5D.&role=encoder&layer=1&view=head&head=0&run=1" in notes


def test_an_explanation_refuses_a_layer_the_model_does_not_have(client):
    with pytest.raises(Exception, match="Layer must be between 0 and 1"):
        client.predict("I loved it.", "7", "mean", api_name="/explain_classify")


def test_entity_and_answer_explanations_through_the_api(client):
    text = "Apple Inc. was founded by Steve Jobs in Cupertino, California."
    _, _, raw = client.predict(text, "average", 1, "last", "mean", api_name="/explain_entity")
    assert raw["target"]["key"] == "note.explain.entity" and raw["positions"]
    context = "The Transformer was introduced in 2017 by Ashish Vaswani at Google."
    _, notes, raw = client.predict("Who introduced it?", context, "last", "mean", api_name="/explain_answer")
    assert raw["target"]["key"] in ("note.explain.answer", "note.explain.no_answer") and "ρ =" in notes
    assert "Attention tab" not in notes  # the Attention tab shows the encoder, not the QA model


def test_the_generation_explanation_reads_the_result_on_screen(client):
    *_, raw = client.predict(*_generate_args("Once upon a time", "greedy", max_new_tokens=4), api_name="/generate")
    _, notes, why = client.predict("Once upon a time", raw, 1, "last", "mean", api_name="/explain_generation")
    assert why["score"] == pytest.approx(raw["generated"][0][-1]["score"], rel=1e-4)
    assert "tab=attention" in notes and "role=decoder" in notes
    args = _generate_args("Once upon a time", "top_k", max_new_tokens=4, sequences=2, seed=3)
    *_, two = client.predict(*args, api_name="/generate")
    _, _, second = client.predict("Once upon a time", two, 2, "last", "mean", api_name="/explain_generation")
    assert second["score"] == pytest.approx(two["generated"][1][-1]["score"], rel=1e-4)
    with pytest.raises(Exception, match="between 1 and 2"):
        client.predict("Once upon a time", two, 3, "last", "mean", api_name="/explain_generation")
