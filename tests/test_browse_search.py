"""``toolkit search`` and ``toolkit.browse.searching``: each filter keeps exactly the blocks it names,
and each result's anchor is the id of its message in the page ``toolkit show`` draws."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import DATA
from toolkit.browse import page, search
from toolkit.cli import main
from toolkit.corpus import Corpus, load
from toolkit.record import Message, Session, Text, ToolResult, ToolUse


def corpus() -> Corpus:
    def at(hour: int) -> datetime:
        return datetime(2026, 3, 1, hour, tzinfo=UTC)

    one = Session("one", "claude_code", (
        Message("u", None, "user", (Text("Please find the Needle"),), time=at(9)),
        Message("a", "u", "assistant", (ToolUse("c1", "mcp__fs__grep", {"pattern": "needle"}),
                                        ToolUse("c2", "Bash", {"cmd": "ls"})), model="claude-sonnet-4-5", time=at(10)),
        Message("t", "a", "user", (ToolResult("c1", "no match"), ToolResult("c2", "ls: denied", is_error=True)),
                time=at(11)),
        Message("a", "t", "assistant", (Text("The needle is not there."),), model="claude-sonnet-4-5", time=at(12)),
    ), "a", "one.jsonl")
    two = Session("two", "codex", (
        Message("u", None, "user", (Text("needle again"),), time=at(13)),
        Message("r", "u", "assistant", (ToolUse("k", "shell", {"cmd": "grep"}),), model="gpt-5", time=at(14)),
        Message("o", "r", "tool", (ToolResult("k", "boom", is_error=True),), time=at(15)),
    ), "o", "two.jsonl")
    return Corpus([one, two])


def hits(found: object) -> list[tuple[str, int, int]]:
    import polars as pl

    assert isinstance(found, pl.DataFrame)
    return [(r["session_id"], r["index"], r["block"]) for r in found.iter_rows(named=True)]


def test_each_filter_keeps_exactly_what_it_names() -> None:
    c = corpus()
    assert hits(search(c, "NEEDLE")) == [("one", 0, 0), ("one", 1, 0), ("one", 3, 0), ("two", 0, 0)]
    assert hits(search(c, tool="grep")) == [("one", 1, 0), ("one", 2, 0)]
    assert hits(search(c, tool="mcp__fs__grep")) == hits(search(c, tool="grep"))
    assert hits(search(c, errors=True)) == [("one", 2, 1), ("two", 2, 0)]
    assert hits(search(c, errors=True, tool="Bash")) == [("one", 2, 1)]
    assert hits(search(c, "needle", model="gpt")) == []
    assert hits(search(c, model="gpt")) == [("two", 1, 0)]
    assert hits(search(c, "needle", session="two")) == [("two", 0, 0)]
    assert hits(search(c, "needle", role="assistant")) == [("one", 1, 0), ("one", 3, 0)]
    assert hits(search(c, "needle", since="2026-03-01T10:00", until=datetime(2026, 3, 1, 12, tzinfo=UTC))) == [
        ("one", 1, 0), ("one", 3, 0)]
    found = search(c, "needle is")
    assert found.height == 1 and found["snippet"][0] == "The needle is not there."
    assert found["message_id"][0] == "a" and found["index"][0] == 3, "a repeated message id keeps its own position"


def test_every_anchor_is_a_message_of_the_page() -> None:
    c = corpus()
    for sid in ("one", "two"):
        text = page(c, sid, replay=())
        for anchor in search(c, session=sid)["anchor"]:
            assert '<article class="msg' in text and f'id="{anchor}"' in text


def test_search_command_prints_results_or_one_json_object(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["search", str(DATA), "--errors", "--json"])
    data = json.loads(capsys.readouterr().out)
    expected = search(load(DATA), errors=True)
    assert code == 0 and data["total"] == expected.height > 0
    assert [r["anchor"] for r in data["results"]] == expected["anchor"].to_list()[:50]
    assert all(r["is_error"] for r in data["results"])
    code = main(["search", str(DATA), "pytest", "--limit", "2"])
    out, err = capsys.readouterr()
    assert code == 0 and len([line for line in out.splitlines() if not line.startswith("    ")]) == 2
    assert "more: --limit 0 lists all" in err and "toolkit show" in err
    assert main(["search", str(DATA), "no such text anywhere 9f8e7d"]) == 1
    capsys.readouterr()
    for args in (["search", str(tmp_path / "missing"), "x"], ["search", str(DATA), "x", "--since", "yesterday"]):
        assert main(args) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
