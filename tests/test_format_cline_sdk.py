"""The Cline SDK session store (``~/.cline/data/sessions``): one crafted store for each version of its
files found in cline/cline's SDK history (the first SDK commit 78aedcde84 of March 2026, the unified
message files of f36a896bd1 in April 2026, the ``origin`` and compaction files of accd7e5809 and
d5db7eb853 in July-August 2026, read at 21cb8d2525), each counted from the crafted documents themselves;
damaged files; and a subagent whose loaded parent holds no call for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus_files
from tests.helpers import everything_valid
from toolkit.corpus import ingest, load
from toolkit.corpus.formats import cline_sdk
from toolkit.corpus.formats import sniff as detect
from toolkit.record import Image, Opaque, Reasoning, RecordError, Session, Text, ToolResult, ToolUse

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")  # as JSON.stringify(x, null, 2)
    return path


def of(session: Session, kind: type) -> list[Any]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


def counted(messages: list[dict[str, Any]]) -> dict[str, int]:
    """The counts the importer must give, read off the crafted messages (not through the importer)."""
    blocks = [(m["role"], b) for m in messages if isinstance(m["content"], list) for b in m["content"]]
    nested = [p for _, b in blocks if b["type"] == "tool_result" and isinstance(b["content"], list) for p in b["content"]]
    return {
        "messages": len(messages),
        "calls": sum(role == "assistant" and b["type"] == "tool_use" for role, b in blocks),
        "results": sum(role == "user" and b["type"] == "tool_result" for role, b in blocks),
        "images": sum(b["type"] == "image" or (b["type"] == "media" and b["media"]["modality"] == "image")
                      for _, b in blocks) + sum(isinstance(p, dict) and p.get("type") == "image" for p in nested),
        "reasoning": sum(b["type"] in ("thinking", "redacted_thinking") for _, b in blocks),
    }


def counts(session: Session) -> dict[str, int]:
    images = len(of(session, Image)) + sum(len(r.images) for r in of(session, ToolResult))
    return {"messages": len(session.messages), "calls": len(of(session, ToolUse)), "results": len(of(session, ToolResult)),
            "images": images, "reasoning": len(of(session, Reasoning))}


def manifest(sid: str, **more: Any) -> dict[str, Any]:
    """A manifest as ``SessionManifestSchema`` orders it."""
    return {"version": 1, "session_id": sid, "source": "cli", "pid": 4242, "started_at": "2026-03-20T10:00:00.000Z",
            "ended_at": "2026-03-20T10:05:00.000Z", "exit_code": 0, "status": "completed", "interactive": True,
            "provider": "anthropic", "model": "claude-sonnet-4-6", "cwd": "/w", "workspace_root": "/w",
            "enable_tools": True, "enable_spawn": True, "enable_teams": False, **more}


def spawn(call_id: str, task: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "spawn_agent", "input": {"systemPrompt": "You review.", "task": task}}


def result(call_id: str, content: object, **more: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **more}


def test_march_2026_store_subagent_folders_and_message_level_model(tmp_path: Path) -> None:
    """78aedcde84: ``{version, updated_at, messages}``, the model as ``providerId``/``modelId`` on each
    message, string content, a subagent in its own folder ``<root>/<agent>/`` with its own manifest,
    hook log and transcript log; ``sessions.db`` beside the session folders."""
    store = tmp_path / "sessions"
    root = "cli_1774000000000_abc1234"
    sub = f"{root}__agent_1"
    lead: list[dict[str, Any]] = [
        {"role": "user", "content": "Review the parser"},
        {"role": "assistant", "providerId": "anthropic", "modelId": "claude-sonnet-4-5",
         "content": [{"type": "text", "text": "Delegating."}, spawn("toolu_1", "Review src/parser.ts")]},
        {"role": "user", "content": [result("toolu_1", json.dumps({"text": "Looks fine", "iterations": 2}))]},
        {"role": "assistant", "providerId": "anthropic", "modelId": "claude-sonnet-4-5",
         "content": [{"type": "text", "text": "The reviewer found nothing."}]},
    ]
    child: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "Review src/parser.ts"}]},
        {"role": "assistant", "providerId": "anthropic", "modelId": "claude-sonnet-4-5",
         "content": [{"type": "tool_use", "id": "toolu_2", "name": "read_files", "input": {"file_paths": ["src/parser.ts"]}}]},
        {"role": "user", "content": [result("toolu_2", "export function parse() {}", is_error=False)]},
        {"role": "assistant", "content": [{"type": "text", "text": "Looks fine"}]},
    ]
    write(store / root / f"{root}.messages.json", {"version": 1, "updated_at": "2026-03-20T10:05:00.000Z", "messages": lead})
    write(store / root / f"{root}.json", manifest(root, prompt="Review the parser"))
    (store / root / f"{root}.hooks.jsonl").write_text('{"ts":"2026-03-20T10:00:01.000Z","hook_event_name":"agent_start"}\n')
    (store / root / f"{root}.log").write_text("agent started\n")
    write(store / root / "agent_1" / f"{sub}.messages.json", {"version": 1, "updated_at": "2026-03-20T10:04:00.000Z",
                                                             "messages": child})
    write(store / root / "agent_1" / f"{sub}.json", manifest(sub, source="cli-subagent"))
    (store / "sessions.db").write_bytes(b"SQLite format 3\x00" + bytes(84))
    corpus = load(tmp_path)
    assert corpus.problems == []
    assert set(corpus.formats) == {f"sessions/{root}/{root}.messages.json", f"sessions/{root}/agent_1/{sub}.messages.json"}
    parent, subagent = sorted(corpus.sessions, key=lambda s: s.id)
    assert (parent.id, subagent.id) == (root, sub)
    assert counts(parent) == counted(lead) == {"messages": 4, "calls": 1, "results": 1, "images": 0, "reasoning": 0}
    assert counts(subagent) == counted(child) == {"messages": 4, "calls": 1, "results": 1, "images": 0, "reasoning": 0}
    assert [m.model for m in parent.messages if m.role == "assistant"] == ["claude-sonnet-4-5"] * 2
    assert parent.title == "Review the parser" and parent.parent_session_id is None
    assert (subagent.parent_session_id, subagent.spawn_call_id) == (root, "toolu_1")
    (read,) = of(subagent, ToolResult)
    assert (read.tool_use_id, read.name, read.output, read.is_error) == ("toolu_2", "read_files", child[2]["content"][0]["content"], False)
    assert [e.type for e in parent.events if e.kind == "meta"] == ["manifest", "ended", "client"]
    for session in corpus.sessions:
        everything_valid(session, corpus.images)


def test_april_2026_unified_files_usage_reasoning_images_and_results(tmp_path: Path) -> None:
    """f36a896bd1: ``agent`` and ``sessionId`` in the file, ``modelInfo`` and per-turn ``metrics`` on
    assistant messages, subagents as ``<agent>.messages.json`` in the root's folder, the file store's
    ``sessions.index.json`` and spawn queue; thinking (with its structured details), redacted thinking,
    images, a ``file`` block, and a result whose content is the tools' own result objects."""
    store = tmp_path / ".cline" / "data" / "sessions"
    root = "1776000000000_k2x9q"
    info = {"id": "claude-opus-4-6", "provider": "anthropic", "family": "claude-opus"}
    lead: list[dict[str, Any]] = [
        {"id": "msg_u1", "role": "user", "content": [
            {"type": "text", "text": '<user_input mode="act">Fix the sidebar</user_input>'},
            {"type": "file", "path": "/w/sidebar.tsx", "content": "export const A = 1;"},
            {"type": "image", "data": PNG, "mediaType": "image/png"}], "ts": 1776000000000},
        {"id": "msg_a1", "role": "assistant", "ts": 1776000001000, "modelInfo": info, "content": [
            {"type": "thinking", "thinking": "Read it first.", "signature": "sig-1",
             "details": [{"type": "reasoning.text", "text": "Read it first."}]},
            {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
            {"type": "tool_use", "id": "toolu_a", "name": "read_files", "input": {"files": [{"path": "/w/sidebar.tsx"}]}},
            {"type": "tool_use", "id": "toolu_b", "name": "run_commands", "input": {"commands": ["ls"]}},
            spawn("toolu_c", "Check the tests")]},
        {"id": "msg_u2", "role": "user", "ts": 1776000001500, "content": [
            result("toolu_a", [{"query": "/w/sidebar.tsx", "result": "1 | export const A = 1;", "success": True}],
                   name="read_files"),
            result("toolu_b", [{"type": "text", "text": "sidebar.tsx"}, {"type": "image", "data": PNG, "mediaType": "image/png"}],
                   name="run_commands", is_error=True),
            result("toolu_c", '{"text":"They pass.","iterations":1}', name="spawn_agent")]},
        {"id": "msg_a2", "role": "assistant", "ts": 1776000002000, "modelInfo": info,
         "metrics": {"inputTokens": 35912, "outputTokens": 164, "cacheReadTokens": 34332, "cacheWriteTokens": 10,
                     "cost": 0.065},
         "content": [{"type": "text", "text": "Fixed."}]},
    ]
    child: list[dict[str, Any]] = [{"id": "msg_s1", "role": "user", "content": [{"type": "text", "text": "Check the tests"}]},
             {"id": "msg_s2", "role": "assistant", "modelInfo": info, "content": [{"type": "text", "text": "They pass."}]}]
    write(store / root / f"{root}.messages.json", {"version": 1, "updated_at": "2026-04-12T09:00:00.000Z", "agent": "lead",
                                                  "sessionId": root, "messages": lead})
    write(store / root / f"{root}.json", manifest(root, metadata={"title": "Fix the sidebar"}))
    write(store / root / "agent_7.messages.json", {"version": 1, "updated_at": "2026-04-12T09:00:00.000Z",
                                                   "agent": "subagent", "sessionId": f"{root}__agent_7",
                                                   "taskType": "subagent_task", "messages": child})
    write(store / "sessions.index.json", {"version": 1, "sessions": {root: {"sessionId": root, "status": "completed"}}})
    write(store / "subagent-spawn-queue.json", {"version": 1, "nextId": 1, "requests": []})
    corpus = load(store)
    assert corpus.problems == [] and len(corpus.formats) == 2
    parent, subagent = sorted(corpus.sessions, key=lambda s: s.id)
    assert counts(parent) == counted(lead) == {"messages": 4, "calls": 3, "results": 3, "images": 2, "reasoning": 2}
    assert counts(subagent) == counted(child)
    thinking, redacted = of(parent, Reasoning)
    assert (thinking.text, thinking.signature, thinking.model, redacted.redacted) == ("Read it first.", "sig-1",
                                                                                     "claude-opus-4-6", True)
    assert [o.type for o in of(parent, Opaque)] == ["reasoning_details"]
    first, second, _ = of(parent, ToolResult)
    assert first.output == json.dumps(lead[2]["content"][0]["content"][0], separators=(",", ":"))
    assert (second.output, second.is_error, len(second.images), second.name) == ("sidebar.tsx", True, 1, "run_commands")
    assert parent.messages[0].text.count('<file_content path="/w/sidebar.tsx">\nexport const A = 1;\n</file_content>') == 1
    last = parent.messages[-1]
    assert last.usage is not None and (last.usage.input, last.usage.output, last.usage.cache_read, last.usage.cache_write) == (
        35912 - 34332 - 10, 164, 34332, 10)
    assert [e.text for e in parent.events if e.type == "metrics"] == ["cost 0.065"]
    assert parent.title == "Fix the sidebar" and parent.messages[1].provider == "anthropic"
    assert (subagent.id, subagent.parent_session_id, subagent.title) == (f"{root}__agent_7", root, "Check the tests")
    assert subagent.spawn_call_id == "toolu_c"
    for session in corpus.sessions:
        everything_valid(session, corpus.images)


def test_august_2026_origin_system_prompt_media_fork_and_compaction(tmp_path: Path) -> None:
    """accd7e5809 and later: ``origin`` (the client's source and version), ``system_prompt``, generated
    ``media`` blocks, a fork named in the manifest's metadata, and a compaction file beside the history
    (read only when named alone)."""
    folder = tmp_path / "sessions" / "1784094124598_rruoq"
    sid = folder.name
    messages: list[dict[str, Any]] = [
        {"id": "m1", "role": "user", "content": [{"type": "text", "text": "Draw a logo"}], "ts": 1784094124600},
        {"id": "m2", "role": "assistant", "ts": 1784094125000, "modelInfo": {"id": "gemini-3-pro-image", "provider": "gemini"},
         "content": [{"type": "text", "text": ""}, {"type": "text", "text": "Here:", "signature": "c2ln"},
                     {"type": "media", "media": {"id": "md1", "modality": "image", "mediaType": "image/png",
                                                 "source": {"type": "base64", "data": PNG}}},
                     {"type": "media", "media": {"id": "md2", "modality": "audio", "mediaType": "audio/wav",
                                                 "source": {"type": "artifact", "artifactId": "a1"}}}]},
    ]
    history = write(folder / f"{sid}.messages.json", {
        "version": 1, "updated_at": "2026-08-20T05:42:04.818Z", "agent": "lead", "sessionId": sid,
        "origin": {"source": "cli", "mode": "user", "sessionId": sid, "version": "2.3.1"},
        "messages": messages, "system_prompt": "You are Cline."})
    write(folder / f"{sid}.json", manifest(sid, metadata={"title": "Logo (fork)", "fork": {"forkedFromSessionId": "1784094053271_p8pzo"}},
                                           compaction_path=f"/h/.cline/data/sessions/{sid}/{sid}.compaction.json"))
    compacted = messages[1:]
    compaction = write(folder / f"{sid}.compaction.json", {
        "version": 1, "updated_at": "2026-08-20T05:43:00.000Z", "conversation_id": "conv_1", "source_message_count": 2,
        "messages": compacted})
    corpus = load(tmp_path)
    assert corpus.problems == [] and list(corpus.formats) == [f"sessions/{sid}/{history.name}"]
    (session,) = corpus.sessions
    assert counts(session) == counted(messages) == {"messages": 2, "calls": 0, "results": 0, "images": 1, "reasoning": 0}
    assert [o.type for o in of(session, Opaque)] == ["text_signature", "media"]
    assert [t.text for t in of(session, Text)] == ["Draw a logo", "Here:"]  # the empty part is no block
    assert [e.text for e in session.events if e.type == "client"] == ["cli 2.3.1"]
    assert session.run_configs[0].system == "You are Cline." and session.run_configs[-1].model == "gemini-3-pro-image"
    assert (session.title, session.parent_session_id) == ("Logo (fork)", "1784094053271_p8pzo")
    alone = load(compaction)
    assert alone.problems == [] and alone.formats == {compaction.name: "cline_sdk"}
    (shorter,) = alone.sessions
    assert shorter.id == f"{sid}:compaction" and counts(shorter) == counted(compacted)
    everything_valid(session, corpus.images)


def test_manifest_or_index_named_alone_reads_its_sessions(tmp_path: Path) -> None:
    root = "1776000000000_aaaaa"
    body = {"version": 1, "updated_at": "2026-04-12T09:00:00.000Z", "agent": "lead", "sessionId": root,
            "messages": [{"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    write(tmp_path / root / f"{root}.messages.json", body)
    named = write(tmp_path / root / f"{root}.json", manifest(root))
    index = write(tmp_path / "sessions.index.json", {"version": 1, "sessions": {root: {}, "gone_1": {}}})
    assert [s.id for s in load(named).sessions] == [root]
    from_index = load(index)
    assert [s.id for s in from_index.sessions] == [root]
    assert [(p.file, p.reason) for p in from_index.problems] == [
        ("sessions.index.json", "session gone_1 of the index has no messages file in " + tmp_path.name + "/")]
    orphan = write(tmp_path / "lost" / "lost.json", manifest("lost"))
    assert [p.reason for p in load(orphan).problems] == [
        "a Cline SDK manifest without its messages file (lost.messages.json): no conversation"]


def test_damaged_files_are_problems_naming_file_and_reason(tmp_path: Path) -> None:
    sid = "1776000000000_bbbbb"
    good: dict[str, Any] = {"version": 1, "updated_at": "2026-04-12T09:00:00.000Z", "agent": "lead", "sessionId": sid, "messages": [
        {"id": "u", "role": "user", "content": [{"type": "text", "text": "go"}, {"type": "hologram", "beam": 1}]},
        {"id": "a", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]},
        {"id": "r", "role": "user", "content": [result("t1", [{"type": "sparkle"}]), result("t9", "late")]},
        {"id": "s", "role": "system", "content": "odd"},
        "not a message"]}
    path = write(tmp_path / sid / f"{sid}.messages.json", good)
    corpus = load(path)
    assert [(p.file, p.line, p.reason) for p in corpus.problems] == [
        (path.name, 1, "unknown content block type 'hologram' in message 1; kept as opaque"),
        (path.name, 3, "unknown tool_result content type 'sparkle'; kept as opaque"),
        (path.name, 3, "tool_result for call 't9' has no earlier tool_use (orphan); kept"),
        (path.name, 4, "message 4 has role 'system'; read as a user message"),
        (path.name, 5, "message 5 is 'not a message', not an object; kept as opaque")]
    (session,) = corpus.sessions
    assert [o.type for o in of(session, Opaque)] == ["hologram", "sparkle", "message"]
    text = path.read_text(encoding="utf-8")
    cut = write(tmp_path / "cut" / "cut.messages.json", {})
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    broken = load(cut)
    assert broken.formats == {cut.name: "cline_sdk"}
    assert all(p.file == cut.name for p in broken.problems)
    assert broken.problems[0].reason.startswith("file is not valid JSON (unexpected end of data): read as far as line")
    (kept,) = broken.sessions  # what precedes the cut is read
    assert 0 < len(kept.messages) < len(good["messages"])


def test_subagent_whose_loaded_parent_holds_no_call_for_it_is_a_problem(tmp_path: Path) -> None:
    """Linking: a subagent is tied to its parent's spawning call; when the parent is loaded and no call
    matches (or it has none), the subagent's file gets a problem; a parent not loaded is none."""
    store = tmp_path / "sessions"
    root = "1776000000000_ccccc"

    def file(sid: str, agent: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"version": 1, "updated_at": "2026-04-12T09:00:00.000Z", "agent": agent, "sessionId": sid, "messages": messages}

    lead = [{"id": "u", "role": "user", "content": [{"type": "text", "text": "go"}]},
            {"id": "a", "role": "assistant", "content": [spawn("toolu_1", "Review the docs")]},
            {"id": "r", "role": "user", "content": [result("toolu_1", "done")]}]
    write(store / root / f"{root}.messages.json", file(root, "lead", lead))
    matched = write(store / root / "agent_1.messages.json", file(f"{root}__agent_1", "subagent", [
        {"id": "s", "role": "user", "content": [{"type": "text", "text": "Review the docs"}]}]))
    stray = write(store / root / "agent_2.messages.json", file(f"{root}__agent_2", "subagent", [
        {"id": "s", "role": "user", "content": [{"type": "text", "text": "Review the tests"}]}]))
    corpus = load(store)
    by_id = {s.id: s for s in corpus.sessions}
    assert by_id[f"{root}__agent_1"].spawn_call_id == "toolu_1" and by_id[f"{root}__agent_2"].spawn_call_id is None
    reason = (f"subagent {root}__agent_2 not linked to its spawning call: none of the 1 spawning calls of its parent "
              f"session {root} opened it with its prompt")
    assert [(p.file, p.line, p.reason) for p in corpus.problems] == [(f"{root}/{stray.name}", None, reason)]
    with pytest.raises(RecordError) as raised:
        load(store, strict=True)
    assert raised.value.problem == corpus.problems[0]
    saved = ingest(store, tmp_path / "saved")
    assert saved.problems == 1 and [p.reason for p in load(tmp_path / "saved").problems] == [reason]
    assert load(stray).problems == [] and load(matched).problems == []  # the parent is not loaded: no fault
    bare = tmp_path / "bare"
    write(bare / root / f"{root}.messages.json", file(root, "lead", lead[:1]))
    write(bare / root / "agent_1.messages.json", file(f"{root}__agent_1", "subagent", [
        {"id": "s", "role": "user", "content": [{"type": "text", "text": "Review the docs"}]}]))
    assert [p.reason for p in load(bare).problems] == [
        f"subagent {root}__agent_1 not linked to its spawning call: its parent session {root} is loaded but holds "
        "no spawning call"]


def test_sniff_claims_no_other_shared_file() -> None:
    for path in corpus_files():
        found = detect(path)
        assert found is None or found[0].name != "cline_sdk", path


def test_layouts_follow_resolve_session_data_dir(tmp_path: Path) -> None:
    def folders(env: dict[str, str]) -> list[tuple[str, str]]:
        return [(str(layout.folder.relative_to(tmp_path)), layout.found_by) for layout in cline_sdk.layouts(env, tmp_path)]

    assert folders({}) == [(".cline/data/sessions", "default")]
    assert folders({"CLINE_DIR": str(tmp_path / "c")}) == [("c/data/sessions", "CLINE_DIR")]
    assert folders({"CLINE_DIR": str(tmp_path / "c"), "CLINE_DATA_DIR": str(tmp_path / "d")}) == [("d/sessions", "CLINE_DATA_DIR")]
    assert folders({"CLINE_SESSION_DATA_DIR": str(tmp_path / "s"), "CLINE_DATA_DIR": str(tmp_path / "d")}) == [
        ("s", "CLINE_SESSION_DATA_DIR")]
    (layout,) = cline_sdk.layouts({}, tmp_path)
    assert layout.wanted(("1776_x", "1776_x.messages.json")) and layout.wanted(("r", "a", "r__a.messages.json"))
    assert not layout.wanted(("1776_x", "1776_x.json")) and not layout.wanted(("sessions.index.json",))
