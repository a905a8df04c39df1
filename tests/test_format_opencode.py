"""The OpenCode importer: the shared JSON storage counted independently, and each layout written from
OpenCode's source (storage/storage.ts, storage/json-migration.ts, session/session.sql.ts,
session/message-v2.ts and session/message.ts of anomalyco/opencode): 1.x JSON storage, 0.x storage
with message v1, and the SQLite database."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPORA, corpus_files
from tests.helpers import PNG, everything_valid
from toolkit.corpus import load
from toolkit.corpus.formats import opencode
from toolkit.corpus.formats import sniff as detect
from toolkit.record import Image, Reasoning, Session, ToolResult, ToolUse

STORAGE = CORPORA / "opencode" / "jwp23_v1.0.107" / "storage"
needs_corpus = pytest.mark.skipif(not STORAGE.is_dir(), reason="../shared/corpora/opencode is absent")

BOOKKEEPING = {"step-start", "step-finish", "snapshot", "patch", "agent", "retry"}


def blocks(session: Session, kind: type) -> list[Any]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


def write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


@needs_corpus
def test_shared_storage_counts_match_the_files() -> None:
    corpus = load(STORAGE.parent)
    assert corpus.problems == []
    sessions_files = sorted(STORAGE.glob("session/*/*.json"))
    assert sorted(corpus.formats) == sorted(str(p.relative_to(STORAGE.parent)) for p in sessions_files)
    assert set(corpus.formats.values()) == {"opencode"}
    assert len(corpus.sessions) == len(sessions_files) == 2
    for session in corpus.sessions:
        messages = [json.loads(p.read_text()) for p in sorted((STORAGE / "message" / session.id).glob("*.json"))]
        parts = {m["id"]: [json.loads(p.read_text()) for p in sorted((STORAGE / "part" / m["id"]).glob("*.json"))]
                 for m in messages}
        tools = [p for m in messages for p in parts[m["id"]] if p["type"] == "tool"]
        said = [m for m in messages if any(p["type"] not in BOOKKEEPING for p in parts[m["id"]])]
        answered = [m for m in messages if any(p["type"] == "tool" and p["state"]["status"] in ("completed", "error")
                                              for p in parts[m["id"]])]
        assert len(session.messages) == len(said) + len(answered)
        assert [m.id for m in session.messages if m.role in ("user", "assistant")] == [m["id"] for m in said]
        assert sum(m.role == "tool" for m in session.messages) == len(answered)
        assert [b.id for b in blocks(session, ToolUse)] == [p["callID"] for p in tools]
        assert [b.tool_use_id for b in blocks(session, ToolResult)] == [p["callID"] for p in tools]
        assert [b.is_error for b in blocks(session, ToolResult)] == [p["state"]["status"] == "error" for p in tools]
        assert len(blocks(session, Reasoning)) == sum(p["type"] == "reasoning" for m in messages for p in parts[m["id"]])
        assert blocks(session, Image) == []
        finishes = [p for m in messages for p in parts[m["id"]] if p["type"] == "step-finish"]
        assert sum(e.type == "step-finish" for e in session.events) == len(finishes)
        for message in session.messages:
            if message.role == "assistant":
                (finish,) = [p for p in parts[message.id] if p["type"] == "step-finish"]
                tokens = finish["tokens"]
                assert message.usage is not None
                assert (message.usage.input, message.usage.output, message.usage.cache_read,
                        message.usage.cache_write) == (tokens["input"], tokens["output"] + tokens["reasoning"],
                                                       tokens["cache"]["read"], tokens["cache"]["write"])
                assert message.model == json.loads((STORAGE / "message" / session.id / f"{message.id}.json")
                                                   .read_text())["modelID"]
        assert session.tip == session.messages[-1].id
        assert session.title == json.loads(next(p for p in sessions_files if p.stem == session.id).read_text())["title"]
        everything_valid(session, corpus.images)
    counted = [json.loads(p.read_text()) for p in STORAGE.glob("part/*/*.json")]
    assert len(counted) == 32 and sum(p["type"] == "tool" for p in counted) == 5
    assert len(list(STORAGE.glob("message/*/*.json"))) == 13


@needs_corpus
def test_every_other_storage_file_is_owned() -> None:
    for path in STORAGE.rglob("*"):
        if path.is_file():
            assert opencode.owns(str(path)) == (path.parent.parent.name != "session"), path


def test_sniff_claims_no_other_shared_file() -> None:
    kinds = {"session": "session", "message": "message", "part": "part"}
    for path in corpus_files():
        found = detect(path)
        mine = found is not None and found[0].name == "opencode"
        inside = STORAGE in path.parents
        expected = inside and path.relative_to(STORAGE).parts[0] in kinds
        assert mine == expected, path
        if mine:
            assert found is not None and found[1] == kinds[path.relative_to(STORAGE).parts[0]]


# ---- crafted files, one per layout -----------------------------------------------------------------


def session_info(session: str, parent: str | None = None) -> dict[str, Any]:
    info: dict[str, Any] = {"id": session, "version": "1.0.120", "projectID": "p1", "directory": "/w",
                            "title": f"title of {session}", "time": {"created": 1764265577709, "updated": 1764265677001}}
    if parent:
        info["parentID"] = parent
    return info


def conversation(session: str, child: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """A prompt with an image, a reply of two steps (reasoning and a task call spawning ``child``, then a
    failed read), a compaction and its summary, as session/message-v2.ts describes them."""
    png = "data:image/png;base64," + base64.b64encode(PNG).decode()
    tokens = {"input": 10, "output": 5, "reasoning": 3, "cache": {"read": 100, "write": 0}}
    user = {"id": "msg_001", "sessionID": session, "role": "user", "time": {"created": 1764265577714}, "agent": "build",
            "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}, "system": "Be brief."}
    reply = {"id": "msg_002", "sessionID": session, "role": "assistant", "parentID": "msg_001",
             "time": {"created": 1764265577715, "completed": 1764265580974}, "modelID": "claude-sonnet-4-5",
             "providerID": "anthropic", "mode": "build", "agent": "build", "path": {"cwd": "/w", "root": "/w"},
             "cost": 0.01, "tokens": tokens, "finish": "stop"}
    compact = {"id": "msg_003", "sessionID": session, "role": "user", "time": {"created": 1764265590000},
               "agent": "build", "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}
    summary = {**reply, "id": "msg_004", "parentID": "msg_003", "summary": True, "time": {"created": 1764265590001}}
    step = {"type": "step-finish", "reason": "tool-calls", "cost": 0.005, "tokens": tokens}
    return [
        (user, [{"id": "prt_001", "type": "text", "text": "Look at this"},
                {"id": "prt_002", "type": "file", "mime": "image/png", "filename": "a.png", "url": png},
                {"id": "prt_003", "type": "file", "mime": "text/plain", "filename": "b.txt", "url": "file:///w/b.txt"},
                {"id": "prt_004", "type": "text", "text": "Called the Read tool", "synthetic": True}]),
        (reply, [{"id": "prt_010", "type": "step-start", "snapshot": "abc"},
                 {"id": "prt_011", "type": "reasoning", "text": "Thinking.", "time": {"start": 1, "end": 2},
                  "metadata": {"anthropic": {"signature": "sig"}}},
                 {"id": "prt_012", "type": "tool", "callID": "toolu_1", "tool": "task",
                  "state": {"status": "completed", "input": {"prompt": "look"}, "output": "done", "title": "t",
                            "metadata": {"sessionId": child}, "time": {"start": 3, "end": 4}}},
                 {"id": "prt_013", **step},
                 {"id": "prt_014", "type": "step-start"},
                 {"id": "prt_015", "type": "tool", "callID": "toolu_2", "tool": "read",
                  "state": {"status": "error", "input": {"filePath": "/x"}, "error": "no such file",
                            "time": {"start": 5, "end": 6}}},
                 {"id": "prt_016", "type": "tool", "callID": "toolu_3", "tool": "bash",
                  "state": {"status": "running", "input": {"command": "sleep 9"}, "time": {"start": 7}}},
                 {"id": "prt_017", **step, "reason": "stop"}]),
        (compact, [{"id": "prt_020", "type": "compaction", "auto": True}]),
        (summary, [{"id": "prt_030", "type": "text", "text": "We looked at a picture."},
                   {"id": "prt_031", "type": "mystery", "x": 1}]),
    ]


def child_conversation(child: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    user = {"id": "msg_101", "sessionID": child, "role": "user", "time": {"created": 1764265578000}, "agent": "general",
            "model": {"providerID": "openai", "modelID": "gpt-5"}}
    reply = {"id": "msg_102", "sessionID": child, "role": "assistant", "parentID": "msg_101",
             "time": {"created": 1764265578001}, "modelID": "gpt-5", "providerID": "openai", "mode": "general",
             "agent": "general", "path": {"cwd": "/w", "root": "/w"}, "cost": 0,
             "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
    return [(user, [{"id": "prt_101", "type": "text", "text": "look"}]),
            (reply, [{"id": "prt_102", "type": "text", "text": "done"}])]


def check_main(main: Session, child: str) -> None:
    roles = [m.role for m in main.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "user", "assistant"]
    assert main.messages[1].id == "msg_002" and main.messages[3].id == "msg_002:step1"
    assert [b.id for b in blocks(main, ToolUse)] == ["toolu_1", "toolu_2", "toolu_3"]  # toolu_3 never finished
    assert [(b.tool_use_id, b.is_error) for b in blocks(main, ToolResult)] == [("toolu_1", False), ("toolu_2", True)]
    (reasoning,) = blocks(main, Reasoning)
    assert (reasoning.signature, reasoning.provider, reasoning.model) == ("sig", "anthropic", "claude-sonnet-4-5")
    (image,) = blocks(main, Image)
    assert image.sha256 is not None and image.media_type == "image/png"
    usage = main.messages[1].usage
    assert usage is not None and (usage.input, usage.output, usage.cache_read) == (10, 8, 100)
    assert main.messages[-1].tags == ("compact_summary",)
    assert [e.trigger for e in main.events if e.kind == "compaction"] == ["auto"]
    assert sum(e.type == "step-finish" for e in main.events) == 2
    assert any(e.kind == "attachment" and e.text == "b.txt" for e in main.events)
    assert main.run_configs[0].system == "Be brief." and main.run_configs[0].model == "claude-sonnet-4-5"
    assert main.spawn_call_id is None and main.parent_session_id is None
    assert main.tip == "msg_004"
    assert main.messages[0].tags == ("synthetic",)


def check_child(sub: Session, parent: str) -> None:
    assert sub.parent_session_id == parent
    assert [m.role for m in sub.messages] == ["user", "assistant"]
    assert sub.messages[1].usage is None  # every count 0: OpenCode did not measure it


def test_json_storage_with_a_subagent_session(tmp_path: Path) -> None:
    """1.x storage: session/<project>/<id>.json, message/<session>/<id>.json, part/<message>/<id>.json."""
    storage = tmp_path / "opencode" / "storage"
    write(storage / "migration", 2)
    write(storage / "project" / "p1.json", {"id": "p1", "worktree": "/w", "vcs": "git", "time": {"created": 1}})
    for session, parent, records in (("ses_main", None, conversation("ses_main", "ses_child")),
                                     ("ses_child", "ses_main", child_conversation("ses_child"))):
        write(storage / "session" / "p1" / f"{session}.json", session_info(session, parent))
        write(storage / "session_diff" / f"{session}.json", [])
        for info, parts in records:
            write(storage / "message" / session / f"{info['id']}.json", info)
            for part in parts:
                write(storage / "part" / info["id"] / f"{part['id']}.json",
                      {"id": part["id"], "sessionID": session, "messageID": info["id"], **part})
    corpus = load(tmp_path)
    assert set(corpus.formats) == {"opencode/storage/session/p1/ses_main.json",
                                   "opencode/storage/session/p1/ses_child.json"}
    assert [p.reason for p in corpus.problems] == ["unknown part type 'mystery'; kept as opaque"]
    assert corpus.problems[0].file == "opencode/storage/part/msg_004/prt_031.json"
    by_id = {s.id: s for s in corpus.sessions}
    check_main(by_id["ses_main"], "ses_child")
    check_child(by_id["ses_child"], "ses_main")
    for loaded in corpus.sessions:
        everything_valid(loaded, corpus.images)


def test_orphans_are_read_alone(tmp_path: Path) -> None:
    """A message whose session file is gone, and a part whose message file is gone, are not lost."""
    storage = tmp_path / "storage"
    write(storage / "session" / "p1" / "ses_a.json", session_info("ses_a"))
    (user, parts), (_, reply_parts) = child_conversation("ses_b")[:2]
    write(storage / "message" / "ses_b" / "msg_101.json", user)
    write(storage / "part" / "msg_101" / "prt_101.json", {**parts[0], "sessionID": "ses_b", "messageID": "msg_101"})
    write(storage / "part" / "msg_102" / "prt_102.json",
          {**reply_parts[0], "sessionID": "ses_b", "messageID": "msg_102"})
    corpus = load(tmp_path)
    assert len(corpus.formats) == 3 and set(corpus.formats.values()) == {"opencode"}
    reasons = sorted(p.reason for p in corpus.problems)
    assert reasons == ["message read without its session file (session ses_b): a partial session",
                       "part read without its message file (message msg_102): a partial session"]
    texts = sorted(m.text for s in corpus.sessions for m in s.messages)
    assert texts == ["done", "look"]


def test_a_damaged_part_file_is_named_as_the_load_names_it(tmp_path: Path) -> None:
    """A part file (or message file) the session file reads, cut short, is reported under its name
    relative to the loaded root, as its records' sources name it: it was named by its place on disk,
    so the loss answered for no file of the load (the 3,000-case accounting run's finding)."""
    storage = tmp_path / "storage"
    write(storage / "session" / "p1" / "ses_a.json", session_info("ses_a"))
    (user, parts), (reply, reply_parts) = child_conversation("ses_a")
    for info, part in ((user, parts[0]), (reply, reply_parts[0])):
        write(storage / "message" / "ses_a" / f"{info['id']}.json", info)
        write(storage / "part" / info["id"] / f"{part['id']}.json", {**part, "sessionID": "ses_a", "messageID": info["id"]})
    cut = storage / "part" / "msg_102" / "prt_102.json"
    cut.write_bytes(json.dumps(json.loads(cut.read_text()), indent=2).encode()[:-20])
    message = storage / "message" / "ses_a" / "msg_101.json"
    message.write_bytes(message.read_bytes()[:-10])
    corpus = load(tmp_path)
    assert sorted(p.file for p in corpus.problems) == ["storage/message/ses_a/msg_101.json",
                                                       "storage/part/msg_102/prt_102.json"]
    assert all("not valid JSON" in p.reason for p in corpus.problems)


def test_legacy_storage_with_message_v1(tmp_path: Path) -> None:
    """0.x: project/<slug>/storage/session/{info,message,part}/, the first messages with parts inline."""
    root = tmp_path / "project" / "slug" / "storage" / "session"
    write(root / "info" / "ses_old.json", {"id": "ses_old", "title": "old", "version": "0.3.0",
                                            "time": {"created": 1750000000000, "updated": 1750000001000}})
    write(root / "message" / "ses_old" / "msg_a.json", {
        "id": "msg_a", "role": "user", "parts": [{"type": "text", "text": "hi"}],
        "metadata": {"time": {"created": 1750000000001}, "sessionID": "ses_old", "tool": {}}})
    write(root / "message" / "ses_old" / "msg_b.json", {
        "id": "msg_b", "role": "assistant",
        "parts": [{"type": "step-start"}, {"type": "text", "text": "Reading."},
                  {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "c1",
                                                                 "toolName": "read", "args": {"path": "a"},
                                                                 "result": "text of a"}},
                  {"type": "step-start"}, {"type": "text", "text": "Done."}],
        "metadata": {"time": {"created": 1750000000002, "completed": 1750000000009}, "sessionID": "ses_old",
                     "tool": {"c1": {"title": "a", "time": {"start": 1750000000003, "end": 1750000000004}}},
                     "assistant": {"system": ["You are opencode."], "modelID": "claude-sonnet-4", "providerID":
                                   "anthropic", "path": {"cwd": "/w", "root": "/w"}, "cost": 0.1,
                                   "tokens": {"input": 5, "output": 7, "reasoning": 0, "cache": {"read": 1, "write": 2}}}}})
    write(root / "message" / "ses_old" / "msg_c.json", {  # message v2 in the 0.x folders, parts apart
        "id": "msg_c", "sessionID": "ses_old", "role": "user", "time": {"created": 1750000000010}})
    write(root / "part" / "ses_old" / "msg_c" / "prt_c.json",
          {"id": "prt_c", "sessionID": "ses_old", "messageID": "msg_c", "type": "text", "text": "thanks"})
    corpus = load(tmp_path)
    assert corpus.problems == []
    assert list(corpus.formats) == ["project/slug/storage/session/info/ses_old.json"]
    (session,) = corpus.sessions
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "hi"), ("assistant", "Reading."), ("tool", ""), ("assistant", "Done."), ("user", "thanks")]
    (result,) = blocks(session, ToolResult)
    assert result.output == "text of a" and result.tool_use_id == "c1"
    assert session.run_configs[0].system == "You are opencode."
    last_step = session.messages[3]
    assert last_step.usage is not None and last_step.usage.output == 7 and last_step.model == "claude-sonnet-4"
    everything_valid(session, corpus.images)


SCHEMA = """
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `sandboxes` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL,
  `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text,
  `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text,
  `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  `time_compacting` integer, `time_archived` integer);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL,
  `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL);
"""
"""The tables as session/session.sql.ts and project/project.sql.ts declare them (the columns read)."""


def test_sqlite_database(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA)
    con.execute("PRAGMA journal_mode = WAL")
    for session, parent, records in (("ses_main", None, conversation("ses_main", "ses_child")),
                                     ("ses_child", "ses_main", child_conversation("ses_child"))):
        info = session_info(session, parent)
        con.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, "
                    "time_updated, summary_additions) VALUES (?, 'p1', ?, 's', '/w', ?, '1.2.0', ?, ?, 3)",
                    (session, parent, info["title"], info["time"]["created"], info["time"]["updated"]))
        for message, parts in records:
            data = {k: v for k, v in message.items() if k not in ("id", "sessionID")}
            con.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                        (message["id"], session, message["time"]["created"], 0, json.dumps(data)))
            for part in parts:
                body = {k: v for k, v in part.items() if k != "id"}
                con.execute("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)",
                            (part["id"], message["id"], session, json.dumps(body)))
    con.commit()
    con.close()
    corpus = load(tmp_path)
    assert corpus.formats == {"opencode.db": "opencode"}
    assert [p.reason for p in corpus.problems] == ["unknown part type 'mystery'; kept as opaque"]
    by_id = {s.id: s for s in corpus.sessions}
    check_main(by_id["ses_main"], "ses_child")
    check_child(by_id["ses_child"], "ses_main")
    assert by_id["ses_child"].spawn_call_id == "toolu_1"
    assert any(e.type == "session.summary" and e.message_id is None for e in by_id["ses_main"].events)
    for loaded in corpus.sessions:
        everything_valid(loaded, corpus.images)


def test_another_sqlite_file_is_not_claimed(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE messages (id integer, body text)")
    con.commit()
    con.close()
    assert detect(db) is None or detect(db)[0].name != "opencode"  # type: ignore[index]
    corpus = load(db, format="opencode")
    assert corpus.sessions == []
    assert [p.reason for p in corpus.problems] == ["not an OpenCode session, message, part or database file"]


def test_layouts_follow_xdg_and_opencode_db(tmp_path: Path) -> None:
    home = tmp_path
    default = opencode.layouts({}, home)
    assert [str(lay.folder.relative_to(home)) for lay in default] == [
        ".local/share/opencode/storage", ".local/share/opencode/project", ".local/share/opencode"]
    assert default[0].wanted(("session", "p1", "ses_x.json")) and not default[0].wanted(("message", "s", "m.json"))
    assert default[1].wanted(("slug", "storage", "session", "info", "ses_x.json"))
    assert default[2].wanted(("opencode.db",)) and default[2].wanted(("opencode-dev.db",))
    assert not default[2].wanted(("opencode.db-wal",))
    moved = opencode.layouts({"XDG_DATA_HOME": str(tmp_path / "data"), "OPENCODE_DB": "/srv/x.db"}, home)
    assert moved[0].folder == tmp_path / "data" / "opencode" / "storage" and moved[0].found_by == "XDG_DATA_HOME"
    assert moved[2].folder == Path("/srv") and moved[2].wanted(("x.db",)) and moved[2].found_by == "OPENCODE_DB"


V2_TABLE = """
CREATE TABLE `session_message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `type` text NOT NULL,
  `seq` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
"""
"""``SessionMessageTable`` (packages/core/src/session/sql.ts: ``seq`` is the newest schema's order); a row's
``data`` is the encoded message less its ``id`` and ``type``, which are columns (``insertMessage``)."""


def v2_rows() -> list[dict[str, Any]]:
    """A session as OpenCode V2 keeps it: one ``SessionMessage.Message`` a row (session-message.ts)."""
    pixel = "data:image/png;base64," + base64.b64encode(PNG).decode()
    at = 1_790_000_000_000
    return [
        {"id": "msg_01", "type": "user", "time": {"created": at}, "text": "look at a.png",
         "files": [{"uri": pixel, "mime": "image/png", "name": "a.png"},
                   {"uri": "file:///w/notes.txt", "mime": "text/plain", "name": "notes.txt"}],
         "agents": [{"name": "build"}]},
        {"id": "msg_02", "type": "model-switched", "time": {"created": at + 1},
         "model": {"id": "claude-sonnet-5", "providerID": "anthropic"}},
        {"id": "msg_03", "type": "assistant", "time": {"created": at + 2, "completed": at + 9}, "agent": "build",
         "model": {"id": "claude-sonnet-5", "providerID": "anthropic"}, "finish": "tool-calls", "cost": 0.01,
         "tokens": {"input": 100, "output": 20, "reasoning": 5, "cache": {"read": 50, "write": 0}},
         "content": [
             {"type": "reasoning", "id": "r1", "text": "a listing first"},
             {"type": "text", "text": "Listing."},
             {"type": "tool", "id": "call_1", "name": "bash", "time": {"created": at + 3, "completed": at + 4},
              "state": {"status": "completed", "input": {"command": "ls"}, "structured": {"exit": 0},
                        "content": [{"type": "text", "text": "a.png"}, {"type": "text", "text": "notes.txt"}]}},
             {"type": "tool", "id": "call_2", "name": "read", "time": {"created": at + 5},
              "state": {"status": "error", "input": {"filePath": "x"}, "structured": {}, "content": [],
                        "error": {"type": "unknown", "message": "no such file"}}},
             {"type": "tool", "id": "call_3", "name": "task", "time": {"created": at + 6},
              "state": {"status": "pending", "input": '{"prompt": "ch'}},
             {"type": "tool", "id": "call_4", "name": "subagent", "time": {"created": at + 7, "completed": at + 8},
              "state": {"status": "completed", "input": {"agent": "explore", "description": "Find", "prompt": "find"},
                        "structured": {"sessionID": "ses_v2child", "status": "completed", "output": "found"},
                        "content": [{"type": "text", "text": "found"}]}}]},
        {"id": "msg_04", "type": "synthetic", "time": {"created": at + 10}, "sessionID": "ses_v2",
         "text": "The user interrupted."},
        {"id": "msg_05", "type": "shell", "time": {"created": at + 11, "completed": at + 12}, "callID": "sh_1",
         "command": "git status", "output": "clean"},
        {"id": "msg_06", "type": "compaction", "time": {"created": at + 13}, "reason": "auto",
         "summary": "We listed the files."},
        {"id": "msg_07", "type": "assistant", "time": {"created": at + 14}, "agent": "build",
         "model": {"id": "claude-sonnet-5", "providerID": "anthropic"},
         "tokens": {"input": 10, "output": 3, "reasoning": 0, "cache": {"read": 0, "write": 0}},
         "content": [{"type": "text", "text": "Done."}, {"type": "mystery", "x": 1}]},
        {"id": "msg_08", "type": "agent-switched", "time": {"created": at + 15}, "agent": "plan"},
        {"id": "msg_09", "type": "hologram", "time": {"created": at + 16}},
    ]


def test_opencode_v2_session_message_rows(tmp_path: Path) -> None:
    """The newest releases: a session held only in ``session_message`` reads into messages and blocks
    like the 1.x rows; beside 1.x rows (the same conversation projected twice) the V2 rows stay events."""
    db = tmp_path / "opencode.db"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA + V2_TABLE)
    rows = v2_rows()
    for sid, parent in (("ses_v2", None), ("ses_both", None), ("ses_v2child", "ses_v2")):
        con.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, "
                    "time_updated) VALUES (?, 'p1', ?, 's', '/w', ?, '2.0.0', 1, 2)", (sid, parent, sid.upper()))
    con.execute("INSERT INTO session_message VALUES ('msg_c1', 'ses_v2child', 'user', 0, 1, 0, ?)",
                (json.dumps({"time": {"created": 1}, "text": "find"}),))
    # rows written out of time order: ``seq`` is the order
    for seq, row in reversed(list(enumerate(rows))):
        data = {k: v for k, v in row.items() if k not in ("id", "type")}  # the columns hold them (insertMessage)
        con.execute("INSERT INTO session_message VALUES (?, 'ses_v2', ?, ?, ?, ?, ?)",
                    (row["id"], row["type"], seq, 1_790_000_000_000 - seq, 0, json.dumps(data)))
    con.execute("INSERT INTO message VALUES ('msg_x', 'ses_both', 1, 0, ?)",
                (json.dumps({"role": "user", "time": {"created": 1}}),))
    con.execute("INSERT INTO part VALUES ('prt_x', 'msg_x', 'ses_both', 0, 0, ?)",
                (json.dumps({"type": "text", "text": "hi"}),))
    con.execute("INSERT INTO session_message VALUES ('msg_x', 'ses_both', 'user', 0, 1, 0, ?)",
                (json.dumps({"time": {"created": 1}, "text": "hi"}),))
    con.commit()
    con.close()
    corpus = load(db)
    assert sorted(p.reason for p in corpus.problems) == [
        "session_message msg_09 of unknown type 'hologram'; kept as an event",
        "unknown part type 'mystery'; kept as opaque"]
    session = corpus.session("ses_v2")
    # counted from the rows above: user, reply, its results, synthetic, shell call and output, summary, reply
    assert [(m.id, m.role) for m in session.messages] == [
        ("msg_01", "user"), ("msg_03", "assistant"), ("msg_03:results", "tool"), ("msg_04", "user"),
        ("msg_05", "assistant"), ("msg_05:results", "tool"), ("msg_06", "user"), ("msg_07", "assistant")]
    assert [m.parent_id for m in session.messages[1:]] == [m.id for m in session.messages[:-1]]
    assert session.tip == "msg_07"
    uses = blocks(session, ToolUse)
    assert [(u.id, u.name) for u in uses] == [("call_1", "bash"), ("call_2", "read"), ("call_3", "task"),
                                              ("call_4", "subagent"), ("sh_1", "bash")]
    assert uses[2].input is None and uses[2].raw_input == '{"prompt": "ch'
    results = blocks(session, ToolResult)
    assert [(r.tool_use_id, r.output, r.is_error) for r in results] == [
        ("call_1", "a.png\nnotes.txt", False), ("call_2", "no such file", True), ("call_4", "found", False),
        ("sh_1", "clean", False)]
    # the subagent's session names its parent (the session table) and the call that spawned it, which the
    # parent holds
    child = corpus.session("ses_v2child")
    assert (child.parent_session_id, child.spawn_call_id) == ("ses_v2", "call_4")
    assert [s.id for s in corpus.sessions if s.spawn_call_id == "call_4"] == ["ses_v2child"]
    assert results[0].detail is not None and results[0].detail["structured"] == {"exit": 0}
    assert blocks(session, Reasoning) == [Reasoning("a listing first", None, "anthropic", "claude-sonnet-5")]
    (image,) = blocks(session, Image)
    assert image.media_type == "image/png" and image.sha256 in corpus.images
    reply = session.messages[1]
    assert reply.model == "claude-sonnet-5" and reply.provider == "anthropic"
    assert reply.usage is not None and (reply.usage.input, reply.usage.output, reply.usage.cache_read) == (100, 25, 50)
    assert "synthetic" in session.messages[3].tags and "compact_summary" in session.messages[6].tags
    assert session.messages[6].text == "We listed the files."
    kinds = [(e.kind, e.type) for e in session.events]
    for expected in (("compaction", "compaction"), ("meta", "model-switched"), ("meta", "agent-switched"),
                     ("meta", "user.agents"), ("attachment", "file"), ("meta", "tool.pending"),
                     ("other", "session_message:hologram")):
        assert expected in kinds, expected
    assert sum(e.type == "assistant.tokens" for e in session.events) == 2
    assert session.run_configs[0].model == "claude-sonnet-5" and session.run_configs[0].provider == "anthropic"
    everything_valid(session, corpus.images)
    both = corpus.session("ses_both")
    assert [(m.role, m.text) for m in both.messages] == [("user", "hi")]  # read once, from the 1.x rows
    assert [e.type for e in both.events if e.type.startswith("session_message")] == ["session_message:user"]


def test_opencode_v2_rows_of_the_wrong_shape_are_kept_and_reported(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA + V2_TABLE)
    con.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
                "VALUES ('ses_bad', 'p1', 's', '/w', 't', '2.0.0', 1, 2)")
    rows: list[tuple[str, object]] = [
        ("user", {"text": 5, "files": 7}),
        ("assistant", {"content": [{"type": "tool", "id": "c1", "name": "bash",
                                    "state": {"status": "completed", "input": {}, "content": "abc"}}]}),
        ("compaction", {"summary": None}),
    ]
    for seq, (kind, data) in enumerate(rows):
        con.execute("INSERT INTO session_message VALUES (?, 'ses_bad', ?, ?, 1, 0, ?)",
                    (f"msg_{seq}", kind, seq, json.dumps(data)))
    con.execute("INSERT INTO session_message VALUES ('msg_9', 'ses_bad', 'user', 9, 1, 0, 'not json')")
    con.commit()
    con.close()
    corpus = load(db)
    reasons = [p.reason for p in corpus.problems]
    assert reasons[:4] == ["user message msg_0 whose text is 5; kept as opaque", "files is 7, not a list; kept as opaque",
                           "content is 'abc', not a list; kept as opaque",
                           "message msg_2 whose summary is null; kept as opaque"]
    assert len(reasons) == 5 and reasons[4].startswith("session_message msg_9: data is not valid JSON")
    session = corpus.session("ses_bad")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "user"]
    assert len([b for m in session.messages for b in m.blocks if b.kind == "opaque"]) == 4
    everything_valid(session, corpus.images)
