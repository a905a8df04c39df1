"""The importers, in the order detection asks them, and format detection from content."""

from __future__ import annotations

from pathlib import Path

from toolkit.corpus.source import Importer

SNIFF_BYTES = 65536
"""How much of a file detection reads: enough for the first records of every format."""


def importers() -> list[Importer]:
    """Every importer, most specific first (a recording that holds a Chat Completions body must
    be claimed by the recording importer before the bare Chat Completions one looks at it)."""
    found: list[Importer] = []
    from toolkit.corpus.claude_code import IMPORTER as CLAUDE_CODE

    found.append(CLAUDE_CODE)
    from toolkit.corpus.codex import IMPORTER as CODEX
    from toolkit.corpus.gemini_cli import IMPORTER as GEMINI_CLI

    found.append(CODEX)
    found.append(GEMINI_CLI)
    from toolkit.corpus.inspect_log import IMPORTER as INSPECT
    from toolkit.corpus.openhands import IMPORTER as OPENHANDS
    from toolkit.corpus.sweagent import IMPORTER as SWEAGENT

    found.extend((INSPECT, OPENHANDS, SWEAGENT))
    from toolkit.corpus.anthropic_messages import IMPORTER as ANTHROPIC
    from toolkit.corpus.gemini_contents import IMPORTER as GEMINI
    from toolkit.corpus.openai_chat import IMPORTER as OPENAI_CHAT
    from toolkit.corpus.recording import IMPORTER as RECORDING

    found.extend((RECORDING, OPENAI_CHAT, ANTHROPIC, GEMINI))
    return found


def detect(path: Path) -> Importer | None:
    """The importer whose format the file's content matches, or ``None``."""
    try:
        with path.open("rb") as handle:
            head_bytes = handle.read(SNIFF_BYTES)
    except OSError:
        return None
    head = head_bytes.decode("utf-8", errors="replace")
    for importer in importers():
        if importer.sniff(path, head):
            return importer
    return None


def by_name(name: str) -> Importer:
    for importer in importers():
        if importer.name == name:
            return importer
    known = ", ".join(i.name for i in importers())
    raise KeyError(f"no importer named {name!r} (known: {known})")
