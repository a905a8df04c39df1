"""Recorded usage that measures nothing is unknown, not a measurement: an output count below what the
reply wrote (the first streamed chunk's count Claude Code 2.0 and 2.1 often record) is left out of
every sum of recorded output (frames, the browser, the session table, the experiment's estimate),
while the same reply's input counts stay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkit.browse import fragment
from toolkit.browse.charts import usage_frame
from toolkit.browse.sessions import session_row
from toolkit.browse.usage import message_usage, recorded_cost
from toolkit.corpus import load
from toolkit.measured import MAX_CHARS_PER_OUTPUT_TOKEN, measured_usage, output_count, written_size
from toolkit.record import Message, Text, ToolUse, Usage

SID = "0f5e7a11-0000-4000-8000-00000000c0de"
WORDS = "The failing test reads the config before the fixture writes it, so the order is the bug. " * 4


def _record(kind: str, uid: str, parent: str | None, clock: int, **extra: Any) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": SID,
            "version": "2.1.15", "type": kind, "uuid": uid, "timestamp": f"2026-01-01T00:00:{clock:02d}.000Z",
            **extra}


def _reply(uid: str, parent: str, clock: int, msg: str, content: list[Any], output: int,
           stop: str | None) -> dict[str, Any]:
    usage = {"input_tokens": 4, "cache_read_input_tokens": 12_000, "cache_creation_input_tokens": 300,
             "output_tokens": output}
    return _record("assistant", uid, parent, clock, message={
        "id": msg, "type": "message", "role": "assistant", "model": "claude-opus-4-5-20251101",
        "content": content, "stop_reason": stop, "usage": usage})


def streamed_session(tmp_path: Path) -> Path:
    """A Claude Code 2.1 session as the client writes a streamed reply: two records of one reply (its
    text, then its call), each with the stream's first-chunk usage (output 1, no stop reason); then a
    reply whose record came after the stream ended (its real count, 180, for 371 characters)."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q tests/test_config.py"}}
    records = [
        _record("user", "u1", None, 1, message={"role": "user", "content": "Why does the config test fail?"}),
        _reply("a1", "u1", 2, "msg_streamed", [{"type": "text", "text": WORDS}], 1, None),
        _reply("a2", "a1", 3, "msg_streamed", [call], 1, None),
        _record("user", "r1", "a2", 4, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1 failed"}]}),
        _reply("a3", "r1", 5, "msg_done", [{"type": "text", "text": WORDS}], 180, "end_turn"),
    ]
    path = tmp_path / "streamed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_rule() -> None:
    wrote = 2 * MAX_CHARS_PER_OUTPUT_TOKEN
    assert output_count(2, wrote) == 2, "a count that covers what the reply wrote is kept"
    assert output_count(1, wrote) is None
    assert output_count(0, 0) == 0 and output_count(None, 5) is None
    reply = Message("m", None, "assistant", (Text("x" * 30), ToolUse("c", "Read", {"path": "é"})),
                    usage=Usage(input=10, output=3, cache_read=5))
    assert written_size(reply) == 30 + len('{"path":"é"}'.encode())
    assert measured_usage(reply) == Usage(input=10, output=None, cache_read=5), "input counts stay"
    assert measured_usage(Message("z", None, "assistant", (Text("hi"),), usage=Usage(0, 0, 0, 0))) is None


def test_a_first_chunk_count_is_unknown_everywhere_output_is_summed(tmp_path: Path) -> None:
    corpus = load(streamed_session(tmp_path), progress=False)
    (session,) = corpus.sessions
    streamed, done = (m for m in session.messages if m.role == "assistant")
    assert streamed.usage is not None and streamed.usage.output == 1, "the record keeps what the source wrote"
    rows = corpus.frames()["messages"].filter(role="assistant")
    assert rows["output_tokens"].to_list() == [None, 180]
    assert rows["input_tokens"].to_list() == [4, 4] and rows["cache_read_tokens"].to_list() == [12_000, 12_000]
    assert recorded_cost(streamed) is None and recorded_cost(done) is not None
    found = message_usage(session)
    assert [u.output for u in found.values()] == [None, 180]
    assert usage_frame(session)["output"].to_list() == [None, 180]
    row = session_row(session)
    assert (row.output_tokens, row.output_measured, row.replies, row.priced) == (180, 1, 2, 1)
    assert row.input_tokens == 2 * 12_304
    page = fragment(corpus, session)
    assert "output unknown (the source wrote 1, fewer than the reply" in page
    assert "output 180 tokens (unknown for 1 of 2 replies)" in page


def test_the_shared_claude_code_files_agree_with_the_rule(corpora: Path) -> None:
    """Over the shared Claude Code files the frames and the record-level rule agree reply by reply, every
    kept count covers what its reply wrote, and the first-chunk counts of 2.0.22 and 2.1.15 are out."""
    corpus = load(corpora / "claude_code", progress=False)
    frames = corpus.frames()["messages"]
    by_id = {(s, m): o for s, m, o in frames.select("session_id", "message_id", "output_tokens").rows()}
    unknown: dict[str, int] = {}
    for session in corpus.sessions:
        for message in session.messages:
            used = measured_usage(message)
            if message.usage is None or used is None:
                continue
            assert by_id[(session.id, message.id)] == used.output
            if used.output is None:
                unknown[Path(session.file).name] = unknown.get(Path(session.file).name, 0) + 1
            else:
                assert used.output * MAX_CHARS_PER_OUTPUT_TOKEN >= written_size(message)
    assert unknown["golfgod_v2.0.22_compaction_forks_images.chat.json"] > 50
    assert unknown["teamwork_v2.1.15_progress_queue.chat.json"] > 50
    assert not any("mimo" in name for name in unknown), "their zeros are unknown by the other rule"



def test_a_usage_of_zeros_is_null_in_every_usage_column_of_the_frames(tmp_path: Path) -> None:
    """An all-zero usage measured nothing: every token column of the frames is null for it, not
    input 0 and cache 0 beside a null output."""
    path = tmp_path / "zeros.jsonl"
    reply = _reply("a1", "u1", 2, "msg_1", [{"type": "text", "text": "No response requested."}], 0, "end_turn")
    reply["message"]["usage"] = {"input_tokens": 0, "cache_read_input_tokens": 0,
                                 "cache_creation_input_tokens": 0, "output_tokens": 0}
    records = [_record("user", "u1", None, 1, message={"role": "user", "content": "hi"}), reply]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    corpus = load(path, progress=False)
    (message,) = [m for m in corpus.sessions[0].messages if m.role == "assistant"]
    assert message.usage is not None and measured_usage(message) is None
    columns = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    row = corpus.frames()["messages"].filter(role="assistant").select(columns).row(0)
    assert row == (None, None, None, None)


def test_the_frames_usage_columns_are_the_measured_usage(corpora: Path) -> None:
    """Every token column of every message of the shared Claude Code files is its measured usage's,
    the mimo replies whose backend wrote zeros included (null throughout)."""
    corpus = load(corpora / "claude_code", progress=False)
    frames = corpus.frames()["messages"]
    columns = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    rows = {(r[0], r[1]): r[2:] for r in frames.select("session_id", "message_id", *columns).rows()}
    zeros = 0
    for session in corpus.sessions:
        for message in session.messages:
            used = measured_usage(message)
            expected = (None,) * 4 if used is None else (used.input, used.output, used.cache_read, used.cache_write)
            assert rows[(session.id, message.id)] == expected, (session.file, message.id)
            zeros += message.usage is not None and used is None
    assert zeros >= 5
