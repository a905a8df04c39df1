"""Loading a corpus as a whole: detection, mixed directories, problems, strict mode, frames,
Parquet save/reopen, the command line, and the demo corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import DATA, REPO
from tests.helpers import readable, readable_corpus_files
from toolkit.cli import main as cli
from toolkit.corpus import importers, load
from toolkit.corpus.frames import SCHEMAS
from toolkit.demo import write as write_demo
from toolkit.record import RecordError, Text, ToolResult, ToolUse


@pytest.fixture(scope="module")
def demo() -> object:
    return load(DATA)


def test_unknown_and_empty_files_are_problems_and_the_rest_loads(tmp_path: Path) -> None:
    write_demo(tmp_path / "demo")
    (tmp_path / "demo" / "notes.log").write_text("just some text\nnot a transcript\n", encoding="utf-8")
    (tmp_path / "demo" / "empty.jsonl").write_bytes(b"")
    corpus = load(tmp_path / "demo")
    reasons = {p.file: p.reason for p in corpus.problems}
    assert reasons["notes.log"].startswith("unknown format")
    assert reasons["empty.jsonl"] == "empty file"
    assert len(corpus.sessions) == len(load(DATA).sessions)
    assert set(corpus.formats.values()) == {"claude_code", "codex", "openai_chat"}


def test_strict_raises_on_the_first_problem(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(RecordError, match="unknown format"):
        load(tmp_path, strict=True)


def test_missing_path_is_a_problem(tmp_path: Path) -> None:
    corpus = load(tmp_path / "nope")
    assert corpus.problems and "no such file" in corpus.problems[0].reason


def test_demo_corpus_exercises_everything_downstream(demo: object) -> None:
    corpus = demo
    frames = corpus.frames()  # type: ignore[attr-defined]
    calls = frames["tool_calls"]
    assert calls.filter(pl.col("is_error")).height >= 2, "error results"
    assert calls.filter(~pl.col("has_result")).height >= 1, "a turn killed mid-round"
    assert calls.filter(pl.col("name").str.starts_with("mcp__")).height >= 1
    assert "close_todo" in calls.filter(pl.col("name").str.starts_with("mcp__"))["bare_name"].to_list()
    assert calls["result_bytes"].max() > 5000, "long tool outputs"
    kinds = Counter(frames["blocks"]["kind"].to_list())
    assert kinds["image"] >= 4 and kinds["reasoning"] >= 3
    assert frames["sessions"]["leaves"].max() >= 2, "a branch"
    assert frames["events"].filter(pl.col("kind") == "compaction").height >= 1
    texts = [b.text for s in corpus.sessions for _, b in s.blocks() if isinstance(b, Text)]  # type: ignore[attr-defined]
    assert any(t == "I'll close #13 now." for t in texts), "a reply that only talked about acting"
    assert any(any(ord(ch) > 0x2000 for ch in t) for t in texts), "non-ASCII text"
    hashes = {c.surface_hash for s in corpus.sessions for c in s.run_configs if c.surface_hash}  # type: ignore[attr-defined]
    assert len(hashes) == 3, "tool specs change between sessions"


def test_every_demo_compaction_leaves_less_than_it_found(demo: object) -> None:
    """A compaction whose next request was larger than the count it recorded (a manual one once
    recorded 17,600 before and its next request 29,816 after) reads as a toolkit bug to a newcomer."""
    from toolkit.compaction import observed

    found = observed(demo)  # type: ignore[arg-type]
    assert found.height == 3 and set(found["trigger"]) == {"auto", "manual"}
    assert found.filter(pl.col("tokens_after") >= pl.col("tokens_before")).is_empty(), found


def test_demo_generator_is_deterministic(tmp_path: Path) -> None:
    write_demo(tmp_path / "a")
    write_demo(tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
        assert (tmp_path / "a" / rel).read_bytes() == (DATA / rel).read_bytes(), f"data/{rel} is stale"


def test_frames_have_the_documented_columns(demo: object) -> None:
    frames = demo.frames()  # type: ignore[attr-defined]
    assert set(frames) == set(SCHEMAS)
    for name, schema in SCHEMAS.items():
        assert frames[name].columns == list(schema), name


def test_saved_corpus_reopens_identically(demo: object, tmp_path: Path) -> None:
    corpus = demo
    corpus.save(tmp_path / "saved")  # type: ignore[attr-defined]
    again = load(tmp_path / "saved")
    assert again.sessions == corpus.sessions  # type: ignore[attr-defined]
    assert again.images == corpus.images  # type: ignore[attr-defined]
    assert again.problems == corpus.problems  # type: ignore[attr-defined]
    for name, frame in corpus.frames().items():  # type: ignore[attr-defined]
        assert again.frames()[name].equals(frame), name
        assert pl.read_parquet(tmp_path / "saved" / name / "part-00000.parquet").equals(frame), name
    # tool specs are kept once per distinct surface, not inlined in every run config
    assert len(list((tmp_path / "saved" / "surfaces").iterdir())) == 3
    configs = pl.read_parquet(tmp_path / "saved" / "record" / "run_configs" / "part-00000.parquet")["run_config"]
    assert not any('"parameters"' in text for text in configs)


def test_shared_corpora_reopen_identically(corpora: Path, tmp_path: Path) -> None:
    corpus = load(corpora)
    corpus.save(tmp_path / "saved")
    again = load(tmp_path / "saved")
    assert again.sessions == corpus.sessions
    assert again.images == corpus.images and again.problems == corpus.problems


def test_tool_results_pair_with_calls(demo: object) -> None:
    for session in demo.sessions:  # type: ignore[attr-defined]
        calls = {b.id for _, b in session.blocks() if isinstance(b, ToolUse)}
        results = {b.tool_use_id for _, b in session.blocks() if isinstance(b, ToolResult)}
        assert results <= calls


def test_info_json_is_one_object_with_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["info", str(DATA), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("files", "sessions", "messages", "blocks", "tool_calls", "events", "problems"):
        assert key in data
    assert set(data["blocks"]) == {"text", "tool_use", "tool_result", "reasoning", "image", "opaque"}
    assert data["files"] == 8 and data["sessions"] == 8
    assert data["tool_calls"] == sum(1 for s in load(DATA).sessions for _, b in s.blocks()
                                     if isinstance(b, ToolUse))


def test_info_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    assert cli(["info", str(tmp_path / "bad.json"), "--json"]) != 0
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert problems and {"file", "line", "reason"} <= set(problems[0])
    mixed = tmp_path / "mixed"
    write_demo(mixed)
    (mixed / "bad.json").write_text("{not json", encoding="utf-8")
    assert cli(["info", str(mixed), "--json"]) == 0


def test_import_command_writes_parquet(tmp_path: Path) -> None:
    out = tmp_path / "pq"
    result = subprocess.run([sys.executable, "-m", "toolkit.cli", "import", str(DATA), "-o", str(out)],
                            capture_output=True, text=True, cwd=REPO, check=False)
    assert result.returncode == 0, result.stderr
    assert (out / "corpus.json").is_file() and list((out / "messages").glob("part-*.parquet"))
    assert len(load(out).sessions) == len(load(DATA).sessions)


def test_shared_corpora_load_with_no_unreadable_lines(corpora: Path) -> None:
    corpus = load(corpora)
    files = [name for name in corpus.files if readable(name)]
    owned = [p for p in readable_corpus_files() if any(i.owns(str(p)) for i in importers())]
    assert files == [str(p.relative_to(corpora)) for p in readable_corpus_files() if p not in owned], \
        "every file is read, or owned by the importer of a file beside it"
    assert all(p.relative_to(corpora).parts[0] in ("kimi_cli", "cline", "opencode", "aider", "continue")
               for p in owned), owned
    assert all(name in corpus.formats for name in files), "every shared file of a format read is recognised"
    # The one file with problems is the repo author's sanitized Codex rollout, whose redaction
    # replaced tool arguments with text that is not JSON: reported, kept as raw text.
    for problem in corpus.problems:
        if readable(problem.file):
            assert problem.file == "codex/localpush_desktop0.104_sanitized_a.jsonl", str(problem)
            assert "not valid JSON; kept as text" in problem.reason, str(problem)


def test_a_content_part_whose_type_is_not_a_string_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([
        {"role": "user", "content": [{"type": {"nested": True}, "text": "x"}, {"type": "text", "text": "ok"}]},
    ]), encoding="utf-8")
    corpus = load(path)
    assert [p.reason for p in corpus.problems] == [
        "content part type is a JSON dict, not a string; kept as opaque"]
    kinds = [b.kind for _, b in corpus.sessions[0].blocks()]
    assert kinds == ["opaque", "text"]


def test_unrecognised_files_say_precisely_why(tmp_path: Path) -> None:
    truncated = tmp_path / "truncated.json"
    truncated.write_bytes((DATA / "openai_chat" / "support-run-2.json").read_bytes()[:-200])
    shape = tmp_path / "shape.json"
    shape.write_text(json.dumps({"hello": 1, "world": [2]}), encoding="utf-8")
    lines = tmp_path / "lines.jsonl"
    lines.write_text('{"alpha": 1}\n{"alpha": 2}\n', encoding="utf-8")
    binary = tmp_path / "binary.dat"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    loaded = load(tmp_path)
    reasons = {p.file: (p.line, p.reason) for p in loaded.problems}
    # a cut document is still told by what of it parses: read as far as it goes, the loss named
    expected_line = truncated.read_bytes().count(b"\n") + 1
    assert (expected_line, "file is not valid JSON (unexpected end of data): read as far as line "
            f"{expected_line - 1}, what follows is lost") in [(p.line, p.reason) for p in loaded.problems]
    assert [s.format for s in loaded.sessions] == ["openai_chat"]
    assert reasons["shape.json"] == (
        None, "unknown format: valid JSON that no importer recognises (an object with keys hello, world)")
    assert reasons["lines.jsonl"] == (
        1, "unknown format: JSON lines whose records no importer recognises (an object with keys alpha)")
    assert reasons["binary.dat"][1].startswith("unknown format: not UTF-8 text")


def test_an_invalid_utf8_line_is_reported_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = (DATA / "claude_code" / "refactor-killed.jsonl").read_bytes()
    record = json.loads(good.splitlines()[0])
    record["uuid"] = "extra-1"
    record["message"]["content"] = "caf\udcff"
    raw = json.dumps(record).replace("\\udcff", "\\u00e9").encode().replace(b"\\u00e9", b"\xe9")
    path.write_bytes(good + raw + b"\n")
    corpus = load(path)
    (problem,) = corpus.problems
    assert problem.line == good.count(b"\n") + 1 and "not valid UTF-8" in problem.reason
    kept = corpus.sessions[0].get("extra-1")
    assert kept is not None and kept.text == "caf\ufffd"


def test_specs_too_deep_to_fingerprint_stay_inline_when_saved(tmp_path: Path) -> None:
    from toolkit.corpus import Corpus
    from toolkit.record import Message, RunConfig, Session

    deep: object = "leaf"
    for _ in range(3000):
        deep = [deep]
    session = Session("s", "test", (Message("m", None, "user", (Text("hi"),)),), tip="m",
                      run_configs=(RunConfig(tools=(deep,)),))  # type: ignore[arg-type]
    Corpus(sessions=[session]).save(tmp_path / "saved")
    surfaces = tmp_path / "saved" / "surfaces"
    assert not surfaces.exists() or not any(surfaces.iterdir())
    (again,) = load(tmp_path / "saved").sessions
    assert again.run_configs[0].surface_hash is None and again.run_configs[0].tools is not None


def test_frames_are_identical_across_hash_seeds(corpora: Path) -> None:
    """A session's model is its most used one, ties going to the first used (it went to whichever
    the hash seed put first in a set)."""
    script = ("import hashlib, sys\nfrom toolkit.corpus import load\n"
              "frames = load(sys.argv[1], progress=False).frames()\n"
              "print(hashlib.sha256(b''.join(f.write_ndjson().encode() for _, f in sorted(frames.items()))).hexdigest())")
    outs = {subprocess.run([sys.executable, "-c", script, str(corpora)], env={**os.environ, "PYTHONHASHSEED": seed},
                           capture_output=True, text=True, check=True).stdout for seed in ("1", "123")}
    assert len(outs) == 1
