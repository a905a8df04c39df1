"""Altair charts of the surface frames in ``toolkit.surface.analysis``."""

from __future__ import annotations

import altair as alt
import polars as pl

COUNT_AXIS = alt.Axis(format="d", tickMinStep=1)
FIDELITY_COLORS = alt.Scale(domain=["matches", "differs", "unknown"], range=["#54a24b", "#e45756", "#bab0ac"])


def timeline(runs: pl.DataFrame, surfaces: pl.DataFrame) -> alt.Chart:
    """Which surface each run was sent, along time (or corpus order when some runs have no time);
    runs without a recorded surface sit on their own ``unknown`` row."""
    data = runs.join(surfaces.select("surface_hash", "label"), on="surface_hash", how="left").with_columns(
        pl.col("label").fill_null("unknown"),
        pl.col("surface_hash").fill_null("").str.slice(0, 19).alias("hash"),
    )
    timed = data.height > 0 and data["time"].null_count() == 0
    x = alt.X("time:T", title="run time (UTC)") if timed else alt.X("order:Q", title="run (corpus order)", axis=COUNT_AXIS)
    order = [*surfaces["label"].to_list(), "unknown"]
    chart: alt.Chart = alt.Chart(data).mark_point(filled=True, size=80).encode(
        x=x,
        y=alt.Y("label:N", sort=order, title="surface"),
        color=alt.Color("format:N"),
        shape=alt.Shape("fidelity:N"),
        tooltip=["session_id", "format", "run", "time", "model", "hash", "fidelity", "reason"],
    ).properties(title="Tool surface of each run", width=560)
    return chart


def fidelity_counts(runs: pl.DataFrame) -> alt.Chart:
    """Runs per fidelity state, per source format."""
    data = runs.group_by("format", "fidelity").agg(pl.len().alias("runs"))
    chart: alt.Chart = alt.Chart(data).mark_bar().encode(
        x=alt.X("runs:Q", stack="zero", axis=COUNT_AXIS),
        y=alt.Y("format:N", title=None),
        color=alt.Color("fidelity:N", scale=FIDELITY_COLORS),
        tooltip=["format", "fidelity", "runs"],
    ).properties(title="Fidelity of each run against today's tools", width=480)
    return chart


def storage(storage: pl.DataFrame) -> alt.Chart:
    """Cumulative bytes of specs: inlined in every session against a store that keeps each
    surface once, session by session in time order."""
    data = storage.with_row_index("sessions", offset=1).unpivot(
        index=["sessions", "session_id"],
        on=["cumulative_inline_bytes", "cumulative_store_bytes"],
        variable_name="kept",
        value_name="bytes",
    ).with_columns(
        pl.col("kept").replace({"cumulative_inline_bytes": "inlined in every session",
                                "cumulative_store_bytes": "store (once per surface)"})
    )
    chart: alt.Chart = alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("sessions:Q", title="sessions with a recorded surface (time order)",
                  axis=COUNT_AXIS),
        y=alt.Y("bytes:Q", title="bytes of tool specs"),
        color=alt.Color("kept:N", title=None),
        tooltip=["sessions", "session_id", "kept", "bytes"],
    ).properties(title="Inline specs against the surface store", width=480)
    return chart
