"""Recorded model-API exchanges (VCR cassettes, HAR, JSONL logs): the real pydantic-ai cassettes,
conversation building, streams, and bad input."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import counts, png
from toolkit.corpus import load
from toolkit.record import Image, JsonValue, Reasoning, RecordError, Session, Text, ToolResult, ToolUse
from toolkit.surface import fingerprint

CASSETTES = [
    "openai_chat/pydanticai_cassette_chat_images_after_tool.yaml",
    "openai_chat/pydanticai_cassette_multi_agent_gemini_then_openai.yaml",
    "anthropic/pydanticai_cassette_parallel_tool_calls.yaml",
    "anthropic/pydanticai_cassette_tool_result_images.yaml",
    "gemini/pydanticai_cassette_multi_function_calls.yaml",
    "gemini/pydanticai_cassette_function_response_images.yaml",
]


def wire_of(uri: str) -> str | None:
    if "chat/completions" in uri:
        return "openai_chat"
    if "/v1/messages" in uri:
        return "anthropic"
    if "generateContent" in uri:
        return "gemini"
    return None


def raw_counts(wire: str, request: dict[str, Any], response: dict[str, Any]) -> tuple[int, int, int, int]:
    """Tool calls, results, images and reasoning blocks of a final request plus its response, counted
    straight from the JSON the cassette holds."""
    calls = results = images = reasoning = 0
    if wire == "openai_chat":
        messages = request["messages"] + [c["message"] for c in response["choices"][:1]]
        for m in messages:
            calls += len(m.get("tool_calls") or [])
            results += m["role"] == "tool"
            reasoning += bool(m.get("reasoning_content"))
            if isinstance(m.get("content"), list):
                images += sum(p.get("type") == "image_url" for p in m["content"])
    elif wire == "anthropic":
        blocks = [b for m in request["messages"] if isinstance(m["content"], list) for b in m["content"]]
        blocks += response["content"]
        for b in blocks:
            calls += b["type"] == "tool_use"
            results += b["type"] == "tool_result"
            reasoning += b["type"] in ("thinking", "redacted_thinking")
            images += b["type"] == "image"
            if b["type"] == "tool_result" and isinstance(b["content"], list):
                images += sum(c["type"] == "image" for c in b["content"])
    else:
        parts = [p for c in request["contents"] for p in c["parts"]]
        parts += response["candidates"][0]["content"]["parts"]
        for p in parts:
            calls += "functionCall" in p
            results += "functionResponse" in p
            images += "inlineData" in p and p["inlineData"]["mimeType"].startswith("image/")
            reasoning += p.get("thought") is True or "thoughtSignature" in p
    return calls, results, images, reasoning


def finals(path: Path) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """The last request and response of each wire in a cassette (its conversation's longest)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    out: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for interaction in doc["interactions"]:
        wire = wire_of(interaction["request"]["uri"])
        if wire is not None:
            out[wire] = (interaction["request"]["parsed_body"], interaction["response"]["parsed_body"])
    return out


def session_of(sessions: list[Session], wire: str) -> Session:
    (found,) = [s for s in sessions if (s.title or "").split(" ")[0] == wire]
    return found


@pytest.mark.parametrize("name", CASSETTES)
def test_cassette_loads_with_counts_from_its_final_request_and_response(corpora: Path, name: str) -> None:
    path = corpora / name
    corpus = load(path)
    assert corpus.problems == []
    assert corpus.formats == {path.name: "recording"}
    expected = finals(path)
    assert len(corpus.sessions) == len(expected)
    for wire, (request, response) in expected.items():
        session = session_of(corpus.sessions, wire)
        assert session.format == "recording"
        assert counts(session) == raw_counts(wire, request, response), wire
        # the run config carries the tools exactly as the request sent them, and their hash
        config = session.run_config()
        assert config is not None
        sent = request["tools"] if isinstance(request["tools"], list) else [request["tools"]]
        assert config.tools == tuple(sent) and config.surface_hash == fingerprint(sent)
        assert config.tool_names and all(config.tool_names)
        # one session per conversation: its path is the final request plus the final reply
        listed = request.get("messages") or request.get("contents")
        system = 1 if request.get("system") or request.get("systemInstruction") else 0
        assert isinstance(listed, list)
        assert len(session.path()) == system + len(listed) + 1
        assert session.tip == session.path()[-1].id and session.path()[-1].role == "assistant"


def test_every_file_of_the_wire_folders_loads_without_problems(corpora: Path) -> None:
    files = [*sorted((corpora / "openai_chat").iterdir()), *sorted((corpora / "anthropic").iterdir()),
             *sorted((corpora / "gemini").glob("*.yaml"))]
    assert len(files) == 7
    for path in files:
        corpus = load(path)
        assert corpus.problems == [], path
        assert corpus.sessions, path


def test_the_cross_provider_cassette_is_two_linked_sessions(corpora: Path) -> None:
    path = corpora / "openai_chat" / "pydanticai_cassette_multi_agent_gemini_then_openai.yaml"
    first, second = load(path).sessions
    assert (first.id, second.id) == (f"{path.name}#1", f"{path.name}#2")
    assert first.title == "gemini gemini-2.0-flash-exp"
    assert second.title == f"openai_chat gpt-4o-mini (continues {first.id} from gemini)"
    assert [m.role for m in first.path()] == ["user", "assistant", "tool", "assistant"]
    assert [m.role for m in second.path()] == ["user", "assistant", "tool", "assistant", "user", "assistant",
                                               "tool", "assistant"]
    assert first.run_configs[0].provider == "google" and second.run_configs[0].provider == "openai"
    # ids are per session and never shared between the two
    assert not {m.id for m in first.messages} & {m.id for m in second.messages}
    # the first OpenAI reply landed on the message the second request carried in its place
    england = second.path()[5]
    assert england.usage is not None and (england.usage.input, england.usage.output) == (104, 16)
    assert england.model == "gpt-4o-mini-2024-07-18"


def test_every_reply_keeps_its_usage_on_the_path(corpora: Path) -> None:
    path = corpora / "gemini" / "pydanticai_cassette_multi_function_calls.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    expected = []
    for interaction in doc["interactions"]:
        meta = interaction["response"]["parsed_body"]["usageMetadata"]
        expected.append((meta["promptTokenCount"], meta["candidatesTokenCount"] + meta.get("thoughtsTokenCount", 0)))
    (session,) = load(path).sessions
    replies = [m for m in session.path() if m.role == "assistant"]
    assert [(m.usage.input, m.usage.output) for m in replies if m.usage] == expected
    assert len(replies) == len(expected)
    # every signature of the conversation is kept, signed by google and the model the URL names
    signatures = [b for m in replies for b in m.blocks if isinstance(b, Reasoning)]
    assert len(signatures) == 5 and all(s.signature and s.provider == "google" for s in signatures)
    assert {s.model for s in signatures} == {"gemini-3-flash-preview"}
    assert session.run_config() is not None
    assert session.run_config().system == "Tell three jokes. Generate topics with the generate_topic tool."  # type: ignore[union-attr]


def test_message_lines_point_into_the_yaml(corpora: Path) -> None:
    path = corpora / "anthropic" / "pydanticai_cassette_parallel_tool_calls.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    (session,) = load(path).sessions
    system, *messages, reply = session.path()
    assert system.role == "system" and system.source is not None and system.source.line is not None
    assert lines[system.source.line - 1] == "- request:"  # the interaction that sent it
    for message in messages:
        assert message.source is not None and message.source.line is not None
        assert lines[message.source.line - 1].lstrip().startswith("- content:")
    reply = session.path()[-1]
    assert reply.source is not None and reply.source.line is not None
    assert lines[reply.source.line - 1].strip() == "response:"


def test_non_model_interactions_are_meta_events(corpora: Path) -> None:
    path = corpora / "gemini" / "pydanticai_cassette_function_response_images.yaml"
    (session,) = load(path).sessions
    (event,) = session.events
    assert (event.kind, event.type) == ("meta", "http")
    assert event.text == "GET https://www.gstatic.com/webp/gallery3/1.png -> 200"
    assert event.message_id in session
    assert isinstance(event.raw, dict)
    size = event.raw["response_bytes"]
    assert isinstance(size, int) and size > 100_000


def test_one_image_reads_to_the_same_bytes_on_every_wire(corpora: Path) -> None:
    """The fruit JPEG travels as a data URL (OpenAI), standard base64 (Anthropic) and URL-safe
    base64 (Gemini): all three must store the same bytes."""
    doc = yaml.safe_load((corpora / CASSETTES[0]).read_text(encoding="utf-8"))
    url = doc["interactions"][1]["request"]["parsed_body"]["messages"][3]["content"][1]["image_url"]["url"]
    digest = hashlib.sha256(base64.b64decode(url.split(",", 1)[1])).hexdigest()
    for name in (CASSETTES[0], CASSETTES[3], CASSETTES[5]):
        corpus = load(corpora / name)
        assert digest in corpus.images, name


# ------------------------------------------------------------------------------------------------
# Hand-made recordings: containers, streams, conversation building


def cassette(path: Path, interactions: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}), encoding="utf-8")
    return path


def exchange(uri: str, request: Any, response: Any, status: int = 200, **response_extra: Any) -> dict[str, Any]:
    body = response if isinstance(response, str | bytes) else json.dumps(response)
    return {"request": {"method": "POST", "uri": uri, "headers": {}, "body": json.dumps(request)},
            "response": {"status": {"code": status, "message": "OK"}, "headers": response_extra.pop("headers", {}),
                         "body": {"string": body}}}


def sse(events: list[dict[str, JsonValue]]) -> str:
    return "".join(f"event: {e.get('type', 'x')}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_anthropic_stream_in_a_gzip_body(tmp_path: Path) -> None:
    events: list[dict[str, JsonValue]] = [
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                              "model": "claude-sonnet-4-5", "content": [],
                                              "usage": {"input_tokens": 9, "cache_read_input_tokens": 100}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "so "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "then"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "SIG"}},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "sh",
                                                                     "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"c": '}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '"ls"}'}},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 77}},
    ]
    request = {"model": "claude-sonnet-4-5", "max_tokens": 9, "stream": True, "messages": [{"role": "user", "content": "ls"}]}
    path = cassette(tmp_path / "s.yaml", [exchange("https://api.anthropic.com/v1/messages", request,
                                                    gzip.compress(sse(events).encode()),
                                                    headers={"content-encoding": ["gzip"]})])
    corpus = load(path)
    assert corpus.problems == []
    reply = corpus.sessions[0].path()[-1]
    thinking, call = reply.blocks
    assert isinstance(thinking, Reasoning) and (thinking.text, thinking.signature) == ("so then", "SIG")
    assert isinstance(call, ToolUse) and call.input == {"c": "ls"}
    assert reply.usage is not None and (reply.usage.input, reply.usage.output, reply.usage.cache_read) == (9, 77, 100)


def test_openai_stream_and_an_error_response(tmp_path: Path) -> None:
    chunks = [{"id": "c", "model": "gpt-4o", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get", "arguments": ""}}]}}]},
              {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a"'}}]}}]},
              {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}]},
              {"id": "c", "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 5}}]
    stream = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    opening: list[JsonValue] = [{"role": "user", "content": "go"}]
    first: dict[str, JsonValue] = {"model": "gpt-4o", "stream": True, "messages": opening}
    second: dict[str, JsonValue] = {"model": "gpt-4o", "messages": [*opening, {"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "done"}]}
    path = cassette(tmp_path / "o.yaml", [
        exchange("https://api.openai.com/v1/chat/completions", first, stream),
        exchange("https://api.openai.com/v1/chat/completions", second, {"error": {"message": "overloaded"}}, 529),
    ])
    corpus = load(path)
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert [m.role for m in session.path()] == ["user", "assistant", "tool"]
    call = session.path()[1].blocks[0]
    assert isinstance(call, ToolUse) and call.input == {"a": 1}
    assert session.path()[1].usage is not None and session.path()[1].usage.output == 5  # type: ignore[union-attr]
    (event,) = session.events
    assert (event.kind, event.type, event.text) == ("error", "http_529", "HTTP 529: overloaded")


def test_json_cassette_with_responses_api_chained_by_previous_response_id(tmp_path: Path) -> None:
    tools = [{"type": "function", "name": "shell", "parameters": {}}]
    response1 = {"id": "resp_1", "object": "response", "model": "gpt-5", "usage": {
        "input_tokens": 50, "output_tokens": 20, "input_tokens_details": {"cached_tokens": 10}}, "output": [
        {"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text", "text": "look"}],
         "encrypted_content": "ENC"},
        {"type": "function_call", "id": "fc", "call_id": "call_1", "name": "shell", "arguments": '{"cmd": "pwd"}'}]}
    response2 = {"id": "resp_2", "object": "response", "model": "gpt-5", "usage": {"input_tokens": 80, "output_tokens": 4},
                 "output": [{"type": "message", "role": "assistant",
                             "content": [{"type": "output_text", "text": "In /home"}]}]}
    doc = {"interactions": [
        exchange("https://api.openai.com/v1/responses",
                 {"model": "gpt-5", "instructions": "terse", "input": "where?", "tools": tools}, response1),
        exchange("https://api.openai.com/v1/responses",
                 {"model": "gpt-5", "previous_response_id": "resp_1", "tools": tools,
                  "input": [{"type": "function_call_output", "call_id": "call_1", "output": "/home"}]}, response2),
    ]}
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    corpus = load(path)
    assert corpus.problems == [] and corpus.formats == {"responses.json": "recording"}
    (session,) = corpus.sessions
    path_messages = session.path()
    assert [m.role for m in path_messages] == ["system", "user", "assistant", "tool", "assistant"]
    reasoning, call = path_messages[2].blocks
    assert isinstance(reasoning, Reasoning) and (reasoning.text, reasoning.signature, reasoning.provider) == (
        "look", "ENC", "openai")
    assert isinstance(call, ToolUse) and call.id == "call_1"
    result = path_messages[3].blocks[0]
    assert isinstance(result, ToolResult) and result.tool_use_id == "call_1" and result.output == "/home"
    assert path_messages[2].usage is not None and path_messages[2].usage.input == 40
    assert path_messages[-1].text == "In /home"
    assert session.run_config() is not None and session.run_config().tool_names == ("shell",)  # type: ignore[union-attr]


def test_har_gemini_stream(tmp_path: Path) -> None:
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": "a ", "thought": True}]}}]},
              {"candidates": [{"content": {"role": "model", "parts": [{"text": "b", "thought": True}]}}]},
              {"candidates": [{"content": {"role": "model", "parts": [
                  {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "c2ln"}]}}],
               "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 5}, "modelVersion": "gemini-2.5-pro"}]
    har = {"log": {"version": "1.2", "entries": [{
        "startedDateTime": "2025-06-01T10:00:00.000Z",
        "request": {"method": "POST", "headers": [],
                    "url": "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
                    "postData": {"mimeType": "application/json",
                                 "text": json.dumps({"contents": [{"role": "user", "parts": [{"text": "go"}]}]})}},
        "response": {"status": 200, "headers": [], "content": {
            "mimeType": "text/event-stream", "text": "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks)}}}]}}
    path = tmp_path / "g.har"
    path.write_text(json.dumps(har), encoding="utf-8")
    corpus = load(path)
    assert corpus.problems == []
    reply = corpus.sessions[0].path()[-1]
    thought, signature, call = reply.blocks
    assert isinstance(thought, Reasoning) and thought.text == "a b"
    assert isinstance(signature, Reasoning) and signature.signature == "c2ln" and signature.redacted
    assert isinstance(call, ToolUse) and call.name == "f"
    assert reply.time is not None and reply.time.year == 2025 and reply.model == "gemini-2.5-pro"
    assert corpus.sessions[0].run_config().model == "gemini-2.5-pro"  # type: ignore[union-attr]


def test_ruby_vcr_base64_body(tmp_path: Path) -> None:
    response = {"id": "m", "type": "message", "role": "assistant", "model": "claude-3-haiku",
                "content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 3, "output_tokens": 1}}
    doc = {"http_interactions": [{
        "request": {"method": "post", "uri": "https://api.anthropic.com/v1/messages", "headers": {},
                    "body": {"encoding": "UTF-8", "string": json.dumps(
                        {"model": "claude-3-haiku", "max_tokens": 5, "messages": [{"role": "user", "content": "hey"}]})}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
                     "body": {"encoding": "ASCII-8BIT", "base64_string": base64.b64encode(json.dumps(response).encode()).decode()}},
        "recorded_at": "Tue, 01 Oct 2024 10:00:00 GMT"}], "recorded_with": "VCR 6.2.0"}
    path = tmp_path / "ruby.yml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    corpus = load(path)
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert [m.text for m in session.path()] == ["hey", "hello"]
    assert session.path()[-1].time is not None and session.path()[-1].time.month == 10  # type: ignore[union-attr]


def test_batch_jsonl_lines_are_separate_conversations(tmp_path: Path) -> None:
    rows = [{"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions",
             "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": f"q{i}"}]}} for i in range(3)]
    path = tmp_path / "batch.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    corpus = load(path)
    assert corpus.problems == [] and corpus.formats == {"batch.jsonl": "recording"}
    assert [s.path()[0].text for s in corpus.sessions] == ["q0", "q1", "q2"]
    firsts = [s.path()[0] for s in corpus.sessions]
    assert [m.source.line for m in firsts if m.source] == [1, 2, 3]


def test_a_reply_the_client_rewrote_is_kept_as_a_branch(tmp_path: Path) -> None:
    uri = "https://api.anthropic.com/v1/messages"
    opening: list[JsonValue] = [{"role": "user", "content": "hi"}]
    first: dict[str, JsonValue] = {"model": "claude-haiku-4-5", "max_tokens": 9, "messages": opening}
    said = {"id": "a", "type": "message", "role": "assistant", "model": "claude-haiku-4-5", "content": [
        {"type": "text", "text": "Hello! How can I help?"}], "usage": {"input_tokens": 1, "output_tokens": 6}}
    second: dict[str, JsonValue] = {**first, "messages": [*opening, {"role": "assistant", "content": "Hello!"},
                                    {"role": "user", "content": "bye"}]}
    last = {**said, "content": [{"type": "text", "text": "Bye."}]}
    corpus = load(cassette(tmp_path / "b.yaml", [exchange(uri, first, said), exchange(uri, second, last)]))
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert [m.text for m in session.path()] == ["hi", "Hello!", "bye", "Bye."]
    (branch,) = [m for m in session.leaves() if m.id != session.tip]
    assert branch.text == "Hello! How can I help?" and branch.parent_id == session.path()[0].id
    assert branch.usage is not None and branch.usage.output == 6


def test_unrelated_requests_are_separate_sessions_and_configs_follow_tool_changes(tmp_path: Path) -> None:
    uri = "https://api.openai.com/v1/chat/completions"
    tools_a = [{"type": "function", "function": {"name": "a"}}]
    tools_b = [*tools_a, {"type": "function", "function": {"name": "b"}}]
    reply = {"choices": [{"message": {"role": "assistant", "content": "ok"}}], "model": "gpt-4o"}
    one = {"model": "gpt-4o", "tools": tools_a, "messages": [{"role": "user", "content": "one"}]}
    two = {"model": "gpt-4o", "tools": tools_b, "messages": [*one["messages"], {"role": "assistant", "content": "ok"},
                                                            {"role": "user", "content": "again"}]}
    other = {"model": "gpt-4o", "tools": tools_a, "messages": [{"role": "user", "content": "unrelated"}]}
    corpus = load(cassette(tmp_path / "c.yaml", [exchange(uri, one, reply), exchange(uri, other, reply),
                                                  exchange(uri, two, reply)]))
    assert corpus.problems == []
    first, second = corpus.sessions
    assert [m.text for m in first.path()] == ["one", "ok", "again", "ok"]
    assert [m.text for m in second.path()] == ["unrelated", "ok"]
    configs = first.run_configs
    assert [c.tool_names for c in configs] == [("a",), ("a", "b")]
    assert configs[0].message_id is None and configs[1].message_id == first.path()[2].id
    assert first.run_config(first.path()[1].id) is configs[0]
    assert first.run_config(first.path()[3].id) is configs[1]


# ------------------------------------------------------------------------------------------------
# Bad input


def test_a_body_that_cannot_be_decoded_is_reported_with_its_line(tmp_path: Path) -> None:
    good = exchange("https://api.openai.com/v1/chat/completions",
                    {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]},
                    {"choices": [{"message": {"role": "assistant", "content": "hello"}}]})
    broken = exchange("https://api.openai.com/v1/chat/completions",
                      {"model": "gpt-4o", "messages": [{"role": "user", "content": "again"}]},
                      b"\x1f\x8b\x08\x00garbage-not-gzip", headers={"content-encoding": ["gzip"]})
    path = cassette(tmp_path / "broken.yaml", [good, broken])
    text = path.read_text(encoding="utf-8").splitlines()
    corpus = load(path)
    (problem,) = corpus.problems
    assert problem.file == "broken.yaml" and problem.line is not None
    assert "interaction 2: response body cannot be decoded" in problem.reason and "gzip" in problem.reason
    assert text[problem.line - 1].strip() == "response:"
    assert [m.text for s in corpus.sessions for m in s.path()] == ["hi", "hello", "again"]
    with pytest.raises(RecordError, match="cannot be decoded"):
        load(path, strict=True)


def test_a_request_body_that_is_not_json(tmp_path: Path) -> None:
    item = exchange("https://api.anthropic.com/v1/messages", {}, {"content": []})
    item["request"]["body"] = "model=claude&messages=hi"
    path = cassette(tmp_path / "form.yaml", [item])
    corpus = load(path)
    (problem,) = corpus.problems
    assert problem.line == 2 and problem.reason == "interaction 1: anthropic request body is not a JSON object"


def test_invalid_yaml_and_invalid_base64(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("interactions:\n- request:\n    uri: [unclosed\n", encoding="utf-8")
    (problem,) = load(path).problems
    assert problem.line == 4 and problem.reason.startswith("file is not valid YAML")
    doc = {"http_interactions": [{"request": {"method": "post", "uri": "https://api.anthropic.com/v1/messages",
                                              "body": {"string": "{}"}},
                                  "response": {"status": {"code": 200}, "body": {"base64_string": "@@@not base64@@@"}}}]}
    path = tmp_path / "b64.yml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    reasons = [p.reason for p in load(path).problems]
    assert any("response body cannot be decoded: base64 body does not decode" in r for r in reasons)


def test_a_quote_that_swallows_the_rest_is_reported_where_it_opens(tmp_path: Path) -> None:
    """A flipped byte that opens a quoted scalar (a line's indent become ``"``) fails the scan only at
    the end of the file; the damage is where the token opened (the error's context), not where the
    scanner gave up, which lies in another interaction (the 3,000-case accounting run's finding)."""
    path = tmp_path / "quote.yaml"
    one = "- request:\n    method: POST\n    uri: https://x\n  response:\n    status:\n      code: 200\n"
    path.write_text("interactions:\n" + one + one.replace("    uri", '"   uri') + one + "version: 1\n",
                    encoding="utf-8")
    (problem,) = load(path).problems
    assert problem.line == 10 and problem.reason.startswith("file is not valid YAML: while scanning a quoted scalar")


def test_interaction_without_request_and_unknown_previous_response(tmp_path: Path) -> None:
    request = {"model": "gpt-5", "previous_response_id": "resp_gone", "input": "more"}
    reply = {"id": "resp_9", "object": "response", "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "sure"}]}]}
    path = cassette(tmp_path / "r.yaml", [{"response": {"status": {"code": 200}}},
                                           exchange("https://api.openai.com/v1/responses", request, reply)])
    corpus = load(path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (2, "interaction 1 has no request"),
        (5, "interaction 2: previous_response_id resp_gone names no recorded response; the conversation "
            "before it is missing"),
    ]
    assert [m.text for m in corpus.sessions[0].path()] == ["more", "sure"]


def test_unknown_block_in_a_recorded_request_names_the_message_line(tmp_path: Path) -> None:
    request = {"model": "claude-haiku-4-5", "max_tokens": 5, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "assistant", "content": [{"type": "hologram"}]},
        {"role": "user", "content": "b"}]}
    item = {"request": {"method": "POST", "uri": "https://api.anthropic.com/v1/messages", "parsed_body": request},
            "response": {"status": {"code": 200}, "parsed_body": {
                "type": "message", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "c"}]}}}
    path = cassette(tmp_path / "u.yaml", [item])
    lines = path.read_text(encoding="utf-8").splitlines()
    corpus = load(path)
    (problem,) = corpus.problems
    assert problem.reason == "unknown content block type 'hologram'; kept as opaque"
    assert problem.line is not None and "hologram" in lines[problem.line - 1] + lines[problem.line]
    assert counts(corpus.sessions[0]) == (0, 0, 0, 0)
    assert [m.text for m in corpus.sessions[0].path()] == ["a", "", "b", "c"]


def test_images_in_a_user_message_after_a_tool_result(tmp_path: Path) -> None:
    image = png(4, 4)
    request = {"model": "gpt-5-mini", "messages": [
        {"role": "user", "content": "show"},
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "see next message"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {
            "url": "data:image/png;base64," + base64.b64encode(image).decode()}}]}]}
    corpus = load(cassette(tmp_path / "i.yaml", [exchange(
        "https://api.openai.com/v1/chat/completions", request,
        {"choices": [{"message": {"role": "assistant", "content": "red"}}]})]))
    assert corpus.problems == []
    stored = [b for m in corpus.sessions[0].path() for b in m.blocks if isinstance(b, Image)]
    assert [(i.width, i.height, i.media_type) for i in stored] == [(4, 4, "image/png")]
    assert [b.text for m in corpus.sessions[0].path() for b in m.blocks if isinstance(b, Text)] == ["show", "red"]


def test_a_bad_message_resent_by_every_request_is_reported_once(tmp_path: Path) -> None:
    uri = "https://api.openai.com/v1/chat/completions"
    reply = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
    history: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "hologram"}]}]
    interactions = []
    for n in range(4):
        interactions.append(exchange(uri, {"model": "gpt-4o", "messages": list(history)}, reply))
        history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": f"more {n}"}]
    corpus = load(cassette(tmp_path / "resent.yaml", interactions))
    (problem,) = corpus.problems
    assert problem.reason == "unknown content part type 'hologram'; kept as opaque"
    (session,) = corpus.sessions
    assert len(session.path()) == 8
    with pytest.raises(RecordError, match="hologram"):
        load(tmp_path / "resent.yaml", strict=True)


def test_anthropic_streamed_tool_input_that_is_not_json(tmp_path: Path) -> None:
    events: list[dict[str, JsonValue]] = [
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "c",
                                              "content": [], "usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_x",
                                                                     "name": "edit", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"path": '}},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 4096}},
    ]
    request = {"model": "c", "max_tokens": 5, "stream": True, "messages": [{"role": "user", "content": "edit"}]}
    path = cassette(tmp_path / "cut.yaml", [exchange("https://api.anthropic.com/v1/messages", request, sse(events))])
    lines = path.read_text(encoding="utf-8").splitlines()
    corpus = load(path)
    (problem,) = corpus.problems
    assert problem.reason == "arguments of tool call toolu_x (edit) are not valid JSON; kept as text"
    assert problem.line is not None and lines[problem.line - 1].strip() == "response:"
    call = corpus.sessions[0].path()[-1].blocks[0]
    assert isinstance(call, ToolUse) and call.input is None and call.raw_input == '{"path": '
    with pytest.raises(RecordError, match="not valid JSON"):
        load(path, strict=True)


def test_invalid_utf8_in_a_cassette(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"interactions:\n- request:\n    body: 'caf\xe9'\n    uri: https://api.openai.com/v1/chat/completions\n")
    corpus = load(path)
    problem = corpus.problems[0]  # then read with the bad byte replaced, what it holds reported in turn
    assert (problem.file, problem.line) == ("latin1.yaml", 3) and "not valid UTF-8" in problem.reason
    assert corpus.sessions == []


def test_a_control_character_in_yaml_is_reported_at_its_line(tmp_path: Path) -> None:
    """PyYAML's reader refuses a control character before parsing and names only its position: the
    problem still names the line, so the damage is found where it is."""
    path = tmp_path / "control.yaml"
    path.write_text("interactions:\n- request:\n    uri: a\x0bb\n", encoding="utf-8")
    (problem,) = load(path).problems
    assert problem.line == 3 and problem.reason.startswith("file is not valid YAML")
