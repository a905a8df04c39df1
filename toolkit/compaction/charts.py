"""Charts of simulator frames (``toolkit.compaction.simulator``), for the compaction notebook."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from toolkit.axes import count_axis
from toolkit.compaction.policy import POLICIES
from toolkit.costs.models import resolve

ORDER = list(POLICIES)
"""Built-in policies in the order charts list them; a policy of your own comes after them."""


def _rank(column: str) -> pl.Expr:
    return pl.col(column).replace_strict(ORDER, list(range(len(ORDER))), default=len(ORDER),
                                         return_dtype=pl.Int64)


def per_session(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per session x policy x model: what it cost, what it kept at its last turn."""
    return (
        frame.sort("turn")
        .group_by("file", "session", "policy", "model", maintain_order=True)
        .agg(
            pl.col("cost_usd").sum(), pl.col("compactions").sum(), pl.col("rejected").sum(),
            pl.col("cache_break").sum().alias("cache_breaks"), pl.col("context_tokens").max().alias("peak_tokens"),
            pl.col("retention").last(), pl.col("facts").last(), pl.col("needed").sum(),
            pl.col("needed_lost").sum(),
        )
        .with_columns(provider=pl.col("model").map_elements(lambda m: resolve(m).family.provider,
                                                             return_dtype=pl.String))
    )


FRONTIER_ROW = 20
"""Height of one policy's row in the frontier, in pixels: room for its mean's label."""


def frontier(frame: pl.DataFrame) -> Any:
    """Per model, each policy's mean cost per session beside the share of facts it kept at the
    last turn: the tradeoff a policy makes. A row per policy, so that policies which act alike (all
    of them, on sessions that never fill the window) cannot hide one another in one place; faint
    ticks are the sessions behind each mean, and a red mean marks a policy that let requests
    overflow the window (the provider refuses those, so its cost is not comparable)."""
    sessions = per_session(frame)
    means = (sessions.group_by("policy", "model", maintain_order=True)
             .agg(pl.col("cost_usd").mean(), pl.col("retention").mean(), pl.len().alias("sessions"),
                  pl.col("rejected").sum())
             .with_columns(overflow=pl.col("rejected") > 0))
    named = set(sessions["policy"])
    order = [p for p in ORDER if p in named] + sorted(named - set(ORDER))
    rows = []
    for model in sessions["model"].unique(maintain_order=True).to_list():
        own, mean = sessions.filter(pl.col("model") == model), means.filter(pl.col("model") == model)
        panels = [_frontier_panel(own, mean, order, column, title, fmt, scale)
                  for column, title, fmt, scale in (
                      ("cost_usd", "mean cost per session (USD, list prices)", "$.3f", alt.Scale(zero=True)),
                      ("retention", "facts kept at the last turn", ".0%", alt.Scale(domain=[0, 1])))]
        rows.append(alt.hconcat(*panels).properties(title=model))
    return alt.vconcat(*rows).resolve_scale(color="shared")


def _frontier_panel(sessions: pl.DataFrame, means: pl.DataFrame, order: list[str], column: str, title: str,
                    fmt: str, scale: alt.Scale) -> Any:
    y = alt.Y("policy:N", sort=order, scale=alt.Scale(domain=order), title=None)
    ticks = alt.Chart(sessions).mark_tick(opacity=0.4, thickness=1, size=FRONTIER_ROW * 0.6, color="gray").encode(
        x=alt.X(f"{column}:Q", title=title, scale=scale, axis=alt.Axis(format=fmt)), y=y,
        tooltip=["session", "policy", alt.Tooltip(f"{column}:Q", format=fmt), "compactions", "rejected"])
    colour = alt.Color("overflow:N", title="requests over the window",
                       scale=alt.Scale(domain=[False, True], range=["steelblue", "firebrick"]),
                       legend=alt.Legend(labelExpr="datum.value ? 'some, refused' : 'none'"))
    centre = alt.Chart(means).mark_point(filled=True, size=110, shape="diamond", opacity=1).encode(
        x=f"{column}:Q", y=y, color=colour,
        tooltip=["policy", "sessions", alt.Tooltip(f"{column}:Q", format=fmt), "rejected"])
    label = alt.Chart(means).mark_text(align="left", dx=9, fontSize=10).encode(
        x=f"{column}:Q", y=y, text=alt.Text(f"{column}:Q", format=fmt))
    return (ticks + centre + label).properties(width=260, height=FRONTIER_ROW * len(order))


def context_over_turns(frame: pl.DataFrame, session: str, model: str) -> Any:
    """One session's request size over its turns under each policy, the window as a rule and each
    compaction as a marked point (hollow: proactive; filled: reactive)."""
    one = frame.filter((pl.col("session") == session) & (pl.col("model") == model))
    largest = one["window"].max()
    window = largest if isinstance(largest, int) else 0
    lines = alt.Chart(one).mark_line(interpolate="step-after", strokeWidth=1.5).encode(
        x=alt.X("turn:Q", title="turn (request)", axis=count_axis()),
        y=alt.Y("context_tokens:Q", title="tokens sent", axis=count_axis()),
        color=alt.Color("policy:N", sort=ORDER), strokeDash=alt.StrokeDash("policy:N", sort=ORDER, legend=None),
        tooltip=["policy", "turn", "context_tokens", "rungs"],
    )
    events = alt.Chart(one.filter(pl.col("compactions") > 0)).mark_point(size=90).encode(
        x="turn:Q", y="tokens_after:Q", color=alt.Color("policy:N", sort=ORDER),
        shape=alt.Shape("trigger:N", title="compaction", scale=alt.Scale(domain=["proactive", "reactive"])),
        fill=alt.condition(alt.datum.trigger == "reactive", alt.Color("policy:N", sort=ORDER, legend=None),
                           alt.value("white")),
        tooltip=["policy", "turn", "trigger", "rungs", "tokens_before", "tokens_after", "removed_chars", "pages"],
    )
    rule = alt.Chart(pl.DataFrame({"window": [window], "label": [f"window {window:,}"]})).mark_rule(
        strokeDash=[4, 3], color="gray").encode(y="window:Q", tooltip=["label"])
    return (lines + events + rule).properties(width=620, height=260, title=f"{session} on {model}")


def cache_breaks(frame: pl.DataFrame) -> Any:
    """Per policy and model: requests that lost the cached prefix to a compaction, and the share of
    input read from the cache."""
    totals = frame.filter(~pl.col("rejected")).group_by("policy", "model").agg(
        pl.col("cache_break").sum().alias("cache_breaks"),
        (pl.col("cache_read_tokens").sum() / pl.col("context_tokens").sum()).alias("cache_read_share"),
    )
    base = alt.Chart(totals).encode(
        y=alt.Y("policy:N", sort=ORDER, title=None), color=alt.Color("policy:N", sort=ORDER, legend=None),
        row=alt.Row("model:N", title=None), tooltip=["policy", "model", "cache_breaks",
                                                     alt.Tooltip("cache_read_share:Q", format=".1%")])
    breaks = base.mark_bar().encode(x=alt.X("cache_breaks:Q", title="cache breaks", axis=count_axis()))
    share = base.mark_bar().encode(x=alt.X("cache_read_share:Q", title="input read from cache",
                                           axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])))
    return alt.hconcat(breaks.properties(width=220, height=90), share.properties(width=220, height=90))


def removed_by_rung(frame: pl.DataFrame) -> pl.DataFrame:
    """What each policy's compactions removed and lost, by the rungs they climbed (``elide``,
    ``elide+snapshot``...), summed over the corpus: retention per rung as far as a corpus shows it."""
    return (
        frame.filter(pl.col("compactions") > 0)
        .group_by("policy", "model", "rungs")
        .agg(pl.col("compactions").sum(), (pl.col("trigger") == "reactive").sum().alias("reactive"),
             pl.col("removed_chars").sum(), pl.col("removed_blocks").sum(), pl.col("removed_images").sum(),
             pl.col("pages").sum(), pl.col("summary_chars").sum(), pl.col("newly_lost").sum().alias("facts_lost"))
        .sort(_rank("policy"), "policy", "model", "rungs")
    )
