"""What one client can do to the others, tried over Gradio's own HTTP protocol on loopback: floods, a stranger's
cancel, uploads, the traffic monitor, and the memory an anonymous call leaves behind."""

from __future__ import annotations

import json
import types
import uuid

import httpx
import pytest

from bg_demo.ui import gradio_compat, serving

LONG = ["Once upon a time", "top_k", 200, 1.0, 5, 0.9, 4, 1, "7", 0, 1.0, ""]  # a 200-token generation


class Client:
    """One session of the Gradio queue protocol: join, read the stream, cancel."""

    def __init__(self, url: str, session: str | None = None, **headers):
        self.http = httpx.Client(base_url=url, timeout=60, headers=headers)
        self.session = session or uuid.uuid4().hex[:11]
        dependencies = self.http.get("config").json()["dependencies"]
        self.fn = {dep["api_name"]: i for i, dep in enumerate(dependencies) if dep.get("api_name")}

    def join(self, api_name: str, data) -> httpx.Response:
        """Join the queue for a named endpoint with its page's values, then the reader's `lang` and `width` (the two
        values every endpoint ends with), English and wide."""
        body = {"data": [*data, "en", 1280], "fn_index": self.fn[api_name], "session_hash": self.session,
                "event_data": None, "trigger_id": None}
        return self.http.post("gradio_api/queue/join", json=body)

    def messages(self):
        with self.http.stream("GET", f"gradio_api/queue/data?session_hash={self.session}") as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    yield message
                    if message.get("msg") == "close_stream":
                        return

    def cancel(self, event_id: str, api_name: str = "generate", session: str | None = None) -> httpx.Response:
        body = {"session_hash": session or self.session, "fn_index": self.fn[api_name], "event_id": event_id}
        return self.http.post("gradio_api/cancel", json=body)


def completed(client: Client, event_ids: set) -> dict:
    """{event id: its process_completed message} for the given events, read from the session's stream."""
    found = {}
    for message in client.messages():
        if message.get("msg") == "process_completed" and message.get("event_id") in event_ids:
            found[message["event_id"]] = message
            if set(found) == event_ids:
                break
    return found


def test_uploads_are_refused_with_a_message(app_url):
    answer = httpx.post(f"{app_url}gradio_api/upload", files={"files": ("a.txt", b"x" * 1000)})
    assert answer.status_code == 403 and "uploads" in answer.json()["detail"]


def test_the_traffic_monitor_is_not_public(app_url):
    for path in ("monitoring", "gradio_api/monitoring"):
        answer = httpx.get(f"{app_url}{path}")
        assert answer.status_code in (403, 404), path  # Gradio's dashboard answers 200 with the traffic


@pytest.fixture
def slow_steps(monkeypatch):
    """20 ms a token (in a ZeroGPU worker too, which is forked with it): a 200-token generation outlasts the joins."""
    import time

    from bg_demo.backend.generation import engine

    step = engine.DecodingEngine._step
    monkeypatch.setattr(engine.DecodingEngine, "_step", lambda self: (time.sleep(0.02), step(self)))


def test_one_session_gets_its_share_of_the_queue_and_the_others_still_get_in(app_url, slow_steps):
    script = Client(app_url)
    answers = [script.join("generate", LONG) for _ in range(serving.EVENTS_PER_SESSION + 4)]
    accepted = [answer for answer in answers if answer.status_code == 200]
    refused = [answer for answer in answers if answer.status_code != 200]
    assert len(accepted) == serving.EVENTS_PER_SESSION and {a.status_code for a in refused} == {429}
    assert "requests waiting or running" in refused[0].json()["detail"]
    student = Client(app_url)
    event = student.join("fill_mask", ["The cat sat on the [MASK].", 3, ""]).json()["event_id"]
    assert completed(student, {event})[event]["success"]
    for answer in accepted:
        script.cancel(answer.json()["event_id"])


def test_the_share_is_refused_in_the_callers_language(app_url):
    script = Client(app_url, **{"accept-language": "ko-KR,ko;q=0.9"})
    answers = [script.join("generate", LONG) for _ in range(serving.EVENTS_PER_SESSION + 1)]
    assert answers[-1].status_code == 429 and "요청" in answers[-1].json()["detail"]
    for answer in answers[:-1]:
        script.cancel(answer.json()["event_id"])


def test_a_stranger_cannot_cancel_an_event_and_its_owner_still_gets_the_result(app_url):
    owner, stranger = Client(app_url), Client(app_url)
    short = ["Once upon a time", "greedy", 30, 1.0, 5, 0.9, 4, 1, "", 0, 1.0, ""]
    event = owner.join("generate", short).json()["event_id"]
    refused = stranger.cancel(event, session=stranger.session)
    assert refused.status_code == 403 and "Only the session" in refused.json()["detail"]
    result = completed(owner, {event})[event]
    assert result["success"] and result["output"]["data"]  # ran to its end, not cut off


def test_the_owner_can_cancel_its_own_event(app_url):
    owner = Client(app_url)
    event = owner.join("generate", LONG).json()["event_id"]
    assert owner.cancel(event).json() == {"success": True}
    assert event in completed(owner, {event})  # the stream ends instead of waiting forever


def test_waiting_events_are_served_in_turns_per_session():
    queue = serving.FairList()
    for session in ["a", "a", "a", "b", "b", "c"]:
        queue.append(types.SimpleNamespace(session_hash=session))
    assert [event.session_hash for event in queue] == ["a", "b", "c", "a", "b", "a"]


def test_many_sessions_of_one_address_take_a_few_turns_per_round():
    def event(session, host):
        return types.SimpleNamespace(session_hash=session, request=types.SimpleNamespace(client=types.SimpleNamespace(host=host)))

    queue = serving.FairList()
    for i in range(30):  # a script: 30 sessions, one request each, from one address
        queue.append(event(f"script{i}", "10.0.0.1"))
    queue.append(event("student", "10.0.0.2"))
    assert [e.session_hash for e in queue].index("student") == serving.TURNS_PER_ADDRESS


def test_joins_arriving_together_cannot_pass_the_share_before_they_are_queued(app_url):
    import concurrent.futures

    script = Client(app_url)
    with concurrent.futures.ThreadPoolExecutor(24) as pool:
        answers = list(pool.map(lambda _: script.join("generate", LONG), range(24)))
    accepted = [answer for answer in answers if answer.status_code == 200]
    assert len(accepted) == serving.EVENTS_PER_SESSION
    for answer in accepted:
        script.cancel(answer.json()["event_id"])


def test_an_anonymous_call_leaves_no_copy_of_the_page_in_its_session(app_url):
    import gradio as gr

    client = Client(app_url)
    event = client.join("classify", ["I loved this movie."]).json()["event_id"]
    assert completed(client, {event})[event]["success"]
    sessions = [gradio_compat.kept_session(blocks, client.session) for blocks in _live(gr.Blocks)]
    session = next(kept for kept in sessions if kept is not None)
    assert isinstance(session, gradio_compat.LeanSession) and session.copies() == 0


# --- the page -----------------------------------------------------------------------------------------------------

PAGE_ON_THE_WIRE = 70_000  # bytes of a compressed page: 92 KB before tabs were built on opening, 63 KB since; each
# page at its own address (`ui.site`) is 55-65 KB, the Start page ~58 KB
# bytes of a page a browser reads (Gradio's own was ~730 KB, most of it inlined config): 688 KB before the
# fine-tune-or-prompt tab, 854 KB with it, 922 KB with lessons, 863 KB before tabs were built on opening (`ui.lazy`),
# 476 KB then, 524 KB with the fine-tune pages' "Why?" (67 KB compressed); since each former tab is a page of its own
# (`ui.site`) a page carries only its own components and events: the Start page ~240 KB, the heaviest (Fine-tune, its
# five parts) ~360 KB
PAGE_RAW = 400_000
RATIO = 3  # how much smaller gzip makes a page (4x to 5.5x for these pages)


def _addresses() -> list[str]:
    from bg_demo.ui import site

    return [module.PATH for module in site.PAGES]


def _page(app_url: str, accepted: str, path: str = "") -> httpx.Response:
    return httpx.get(f"{app_url}{path}", headers={"Accept-Encoding": accepted})


def _inlined(page: bytes, marker: bytes) -> dict:
    start = page.index(marker) + len(marker)
    return json.loads(page[start:page.index(gradio_compat.INLINED_END, start)])


@pytest.mark.parametrize("path", ["", "generate"])
def test_the_page_is_sent_compressed_to_a_browser_that_accepts_gzip(app_url, path):
    compressed, plain = _page(app_url, "gzip, deflate, br", path), _page(app_url, "identity", path)
    assert compressed.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert compressed.text == plain.text and gradio_compat.INLINED_CONFIG in plain.content  # httpx unpacks the gzip
    assert int(compressed.headers["content-length"]) * RATIO < len(plain.content)


def _own(page: bytes) -> list[dict]:
    return _inlined(page, gradio_compat.INLINED_CONFIG)["components"]


def test_every_page_keeps_to_its_budget_and_carries_nothing_its_browser_never_reads(app_url):
    from bg_demo.ui import site

    assert len(_addresses()) == len(site.PAGES) > 10
    for module in site.PAGES:
        page = _page(app_url, "gzip", module.PATH)
        assert page.status_code == 200, module.PATH
        assert int(page.headers["content-length"]) <= PAGE_ON_THE_WIRE and len(page.content) <= PAGE_RAW, module.PATH
        components = _own(page.content)
        assert not [c["id"] for c in components if set(c) & {"api_info", "api_info_as_input", "example_inputs"}]
        endpoints = _inlined(page.content, gradio_compat.INLINED_API_INFO)["named_endpoints"]
        assert not any("code_snippets" in endpoint for endpoint in endpoints.values())
        # the page's own content, and no other page's: every page a link in the navigation
        columns = {c["props"].get("elem_id") for c in components if "bg-page" in (c["props"].get("elem_classes") or [])}
        assert columns == {f"bg-page-{module.TAB_ID}"}, module.PATH
        (navigation,) = [c for c in components if "bg-nav-block" in (c["props"].get("elem_classes") or [])]
        assert navigation["props"]["value"].count('class="bg-nav-link') == len(site.PAGES), module.PATH
        assert 40 < len(components) < 300, (module.PATH, len(components))
    start = _own(_page(app_url, "gzip").content)  # the Start page: its guided steps; Next token: its two parts
    assert any("bg-step" in (c["props"].get("elem_classes") or []) for c in start)
    assert not any(c["type"] == "tabitem" for c in start)
    lab = _own(_page(app_url, "gzip", "next-token").content)
    assert {c["props"].get("id") for c in lab if c["type"] == "tabitem"} == {"next_token", "logit_lens"}
    theme = httpx.get(f"{app_url}theme.css").text  # the device's own fonts: no web font to fetch
    assert "--font" in theme and "@font-face" not in theme and ".woff2" not in theme


def test_only_a_rendered_page_is_trimmed():
    other = b"<html><script>window.something = {};</script></html>"
    assert serving.lighter(other) == other
    config, end = gradio_compat.INLINED_CONFIG, gradio_compat.INLINED_END
    page = b'<script>' + config + b'{"components": [{"id": 1, "api_info": {}, "props": {"x": 1}}]}' + end
    assert serving.lighter(page) == b'<script>' + config + b'{"components":[{"id":1,"props":{"x":1}}]}' + end


class _Rendering(gradio_compat.StandInApp):
    """An ASGI app that renders a page as Gradio's route does, counting its renders (with the scope's `app`, the
    Gradio app FastAPI puts there: its login settings and its blocks' config, `blocks.config`)."""

    def __init__(self, status: int = 200, cookie: bool = False):
        super().__init__(types.SimpleNamespace(config={"components": []}))
        self.renders, self.status, self.cookie = 0, status, cookie

    async def __call__(self, scope, receive, send):
        import asyncio

        self.renders += 1
        await asyncio.sleep(0.01)  # the render takes a while: visits arriving meanwhile wait for it
        headers = [(b"content-type", b"text/html; charset=utf-8")] + ([(b"set-cookie", b"a=1")] if self.cookie else [])
        host = dict(scope["headers"]).get(b"host", b"")
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": b"<html>root http://" + host + b" render %d</html>" % self.renders})


def _visits(app, *requests) -> list[bytes]:
    """Each request `(path, headers)` through `serving.PageCache(app)`, all at once: the bodies, in order."""
    import asyncio

    cache = serving.PageCache(app)

    async def visit(path, headers):
        sent = []

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "scheme": "http", "app": app,
                 "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
        await cache(scope, None, send)
        assert sent[0]["type"] == "http.response.start"
        return b"".join(m.get("body", b"") for m in sent[1:])

    async def run():
        return await asyncio.gather(*(visit(path, headers) for path, headers in requests))

    return asyncio.run(run())


def test_the_page_and_config_are_rendered_once_per_address_and_sent_from_memory_after(monkeypatch):
    from bg_demo.ui import site

    monkeypatch.setattr(serving, "PAGE_PATHS", {module.PATH for module in site.PAGES})  # as `build_demo` sets it
    app = _Rendering()
    here, there = {"host": "a.example"}, {"host": "b.example"}
    pages = _visits(app, *[("/", here)] * 20, ("/", there))
    assert app.renders == 2  # twenty visits at once wait for one render; another address gets its own page
    assert set(pages[:20]) == {pages[0]} and b"a.example" in pages[0] and b"b.example" in pages[20]
    _visits(app, ("/config", here), ("/config", here))
    assert app.renders == 3  # the config a client reads is kept too
    _visits(app, (gradio_compat.INFO, here), (gradio_compat.INFO, here))
    assert app.renders == 5  # nothing else is
    pages = _visits(app, *[("/generate", here)] * 5, ("/finetune", here), ("/finetune/", here), ("/finetune", here))
    assert app.renders == 8  # every page of the app is kept at its own address (a trailing "/" is another URL)
    assert set(pages[:5]) == {pages[0]} and pages[5] == pages[7]
    _visits(app, ("/no-such-page", here), ("/no-such-page", here))
    assert app.renders == 10  # an address that is no page of the app is not kept


def test_a_kept_page_is_dropped_when_the_config_changes_and_never_kept_with_a_login_or_a_cookie():
    app = _Rendering()
    first, again = _visits(app, ("/", {}), ("/", {}))
    assert app.renders == 1 and first == again
    for change in ("config", "auth", "cookie", "status"):
        app = _Rendering(status=500 if change == "status" else 200, cookie=change == "cookie")
        if change == "auth":
            app.auth = [("teacher", "secret")]
        cache = serving.PageCache(app)
        if change == "config":
            _visit_with(cache, app)
            gradio_compat.blocks_of({"app": app}).config = {"components": [1]}
        _visit_with(cache, app)
        _visit_with(cache, app)
        assert app.renders == 2, change  # config: rendered before and after the change, then kept; others: never kept


def _visit_with(cache, app) -> None:
    import asyncio

    async def send(message):
        pass

    scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "scheme": "http", "app": app,
             "headers": []}
    asyncio.run(cache(scope, None, send))


def test_the_app_s_page_and_config_come_from_memory_with_the_root_of_the_address_they_were_asked_at(app_url):
    first, again = _page(app_url, "gzip"), _page(app_url, "gzip")
    assert first.content == again.content and first.headers["content-encoding"] == "gzip"
    proxied = httpx.get(app_url, headers={"Accept-Encoding": "gzip", "X-Forwarded-Host": "school.example"})
    assert _inlined(proxied.content, gradio_compat.INLINED_CONFIG)["root"] == "http://school.example"
    assert _inlined(first.content, gradio_compat.INLINED_CONFIG)["root"] != "http://school.example"
    for path in ("generate", "finetune"):  # every page's own address too
        first, again = _page(app_url, "gzip", path), _page(app_url, "gzip", path)
        assert first.content == again.content and first.headers["content-encoding"] == "gzip", path
        proxied = _page_at(app_url, path, "school.example")
        assert _inlined(proxied.content, gradio_compat.INLINED_CONFIG)["root"] == "http://school.example", path
        assert _inlined(first.content, gradio_compat.INLINED_CONFIG)["root"] != "http://school.example", path
    config, again = httpx.get(f"{app_url}config").json(), httpx.get(f"{app_url}config").json()
    assert config == again and len(config["components"]) > 500 and config["root"] != "http://school.example"
    proxied = httpx.get(f"{app_url}config", headers={"X-Forwarded-Host": "school.example"}).json()
    assert proxied["root"] == "http://school.example"


def _page_at(app_url: str, path: str, host: str) -> httpx.Response:
    return httpx.get(f"{app_url}{path}", headers={"Accept-Encoding": "gzip", "X-Forwarded-Host": host})


def test_a_generation_s_updates_still_arrive_one_by_one_through_the_compression(app_url, monkeypatch, in_flight):
    """Event streams pass the gzip middleware as they are: each update of a generation reaches a client that accepts
    gzip while the generation still runs, not all at once at its end."""
    import time

    from bg_demo.backend.generation import engine

    step = engine.DecodingEngine._step
    monkeypatch.setattr(engine.DecodingEngine, "_step", lambda self: (time.sleep(0.1), step(self)))  # 2 s for 20 tokens
    client = Client(app_url)
    assert "gzip" in client.http.headers["accept-encoding"]
    event = client.join("generate", ["Once upon a time", "greedy", 20, 1.0, 5, 0.9, 4, 1, "", 0, 1.0, ""]).json()["event_id"]
    running = []  # at each update as it arrives: how many generations are still running
    with client.http.stream("GET", f"gradio_api/queue/data?session_hash={client.session}") as stream:
        assert "content-encoding" not in stream.headers
        for line in stream.iter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if message.get("event_id") == event and message["msg"] == "process_generating":
                running.append(in_flight())
            if message.get("event_id") == event and message["msg"] == "process_completed":
                break
    assert len(running) >= 3 and running[0] >= 1 and running[1] >= 1


def _live(kind):
    import gc
    import warnings

    with warnings.catch_warnings():  # isinstance on every object touches torch's deprecated module attributes
        warnings.simplefilter("ignore")
        return [obj for obj in gc.get_objects() if isinstance(obj, kind)]


@pytest.fixture(autouse=True)
def _settle(in_flight):
    """Each test starts after the last one's cancelled generations have left the batch."""
    import time

    yield
    deadline = time.monotonic() + 30
    while in_flight() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_terminated_server_removes_its_downloads_folder(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import os, signal, time\n"
        "from bg_demo.ui import downloads, exit_on_sigterm\n"
        "print(downloads.new_folder().parent, flush=True)\n"
        "exit_on_sigterm()\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "time.sleep(30)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent, env={**os.environ, "TMPDIR": str(tmp_path)})
    folder = Path(done.stdout.strip())
    assert done.returncode == 143 and folder.parent == tmp_path and not folder.exists()
