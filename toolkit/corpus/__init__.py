"""Load session corpora from real formats into the record, and reopen saved corpora fast."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.corpus.corpus import Corpus
from toolkit.corpus.formats import by_name, detect, importers
from toolkit.corpus.formats.importer import ImportContext, Importer, collector_paused
from toolkit.corpus.linking import link
from toolkit.corpus.progress import Progress
from toolkit.corpus.reading import (
    CHUNK_BYTES,
    SKIP_DIRS,
    SKIP_SUFFIXES,
    ChunkResult,
    chunks,
    linkers,
    read_chunk,
    start,
)
from toolkit.lazy import lazy_attributes
from toolkit.workers import Engine, engine_named, ordered_map, worker_count

if TYPE_CHECKING:
    from toolkit.corpus.ingesting import ingest
    from toolkit.corpus.parquet import scan

__all__ = ["SKIP_DIRS", "SKIP_SUFFIXES", "Corpus", "ImportContext", "Importer", "by_name", "detect",
           "importers", "ingest", "load", "scan"]

# ``ingest`` and ``scan`` import polars: resolved on first use, so loading a file stays light.
__getattr__, __dir__ = lazy_attributes(
    __name__, {"ingest": "toolkit.corpus.ingesting", "scan": "toolkit.corpus.parquet"}, globals())


def load(
    path: str | Path | Iterable[str | Path],
    *,
    strict: bool = False,
    progress: bool | None = None,
    format: str | None = None,
    workers: int | None = None,
    engine: Engine | str = "local",
) -> Corpus:
    """Load a file, a directory (recursively) or several paths into one corpus.

    The format of each file is detected from its content (``format`` forces one importer). A
    saved corpus directory (one holding ``corpus.json``) is reopened from Parquet. Problems are
    collected with file, line and reason, and the rest loads; ``strict=True`` raises
    ``RecordError`` on the first problem instead.

    ``workers=N`` reads chunks of files in N processes (0: every core) and ``engine="ray"`` as Ray
    tasks; either gives the corpus one process gives (same sessions, ids, order and problems).
    Sending the sessions a worker read back to this process costs about as much as reading them, so
    on two cores it gains nothing and pays off only with more cores (``bench_parallel`` in
    ``benchmarks/RESULTS.md``); ``toolkit.ingest``
    writes Parquet parts from the workers instead and does not pay it.

    Args:
        path: A file, a directory (read recursively), a saved corpus directory, or several of them.
        strict: Raise ``RecordError`` on the first problem instead of collecting it.
        progress: Show a progress bar (``None``: for more than 20 files).
        format: The importer every file is read with, instead of detecting each file's format.
        workers: Processes to read chunks of files in (``None`` or 1: this one; 0: every core).
        engine: ``"local"`` worker processes, or ``"ray"`` tasks.

    Returns:
        One corpus: its sessions in file order, the images they name, the problems met.

    Raises:
        RecordError: With ``strict``, at the first problem.
        InvalidInput: ``format`` names no importer."""
    ctx = ImportContext(strict=strict)
    corpus = Corpus(sessions=[], images=ctx.images, problems=ctx.problems)
    found = start(path, ctx, corpus)
    count = worker_count(workers, engine)
    local = engine_named(engine) == "local"
    tasks = chunks(found, count, most=None if local and count == 1 else CHUNK_BYTES,
                   format=format, strict=strict, engine=engine)
    formats: dict[str, str] = {}
    with Progress(len(found), "loading", progress, before=len(ctx.problems)) as bar, collector_paused():
        results: Iterable[ChunkResult] = (
            [read_chunk(tasks[0], bar.file)] if len(tasks) == 1 and local
            else ordered_map(read_chunk, tasks, workers=count, engine=engine))
        for result in results:
            corpus.sessions.extend(result.sessions)
            for digest, data in result.images.items():
                corpus.images.setdefault(digest, data)
            corpus.problems.extend(result.problems)
            corpus.files.extend(result.files)
            formats.update(result.formats)
            bar.chunk(len(result.files), len(result.problems))
    corpus.formats.update(formats)
    corpus.sessions[:], unlinked = link(corpus.sessions, linkers(formats.values()))
    ctx.extend(unlinked)
    return corpus
