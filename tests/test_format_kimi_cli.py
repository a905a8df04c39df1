"""The Kimi CLI importer: the shared session counted independently, and each layout and version written
from Kimi CLI's source (src/kimi_cli/soul/context.py, src/kimi_cli/wire/types.py, session.py,
subagents/store.py of MoonshotAI/kimi-cli, from September 2025 to July 2026)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPORA, corpus_files
from tests.helpers import PNG, everything_valid
from toolkit.corpus import load
from toolkit.corpus.formats import kimi_cli
from toolkit.corpus.formats import sniff as detect
from toolkit.corpus.formats.importer import accounting
from toolkit.record import Image, Opaque, Reasoning, Session, ToolResult, ToolUse

FOLDER = CORPORA / "kimi_cli" / "ihhashi_3951a8af"
needs_corpus = pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpora/kimi_cli is absent")


def blocks(session: Session, kind: type) -> list[object]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(path: Path, records: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def wire(records: list[tuple[float, str, dict[str, object]]], version: str | None = "1.10") -> list[dict[str, object]]:
    head: list[dict[str, object]] = [{"type": "metadata", "protocol_version": version}] if version else []
    return head + [{"timestamp": t, "message": {"type": k, "payload": p}} for t, k, p in records]


@needs_corpus
def test_shared_session_counts_match_the_files() -> None:
    context = lines(FOLDER / "context.jsonl")
    roles = [r["role"] for r in context]
    parts = [p for r in context if isinstance(r.get("content"), list) for p in r["content"]]
    calls = [c for r in context for c in r.get("tool_calls") or []]
    corpus = load(FOLDER)
    assert corpus.problems == []
    assert corpus.formats == {"context.jsonl": "kimi_cli"}  # wire.jsonl and state.json are owned
    (session,) = corpus.sessions
    assert session.id == FOLDER.name and session.format == "kimi_cli"
    assert [m.role for m in session.messages] == [r for r in roles if not str(r).startswith("_")]
    assert (roles.count("user"), roles.count("assistant"), roles.count("tool")) == (5, 68, 77)
    assert len(blocks(session, ToolUse)) == len(calls) == 77
    assert len(blocks(session, ToolResult)) == roles.count("tool") == 77
    assert len(blocks(session, Reasoning)) == sum(p["type"] == "think" for p in parts) == 68
    assert blocks(session, Image) == []
    assert sum(e.type == "_usage" for e in session.events) == roles.count("_usage") == 136
    assert sum(e.type == "_checkpoint" for e in session.events) == roles.count("_checkpoint") == 73
    assert session.tip == session.messages[-1].id
    # the wire gives every message its time and every reply its usage; the context's ``_usage`` just
    # before a reply is that request's whole input (kimisoul.py writes ``usage.input`` there)
    assert all(m.time is not None for m in session.messages)
    for message in session.messages:
        if message.role == "assistant":
            assert message.source is not None and message.source.line is not None and message.usage is not None
            before = context[message.source.line - 2]
            assert before["role"] == "_usage" and before["token_count"] == message.usage.context
    records = lines(FOLDER / "wire.jsonl")[1:]
    failed = {r["message"]["payload"]["tool_call_id"] for r in records
              if r["message"]["type"] == "ToolResult" and r["message"]["payload"]["return_value"]["is_error"]}
    assert {b.tool_use_id for b in blocks(session, ToolResult) if isinstance(b, ToolResult) and b.is_error} == failed
    approvals = [r for r in records if str(r["message"]["type"]).startswith("Approval")]
    assert sum(e.type.startswith("Approval") for e in session.events) == len(approvals) == 4
    everything_valid(session, corpus.images)


@needs_corpus
def test_shared_wire_read_alone_gives_the_same_conversation() -> None:
    records = lines(FOLDER / "wire.jsonl")
    types = [r["message"]["type"] for r in records[1:]]
    corpus = load(FOLDER / "wire.jsonl")
    assert corpus.problems == [] and corpus.formats == {"wire.jsonl": "kimi_cli"}
    (alone,) = corpus.sessions
    (full,) = load(FOLDER / "context.jsonl").sessions
    assert len(blocks(alone, ToolUse)) == types.count("ToolCall") == 77
    assert len(blocks(alone, ToolResult)) == types.count("ToolResult") == 77
    assert sum(m.role == "user" for m in alone.messages) == types.count("TurnBegin") == 5
    assert sum(m.role == "assistant" for m in alone.messages) == types.count("StepBegin") == 68
    assert sorted(map(repr, blocks(alone, ToolUse))) == sorted(map(repr, blocks(full, ToolUse)))
    assert sorted(b.output for b in blocks(alone, ToolResult) if isinstance(b, ToolResult)) == sorted(
        b.output for b in blocks(full, ToolResult) if isinstance(b, ToolResult))
    everything_valid(alone, corpus.images)


def test_sniff_claims_no_other_shared_file() -> None:
    for path in corpus_files():
        found = detect(path)
        mine = path.parent == FOLDER and path.name != "state.json"
        assert (found is not None and found[0].name == "kimi_cli") == mine, path


def test_first_layout_flat_files_without_checkpoints(tmp_path: Path) -> None:
    """September 2025 (23f44063, da488190): ``sessions/<md5>/<id>.jsonl`` with ``_usage`` lines and no
    checkpoints, a subagent in ``<id>_sub_1.jsonl`` beside it; no wire log yet."""
    hashed = tmp_path / ".local" / "share" / "kimi" / "sessions" / "0123abcd"
    main = write(hashed / "s1.jsonl", [
        {"role": "user", "content": "list files"},
        {"role": "_usage", "token_count": 100},
        {"role": "assistant", "content": "Listing.", "tool_calls": [
            {"type": "function", "id": "Task:0", "function": {"name": "Task", "arguments": '{"prompt": "ls"}'}}]},
        {"role": "_usage", "token_count": 120},
        {"role": "tool", "content": [{"type": "text", "text": "a.py"}], "tool_call_id": "Task:0"},
    ])
    write(hashed / "s1_sub_1.jsonl", [
        {"role": "user", "content": "ls"}, {"role": "_usage", "token_count": 50},
        {"role": "assistant", "content": "a.py"}, {"role": "_usage", "token_count": 55},
    ])
    assert detect(main) is not None and detect(main)[0].name == "kimi_cli"  # type: ignore[index]
    corpus = load(tmp_path)
    assert corpus.problems == []
    sessions = {s.id: s for s in corpus.sessions}
    assert set(sessions) == {"s1", "s1_sub_1"}
    assert sessions["s1_sub_1"].parent_session_id == "s1"
    assert sessions["s1_sub_1"].spawn_call_id == "Task:0"  # the Task call whose prompt opened it
    session = sessions["s1"]
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]
    assert [m.id for m in session.messages] == ["s1:1", "s1:3", "s1:5"]
    assert [m.parent_id for m in session.messages] == [None, "s1:1", "s1:3"]
    assert [e.message_id for e in session.events] == ["s1:1", "s1:3"]
    assert all(m.time is None and m.usage is None for m in session.messages)
    everything_valid(session)


def test_session_folder_with_rotations_subagent_file_and_headerless_wire(tmp_path: Path) -> None:
    """November 2025 to March 2026 (50a663a9, 7e0c7bbe): ``<md5>/<id>/context.jsonl``, an earlier
    history rotated to ``context_1.jsonl`` by ``/clear``, a subagent in ``context_sub_1.jsonl``, and a
    wire log from before the metadata header (protocol 1.1), its ``StatusUpdate`` without usage."""
    folder = tmp_path / "sessions" / "0123abcd" / "s2"
    write(folder / "context_1.jsonl", [
        {"role": "_checkpoint", "id": 0}, {"role": "user", "content": "hi"},
        {"role": "_checkpoint", "id": 1}, {"role": "assistant", "content": "hello"},
    ])
    write(folder / "context.jsonl", [
        {"role": "_checkpoint", "id": 0}, {"role": "user", "content": "again"},
        {"role": "_checkpoint", "id": 1}, {"role": "_usage", "token_count": 30},
        {"role": "assistant", "content": [{"type": "think", "think": "hm", "encrypted": None},
                                          {"type": "text", "text": "yes"}]},
        {"role": "_usage", "token_count": 40},
    ])
    write(folder / "context_sub_1.jsonl", [{"role": "_checkpoint", "id": 0}, {"role": "user", "content": "x"}])
    write(folder / "wire.jsonl", wire([
        (1764000000.0, "TurnBegin", {"user_input": "hi"}), (1764000001.0, "StepBegin", {"n": 1}),
        (1764000002.0, "ContentPart", {"type": "text", "text": "hello"}),
        (1764000003.0, "StatusUpdate", {"context_usage": 0.01}),
        (1764000100.0, "TurnBegin", {"user_input": "again"}), (1764000101.0, "StepBegin", {"n": 1}),
        (1764000102.0, "ContentPart", {"type": "think", "think": "hm", "encrypted": None}),
        (1764000102.5, "ContentPart", {"type": "text", "text": "yes"}),
        (1764000103.0, "StatusUpdate", {"context_usage": 0.02}),
    ], version=None))
    (folder / "metadata.json").write_text(json.dumps({"title": "Old title"}), encoding="utf-8")
    assert kimi_cli.owns(str(folder / "wire.jsonl")) and kimi_cli.owns(str(folder / "metadata.json"))
    corpus = load(tmp_path)
    # the subagent file's parent is loaded and holds no Task call: a problem of the subagent's file
    assert [(p.file, p.reason) for p in corpus.problems] == [(
        "sessions/0123abcd/s2/context_sub_1.jsonl",
        "subagent s2/context_sub_1 not linked to its spawning call: its parent session s2 is loaded but holds "
        "no spawning call")]
    assert set(corpus.formats) == {f"sessions/0123abcd/s2/{n}" for n in (
        "context.jsonl", "context_1.jsonl", "context_sub_1.jsonl")}
    sessions = {s.id: s for s in corpus.sessions}
    assert set(sessions) == {"s2", "s2/context_1", "s2/context_sub_1"}
    assert sessions["s2/context_sub_1"].parent_session_id == "s2"
    current, earlier = sessions["s2"], sessions["s2/context_1"]
    assert current.title == "Old title"
    assert [m.time.timestamp() if m.time else None for m in earlier.messages] == [1764000000.0, 1764000001.0]
    assert [m.time.timestamp() if m.time else None for m in current.messages] == [1764000100.0, 1764000101.0]
    assert all(m.usage is None for m in current.messages)  # the old wire reported no usage
    assert sum(e.type == "StatusUpdate" for e in current.events) == 2  # the wire's events: the live file's
    assert not any(e.type == "StatusUpdate" for e in earlier.events)
    assert blocks(current, Reasoning) == [Reasoning("hm")]
    for session in sessions.values():
        everything_valid(session)


def test_current_layout_system_prompt_compaction_subagent_and_wire_usage(tmp_path: Path) -> None:
    """March 2026 on (7a47524a, ff09e97c, protocol 1.6 to 1.10): ``_system_prompt`` first, a compaction
    summary, an image and a failed tool, ``subagents/<id>/`` with ``meta.json``, and a wire with
    per-step usage, a retried step and ``SubagentEvent`` records."""
    folder = tmp_path / "sessions" / "local_0123abcd" / "s3"
    pixel = "data:image/png;base64," + base64.b64encode(PNG).decode()
    write(folder / "context.jsonl", [
        {"role": "_system_prompt", "content": "You are Kimi."},
        {"role": "_checkpoint", "id": 0},
        {"role": "user", "content": [{"type": "text", "text": kimi_cli.COMPACTION_PREFIX},
                                     {"type": "text", "text": "We fixed the bug."}]},
        {"role": "_usage", "token_count": 500},
        {"role": "_checkpoint", "id": 1},
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                     {"type": "image_url", "image_url": {"url": pixel, "id": None}}]},
        {"role": "_usage", "token_count": 900},
        {"role": "assistant", "content": [{"type": "text", "text": "Running."}], "tool_calls": [
            {"type": "function", "id": "tool_1", "function": {"name": "Shell", "arguments": '{"command": "false"}'}},
            {"type": "function", "id": "tool_2", "function": {"name": "Agent", "arguments": "{not json"}}]},
        {"role": "_usage", "token_count": 950},
        {"role": "tool", "content": "<system>ERROR: Command failed with exit code: 1.</system>",
         "tool_call_id": "tool_1"},
        {"role": "tool", "content": [{"type": "text", "text": "<system>Tool returned non-text content.</system>"},
                                     {"type": "audio_url", "audio_url": {"url": "https://x/a.mp3"}}],
         "tool_call_id": "tool_2"},
    ])
    write(folder / "wire.jsonl", wire([
        (1780000000.0, "TurnBegin", {"user_input": [{"type": "text", "text": "look"}]}),
        (1780000001.0, "StepBegin", {"n": 1}),
        (1780000002.0, "ContentPart", {"type": "text", "text": "Run"}),
        (1780000003.0, "StepRetry", {"n": 1, "next_attempt": 2, "max_attempts": 3, "wait_s": 1.0,
                                     "error_type": "APITimeoutError"}),
        (1780000004.0, "ContentPart", {"type": "text", "text": "Running."}),
        (1780000005.0, "ToolCall", {"type": "function", "id": "tool_1", "function": {
            "name": "Shell", "arguments": '{"command": '}, "extras": None}),
        (1780000005.1, "ToolCallPart", {"arguments_part": '"false"}'}),
        (1780000005.2, "ToolCall", {"type": "function", "id": "tool_2", "function": {
            "name": "Agent", "arguments": "{not json"}, "extras": None}),
        (1780000006.0, "StatusUpdate", {"context_usage": 0.4, "context_tokens": 950, "max_context_tokens": 262144,
                                        "token_usage": {"input_other": 100, "output": 50, "input_cache_read": 800,
                                                        "input_cache_creation": 0}, "message_id": "chatcmpl-1"}),
        (1780000007.0, "ToolResult", {"tool_call_id": "tool_1", "return_value": {
            "is_error": True, "output": "", "message": "Command failed with exit code: 1.",
            "display": [{"type": "brief", "text": "Failed"}], "extras": None}}),
        (1780000008.0, "SubagentEvent", {"parent_tool_call_id": "tool_2", "agent_id": "a1", "subagent_type": "coder",
                                         "event": {"type": "StepBegin", "payload": {"n": 1}}}),
        (1780000009.0, "ToolResult", {"tool_call_id": "tool_2", "return_value": {
            "is_error": False, "output": [{"type": "audio_url", "audio_url": {"url": "https://x/a.mp3"}}],
            "message": "", "display": [], "extras": None}}),
        (1780000010.0, "TurnEnd", {}),
    ]))
    (folder / "state.json").write_text(json.dumps({"version": 1, "custom_title": "Fix the bug"}), encoding="utf-8")
    agent = folder / "subagents" / "a1"
    write(agent / "context.jsonl", [
        {"role": "_system_prompt", "content": "You are a coder."}, {"role": "_checkpoint", "id": 0},
        {"role": "user", "content": "do it"}, {"role": "assistant", "content": "done"},
    ])
    write(agent / "wire.jsonl", wire([(1780000008.0, "TurnBegin", {"user_input": "do it"})]))
    (agent / "meta.json").write_text(json.dumps({
        "agent_id": "a1", "subagent_type": "coder", "status": "completed", "description": "Fix it",
        "created_at": 1.0, "updated_at": 2.0, "last_task_id": None,
        "launch_spec": {"agent_id": "a1", "subagent_type": "coder", "model_override": None,
                        "effective_model": "kimi-k2-thinking", "created_at": 1.0}}), encoding="utf-8")
    (agent / "prompt.txt").write_text("do it", encoding="utf-8")
    (agent / "output").write_text("", encoding="utf-8")
    corpus = load(tmp_path)
    assert {p.reason for p in corpus.problems} == {"arguments of tool call tool_2 (Agent) are not valid JSON; kept as text"}
    assert set(corpus.formats) == {"sessions/local_0123abcd/s3/context.jsonl",
                                   "sessions/local_0123abcd/s3/subagents/a1/context.jsonl"}
    sessions = {s.id: s for s in corpus.sessions}
    main, sub = sessions["s3"], sessions["s3/a1"]
    assert main.title == "Fix the bug" and sub.title == "Fix it" and sub.parent_session_id == "s3"
    assert main.run_configs[0].system == "You are Kimi." and main.run_configs[0].message_id is None
    assert sub.run_configs[0].model == "kimi-k2-thinking" and sub.messages[-1].model == "kimi-k2-thinking"
    summary = main.messages[0]
    assert "compact_summary" in summary.tags
    assert [e.text for e in main.events if e.kind == "compaction"] == ["We fixed the bug."]
    assert len(blocks(main, Image)) == 1 and corpus.images
    reply = main.messages[2]
    assert reply.usage is not None and (reply.usage.input, reply.usage.output, reply.usage.cache_read,
                                        reply.usage.cache_write) == (100, 50, 800, None)
    assert reply.time is not None and reply.time.timestamp() == 1780000006.0
    assert reply.text == "Running."
    results = [b for b in blocks(main, ToolResult) if isinstance(b, ToolResult)]
    assert [r.is_error for r in results] == [True, False]
    assert results[0].detail == {"display": [{"type": "brief", "text": "Failed"}]}
    assert [e.type for e in main.events if e.kind == "error"] == ["StepRetry"]
    # the subagent's own files hold its events; the parent keeps which call ran which agent, once
    assert [(e.kind, e.raw) for e in main.events if e.type == "SubagentEvent"] == [
        ("meta", {"agent_id": "a1", "parent_tool_call_id": "tool_2"})]
    # the wire names the call that ran a1 (its arguments did not parse, its result names no agent)
    assert (sub.parent_session_id, sub.spawn_call_id) == ("s3", "tool_2")
    assert main.spawn_call_id is None and main.parent_session_id is None
    for session in sessions.values():
        everything_valid(session, corpus.images)
    # the same wire read alone: rebuilt messages, the retried attempt's text dropped, calls completed
    alone = load(folder / "wire.jsonl")
    assert alone.formats == {"wire.jsonl": "kimi_cli"}
    (rebuilt,) = alone.sessions
    assert [m.role for m in rebuilt.messages] == ["user", "assistant", "tool", "tool"]
    assert rebuilt.messages[1].text == "Running."
    uses = [b for b in blocks(rebuilt, ToolUse) if isinstance(b, ToolUse)]
    assert uses[0].input == {"command": "false"} and uses[1].raw_input == "{not json"
    assert [r.output for r in blocks(rebuilt, ToolResult) if isinstance(r, ToolResult)] == [
        r.output for r in results]
    assert sum(e.type == "SubagentEvent" for e in rebuilt.events) == 1
    everything_valid(rebuilt, alone.images)


def test_bad_lines_and_unknown_records_are_kept_and_reported(tmp_path: Path) -> None:
    path = write(tmp_path / "s4" / "context.jsonl", [
        {"role": "_checkpoint", "id": 0},
        {"role": "_future", "x": 1},
        {"role": "user", "content": [{"type": "hologram", "data": 1}]},
        {"role": "tool", "content": "late", "tool_call_id": "nope"},
    ])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"role": "assistant", "content": "cut')
    corpus = load(path)
    (session,) = corpus.sessions
    reasons = [p.reason for p in corpus.problems]
    assert any("_future" in r for r in reasons) and any("hologram" in r for r in reasons)
    assert any("orphan" in r for r in reasons) and any("truncated" in r for r in reasons)
    assert any(e.kind == "other" and e.type == "_future" for e in session.events)
    assert [m.role for m in session.messages] == ["user", "tool"]
    assert blocks(session, ToolResult) == [ToolResult("nope", "late")]


def test_wire_alone_and_owned_files(tmp_path: Path) -> None:
    folder = tmp_path / "s5"
    write(folder / "wire.jsonl", wire([
        (1.0, "TurnBegin", {"user_input": "hi"}), (2.0, "StepBegin", {"n": 1}),
        (3.0, "ContentPart", {"type": "text", "text": "hello"}), (4.0, "CompactionBegin", {}),
        (5.0, "CompactionEnd", {}), (6.0, "FutureThing", {"a": 1}),
    ]))
    (folder / "state.json").write_text("{}", encoding="utf-8")
    # a background task's files (background/store.py): the spec names the call, no file is a transcript
    task = folder / "tasks" / "agent-1a2b"
    task.mkdir(parents=True)
    (task / "spec.json").write_text(json.dumps({"version": 1, "id": "agent-1a2b", "kind": "agent", "session_id": "s5",
                                                "description": "d", "tool_call_id": "c1"}), encoding="utf-8")
    for name in ("runtime.json", "control.json", "consumer.json"):
        (task / name).write_text("{}", encoding="utf-8")
    (task / "output.log").write_text("started\n", encoding="utf-8")
    assert not kimi_cli.owns(str(folder / "wire.jsonl"))
    assert kimi_cli.owns(str(folder / "state.json")) and kimi_cli.owns(str(task / "spec.json"))
    assert not kimi_cli.owns(str(tmp_path / "state.json")) and not kimi_cli.owns(str(tmp_path / "spec.json"))
    corpus = load(tmp_path)
    assert corpus.formats == {"s5/wire.jsonl": "kimi_cli"}
    (session,) = corpus.sessions
    assert session.id == "s5" and [m.text for m in session.messages] == ["hi", "hello"]
    assert [e.kind for e in session.events] == ["compaction", "compaction", "other"]
    assert [p.reason for p in corpus.problems] == ["unknown wire message type 'FutureThing'; kept as an event"]


def test_layouts_follow_the_share_dir(tmp_path: Path) -> None:
    default = kimi_cli.layouts({}, tmp_path)
    assert [str(lay.folder.relative_to(tmp_path)) for lay in default] == [
        ".kimi/sessions", ".kimi/imported_sessions", ".local/share/kimi/sessions"]
    moved = kimi_cli.layouts({"KIMI_SHARE_DIR": "~/k"}, tmp_path)
    assert [lay.folder for lay in moved] == [tmp_path / "k" / "sessions", tmp_path / "k" / "imported_sessions"]
    assert all(lay.found_by == "KIMI_SHARE_DIR" for lay in moved)
    sessions = default[0]
    assert sessions.wanted(("h", "s", "context.jsonl")) and sessions.wanted(("h", "s", "context_2.jsonl"))
    assert sessions.wanted(("h", "s.jsonl")) and sessions.wanted(("h", "s", "subagents", "a", "context.jsonl"))
    assert not sessions.wanted(("h", "s", "wire.jsonl")) and not sessions.wanted(("h", "s", "state.json"))
    assert sessions.descend(("h", "s", "subagents", "a")) and not sessions.descend(("h", "s", "uploads"))


def spawned_by(sessions: list[Session], parent: str, call: str) -> list[str]:
    """From the parent's side: the sessions its call ``call`` spawned."""
    return sorted(s.id for s in sessions if s.parent_session_id == parent and s.spawn_call_id == call)


def agent_call(call_id: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"type": "function", "id": call_id, "function": {"name": "Agent", "arguments": json.dumps(arguments)}}


def test_subagents_link_to_the_agent_call_that_started_them(tmp_path: Path) -> None:
    """1.x (ff09e97c on): the ``Agent`` tool's result names the instance (``agent_id: <id>``, the
    foreground output's first line, a line of a background launch); a ``resume`` call continues one and
    did not spawn it. The call that started ``aaaa1111`` survives only in the history rotated to
    ``context_1.jsonl``; ``cccc3333`` is named by no call."""
    folder = tmp_path / "sessions" / "0123abcd" / "s5"
    write(folder / "context_1.jsonl", [
        {"role": "_system_prompt", "content": "You are Kimi."}, {"role": "user", "content": "explore"},
        {"role": "assistant", "content": "", "tool_calls": [
            agent_call("call_a", {"description": "Explore", "prompt": "map the repo", "subagent_type": "explore"})]},
        {"role": "tool", "content": "agent_id: aaaa1111\nresumed: false\nactual_subagent_type: explore\n"
                                    "status: completed\n\n[summary]\nthree packages", "tool_call_id": "call_a"},
    ])
    write(folder / "context.jsonl", [
        {"role": "_system_prompt", "content": "You are Kimi."}, {"role": "user", "content": "go on"},
        {"role": "assistant", "content": "", "tool_calls": [
            agent_call("call_b", {"description": "More", "prompt": "and the tests", "resume": "aaaa1111"}),
            agent_call("call_c", {"description": "Fix in background", "prompt": "fix lint",
                                  "run_in_background": True})]},
        {"role": "tool", "content": "agent_id: aaaa1111\nresumed: true\nactual_subagent_type: explore\n"
                                    "status: completed\n\n[summary]\ntests in tests/", "tool_call_id": "call_b"},
        {"role": "tool", "content": "<system>Background task started.</system>\ntask_id: t-1\nkind: agent\n"
                                    "status: running\ndescription: Fix in background\nagent_id: bbbb2222\n"
                                    "actual_subagent_type: coder", "tool_call_id": "call_c"},
    ])
    for agent, prompt in (("aaaa1111", "map the repo"), ("bbbb2222", "fix lint"), ("cccc3333", "orphan")):
        write(folder / "subagents" / agent / "context.jsonl", [
            {"role": "_system_prompt", "content": "You are a subagent."},
            {"role": "user", "content": prompt}, {"role": "assistant", "content": "done"}])
    corpus = load(tmp_path)
    assert [(p.file, p.reason) for p in corpus.problems] == [(  # the agent no call names
        "sessions/0123abcd/s5/subagents/cccc3333/context.jsonl",
        "subagent s5/cccc3333 not linked to its spawning call: none of the 3 spawning calls of its parent "
        "session s5 names its agent or opened it with its prompt")]
    sessions = {s.id: s for s in corpus.sessions}
    assert len(sessions) == 5  # two histories of s5 and three subagent folders
    links = {sid: (s.parent_session_id, s.spawn_call_id) for sid, s in sessions.items()}
    assert links == {"s5": (None, None), "s5/context_1": (None, None), "s5/aaaa1111": ("s5/context_1", "call_a"),
                     "s5/bbbb2222": ("s5", "call_c"), "s5/cccc3333": ("s5", None)}
    assert sessions["s5/bbbb2222"].title == "Fix in background"  # no meta.json: the call's description
    # from the parent's side: each spawning call finds its subagent, the resume call none
    assert spawned_by(corpus.sessions, "s5/context_1", "call_a") == ["s5/aaaa1111"]
    assert spawned_by(corpus.sessions, "s5", "call_c") == ["s5/bbbb2222"]
    assert spawned_by(corpus.sessions, "s5", "call_b") == []
    for sid, (parent, call) in links.items():
        if call is not None:
            assert parent is not None and call in {b.id for b in blocks(sessions[parent], ToolUse)
                                                   if isinstance(b, ToolUse)}, sid
    # the same links when each file is read by another process: linking needs only the facts
    assert {s.id: (s.parent_session_id, s.spawn_call_id) for s in load(tmp_path, workers=2).sessions} == links
    saved = load(corpus.save(tmp_path / "saved"))
    assert {s.id: (s.parent_session_id, s.spawn_call_id) for s in saved.sessions} == links


def test_older_subagent_files_link_by_their_prompt_and_never_by_a_guess(tmp_path: Path) -> None:
    """September 2025 to March 2026: ``context_sub_<n>.jsonl`` names no agent and the ``Task`` result is
    the summary alone, so the subagent's first message (the ``prompt`` it was given) finds its call; two
    calls with one prompt leave the call unknown."""
    folder = tmp_path / "sessions" / "0123abcd" / "s7"

    def task(call_id: str, prompt: str) -> dict[str, object]:
        return {"type": "function", "id": call_id, "function": {
            "name": "Task", "arguments": json.dumps({"description": "d", "subagent_name": "coder", "prompt": prompt})}}

    write(folder / "context.jsonl", [
        {"role": "_checkpoint", "id": 0}, {"role": "user", "content": "work"},
        {"role": "assistant", "content": "", "tool_calls": [task("Task:0", "read a.py"), task("Task:1", "run tests"),
                                                             task("Task:2", "run tests")]},
        {"role": "tool", "content": "a.py is short", "tool_call_id": "Task:0"},
        {"role": "tool", "content": "passed", "tool_call_id": "Task:1"},
        {"role": "tool", "content": "passed", "tool_call_id": "Task:2"},
    ])
    for n, prompt in ((1, "read a.py"), (2, "run tests")):
        write(folder / f"context_sub_{n}.jsonl", [{"role": "_checkpoint", "id": 0}, {"role": "user", "content": prompt},
                                                 {"role": "assistant", "content": "ok"}])
    write(folder / "wire.jsonl", wire([
        (1764000000.0, "TurnBegin", {"user_input": "work"}),
        (1764000001.0, "SubagentEvent", {"task_tool_call_id": "Task:0", "event": {"type": "StepBegin",
                                                                                   "payload": {"n": 1}}}),
    ], version="1.1"))
    corpus = load(tmp_path)
    assert corpus.problems == []
    links = {s.id: (s.parent_session_id, s.spawn_call_id) for s in corpus.sessions}
    assert links == {"s7": (None, None), "s7/context_sub_1": ("s7", "Task:0"), "s7/context_sub_2": ("s7", None)}
    assert spawned_by(corpus.sessions, "s7", "Task:0") == ["s7/context_sub_1"]
    # a record naming no agent (protocol 1.1) is not kept as a link
    assert not any(e.type == "SubagentEvent" for e in corpus.session("s7").events)


def test_a_subagent_without_its_parent_is_reported_and_left_unlinked(tmp_path: Path) -> None:
    agent = tmp_path / "sessions" / "0123abcd" / "s8" / "subagents" / "a9"
    write(agent / "context.jsonl", [{"role": "_checkpoint", "id": 0}, {"role": "user", "content": "alone"},
                                    {"role": "assistant", "content": "ok"}])
    write(agent / "wire.jsonl", wire([(1780000000.0, "TurnBegin", {"user_input": "alone"})]))
    corpus = load(tmp_path)
    (session,) = corpus.sessions
    assert (session.id, session.parent_session_id, session.spawn_call_id) == ("s8/a9", "s8", None)
    assert [(p.file, p.reason) for p in corpus.problems] == [(
        "sessions/0123abcd/s8/subagents/a9/context.jsonl",
        "subagent s8/a9: its parent session's context.jsonl or wire.jsonl is not in s8/, "
        "so the call that spawned it is unknown")]
    # its wire read alone names the same parent, and the same problem
    alone = load(agent / "wire.jsonl")
    assert [(s.id, s.parent_session_id) for s in alone.sessions] == [("s8/a9", "s8")]
    assert [p.reason for p in alone.problems] == [corpus.problems[0].reason]


def test_the_files_read_beside_a_context_are_named_from_the_loaded_root(tmp_path: Path) -> None:
    """The wire, ``state.json`` and a subagent's ``meta.json`` are read for their context file, not
    listed by the load: their problems and sources are named beside it, never by where the corpus
    sits on disk (they were named by their absolute path)."""
    folder = tmp_path / "s6"
    write(folder / "context.jsonl", [{"role": "_checkpoint", "id": 0}, {"role": "user", "content": "hi"}])
    write(folder / "wire.jsonl", wire([(1780000000.0, "TurnBegin", {"user_input": "hi"}),
                                       (1780000001.0, "CompactionBegin", {})]))
    with (folder / "wire.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("not json\n")
    (folder / "state.json").write_text("{broken", encoding="utf-8")
    write(folder / "subagents" / "a1" / "context.jsonl", [{"role": "_checkpoint", "id": 0}, {"role": "user", "content": "go"}])
    (folder / "subagents" / "a1" / "meta.json").write_text("[", encoding="utf-8")
    corpus = load(tmp_path)
    assert {p.file for p in corpus.problems if "not linked" not in p.reason} == {
        "s6/wire.jsonl", "s6/state.json", "s6/subagents/a1/meta.json"}
    named = {e.source.file for s in corpus.sessions for e in s.events if e.source is not None}
    assert "s6/wire.jsonl" in named and all(name.startswith("s6/") for name in named)


def test_a_wire_step_the_context_never_got_is_kept(tmp_path: Path) -> None:
    """The wire's entries after the last one its context holds (the session ended before the context
    was written, or the context was cut) are kept as events naming their wire line: they were dropped
    in silence (the accounting harness's finding)."""
    folder = tmp_path / "s7"
    write(folder / "context.jsonl", [{"role": "_checkpoint", "id": 0}, {"role": "user", "content": "hi"}])
    write(folder / "wire.jsonl", wire([(1780000000.0, "TurnBegin", {"user_input": "hi"}),
                                       (1780000001.0, "StepBegin", {"n": 1}),
                                       (1780000002.0, "ContentPart", {"type": "text", "text": "Half a repl"})]))
    corpus = load(tmp_path)
    (event,) = [e for e in corpus.sessions[0].events if e.type == "wire entry the context lacks"]
    assert event.text == "Half a repl" and event.source is not None
    assert (event.source.file, event.source.line) == ("s7/wire.jsonl", 3)


def _unnamed_wire_lines(tmp_path: Path, folder: str) -> tuple[Session, list[int]]:
    """The session loaded from ``tmp_path`` and the lines of ``folder``'s wire that no message, event,
    problem or ``ImportContext.account`` names (the accounting harness's check)."""
    with accounting() as ledger:
        corpus = load(tmp_path)
    name = f"{folder}/wire.jsonl"
    named = {s.line for m in corpus.sessions[0].messages for s in [m.source] if s is not None and s.file == name}
    named |= {s.line for e in corpus.sessions[0].events for s in [e.source] if s is not None and s.file == name}
    named |= {p.line for p in corpus.problems if p.file == name} | {a.line for a in ledger if a.file == name}
    total = len((tmp_path / name).read_text(encoding="utf-8").splitlines())
    return corpus.sessions[0], [n for n in range(1, total + 1) if n not in named]


def test_a_reply_whose_wire_lost_its_call_is_found_by_its_words(tmp_path: Path) -> None:
    """A wire step whose ``ToolCall`` line is gone (a line deleted) is still the context's reply: found
    by its words when its call is not there, so its lines are read into the reply (its usage with them);
    they were read into nothing (the 3,000-case accounting run's finding)."""
    call = {"type": "function", "id": "c1", "function": {"name": "Glob", "arguments": "{}"}}
    write(tmp_path / "s8" / "context.jsonl", [
        {"role": "_checkpoint", "id": 0}, {"role": "user", "content": "look"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look"}], "tool_calls": [call]},
        {"role": "tool", "content": "a.sh", "tool_call_id": "c1"},
        {"role": "assistant", "content": "done"}])
    usage: dict[str, object] = {"token_usage": {"input_other": 7, "output": 3, "input_cache_read": 100}}
    write(tmp_path / "s8" / "wire.jsonl", wire([
        (1780000000.0, "TurnBegin", {"user_input": "look"}), (1780000001.0, "StepBegin", {"n": 1}),
        (1780000002.0, "ContentPart", {"type": "text", "text": "Let me look"}), (1780000003.0, "StatusUpdate", usage),
        (1780000004.0, "ToolResult", {"tool_call_id": "c1", "return_value": {"is_error": False, "output": "a.sh"}}),
        (1780000005.0, "StepBegin", {"n": 2}), (1780000006.0, "ContentPart", {"type": "text", "text": "done"}),
        (1780000007.0, "TurnEnd", {})]))
    session, unnamed = _unnamed_wire_lines(tmp_path, "s8")
    assert unnamed == []
    reply = session.messages[1]
    assert reply.text == "Let me look"
    assert reply.usage is not None and reply.usage.cache_read == 100
    assert not [e for e in session.events if e.type == "wire entry the context lacks"]


def test_a_wire_entry_out_of_the_contexts_order_is_kept(tmp_path: Path) -> None:
    """A wire entry the context holds, but earlier than the entries matched before it (a line moved),
    is matched to nothing: in a session without rotated context files nothing else can hold it, so it
    is kept as an event like an entry the context never got; it was read into nothing (the 3,000-case
    accounting run's finding)."""
    write(tmp_path / "s9" / "context.jsonl", [
        {"role": "_checkpoint", "id": 0}, {"role": "user", "content": "first"}, {"role": "assistant", "content": "one"},
        {"role": "user", "content": "second"}, {"role": "assistant", "content": "two"}])
    turns: list[tuple[float, str, dict[str, object]]] = [(1780000002.0, "TurnBegin", {"user_input": "second"}), (1780000003.0, "StepBegin", {"n": 1}),
             (1780000003.5, "ContentPart", {"type": "text", "text": "two"}), (1780000004.0, "TurnEnd", {})]
    write(tmp_path / "s9" / "wire.jsonl", wire([
        (1780000001.0, "StepBegin", {"n": 1}), (1780000001.5, "ContentPart", {"type": "text", "text": "one"}),
        *turns, (1780000000.0, "TurnBegin", {"user_input": "first"})]))
    session, unnamed = _unnamed_wire_lines(tmp_path, "s9")
    assert unnamed == []
    kept = [e for e in session.events if e.type == "wire entry the context lacks"]
    assert [(e.text, e.source.line if e.source else None) for e in kept] == [("second", 4)]


def test_tool_calls_under_a_misspelt_key_are_kept(tmp_path: Path) -> None:
    """A context reply whose ``tool_calls`` key is misspelt is reported at its line and kept as an opaque
    block; its calls went in silence, only their results reported as orphans at other lines (an
    accounting run with other seeds found it)."""
    call = {"type": "function", "id": "c1", "function": {"name": "Glob", "arguments": "{}"}}
    write(tmp_path / "s10" / "context.jsonl", [
        {"role": "_checkpoint", "id": 0}, {"role": "user", "content": "look"},
        {"role": "assistant", "content": "Let me look", "tool_aclls": [call]},
        {"role": "tool", "content": "a.sh", "tool_call_id": "c1"}])
    corpus = load(tmp_path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (3, "message without tool_calls (keys the wire lacks: tool_aclls); kept as an opaque block"),
        (4, "tool result for call 'c1' has no earlier call (orphan); kept")]
    reply = corpus.sessions[0].messages[1]
    assert reply.source is not None and reply.source.line == 3
    assert [(b.type, b.raw) for b in reply.blocks if isinstance(b, Opaque)] == [
        ("message", {"role": "assistant", "content": "Let me look", "tool_aclls": [call]})]
