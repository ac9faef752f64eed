"""Figures for the fine-tune-or-prompt page: a run's loss and accuracy as it trains, and the test sentences' vectors
before and after it (PCA), coloured by their label."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bg_demo.figures.style import OKABE_ITO, SERIES_COLOURS, base_layout, plain
from bg_demo.look import Look

HEIGHT = 360
NARROW_HEIGHT = 340
MAP_HEIGHT = 380
NARROW_MAP_HEIGHT = 620  # the two pictures one above the other


def training_curve(result, look: Look) -> go.Figure:
    """The loss of every step (left axis) and the train and test accuracy at each evaluation (right axis, 0-100%).

    result: a TuneResult (`losses`, one per step; `evaluations`, (step, train accuracy, test accuracy)). Drawn for
    every streamed update of a class's runs, so it is built in one constructor call, from plain dicts (plotly's
    `make_subplots` and `update_*` calls cost ~20 ms an update; this ~1 ms)."""
    steps = list(range(1, len(result.losses) + 1))
    step, loss_name = look.t("fig.ft.step"), look.t("fig.ft.loss")
    traces = [go.Scatter(x=steps, y=list(result.losses), mode="lines+markers" if len(steps) < 40 else "lines",
                         name=loss_name, line=dict(color=OKABE_ITO["vermillion"], width=2), marker=dict(size=5),
                         hovertemplate=f"{step} %{{x}}: {loss_name} %{{y:.3f}}<extra></extra>")]
    evaluated = [e[0] for e in result.evaluations]
    for k, (key, colour, dash) in enumerate((("fig.ft.train_accuracy", OKABE_ITO["blue"], "dot"),
                                             ("fig.ft.test_accuracy", OKABE_ITO["green"], "solid")), start=1):
        traces.append(go.Scatter(x=evaluated, y=[e[k] for e in result.evaluations], mode="lines+markers", yaxis="y2",
                                 name=look.t(key), line=dict(color=colour, dash=dash, width=2), marker=dict(size=7),
                                 hovertemplate=f"{step} %{{x}}: {look.t(key)} %{{y:.0%}}<extra></extra>"))
    title = look.t("fig.ft.curve_title", method=look.t(f"ft.method.{result.method}"))
    last = f"{result.losses[-1]:.3f}" if result.losses else "–"
    subtitle = look.t("fig.ft.curve_subtitle", step=result.step, steps=result.steps, loss=last)
    test = result.evaluations[-1][2] if result.evaluations else result.accuracy_before
    alt = look.t("fig.alt.ft_curve", n=len(result.losses), first=f"{result.losses[0]:.3f}" if result.losses else "–",
                 last=last, accuracy=f"{test:.0%}")
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    layout = base_layout(NARROW_HEIGHT if look.narrow else HEIGHT, look, title, subtitle, alt=alt, legend=legend)
    layout["margin"]["b"] = 70 if look.narrow else 60
    named = not look.narrow  # a phone names the axes in the legend only: their titles would take the plot's width
    layout.update(
        xaxis=dict(title=dict(text=step), range=[0.5, max(result.steps, 1) + 0.5]),
        yaxis=dict(title=dict(text=loss_name if named else None), rangemode="tozero"),
        yaxis2=dict(title=dict(text=look.t("fig.ft.accuracy") if named else None), range=[-0.02, 1.02],
                    tickformat=".0%", dtick=0.25, overlaying="y", side="right", showgrid=False),
    )
    return go.Figure(traces, layout)


def vector_map(result, look: Look) -> go.Figure:
    """The test sentences' vectors (what the head reads) on their two main directions (PCA), before and after the
    run, one colour per true label; a hollow marker where the model's prediction is wrong.

    result: a done TuneResult (`points_before`, `points_after`, `truth`, `predictions_after`, `texts`)."""
    narrow = look.narrow
    titles = [look.t("fig.ft.before"), look.t("fig.ft.after")]
    fig = make_subplots(rows=2 if narrow else 1, cols=1 if narrow else 2, subplot_titles=titles,
                        vertical_spacing=0.14, horizontal_spacing=0.08)
    before = [max(p, key=p.get) for p in result.probabilities_before]
    panels = ((result.points_before, before), (result.points_after, result.predictions_after))
    for k, (points, predicted) in enumerate(panels):
        row, col = (k + 1, 1) if narrow else (1, k + 1)
        for j, label in enumerate(result.labels):
            at = [i for i, truth in enumerate(result.truth) if truth == label]
            if not at or not points:
                continue
            colour = SERIES_COLOURS[j % len(SERIES_COLOURS)]
            right = [i for i in at if predicted and predicted[i] == label]
            fig.add_trace(go.Scatter(
                x=[points[i][0] for i in at], y=[points[i][1] for i in at], mode="markers", name=plain(label),
                legendgroup=label, showlegend=False,
                marker=dict(size=11, color=[colour if i in right else "white" for i in at],
                            line=dict(color=colour, width=2)),
                customdata=[[plain(result.texts[i]), plain(predicted[i]) if predicted else ""] for i in at],
                hovertemplate=f"%{{customdata[0]}}<br>{look.t('fig.ft.predicted')}: %{{customdata[1]}}<extra></extra>",
            ), row=row, col=col)
    # the legend says what a marker means, not how the first one drawn looks (a label whose first sentence was
    # predicted wrong would show hollow beside its name): each label filled, then one hollow marker for "wrong"
    for j, label in enumerate(result.labels):
        colour = SERIES_COLOURS[j % len(SERIES_COLOURS)]
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=plain(label), legendgroup=label,
                                 marker=dict(size=11, color=colour, line=dict(color=colour, width=2)),
                                 hoverinfo="skip"), row=1, col=1)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=look.t("fig.ft.wrong"), hoverinfo="skip",
                             marker=dict(size=11, color="white", line=dict(color="#555555", width=2))), row=1, col=1)
    # the directions have no unit: named, without ticks
    fig.update_xaxes(showticklabels=False, zeroline=False, title_text=look.t("fig.ft.direction", n=1))
    fig.update_yaxes(showticklabels=False, zeroline=False, title_text=look.t("fig.ft.direction", n=2))
    title = look.t("fig.ft.map_title")
    subtitle = look.t("fig.ft.map_subtitle")
    if result.method == "head":  # the body did not train: the same vectors, read by a new head
        subtitle += " · " + look.t("fig.ft.map_head")
    alt = look.t("fig.alt.ft_map", n=len(result.texts), before=f"{result.accuracy_before:.0%}",
                 after=f"{result.accuracy_after:.0%}" if result.accuracy_after is not None else "–")
    legend = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    layout = base_layout(NARROW_MAP_HEIGHT if narrow else MAP_HEIGHT, look, title, subtitle, subplot_titles=1,
                         alt=alt, legend=legend)
    layout["margin"]["b"] = 50
    fig.update_layout(**layout)
    return fig
