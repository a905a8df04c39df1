"""The compactions real clients made, listed from the record and checked against the source files read
with ``json`` alone; a hand-built session for the gaps (no summary, no usage, unknown model); the
parquet round trip; the command line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA
from toolkit.cli import main
from toolkit.compaction.recorded import SCHEMA, history_before, observed
from toolkit.corpus import load
from toolkit.record import Event, Message, Session, SourceRef, Text, ToolResult, ToolUse, Usage, packed

GOLFGOD = Path("claude_code") / "golfgod_v2.0.22_compaction_forks_images.chat.json"
RPS3 = Path("codex") / "rps3_cli0.47.0_compacted.jsonl"


def _context(usage: dict[str, Any]) -> int:
    return int(usage["input_tokens"] + usage.get("cache_read_input_tokens", 0)
               + usage.get("cache_creation_input_tokens", 0))


def test_golfgod_compaction_has_its_real_pre_tokens_and_trigger(corpora: Path) -> None:
    records: list[dict[str, Any]] = json.loads((corpora / GOLFGOD).read_text(encoding="utf-8"))
    at = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    boundary = records[at]
    summary = next(r for r in records[at:] if r.get("isCompactSummary"))
    replies = [r for r in records if r["type"] == "assistant" and not r["isSidechain"]]
    last = [r for r in replies if records.index(r) < at][-1]
    first = next(r for r in replies if records.index(r) > at)

    (row,) = observed(load(corpora / GOLFGOD)).to_dicts()
    assert (row["trigger"], row["tokens_before"], row["source"]) == ("auto", 157_932, "reported")
    assert (row["trigger_from"], row["version"], row["after_source"]) == ("record", "2.0.22", "usage")
    assert row["tokens_before"] == boundary["compactMetadata"]["preTokens"]
    assert row["message_id"] == summary["uuid"] and row["summary_chars"] == len(summary["message"]["content"])
    assert row["tokens_after"] == _context(first["message"]["usage"]) == 58_685
    assert row["model"] == last["message"]["model"] and row["client"] == "claude_code"
    assert row["time"] == datetime(2025, 10, 21, 0, 1, 8, 506000, tzinfo=UTC)
    assert row["index"] is not None and row["index"] > 100 and 0 < row["summary_tokens"] < row["summary_chars"]


def test_golfgod_history_before_ends_where_the_boundary_hangs(corpora: Path) -> None:
    (session,) = [s for s in load(corpora / GOLFGOD).sessions if ":" not in s.id]
    (row,) = observed([session]).to_dicts()
    history = history_before(session, row["message_id"], row["time"])
    summary = session.get(row["message_id"])
    assert summary is not None and history[-1].id == summary.parent_id
    assert history == session.path(summary.parent_id)
    requests = [m for m in history if m.role == "assistant" and m.usage is not None]
    # Claude Code's preTokens is a little above the last request's context (the results after it)
    assert requests[-1].usage is not None and requests[-1].usage.context == 157_134


def test_rps3_compaction_counts_from_the_rollouts_own_token_counts(corpora: Path) -> None:
    records = [json.loads(line) for line in (corpora / RPS3).read_text(encoding="utf-8").splitlines() if line]
    at = next(i for i, r in enumerate(records) if r["type"] == "compacted")
    counts = [(i, r["payload"]["info"]) for i, r in enumerate(records)
              if r["type"] == "event_msg" and r["payload"]["type"] == "token_count" and r["payload"].get("info")]
    distinct: list[tuple[int, dict[str, Any]]] = []
    for i, info in counts:  # Codex repeats a count after running tools: a repeat is no new request
        if not distinct or info["total_token_usage"] != distinct[-1][1]["total_token_usage"]:
            distinct.append((i, info))
    before = [info["last_token_usage"] for i, info in distinct if i < at]
    after = next(info["last_token_usage"] for i, info in distinct if i > at)
    model = [r["payload"]["model"] for r in records[:at] if r["type"] == "turn_context"][-1]

    corpus = load(corpora / RPS3)
    (row,) = observed(corpus).to_dicts()
    # the last request before the compaction is the one that wrote the summary: 179,549 tokens in
    assert row["tokens_before"] == before[-1]["input_tokens"] == 179_549
    assert row["tokens_after"] == after["input_tokens"] == 24_378
    assert (row["client"], row["model"], row["index"], row["version"]) == ("codex", model, 0, "0.47.0")
    # no trigger in the rollout: the user's next message follows the compaction, so it was /compact
    assert (row["trigger"], row["trigger_from"], row["after_source"]) == ("manual", "turns", "usage")
    assert row["summary_chars"] == len(records[at]["payload"]["message"]) == 3_265
    (session,) = corpus.sessions
    history = history_before(session, row["message_id"], row["time"])
    assert history[-1].role == "assistant" and history[-1].usage is not None
    assert history[-1].usage.context == before[-2]["input_tokens"] == 175_342  # the last reply's request
    assert row["message_id"] not in {m.id for m in history}


def test_saved_corpus_keeps_the_compaction_fields(corpora: Path, tmp_path: Path) -> None:
    corpus = load([corpora / GOLFGOD, corpora / RPS3])
    again = load(corpus.save(tmp_path / "saved"))
    events = [e for s in corpus.sessions for e in s.events if e.kind == "compaction"]
    assert [(e.tokens_before, e.trigger) for e in events] == [(157_932, "auto"), (179_549, None)]
    assert [e for s in again.sessions for e in s.events if e.kind == "compaction"] == events
    assert observed(again).equals(observed(corpus))


T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def _at(minute: int) -> datetime:
    return T0 + timedelta(minutes=minute)


def _message(mid: str, parent: str | None, role: Any, line: int, *blocks: Any, model: str | None = None,
             usage: Usage | None = None, tags: tuple[str, ...] = ()) -> Message:
    return Message(mid, parent, role, tuple(blocks), _at(line), model, None, usage, SourceRef("h.jsonl", line),
                   tags=tags)


def hand_built(model: str = "claude-sonnet-4-5") -> Session:
    """A compaction the client gave no size for, a microcompaction that writes no summary, and an
    event that says nothing at all."""
    messages = (
        _message("u1", None, "user", 1, Text("list the files")),
        _message("a1", "u1", "assistant", 2, ToolUse("t1", "Bash", {"command": "ls"}), model=model,
                 usage=Usage(100, 10, 900, 0)),
        _message("u2", "a1", "user", 3, ToolResult("t1", "a.txt\nb.txt")),
        _message("s1", "u2", "user", 5, Text("SUMMARY: the user listed two files."), tags=("compact_summary",)),
        _message("a2", "s1", "assistant", 6, Text("go on"), model=model, usage=Usage(50, 5, 150)),
        _message("a3", "a2", "assistant", 8, Text("and on"), model=model),
    )
    events = (
        Event("compaction", "compact_boundary", _at(4), "u2", source=SourceRef("h.jsonl", 4), trigger="manual"),
        Event("compaction", "microcompact_boundary", _at(7), None, source=SourceRef("h.jsonl", 7),
              tokens_before=300, trigger="auto"),
        Event("compaction", "compacted"),
        Event("meta", "turn_duration", _at(9), source=SourceRef("h.jsonl", 9)),
    )
    return Session("h", "hand", messages, "a3", "h.jsonl", events=events)


def test_hand_built_rows_fill_what_the_record_has_and_null_the_rest() -> None:
    session = hand_built()
    rows = observed([session]).to_dicts()
    summary_tokens = rows[0].pop("summary_tokens")
    assert isinstance(summary_tokens, int) and summary_tokens > 0
    assert rows == [
        {"file": "h.jsonl", "session": "h", "client": "hand", "version": None, "model": "claude-sonnet-4-5",
         "message_id": "s1", "index": 3, "time": _at(4), "trigger": "manual", "trigger_from": "record",
         "tokens_before": 1000, "tokens_after": 200, "summary_chars": len("SUMMARY: the user listed two files."),
         "source": "usage", "after_source": "usage"},
        {"file": "h.jsonl", "session": "h", "client": "hand", "version": None, "model": "claude-sonnet-4-5",
         "message_id": None, "index": None, "time": _at(7), "trigger": "auto", "trigger_from": "record",
         "tokens_before": 300, "tokens_after": None, "summary_chars": None, "summary_tokens": None,
         "source": "reported", "after_source": None},
        {"file": "h.jsonl", "session": "h", "client": "hand", "version": None, "model": None, "message_id": None,
         "index": None, "time": None, "trigger": "unknown", "trigger_from": None, "tokens_before": None,
         "tokens_after": None, "summary_chars": None, "summary_tokens": None, "source": None, "after_source": None},
    ]
    assert [m.id for m in history_before(session, "s1", None)] == ["u1", "a1", "u2"]
    assert [m.id for m in history_before(session, None, _at(7))] == ["u1", "a1", "u2", "s1", "a2"]
    assert [m.id for m in history_before(session, "gone", _at(3))] == ["u1", "a1"]
    assert history_before(session, None, None) == []


def _rebuilt(session: Session, *, events: tuple[Event, ...] | None = None,
             messages: tuple[Message, ...] | None = None) -> Session:
    return Session(session.id, session.format, messages if messages is not None else session.messages,
                   session.tip, session.file, events=events if events is not None else session.events)


def test_post_tokens_is_the_size_after_and_a_zero_usage_is_unknown() -> None:
    """Claude Code 2.1.x writes ``postTokens``: that is the size after. A backend that writes every
    usage as zero measured nothing: before and after are unknown (null), never 0."""
    session = hand_built()
    boundary = Event("compaction", "compact_boundary", _at(4), "u2", source=SourceRef("h.jsonl", 4),
                     trigger="auto", tokens_before=171_100,
                     raw_json=packed({"version": "2.1.143", "compactMetadata": {"trigger": "auto", "preTokens": 171_100,
                                                                    "postTokens": 6_611}}))
    (row,) = observed([_rebuilt(session, events=(boundary,))]).to_dicts()
    assert (row["tokens_after"], row["after_source"], row["version"]) == (6_611, "reported", "2.1.143")
    zero = Usage(0, 0, 0, 0)
    silent = tuple(m if m.role != "assistant" else Message(m.id, m.parent_id, m.role, m.blocks, m.time, m.model,
                                                           None, zero, m.source, tags=m.tags)
                   for m in session.messages)
    plain = Event("compaction", "compact_boundary", _at(4), "u2", source=SourceRef("h.jsonl", 4), trigger="manual",
                  tokens_before=0, raw_json=packed({"compactMetadata": {"trigger": "manual", "preTokens": 0, "postTokens": 0}}))
    (row,) = observed([_rebuilt(session, events=(plain,), messages=silent)]).to_dicts()
    assert (row["tokens_before"], row["tokens_after"], row["source"], row["after_source"]) == (None, None, None, None)


def test_a_codex_compaction_followed_by_a_request_ran_inside_a_turn() -> None:
    """A ``compacted`` record with the model's next request after it and no user message between is
    the automatic rule (only it runs inside a turn); the user's next message after it is /compact."""
    messages = (
        _message("u1", None, "user", 1, Text("build it")),
        _message("a1", "u1", "assistant", 2, ToolUse("t1", "shell", {"command": ["make"]}), model="gpt-5-codex",
                 usage=Usage(240_000, 10)),
        _message("r1", "a1", "user", 3, ToolResult("t1", "ok")),
        _message("s1", None, "user", 4, Text("summary"), tags=("compact_summary",)),
        _message("a2", "s1", "assistant", 5, Text("continuing"), model="gpt-5-codex", usage=Usage(20_000, 10)),
    )
    event = Event("compaction", "compacted", _at(4), "s1", source=SourceRef("h.jsonl", 4))
    auto = Session("c", "codex", messages, "a2", "h.jsonl", events=(event,))
    (row,) = observed([auto]).to_dicts()
    assert (row["trigger"], row["trigger_from"], row["tokens_after"]) == ("auto", "turns", 20_000)
    user_next = (*messages[:4], _message("u2", "s1", "user", 5, Text("now test it")))
    (row,) = observed([Session("c", "codex", user_next, "u2", "h.jsonl", events=(event,))]).to_dicts()
    assert (row["trigger"], row["trigger_from"]) == ("manual", "turns")
    (row,) = observed([Session("c", "codex", messages[:4], "s1", "h.jsonl", events=(event,))]).to_dicts()
    assert (row["trigger"], row["trigger_from"]) == ("unknown", None)


def test_an_unknown_model_leaves_only_the_summary_tokens_null() -> None:
    (row, *_) = observed([hand_built("no-such-model-7")]).to_dicts()
    assert row["model"] == "no-such-model-7" and row["summary_tokens"] is None and row["summary_chars"] == 35


def test_no_compaction_is_an_empty_frame_with_every_column() -> None:
    frame = observed([Session("e", "hand", ())])
    assert frame.is_empty() and dict(frame.schema) == SCHEMA


def test_cli_lists_the_compactions_as_json_and_as_a_table(corpora: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compactions", str(corpora / "codex"), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert list(row) == list(SCHEMA)
    assert (row["client"], row["tokens_before"], row["source"]) == ("codex", 179_549, "reported")
    assert row["time"] == "2025-10-27T01:31:35.139000+00:00"
    assert main(["compactions", str(corpora / GOLFGOD)]) == 0
    header, line = capsys.readouterr().out.splitlines()
    assert header.split()[:4] == ["client", "session", "time", "(UTC)"]
    assert line.split()[:6] == ["claude_code", "fb36f7a7-925d-4642-b220-ec2be3569883", "2025-10-21", "00:01:08", "auto", "157,932"]


def test_cli_table_names_each_session_whole(capsys: pytest.CaptureFixture[str]) -> None:
    """Every session id the table prints is the whole id, one ``toolkit show --session`` takes (a
    cut id names no session)."""
    ids = {s.id for s in load(DATA).sessions}
    for args in (["compactions", str(DATA)], ["compactions", str(DATA), "--predict"]):
        assert main(args) == 0
        header, *lines = capsys.readouterr().out.splitlines()
        at = header.split().index("session")  # the columns before it are one word each
        printed = {line.split()[at] for line in lines}
        assert len(printed) == 3 and printed <= ids, (args, printed)


def test_cli_says_when_there_is_no_compaction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    assert main(["compactions", str(path)]) == 0
    assert capsys.readouterr().out.strip() == "no compaction in 1 session"
    assert main(["compactions", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
