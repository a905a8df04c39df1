"""Load session corpora from real formats into the record, and reopen saved corpora fast."""

from __future__ import annotations

import gc
from collections.abc import Iterable
from pathlib import Path

import orjson

from toolkit.corpus.corpus import Corpus
from toolkit.corpus.formats import MANIFEST, by_name, detect, importers, sniff
from toolkit.corpus.importer import ImportContext, Importer, line_of
from toolkit.record import RecordError

__all__ = ["Corpus", "ImportContext", "Importer", "by_name", "detect", "importers", "load"]

SKIP_SUFFIXES = frozenset({
    ".md", ".rst", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".parquet", ".py", ".pyc",
    ".ipynb", ".html", ".css", ".js", ".lock", ".toml", ".cfg", ".ini", ".sh",
})
"""Files a directory load does not try to read (documents, images, code). A file named
directly is always tried."""

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "__pycache__", ".ipynb_checkpoints", ".venv", "venv", "node_modules",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", ".tox",
})
"""Directories a directory load does not descend into. Other dot-directories are read: agent
homes such as ``.codex/sessions`` and ``.gemini/tmp`` are where transcripts live."""


def _candidates(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    files: list[Path] = []
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS for part in rel.parts[:-1]) or path.name == ".DS_Store":
            continue
        if path.suffix.lower() in SKIP_SUFFIXES:
            continue
        files.append(path)
    return files


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root if root.is_dir() else root.parent))
    except ValueError:
        return str(path)


def load(
    path: str | Path | Iterable[str | Path],
    *,
    strict: bool = False,
    progress: bool | None = None,
    format: str | None = None,
) -> Corpus:
    """Load a file, a directory (recursively) or several paths into one corpus.

    The format of each file is detected from its content (``format`` forces one importer). A
    saved corpus directory (one holding ``corpus.json``) is reopened from Parquet. Problems are
    collected with file, line and reason, and the rest loads; ``strict=True`` raises
    ``RecordError`` on the first problem instead."""
    roots = [Path(path)] if isinstance(path, str | Path) else [Path(p) for p in path]
    ctx = ImportContext(strict=strict)
    corpus = Corpus(sessions=[], images=ctx.images, problems=ctx.problems)
    todo: list[tuple[Path, Path]] = []
    for root in roots:
        if not root.exists():
            ctx.problem(root, None, "no such file or directory")
            continue
        if root.is_dir() and (root / MANIFEST).is_file():
            from toolkit.corpus.parquet import load_saved

            load_saved(root, corpus)
            continue
        todo.extend((file, root) for file in _candidates(root))
    forced = by_name(format) if format is not None else None
    used: dict[str, Importer] = {}
    # The record is millions of small immutable objects and no cycles; the cyclic collector
    # only re-scans them (measured: about half of the import time on large rollouts).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        _read_all(todo, forced, ctx, corpus, used, progress)
    finally:
        if gc_was_enabled:
            gc.enable()
    for importer in used.values():
        if importer.link is not None:
            linked = importer.link(corpus.sessions, ctx)
            corpus.sessions[:] = linked
    return corpus


def _read_all(todo: list[tuple[Path, Path]], forced: Importer | None, ctx: ImportContext, corpus: Corpus,
              used: dict[str, Importer], progress: bool | None) -> None:
    for file, root in _progress(todo, progress):
        name = _display(file, root)
        corpus.files.append(name)
        ctx.names[str(file)] = name
        try:
            found = (forced, None) if forced is not None else sniff(file)
        except RecordError:
            raise
        except Exception as exc:  # a sniffer bug must not lose the rest of the corpus
            ctx.problem(name, None, f"format detection failed: {type(exc).__name__}: {exc}")
            continue
        if found is None:
            line, reason = _unknown_reason(file)
            ctx.problem(name, line, reason)
            continue
        importer, detection = found
        corpus.formats[name] = importer.name
        used[importer.name] = importer
        try:
            sessions = importer.read(file, ctx, detection)
        except RecordError:
            raise
        except Exception as exc:  # an importer bug must not lose the rest of the corpus
            ctx.problem(name, None, f"{importer.name} importer failed: {type(exc).__name__}: {exc}")
            continue
        corpus.sessions.extend(sessions)


def _unknown_reason(file: Path) -> tuple[int | None, str]:
    """Why no importer took a file, as precisely as the bytes allow: broken JSON is named with
    its line, well-formed JSON of an unknown shape with its top-level keys."""
    try:
        data = file.read_bytes()
    except OSError as exc:
        return None, f"cannot read: {exc}"
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


def _shape(value: object, depth: int = 0) -> str:
    """A few words on a JSON value's shape, three levels deep at most."""
    if isinstance(value, dict):
        keys = ", ".join(list(map(str, value))[:8])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(value, list):
        inner = ("..." if depth >= 3 else _shape(value[0], depth + 1)) if value else "nothing"
        return f"a list of {len(value)}, the first being {inner}"
    return f"a JSON {type(value).__name__}"


def _progress(items: list[tuple[Path, Path]], progress: bool | None) -> Iterable[tuple[Path, Path]]:
    show = progress if progress is not None else len(items) > 20
    if not show:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc="loading", unit="file")
