"""The model tier on a local Ray Serve cluster: the same answers as in-process, streaming, Stop and a closed tab
through Ray, a replica killed mid-stream, and clear messages when the tier cannot serve.

One cluster for the module, deployed as deploy/serve.yaml declares it (every role; two decoder replicas) on a local Ray
with 2 CPUs, on the tiny models; starting it is most of this file's time (docs/cluster.md says what it adds to CI)."""

from __future__ import annotations

import asyncio
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bg_demo import backend, placement
from bg_demo.errors import ClusterUnavailableError, InputError

pytestmark = [pytest.mark.cluster, pytest.mark.server]
TEXT = "The animal didn't cross the street because it was too tired."
CONTEXT = ("The Eiffel Tower is in Paris. It was finished in 1889 and is 330 metres tall. " * 12).strip()


@pytest.fixture(scope="module")
def tier(tiny_dir):
    from bg_demo.cluster import client, deployments

    deployments.local(num_cpus=2, env={"BG_DEMO_MODEL_DIR": str(tiny_dir)})
    connected = client.connect("auto")
    yield connected
    client.disconnect()
    deployments.shutdown()


@pytest.fixture
def here(tier):
    """Run a block in this process (the reference), then go back to the tier."""

    class Here:
        def __enter__(self):
            placement.use_tier(None)
            self.here = placement.running_here()  # in this process itself, also when the suite runs through ZeroGPU
            self.here.__enter__()

        def __exit__(self, *_):
            self.here.__exit__(*_)
            placement.use_tier(tier)

    return Here()


def same(ours, theirs, tolerance=1e-5, path="") -> None:
    """Equal data, floats within `tolerance` (a padded batch moves scores by float noise only)."""
    if isinstance(theirs, float):
        assert math.isclose(ours, theirs, rel_tol=tolerance, abs_tol=tolerance), path
    elif isinstance(theirs, dict):
        assert ours.keys() == theirs.keys(), path
        for key in theirs:
            same(ours[key], theirs[key], tolerance, f"{path}.{key}")
    elif isinstance(theirs, list | tuple):
        assert len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            same(a, b, tolerance, f"{path}[{i}]")
    else:
        assert ours == theirs, path


BERT_CALLS = [
    ("fill_mask", ("The cat sat on the [MASK] and [MASK].",), {"top_k": 5}),
    ("classify", ("I loved this movie, the acting was wonderful.",), {}),
    ("recognize_entities", ("Ada Lovelace worked with Charles Babbage in London.",), {"aggregation": "simple"}),
    ("answer", ("When was it finished?", CONTEXT), {}),
    ("next_sentence", ("I went to the shop.", "I bought some bread."), {}),
    ("attention", (TEXT, "decoder"), {}),
    ("compare", (TEXT,), {}),
    ("explain_classify", ("A wonderful film.",), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), BERT_CALLS, ids=[call[0] for call in BERT_CALLS])
def test_every_call_equals_in_process(tier, here, name, args, kwargs):
    function = getattr(backend, name)
    ours = function(*args, **kwargs)
    with here:
        theirs = function(*args, **kwargs)
    assert type(ours) is type(theirs)
    same(ours.to_dict(), theirs.to_dict(), tolerance=1e-4 if name.startswith("explain") else 1e-5)


def test_bert_tasks_from_many_front_ends_share_a_forward_pass(tier, here):
    """Requests that arrive together are one batch on the replica, and each gets its own answer."""
    texts = [f"Review number {i}: {'great' if i % 2 else 'awful'} film, {'loved' if i % 3 else 'hated'} it." for i in range(12)]
    results, start = [None] * len(texts), threading.Barrier(len(texts))

    def ask(i):
        start.wait()
        results[i] = backend.classify(texts[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with here:
        for text, result in zip(texts, results, strict=True):
            same(result.to_dict(), backend.classify(text).to_dict())
    assert max(replica["largest_batch"] for replica in tier.replicas("sentiment")) > 1


def test_every_replica_runs_as_the_config_says(tier):
    """The settings deploy/serve.yaml gives the replicas reach every one (torch's threads sleep between parallel
    regions: a spinning thread takes the CPU of the front ends and Ray beside it), with a thread per CPU here."""
    import os

    from bg_demo import config

    for role in config.ROLES:
        for replica in tier.replicas(role):
            assert replica["settings"] == {"OMP_WAIT_POLICY": "PASSIVE", "TOKENIZERS_PARALLELISM": "false"}, role
            assert replica["threads"] == os.cpu_count(), role


def test_an_error_crosses_as_the_backends_own(tier):
    with pytest.raises(InputError) as caught:
        backend.fill_mask("There is no gap in this sentence.")
    assert caught.value.text.key == "error.no_mask"


def test_model_choice_reaches_the_replica(tier, here, tiny_dir):
    """A model a student picks is loaded by the replica, and answers as it does in-process."""
    from bg_demo import config

    choice = next(model for model in config.ALLOWED_MODELS["encoder"]
                  if model != config.DEFAULT_MODELS["encoder"] and config.hub_folder(tiny_dir, model).exists())
    ours = backend.fill_mask("Paris is the [MASK] of France.", model_id=choice)
    with here:
        theirs = backend.fill_mask("Paris is the [MASK] of France.", model_id=choice)
    same(ours.to_dict(), theirs.to_dict())
    assert backend.model_is_loaded("encoder", choice)


GENERATIONS = [
    ("greedy", dict(max_new_tokens=20)),
    ("beam", dict(max_new_tokens=12, num_beams=4, num_return_sequences=3)),
    ("top_k", dict(max_new_tokens=15, top_k=5, temperature=1.3, seed=1234, num_return_sequences=2)),
    ("top_p", dict(max_new_tokens=15, top_p=0.8, seed=99)),
]


@pytest.mark.parametrize(("strategy", "settings"), GENERATIONS, ids=[g[0] for g in GENERATIONS])
def test_generation_equals_in_process_and_generate(tier, here, tiny_dir, strategy, settings):
    from tests.test_generate import BeamSearch, assert_same_beams, assert_same_generation, decoded_by_generate

    prompt = "Once upon a time in a distant galaxy,"
    ours = backend.generate(prompt, strategy, **settings)
    with here:
        theirs = backend.generate(prompt, strategy, **settings)
    assert ours.texts == theirs.texts and ours.generated == theirs.generated and ours.seed == theirs.seed
    if strategy == "beam":  # transformers' own, in float32
        assert_same_beams(ours, BeamSearch(tiny_dir / "decoder", prompt, **settings), at_least=5)
        return
    kwargs = ours.settings | ({"seed": ours.seed} if ours.seed is not None else {})
    assert_same_generation(ours, decoded_by_generate(tiny_dir / "decoder")(prompt, **kwargs), at_least=5)


def test_an_unseeded_sample_repeats_with_the_seed_it_reports(tier):
    first = backend.generate("The weather today", "temperature", max_new_tokens=12)
    again = backend.generate("The weather today", "temperature", max_new_tokens=12, seed=first.seed)
    assert again.texts == first.texts


def test_a_generation_streams_through_ray(tier):
    settings = backend.GenerationSettings("greedy", max_new_tokens=256)
    updates = list(backend.submit_generation("Once upon a time", settings))
    assert len(updates) >= 2
    assert [update.n_tokens for update in updates] == sorted(update.n_tokens for update in updates)
    assert updates[-1].done and not any(update.done for update in updates[:-1])
    assert updates[-1].n_tokens == 256 or updates[-1].stopped == "end of text"


def test_a_fine_tuning_run_streams_through_ray_and_equals_in_process(tier, here):
    train = [["A good film.", "good"], ["A bad film.", "bad"], ["Good fun.", "good"]]
    updates = list(backend.fine_tune("decoder", train, train, "lora", 6, None, 2, 3))
    with here:
        *_, expected = backend.fine_tune("decoder", train, train, "lora", 6, None, 2, 3)
    assert updates[-1].done and not any(update.done for update in updates[:-1])
    same(list(updates[-1].losses), list(expected.losses))
    assert updates[-1].tuned is not None and updates[-1].tuned.nbytes == expected.tuned.nbytes


def running_rows(tier) -> int:
    return sum(replica["rows"] for replica in tier.replicas("decoder"))


def wait_until(condition, seconds=20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_stop_ends_the_request_in_its_replica(tier):
    handle = backend.submit_generation("Once upon a time", backend.GenerationSettings("greedy", max_new_tokens=256))
    updates = iter(handle)
    next(updates)
    assert running_rows(tier) > 0
    handle.cancel()
    final = list(updates)[-1]
    assert final.done and final.stopped == "stopped" and final.n_tokens < 256
    assert wait_until(lambda: running_rows(tier) == 0)


def test_a_closed_tab_ends_the_request_in_its_replica(tier):
    """Gradio closes a cancelled or abandoned stream on its event loop: the async iteration stops there."""

    async def read_two():
        handle = backend.submit_generation("Once upon a time", backend.GenerationSettings("greedy", max_new_tokens=256))
        stream = handle.__aiter__()
        await stream.__anext__()
        await stream.__anext__()
        await stream.aclose()  # what Gradio does with a closed tab's generator
        return handle

    handle = asyncio.run(read_two())
    assert handle.cancelled.is_set()
    assert wait_until(lambda: running_rows(tier) == 0)


def test_a_replica_killed_mid_stream_loses_nothing(tier, here):
    """The generation goes on on the other replica with the same seed: the student gets the same tokens."""
    import ray

    settings = backend.GenerationSettings("top_k", max_new_tokens=256, seed=2024)
    with here:
        expected = backend.generate("Once upon a time", settings.strategy, 256, seed=2024)
    for _ in range(3):  # the kill must land before the 256 tokens are made; a tiny model may be quicker
        assert wait_until(lambda: len(tier.replicas("decoder")) == 2, 120), "the killed replica was not replaced"
        handle = backend.submit_generation("Once upon a time", settings)
        updates = iter(handle)
        first = next(updates)
        assert wait_until(lambda: handle.replicas, 5)
        ray.kill(ray.get_actor(handle.replicas[0], namespace="serve"), no_restart=True)
        shown = [first, *updates]
        if len(handle.replicas) == 2:
            break
    assert len(handle.replicas) == 2 and handle.replicas[0] != handle.replicas[1]
    final = shown[-1]
    assert final.done and final.stopped == expected.stopped
    assert final.texts == expected.texts and final.generated == expected.generated
    assert [update.n_tokens for update in shown] == sorted(update.n_tokens for update in shown)  # no step back


def test_a_tier_without_the_roles_application_says_what_to_deploy(tier, monkeypatch):
    from bg_demo import cluster
    from bg_demo.cluster.client import Tier

    monkeypatch.setattr(cluster, "APP_PREFIX", "not-deployed-")
    with pytest.raises(ClusterUnavailableError) as caught:
        Tier("auto").handle("decoder")
    assert caught.value.text.key == "error.cluster_not_deployed"
    assert "not-deployed-decoder" in str(caught.value) and "serve deploy" in str(caught.value)


def test_an_unreachable_tier_names_its_address():
    """A front end started with an address where no cluster runs: a message with the address, not a hang."""
    done = subprocess.run([sys.executable, "-m", "bg_demo", "serve", "--port", "7989", "--ray", "127.0.0.1:9"],
                          capture_output=True, text=True, timeout=240, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("error: The model servers at 127.0.0.1:9 cannot be reached"), done.stderr[-2000:]


def test_the_app_through_the_tier(tier, here):
    """The Gradio app, connected to the tier, answers its API as it does in-process."""
    from gradio_client import Client

    from bg_demo.ui import build_demo

    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    try:
        api = Client(url, verbose=False)
        ask = dict(prompt="Once upon a time", strategy="top_p", max_new_tokens=12, seed="7", api_name="/generate")
        filled, *_, filled_raw = api.predict("The cat sat on the [MASK].", 5, api_name="/fill_mask")
        *_, generated = api.predict(**ask)
        stopped = api.submit(**(ask | dict(strategy="greedy", max_new_tokens=256)))
        while not stopped.status().code.name == "ITERATING":  # the first tokens have been sent
            time.sleep(0.02)
        stopped.cancel()
        with here:
            filled_here, *_, filled_raw_here = api.predict("The cat sat on the [MASK].", 5, api_name="/fill_mask")
            *_, generated_here = api.predict(**ask)
    finally:
        demo.close()
    assert filled == filled_here
    same(filled_raw, filled_raw_here)
    assert generated["texts"] == generated_here["texts"] and generated["seed"] == 7
    assert wait_until(lambda: running_rows(tier) == 0)  # the API's cancel reached the replica
