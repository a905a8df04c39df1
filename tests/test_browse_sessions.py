"""``toolkit info --sessions`` (``toolkit.browse.sessions``): one row per session with its client version,
size, model and recorded usage and cost, and the files of a load that were not transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DATA
from toolkit.browse.sessions import session_table
from toolkit.cli import main
from toolkit.corpus import load


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
