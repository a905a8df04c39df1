"""The importers, in the order detection asks them, and format detection from content (a saved
corpus is recognised by its manifest)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

from toolkit.corpus.importer import SNIFF_BYTES as SNIFF_BYTES  # detection's head size, named here too
from toolkit.corpus.importer import Claim, Importer, forget_sniffed, sniffing_whole
from toolkit.errors import NotFound

MANIFEST = "corpus.json"
"""The file that marks a directory as a saved corpus (see ``Corpus.save``): a load reopens it from
Parquet instead of reading its files."""


def importers() -> list[Importer]:
    """Every importer, most specific first. The last four, the wire family, share one sniff that
    tells a recording (which may hold Chat Completions bodies) from a bare body of each wire."""
    return list(_importers())


@functools.cache
def _importers() -> tuple[Importer, ...]:
    """The importers, imported once (rebuilding the list for every file cost 5 us a file)."""
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
    return tuple(found)


def sniff(path: Path) -> tuple[Importer, object] | None:
    """The importer whose format the file's content matches and its detection (what its sniff
    returned, for its ``read``), or ``None``. A sniff several importers share is asked once. A file
    that opens with a Claude Code record is told from its first line, and its detection is then its
    bytes when the head holds them all."""
    try:
        head_bytes = read_head(path)
    except OSError:
        return None
    try:
        return _sniff_head(path, head_bytes)
    finally:
        forget_sniffed()  # what the sniffs parsed is this file's: a detection owns its document


def read_head(path: str | Path) -> bytes:
    """The first ``SNIFF_BYTES`` of a file, read with the system calls themselves: a Python file
    object cost 6 us of the 25 it took for a 20 KB file (measured 2026-12-01)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        parts: list[bytes] = []
        wanted = SNIFF_BYTES
        while wanted > 0:  # a read may return less than asked before the end of the file
            part = os.read(fd, wanted)
            if not part:
                break
            parts.append(part)
            wanted -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)
    finally:
        os.close(fd)


def _sniff_head(path: Path, head_bytes: bytes) -> tuple[Importer, object] | None:
    """``sniff`` of a file whose first ``SNIFF_BYTES`` are ``head_bytes``."""
    order = importers()
    from toolkit.corpus.claude_code import opens_with_record
    from toolkit.corpus.claude_code import sniff as claude_code_sniff

    # Claude Code's sniff, asked first, takes a file whose first line is one of its records, which
    # the raw bytes show: decoding the whole head first cost 75 us a file when it holds CJK text.
    # A head shorter than asked for is the whole file, handed on so that reading does not read it
    # again (15 us a file).
    if order and order[0].sniff is claude_code_sniff and opens_with_record(head_bytes):
        return order[0], head_bytes if len(head_bytes) < SNIFF_BYTES else True
    try:
        head, clean = head_bytes.decode("utf-8"), True
    except UnicodeDecodeError:  # also a head cut inside a character
        head, clean = head_bytes.decode("utf-8", errors="replace"), False
    if len(head_bytes) < SNIFF_BYTES:
        sniffing_whole(head, head_bytes, clean)
    answers: dict[Callable[[Path, str], object], object] = {}
    for importer in order:
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
    raise NotFound(f"no importer named {name!r} (known: {known})")
