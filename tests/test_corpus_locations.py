"""Own corpora: the folders Claude Code, Codex CLI and Gemini CLI keep transcripts in, found by their
rules and environment variables, counted by listing alone (no file is opened)."""

from __future__ import annotations

import argparse
import builtins
import io
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from toolkit.cli import corpora as corpora_cli
from toolkit.corpus.locations import (
    DEMO_LABEL,
    NONE_FOUND,
    Location,
    choices,
    human_size,
    own_corpora,
    rows,
    table,
    tilde,
)

T0 = 1_764_000_000  # 2025-11-24, whole seconds so mtimes round-trip exactly
NO_ENV: dict[str, str] = {}


def put(path: Path, size: int, mtime: int = T0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (mtime, mtime))
    return path


def at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def claude_tree(root: Path, scale: int = 1) -> None:
    """A Claude Code config folder: 4 transcripts of 10+20+5+7 bytes (times scale), newest T0+40."""
    project = root / "projects" / "-home-u-proj"
    put(project / "0b7c.jsonl", 10 * scale, T0)
    put(project / "1d2e.jsonl", 20 * scale, T0 + 40)
    put(project / "agent-aa.jsonl", 5 * scale, T0 + 10)  # an older release's subagent, beside its session
    put(project / "1d2e" / "subagents" / "agent-bb.jsonl", 7 * scale, T0 + 20)
    # not transcripts
    put(project / "1d2e" / "subagents" / "journal.jsonl", 100, T0 + 99)
    put(project / "1d2e" / "subagents" / "agent-bb.meta.json", 100, T0 + 99)
    put(project / "1d2e" / "tool-results" / "t1.txt", 100, T0 + 99)
    put(project / "memory" / "MEMORY.md", 100, T0 + 99)
    put(project / "sessions-index.json", 100, T0 + 99)
    put(root / "projects" / "stray.jsonl", 100, T0 + 99)
    put(root / "history.jsonl", 100, T0 + 99)
    put(root / "settings.json", 100, T0 + 99)


def codex_tree(root: Path) -> None:
    """A Codex home: 2 live rollouts (3+4 bytes), 1 archived (6), 1 compressed."""
    day = root / "sessions" / "2026" / "11" / "30"
    put(day / "rollout-2026-11-30T10-00-00-aaaa.jsonl", 3, T0 + 5)
    put(day / "rollout-2026-11-30T11-00-00-bbbb.jsonl", 4, T0 + 50)
    put(day / "rollout-2026-11-30T12-00-00-cccc.jsonl.zst", 9, T0 + 60)
    put(root / "archived_sessions" / "rollout-2026-01-01T00-00-00-dddd.jsonl", 6, T0 - 100)
    put(root / "history.jsonl", 100, T0 + 99)
    put(root / "session_index.jsonl", 100, T0 + 99)
    put(root / "config.toml", 100, T0 + 99)


def gemini_tree(dot_gemini: Path) -> None:
    """A .gemini folder: 3 chat recordings (2+3+4 bytes), newest T0+30."""
    project = dot_gemini / "tmp" / ("ab" * 32)
    put(project / "chats" / "session-2026-11-30T10-00-aaaa.json", 2, T0)
    put(project / "chats" / "session-2026-11-30T11-00-bbbb.jsonl", 3, T0 + 30)
    put(project / "chats" / "parent-session" / "child.jsonl", 4, T0 + 1)
    # not chat recordings
    put(project / "logs.json", 100, T0 + 99)
    put(project / "checkpoints" / "checkpoint-x.json", 100, T0 + 99)
    put(project / "shell_history", 100, T0 + 99)
    put(dot_gemini / "tmp" / "bin" / "rg", 100, T0 + 99)
    put(dot_gemini / "settings.json", 100, T0 + 99)


def summary(found: list[Location]) -> list[tuple[str, Path, int, int, datetime | None, str, int]]:
    return [(f.client, f.path, f.files, f.bytes, f.newest, f.found_by, f.compressed) for f in found]


def test_default_places_counts_sizes_newest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_tree(home / ".claude")
    codex_tree(home / ".codex")
    gemini_tree(home / ".gemini")
    found = own_corpora(NO_ENV, home)
    assert summary(found) == [
        ("claude_code", home / ".claude" / "projects", 4, 42, at(T0 + 40), "default", 0),
        ("codex", home / ".codex" / "sessions", 2, 7, at(T0 + 50), "default", 1),
        ("codex", home / ".codex" / "archived_sessions", 1, 6, at(T0 - 100), "default", 0),
        ("gemini_cli", home / ".gemini" / "tmp", 3, 9, at(T0 + 30), "default", 0),
    ]


def test_nothing_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert own_corpora(NO_ENV, home) == []
    (home / ".codex" / "sessions").mkdir(parents=True)  # there, but empty
    assert own_corpora(NO_ENV, home) == []
    empty = own_corpora(NO_ENV, home, include_empty=True)
    assert summary(empty) == [("codex", home / ".codex" / "sessions", 0, 0, None, "default", 0)]


def test_environment_variables_move_the_folders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_tree(home / ".claude")  # the defaults are full too, and must not be listed
    codex_tree(home / ".codex")
    gemini_tree(home / ".gemini")
    elsewhere = tmp_path / "elsewhere"
    claude_tree(elsewhere / "claude-work", scale=2)
    put(elsewhere / "codex" / "sessions" / "2026" / "12" / "01" / "rollout-x.jsonl", 11, T0 + 7)
    gemini_tree(elsewhere / "gemini-root" / ".gemini")  # GEMINI_CLI_HOME names the parent of .gemini
    env = {
        "CLAUDE_CONFIG_DIR": str(elsewhere / "claude-work"),
        "CODEX_HOME": str(elsewhere / "codex"),
        "GEMINI_CLI_HOME": str(elsewhere / "gemini-root"),
    }
    assert summary(own_corpora(env, home)) == [
        ("claude_code", elsewhere / "claude-work" / "projects", 4, 84, at(T0 + 40), "CLAUDE_CONFIG_DIR", 0),
        ("codex", elsewhere / "codex" / "sessions", 1, 11, at(T0 + 7), "CODEX_HOME", 0),
        ("gemini_cli", elsewhere / "gemini-root" / ".gemini" / "tmp", 3, 9, at(T0 + 30), "GEMINI_CLI_HOME", 0),
    ]


def test_empty_variables_count_as_unset_and_tilde_means_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    codex_tree(home / ".codex")
    codex_tree(home / "alt-codex")
    empty = {"CLAUDE_CONFIG_DIR": "", "CODEX_HOME": "", "GEMINI_CLI_HOME": ""}
    assert [(f.path, f.found_by) for f in own_corpora(empty, home)] == [
        (home / ".codex" / "sessions", "default"), (home / ".codex" / "archived_sessions", "default")]
    tilde_env = {"CODEX_HOME": "~/alt-codex"}
    assert [f.path for f in own_corpora(tilde_env, home)] == [
        home / "alt-codex" / "sessions", home / "alt-codex" / "archived_sessions"]


def test_claude_xdg_folder_of_release_1_0_30(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_tree(home / ".claude")
    claude_tree(home / ".config" / "claude", scale=3)
    assert summary(own_corpora(NO_ENV, home)) == [
        ("claude_code", home / ".claude" / "projects", 4, 42, at(T0 + 40), "default", 0),
        ("claude_code", home / ".config" / "claude" / "projects", 4, 126, at(T0 + 40), "default", 0),
    ]
    xdg = tmp_path / "xdg"
    claude_tree(xdg / "claude", scale=5)
    found = own_corpora({"XDG_CONFIG_HOME": str(xdg)}, home)
    assert [(f.path, f.bytes, f.found_by) for f in found] == [
        (home / ".claude" / "projects", 42, "default"), (xdg / "claude" / "projects", 210, "XDG_CONFIG_HOME")]


def test_one_folder_by_two_names_is_listed_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_tree(home / ".claude")
    (home / ".config").mkdir()
    (home / ".config" / "claude").symlink_to(home / ".claude", target_is_directory=True)
    assert summary(own_corpora(NO_ENV, home)) == [
        ("claude_code", home / ".claude" / "projects", 4, 42, at(T0 + 40), "default", 0)]


def test_symlinks_are_followed_once_and_loops_end(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_tree(home / ".claude")
    projects = home / ".claude" / "projects"
    outside = tmp_path / "moved-project"
    put(outside / "feed.jsonl", 1000, T0 + 500)
    (projects / "-home-u-moved").symlink_to(outside, target_is_directory=True)  # a project kept elsewhere
    (projects / "-home-u-proj" / "loop").symlink_to(projects, target_is_directory=True)
    (projects / "-home-u-proj" / "1d2e" / "subagents" / "again").symlink_to(projects / "-home-u-proj")
    (projects / "-home-u-proj" / "dangling.jsonl").symlink_to(tmp_path / "missing.jsonl")
    chats = home / ".gemini" / "tmp" / "p" / "chats"
    put(chats / "session-a.json", 5, T0)
    (chats / "self").symlink_to(chats, target_is_directory=True)
    found = own_corpora(NO_ENV, home)
    assert summary(found) == [
        ("claude_code", projects, 5, 1042, at(T0 + 500), "default", 0),
        ("gemini_cli", home / ".gemini" / "tmp", 1, 5, at(T0), "default", 0),
    ]


def test_nothing_is_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    claude_tree(home / ".claude")
    codex_tree(home / ".codex")
    gemini_tree(home / ".gemini")
    locked = put(home / ".claude" / "projects" / "-home-u-proj" / "locked.jsonl", 8, T0)
    locked.chmod(0)
    opened: list[object] = []

    def refuse(*args: object, **kwargs: object) -> None:
        opened.append(args[:1])
        raise AssertionError(f"a file was opened: {args[:1]}")

    try:
        with monkeypatch.context() as m:
            for owner, name in ((builtins, "open"), (io, "open"), (os, "open"), (Path, "open"),
                                (Path, "read_bytes"), (Path, "read_text")):
                m.setattr(owner, name, refuse)
            found = own_corpora(NO_ENV, home)
            lines = table(found, home)
    finally:
        locked.chmod(0o644)
    assert not opened
    assert found[0].files == 5 and found[0].bytes == 50
    assert len(lines) == 4


def test_many_files_are_counted_fast(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sessions = home / ".codex" / "sessions" / "2026"
    n = 0
    for month in range(1, 13):
        for day in range(1, 29):
            folder = sessions / f"{month:02d}" / f"{day:02d}"
            folder.mkdir(parents=True)
            for i in range(60):
                (folder / f"rollout-2026-{month:02d}-{day:02d}T00-00-{i:02d}-x.jsonl").write_bytes(b"{}\n")
                n += 1
    started = time.perf_counter()
    found = own_corpora(NO_ENV, home)
    seconds = time.perf_counter() - started
    assert n == 20_160
    assert [(f.files, f.bytes) for f in found] == [(n, 3 * n)]
    assert seconds < 5, f"listing {n} files took {seconds:.2f} s"


def test_lines_labels_and_sizes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    location = Location("claude_code", home / ".claude" / "projects", 1234, 2_300_000_000, at(T0))
    line = location.line(home)
    assert line.startswith(f"claude_code  ~{os.sep}.claude{os.sep}projects  1,234 files  2.3 GB  newest ")
    assert str(location).startswith("claude_code  ") and "1,234 files  2.3 GB" in str(location)
    assert location.label(home) == f"Claude Code: ~{os.sep}.claude{os.sep}projects (1,234 files, 2.3 GB)"
    one = Location("codex", tmp_path / "elsewhere" / "sessions", 1, 512, None, "CODEX_HOME", compressed=2)
    assert one.line(home) == (f"codex        {tmp_path / 'elsewhere' / 'sessions'}  1 file  512 B"
                              "  (and 2 compressed rollouts, .jsonl.zst, not read)")
    lines = table([location, one], home)
    assert lines[0].index("1,234") == lines[1].index("1 file")  # folders padded to one width
    assert tilde(home, home) == "~"
    assert [human_size(n) for n in (0, 999, 1000, 12_345, 999_960, 2_300_000_000, 10**16)] == [
        "0 B", "999 B", "1.0 kB", "12.3 kB", "1.0 MB", "2.3 GB", "10.0 PB"]
    data = location.as_dict(home)
    assert json.loads(json.dumps(data)) == data
    assert data["newest"] == "2025-11-24T16:00:00+00:00" and data["path"] == str(location.path)


def test_choices_put_the_parameters_corpus_first(tmp_path: Path) -> None:
    home = tmp_path / "home"
    location = Location("gemini_cli", home / ".gemini" / "tmp", 3, 9, at(T0))
    assert choices([], "data/") == [(DEMO_LABEL, "data/")]
    options = choices([location], "/somewhere/repo/data", home)
    assert options == [(DEMO_LABEL, "/somewhere/repo/data"),
                       (f"Gemini CLI: ~{os.sep}.gemini{os.sep}tmp (3 files, 9 B)", str(home / ".gemini" / "tmp"))]
    assert choices([], "corpus.parquet.d")[0] == ("CORPUS (corpus.parquet.d)", "corpus.parquet.d")
    row = rows([location], home)[0]
    assert (row["client"], row["files"], row["size"]) == ("gemini_cli", 3, "9 B")
    assert row["to load it"] == f"CORPUS = {str(home / '.gemini' / 'tmp')!r}"


# --- the command line (built here: the subcommand is registered in toolkit.cli separately) -----------


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="toolkit")
    sub = parser.add_subparsers(dest="command", required=True)
    corpora_cli.register(sub)
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert Path.home() == home
    return home


def test_cli_says_plainly_when_none_is_found(fake_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["corpora"]) == 0
    assert capsys.readouterr().out == NONE_FOUND + "\n"
    assert run_cli(["corpora", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"locations": []}


def test_cli_lists_folders(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    claude_tree(fake_home / ".claude")
    codex_tree(tmp_path / "codex-home")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert run_cli(["corpora"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"claude_code  ~{os.sep}.claude{os.sep}projects")
    assert "4 files  42 B  newest " in out[0]
    assert out[1].startswith(f"codex        {tmp_path / 'codex-home' / 'sessions'}")
    assert "(and 1 compressed rollout, .jsonl.zst, not read)" in out[1]
    assert out[-1].startswith("load one with: toolkit info FOLDER")
    assert run_cli(["corpora", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["client"], d["files"], d["bytes"], d["found_by"]) for d in data["locations"]] == [
        ("claude_code", 4, 42, "default"), ("codex", 2, 7, "CODEX_HOME"), ("codex", 1, 6, "CODEX_HOME")]
    assert data["locations"][0]["shown"] == f"~{os.sep}.claude{os.sep}projects"
