"""Gemini CLI: the real session file and stream-json capture of the shared corpora, counted
independently from their raw JSON, the other layouts the CLI writes, and every kind of bad input."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus_files
from toolkit.corpus import load
from toolkit.corpus.formats.gemini_cli import IMPORTER, read, sniff
from toolkit.corpus.formats.importer import Head, ImportContext
from toolkit.record import Image, Reasoning, RecordError, Session, Text, ToolResult, ToolUse

RECORDINGS = [p for p in corpus_files() if p.parent.name == "gemini" and p.name.startswith("geminicli_chat")]
STREAMS = [p for p in corpus_files() if p.parent.name == "gemini" and p.name.startswith("geminicli_stream")]


def blocks(session: Session, kind: type) -> list[Any]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


def one(path: Path, **kwargs: Any) -> tuple[Session, ImportContext]:
    ctx = ImportContext(**kwargs)
    sessions = read(path, ctx)
    assert len(sessions) == 1
    return sessions[0], ctx


def write(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def png() -> str:
    from PIL import Image as PILImage

    buffer = io.BytesIO()
    PILImage.new("RGB", (2, 3), "blue").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


# -- the real files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_recording_counts_match_the_raw_json(path: Path) -> None:
    session, ctx = one(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert ctx.problems == [] and session.id == raw["sessionId"] and session.format == "gemini_cli"
    calls = [c for m in raw["messages"] for c in m.get("toolCalls") or []]
    answered = [c for c in calls if c.get("result") is not None or c["status"] in ("error", "cancelled")]
    assert len(blocks(session, ToolUse)) == len(calls)
    assert len(blocks(session, ToolResult)) == len(answered)
    assert sum(r.is_error for r in blocks(session, ToolResult)) == sum(c["status"] != "success" for c in answered)
    assert len(blocks(session, Reasoning)) == sum(len(m.get("thoughts") or []) for m in raw["messages"])
    inline = sum(1 for c in calls for p in c.get("result") or [] if isinstance(p, dict) and "inlineData" in p)
    assert len(blocks(session, Image)) == inline
    tokens = [m["tokens"] for m in raw["messages"] if m.get("tokens")]
    usages = [m.usage for m in session.messages if m.usage is not None]
    assert len(usages) == len(tokens)
    assert sum(u.input or 0 for u in usages) == sum(t["input"] + t.get("tool", 0) - t["cached"] for t in tokens)
    assert sum(u.output or 0 for u in usages) == sum(t["output"] + t.get("thoughts", 0) for t in tokens)
    first = calls[0]
    result = next(r for r in blocks(session, ToolResult) if r.tool_use_id == first["id"])
    assert result.detail == first["resultDisplay"] and result.name == first["name"]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_recording_turn_shape(path: Path) -> None:
    session, _ = one(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert [m.id for m in session.path()] == [m.id for m in session.messages]
    for record in raw["messages"]:
        if record["type"] != "gemini":
            continue
        assistant = session.get(record["id"])
        assert assistant is not None and assistant.role == "assistant" and assistant.model == record["model"]
        if record.get("toolCalls"):
            results = session.get(f"{record['id']}:results")
            assert results is not None and results.role == "tool" and results.parent_id == assistant.id
            assert [b.tool_use_id for b in results.blocks if isinstance(b, ToolResult)] == [
                c["id"] for c in record["toolCalls"]]
    assert [c.model for c in session.run_configs] == ["gemini-3-pro-preview"]


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_stream_counts_match_the_raw_json(path: Path) -> None:
    session, ctx = one(path)
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert ctx.problems == []
    init = next(e for e in events if e["type"] == "init")
    assert session.id == init["session_id"] and session.run_configs[0].model == init["model"]
    uses = [e for e in events if e["type"] == "tool_use"]
    results = [e for e in events if e["type"] == "tool_result"]
    assert [b.id for b in blocks(session, ToolUse)] == [e["tool_id"] for e in uses]
    assert [b.tool_use_id for b in blocks(session, ToolResult)] == [e["tool_id"] for e in results]
    assert sum(r.is_error for r in blocks(session, ToolResult)) == sum(e["status"] == "error" for e in results)
    harness = [e for e in session.events if e.type.startswith("harness:")]
    assert len(harness) == sum(1 for e in events if "timestamp" not in e)
    assert harness[0].kind == "meta"
    answered = {e["tool_id"] for e in results}
    unanswered = [e["tool_id"] for e in uses if e["tool_id"] not in answered]
    last = session.messages[-1].blocks[-1]
    assert isinstance(last, ToolUse) and unanswered == [last.id]  # the run was cut off mid-round


def test_sniff_claims_gemini_cli_only() -> None:
    for path in corpus_files():
        head = path.read_bytes()[:65536].decode("utf-8", errors="replace")
        assert sniff(Head.of_text(path, head)) == (path in RECORDINGS or path in STREAMS), path.name


# -- the other layouts ----------------------------------------------------------------------------------


def test_jsonl_recording_updates_rewinds_and_notices(tmp_path: Path) -> None:
    image = png()
    path = write(tmp_path / "session-2026-02-01T10-00-abcd1234.jsonl", [
        {"sessionId": "s-1", "projectHash": "h", "startTime": "2026-02-01T10:00:00Z", "lastUpdated": "x"},
        {"id": "u1", "timestamp": "2026-02-01T10:00:01Z", "type": "user",
         "content": [{"text": "look"}, {"inlineData": {"mimeType": "image/png", "data": image}}]},
        {"id": "g1", "timestamp": "2026-02-01T10:00:02Z", "type": "gemini", "content": "Reading.", "model": "gemini-2.5-pro"},
        {"id": "g1", "timestamp": "2026-02-01T10:00:02Z", "type": "gemini", "content": "Reading.", "model": "gemini-2.5-pro",
         "tokens": {"input": 100, "output": 5, "cached": 40, "thoughts": 7, "tool": 0, "total": 112},
         "toolCalls": [{"id": "t1", "name": "read_file", "args": {"path": "a.png"}, "status": "success",
                        "timestamp": "2026-02-01T10:00:03Z", "resultDisplay": "Read image",
                        "result": [{"functionResponse": {"id": "t1", "name": "read_file", "response": {"output": "ok"}}},
                                   {"inlineData": {"mimeType": "image/png", "data": image}}]}]},
        {"id": "i1", "timestamp": "2026-02-01T10:00:04Z", "type": "info", "content": "Switched model"},
        {"id": "u2", "timestamp": "2026-02-01T10:00:05Z", "type": "user", "content": "now do X"},
        {"id": "g2", "timestamp": "2026-02-01T10:00:06Z", "type": "gemini", "content": "X done", "model": "gemini-2.5-flash"},
        {"$rewindTo": "u2"},
        {"id": "u3", "timestamp": "2026-02-01T10:00:07Z", "type": "user", "content": "do Y instead"},
        {"$set": {"summary": "Image reading session", "lastUpdated": "y"}},
    ])
    assert sniff(Head.of_text(path, path.read_text(encoding="utf-8")))
    session, ctx = one(path)
    assert ctx.problems == [] and session.id == "s-1" and session.title == "Image reading session"
    assert [m.id for m in session.path()] == ["u1", "g1", "g1:results", "u3"]
    assert session.get("u2") is not None and session.get("u2").parent_id == "g1:results"  # type: ignore[union-attr]
    assert {m.id for m in session.leaves()} == {"g2", "u3"}
    g1 = session.get("g1")
    assert g1 is not None and g1.usage is not None
    assert (g1.usage.input, g1.usage.cache_read, g1.usage.output) == (60, 40, 12)
    [result] = blocks(session, ToolResult)
    assert result.output == "ok" and len(result.images) == 1 and result.images[0].height == 3
    assert result.detail == "Read image"
    assert len(blocks(session, Image)) == 1  # the user's picture; the tool's rides in its result
    [notice] = [e for e in session.events if e.type == "info"]
    assert notice.kind == "meta" and notice.text == "Switched model" and notice.message_id == "g1:results"
    assert [c.model for c in session.run_configs] == ["gemini-2.5-pro", "gemini-2.5-flash"]
    assert [e.text for e in session.events if e.type == "$rewindTo"] == ["u2"]


@pytest.mark.parametrize("content", ["", [{"text": ""}], [""]])
def test_an_empty_prompt_keeps_its_empty_text(tmp_path: Path, content: Any) -> None:
    path = write(tmp_path / "session-2026-02-01T10-00-empty000.jsonl", [
        {"sessionId": "s-2", "projectHash": "h", "startTime": "2026-02-01T10:00:00Z", "lastUpdated": "x"},
        {"id": "u1", "timestamp": "2026-02-01T10:00:01Z", "type": "user", "content": content},
        {"id": "g1", "timestamp": "2026-02-01T10:00:02Z", "type": "gemini", "content": "", "model": "gemini-2.5-pro"},
        {"id": "u2", "timestamp": "2026-02-01T10:00:03Z", "type": "user", "content": "hello"},
    ])
    session, ctx = one(path)
    assert ctx.problems == []
    assert [(m.id, m.role, m.blocks) for m in session.path()] == [
        ("u1", "user", (Text(""),)), ("g1", "assistant", (Text(""),)), ("u2", "user", (Text("hello"),))]
    assert all(m.blocks for m in session.messages)


def test_stream_deltas_errors_and_result(tmp_path: Path) -> None:
    t = "2026-01-01T00:00:00Z"
    path = write(tmp_path / "out.jsonl", [
        {"type": "init", "timestamp": t, "session_id": "st-1", "model": "gemini-2.5-flash"},
        {"type": "message", "timestamp": t, "role": "user", "content": "hello"},
        {"type": "message", "timestamp": t, "role": "assistant", "content": "Hel", "delta": True},
        {"type": "message", "timestamp": t, "role": "assistant", "content": "lo!", "delta": True},
        {"type": "tool_use", "timestamp": t, "tool_name": "ls", "tool_id": "t1", "parameters": {"dir": "."}},
        {"type": "tool_result", "timestamp": t, "tool_id": "t1", "status": "error",
         "error": {"type": "io", "message": "denied"}},
        {"type": "error", "timestamp": t, "severity": "warning", "message": "loop detected"},
        {"type": "message", "timestamp": t, "role": "assistant", "content": "Sorry.", "delta": True},
        {"type": "result", "timestamp": t, "status": "success", "stats": {"total_tokens": 10}},
        {"type": "progress", "note": "added by a wrapper"},
    ])
    session, ctx = one(path)
    assert ctx.problems == [] and session.id == "st-1"
    assert [(m.role, [b.kind for b in m.blocks]) for m in session.messages] == [
        ("user", ["text"]), ("assistant", ["text", "tool_use"]), ("tool", ["tool_result"]), ("assistant", ["text"])]
    assert session.messages[1].blocks[0] == Text("Hello!")
    [result] = blocks(session, ToolResult)
    assert result.is_error and result.output == "denied"
    kinds = [(e.kind, e.type) for e in session.events]
    assert kinds == [("meta", "init"), ("other", "error"), ("meta", "result"), ("meta", "harness:progress")]


def test_checkpoint_contents_pair_calls_by_name(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint-my%20work.json"
    path.write_text(json.dumps({"history": [
        {"role": "user", "parts": [{"text": "list"}]},
        {"role": "model", "parts": [{"thought": True, "text": "thinking"},
                                    {"functionCall": {"name": "ls", "args": {}}, "thoughtSignature": "SIG"}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a b"}}}]},
        {"role": "model", "parts": [{"text": "a and b"}]},
    ], "authType": "oauth-personal"}, indent=2), encoding="utf-8")
    assert sniff(Head.of_text(path, path.read_text(encoding="utf-8")))
    session, ctx = one(path)
    assert ctx.problems == [] and session.title == "my%20work"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    [use] = blocks(session, ToolUse)
    [result] = blocks(session, ToolResult)
    assert result.tool_use_id == use.id and result.output == "a b"
    thought, signed = blocks(session, Reasoning)
    assert thought.text == "thinking" and signed.signature == "SIG" and signed.redacted
    assert [e.type for e in session.events] == ["checkpoint"]


def test_logs_and_json_output(tmp_path: Path) -> None:
    logs = tmp_path / "logs.json"
    logs.write_text(json.dumps([
        {"sessionId": "a", "messageId": 0, "type": "user", "message": "first", "timestamp": "2025-08-01T00:00:00Z"},
        {"sessionId": "b", "messageId": 0, "type": "user", "message": "other", "timestamp": "2025-08-01T00:00:01Z"},
        {"sessionId": "a", "messageId": 1, "type": "user", "message": "second", "timestamp": "2025-08-01T00:00:02Z"},
    ], indent=2), encoding="utf-8")
    ctx = ImportContext()
    sessions = read(logs, ctx)
    assert ctx.problems == [] and [s.id for s in sessions] == ["a:logs", "b:logs"]
    assert [m.text for m in sessions[0].path()] == ["first", "second"]
    output = tmp_path / "out.json"
    output.write_text(json.dumps({"session_id": "o-1", "response": "All done.",
                                  "stats": {"models": {}, "tools": {"totalCalls": 2}}}, indent=2), encoding="utf-8")
    assert sniff(Head.of_text(output, output.read_text(encoding="utf-8")))
    session, ctx = one(output)
    assert ctx.problems == [] and session.messages[0].text == "All done." and session.events[0].type == "stats"
    assert load(tmp_path).formats == {"logs.json": "gemini_cli", "out.json": "gemini_cli"}


# -- bad input -------------------------------------------------------------------------------------------


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    ctx = ImportContext()
    assert read(path, ctx) == []
    assert [p.reason for p in ctx.problems] == ["no Gemini CLI record in the file"]


def test_truncated_non_json_and_invalid_utf8_lines(tmp_path: Path) -> None:
    t = "2026-01-01T00:00:00Z"
    path = write(tmp_path / "out.jsonl", [
        {"type": "init", "timestamp": t, "session_id": "st-1", "model": "m"},
        {"type": "message", "timestamp": t, "role": "user", "content": "hello"},
    ])
    path.write_bytes(path.read_bytes() + b"not json at all\n" + b'{"type": "message", "content": "\xff"}\n'
                     + b'{"type": "message", "timestamp": "' + t.encode() + b'", "role": "assistant", "cont')
    session, ctx = one(path)
    assert [m.text for m in session.messages] == ["hello"]
    assert [p.line for p in ctx.problems] == [3, 4, 5]
    assert ctx.problems[0].reason.startswith("line is not valid JSON")
    assert ctx.problems[1].reason.startswith("line is not valid UTF-8")
    assert ctx.problems[2].reason.startswith("truncated last line")


def test_unknown_records_are_kept(tmp_path: Path) -> None:
    path = write(tmp_path / "session.jsonl", [
        {"sessionId": "s", "projectHash": "h"},
        {"id": "u1", "timestamp": "2026-01-01T00:00:00Z", "type": "user", "content": "hi"},
        {"id": "x1", "timestamp": "2026-01-01T00:00:01Z", "type": "hologram", "content": "?"},
        {"weird": True},
        {"id": "g1", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini",
         "content": [{"text": "ok"}, {"executableCode": {"code": "print(1)"}}]},
    ])
    session, ctx = one(path)
    assert ctx.problems == []
    assert [(e.kind, e.type) for e in session.events if e.type != "session"] == [("other", "hologram"), ("other", "unknown")]
    assert [m.id for m in session.path()] == ["u1", "g1"]
    opaque = session.messages[1].blocks[1]
    assert opaque.kind == "opaque" and opaque.raw == {"executableCode": {"code": "print(1)"}}


def test_orphan_results_are_problems_and_kept(tmp_path: Path) -> None:
    t = "2026-01-01T00:00:00Z"
    stream = write(tmp_path / "out.jsonl", [
        {"type": "init", "timestamp": t, "session_id": "st-1", "model": "m"},
        {"type": "tool_result", "timestamp": t, "tool_id": "nope", "status": "success", "output": "late"},
    ])
    session, ctx = one(stream)
    [problem] = ctx.problems
    assert problem.line == 2 and "nope" in problem.reason
    assert blocks(session, ToolResult)[0].output == "late"
    checkpoint = tmp_path / "checkpoint-x.json"
    checkpoint.write_text(json.dumps({"history": [
        {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "?"}}}]}]}),
        encoding="utf-8")
    session, ctx = one(checkpoint)
    [problem] = ctx.problems
    assert problem.line == 1 and "'ls'" in problem.reason and "orphan" in problem.reason
    assert session.messages[0].role == "tool"


def test_arguments_that_are_not_json(tmp_path: Path) -> None:
    t = "2026-01-01T00:00:00Z"
    path = write(tmp_path / "out.jsonl", [
        {"type": "init", "timestamp": t, "session_id": "st-1", "model": "m"},
        {"type": "tool_use", "timestamp": t, "tool_name": "ls", "tool_id": "t1", "parameters": '{"dir": '},
        {"type": "tool_use", "timestamp": t, "tool_name": "ls", "tool_id": "t2", "parameters": '{"dir": "."}'},
    ])
    session, ctx = one(path)
    [problem] = ctx.problems
    assert problem.line == 2 and "t1" in problem.reason and "not valid JSON" in problem.reason
    bad, good = blocks(session, ToolUse)
    assert bad.input is None and bad.raw_input == '{"dir": ' and good.input == {"dir": "."}


def test_bad_rewind_and_strict(tmp_path: Path) -> None:
    path = write(tmp_path / "session.jsonl", [
        {"sessionId": "s", "projectHash": "h"},
        {"id": "u1", "timestamp": "2026-01-01T00:00:00Z", "type": "user", "content": "hi"},
        {"$rewindTo": "missing"},
    ])
    session, ctx = one(path)
    [problem] = ctx.problems
    assert problem.line == 3 and "missing" in problem.reason
    assert session.tip == "u1"
    with pytest.raises(RecordError, match="missing"):
        read(path, ImportContext(strict=True))
    with pytest.raises(RecordError, match=r"session\.jsonl:3"):
        load(path, strict=True)


def test_not_a_gemini_cli_document(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"hello": "world"}, indent=2), encoding="utf-8")
    assert not sniff(Head.of_text(path, path.read_text(encoding="utf-8")))
    ctx = ImportContext()
    assert read(path, ctx) == []
    assert "no Gemini CLI layout" in ctx.problems[0].reason and IMPORTER.name == "gemini_cli"
