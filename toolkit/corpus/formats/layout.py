"""Where one client keeps transcripts, as rules on paths: the ``Layout`` a format's importer gives for
``toolkit corpora`` (``toolkit.corpus.locations`` lists the folders), and the rules of the clients
whose formats came first. Every default path and variable cites where it comes from."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

Parts = tuple[str, ...]
"""A path relative to a location's folder, as its parts (a directory's, or a file's with its name)."""


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


def setting(environ: Mapping[str, str], name: str) -> str | None:
    return environ.get(name) or None


def expand(value: str, home: Path) -> Path:
    """A path from an environment variable, a leading ``~`` meaning ``home`` (shells usually expand
    it before the client sees it)."""
    if value == "~":
        return home
    if value.startswith(("~/", "~" + os.sep)):
        return home / value[2:]
    return Path(value)


def claude_code_layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where Claude Code keeps transcripts (see the rules above)."""
    claude = setting(env, CLAUDE_CONFIG_DIR)
    if claude is not None:
        roots = [(expand(claude, home), CLAUDE_CONFIG_DIR)]
    else:
        xdg = setting(env, "XDG_CONFIG_HOME")
        roots = [(home / ".claude", "default"),
                 ((expand(xdg, home) if xdg else home / ".config") / "claude", "XDG_CONFIG_HOME" if xdg else "default")]
    return [Layout("claude_code", root / "projects", by, _claude_descend, _claude_wanted) for root, by in roots]


def codex_layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where Codex CLI keeps rollouts, archived ones included."""
    codex = setting(env, CODEX_HOME)
    root, by = (expand(codex, home), CODEX_HOME) if codex is not None else (home / ".codex", "default")
    return [Layout("codex", root / sub, by, _codex_descend, _codex_wanted, _codex_compressed)
            for sub in ("sessions", "archived_sessions")]


def gemini_cli_layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where Gemini CLI keeps chat recordings."""
    gemini = setting(env, GEMINI_CLI_HOME)
    root, by = (expand(gemini, home), GEMINI_CLI_HOME) if gemini is not None else (home, "default")
    return [Layout("gemini_cli", root / ".gemini" / "tmp", by, _gemini_descend, _gemini_wanted)]


