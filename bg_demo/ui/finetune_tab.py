"""Fine-tune or prompt? One labelled task, four ways: BERT and GPT-2, each prompted and fine-tuned, on the same
examples and test sentences, then one table of what each reached and what it used."""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import gradio as gr

from bg_demo import backend, config, figures, text
from bg_demo.backend.finetune import METHODS, RATES
from bg_demo.config import LIMITS
from bg_demo.errors import InputError
from bg_demo.look import Look
from bg_demo.ui import common, gradio_compat, why
from bg_demo.ui.links import Page
from bg_demo.ui.page import Shown, Task, View
from bg_demo.ui.session import SESSIONS, TUNED
from bg_demo.ui.strings import ASSETS, headers, t, tab, table
from bg_demo.ui.view import intro

TAB_ID = "finetune"
PATH = "finetune"  # its address: /finetune
TITLE = "ft.tab"  # its name in the navigation
IDS = ("prompt_bert", "prompt_gpt", "tune_bert", "tune_gpt", "ft_checkpoint")  # the pages a link opens here (`?tab=<id>`)
TASKS = ("sentiment", "topic")
ROLES = ("encoder", "decoder")
NAMES = {"encoder": "bert", "decoder": "gpt"}  # in page ids and labels
STOP_SECONDS = 30.0  # Stop waits this long for a run to end its step and send what it learnt
# A run's page is sent its newest step at most this often: each message draws the loss curve (~7 ms of the event
# loop's time), which for a class of 20 at the generations' 0.15 s would be ~1 s of every second
TRAINING_INTERVAL = 0.5


@cache
def _tasks() -> dict:
    return json.loads((ASSETS / "tasks.json").read_text(encoding="utf-8"))


def built_in(task: str, lang: str) -> dict:
    """The built-in task in `lang` (English where a language has none): its train and test rows, each role's template
    and label words, and the models that read the language."""
    found = _tasks()
    return found.get(lang, found[text.DEFAULT]).get(task) or found[text.DEFAULT][task]


def built_in_models(lang: str) -> dict:
    found = _tasks()
    return found.get(lang, found[text.DEFAULT])["models"]


def load(task, lang):
    """The built-in task into the tables, the templates and label words of both prompt pages, and the pickers."""
    lang = lang if lang in text.LANGS else text.DEFAULT
    task = task if task in TASKS else TASKS[0]
    data, chosen = built_in(task, lang), built_in_models(lang)
    return (data["train"], data["test"],
            data["encoder"]["template"], ", ".join(data["encoder"]["words"]),
            data["decoder"]["template"], ", ".join(data["decoder"]["words"]),
            chosen["encoder"], chosen["decoder"])


def add_row(rows, lang) -> dict:
    """The table with an empty row at its end, for a sentence and its label: a button anyone finds (Gradio's own way
    is in the table's "⋮" menu), the column names in the page's language."""
    rows = [list(row) for row in rows] if isinstance(rows, list) else []
    return {"headers": headers("ft.data_headers", text.language(lang)), "data": [*rows, ["", ""]]}


@cache
def _built_in_values() -> list[set]:
    """For each field `load` fills, every value a built-in task gives it (any task, any language), as the browser
    sends it: what a student has not changed."""
    found = [set() for _ in range(8)]
    for lang in text.LANGS:
        for name in TASKS:
            for k, value in enumerate(load(name, lang)):
                found[k].add(json.dumps(value, ensure_ascii=False) if isinstance(value, list) else value)
    return found


def follow(lang, task, *shown):
    """After a change of language: each field still holding a built-in task's value (or not on the page yet) takes
    the built-in task in the new language, the tables' headers in its words; what a student wrote stays.

    Every field gets a value, never a component or a skip: Gradio keeps either, sent to a field not yet on the page
    (a tab built on its first opening), as that session's copy of it without its value, which the tab's first
    opening would then show empty; a value sent there is dropped instead, and the opening follows (`build`)."""
    lang = text.language(lang)
    fresh, known = load(task, lang), _built_in_values()
    found = []
    for k, (value, new) in enumerate(zip(shown, fresh)):
        if k < 2:  # the tables, as the browser sends them: {"headers", "data"}; an empty one is no one's work
            rows = value.get("data") if isinstance(value, dict) else None
            keep = isinstance(rows, list) and any(rows) and json.dumps(rows, ensure_ascii=False) not in known[k]
            found.append({"headers": headers("ft.data_headers", lang), "data": rows if keep else new})
        else:
            found.append(new if value is None or value == "" or value in known[k] else value)
    return found


def defaults(role: str | None, template: bool):
    """A page's `links.Page.defaults`: the built-in task in a link's language, in the fields a link leaves out (the
    tables; the role's model picker; its template and label words on a prompt page)."""
    def fill(lang: str) -> dict:
        found = load(TASKS[0], lang)
        # the tables with their headers in the link's language (rows alone would take the English ones)
        values = {"train": {"headers": headers("ft.data_headers", lang), "data": found[0]},
                  "test": {"headers": headers("ft.data_headers", lang), "data": found[1]}}
        if role is not None:
            values["model"] = found[6 if role == "encoder" else 7]
        if template:
            first = 2 if role == "encoder" else 4
            values.update(template=found[first], label_words=found[first + 1])
        return values

    return fill


# --- prompting ------------------------------------------------------------------------------------------------------


def _prompting(role: str):
    def compute(model, train, test, template, label_words, shots, seed, calibrate, progress=None):
        return common.run(role, backend.prompt_task, model or role, train, test, template, label_words, shots, seed,
                          calibrate, progress=progress)

    compute.__name__ = f"prompt_{NAMES[role]}"
    return compute


def _table(value: dict, look: Look):
    """A table whose first column (the sentences) takes half a phone's width, the numbers sharing the rest: left to
    itself, the sentence column fills a phone's screen and every number is a sideways scroll away."""
    if not look.narrow:
        return value
    share = 50 / max(1, len(value["headers"]) - 1)
    return gr.Dataframe(value, column_widths=["50%", *(f"{share:.0f}%" for _ in value["headers"][1:])])


def _p(p: float, look: Look):
    """A probability in a table: to three decimals, or as a whole percentage in a phone's narrow columns."""
    return f"{p:.0%}" if look.narrow else round(p, 3)


def _pct(p: float) -> str:
    return f"{p:.0%}"


def prompted(result, look: Look):
    """Headline, every test sentence's label probabilities, the confusion table, the exact first prompt and its
    tokens."""
    calibrated = look.t("ft.calibrated", raw=result.raw_accuracy) if result.calibrated else ""
    headline = look.t("ft.prompt_headline", model=common.plain(result.model_id), shots=result.shots,
                      accuracy=result.accuracy, n=len(result.texts), calibrated=calibrated,
                      longest=max(result.lengths), limit=result.limit)
    words = ", ".join(f"{common.plain(label)} → {common.plain(' '.join(tokens))}"
                      for label, tokens in zip(result.labels, result.word_tokens))
    headline += "\n\n" + look.t("ft.label_words_line", words=words)
    if result.content_free is not None:
        headline += " · N/A: " + ", ".join(f"{common.plain(k)} {_pct(v)}" for k, v in result.content_free.items())
    # on a phone: the sentence, each label's probability and ✓/✗, which fit its width; the rest on a wider screen
    wide = not look.narrow
    columns = [look.t("ft.sentence"), *([look.t("ft.truth")] if wide else []),
               *(f"p({label})" for label in result.labels), *([look.t("ft.predicted")] if wide else []), ""]
    if result.role == "decoder" and wide:
        columns.append(look.t("ft.continuation"))
    data = []
    for i, sentence in enumerate(result.texts):
        right = result.predictions[i] == result.truth[i]
        row = [sentence, *([result.truth[i]] if wide else []),
               *(_p(result.probabilities[i][label], look) for label in result.labels),
               *([result.predictions[i]] if wide else []), look.t("ft.right" if right else "ft.wrong")]
        if result.role == "decoder" and wide:
            row.append(result.continuations[i])
        data.append(row)
    confusion = {"headers": [look.t("ft.confusion_corner"), *result.labels],
                 "data": [[label, *counts] for label, counts in zip(result.labels, result.confusion)]}
    return (headline, _table({"headers": columns, "data": data}, look), confusion, result.prompts[0],
            common.token_view(result.tokens), result.to_dict())


def _build_prompt(reader, role: str, model, train, test) -> tuple[Page, Task, dict]:
    gr.Markdown(t(f"ft.prompt.about.{role}"))
    first = built_in(TASKS[0], text.DEFAULT)[role]
    with gr.Row():
        template = gr.Textbox(first["template"], label=t("ft.template"), lines=2, max_lines=4, scale=3)
        words = gr.Textbox(", ".join(first["words"]), label=t("ft.words"), max_lines=1, scale=2)
    with gr.Row():
        shots = gr.Slider(0, LIMITS.max_shots, value=4 if role == "decoder" else 0, step=1, label=t("ft.shots"))
        seed = gr.Number(0, label=t("ft.seed"), precision=0, min_width=120)
        calibrate = gr.Checkbox(role == "decoder", label=t("ft.calibrate"), visible=role == "decoder")
    button = gr.Button(t("ft.prompt_run"), variant="primary")
    headline = gr.Markdown(render=False)
    exact = gr.Textbox(label=t("ft.prompt_text"), lines=3, max_lines=8, interactive=False, render=False)
    tokens = gr.HighlightedText(label=t("ft.prompt_tokens"), render=False)
    # named columns before a result (a Dataframe with none shows "1 2 3"); a result brings its labels' own
    scores = table("ft.scores_headers", label=t("ft.scores"), interactive=False, wrap=True, render=False,
                   max_height=420)
    confusion = table("ft.confusion_headers", label=t("ft.confusion"), interactive=False, render=False)
    raw = gr.JSON(render=False)
    inputs = {"model": model, "train": train, "test": test, "template": template, "label_words": words,
              "shots": shots, "seed": seed, "calibrate": calibrate}
    task = Task(reader, _prompting(role), prompted, inputs, [headline, scores, confusion, exact, tokens, raw],
                page_id=f"prompt_{NAMES[role]}", api_name="prompt_task" if role == "encoder" else None,
                concurrency_id=role)
    task.render()
    page = task.wire(button)

    def sentence():
        # no minimum or maximum: the explanation names the sentences on screen, beside the output
        return {"sentence": gr.Number(1, label=t("ft.why_sentence"), precision=0, min_width=120)}

    why.section(reader, _explaining(role), {"result": raw}, model=model, page_id=f"why_prompt_{NAMES[role]}",
                api_name=f"explain_prompt_{NAMES[role]}", link=_prompted_text, choices=sentence)
    return page, task, {"template": template, "words": words}


def _picked(result, sentence, key: str = "prompts", first: str = "error.prompt_first") -> int:
    """The index of the test sentence the box picks (it counts from 1) among the result's `key` (its prompts, or a
    run's test sentences), or a message naming those on screen (`first`: there are none yet)."""
    prompts = result.get(key) if isinstance(result, dict) else None
    if not isinstance(prompts, list) or not prompts:
        raise InputError(first)
    fits = isinstance(sentence, (int, float)) and not isinstance(sentence, bool) and 1 <= sentence <= len(prompts)
    if not fits or sentence != int(sentence):
        raise InputError("ft.why_range", n=len(prompts))
    return int(sentence) - 1


def _explaining(role: str):
    def explain(result, sentence, layer=None, head=None, model=None):
        """Why the prompted model scores the predicted label of one test sentence on screen as it does."""
        i = _picked(result, sentence)
        try:
            word = result["label_words"][result["labels"].index(result["predictions"][i])]
        except (KeyError, IndexError, ValueError, TypeError):
            raise InputError("error.prompt_first") from None
        return backend.explain_prompted(model or role, result["prompts"][i], word, layer, head)

    return explain


def _prompted_text(result, sentence=1, *_):
    """The prompt explained, for the Attention tab's link (None when there is none)."""
    try:
        return result["prompts"][_picked(result, sentence)]
    except InputError:
        return None


# --- fine-tuning ----------------------------------------------------------------------------------------------------


def _tuning(role: str):
    page = f"tune_{NAMES[role]}"

    async def compute(model, train, test, method, steps, learning_rate, batch_size, seed, layers, request=None,
                      progress=None):
        session = request.session_hash if request is not None else ""
        TUNED.drop(session, page)  # "Try your model" tries this run's, once it has one

        def submit():
            return backend.fine_tune(model or role, train, test, method, steps, learning_rate, batch_size, seed,
                                     layers)

        # the model a first run loads, named while it loads: an id ("encoder"/"decoder", as the API may say: the role's)
        loading = None if model in (None, "", *ROLES) else model
        async for update in common.stream(role, submit, session, progress, loading, kind=page,
                                          interval=TRAINING_INTERVAL):
            if update.tuned is not None:  # the learnt weights stay on the server, the session's own
                TUNED.keep(session, page, update.tuned)
                update = dataclasses.replace(update, tuned=None)
            yield update

    compute.__name__ = f"fine_tune_{NAMES[role]}"
    return compute


def tune_status(result, look: Look) -> str:
    if not result.done:
        loss = f"{result.losses[-1]:.3f}" if result.losses else "–"
        return look.t("ft.status.running", step=result.step, steps=result.steps, loss=loss, seconds=result.seconds)
    line = look.t("ft.status.done", model=common.plain(result.model_id), method=look.t(f"ft.method.{result.method}"),
                  step=result.step, n=result.train_examples, before=result.accuracy_before,
                  after=result.accuracy_after, changed=f"{result.changed:,}", total=f"{result.total:,}",
                  share=f"{result.changed / result.total:.2%}" if result.total else "–")
    # what Stop did first: where the run stopped and what it had learnt by then, or that it had already ended
    if result.stopped:
        return look.t("ft.status.stopped", step=result.step, steps=result.steps, accuracy=result.accuracy_after) + (
            "\n\n" + line)
    if result.stop_after_end:
        return look.t("ft.status.stop_after_end", steps=result.steps) + "\n\n" + line
    return line


def stop_noted(shown, look: Look):
    """After Stop has reached the page's run (or found none running): a result on screen whose run had already taken
    its last step says so: the student pressed Stop, and sees that the whole run, not part of it, is what it shows.
    (A run Stop reached says "Stopped" itself; so does nothing else.)"""
    result = shown.result if isinstance(shown, Shown) else None
    if result is None or shown.error is not None or not result.done or result.stopped or result.stop_after_end:
        return None
    result = dataclasses.replace(result, stop_after_end=True)
    return (*tuned(result, look), Shown(result))


def tuned(result, look: Look):
    """While it trains: the status and the curve; once done, each test sentence before and after, and the map."""
    status, curve = tune_status(result, look), figures.training_curve(result, look)
    if not result.done:
        return status, curve, None, None, None
    if not result.probabilities_after:  # stopped where its worker went with its weights (ZeroGPU, the tier)
        return status, curve, None, None, result.to_dict()
    rows = []
    keep = [0, 2, 3, 5] if look.narrow else list(range(6))  # a phone: the sentence, p before and after, ✓/✗
    for i, sentence in enumerate(result.texts):
        truth = result.truth[i]
        right = result.predictions_after[i] == truth
        row = [sentence, truth, _p(result.probabilities_before[i][truth], look),
               _p(result.probabilities_after[i][truth], look), result.predictions_after[i],
               look.t("ft.right" if right else "ft.wrong")]
        rows.append([row[k] for k in keep])
    names = headers("ft.before_after_headers", look.lang)
    table_value = _table({"headers": [names[k] for k in keep], "data": rows}, look)
    drawn = figures.vector_map(result, look)
    return status, curve, table_value, drawn, result.to_dict()


def _build_tune(reader, role: str, model, train, test) -> tuple[Page, Task]:
    gr.Markdown(t(f"ft.tune.about.{role}"))
    with gr.Row():
        method = gr.Radio([(t(f"ft.method.{m}"), m) for m in METHODS], value="head", label=t("ft.method"), scale=3)
        layers = gr.Slider(1, LIMITS.tune_layers, value=2, step=1, label=t("ft.layers"), scale=2)
    with gr.Row():
        steps = gr.Slider(1, LIMITS.tune_steps, value=30, step=1, label=t("ft.steps"))
        rate = gr.Number(RATES["head"], label=t("ft.rate"), min_width=120)
        batch = gr.Slider(1, LIMITS.tune_batch, value=8, step=1, label=t("ft.batch"))
        seed = gr.Number(0, label=t("ft.tune_seed"), precision=0, min_width=120)
    with gr.Row():
        button = gr.Button(t("ft.train_run"), variant="primary")
        stop = gr.Button(t("ft.stop"), variant="stop", elem_classes=["bg-stop"])
    status = gr.Markdown(render=False, elem_classes=["bg-tune-status", f"bg-tune-status-{NAMES[role]}"])
    curve = gr.Plot(label=t("ft.curve"), render=False)
    compared = table("ft.before_after_headers", label=t("ft.before_after"), interactive=False, wrap=True,
                     render=False, max_height=420)
    drawn = gr.Plot(label=t("ft.map"), render=False)
    raw = gr.JSON(render=False)
    inputs = {"model": model, "train": train, "test": test, "method": method, "steps": steps, "learning_rate": rate,
              "batch_size": batch, "seed": seed, "layers": layers}
    task = Task(reader, _tuning(role), tuned, inputs, [status, curve, compared, drawn, raw],
                page_id=f"tune_{NAMES[role]}", api_name="fine_tune" if role == "encoder" else None,
                concurrency_id=f"tune_{role}", concurrency_limit=LIMITS.batch_rows)
    task.render()
    page = task.wire(button)

    async def stop_training(request: gr.Request) -> None:  # this page's run only: the other model's goes on
        await SESSIONS.stop(request.session_hash, STOP_SECONDS, kind=f"tune_{NAMES[role]}")

    def noted(shown, lang, width):
        found = stop_noted(shown, Look(lang, width))
        return found if found is not None else tuple(gr.skip() for _ in range(len(task.outputs) + 1))

    # the status keeps its words from the click (no step reached after it is shown, even one already on its way) until
    # the run's final result has come (its stream ends, or Stop's wait for it does); the run ends at its next part and
    # sends what it reached (its stream sends no step after Stop reaches it); the page's event is cancelled should it
    # still be going (a run past STOP_SECONDS); a run that had already ended says so
    thawed = _status_js(role, freeze=False)
    stop.click(stop_training, None, None, js=_status_js(role, freeze=True), api_visibility="private",
               concurrency_limit=None).then(None, js=thawed).then(None, cancels=task.events).then(
        noted, [task.state, *reader.inputs], [*task.outputs, task.state], api_visibility="private", queue=False,
        show_progress="hidden")
    for event in task.events:
        event.then(None, js=thawed)
    button.click(None, js=thawed, api_visibility="private", queue=False)  # a new run shows its steps
    # a student's choice of method sets its learning rate (a link's own rate stays as the link gives it)
    method.input(lambda chosen: RATES.get(chosen, RATES["head"]), method, rate, api_visibility="private",
                 queue=False)

    def sentence():
        return {"sentence": gr.Number(1, label=t("ft.why_tuned_sentence"), precision=0, min_width=120)}

    # the student's own model, not the shared one: the Attention tab (which shows the shared model) is not linked
    why.section(reader, _explaining_tuned(role), {"result": raw}, page_id=f"why_tune_{NAMES[role]}",
                api_name=f"explain_tune_{NAMES[role]}", link=None, choices=sentence)
    _build_try(reader, role)
    return page, task


def _status_js(role: str, freeze: bool) -> str:
    """Browser code for Stop: the page's status keeps the words it has at the click, saying it is stopping in the
    page's language (`freeze`), until the run's final result has come (`freeze` False). A step the server had already
    sent when the click reached it would otherwise still be shown after the click; the live status goes on following
    the stream underneath, hidden (assets/style.css, `data-bg-frozen`: an attribute, which Gradio's own rendering of
    the block leaves alone)."""
    boxes = f"document.querySelectorAll('.bg-tune-status-{NAMES[role]}')"
    if not freeze:
        return f"() => {{ for (const box of {boxes}) delete box.dataset.bgFrozen; }}"
    words = json.dumps({lang: text.t("ft.status.stopping", lang) for lang in text.LANGS}, ensure_ascii=False)
    text_of = json.dumps(gradio_compat.MARKUP["markdown_text"])
    return (f"() => {{ const words = {words}; "
            f"const lang = (document.documentElement.lang || 'en').toLowerCase().split(/[-_]/)[0]; "
            f"const say = words[lang] || words.en; "
            f"for (const box of {boxes}) {{ const md = box.querySelector({text_of}); "  # its words, not the timer
            f"const shown = md ? md.innerText.trim() : ''; "
            f"box.dataset.bgFrozen = shown ? `${{shown}} · ${{say}}` : say; }} }}")


def _explaining_tuned(role: str):
    page = f"tune_{NAMES[role]}"

    def explain(result, sentence, layer=None, head=None, request=None):
        """Why this session's fine-tuned model (`TUNED`: its own, never another student's) gives one test sentence
        on screen the label it predicts."""
        i = _picked(result, sentence, "texts", "error.tune_why_first")
        found = TUNED.get(request.session_hash if request is not None else "", page)
        if found is None:  # none yet, a new run under way, or one whose weights stayed in its GPU worker
            raise InputError("error.tune_why_first")
        return backend.explain_tuned(found, result["texts"][i], layer, head)

    return explain


def _build_try(reader, role: str) -> None:
    page = f"tune_{NAMES[role]}"
    with gr.Accordion(t("ft.try"), open=True):
        with gr.Row(equal_height=True):
            sentence = gr.Textbox(label=t("ft.sentence"), max_lines=2, scale=4)
            button = gr.Button(t("ft.try_run"), scale=1, min_width=140, elem_classes=["bg-run"])
        bars = gr.Plot(label=t("ft.try_result"), render=False)

        def compute(text_, request=None):
            found = TUNED.get(request.session_hash if request is not None else "", page)
            if found is None:
                raise InputError("error.tune_nothing")
            return backend.predict_tuned(found, text_)

        compute.__name__ = f"try_{NAMES[role]}"
        task = Task(reader, compute, lambda result, look: figures.label_bars(result.probabilities, look),
                    {"text": sentence}, [bars], page_id=f"try_{NAMES[role]}", concurrency_id=role)
        task.error.render()
        bars.render()
        task.wire(button, sentence, share=False, linked=False)  # a link opens the page, not this try


# --- all four -------------------------------------------------------------------------------------------------------


def checkpoint(train, test, progress=None):
    return common.run("sentiment", backend.checkpoint_scores, train, test, progress=progress)


def checkpoint_line(result, look: Look) -> str:
    return look.t("ft.way.checkpoint") + f": **{result.accuracy:.0%}** ({common.plain(result.model_id)})"


def summary_rows(look: Look, prompts, tunes, scored) -> dict:
    """One row per way: what it used and what it reached; a page not run yet says so."""
    rows = []
    for role, shown in zip(ROLES, prompts):
        result = shown.result if isinstance(shown, Shown) else None
        if result is None:
            rows.append([look.t(f"ft.way.prompt.{role}", shots="k", calibrated=""), "–", "–", "0",
                         look.t("ft.way.not_run")])
            continue
        way = look.t(f"ft.way.prompt.{role}", shots=result.shots,
                     calibrated=look.t("ft.way.calibrated") if result.calibrated else "")
        rows.append([way, result.model_id, str(result.train_examples), "0", _pct(result.accuracy)])
    for role, shown in zip(ROLES, tunes):
        result = shown.result if isinstance(shown, Shown) else None
        if result is None or not result.done:
            rows.append([look.t(f"ft.way.tune.{role}", method="…"), "–", "–", "–", look.t("ft.way.not_run")])
            continue
        way = look.t(f"ft.way.tune.{role}", method=look.t(f"ft.method.{result.method}"))
        rows.append([way, result.model_id, str(result.train_examples), f"{result.changed:,}",
                     f"{_pct(result.accuracy_before)} → {_pct(result.accuracy_after)}"])
    result = scored.result if isinstance(scored, Shown) else None
    info = config.MODEL_INFO.get(result.model_id) if result else None
    total = f"{info.parameters / 1e6:.0f}M" if info else "–"
    rows.append([look.t("ft.way.checkpoint"), result.model_id if result else "–", look.t("ft.sst2_examples"),
                 look.t("ft.all_weights", total=total) if result else "–",
                 _pct(result.accuracy) if result else look.t("ft.way.not_run")])
    return {"headers": headers("ft.summary_headers", look.lang), "data": rows}


def _build_summary(reader, train, test, prompt_tasks, tune_tasks) -> Page:
    gr.Markdown(t("ft.summary.about"))
    button = gr.Button(t("ft.checkpoint_run"), elem_classes=["bg-run"])
    line = gr.Markdown(render=False)
    raw = gr.JSON(render=False)
    task = Task(reader, checkpoint, lambda result, look: (checkpoint_line(result, look), result.to_dict()),
                {"train": train, "test": test}, [line, raw], page_id="ft_checkpoint", api_name="checkpoint_scores",
                concurrency_id="sentiment")
    rows = table("ft.summary_headers", label=t("ft.summary"), interactive=False, wrap=True)
    task.render()
    page = task.wire(button, share=False)
    tasks = [*prompt_tasks, *tune_tasks, task]
    states = [each.state for each in tasks]

    def summed(look: Look, shown) -> dict:
        return summary_rows(look, shown[:2], shown[2:4], shown[4])

    # the table is a view of each of the five pages (any one with a result draws it, from all five states), so a
    # change of look words it again with the rest
    for k, each in enumerate(tasks):
        def render(result, look: Look, *others, k=k):
            return summed(look, [*others[:k], Shown(result), *others[k:]])

        reader.views.append(View(each.state, render, [rows], [state for state in states if state is not each.state]))

    def redraw(lang, width, *shown):
        return summed(Look(lang, width), shown)

    gr.on([state.change for state in states], redraw, [*reader.inputs, *states], [rows],
          api_visibility="private", queue=False)
    return page


def build(reader) -> list[Page]:
    intro("ft.about")
    first = built_in(TASKS[0], text.DEFAULT)
    with gr.Row():
        task = gr.Radio([(t(f"ft.task.{name}"), name) for name in TASKS], value=TASKS[0], label=t("ft.task"),
                        scale=3)
        with gr.Column(scale=1, min_width=160):
            load_button = gr.Button(t("ft.load"))
    with gr.Row():
        encoder = common.model_picker("encoder")
        decoder = common.model_picker("decoder")
    with gr.Accordion(t("ft.data"), open=False):
        with gr.Row():
            # their headers follow the language with their rows (`follow`), not as other tables' do
            with gr.Column(min_width=280):
                train = gr.Dataframe(value=first["train"], headers=headers("ft.data_headers"),
                                     label=t("ft.train"), interactive=True, type="array",
                                     column_count=(2, "fixed"), wrap=True, max_height=360,
                                     elem_id="bg-ft-train")
                add_train = gr.Button(t("ft.add_row"), size="sm", elem_classes=["bg-add-row"])
            with gr.Column(min_width=280):
                test = gr.Dataframe(value=first["test"], headers=headers("ft.data_headers"), label=t("ft.test"),
                                    interactive=True, type="array", column_count=(2, "fixed"), wrap=True,
                                    max_height=360)
                add_test = gr.Button(t("ft.add_row"), size="sm", elem_classes=["bg-add-row"])
        for table_, button in ((train, add_train), (test, add_test)):
            button.click(add_row, [table_, reader.lang], table_, api_visibility="private", queue=False)
    pickers = {"encoder": encoder, "decoder": decoder}
    pages, prompts, tunes, fills = [], [], [], {}
    with gr.Tabs(overflow_behavior="wrap") as tabs:
        for role in ROLES:
            with tab(f"ft.prompt_{NAMES[role]}", id=f"prompt_{NAMES[role]}"):
                page, made, fills[role] = _build_prompt(reader, role, pickers[role], train, test)
                pages.append((page, f"prompt_{NAMES[role]}"))
                prompts.append(made)
        for role in ROLES:
            with tab(f"ft.tune_{NAMES[role]}", id=f"tune_{NAMES[role]}"):
                page, made = _build_tune(reader, role, pickers[role], train, test)
                pages.append((page, f"tune_{NAMES[role]}"))
                tunes.append(made)
        with tab("ft.summary", id="ft_summary"):
            summary = _build_summary(reader, train, test, prompts, tunes)
            pages.append((summary, "ft_summary"))
    filled = [train, test, fills["encoder"]["template"], fills["encoder"]["words"], fills["decoder"]["template"],
              fills["decoder"]["words"], encoder, decoder]
    load_button.click(load, [task, reader.lang], filled, api_visibility="private", queue=False)
    # a Korean or Japanese page starts on its own language's task, as an English one on English sentences (the
    # page's load sets the switch to such a language, and its change runs this)
    reader.on_language.append((follow, [reader.lang, task, *filled], filled,
                               dict(queue=False, preprocess=False, show_progress="hidden")))
    roles = {"prompt_bert": "encoder", "prompt_gpt": "decoder", "tune_bert": "encoder", "tune_gpt": "decoder"}
    return [Page(page.id, page.fields, ((tabs, tab_id),), page.runs,
                 defaults=defaults(roles.get(tab_id), tab_id.startswith("prompt"))) for page, tab_id in pages]
