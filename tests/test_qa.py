import numpy as np
import pytest
import torch

from bg_demo.backend import answer
from bg_demo.backend.qa import Prepared, _decode, best_spans
from bg_demo.errors import InputError
from bg_demo.tiny_models import corpus_lines
from tests.tolerance import tolerance

WINDOW, STRIDE, MAX_ANSWER = 384, 128, 30
SHORT = (
    "The Transformer was introduced in 2017 by Ashish Vaswani and colleagues at Google. "
    "It relies entirely on self-attention instead of recurrence."
)
LONG = " ".join(corpus_lines() * 3)  # well over one window


def brute_force_squad2(tiny_dir, question, context):
    """The reference: every window, every start <= end inside the context, at most 30 tokens, max
    start + end logit; no answer when the lowest [CLS] score over the windows beats the best span. Returns the number
    of windows, the answer, and each answer's score (None's: the [CLS] score)."""
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_dir / "qa")
    model = AutoModelForQuestionAnswering.from_pretrained(tiny_dir / "qa", dtype=torch.float32).eval()
    enc = tokenizer(
        question, context, truncation="only_second", max_length=WINDOW, stride=STRIDE,
        return_overflowing_tokens=True, return_offsets_mapping=True, padding="longest", return_tensors="pt",
    )
    offsets = enc.pop("offset_mapping").tolist()
    enc.pop("overflow_to_sample_mapping")
    with torch.no_grad():
        out = model(**enc)
    best, null, scores = None, float("inf"), {}
    for w in range(len(offsets)):
        seq = enc.sequence_ids(w)
        s, e = out.start_logits[w].tolist(), out.end_logits[w].tolist()
        null = min(null, s[0] + e[0])
        for i in range(len(seq)):
            for j in range(i, min(i + MAX_ANSWER, len(seq))):
                if seq[i] == 1 and seq[j] == 1:
                    text = context[offsets[w][i][0] : offsets[w][j][1]]
                    scores[text] = max(scores.get(text, -np.inf), s[i] + e[j])
                    if best is None or s[i] + e[j] > best[0]:
                        best = (s[i] + e[j], offsets[w][i][0], offsets[w][j][1])
    scores[None] = null
    return len(offsets), (None if best is None or null > best[0] else context[best[1] : best[2]]), scores


@pytest.mark.parity
@pytest.mark.parametrize(
    ("question", "context"),
    [
        ("Who introduced the Transformer?", SHORT),
        ("What does it rely on?", SHORT),
        ("Where is the company based?", LONG),
        ("Who wrote the paper?", LONG),
    ],
)
def test_equals_brute_force_squad2_decoding(question, context, tiny_dir):
    """The reference's answer, or in a reduced dtype one whose float32 score is a near tie with it (a score is two
    logits: twice `tie`; tests/tolerance.py)."""
    n_windows, expected, scores = brute_force_squad2(tiny_dir, question, context)
    result = answer(question, context)
    assert len(result.windows) == n_windows
    if result.answer != expected:
        gap = scores[expected] - scores.get(result.answer, -np.inf)
        assert gap <= 2 * tolerance("qa").tie, (result.answer, expected, gap)
    if result.answer is not None:
        assert result.answer == context[result.start : result.end]
        assert result.alternatives[0].text == result.answer


def test_offsets_index_the_callers_context():
    context = "\n\n  " + SHORT
    result = answer("Who introduced the Transformer?", context)
    for span in result.alternatives:
        assert span.text == context[span.start : span.end]
    assert result.context == context


def test_long_context_is_windowed_not_refused():
    result = answer("Who wrote the paper?", LONG)
    assert len(result.windows) > 2
    assert result.windows[0][0] < result.windows[1][0] < result.windows[0][1]  # neighbours overlap
    assert result.windows[-1][1] == len(LONG.rstrip())
    logits = [span.logit for span in result.alternatives]
    assert logits == sorted(logits, reverse=True)
    assert len({(s.start, s.end) for s in result.alternatives}) == len(result.alternatives)


def test_best_spans_respects_order_context_and_length():
    start = np.array([9.0, 1.0, 5.0, 0.0, 8.0])
    end = np.array([9.0, 0.0, 0.0, 4.0, 0.0])
    in_context = np.array([False, True, True, True, True])
    assert best_spans(start, end, in_context, max_tokens=2, n=3) == [(2, 3, 9.0), (4, 4, 8.0), (2, 2, 5.0)]
    assert best_spans(start, end, in_context, max_tokens=30, n=1) == [(2, 3, 9.0)]  # (4, 3) would end first


def _decode_one(cls_score):
    start = np.array([[cls_score, -5.0, 3.0, 0.0]])
    end = np.array([[cls_score, -5.0, 0.0, 2.0]])
    in_context = np.array([[False, False, True, True]])
    offsets = [[(0, 0), (0, 0), (0, 5), (6, 9)]]
    return _decode(Prepared("q?", "Hello you", {}, offsets, in_context, []), start, end, 3, "m")


def test_null_and_span_decisions():
    answered = _decode_one(cls_score=2.0)  # null 4.0 < best span 5.0 ("Hello you")
    assert (answered.answer, answered.start, answered.end) == ("Hello you", 0, 9)
    silent = _decode_one(cls_score=3.0)  # null 6.0 > 5.0
    assert silent.answer is None and silent.start is None
    assert silent.alternatives[0].text == "Hello you"  # the rejected best span is still reported
    assert 0.0 < silent.score <= 1.0


def test_a_window_without_the_answer_does_not_silence_another():
    start = np.array([[0.0, 3.0, 0.0], [5.0, 0.0, 0.0]])  # window 1 is sure there is no answer...
    end = np.array([[0.0, 2.0, 0.0], [5.0, 0.0, 0.0]])
    in_context = np.array([[False, True, True], [False, True, True]])
    offsets = [[(0, 0), (0, 5), (6, 9)], [(0, 0), (6, 9), (10, 13)]]
    result = _decode(Prepared("q?", "Hello you all", {}, offsets, in_context, []), start, end, 3, "m")
    assert result.answer == "Hello" and result.null_logit == 0.0  # ...but window 0 found a span


@pytest.mark.parametrize(
    ("question", "context", "message"),
    [
        ("", SHORT, "question is empty"),
        ("Who?", " ", "context is empty"),
        ("word " * 300, SHORT, "question makes"),
        ("Who?", "x " * 12000, "limit is 20,000"),
        ("Who?", "\u200b\u200b", "no words the model can read"),
    ],
)
def test_bad_input_says_what_to_change(question, context, message):
    with pytest.raises(InputError, match=message):
        answer(question, context)


@pytest.mark.worker_side  # the windows' batches and the device's turn, where a GPU worker runs them
def test_a_long_context_lets_a_waiting_request_go_between_its_batches(monkeypatch):
    import threading

    from bg_demo import backend, models
    from bg_demo.backend import qa

    passes, real, answered = [], qa.forward, []

    def slow(model, inputs):
        passes.append(len(inputs["input_ids"]))
        threading.Event().wait(0.05)
        return real(model, inputs)

    monkeypatch.setattr(qa, "forward", slow)
    monkeypatch.setattr(qa, "WINDOWS_PER_BATCH", 1)
    backend.classify("warm up")
    context = "The museum opened in 1901 and holds many paintings. " * 120
    reading = threading.Thread(target=lambda: backend.answer("When did it open?", context))
    reading.start()
    while len(passes) < 2:
        threading.Event().wait(0.005)
    backend.classify("I loved this movie.")
    answered.append(len(passes))
    reading.join(timeout=120)
    assert models.get("qa") and answered[0] < len(passes) - 3  # answered while the windows were still being read
