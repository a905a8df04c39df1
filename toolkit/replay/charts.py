"""Charts and views of replay frames (``toolkit.replay.analysis``), for the replay notebook."""

from __future__ import annotations

import html
from typing import Any

import altair as alt
import polars as pl

from toolkit.axes import count_axis
from toolkit.replay.plan import MODES
from toolkit.replay.wires import WIRES


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
            y=alt.Y("value:Q", title="total over the corpus", axis=count_axis()),
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


SIDE_BY_SIDE_MIN_COLUMN = 180
"""Narrowest a mode's column gets (px): below that the table scrolls sideways instead."""


def side_by_side_html(frame: pl.DataFrame) -> str:
    """A ``side_by_side`` frame as HTML: one column per mode, each listing that mode's wire messages
    (index, role, kind, bytes, excerpt). One table of fixed layout splits the width equally between
    the modes, and long excerpts wrap anywhere inside their column (a call's arguments are one long
    word), so no column spills into the next; below ``SIDE_BY_SIDE_MIN_COLUMN`` px a column the
    table scrolls sideways. The styles are inline: notebook front ends and nbconvert's page style
    tables (right-aligned, centred, unwrapped cells), and inline styles win over those rules."""
    modes = frame["mode"].unique(maintain_order=True).to_list()
    share = f"{100 / max(1, len(modes)):.4g}%"
    cell = ("vertical-align:top;text-align:left;padding:4px 6px;border:1px solid #ddd;max-width:none;"
            "white-space:normal;overflow-wrap:anywhere;word-break:break-word")
    heads: list[str] = []
    bodies: list[str] = []
    for mode in modes:
        rows = frame.filter(pl.col("mode") == mode)
        heads.append(
            f"<th style='{cell};background:#f5f5f5'>{html.escape(mode)}<br>"
            f"<span style='font-weight:normal;color:#666'>{len(rows)} messages · {rows['bytes'].sum():,} bytes</span></th>"
        )
        items = "".join(
            "<div style='padding:3px 0;border-top:1px solid #eee'>"
            f"<div><span style='color:#999'>{r['index']}</span> <b>{html.escape(r['role'])}</b> "
            f"<i style='color:#666'>{html.escape(r['kind'])}</i> <span style='color:#999'>{r['bytes']:,} B</span></div>"
            f"<div style='font-family:monospace;font-size:11px;white-space:pre-wrap'>{html.escape(r['excerpt'])}</div>"
            "</div>"
            for r in rows.iter_rows(named=True)
        )
        bodies.append(f"<td style='{cell}'>{items}</td>")
    columns = "".join(f"<col style='width:{share}'>" for _ in modes)
    return (
        "<div style='overflow-x:auto;max-width:100%'>"
        f"<table style='table-layout:fixed;width:100%;min-width:{SIDE_BY_SIDE_MIN_COLUMN * len(modes)}px;"
        "border-collapse:collapse;margin:0'>"
        f"<colgroup>{columns}</colgroup><thead><tr>{''.join(heads)}</tr></thead>"
        f"<tbody><tr>{''.join(bodies)}</tr></tbody></table></div>"
    )
