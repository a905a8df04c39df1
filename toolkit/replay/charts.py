"""Charts and views of replay frames (``toolkit.replay.analysis``), for the replay notebook."""

from __future__ import annotations

import html
from typing import Any

import altair as alt
import polars as pl

from toolkit.replay.plan import MODES, WIRES


def sizes_by_wire(frame: pl.DataFrame) -> pl.DataFrame:
    """Totals per wire × mode over a ``sizes`` frame: ``bytes``, ``tokens``, and the token methods used."""
    return (
        frame.group_by("wire", "mode")
        .agg(pl.col("bytes").sum(), pl.col("tokens").sum(), pl.col("tokens_method").unique().sort().str.join(", "))
        .sort(pl.col("wire").cast(pl.Enum(list(WIRES))), pl.col("mode").cast(pl.Enum(list(MODES))))
    )


def sizes_chart(frame: pl.DataFrame) -> Any:
    """Request size per mode and wire, in bytes and in tokens, side by side."""
    totals = sizes_by_wire(frame).unpivot(index=["wire", "mode"], on=["bytes", "tokens"], variable_name="measure")
    return (
        alt.Chart(totals)
        .mark_bar()
        .encode(
            x=alt.X("mode:N", sort=list(MODES), title=None),
            y=alt.Y("value:Q", title="total over the corpus"),
            color=alt.Color("mode:N", sort=list(MODES), legend=None),
            column=alt.Column("wire:N", sort=list(WIRES), title=None),
            row=alt.Row("measure:N", title=None),
            tooltip=["wire", "mode", "measure", "value"],
        )
        .resolve_scale(y="independent")
        .properties(width=110, height=160)
    )


def stability_by_wire(frame: pl.DataFrame) -> pl.DataFrame:
    """Prefix stability per wire × mode over a ``stability`` frame: pairs checked, stable, breaks
    from recorded configuration changes, ``ratio`` (stable / checked) and ``replay_ratio`` (the same
    with configuration changes left out: what the replay itself keeps)."""
    compared = pl.col("checked") - pl.col("config_changes")
    return (
        frame.group_by("wire", "mode")
        .agg(pl.col("checked").sum(), pl.col("stable").sum(), pl.col("config_changes").sum())
        .with_columns(
            ratio=pl.when(pl.col("checked") > 0).then(pl.col("stable") / pl.col("checked")).otherwise(1.0),
            replay_ratio=pl.when(compared > 0).then(pl.col("stable") / compared).otherwise(1.0),
        )
        .sort(pl.col("wire").cast(pl.Enum(list(WIRES))), pl.col("mode"))
    )


def stability_chart(frame: pl.DataFrame) -> Any:
    totals = stability_by_wire(frame)
    return (
        alt.Chart(totals)
        .mark_bar()
        .encode(
            x=alt.X("wire:N", sort=list(WIRES), title=None),
            xOffset=alt.XOffset("mode:N"),
            y=alt.Y("ratio:Q", title="share of appended messages that left earlier bytes unchanged",
                    scale=alt.Scale(domain=[0, 1])),
            color="mode:N",
            tooltip=["wire", "mode", "checked", "stable", alt.Tooltip("ratio:Q", format=".3f")],
        )
        .properties(width=420, height=220)
    )


def side_by_side_html(frame: pl.DataFrame) -> str:
    """A ``side_by_side`` frame as HTML: one column per mode, one row per wire message."""
    columns: list[str] = []
    for mode in frame["mode"].unique(maintain_order=True).to_list():
        rows = frame.filter(pl.col("mode") == mode)
        cells = "".join(
            f"<tr><td style='vertical-align:top;color:#666'>{r['index']}</td>"
            f"<td style='vertical-align:top'><b>{html.escape(r['role'])}</b><br><i>{html.escape(r['kind'])}</i></td>"
            f"<td style='vertical-align:top;font-family:monospace;font-size:11px'>{html.escape(r['excerpt'])}</td></tr>"
            for r in rows.iter_rows(named=True)
        )
        total = rows["bytes"].sum()
        columns.append(
            f"<div style='flex:1;min-width:260px'><h4>{html.escape(mode)} · {len(rows)} messages · {total:,} bytes</h4>"
            f"<table>{cells}</table></div>"
        )
    return "<div style='display:flex;gap:12px;align-items:flex-start'>" + "".join(columns) + "</div>"
