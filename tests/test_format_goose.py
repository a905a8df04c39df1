"""The Goose importer: each storage written from Goose's source (block/goose: session/storage.rs and
session/legacy.rs for the JSON Lines files, session/session_manager.rs and session/migrations.rs for
each schema version of sessions.db, conversation/message.rs for the content), counted by the test's
own reading of the crafted records."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus_files
from tests.helpers import PNG, PNG_SHA, everything_valid
from toolkit.corpus import load
from toolkit.corpus.formats import goose
from toolkit.corpus.formats import sniff as detect
from toolkit.record import Event, Image, Opaque, Reasoning, Session, Text, ToolResult, ToolUse, Usage

B64 = base64.b64encode(PNG).decode()
T0 = 1_750_000_000

# ---- Goose's records, as serde writes them -----------------------------------------------------------


def text(words: str, audience: list[str] | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "text", "text": words}
    if audience is not None:
        item["annotations"] = {"audience": audience}
    return item


def image() -> dict[str, Any]:
    return {"type": "image", "data": B64, "mimeType": "image/png"}


def call(call_id: str, name: str, arguments: dict[str, Any], kind: str = "toolRequest", **extra: Any) -> dict[str, Any]:
    return {"type": kind, "id": call_id, "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
            **extra}


def unparsed_call(call_id: str) -> dict[str, Any]:
    return {"type": "toolRequest", "id": call_id,
            "toolCall": {"status": "error", "error": "-32602: Could not interpret tool use parameters"}}


def response(call_id: str, contents: list[dict[str, Any]], legacy: bool = False, is_error: bool = False) -> dict[str, Any]:
    value: Any = contents if legacy else {"content": contents, "isError": is_error}
    return {"type": "toolResponse", "id": call_id, "toolResult": {"status": "success", "value": value}}


def failed(call_id: str, error: str) -> dict[str, Any]:
    return {"type": "toolResponse", "id": call_id, "toolResult": {"status": "error", "error": error}}


def message(role: str, at: int, content: list[dict[str, Any]], metadata: dict[str, Any] | None = None,
            message_id: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": message_id, "role": role, "created": at, "content": content}
    if metadata is not None:
        out["metadata"] = metadata
    return out


def compact(value: object) -> str:
    """JSON as serde_json writes it: no spaces."""
    return json.dumps(value, separators=(",", ":"))


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(compact(r) + "\n" for r in records), encoding="utf-8")
    return path


# ---- what the records hold, read by the test itself --------------------------------------------------

NOT_SENT = {"toolConfirmationRequest", "actionRequired", "systemNotification", "contextLengthExceeded",
            "summarizationRequested", "conversationCompacted", "error"}
"""The content types Goose's providers never format (message.rs): the client's own."""


def for_model(item: dict[str, Any]) -> bool:
    audience = item.get("annotations", {}).get("audience")
    return audience is None or "assistant" in audience


def expected(records: list[dict[str, Any]]) -> dict[str, int]:
    """Messages, calls, results, images and reasoning blocks the records should give."""
    tally = dict.fromkeys(("messages", "calls", "results", "images", "reasoning", "hidden"), 0)
    for record in records:
        sent = [i for i in record["content"] if i["type"] not in NOT_SENT and
                (i["type"] not in ("text", "image") or for_model(i))]
        if not sent and record["content"]:
            continue
        tally["messages"] += 1
        tally["hidden"] += record.get("metadata", {}).get("agentVisible") is False
        for item in sent:
            kind = item["type"]
            if kind in ("toolRequest", "frontendToolRequest") and item["toolCall"]["status"] == "success":
                tally["calls"] += 1
                tally["reasoning"] += bool(item.get("thoughtSignature") or
                                           item.get("metadata", {}).get("thoughtSignature"))
            elif kind == "toolResponse":
                tally["results"] += 1
                value = item["toolResult"].get("value")
                contents = value if isinstance(value, list) else (value or {}).get("content", [])
                tally["images"] += sum(c["type"] == "image" and for_model(c) for c in contents)
            elif kind == "image":
                tally["images"] += 1
            elif kind in ("thinking", "redactedThinking", "reasoning"):
                tally["reasoning"] += 1
    return tally


def found(session: Session) -> dict[str, int]:
    tally = dict.fromkeys(("messages", "calls", "results", "images", "reasoning", "hidden"), 0)
    tally["messages"] = len(session.messages)
    tally["hidden"] = sum("agent_invisible" in m.tags for m in session.messages)
    for _, block in session.blocks():
        match block:
            case ToolUse():
                tally["calls"] += 1
            case ToolResult():
                tally["results"] += 1
                tally["images"] += len(block.images)
            case Image():
                tally["images"] += 1
            case Reasoning():
                tally["reasoning"] += 1
            case Text() | Opaque():
                pass
    return tally


def of(session: Session, kind: type) -> list[Any]:
    return [b for _, b in session.blocks() if isinstance(b, kind)]


# ---- the JSON Lines files (until 1.10.0) -------------------------------------------------------------

OLD_METADATA = {"working_dir": "/w", "description": "fix the build", "schedule_id": None, "message_count": 7,
                "total_tokens": 900, "input_tokens": 800, "output_tokens": 100, "accumulated_total_tokens": 2000,
                "accumulated_input_tokens": 1800, "accumulated_output_tokens": 200}
"""``SessionMetadata`` of session/storage.rs at 01a262b (no extension data yet)."""


def old_conversation() -> list[dict[str, Any]]:
    """The first content types (crates/goose/src/message.rs at 1f2f6b1): no metadata, results as a bare
    content list, the compaction and context markers, Gemini's signature on the call itself."""
    return [
        {"role": "user", "created": T0, "content": [text("Why does the build fail?"), image()]},
        {"role": "assistant", "created": T0 + 1, "content": [
            {"type": "thinking", "thinking": "Check the log.", "signature": "sig-a"},
            text("Reading the log."), call("c1", "developer__shell", {"command": "make"}, thoughtSignature="gsig")]},
        {"role": "user", "created": T0 + 2, "content": [response("c1", [
            text("error: missing header"), {"type": "resource", "resource": {"uri": "file:///w/log", "text": "log"}},
            image()], legacy=True)]},
        {"role": "assistant", "created": T0 + 3, "content": [{"type": "contextLengthExceeded", "msg": "too long"}]},
        {"role": "user", "created": T0 + 4, "content": [{"type": "summarizationRequested", "msg": "summarize?"}]},
        {"role": "assistant", "created": T0 + 5, "content": [{"type": "conversationCompacted", "msg": "compacted"}]},
        {"role": "assistant", "created": T0 + 6, "content": [
            {"type": "redactedThinking", "data": "opaque"}, {"type": "reasoning", "text": "plan"},
            text("Add the header.")]},
    ]


def test_legacy_file_of_the_first_releases(tmp_path: Path) -> None:
    records = old_conversation()
    write_jsonl(tmp_path / "sessions" / "20250301_101500.jsonl", [OLD_METADATA, *records])
    corpus = load(tmp_path)
    assert corpus.problems == []
    assert corpus.formats == {"sessions/20250301_101500.jsonl": "goose"}
    (session,) = corpus.sessions
    assert found(session) == expected(records) == {
        "messages": 4, "calls": 1, "results": 1, "images": 2, "reasoning": 4, "hidden": 0}
    assert session.id == "20250301_101500" and session.title == "fix the build"
    assert [m.id for m in session.messages] == [f"20250301_101500:{n}" for n in (2, 3, 4, 8)]
    assert [m.role for m in session.path()] == ["user", "assistant", "user", "assistant"]
    (use,) = of(session, ToolUse)
    assert (use.id, use.name, use.input) == ("c1", "developer__shell", {"command": "make"})
    signed = session.messages[1].blocks
    assert [type(b).__name__ for b in signed] == ["Reasoning", "Text", "Reasoning", "ToolUse"]
    assert isinstance(signed[2], Reasoning) and signed[2].signature == "gsig" and signed[2].text == ""
    (result,) = of(session, ToolResult)
    assert result.output == "error: missing header\nlog" and result.name == "developer__shell"
    assert [i.sha256 for i in result.images] == [PNG_SHA]
    redacted = [b for b in of(session, Reasoning) if b.redacted]
    assert [b.signature for b in redacted] == ["opaque"]
    kinds = [(e.kind, e.type, e.message_id) for e in session.events]
    assert kinds == [("meta", "session", None), ("token_count", "session_tokens", None),
                     ("error", "contextLengthExceeded", "20250301_101500:4"),
                     ("meta", "summarizationRequested", "20250301_101500:4"),
                     ("compaction", "conversationCompacted", "20250301_101500:4")]
    assert session.events[1].raw == {k: v for k, v in OLD_METADATA.items() if "tokens" in k}
    assert session.messages[0].time is not None and session.messages[0].time.timestamp() == T0
    assert corpus.images == {PNG_SHA: PNG}
    assert session.run_configs == ()
    everything_valid(session, corpus.images)


def test_legacy_file_with_visibility_recipe_and_no_metadata_line(tmp_path: Path) -> None:
    """The last JSON Lines releases wrote ``metadata`` per message and ``extension_data`` and ``recipe``
    in the first line (storage.rs at e3e6f12); a file may also start with a message."""
    metadata = {**OLD_METADATA, "extension_data": {"todo.v0": {"content": "- [ ] x"}}, "recipe": {"title": "r"}}
    records = [
        message("user", T0, [text("hi")], {"userVisible": True, "agentVisible": True}),
        message("assistant", T0 + 1, [text("hello"), call("c9", "todo__write", {"x": 1}, kind="frontendToolRequest")],
                {"userVisible": True, "agentVisible": True}, "chatcmpl-1"),
        message("user", T0 + 2, [failed("c9", "denied by the user")], {"userVisible": True, "agentVisible": True}),
    ]
    write_jsonl(tmp_path / "a.jsonl", [metadata, *records])
    write_jsonl(tmp_path / "b.jsonl", records)
    corpus = load(tmp_path)
    assert corpus.problems == []
    by_id = {s.id: s for s in corpus.sessions}
    for session in by_id.values():
        assert found(session) == expected(records)
        (result,) = of(session, ToolResult)
        assert result.is_error and result.output == "denied by the user" and result.name == "todo__write"
        everything_valid(session, corpus.images)
    assert by_id["a"].title == "fix the build" and by_id["b"].title is None
    assert by_id["a"].events[0].raw == metadata
    assert [e.type for e in by_id["b"].events] == []


def test_bad_lines_unknown_content_and_orphans_are_reported_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    write_jsonl(path, [OLD_METADATA,
                       message("user", T0, [text("hi"), {"type": "hologram", "depth": 3}]),
                       message("user", T0 + 1, [response("nobody", [text("late")])]),
                       message("system", T0 + 2, [text("odd role")])])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"role":"assistant","created":1,"content":[{"type":"text","text":"never finis\n')
        handle.write('{"role":"assistant","created":2,"content":[{"type":"text","text":"cut')
    corpus = load(path)
    (session,) = corpus.sessions
    reasons = [(p.line, p.reason) for p in corpus.problems]
    assert reasons[0] == (2, "line 2: unknown content type 'hologram'; kept as opaque")
    assert reasons[1] == (3, "line 3: tool response for call 'nobody' has no earlier call (orphan); kept")
    assert reasons[2] == (4, "line 4: message with unknown role 'system'; kept as a user message")
    assert reasons[3][0] == 5 and reasons[3][1].startswith("line is not valid JSON")
    assert reasons[4][0] == 6 and reasons[4][1].startswith("truncated last line")
    assert len(reasons) == 5
    hologram = of(session, Opaque)[0]
    assert hologram.type == "hologram" and hologram.raw == {"type": "hologram", "depth": 3}
    assert of(session, ToolResult)[0].tool_use_id == "nobody"
    assert [m.role for m in session.messages] == ["user", "user", "user"]
    everything_valid(session, corpus.images)


# ---- sessions.db, by schema version ------------------------------------------------------------------

BASE = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
  timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER);
"""
"""The tables before the first migration (``create`` of session_manager.rs less what migrations add)."""

MIGRATIONS = {
    1: "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT "
       "CURRENT_TIMESTAMP)",
    2: "ALTER TABLE sessions ADD COLUMN user_recipe_values_json TEXT",
    3: "ALTER TABLE messages ADD COLUMN metadata_json TEXT",
    4: "ALTER TABLE sessions ADD COLUMN name TEXT DEFAULT ''; "
       "ALTER TABLE sessions ADD COLUMN user_set_name BOOLEAN DEFAULT FALSE",
    5: "ALTER TABLE sessions ADD COLUMN session_type TEXT NOT NULL DEFAULT 'user'",
    6: "ALTER TABLE sessions ADD COLUMN provider_name TEXT; ALTER TABLE sessions ADD COLUMN model_config_json TEXT",
    7: "ALTER TABLE messages ADD COLUMN message_id TEXT; UPDATE messages SET message_id = 'msg_' || session_id || '_' "
       "|| id",
    8: "ALTER TABLE sessions ADD COLUMN goose_mode TEXT NOT NULL DEFAULT 'auto'",
    9: "",
    10: "ALTER TABLE sessions ADD COLUMN thread_id TEXT; CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT NOT NULL "
        "DEFAULT 'New Chat', user_set_name BOOLEAN DEFAULT FALSE, working_dir TEXT, created_at TIMESTAMP DEFAULT "
        "CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, archived_at TIMESTAMP, metadata_json "
        "TEXT DEFAULT '{}'); CREATE TABLE thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT "
        "NULL REFERENCES threads(id), session_id TEXT, message_id TEXT, role TEXT NOT NULL, content_json TEXT NOT "
        "NULL, created_timestamp INTEGER NOT NULL, metadata_json TEXT DEFAULT '{}')",
    11: "",
    12: "ALTER TABLE sessions ADD COLUMN archived_at TIMESTAMP; ALTER TABLE sessions ADD COLUMN project_id TEXT",
    13: "ALTER TABLE sessions ADD COLUMN accumulated_cost REAL",
    14: "; ".join(f"ALTER TABLE sessions ADD COLUMN {c} INTEGER" for c in (
        "cache_read_tokens", "cache_write_tokens", "accumulated_cache_read_tokens", "accumulated_cache_write_tokens")),
    15: "ALTER TABLE sessions ADD COLUMN parent_session_id TEXT; CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY "
        "AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, created_timestamp INTEGER "
        "NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens "
        "INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0)",
    16: "CREATE INDEX IF NOT EXISTS idx_messages_session_created ON messages(session_id, created_timestamp, id)",
}
"""``apply_migration`` of session_manager.rs (schema 16; 9 relabels ACP sessions, 11 adds provider tables)."""


def database(path: Path, version: int) -> sqlite3.Connection:
    """A sessions.db as Goose leaves one at ``version``: the base tables, then each migration in turn."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(BASE)
    for step in range(1, version + 1):
        if MIGRATIONS[step]:
            con.executescript(MIGRATIONS[step])
        con.execute("INSERT INTO schema_version (version) VALUES (?)", (step,))
    return con


def insert_session(con: sqlite3.Connection, session_id: str, **fields: Any) -> None:
    names = ["id", "working_dir", *fields]
    con.execute(f"INSERT INTO sessions ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                [session_id, "/w", *fields.values()])


def insert_messages(con: sqlite3.Connection, session_id: str, records: list[dict[str, Any]], version: int) -> None:
    """Rows as ``add_message`` writes them at ``version``: metadata from 3, the message id from 7."""
    for record in records:
        row: dict[str, Any] = {"session_id": session_id, "role": record["role"],
                               "content_json": compact(record["content"]), "created_timestamp": record["created"]}
        if version >= 3:
            row["metadata_json"] = compact(record.get("metadata", {"userVisible": True, "agentVisible": True}))
        if version >= 7 and record.get("id"):
            row["message_id"] = record["id"]
        con.execute(f"INSERT INTO messages ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))


def current_conversation() -> list[dict[str, Any]]:
    """Today's content types (conversation/message/ at 865e4a0): inference metadata, signatures in the
    call's provider metadata, CallToolResult values with user-only items, notifications, an unparsed call."""
    seen = {"userVisible": True, "agentVisible": True}
    said = {**seen, "inference": {"provider": "anthropic", "requestedModel": "claude-sonnet-4",
                                  "resolvedModel": "claude-sonnet-4-20250514"}}
    return [
        message("user", T0, [text("Look at this"), image()], seen, "msg_1"),
        message("assistant", T0 + 1, [{"type": "thinking", "thinking": "hmm", "signature": "s1"}, text("Reading."),
                                      call("c1", "developer__shell", {"command": "ls"},
                                           metadata={"thoughtSignature": "g1"}, _meta={"goose.toolSummary.title": "ls"})],
                said, "msg_2"),
        message("user", T0 + 2, [response("c1", [text("a.py", ["assistant"]), text("shown to the user", ["user"]),
                                                 image()], is_error=False)], seen, "msg_3"),
        message("assistant", T0 + 3, [unparsed_call("c2"), text("Let me retry.")], said, "msg_4"),
        message("user", T0 + 4, [response("c2", [text("Could not interpret")], is_error=True)], seen, "msg_5"),
        message("assistant", T0 + 5, [text("Done."), {"type": "systemNotification", "notificationType": "inlineMessage",
                                                      "msg": "compacting soon"}], said, "msg_6"),
        message("user", T0 + 6, [{"type": "actionRequired", "data": {"actionType": "toolConfirmation", "id": "c3",
                                                                     "toolName": "developer__shell", "arguments": {},
                                                                     "prompt": None}}],
                {"userVisible": True, "agentVisible": False}, "msg_7"),
    ]


def check_current(session: Session, records: list[dict[str, Any]]) -> None:
    assert found(session) == expected(records) == {
        "messages": 6, "calls": 1, "results": 2, "images": 2, "reasoning": 2, "hidden": 0}
    assert [m.id for m in session.messages] == [f"msg_{n}" for n in range(1, 7)]
    assert session.tip == "msg_6"
    reply = session.messages[1]
    assert (reply.model, reply.provider) == ("claude-sonnet-4-20250514", "anthropic")
    thinking = of(session, Reasoning)
    assert [(r.text, r.signature, r.model) for r in thinking] == [
        ("hmm", "s1", "claude-sonnet-4-20250514"), ("", "g1", "claude-sonnet-4-20250514")]
    first, second = of(session, ToolResult)
    assert first.output == "a.py" and not first.is_error and len(first.images) == 1
    assert first.detail == {"user_only": [text("shown to the user", ["user"])]}
    assert second.is_error and second.name is None and second.tool_use_id == "c2"
    (unparsed,) = of(session, Opaque)
    assert unparsed.type == "toolRequest" and "could not parse" in unparsed.reason
    notes = [(e.kind, e.type, e.message_id) for e in session.events if e.type != "session"]
    assert ("meta", "systemNotification:inlineMessage", "msg_6") in notes
    assert ("meta", "actionRequired:toolConfirmation", "msg_6") in notes


@pytest.mark.parametrize("version", [1, 5, 7])
def test_database_of_the_early_schemas(tmp_path: Path, version: int) -> None:
    """Schema 1 (the first SQLite release: title in ``description``, no visibility, no message ids), 5
    (``name``, ``session_type``, ``metadata_json``) and 7 (``message_id``, the session's model config)."""
    records = [*old_conversation()[:3], message("assistant", T0 + 3, [text("Fixed.")])]
    for record in records:
        record["id"] = None
    con = database(tmp_path / "sessions" / "sessions.db", version)
    fields: dict[str, Any] = {"description": "old title", "created_at": "2025-10-01 12:00:00", "total_tokens": 10,
                              "accumulated_total_tokens": 30}
    if version >= 4:
        fields.update(name="new title", description="")
    if version >= 6:
        fields.update(provider_name="openai", model_config_json=compact({"model_name": "gpt-4o", "context_limit": 128000}))
    insert_session(con, "20251001_1", **fields)
    insert_messages(con, "20251001_1", records, version)
    con.commit()
    con.close()
    corpus = load(tmp_path)
    assert corpus.problems == []
    assert corpus.formats == {"sessions/sessions.db": "goose"}
    (session,) = corpus.sessions
    assert found(session) == expected(records)
    assert session.title == ("old title" if version < 4 else "new title")
    row_ids = [f"msg_20251001_1_{n}" for n in range(1, 5)]
    assert [m.id for m in session.messages] == row_ids
    assert session.events[0].time is not None and session.events[0].time.isoformat() == "2025-10-01T12:00:00+00:00"
    if version >= 6:
        assert session.run_configs[0].model == "gpt-4o" and session.messages[1].model == "gpt-4o"
        assert session.messages[1].provider == "openai"
    else:
        assert session.run_configs == () and session.messages[1].model is None
    everything_valid(session, corpus.images)


def test_current_schema_with_subagent_ledger_threads_and_compaction(tmp_path: Path) -> None:
    """Schema 16: parent sessions, the usage ledger, cache tokens, threads, and a compacted history whose
    originals Goose keeps for the user only."""
    con = database(tmp_path / "sessions" / "sessions.db", 16)
    records = current_conversation()
    insert_session(con, "20260101_1", name="main", session_type="user", provider_name="anthropic",
                   model_config_json=compact({"model_name": "claude-sonnet-4"}), cache_read_tokens=5,
                   accumulated_cost=0.25)
    insert_messages(con, "20260101_1", records, 16)
    hidden = {"userVisible": True, "agentVisible": False}
    compacted = [
        message("user", T0, [text("first question")], hidden, "m1"),
        message("assistant", T0 + 1, [text("first answer")], hidden, "m2"),
        message("user", T0 + 2, [text("Summary: asked and answered.")], {"userVisible": False, "agentVisible": True},
                "m3"),
        message("user", T0 + 3, [text("next question")], None, "m4"),
    ]
    insert_session(con, "20260101_2", name="sub", session_type="sub_agent", parent_session_id="20260101_1")
    insert_messages(con, "20260101_2", compacted, 16)
    con.execute("INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, "
                "is_compaction) VALUES ('20260101_1', ?, 'claude-sonnet-4', 100, 20, 0)", (T0 + 2,))
    con.execute("INSERT INTO threads (id, name, working_dir) VALUES ('th_1', 'a chat', '/w'), ('th_2', 'b', '/w')")
    for thread_id, served_by, words in (("th_1", "20260101_1", "Look at this"), ("th_2", None, "hello thread")):
        con.execute("INSERT INTO thread_messages (thread_id, session_id, message_id, role, content_json, "
                    "created_timestamp, metadata_json) VALUES (?, ?, 'tm', 'user', ?, ?, '{}')",
                    (thread_id, served_by, compact([text(words)]), T0))
    con.commit()
    con.close()
    corpus = load(tmp_path)
    assert corpus.problems == []
    by_id = {s.id: s for s in corpus.sessions}
    assert sorted(by_id) == ["20260101_1", "20260101_2", "thread:th_2"]  # th_1 repeats a session's messages
    main = by_id["20260101_1"]
    check_current(main, records)
    ledger = [e for e in main.events if e.type == "usage_ledger"]
    assert [e.text for e in ledger] == ["claude-sonnet-4: 100 in, 20 out"]
    tokens = next(e for e in main.events if e.type == "session_tokens")
    assert tokens.raw == {"cache_read_tokens": 5, "accumulated_cost": 0.25}
    sub = by_id["20260101_2"]
    assert sub.parent_session_id == "20260101_1"
    assert found(sub) == expected(compacted) == {
        "messages": 4, "calls": 0, "results": 0, "images": 0, "reasoning": 0, "hidden": 2}
    assert [m.id for m in sub.path()] == ["m3", "m4"]
    assert [m.tags for m in sub.messages] == [("agent_invisible",), ("agent_invisible",), ("user_invisible",), ()]
    assert [m.text for m in by_id["thread:th_2"].messages] == ["hello thread"]
    (thread,) = [e for e in main.events if e.type == "thread"]
    assert thread.text == "thread th_1: 1 of its messages are this session's"
    assert isinstance(thread.raw, dict) and thread.raw["name"] == "a chat"
    for session in corpus.sessions:
        everything_valid(session, corpus.images)


def test_newest_messages_usage_documents_errors_and_flags(tmp_path: Path) -> None:
    """crates/goose-provider-types (aaif-goose/goose at d841b2b): a reply's own usage, documents, error
    notices, and the turn-context, steer and output-limit flags."""
    pdf = base64.b64encode(b"%PDF-1.4 tiny").decode()
    usage = {"inputTokens": 1200, "outputTokens": 50, "totalTokens": 1250, "cacheReadTokens": 1000,
             "cacheWriteTokens": 100, "cost": 0.01, "costSource": "estimated", "elapsedMs": 900}
    seen = {"userVisible": True, "agentVisible": True}
    records = [
        message("user", T0, [text("<turn-context>cwd /w</turn-context>")],
                {"userVisible": False, "agentVisible": True, "turnContext": True}, "n1"),
        message("user", T0 + 1, [text("Summarise this"), {"type": "document", "data": pdf,
                                                         "mimeType": "application/pdf", "name": "r.pdf"}], seen, "n2"),
        message("assistant", T0 + 2, [text("It says hello.")],
                {**seen, "usage": usage, "outputTokenLimitReached": True,
                 "inference": {"provider": "openai", "requestedModel": "gpt-5", "providerSessionId": "x"}}, "n3"),
        message("user", T0 + 3, [text("and more?")], {**seen, "steer": True}, "n4"),
        message("assistant", T0 + 4, [{"type": "error", "kind": "contextLengthExceeded", "message": "too long"}],
                seen, "n5"),
    ]
    con = database(tmp_path / "sessions.db", 16)
    insert_session(con, "s", name="newest")
    insert_messages(con, "s", records, 16)
    con.commit()
    con.close()
    corpus = load(tmp_path)
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert found(session) == expected(records)
    assert [m.id for m in session.path()] == ["n1", "n2", "n3", "n4"]
    assert [m.tags for m in session.messages] == [("user_invisible", "turn_context"), (), ("output_limit_reached",),
                                                  ("steer",)]
    reply = session.messages[2]
    assert reply.usage == Usage(100, 50, 1000, 100) and reply.model == "gpt-5" and reply.provider == "openai"
    assert reply.usage.context == 1200
    assert all(m.usage is None for m in session.messages if m is not reply)
    (document,) = of(session, Opaque)
    assert document.type == "document" and document.raw == records[1]["content"][1]
    errors = [(e.kind, e.type, e.message_id, e.text) for e in session.events if e.kind == "error"]
    assert errors == [("error", "error:contextLengthExceeded", "n4", "too long")]
    everything_valid(session, corpus.images)


def test_bad_rows_are_reported_and_kept(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    con = database(db, 7)
    insert_session(con, "s1", name="t")
    con.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json, message_id) "
                "VALUES ('s1', 'user', '[{\"type\":\"text\",', ?, '{}', 'bad')", (T0,))
    con.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json, message_id) "
                "VALUES ('s1', 'user', ?, ?, '{oops', 'ok')", (compact([text("fine")]), T0 + 1))
    con.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) "
                "VALUES ('gone', 'user', ?, ?, '{}')", (compact([text("orphan row")]), T0 + 2))
    con.commit()
    con.close()
    corpus = load(db)
    reasons = [p.reason for p in corpus.problems]
    assert len(reasons) == 3
    assert reasons[0].startswith("message row 1 of s1 content_json is not valid JSON")
    assert reasons[1].startswith("message row 2 of s1 metadata_json is not valid JSON")
    assert reasons[2] == "messages of session gone, which is not in the sessions table: a partial session"
    by_id = {s.id: s for s in corpus.sessions}
    broken = by_id["s1"].messages[0].blocks[0]
    assert isinstance(broken, Opaque) and broken.raw == '[{"type":"text",'
    assert by_id["s1"].messages[1].text == "fine" and by_id["gone"].messages[0].text == "orphan row"


# ---- detection, owned files and where Goose keeps sessions -------------------------------------------


def test_neither_database_is_claimed_by_the_other(tmp_path: Path) -> None:
    ours = database(tmp_path / "sessions.db", 16)
    ours.commit()
    ours.close()
    theirs = sqlite3.connect(tmp_path / "opencode.db")
    theirs.executescript("CREATE TABLE session (id text); CREATE TABLE message (id text, session_id text, data text);"
                         "CREATE TABLE part (id text, message_id text, session_id text, data text);")
    theirs.close()
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE messages (id integer, body text)")
    other.close()
    goose_db, opencode_db, other_db = (detect(tmp_path / n) for n in ("sessions.db", "opencode.db", "other.db"))
    assert goose_db is not None and goose_db[0].name == "goose" and goose_db[1] == "sqlite"
    assert opencode_db is not None and opencode_db[0].name == "opencode"
    assert other_db is None
    corpus = load(tmp_path / "other.db", format="goose")
    assert [p.reason for p in corpus.problems] == ["not a Goose session file or sessions database"]


def test_sniff_claims_no_shared_corpus_file() -> None:
    for path in corpus_files():
        hit = detect(path)
        assert hit is None or hit[0].name != "goose", path


def test_a_first_line_longer_than_the_head_is_still_recognised(tmp_path: Path) -> None:
    long = message("user", T0, [text("x" * 70_000)])
    path = write_jsonl(tmp_path / "long.jsonl", [long, message("assistant", T0 + 1, [text("ok")])])
    hit = detect(path)
    assert hit is not None and hit[0].name == "goose"
    metadata = {**OLD_METADATA, "description": "y" * 70_000}
    other = write_jsonl(tmp_path / "meta.jsonl", [metadata, message("assistant", T0 + 1, [text("ok")])])
    hit = detect(other)
    assert hit is not None and hit[0].name == "goose"
    assert sorted(len(s.messages) for s in load(tmp_path).sessions) == [1, 2]


def test_legacy_files_beside_the_database_are_read_once(tmp_path: Path) -> None:
    """Goose imports the legacy files when it makes the database and leaves them: a folder load reads
    the database, and a legacy file whose session the database lacks from the file."""
    folder = tmp_path / "sessions"
    con = database(folder / "sessions.db", 16)
    insert_session(con, "imported", name="imported")
    insert_messages(con, "imported", [message("user", T0, [text("from the db")])], 16)
    con.commit()
    con.close()
    write_jsonl(folder / "imported.jsonl", [OLD_METADATA, message("user", T0, [text("from the file")])])
    write_jsonl(folder / "failed.jsonl", [OLD_METADATA, message("user", T0, [text("never imported")])])
    (folder / "notes.jsonl").write_text('{"a": 1}\n', encoding="utf-8")
    (folder / "sessions.db-wal").write_bytes(b"\x37\x7f\x06\x82")
    assert goose.owns(str(folder / "sessions.db-wal")) and goose.owns(str(folder / "failed.jsonl"))
    assert not goose.owns(str(folder / "sessions.db")) and not goose.owns(str(tmp_path / "x.jsonl"))
    corpus = load(tmp_path)
    assert list(corpus.formats) == ["sessions/sessions.db"]
    texts = {s.id: [m.text for m in s.messages] for s in corpus.sessions}
    assert texts == {"imported": ["from the db"], "failed": ["never imported"]}
    assert [(p.file, p.reason) for p in corpus.problems] == [
        ("sessions/notes.jsonl", "a file beside sessions.db that is not a Goose session; not read")]


def test_layouts_follow_xdg_appdata_and_goose_path_root(tmp_path: Path) -> None:
    default = goose.layouts({}, tmp_path)
    assert [str(lay.folder.relative_to(tmp_path)) for lay in default] == [
        ".local/share/goose/sessions", "AppData/Roaming/Block/goose/data/sessions"]
    sessions = default[0]
    assert sessions.wanted(("sessions.db",)) and sessions.wanted(("20250301_101500.jsonl",))
    assert not sessions.wanted(("sessions.db-wal",)) and not sessions.descend(("backups",))
    moved = goose.layouts({"XDG_DATA_HOME": "~/data", "APPDATA": str(tmp_path / "roam")}, tmp_path)
    assert [lay.folder for lay in moved] == [tmp_path / "data" / "goose" / "sessions",
                                             tmp_path / "roam" / "Block" / "goose" / "data" / "sessions"]
    assert [lay.found_by for lay in moved] == ["XDG_DATA_HOME", "APPDATA"]
    (rooted,) = goose.layouts({"GOOSE_PATH_ROOT": str(tmp_path / "g")}, tmp_path)
    assert rooted.folder == tmp_path / "g" / "data" / "sessions" and rooted.found_by == "GOOSE_PATH_ROOT"
    assert len(goose.layouts({"GOOSE_PATH_ROOT": "relative/root"}, tmp_path)) == 2  # Goose ignores it too


def test_events_keep_their_message(tmp_path: Path) -> None:
    """A message of nothing the model is sent is no message: its events go to the last one it saw."""
    path = write_jsonl(tmp_path / "s.jsonl", [
        message("user", T0, [text("hi")]),
        message("assistant", T0 + 1, [{"type": "systemNotification", "notificationType": "creditsExhausted",
                                       "msg": "out of credits", "data": {"url": "x"}}]),
    ])
    (session,) = load(path).sessions
    assert [m.id for m in session.messages] == ["s:1"]
    (event,) = session.events
    assert isinstance(event, Event) and (event.kind, event.type, event.message_id, event.text) == (
        "error", "systemNotification:creditsExhausted", "s:1", "out of credits")
