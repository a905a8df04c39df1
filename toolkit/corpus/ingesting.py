"""Reading a corpus of any size into a saved corpus: each chunk of files is read and written as a
Parquet part by its own worker (a local process or a Ray task), so no process holds more than a
chunk and nothing but a few rows per session travels back. Only the two tables with a row per
session wait for the end, because a subagent's session links to its parent across files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.corpus.corpus import Corpus, anything_read
from toolkit.corpus.formats.importer import ImportContext
from toolkit.corpus.linking import Facts, Link, decide, facts_of, problems
from toolkit.corpus.parquet import write_manifest, write_part, write_sessions, writing
from toolkit.corpus.progress import Progress
from toolkit.corpus.reading import CHUNK_BYTES, Chunk, ChunkResult, chunks, linkers, read_chunk, start
from toolkit.workers import Engine, ordered_map, worker_count

if TYPE_CHECKING:
    from collections.abc import Iterable

    import polars as pl


@dataclass(frozen=True)
class Ingested:
    """Where a corpus was written and what it holds."""

    directory: Path
    files: int
    sessions: int
    problems: int

    @property
    def readable(self) -> bool:
        return anything_read(self.sessions, self.files, self.problems)


@dataclass(frozen=True)
class Task:
    """A chunk to read and the part it becomes."""

    chunk: Chunk
    directory: str
    part: int


@dataclass(frozen=True)
class Written:
    """What a part's worker sends back: its files, formats and problems (for the manifest and the
    bar), and the rows per session the caller writes once links are known."""

    part: int
    files: list[str]
    formats: dict[str, str]
    problems: int
    sessions: pl.DataFrame
    headers: list[dict[str, Any]]
    facts: Facts
    """Link facts of every session a linker takes part in, by position within the part."""


def write_chunk(task: Task) -> Written:
    """Read a chunk and write its part (runs in a worker)."""
    result = read_chunk(task.chunk)
    return _written(Path(task.directory), task.part, result)


def _written(directory: Path, part: int, result: ChunkResult) -> Written:
    frame, headers = write_part(directory, part, result.sessions, result.images, result.problems)
    facts = facts_of(result.sessions, linkers())
    return Written(part, result.files, result.formats, len(result.problems), frame, headers, facts)


def ingest(path: str | Path | Iterable[str | Path], directory: str | Path, *, workers: int | None = None,
           engine: Engine | str = "local", part_bytes: int = CHUNK_BYTES, strict: bool = False,
           format: str | None = None, progress: bool | None = None) -> Ingested:
    """Read ``path`` (as ``toolkit.load`` does) and write it to ``directory`` as a saved corpus in
    parts, one per chunk of files, each written by its worker. ``toolkit.load(directory)`` gives the
    corpus ``toolkit.load(path)`` gives, and ``toolkit.scan(directory)`` its frames lazily. A part
    holds at most ``part_bytes`` of source files (a larger file is a part of its own), which bounds
    what any one process holds. The saved corpus is written beside ``directory`` and swapped into
    place when complete, so an interrupted ingest leaves the previous one whole.

    Args:
        path: What to read, as ``toolkit.load`` takes it.
        directory: Where the saved corpus goes (an existing saved corpus there is replaced; any other
            folder that is not empty is refused).
        workers: Processes writing parts (``None`` or 1: this one; 0: every core).
        engine: ``"local"`` worker processes, or ``"ray"`` tasks.
        part_bytes: The most source bytes one part holds.
        strict: Raise on the first problem, as ``toolkit.load`` does.
        format: The importer every file is read with, instead of detecting each file's format.
        progress: Show a progress bar (``None``: for more than 20 files).

    Returns:
        The directory written, with the files read and the sessions and problems counted."""
    target = Path(directory)
    with writing(target) as out:  # the saved corpus there stays whole until this one is
        done = _ingest(path, out, workers, engine, part_bytes, strict, format, progress)
    return Ingested(target, done.files, done.sessions, done.problems)


def _ingest(path: str | Path | Iterable[str | Path], out: Path, workers: int | None, engine: Engine | str,
            part_bytes: int, strict: bool, format: str | None, progress: bool | None) -> Ingested:
    ctx = ImportContext(strict=strict)
    opening = Corpus(sessions=[], images=ctx.images, problems=ctx.problems)
    found = start(path, ctx, opening)
    count = worker_count(workers, engine)
    cut = chunks(found, count, most=part_bytes, format=format, strict=strict, engine=engine)
    tasks = [Task(chunk, str(out), part) for part, chunk in enumerate(cut, start=1)]
    written: list[Written] = []
    with Progress(len(found), "importing", progress, before=len(ctx.problems)) as bar:
        for done in ordered_map(write_chunk, tasks, workers=count, engine=engine):
            written.append(done)
            bar.chunk(len(done.files), done.problems)
    read = {name: form for w in written for name, form in w.formats.items()}
    opened = facts_of(opening.sessions, linkers())
    links = _links([(len(opening.sessions), opened), *((len(w.headers), w.facts) for w in written)], read.values())
    ctx.extend(problems(links))  # linking's problems go with part 0's
    # part 0: what the paths held before any file was read (missing paths, saved corpora), written
    # once the workers are done, so that they start without waiting for it (0.1 s)
    written.insert(0, _written(out, 0, ChunkResult(opening.sessions, opening.images, opening.problems)))
    files = [*opening.files, *(name for w in written[1:] for name in w.files)]
    formats = {**opening.formats, **read}
    offset = 0
    for part in written:
        frame, headers = part.sessions, part.headers
        mine = {i - offset: link for i, link in links.items() if offset <= i < offset + len(headers)}
        if mine:
            frame, headers = _linked(frame, headers, mine)
        write_sessions(out, part.part, frame, headers)
        offset += len(part.headers)
    write_manifest(out, (w.part for w in written), files, formats)
    return Ingested(out, len(files), offset, sum(w.problems for w in written))


def _links(parts: list[tuple[int, Facts]], formats: Iterable[str]) -> dict[int, Link]:
    """Links over the whole corpus by position in it, from each part's session count and facts (parts
    in order), for the formats read."""
    chosen = linkers(formats)
    facts: Facts = []
    offset = 0
    for count, found in parts:
        facts.extend((offset + i, form, one) for i, form, one in found)
        offset += count
    return decide(facts, chosen)


def _linked(frame: pl.DataFrame, headers: list[dict[str, Any]],
            links: dict[int, Link]) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    """The rows of one part with its links set: the same fields in the frame and the headers."""
    import polars as pl

    rows = frame.to_dicts()
    headers = [dict(h) for h in headers]
    for index, link in links.items():
        fields = {"parent_session_id": link.parent_session_id, "spawn_call_id": link.spawn_call_id,
                  "title": link.title}
        rows[index].update(fields)
        headers[index].update(fields)
    return pl.DataFrame(rows, schema=frame.schema), headers
