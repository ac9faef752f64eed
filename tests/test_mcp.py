"""The app as an AI assistant sees it: the official `mcp` client over streamable HTTP at /gradio_api/mcp/ lists the
twelve tutor tools (their descriptions and schemas), each call equals the backend's own result on the tiny models, a
bad input comes back as the tool's worded error, the teaching prompt and the resources are listed and read, and an
assistant is held to its share like any other client (its own, not every assistant's together)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import subprocess
import sys
import time
import types

import httpx
import pytest
from mcp import ClientSession
from mcp import types as types_
from mcp.client.streamable_http import streamable_http_client

from bg_demo import backend, config, text, tutor
from bg_demo.ui import gradio_compat, serving, tutor_tools

TOOLS = ("fill_mask", "classify", "entities", "answer", "next_sentence", "generate", "next_token", "logit_lens",
         "attention_summary", "compare", "explain", "prompt_task")


@contextlib.asynccontextmanager
async def session(app_url: str, **headers):
    async with httpx.AsyncClient(headers=headers, timeout=120) as http, \
            streamable_http_client(f"{app_url}gradio_api/mcp/", http_client=http) as (read, write, _), \
            ClientSession(read, write) as opened:
        await opened.initialize()
        yield opened


def call(app_url: str, tool: str, arguments: dict, **headers):
    async def go():
        async with session(app_url, **headers) as opened:
            return await opened.call_tool(tool, arguments)

    return asyncio.run(go())


def result_of(app_url: str, tool: str, arguments: dict) -> dict:
    answer = call(app_url, tool, arguments)
    assert not answer.isError, answer.content[0].text
    return json.loads(answer.content[0].text)


@pytest.fixture(scope="module")
def listed(app_url):
    async def go():
        async with session(app_url) as opened:
            return (await opened.list_tools()).tools

    return {tool.name: tool for tool in asyncio.run(go())}


# --- the tools, as listed -------------------------------------------------------------------------------------------


def test_the_tools_are_the_tutor_s_twelve_and_no_page_endpoint(listed, app_url):
    assert sorted(listed) == sorted(TOOLS)
    # the pages' own endpoints stay on the API page
    info = httpx.get(f"{app_url}gradio_api/info").json()["named_endpoints"]
    assert {"/fill_mask", "/attention", "/explain_fill_mask"} <= set(info)
    assert {f"/tutor_{name}" for name in TOOLS} <= set(info)


def test_the_schema_the_api_page_s_mcp_tab_reads_lists_the_same_and_no_page_endpoint(app_url):
    for encoding in ("gzip", "identity"):  # what a browser asks for, and what a script may
        answer = httpx.get(f"{app_url}gradio_api/mcp/schema", headers={"Accept-Encoding": encoding})
        entries = {entry["name"]: entry["meta"]["mcp_type"] for entry in answer.json()}
        assert entries == {**dict.fromkeys(TOOLS, "tool"), tutor_tools.PROMPT: "prompt", "glossary": "resource",
                           "models": "resource"}


def test_each_tool_says_what_it_does_each_argument_and_what_it_returns(listed):
    for name, tool in listed.items():
        assert len(tool.description) > 80 and "Returns: JSON" in tool.description, name
        properties = tool.inputSchema["properties"]
        assert properties, name
        for argument, schema in properties.items():
            assert len(schema.get("description", "")) > 10, (name, argument)
    required = {name: tool.inputSchema.get("required", []) for name, tool in listed.items()}
    assert required["fill_mask"] == ["text"] and required["answer"] == ["question", "context"]
    assert required["prompt_task"] == ["train", "test", "template", "label_words"]
    assert required["explain"] == ["task", "text"] and required["generate"] == ["prompt"]
    assert listed["generate"].inputSchema["properties"]["strategy"]["enum"] == ["greedy", "beam", "temperature",
                                                                               "top_k", "top_p"]
    assert "client" not in listed["generate"].inputSchema["properties"]  # the server's own argument
    assert listed["attention_summary"].inputSchema["properties"]["role"]["enum"] == ["encoder", "decoder"]


def args_of(fn) -> dict[str, str]:
    """{argument: description} of a tool's docstring, one `name: description` line each under "Args:"; a line
    that names no argument (a description cut by a line break inside it) as {"?": line}."""
    lines = [line.strip() for line in inspect.getdoc(fn).splitlines()]
    start, end = lines.index("Args:") + 1, lines.index("Returns:")
    found = {}
    for line in filter(None, lines[start:end]):
        name, _, description = line.partition(": ")
        found[name if name in inspect.signature(fn).parameters else "?"] = description or line
    return found


def test_every_argument_s_whole_description_reaches_the_listed_schema(listed):
    """Gradio reads a tool's docstring a line at a time, so a line break inside an argument's description (a "\\n"
    in an example, which Python makes a real one) would cut it there."""
    for fn in tutor.TOOLS:
        described = args_of(fn)
        assert "?" not in described, (fn.__name__, described.get("?"))
        properties = listed[fn.__name__].inputSchema["properties"]
        assert {name: schema["description"] for name, schema in properties.items()} == described, fn.__name__
    template = listed["prompt_task"].inputSchema["properties"]["template"]["description"]
    assert 'Review: {text}\\nSentiment:"' in template and template.endswith("at most 300 characters).")


MODEL_ARGUMENTS = {"compare": {"encoder": "encoder", "decoder": "decoder"}}  # argument -> role, where not `model`


def test_the_prompt_and_each_model_argument_name_the_models_for_korean_and_japanese_text(listed, app_url):
    """A tutor teaching in Korean or Japanese, or reading such text, learns which model to pass for each tool, and
    that the sentiment, entity and answer models read English only (whose results on such text are no success)."""
    wanted = {lang: {config.model_for(role, lang) for role in ("encoder", "decoder")} for lang in ("ko", "ja")}
    assert wanted == {"ko": {"google-bert/bert-base-multilingual-cased", "skt/kogpt2-base-v2"},
                      "ja": {"google-bert/bert-base-multilingual-cased", "rinna/japanese-gpt2-small"}}

    async def go():
        async with session(app_url) as opened:
            return {lang: (await opened.get_prompt(tutor_tools.PROMPT, {"language": lang})).messages[0].content.text
                    for lang in text.LANGS}

    for lang, words in asyncio.run(go()).items():
        assert all(model in words for models in wanted.values() for model in models), lang
        assert "warning" in words and "use_model" in words, lang
    for name, tool in listed.items():
        arguments = MODEL_ARGUMENTS.get(name, {"model": None})
        for argument, role in arguments.items():
            described = tool.inputSchema["properties"][argument]["description"]
            roles = [role] if role else [r for r in tutor.TOOL_ROLES[name] if r in ("encoder", "decoder")]
            for lang in ("ko", "ja"):
                assert all(config.model_for(r, lang) in described for r in roles), (name, argument, lang)
            if set(tutor.TOOL_ROLES[name]) & {"sentiment", "ner", "qa"}:
                assert "English" in described and "only" in described, name


# --- each call equals the backend's -----------------------------------------------------------------------------------


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 10 ** -tutor.DIGITS


def check_fill_mask(got):
    expected = backend.fill_mask(tutor.EXAMPLES["fill_mask"]["text"], 5)
    assert got["tokens"] == list(expected.tokens) and got["filled"] == expected.filled
    assert [m["position"] for m in got["masks"]] == list(expected.mask_positions)
    for mask, guesses in zip(got["masks"], expected.masks):
        assert [g["token"] for g in mask["guesses"]] == [p.token for p in guesses]
        assert all(close(g["score"], p.score) for g, p in zip(mask["guesses"], guesses))


def check_classify(got):
    expected = backend.classify(tutor.EXAMPLES["classify"]["text"])
    assert got["label"] == expected.label and set(got["scores"]) == set(expected.scores)
    assert all(close(got["scores"][k], v) for k, v in expected.scores.items())


def check_entities(got):
    expected = backend.recognize_entities(tutor.EXAMPLES["entities"]["text"], "simple")
    assert [(e["label"], e["text"], e["start"], e["end"]) for e in got["entities"]] == [
        (e.label, e.text, e.start, e.end) for e in expected.entities]
    assert all(close(g["score"], e.score) for g, e in zip(got["entities"], expected.entities))


def check_answer(got):
    expected = backend.answer(**tutor.EXAMPLES["answer"])
    assert (got["answer"], got["start"], got["end"]) == (expected.answer, expected.start, expected.end)
    assert close(got["score"], expected.score)


def check_next_sentence(got):
    expected = backend.next_sentence(**tutor.EXAMPLES["next_sentence"])
    assert close(got["is_next"], expected.is_next) and got["tokens"] == list(expected.tokens)


def check_generate(got):
    expected = backend.generate(tutor.EXAMPLES["generate"]["prompt"], "greedy",
                                tutor.EXAMPLES["generate"]["max_new_tokens"])
    assert got["text"] == expected.texts[0] and got["seed"] is None and got["strategy"] == "greedy"
    assert [t[0] for t in got["tokens"]] == [t.token for t in expected.generated[0]]
    assert all(close(t[1], e.score) for t, e in zip(got["tokens"], expected.generated[0]))


def check_next_token(got):
    expected = backend.next_token(tutor.EXAMPLES["next_token"]["text"], n=10, seed=0)
    assert [c["token"] for c in got["candidates"]] == [c.token for c in expected.candidates]
    assert all(close(c["score"], e.score) for c, e in zip(got["candidates"], expected.candidates))
    assert got["greedy"] == expected.greedy.token and got["kept"] == expected.kept


def check_logit_lens(got):
    expected = backend.logit_lens(tutor.EXAMPLES["logit_lens"]["text"])
    assert got["top"] == [list(row) for row in expected.predictions] and got["layers"] == list(expected.layers)
    assert got["final_rank"] == expected.final_rank.tolist()


def check_attention_summary(got):
    expected = backend.attention(tutor.EXAMPLES["attention_summary"]["text"], "encoder")
    weights = expected.weights
    assert got["tokens"] == list(expected.tokens) and got["attention_type"] == "bidirectional"
    assert close(got["heads"]["to_first"][1][0], weights[1, 0, :, 0].mean())
    assert close(got["heads"]["to_previous"][0][1], sum(weights[0, 1, q, q - 1] for q in range(1, weights.shape[2]))
                 / (weights.shape[2] - 1))
    assert got["top_key"]["0"][2] == weights[0, 2].argmax(-1).tolist()


def check_compare(got):
    example = tutor.EXAMPLES["compare"]
    assert got["encoder"]["attention_type"] == "bidirectional" and got["decoder"]["attention_type"] == "causal"
    assert any(share > 0 for share in got["encoder"]["future_share"]) and set(got["decoder"]["future_share"]) == {0}
    expected = backend.same_word(example["text"], example["second"], example["word"])
    assert all(close(a, b) for a, b in zip(got["same_word"]["decoder"]["similarity"], expected.decoder.similarity))
    assert got["same_word"]["same_left_context"] == expected.same_left_context


def check_explain(got):
    expected = backend.explain_classify(tutor.EXAMPLES["explain"]["text"])
    assert got["tokens"] == list(expected.tokens) and close(got["score"], expected.score)
    assert all(close(a, b) for a, b in zip(got["integrated_gradients"], expected.integrated_gradients))
    assert got["target"] == text.t(expected.target.key, "en", **expected.target.values)


def check_prompt_task(got):
    example = tutor.EXAMPLES["prompt_task"]
    expected = backend.prompt_task("decoder", example["train"], example["test"], example["template"],
                                   example["label_words"])
    assert got["role"] == "decoder" and got["labels"] == list(expected.labels)
    assert [row["prediction"] for row in got["rows"]] == list(expected.predictions)
    assert close(got["accuracy"], expected.accuracy) and got["first_prompt"] == expected.prompts[0]


CHECKS = {name: globals()[f"check_{name}"] for name in TOOLS}
ARGUMENTS = {**tutor.EXAMPLES, "next_token": {**tutor.EXAMPLES["next_token"], "seed": 0}}


@pytest.mark.parametrize("tool", TOOLS)
def test_each_tool_call_equals_the_backend_s_result(app_url, tool):
    got = result_of(app_url, tool, ARGUMENTS[tool])
    assert got["model"] if "model" in got else got["encoder"]["model"]
    CHECKS[tool](got)


def test_a_head_s_map_comes_only_when_asked_for_and_top_keys_for_the_layer_asked(app_url):
    example = tutor.EXAMPLES["attention_summary"]
    plain = result_of(app_url, "attention_summary", example)
    assert "map" not in plain and set(plain["top_key"]) == {"0", "1"}  # a small model: every layer
    one = result_of(app_url, "attention_summary", {**example, "layer": 1, "head": 2})
    expected = backend.attention(example["text"], "encoder").weights[1, 2]
    assert set(one["top_key"]) == {"1"} and one["map"]["head"] == 2
    assert all(abs(a - b) <= 1e-3 for row, want in zip(one["map"]["weights"], expected) for a, b in zip(row, want))


# --- what goes wrong, in words ----------------------------------------------------------------------------------------


def test_a_bad_input_comes_back_as_the_tool_s_worded_error_in_the_caller_s_language(app_url):
    answer = call(app_url, "fill_mask", {"text": "No gap in this sentence."})
    assert answer.isError and answer.content[0].text == text.t("error.no_mask", "en", mask="[MASK]")
    korean = call(app_url, "fill_mask", {"text": "No gap in this sentence."}, **{"Accept-Language": "ko-KR,ko"})
    assert korean.isError and korean.content[0].text == text.t("error.no_mask", "ko", mask="[MASK]")
    out_of_range = call(app_url, "fill_mask", {"text": "A [MASK].", "top_k": 99})
    assert out_of_range.isError and "20" in out_of_range.content[0].text
    head_only = call(app_url, "attention_summary", {"text": "A cat.", "head": 1})
    assert head_only.isError and head_only.content[0].text == text.t("error.head_needs_layer", "en")
    model = call(app_url, "classify", {"text": "Fine.", "model": "someone/else"})
    assert model.isError and "someone/else" in model.content[0].text
    for answer in (answer, korean, out_of_range, head_only, model):
        assert "Traceback" not in answer.content[0].text and "Error(" not in answer.content[0].text


def test_every_bad_input_to_a_tool_s_endpoint_gets_a_worded_message(served, tiny_dir):
    """tests/test_bad_inputs.py's battery, on the tools' endpoints (`/tutor_<tool>`), as an API client sends it."""
    from tests.test_bad_inputs import TOOLS as PREFIX
    from tests.test_bad_inputs import battery_is_worded

    demo, url = served
    every = gradio_compat.api_info(demo)["named_endpoints"]
    endpoints = {name: e for name, e in every.items() if name.startswith(PREFIX)}
    assert len(endpoints) == len(TOOLS) + 3  # the tools, the prompt, the two resources
    battery_is_worded(url, endpoints, every["/generate"], tiny_dir)


ARGUMENT_ERRORS = [  # (tool, arguments, the key that words the refusal, its values)
    ("fill_mask", {"text": "A [MASK].", "top_k": "five"},
     "error.tool_argument_type", {"argument": "top_k", "expected": "integer", "got": "'five'"}),
    ("fill_mask", {"text": "A [MASK].", "top_k": 2.5},
     "error.tool_argument_type", {"argument": "top_k", "expected": "integer", "got": "2.5"}),
    ("classify", {"text": None}, "error.tool_argument_type", {"argument": "text", "expected": "string", "got": "None"}),
    ("fill_mask", {"top_k": 3}, "error.tool_argument_missing", {"argument": "text", "expected": "string"}),
    ("fill_mask", {"text": "A [MASK].", "topk": 3},
     "error.tool_argument_unknown", {"argument": "topk", "arguments": "text, top_k, model"}),
    ("generate", {"prompt": "Hi", "strategy": "random"}, "error.tool_argument_type",
     {"argument": "strategy", "expected": '"greedy" | "beam" | "temperature" | "top_k" | "top_p"', "got": "'random'"}),
    ("attention_summary", {"text": "A cat.", "layer": "last"},
     "error.tool_argument_type", {"argument": "layer", "expected": "null | integer", "got": "'last'"}),
    ("prompt_task", {"train": [["A fine film.", 1]], "test": [], "template": "{text}", "label_words": "a, b"},
     "error.tool_argument_type", {"argument": "train", "expected": "[[string]]", "got": "[['A fine film.', 1]]"}),
]


@pytest.mark.parametrize("lang", text.LANGS)
def test_an_argument_the_tool_s_schema_refuses_is_named_in_the_caller_s_language(app_url, lang):
    """Gradio's MCP server and the MCP SDK refuse a missing argument, an unknown one or a value of another type before
    the tool runs, in English and often without the argument's name ("'five' is not of type 'integer'"): the guard
    refuses them first, naming the argument, in the language the request asks for, as the tools word theirs."""
    async def go():
        async with session(app_url, **{"Accept-Language": f"{lang}-XX,{lang};q=0.9"}) as opened:
            return [await opened.call_tool(tool, arguments) for tool, arguments, _, _ in ARGUMENT_ERRORS]

    for answer, (tool, _, key, values) in zip(asyncio.run(go()), ARGUMENT_ERRORS):
        assert answer.isError and answer.content[0].text == text.t(key, lang, tool=tool, **values), tool
        assert f"`{values['argument']}`" in answer.content[0].text
    # a value out of range is the tool's own to refuse, as the page it mirrors does, in the same language
    out_of_range = call(app_url, "generate", {"prompt": "Hi", "max_new_tokens": 999}, **{"Accept-Language": lang})
    assert out_of_range.isError and out_of_range.content[0].text == text.t(
        "error.out_of_range", lang, what=text.Text("field.New tokens"), low=1, high=config.LIMITS.max_new_tokens,
        got="999")


# --- the prompt and the resources -------------------------------------------------------------------------------------


def test_the_teaching_prompt_is_listed_and_read_in_each_language(app_url):
    async def go():
        async with session(app_url) as opened:
            prompts = (await opened.list_prompts()).prompts
            read = {lang: (await opened.get_prompt(tutor_tools.PROMPT, {"language": lang})).messages[0].content.text
                    for lang in text.LANGS}
            return prompts, read

    prompts, read = asyncio.run(go())
    assert [p.name for p in prompts] == [tutor_tools.PROMPT]
    assert [a.name for a in prompts[0].arguments] == ["language"] and not prompts[0].arguments[0].required
    for lang, words in read.items():
        assert words == text.t("tutor.prompt", lang)
        assert all(name in words for name in TOOLS), lang  # every tool is named as the assistant calls it
    assert "attention is not explanation" in read["en"]


def test_the_glossary_and_the_model_catalogue_are_listed_and_read(app_url):
    async def go():
        async with session(app_url) as opened:
            resources = (await opened.list_resources()).resources
            templates = (await opened.list_resource_templates()).resourceTemplates
            glossary = (await opened.read_resource("bg-demo://glossary/ja")).contents[0].text
            models = (await opened.read_resource(tutor_tools.MODELS_URI)).contents[0].text
            return resources, templates, glossary, models

    resources, templates, glossary, models = asyncio.run(go())
    assert [str(r.uri) for r in resources] == [tutor_tools.MODELS_URI]
    assert [t.uriTemplate for t in templates] == [tutor_tools.GLOSSARY_URI]
    assert glossary == text.t("start.glossary", "ja")
    catalogue = json.loads(models)
    assert list(catalogue) == list(config.ROLES)
    assert [m["id"] for m in catalogue["decoder"]["allowed"]] == list(config.ALLOWED_MODELS["decoder"])
    assert "generate" in catalogue["decoder"]["tools"] and "fill_mask" in catalogue["encoder"]["tools"]
    assert {m["short"]: m["id"] for m in catalogue["decoder"]["allowed"]}["gpt2"] == "openai-community/gpt2"
    assert catalogue["decoder"]["for_text"] == {"en": "openai-community/gpt2", "ko": "skt/kogpt2-base-v2",
                                                "ja": "rinna/japanese-gpt2-small"}
    assert catalogue["sentiment"]["for_text"]["ko"] is None  # no sentiment model reads Korean


# --- models by their short names, and text they do not read --------------------------------------------------------


def test_a_model_is_taken_by_its_short_name_and_reported_by_its_hub_id(app_url):
    """`bert-base-multilingual-cased`, `kogpt2-base-v2`, `gpt2`: the part after the org (for the older models also
    their un-namespaced Hub name) names the allowed model, over MCP and through the API alike."""
    for tool, arguments, full in (
            ("fill_mask", {"text": "서울은 [MASK]의 수도이다.", "model": "bert-base-multilingual-cased"},
             "google-bert/bert-base-multilingual-cased"),
            ("next_token", {"text": "옛날 옛적에", "model": "kogpt2-base-v2"}, "skt/kogpt2-base-v2"),
            ("logit_lens", {"text": "The cat", "model": "gpt2"}, "openai-community/gpt2"),
            ("prompt_task", {**tutor.EXAMPLES["prompt_task"], "model": "gpt2"}, "openai-community/gpt2")):
        assert result_of(app_url, tool, arguments)["model"] == full, tool
    refused = call(app_url, "fill_mask", {"text": "A [MASK].", "model": "bert-base"})
    assert refused.isError and refused.content[0].text == text.t(
        "error.not_offered", "en", model="bert-base", role="encoder", choices=", ".join(config.ALLOWED_MODELS["encoder"]))
    # a page's own endpoint, as an API script calls it
    from gradio_client import Client

    *_, raw = Client(app_url, verbose=False).predict(text="The cat sat on the [MASK].", top_k=2,
                                                     model="bert-base-uncased", api_name="/fill_mask")
    assert raw["model_id"] == "google-bert/bert-base-uncased"


WARNINGS = [  # (tool, arguments, the role whose model reads it, the text's language, the model to pass instead)
    ("fill_mask", {"text": "서울은 한국의 [MASK]이다."}, "encoder", "ko", "google-bert/bert-base-multilingual-cased"),
    ("classify", {"text": "정말 재미있는 영화였다."}, "sentiment", "ko", None),
    ("entities", {"text": "東京はにぎやかな都市です。"}, "ner", "ja", None),
    ("answer", {"question": "에이다는 어디서 일했나?", "context": "에이다는 런던에서 일했다."}, "qa", "ko", None),
    ("generate", {"prompt": "むかしむかし", "max_new_tokens": 3}, "decoder", "ja", "rinna/japanese-gpt2-small"),
    ("next_token", {"text": "옛날 옛적에", "model": "rinna/japanese-gpt2-small"}, "decoder", "ko",
     "skt/kogpt2-base-v2"),
]


def test_a_result_read_from_text_its_model_does_not_read_says_so_and_names_the_model_to_pass(app_url):
    """Korean or Japanese text on a model that reads English only (or the other language) comes back with a warning
    an assistant can act on, as data: no tutor reports bert-base-uncased's jamo fragments as BERT reading Korean."""
    for tool, arguments, role, lang, instead in WARNINGS:
        got = result_of(app_url, tool, arguments)
        reads = "ja" if "rinna" in got["model"] else "en"
        assert got["warning"] == {"code": "model_reads_other_language", "text_language": lang, "model_language": reads,
                                  "use_model": instead}, tool
        assert config.model_for(role, lang) == instead
    # the model that reads the text, English text on an English model: no warning
    for tool, arguments in (("fill_mask", {"text": "서울은 한국의 [MASK]이다.", "model": "bert-base-multilingual-cased"}),
                            ("next_token", {"text": "옛날 옛적에", "model": "skt/kogpt2-base-v2"}),
                            ("classify", tutor.EXAMPLES["classify"])):
        assert "warning" not in result_of(app_url, tool, arguments), tool
    both = result_of(app_url, "compare", {"text": "東京は大きい。", "encoder": "bert-base-multilingual-cased"})
    assert "warning" not in both["encoder"] and both["decoder"]["warning"]["use_model"] == "rinna/japanese-gpt2-small"


# --- an assistant's share -----------------------------------------------------------------------------------------


@pytest.fixture
def slow_classify(monkeypatch):
    """Each sentiment call takes 0.3 s more, so that calls sent together are in flight together."""
    import time

    real = backend.classify

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(backend, "classify", slow)


def test_one_assistant_s_flood_is_held_to_its_share_and_another_assistant_is_not(app_url, slow_classify):
    limit = serving.EVENTS_PER_SESSION

    async def flood(opened, n):
        return await asyncio.gather(*(opened.call_tool("classify", {"text": "Fine."}) for _ in range(n)))

    async def go():
        async with session(app_url, Authorization="Bearer first") as first, \
                session(app_url, Authorization="Bearer second") as second:
            flooded, other = await asyncio.gather(flood(first, limit + 6), flood(second, 1))
            return flooded, other

    flooded, other = asyncio.run(go())
    refused = [answer for answer in flooded if answer.isError]
    assert len(refused) == 6 and len(flooded) - len(refused) == limit
    assert refused[0].content[0].text == text.t("error.busy_session", "en", limit=limit)
    assert not other[0].isError  # another assistant (its own credentials) has its own share


def test_an_assistant_is_a_session_of_its_own_in_the_fair_order():
    """Gradio's MCP server sends every assistant's calls from one session on the loopback: the guard's stamp makes
    each its own, so a student's request waits behind the first call of each, not behind one assistant's flood."""
    def event(session, stamp=None, host="127.0.0.1"):
        headers = {serving.CALLER_HEADER: stamp} if stamp else {}
        request = types.SimpleNamespace(headers=headers, client=types.SimpleNamespace(host=host))
        return types.SimpleNamespace(session_hash=session, request=request)

    def stamp(who, address):
        scope = serving._stamped({"headers": []}, who, address)
        return dict(scope["headers"])[serving.CALLER_HEADER.encode()].decode()

    waiting = serving.FairList()
    flood = [event("loopback", stamp("mcp:a", "198.51.100.1")) for _ in range(4)]
    for one in flood:
        waiting.append(one)
    other = event("loopback", stamp("mcp:b", "198.51.100.2"))
    student = event("student", host="203.0.113.9")
    waiting.append(other)
    waiting.append(student)
    assert waiting[:3] == [flood[0], other, student]
    assert serving.owner("loopback", flood[0].request) == ("mcp:a", "198.51.100.1")
    # a stamp without the server's secret is not believed: the request is its own session, from its own address
    forged = event("forger", "guess mcp:a 198.51.100.1", host="192.0.2.4")
    assert serving.owner("forger", forged.request) == ("forger", "192.0.2.4")


# --- a call its assistant gives up on ---------------------------------------------------------------------------------


@pytest.fixture
def slow_decoding(monkeypatch):
    """Each decoding step takes 0.1 s longer: a 256-token generation runs for 26 s (its 30-s limit aside), long
    after a cancelled one has left."""
    import time

    from bg_demo.backend.generation import engine

    step = engine.DecodingEngine._step
    monkeypatch.setattr(engine.DecodingEngine, "_step", lambda self: (time.sleep(0.1), step(self)))


@pytest.fixture
def submitted(monkeypatch):
    """The handle of every generation a tool call submits."""
    handles = []
    real = backend.submit_generation

    def recorded(*args, **kwargs):
        handles.append(handle := real(*args, **kwargs))
        return handle

    monkeypatch.setattr(backend, "submit_generation", recorded)
    return handles


def until(condition, seconds: float = 15.0) -> None:
    """Wait for `condition()` (the deadline only ends a wait that would never end: the cancelled generations' own end
    comes later)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert condition()


# an assistant that goes away with its calls running: its process ends, and the system closes its connections (a
# process of its own, as an assistant is: on ZeroGPU the app forks a worker per generation, and a client in the app's
# process would leave its connections open in every fork)
GOING_AWAY = """
import asyncio, json, sys
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def calls(url, token, n, arguments):
    async with httpx.AsyncClient(headers={"Authorization": token}, timeout=120) as http, \\
            streamable_http_client(url, http_client=http) as (read, write, _), ClientSession(read, write) as opened:
        await opened.initialize()
        await asyncio.gather(*(opened.call_tool("generate", arguments) for _ in range(n)))

asyncio.run(calls(sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])))
"""


@pytest.mark.parametrize("how", ["closed", "cancelled"])
def test_calls_their_assistant_gave_up_on_end_on_the_server_and_free_its_share(served, slow_decoding, in_flight,
                                                                               submitted, how):
    """An assistant that goes away with its calls running (`closed`: its connections close), or sends MCP's
    notifications/cancelled for them (`cancelled`), gets its whole share back: its generations leave the decoding
    engine and the queue, and its next call runs instead of waiting behind them or being refused as one too many."""
    demo, app_url = served
    limit, token = serving.EVENTS_PER_SESSION, f"Bearer gives-up-{how}"
    long = {"prompt": "Once upon a time", "strategy": "temperature", "max_new_tokens": config.LIMITS.max_new_tokens}

    def running() -> bool:
        return len(submitted) == limit and in_flight() == limit

    def callers(requests) -> set:
        assert len(requests) == limit
        return {caller for caller, _ in requests}

    async def cancelled():
        async with session(app_url, Authorization=token) as opened:
            calls = [asyncio.ensure_future(opened.call_tool("generate", long)) for _ in range(limit)]
            await asyncio.to_thread(until, running)
            requests = serving.MCP_CALLS.open_requests()
            for _, request_id in requests:
                await opened.send_notification(types_.ClientNotification(types_.CancelledNotification(
                    params=types_.CancelledNotificationParams(requestId=request_id))))
            return callers(requests), await asyncio.gather(*calls)

    if how == "closed":
        going = subprocess.Popen([sys.executable, "-c", GOING_AWAY, f"{app_url}gradio_api/mcp/", token, str(limit),
                                  json.dumps(long)])
        try:
            until(running)
            who, answers = callers(serving.MCP_CALLS.open_requests()), []
        finally:
            going.kill()
            going.wait()
    else:
        who, answers = asyncio.run(cancelled())
    assert [answer.content[0].text for answer in answers] == [text.t("error.call_given_up", "en")] * len(answers)
    until(lambda: in_flight() == 0 and all(handle.ended for handle in submitted)
          and not serving.MCP_CALLS.open_requests()
          and not [event for event in gradio_compat.queued(demo) if serving.owner(*event)[0] in who])
    assert all(handle.cancelled.is_set() for handle in submitted)
    small = call(app_url, "generate", {"prompt": "Once", "max_new_tokens": 2}, Authorization=token)
    assert not small.isError and len(json.loads(small.content[0].text)["tokens"]) == 2


def test_a_call_given_up_on_is_stopped_if_it_runs_and_never_run_if_it_waits():
    calls, stopped = serving.McpCalls(), []
    waiting, running, done = (calls.open("mcp:a", n) for n in (1, 2, 3))
    calls.start(running, lambda: stopped.append("running"))
    calls.start(done, lambda: stopped.append("done"))
    calls.finish(done)
    for ticket in (waiting, running, done):
        calls.close(ticket)
    assert stopped == ["running"]  # a tool that has ended is not stopped after it
    with pytest.raises(serving.GivenUp):
        calls.start(waiting)  # its request went while it waited in the queue: it does not run
    calls.start(None)  # a call made otherwise (the REST API) is none of these


def test_a_cancel_stops_the_one_call_it_names_and_never_a_guess():
    calls, stopped = serving.McpCalls(), []
    mine = calls.open("mcp:a", 1)
    calls.start(mine, lambda: stopped.append("mine"))
    other = calls.open("mcp:b", 1)  # another caller's request with the same number
    calls.start(other, lambda: stopped.append("other"))
    assert calls.cancel("mcp:a", 1) and stopped == ["mine"] and calls.given_up(mine) and not calls.given_up(other)
    twice = [calls.open("mcp:c", 7), calls.open("mcp:c", 7)]  # two sessions of one caller, each numbering its own
    assert not calls.cancel("mcp:c", 7) and not any(calls.given_up(ticket) for ticket in twice)
    queued = calls.open("mcp:d", 2)
    assert calls.cancel("mcp:d", 2)
    with pytest.raises(serving.GivenUp):
        calls.start(queued)


def test_only_the_server_s_own_ticket_is_believed():
    scope = serving._stamped({"headers": [(serving.CALL_HEADER.encode(), b"guess 1234")]}, "mcp:a", "192.0.2.1", "ab12")
    headers = {k.decode(): v.decode() for k, v in scope["headers"]}
    assert serving.call_ticket(types.SimpleNamespace(headers=headers)) == "ab12"
    assert serving.call_ticket(types.SimpleNamespace(headers={serving.CALL_HEADER: "guess ab12"})) is None
    assert serving.call_ticket(None) is None


# --- on by default, with a switch ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "wanted"), [(None, True), ("1", True), ("0", False), ("off", False),
                                                ("false", False), ("yes", True)])
def test_the_mcp_server_is_on_unless_switched_off(monkeypatch, value, wanted):
    from bg_demo import ui

    if value is None:
        monkeypatch.delenv(ui.MCP_SWITCH, raising=False)
    else:
        monkeypatch.setenv(ui.MCP_SWITCH, value)
    launched = {}
    stand_in = types.SimpleNamespace(launch=lambda **kwargs: launched.update(kwargs))
    monkeypatch.setattr(ui, "launch_options", lambda: {})
    monkeypatch.setattr(ui, "exit_on_sigterm", lambda: None)  # this process's signal handlers stay pytest's
    ui.launch(stand_in)
    assert launched["mcp_server"] is wanted
    ui.launch(stand_in, mcp_server=False)
    assert launched["mcp_server"] is False


def test_the_command_line_switch_turns_it_off(monkeypatch):
    from bg_demo import __main__ as cli
    from bg_demo import ui

    got = {}
    monkeypatch.setattr(ui, "launch", lambda **kwargs: got.update(kwargs))
    cli.main(["serve", "--no-mcp"])
    assert got["mcp_server"] is False
    cli.main(["serve"])
    assert got["mcp_server"] is None  # launch reads BG_DEMO_MCP then


def test_the_mcp_names_follow_gradio_s_space_prefix(monkeypatch):
    monkeypatch.delenv("SYSTEM", raising=False)
    monkeypatch.setenv("SPACE_ID", "school/bg-demo")
    assert gradio_compat.mcp_name("teach") == "teach"
    monkeypatch.setenv("SYSTEM", "spaces")
    assert gradio_compat.mcp_name("teach") == "bg_demo_teach"  # the Space's name, its hyphen an underscore


def test_the_readme_and_the_doc_name_the_address_and_every_tool():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    readme, doc = (root / "README.md").read_text(encoding="utf-8"), (root / "docs" / "mcp.md").read_text(encoding="utf-8")
    for words in (readme, doc):
        assert f"{gradio_compat.MCP}/" in words and tutor_tools.PROMPT in words and "BG_DEMO_MCP=0" in words
        assert all(f"`{name}" in words for name in TOOLS)
    assert tutor_tools.GLOSSARY_URI in doc and tutor_tools.MODELS_URI in doc
