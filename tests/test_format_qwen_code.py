"""The Qwen Code importer: the shared 0.14.0 session counted independently, and each record type and
version written from Qwen Code's source (packages/core/src/services/chatRecordingService.ts of
QwenLM/qwen-code, its first JSONL version and the current one), plus the Gemini CLI files older Qwen Code
releases wrote, which the gemini_cli importer reads."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPORA, corpus_files
from tests.helpers import PNG, everything_valid
from toolkit.corpus import load
from toolkit.corpus.formats import qwen_code
from toolkit.corpus.formats import sniff as detect
from toolkit.corpus.formats.importer import Head, ImportContext
from toolkit.record import Image, Reasoning, RecordError, Session, Text, ToolResult, ToolUse, Usage

FOLDER = CORPORA / "qwen_code" / "cloudschool_v0.14.0" / "chats"
needs_corpus = pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpora/qwen_code is absent")
SID = "11111111-2222-3333-4444-555555555555"


def blocks(session: Session, kind: type) -> list[Any]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    # JSON.stringify's compact form, as jsonl-utils.ts writes each record
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")
    return path


def one(path: Path) -> tuple[Session, ImportContext]:
    ctx = ImportContext()
    (session,) = qwen_code.read(path, ctx, None)
    return session, ctx


class Chat:
    """Records as ChatRecordingService writes them: each the child of the last one written."""

    def __init__(self, version: str = "0.14.0") -> None:
        self.records: list[dict[str, Any]] = []
        self.version = version
        self.tail: str | None = None

    def add(self, type_: str, parent: str | bool | None = True, **fields: Any) -> str:
        uuid = f"r{len(self.records) + 1}"
        record: dict[str, Any] = {"uuid": uuid, "parentUuid": self.tail if parent is True else parent,
                                  "sessionId": SID, "timestamp": f"2026-04-07T02:{len(self.records):02d}:00.000Z",
                                  "type": type_, "cwd": "/home/dev/p", "version": self.version, **fields}
        self.records.append(record)
        self.tail = uuid
        return uuid

    def user(self, text: str, **fields: Any) -> str:
        return self.add("user", message={"role": "user", "parts": [{"text": text}]}, **fields)

    def reply(self, parts: list[dict[str, Any]], **fields: Any) -> str:
        return self.add("assistant", **{"model": "coder-model", **fields}, message={"role": "model", "parts": parts})

    def result(self, call_id: str, name: str, output: str, status: str = "success", **fields: Any) -> str:
        response = {"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}
        return self.add("tool_result", message={"role": "user", "parts": [response]},
                        toolCallResult={"callId": call_id, "status": status, "resultDisplay": output}, **fields)

    def system(self, subtype: str, payload: dict[str, Any], **fields: Any) -> str:
        return self.add("system", subtype=subtype, systemPayload=payload, **fields)

    def api_response(self, prompt: int, output: int, cached: int, thoughts: int = 0) -> str:
        return self.system("ui_telemetry", {"uiEvent": {
            "event.name": "qwen-code.api_response", "model": "coder-model", "input_token_count": prompt,
            "output_token_count": output, "cached_content_token_count": cached, "thoughts_token_count": thoughts,
            "tool_token_count": 0, "total_token_count": prompt + output, "auth_type": "qwen-oauth"}})

    def write(self, path: Path) -> Path:
        return write(path, self.records)


# ---- the shared example ---------------------------------------------------------------------------


@needs_corpus
def test_shared_session_counts_match_the_file() -> None:
    (path,) = sorted(FOLDER.glob("*.jsonl"))
    records = lines(path)
    kinds = [r["type"] for r in records]
    parts = [p for r in records if "message" in r for p in r["message"]["parts"]]
    calls = [p for p in parts if "functionCall" in p]
    responses = [p for p in parts if "functionResponse" in p]
    thoughts = [p for p in parts if p.get("thought") is True]
    images = [p for p in parts if "inlineData" in p]
    by_uuid = {r["uuid"]: r for r in records}

    def above(record: dict[str, Any]) -> dict[str, Any] | None:
        parent = by_uuid.get(record["parentUuid"])
        while parent is not None and parent["type"] == "system":
            parent = by_uuid.get(parent["parentUuid"])
        return parent

    # a run of tool results (only system records between them) is one tool message
    rounds = sum(1 for r in records if r["type"] == "tool_result" and (above(r) or {}).get("type") != "tool_result")
    corpus = load(FOLDER)
    assert corpus.problems == []
    assert corpus.formats == {path.name: "qwen_code"}
    (session,) = corpus.sessions
    assert session.id == records[0]["sessionId"] and session.format == "qwen_code"
    roles = [m.role for m in session.messages]
    assert (roles.count("user"), roles.count("assistant"), roles.count("tool")) == (
        kinds.count("user"), kinds.count("assistant"), rounds) == (20, 42, 22)
    assert len(blocks(session, ToolUse)) == len(calls) == 58
    assert len(blocks(session, ToolResult)) == len(responses) == kinds.count("tool_result") == 58
    assert len(blocks(session, Reasoning)) == len(thoughts) == 42
    assert len(blocks(session, Image)) == len(images) == 0
    assert len(session.events) == kinds.count("system") == 126
    uses = {b.id for b in blocks(session, ToolUse)}
    assert {b.tool_use_id for b in blocks(session, ToolResult)} == uses
    failed = {r["toolCallResult"]["callId"] for r in records
              if r["type"] == "tool_result" and r["toolCallResult"]["status"] == "error"}
    assert {b.tool_use_id for b in blocks(session, ToolResult) if b.is_error} == failed and len(failed) == 2
    assert session.tip == records[-1]["uuid"] == session.messages[-1].id
    assert len(session.path()) == len(session.messages)  # one chain, no rewind
    everything_valid(session, corpus.images)


@needs_corpus
def test_shared_session_usage_and_telemetry() -> None:
    (path,) = sorted(FOLDER.glob("*.jsonl"))
    records = lines(path)
    (session,) = load(FOLDER).sessions
    replies = [r for r in records if r["type"] == "assistant"]
    assistants = [m for m in session.messages if m.role == "assistant"]
    for record, message in zip(replies, assistants, strict=True):
        meta = record["usageMetadata"]
        # the OpenAI-compatible backend: total = prompt + completion, reasoning inside the completion
        assert meta["totalTokenCount"] == meta["promptTokenCount"] + meta["candidatesTokenCount"]
        cached = meta["cachedContentTokenCount"] or None
        assert message.usage == Usage(meta["promptTokenCount"] - (cached or 0), meta["candidatesTokenCount"], cached)
        assert message.model == record["model"] == "coder-model" and message.provider == "alibaba"
    calls = [e for e in session.events if e.type == "qwen-code.api_response"]
    assert len(calls) == len(replies) and all(e.kind == "token_count" for e in calls)
    assert [e.message_id for e in calls] == [m.id for m in assistants]  # each call's record is its reply's parent
    slash = [e for e in session.events if e.type == "slash_command"]
    assert len(slash) == 26 and all(e.kind == "meta" and e.text.startswith("/") for e in slash)
    assert [c.model for c in session.run_configs] == ["coder-model"]


@needs_corpus
def test_sniff_claims_only_the_qwen_code_example() -> None:
    for path in corpus_files():
        mine = path.is_relative_to(CORPORA / "qwen_code")
        assert bool(qwen_code.sniff(Head(path, path.read_bytes()[:65536]))) == mine, path
        if mine:
            found = detect(path)
            assert found is not None and found[0].name == "qwen_code"


# ---- crafted files, one per version and record type ----------------------------------------------


def test_first_jsonl_version(tmp_path: Path) -> None:
    """The first recorder: three system subtypes, no contextWindowSize, no provenance."""
    chat = Chat(version="0.4.0")
    chat.user("list files")
    chat.api_response(100, 20, 0)
    chat.reply([{"text": "plan", "thought": True}, {"functionCall": {"id": "c1", "name": "ls", "args": {}}}],
               usageMetadata={"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120})
    chat.system("ui_telemetry", {"uiEvent": {"event.name": "qwen-code.tool_call", "function_name": "ls"}})
    chat.result("c1", "ls", "a.py")
    chat.reply([{"text": "One file."}])
    chat.system("slash_command", {"phase": "invocation", "rawCommand": "/stats"})
    chat.system("slash_command", {"phase": "result", "rawCommand": "/stats", "outputHistoryItems": []})
    path = chat.write(tmp_path / "projects" / "-work-p" / "chats" / f"{SID}.jsonl")
    session, ctx = one(path)
    assert ctx.problems == []
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[1].usage == Usage(100, 20, None, None)
    assert session.messages[3].usage is None  # no usage and no api_response above it
    [result] = blocks(session, ToolResult)
    assert result.tool_use_id == "c1" and result.output == "a.py" and result.detail == "a.py" and result.name == "ls"
    assert [(e.kind, e.type, e.message_id) for e in session.events] == [
        ("token_count", "qwen-code.api_response", "r3"), ("meta", "qwen-code.tool_call", "r3"),
        ("meta", "slash_command", "r6"), ("meta", "slash_command", "r6")]
    assert session.tip == "r6"
    assert load(path).formats == {path.name: "qwen_code"}
    everything_valid(session, {})


def test_telemetry_gives_usage_when_the_reply_has_none(tmp_path: Path) -> None:
    chat = Chat()
    chat.user("hi")
    chat.api_response(500, 40, 300, thoughts=10)
    chat.reply([{"text": "Hello."}])
    session, ctx = one(chat.write(tmp_path / "a.jsonl"))
    assert ctx.problems == [] and session.messages[1].usage == Usage(200, 40, 300, None)
    assert session.events[0].message_id == "r3"


def test_gemini_backend_counts_thoughts_apart_and_keeps_signatures(tmp_path: Path) -> None:
    """With Gemini's own API (auth ``gemini``) thoughts are outside the candidates and the total."""
    chat = Chat()
    chat.user("why?")
    chat.system("ui_telemetry", {"uiEvent": {"event.name": "qwen-code.api_response", "auth_type": "gemini",
                                             "input_token_count": 50, "output_token_count": 5}})
    chat.reply([{"text": "weighing it", "thought": True, "thoughtSignature": "SIG1"},
                {"functionCall": {"id": "g1", "name": "read_file", "args": {"path": "x"}}, "thoughtSignature": "SIG2"}],
               model="gemini-2.5-pro",
               usageMetadata={"promptTokenCount": 50, "candidatesTokenCount": 5, "thoughtsTokenCount": 7,
                              "cachedContentTokenCount": 20, "totalTokenCount": 62})
    session, ctx = one(chat.write(tmp_path / "g.jsonl"))
    assert ctx.problems == []
    reply = session.messages[1]
    assert reply.usage == Usage(30, 12, 20, None) and reply.provider == "google" and reply.model == "gemini-2.5-pro"
    thought, signed = blocks(session, Reasoning)
    assert (thought.text, thought.signature, thought.provider, thought.model) == (
        "weighing it", "SIG1", "google", "gemini-2.5-pro")
    assert signed.redacted and signed.signature == "SIG2" and signed.provider == "google"
    assert session.run_configs[0].provider == "google"


def test_parallel_results_are_one_message_and_errors_are_marked(tmp_path: Path) -> None:
    chat = Chat()
    chat.user("two things")
    chat.reply([{"functionCall": {"id": "a", "name": "ls", "args": {}}},
                {"functionCall": {"id": "b", "name": "run_shell_command", "args": {"command": "false"}}}])
    chat.system("ui_telemetry", {"uiEvent": {"event.name": "qwen-code.tool_call", "function_name": "ls"}})
    chat.result("a", "ls", "x")
    chat.system("ui_telemetry", {"uiEvent": {"event.name": "qwen-code.tool_call", "function_name": "run_shell_command",
                                             "error": "exit 1"}})
    chat.add("tool_result", message={"role": "user", "parts": [
        {"functionResponse": {"id": "b", "name": "run_shell_command", "response": {"error": "exit 1"}}}]},
        toolCallResult={"callId": "b", "status": "error", "resultDisplay": "exit 1",
                        "error": {"message": "exit 1"}, "errorType": "execution_failed"})
    chat.reply([{"text": "One failed."}])
    session, ctx = one(chat.write(tmp_path / "p.jsonl"))
    assert ctx.problems == []
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    first, second = session.messages[2].blocks
    assert isinstance(first, ToolResult) and isinstance(second, ToolResult)
    assert (first.tool_use_id, first.is_error, second.tool_use_id, second.is_error) == ("a", False, "b", True)
    assert session.messages[3].parent_id == session.messages[2].id == "r4"
    assert session.events[1].text == "exit 1"
    everything_valid(session, {})


def test_a_result_recorded_without_its_function_response(tmp_path: Path) -> None:
    chat = Chat()
    chat.user("run")
    chat.reply([{"functionCall": {"id": "k", "name": "run_shell_command", "args": {"command": "sleep 99"}}}])
    chat.add("tool_result", toolCallResult={"callId": "k", "status": "cancelled", "resultDisplay": "Cancelled"})
    session, ctx = one(chat.write(tmp_path / "k.jsonl"))
    assert ctx.problems == []
    [result] = blocks(session, ToolResult)
    assert (result.tool_use_id, result.output, result.is_error) == ("k", "Cancelled", True)


def test_compression_title_parent_and_newer_subtypes(tmp_path: Path) -> None:
    chat = Chat(version="0.22.0")
    chat.system("parent_session", {"parentSessionId": "parent-1"})
    chat.user("start", provenance="real_user", promptId="p1", systemPayload={"displayText": "start", "hookContext": ""})
    chat.reply([{"text": "ok"}], contextWindowSize=1000000, provenance="assistant_output")
    chat.system("chat_compression", {"info": {"originalTokenCount": 90000, "newTokenCount": 12000,
                                              "compressionStatus": 1},
                                     "compressedHistory": [{"role": "user", "parts": [{"text": "Summary: we started."}]},
                                                           {"role": "model", "parts": [{"text": "Got it."}]}]})
    chat.system("custom_title", {"customTitle": "Starting", "titleSource": "auto"})
    chat.add("user", subtype="notification", provenance="system",
             message={"role": "user", "parts": [{"text": "background task done"}]},
             systemPayload={"displayText": "Task finished"})
    chat.system("turn_result", {"promptId": "p1", "state": "error", "endedAt": 1, "error": {"message": "boom"}})
    chat.system("attribution_snapshot", {"snapshot": {}})
    session, ctx = one(chat.write(tmp_path / "c.jsonl"))
    assert ctx.problems == []
    assert session.title == "Starting" and session.parent_session_id == "parent-1"
    [compaction] = [e for e in session.events if e.kind == "compaction"]
    assert compaction.tokens_before == 90000 and "12000" in compaction.text and "Summary: we started." in compaction.text
    assert compaction.message_id == "r3" and compaction.trigger is None
    notice = session.messages[-1]
    assert notice.tags == ("meta",) and notice.text == "background task done" and session.tip == notice.id
    assert [e.kind for e in session.events if e.type == "turn_result"] == ["error"]
    assert [e.text for e in session.events if e.type.startswith("user:")] == ["start", "Task finished"]


def test_rewind_leaves_a_dead_branch_and_the_tip_follows_the_new_one(tmp_path: Path) -> None:
    chat = Chat()
    first = chat.user("first")
    chat.reply([{"text": "one"}])
    before = chat.tail
    chat.user("second")
    chat.reply([{"text": "two"}])
    chat.system("rewind", {"truncatedCount": 2}, parent=before)  # rewindRecording re-roots before the turn
    chat.user("second, again")
    chat.reply([{"text": "two again"}])
    session, ctx = one(chat.write(tmp_path / "r.jsonl"))
    assert ctx.problems == []
    assert [m.text for m in session.path()] == ["first", "one", "second, again", "two again"]
    assert len(session.messages) == 6 and len(session.leaves()) == 2 and session.messages[0].id == first
    # a rewind with nothing after it: the live conversation ends before the rewound turn
    session, _ = one(write(tmp_path / "r2.jsonl", chat.records[:5]))
    assert session.tip == before


def test_subagent_records_are_their_own_session(tmp_path: Path) -> None:
    chat = Chat()
    chat.user("explore", agentId="explore-7f3c", agentName="Explore", isSidechain=True)
    chat.reply([{"text": "found it"}], agentId="explore-7f3c", isSidechain=True)
    path = chat.write(tmp_path / "projects" / "-work-p" / "subagents" / SID / "agent-explore-7f3c.jsonl")
    session, ctx = one(path)
    assert session.id == f"{SID}:agent-explore-7f3c" and session.parent_session_id == SID
    assert session.spawn_call_id is None
    assert all(m.sidechain for m in session.messages)
    # its parent's chat file is not beside subagents/: the link cannot be made, and says why
    assert [(p.line, p.reason) for p in ctx.problems] == [(None, (
        f"subagent {SID}:agent-explore-7f3c: its parent session {SID} is neither in the file nor at "
        f"chats/{SID}.jsonl, so the call that spawned it is unknown"))]


def test_images_in_prompts_and_tool_results(tmp_path: Path) -> None:
    data = base64.b64encode(PNG).decode()
    chat = Chat()
    chat.add("user", message={"role": "user", "parts": [{"text": "what is this"},
                                                        {"inlineData": {"mimeType": "image/png", "data": data}}]})
    chat.reply([{"functionCall": {"id": "s", "name": "read_file", "args": {"path": "a.png"}}}])
    chat.add("tool_result", message={"role": "user", "parts": [{"functionResponse": {
        "id": "s", "name": "read_file", "response": {"output": "Binary content"},
        "parts": [{"inlineData": {"mimeType": "image/png", "data": data}}]}}]},
        toolCallResult={"callId": "s", "status": "success", "resultDisplay": "read a.png"})
    chat.reply([{"text": "A pixel."}])
    corpus = load(chat.write(tmp_path / "i.jsonl"))
    (session,) = corpus.sessions
    assert corpus.problems == []
    [result] = blocks(session, ToolResult)
    assert len(blocks(session, Image)) == 1 and len(result.images) == 1 and result.detail == "read a.png"
    everything_valid(session, corpus.images)


def test_bad_input_is_reported_and_kept(tmp_path: Path) -> None:
    chat = Chat()
    chat.user("hi")
    chat.system("brand_new_subtype", {"x": 1})
    chat.add("checkpoint", note="?")
    chat.result("nope", "ls", "orphan")
    chat.reply([{"text": "bye"}, {"somethingElse": {"a": 1}}])
    chat.add("user", parent="missing", message={"role": "user", "parts": [{"text": "lost"}]})
    path = chat.write(tmp_path / "b.jsonl")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n" + json.dumps(chat.records[0]) + "\n" + '{"uuid": "r9", "parentUuid": "r5"')
    session, ctx = one(path)
    reasons = [p.reason for p in ctx.problems]
    assert any("brand_new_subtype" in r for r in reasons) and any("checkpoint" in r for r in reasons)
    assert any("orphan" in r for r in reasons) and any("somethingElse" in r for r in reasons)
    assert any("missing" in r for r in reasons) and any("not valid JSON" in r for r in reasons)
    assert any("truncated" in r for r in reasons)
    assert [(e.kind, e.type) for e in session.events] == [("other", "brand_new_subtype"), ("other", "checkpoint")]
    [result] = blocks(session, ToolResult)
    assert result.output == "orphan"
    lost = session.messages[-1]
    assert lost.text == "lost" and lost.parent_id is None and session.tip == lost.id
    with pytest.raises(RecordError, match="brand_new_subtype"):
        qwen_code.read(write(tmp_path / "s.jsonl", chat.records[:2]), ImportContext(strict=True), None)


def test_sniff_a_first_line_longer_than_the_head(tmp_path: Path) -> None:
    chat = Chat()
    chat.user("x" * 70000)
    chat.reply([{"text": "long"}])
    path = chat.write(tmp_path / "long.jsonl")
    assert qwen_code.sniff(Head(path, path.read_bytes()[:65536]))
    found = detect(path)
    assert found is not None and found[0].name == "qwen_code"


def test_sniff_says_no_to_claude_code_and_gemini_cli_records(tmp_path: Path) -> None:
    claude = {"uuid": "u", "parentUuid": None, "sessionId": "s", "type": "user", "timestamp": "t",
              "message": {"role": "user", "content": "hi"}}
    gemini = {"sessionId": "s", "projectHash": "h", "startTime": "t", "messages": []}
    for name, record in (("c.jsonl", claude), ("g.jsonl", gemini)):
        path = write(tmp_path / name, [record])
        assert not qwen_code.sniff(Head(path, path.read_bytes())), name


def test_an_empty_prompt_and_reply_keep_an_empty_text(tmp_path: Path) -> None:
    chat = Chat()
    chat.user("")
    chat.reply([])
    session, ctx = one(chat.write(tmp_path / "e.jsonl"))
    assert ctx.problems == [] and [m.blocks for m in session.messages] == [(Text(""),), (Text(""),)]


# ---- the Gemini CLI files older Qwen Code releases wrote -----------------------------------------


def test_older_releases_gemini_cli_files_are_read_by_the_gemini_cli_importer(tmp_path: Path) -> None:
    """Before the JSONL recorder Qwen Code wrote Gemini CLI's own files under ~/.qwen/tmp/<hash>/."""
    project = tmp_path / ".qwen" / "tmp" / ("ab" * 32)
    recording = project / "chats" / "session-2025-10-01T10-00-1a2b3c4d.json"
    recording.parent.mkdir(parents=True)
    recording.write_text(json.dumps({
        "sessionId": "1a2b3c4d-0000-0000-0000-000000000000", "projectHash": "ab" * 32,
        "startTime": "2025-10-01T10:00:00.000Z", "lastUpdated": "2025-10-01T10:01:00.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2025-10-01T10:00:00.000Z", "type": "user", "content": "hello"},
            {"id": "m2", "timestamp": "2025-10-01T10:00:05.000Z", "type": "gemini", "content": "Hi!",
             "model": "qwen3-coder-plus", "tokens": {"input": 10, "output": 2, "cached": 0, "total": 12}},
        ]}, indent=2), encoding="utf-8")
    (project / "checkpoint-work.json").write_text(json.dumps([
        {"role": "user", "parts": [{"text": "save me"}]}, {"role": "model", "parts": [{"text": "saved"}]}]),
        encoding="utf-8")
    (project / "logs.json").write_text(json.dumps([
        {"sessionId": "1a2b3c4d", "messageId": 0, "type": "user", "message": "hello",
         "timestamp": "2025-10-01T10:00:00.000Z"}], indent=2), encoding="utf-8")
    corpus = load(project)
    assert corpus.problems == []
    assert corpus.formats == {"chats/session-2025-10-01T10-00-1a2b3c4d.json": "gemini_cli",
                              "checkpoint-work.json": "gemini", "logs.json": "gemini_cli"}
    recorded = next(s for s in corpus.sessions if s.format == "gemini_cli" and s.messages[-1].role == "assistant")
    assert [m.text for m in recorded.path()] == ["hello", "Hi!"]


# ---- where Qwen Code keeps files ------------------------------------------------------------------


def test_layouts_follow_runtime_dir_and_qwen_home(tmp_path: Path) -> None:
    default = qwen_code.layouts({}, tmp_path)
    assert [(lay.folder, lay.found_by) for lay in default] == [
        (tmp_path / ".qwen" / "projects", "default"), (tmp_path / ".qwen" / "tmp", "default")]
    home = qwen_code.layouts({"QWEN_HOME": "~/q"}, tmp_path)
    assert [lay.folder for lay in home] == [tmp_path / "q" / "projects", tmp_path / "q" / "tmp"]
    runtime = qwen_code.layouts({"QWEN_HOME": "/elsewhere", "QWEN_RUNTIME_DIR": str(tmp_path / "rt")}, tmp_path)
    assert (runtime[0].folder, runtime[0].found_by) == (tmp_path / "rt" / "projects", "QWEN_RUNTIME_DIR")
    assert [lay.folder for lay in qwen_code.layouts({"QWEN_HOME": ""}, tmp_path)] == [lay.folder for lay in default]
    projects, legacy = default
    assert projects.descend(("-work-p",)) and projects.descend(("-work-p", "chats"))
    assert projects.descend(("-work-p", "chats", "archive")) and projects.descend(("-work-p", "subagents", SID))
    assert not projects.descend(("-work-p", "other"))
    assert projects.wanted(("-work-p", "chats", f"{SID}.jsonl"))
    assert projects.wanted(("-work-p", "chats", "archive", f"{SID}.jsonl"))
    assert projects.wanted(("-work-p", "subagents", SID, "agent-explore-1.jsonl"))
    assert not projects.wanted(("-work-p", "chats", "notes.txt")) and not projects.wanted((f"{SID}.jsonl",))
    assert legacy.wanted(("h", "chats", "session-2025-10-01T10-00-1a2b.json"))
    assert legacy.wanted(("h", "checkpoint-x.json")) and legacy.wanted(("h", "logs.json"))
    assert not legacy.wanted(("h", "shell_history")) and not legacy.descend(("h", "checkpoints"))
    assert qwen_code.IMPORTER.client == "Qwen Code" and qwen_code.IMPORTER.names_only


def agent_call(call_id: str, **args: Any) -> dict[str, Any]:
    return {"functionCall": {"id": call_id, "name": "agent", "args": args}}


def test_subagents_link_to_the_agent_call_that_spawned_them(tmp_path: Path) -> None:
    """The ``agent`` tool (``task`` before its rename): a background launch's result names the agent
    (``(ID: <agentId>)``), so does the completion notice (``backgroundTask.toolUseId``); a foreground run
    returns only the agent's text, so its prompt is what finds the call. Agents' records sit in the
    parent's file or in ``subagents/<session>/agent-<id>.jsonl``; one file is named by no call."""
    project = tmp_path / "projects" / "-work-p"
    chat = Chat()
    chat.user("work")
    chat.reply([agent_call("call_bg", description="Scan", prompt="scan deps", subagent_type="Explore",
                           run_in_background=True),
                agent_call("call_bg2", description="Audit", prompt="audit licenses", run_in_background=True),
                {"functionCall": {"id": "call_fg", "name": "task", "args": {
                    "description": "Docs", "prompt": "write docs", "subagent_type": "general-purpose"}}},
                {"functionCall": {"id": "call_ls", "name": "list_directory", "args": {"path": "."}}}])
    chat.result("call_bg", "agent", 'Background agent launched: "Scan" (ID: explore-1712000000001). '
                                    "You will be notified when it completes.")
    chat.result("call_bg2", "agent", "Background agent launched.")
    chat.result("call_fg", "task", "The docs are written.")
    chat.result("call_ls", "list_directory", "a.py")
    # the foreground agent's records, written into the parent's file
    chat.user("write docs", parent=None, agentId="general-purpose-3", isSidechain=True)
    chat.reply([{"text": "written"}], agentId="general-purpose-3", isSidechain=True)
    chat.add("user", parent=chat.records[5]["uuid"], subtype="notification",
             message={"role": "user", "parts": [{"text": "Agent Audit completed."}]},
             systemPayload={"displayText": "Agent Audit completed.", "backgroundTask": {
                 "taskId": "general-1712000000002", "status": "completed", "kind": "agent",
                 "toolUseId": "call_bg2"}})
    chat.write(project / "chats" / f"{SID}.jsonl")
    for agent, prompt in (("explore-1712000000001", "scan deps"), ("general-1712000000002", "audit licenses"),
                          ("explore-1712000000009", "unasked")):
        sub = Chat()
        sub.user(prompt, agentId=agent, agentName="Explore", isSidechain=True)
        sub.reply([{"text": "done"}], agentId=agent, isSidechain=True)
        sub.write(project / "subagents" / SID / f"agent-{agent}.jsonl")
    corpus = load(tmp_path)
    assert [(p.file, p.reason) for p in corpus.problems] == [(  # the file no call names
        f"projects/-work-p/subagents/{SID}/agent-explore-1712000000009.jsonl",
        f"subagent {SID}:agent-explore-1712000000009 not linked to its spawning call: none of the 3 spawning "
        f"calls of its parent session {SID} names its agent or opened it with its prompt")]
    links = {s.id: (s.parent_session_id, s.spawn_call_id) for s in corpus.sessions}
    # one main session and four agents (three files, one inline): counted from what was written above
    assert links == {SID: (None, None),
                     f"{SID}:agent-explore-1712000000001": (SID, "call_bg"),
                     f"{SID}:agent-general-1712000000002": (SID, "call_bg2"),
                     f"{SID}:agent-general-purpose-3": (SID, "call_fg"),
                     f"{SID}:agent-explore-1712000000009": (SID, None)}
    main = corpus.session(SID)
    calls = {b.id for b in blocks(main, ToolUse)}
    for parent, call in links.values():
        assert call is None or (parent == SID and call in calls)
    # from the parent's side: each spawning call finds its one subagent, the other call none
    for call in ("call_bg", "call_bg2", "call_fg", "call_ls"):
        found = [s.id for s in corpus.sessions if s.parent_session_id == SID and s.spawn_call_id == call]
        assert len(found) == (0 if call == "call_ls" else 1), call
    assert corpus.session(f"{SID}:agent-general-1712000000002").title == "Audit"  # the call's description
    assert {s.id: (s.parent_session_id, s.spawn_call_id) for s in load(tmp_path, workers=2).sessions} == links


def test_a_sub_session_links_to_the_create_sub_session_call(tmp_path: Path) -> None:
    """Daemon mode's ``create_sub_session``: the new session is a chat file of its own whose
    ``parent_session`` record names the parent; the call's result links it (``qwen-session://<id>``)."""
    child_id = "9b1f0c1e-0000-4000-8000-000000000002"
    chats = tmp_path / "projects" / "-work-p" / "chats"
    parent = Chat()
    parent.user("fan out")
    parent.reply([{"functionCall": {"id": "call_sub", "name": "create_sub_session",
                                    "args": {"prompt": "summarise the changelog", "completion": "sent"}}}])
    parent.result("call_sub", "create_sub_session", f"Sub-session [🧵 9b1f0c1e](qwen-session://{child_id}) created "
                                                    "and the prompt was dispatched.")
    parent.write(chats / f"{SID}.jsonl")
    child = Chat()
    child.system("parent_session", {"parentSessionId": SID})
    child.user("summarise the changelog")
    child.reply([{"text": "It adds subagents."}])
    for record in child.records:
        record["sessionId"] = child_id
    child.write(chats / f"{child_id}.jsonl")
    corpus = load(tmp_path)
    assert corpus.problems == []
    links = {s.id: (s.parent_session_id, s.spawn_call_id) for s in corpus.sessions}
    assert links == {SID: (None, None), child_id: (SID, "call_sub")}
    assert "call_sub" in {b.id for b in blocks(corpus.session(SID), ToolUse)}
