"""The Continue importer: the shared session counted independently, and each version's layout written
from Continue's source (core/index.d.ts, core/util/history.ts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPORA, corpus_files
from tests.helpers import everything_valid
from toolkit.corpus import load
from toolkit.corpus.formats import continue_dev
from toolkit.corpus.formats import sniff as detect
from toolkit.record import Image, Opaque, Reasoning, Session, Text, ToolResult, ToolUse

FOLDER = CORPORA / "continue"
needs_corpus = pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpora/continue is absent")


def blocks(session: Session, kind: type) -> list[object]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


def write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


@needs_corpus
def test_shared_session_counts_match_the_file() -> None:
    (path,) = sorted(FOLDER.glob("*.json"))
    doc = json.loads(path.read_text(encoding="utf-8"))
    history = doc["history"]
    roles = [item["message"]["role"] for item in history]
    calls = [c for item in history for c in item["message"].get("toolCalls") or []]
    answered = {item["message"]["toolCallId"] for item in history if item["message"]["role"] == "tool"}
    states = {s["toolCallId"]: s["status"] for item in history for s in item.get("toolCallStates") or []}
    cancelled = [c for c in calls if c["id"] not in answered and states.get(c["id"]) == "canceled"]
    errored = [i for i in answered if states.get(i) == "errored"]
    corpus = load(path)
    assert corpus.problems == [] and corpus.formats == {path.name: "continue"}
    (session,) = corpus.sessions
    assert session.id == doc["sessionId"] and session.title == doc["title"] == "GitHub"
    assert (roles.count("user"), roles.count("assistant"), roles.count("tool")) == (12, 18, 6)
    real = [m for m in session.messages if "synthetic" not in m.tags]
    assert [m.role for m in real] == roles and [m.id for m in real] == [i["message"]["id"] for i in history]
    assert len(blocks(session, ToolUse)) == len(calls) == 9
    results = [r for r in blocks(session, ToolResult) if isinstance(r, ToolResult)]
    assert len(results) == len(answered) + len(cancelled) == 9
    assert sum(r.is_error and r.output != continue_dev.CANCELLED for r in results) == len(errored) == 1
    assert blocks(session, Image) == [] and blocks(session, Reasoning) == []
    assert sum(e.type == "promptLog" for e in session.events) == sum(len(i.get("promptLogs") or []) for i in history)
    assert session.run_configs and session.run_configs[0].model == "Gemini 2.5 Pro"
    everything_valid(session, corpus.images)


def test_sniff_claims_no_other_shared_file() -> None:
    for path in corpus_files():
        found = detect(path)
        assert (found is not None and found[0].name == "continue") == (path.parent == FOLDER), path


def test_older_and_newer_layouts(tmp_path: Path) -> None:
    """String content and no tool calls (2024), ``toolCallState`` singular (before July 2025), a
    ``thinking`` message, an image part, context items and usage; the ``sessions.json`` index owned."""
    sessions = tmp_path / ".continue" / "sessions"
    old = {"sessionId": "old", "title": "Old", "workspaceDirectory": "/w", "history": [
        {"message": {"role": "user", "content": "hi"}, "contextItems": [
            {"name": "a.py", "description": "a.py", "content": "```a.py\nx = 1\n```", "id": {
                "providerTitle": "file", "itemId": "1"}}]},
        {"message": {"role": "assistant", "content": "hello"}, "contextItems": [],
         "promptLogs": [["prompt text", "hello"]]},
    ]}
    pixel = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAA"
             "BJRU5ErkJggg==")
    new = {"sessionId": "new", "title": "New", "workspaceDirectory": "/w", "history": [
        {"message": {"role": "user", "content": [{"type": "text", "text": "look"},
                                                 {"type": "imageUrl", "imageUrl": {"url": pixel}}]},
         "contextItems": []},
        {"message": {"role": "thinking", "content": "hmm", "signature": "sig"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{\"dir\": \".\"}"}}],
            "usage": {"promptTokens": 100, "completionTokens": 5, "promptTokensDetails": {"cachedTokens": 60}}},
         "contextItems": [], "toolCallState": {"toolCallId": "c1", "status": "errored", "toolCall": {
             "id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}, "parsedArgs": {}}},
        {"message": {"role": "tool", "content": "ls failed", "toolCallId": "c1"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "It failed."}, "contextItems": [],
         "conversationSummary": "They looked."},
    ], "mode": "agent", "chatModelTitle": "Claude"}
    write(sessions / "old.json", old)
    write(sessions / "new.json", new)
    write(sessions / "sessions.json", [{"sessionId": "old", "title": "Old", "dateCreated": "1", "workspaceDirectory": "/w"}])
    corpus = load(tmp_path)
    assert corpus.problems == [] and sorted(s.id for s in corpus.sessions) == ["new", "old"]
    first = corpus.session("old")
    assert [b.text for b in first.messages[0].blocks if isinstance(b, Text)] == ["```a.py\nx = 1\n```", "hi"]
    second = corpus.session("new")
    assert len(blocks(second, Image)) == 1
    reply = second.messages[1]
    assert isinstance(reply.blocks[0], Reasoning) and reply.blocks[0].signature == "sig"
    assert reply.usage is not None and (reply.usage.input, reply.usage.cache_read) == (40, 60)
    (result,) = blocks(second, ToolResult)
    assert isinstance(result, ToolResult) and result.is_error and result.output == "ls failed"
    assert [e.text for e in second.events if e.kind == "summary"] == ["They looked."]
    for session in corpus.sessions:
        everything_valid(session, corpus.images)


def test_layouts_follow_continue_global_dir(tmp_path: Path) -> None:
    (layout,) = continue_dev.layouts({"CONTINUE_GLOBAL_DIR": str(tmp_path / "c")}, tmp_path)
    assert (layout.folder, layout.found_by) == (tmp_path / "c" / "sessions", "CONTINUE_GLOBAL_DIR")
    (layout,) = continue_dev.layouts({}, tmp_path)
    assert layout.folder == tmp_path / ".continue" / "sessions"
    assert layout.wanted(("abc.json",)) and not layout.wanted(("sessions.json",))


def test_tool_calls_that_are_not_a_list_of_calls(tmp_path: Path) -> None:
    """``toolCalls`` that is not a list, or a call in it that is not an object, is kept as opaque and
    reported at its history item (it was dropped in silence: the accounting harness's finding)."""
    path = write(tmp_path / "s.json", {"sessionId": "s", "title": "T", "workspaceDirectory": "/w", "history": [
        {"message": {"role": "user", "content": "hi"}},
        {"message": {"role": "assistant", "content": "", "toolCalls": "ls"}},
        {"message": {"role": "assistant", "content": "", "toolCalls": [7]}},
    ]})
    corpus = load(path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (2, "toolCalls of history item 2 is 'ls', not a list; kept as opaque"),
        (3, "tool call 1 of history item 3 is 7, not an object; kept as opaque"),
    ]
    opaque = [b.raw for m in corpus.sessions[0].messages for b in m.blocks if isinstance(b, Opaque)]
    assert opaque == ["ls", 7]


def test_a_text_part_without_its_text(tmp_path: Path) -> None:
    """A text part whose ``text`` key is misspelt (``tetx``) is reported at its history item and kept
    as opaque (it gave no block and no word: the 3,000-case accounting run's finding); a text part
    with empty text is still nothing to report."""
    path = write(tmp_path / "s.json", {"sessionId": "s", "title": "T", "workspaceDirectory": "/w", "history": [
        {"message": {"role": "user", "content": [{"type": "text", "text": ""}, {"type": "text", "tetx": "in fact"}]}},
    ]})
    corpus = load(path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (1, "part without text (keys the wire lacks: tetx); kept as an opaque block")]
    [message] = corpus.sessions[0].messages
    assert [(b.type, b.raw) for b in message.blocks if isinstance(b, Opaque)] == [
        ("part", {"type": "text", "tetx": "in fact"})]


def test_an_item_field_under_a_misspelt_key_is_kept(tmp_path: Path) -> None:
    """A history item's ``promptLogs`` (or another field the reader reads) under a misspelt key is
    reported at the item and kept as an event; it went in silence (an accounting run with other seeds
    found it). A field Continue writes and the record has no place for (``editorState``) is no problem."""
    log = {"modelTitle": "Gemini 2.5 Pro", "prompt": "p", "completion": "c"}
    path = write(tmp_path / "s.json", {"sessionId": "s", "title": "T", "workspaceDirectory": "/w", "history": [
        {"message": {"role": "user", "content": "hi"}, "editorState": {"type": "doc"}},
        {"message": {"role": "assistant", "content": "yes"}, "promptLgos": [log]},
    ]})
    corpus = load(path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (2, "history item 2 without promptLogs (keys Continue does not write: promptLgos); kept as an event")]
    (event,) = [e for e in corpus.sessions[0].events if e.type == "item fields"]
    assert event.raw == {"promptLgos": [log]} and event.source is not None and event.source.line == 2
