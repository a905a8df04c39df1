"""Calls repeated after a recorded compaction, against the same session's other stretches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from toolkit.compaction.repeats import SCHEMA, repeats
from toolkit.corpus import load
from toolkit.record import Event, Message, Session, SourceRef, Text, ToolResult, ToolUse

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _session(after: list[str]) -> Session:
    """Eight reads of distinct files, a compaction, then reads of ``after``."""
    messages: list[Message] = [Message("u", None, "user", (Text("read the files"),), T0, source=SourceRef("x", 0))]

    def call(n: int, path: str) -> None:
        parent = messages[-1].id
        messages.append(Message(f"a{n}", parent, "assistant", (ToolUse(f"c{n}", "Read", {"file_path": path}),),
                                T0 + timedelta(seconds=n), source=SourceRef("x", 2 * n + 1)))
        messages.append(Message(f"t{n}", f"a{n}", "user", (ToolResult(f"c{n}", f"contents of {path}"),),
                                T0 + timedelta(seconds=n), source=SourceRef("x", 2 * n + 2)))

    for n in range(8):
        call(n, f"f{n}.py")
    summary = Message("s", messages[-1].id, "user", (Text("summary"),), T0 + timedelta(seconds=50),
                      source=SourceRef("x", 50), tags=("compact_summary",))
    messages.append(summary)
    for n, path in enumerate(after, start=100):
        call(n, path)
    event = Event("compaction", "compact_boundary", T0 + timedelta(seconds=49), messages[-len(after) * 2 - 2].id,
                  source=SourceRef("x", 49), trigger="auto")
    return Session("r", "claude_code", tuple(messages), messages[-1].id, "x", events=(event,))


def test_a_call_answered_before_the_compaction_and_made_again_after_is_a_repeat() -> None:
    (row,) = repeats([_session(["f1.py", "new.py", "f2.py", "f1.py"])], stretch=4).to_dicts()
    assert list(row) == list(SCHEMA)
    assert (row["calls_before"], row["calls_after"], row["repeated_after"]) == (8, 4, 3)
    assert row["rate_after"] == 0.75 and row["repeated_tools"] == "Read"
    assert (row["stretches"], row["rate_elsewhere"]) == (1, 0.0)  # calls 4..7 repeat none of 0..3
    (row,) = repeats([_session(["new.py", "other.py"])], stretch=4).to_dicts()
    assert (row["repeated_after"], row["rate_after"], row["repeated_tools"]) == (0, 0.0, None)


def test_the_shared_corpora_compactions_are_measured(corpora: Path) -> None:
    corpus = load([corpora / "claude_code" / "golfgod_v2.0.22_compaction_forks_images.chat.json",
                   corpora / "codex" / "rps3_cli0.47.0_compacted.jsonl"], progress=False)
    rows = {r["client"]: r for r in repeats(corpus).to_dicts()}
    assert set(rows) == {"claude_code", "codex"}
    for row in rows.values():
        assert row["calls_after"] == 20 and row["stretches"] >= 5 and row["rate_elsewhere"] is not None
        assert 0 <= row["repeated_after"] <= row["calls_after"]
