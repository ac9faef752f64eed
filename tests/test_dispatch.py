"""The call table (`bg_demo.backend.CALLS`, entries of `bg_demo.dispatch`): complete, consistent with what reads it
(the batched tasks, the tier's routes, a generation's arguments), and able to cross to a GPU worker by pickle."""

from __future__ import annotations

import pickle

import pytest

from bg_demo import backend, cluster, dispatch
from bg_demo.backend import batch, generation


def test_every_dispatched_function_is_in_the_table_under_its_own_name():
    dispatched = {name for name in backend.__all__ if hasattr(getattr(backend, name), "entry")}
    assert dispatched == set(backend.CALLS)
    for name, entry in backend.CALLS.items():
        assert entry.name == name and getattr(backend, name).entry is entry
        assert getattr(backend, name).__wrapped__ is entry.function


def test_the_kinds_say_what_the_names_used_to():
    kinds = {name: entry.kind for name, entry in backend.CALLS.items()}
    assert {name for name, kind in kinds.items() if kind == "explain"} == {n for n in kinds if n.startswith("explain")}
    assert {name for name, kind in kinds.items() if kind == "generation"} == {"submit_generation", "generate_stream",
                                                                               "generate"}
    assert {name for name, kind in kinds.items() if kind == "training"} == {"fine_tune"}
    assert {name for name, entry in backend.CALLS.items() if entry.streams} == {"submit_generation", "generate_stream",
                                                                                "fine_tune"}
    assert {name for name, entry in backend.CALLS.items() if entry.batched} == set(batch.TASKS)


def test_every_entry_crosses_by_pickle():
    for entry in backend.CALLS.values():
        assert pickle.loads(pickle.dumps(entry)) == entry


def test_an_entry_says_what_it_is():
    with pytest.raises(ValueError, match="no kind"):
        dispatch.Entry("f", print, "gpu")
    with pytest.raises(ValueError, match="says what its arguments are"):
        dispatch.Entry("f", print, "generation")
    with pytest.raises(ValueError, match="only a generation or a fine-tuning run streams"):
        dispatch.Entry("f", print, "task", streams=True)
    with pytest.raises(ValueError, match="says what its steps are"):
        dispatch.Entry("f", print, "training")
    with pytest.raises(ValueError, match="never runs on a GPU"):
        backend.CALLS["model_memory"].duration((), {})


def test_a_generation_s_arguments_read_the_same_whichever_call():
    settings = backend.GenerationSettings("top_k", max_new_tokens=7, top_k=3, seed=1)
    shapes = [
        (("Once", settings), {"model_id": "m", "client": "c"}),  # submit_generation
        ((), {"prompt": "Once", "settings": settings, "model_id": "m", "client": "c"}),
        (("Once", "top_k"), {"max_new_tokens": 7, "top_k": 3, "seed": 1, "model_id": "m"}),  # generate(_stream)
        (("Once", "top_k", 7, 1.0, 3), {"seed": 1, "model_id": "m"}),
    ]
    for args, kwargs in shapes:
        prompt, read, options = generation.submission(args, kwargs)
        assert (prompt, read) == ("Once", settings) and options["model_id"] == "m"
        final = generation.stopped(None, args, kwargs)
        assert final.done and final.stopped == "stopped" and final.model_id == "m"


def test_the_tier_routes_by_the_roles_an_entry_reads():
    calls = backend.CALLS
    assert cluster.route(calls["fill_mask"], ("The [MASK].",), {}) == "encoder"
    assert cluster.route(calls["attention"], ("The cat", "decoder"), {}) == "decoder"
    assert cluster.route(calls["attention_summary"], ("The cat", "encoder"), {}) == "encoder"
    assert cluster.route(calls["compare"], ("The cat",), {}) == cluster.SHARED_ROLE
    assert cluster.route(calls["model_is_loaded"], ("qa",), {}) == "qa"
    assert cluster.route(calls["model_is_loaded"], ("no role",), {}) == cluster.SHARED_ROLE
    assert cluster.route(calls["model_memory"], (), {}) == "decoder"
