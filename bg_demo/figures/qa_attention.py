"""Where the answer looks: the attention from the answer's first and last tokens over the keys of its window."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from bg_demo.backend._common import require_int
from bg_demo.figures.axes import X_TITLE_ROOM, label_depth, plot_px, shorten, token_names, token_x_axis
from bg_demo.figures.style import LINE, OKABE_ITO, axis_title_above, base_layout, plain, text_width, top_margin
from bg_demo.look import Look

HEIGHT = 400  # px on a laptop or projector: title, subtitle, two lines, slanted key labels, legend
NARROW_PLOT = 230  # px of lines on a phone, under which come the upright key labels and the legend
LEGEND_ROW = 22  # px per row of a legend set under a phone's plot
ANSWER_CHARS = 40  # the answer quoted in the subtitle, cut with "…" past this
REGION_FILL = {"question": OKABE_ITO["sky"], "answer": OKABE_ITO["orange"]}
LABEL_SIZE = 12  # px of the regions' names over the plot
LABEL_GAP = 8  # px between two of them
ROWS = ("start", "end")  # rows[l, h, 0] from the answer's first token, rows[l, h, 1] from its last


def _runs(parts, wanted: str) -> list[tuple[int, int]]:
    """(first, last) of each run of tokens whose part is `wanted`."""
    runs, begin = [], None
    for i, part in enumerate([*parts, None]):
        if part == wanted and begin is None:
            begin = i
        elif part != wanted and begin is not None:
            runs.append((begin, i - 1))
            begin = None
    return runs


def _band(first: int, last: int, colour: str, opacity: float) -> dict:
    return dict(type="rect", xref="x", yref="paper", x0=first - 0.5, x1=last + 0.5, y0=0, y1=1, fillcolor=colour,
                opacity=opacity, line_width=0, layer="below")


def _label(text: str, x: float, anchor: str) -> dict:
    """A region's name over the plot, at key position `x`."""
    return dict(text=text, x=x, xref="x", xanchor=anchor, y=1, yref="paper", yanchor="bottom", showarrow=False,
                font=dict(size=LABEL_SIZE))


def answer_attention_lines(result, look: Look, layer: int = 0, head: int = 0) -> go.Figure:
    """Two lines across the window's keys: the attention from the answer's first token and from its last, at one
    layer and head, with the question shaded, the answer marked and the context the rest; the hover names each key
    token whole with its weight. result: a backend AnswerAttention (rows (L, H, 2, T))."""
    n_layers, n_heads = result.rows.shape[:2]
    layer = require_int(layer, "layer", 0, n_layers - 1)
    head = require_int(head, "head", 0, n_heads - 1)
    rows = result.rows[layer, head].astype(np.float32)  # (2, T)
    tokens, narrow = result.tokens, look.narrow
    n = len(tokens)
    parts = [look.t(f"fig.qa_attention.part.{part}") for part in result.parts]
    names = [f"{name} · {part}" for name, part in zip(token_names(tokens), parts)]
    x = np.arange(n, dtype=np.float32)
    fig = go.Figure()
    for i, (row, colour, dash) in enumerate(zip(ROWS, (OKABE_ITO["blue"], OKABE_ITO["vermillion"]), ("solid", "dot"))):
        token = tokens[result.start if row == "start" else result.end]
        name = look.t(f"fig.qa_attention.from_{row}", token=plain(shorten(token)))
        whole = look.t(f"fig.qa_attention.from_{row}", token=plain(token))
        hover = f"{whole} → %{{customdata}}<br>%{{y:.3f}}<extra></extra>"
        fig.add_trace(go.Scatter(x=x, y=rows[i], customdata=names, mode="lines", name=name, hovertemplate=hover,
                                 line=dict(color=colour, width=2, dash=dash, shape="hvh")))
    shapes, labels = [], []
    per_token = plot_px(look) / max(n, 1)  # px of plot per key
    question = _runs(result.parts, "question")
    for first, last in question:
        shapes.append(_band(first, last, REGION_FILL["question"], 0.18))
        labels.append(_label(look.t("fig.qa_attention.part.question"), first - 0.5, "left"))
    shapes.append(_band(result.start, result.end, REGION_FILL["answer"], 0.45))
    answer_word = f"<b>{look.t('fig.qa_attention.answer')}</b>"
    answer_left = ((result.start + result.end) / 2 + 0.5) * per_token - text_width(answer_word, LABEL_SIZE) / 2
    # an answer right after the question (a narrow plot puts them a few px apart): its name moves right, clear of
    # the question's, which it covered
    question_right = ((question[0][0] * per_token + text_width(look.t("fig.qa_attention.part.question"), LABEL_SIZE)
                       + LABEL_GAP) if question else 0.0)
    nudge = max(0.0, question_right - answer_left)
    answer_left += nudge
    labels.append(dict(_label(answer_word, (result.start + result.end) / 2, "center"), xshift=nudge))
    context = _runs(result.parts, "context")
    if context:  # named at its start, clear of the question's name, when that leaves it clear of the answer's
        words = look.t("fig.qa_attention.part.context")
        after_question = (text_width(look.t("fig.qa_attention.part.question"), LABEL_SIZE) + LABEL_GAP
                          - (question[0][1] - question[0][0] + 1) * per_token) if question else 0
        left = (context[0][0] - 0.5) * per_token + max(0.0, after_question)
        if left + text_width(words, LABEL_SIZE) + LABEL_GAP <= answer_left or left >= answer_left + 2 * LABEL_GAP \
                + text_width(answer_word, LABEL_SIZE):
            labels.append(dict(_label(words, context[0][0] - 0.5, "left"), xshift=max(0.0, after_question)))
    title = look.t("fig.qa_attention.title", layer=layer, head=head)
    answer = plain(shorten(result.answer, ANSWER_CHARS))
    subtitle = look.t("fig.qa_attention.subtitle", window=result.window + 1, windows=result.n_windows, answer=answer,
                 n=n)
    peaks = [int(np.argmax(row)) for row in rows]
    alt = look.t("fig.qa_attention.alt", title=title, n=n, window=result.window + 1,
            start_key=tokens[peaks[0]], start_weight=f"{rows[0, peaks[0]]:.3f}",
            end_key=tokens[peaks[1]], end_weight=f"{rows[1, peaks[1]]:.3f}")
    top = float(rows.max()) * 1.08 or 1.0
    weight = look.t("fig.qa_attention.weight")
    xaxis = dict(**token_x_axis(tokens, look, plot_px(look)), range=[-0.5, n - 0.5],
                 title_text=look.t("fig.qa_attention.keys"))
    yaxis = dict(range=[0, top], rangemode="tozero", zeroline=False, tickformat=".2f")
    if not narrow:
        legend = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
        layout = base_layout(HEIGHT, look, title, subtitle, subplot_titles=1, alt=alt, legend=legend, shapes=shapes,
                             annotations=labels, hovermode="closest")
        fig.update_layout(**layout, xaxis=xaxis, yaxis=dict(yaxis, title_text=weight))
        fig.update_layout(margin_b=fig.layout.margin.b + 2 * LEGEND_ROW + 8)
        return fig
    # a phone: the weight's name across the top (no width lost beside the plot), upright key labels, the legend under
    bottom = label_depth(xaxis) + X_TITLE_ROOM + 2 * LEGEND_ROW + 8
    weight_title = dict(axis_title_above(weight), yshift=4 + LINE)  # above the region labels
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    height = top_margin(title, subtitle, 2) + NARROW_PLOT + bottom  # one line each: base_layout adds wrapped ones
    fig.update_layout(**base_layout(height, look, title, subtitle, subplot_titles=2, alt=alt, shapes=shapes,
                                    hovermode="closest", annotations=[*labels, weight_title], legend=legend),
                      xaxis=xaxis, yaxis=yaxis)
    fig.update_layout(margin_b=bottom)
    return fig
