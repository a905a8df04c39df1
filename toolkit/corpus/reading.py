"""Reading source files into sessions, a chunk of files at a time: which files a path holds, how
they are cut into chunks for worker processes, and reading one chunk (sniff, import, collect
problems). A chunk is read the same in this process, in a local worker or in a Ray task, so any
engine gives the corpus one process gives once chunks are merged in order."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from toolkit.corpus.formats import MANIFEST, SNIFF_BYTES, by_name, importers, refuse_half_written, sniff
from toolkit.corpus.formats.importer import (
    ImportContext,
    Importer,
    collector_paused,
    line_of,
    name_suffix,
    never,
    text_name,
)
from toolkit.corpus.linking import Linker
from toolkit.record import Problem, RecordError, Session
from toolkit.workers import Engine, batches

if TYPE_CHECKING:
    from toolkit.corpus.corpus import Corpus

SKIP_SUFFIXES = frozenset({
    ".md", ".rst", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".parquet", ".py", ".pyc",
    ".ipynb", ".html", ".css", ".js", ".lock", ".toml", ".cfg", ".ini", ".sh",
})
"""Files a directory load does not try to read (documents, images, code), unless an importer names
the file its transcript (``Importer.documents``). A file named directly is always tried."""

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "__pycache__", ".ipynb_checkpoints", ".venv", "venv", "node_modules",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", ".tox",
})
"""Directories a directory load does not descend into. Other dot-directories are read: agent
homes such as ``.codex/sessions`` and ``.gemini/tmp`` are where transcripts live."""

CHUNK_BYTES = 64 << 20
"""Source bytes per chunk at most when writing parts, so a worker holds a bounded share of a corpus
of any size."""


@dataclass(frozen=True)
class Source:
    """A file to read and the name it is reported under (relative to the root it was found in)."""

    path: str
    name: str
    size: int


@dataclass(frozen=True)
class Chunk:
    """Files read by one task, in load order."""

    sources: tuple[Source, ...]
    format: str | None = None
    """An importer forced for every file, else detection from content."""
    strict: bool = False


@dataclass
class ChunkResult:
    """What reading a chunk gave: everything a corpus holds, for these files."""

    sessions: list[Session] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    formats: dict[str, str] = field(default_factory=dict)


def sources(root: Path, skipped: Callable[[str, str], None] | None = None) -> list[Source]:
    """The files a path holds, in the order ``sorted(root.rglob("*"))`` gives (by path components),
    minus skipped directories and suffixes and the files an importer reads as part of another file
    (``Importer.owns``); a skipped suffix is read where an importer names the file its transcript
    (``Importer.documents``: Aider's ``.aider.chat.history.md``). Walked with ``os.scandir`` and
    named by string slicing: ``pathlib`` per file cost 0.2 s of a 2.4 s load of 3,116 files.

    What the walk cannot or will not read is told to ``skipped`` (its name, why): a directory it
    cannot list, a link to a directory (never followed, so a loop cannot make a walk endless), and
    an entry that is neither file nor directory (a FIFO would block the read that opens it)."""
    if not root.is_dir():
        return [Source(str(root), text_name(root.name), _size(root))]
    found: list[tuple[tuple[str, ...], str, int]] = []
    owned = [i.owns for i in importers() if i.owns is not never]
    documents = [i.documents for i in importers() if i.documents is not never]
    tell = skipped or _ignore

    def wanted(path: str, name: str) -> bool:
        if name == ".DS_Store":
            return False
        if name_suffix(name).lower() in SKIP_SUFFIXES and not any(test(path) for test in documents):
            return False
        return not any(test(path) for test in owned)

    def walk(directory: str, parts: tuple[str, ...]) -> None:
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            tell(text_name(os.sep.join(parts) or directory), f"directory not read: {exc.strerror or exc}")
            return
        for entry in entries:
            here = (*parts, entry.name)
            try:
                is_dir = entry.is_dir()
                if is_dir and entry.is_symlink():
                    if entry.name not in SKIP_DIRS:
                        tell(text_name(os.sep.join(here)), "link to a directory: not followed")
                elif is_dir:
                    if entry.name not in SKIP_DIRS:
                        walk(entry.path, here)
                elif entry.is_file():
                    if wanted(entry.path, entry.name):
                        found.append((here, entry.path, entry.stat().st_size))
                elif entry.is_symlink():
                    tell(text_name(os.sep.join(here)), "link to nothing: not read")
                else:
                    tell(text_name(os.sep.join(here)), "not a regular file (a FIFO, socket or device): not read")
            except OSError as exc:
                tell(text_name(os.sep.join(here)), f"not read: {exc.strerror or exc}")
                continue

    walk(str(root), ())
    found.sort(key=lambda item: item[0])
    return [Source(path, text_name(os.sep.join(parts)), size) for parts, path, size in found]


def _ignore(name: str, reason: str) -> None:
    """The default of ``sources``'s ``skipped``: nothing is told."""


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def start(path: str | Path | Iterable[str | Path], ctx: ImportContext, corpus: Corpus) -> list[Source]:
    """What a load begins with: a missing path is a problem, a saved corpus is reopened into
    ``corpus``, and the files of the other paths are returned to be read."""
    roots = [Path(path)] if isinstance(path, str | Path) else [Path(p) for p in path]
    found: list[Source] = []
    for root in roots:
        if not root.exists():
            ctx.problem(root, None, "no such file or directory")
            continue
        if root.is_dir() and (root / MANIFEST).is_file():
            from toolkit.corpus.parquet import load_saved

            load_saved(root, corpus)
            continue
        if root.is_dir():
            refuse_half_written(root)
        elif not root.is_file():
            ctx.problem(root, None, "not a regular file (a FIFO, socket or device): not read")
            continue
        found.extend(sources(root, functools.partial(_skipped, ctx)))
    return found


def _skipped(ctx: ImportContext, name: str, reason: str) -> None:
    ctx.problem(name, None, reason)


def linkers(formats: Iterable[str] | None = None) -> dict[str, Linker]:
    """The linkers of the importers named in ``formats`` (the formats a load read), or of all."""
    wanted = None if formats is None else set(formats)
    return {i.name: i.link for i in importers() if i.link is not None and (wanted is None or i.name in wanted)}


def chunks(found: list[Source], workers: int, *, most: int | None = CHUNK_BYTES, format: str | None = None,
           strict: bool = False, engine: Engine | str = "local") -> list[Chunk]:
    """``found`` cut, in order, into chunks of similar size, several per worker and none over ``most``
    bytes of source (a larger file is a chunk of its own). A forced ``format`` is checked here, so
    an unknown name fails before any file is read."""
    forced = by_name(format).name if format is not None else None
    return [Chunk(tuple(batch), forced, strict) for batch in batches(found, _size_of, workers, most=most,
                                                                         engine=engine)]


def _size_of(source: Source) -> int:
    return source.size


def read_chunk(chunk: Chunk, tick: Callable[[int], None] | None = None) -> ChunkResult:
    """Read every file of ``chunk`` in order. A file no importer recognises, or whose importer
    fails, is a problem and the rest goes on; ``strict`` raises ``RecordError`` at the first
    problem. ``tick`` hears the number of problems so far after each file (a progress bar)."""
    ctx = ImportContext(strict=chunk.strict)
    result = ChunkResult(images=ctx.images, problems=ctx.problems)
    forced = by_name(chunk.format) if chunk.format is not None else None
    with collector_paused():
        for source in chunk.sources:
            _read_file(source, forced, ctx, result)
            if tick is not None:
                tick(len(ctx.problems))
    return result


def _read_file(source: Source, forced: Importer | None, ctx: ImportContext, result: ChunkResult) -> None:
    name = source.name
    file = Path(source.path)
    result.files.append(name)
    ctx.names[source.path] = name
    try:
        found = (forced, None) if forced is not None else sniff(file)
    except RecordError:
        raise
    except Exception as exc:  # a sniffer bug must not lose the rest of the corpus
        ctx.problem(name, None, f"format detection failed: {type(exc).__name__}: {exc}")
        return
    if found is None:
        line, reason = unknown_reason(file)
        ctx.problem(name, line, reason)
        return
    importer, detection = found
    result.formats[name] = importer.name
    try:
        sessions = importer.read(file, ctx, detection)
    except RecordError:
        raise
    except Exception as exc:  # an importer bug must not lose the rest of the corpus
        ctx.problem(name, None, f"{importer.name} importer failed: {type(exc).__name__}: {exc}")
        return
    result.sessions.extend(sessions)


REASON_WHOLE = 16 << 20
"""Files up to this size are read whole to say why no importer took them; of a larger one, only
its head is read (a 600 MB log is not held in memory to say it is unknown)."""


def unknown_reason(file: Path) -> tuple[int | None, str]:
    """Why no importer took a file, as precisely as the bytes allow: broken JSON is named with
    its line, well-formed JSON of an unknown shape with its top-level keys."""
    try:
        with file.open("rb") as handle:
            data = handle.read(REASON_WHOLE + 1)
    except OSError as exc:
        return None, f"cannot read: {exc}"
    if len(data) > REASON_WHOLE:
        return _head_reason(data[:SNIFF_BYTES])
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text:
        return None, "empty file"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return line_of(data, exc.start), f"unknown format: not UTF-8 text ({exc.reason} at byte {exc.start})"
    if text[:1] in (b"{", b"["):
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            first = text.split(b"\n", 1)[0]
            try:
                record = orjson.loads(first)
            except orjson.JSONDecodeError:
                return line_of(data, exc.pos), f"not valid JSON ({exc.msg}), so its format cannot be recognised"
            return 1, f"unknown format: JSON lines whose records no importer recognises ({_shape(record)})"
        return None, f"unknown format: valid JSON that no importer recognises ({_shape(value)})"
    return None, "unknown format: no importer recognises this content"


def _head_reason(head: bytes) -> tuple[int | None, str]:
    """``unknown_reason`` of a file too large to read whole, from its head: its first line's record."""
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        record = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None, f"unknown format: no importer recognises this content (judged from its first {len(head)} bytes)"
    return 1, f"unknown format: JSON lines whose records no importer recognises ({_shape(record)})"


def _shape(value: object, depth: int = 0) -> str:
    """A few words on a JSON value's shape, three levels deep at most."""
    if isinstance(value, dict):
        keys = ", ".join(list(map(str, value))[:8])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(value, list):
        inner = ("..." if depth >= 3 else _shape(value[0], depth + 1)) if value else "nothing"
        return f"a list of {len(value)}, the first being {inner}"
    return f"a JSON {type(value).__name__}"
