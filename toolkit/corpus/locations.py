"""Where a user's own transcripts live: the folders Claude Code, Codex CLI and Gemini CLI write their
sessions to, found by the rules those clients follow (their environment variables included) and
counted by listing and ``stat`` alone.

Nothing here opens, reads or parses a file: a folder is read only when the user picks it and loads
it (``toolkit.load(location.path)``). Counting walks with ``os.scandir`` (one ``stat`` per
transcript file and per directory entered, nothing else per file), enters each directory at most
once even through symlinks (a symlink loop ends instead of repeating), and never goes deeper than
the client's own layout. An environment variable set to an empty string counts as unset, as in the
clients themselves.

Every default path and variable below cites where it comes from (all read 2026-12-01)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

CLIENTS: tuple[str, ...] = ("claude_code", "codex", "gemini_cli")
"""Client names, as the importers name their formats."""

CLIENT_NAMES: dict[str, str] = {"claude_code": "Claude Code", "codex": "Codex CLI", "gemini_cli": "Gemini CLI"}

NONE_FOUND = "no transcripts of Claude Code, Codex or Gemini CLI found in their standard places"
"""What to say when ``own_corpora()`` finds nothing."""

DEMO_LABEL = "demo corpus (data/)"

Parts = tuple[str, ...]
"""A path relative to a location's folder, as its parts (a directory's, or a file's with its name)."""


@dataclass(frozen=True)
class Location:
    """One folder of one client's transcripts on this machine, with what listing it found."""

    client: str
    """``claude_code``, ``codex`` or ``gemini_cli``."""
    path: Path
    """The folder to load (``toolkit.load(path)`` reads every transcript under it)."""
    files: int
    """Transcript files under it, by the client's layout (nothing else is counted)."""
    bytes: int
    """Their total size."""
    newest: datetime | None
    """The latest modification time among them (UTC), ``None`` when there are none."""
    found_by: str = "default"
    """The environment variable that placed the folder, or ``default``."""
    compressed: int = 0
    """Codex rollouts stored compressed (``rollout-*.jsonl.zst``): counted apart, as the toolkit
    does not read them."""

    @property
    def name(self) -> str:
        """The client's display name (``Claude Code``)."""
        return CLIENT_NAMES.get(self.client, self.client)

    def shown(self, home: Path | None = None) -> str:
        """The folder with the home directory written as ``~``."""
        return tilde(self.path, home)

    def size(self) -> str:
        """The total size for people (``2.3 GB``)."""
        return human_size(self.bytes)

    def line(self, home: Path | None = None, path_width: int = 0) -> str:
        """``claude_code  ~/.claude/projects  1,234 files  2.3 GB  newest 2026-11-30 14:02``."""
        text = (f"{self.client:<11}  {self.shown(home):<{path_width}}  {count(self.files, 'file')}  "
                f"{self.size()}")
        if self.newest is not None:
            text += f"  newest {local_time(self.newest)}"
        if self.compressed:
            text += f"  (and {count(self.compressed, 'compressed rollout')}, .jsonl.zst, not read)"
        return text

    def label(self, home: Path | None = None) -> str:
        """A picker's label: ``Claude Code: ~/.claude/projects (1,234 files, 2.3 GB)``."""
        return f"{self.name}: {self.shown(home)} ({count(self.files, 'file')}, {self.size()})"

    def as_dict(self, home: Path | None = None) -> dict[str, object]:
        """JSON values with stable keys (what ``toolkit corpora --json`` prints for each folder)."""
        return {
            "client": self.client,
            "name": self.name,
            "path": str(self.path),
            "shown": self.shown(home),
            "files": self.files,
            "bytes": self.bytes,
            "size": self.size(),
            "newest": self.newest.isoformat() if self.newest is not None else None,
            "found_by": self.found_by,
            "compressed": self.compressed,
        }

    def __str__(self) -> str:
        return self.line()


def _never(parts: Parts) -> bool:
    return False


@dataclass(frozen=True)
class Layout:
    """Where one client would keep transcripts: a folder, and tests on paths relative to it."""

    client: str
    folder: Path
    found_by: str
    descend: Callable[[Parts], bool]
    """Whether to enter a directory."""
    wanted: Callable[[Parts], bool]
    """Whether a file is a transcript."""
    compressed: Callable[[Parts], bool] = _never
    """Whether a file is a transcript the toolkit cannot read (counted apart)."""


# --- Claude Code ----------------------------------------------------------------------------------
# Default ~/.claude, moved whole by CLAUDE_CONFIG_DIR: "If you set CLAUDE_CONFIG_DIR, every ~/.claude
# path on this page lives under that directory instead", and ~/.claude "also holds data Claude Code
# writes as you work: transcripts, ..." (https://code.claude.com/docs/en/claude-directory, read
# 2026-12-01). Transcripts: projects/<project>/<session>.jsonl; subagents in older releases
# projects/<project>/agent-<id>.jsonl, in newer ones projects/<project>/<session>/subagents/
# agent-<id>.jsonl (journal.jsonl beside them holds lifecycle records, not a conversation); the
# layout the claude_code importer reads, also described in
# https://www.skills.sh/jlreyes/agent-history-skills/exploring-claude-sessions (read 2026-12-01).
# Claude Code 1.0.30 briefly wrote to $XDG_CONFIG_HOME/claude (default ~/.config/claude) instead and
# folders from then remain (https://github.com/anthropics/claude-code/issues/2360, 2025-06-20;
# ccusage still searches both, https://github.com/ryoppippi/ccusage docs/guide/environment-variables.md,
# read 2026-12-01), so without CLAUDE_CONFIG_DIR both places are looked at.
CLAUDE_CONFIG_DIR = "CLAUDE_CONFIG_DIR"


def _claude_descend(parts: Parts) -> bool:
    return len(parts) <= 2 or (len(parts) == 3 and parts[2] == "subagents")


def _claude_wanted(parts: Parts) -> bool:
    name = parts[-1]
    if not name.endswith(".jsonl"):
        return False
    return len(parts) == 2 or (len(parts) == 4 and parts[2] == "subagents" and name.startswith("agent-"))


# --- Codex CLI ------------------------------------------------------------------------------------
# Default ~/.codex, moved by CODEX_HOME ("Sets the root for Codex state, including config, auth,
# logs, sessions, ..."; https://developers.openai.com/codex/environment-variables, read 2026-12-01).
# Rollouts: sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, archived ones in archived_sessions/
# (SESSIONS_SUBDIR = "sessions" and ARCHIVED_SESSIONS_SUBDIR = "archived_sessions" in
# codex-rs/rollout/src/lib.rs of https://github.com/openai/codex, whose recorder joins
# sessions/YYYY/MM/DD; read 2026-12-01). Newer releases may compress a rollout to
# rollout-*.jsonl.zst (parse_rollout_file_name in codex-rs/rollout accepts the .zst suffix).
CODEX_HOME = "CODEX_HOME"


def _codex_descend(parts: Parts) -> bool:
    return len(parts) <= 3


def _codex_wanted(parts: Parts) -> bool:
    return parts[-1].startswith("rollout-") and parts[-1].endswith(".jsonl")


def _codex_compressed(parts: Parts) -> bool:
    return parts[-1].startswith("rollout-") and parts[-1].endswith(".jsonl.zst")


# --- Gemini CLI -----------------------------------------------------------------------------------
# Default ~/.gemini. GEMINI_CLI_HOME replaces the home directory, not .gemini: "Specifies the root
# directory for Gemini CLI's user-level configuration and storage. By default, this is the user's
# system home directory. The CLI will create a .gemini folder inside this directory."
# (docs/reference/configuration.md of https://github.com/google-gemini/gemini-cli; in code,
# homedir() in packages/core/src/utils/paths.ts returns process.env['GEMINI_CLI_HOME'] when set and
# Storage.getGlobalGeminiDir() in packages/core/src/config/storage.ts joins it with .gemini; read
# 2026-12-01). Chat recordings: tmp/<project>/chats/session-*.json, now session-*.jsonl, subagents
# under chats/<parent session id>/<id>.jsonl; <project> is the sha256 of the project root or, in
# newer releases, a short id from projects.json (Storage.getWorkspaceTempDir in storage.ts,
# ChatRecordingService.initialize in packages/core/src/services/chatRecordingService.ts; read
# 2026-12-01). tmp/ holds other files too (logs.json, checkpoints, shell history, bin/): only
# chats/ is entered.
GEMINI_CLI_HOME = "GEMINI_CLI_HOME"


def _gemini_descend(parts: Parts) -> bool:
    return len(parts) == 1 or (len(parts) in (2, 3) and parts[1] == "chats")


def _gemini_wanted(parts: Parts) -> bool:
    return len(parts) in (3, 4) and parts[1] == "chats" and parts[-1].endswith((".json", ".jsonl"))


def _setting(environ: Mapping[str, str], name: str) -> str | None:
    return environ.get(name) or None


def _expand(value: str, home: Path) -> Path:
    """A path from an environment variable, a leading ``~`` meaning ``home`` (shells usually expand
    it before the client sees it)."""
    if value == "~":
        return home
    if value.startswith(("~/", "~" + os.sep)):
        return home / value[2:]
    return Path(value)


def layouts(environ: Mapping[str, str] | None = None, home: Path | None = None) -> list[Layout]:
    """Every folder the clients would keep transcripts in, by their rules, whether or not it exists."""
    env = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    found: list[Layout] = []

    claude = _setting(env, CLAUDE_CONFIG_DIR)
    if claude is not None:
        claude_roots = [(_expand(claude, home), CLAUDE_CONFIG_DIR)]
    else:
        xdg = _setting(env, "XDG_CONFIG_HOME")
        claude_roots = [(home / ".claude", "default"),
                        ((_expand(xdg, home) if xdg else home / ".config") / "claude",
                         "XDG_CONFIG_HOME" if xdg else "default")]
    for root, by in claude_roots:
        found.append(Layout("claude_code", root / "projects", by, _claude_descend, _claude_wanted))

    codex = _setting(env, CODEX_HOME)
    codex_root, by = (_expand(codex, home), CODEX_HOME) if codex is not None else (home / ".codex", "default")
    for sub in ("sessions", "archived_sessions"):
        found.append(Layout("codex", codex_root / sub, by, _codex_descend, _codex_wanted, _codex_compressed))

    gemini = _setting(env, GEMINI_CLI_HOME)
    gemini_home, by = (_expand(gemini, home), GEMINI_CLI_HOME) if gemini is not None else (home, "default")
    found.append(Layout("gemini_cli", gemini_home / ".gemini" / "tmp", by, _gemini_descend, _gemini_wanted))
    return found


def _listed(layout: Layout) -> tuple[Location, tuple[int, int]] | None:
    """List one folder by its layout, with the folder's (device, inode); ``None`` when it is not a
    directory."""
    try:
        top = os.stat(layout.folder)
    except OSError:
        return None
    if not stat.S_ISDIR(top.st_mode):
        return None
    key = (top.st_dev, top.st_ino)
    entered = {key}
    stack: list[tuple[str, Parts]] = [(os.fspath(layout.folder), ())]
    files = size = compressed = 0
    newest: float | None = None
    while stack:
        directory, parts = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:  # unreadable or vanished: what cannot be listed is not counted
            continue
        for entry in entries:
            rel = (*parts, entry.name)
            try:
                if layout.wanted(rel) and entry.is_file():
                    st = entry.stat()
                    files += 1
                    size += st.st_size
                    newest = st.st_mtime if newest is None else max(newest, st.st_mtime)
                elif layout.compressed(rel) and entry.is_file():
                    compressed += 1
                elif layout.descend(rel) and entry.is_dir():
                    st = entry.stat()  # follows a symlink; its target is entered once at most
                    inode = (st.st_dev, st.st_ino)
                    if inode not in entered:
                        entered.add(inode)
                        stack.append((entry.path, rel))
            except OSError:  # a dangling symlink, a file removed while listing
                continue
    when = datetime.fromtimestamp(newest, tz=UTC) if newest is not None else None
    return Location(layout.client, layout.folder, files, size, when, layout.found_by, compressed), key


def own_corpora(environ: Mapping[str, str] | None = None, home: Path | None = None,
                include_empty: bool = False) -> list[Location]:
    """The folders on this machine where Claude Code, Codex CLI and Gemini CLI keep transcripts, in
    that order, each with its transcript count, total size and newest time.

    ``environ`` defaults to ``os.environ`` and ``home`` to ``Path.home()``. A folder holding no
    transcript is left out unless ``include_empty``; a folder reached by two names (a symlinked
    ``~/.config/claude``) is listed once. Only directory listings and ``stat`` are used: no file is
    opened."""
    found: list[Location] = []
    seen: set[tuple[int, int]] = set()
    for layout in layouts(environ, home):
        listed = _listed(layout)
        if listed is None:
            continue
        location, key = listed
        if key in seen:
            continue
        seen.add(key)
        if include_empty or location.files or location.compressed:
            found.append(location)
    return found


def choices(locations: Iterable[Location], default: str = "data/",
            home: Path | None = None) -> list[tuple[str, str]]:
    """A picker's options as ``(label, path)``: the corpus the parameters name first (labelled
    ``demo corpus (data/)`` when it is the demo corpus), then each location."""
    first = DEMO_LABEL if Path(default).name == "data" else f"CORPUS ({default})"
    return [(first, default), *((loc.label(home), str(loc.path)) for loc in locations)]


def table(locations: Iterable[Location], home: Path | None = None) -> list[str]:
    """One line per location (``Location.line``), folders aligned."""
    found = list(locations)
    width = max((len(loc.shown(home)) for loc in found), default=0)
    return [loc.line(home, width) for loc in found]


def rows(locations: Iterable[Location], home: Path | None = None) -> list[dict[str, object]]:
    """What a notebook shows of each location, with the parameters line that would load it."""
    return [{
        "client": loc.client,
        "folder": loc.shown(home),
        "files": loc.files,
        "size": loc.size(),
        "newest": local_time(loc.newest) if loc.newest is not None else "",
        "to load it": f"CORPUS = {str(loc.path)!r}",
    } for loc in locations]


def tilde(path: Path, home: Path | None = None) -> str:
    """``path`` with ``home`` (default: the user's) written as ``~``."""
    home = Path.home() if home is None else home
    try:
        rel = path.relative_to(home)
    except ValueError:
        return str(path)
    return "~" if rel == Path() else f"~{os.sep}{rel}"


def human_size(n: int) -> str:
    """Bytes for people, in powers of 1000: ``512 B``, ``12.3 kB``, ``2.3 GB``."""
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if round(value, 1) < 1000:
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} PB"


def count(n: int, noun: str) -> str:
    """``1 file``, ``1,234 files``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def local_time(when: datetime) -> str:
    """A time in this machine's zone, to the minute."""
    return when.astimezone().strftime("%Y-%m-%d %H:%M")
