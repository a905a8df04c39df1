"""The Claude Code importer against the real transcripts in the shared corpora (1.0.98, 2.0.22,
2.1.15, 2.1.143, 2.1.145) and against hand-made bad input. Expected values are computed here from
the raw JSON with the standard library, never from the importer."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, assert_never

import pytest
from PIL import Image as PILImage

from tests.conftest import CORPORA, REPO
from toolkit.corpus import Corpus, load
from toolkit.corpus.formats import SNIFF_BYTES
from toolkit.corpus.formats.claude_code import (
    AGENT_MARK,
    IMPORTER,
    SIDECHAIN_MARK,
    looks_like_record,
    opens_with_record,
    qwen_code_record,
)
from toolkit.corpus.formats.importer import Head
from toolkit.record import (
    Image,
    Message,
    Opaque,
    Reasoning,
    RecordError,
    Session,
    Text,
    ToolResult,
    ToolUse,
)

CC = CORPORA / "claude_code"
CC_FILES = sorted(p for p in CC.rglob("*") if p.is_file()) if CC.is_dir() else []
GOLFGOD = CC / "golfgod_v2.0.22_compaction_forks_images.chat.json"
VIEWER = CC / "viewer_v1.0.98_orchestrator_sidechains.jsonl"
TEAMWORK = CC / "teamwork_v2.1.15_progress_queue.chat.json"
TINY = CC / "mimo_v2.1.143_synthetic_error_tiny.jsonl"
MIMO = CC / "mimo_v2.1.145_session_with_subagents"
MIMO_MAIN = MIMO / "9a6e9f2f-17d2-46d1-b68a-cea0a7a21158.jsonl"


# ---------------------------------------------------------------- raw JSON, read independently

def raw_records(path: Path) -> list[dict[str, Any]]:
    """Every record of a file, repeated copies of one uuid counted once (Claude Code rewrites the
    same record when a session is resumed; the copies are identical)."""
    text = path.read_text(encoding="utf-8")
    loaded = json.loads(text) if text.lstrip().startswith("[") else [
        json.loads(line) for line in text.splitlines() if line.strip()]
    seen: set[str] = set()
    out = []
    for rec in loaded:
        uid = rec.get("uuid")
        if uid is not None:
            if uid in seen:
                continue
            seen.add(uid)
        out.append(rec)
    return out


def raw_counts(records: list[dict[str, Any]]) -> Counter[str]:
    """Blocks of user and assistant records; images count both top-level image blocks and the
    images inside tool_result content."""
    counts: Counter[str] = Counter()
    for rec in records:
        if rec.get("type") not in ("user", "assistant"):
            continue
        content = rec["message"].get("content")
        if isinstance(content, str):
            counts["text"] += 1
            continue
        for block in content:
            kind = block["type"]
            if kind in ("thinking", "redacted_thinking"):
                counts["reasoning"] += 1
            else:
                counts[kind] += 1
            if kind == "tool_result" and isinstance(block.get("content"), list):
                counts["image"] += sum(1 for part in block["content"] if part.get("type") == "image")
    return counts


def loaded_counts(sessions: list[Session]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for session in sessions:
        for _, block in session.blocks():
            match block:
                case Text():
                    counts["text"] += 1
                case ToolUse():
                    counts["tool_use"] += 1
                case ToolResult():
                    counts["tool_result"] += 1
                    counts["image"] += len(block.images)
                case Reasoning():
                    counts["reasoning"] += 1
                case Image():
                    counts["image"] += 1
                case Opaque():
                    counts["opaque"] += 1
                case _:
                    assert_never(block)
    return counts


def reply_head(by_uuid: dict[str, dict[str, Any]], uid: str) -> str:
    """The first record of the API reply ``uid`` belongs to: walk up while the parent is an assistant
    record with the same ``message.id``."""
    rec = by_uuid[uid]
    while rec["type"] == "assistant":
        parent = by_uuid.get(rec.get("parentUuid") or "")
        if parent is None or parent["type"] != "assistant" or parent["message"]["id"] != rec["message"]["id"]:
            break
        rec = parent
    return str(rec["uuid"])


def main_session(corpus: Corpus, path: Path) -> Session:
    name = path.name
    found = [s for s in corpus.sessions if s.file.endswith(name) and SIDECHAIN_MARK not in s.id
             and AGENT_MARK not in s.id]
    assert len(found) == 1
    return found[0]


# ---------------------------------------------------------------- the real corpora

@pytest.mark.parametrize("path", CC_FILES, ids=[p.name for p in CC_FILES])
def test_every_file_loads_whole_with_the_block_counts_of_its_raw_json(path: Path) -> None:
    corpus = load(path)
    assert corpus.problems == []
    assert corpus.formats == {path.name: "claude_code"}
    expected = raw_counts(raw_records(path))
    got = loaded_counts(corpus.sessions)
    for kind in ("tool_use", "tool_result", "image", "reasoning", "text"):
        assert got[kind] == expected[kind], kind
    assert got["opaque"] == 0


def test_the_whole_folder_loads_and_every_call_on_a_path_has_its_answer_on_it(corpora: Path) -> None:
    corpus = load(corpora / "claude_code")
    assert corpus.problems == []
    assert len(corpus.files) == len(CC_FILES)
    for session in corpus.sessions:
        path = session.path()
        assert path and path[-1].id == session.tip
        calls = {b.id for m in path[:-1] for b in m.blocks if isinstance(b, ToolUse)}
        answered = {b.tool_use_id for m in path for b in m.blocks if isinstance(b, ToolResult)}
        assert calls <= answered, session.id
        assert answered <= calls | {b.id for b in path[-1].blocks if isinstance(b, ToolUse)}
        for message in session.messages:
            assert message.parent_id is None or message.parent_id in session, message.id


def test_golfgod_forks_tip_and_compaction(corpora: Path) -> None:
    records = raw_records(GOLFGOD)
    by_uuid = {r["uuid"]: r for r in records if "uuid" in r}
    prompts: defaultdict[str, list[str]] = defaultdict(list)
    for rec in records:
        parent = by_uuid.get(rec.get("parentUuid") or "")
        content = rec.get("message", {}).get("content")
        typed = isinstance(content, str) or any(b["type"] == "text" for b in content or [])
        if rec["type"] == "user" and typed and parent is not None and parent["type"] == "assistant":
            prompts[reply_head(by_uuid, parent["uuid"])].append(rec["uuid"])
    forks = {head: kids for head, kids in prompts.items() if len(kids) >= 2}
    assert len(forks) == 2

    session = main_session(load(GOLFGOD), GOLFGOD)
    children = session.children()
    for head, kids in forks.items():
        assert {m.id for m in children[head]} >= set(kids)

    last = [r for r in records if r["type"] in ("user", "assistant") and not r["isSidechain"]][-1]
    assert session.tip == reply_head(by_uuid, last["uuid"])

    boundary = next(r for r in records if r.get("subtype") == "compact_boundary")
    (event,) = [e for e in session.events if e.kind == "compaction"]
    assert isinstance(event.raw, dict)
    assert event.raw["compactMetadata"] == boundary["compactMetadata"]
    assert (event.tokens_before, event.trigger) == (boundary["compactMetadata"]["preTokens"], "auto")
    path = session.path()
    (summary,) = [m for m in path if "compact_summary" in m.tags]
    assert summary.parent_id == event.message_id
    assert path[0].parent_id is None and path.index(summary) > 100
    first_main = next(r for r in records if r["type"] == "user" and not r["isSidechain"])
    assert path[0].id == first_main["uuid"]
    assert [c.model for c in session.run_configs] == ["claude-sonnet-4-5-20250929"]
    assert all(c.surface_hash is None and c.tools is None for c in session.run_configs)


def test_split_replies_merge_into_one_message(corpora: Path) -> None:
    records = raw_records(GOLFGOD)
    groups: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in records:
        if rec["type"] == "assistant":
            groups[rec["message"]["id"]].append(rec)
    biggest = max(groups.values(), key=len)
    assert len(biggest) == 9
    names = {"thinking": "reasoning"}
    expected = [names.get(b["type"], b["type"]) for rec in biggest for b in rec["message"]["content"]]

    session = main_session(load(GOLFGOD), GOLFGOD)
    merged = session.get(biggest[0]["uuid"])
    assert merged is not None
    assert [b.kind for b in merged.blocks] == expected
    assert all(session.get(rec["uuid"]) is None for rec in biggest[1:])
    assert merged.usage is not None
    assert merged.usage.output == biggest[-1]["message"]["usage"]["output_tokens"]
    assert merged.usage.cache_read == biggest[-1]["message"]["usage"]["cache_read_input_tokens"]
    later = {rec["uuid"] for rec in biggest[1:]}
    answers = [r for r in records if r["type"] == "user" and r.get("parentUuid") in later]
    assert answers
    for rec in answers:
        ids = {b["tool_use_id"] for b in rec["message"]["content"] if b["type"] == "tool_result"}
        (holder,) = [m for m in session.messages
                     if ids & {b.tool_use_id for b in m.blocks if isinstance(b, ToolResult)}]
        assert holder.parent_id == merged.id


def test_parallel_results_written_as_sibling_records_are_one_user_message(corpora: Path) -> None:
    records = raw_records(MIMO_MAIN)
    by_uuid = {r["uuid"]: r for r in records if "uuid" in r}
    answered: defaultdict[str, set[str]] = defaultdict(set)
    for rec in records:
        if rec["type"] == "user" and isinstance(rec["message"]["content"], list):
            ids = {b["tool_use_id"] for b in rec["message"]["content"] if b["type"] == "tool_result"}
            parent = by_uuid.get(rec["parentUuid"] or "")
            if ids and parent is not None and parent["type"] == "assistant":
                answered[reply_head(by_uuid, parent["uuid"])] |= ids
    session = main_session(load(MIMO_MAIN), MIMO_MAIN)
    for head, ids in answered.items():
        holders = [m for m in session.messages
                   if {b.tool_use_id for b in m.blocks if isinstance(b, ToolResult)} & ids]
        assert len(holders) == 1, head
        assert {b.tool_use_id for b in holders[0].blocks if isinstance(b, ToolResult)} == ids
        assert holders[0].parent_id == head
    assert max(len(ids) for ids in answered.values()) > 1


def test_inlined_sidechains_are_sessions_linked_to_their_task_call(corpora: Path) -> None:
    records = raw_records(VIEWER)
    tasks = {b["input"]["prompt"]: b["id"] for r in records if r["type"] == "assistant" and not r["isSidechain"]
             for b in r["message"]["content"] if b["type"] == "tool_use" and b["name"] == "Task"}
    roots = {r["uuid"]: r["message"]["content"] for r in records
             if r.get("isSidechain") and r.get("parentUuid") is None}
    assert len(roots) == 5
    sid = records[1]["sessionId"]

    corpus = load(VIEWER)
    sides = {s.id: s for s in corpus.sessions if SIDECHAIN_MARK in s.id}
    assert set(sides) == {f"{sid}{SIDECHAIN_MARK}{root}" for root in roots}
    for root, prompt in roots.items():
        side = sides[f"{sid}{SIDECHAIN_MARK}{root}"]
        assert side.parent_session_id == sid
        assert side.spawn_call_id == tasks[prompt]
        assert side.path()[0].id == root
        assert all(m.sidechain for m in side.messages)
    assert not any(m.sidechain for m in corpus.session(sid).messages)
    assert corpus.session(sid).title == records[0]["summary"]

    warmup = [s for s in load(GOLFGOD).sessions if SIDECHAIN_MARK in s.id]
    assert len(warmup) == 1 and warmup[0].spawn_call_id is None
    assert [c.model for c in warmup[0].run_configs] == ["claude-haiku-4-5-20251001"]


def test_subagent_files_link_to_the_parent_session_and_the_spawning_call(corpora: Path) -> None:
    spawned: dict[str, str] = {}
    for rec in raw_records(MIMO_MAIN):
        result = rec.get("toolUseResult")
        if isinstance(result, dict) and "agentId" in result:
            spawned[result["agentId"]] = rec["message"]["content"][0]["tool_use_id"]
    sid = MIMO_MAIN.stem
    corpus = load(MIMO)
    assert corpus.problems == []
    for agent_file in sorted((MIMO / "subagents").glob("agent-*.jsonl")):
        agent = raw_records(agent_file)[0]["agentId"]
        session = corpus.session(f"{sid}{AGENT_MARK}{agent}")
        assert session.parent_session_id == sid
        assert session.spawn_call_id == spawned[agent]
        calls = [b for _, b in corpus.session(sid).blocks() if isinstance(b, ToolUse) and b.id == spawned[agent]]
        assert len(calls) == 1 and calls[0].name == "Agent"
        assert isinstance(calls[0].input, dict) and session.title == calls[0].input["description"]

        alone = load(agent_file)
        assert alone.problems == []
        (only,) = alone.sessions
        assert only.id == session.id and only.parent_session_id == sid and only.spawn_call_id is None


def test_mimo_titles_reasoning_providers_and_last_prompt(corpora: Path) -> None:
    records = raw_records(MIMO_MAIN)
    session = main_session(load(MIMO_MAIN), MIMO_MAIN)
    assert session.title == [r for r in records if r["type"] == "ai-title"][-1]["aiTitle"]
    reasoning = [b for _, b in session.blocks() if isinstance(b, Reasoning)]
    assert reasoning and {(b.provider, b.model) for b in reasoning} == {("xiaomi", "mimo-v2.5-pro")}
    by_uuid = {r["uuid"]: r for r in records if "uuid" in r}
    last_leaf = [r for r in records if r["type"] == "last-prompt"][-1]["leafUuid"]
    assert reply_head(by_uuid, last_leaf) in {m.id for m in session.path()}
    assert [e.text for e in session.events if e.type == "client"] == ["claude_code 2.1.145"]
    kinds = Counter(e.kind for e in session.events if e.type != "client")
    assert kinds["attachment"] == sum(1 for r in records if r["type"] == "attachment")
    assert kinds["meta"] == sum(1 for r in records if r["type"] in (
        "queue-operation", "ai-title", "last-prompt", "file-history-snapshot", "system"))


def test_thinking_keeps_signature_provider_and_model(corpora: Path) -> None:
    records = raw_records(GOLFGOD)
    signatures = [b["signature"] for r in records if r["type"] == "assistant"
                  for b in r["message"]["content"] if b["type"] == "thinking"]
    session = main_session(load(GOLFGOD), GOLFGOD)
    reasoning = [b for _, b in session.blocks() if isinstance(b, Reasoning)]
    assert [b.signature for b in reasoning] == signatures
    assert {(b.provider, b.model, b.redacted) for b in reasoning} == {
        ("anthropic", "claude-sonnet-4-5-20250929", False)}


def test_pasted_images_are_stored_once_by_content_hash(corpora: Path) -> None:
    payloads = [base64.b64decode(b["source"]["data"]) for r in raw_records(GOLFGOD) if r["type"] == "user"
                and isinstance(r["message"]["content"], list)
                for b in r["message"]["content"] if b["type"] == "image"]
    corpus = load(GOLFGOD)
    images = [b for s in corpus.sessions for _, b in s.blocks() if isinstance(b, Image)]
    assert [i.sha256 for i in images] == [hashlib.sha256(p).hexdigest() for p in payloads]
    for image, payload in zip(images, payloads, strict=True):
        assert corpus.images[image.sha256 or ""] == payload
        with PILImage.open(io.BytesIO(payload)) as pixels:
            assert (image.media_type, image.width, image.height, image.size) == (
                "image/png", pixels.width, pixels.height, len(payload))


def test_synthetic_error_stub_and_attachment_parent(corpora: Path) -> None:
    records = raw_records(TINY)
    by_type = {r["type"]: r for r in records}
    session = load(TINY).sessions[0]
    stub = session.get(by_type["assistant"]["uuid"])
    assert stub is not None
    assert {"synthetic", "api_error"} <= set(stub.tags) and stub.provider is None
    assert stub.parent_id == by_type["user"]["uuid"]  # the raw parent is the attachment record
    assert session.tip == by_type["last-prompt"]["leafUuid"]
    assert session.run_configs == ()
    (error,) = [e for e in session.events if e.kind == "error"]
    assert error.message_id == stub.id and error.text == by_type["assistant"]["message"]["content"][0]["text"]
    (attachment,) = [e for e in session.events if e.kind == "attachment"]
    assert attachment.type == by_type["attachment"]["attachment"]["type"]
    assert attachment.message_id == by_type["user"]["uuid"]


def test_progress_queue_and_hook_records_are_events(corpora: Path) -> None:
    records = raw_records(TEAMWORK)
    session = main_session(load(TEAMWORK), TEAMWORK)
    assert [e.text for e in session.events if e.type == "client"] == ["claude_code 2.1.15"]
    kept = [e for e in session.events if e.type != "client"]
    kinds = Counter(e.kind for e in kept)
    types = Counter(r["type"] for r in records)
    assert kinds["progress"] == types["progress"]
    assert kinds["meta"] == types["queue-operation"] + types["file-history-snapshot"] + types["system"]
    assert len(kept) == sum(n for t, n in types.items() if t not in ("user", "assistant"))
    progress = [e for e in session.events if e.kind == "progress"]
    assert {e.type for e in progress} == {r["data"]["type"] for r in records if r["type"] == "progress"}


def test_sniff_claims_claude_code_and_nothing_else(corpora: Path) -> None:
    for path in sorted(p for p in corpora.rglob("*") if p.is_file() and p.name != "SOURCES.md"):
        head = path.read_bytes()[:SNIFF_BYTES].decode("utf-8", errors="replace")
        assert IMPORTER.sniff(Head.of_text(path, head)) == (CC in path.parents), path.name


def test_no_record_of_a_real_claude_code_file_looks_like_qwen_code(corpora: Path) -> None:
    """The sniff's Qwen Code rule cannot turn away a real Claude Code file: no record of one has it,
    while no line of the shared Qwen Code chat passes for a Claude Code record."""
    files = [*CC_FILES, *sorted((REPO / "data" / "claude_code").glob("*.jsonl"))]
    records = [rec for path in files for rec in raw_records(path)]
    assert len(files) >= 11 and len(records) > 2000
    assert not any(qwen_code_record(rec) for rec in records)
    for path in sorted((corpora / "qwen_code").rglob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        assert lines and not any(map(looks_like_record, lines)), path.name


# ---------------------------------------------------------------- hand-made input

SID = "5e551011-0000-4000-8000-000000000001"


class Transcript:
    """Builds Claude Code records (2.x field layout) and writes them as JSONL or a JSON array."""

    def __init__(self, session_id: str = SID) -> None:
        self.session_id = session_id
        self.lines: list[bytes] = []
        self.clock = 0

    def record(self, kind: str, uid: str | None, parent: str | None, **extra: Any) -> dict[str, Any]:
        self.clock += 1
        rec: dict[str, Any] = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/w",
                               "sessionId": self.session_id, "version": "2.1.15", "type": kind,
                               "timestamp": f"2026-01-01T00:00:{self.clock:02d}.000Z", **extra}
        if uid is not None:
            rec["uuid"] = uid
        return rec

    def user(self, uid: str, parent: str | None, content: Any, **extra: Any) -> Transcript:
        return self.add(self.record("user", uid, parent, message={"role": "user", "content": content}, **extra))

    def assistant(self, uid: str, parent: str | None, content: list[Any], msg: str | None = None,
                  model: str = "claude-sonnet-4-5-20250929") -> Transcript:
        message = {"id": msg or f"msg_{uid}", "type": "message", "role": "assistant", "model": model,
                   "content": content, "usage": {"input_tokens": 3, "output_tokens": 7}}
        return self.add(self.record("assistant", uid, parent, message=message))

    def add(self, rec: dict[str, Any]) -> Transcript:
        self.lines.append(json.dumps(rec, ensure_ascii=False).encode("utf-8"))
        return self

    def raw(self, line: bytes) -> Transcript:
        self.lines.append(line)
        return self

    def base(self) -> Transcript:
        """u1 asks, a1 calls Bash, u2 answers, a2 concludes: lines 1-4."""
        return (self.user("u1", None, "hello")
                .assistant("a1", "u1", [{"type": "text", "text": "listing"},
                                        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}])
                .user("u2", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": "file.txt"}])
                .assistant("a2", "u2", [{"type": "text", "text": "done"}]))

    def write(self, path: Path, newline_at_end: bool = True) -> Path:
        path.write_bytes(b"\n".join(self.lines) + (b"\n" if newline_at_end else b""))
        return path


def png(width: int = 3, height: int = 2) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), (200, 10, 10)).save(out, format="PNG")
    return out.getvalue()


def message(session: Session, message_id: str) -> Message:
    found = session.get(message_id)
    assert found is not None, message_id
    return found


def line_of_message(session: Session, message_id: str) -> int | None:
    source = message(session, message_id).source
    assert source is not None
    return source.line


def only_session(corpus: Corpus) -> Session:
    (session,) = corpus.sessions
    return session


BAD_INPUTS: dict[str, tuple[Any, int | None, str, int]] = {
    # name: (build, line, reason fragment, messages that still load)
    "truncated last line": (lambda t: t.base().raw(b'{"parentUuid": "a2", "type": "user", "mess'), 5,
                            "truncated last line", 4),
    "non-JSON line": (lambda t: t.user("u1", None, "hello").raw(b"this is not json")
                      .assistant("a1", "u1", [{"type": "text", "text": "hi"}]), 2, "not valid JSON", 2),
    # the record is kept with U+FFFD in place of the bad bytes
    "invalid UTF-8": (lambda t: t.base().raw(b'{"type": "user", "uuid": "u9", "note": "\xff\xfe"}'), 5,
                      "not valid UTF-8", 5),
    "unknown record type": (lambda t: t.base().add(t.record("hologram", "x1", "a2", payload=[1, 2]))
                            .user("u3", "x1", "after"), 5, "unknown record type 'hologram'", 5),
    "unknown block type": (lambda t: t.user("u1", None, "hi").assistant(
        "a1", "u1", [{"type": "text", "text": "look"}, {"type": "hologram", "payload": [1, 2]}]), 2,
                           "unknown content block type 'hologram'", 2),
    "missing parent": (lambda t: t.base().user("u3", "ghost", "orphaned prompt"), 5,
                       "parent ghost of u3 is not in the file", 5),
    "parent cycle": (lambda t: t.base().user("c1", "c2", "one").assistant("c2", "c1", [{"type": "text", "text": "two"}]),
                     5, "parent cycle", 6),
    "duplicate ids": (lambda t: t.base().user("u1", None, "hello, but different"), 5, "duplicate uuid u1", 4),
    "orphan tool result": (lambda t: t.base().user(
        "u3", "a2", [{"type": "tool_result", "tool_use_id": "t_gone", "content": "late"}]), 5,
                           "tool_use 't_gone', which is not in the file", 5),
    "tool input not JSON": (lambda t: t.user("u1", None, "go").assistant(
        "a1", "u1", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": "{oops"}]), 2,
                            "input is not a JSON object", 2),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_reported_with_file_line_and_reason_and_the_rest_loads(case: str, tmp_path: Path) -> None:
    build, line, fragment, messages = BAD_INPUTS[case]
    path = build(Transcript()).write(tmp_path / "bad.jsonl", newline_at_end=case != "truncated last line")
    corpus = load(path)
    assert corpus.formats == {"bad.jsonl": "claude_code"}
    found = [p for p in corpus.problems if fragment in p.reason]
    assert [(p.file, p.line) for p in found] == [("bad.jsonl", line)], corpus.problems
    assert sum(len(s.messages) for s in corpus.sessions) == messages
    with pytest.raises(RecordError) as raised:
        load(path, strict=True)
    assert raised.value.problem.file == "bad.jsonl"


def test_bad_input_keeps_what_it_did_not_understand(tmp_path: Path) -> None:
    unknown = only_session(load(BAD_INPUTS["unknown record type"][0](Transcript()).write(tmp_path / "a.jsonl")))
    (other,) = [e for e in unknown.events if e.kind == "other"]
    assert isinstance(other.raw, dict) and other.raw["payload"] == [1, 2] and other.type == "hologram"
    assert other.message_id == "a2" and message(unknown, "u3").parent_id == "a2"

    block = only_session(load(BAD_INPUTS["unknown block type"][0](Transcript()).write(tmp_path / "b.jsonl")))
    opaque = [b for _, b in block.blocks() if isinstance(b, Opaque)]
    assert [(o.type, o.raw) for o in opaque] == [("hologram", {"type": "hologram", "payload": [1, 2]})]

    bad_input = only_session(load(BAD_INPUTS["tool input not JSON"][0](Transcript()).write(tmp_path / "c.jsonl")))
    (call,) = [b for _, b in bad_input.blocks() if isinstance(b, ToolUse)]
    assert (call.input, call.raw_input, call.input_valid) == (None, "{oops", False)

    orphan = only_session(load(BAD_INPUTS["orphan tool result"][0](Transcript()).write(tmp_path / "d.jsonl")))
    assert message(orphan, "u3").blocks == (ToolResult("t_gone", "late"),)

    missing = only_session(load(BAD_INPUTS["missing parent"][0](Transcript()).write(tmp_path / "e.jsonl")))
    assert message(missing, "u3").parent_id == "ghost"

    cycle = only_session(load(BAD_INPUTS["parent cycle"][0](Transcript()).write(tmp_path / "f.jsonl")))
    assert message(cycle, "c1").parent_id is None and message(cycle, "c2").parent_id == "c1"
    assert cycle.tip is not None and len(cycle.path()) >= 2

    duplicate = only_session(load(BAD_INPUTS["duplicate ids"][0](Transcript()).write(tmp_path / "g.jsonl")))
    assert message(duplicate, "u1").text == "hello"


def test_identical_repeated_records_load_once_without_a_problem(tmp_path: Path) -> None:
    transcript = Transcript().base()
    transcript.lines.extend(transcript.lines[1:3])
    corpus = load(transcript.write(tmp_path / "resumed.jsonl"))
    assert corpus.problems == []
    assert [m.id for m in only_session(corpus).messages] == ["u1", "a1", "u2", "a2"]


def test_empty_file_is_a_problem_and_strict_raises(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for forced in (None, "claude_code"):
        corpus = load(empty, format=forced)
        assert corpus.sessions == []
        assert [(p.file, p.line) for p in corpus.problems] == [("empty.jsonl", None)]
        assert "empty" in corpus.problems[0].reason
        with pytest.raises(RecordError):
            load(empty, strict=True, format=forced)


def test_json_array_dump_matches_jsonl_and_names_record_lines(corpora: Path, tmp_path: Path) -> None:
    records = raw_records(TINY)
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(records, indent=2, ensure_ascii=False), encoding="utf-8")
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(records), encoding="utf-8")
    reference = load(TINY).sessions
    for path in (pretty, compact):
        sessions = load(path).sessions
        assert [(s.id, s.tip, s.title) for s in sessions] == [(s.id, s.tip, s.title) for s in reference]
        for mine, theirs in zip(sessions, reference, strict=True):
            assert [(m.id, m.parent_id, m.role, m.blocks, m.tags) for m in mine.messages] == [
                (m.id, m.parent_id, m.role, m.blocks, m.tags) for m in theirs.messages]
    opens = [n for n, text in enumerate(pretty.read_text(encoding="utf-8").splitlines(), 1) if text == "  {"]
    user_index = next(i for i, r in enumerate(records) if r["type"] == "user")
    (pretty_session,) = load(pretty).sessions
    (compact_session,) = load(compact).sessions
    user = records[user_index]["uuid"]
    assert line_of_message(pretty_session, user) == opens[user_index]
    assert line_of_message(compact_session, user) == user_index + 1


def test_a_broken_json_array_keeps_the_records_before_the_break(corpora: Path, tmp_path: Path) -> None:
    records = raw_records(TINY)
    text = json.dumps(records, indent=2)
    opens = [n for n, line in enumerate(text.splitlines(), 1) if line == "  {"]
    cut = tmp_path / "cut.json"
    cut.write_text("\n".join(text.splitlines()[: opens[4] + 3]), encoding="utf-8")
    corpus = load(cut)
    assert [(p.file, p.line) for p in corpus.problems] == [("cut.json", opens[4])]
    assert "record 5 is not valid JSON" in corpus.problems[0].reason
    kept = {m.id for s in corpus.sessions for m in s.messages}
    assert kept == {r["uuid"] for r in records[:4] if r["type"] in ("user", "assistant")}


def test_last_prompt_names_the_branch_the_tip_is_on(tmp_path: Path) -> None:
    def branched() -> Transcript:
        return (Transcript().user("u1", None, "start").assistant("a1", "u1", [{"type": "text", "text": "ok"}])
                .user("u2", "a1", "first try").assistant("a2", "u2", [{"type": "text", "text": "one"}])
                .user("u3", "a1", "second try").assistant("a3", "u3", [{"type": "text", "text": "two"}]))

    newest = only_session(load(branched().write(tmp_path / "newest.jsonl")))
    assert newest.tip == "a3" and {m.id for m in newest.children()["a1"]} == {"u2", "u3"}
    named = branched()
    named.add({"type": "last-prompt", "lastPrompt": "first try", "leafUuid": "u2", "sessionId": SID})
    chosen = only_session(load(named.write(tmp_path / "named.jsonl")))
    assert chosen.tip == "a2" and [m.id for m in chosen.path()] == ["u1", "a1", "u2", "a2"]


def test_resumed_file_with_two_session_ids_is_one_session(tmp_path: Path) -> None:
    new_id = "5e551011-0000-4000-8000-000000000002"
    first = Transcript().base()
    second = Transcript(new_id).user("u3", "a2", "continue").assistant("a3", "u3", [{"type": "text", "text": "more"}])
    first.lines.extend(second.lines)
    session = only_session(load(first.write(tmp_path / f"{new_id}.jsonl")))
    assert session.id == new_id
    assert [m.id for m in session.path()] == ["u1", "a1", "u2", "a2", "u3", "a3"]


def test_tool_result_images_redacted_thinking_and_url_images(tmp_path: Path) -> None:
    pixels = png()
    encoded = base64.b64encode(pixels).decode("ascii")
    transcript = (Transcript().user("u1", None, [
        {"type": "image", "source": {"type": "url", "url": "https://example.org/cat.png"}},
        {"type": "text", "text": "see"}])
        .assistant("a1", "u1", [{"type": "redacted_thinking", "data": "EncryptedBlob"},
                                {"type": "tool_use", "id": "t1", "name": "mcp__shots__take", "input": {}}])
        .user("u2", "a1", [{"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": [
            {"type": "text", "text": "two shots"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": encoded}},
            {"type": "tool_reference", "tool_name": "take"}]}],
              toolUseResult={"shots": 1}))
    corpus = load(transcript.write(tmp_path / "shots.jsonl"))
    assert corpus.problems == []
    session = only_session(corpus)
    (url_image,) = [b for _, b in session.blocks() if isinstance(b, Image)]
    assert (url_image.url, url_image.sha256, url_image.media_type) == ("https://example.org/cat.png", None, "image/png")
    (thought,) = [b for _, b in session.blocks() if isinstance(b, Reasoning)]
    assert (thought.redacted, thought.signature, thought.text, thought.provider) == (
        True, "EncryptedBlob", "", "anthropic")
    (result,) = [b for _, b in session.blocks() if isinstance(b, ToolResult)]
    assert result.is_error and result.detail == {"shots": 1}
    assert result.output == 'two shots\n{"type":"tool_reference","tool_name":"take"}'
    (shot,) = result.images
    assert (shot.sha256, shot.size, shot.width, shot.height) == (hashlib.sha256(pixels).hexdigest(), len(pixels), 3, 2)
    assert corpus.images[shot.sha256 or ""] == pixels


def test_sniff_reads_a_first_line_longer_than_the_sniffed_head(tmp_path: Path) -> None:
    path = Transcript().user("u1", None, "x" * (2 * SNIFF_BYTES)).write(tmp_path / "long.jsonl")
    head = path.read_bytes()[:SNIFF_BYTES].decode("utf-8", errors="replace")
    assert IMPORTER.sniff(Head.of_text(path, head))
    assert not IMPORTER.sniff(Head.of_text(path, '{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}\n'))
    assert not IMPORTER.sniff(Head.of_text(path, '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]'))


def qwen_chat(first: str = "is there a rule?") -> list[dict[str, Any]]:
    """A small Qwen Code 0.14 chat, as ``~/.qwen/projects/<project>/chats/<session>.jsonl`` holds it:
    Claude Code's record envelope around Gemini ``Content`` parts, telemetry as ``system`` records."""
    envelope = {"sessionId": "qwen-s1", "cwd": "C:\\work", "version": "0.14.0", "gitBranch": "main"}
    return [
        {"uuid": "q1", "parentUuid": None, **envelope, "timestamp": "2026-04-07T02:23:07.292Z", "type": "user",
         "message": {"role": "user", "parts": [{"text": first}]}},
        {"uuid": "q2", "parentUuid": "q1", **envelope, "timestamp": "2026-04-07T02:23:14.621Z", "type": "system",
         "subtype": "ui_telemetry", "systemPayload": {"uiEvent": {"event.name": "qwen-code.api_response",
                                                                  "input_token_count": 210, "output_token_count": 34}}},
        {"uuid": "q3", "parentUuid": "q2", **envelope, "timestamp": "2026-04-07T02:23:14.728Z", "type": "assistant",
         "model": "coder-model", "message": {"role": "model", "parts": [
             {"text": "Look for rule files.", "thought": True},
             {"functionCall": {"id": "call_1", "name": "list_directory", "args": {"path": "."}}}]}},
        {"uuid": "q4", "parentUuid": "q3", **envelope, "timestamp": "2026-04-07T02:23:15.001Z", "type": "tool_result",
         "message": {"role": "user", "parts": [{"functionResponse": {
             "id": "call_1", "name": "list_directory", "response": {"output": "QWEN.md"}}}]},
         "toolCallResult": {"callId": "call_1", "status": "success"}},
        {"uuid": "q5", "parentUuid": "q4", **envelope, "timestamp": "2026-04-07T02:23:16.100Z", "type": "system",
         "subtype": "slash_command", "systemPayload": {"phase": "invocation", "rawCommand": "/stats"}},
    ]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(rec, separators=(",", ":")) + "\n" for rec in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("layout", ["as written", "opening with a system record", "first line past the head"])
def test_a_qwen_code_chat_is_not_claimed(layout: str, tmp_path: Path) -> None:
    """Read as Claude Code, a Qwen Code chat would load as a session without a single tool call and a
    problem per tool result: the Claude Code sniff says no, and the Qwen Code importer reads it."""
    records = qwen_chat("x" * (2 * SNIFF_BYTES) if layout == "first line past the head" else "is there a rule?")
    if layout == "opening with a system record":
        records = [records[4], *records[:4]]
    path = write_jsonl(tmp_path / "chats" / "qwen-s1.jsonl", records)
    head_bytes = path.read_bytes()[:SNIFF_BYTES]
    assert not opens_with_record(Head(path, head_bytes))
    assert not IMPORTER.sniff(Head.of_text(path, head_bytes.decode("utf-8", errors="replace")))
    corpus = load(tmp_path, progress=False)
    assert corpus.formats == {str(Path("chats", "qwen-s1.jsonl")): "qwen_code"}
    (session,) = corpus.sessions
    assert len(session.messages) == 3 and session.tip == "q4"
    expected = [] if layout != "opening with a system record" else [
        f"{Path('chats', 'qwen-s1.jsonl')}:1: parent q4 is not an earlier record of the file; the record is a root"]
    assert [str(p) for p in corpus.problems] == expected


def test_a_claude_code_record_beside_qwen_keys_is_still_claude_code(tmp_path: Path) -> None:
    """A message is Qwen's only where ``parts`` stands in for ``content``: a Claude Code message that
    also carried ``parts`` is still read."""
    path = Transcript().user("u1", None, "hello").write(tmp_path / "cc.jsonl")
    (record,) = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    record["message"]["parts"] = [{"text": "hello"}]
    write_jsonl(path, [record])
    assert looks_like_record(record) and not qwen_code_record(record)
    assert load(path).formats == {"cc.jsonl": "claude_code"}


def test_records_outside_the_tree_are_kept_even_without_messages(tmp_path: Path) -> None:
    path = tmp_path / "titles.jsonl"
    path.write_text('{"type": "summary", "summary": "Old chat", "leafUuid": "elsewhere"}\n'
                    f'{{"type": "custom-title", "customTitle": "Renamed", "sessionId": "{SID}"}}\n', encoding="utf-8")
    corpus = load(path)
    assert corpus.problems == []
    session = only_session(corpus)
    assert (session.messages, session.tip, session.title) == ((), None, "Renamed")
    assert [(e.kind, e.type, e.text, e.message_id) for e in session.events] == [
        ("summary", "summary", "Old chat", None), ("meta", "custom-title", "Renamed", None)]


def test_a_cycle_of_non_message_records_is_reported_once(tmp_path: Path) -> None:
    transcript = Transcript().user("u1", None, "hi")
    transcript.add(transcript.record("system", "x", "y", subtype="informational", content="a"))
    transcript.add(transcript.record("system", "y", "x", subtype="informational", content="b"))
    transcript.assistant("a1", "x", [{"type": "text", "text": "yo"}])
    corpus = load(transcript.write(tmp_path / "loop.jsonl"))
    assert [(p.line, "parent cycle" in p.reason) for p in corpus.problems] == [(3, True)]
    assert message(only_session(corpus), "a1").parent_id is None


def test_compaction_facts_are_event_fields_and_bad_ones_are_none(tmp_path: Path) -> None:
    transcript = Transcript().base()
    transcript.add(transcript.record("system", "b1", None, logicalParentUuid="a2", subtype="compact_boundary",
                                     content="Conversation compacted",
                                     compactMetadata={"trigger": "manual", "preTokens": 1234}))
    transcript.user("s1", "b1", "This session is being continued...", isCompactSummary=True)
    transcript.add(transcript.record("system", "b2", "s1", subtype="microcompact_boundary",
                                     microcompactMetadata={"trigger": 7, "preTokens": "many"}))
    transcript.add(transcript.record("system", "b3", "b2", subtype="compact_boundary"))
    session = only_session(load(transcript.write(tmp_path / "c.jsonl")))
    facts = [(e.type, e.tokens_before, e.trigger) for e in session.events if e.kind == "compaction"]
    assert facts == [("compact_boundary", 1234, "manual"), ("microcompact_boundary", None, None),
                     ("compact_boundary", None, None)]
    assert all(e.tokens_before is None and e.trigger is None for e in session.events if e.kind != "compaction")


@pytest.mark.skipif(not VIEWER.is_file(), reason="../shared/corpora is absent")
def test_the_build_holds_where_records_lie_and_lets_each_go_once_it_is_made() -> None:
    """The parsed records of a large file cost about three times its size: read from a file, the tree
    is built from each record's ids and where it lies (``Spot``), each record parsed again when the
    build comes to it and let go once made a message or an event; the sessions are those of the same
    bytes held in memory, sidechains included."""
    from toolkit.corpus.formats import claude_code
    from toolkit.corpus.formats.importer import ImportContext, Spot, iter_json_line_spots

    ctx = ImportContext()
    reader = claude_code._FileReader(VIEWER, ctx)
    indexed = reader._index
    held: list[object] = []

    def index(*args: Any) -> Any:
        found = indexed(*args)
        held.extend(node[1] for node in found[0])
        held.extend(kept for _, kept in found[1])
        return found

    reader._index = index  # type: ignore[method-assign,assignment]
    with VIEWER.open("rb") as again:
        sessions = reader.build(iter_json_line_spots(VIEWER, ctx), again)
    assert held and all(isinstance(kept, Spot) for kept in held)
    assert reader.nodes and all(node[1] is claude_code.RELEASED for node in reader.nodes.values())
    assert not claude_code.RELEASED
    assert sessions == claude_code.read(VIEWER, ImportContext(), VIEWER.read_bytes())
    assert sessions == claude_code.read(VIEWER, ImportContext())
    assert any(SIDECHAIN_MARK in s.id for s in sessions)


@pytest.mark.skipif(not VIEWER.is_file(), reason="../shared/corpora is absent")
def test_a_line_changed_between_the_two_readings_is_a_problem_not_a_wrong_record(tmp_path: Path) -> None:
    """The file is read twice (ids for the tree, then each record): a line rewritten in between is
    reported with its number and not read as another record; the rest reads as before."""
    from toolkit.corpus.formats import claude_code
    from toolkit.corpus.formats.importer import ImportContext, iter_json_line_spots

    path = tmp_path / "s.jsonl"
    lines = VIEWER.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines))
    changed = next(i for i, line in enumerate(lines) if b'"type": "user"' in line or b'"type":"user"' in line)

    def rewritten(*args: Any) -> Any:
        yield from iter_json_line_spots(*args)
        old = lines[changed]
        path.write_bytes(b"".join([*lines[:changed], old.replace(b"user", b"USER", 1), *lines[changed + 1:]]))

    ctx = ImportContext()
    with path.open("rb") as again:
        sessions = claude_code._FileReader(path, ctx).build(rewritten(path, ctx), again)
    assert [(p.line, "changed while the file was read" in p.reason) for p in ctx.problems] == [(changed + 1, True)]
    whole = claude_code.read(VIEWER, ImportContext())
    assert sum(len(s.messages) for s in sessions) == sum(len(s.messages) for s in whole) - 1
    # the record not read leaves no parent id behind that is no message: its children hang from its parent
    assert all(m.parent_id is None or m.parent_id in {n.id for n in s.messages} for s in sessions for m in s.messages)


@pytest.mark.skipif(not VIEWER.is_file(), reason="../shared/corpora is absent")
def test_a_file_past_the_held_size_is_read_twice_to_the_same_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a file over ``HELD_WHOLE_BYTES`` takes the two readings (a tenth more time for a third of
    the memory); it reads to the sessions the one reading gives."""
    from toolkit.corpus.formats import claude_code
    from toolkit.corpus.formats.importer import ImportContext, reparse

    once = claude_code.read(VIEWER, ImportContext())
    parsed_again: list[int] = []

    def counted(*args: Any) -> Any:
        parsed_again.append(1)
        return reparse(*args)

    monkeypatch.setattr(claude_code, "reparse", counted)
    assert claude_code.read(VIEWER, ImportContext()) == once and not parsed_again
    monkeypatch.setattr(claude_code, "HELD_WHOLE_BYTES", VIEWER.stat().st_size - 1)
    assert claude_code.read(VIEWER, ImportContext()) == once and parsed_again


@pytest.mark.skipif(not VIEWER.is_file(), reason="../shared/corpora is absent")
def test_a_large_file_with_cr_line_ends_is_not_read_again_record_by_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records ended by CR alone are one physical line: read twice, each record would read and salvage
    the whole file again. They are held as parsed, and read to the sessions the LF file gives."""
    from toolkit.corpus.formats import claude_code
    from toolkit.corpus.formats.importer import ImportContext, reparse

    crs = tmp_path / "s.jsonl"
    crs.write_bytes(VIEWER.read_bytes().replace(b"\n", b"\r"))
    parsed_again: list[int] = []

    def counted(*args: Any) -> Any:
        parsed_again.append(1)
        return reparse(*args)

    monkeypatch.setattr(claude_code, "reparse", counted)
    monkeypatch.setattr(claude_code, "HELD_WHOLE_BYTES", 0)
    sessions = claude_code.read(crs, ImportContext())
    assert not parsed_again
    lf = tmp_path / "lf.jsonl"
    lf.write_bytes(VIEWER.read_bytes())
    assert [len(s.messages) for s in sessions] == [len(s.messages) for s in claude_code.read(lf, ImportContext())]


@pytest.mark.skipif(not VIEWER.is_file(), reason="../shared/corpora is absent")
def test_a_changed_line_whose_record_repeats_is_reported_once(tmp_path: Path) -> None:
    """The first copy of a repeated record is read again to compare it with the second, and again to
    build it: a line changed between the readings is still one problem."""
    from toolkit.corpus.formats import claude_code
    from toolkit.corpus.formats.importer import ImportContext, iter_json_line_spots

    path = tmp_path / "s.jsonl"
    lines = VIEWER.read_bytes().splitlines(keepends=True)
    changed = next(i for i, line in enumerate(lines) if b'"type": "user"' in line or b'"type":"user"' in line)
    lines.insert(changed + 1, json.dumps(json.loads(lines[changed]), separators=(",", ":")).encode() + b"\n")
    path.write_bytes(b"".join(lines))  # the repeat in other bytes: the first copy is read again to compare

    def rewritten(*args: Any) -> Any:
        for found in iter_json_line_spots(*args):
            if found[0] == changed + 2:
                old = lines[changed]
                path.write_bytes(b"".join([*lines[:changed], old.replace(b"user", b"USER", 1), *lines[changed + 1:]]))
            yield found

    ctx = ImportContext()
    with path.open("rb") as again:
        claude_code._FileReader(path, ctx).build(rewritten(path, ctx), again)
    assert [p.line for p in ctx.problems if "changed while the file was read" in p.reason] == [changed + 1]
