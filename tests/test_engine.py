"""The decoding engine under a class: batched requests get what they would get alone, join and leave
mid-way, and a cancel never waits on the model."""

import asyncio
import dataclasses
import threading
import time

import pytest

from bg_demo import models
from bg_demo.backend.generation import GenerationSettings, beam, engine, generate, submit
from bg_demo.config import LIMITS
from bg_demo.models import DeviceTurn
from tests.tolerance import tolerance

PROMPTS = ["Once upon a time in a distant galaxy,", "Artificial intelligence is", "The cat sat on the mat and"]
MIXED = [
    dict(strategy="greedy", max_new_tokens=14),
    dict(strategy="temperature", temperature=0.8, seed=11, max_new_tokens=9),
    dict(strategy="top_k", top_k=5, seed=12, max_new_tokens=17, num_return_sequences=2),
    dict(strategy="top_p", top_p=0.7, seed=13, max_new_tokens=12),
    dict(strategy="greedy", max_new_tokens=20, no_repeat_ngram_size=2, repetition_penalty=1.4),
    dict(strategy="temperature", temperature=1.5, seed=14, max_new_tokens=6, repetition_penalty=1.2),
]


pytestmark = pytest.mark.worker_side  # the engine itself, which on ZeroGPU runs inside the GPU worker


def finish(handle):
    *_, final = handle
    return final


def run_together(jobs):
    """Submit every (prompt, settings) at once and collect the finished results, each read in its own thread."""
    handles = [submit(prompt, GenerationSettings(**settings)) for prompt, settings in jobs]
    results = [None] * len(handles)

    def read(i):
        results[i] = finish(handles[i])

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(handles))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def wait_until(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def running_rows():
    return engine.engine_for(models.get("decoder")).rows


@pytest.mark.parity
def test_mixed_concurrent_requests_get_what_they_get_alone():
    """The same tokens; their probabilities within the dtype's tolerance (a batch's padded rows round otherwise)."""
    tol = tolerance("decoder")
    jobs = [(PROMPTS[i % 3], settings) for i, settings in enumerate(MIXED * 2)]
    alone = [generate(prompt, **settings) for prompt, settings in jobs]
    together = run_together(jobs)
    assert [r.texts for r in together] == [r.texts for r in alone]
    for mine, theirs in zip(together, alone):
        for a, b in zip(mine.generated, theirs.generated):
            assert [t.token_id for t in a] == [t.token_id for t in b]
            assert [t.score for t in a] == pytest.approx([t.score for t in b], abs=tol.probability)
    assert running_rows() == 0  # everyone left the batch


@pytest.mark.parity
def test_a_seeded_sample_among_eight_others_is_the_same_sample():
    mine = dict(strategy="top_p", top_p=0.9, temperature=1.2, seed=2024, max_new_tokens=15)
    alone = generate(PROMPTS[0], **mine)
    others = [(PROMPTS[i % 3], dict(strategy="temperature", seed=i, max_new_tokens=5 + 2 * i)) for i in range(8)]
    together = run_together([*others[:4], (PROMPTS[0], mine), *others[4:]])
    assert together[4].texts == alone.texts and together[4].seed == 2024


def test_a_late_request_joins_mid_way_and_leaves_as_soon_as_it_is_done():
    long = submit(PROMPTS[0], GenerationSettings("temperature", max_new_tokens=200, seed=5))
    stream = iter(long)
    first = next(stream)
    batch = engine.engine_for(models.get("decoder"))._batch  # the batch's cache: static buffers, written in place
    assert type(batch).__name__ == "StaticBatch" and batch.rows == 1
    short = finish(submit(PROMPTS[1], GenerationSettings("greedy", max_new_tokens=5)))
    later = next(stream)
    assert short.done and short.texts == generate(PROMPTS[1], "greedy", max_new_tokens=5).texts
    assert not later.done and later.n_tokens < 200  # it ran beside the long one, not after it
    assert later.n_tokens > first.n_tokens
    long.cancel()
    final = finish(stream)
    assert final.stopped == "stopped" and final.n_tokens < 200


def test_closing_a_stream_cancels_without_waiting_for_the_model():
    loaded = models.get("decoder")
    handle = submit(PROMPTS[0], GenerationSettings("temperature", max_new_tokens=200, seed=3))
    stream = iter(handle)
    next(stream)
    holder_has_turn, release = threading.Event(), threading.Event()

    def hold_the_device():
        with loaded.use():
            holder_has_turn.set()
            release.wait(30)

    holder = threading.Thread(target=hold_the_device)
    holder.start()
    holder_has_turn.wait(10)
    closer = threading.Thread(target=stream.close)  # what Gradio does on its event loop when a tab closes
    closer.start()
    closer.join(timeout=5)
    assert not closer.is_alive() and handle.cancelled.is_set()  # it returned while the model was busy
    release.set()
    holder.join(timeout=10)
    wait_until(lambda: running_rows() == 0)


def test_cancelling_an_async_consumer_cancels_the_request():
    handle = submit(PROMPTS[2], GenerationSettings("top_k", max_new_tokens=200, seed=9))
    seen = []

    async def consume():
        async for update in handle:
            seen.append(update)

    async def main():
        task = asyncio.create_task(consume())
        while not seen and not task.done():  # a request that failed ends the consumer: it raises below
            await asyncio.sleep(0.005)
        task.cancel()  # what Gradio does on Stop, a closed tab or an API cancel
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert handle.cancelled.is_set()
    wait_until(lambda: running_rows() == 0)


def test_a_cancelled_beam_search_stops_at_its_next_step_with_its_best_beam():
    handle = submit(PROMPTS[0], GenerationSettings("beam", max_new_tokens=250, num_beams=4, num_return_sequences=2))
    stream = iter(handle)
    partial = next(stream)
    assert not partial.done and partial.beam_steps
    handle.cancel()
    final = finish(stream)
    assert final.done and final.stopped == "stopped"
    assert len(final.beam_steps) < 250 and len(final.texts) == 2
    assert all(len(tokens) == len(final.beam_steps) for tokens in final.generated)  # the running beams, coloured
    assert generate(PROMPTS[1], "greedy", max_new_tokens=3).done


@pytest.mark.parametrize("settings", [dict(strategy="greedy"), dict(strategy="beam", num_beams=2)])
def test_the_time_budget_counts_from_the_start(monkeypatch, settings):
    quick = dataclasses.replace(LIMITS, generation_seconds=0.0)
    monkeypatch.setattr(engine, "LIMITS", quick)
    monkeypatch.setattr(beam, "LIMITS", quick)
    result = generate(PROMPTS[0], max_new_tokens=50, **settings)
    assert result.stopped == "time budget" and result.n_tokens < 50 * len(result.texts)


def test_device_turns_are_served_in_arrival_order_and_pause_hands_over():
    turn, order = DeviceTurn(), []
    turn.acquire()
    threads = []
    for name in "abc":
        threads.append(threading.Thread(target=lambda name=name: (turn.acquire(), order.append(name), turn.release())))
        threads[-1].start()
        wait_until(lambda n=len(threads): turn.waiting == n)
    turn.acquire()  # re-entrant
    turn.pause()  # every waiter goes first, then this thread has its turn back, as deep as before
    order.append("holder")
    turn.release()
    turn.release()
    for thread in threads:
        thread.join(timeout=5)
    assert order == ["a", "b", "c", "holder"]
    with pytest.raises(RuntimeError):
        turn.release()


def test_a_request_beyond_the_batch_waits_its_turn_and_can_leave_while_waiting(monkeypatch):
    loaded = models.get("decoder")
    decoding = engine.engine_for(loaded)
    monkeypatch.setattr(decoding, "max_rows", 2)
    first = submit(PROMPTS[0], GenerationSettings("top_k", max_new_tokens=200, seed=1, num_return_sequences=2))
    next(iter(first))
    waiting = submit(PROMPTS[1], GenerationSettings("greedy", max_new_tokens=5))
    stream = iter(waiting)
    update = next(stream)
    assert update.waiting == 1 and not update.done and update.n_tokens == 0
    leaving = submit(PROMPTS[2], GenerationSettings("greedy", max_new_tokens=5))
    leaving.cancel()
    first.cancel()
    assert finish(stream).texts == generate(PROMPTS[1], "greedy", max_new_tokens=5).texts  # it ran once rows were free
    gone = finish(leaving)
    assert gone.done and gone.stopped == "stopped" and gone.n_tokens == 0


def test_a_failing_step_fails_its_requests_and_the_engine_goes_on(monkeypatch):
    step, calls = engine.DecodingEngine._step, []

    def broken(self):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("out of memory")
        step(self)

    monkeypatch.setattr(engine.DecodingEngine, "_step", broken)
    with pytest.raises(RuntimeError, match="out of memory"):
        generate(PROMPTS[0], "greedy", max_new_tokens=10)
    assert running_rows() == 0
    after = generate(PROMPTS[0], "greedy", max_new_tokens=10)
    assert after.done and after.n_tokens == 10 and running_rows() == 0


def test_a_batch_turn_alternates_with_single_requests_instead_of_queueing_behind_all():
    turn, order = DeviceTurn(), []
    turn.acquire()
    threads = []
    for name, batch in (("a", False), ("b", False), ("engine", True), ("c", False)):
        def take(name=name, batch=batch):
            turn.acquire(batch=batch)
            order.append(name)
            turn.release()

        threads.append(threading.Thread(target=take))
        threads[-1].start()
        wait_until(lambda n=len(threads): turn.waiting == n)
    turn.release()
    for thread in threads:
        thread.join(timeout=5)
    assert order == ["engine", "a", "b", "c"]  # after a single request the waiting batch goes first



def _waiting(decoding, *requests):
    from bg_demo.backend.generation import Request
    from bg_demo.backend.generation.engine import Handle

    for client, n in requests:
        settings = GenerationSettings("top_k", max_new_tokens=30, num_return_sequences=n, seed=1)
        decoding._pending.append((Request.of("Once upon a time", settings, client=client), Handle()))


def test_one_client_cannot_take_the_batch_from_another():
    """Ten 5-sequence requests of one script, then one request of a student: the student is admitted in the first
    turn, and the script gets more than its share only while rows stay free for whoever comes next."""
    decoding = engine.DecodingEngine(models.get("decoder"), max_rows=32)
    _waiting(decoding, *[("script", 5)] * 10, ("student", 1))
    admitted = decoding._admissible()
    clients = [request.client for request, _ in admitted]
    assert clients[:2] == ["script", "student"]  # in turns: the student's request is in the first turn
    rows = sum(request.settings.num_return_sequences for request, _ in admitted)
    assert 32 - rows >= LIMITS.client_rows  # past its share, the script leaves room for the next student


def test_clients_are_admitted_in_turns_and_room_goes_first_come_first_served():
    decoding = engine.DecodingEngine(models.get("decoder"), max_rows=8)
    _waiting(decoding, ("a", 1), ("a", 1), ("a", 1), ("b", 1), ("c", 5), ("b", 1))
    admitted = [request.client for request, _ in decoding._admissible()]
    assert admitted == ["a", "b", "c", "a"]  # one each per turn; then "a" again fills the last row (8 of 8)
    decoding = engine.DecodingEngine(models.get("decoder"), max_rows=6)
    _waiting(decoding, ("a", 1), ("b", 1), ("c", 5), ("d", 1))
    admitted = [request.client for request, _ in decoding._admissible()]
    assert admitted == ["a", "b"]  # c does not fit (6 rows): d may not overtake it


def test_a_client_alone_may_use_more_than_its_share_but_not_the_last_rows():
    decoding = engine.DecodingEngine(models.get("decoder"), max_rows=32)
    _waiting(decoding, *[("script", 5)] * 6)
    assert len(decoding._admissible()) == 4  # 20 rows; 10 stay free for whoever comes next


def test_a_pause_between_updates_ends_when_the_request_ends_and_not_before():
    """The page shows a few updates a second (`Handle.pause` between them); the final update, or an error, ends the
    pause at once, so a result is never held back by it. A pause taken after the end does not wait at all."""
    import types

    from bg_demo.backend.generation.engine import Handle

    async def paused(handle, seconds, *puts):
        loop = asyncio.get_running_loop()
        for delay, update in puts:
            loop.call_later(delay, handle.put, update)
        started = time.perf_counter()
        await handle.pause(seconds)
        return time.perf_counter() - started

    step, final = types.SimpleNamespace(done=False), types.SimpleNamespace(done=True)
    assert asyncio.run(paused(Handle(), 10.0, (0.05, step), (0.1, final))) < 5.0
    assert asyncio.run(paused(Handle(), 10.0, (0.05, RuntimeError("the model failed")))) < 5.0
    assert asyncio.run(paused(Handle(), 0.3, (0.05, step))) >= 0.29  # an update on the way does not end it
    ended = Handle()
    ended.put(final)
    assert asyncio.run(paused(ended, 10.0)) < 5.0


def test_requests_the_engine_cannot_admit_get_the_error_and_the_engine_goes_on(monkeypatch):
    """A failure between taking requests off the waiting list and running them (here the device's turn refused, as
    a process without the device refuses it) reaches each of them: none is left waiting for ever."""
    from contextlib import contextmanager

    loaded = models.get("decoder")

    @contextmanager
    def refused(**_):
        raise RuntimeError("the device refused the turn")
        yield  # never reached: a context manager that fails on entry

    monkeypatch.setattr(loaded, "use", refused)
    handles = [submit(prompt, GenerationSettings("greedy", max_new_tokens=4)) for prompt in PROMPTS]
    errors = []

    def read(handle):
        try:
            finish(handle)
        except RuntimeError as error:
            errors.append(str(error))

    readers = [threading.Thread(target=read, args=(handle,), daemon=True) for handle in handles]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(timeout=20)
    assert errors == ["the device refused the turn"] * len(handles)
    monkeypatch.undo()
    assert finish(submit(PROMPTS[0], GenerationSettings("greedy", max_new_tokens=4))).done  # the engine lives on


def test_a_step_pads_finished_rows_and_picks_each_requests_own_token():
    """`DecodingEngine._choose` on a hand-made step: plain greedy rows take the batch's best tokens, a request
    with processors (a repetition penalty) its own, and a row that has made its end-of-text token goes on with it
    (padding, as `generate` pads), whatever its logits say; each kept token's probability and rank are recorded."""
    import torch

    from bg_demo.backend.generation.types import Request

    loaded = models.get("decoder")
    tokenizer, eos = loaded.tokenizer, loaded.tokenizer.eos_token_id
    greedy, penalised = GenerationSettings("greedy", 5), GenerationSettings("greedy", 5, repetition_penalty=2.0)

    def running(settings, ids, unfinished):
        return engine._Running(Request.of("x", settings), None, None, torch.tensor(ids), engine.logits_processors(settings),
                               None, time.monotonic(), torch.tensor(unfinished), engine.Tokens(len(ids), tokenizer))

    plain = running(greedy, [[5, 6], [7, 8]], [1, 0])  # its second row has finished
    penalty = running(penalised, [[9, 9]], [1])  # token 9 is the best, but already said twice
    logits = torch.full((3, tokenizer.vocab_size), -5.0)
    logits[0, 9], logits[0, 13] = 3.0, 2.0  # halved by the penalty, 9 falls below 13
    logits[1, 11] = logits[2, 12] = 3.0
    lse = logits.logsumexp(-1)
    top, best = logits.max(-1)
    picked = engine.DecodingEngine._choose(None, [penalty, plain], logits, best, (top - lse).exp(), lse, tokenizer)
    assert picked.tolist() == [13, 11, eos]
    plain_rows, penalty_rows = plain.tokens.upto(1), penalty.tokens.upto(1)  # as the consumer reads them
    assert [[t.token_id for t in row] for row in plain_rows] == [[11], []]  # the finished row records nothing
    assert [t.token_id for t in penalty_rows[0]] == [13] and penalty_rows[0][0].rank == 2
    assert penalty_rows[0][0].score == pytest.approx(float((logits[0, 13] - lse[0]).exp()))
    assert plain.unfinished.tolist() == [1, 0] and plain.running_rows == [True, False]
    assert penalty.ids.tolist() == [[9, 9, 13]]  # what its processors read next
    assert plain.ids.tolist() == [[5, 6], [7, 8]]  # no processor reads a greedy request's history: not kept up


@pytest.mark.parametrize("shaped", [False, True], ids=["uncaptured", "as-a-graph-runs"])
def test_the_static_batch_moves_grows_and_compacts_its_columns_and_keeps_generates_tokens(shaped, monkeypatch):
    """`static.StaticBatch`: a long generation outgrows the first buffers (64 columns, then 128, then 256); a prompt
    longer than the columns before the step's joins (the running rows move right); another leaves mid-batch (the
    rows behind it move to the front); a row that joins after a long one left finds the columns compacted. Every
    request's tokens stay `generate`'s, also when each step runs at a CUDA graph's shapes (`shaped`: the rows of a
    power-of-two bucket, the spare ones padding rows; the window from column 0 to a power of two), eagerly here."""
    from bg_demo.backend.generation import static

    if shaped:
        made = static.StaticBatch.__init__

        def shaped_init(self, *args, **kwargs):
            made(self, *args, **kwargs)
            self.buckets = True

        monkeypatch.setattr(static.StaticBatch, "__init__", shaped_init)
        engine.engine_for(models.get("decoder"))._batch = None  # made again, shaped

    grown, moved = [], []
    original_allocate, original_move = static.StaticBatch._allocate, static.StaticBatch._move
    monkeypatch.setattr(static.StaticBatch, "_allocate",
                        lambda self, keys, capacity, length: grown.append(length) or original_allocate(
                            self, keys, capacity, length))
    monkeypatch.setattr(static.StaticBatch, "_move", lambda self, to: moved.append((self.column, to)) or
                        original_move(self, to))
    long_prompt = " ".join(PROMPTS) * 2
    long = submit(PROMPTS[2], GenerationSettings("greedy", max_new_tokens=150))
    stream = iter(long)
    while next(stream).n_tokens < 3:
        pass
    joined = finish(submit(long_prompt, GenerationSettings("greedy", max_new_tokens=12)))
    middle = finish(submit(PROMPTS[1], GenerationSettings("greedy", max_new_tokens=4)))
    final = finish(stream)
    late = finish(submit(PROMPTS[0], GenerationSettings("greedy", max_new_tokens=6)))
    for result, prompt, n in ((final, PROMPTS[2], 150), (joined, long_prompt, 12), (middle, PROMPTS[1], 4),
                              (late, PROMPTS[0], 6)):
        assert result.texts == generate(prompt, "greedy", max_new_tokens=n).texts, prompt
    assert final.n_tokens == 150 and max(grown) > 150 and len(grown) >= 3  # grown, more than once, past the first
    assert any(to > column for column, to in moved)  # the longer prompt moved the running rows right

def test_updates_put_during_a_pause_wake_the_consumers_loop_once_it_ends():
    """An async consumer in its pause is not woken by every step (a class would wake the server's loop at every
    step of every student); when the pause ends it has the newest update at once, without waiting for a step."""
    import types

    from bg_demo.backend.generation.engine import Handle

    async def consume():
        handle, loop, woken = Handle(), asyncio.get_running_loop(), []
        updates = aiter(handle)
        handle.put(types.SimpleNamespace(done=False, n=0))
        first = await anext(updates)
        original = loop.call_soon_threadsafe
        loop.call_soon_threadsafe = lambda *args: woken.append(args) or original(*args)
        putter = threading.Thread(target=lambda: [time.sleep(0.01) or handle.put(types.SimpleNamespace(done=False, n=n))
                                                  for n in range(1, 11)])  # the first after the pause has begun
        putter.start()
        await handle.pause(0.3)  # the ten puts land during it
        putter.join()
        started = time.perf_counter()
        newest = await asyncio.wait_for(anext(updates), 5.0)
        return first.n, newest.n, len(woken), time.perf_counter() - started

    first, newest, woken, waited = asyncio.run(consume())
    assert (first, newest) == (0, 10) and woken == 0 and waited < 0.1


def test_a_stream_builds_only_the_updates_its_consumer_takes(monkeypatch):
    """The engine puts an update at every step, but a consumer that reads a few a second (the app's streams pause
    between messages) has only those built, in its own thread: the rest cost the engine's thread a copy of each row's
    token list. The last one is the whole result, as a consumer reading every step gets it."""
    settings = GenerationSettings("greedy", 40)
    every_step = finish(submit(PROMPTS[0], settings))
    built, original = [], engine._result
    monkeypatch.setattr(engine, "_result", lambda *args: built.append(threading.current_thread()) or original(*args))
    taken = []
    for update in submit(PROMPTS[0], settings):
        taken.append(update)
        time.sleep(0.05)
    final = taken[-1]
    assert final.done and final.n_tokens == every_step.n_tokens >= 20
    assert final.texts == every_step.texts and final.generated == every_step.generated
    assert len(taken) < final.n_tokens  # steps the consumer slept through
    assert len(built) == len(taken) and set(built) == {threading.current_thread()}


def test_a_capture_that_fails_leaves_the_uncaptured_step_with_one_log_line(monkeypatch, caplog):
    """`StaticBatch.step` with graphs on (as on CUDA) whose capture raises: the step runs uncaptured, gives the same
    logits as a batch that never tried, logs one warning, and does not try again."""
    import logging

    import torch
    from transformers import DynamicCache

    from bg_demo.backend.generation import static

    loaded = models.get("decoder")
    model = loaded.model
    ids = torch.tensor([[5, 6, 7, 8], [9, 10, 11, 12]])
    mask = torch.ones_like(ids)

    def batch():
        cache = DynamicCache(config=model.config)
        with torch.inference_mode():
            model(input_ids=ids, attention_mask=mask, past_key_values=cache, use_cache=True)
        made = static.StaticBatch(model, "cpu", 2, graphs=False)
        made.join(cache, mask, torch.tensor([3, 4]))
        return made

    tries = []
    monkeypatch.setattr(static.StaticBatch, "_capture", lambda self, rows, window: tries.append(1) or 1 / 0)
    plain, failing = batch(), batch()
    failing.graphs = failing.buckets = True  # as a batch on CUDA starts
    with caplog.at_level(logging.WARNING, logger=static.__name__):
        for _ in range(3):
            want, got = plain.step(), failing.step()
            assert torch.allclose(want[0], got[0], atol=1e-6) and torch.equal(want[1], got[1])
            plain.advance(want[1])
            failing.advance(got[1])
    assert tries == [1] and not failing.graphs
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert "CUDA graph failed" in caplog.records[0].getMessage()


def test_a_requests_tokens_are_recorded_by_the_engine_and_labelled_by_whoever_reads_them(monkeypatch):
    """`engine.Tokens`: the engine's thread appends each step's plain lists and labels nothing (`relabel_newest` is
    never called on it); an update's build labels its rows as `display_tokens` labels them, a finished row records no
    more, and an older update built after a newer one still shows its own steps."""
    from bg_demo.tokens import display_tokens

    tokenizer = models.get("decoder").tokenizer
    ids = tokenizer("나는 The cat")["input_ids"]
    labelled, relabel = [], engine.relabel_newest
    monkeypatch.setattr(engine, "relabel_newest", lambda row, tok: labelled.append(1) or relabel(row, tok))
    tokens = engine.Tokens(2, tokenizer)
    for k, token_id in enumerate(ids):
        running = [1.0, 1.0 if k < 2 else 0.0]  # the second row made its end of text at step 2
        tokens.add([float(token_id), 7.0], [0.5, 0.25], [1.0, 3.0], running)
    assert not labelled  # nothing labelled while the engine recorded
    rows = tokens.upto(len(ids))
    assert tuple(info.token for info in rows[0]) == display_tokens(tokenizer, ids)
    assert [info.token_id for info in rows[1]] == [7, 7] and rows[1][0].rank == 3 and rows[1][0].score == 0.25
    older = tokens.upto(3)
    assert tuple(info.token for info in older[0]) == display_tokens(tokenizer, ids[:3])
    assert [info.token_id for info in older[1]] == [7, 7]
