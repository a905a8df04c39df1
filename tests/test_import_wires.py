"""Bare provider wire files (OpenAI Chat Completions, Anthropic Messages, Gemini contents): the real
OpenAI trace, the reusable parsers, and bad input per wire."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import counts, png
from toolkit.corpus import ImportContext, load
from toolkit.corpus.formats import anthropic_messages, gemini_contents, openai_chat, recording
from toolkit.corpus.formats.importer import Head
from toolkit.corpus.formats.wirekit import Origin
from toolkit.record import Image, JsonValue, Opaque, Reasoning, RecordError, Text, ToolResult, ToolUse


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------
# The real OpenAI trace


def test_faithfulsim_trace_loads_with_28_calls_and_28_results(corpora: Path) -> None:
    path = corpora / "openai_chat" / "faithfulsim_mcp_github_trace_121058.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    corpus = load(path)
    assert corpus.problems == []
    assert corpus.formats == {path.name: "openai_chat"}
    (session,) = corpus.sessions
    expected_calls = sum(len(m.get("tool_calls") or []) for m in raw)
    expected_results = sum(1 for m in raw if m["role"] == "tool")
    assert (expected_calls, expected_results) == (28, 28)
    assert counts(session) == (28, 28, 0, 0)
    path_messages = session.path()
    assert [m.role for m in path_messages] == [{"system": "system", "user": "user", "assistant": "assistant",
                                               "tool": "tool"}[m["role"]] for m in raw]
    assert [m.id for m in path_messages] == [f"{path.stem}:{i}" for i in range(len(raw))]
    assert all(m.parent_id == (path_messages[i - 1].id if i else None) for i, m in enumerate(path_messages))
    assert [m.source.line for m in path_messages if m.source] == list(range(1, len(raw) + 1))
    # every result answers a call made earlier on the path, and keeps the tool name the trace gives
    seen: set[str] = set()
    for message, raw_message in zip(path_messages, raw, strict=True):
        for block in message.blocks:
            if isinstance(block, ToolUse):
                seen.add(block.id)
            elif isinstance(block, ToolResult):
                assert block.tool_use_id in seen
                assert block.name == raw_message["name"]
                assert block.output == raw_message["content"]
    (config,) = session.run_configs
    assert config.system == raw[0]["content"]
    assert config.surface_hash is None and config.tools is None  # a bare list says nothing of the tools


# ------------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def test_openai_request_body_parts_roles_and_run_config(tmp_path: Path) -> None:
    image = png()
    tools: list[JsonValue] = [{"type": "function", "function": {"name": "mcp__fs__read", "parameters": {"type": "object"}}},
             {"type": "custom", "custom": {"name": "apply_patch"}}]
    body = {
        "model": "gpt-4.1",
        "tools": tools,
        "tool_choice": "auto",
        "messages": [
            {"role": "developer", "content": "Be exact."},
            {"role": "user", "content": [
                {"type": "text", "text": "Read it — ünïcode"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(image).decode()}},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}},
                {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            ]},
            {"role": "assistant", "content": None, "reasoning_content": "I should read.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "mcp__fs__read", "arguments": '{"p": 1}'}},
                {"id": "call_2", "type": "custom", "custom": {"name": "apply_patch", "input": "*** Begin"}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "one"},
                                                                   {"type": "text", "text": "two"}]},
            {"role": "tool", "tool_call_id": "call_2", "content": "patched"},
            {"role": "assistant", "content": "", "refusal": "I will not."},
        ],
    }
    corpus = load(write(tmp_path / "req.json", body))
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert session.format == "openai_chat"
    messages = session.path()
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert messages[0].tags == ("developer",)
    user = messages[1].blocks
    assert isinstance(user[0], Text) and user[0].text == "Read it — ünïcode"
    assert isinstance(user[1], Image) and user[1].size == len(image) and (user[1].width, user[1].height) == (3, 2)
    assert corpus.images[user[1].sha256 or ""] == image
    assert isinstance(user[2], Image) and user[2].sha256 is None and user[2].url == "https://example.com/a.jpg"
    assert isinstance(user[3], Opaque) and user[3].type == "input_audio"
    reasoning, call, custom = messages[2].blocks
    assert isinstance(reasoning, Reasoning) and reasoning.text == "I should read."
    assert isinstance(call, ToolUse) and call.input == {"p": 1} and call.name == "mcp__fs__read"
    assert isinstance(custom, ToolUse) and custom.freeform and custom.input == "*** Begin"
    result = messages[3].blocks[0]
    assert isinstance(result, ToolResult) and result.tool_use_id == "call_1" and result.output == "one\ntwo"
    assert messages[5].text == "I will not."
    assert messages[2].model == "gpt-4.1"
    (config,) = session.run_configs
    assert config.tools == tuple(tools) and config.tool_names == ("mcp__fs__read", "apply_patch")
    from toolkit.surface import fingerprint

    assert config.surface_hash == fingerprint(tools) and config.system == "Be exact." and config.model == "gpt-4.1"


def test_openai_response_object_usage_counts_cached_tokens_apart(tmp_path: Path) -> None:
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1742842885, "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi", "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}},
                        {"index": 1, "message": {"role": "assistant", "content": "Hello"}}],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 1024}}}
    corpus = load(write(tmp_path / "resp.json", body))
    assert corpus.problems == []
    (session,) = corpus.sessions
    first, second = session.messages
    assert first.usage is not None and (first.usage.input, first.usage.cache_read, first.usage.output) == (176, 1024, 30)
    assert first.usage.context == 1200
    assert first.time is not None and first.time.year == 2025
    assert second.id == first.id + "/1" and second.text == "Hello" and second.usage is None
    assert session.tip == first.id


def test_openai_legacy_function_call_and_ollama_shapes_pair_by_name(tmp_path: Path) -> None:
    image = png()
    messages = [
        {"role": "user", "content": "weather?", "images": [base64.b64encode(image).decode()]},
        {"role": "assistant", "content": None, "function_call": {"name": "weather", "arguments": '{"c": "Oslo"}'}},
        {"role": "function", "name": "weather", "content": "rain"},
        {"role": "assistant", "thinking": "check", "tool_calls": [{"function": {"name": "w", "arguments": {"c": "x"}}}]},
        {"role": "tool", "tool_name": "w", "content": "sun"},
    ]
    corpus = load(write(tmp_path / "legacy.json", messages))
    assert corpus.problems == []
    (session,) = corpus.sessions
    path = session.path()
    call = path[1].blocks[0]
    result = path[2].blocks[0]
    assert isinstance(call, ToolUse) and isinstance(result, ToolResult)
    assert result.tool_use_id == call.id and result.name == "weather" and call.input == {"c": "Oslo"}
    ollama_call = path[3].blocks[1]
    ollama_result = path[4].blocks[0]
    assert isinstance(ollama_call, ToolUse) and isinstance(ollama_result, ToolResult)
    assert ollama_result.tool_use_id == ollama_call.id and ollama_call.input == {"c": "x"}
    assert counts(session) == (2, 2, 1, 1)


def test_openai_messages_to_record_is_reusable_without_a_file(tmp_path: Path) -> None:
    ctx = ImportContext()
    out = openai_chat.messages_to_record(
        [{"role": "assistant", "tool_calls": [{"id": "x", "function": "bash", "arguments": {"cmd": "ls"}}]},
         {"role": "tool", "tool_call_id": "x", "content": "a\nb"}],
        Origin("log.json", ctx, id_prefix="s1", first_index=4, parent_id="s1:3", model="gpt-4o-mini",
               provider="openai"))
    assert [m.id for m in out] == ["s1:4", "s1:5"] and [m.parent_id for m in out] == ["s1:3", "s1:4"]
    call = out[0].blocks[0]
    assert isinstance(call, ToolUse) and call.name == "bash" and call.input == {"cmd": "ls"}
    assert out[0].model == "gpt-4o-mini" and out[0].provider == "openai"
    assert ctx.problems == []


@pytest.mark.parametrize("content", [b"", b"   \n"])
def test_empty_file_is_a_problem(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(content)
    for fmt in ("openai_chat", "anthropic", "gemini", "recording", *((None,) if not content else ())):
        corpus = load(path, format=fmt)
        assert corpus.sessions == []
        assert [(p.file, p.reason) for p in corpus.problems] == [("empty.json", "empty file")]


@pytest.mark.parametrize("fmt", ["openai_chat", "anthropic", "gemini"])
def test_invalid_json_names_its_line(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": \n', encoding="utf-8")
    corpus = load(path, format=fmt)
    (problem,) = corpus.problems
    assert problem.file == "bad.json" and problem.line == 4 and "not valid JSON" in problem.reason
    with pytest.raises(RecordError):
        load(path, format=fmt, strict=True)


def test_invalid_json_is_still_detected_as_a_chat_list(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text('[{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [', encoding="utf-8")
    corpus = load(path)
    assert corpus.formats == {"cut.json": "openai_chat"}
    assert len(corpus.problems) == 1 and corpus.problems[0].line == 1


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'[\n{"role": "user", "content": "ok"},\n{"role": "user", "content": "caf\xe9"}\n]')
    corpus = load(path)
    (problem,) = corpus.problems
    assert (problem.file, problem.line) == ("latin1.json", 3) and "UTF-8" in problem.reason
    with pytest.raises(RecordError):
        load(path, strict=True)


def test_openai_bad_content_is_kept_and_reported_while_the_rest_loads(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "hologram", "data": 1}, {"type": "text", "text": "hi"}]},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                              "function": {"name": "run", "arguments": '{"cmd": "ls"'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "out"},
        {"role": "tool", "tool_call_id": "ghost", "content": "who called?"},
        {"role": "wizard", "content": "abracadabra"},
    ]
    path = write(tmp_path / "chat.json", messages)
    corpus = load(path)
    reasons = [(p.file, p.line, p.reason) for p in corpus.problems]
    assert reasons == [
        ("chat.json", 2, "unknown content part type 'hologram'; kept as opaque"),
        ("chat.json", 3, "arguments of tool call c1 (run) are not valid JSON; kept as text"),
        ("chat.json", 5, "tool result for call 'ghost' has no earlier call (orphan); kept"),
        ("chat.json", 6, "message 6 has unknown role 'wizard'; kept as a user message"),
    ]
    (session,) = corpus.sessions
    path_messages = session.path()
    assert len(path_messages) == 6
    opaque = path_messages[1].blocks[0]
    assert isinstance(opaque, Opaque) and opaque.type == "hologram" and opaque.raw == {"type": "hologram", "data": 1}
    call = path_messages[2].blocks[0]
    assert isinstance(call, ToolUse) and call.input is None and call.raw_input == '{"cmd": "ls"'
    orphan = path_messages[4].blocks[0]
    assert isinstance(orphan, ToolResult) and orphan.tool_use_id == "ghost" and orphan.output == "who called?"
    assert path_messages[5].text == "abracadabra"
    with pytest.raises(RecordError, match="hologram"):
        load(path, strict=True)


# ------------------------------------------------------------------------------------------------
# Anthropic Messages


def test_anthropic_request_body_blocks(tmp_path: Path) -> None:
    image = png(5, 4)
    body = {
        "model": "claude-sonnet-4-5", "max_tokens": 1024,
        "system": [{"type": "text", "text": "You are terse."}, {"type": "text", "text": "Cite."}],
        "tools": [{"name": "grep", "input_schema": {"type": "object"}}, {"type": "web_search_20250305", "name": "web_search"}],
        "messages": [
            {"role": "user", "content": "find it"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "search first", "signature": "sig1"},
                {"type": "redacted_thinking", "data": "opaque-data"},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"q": "x"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True, "content": [
                    {"type": "text", "text": "no match"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": base64.b64encode(image).decode()}},
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/x.png"}},
                    {"type": "document", "source": {"type": "text", "data": "doc"}},
                ]},
                {"type": "text", "text": "try again"},
            ]},
        ],
    }
    corpus = load(write(tmp_path / "claude.json", body))
    assert corpus.problems == []
    assert corpus.formats == {"claude.json": "anthropic"}
    (session,) = corpus.sessions
    path = session.path()
    assert [m.id for m in path] == ["claude:system", "claude:0", "claude:1", "claude:2"]
    assert path[0].role == "system" and path[0].text == "You are terse.\nCite."
    thinking, redacted, server, server_result, call = path[2].blocks
    assert isinstance(thinking, Reasoning) and (thinking.signature, thinking.provider, thinking.model) == (
        "sig1", "anthropic", "claude-sonnet-4-5")
    assert isinstance(redacted, Reasoning) and redacted.redacted and redacted.signature == "opaque-data"
    assert isinstance(server, ToolUse) and server.id == "srvtoolu_1"  # the provider ran it: still a call
    assert isinstance(server_result, ToolResult) and server_result.tool_use_id == "srvtoolu_1"
    assert isinstance(server_result.detail, dict) and server_result.detail["type"] == "web_search_tool_result"
    assert isinstance(call, ToolUse) and call.input == {"q": "x"}
    result, document, text = path[3].blocks
    assert isinstance(result, ToolResult) and result.is_error and result.output == "no match"
    assert [i.sha256 is not None for i in result.images] == [True, False] and result.images[0].width == 5
    assert isinstance(document, Opaque) and document.type == "document"
    assert isinstance(text, Text) and text.text == "try again"
    assert path[3].role == "user"
    assert counts(session) == (2, 2, 2, 2)  # the server call and its result count
    (config,) = session.run_configs
    assert config.system == "You are terse.\nCite." and config.tool_names == ("grep", "web_search")


def test_anthropic_response_usage(tmp_path: Path) -> None:
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-1",
            "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 4000,
                      "cache_creation_input_tokens": 250}}
    corpus = load(write(tmp_path / "msg.json", body))
    assert corpus.problems == [] and corpus.formats == {"msg.json": "anthropic"}
    (message,) = corpus.sessions[0].messages
    assert message.usage is not None and message.usage.context == 4262
    assert (message.usage.input, message.usage.output, message.usage.cache_read, message.usage.cache_write) == (
        12, 3, 4000, 250)


def test_anthropic_bad_content_is_kept_and_reported(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": [{"type": "telepathy", "x": 1}, {"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "ls", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "a"},
                                     {"type": "tool_result", "tool_use_id": "toolu_zzz", "content": "b"}]},
    ]
    path = write(tmp_path / "anth.json", messages)
    corpus = load(path)
    assert corpus.formats == {"anth.json": "anthropic"}
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (1, "unknown content block type 'telepathy'; kept as opaque"),
        (3, "tool_result for call 'toolu_zzz' has no earlier tool_use (orphan); kept"),
    ]
    (session,) = corpus.sessions
    assert counts(session) == (1, 2, 0, 0)
    with pytest.raises(RecordError, match="telepathy"):
        load(path, strict=True)


def test_anthropic_calls_the_next_message_does_not_answer_are_reported(tmp_path: Path) -> None:
    """A user turn whose tool_result blocks became text (its content retyped to a string) left the
    calls before it without results and said nothing (an accounting run with other seeds lost 4
    results of a pydantic-ai cassette so): the API wants every call answered in the next message,
    so one that answers none of them is reported at its line."""
    body = {"model": "claude-x", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}},
                                          {"type": "tool_use", "id": "t2", "name": "look", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t3", "name": "look", "input": {}}]},
        {"role": "user", "content": ""},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t4", "name": "look", "input": {}}]},
    ]}
    path = write(tmp_path / "body.json", body)
    corpus = load(path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (3, "message 3 holds no tool_result for 1 tool_use block(s) of the message before it (t2); "
            "their results are missing"),
        (5, "message 5 holds no tool_result for 1 tool_use block(s) of the message before it (t3); "
            "their results are missing"),
    ]  # the last call has no message after it: a request may end with its call (a prefill)
    assert counts(corpus.sessions[0])[:2] == (4, 1)
    with pytest.raises(RecordError, match="t2"):
        load(path, strict=True)


def test_anthropic_messages_to_record_with_system(tmp_path: Path) -> None:
    ctx = ImportContext()
    out = anthropic_messages.messages_to_record(
        [{"role": "user", "content": "q"}], Origin("x.json", ctx, id_prefix="p"), system="Be kind.")
    assert [(m.id, m.role, m.text, m.parent_id) for m in out] == [
        ("p:system", "system", "Be kind.", None), ("p:0", "user", "q", "p:system")]


# ------------------------------------------------------------------------------------------------
# Gemini contents


def test_gemini_request_body_parts_signatures_and_pairing(tmp_path: Path) -> None:
    image = png(7, 7)
    urlsafe = base64.urlsafe_b64encode(image).decode().rstrip("=")
    body = {
        "systemInstruction": {"parts": [{"text": "You help."}]},
        "tools": [{"functionDeclarations": [{"name": "look"}, {"name": "read"}]}, {"googleSearch": {}}],
        "generationConfig": {"temperature": 0},
        "contents": [
            {"role": "user", "parts": [{"text": "go"}, {"inline_data": {"mime_type": "image/png", "data": urlsafe}}]},
            {"role": "model", "parts": [
                {"text": "planning", "thought": True, "thoughtSignature": "t-sig"},
                {"functionCall": {"name": "look", "args": {"a": 1}}, "thoughtSignature": "c-sig"},
                {"functionCall": {"name": "read", "args": {}}},
                {"functionCall": {"name": "look", "args": {"a": 2}}},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "look", "response": {"output": "first"}}},
                {"functionResponse": {"name": "read", "response": {"error": "denied"}}},
                {"functionResponse": {"name": "look", "response": {"x": 1}, "parts": [
                    {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(image).decode()}}]}},
            ]},
            {"role": "model", "parts": [{"executableCode": {"code": "print(1)", "language": "PYTHON"}},
                                        {"fileData": {"mimeType": "image/jpeg", "fileUri": "gs://b/x.jpg"}},
                                        {"text": "done"}]},
        ],
    }
    corpus = load(write(tmp_path / "gem.json", body))
    assert corpus.problems == []
    assert corpus.formats == {"gem.json": "gemini"}
    (session,) = corpus.sessions
    path = session.path()
    assert [m.role for m in path] == ["system", "user", "assistant", "tool", "assistant"]
    stored = path[1].blocks[1]
    assert isinstance(stored, Image) and corpus.images[stored.sha256 or ""] == image
    thought, signed, first, second, third = path[2].blocks
    assert isinstance(thought, Reasoning) and (thought.text, thought.signature, thought.redacted) == (
        "planning", "t-sig", False)
    assert isinstance(signed, Reasoning) and (signed.text, signed.signature, signed.redacted, signed.provider) == (
        "", "c-sig", True, "google")
    assert isinstance(first, ToolUse) and isinstance(second, ToolUse) and isinstance(third, ToolUse)
    results = path[3].blocks
    assert all(isinstance(r, ToolResult) for r in results)
    pairs = [(r.tool_use_id, r.output, r.is_error) for r in results if isinstance(r, ToolResult)]
    assert pairs == [(first.id, "first", False), (second.id, "denied", True), (third.id, '{"x":1}', False)]
    last = results[2]
    assert isinstance(last, ToolResult) and last.images[0].sha256 == stored.sha256 and last.detail == {"x": 1}
    code, remote, done = path[4].blocks
    assert isinstance(code, Opaque) and code.type == "executableCode"
    assert isinstance(remote, Image) and remote.url == "gs://b/x.jpg"
    assert isinstance(done, Text)
    (config,) = session.run_configs
    assert config.tool_names == ("look", "read", "googleSearch") and config.system == "You help."
    assert counts(session) == (3, 3, 3, 2)


def test_gemini_empty_text_part_leaves_a_message_with_its_empty_text(tmp_path: Path) -> None:
    body = {"contents": [
        {"role": "user", "parts": [{"text": ""}]},
        {"role": "model", "parts": [{"text": "Nothing was asked."}]},
        {"role": "user", "parts": [{"text": "now"}, {"text": ""}]},
    ]}
    corpus = load(write(tmp_path / "gem.json", body))
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert [(m.role, m.blocks) for m in session.path()] == [
        ("user", (Text(""),)), ("assistant", (Text("Nothing was asked."),)), ("user", (Text("now"),))]
    assert corpus.frames()["messages"]["blocks"].to_list() == [1, 1, 1]


def test_gemini_bad_parts_are_kept_and_reported(tmp_path: Path) -> None:
    contents = [
        {"role": "user", "parts": [{"hologram": {"x": 1}}, {"text": "hi"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": "{not json"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "ok"}}},
                                   {"functionResponse": {"name": "g", "response": {"output": "?"}}}]},
    ]
    path = write(tmp_path / "contents.json", contents)
    corpus = load(path)
    assert corpus.formats == {"contents.json": "gemini"}
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (1, "unknown part kind 'hologram'; kept as opaque"),
        (2, "arguments of tool call contents:1.0 (f) are not valid JSON; kept as text"),
        (3, "functionResponse 'g' has no earlier unanswered functionCall (orphan); kept"),
    ]
    (session,) = corpus.sessions
    assert counts(session) == (1, 2, 0, 0)
    opaque = session.path()[0].blocks[0]
    assert isinstance(opaque, Opaque) and opaque.raw == {"hologram": {"x": 1}}
    with pytest.raises(RecordError, match="hologram"):
        load(path, strict=True)


def test_gemini_signature_under_a_misspelt_key_is_kept_and_reported(tmp_path: Path) -> None:
    """A ``thoughtSignature`` misspelt (``thoughtSiganture``) beside a call read as an unsigned call, the
    signature's redacted reasoning gone without a problem (an accounting run with other seeds lost one
    in a pydantic-ai cassette): it is reported at the content's line and kept as an opaque block where
    the reasoning stood, and a thought part keeps its words."""
    contents = [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"text": "plan", "thought": True, "thoughtSignatrue": "t-sig"},
                                    {"functionCall": {"name": "look", "args": {}}, "thoughtSiganture": "c-sig"}]},
    ]
    path = write(tmp_path / "contents.json", contents)
    corpus = load(path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (2, "part 1 has no thoughtSignature but 'thoughtSignatrue', a key Gemini does not write; kept as an opaque block"),
        (2, "part 2 has no thoughtSignature but 'thoughtSiganture', a key Gemini does not write; kept as an opaque block"),
    ]
    thought, kept, held, call = corpus.sessions[0].path()[1].blocks
    assert isinstance(thought, Reasoning) and (thought.text, thought.signature) == ("plan", None)
    assert isinstance(kept, Opaque) and kept.raw == {"thoughtSignatrue": "t-sig"}
    assert isinstance(held, Opaque) and held.raw == {"thoughtSiganture": "c-sig"}
    assert isinstance(call, ToolUse) and call.name == "look"
    with pytest.raises(RecordError, match="thoughtSignatrue"):
        load(path, strict=True)


def test_gemini_response_usage_and_candidates(tmp_path: Path) -> None:
    body = {"candidates": [{"content": {"role": "model", "parts": [{"text": "a", "thoughtSignature": "s"}]}},
                           {"content": {"role": "model", "parts": [{"text": "b"}]}}],
            "usageMetadata": {"promptTokenCount": 1000, "cachedContentTokenCount": 600, "candidatesTokenCount": 10,
                              "thoughtsTokenCount": 90, "toolUsePromptTokenCount": 5},
            "modelVersion": "gemini-2.5-flash"}
    corpus = load(write(tmp_path / "g.json", body))
    assert corpus.problems == []
    first, second = corpus.sessions[0].messages
    assert first.usage is not None
    assert (first.usage.input, first.usage.output, first.usage.cache_read) == (405, 100, 600)
    assert first.model == "gemini-2.5-flash" and second.id == first.id + "/1"


def test_gemini_contents_to_record_helper() -> None:
    ctx = ImportContext()
    out = gemini_contents.contents_to_record(
        [{"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {}}}]},
         {"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "f", "response": {}}}]}],
        Origin("x", ctx, id_prefix="g", model="gemini-3-pro-preview"), system_instruction="sys")
    assert [m.role for m in out] == ["system", "assistant", "tool"] and ctx.problems == []
    assert out[1].model == "gemini-3-pro-preview" and out[1].provider == "google"


# ------------------------------------------------------------------------------------------------
# Detection never claims another format's files


def test_detection_leaves_other_formats_alone(corpora: Path) -> None:
    from toolkit.corpus.formats import SNIFF_BYTES

    for folder in ("claude_code", "codex", "trajectories"):
        for path in sorted((corpora / folder).rglob("*")):
            if path.is_file():
                head = path.read_bytes()[:SNIFF_BYTES].decode("utf-8", errors="replace")
                assert recording.detect(Head.of_text(path, head)) is None, path
    for name in ("geminicli_chat_session_7befeae5.json", "geminicli_streamjson_6d91b0b6.jsonl"):
        path = corpora / "gemini" / name
        assert recording.detect(Head.of_text(path, path.read_bytes()[:SNIFF_BYTES].decode("utf-8", errors="replace"))) is None


def test_sniff_hands_its_detection_to_read_and_keeps_nothing(tmp_path: Path) -> None:
    from toolkit.corpus import formats

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]))
    body = tmp_path / "body.json"
    body.write_text(json.dumps({"model": "claude-x", "system": "s", "messages": [{"role": "user", "content": "q"}]}))
    found_chat, found_body = formats.sniff(chat), formats.sniff(body)
    assert found_chat is not None and found_body is not None
    (importer, detection), (other, _) = found_chat, found_body
    assert (importer.name, other.name) == ("openai_chat", "anthropic")
    assert isinstance(detection, recording.Detection) and detection.format == "openai_chat"
    assert detection == recording.detect(Head.of_text(chat, chat.read_text())) and detection.document is not None
    chat.write_text("no longer JSON")  # read takes the document detection parsed, whatever sniffed after it
    ctx = ImportContext(names={str(chat): "chat.json"})
    (session,) = importer.read(chat, ctx, detection)
    assert [m.text for m in session.path()] == ["hi", "yo"] and ctx.problems == []
    assert session.format == "openai_chat"


def test_a_sniff_shared_by_importers_is_asked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.corpus import formats
    from toolkit.corpus.formats.importer import Claim, Importer

    asked: list[Path] = []

    def family(head: Head) -> Claim:
        asked.append(head.path)
        return Claim("second")

    first, second = (Importer(name, family, lambda path, ctx, detection: []) for name in ("first", "second"))
    monkeypatch.setattr(formats, "importers", lambda: [first, second])
    path = tmp_path / "any.txt"
    path.write_text("x")
    assert formats.sniff(path) == (second, Claim("second")) and asked == [path]


def test_an_origin_without_a_provider_takes_the_wire_default() -> None:
    ctx = ImportContext()
    reply = [{"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "sig"}]}]
    (message,) = anthropic_messages.messages_to_record(reply, Origin("x", ctx, id_prefix="a"))
    assert message.provider == "anthropic" and message.blocks[0] == Reasoning("t", signature="sig",
                                                                               provider="anthropic")
    (hosted,) = anthropic_messages.messages_to_record(reply, Origin("x", ctx, id_prefix="a", provider="bedrock"))
    assert hosted.provider == "bedrock"
    (chat,) = openai_chat.messages_to_record([{"role": "assistant", "content": "c"}], Origin("x", ctx, id_prefix="o"))
    assert chat.provider is None  # any OpenAI-compatible server speaks Chat Completions
