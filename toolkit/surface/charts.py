"""Altair charts of the surface frames in ``toolkit.surface.analysis``."""

from __future__ import annotations

import altair as alt
import polars as pl

from toolkit.axes import count_axis

EDGE_PADDING = 12
"""Pixels a run or session axis keeps free at each end, so a marker on the first or last run is
drawn whole instead of half under the axis (or past the plot's edge)."""
FIDELITY_COLORS = alt.Scale(domain=["matches", "differs", "unknown"], range=["#54a24b", "#e45756", "#bab0ac"])


def timeline(runs: pl.DataFrame, surfaces: pl.DataFrame) -> alt.Chart:
    """Which surface each run was sent, along time (or corpus order when some runs have no time);
    runs without a recorded surface sit on their own ``unknown`` row."""
    data = runs.join(surfaces.select("surface_hash", "label"), on="surface_hash", how="left").with_columns(
        pl.col("label").fill_null("unknown"),
        pl.col("surface_hash").fill_null("").str.slice(0, 19).alias("hash"),
    )
    timed = data.height > 0 and data["time"].null_count() == 0
    padded = alt.Scale(padding=EDGE_PADDING, nice=False)
    x = (alt.X("time:T", title="run time (UTC)", scale=padded) if timed
         else alt.X("order:Q", title="run (corpus order)", axis=count_axis(), scale=padded))
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
        x=alt.X("runs:Q", stack="zero", axis=count_axis()),
        y=alt.Y("format:N", title=None),
        color=alt.Color("fidelity:N", scale=FIDELITY_COLORS),
        tooltip=["format", "fidelity", "runs"],
    ).properties(title="Fidelity of each run against today's tools", width=480)
    return chart


STORAGE_SERIES = ("inlined in every session", "store (once per surface)")


def storage(storage: pl.DataFrame) -> alt.LayerChart:
    """Cumulative bytes of specs: inlined in every session against a store that keeps each
    surface once, session by session in time order. Where no surface is shared yet the two lines
    are equal, so they differ in dash, width and point shape as well as colour: the store's dashed
    line and small squares sit on the inline series' wide line and rings, and both stay visible."""
    data = storage.with_row_index("sessions", offset=1).unpivot(
        index=["sessions", "session_id"],
        on=["cumulative_inline_bytes", "cumulative_store_bytes"],
        variable_name="kept",
        value_name="bytes",
    ).with_columns(
        pl.col("kept").replace({"cumulative_inline_bytes": STORAGE_SERIES[0],
                                "cumulative_store_bytes": STORAGE_SERIES[1]})
    )
    domain = list(STORAGE_SERIES)
    base = alt.Chart(data).encode(
        x=alt.X("sessions:Q", title="sessions with a recorded surface (time order)", axis=count_axis(),
                scale=alt.Scale(padding=EDGE_PADDING, nice=False)),
        y=alt.Y("bytes:Q", title="bytes of tool specs", axis=count_axis()),
        color=alt.Color("kept:N", title=None, scale=alt.Scale(domain=domain, range=["#4c78a8", "#f58518"])),
        tooltip=["sessions", "session_id", "kept", "bytes"],
    )
    inline = alt.datum.kept == STORAGE_SERIES[0]
    lines = base.mark_line().encode(
        strokeDash=alt.StrokeDash("kept:N", title=None, scale=alt.Scale(domain=domain, range=[[1, 0], [6, 4]])),
        strokeWidth=alt.condition(inline, alt.value(5), alt.value(2)),
        opacity=alt.condition(inline, alt.value(0.55), alt.value(1)),
        order=alt.Order("sessions:Q"),
    )
    points = base.mark_point(strokeWidth=2).encode(
        shape=alt.Shape("kept:N", title=None, scale=alt.Scale(domain=domain, range=["circle", "square"])),
        size=alt.condition(inline, alt.value(130), alt.value(30)),
        fill=alt.condition(inline, alt.value("white"), alt.value("#f58518")),
    )
    same = data.height > 0 and storage["cumulative_inline_bytes"].equals(storage["cumulative_store_bytes"])
    title = (alt.Title("Inline specs against the surface store",
                       subtitle="the lines coincide: no surface is shared by two sessions yet")
             if same else "Inline specs against the surface store")
    chart: alt.LayerChart = alt.layer(lines, points).properties(  # type: ignore[assignment]
        title=title, width=480)
    return chart
