"""Faults found on real 2026 transcripts, each on a file made here from what the client's own source
writes: Claude Code 2.1's subagent side files, Gemini CLI results recorded twice, Anthropic server
tools, and what one reasoning block is for each provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import everything_valid
from toolkit.corpus import ImportContext, load
from toolkit.corpus.formats import claude_code, gemini_cli
from toolkit.record import Opaque, Reasoning, Session, Text, ToolResult, ToolUse


def lines(path: Path, records: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def document(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def of(session: Session, kind: type) -> list[Any]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


# ---- 1. Claude Code 2.1 subagent side files ---------------------------------------------------------

PARENT = "9a6e9f2f-0000-4000-8000-000000000001"
META = {"agentType": "Explore", "description": "Find the config loader", "toolUseId": "toolu_01Spawn",
        "spawnDepth": 1, "model": "haiku"}
"""The keys 2.1.x writes in ``agent-<id>.meta.json`` (see ``claude_code``'s docstring for the sources)."""


def subagent(root: Path, agent: str = "a1b2c3d4e5f607182") -> Path:
    """A subagent transcript as 2.1 writes it under ``<session>/subagents/``: records carrying
    ``isSidechain``, ``agentId`` and the parent's ``sessionId``."""
    common = {"isSidechain": True, "agentId": agent, "sessionId": PARENT, "userType": "external",
              "cwd": "/p", "version": "2.1.145"}
    return lines(root / PARENT / "subagents" / f"agent-{agent}.jsonl", [
        {**common, "parentUuid": None, "type": "user", "uuid": "s1", "timestamp": "2026-03-01T10:00:00Z",
         "message": {"role": "user", "content": "Find where the config is loaded."}},
        {**common, "parentUuid": "s1", "type": "assistant", "uuid": "s2", "timestamp": "2026-03-01T10:00:02Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-haiku-4-5", "type": "message",
                     "content": [{"type": "text", "text": "In config.py."}],
                     "usage": {"input_tokens": 10, "output_tokens": 4}}},
    ])


def test_claude_code_meta_file_belongs_to_its_subagent(tmp_path: Path) -> None:
    transcript = subagent(tmp_path)
    meta = document(transcript.with_name(transcript.name.replace(".jsonl", ".meta.json")), META)
    skill = document(transcript.with_name(transcript.name.replace(".jsonl", ".forked-skill.json")),
                     {"skillName": "tests", "attributionName": "tests", "effort": "max"})
    assert claude_code.IMPORTER.owns(str(meta)) and claude_code.IMPORTER.owns(str(skill))
    assert not claude_code.IMPORTER.owns(str(transcript))
    alone = document(tmp_path / "other" / "agent-ffff.meta.json", META)  # no transcript beside it
    assert not claude_code.IMPORTER.owns(str(alone))
    assert not claude_code.IMPORTER.owns(str(document(tmp_path / "notes.meta.json", META)))
    ctx = ImportContext()
    (session,) = claude_code.IMPORTER.read(transcript, ctx, None)
    assert ctx.problems == []
    assert session.id == f"{PARENT}:agent-a1b2c3d4e5f607182" and session.parent_session_id == PARENT
    assert session.title == "Find the config loader" and session.spawn_call_id == "toolu_01Spawn"
    first, second = session.events[:2]
    assert (first.kind, first.type, first.text, first.raw) == ("meta", "agent-meta", "Explore", META)
    assert (second.kind, second.type, second.text) == ("meta", "forked-skill", "tests")
    assert first.source is not None and first.source.file.endswith("agent-a1b2c3d4e5f607182.meta.json")


def test_claude_code_folder_with_meta_files_loads_without_problems(tmp_path: Path) -> None:
    transcript = subagent(tmp_path)
    document(transcript.with_name(transcript.name.replace(".jsonl", ".meta.json")), META)
    corpus = load(tmp_path)
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert session.title == "Find the config loader" and session.events[0].type == "agent-meta"


def test_claude_code_broken_meta_file_is_reported_and_the_transcript_read(tmp_path: Path) -> None:
    transcript = subagent(tmp_path)
    transcript.with_name(transcript.name.replace(".jsonl", ".meta.json")).write_text("{not json", encoding="utf-8")
    ctx = ImportContext()
    (session,) = claude_code.IMPORTER.read(transcript, ctx, None)
    assert len(ctx.problems) == 1 and "side file" in ctx.problems[0].reason
    assert session.title is None and len(session.messages) == 2


# ---- 2. Gemini CLI: a result recorded with its call and again in the next user turn ---------------


def response(call_id: str, name: str, output: str) -> dict[str, Any]:
    return {"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}


def call(call_id: str, name: str, output: str) -> dict[str, Any]:
    """A ``ToolCallRecord`` as ``recordCompletedToolCalls`` writes it: its result is its responseParts."""
    return {"id": call_id, "name": name, "args": {"path": output}, "status": "success",
            "timestamp": "2026-04-01T10:00:03Z", "result": [response(call_id, name, output)],
            "resultDisplay": output}


HINT = "User steering update:\n<user_input>\nlook in src too\n</user_input>"
"""What ``buildUserSteeringHintPrompt`` (packages/core/src/utils/fastAckHelper.ts) sends before the results."""


def round_with_hint(user_record: dict[str, Any]) -> list[dict[str, Any]]:
    calls = [call("c1", "read_file", "a.py"), call("c2", "read_file", "b.py")]
    return [
        {"id": "m1", "timestamp": "2026-04-01T10:00:00Z", "type": "user", "content": [{"text": "read both"}]},
        {"id": "m2", "timestamp": "2026-04-01T10:00:02Z", "type": "gemini", "content": "", "toolCalls": calls,
         "thoughts": [], "model": "gemini-3-pro-preview"},
        user_record,
        {"id": "m4", "timestamp": "2026-04-01T10:00:09Z", "type": "gemini", "content": "Both read.",
         "thoughts": [], "model": "gemini-3-pro-preview"},
    ]


def results_once(session: Session) -> None:
    results = of(session, ToolResult)
    assert sorted(r.tool_use_id for r in results) == ["c1", "c2"]
    assert sorted(r.output for r in results) == ["a.py", "b.py"]
    everything_valid(session)


def test_gemini_cli_hint_turn_before_0_44_keeps_the_hint_and_not_the_results(tmp_path: Path) -> None:
    """Before 0.44 the turn of results was not recorded, unless a hint rode with it: then it was a
    user message holding the hint and every result (``isFunctionResponse`` asked all parts to be
    responses)."""
    hint_turn = {"id": "m3", "timestamp": "2026-04-01T10:00:05Z", "type": "user",
                 "content": [{"text": HINT}, response("c1", "read_file", "a.py"), response("c2", "read_file", "b.py")]}
    path = document(tmp_path / "chats" / "session-2026-04-01T10-00-a1.json", {
        "sessionId": "s-hint", "projectHash": "p", "startTime": "2026-04-01T10:00:00Z",
        "lastUpdated": "2026-04-01T10:00:09Z", "messages": round_with_hint(hint_turn)})
    ctx = ImportContext()
    (session,) = gemini_cli.read(path, ctx)
    assert ctx.problems == []
    results_once(session)
    assert [m.role for m in session.path()] == ["user", "assistant", "tool", "user", "assistant"]
    assert session.path()[3].blocks == (Text(HINT),)


def test_gemini_cli_synthetic_results_turn_since_0_44_is_no_message(tmp_path: Path) -> None:
    """Since 0.44 every turn of results is recorded as a ``user`` message (``recordSyntheticMessage``),
    here in the JSONL recording."""
    turn = {"id": "m3", "timestamp": "2026-04-01T10:00:05Z", "type": "user",
            "content": [response("c1", "read_file", "a.py"), response("c2", "read_file", "b.py")]}
    records = [{"sessionId": "s-jsonl", "projectHash": "p", "startTime": "2026-04-01T10:00:00Z", "kind": "main"},
               *round_with_hint(turn)]
    ctx = ImportContext()
    (session,) = gemini_cli.read(lines(tmp_path / "chats" / "session-a1.jsonl", records), ctx)
    assert ctx.problems == []
    results_once(session)
    assert [m.role for m in session.path()] == ["user", "assistant", "tool", "assistant"]


def test_gemini_cli_result_overwritten_with_the_whole_turn_is_only_its_own(tmp_path: Path) -> None:
    """``updateMessagesFromHistory`` (0.44+) sets each call's result to every part of the user turn
    that answered the round: the hint and all the round's responses."""
    whole = [{"text": HINT}, response("c1", "read_file", "a.py"), response("c2", "read_file", "b.py")]
    records = round_with_hint({"id": "m3", "timestamp": "2026-04-01T10:00:05Z", "type": "user", "content": whole})
    for record in records[1]["toolCalls"]:
        record["result"] = whole
    records[1]["content"] = [{"functionCall": {"id": "c1", "name": "read_file", "args": {"path": "a.py"}},
                              "thoughtSignature": "U0lH"},
                             {"functionCall": {"id": "c2", "name": "read_file", "args": {"path": "b.py"}}}]
    ctx = ImportContext()
    (session,) = gemini_cli.read(lines(tmp_path / "chats" / "session-a2.jsonl", [
        {"sessionId": "s-sync", "projectHash": "p", "startTime": "2026-04-01T10:00:00Z"}, *records]), ctx)
    assert ctx.problems == []
    results_once(session)
    assert [b.id for b in of(session, ToolUse)] == ["c1", "c2"]


# ---- 3. Anthropic server tools ------------------------------------------------------------------------

SERVER_REPLY: list[dict[str, Any]] = [
    {"type": "text", "text": "Searching."},
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "polars lazy"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
        {"type": "web_search_result", "title": "Lazy API", "url": "https://docs.pola.rs/lazy",
         "encrypted_content": "RW5j", "page_age": None}]},
    {"type": "server_tool_use", "id": "srvtoolu_02", "name": "bash_code_execution", "input": {"command": "ls"}},
    {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_02", "content": {
        "type": "bash_code_execution_result", "stdout": "a.csv\n", "stderr": "", "return_code": 0, "content": []}},
    {"type": "server_tool_use", "id": "srvtoolu_03", "name": "web_fetch", "input": {"url": "https://x.invalid"}},
    {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_03", "content": {
        "type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"}},
    {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "list_issues", "server_name": "github",
     "input": {"repo": "a/b"}},
    {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "is_error": False,
     "content": [{"type": "text", "text": "#1 open"}]},
    {"type": "text", "text": "Lazy frames defer work."},
]
"""One reply with server tools, in the shapes of anthropic 2.16.0 (``ServerToolUseBlock``, the result
blocks and ``BetaMCPToolUseBlock`` / ``BetaMCPToolResultBlock``)."""


def server_tools_read(session: Session) -> None:
    uses = {b.id: b for b in of(session, ToolUse)}
    results = {b.tool_use_id: b for b in of(session, ToolResult)}
    assert set(uses) == set(results) == {"srvtoolu_01", "srvtoolu_02", "srvtoolu_03", "mcptoolu_01"}
    assert [uses[i].name for i in sorted(uses)] == ["mcp__github__list_issues", "web_search", "bash_code_execution",
                                                    "web_fetch"]
    assert results["srvtoolu_01"].output == "Lazy API\nhttps://docs.pola.rs/lazy"
    assert results["srvtoolu_02"].output == "a.csv\n" and not results["srvtoolu_02"].is_error
    assert results["srvtoolu_03"].is_error and results["srvtoolu_03"].output == "url_not_accessible"
    assert results["mcptoolu_01"].output == "#1 open"
    detail = results["srvtoolu_01"].detail
    assert isinstance(detail, dict) and detail["type"] == "web_search_tool_result"
    assert not of(session, Opaque)
    everything_valid(session)


def test_anthropic_messages_server_tools_are_calls_and_results(tmp_path: Path) -> None:
    corpus = load(document(tmp_path / "claude.json", {
        "model": "claude-sonnet-4-5", "max_tokens": 1024,
        "tools": [{"type": "web_search_20250305", "name": "web_search"}],
        "messages": [{"role": "user", "content": "how do lazy frames work?"},
                     {"role": "assistant", "content": SERVER_REPLY},
                     {"role": "user", "content": "thanks"}]}))
    assert corpus.problems == [] and corpus.formats == {"claude.json": "anthropic"}
    server_tools_read(corpus.sessions[0])


def test_claude_code_server_tools_are_calls_and_results(tmp_path: Path) -> None:
    common = {"isSidechain": False, "sessionId": "cc-1", "userType": "external", "cwd": "/p", "version": "2.1.145"}
    records: list[dict[str, Any]] = [{**common, "parentUuid": None, "type": "user", "uuid": "u1",
                                      "timestamp": "2026-03-01T10:00:00Z",
                                      "message": {"role": "user", "content": "how do lazy frames work?"}}]
    for n, block in enumerate(SERVER_REPLY):  # one record per content block, as Claude Code writes a reply
        records.append({**common, "parentUuid": records[-1]["uuid"], "type": "assistant", "uuid": f"a{n}",
                        "timestamp": f"2026-03-01T10:00:{n + 1:02d}Z",
                        "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                                    "type": "message", "content": [block]}})
    ctx = ImportContext()
    (session,) = claude_code.IMPORTER.read(lines(tmp_path / "cc-1.jsonl", records), ctx, None)
    assert ctx.problems == []
    assert [m.role for m in session.path()] == ["user", "assistant"]
    server_tools_read(session)


# ---- 4. One reasoning block per unit the provider returns ---------------------------------------------


def reply_blocks(tmp_path: Path, name: str, body: dict[str, Any]) -> tuple[Any, ...]:
    corpus = load(document(tmp_path / name, body))
    assert corpus.problems == []
    return corpus.sessions[0].path()[-1].blocks


def test_openrouter_openai_item_with_encrypted_body_and_one_summary_is_one_block(tmp_path: Path) -> None:
    """OpenRouter returns one OpenAI reasoning item as a summary detail and an encrypted detail with the
    item's id: one block, as the Responses API item it is."""
    chat = reply_blocks(tmp_path, "chat.json", {"id": "gen-1", "object": "chat.completion", "model": "openai/gpt-5",
                                                "choices": [{"index": 0, "message": {
        "role": "assistant", "content": "42.", "reasoning": "Adding up.",
        "reasoning_details": [
            {"type": "reasoning.summary", "summary": "Adding up.", "id": "rs_1", "format": "openai-responses-v1",
             "index": 0},
            {"type": "reasoning.encrypted", "data": "gAAAAB", "id": "rs_1", "format": "openai-responses-v1",
             "index": 0}]}, "finish_reason": "stop"}]})
    responses = reply_blocks(tmp_path, "resp.json", {"id": "resp_1", "object": "response", "model": "gpt-5", "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Adding up."}],
         "encrypted_content": "gAAAAB"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "42."}]}]})
    for blocks in (chat, responses):
        (reasoning,) = [b for b in blocks if isinstance(b, Reasoning)]
        assert (reasoning.text, reasoning.signature, reasoning.redacted) == ("Adding up.", "gAAAAB", False)


def test_responses_item_with_summary_and_raw_content_is_one_block_of_both(tmp_path: Path) -> None:
    blocks = reply_blocks(tmp_path, "resp.json", {"id": "resp_1", "object": "response", "model": "gpt-oss-120b",
                                                  "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Sum it."}],
         "content": [{"type": "reasoning_text", "text": "2 and 2 make 4."}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "4"}]}]})
    (reasoning,) = [b for b in blocks if isinstance(b, Reasoning)]
    assert reasoning.text == "Sum it.\n\n2 and 2 make 4." and not reasoning.redacted


def test_gemini_signature_without_thought_is_one_redacted_block_on_both_endpoints(tmp_path: Path) -> None:
    """A Gemini 3 call signed with no thought part: one redacted block with empty text just before
    the call, whether the native endpoint or the OpenAI-compatible one recorded it."""
    native = reply_blocks(tmp_path, "gem.json", {"modelVersion": "gemini-3-pro-preview", "candidates": [{"content": {
        "role": "model", "parts": [{"functionCall": {"id": "f1", "name": "ls", "args": {}}, "thoughtSignature": "U0lH"},
                                   {"functionCall": {"id": "f2", "name": "pwd", "args": {}}}]}}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3, "thoughtsTokenCount": 40}})
    compatible = reply_blocks(tmp_path, "compat.json", {"id": "c1", "object": "chat.completion",
                                                        "model": "gemini-3-pro-preview", "choices": [{
        "index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "f1", "type": "function", "function": {"name": "ls", "arguments": "{}"},
             "extra_content": {"google": {"thought_signature": "U0lH"}}},
            {"id": "f2", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}]}}]})
    for blocks in (native, compatible):
        assert [type(b) for b in blocks] == [Reasoning, ToolUse, ToolUse]
        signed = blocks[0]
        assert (signed.text, signed.signature, signed.redacted) == ("", "U0lH", True)
