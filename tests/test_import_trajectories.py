"""Agent trajectories: SWE-agent ``.traj``, OpenHands event lists, inspect_ai logs.

Counts are computed here from the raw JSON, independently of the importers, and compared with
what the record holds; bad input must give a problem naming file, line (or zip member) and reason
while the rest loads, and raise with ``strict=True``."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage

from toolkit.corpus import Corpus, load
from toolkit.record import Image, JsonValue, Reasoning, RecordError, Session, Text, ToolResult, ToolUse
from toolkit.surface.fingerprint import fingerprint


def kinds(session: Session) -> Counter[str]:
    return Counter(block.kind for _, block in session.blocks())


def result_images(session: Session) -> int:
    return sum(len(b.images) for _, b in session.blocks() if isinstance(b, ToolResult))


def png_data_url() -> str:
    buffer = io.BytesIO()
    PILImage.new("RGB", (3, 2), (200, 10, 10)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


# --- the shared corpus ---------------------------------------------------------------------------


def test_every_trajectory_file_loads_without_problems(corpora: Path) -> None:
    corpus = load(corpora / "trajectories")
    assert corpus.problems == []
    assert corpus.formats == {
        "inspect_browser_gpt4omini.json": "inspect",
        "inspect_popularity.eval": "inspect",
        "openhands_basic_gui_mode.json": "openhands",
        "sweagent_gpt4_pydicom-1458.traj": "sweagent",
    }


def inspect_counts(samples: list[dict[str, Any]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for sample in samples:
        for message in sample["messages"]:
            counts["messages"] += 1
            counts["tool_use"] += len(message.get("tool_calls") or [])
            counts["tool_result"] += message["role"] == "tool"
            parts = message["content"] if isinstance(message["content"], list) else []
            counts["image"] += sum(1 for p in parts if p.get("type") == "image")
            counts["reasoning"] += sum(1 for p in parts if p.get("type") == "reasoning")
    return counts


def record_counts(sessions: list[Session]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for session in sessions:
        counts["messages"] += len(session.messages)
        found = kinds(session)
        for kind in ("tool_use", "tool_result", "reasoning"):
            counts[kind] += found[kind]
        counts["image"] += found["image"] + result_images(session)
    return counts


def test_inspect_json_log_matches_its_messages(corpora: Path) -> None:
    path = corpora / "trajectories" / "inspect_browser_gpt4omini.json"
    raw = json.loads(path.read_text())
    corpus = load(path)
    assert corpus.problems == []
    assert len(corpus.sessions) == len(raw["samples"]) == 1
    expected = inspect_counts(raw["samples"])
    assert record_counts(corpus.sessions) == {k: v for k, v in expected.items() if v} | {
        k: 0 for k in ("image", "reasoning") if not expected[k]
    }
    assert expected["tool_use"] == 4
    session = corpus.sessions[0]
    sample = raw["samples"][0]
    assert session.id == sample["uuid"]
    assert [m.id for m in session.path()] == [m["id"] for m in sample["messages"]]
    uses = {b.id: b for _, b in session.blocks() if isinstance(b, ToolUse)}
    for message in sample["messages"]:
        for call in message.get("tool_calls") or []:
            assert uses[call["id"]].name == call["function"]
            assert uses[call["id"]].input == call["arguments"]


def test_inspect_usage_and_tool_surface_come_from_model_events(corpora: Path) -> None:
    path = corpora / "trajectories" / "inspect_browser_gpt4omini.json"
    sample = json.loads(path.read_text())["samples"][0]
    session = load(path).sessions[0]
    model_events = [e for e in sample["events"] if e["event"] == "model"]
    assert len(model_events) == 5
    for event in model_events:
        produced = session.get(event["output"]["choices"][0]["message"]["id"])
        assert produced is not None and produced.usage is not None
        usage = event["output"]["usage"]
        # OpenAI through inspect: input_tokens counts the cached tokens too (total = input + output)
        assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
        assert produced.usage.input == usage["input_tokens"] - usage["input_tokens_cache_read"]
        assert produced.usage.cache_read == usage["input_tokens_cache_read"]
        assert produced.usage.output == usage["output_tokens"]
    attachments = sample["attachments"]
    sent = model_events[0]["call"]["request"]["tools"]
    resolved = json.loads(
        json.dumps(sent),
        object_hook=lambda d: {
            k: attachments[v.removeprefix("attachment://")]
            if isinstance(v, str) and v.startswith("attachment://")
            else v
            for k, v in d.items()
        },
    )
    assert len(session.run_configs) == 1
    config = session.run_configs[0]
    assert config.tools == tuple(resolved)
    assert config.surface_hash == fingerprint(resolved)
    assert config.tool_names == tuple(t["function"]["name"] for t in resolved)
    assert config.model == "openai/gpt-4o-mini" and config.provider == "openai"
    assert "attachment://" not in json.dumps(config.tools)
    # each score once: the transcript's ScoreEvent, named after the scorer sample.scores gives it
    (score,) = [e for e in session.events if e.type == "score"]
    assert score.text == "includes: C" and isinstance(score.raw, dict)
    assert score.raw["score"] == sample["scores"]["includes"]


def transcript_events(events: list[dict[str, Any]]) -> int:
    """Events as inspect's own reader lists them: every transcript event, nested ones too."""
    return sum(1 + transcript_events(e.get("events") or []) for e in events)


def test_inspect_events_are_the_transcripts_and_nothing_invented(corpora: Path) -> None:
    path = corpora / "trajectories" / "inspect_browser_gpt4omini.json"
    sample = json.loads(path.read_text())["samples"][0]
    (session,) = load(path).sessions
    client, *transcript = session.events  # the first names the inspect_ai release of the eval's packages
    assert (client.type, client.text) == ("client", "inspect_ai 0.3.95.dev16+g6527d0861")
    assert len(transcript) == transcript_events(sample["events"]) == 43
    assert not [e for e in session.events if e.type in ("sample", "sample_fields")]
    (init,) = [e for e in session.events if e.type == "sample_init"]
    assert isinstance(init.raw, dict) and isinstance(init.raw["sample_fields"], dict)
    kept = init.raw["sample_fields"]
    assert (kept["total_time"], kept["working_time"]) == (sample["total_time"], sample["working_time"])
    assert set(kept) == set(sample) - {"id", "epoch", "uuid", "messages", "events", "attachments", "scores",
                                       "input", "output"}


def test_inspect_eval_zip_yields_one_session_per_sample(corpora: Path) -> None:
    path = corpora / "trajectories" / "inspect_popularity.eval"
    with zipfile.ZipFile(path) as archive:
        members = sorted(n for n in archive.namelist() if n.startswith("samples/"))
        samples = [json.loads(archive.read(n)) for n in members]
    corpus = load(path)
    assert corpus.problems == []
    assert len(corpus.sessions) == len(samples) == 10
    expected = inspect_counts(samples)
    assert record_counts(corpus.sessions)["messages"] == expected["messages"] == 30
    assert record_counts(corpus.sessions)["tool_use"] == expected["tool_use"] == 0
    assert {s.file for s in corpus.sessions} == {f"inspect_popularity.eval:{n}" for n in members}
    by_sample = {(s["id"], s["epoch"]) for s in samples}
    assert {(s.title or "").split(" sample ")[1] for s in corpus.sessions} == {
        f"{i} epoch {e}" for i, e in by_sample
    }
    first = next(s for s in corpus.sessions if s.file.endswith("/1_epoch_1.json"))
    raw_first = samples[members.index("samples/1_epoch_1.json")]
    assert [m.role for m in first.messages] == [m["role"] for m in raw_first["messages"]]
    assert first.messages[-1].text == raw_first["messages"][-1]["content"]


def test_openhands_tool_calls_are_the_actions_with_tool_call_metadata(corpora: Path) -> None:
    path = corpora / "trajectories" / "openhands_basic_gui_mode.json"
    events = json.loads(path.read_text())
    corpus = load(path)
    assert corpus.problems == []
    session = corpus.sessions[0]
    actions = [e for e in events if "action" in e and "tool_call_metadata" in e]
    observations = [e for e in events if "observation" in e and "tool_call_metadata" in e]
    found = kinds(session)
    assert found["tool_use"] == len(actions) == 4
    assert found["tool_result"] == len(observations) == 4
    assert found["image"] + result_images(session) == sum(
        len(e["args"].get("image_urls") or []) for e in events if e.get("action") == "message"
    )
    assert found["reasoning"] == 0
    uses = {b.id: b for _, b in session.blocks() if isinstance(b, ToolUse)}
    for action in actions:
        meta = action["tool_call_metadata"]
        call = next(
            c
            for c in meta["model_response"]["choices"][0]["message"]["tool_calls"]
            if c["id"] == meta["tool_call_id"]
        )
        assert uses[meta["tool_call_id"]].name == meta["function_name"]
        assert uses[meta["tool_call_id"]].input == json.loads(call["function"]["arguments"])
    results = {b.tool_use_id: b for _, b in session.blocks() if isinstance(b, ToolResult)}
    for observation in observations:
        result = results[observation["tool_call_metadata"]["tool_call_id"]]
        assert result.output == observation["content"]
        assert result.is_error == (observation.get("success") is False)
    assert sum(r.is_error for r in results.values()) == 1
    # one assistant message per model response, each with that response's usage
    responses = {a["tool_call_metadata"]["model_response"]["id"]: a for a in actions}
    assistants = [m for m in session.messages if m.role == "assistant" and m.usage is not None]
    assert len(assistants) == len(responses)
    for message, action in zip(assistants, responses.values(), strict=True):
        usage = action["tool_call_metadata"]["model_response"]["usage"]
        assert message.usage is not None
        assert message.usage.output == usage["completion_tokens"]
        assert message.usage.context == usage["prompt_tokens"]
    texts = [m for m in session.messages if m.role in ("user", "assistant") and m.text]
    assert texts[0].role == "user" and texts[0].text == events[4]["args"]["content"]
    assert session.path()[-1].text == events[15]["args"]["content"]
    assert {e.type for e in session.events} >= {
        "observation:agent_state_changed",
        "action:change_agent_state",
    }


def test_sweagent_0x_text_actions_stay_text(corpora: Path) -> None:
    path = corpora / "trajectories" / "sweagent_gpt4_pydicom-1458.traj"
    raw = json.loads(path.read_text())
    corpus = load(path)
    assert corpus.problems == []
    session = corpus.sessions[0]
    history = raw["history"]
    assert len(session.messages) == len(history) == 26
    assert [m.role for m in session.messages] == [h["role"] for h in history]
    assert (
        sum("demo" in m.tags for m in session.messages) == sum(bool(h.get("is_demo")) for h in history) == 1
    )
    found = kinds(session)
    assert found["tool_use"] == sum(len(h.get("tool_calls") or []) for h in history) == 0
    assert found["tool_result"] == sum(
        len(h.get("tool_call_ids") or []) for h in history if h["role"] == "tool"
    )
    assert found["reasoning"] == sum(len(h.get("thinking_blocks") or []) for h in history) == 0
    assert found["image"] == 0
    steps = [e for e in session.events if e.type == "step"]
    assert len(steps) == len(raw["trajectory"]) == 12
    replies = [m for m in session.messages if m.role == "assistant"]
    assert [e.message_id for e in steps] == [m.id for m in replies]
    for event, step in zip(steps, raw["trajectory"], strict=True):
        reply = session.get(event.message_id or "")
        assert reply is not None and reply.text == step["response"]
        assert event.text == step["action"]
    stats = next(e for e in session.events if e.type == "model_stats")
    assert stats.raw == raw["info"]["model_stats"]


# --- other versions of the formats, written here ---------------------------------------------


def sweagent_1x(image: str) -> dict[str, Any]:
    config = {"agent": {"model": {"name": "claude-sonnet-4-20250514", "temperature": 0.0}}}
    return {
        "trajectory": [
            {
                "action": "str_replace_editor view /repo",
                "observation": "file list",
                "response": "Looking.",
                "thought": "Looking.",
                "execution_time": 0.5,
                "state": {"working_dir": "/repo"},
                "query": [{"role": "system", "content": "sys"}],
                "extra_info": {},
            },
        ],
        "history": [
            {
                "role": "system",
                "content": "You are a helpful assistant.",
                "agent": "main",
                "message_type": "system_prompt",
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Fix the bug shown here."},
                    {"type": "image_url", "image_url": {"url": image}},
                ],
                "agent": "main",
                "message_type": "observation",
            },
            {
                "role": "assistant",
                "content": "Looking.",
                "thought": "Looking.",
                "action": "str_replace_editor view /repo",
                "agent": "main",
                "message_type": "action",
                "thinking_blocks": [
                    {"type": "thinking", "thinking": "Check the tree.", "signature": "sig=="}
                ],
                "tool_calls": [
                    {
                        "id": "toolu_1",
                        "type": "function",
                        "function": {
                            "name": "str_replace_editor",
                            "arguments": '{"command": "view", "path": "/repo"}',
                        },
                    }
                ],
            },
            {
                "role": "tool",
                "content": [{"type": "text", "text": "file list"}],
                "agent": "main",
                "message_type": "observation",
                "tool_call_ids": ["toolu_1"],
            },
        ],
        "info": {
            "model_stats": {"instance_cost": 0.1, "tokens_sent": 100, "tokens_received": 20, "api_calls": 1},
            "exit_status": "submitted",
            "swe_agent_version": "1.1.0",
        },
        "replay_config": json.dumps(config),
        "environment": "main",
    }


def test_sweagent_1x_function_calls_become_tool_uses(tmp_path: Path) -> None:
    image = png_data_url()
    raw = sweagent_1x(image)
    corpus = load(write(tmp_path / "task.traj", raw))
    assert corpus.problems == []
    session = corpus.sessions[0]
    found = kinds(session)
    history = raw["history"]
    assert found["tool_use"] == sum(len(h.get("tool_calls") or []) for h in history) == 1
    assert found["tool_result"] == sum(len(h.get("tool_call_ids") or []) for h in history) == 1
    assert found["reasoning"] == sum(len(h.get("thinking_blocks") or []) for h in history) == 1
    assert found["image"] == 1
    use = next(b for _, b in session.blocks() if isinstance(b, ToolUse))
    assert (use.id, use.name, use.input) == (
        "toolu_1",
        "str_replace_editor",
        {"command": "view", "path": "/repo"},
    )
    result = next(b for _, b in session.blocks() if isinstance(b, ToolResult))
    assert (result.tool_use_id, result.output) == ("toolu_1", "file list")
    thinking = next(b for _, b in session.blocks() if isinstance(b, Reasoning))
    assert (thinking.text, thinking.signature, thinking.provider) == ("Check the tree.", "sig==", "anthropic")
    picture = next(b for _, b in session.blocks() if isinstance(b, Image))
    assert (picture.width, picture.height, picture.media_type) == (3, 2, "image/png")
    assert picture.sha256 in corpus.images
    assistant = next(m for m in session.messages if m.role == "assistant")
    assert assistant.model == "claude-sonnet-4-20250514"
    assert session.run_configs[0].model == "claude-sonnet-4-20250514"
    assert session.run_configs[0].system == "You are a helpful assistant."
    step = next(e for e in session.events if e.type == "step")
    assert step.message_id == assistant.id
    assert isinstance(step.raw, dict) and "query" not in step.raw


def sweagent_reused_ids() -> dict[str, Any]:
    """A function-calling trajectory whose 5 demonstration calls use the ids its live run uses
    again (``call_0`` ... ``call_4``), then one call of its own: 11 calls, each answered by the
    next tool message (the cross-check found 5 of 11 shown unanswered)."""
    history: list[dict[str, Any]] = [{"role": "system", "content": "sys", "message_type": "system_prompt"}]
    for demo, ids in ((True, [f"call_{i}" for i in range(5)]), (False, [*(f"call_{i}" for i in range(5)), "call_5"])):
        history.append({"role": "user", "content": "task", "message_type": "observation", "is_demo": demo})
        for i, call_id in enumerate(ids):
            history.append({"role": "assistant", "content": f"step {i}", "message_type": "action", "is_demo": demo,
                            "tool_calls": [{"id": call_id, "type": "function",
                                            "function": {"name": "bash", "arguments": json.dumps({"command": f"ls {i}"})}}]})
            history.append({"role": "tool", "content": f"out {'demo' if demo else 'live'} {i}",
                            "message_type": "observation", "is_demo": demo, "tool_call_ids": [call_id]})
    return {"trajectory": [], "history": history, "info": {"exit_status": "submitted"}}


def test_sweagent_reused_call_ids_pair_with_the_nearest_open_call(tmp_path: Path) -> None:
    raw = sweagent_reused_ids()
    corpus = load(write(tmp_path / "demo.traj", raw))
    assert corpus.problems == []
    (session,) = corpus.sessions
    assert kinds(session)["tool_use"] == sum(len(h.get("tool_calls") or []) for h in raw["history"]) == 11
    calls = corpus.frames()["tool_calls"]
    assert calls.height == 11
    assert calls["has_result"].to_list() == [True] * 11
    # each call is answered by the tool message right after it, demo and live alike
    index = {m.id: i for i, m in enumerate(session.messages)}
    pairs = [(index[call], index[answer]) for call, answer in calls.select("message_id", "result_message_id").rows()]
    assert pairs == [(i, i + 1) for i, _ in pairs]
    outputs = {m.id: next(b.output for b in m.blocks if isinstance(b, ToolResult))
               for m in session.messages if m.role == "tool"}
    answered = [outputs[m] for m in calls["result_message_id"]]
    assert answered == [f"out demo {i}" for i in range(5)] + [f"out live {i}" for i in range(6)]
    assert calls["result_bytes"].to_list() == [len(text.encode()) for text in answered]


def test_sweagent_retry_attempts_are_sessions(tmp_path: Path) -> None:
    first, second = sweagent_1x(png_data_url()), sweagent_1x(png_data_url())
    second["history"] = second["history"][:2]
    corpus = load(
        write(tmp_path / "retry.traj", {"attempts": [first, second], "info": {"best_attempt_idx": 0}})
    )
    assert corpus.problems == []
    assert [len(s.messages) for s in corpus.sessions] == [4, 2]
    assert [s.id for s in corpus.sessions] == ["retry.traj#attempt1", "retry.traj#attempt2"]


def test_sweagent_history_under_a_misspelt_key_is_kept_and_reported(tmp_path: Path) -> None:
    """A trajectory whose ``history`` is misspelt (``ihstory``) held its whole conversation under a
    key nothing reads: it loaded as a session of steps without a message and no problem (an
    accounting run with other seeds lost all 26 messages of the shared corpus's trajectory)."""
    raw = sweagent_1x(png_data_url())
    raw["ihstory"] = raw.pop("history")
    path = tmp_path / "task.traj"
    path.write_text(json.dumps(raw, indent=2), encoding="utf-8")
    corpus = load(path)
    line = next(n for n, text in enumerate(path.read_text().split("\n"), 1) if '"ihstory"' in text)
    assert [(p.line, "'ihstory'" in p.reason) for p in corpus.problems] == [(line, True)]
    (session,) = corpus.sessions
    kept = next(e for e in session.events if e.type == "history")
    assert kept.raw == raw["ihstory"] and kept.source is not None and kept.source.line == line
    with pytest.raises(RecordError):
        load(path, strict=True)


def openhands_v1(image: str) -> list[dict[str, Any]]:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "execute_bash",
                "description": "Run a command.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
        {
            "type": "function",
            "function": {
                "name": "str_replace_editor",
                "description": "Edit.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
    ]
    call = {
        "kind": "ActionEvent",
        "source": "agent",
        "timestamp": "2025-10-01T10:00:02",
        "thought": [{"type": "text", "text": "Two things at once."}],
        "llm_response_id": "resp-1",
        "reasoning_content": "Both are independent.",
        "thinking_blocks": [],
    }
    return [
        {
            "kind": "SystemPromptEvent",
            "id": "s",
            "timestamp": "2025-10-01T10:00:00",
            "source": "agent",
            "system_prompt": {"type": "text", "text": "You are OpenHands."},
            "tools": tools,
        },
        {
            "kind": "MessageEvent",
            "id": "u",
            "timestamp": "2025-10-01T10:00:01",
            "source": "user",
            "llm_message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "List and edit."},
                    {"type": "image", "image_urls": [image]},
                ],
            },
        },
        call
        | {
            "id": "a1",
            "tool_name": "execute_bash",
            "tool_call_id": "c1",
            "tool_call": {"id": "c1", "name": "execute_bash", "arguments": '{"command": "ls"}'},
        },
        call
        | {
            "id": "a2",
            "thought": [],
            "reasoning_content": None,
            "tool_name": "str_replace_editor",
            "tool_call_id": "c2",
            "tool_call": {"id": "c2", "name": "str_replace_editor", "arguments": '{"path": "/a"}'},
        },
        {
            "kind": "ObservationEvent",
            "id": "o1",
            "timestamp": "2025-10-01T10:00:03",
            "source": "environment",
            "tool_name": "execute_bash",
            "tool_call_id": "c1",
            "action_id": "a1",
            "observation": {
                "kind": "ExecuteBashObservation",
                "content": [{"type": "text", "text": "a b"}],
                "is_error": False,
                "exit_code": 0,
            },
        },
        {
            "kind": "AgentErrorEvent",
            "id": "o2",
            "timestamp": "2025-10-01T10:00:04",
            "source": "agent",
            "tool_name": "str_replace_editor",
            "tool_call_id": "c2",
            "error": "path /a does not exist",
        },
        {
            "kind": "ConversationStateUpdateEvent",
            "id": "x",
            "timestamp": "2025-10-01T10:00:05",
            "source": "environment",
            "key": "agent_status",
            "value": "finished",
        },
    ]


def test_openhands_sdk_events(tmp_path: Path) -> None:
    events = openhands_v1(png_data_url())
    corpus = load(write(tmp_path / "conversation.json", events))
    assert corpus.problems == []
    session = corpus.sessions[0]
    found = kinds(session)
    assert found["tool_use"] == sum(e["kind"] == "ActionEvent" for e in events) == 2
    assert found["tool_result"] == 2
    assert found["image"] == 1 and found["reasoning"] == 1
    assert [m.role for m in session.path()] == ["system", "user", "assistant", "tool", "tool"]
    assistant = session.path()[2]
    assert [b.kind for b in assistant.blocks] == ["reasoning", "text", "tool_use", "tool_use"]
    results = [b for _, b in session.blocks() if isinstance(b, ToolResult)]
    assert [(r.tool_use_id, r.is_error, r.output) for r in results] == [
        ("c1", False, "a b"),
        ("c2", True, "path /a does not exist"),
    ]
    config = session.run_configs[0]
    assert config.tool_names == ("execute_bash", "str_replace_editor")
    assert config.surface_hash == fingerprint(events[0]["tools"])
    assert config.system == "You are OpenHands."
    assert any(e.type == "ConversationStateUpdateEvent" for e in session.events)


def test_openhands_eval_output_lines_are_sessions(tmp_path: Path) -> None:
    corpus_events = openhands_v0_events()
    lines = [
        {"instance_id": "astropy-1", "instruction": "fix", "history": corpus_events, "metadata": {"x": 1}},
        {
            "instance_id": "astropy-2",
            "instruction": "fix",
            "history": [[corpus_events[0], corpus_events[1]], [corpus_events[2], corpus_events[3]]],
        },
    ]
    path = tmp_path / "output.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    corpus = load(path)
    assert corpus.problems == []
    assert [s.title for s in corpus.sessions] == ["astropy-1", "astropy-2"]
    assert [kinds(s)["tool_use"] for s in corpus.sessions] == [1, 1]
    assert [kinds(s)["tool_result"] for s in corpus.sessions] == [1, 1]


def test_openhands_one_event_per_file_is_one_session(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "abc" / "events"
    folder.mkdir(parents=True)
    for number, event in enumerate(openhands_v0_events()):
        write(folder / f"{number}.json", event)
    corpus = load(tmp_path)
    assert corpus.problems == []
    assert len(corpus.sessions) == 1
    session = corpus.sessions[0]
    assert [m.role for m in session.path()] == ["user", "assistant", "tool", "assistant"]
    assert session.title == "abc"


def openhands_v0_events(arguments: str = '{"command": "ls"}') -> list[dict[str, Any]]:
    response = {
        "id": "chatcmpl-1",
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Listing.",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "execute_bash", "arguments": arguments},
                        }
                    ],
                },
            }
        ],
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 9,
            "prompt_tokens_details": {"cached_tokens": 100},
        },
    }
    meta = {
        "function_name": "execute_bash",
        "tool_call_id": "call_1",
        "model_response": response,
        "total_calls_in_response": 1,
    }
    return [
        {
            "id": 0,
            "timestamp": "2025-01-20T20:00:00",
            "source": "user",
            "message": "list files",
            "action": "message",
            "args": {"content": "list files", "image_urls": None, "wait_for_response": False},
        },
        {
            "id": 1,
            "timestamp": "2025-01-20T20:00:01",
            "source": "agent",
            "message": "Running command: ls",
            "action": "run",
            "tool_call_metadata": meta,
            "args": {"command": "ls", "thought": "Listing.", "is_input": False},
        },
        {
            "id": 2,
            "timestamp": "2025-01-20T20:00:02",
            "source": "agent",
            "message": "Command ran",
            "cause": 1,
            "observation": "run",
            "tool_call_metadata": meta,
            "content": "a.txt",
            "extras": {"command": "ls"},
            "success": True,
        },
        {
            "id": 3,
            "timestamp": "2025-01-20T20:00:03",
            "source": "agent",
            "message": "Done.",
            "action": "message",
            "args": {"content": "Done.", "image_urls": None, "wait_for_response": True},
        },
    ]


def openhands_finish(final: str, thought: str, content: str | None) -> dict[str, Any]:
    """A V0 ``finish`` action made by function calling, as OpenHands serializes it."""
    arguments = {"message": final, "task_completed": "true"}
    response = {
        "id": "resp-9", "model": "gpt-4o",
        "choices": [{"message": {"role": "assistant", "content": content, "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "finish", "arguments": json.dumps(arguments)}}]}}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 12},
    }
    return {
        "id": 4, "timestamp": "2025-01-20T20:00:04", "source": "agent", "message": final, "action": "finish",
        "tool_call_metadata": {"function_name": "finish", "tool_call_id": "call_9", "model_response": response,
                               "total_calls_in_response": 1},
        "args": {"final_thought": final, "task_completed": "true", "outputs": {"files": ["a.txt"]},
                 "thought": thought},
    }


@pytest.mark.parametrize(("thought", "content", "texts"), [
    ("", None, ["The file is a.txt."]),
    ("Wrapping up.", None, ["Wrapping up.", "The file is a.txt."]),
    ("", "The file is a.txt.", ["The file is a.txt."]),
])
def test_openhands_finish_is_the_assistants_last_text_not_an_unanswered_call(
        tmp_path: Path, thought: str, content: str | None, texts: list[str]) -> None:
    events = [*openhands_v0_events()[:3], openhands_finish("The file is a.txt.", thought, content),
              {"id": 5, "timestamp": "2025-01-20T20:00:05", "source": "environment", "message": "",
               "cause": 4, "observation": "agent_state_changed", "content": "",
               "extras": {"agent_state": "finished"}}]
    corpus = load(write(tmp_path / "events.json", events))
    assert corpus.problems == []
    (session,) = corpus.sessions
    last = session.path()[-1]
    assert last.role == "assistant" and last.id == "4"
    assert [b.text for b in last.blocks if isinstance(b, Text)] == texts
    assert not [b for b in last.blocks if isinstance(b, ToolUse)]
    assert last.usage is not None and last.usage.output == 12
    calls = corpus.frames()["tool_calls"]
    assert calls["call_id"].to_list() == ["call_1"] and calls["has_result"].all()
    (finish,) = [e for e in session.events if e.type == "action:finish"]
    assert finish.message_id == last.id and finish.raw == events[3]  # outputs and every argument kept


def test_openhands_usage_takes_cached_tokens_out_of_the_input(tmp_path: Path) -> None:
    session = load(write(tmp_path / "events.json", openhands_v0_events())).sessions[0]
    assistant = next(m for m in session.messages if m.usage is not None)
    assert assistant.usage is not None
    assert (assistant.usage.input, assistant.usage.cache_read, assistant.usage.output) == (20, 100, 9)
    assert assistant.model == "gpt-4o"


def inspect_log(image: str) -> dict[str, Any]:
    """A small EvalLog in the current shape: message ids, content parts, condensed attachments."""
    messages = [
        {"id": "m1", "role": "system", "content": "Be careful.", "source": "input"},
        {
            "id": "m2",
            "role": "user",
            "source": "input",
            "content": [
                {"type": "text", "text": "What is in the picture?"},
                {"type": "image", "image": "attachment://img1", "detail": "auto"},
            ],
        },
        {
            "id": "m3",
            "role": "assistant",
            "source": "generate",
            "model": "claude-sonnet-4-0",
            "content": [
                {"type": "reasoning", "reasoning": "Look first.", "signature": "EqQB", "redacted": False},
                {"type": "reasoning", "reasoning": "ENCRYPTED", "redacted": True},
                {"type": "text", "text": "Let me zoom."},
            ],
            "tool_calls": [
                {"id": "t1", "function": "zoom", "arguments": {"factor": 2}, "type": "function"},
                {
                    "id": "t2",
                    "function": "zoom",
                    "arguments": {},
                    "parse_error": "Error parsing the following tool call arguments:\n\n{factor: 2\n\n"
                    "Error details: Expecting property name",
                    "type": "function",
                },
            ],
        },
        {
            "id": "m4",
            "role": "tool",
            "tool_call_id": "t1",
            "function": "zoom",
            "content": [{"type": "text", "text": "zoomed"}, {"type": "image", "image": "attachment://img1"}],
        },
        {
            "id": "m5",
            "role": "tool",
            "tool_call_id": "t2",
            "function": "zoom",
            "content": "",
            "error": {"type": "parsing", "message": "Expecting property name"},
        },
        {"id": "m6", "role": "assistant", "source": "generate", "content": "A red square."},
    ]
    usage = {
        "input_tokens": 10,
        "output_tokens": 5,
        "total_tokens": 40,
        "input_tokens_cache_read": 20,
        "input_tokens_cache_write": 5,
    }
    tools = [{"name": "zoom", "description": "attachment://desc", "input_schema": {"type": "object"}}]
    model_event = {
        "event": "model",
        "timestamp": "2025-05-12T20:27:38-04:00",
        "model": "anthropic/claude-sonnet-4-0",
        "input": [],
        "tools": [{"name": "zoom", "description": "Zoom in.", "parameters": {}}],
        "tool_choice": "auto",
        "config": {},
        "output": {"model": "claude-sonnet-4-0", "choices": [{"message": messages[2]}], "usage": usage},
        "call": {"request": {"model": "claude-sonnet-4-0", "tools": tools, "messages": []}, "response": {}},
    }
    sample = {
        "id": "q1",
        "epoch": 1,
        "uuid": "u-1",
        "input": "What is in the picture?",
        "target": "red",
        "messages": messages,
        "events": [model_event, {"event": "score", "score": {"value": "C"}}],
        "scores": {"match": {"value": "C"}},
        "metadata": {},
        "attachments": {"img1": image, "desc": "Zoom in on the image."},
    }
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": "E1",
            "run_id": "R1",
            "created": "2025-05-12T20:27:36-04:00",
            "task": "vision",
            "model": "anthropic/claude-sonnet-4-0",
        },
        "plan": {},
        "results": {},
        "stats": {},
        "samples": [sample],
    }


def test_inspect_content_parts_reasoning_images_and_errors(tmp_path: Path) -> None:
    log = inspect_log(png_data_url())
    corpus = load(write(tmp_path / "vision.json", log))
    session = corpus.sessions[0]
    assert [p.reason for p in corpus.problems] == [
        "sample 'q1' epoch 1, messages[2]: tool call t2 arguments did not parse: Error details: "
        "Expecting property name"
    ]
    assert corpus.problems[0].file == "vision.json" and corpus.problems[0].line is not None
    counts = inspect_counts(log["samples"])
    assert record_counts([session]) == counts
    signed, redacted = (b for _, b in session.blocks() if isinstance(b, Reasoning))
    assert (signed.text, signed.signature, signed.provider, signed.redacted) == (
        "Look first.",
        "EqQB",
        "anthropic",
        False,
    )
    assert (redacted.text, redacted.signature, redacted.redacted) == ("", "ENCRYPTED", True)
    broken = next(b for _, b in session.blocks() if isinstance(b, ToolUse) and b.id == "t2")
    assert (broken.input, broken.raw_input) == (None, "{factor: 2")
    first, second = (b for _, b in session.blocks() if isinstance(b, ToolResult))
    assert (first.output, len(first.images), first.is_error) == ("zoomed", 1, False)
    assert (second.output, second.is_error) == ("Expecting property name", True)
    assistant = session.get("m3")
    assert assistant is not None and assistant.usage is not None
    # Anthropic through inspect: input_tokens is already the uncached part
    assert (assistant.usage.input, assistant.usage.cache_read, assistant.usage.cache_write) == (10, 20, 5)
    specs: list[JsonValue] = [{"name": "zoom", "description": "Zoom in on the image.", "input_schema": {"type": "object"}}]
    assert session.run_configs[0].surface_hash == fingerprint(specs)
    assert session.run_configs[0].system == "Be careful."
    images = [b for _, b in session.blocks() if isinstance(b, Image)]
    assert images[0].sha256 == first.images[0].sha256 and images[0].sha256 in corpus.images


def test_inspect_sample_messages_null_is_reported(tmp_path: Path) -> None:
    """A sample whose ``messages`` is null (inspect writes a list, empty by default) lost its
    conversation: reported at the sample, its events still kept (it went in silence: the 3,000-case
    accounting run's finding)."""
    log = inspect_log(png_data_url())
    log["samples"][0]["messages"] = None
    corpus = load(write(tmp_path / "nulled.json", log))
    assert [(p.file, p.reason) for p in corpus.problems] == [
        ("nulled.json", "sample 'q1' epoch 1: 'messages' is null, not a list")]
    assert corpus.sessions[0].messages == () and corpus.sessions[0].events


def test_inspect_scores_count_once_and_no_sample_event_is_made_up(tmp_path: Path) -> None:
    log = inspect_log(png_data_url())
    sample = log["samples"][0]
    sample["events"] = [{"event": "sample_init", "sample": {"id": "q1", "target": "red"}, "state": {}},
                        *sample["events"],
                        {"event": "score", "score": {"value": 0.5}, "intermediate": True}]
    sample["scores"] = {"match": {"value": "C"}, "judge": {"value": 1}}
    sample["total_time"] = 3.5
    session = load(write(tmp_path / "scored.json", log)).sessions[0]
    types = [e.type for e in session.events]
    assert types == ["sample_init", "model", "score", "score", "score"]
    assert [e.text for e in session.events if e.type == "score"] == ["match: C", "0.5", "judge: 1"]
    assert session.events[-1].raw == {"scorer": "judge", "score": {"value": 1}}  # no event recorded it
    init = session.events[0].raw
    assert isinstance(init, dict)
    assert init["sample_fields"] == {"target": "red", "metadata": {}, "total_time": 3.5}
    # without a sample_init to carry them, the sample's own fields are one event, not lost
    del sample["events"][0]
    bare = load(write(tmp_path / "bare.json", log)).sessions[0]
    assert [e.type for e in bare.events] == ["model", "score", "score", "score", "sample_fields"]
    assert bare.events[-1].raw == {"target": "red", "metadata": {}, "total_time": 3.5}


def test_inspect_eval_zip_while_running_has_only_the_journal(tmp_path: Path) -> None:
    log = inspect_log(png_data_url())
    path = tmp_path / "running.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_journal/start.json", json.dumps({k: log[k] for k in ("version", "eval", "plan")}))
        archive.writestr("samples/q1_epoch_1.json", json.dumps(log["samples"][0]))
    corpus = load(path)
    assert len(corpus.sessions) == 1
    assert corpus.sessions[0].file == "running.eval:samples/q1_epoch_1.json"
    assert [p.file for p in corpus.problems] == ["running.eval:samples/q1_epoch_1.json"]


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["empty.traj", "empty.json", "empty.eval"])
def test_empty_file_is_a_problem(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    corpus = load(path)
    assert corpus.sessions == []
    assert [(p.file, p.reason) for p in corpus.problems] == [(name, "empty file")]
    with pytest.raises(RecordError):
        load(path, strict=True)


@pytest.mark.parametrize("fmt", ["sweagent", "openhands", "inspect"])
def test_empty_file_read_as_a_named_format(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    corpus = load(path, format=fmt)
    assert corpus.sessions == []
    assert len(corpus.problems) == 1
    assert corpus.problems[0].file == "empty.json" and corpus.problems[0].line == 1


def load_intact(text: str, directory: Path) -> Corpus:
    path = directory / "intact.traj"
    path.write_text(text)
    return load(path)


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    text = json.dumps(sweagent_1x(png_data_url()), indent=1)
    broken = text.replace('"role": "tool"', '"role" "tool"')
    path = tmp_path / "bad.traj"
    path.write_text(broken)
    corpus = load(path)
    (session,) = corpus.sessions  # read as far as the damage (``toolkit.corpus.formats.tolerant``)
    assert 0 < len(session.messages) < len(load_intact(text, tmp_path).sessions[0].messages)
    problem = corpus.problems[0]
    assert problem.file == "bad.traj"
    assert problem.line == broken[: broken.index('"role" "tool"')].count("\n") + 1
    assert "not valid JSON" in problem.reason and "read as far as line" in problem.reason
    with pytest.raises(RecordError):
        load(path, strict=True)


@pytest.mark.parametrize(
    "name",
    ["sweagent_gpt4_pydicom-1458.traj", "openhands_basic_gui_mode.json", "inspect_browser_gpt4omini.json"],
)
def test_truncated_file_is_a_problem(tmp_path: Path, corpora: Path, name: str) -> None:
    data = (corpora / "trajectories" / name).read_bytes()
    path = tmp_path / name
    path.write_bytes(data[: len(data) // 2])
    corpus = load(path)
    intact = load(corpora / "trajectories" / name)
    # read as far as the cut, what follows reported (``toolkit.corpus.formats.tolerant``)
    def held(loaded: Corpus) -> int:
        return sum(len(s.messages) + len(s.events) for s in loaded.sessions)

    assert 0 < held(corpus) < held(intact)
    problem = corpus.problems[0]
    assert problem.file == name and "read as far as line" in problem.reason
    assert problem.line == data[: len(data) // 2].count(b"\n") + 1
    with pytest.raises(RecordError):
        load(path, strict=True)


def test_corrupt_zip_member_loses_only_that_sample(tmp_path: Path, corpora: Path) -> None:
    source = corpora / "trajectories" / "inspect_popularity.eval"
    data = bytearray(source.read_bytes())
    with zipfile.ZipFile(source) as archive:
        info = archive.getinfo("samples/5_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for offset in range(start + 10, start + 40):
        data[offset] ^= 0xFF
    path = tmp_path / "broken.eval"
    path.write_bytes(bytes(data))
    corpus = load(path)
    assert len(corpus.sessions) == 9
    assert [p.file for p in corpus.problems] == ["broken.eval:samples/5_epoch_1.json"]
    assert "cannot be read" in corpus.problems[0].reason
    with pytest.raises(RecordError):
        load(path, strict=True)


def test_truncated_zip_is_a_problem(tmp_path: Path, corpora: Path) -> None:
    data = (corpora / "trajectories" / "inspect_popularity.eval").read_bytes()
    path = tmp_path / "cut.eval"
    path.write_bytes(data[: len(data) // 2])
    corpus = load(path)
    assert corpus.sessions == []
    assert [p.file for p in corpus.problems] == ["cut.eval"]
    assert "ZIP" in corpus.problems[0].reason


def test_unknown_event_types_are_kept_and_reported(tmp_path: Path) -> None:
    events = openhands_v0_events()
    events.insert(
        2,
        {
            "id": 9,
            "timestamp": "2025-01-20T20:00:01",
            "source": "agent",
            "action": "teleport",
            "args": {"to": "mars"},
        },
    )
    oh = load(write(tmp_path / "events.json", events))
    assert [(p.file, p.line) for p in oh.problems] == [("events.json", 3)]
    assert "teleport" in oh.problems[0].reason
    session = oh.sessions[0]
    assert [e.raw for e in session.events if e.kind == "other"] == [events[2]]
    assert kinds(session)["tool_use"] == 1 and kinds(session)["tool_result"] == 1

    log = inspect_log(png_data_url())
    log["samples"][0]["events"].append({"event": "teleport", "timestamp": "2025-05-12T20:27:40-04:00"})
    ins = load(write(tmp_path / "log.json", log))
    assert sum("teleport" in p.reason for p in ins.problems) == 1
    assert [e.type for e in ins.sessions[0].events if e.kind == "other"] == ["teleport"]

    traj = sweagent_1x(png_data_url())
    traj["history"].insert(1, {"role": "narrator", "content": "meanwhile"})
    swe = load(write(tmp_path / "task.traj", traj))
    assert [(p.line, p.reason) for p in swe.problems] == [
        (2, "history[1]: unknown history role 'narrator'; kept as an event")
    ]
    assert len(swe.sessions[0].messages) == 4
    for path in (tmp_path / "events.json", tmp_path / "log.json", tmp_path / "task.traj"):
        with pytest.raises(RecordError):
            load(path, strict=True)


def test_orphan_tool_results_are_reported(tmp_path: Path) -> None:
    events = openhands_v0_events()
    orphan = json.loads(json.dumps(events[2]))
    orphan["id"] = 7
    orphan["tool_call_metadata"]["tool_call_id"] = "call_missing"
    oh = load(write(tmp_path / "events.json", [*events, orphan]))
    assert [(p.line, "call_missing" in p.reason) for p in oh.problems] == [(5, True)]
    assert kinds(oh.sessions[0])["tool_result"] == 2

    traj = sweagent_1x(png_data_url())
    traj["history"][3]["tool_call_ids"] = ["toolu_missing"]
    swe = load(write(tmp_path / "task.traj", traj))
    assert [(p.line, "toolu_missing" in p.reason) for p in swe.problems] == [(4, True)]
    assert kinds(swe.sessions[0])["tool_result"] == 1

    log = inspect_log(png_data_url())
    log["samples"][0]["messages"][3]["tool_call_id"] = "t_missing"
    ins = load(write(tmp_path / "log.json", log))
    assert sum("t_missing" in p.reason for p in ins.problems) == 1
    for path in (tmp_path / "events.json", tmp_path / "task.traj", tmp_path / "log.json"):
        with pytest.raises(RecordError):
            load(path, strict=True)


def test_arguments_that_are_not_json_keep_their_text(tmp_path: Path) -> None:
    oh = load(write(tmp_path / "events.json", openhands_v0_events('{"command": ')))
    assert [(p.line, "not valid JSON" in p.reason) for p in oh.problems] == [(2, True)]
    use = next(b for _, b in oh.sessions[0].blocks() if isinstance(b, ToolUse))
    assert (use.input, use.raw_input) == (None, '{"command": ')

    traj = sweagent_1x(png_data_url())
    traj["history"][2]["tool_calls"][0]["function"]["arguments"] = "{'command': view}"
    swe = load(write(tmp_path / "task.traj", traj))
    assert [(p.line, "not valid JSON" in p.reason) for p in swe.problems] == [(3, True)]
    use = next(b for _, b in swe.sessions[0].blocks() if isinstance(b, ToolUse))
    assert (use.input, use.raw_input) == (None, "{'command': view}")
    for path in (tmp_path / "events.json", tmp_path / "task.traj"):
        with pytest.raises(RecordError):
            load(path, strict=True)


def test_openhands_text_actions_system_prompt_and_condensation(tmp_path: Path) -> None:
    """Before function calling the agent wrote its action in words: the thought is the reply and
    the observation the next user turn. The system action's tool specs are the run config."""
    tools: list[JsonValue] = [{"type": "function", "function": {"name": "execute_bash", "parameters": {"type": "object"}}}]
    events = [
        {
            "id": 0,
            "timestamp": "2024-08-01T10:00:00",
            "source": "agent",
            "message": "sys",
            "action": "system",
            "args": {"content": "You are a coder.", "tools": tools, "openhands_version": "0.40"},
        },
        {
            "id": 1,
            "timestamp": "2024-08-01T10:00:01",
            "source": "user",
            "message": "go",
            "action": "message",
            "args": {"content": "Count the files.", "image_urls": [png_data_url()]},
        },
        {
            "id": 2,
            "timestamp": "2024-08-01T10:00:02",
            "source": "agent",
            "message": "Running command: ls | wc -l",
            "action": "run",
            "args": {"command": "ls | wc -l", "thought": "I will count them."},
        },
        {
            "id": 3,
            "timestamp": "2024-08-01T10:00:03",
            "source": "agent",
            "message": "ran",
            "cause": 2,
            "observation": "run",
            "content": "3",
            "extras": {"command": "ls | wc -l", "exit_code": 0},
        },
        {
            "id": 4,
            "timestamp": "2024-08-01T10:00:04",
            "source": "agent",
            "message": "",
            "action": "condensation",
            "args": {"forgotten_event_ids": [2, 3], "summary": "Counted 3 files."},
        },
        {
            "id": 5,
            "timestamp": "2024-08-01T10:00:05",
            "source": "environment",
            "message": "",
            "observation": "agent_state_changed",
            "content": "",
            "extras": {"agent_state": "finished"},
        },
    ]
    corpus = load(write(tmp_path / "legacy.json", events))
    assert corpus.problems == []
    session = corpus.sessions[0]
    assert [(m.role, m.text) for m in session.path()] == [
        ("system", "You are a coder."),
        ("user", "Count the files."),
        ("assistant", "I will count them."),
        ("user", "3"),
    ]
    assert kinds(session)["tool_use"] == 0 and kinds(session)["image"] == 1
    action = next(e for e in session.events if e.type == "action:run")
    assert action.message_id == "2" and action.raw == events[2]
    compaction = next(e for e in session.events if e.kind == "compaction")
    assert compaction.text == "Counted 3 files."
    config = session.run_configs[0]
    assert (config.system, config.tool_names, config.surface_hash) == (
        "You are a coder.",
        ("execute_bash",),
        fingerprint(tools),
    )


def test_openhands_events_one_per_line(tmp_path: Path) -> None:
    lines = [json.dumps(e) for e in openhands_v0_events()]
    lines.insert(2, '{"id": 5, "source": "agent", "action": "run", "args": ')
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n")
    corpus = load(path)
    assert [(p.file, p.line) for p in corpus.problems] == [("events.jsonl", 3)]
    session = corpus.sessions[0]
    assert [m.role for m in session.path()] == ["user", "assistant", "tool", "assistant"]
    assert [m.source.line for m in session.path() if m.source] == [1, 2, 4, 5]
