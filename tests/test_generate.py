"""Generation equals transformers' own `generate` on the tiny decoder, streams, and keeps its limits."""

import threading

import pytest
import torch

from bg_demo import config, figures, models, text
from bg_demo.backend.generation import generate, generate_stream
from bg_demo.backend.generation.types import GenerationResult, TokenInfo
from bg_demo.errors import InputError
from bg_demo.tokens import readable_text
from bg_demo.ui import generate_tab

PROMPTS = ["Once upon a time in a distant galaxy,", "Artificial intelligence is transforming the world by"]


def decoded_by_generate(folder):
    """transformers' own `generate` on the model in `folder`, each continuation as the backend contract gives it:
    tokenizer.decode(new ids, skip_special_tokens=True)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()

    def texts(prompt, seed=None, **kwargs):
        enc = tokenizer(prompt, return_tensors="pt")
        if seed is not None:
            torch.manual_seed(seed)
        out = model.generate(**enc, pad_token_id=tokenizer.eos_token_id, **kwargs)
        return tuple(tokenizer.decode(row, skip_special_tokens=True) for row in out[:, enc["input_ids"].shape[1] :])

    return texts


@pytest.fixture(scope="module")
def reference(tiny_dir):
    return decoded_by_generate(tiny_dir / "decoder")


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_equals_generate(prompt, reference):
    ours = generate(prompt, "greedy", max_new_tokens=20)
    assert ours.texts == reference(prompt, max_new_tokens=20, do_sample=False)
    assert ours.seed is None and ours.done


def test_greedy_with_repetition_controls_equals_generate(reference):
    ours = generate(PROMPTS[0], "greedy", max_new_tokens=30, no_repeat_ngram_size=2, repetition_penalty=1.3)
    expected = reference(PROMPTS[0], max_new_tokens=30, do_sample=False, no_repeat_ngram_size=2, repetition_penalty=1.3)
    assert ours.texts == expected
    assert ours.texts != generate(PROMPTS[0], "greedy", max_new_tokens=30).texts  # the controls change the text


@pytest.mark.parametrize("prompt", PROMPTS)
def test_beam_equals_generate(prompt, reference):
    ours = generate(prompt, "beam", max_new_tokens=12, num_beams=4, num_return_sequences=3)
    assert ours.texts == reference(prompt, max_new_tokens=12, do_sample=False, num_beams=4, num_return_sequences=3)


@pytest.mark.parametrize(
    ("strategy", "settings", "expected"),
    [
        ("temperature", dict(temperature=0.7), dict(temperature=0.7, top_k=0, top_p=1.0)),
        ("top_k", dict(top_k=5, temperature=1.3), dict(top_k=5, temperature=1.3, top_p=1.0)),
        ("top_p", dict(top_p=0.8), dict(top_p=0.8, top_k=0, temperature=1.0)),
    ],
)
def test_seeded_sampling_equals_generate_and_repeats(strategy, settings, expected, reference):
    ours = generate(PROMPTS[1], strategy, max_new_tokens=15, seed=1234, num_return_sequences=2, **settings)
    theirs = reference(PROMPTS[1], seed=1234, max_new_tokens=15, do_sample=True, num_return_sequences=2, **expected)
    assert ours.texts == theirs
    assert generate(PROMPTS[1], strategy, max_new_tokens=15, seed=1234, num_return_sequences=2, **settings).texts == ours.texts
    other = generate(PROMPTS[1], strategy, max_new_tokens=15, seed=4321, num_return_sequences=2, **settings)
    assert other.texts != ours.texts


# (strategy, settings, the same as generate's arguments): each continuation cuts a character, so decode writes U+FFFD
CUT = [
    ("greedy", dict(max_new_tokens=12), dict(max_new_tokens=12, do_sample=False)),  # "…stands\ufffd step…"
    ("beam", dict(max_new_tokens=12, num_beams=4, num_return_sequences=3),
     dict(max_new_tokens=12, do_sample=False, num_beams=4, num_return_sequences=3)),
    ("temperature", dict(max_new_tokens=12, seed=1234, num_return_sequences=2),
     dict(max_new_tokens=12, seed=1234, do_sample=True, top_k=0, num_return_sequences=2)),
]


@pytest.mark.parametrize(("strategy", "settings", "theirs"), CUT)
def test_texts_are_the_decoded_ids_even_where_a_character_is_cut(strategy, settings, theirs, reference):
    """`texts` is data: exactly what decode gives, U+FFFD included; the readable form is in the labels."""
    expected = reference(PROMPTS[1], **theirs)
    assert all("\ufffd" in text for text in expected)  # the case in question: a byte with no character
    ours = generate(PROMPTS[1], strategy, **settings)
    assert ours.texts == expected
    for i in range(len(ours.texts)):  # the Generate tab shows each token's label: the byte, in hex
        shown = figures.token_probability_html(ours, i)
        assert "\ufffd" not in shown and "[0x" in shown
        link = generate_tab.written(PROMPTS[1], ours.to_dict(), i + 1)  # the Attention tab's text: whole characters
        assert "\ufffd" not in link and "[0x" not in link and link.startswith(PROMPTS[1])


def test_gpt2_texts_are_the_decoded_ids_even_where_a_character_is_cut(hub_models, monkeypatch):
    """The same with GPT-2's own byte-level BPE (a tiny stand-in): a sampled continuation holding a lone byte."""
    folder = hub_models["openai-community/gpt2"]
    monkeypatch.setenv("BG_DEMO_DECODER", str(folder))
    config.settings.cache_clear()
    expected = decoded_by_generate(folder)("나는 학생입니다", seed=8, max_new_tokens=20, do_sample=True, top_k=0)
    assert "\ufffd" in expected[0]
    assert generate("나는 학생입니다", "temperature", max_new_tokens=20, seed=8).texts == expected


def test_a_drawn_seed_is_reported_and_reproduces():
    first = generate(PROMPTS[0], "top_p", max_new_tokens=10)
    assert isinstance(first.seed, int)
    assert generate(PROMPTS[0], "top_p", max_new_tokens=10, seed=first.seed).texts == first.texts


def test_empty_prompt_starts_from_beginning_of_text():
    result = generate("", "greedy", max_new_tokens=5)
    assert result.prompt == "" and len(result.generated[0]) == 5


def test_token_probabilities_and_ranks_match_the_model(tiny_dir):
    result = generate(PROMPTS[0], "greedy", max_new_tokens=8)
    loaded = models.get("decoder")
    prompt = loaded.tokenizer(PROMPTS[0])["input_ids"]
    ids = prompt + [token.token_id for token in result.generated[0]]
    with torch.no_grad():
        probs = loaded.model(torch.tensor([ids])).logits[0].softmax(-1)
    for i, token in enumerate(result.generated[0]):
        assert token.score == pytest.approx(float(probs[len(prompt) - 1 + i, token.token_id]), abs=1e-5)
        assert token.rank == 1  # greedy always takes the most likely token
    assert "Ġ" not in "".join(token.token for token in result.generated[0])


def test_beam_view_keeps_num_beams_per_step_best_first():
    result = generate(PROMPTS[0], "beam", max_new_tokens=6, num_beams=3)
    assert [step.step for step in result.beam_steps] == list(range(1, len(result.beam_steps) + 1))
    assert len(result.beam_steps) >= 4
    for step in result.beam_steps:
        scores = [score for _, score in step.beams]
        assert len(step.beams) == 3 and scores == sorted(scores, reverse=True) and max(scores) < 0


def test_stream_grows_and_is_coloured_as_it_goes_then_ends_with_the_full_result():
    updates = list(generate_stream(PROMPTS[0], "top_k", seed=7, max_new_tokens=12, top_k=20))
    partial, final = updates[:-1], updates[-1]
    assert partial and not any(update.done for update in partial)
    for before, after in zip(updates, updates[1:]):
        assert after.texts[0].startswith(before.texts[0]) and after.n_tokens >= before.n_tokens
        assert after.generated[0][: before.n_tokens] == before.generated[0]  # tokens arrive with their probability
    assert final.done and final.stopped in {"max new tokens", "end of text"}
    assert final.texts == generate(PROMPTS[0], "top_k", max_new_tokens=12, top_k=20, seed=7).texts


def test_stream_advanced_from_different_threads():
    """Gradio may run each step of a generator on whichever worker thread is free."""
    stream, updates = generate_stream(PROMPTS[0], "greedy", max_new_tokens=4), []
    while not updates or not updates[-1].done:
        worker = threading.Thread(target=lambda: updates.append(next(stream)))
        worker.start()
        worker.join(timeout=60)
        assert not worker.is_alive()
    assert generate(PROMPTS[0], "greedy", max_new_tokens=2).done  # nothing was left holding the model


def test_beam_tokens_carry_the_models_probabilities(tiny_dir):
    result = generate(PROMPTS[1], "beam", max_new_tokens=8, num_beams=3, num_return_sequences=2)
    loaded = models.get("decoder")
    prompt = loaded.tokenizer(PROMPTS[1])["input_ids"]
    for tokens in result.generated:
        ids = prompt + [token.token_id for token in tokens]
        with torch.no_grad():
            probs = loaded.model(torch.tensor([ids])).logits[0].softmax(-1)
        for i, token in enumerate(tokens):
            step = probs[len(prompt) - 1 + i]
            assert token.score == pytest.approx(float(step[token.token_id]), abs=1e-5)
            assert token.rank == int((step > step[token.token_id]).sum()) + 1


def test_beam_view_scores_equal_generates_transition_scores(tiny_dir):
    """Every prefix of a returned beam is in the view at its step, with the sum of generate's own
    transition scores for its tokens as its cumulative log-probability."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_dir / "decoder")
    model = AutoModelForCausalLM.from_pretrained(tiny_dir / "decoder").eval()
    enc = tokenizer(PROMPTS[0], return_tensors="pt")
    out = model.generate(
        **enc, max_new_tokens=6, num_beams=3, num_return_sequences=3, do_sample=False, output_scores=True,
        return_dict_in_generate=True, pad_token_id=tokenizer.eos_token_id,
    )
    transitions = model.compute_transition_scores(out.sequences, out.scores, out.beam_indices, normalize_logits=False)
    ours = generate(PROMPTS[0], "beam", max_new_tokens=6, num_beams=3, num_return_sequences=3)
    prompt_length = enc["input_ids"].shape[1]
    checked = 0
    for sequence, scores in zip(out.sequences[:, prompt_length:].tolist(), transitions.tolist()):
        total = 0.0
        for step in range(1, len(sequence)):
            total += scores[step - 1]
            beams = dict(ours.beam_steps[step - 1].beams)
            prefix = readable_text(tokenizer, sequence[:step])
            assert beams[prefix] == pytest.approx(total, abs=1e-4)
            checked += 1
    assert checked >= 9
    best_length = len(ours.generated[0])
    best = sum(transitions[0].tolist()[:best_length]) / best_length  # generate's length penalty is 1
    assert best == pytest.approx(float(out.sequences_scores[0]), abs=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(strategy="creative"), "Pick one of: greedy"),
        (dict(max_new_tokens=257), "between 1 and 256"),
        (dict(strategy="beam", num_beams=9), "between 2 and 8"),
        (dict(strategy="top_p", num_return_sequences=6), "between 1 and 5"),
        (dict(strategy="beam", num_beams=2, num_return_sequences=3), "one sequence per beam"),
        (dict(num_return_sequences=2), "Greedy decoding always gives the same text"),
        (dict(strategy="temperature", temperature=0), "between 0.05 and 5"),
        (dict(strategy="top_p", top_p=1.5), "between 0.01 and 1"),
        (dict(prompt="word " * 900, max_new_tokens=200), "at most 1024"),
        (dict(prompt="x" * 6001), "limit is 6,000"),
    ],
)
def test_bad_settings_say_what_to_change(kwargs, message):
    kwargs = {"prompt": PROMPTS[0], **kwargs}
    with pytest.raises(InputError, match=message):
        generate(**kwargs)


def _result(lengths, done=True, stopped="max new tokens", seconds=2.0, waiting=0) -> GenerationResult:
    token = TokenInfo("a", 1, 0.5, 1)
    generated = tuple((token,) * n for n in lengths)
    return GenerationResult("Once", "top_p", ("a",) * len(lengths), generated, (), None, {}, seconds, done,
                            stopped if done else "", "decoder", waiting)


@pytest.mark.parametrize(
    ("result", "status"),
    [
        (_result([40]), "40 new tokens in 2.0 s (20.0 tokens/s) · stopped at the new-token limit"),
        (_result([1]), "1 new token in 2.0 s (0.5 tokens/s) · stopped at the new-token limit"),
        # several sequences: how many, and the new tokens of each, not their sum as if it were one text
        (_result([60, 60, 60]), "3 sequences × 60 new tokens in 2.0 s (90.0 tokens/s in all) · stopped at the new-token limit"),
        (_result([41, 60, 60], stopped="end of text"),
         "3 sequences × 41–60 new tokens in 2.0 s (80.5 tokens/s in all) · stopped at the end-of-text token"),
        (_result([1, 1]), "2 sequences × 1 new token in 2.0 s (1.0 tokens/s in all) · stopped at the new-token limit"),
        (_result([15, 15, 15], stopped="stopped"),
         "3 sequences × 15 new tokens in 2.0 s (22.5 tokens/s in all) · stopped after 15 tokens (Stop pressed)"),
        (_result([1], stopped="stopped"), "1 new token in 2.0 s (0.5 tokens/s) · stopped after 1 token (Stop pressed)"),
        (_result([1], done=False), "writing… 1 new token so far"),
        (_result([5, 5], done=False), "writing… 2 sequences × 5 new tokens so far"),
        (_result([], done=False, waiting=1), "waiting for a free place: 1 request ahead of yours…"),
        (_result([], done=False, waiting=3), "waiting for a free place: 3 requests ahead of yours…"),
    ],
)
def test_the_status_says_what_it_counts(result, status):
    with text.use("en"):
        assert generate_tab.status(result) == status


def test_the_status_counts_sequences_in_korean_and_japanese_too():
    three = _result([60, 60, 60])
    with text.use("ko"):
        assert generate_tab.status(three).startswith("시퀀스 3개 × 새 토큰 60개, 2.0초")
    with text.use("ja"):
        assert generate_tab.status(three).startswith("3 系列 × 新しいトークン 60 個、2.0 秒")


def test_new_tokens_out_of_range_are_refused_not_brought_back_within_it(browser, app_url):
    """0, −3 and 100000 typed into New tokens: each refused beside the output with the allowed range, never
    quietly changed into a number within it (as a slider's box does when it loses focus)."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{app_url}?tab=generate")
    page.get_by_label("Prompt (empty = start").fill("Once upon a time")
    box = page.get_by_label("New tokens").first
    for typed in ("100000", "0", "-3"):
        box.fill(typed)
        page.get_by_role("button", name="Generate", exact=True).click()
        message = f"⚠️ New tokens must be between 1 and {config.LIMITS.max_new_tokens}; got {typed}."
        expect(page.locator(".block.bg-error").filter(visible=True)).to_have_text(message, timeout=30_000)
        expect(box).to_have_value(typed)
    expect(page.locator(".toast-body")).to_have_count(0)
    page.close()
