"""The app's views as tools an AI assistant calls over MCP (Gradio's MCP server, `launch(mcp_server=True)`).

Each function of `bg_demo.tutor.TOOLS` becomes a named endpoint (`/tutor_<tool>`) that Gradio's MCP server lists as
the tool `<tool>`, described by the function's docstring and typed by its signature; beside them a teaching prompt
(`gr.mcp.prompt`) and two resources, the glossary and the model catalogue (`gr.mcp.resource`). The page's own
endpoints stay on the API page and leave the MCP server (`gradio_compat.hide_from_mcp`): they take the reader's look
and return figures.

A tool call is an ordinary call of its endpoint: it joins the same queue as a student's request (in the
concurrency group of the page it mirrors), counts against its caller's share (`serving.owner`: an assistant is a
session of its own), runs the backend under the same limits, and a refusal comes back as the tool's error, worded
in the language the MCP request's Accept-Language asks for, never a traceback. Arguments a tool's schema refuses are
refused so before the call runs (`refused_arguments`, which the guard asks), and a call its assistant gives up on
ends on the server (`stoppable`, `serving.McpCalls`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import typing
import weakref

import gradio as gr
import jsonschema  # the validator the MCP SDK checks arguments with: `mcp` (requirements.txt) depends on it

from bg_demo import text, tutor
from bg_demo.config import ENGINE_ROWS
from bg_demo.errors import shown
from bg_demo.look import Look
from bg_demo.ui import common, gradio_compat, payloads, serving
from bg_demo.ui.page import failure

PREFIX = "tutor_"  # endpoint names: `/tutor_fill_mask`; the page's own `/fill_mask` keeps its name
PROMPT = "teach_bert_and_gpt"
GLOSSARY_URI = "bg-demo://glossary/{lang}"
MODELS_URI = "bg-demo://models"

# the page whose queue each tool waits in (its concurrency group: a tutor's calls take turns with the class's, they
# do not add running slots beside them); explaining and prompting have their own, as they run long
GROUPS = {
    "fill_mask": "fill_mask", "classify": "classify", "entities": "ner", "answer": "qa",
    "next_sentence": "next_sentence", "generate": "generate", "next_token": "decoder", "logit_lens": "decoder",
    "attention_summary": "attention", "compare": "compare", "explain": "tutor_explain", "prompt_task": "tutor_prompt",
}
# the Generate page's group runs a batch of rows at once, the BERT tasks' a batch of requests (`common.BATCHED`)
LIMITS_OF = {"generate": ENGINE_ROWS,
             **dict.fromkeys(("fill_mask", "classify", "entities", "answer", "next_sentence"), common.BATCHED)}
# the API page's example call of each tool: one that runs as shown
payloads.EXAMPLES.update({f"/{PREFIX}{name}": example for name, example in tutor.EXAMPLES.items()})


PATH = "tutor"  # the page holding the tools' endpoints (/tutor): out of the navigation, a line on what they are


def register() -> list[str]:
    """Add the tools, the prompt and the resources to the Blocks being built (their own page: `PATH`); returns the
    endpoint names."""
    names = []
    for fn in tutor.TOOLS:
        name = PREFIX + fn.__name__
        gr.api(tool(fn), api_name=name, concurrency_id=GROUPS[fn.__name__],
               concurrency_limit=LIMITS_OF.get(fn.__name__, "default"))
        names.append(name)
    gr.api(gr.mcp.prompt(name=gradio_compat.mcp_name(PROMPT))(teach_bert_and_gpt), api_name=PREFIX + "prompt",
           concurrency_limit=None)
    gr.api(gr.mcp.resource(GLOSSARY_URI, mime_type="text/markdown")(glossary), api_name=PREFIX + "glossary",
           concurrency_limit=None)
    gr.api(gr.mcp.resource(MODELS_URI, mime_type="text/plain")(models), api_name=PREFIX + "models",
           concurrency_limit=None)
    return [*names, PREFIX + "prompt", PREFIX + "glossary", PREFIX + "models"]


def hide_pages(demo: gr.Blocks, keep: list[str]) -> None:
    """Leave every named endpoint but `keep` out of the MCP server's tools (the page's own: they take the reader's
    look and return figures)."""
    for listener in gradio_compat.listeners(demo):
        if listener.api_name and listener.api_name not in keep and listener.fn is not None:
            gradio_compat.hide_from_mcp(listener.fn)


def tool(fn):
    """`fn` as an endpoint: its public arguments (the keyword-only ones are the server's), its docstring and name;
    the result as compact JSON text; an error as a gr.Error worded in the caller's language."""
    hints = typing.get_type_hints(fn)
    signature = inspect.signature(fn)
    public = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    takes_client = "client" in signature.parameters

    def prepared(args, kwargs):
        """(arguments, keyword arguments, language, the MCP call's ticket): Gradio passes the request last (it finds
        the parameter by its annotation), after the tool's own values."""
        args = list(args)
        request = args.pop() if len(args) > len(public) else kwargs.pop("request", None)
        lang = text.language(request.headers.get("accept-language")) if request is not None else text.DEFAULT
        if takes_client:
            session = getattr(request, "session_hash", None)
            kwargs["client"] = serving.owner(session, request)[0] or ""  # the decoding engine's share: the caller's
        return args, kwargs, lang, serving.call_ticket(request)

    def refused(exc, lang):
        if isinstance(exc, serving.GivenUp):
            return gr.Error(text.t("error.call_given_up", lang), print_exception=False)
        return gr.Error(Look(lang).words(failure(exc, fn.__name__)), print_exception=False)

    if inspect.iscoroutinefunction(fn):
        async def call(*args, **kwargs):
            args, kwargs, lang, ticket = prepared(args, kwargs)

            async def run():
                with text.use(lang):
                    return as_json(await fn(*args, **kwargs))

            try:
                return await stoppable(ticket, run())
            except Exception as exc:
                raise refused(exc, lang) from None
    else:
        def call(*args, **kwargs):
            args, kwargs, lang, ticket = prepared(args, kwargs)
            try:
                # a call given up on while it waited is not run; once running in this thread it cannot be stopped
                serving.MCP_CALLS.start(ticket)
                try:
                    with text.use(lang):
                        return as_json(fn(*args, **kwargs))
                finally:
                    serving.MCP_CALLS.finish(ticket)
            except Exception as exc:
                raise refused(exc, lang) from None

    request = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                annotation=gr.Request)
    call.__signature__ = signature.replace(parameters=[*public, request], return_annotation=str)
    call.__annotations__ = {**{p.name: hints[p.name] for p in public}, "request": gr.Request, "return": str}
    call.__name__ = call.__qualname__ = fn.__name__  # the tool's name
    call.__doc__ = fn.__doc__  # its description, arguments and result, as an assistant reads them
    return call


def refused_arguments(blocks: gr.Blocks, name, arguments, lang: str) -> str | None:
    """Words, in `lang`, for a call of tool `name` whose arguments its schema (the one the MCP server lists) refuses:
    a required argument left out, one the tool does not take, a value of another type or not among the choices, each
    naming the argument; None when they fit, or `name` is no tool of these. The MCP SDK checks the same schema but
    answers in English, naming the value and not always the argument ("'five' is not of type 'integer'"), and Gradio
    answers an unknown argument by asking to click "view API"; so the guard asks this first (`serving.Guard`)."""
    schema = _schemas(blocks).get(name) if isinstance(name, str) else None
    if schema is None or not isinstance(arguments, dict):
        return None  # not one of the tools, or no arguments object: the MCP server's own answer
    properties, required = schema
    for argument in arguments:
        if argument not in properties:
            return text.t("error.tool_argument_unknown", lang, tool=name, argument=argument,
                          arguments=", ".join(properties))
    for argument in required:
        if argument not in arguments:
            return text.t("error.tool_argument_missing", lang, tool=name, argument=argument,
                          expected=expected(properties[argument]))
    for argument, value in arguments.items():
        kind = properties[argument]
        if not jsonschema.validators.validator_for(kind)(kind).is_valid(value):  # as the MCP SDK validates
            return text.t("error.tool_argument_type", lang, tool=name, argument=argument, expected=expected(kind),
                          got=shown(value))
    return None


_SCHEMAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per app: {tool: (properties, required)}


def _schemas(blocks) -> dict:
    """{tool name as listed: ({argument: JSON schema}, [required arguments])}, from the API description of each
    tool's endpoint, as Gradio's MCP server builds each tool's input schema (once per app: it never changes)."""
    if blocks not in _SCHEMAS:
        endpoints = gradio_compat.api_info(blocks)["named_endpoints"]
        found = {}
        for fn in tutor.TOOLS:
            parameters = endpoints.get(f"/{PREFIX}{fn.__name__}", {}).get("parameters", [])
            found[gradio_compat.mcp_name(fn.__name__)] = (
                {p["parameter_name"]: p["type"] for p in parameters},
                [p["parameter_name"] for p in parameters if not p.get("parameter_has_default", False)])
        _SCHEMAS[blocks] = found
    return _SCHEMAS[blocks]


def expected(schema: dict) -> str:
    """An argument's JSON schema as a short type: string, integer, null | integer, [[string]], "greedy" | "beam"."""
    if "enum" in schema:
        return " | ".join(json.dumps(choice, ensure_ascii=False) for choice in schema["enum"])
    for either in ("oneOf", "anyOf"):
        if either in schema:
            return " | ".join(expected(part) for part in schema[either])
    if schema.get("type") == "array":
        return f"[{expected(schema.get('items', {}))}]"
    kind = schema.get("type")
    return kind if isinstance(kind, str) else json.dumps(schema, ensure_ascii=False)


async def stoppable(ticket: str | None, work):
    """Await the coroutine `work`, the tool of MCP call `ticket` (None: a call made otherwise), cancelled as soon as
    its assistant gives up on the call (`serving.McpCalls`), so that it leaves the queue and, for a generation, the
    decoding engine (`tutor.generate` cancels its request) at once; serving.GivenUp then."""
    loop = asyncio.get_running_loop()
    try:
        serving.MCP_CALLS.start(ticket, lambda: loop.call_soon_threadsafe(task.cancel))
    except serving.GivenUp:
        work.close()  # never started
        raise
    task = asyncio.ensure_future(work)  # before any await: the stop above finds it
    try:
        return await task
    except asyncio.CancelledError:
        if asyncio.current_task().cancelling():  # the event itself was cancelled (Gradio's own cancel)
            raise
        raise serving.GivenUp(ticket) from None
    finally:
        serving.MCP_CALLS.finish(ticket)


def as_json(result: dict) -> str:
    """A tool's result as an assistant receives it: compact JSON, each script as itself (not \\u escapes)."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def teach_bert_and_gpt(language: str = "en") -> str:
    """How to teach BERT and GPT-2 with this app's tools: what to call first, how to read each result, and what not to claim (attention is not explanation).

    Args:
        language: The language to teach in: en (English), ko (Korean) or ja (Japanese).
    """
    return tutor.teaching_prompt(language)


def glossary(lang: str) -> str:
    """The app's glossary of transformer terms (token, attention, head, layer, [MASK], fine-tuning, ...), in Markdown.

    Args:
        lang: en, ko or ja.
    """
    return tutor.glossary(lang)


def models() -> str:
    """Each role's default model and the other models a tool's `model` argument accepts (Hub ids, with short name, language and size), which to pass for English, Korean or Japanese text, and which tools read each role; JSON."""
    return tutor.model_catalogue()
