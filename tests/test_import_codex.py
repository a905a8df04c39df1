"""Codex CLI rollouts: every real rollout in the shared corpora, counted independently from its raw
JSON, and every kind of bad input."""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPORA, corpus_files
from toolkit.corpus import load
from toolkit.corpus.formats import codex
from toolkit.corpus.formats.codex import IMPORTER, read, sniff
from toolkit.corpus.formats.importer import Head, ImportContext, accounting
from toolkit.record import Image, Opaque, Reasoning, RecordError, Session, Text, ToolResult, ToolUse

ROLLOUTS = [p for p in corpus_files() if p.parent.name == "codex"]
CALLS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "image_generation_call",
         "tool_search_call"}
OUTPUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output"}


def raw_items(path: Path) -> list[dict[str, Any]]:
    """Response items only (event_msg copies left out), with those a compaction replays."""
    items: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec.get("type") == "response_item":
            items.append(rec["payload"])
        elif rec.get("type") == "compacted":
            items.extend(rec["payload"].get("replacement_history") or [])
    return items


def raw_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


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


def env(kind: str, payload: dict[str, Any], ts: str = "2025-11-01T10:00:00.000Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


META = env("session_meta", {"id": "sess-1", "timestamp": "2025-11-01T10:00:00Z", "cwd": "/w",
                            "originator": "codex_cli_rs", "cli_version": "0.60.0", "instructions": None})


def user(text: str) -> dict[str, Any]:
    return env("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})


def call(call_id: str, arguments: str = '{"command": ["ls"]}', name: str = "shell") -> dict[str, Any]:
    return env("response_item", {"type": "function_call", "name": name, "arguments": arguments, "call_id": call_id})


def output(call_id: str, value: Any = "ok") -> dict[str, Any]:
    return env("response_item", {"type": "function_call_output", "call_id": call_id, "output": value})


def tokens(total: int, fresh: int, cached: int, out: int) -> dict[str, Any]:
    last = {"input_tokens": fresh + cached, "cached_input_tokens": cached, "output_tokens": out,
            "reasoning_output_tokens": 0, "total_tokens": fresh + cached + out}
    return env("event_msg", {"type": "token_count", "info": {
        "total_token_usage": dict(last, total_tokens=total), "last_token_usage": last}})


# -- the real rollouts ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_rollout_counts_match_the_raw_json(path: Path) -> None:
    session, ctx = one(path)
    items = raw_items(path)
    kinds = Counter(i.get("type") for i in items)
    assert len(blocks(session, ToolUse)) == sum(kinds[k] for k in CALLS)
    results = sum(kinds[k] for k in OUTPUTS) + kinds["web_search_call"] + kinds["image_generation_call"]
    assert len(blocks(session, ToolResult)) == results
    assert len(blocks(session, Reasoning)) == kinds["reasoning"]
    images = sum(1 for i in items if i.get("type") == "message" for c in i["content"] if c.get("type") == "input_image")
    assert len(blocks(session, Image)) == images
    failed = sum(1 for i in items if i.get("type") in OUTPUTS and isinstance(i["output"], str)
                 and i["output"].startswith('{"output":') and json.loads(i["output"])["metadata"]["exit_code"] != 0)
    assert sum(r.is_error for r in blocks(session, ToolResult)) == failed
    meta = next(r["payload"] for r in raw_records(path) if r["type"] == "session_meta")
    assert session.id == meta["id"] and session.format == "codex"
    # Only sanitized arguments ("[REDACTED_ARGUMENTS ...]") may be reported, one problem each.
    bad_args = [i for i in items if i.get("type") == "function_call" and not _is_json(i["arguments"])]
    assert [p.line for p in ctx.problems] == [p.line for p in ctx.problems if "not valid JSON" in p.reason]
    assert len(ctx.problems) == len(bad_args)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_token_counts_are_kept_and_attached(path: Path) -> None:
    session, _ = one(path)
    records = raw_records(path)
    counts = [r for r in records if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"]
    events = [e for e in session.events if e.kind == "token_count"]
    assert len(events) == len(counts)
    with_info = [e for e in events if isinstance(e.raw, dict) and e.raw.get("info")]
    assert all(e.message_id in session for e in with_info[:-1] if e.message_id is not None)
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert all(m.usage is not None for m in assistants)
    # Independently: the session's final output total, less the requests that wrote no item (a
    # compaction's summary request), is what the assistant messages carry.
    final = [r["payload"]["info"] for r in counts if r["payload"]["info"]]
    expected = final[-1]["total_token_usage"]["output_tokens"] if final else 0
    previous = None
    for index, rec in enumerate(records):
        info = rec["payload"].get("info") if rec["type"] == "event_msg" else None
        if rec["type"] != "event_msg" or rec["payload"]["type"] != "token_count" or not info:
            continue
        if info["total_token_usage"] == previous:
            continue
        previous = info["total_token_usage"]
        following = next((r for r in records[index + 1:] if r["type"] in ("response_item", "compacted")), None)
        if following is not None and following["type"] == "compacted":
            expected -= info["last_token_usage"]["output_tokens"]
    assert sum(m.usage.output or 0 for m in assistants if m.usage) == expected
    for m in assistants:
        assert m.model is not None and m.provider == "openai"


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_event_copies_are_not_messages(path: Path) -> None:
    session, _ = one(path)
    records = raw_records(path)
    prompts = [r for r in records if r["type"] == "event_msg" and r["payload"]["type"] == "user_message"]
    turns = [m for m in session.messages if m.role == "user" and "meta" not in m.tags and "compact_summary" not in m.tags]
    copies = [e for e in session.events if e.type == "user_message"]
    if "[REDACTED_TEXT" in path.read_text(encoding="utf-8"):
        assert len(turns) >= len(prompts)  # sanitized: injected context no longer recognisable
    else:
        assert len(turns) == len(prompts)
    said = {m.text for m in turns}
    assert all(e.text not in said for e in copies)
    answers = sum(1 for i in raw_items(path) if i.get("type") == "message" and i["role"] == "assistant")
    assert sum(1 for b in blocks(session, Text) if b.text) >= answers


def test_tiny_rollout_without_turns(corpora: Path) -> None:
    session, ctx = one(corpora / "codex" / "cookingtimes_cli0.47.0_no_turns.jsonl")
    assert ctx.problems == []
    assert len(session.messages) == 1 and session.tip == session.messages[0].id
    assert session.messages[0].role == "user" and session.messages[0].tags == ("meta",)
    assert session.messages[0].text.startswith("<environment_context>")
    assert session.run_configs == ()


def test_compaction_branches_to_what_the_model_saw(corpora: Path) -> None:
    path = corpora / "codex" / "rps3_cli0.47.0_compacted.jsonl"
    session, _ = one(path)
    summary = next(r["payload"]["message"] for r in raw_records(path) if r["type"] == "compacted")
    [event] = [e for e in session.events if e.kind == "compaction"]
    assert event.text == summary and event.source is not None and event.source.line == 1602
    root = session.get(event.message_id or "")
    assert root is not None and root.parent_id is None and root.text == summary
    assert root.tags == ("compact_summary",) and root.role == "user"
    path_ids = [m.id for m in session.path()]
    assert path_ids[0] == root.id
    assert len(session.leaves()) == 2
    before = [m for m in session.messages if m.source and m.source.line and m.source.line < 1602]
    assert before[-1].role == "assistant" and before[-1].id not in path_ids
    assert all(m.source.line > 1602 for m in session.path()[1:] if m.source and m.source.line)


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_usage_summed_over_the_frames_is_the_rollouts_own_total(path: Path) -> None:
    records = raw_records(path)
    infos = [r["payload"]["info"] for r in records
             if r["type"] == "event_msg" and r["payload"]["type"] == "token_count" and r["payload"].get("info")]
    total = infos[-1]["total_token_usage"] if infos else {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}
    messages = load(path).frames()["messages"]
    sent = sum(messages[c].fill_null(0).sum() for c in ("input_tokens", "cache_read_tokens", "cache_write_tokens"))
    assert sent == total["input_tokens"]
    assert messages["cache_read_tokens"].fill_null(0).sum() == total["cached_input_tokens"]
    assert messages["output_tokens"].fill_null(0).sum() == total["output_tokens"]


def test_the_compaction_request_usage_is_on_its_summary(corpora: Path) -> None:
    # Cross-check figure: the request that wrote rps3's summary (line 1601) sent 179,549 input tokens
    # and wrote 702; they were an event attached to no message.
    session, _ = one(corpora / "codex" / "rps3_cli0.47.0_compacted.jsonl")
    [summary] = [m for m in session.messages if "compact_summary" in m.tags]
    assert summary.usage is not None
    assert (summary.usage.input, summary.usage.cache_read, summary.usage.output) == (179_549, 0, 702)
    attached = [e.source.line for e in session.events
                if e.kind == "token_count" and e.message_id == summary.id and e.source is not None]
    assert attached == [1601, 1607]  # the request's count and the copy Codex re-sent after it
    [event] = [e for e in session.events if e.kind == "compaction"]
    assert (event.tokens_before, event.trigger) == (179_549, None)


@pytest.mark.parametrize("replacement", [False, True])
def test_a_compaction_summary_carries_the_request_that_wrote_it(tmp_path: Path, replacement: bool) -> None:
    compacted: dict[str, Any] = {"message": "SUMMARY"}
    if replacement:
        compacted["replacement_history"] = [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first task"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "SUMMARY"}]},
        ]
    def answer(text: str) -> dict[str, Any]:
        return env("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]})

    # 0.47 order (a request's count before its items); the count just before ``compacted`` is the
    # summary request, which writes no response item.
    path = write(tmp_path / "c.jsonl", [
        META, user("first task"), tokens(110, 100, 0, 10), answer("ok 1"),
        tokens(440, 300, 0, 30), env("compacted", compacted), user("next"), tokens(500, 10, 40, 10), answer("ok 2"),
    ])
    session, ctx = one(path)
    assert ctx.problems == []
    usage = {m.text: (m.usage.input, m.usage.cache_read, m.usage.output) for m in session.messages if m.usage}
    assert usage == {"ok 1": (100, 0, 10), "SUMMARY": (300, 0, 30), "ok 2": (10, 40, 10)}
    summary = next(m for m in session.messages if m.text == "SUMMARY")
    assert summary.tags == ("compact_summary",) and summary.role == "user"
    spent = sum((m.usage.context or 0) + (m.usage.output or 0) for m in session.messages if m.usage)
    assert spent == 500  # the rollout's final cumulative total_tokens
    [event] = [e for e in session.events if e.kind == "compaction"]
    assert event.tokens_before == 300  # the summary request's input, as its token_count said


def test_a_compaction_without_a_waiting_token_count_has_no_tokens_before(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", [META, user("go"), env("compacted", {"message": "SUMMARY"})])
    session, _ = one(path)
    [event] = [e for e in session.events if e.kind == "compaction"]
    assert event.tokens_before is None and event.trigger is None


def test_user_image_is_stored_once_by_hash(corpora: Path) -> None:
    path = corpora / "codex" / "lotto645_cli0.55.0_image.jsonl"
    corpus = load(path)
    [image] = [b for s in corpus.sessions for m in s.messages for b in m.blocks if isinstance(b, Image)]
    url = next(c["image_url"] for i in raw_items(path) if i.get("type") == "message"
               for c in i["content"] if c.get("type") == "input_image")
    data = base64.b64decode(url.split(",", 1)[1])
    assert image.sha256 == hashlib.sha256(data).hexdigest() and image.size == len(data)
    assert image.media_type == "image/png" and corpus.images[image.sha256] == data


def test_apply_patch_is_freeform(corpora: Path) -> None:
    path = corpora / "codex" / "rps3_cli0.47.0_compacted.jsonl"
    session, _ = one(path)
    first = next(i for i in raw_items(path) if i.get("type") == "custom_tool_call")
    use = next(b for b in blocks(session, ToolUse) if b.id == first["call_id"])
    assert use.freeform and use.name == "apply_patch" and use.input == first["input"]
    assert use.input_valid


def test_reasoning_keeps_summary_and_encrypted_signature(corpora: Path) -> None:
    path = corpora / "codex" / "acidicsoil_cli0.58.0.jsonl"
    session, _ = one(path)
    first = next(i for i in raw_items(path) if i.get("type") == "reasoning")
    reasoning = blocks(session, Reasoning)[0]
    assert reasoning.text == first["summary"][0]["text"]
    assert reasoning.signature == first["encrypted_content"] and reasoning.provider == "openai"
    assert reasoning.model == "gpt-5.1-codex" and not reasoning.redacted


def test_sniff_claims_rollouts_only(corpora: Path) -> None:
    for path in corpus_files():
        head = path.read_bytes()[:65536].decode("utf-8", errors="replace")
        assert sniff(Head.of_text(path, head)) == (path.parent.name == "codex"), path.name


# -- layouts and features no shared file shows -------------------------------------------------------


def test_response_grouping_usage_before_and_after_items(tmp_path: Path) -> None:
    reasoning = env("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}],
                                      "encrypted_content": "gAAA"})
    # 0.4x order: the request's token count precedes its items.
    old = write(tmp_path / "old.jsonl", [
        META, user("list files"), tokens(110, 90, 10, 10), reasoning, call("c1"), output("c1"),
        tokens(110, 90, 10, 10), tokens(250, 20, 100, 20),
        env("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
    ])
    # newer order: items first, then the token count, then the output.
    new = write(tmp_path / "new.jsonl", [
        META, user("list files"), reasoning, call("c1"), tokens(110, 90, 10, 10), output("c1"), tokens(110, 90, 10, 10),
        env("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        tokens(250, 20, 100, 20),
    ])
    for path in (old, new):
        session, ctx = one(path)
        assert ctx.problems == []
        roles = [m.role for m in session.messages]
        assert roles == ["user", "assistant", "tool", "assistant"], path.name
        first, last = session.messages[1], session.messages[3]
        assert [b.kind for b in first.blocks] == ["reasoning", "tool_use"]
        assert first.usage is not None and (first.usage.input, first.usage.cache_read, first.usage.output) == (90, 10, 10)
        assert last.usage is not None and (last.usage.input, last.usage.cache_read, last.usage.output) == (20, 100, 20)
        assert [m.parent_id for m in session.messages[1:]] == [m.id for m in session.messages[:-1]]
        attached = [e.message_id for e in session.events if e.kind == "token_count"]
        assert attached == [first.id, first.id, last.id]


def test_turn_aborted_marks_only_its_own_reply(tmp_path: Path) -> None:
    answer = env("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a"}]})
    aborted = env("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
    path = write(tmp_path / "r.jsonl", [META, user("one"), answer, user("two"), aborted, user("three"), answer, aborted])
    session, _ = one(path)
    assert [m.tags for m in session.messages if m.role == "assistant"] == [(), ("interrupted",)]
    assert [e.text for e in session.events if e.type == "turn_aborted"] == ["interrupted", "interrupted"]


def test_flat_token_count_of_early_versions(tmp_path: Path) -> None:
    flat = env("event_msg", {"type": "token_count", "input_tokens": 50, "cached_input_tokens": 20,
                             "output_tokens": 7, "total_tokens": 57})
    answer = env("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a"}]})
    session, ctx = one(write(tmp_path / "r.jsonl", [META, user("one"), flat, answer]))
    assert ctx.problems == []
    usage = session.messages[-1].usage
    assert usage is not None and (usage.input, usage.cache_read, usage.output) == (30, 20, 7)


def test_outputs_in_every_shape(tmp_path: Path) -> None:
    png = base64.b64encode(_png()).decode()
    path = write(tmp_path / "r.jsonl", [
        META, user("go"), call("a"), call("b"), call("c"), call("d", name="exec_command"),
        output("a", [{"type": "input_text", "text": "caption"},
                     {"type": "input_image", "image_url": f"data:image/png;base64,{png}"}]),
        output("b", {"content": "boom", "success": False}),
        output("c", '{"output":"nope\\n","metadata":{"exit_code":2,"duration_seconds":0.1}}'),
        output("d", "Chunk ID: 1\nProcess exited with code 1\nOutput:\nfail"),
    ])
    session, ctx = one(path)
    assert ctx.problems == []
    results = {r.tool_use_id: r for r in blocks(session, ToolResult)}
    assert results["a"].output == "caption" and len(results["a"].images) == 1
    assert results["a"].images[0].width == 1 and not results["a"].is_error
    assert results["b"].output == "boom" and results["b"].is_error
    assert results["c"].is_error and results["d"].is_error
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]
    assert len(session.messages[2].blocks) == 4


def _png() -> bytes:
    import io

    from PIL import Image as PILImage

    buffer = io.BytesIO()
    PILImage.new("RGB", (1, 1), "red").save(buffer, format="PNG")
    return buffer.getvalue()


def test_replacement_history_and_rollback_branch(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [
        META, user("first task"), env("response_item", {"type": "message", "role": "assistant",
                                                       "content": [{"type": "output_text", "text": "ok 1"}]}),
        user("second task"), env("response_item", {"type": "message", "role": "assistant",
                                                   "content": [{"type": "output_text", "text": "ok 2"}]}),
        env("event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
        user("second task, rephrased"),
        env("compacted", {"message": "SUMMARY", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first task"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "SUMMARY"}]},
        ]}),
        user("third task"),
    ])
    session, ctx = one(path)
    assert ctx.problems == []
    texts = [m.text for m in session.path()]
    assert texts == ["first task", "SUMMARY", "third task"]
    rephrased = next(m for m in session.messages if m.text == "second task, rephrased")
    assert session.get(rephrased.parent_id or "") is not None
    assert session.get(rephrased.parent_id or "").text == "ok 1"  # type: ignore[union-attr]
    summary = next(m for m in session.messages if m.text == "SUMMARY")
    assert summary.tags == ("compact_summary",)
    assert {m.text for m in session.leaves()} == {"ok 2", "second task, rephrased", "third task"}


def test_legacy_bare_item_layout(tmp_path: Path) -> None:
    path = write(tmp_path / "legacy.jsonl", [
        {"id": "old-1", "timestamp": "2025-07-01T09:00:00Z", "instructions": "be brief", "git": {}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": {"content": "x", "success": True}},
        {"record_type": "state"},
    ])
    head = path.read_text(encoding="utf-8")
    assert sniff(Head.of_text(path, head))
    session, ctx = one(path)
    assert ctx.problems == [] and session.id == "old-1"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]
    assert session.run_configs[0].system == "be brief"
    assert [e.type for e in session.events] == ["session_meta", "record_type:state", "record_type:state"]


def test_typescript_json_layout(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-05-01-abc.json"
    path.write_text(json.dumps({
        "session": {"timestamp": "2025-05-01T10:00:00Z", "id": "ts-1", "instructions": ""},
        "items": [
            {"id": "msg_1", "type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix"}]},
            {"id": "fc_1", "type": "function_call", "name": "shell", "call_id": "call_1", "arguments": "{\"command\":[\"ls\"]}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "{\"output\":\"a\\n\",\"metadata\":{\"exit_code\":0}}"},
        ],
    }, indent=2), encoding="utf-8")
    assert sniff(Head.of_text(path, path.read_text(encoding="utf-8")))
    session, ctx = one(path)
    assert ctx.problems == [] and session.id == "ts-1"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]
    assert blocks(session, ToolUse)[0].input == {"command": ["ls"]}


def test_newer_items(tmp_path: Path) -> None:
    png = base64.b64encode(_png()).decode()
    path = write(tmp_path / "r.jsonl", [
        META, user("search"),
        env("response_item", {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "q"}}),
        env("response_item", {"type": "image_generation_call", "id": "ig_1", "status": "completed",
                              "revised_prompt": "a cat", "result": png}),
        env("response_item", {"type": "function_call", "namespace": "mcp__srv", "name": "lookup", "arguments": "{}",
                              "call_id": "m1"}),
        env("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
        env("response_item", {"type": "compaction", "encrypted_content": "ENC"}),
        env("turn_context", {"model": "gpt-5.5", "cwd": "/w", "approval_policy": "never"}),
        env("turn_context", {"model": "gpt-5.5", "cwd": "/w", "approval_policy": "never"}),
        env("event_msg", {"type": "error", "message": "stream disconnected"}),
    ])
    session, ctx = one(path)
    assert ctx.problems == []
    uses = {b.name: b for b in blocks(session, ToolUse)}
    assert set(uses) == {"web_search", "image_generation", "mcp__srv__lookup"}
    assert uses["web_search"].input == {"type": "search", "query": "q"}
    generated = next(r for r in blocks(session, ToolResult) if r.tool_use_id == "ig_1")
    assert generated.output == "a cat" and len(generated.images) == 1
    [opaque] = blocks(session, Opaque)
    assert opaque.type == "compaction" and opaque.raw == {"type": "compaction", "encrypted_content": "ENC"}
    assert [(e.kind, e.type) for e in session.events if e.kind != "meta" or e.type == "ghost_snapshot"] == [
        ("meta", "ghost_snapshot"), ("error", "error")]
    assert [c.model for c in session.run_configs] == ["gpt-5.5"]


# -- bad input -----------------------------------------------------------------------------------------


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    ctx = ImportContext()
    assert read(path, ctx) == []
    assert [p.reason for p in ctx.problems] == ["no Codex rollout record in the file"]
    assert load(path).problems[0].file == "empty.jsonl"


def test_truncated_last_line(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [META, user("hello")])
    path.write_bytes(path.read_bytes() + b'{"timestamp":"2025-11-01T10:00:01Z","type":"response_item","payload":{"ty')
    session, ctx = one(path)
    assert len(session.messages) == 1
    [problem] = ctx.problems
    assert problem.line == 3 and "truncated" in problem.reason and problem.file.endswith("r.jsonl")


def test_non_json_and_invalid_utf8_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [META, user("hello")])
    path.write_bytes(path.read_bytes() + b"this is not json\n" + b'{"x": "\xff\xfe"}\n'
                     + (json.dumps(user("again")) + "\n").encode())
    session, ctx = one(path)
    assert [m.text for m in session.messages] == ["hello", "again"]
    assert [p.line for p in ctx.problems] == [3, 4, 4]
    assert ctx.problems[0].reason.startswith("line is not valid JSON")
    assert ctx.problems[1].reason.startswith("line is not valid UTF-8")
    # the line is kept (bad bytes as U+FFFD) and then reported as a record of no known type
    assert ctx.problems[2].reason == "record has neither a type nor a payload (not a Codex rollout line)"


def test_unknown_record_and_item_types_are_kept(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [
        META, user("hi"), env("world_state", {"agents_md": "x"}),
        env("response_item", {"type": "frobnicate", "value": 1}),
    ])
    session, ctx = one(path)
    # a record type of its own is an event; an item that is not one the conversation knows is reported
    assert [(p.line, p.reason) for p in ctx.problems] == [(4, "response item type 'frobnicate' is unknown; "
                                                              "kept as opaque")]
    [event] = [e for e in session.events if e.type == "world_state"]
    assert event.kind == "other" and event.raw == env("world_state", {"agents_md": "x"})
    [opaque] = blocks(session, Opaque)
    assert opaque.type == "frobnicate" and opaque.raw == {"type": "frobnicate", "value": 1}
    assert session.messages[-1].role == "assistant"


def test_orphan_output_is_a_problem_and_kept(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [META, user("hi"), output("ghost", "late answer")])
    session, ctx = one(path)
    [problem] = ctx.problems
    assert problem.line == 3 and "ghost" in problem.reason and "no earlier call" in problem.reason
    [result] = blocks(session, ToolResult)
    assert result.tool_use_id == "ghost" and result.output == "late answer"


def test_arguments_that_are_not_json(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [META, user("hi"), call("c1", '{"command": ["ls"'), output("c1")])
    session, ctx = one(path)
    [problem] = ctx.problems
    assert problem.line == 3 and "c1" in problem.reason and "not valid JSON" in problem.reason
    [use] = blocks(session, ToolUse)
    assert use.input is None and use.raw_input == '{"command": ["ls"' and not use.input_valid


def test_strict_raises(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [META, user("hi"), output("ghost")])
    with pytest.raises(RecordError, match="ghost"):
        read(path, ImportContext(strict=True))
    with pytest.raises(RecordError, match=r"r\.jsonl:3"):
        load(path, strict=True)


def test_registered_for_detection(tmp_path: Path) -> None:
    write(tmp_path / "rollout.jsonl", [META, user("hi")])
    corpus = load(tmp_path)
    assert corpus.formats == {"rollout.jsonl": "codex"} and IMPORTER.name == "codex"
    assert not CORPORA.is_dir() or load(CORPORA / "codex").formats.keys() == {p.name for p in ROLLOUTS}


def test_each_response_item_matches_the_earliest_copy_of_its_text_whatever_comes_first(tmp_path: Path) -> None:
    """UI copies are matched as they come (a rollout's copies are not all held to its end): each
    response item takes the earliest copy of its kind and text no item took, before or after it,
    so the copies kept are the last ones of each text, as when every item was counted first."""
    def copy(kind: str, text: str) -> dict[str, Any]:
        return env("event_msg", {"type": kind, "message": text})

    def said(text: str) -> dict[str, Any]:
        return env("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]})

    path = write(tmp_path / "c.jsonl", [
        META,
        copy("user_message", "go"), copy("user_message", "go"), user("go"),  # lines 2-4: line 3 kept
        said("a"), copy("agent_message", "a"), copy("agent_message", "a"),  # lines 5-7: line 7 kept
        copy("agent_message", "b"), said("b"), said("b"), copy("agent_message", "b"),  # 8-11: none kept
        copy("agent_message", "c"), copy("user_message", "a"),  # 12-13: kept, no item has their kind and text
    ])
    session, ctx = one(path)
    assert not ctx.problems
    kept = [(e.type, e.text, e.source.line if e.source else None) for e in session.events if e.kind == "other"]
    assert kept == [("user_message", "go", 3), ("agent_message", "a", 7), ("agent_message", "c", 12),
                    ("user_message", "a", 13)]
    rollout = codex._Rollout(path, ImportContext())
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        rollout.record(number, json.loads(line))
    assert len(rollout.copies) == len(kept)  # of 11 copies, only those no item matched are held


def test_every_line_is_a_record_or_says_which_one_it_joined(tmp_path: Path) -> None:
    """A line read into another record says so (``ImportContext.account``): parts of one reply, tool
    outputs read as one message, UI copies of a response item either side of it, and a turn context
    that changes nothing; with the lines records and problems name, that is every line."""
    def copy(kind: str, text: str) -> dict[str, Any]:
        return env("event_msg", {"type": kind, "message": text})

    context = env("turn_context", {"model": "gpt-5", "cwd": "/w"})
    reasoning = env("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hm"}]})
    path = write(tmp_path / "r.jsonl", [
        META, context, copy("user_message", "go"), user("go"), context,  # 1-5: 3 copies 4, 5 folded into 2
        reasoning, call("c1"), call("c2"),  # 6-8: one reply, begun at 6
        output("c1"), output("c2"), env("response_item", {"type": "frobnicate"}),  # 9-11: one tool message
        copy("agent_reasoning", "hm"),  # 12: a copy of line 6
    ])
    with accounting() as ledger:
        session, ctx = one(path)
    assert [p.line for p in ctx.problems] == [11]  # the unknown item, reported and read into the message
    named = {s.line for s in (*(m.source for m in session.messages), *(e.source for e in session.events),
                              *(c.source for c in session.run_configs)) if s is not None}
    assert named == {1, 2, 4, 6, 9}
    assert {a.line: (a.how, a.into) for a in ledger} == {
        3: ("repeat", "line 4"), 5: ("folded", "run config of line 2"),
        7: ("merged", "message sess-1:6"), 8: ("merged", "message sess-1:6"),
        10: ("merged", "message sess-1:9"), 11: ("merged", "message sess-1:9"),
        12: ("repeat", "an earlier agent_reasoning response item"),
    }


@pytest.mark.parametrize("kind", ["response_item", "event_msg", "turn_context", "session_meta"])
def test_a_rollout_line_with_its_payload_key_misspelt_is_a_problem_and_kept(tmp_path: Path, kind: str) -> None:
    """An envelope line whose ``payload`` key is misspelt (``payloid``: a bit flipped in a session meta)
    is not a bare response item of type ``response_item`` (which gave nothing and said nothing): a
    problem at its line, the line an event."""
    record = {"timestamp": "2025-11-01T10:00:01.000Z", "type": kind,
              "paylaod": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}}
    path = write(tmp_path / "r.jsonl", [META, user("hi"), record])
    session, ctx = one(path)
    [problem] = ctx.problems
    assert problem.line == 3 and kind in problem.reason and "'paylaod'" in problem.reason
    [event] = [e for e in session.events if e.source is not None and e.source.line == 3]
    assert event.kind == "other" and event.type == kind and event.raw == record
    assert len(session.messages) == 1 and not blocks(session, Opaque)


def test_an_unknown_item_read_into_an_open_reply_is_reported_at_its_line(tmp_path: Path) -> None:
    """An item type the importer does not know (``reas/ning``: a bit flipped in ``reasoning``) is kept
    as opaque in the reply it comes in, a message that begins on another line: the problem names the
    line the item was on, which nothing else does."""
    item: dict[str, Any] = {"type": "reas/ning", "summary": [{"type": "summary_text", "text": "hm"}]}
    path = write(tmp_path / "r.jsonl", [META, user("go"), call("c1"), env("response_item", item)])
    session, ctx = one(path)
    [problem] = ctx.problems
    assert problem.line == 4 and "'reas/ning'" in problem.reason and "opaque" in problem.reason
    reply = session.messages[-1]
    assert reply.source is not None and reply.source.line == 3
    assert [b.kind for b in reply.blocks] == ["tool_use", "opaque"] and reply.blocks[1] == Opaque(
        "reas/ning", item, "response item type the importer does not know")
