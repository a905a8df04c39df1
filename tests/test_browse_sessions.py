"""``toolkit info --sessions`` (``toolkit.browse.sessions``): one row per session with its client version,
size, model and recorded usage and cost, and the files of a load that were not transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DATA
from toolkit.browse.sessions import client_version, session_table
from toolkit.cli import main
from toolkit.corpus import load
from toolkit.record import Session, packed


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_info_sessions_lists_each_session_and_the_files_that_were_not_transcripts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    shutil.copytree(DATA, tmp_path / "data")
    (tmp_path / "data" / "notes.txt").write_text("not a transcript\n", encoding="utf-8")
    code, out, _ = run(["info", str(tmp_path / "data"), "--sessions", "--json"], capsys)
    data = json.loads(out)
    corpus = load(tmp_path / "data")
    assert code == 0 and [r["session_id"] for r in data["session_rows"]] == [s.id for s in corpus.sessions]
    claude = next(r for r in data["session_rows"] if r["format"] == "claude_code")
    assert claude["model"] and claude["input_tokens"] > 0 and claude["cost_usd"] > 0 and claude["messages"] > 0
    assert list(data["not_transcripts"]) == ["notes.txt"] and data["not_transcripts"]["notes.txt"]
    code, out, _ = run(["info", str(tmp_path / "data"), "--sessions"], capsys)
    assert code == 0 and "client" in out and "not transcripts: 1 file" in out and "  notes.txt: " in out
    for row in data["session_rows"]:
        assert row["session_id"] in out
    chat = next(r for r in data["session_rows"] if r["format"] == "openai_chat")
    assert chat["replies"] == 0 and chat["input_tokens"] is None and chat["cost_usd"] is None, "unknown, not 0"


def test_client_versions_come_from_the_sessions_own_records(corpora: Path) -> None:
    rows = {(r.format, r.file): r.client_version for r in session_table(load(corpora / "codex"))}
    assert rows[("codex", "cookingtimes_cli0.47.0_no_turns.jsonl")] == "0.47.0"
    assert rows[("codex", "localpush_desktop0.104_sanitized_a.jsonl")] == "0.104.0-alpha.1"
    claude = session_table(load(corpora / "claude_code" / "golfgod_v2.0.22_compaction_forks_images.chat.json"))
    assert {r.client_version for r in claude} == {"2.0.22"}


def test_a_long_field_that_is_no_version_is_refused_at_once() -> None:
    """A crafted ``version`` of dots and words made the old pattern backtrack for hours; each suffix
    now holds no separator, so the match fails in one pass."""
    import time

    from toolkit.record import Event

    crafted = "1.2" + ".a" * 30 + "!"
    session = Session("s", "claude_code", (), events=(Event("meta", "client", None, None, "", packed({"version": crafted})),))
    started = time.process_time()
    assert client_version(session) is None
    assert time.process_time() - started < 1.0
    fine = Session("s", "inspect", (), events=(Event("meta", "client", None, None, "",
                                                    packed({"version": "0.3.58.dev16+g6a87748b"})),))
    assert client_version(fine) == "0.3.58.dev16+g6a87748b"


def test_importers_keep_the_client_version_their_source_writes(corpora: Path) -> None:
    """Claude Code and Qwen Code write ``version`` on every record, OpenCode on its session, inspect
    the inspect_ai release in its eval's ``packages``: Claude Code's, OpenCode's and inspect's sessions
    keep it in a ``client`` event, so a session none of whose kept records is a raw source record
    still names its client (the demo's export-investigation had none before); Qwen Code's is read
    from the records its events keep."""
    demo = {r.file: r.client_version for r in session_table(load(DATA / "claude_code"))}
    assert demo["export-investigation.jsonl"] == demo["fix-tests.jsonl"] == "2.0.22"
    viewer = load(corpora / "claude_code" / "viewer_v1.0.98_orchestrator_sidechains.jsonl").sessions
    assert len(viewer) == 6 and {client_version(s) for s in viewer} == {"1.0.98"}, "sidechains name it themselves"
    opencode = session_table(load(corpora / "opencode"))
    assert len(opencode) == 2 and {r.client_version for r in opencode} == {"1.0.107"}
    (qwen,) = [r for r in session_table(load(corpora / "qwen_code")) if r.parent_session_id is None]
    assert qwen.client_version == "0.14.0"
    inspect = {r.client_version for r in session_table(load(corpora / "trajectories" / "inspect_popularity.eval"))}
    assert inspect == {"0.3.58.dev16+g6a87748b"}
    specstory = session_table(load(corpora / "specstory_cursor"))
    assert [r.client_version for r in specstory] == [None], "2.1.0 is SpecStory's release, not Cursor's"


def test_a_session_resumed_in_a_newer_client_keeps_each_version(tmp_path: Path) -> None:
    """A ``client`` event where Claude Code's ``version`` first appears and where it changes; the
    session's version is the one it started in."""
    def record(uid: str, parent: str | None, version: str) -> dict[str, object]:
        return {"type": "user", "uuid": uid, "parentUuid": parent, "sessionId": "s", "version": version,
                "timestamp": "2025-10-01T10:00:00Z", "message": {"role": "user", "content": f"hi {uid}"}}

    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (record("a", None, "2.0.1"), record("b", "a", "2.0.1"),
                                                      record("c", "b", "2.0.5"))) + "\n", encoding="utf-8")
    (session,) = load(path).sessions
    clients = [(e.text, e.message_id, e.source.line if e.source else None) for e in session.events if e.type == "client"]
    assert clients == [("claude_code 2.0.1", "a", 1), ("claude_code 2.0.5", "c", 3)]
    assert session_table(load(path))[0].client_version == "2.0.1"
