"""The importers, in the order detection asks them, and format detection from content (a saved
corpus is recognised by its manifest)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from toolkit.corpus.importer import Claim, Importer

SNIFF_BYTES = 65536
"""How much of a file detection reads: enough for the first records of every format."""

MANIFEST = "corpus.json"
"""The file that marks a directory as a saved corpus (see ``Corpus.save``): a load reopens it from
Parquet instead of reading its files."""


def importers() -> list[Importer]:
    """Every importer, most specific first. The last four, the wire family, share one sniff that
    tells a recording (which may hold Chat Completions bodies) from a bare body of each wire."""
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
    from toolkit.corpus.recording import ANTHROPIC, GEMINI, OPENAI_CHAT
    from toolkit.corpus.recording import IMPORTER as RECORDING

    found.extend((RECORDING, OPENAI_CHAT, ANTHROPIC, GEMINI))
    return found


def sniff(path: Path) -> tuple[Importer, object] | None:
    """The importer whose format the file's content matches and its detection (what its sniff
    returned, for its ``read``), or ``None``. A sniff several importers share is asked once."""
    try:
        with path.open("rb") as handle:
            head_bytes = handle.read(SNIFF_BYTES)
    except OSError:
        return None
    head = head_bytes.decode("utf-8", errors="replace")
    answers: dict[Callable[[Path, str], object], object] = {}
    for importer in importers():
        if importer.sniff not in answers:
            answers[importer.sniff] = importer.sniff(path, head)
        found = answers[importer.sniff]
        if found and (not isinstance(found, Claim) or found.format == importer.name):
            return importer, found
    return None


def detect(path: Path) -> Importer | None:
    """The importer whose format the file's content matches, or ``None``."""
    found = sniff(path)
    return None if found is None else found[0]


def by_name(name: str) -> Importer:
    for importer in importers():
        if importer.name == name:
            return importer
    known = ", ".join(i.name for i in importers())
    raise KeyError(f"no importer named {name!r} (known: {known})")
