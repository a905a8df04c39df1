"""Altair charts of the corpus aggregates in ``toolkit.corpus.summary``."""

from __future__ import annotations

import altair as alt
import polars as pl

from toolkit.axes import count_axis


def session_lengths(lengths: pl.DataFrame) -> alt.Chart:
    """Path length of each session (bars), coloured by format, tool calls in the tooltip."""
    chart: alt.Chart = alt.Chart(lengths).mark_bar().encode(
        x=alt.X("path_messages:Q", title="messages on the path (root to tip)", axis=count_axis()),
        y=alt.Y("session_id:N", sort="-x", title=None, axis=alt.Axis(labelLimit=220)),
        color=alt.Color("format:N"),
        tooltip=["session_id", "format", "file", "messages", "path_messages", "leaves", "tool_calls",
                 "images"],
    ).properties(title="Sessions by length", width=520)
    return chart


def block_kinds(kinds: pl.DataFrame) -> alt.Chart:
    """Blocks per kind, one bar group per format."""
    chart: alt.Chart = alt.Chart(kinds).mark_bar().encode(
        x=alt.X("blocks:Q", title="blocks", axis=count_axis()),
        y=alt.Y("kind:N", title=None),
        color=alt.Color("kind:N", legend=None),
        row=alt.Row("format:N", title=None),
        tooltip=["format", "kind", "blocks", "chars", alt.Tooltip("char_share:Q", format=".1%")],
    ).properties(title="Block kinds", width=420, height=110)
    return chart


def tool_usage(usage: pl.DataFrame, top: int = 25) -> alt.LayerChart:
    """Calls per tool (bar) with the errors in red on top."""
    data = usage.head(top).with_columns(pl.col("recorded_names").list.join(", "))
    base = alt.Chart(data).encode(y=alt.Y("bare_name:N", title="tool (bare name)",
                                          sort=alt.EncodingSortField("calls", order="descending")))
    bars = base.mark_bar(color="#4c78a8").encode(
        x=alt.X("calls:Q", title="calls", axis=count_axis()),
        tooltip=["bare_name", "recorded_names", "calls", "errors", "unanswered",
                 alt.Tooltip("error_rate:Q", format=".1%")],
    )
    errors = base.mark_bar(color="#e45756").encode(x=alt.X("errors:Q", title="calls", axis=count_axis()))
    layered: alt.LayerChart = (bars + errors).properties(title="Tool calls by name (errors in red)", width=480)
    return layered


def images_per_session(lengths: pl.DataFrame) -> alt.Chart:
    chart: alt.Chart = alt.Chart(lengths.filter(pl.col("images") > 0)).mark_bar(color="#72b7b2").encode(
        x=alt.X("images:Q", title="images", axis=count_axis()),
        y=alt.Y("session_id:N", sort="-x", title=None, axis=alt.Axis(labelLimit=220)),
        tooltip=["session_id", "format", "images"],
    ).properties(title="Images per session", width=480)
    return chart


def reasoning_share(shares: pl.DataFrame) -> alt.Chart:
    chart: alt.Chart = alt.Chart(shares).mark_bar(color="#b279a2").encode(
        x=alt.X("share:Q", title="reasoning characters / all characters", axis=alt.Axis(format="%")),
        y=alt.Y("session_id:N", sort="-x", title=None, axis=alt.Axis(labelLimit=220)),
        tooltip=["session_id", "reasoning_blocks", "reasoning_chars", "all_chars",
                 alt.Tooltip("share:Q", format=".1%")],
    ).properties(title="Reasoning share per session", width=480)
    return chart


def events(counts: pl.DataFrame) -> alt.Chart:
    chart: alt.Chart = alt.Chart(counts).mark_bar().encode(
        x=alt.X("events:Q", title="events", axis=count_axis()),
        y=alt.Y("type:N", sort="-x", title="event type"),
        color=alt.Color("kind:N"),
        tooltip=["kind", "type", "events", "sessions"],
    ).properties(title="Events (compactions, summaries, errors, bookkeeping)", width=480)
    return chart
