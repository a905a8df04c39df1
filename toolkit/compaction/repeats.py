"""What compaction lost, observed: the calls an agent made again after a recorded compaction.

A call that repeats one answered before (the same tool with the same arguments: a file read again,
a command run again) says the agent no longer had the answer at hand. Agents repeat calls anyway
(a test run after an edit), so the rate after a compaction is set beside the rate in stretches of
the same session without one: stretches of as many calls, each counted against the calls answered
before it. A replay holds actions fixed, so this is the one side of retention only the record shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.compaction.predicted import uncompacted
from toolkit.compaction.recorded import observed
from toolkit.jsontext import json_text
from toolkit.record import Message, Session, ToolResult, ToolUse, bare_tool_name

if TYPE_CHECKING:
    from toolkit.corpus import Corpus

STRETCH = 20
"""Calls per stretch: after a compaction, and in each stretch it is compared with."""

SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "file": pl.String, "session": pl.String, "client": pl.String, "trigger": pl.String,
    "calls_before": pl.Int64, "calls_after": pl.Int64, "repeated_after": pl.Int64, "rate_after": pl.Float64,
    "stretches": pl.Int64, "rate_elsewhere": pl.Float64, "repeated_tools": pl.String,
}
"""``repeated_after`` of the ``calls_after`` calls (at most ``STRETCH``) after the compaction repeat
one answered before; ``rate_elsewhere`` is the same share over the ``stretches`` of the session
before the compaction (null where there is none); ``repeated_tools`` names the tools repeated after."""


def _key(call: ToolUse) -> tuple[str, str]:
    args = call.raw_input if call.raw_input is not None else json_text(call.input, sort_keys=True)
    return bare_tool_name(call.name), args


def answered_calls(history: Sequence[Message]) -> list[tuple[int, ToolUse, bool]]:
    """Each call in order, with the index of its message and whether a result for it was recorded."""
    results = {b.tool_use_id for m in history for b in m.blocks if isinstance(b, ToolResult)}
    return [(i, b, b.id in results) for i, m in enumerate(history) for b in m.blocks if isinstance(b, ToolUse)]


def _repeated(calls: Sequence[tuple[int, ToolUse, bool]], start: int, count: int) -> list[ToolUse]:
    """Of ``count`` calls from position ``start``, those repeating a call answered before ``start``."""
    seen = {_key(c) for _, c, answered in calls[:start] if answered}
    return [c for _, c, _ in calls[start:start + count] if _key(c) in seen]


def repeats(corpus: Corpus | Iterable[Session], stretch: int = STRETCH) -> pl.DataFrame:
    """One row per recorded compaction: the calls repeated after it against the rate elsewhere."""
    sessions = list(corpus)
    rows: list[dict[str, Any]] = []
    for row in observed(sessions).iter_rows(named=True):
        session = next(s for s in sessions if s.id == row["session"] and s.file == row["file"])
        if row["message_id"] is None:
            continue
        replay = uncompacted(session, row)
        calls = answered_calls(replay.history)
        cut = replay.requests[replay.at][0] if replay.at < len(replay.requests) else len(replay.history)
        first_after = next((n for n, (i, _, _) in enumerate(calls) if i >= cut), len(calls))
        after = _repeated(calls, first_after, stretch)
        taken = min(stretch, len(calls) - first_after)
        starts = range(stretch, first_after - stretch + 1, stretch)
        elsewhere = [len(_repeated(calls, p, stretch)) for p in starts]
        rows.append({
            "file": row["file"], "session": row["session"], "client": row["client"], "trigger": row["trigger"],
            "calls_before": first_after, "calls_after": taken, "repeated_after": len(after),
            "rate_after": len(after) / taken if taken else None, "stretches": len(elsewhere),
            "rate_elsewhere": sum(elsewhere) / (stretch * len(elsewhere)) if elsewhere else None,
            "repeated_tools": ", ".join(sorted({bare_tool_name(c.name) for c in after})) or None,
        })
    return pl.DataFrame(rows, schema=SCHEMA)
