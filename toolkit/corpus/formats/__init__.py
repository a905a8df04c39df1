"""The importers, in the order detection asks them, and format detection from content (a saved
corpus is recognised by its manifest)."""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from pathlib import Path

from toolkit.corpus.formats.importer import (
    SNIFF_BYTES as SNIFF_BYTES,  # detection's head size, named here too
)
from toolkit.corpus.formats.importer import Claim, Head, Importer
from toolkit.errors import InvalidInput, NotFound

MANIFEST = "corpus.json"
"""The file that marks a directory as a saved corpus (see ``Corpus.save``): a load reopens it from
Parquet instead of reading its files."""


def is_saved(directory: Path) -> bool:
    """Whether ``directory`` holds a finished saved corpus (its manifest is written last)."""
    return (directory / MANIFEST).is_file()


def half_written(directory: Path) -> bool:
    """Whether ``directory`` holds the parts of a saved corpus but no manifest: a write that did not
    finish (killed, or by a version that wrote in place), which must not be read as source files."""
    return not is_saved(directory) and (directory / "record").is_dir() and (directory / "sessions").is_dir()


def refuse_half_written(directory: Path) -> None:
    if half_written(directory):
        raise InvalidInput(f"{directory}: a saved corpus whose writing did not finish (no {MANIFEST}); "
                           "import its sources again")


REGISTRY: tuple[str, ...] = (
    "toolkit.corpus.formats.claude_code",
    "toolkit.corpus.formats.codex",
    "toolkit.corpus.formats.gemini_cli",
    "toolkit.corpus.formats.inspect_log",
    "toolkit.corpus.formats.openhands",
    "toolkit.corpus.formats.sweagent",
    "toolkit.corpus.formats.cline",
    "toolkit.corpus.formats.cline_sdk",
    "toolkit.corpus.formats.continue_dev",
    "toolkit.corpus.formats.kimi_cli",
    "toolkit.corpus.formats.aider",
    "toolkit.corpus.formats.specstory",
    "toolkit.corpus.formats.opencode",
    "toolkit.corpus.formats.qwen_code",
    "toolkit.corpus.formats.goose",
    "toolkit.corpus.formats.recording",
)
"""The modules that define formats, in the order detection asks them: most specific first. Each
module's ``IMPORTERS`` (or its one ``IMPORTER``) joins the list in its own order. The wire family
comes last: one sniff, shared by the recording importer and the three bare wire bodies, tells a
recording (which may hold Chat Completions bodies) from a bare body of each wire.

A new format touches one module, which defines its ``IMPORTER`` (its sniff, its read, where its
client keeps files, whether it records tool specs, the sibling files it owns), and its line here."""


def importers() -> list[Importer]:
    """Every importer, in the order detection asks them (``REGISTRY``).

    Returns:
        The importers; the first whose sniff matches a file reads it.
    """
    return list(_importers())


@functools.cache
def _importers() -> tuple[Importer, ...]:
    """The importers, imported once (rebuilding the list for every file cost 5 us a file)."""
    found: list[Importer] = []
    for name in REGISTRY:
        module = importlib.import_module(name)
        found.extend(getattr(module, "IMPORTERS", None) or (module.IMPORTER,))
    return tuple(found)


def sniff(path: Path) -> tuple[Importer, object] | None:
    """The importer whose format the file's content matches and its detection (what its sniff
    returned, for its ``read``), or ``None``. A sniff several importers share is asked once."""
    try:
        data = read_head(path)
        whole = len(data) < SNIFF_BYTES
        if not whole and b"\n" not in data:
            data, whole = read_long_head(path)
        head = Head(path, data, whole)
    except OSError:
        return None
    return sniff_head(head)


LONG_HEAD = 16 << 20
"""How far detection reads for the end of a first line longer than ``SNIFF_BYTES`` (a Claude Code
file opening with a large ``file-history-snapshot``, a JSON Lines file whose first record holds an
image): the sniffs see the first line whole and the head after it."""


def read_long_head(path: str | Path) -> tuple[bytes, bool]:
    """The file up to the end of its first line (at most ``LONG_HEAD``) and ``SNIFF_BYTES`` more,
    and whether that is the whole file."""
    with open(path, "rb") as handle:
        parts: list[bytes] = []
        read = 0
        while read < LONG_HEAD:
            part = handle.read(SNIFF_BYTES)
            if not part:
                return b"".join(parts), True
            parts.append(part)
            read += len(part)
            if b"\n" in part:
                break
        more = handle.read(SNIFF_BYTES)
        parts.append(more)
        return b"".join(parts), len(more) < SNIFF_BYTES and not handle.read(1)


def read_head(path: str | Path) -> bytes:
    """The first ``SNIFF_BYTES`` of a file, read with the system calls themselves: a Python file
    object's layers cost a large share of so small a read."""
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


def sniff_head(head: Head) -> tuple[Importer, object] | None:
    """``sniff`` of a file whose head detection has read: each importer's sniff in order."""
    answers: dict[Callable[[Head], object], object] = {}
    for importer in importers():
        if importer.sniff not in answers:
            answers[importer.sniff] = importer.sniff(head)
        found = answers[importer.sniff]
        if found and (not isinstance(found, Claim) or found.format == importer.name):
            return importer, found
    return None


def detect(path: Path) -> Importer | None:
    """The importer whose format the file's content matches, or ``None``.

    Args:
        path: The file to sniff; only its head is read.

    Returns:
        The importer, or ``None`` when no format claims the file.
    """
    found = sniff(path)
    return None if found is None else found[0]


def by_name(name: str) -> Importer:
    """The importer called ``name``, for a load that forces a format rather than detecting it.

    Args:
        name: The format's name, as the formats table and ``--format`` spell it.

    Returns:
        The importer.

    Raises:
        NotFound: No importer has that name (the message lists the known ones).
    """
    for importer in importers():
        if importer.name == name:
            return importer
    known = ", ".join(i.name for i in importers())
    raise NotFound(f"no importer named {name!r} (known: {known})")
