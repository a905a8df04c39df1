"""The Cline importer (and Roo Code's and Kilo Code's task folders): the shared examples counted
independently, each version's layout written from Cline's source, and the all-text Anthropic list."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import CORPORA, corpus_files
from tests.helpers import everything_valid
from toolkit.corpus import load
from toolkit.corpus.formats import cline
from toolkit.corpus.formats import sniff as detect
from toolkit.record import Image, Reasoning, Session, Text, ToolResult, ToolUse

FOLDER = CORPORA / "cline"
HISTORY = FOLDER / "mra_cline_api_conversation_history.json"
UI = FOLDER / "clinexray_cline_ui_messages.json"
needs_corpus = pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/corpora/cline is absent")

HEADER = re.compile(r"\[[\w-]+(?: for '.*?')?\] Result:", re.DOTALL)


def blocks(session: Session, kind: type) -> list[object]:
    return [b for m in session.messages for b in m.blocks if isinstance(b, kind)]


def write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


@needs_corpus
def test_history_counts_match_the_file() -> None:
    doc = json.loads(HISTORY.read_text(encoding="utf-8"))
    parts = [(m["role"], b) for m in doc for b in m["content"]]
    calls = sum(1 for role, b in parts if role == "assistant" and b["type"] == "tool_use")
    results = sum(1 for role, b in parts if role == "user" and b["type"] == "text" and HEADER.match(b["text"]))
    images = sum(1 for _, b in parts if b["type"] == "image")
    corpus = load(HISTORY)
    assert corpus.problems == [] and corpus.formats == {HISTORY.name: "cline"}
    (session,) = corpus.sessions
    assert len(session.messages) == len(doc) == 443
    assert (len(blocks(session, ToolUse)), len(blocks(session, ToolResult))) == (calls, results) == (231, 223)
    assert len(blocks(session, Image)) == images == 1 and blocks(session, Reasoning) == []
    ids = {b.id: b.name for b in blocks(session, ToolUse)}  # type: ignore[attr-defined]
    for result in blocks(session, ToolResult):
        assert isinstance(result, ToolResult) and result.tool_use_id in ids and result.name == ids[result.tool_use_id]
        assert not HEADER.match(result.output) and isinstance(result.detail, dict)
    denied = [r for r in blocks(session, ToolResult) if isinstance(r, ToolResult) and r.is_error]
    assert denied and all(r.output.startswith("The user denied this operation") for r in denied)
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert all(m.model == "claude_4_5_opus" and m.provider == "openai" for m in assistants)
    assert sum(m.usage is not None for m in assistants) >= 200 and session.messages[0].time is not None
    everything_valid(session, corpus.images)


@needs_corpus
def test_ui_log_alone_is_a_session() -> None:
    rows = json.loads(UI.read_text(encoding="utf-8"))
    reasoning = sum(1 for r in rows if r.get("say") == "reasoning")
    requests = sum(1 for r in rows if r.get("say") == "api_req_started")
    images = sum(len(r.get("images") or []) for r in rows)
    corpus = load(UI)
    assert corpus.problems == [] and corpus.formats == {UI.name: "cline"}
    (session,) = corpus.sessions
    assert len(blocks(session, Reasoning)) == reasoning == 24 and len(blocks(session, Image)) == images == 1
    assert sum(e.type == "api_req_started" for e in session.events) == requests == 24
    assert sum(m.usage is not None for m in session.messages) == requests
    assert session.title is not None and session.title.startswith("in my jiras")
    everything_valid(session, corpus.images)


def test_sniff_claims_no_other_shared_file() -> None:
    for path in corpus_files():
        found = detect(path)
        mine = found is not None and found[0].name == "cline"
        assert mine == (path.parent == FOLDER), path


def test_xml_era_task_folder(tmp_path: Path) -> None:
    """Cline 2.x/3.x: XML calls in the text, ``[tool for 'x'] Result:`` then the content as its own
    block, the UI log beside giving each request's usage (src/core/Cline.ts, v2.0.0)."""
    task = tmp_path / "saoudrizwan.claude-dev" / "tasks" / "1730000000000"
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nList and read\n</task>"},
                                     {"type": "text", "text": "<environment_details>\n# cwd\n</environment_details>"}]},
        {"role": "assistant", "content": [{"type": "text", "text":
            "<thinking>look</thinking>\n<list_files>\n<path>src</path>\n<recursive>true</recursive>\n</list_files>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[list_files for 'src'] Result:"},
                                     {"type": "text", "text": "a.py\nb.py"},
                                     {"type": "text", "text": "<environment_details>\n</environment_details>"}]},
        {"role": "assistant", "content": [{"type": "text", "text":
            "<write_to_file>\n<path>a.py</path>\n<content>\nx = '<content>'</content>\n</content>\n</write_to_file>\n"
            "<read_file>\n<path>b.py</path>\n</read_file>"}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[write_to_file for 'a.py'] Result:"},
            {"type": "text", "text": "The user denied this operation."},
            {"type": "text", "text": "Skipping tool [read_file for 'b.py'] due to user rejecting a previous tool."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]
    write(task / "api_conversation_history.json", history)
    ui = [{"ts": 1730000000000, "type": "say", "say": "task", "text": "List and read"},
          {"ts": 1730000000100, "type": "say", "say": "api_req_started",
           "text": json.dumps({"request": "...", "tokensIn": 10, "tokensOut": 5, "cacheWrites": 7, "cacheReads": 3,
                               "cost": 0.01})}]
    write(task / "ui_messages.json", ui)
    write(task / "task_metadata.json", {"files_in_context": [], "model_usage": [], "environment_history": []})
    corpus = load(tmp_path)
    assert corpus.problems == [] and len(corpus.sessions) == 1
    (session,) = corpus.sessions
    assert session.id == "1730000000000" and session.title == "List and read"
    calls = blocks(session, ToolUse)
    assert [(c.name, c.input) for c in calls if isinstance(c, ToolUse)] == [
        ("list_files", {"path": "src", "recursive": "true"}),
        ("write_to_file", {"path": "a.py", "content": "x = '<content>'</content>"}),
        ("read_file", {"path": "b.py"})]
    results = [r for r in blocks(session, ToolResult) if isinstance(r, ToolResult)]
    assert [(r.tool_use_id, r.output, r.is_error) for r in results] == [
        (calls[0].id, "a.py\nb.py", False),  # type: ignore[attr-defined]
        (calls[1].id, "The user denied this operation.", True),  # type: ignore[attr-defined]
        (calls[2].id, history[4]["content"][2]["text"], True)]  # type: ignore[attr-defined,index]
    first = session.messages[1]
    assert isinstance(first.blocks[0], Text) and first.blocks[0].text.startswith("<thinking>")
    assert first.usage is not None and (first.usage.input, first.usage.cache_read, first.usage.cache_write) == (10, 3, 7)
    assert [e.text for e in session.events if e.type == "client"] == ["Cline"]
    everything_valid(session, corpus.images)


def test_claude_dev_native_results(tmp_path: Path) -> None:
    """Claude Dev 1.x wrote native ``tool_result`` blocks (src/ClaudeDev.ts, v1.9.0)."""
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nhi\n</task>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                           "input": {"path": "a"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "text"}]},
    ]
    path = write(tmp_path / "api_conversation_history.json", history)
    corpus = load(path)
    assert corpus.problems == [] and corpus.formats == {path.name: "cline"}
    (result,) = blocks(corpus.sessions[0], ToolResult)
    assert isinstance(result, ToolResult) and (result.tool_use_id, result.output) == ("toolu_1", "text")


def test_roo_code_reasoning_and_native_text_results(tmp_path: Path) -> None:
    """Roo Code's ``reasoning`` blocks and items (src/core/task/Task.ts), ``ts`` on each message, the
    one-block ``[name] Result:\\n...`` of native calls without a tool_result (ToolResultUtils.ts)."""
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\ngo\n</task>"}], "ts": 1760000000000},
        {"type": "reasoning", "encrypted_content": "gAAA", "summary": []},
        {"role": "assistant", "ts": 1760000001000, "content": [
            {"type": "reasoning", "text": "think", "summary": []},
            {"type": "tool_use", "id": "call_1", "name": "use_subagents", "input": {}}]},
        {"role": "user", "ts": 1760000002000, "content": [{"type": "text", "text": "[subagents] Result:\nall done"}]},
        {"role": "assistant", "ts": 1760000003000, "content": [{"type": "text", "text": "ok"}], "isSummary": True},
    ]
    path = write(tmp_path / "rooveterinaryinc.roo-cline" / "tasks" / "t1" / "api_conversation_history.json",
                 history)
    corpus = load(path)
    assert corpus.problems == []
    (session,) = corpus.sessions
    reasoning = blocks(session, Reasoning)
    assert [(r.text, r.redacted) for r in reasoning if isinstance(r, Reasoning)] == [("", True), ("think", False)]
    (result,) = blocks(session, ToolResult)
    assert isinstance(result, ToolResult) and (result.tool_use_id, result.name, result.output) == (
        "call_1", "use_subagents", "all done")
    assert session.messages[-1].tags == ("compact_summary",)
    assert [e.text for e in session.events if e.type == "client"] == ["Roo Code"]
    everything_valid(session, corpus.images)


def test_all_text_anthropic_list_is_anthropic(tmp_path: Path) -> None:
    """A bare list of user/assistant turns whose content is typed text blocks is Anthropic's shape;
    one that opens with a system message, or has string content only, stays Chat Completions."""
    turns = [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
             {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}]
    path = write(tmp_path / "a.json", turns)
    assert load(path).formats == {"a.json": "anthropic"}
    path = write(tmp_path / "b.json", [{"role": "system", "content": "be brief"}, *turns])
    assert load(path).formats == {"b.json": "openai_chat"}
    path = write(tmp_path / "c.json", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])
    assert load(path).formats == {"c.json": "openai_chat"}


def test_layouts_follow_the_clients_rules(tmp_path: Path) -> None:
    found = cline.layouts({"CLINE_DIR": str(tmp_path / "cli")}, tmp_path)
    folders = {(str(layout.folder.relative_to(tmp_path)), layout.found_by) for layout in found}
    assert ("cli/data/tasks", "CLINE_DIR") in folders
    assert (".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks", "default") in folders
    assert (".config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks", "default") in folders
    assert ("Library/Application Support/Windsurf/User/globalStorage/kilocode.kilo-code/tasks", "default") in folders
    assert found[0].wanted(("1730000000000", "api_conversation_history.json"))
    assert not found[0].wanted(("1730000000000", "ui_messages.json"))
