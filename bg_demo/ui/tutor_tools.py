"""The app's views as tools an AI assistant calls over MCP (Gradio's MCP server, `launch(mcp_server=True)`).

Each function of `bg_demo.tutor.TOOLS` becomes a named endpoint (`/tutor_<tool>`) that Gradio's MCP server lists as
the tool `<tool>`, described by the function's docstring and typed by its signature; beside them a teaching prompt
(`gr.mcp.prompt`) and two resources, the glossary and the model catalogue (`gr.mcp.resource`). The page's own
endpoints stay on the API page and leave the MCP server (`gradio_compat.hide_from_mcp`): they take the reader's look
and return figures.

A tool call is an ordinary call of its endpoint: it joins the same queue as a student's request (in the
concurrency group of the page it mirrors), counts against its caller's share (`serving.owner`: an assistant is a
session of its own), runs the backend under the same limits, and a refusal comes back as the tool's error, worded
in the language the MCP request's Accept-Language asks for, never a traceback.
"""

from __future__ import annotations

import inspect
import json
import typing

import gradio as gr

from bg_demo import text, tutor
from bg_demo.config import LIMITS
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
LIMITS_OF = {"generate": LIMITS.batch_rows,
             **dict.fromkeys(("fill_mask", "classify", "entities", "answer", "next_sentence"), common.BATCHED)}
# the API page's example call of each tool: one that runs as shown
payloads.EXAMPLES.update({f"/{PREFIX}{name}": example for name, example in tutor.EXAMPLES.items()})


def register() -> list[str]:
    """Add the tools, the prompt and the resources to the Blocks being built (first, so that the tools take their
    plain names); returns the endpoint names."""
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
        """(arguments, keyword arguments, language): Gradio passes the request last (it finds the parameter by its
        annotation), after the tool's own values."""
        args = list(args)
        request = args.pop() if len(args) > len(public) else kwargs.pop("request", None)
        lang = text.language(request.headers.get("accept-language")) if request is not None else text.DEFAULT
        if takes_client:
            session = getattr(request, "session_hash", None)
            kwargs["client"] = serving.owner(session, request)[0] or ""  # the decoding engine's share: the caller's
        return args, kwargs, lang

    def refused(exc, lang):
        return gr.Error(Look(lang).words(failure(exc, fn.__name__)), print_exception=False)

    if inspect.iscoroutinefunction(fn):
        async def call(*args, **kwargs):
            args, kwargs, lang = prepared(args, kwargs)
            try:
                with text.use(lang):
                    return as_json(await fn(*args, **kwargs))
            except Exception as exc:
                raise refused(exc, lang) from None
    else:
        def call(*args, **kwargs):
            args, kwargs, lang = prepared(args, kwargs)
            try:
                with text.use(lang):
                    return as_json(fn(*args, **kwargs))
            except Exception as exc:
                raise refused(exc, lang) from None

    request = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                annotation=gr.Request)
    call.__signature__ = signature.replace(parameters=[*public, request], return_annotation=str)
    call.__annotations__ = {**{p.name: hints[p.name] for p in public}, "request": gr.Request, "return": str}
    call.__name__ = call.__qualname__ = fn.__name__  # the tool's name
    call.__doc__ = fn.__doc__  # its description, arguments and result, as an assistant reads them
    return call


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
    """Each role's default model and the other models a tool's `model` argument accepts (Hub ids, with language and size), and which tools read each role; JSON."""
    return tutor.model_catalogue()
