"""A corpus saved as Parquet: the analysis frames for polars, plus the record itself (one JSON
column per row, written by ``toolkit.codec``) so reopening rebuilds sessions without the sources.

A saved corpus is written in parts, one per chunk of source files (``toolkit.ingest`` writes each
from its own worker process; ``Corpus.save`` writes one). The parts in the manifest's order are the
corpus in load order, so concatenating a table's parts gives the frame a single load gives, and
``scan`` queries them lazily without loading the corpus. Layout::

    corpus.json                 manifest: version, parts, files, formats (written last)
    <frame>/part-NNNNN.parquet  the frames of ``toolkit.corpus.frames`` (sessions, messages, blocks,
                                tool_calls, events, images, problems), a file per part
    record/sessions/part-...    session_id (position within the part), header (JSON)
    record/messages/part-...    session_id, index, message (JSON)
    record/events/part-...      session_id, index, event (JSON)
    record/run_configs/part-... session_id, index, run_config (JSON)
    record/images/part-...      sha256, data (bytes): each image once per part
    surfaces/                   tool specs, once per distinct surface (``toolkit.surface.SurfaceStore``);
                                a run config keeps only its hash: each distinct surface is stored once

Version 1 (one file per table: ``<frame>.parquet``, ``record/<table>.parquet``) still opens.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from glob import escape as glob_escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit import codec
from toolkit.corpus.formats import MANIFEST, half_written, is_saved, refuse_half_written
from toolkit.corpus.formats.shapes import surface_hash
from toolkit.errors import InvalidInput
from toolkit.jsontext import json_bytes, json_bytes_sparing_strings, json_text, loads
from toolkit.record import Event, Message, Problem, RunConfig, Session
from toolkit.surface import SurfaceStore

if TYPE_CHECKING:
    from toolkit.corpus.corpus import Corpus

FORMAT_VERSION = 3
"""3: a usage of all zeros is null in every token column of the messages frame (``toolkit.measured``),
where 2 wrote it as zeros."""
READABLE_VERSIONS = (1, 2, 3)

FRAMES = ("sessions", "messages", "blocks", "tool_calls", "events", "images", "problems")
"""The frames of ``toolkit.corpus.frames``, a directory of parts each."""


STORED = "tools_in_store"
"""Key set on an encoded run config whose specs live in ``surfaces/`` under its surface hash."""


def _encode_config(config: RunConfig, store: SurfaceStore) -> dict[str, object]:
    """The run config with its specs replaced by their hash when the store can give them back
    byte for byte (a recorded hash that disagrees with its specs, or specs too deep to write, stay
    inline, as recorded)."""
    encoded: dict[str, object] = dict(codec.encode_run_config(config))
    if (config.tools is not None and config.surface_hash is not None
            and config.surface_hash == surface_hash(config.tools, lambda _reason: None)):
        store.put(list(config.tools))
        encoded["tools"] = None
        encoded[STORED] = True
    return encoded


def _decode_config(data: dict[str, object], store: SurfaceStore) -> RunConfig:
    if data.pop(STORED, False):
        data["tools"] = store.get(str(data["surface_hash"]))
    return codec.decode_run_config(data)


RECORD = ("sessions", "messages", "events", "run_configs", "images")
"""The tables of the record itself, under ``record/``, a directory of parts each."""


def part_file(index: int) -> str:
    return f"part-{index:05d}.parquet"


def write_part(directory: Path, index: int, sessions: Sequence[Session], images: dict[str, bytes],
               problems: Sequence[Problem]) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    """Write part ``index`` of every table but the two with a row per session, and return those
    rows: the sessions frame and the session headers. They are written by ``write_sessions`` once
    sessions of other parts had their say (a subagent links to its parent across files). The frames
    are built and written a slice of ``FRAME_SLICE_ROWS`` rows at a time, the record's JSON a
    ``RECORD_BATCH_BYTES`` batch at a time: each a row group, so no table of the part is held whole."""
    from toolkit.corpus.frames import frame_slices

    name = part_file(index)
    summaries: list[pl.DataFrame] = []
    with contextlib.ExitStack() as stack:
        out = {frame: stack.enter_context(RowGroups(directory / frame / name)) for frame in FRAMES
               if frame != "sessions"}
        for frames in frame_slices(sessions, problems, FRAME_SLICE_ROWS):
            summaries.append(frames.pop("sessions"))
            for frame_name, frame in frames.items():
                out[frame_name].add(frame)
    summary = pl.concat(summaries, rechunk=True)
    store = SurfaceStore(directory / "surfaces")
    headers = [dict(codec.encode_session_header(session)) for session in sessions]
    record = directory / "record"
    _write_record("message", ((sid, i, codec.encode_message(m)) for sid, session in enumerate(sessions)
                              for i, m in enumerate(session.messages)), record / "messages" / name,
                  json_bytes_sparing_strings)  # the record's text is held while it is written
    _write_record("event", ((sid, i, codec.encode_event(e)) for sid, session in enumerate(sessions)
                            for i, e in enumerate(session.events)), record / "events" / name)
    _write_record("run_config", ((sid, i, _encode_config(c, store)) for sid, session in enumerate(sessions)
                                 for i, c in enumerate(session.run_configs)), record / "run_configs" / name)
    _write(pl.DataFrame({"sha256": pl.Series(list(images), dtype=pl.String),
                         "data": pl.Series(list(images.values()), dtype=pl.Binary)}),
           record / "images" / name)
    return summary, headers


FRAME_SLICE_ROWS = 5_000
"""Rows of all frames together a part gathers before writing them as a row group of each frame.
Built whole, the rows of one large file and their frames cost about the file's size again; smaller
slices cost less at the peak (``benchmarks/bench_import_memory.py``) and read back as fast."""

RECORD_BATCH_BYTES = 1 << 20
"""JSON a record table gathers before writing it as a row group. A part of one large file is written
in pieces, so its JSON is never held whole: held whole, with its copies in polars and in the Parquet
writer, it cost about five times the source file's size on top of the record. What a batch leaves
behind in the allocators grows with its size, so batches are small."""


class RowGroups:
    """A Parquet file written a frame at a time, each frame a row group, so only one is held. A file
    that gets a single frame is that frame's own ``write_parquet`` (the bytes a saved corpus always
    had); an empty frame after the first adds nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._first: pl.DataFrame | None = None
        self._writer: Any = None  # a pyarrow.parquet.ParquetWriter once a second frame came

    def __enter__(self) -> RowGroups:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self._writer is not None:
            self._writer.close()
        elif kind is None and self._first is not None:
            _write(self._first, self.path)

    def add(self, frame: pl.DataFrame) -> None:
        first = self._first
        if self._writer is None and (first is None or first.is_empty()):
            self._first = frame
        elif not frame.is_empty():
            if first is not None:
                self._open(first)
            self._writer.write_table(frame.to_arrow())
            self._release()

    @staticmethod
    def _release() -> None:
        """Give the memory pyarrow's pool holds unused back to the system after a row group: its
        allocator (mimalloc) keeps what the writer freed for later, which made the peak of writing
        a part of one large file grow with the part (``benchmarks/bench_import_memory.py``;
        ``MemoryPool.release_unused``, https://arrow.apache.org/docs/python/generated/pyarrow.MemoryPool.html)."""
        import pyarrow as pa

        pa.default_memory_pool().release_unused()

    def _open(self, first: pl.DataFrame) -> None:
        import pyarrow.parquet as pq

        table = first.to_arrow()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = pq.ParquetWriter(self.path, table.schema, compression="zstd")
        self._writer.write_table(table)
        self._release()
        self._first = None


def _write_record(column: str, rows: Iterable[tuple[int, int, object]], path: Path,
                  encode: Callable[[object], bytes] = json_bytes) -> None:
    """A record table: each item's session, index and JSON (written by ``encode``), a row group per
    ``RECORD_BATCH_BYTES``."""
    rows = iter(rows)  # each batch takes up where the last one stopped
    with RowGroups(path) as out:
        full = True
        while full:
            frame, full = _record(column, rows, RECORD_BATCH_BYTES, encode)
            out.add(frame)


def _record(column: str, rows: Iterable[tuple[int, int, object]], most: int,
            encode: Callable[[object], bytes]) -> tuple[pl.DataFrame, bool]:
    """The next rows of a record table, up to ``most`` bytes of JSON, and whether that many were
    taken (more may follow). The JSON reaches polars as bytes, cast to text there: cheaper than
    making a Python string of each."""
    sids: list[int] = []
    indices: list[int] = []
    texts: list[bytes] = []
    size = 0
    for sid, index, value in rows:
        sids.append(sid)
        indices.append(index)
        texts.append(text := encode(value))
        size += len(text)
        if size >= most:
            break
    frame = pl.DataFrame({"session_id": pl.Series(sids, dtype=pl.Int64), "index": pl.Series(indices, dtype=pl.Int64),
                          column: pl.Series(texts, dtype=pl.Binary).cast(pl.String)})
    return frame, size >= most


def write_sessions(directory: Path, index: int, frame: pl.DataFrame, headers: list[dict[str, Any]]) -> None:
    """The two tables with a row per session, for part ``index``."""
    name = part_file(index)
    _write(frame, directory / "sessions" / name)
    rows = [{"session_id": sid, "header": json_text(header)} for sid, header in enumerate(headers)]
    _write(pl.DataFrame(rows, schema={"session_id": pl.Int64, "header": pl.String}),
           directory / "record" / "sessions" / name)


def write_manifest(directory: Path, parts: Iterable[int], files: list[str], formats: dict[str, str]) -> None:
    """Written last and atomically: a directory with a manifest is a complete saved corpus."""
    manifest = {"format_version": FORMAT_VERSION, "parts": [part_file(i) for i in parts], "files": files,
                "formats": formats}
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".corpus-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, ensure_ascii=False, indent=1)
    os.replace(tmp, directory / MANIFEST)


def save(corpus: Corpus, directory: Path) -> Path:
    """The corpus as a saved corpus of one part (written aside and renamed into place, ``writing``)."""
    with writing(directory) as work:
        frame, headers = write_part(work, 0, corpus.sessions, corpus.images, corpus.problems)
        write_sessions(work, 0, frame, headers)
        write_manifest(work, [0], corpus.files, corpus.formats)
    return directory


WRITING = ".writing-"
"""Infix of the directory a saved corpus is written in beside its destination (``.NAME.writing-XXXX``)."""


@contextlib.contextmanager
def writing(directory: Path) -> Iterator[Path]:
    """A fresh directory beside ``directory`` to write a saved corpus in, put in its place once the
    block ends without an error, so that a write that is killed or fails leaves the saved corpus
    that was there as it was (and an unfinished one only under a dot name). ``directory`` may be
    missing, empty, a saved corpus or a half-written one; anything else is refused before any
    work, as replacing it would delete files that are not a corpus."""
    if directory.exists() and not (directory.is_dir() and (not any(directory.iterdir()) or is_saved(directory)
                                                            or half_written(directory))):
        raise InvalidInput(f"{directory} exists and is not a saved corpus: write to a new directory")
    parent = directory.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(parent, directory.name)
    work = Path(tempfile.mkdtemp(dir=parent, prefix=f".{directory.name}{WRITING}"))
    held = _hold(work)
    try:
        yield work
    except BaseException:
        _release(work, held)
        shutil.rmtree(work, ignore_errors=True)
        raise
    _release(work, held)
    _put_in_place(work, directory.absolute())


WRITER_LOCK = ".writer"
"""The file in a directory being written that its writer holds a lock on while it writes: the system
drops the lock when the writer's process ends, however it ends (a SIGKILL too)."""


def _hold(work: Path) -> int | None:
    """A lock on ``work`` held until its descriptor is closed (``None`` where there are no locks)."""
    try:
        import fcntl
    except ImportError:  # Windows: no abandoned directory is ever removed
        return None
    fresh = work / f"{WRITER_LOCK}.new"  # locked before it takes the name another writer looks for
    fd = os.open(fresh, os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(fresh, work / WRITER_LOCK)
    return fd


def _release(work: Path, held: int | None) -> None:
    """The lock file gone (it is no part of a saved corpus), then the lock."""
    if held is not None:
        (work / WRITER_LOCK).unlink(missing_ok=True)
        os.close(held)


def _remove_abandoned(parent: Path, name: str) -> None:
    """Remove the directories beside ``name`` that writes of it left when they were killed: a
    directory whose writer's lock can be taken has no writer any more. One being written is left be,
    as is one without the lock file (a writer that has only just made it)."""
    try:
        import fcntl
    except ImportError:
        return
    for work in parent.glob(f".{glob_escape(name)}{WRITING}*"):
        try:
            fd = os.open(work / WRITER_LOCK, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its writer is alive
        finally:
            os.close(fd)
        shutil.rmtree(work, ignore_errors=True)


RENAME_EXCHANGE = 2
"""``renameat2`` flag that swaps two paths in one step (``linux/fs.h``; Linux 3.15, glibc 2.28)."""

AT_FDCWD = -100


def _put_in_place(work: Path, directory: Path) -> None:
    """``work`` renamed to ``directory``; an existing ``directory`` is swapped out in one step where
    the system can (Linux ``renameat2``), else renamed aside first, then deleted."""
    if not directory.exists():
        os.rename(work, directory)
        return
    if not _exchange(work, directory):
        aside = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}.old-"))
        os.rename(directory, aside / directory.name)
        os.rename(work, directory)
        work = aside
    shutil.rmtree(work, ignore_errors=True)


def _exchange(first: Path, second: Path) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        rename = libc.renameat2
    except (OSError, AttributeError):
        return False
    rename.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    return bool(rename(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) == 0)


def _write(frame: pl.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.write_parquet(path)


def _manifest(directory: Path) -> dict[str, Any]:
    refuse_half_written(directory)
    try:
        manifest: dict[str, Any] = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput(f"{directory}: not a saved corpus (no {MANIFEST})") from None
    version = manifest.get("format_version")
    if version not in READABLE_VERSIONS:
        raise InvalidInput(f"{directory / MANIFEST}: saved corpus format {version!r} is not one of "
                           f"{', '.join(map(str, READABLE_VERSIONS))}")
    return manifest


def _parts(directory: Path, manifest: dict[str, Any], table: str) -> list[Path]:
    """The files of ``table`` (a frame name, or ``record/<name>``) in part order."""
    if manifest["format_version"] == 1:
        return [directory / f"{table}.parquet"]
    return [directory / table / part for part in manifest["parts"]]


def scan(directory: str | Path) -> dict[str, pl.LazyFrame]:
    """The frames of a saved corpus as lazy polars frames over its parts: filters and selections
    read only what they need, so a corpus larger than memory can be queried.

    Args:
        directory: A saved corpus (``toolkit.ingest``, ``Corpus.save``).

    Returns:
        Each frame of ``Corpus.frames()`` by name, as a ``polars.LazyFrame``.

    Raises:
        InvalidInput: ``directory`` holds no finished saved corpus."""
    root = Path(directory)
    manifest = _manifest(root)
    frames = {name: pl.scan_parquet(_parts(root, manifest, name)) for name in FRAMES}
    if manifest["format_version"] < 3:
        frames["messages"] = _unmeasured_as_null(frames["messages"])
    return frames


def _unmeasured_as_null(messages: pl.LazyFrame) -> pl.LazyFrame:
    """A corpus saved before format 3 wrote a usage of all zeros as zeros: read as null, as a load
    of the same files gives it now, so ``scan`` and ``frames()`` agree."""
    from toolkit.corpus.frames import TOKEN_COLUMNS

    unmeasured = pl.all_horizontal(pl.col(name).fill_null(0) == 0 for name in TOKEN_COLUMNS)
    return messages.with_columns(pl.when(unmeasured).then(None).otherwise(pl.col(name)).alias(name)
                                 for name in TOKEN_COLUMNS)


def load_saved(directory: Path, into: Corpus) -> None:
    """Add the sessions, images, problems, files and formats of the corpus saved in ``directory`` to
    ``into`` (the corpus a load is building, which may read other paths too), a part at a time."""
    manifest = _manifest(directory)
    store = SurfaceStore(directory / "surfaces")
    tables = {name: _parts(directory, manifest, f"record/{name}") for name in RECORD}
    problems = _parts(directory, manifest, "problems")
    for part in range(len(problems)):
        into.sessions.extend(_read_sessions(tables, part, store))
        for sha256, data in pl.read_parquet(tables["images"][part]).select("sha256", "data").iter_rows():
            into.images.setdefault(sha256, data)
        into.problems.extend(Problem(f, line, reason) for f, line, reason in
                             pl.read_parquet(problems[part]).select("file", "line", "reason").iter_rows())
    into.files.extend(manifest.get("files", []))
    into.formats.update(manifest.get("formats", {}))


def _read_sessions(tables: dict[str, list[Path]], part: int, store: SurfaceStore) -> list[Session]:
    headers = pl.read_parquet(tables["sessions"][part]).select("session_id", "header").rows()
    messages: dict[int, list[Message]] = {sid: [] for sid, _ in headers}
    events: dict[int, list[Event]] = {sid: [] for sid, _ in headers}
    configs: dict[int, list[RunConfig]] = {sid: [] for sid, _ in headers}
    for sid, value in _values(tables["messages"][part], "message"):
        messages[sid].append(codec.decode_message(value))
    for sid, value in _values(tables["events"][part], "event"):
        events[sid].append(codec.decode_event(value))
    for sid, value in _values(tables["run_configs"][part], "run_config"):
        configs[sid].append(_decode_config(value, store))
    return [codec.decode_session(loads(header), messages[sid], events[sid], configs[sid])
            for sid, header in headers]


def _values(path: Path, column: str) -> Iterator[tuple[int, Any]]:
    """Each row's session and decoded JSON, in session then index order."""
    rows = pl.read_parquet(path).sort(["session_id", "index"]).select("session_id", column)
    for sid, text in rows.iter_rows():
        yield sid, loads(text)
