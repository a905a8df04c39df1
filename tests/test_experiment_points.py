"""Points to freeze a history at: replies that called a tool, and replies that only said they acted,
on a hand-built session and on the shared corpora."""

from __future__ import annotations

from pathlib import Path

from toolkit.compaction.simulator import turns
from toolkit.corpus import load
from toolkit.experiment.points import find_points
from toolkit.experiment.said import reply_calls, reply_text, says_action
from toolkit.record import Message, Role, Session, Text, ToolResult, ToolUse, bare_tool_name


def _message(mid: str, parent: str | None, role: Role, *blocks: Text | ToolUse | ToolResult) -> Message:
    return Message(id=mid, parent_id=parent, role=role, blocks=blocks)


def _session(sid: str = "s") -> Session:
    messages = [
        _message("u1", None, "user", Text("show #1 then close it")),
        _message("a1", "u1", "assistant", Text("I'll close #1 now.")),
        _message("u2", "a1", "user", Text("you did not call anything")),
        _message("a2", "u2", "assistant", ToolUse("c1", "mcp__coop__show", {}), ToolUse("c2", "coop", {})),
        _message("r2", "a2", "user", ToolResult("c1", "open"), ToolResult("c2", "closed")),
        _message("a3", "r2", "assistant", Text("Closed #1.")),
        _message("u3", "a3", "user", Text("and #2")),
        _message("a4", "u3", "assistant", Text("It is already closed.")),
    ]
    return Session(id=sid, format="test", messages=tuple(messages), tip="a4", file=f"{sid}.json")


def test_points_called_and_said_with_their_expected_tools() -> None:
    points = find_points([_session()])
    assert [(p.at, p.recorded, p.expect) for p in points] == [
        ("u1", "said", ("show", "coop")),  # before any call: the tools the path called most
        ("u2", "called", ("show", "coop")),
        ("r2", "said", ("coop",)),  # the tool called last before it
    ]
    assert {(p.file, p.session) for p in points} == {("s.json", "s")}


def test_a_session_without_calls_gives_no_said_point() -> None:
    messages = (_message("u", None, "user", Text("hi")), _message("a", "u", "assistant", Text("I'll run it.")))
    assert find_points([Session(id="x", format="test", messages=messages, tip="a")]) == []


def test_order_and_limit() -> None:
    sessions = [_session("s1"), _session("s2")]
    every = find_points(sessions)
    assert [p.session for p in every] == ["s1"] * 3 + ["s2"] * 3
    assert find_points(sessions, limit=4) == every[:4]
    assert find_points(sessions, limit=0) == []


def test_points_on_the_shared_corpora(corpora: Path) -> None:
    corpus = load(corpora)
    points = find_points(corpus)
    assert points == find_points(corpus)
    assert {p.recorded for p in points} == {"called", "said"}
    for point in points[:200]:
        session = next(s for s in corpus if s.file == point.file and s.id == point.session and point.at in s)
        path = session.path()
        start = [m.id for m in path].index(point.at) + 1
        end = dict(turns(path))[start]
        calls = {bare_tool_name(name) for name in reply_calls(path[start:end])}
        if point.recorded == "called":
            assert calls == set(point.expect)
        else:
            assert not calls and says_action(reply_text(path[start:end])) and point.expect
