"""One pairing rule: a result answers the most recent still-unanswered earlier call with its id, and
the corpus frames and the session browser pair by it alike."""

from __future__ import annotations

from toolkit.browse.turns import Place, pair_calls
from toolkit.corpus.frames import frames_of
from toolkit.pairing import OpenCalls
from toolkit.record import Message, Session, Text, ToolResult, ToolUse


def test_a_result_answers_the_nearest_open_call_of_its_id() -> None:
    waiting: OpenCalls[str] = OpenCalls()
    waiting.call("a", "first a")
    waiting.call("a", "second a")
    waiting.call("b", "b")
    assert waiting.answer("a") == "second a"
    assert waiting.answer("a") == "first a"
    assert waiting.answer("a") is None, "an id answered as often as it was called waits no more"
    assert waiting.answer("never called") is None
    assert waiting.answer("b") == "b"


def _call(mid: str, parent: str | None, call_id: str) -> Message:
    return Message(mid, parent, "assistant", (Text(f"calling {call_id}"), ToolUse(call_id, "bash", {"n": mid})))


def _result(mid: str, parent: str, call_id: str) -> Message:
    return Message(mid, parent, "tool", (ToolResult(call_id, f"out of {mid}"),))


def _session() -> Session:
    """Demonstration calls whose ids the live run uses again, interleaved: call_0 twice before either
    is answered, a result whose call was never recorded, and a call never answered."""
    messages = (
        Message("u", None, "user", (Text("go"),)),
        _call("c1", "u", "call_0"),
        _call("c2", "c1", "call_0"),
        _result("r2", "c2", "call_0"),
        _result("r1", "r2", "call_0"),
        _result("orphan", "r1", "gone"),
        _call("c3", "orphan", "call_1"),
    )
    return Session("s", "openai_chat", messages, tip="c3")


def test_frames_and_the_browser_pair_alike() -> None:
    session = _session()
    result_of, call_of = pair_calls(session)
    # positions: c1=1, c2=2, r2=3, r1=4; the call block is block 1 of its message
    assert result_of == {Place(2, 1): Place(3, 0), Place(1, 1): Place(4, 0)}
    assert call_of == {r: c for c, r in result_of.items()}
    calls = frames_of([session], [])["tool_calls"]
    by_frames = dict(calls.select("message_id", "result_message_id").rows())
    by_browser = {session.messages[c.message].id: session.messages[r.message].id for c, r in result_of.items()}
    assert by_frames == {"c1": "r1", "c2": "r2", "c3": None}
    assert {k: v for k, v in by_frames.items() if v is not None} == by_browser
    assert calls.filter(calls["message_id"] == "c3")["has_result"].to_list() == [False]
