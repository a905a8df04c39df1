"""The transcript store: sessions as trees in one SQLite file, written a whole turn at a time.

Every message records its parent and every session names its tip, so a branch is a pointer move
that writes no message, a fork is a copy with new ids that shares no rows, and checkpoints are
named pointers stored beside the transcript, so they survive a restart.

A turn's run config is recorded with its surface: the hash of the tool specs it carries is set (or
checked, when the caller gave one) and the specs go to a ``toolkit.surface.SurfaceStore`` when the
store has one, besides the copy in SQLite that keeps the file self-contained."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, NamedTuple

from toolkit.errors import InvalidInput, NotFound, UnknownSession
from toolkit.record import Block, Event, Message, Problem, RunConfig, Session, Text
from toolkit.surface import (
    SurfaceMismatch,
    SurfaceStore,
    record_run,
    record_surfaces,
)
from toolkit.transcripts import serialize as rows
from toolkit.transcripts.migrations import APPLICATION_ID, MIGRATIONS, SchemaError, migrate, version
from toolkit.transcripts.resume import Checkpoint, Resumed, trim
from toolkit.transcripts.turns import PathCalls, TurnError, check_turn

if TYPE_CHECKING:
    from toolkit.corpus import Corpus

SYNCHRONOUS = "FULL"
"""``PRAGMA synchronous``. In WAL mode NORMAL already survives a killed process; FULL also makes
a turn that ``append_turn`` returned from survive a power cut, for one WAL fsync per turn, which
is small next to the model call the turn took."""

BUSY_TIMEOUT = 60.0
"""Seconds a writer waits for another writer's transaction before giving up."""

FORK_NAMESPACE = uuid.UUID("4c0b7a52-90d1-4f0e-8f5e-3b8a1e6d2c47")
"""uuid5 namespace of forked message ids: the same fork of the same message gets the same ids."""

SQLITE_HEADER = b"SQLite format 3\x00"


class AlreadyStored(InvalidInput):
    """``add`` of a session the store holds, without ``replace``: ``what`` says which, and the advice
    names the keyword (a command line names its own option instead)."""

    def __init__(self, what: str, advice: str) -> None:
        super().__init__(f"{what}; {advice}")
        self.what = what


def is_store(path: str | Path) -> bool:
    """Whether ``path`` is an SQLite file (a store or something to open as one), not a corpus.

    Args:
        path: What the user named: a file or a directory.

    Returns:
        ``True`` when ``path`` is a file that starts with SQLite's header.
    """
    file = Path(path)
    if not file.is_file():
        return False
    with file.open("rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def fork_id(session_id: str, message_id: str) -> str:
    """The id a message gets in the fork ``session_id``: new, and derived, so re-running a fork
    script gives the same ids.

    Args:
        session_id: The fork's session id.
        message_id: The id of the message copied into it.

    Returns:
        The copy's id.
    """
    return str(uuid.uuid5(FORK_NAMESPACE, f"{session_id}\x00{message_id}"))


def _now() -> str:
    return datetime.now(UTC).isoformat()


class _Header(NamedTuple):
    id: str
    format: str
    file: str
    title: str | None
    tip: str | None
    parent_session_id: str | None
    spawn_call_id: str | None


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One row of ``TranscriptStore.sessions()``: what a listing needs without loading messages."""

    id: str
    format: str
    file: str
    title: str | None
    tip: str | None
    messages: int
    parent_session_id: str | None
    forked_from: str | None
    """The session this one was forked from (``None`` for imported and live sessions)."""
    forked_at: str | None
    """The message of ``forked_from`` the fork copied up to."""
    created: datetime


class TranscriptStore:
    """Sessions, their trees, tips, run configs, events, checkpoints and image bytes in one SQLite
    file (WAL mode, so readers never block the writer and several processes may append at once).

    Use as a context manager or call ``close()``. One store object belongs to one thread.

    Args:
        path: The SQLite file; created with the current schema when missing, migrated when older.
        timeout: Seconds a writer waits for another's transaction before failing, for stores
            several processes append to.
        surfaces: A ``SurfaceStore`` or its directory to receive the tool specs of every run config
            written, so replays rebuild them by hash from the same store other tools fill.
    """

    def __init__(self, path: str | Path, *, timeout: float = BUSY_TIMEOUT,
                 surfaces: SurfaceStore | str | Path | None = None) -> None:
        self.file = Path(path)
        """The database file."""
        self.surfaces = surfaces if surfaces is None or isinstance(surfaces, SurfaceStore) else SurfaceStore(surfaces)
        """Where the tool specs of written run configs also go (``None``: SQLite only)."""
        name = str(path)
        try:
            self._db = sqlite3.connect(self.file, timeout=timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise SchemaError(f"{name}: cannot open as a transcript store: {exc}") from exc
        try:
            self._configure(name)
        except BaseException:
            self._db.close()
            raise

    def _configure(self, name: str) -> None:
        db = self._db
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            db.execute("PRAGMA foreign_keys = ON")
            current = version(db) == len(MIGRATIONS)
            if not current or db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                with self._write():
                    migrate(db, name)
        except sqlite3.OperationalError:
            raise  # locked past the busy timeout, disk full...: not a verdict on the file
        except sqlite3.DatabaseError as exc:
            raise SchemaError(f"{name}: not a transcript store ({exc})") from exc

    # -- plumbing -------------------------------------------------------------------------------

    @property
    def connection(self) -> sqlite3.Connection:
        """The SQLite connection, for queries of your own (the tables are documented in
        ``toolkit.transcripts.migrations``). Writing through it bypasses the turn checks."""
        return self._db

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TranscriptStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        tail = "" if self.surfaces is None else f", surfaces={str(self.surfaces.root)!r}"
        return f"TranscriptStore({str(self.file)!r}{tail})"

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. ``BEGIN IMMEDIATE`` takes the write lock up front, so two writers
        queue on the busy timeout instead of one failing when it upgrades a read lock."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query inside sees the same snapshot."""
        self._db.execute("BEGIN")
        try:
            yield self._db
        finally:
            self._db.execute("COMMIT")

    def _header(self, session_id: str) -> _Header:
        row = self._db.execute(
            "SELECT id, format, file, title, tip, parent_session_id, spawn_call_id FROM sessions WHERE id = ?",
            (session_id,)).fetchone()
        if row is None:
            ids = [r[0] for r in self._db.execute("SELECT id FROM sessions ORDER BY id")]
            raise UnknownSession(session_id, ids, where=str(self.file))
        return _Header(*row)

    def _seq_of(self, session_id: str, message_id: str) -> int:
        row = self._db.execute("SELECT min(seq) FROM messages WHERE session_id = ? AND id = ?",
                               (session_id, message_id)).fetchone()
        if row is None or row[0] is None:
            raise NotFound(f"no message {message_id!r} in session {session_id!r}")
        seq: int = row[0]
        return seq

    def _path_seqs(self, session_id: str, tip: str | None) -> list[int]:
        """Root to ``tip`` as message seqs, following parent ids (the first message of an id when a
        source repeats it); stops at a missing parent or a cycle, like ``Session.path``."""
        if tip is None:
            return []
        limit = self._db.execute("SELECT count(*) FROM messages WHERE session_id = ?", (session_id,)).fetchone()[0]
        found = self._db.execute("""
            WITH RECURSIVE path(seq, parent_id, depth) AS (
                SELECT seq, parent_id, 0 FROM messages
                 WHERE session_id = :s AND seq = (SELECT min(seq) FROM messages WHERE session_id = :s AND id = :tip)
                UNION ALL
                SELECT m.seq, m.parent_id, path.depth + 1 FROM path JOIN messages AS m
                    ON m.session_id = :s
                   AND m.seq = (SELECT min(seq) FROM messages WHERE session_id = :s AND id = path.parent_id)
                 WHERE path.depth < :limit
            )
            SELECT seq FROM path ORDER BY depth""", {"s": session_id, "tip": tip, "limit": limit}).fetchall()
        seqs: list[int] = []
        seen: set[int] = set()
        for (seq,) in found:
            if seq in seen:
                break
            seen.add(seq)
            seqs.append(seq)
        seqs.reverse()
        return seqs

    def _messages(self, session_id: str, seqs: Sequence[int] | None = None) -> list[Message]:
        """Messages by seq (all of the session's when ``seqs`` is ``None``), in the order asked."""
        args: tuple[object, ...] = (session_id,)
        only, only_blocks = "", ""
        if seqs is not None:
            args = (session_id, rows.dumps(list(seqs)))
            only = " AND seq IN (SELECT value FROM json_each(?))"
            only_blocks = " AND message_seq IN (SELECT value FROM json_each(?))"
        blocks: dict[int, list[Block]] = {}
        for seq, kind, body in self._db.execute(
                f"SELECT message_seq, kind, body FROM blocks WHERE session_id = ?{only_blocks}"
                " ORDER BY message_seq, position", args):
            blocks.setdefault(seq, []).append(rows.block_from_row(kind, body))
        columns = ", ".join(rows.MESSAGE_COLUMNS[1:])
        by_seq = {row[0]: rows.message_from_row(row[1:], blocks.get(row[0], ())) for row in self._db.execute(
            f"SELECT {columns} FROM messages WHERE session_id = ?{only} ORDER BY seq", args)}
        order = sorted(by_seq) if seqs is None else seqs
        return [by_seq[s] for s in order]

    def _insert_session(self, session: Session, *, forked_from: str | None = None,
                        forked_at: str | None = None) -> None:
        db = self._db
        db.execute(
            "INSERT INTO sessions (id, format, file, title, tip, parent_session_id, spawn_call_id, forked_from,"
            " forked_at, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session.id, session.format, session.file, session.title, session.tip, session.parent_session_id,
             session.spawn_call_id, forked_from, forked_at, _now()))
        self._insert_messages(session.id, 0, session.messages)
        self._insert_run_configs(session.id, 0, session.run_configs)
        db.executemany(rows.insert_sql("events", rows.EVENT_COLUMNS),
                       [rows.event_row(session.id, i, e) for i, e in enumerate(session.events)])

    def _insert_messages(self, session_id: str, first_seq: int, messages: Sequence[Message]) -> None:
        message_rows: list[tuple[object, ...]] = []
        block_rows: list[tuple[object, ...]] = []
        image_rows: list[tuple[str, int, int, str]] = []
        for offset, message in enumerate(messages):
            seq = first_seq + offset
            message_rows.append(rows.message_row(session_id, seq, message))
            block_rows.extend(rows.block_rows(session_id, seq, message))
            for position, block in enumerate(message.blocks):
                image_rows.extend((session_id, seq, position, sha) for sha in rows.block_keys(block).images)
        self._db.executemany(rows.insert_sql("messages", rows.MESSAGE_COLUMNS), message_rows)
        self._db.executemany(rows.insert_sql("blocks", rows.BLOCK_COLUMNS), block_rows)
        self._db.executemany(
            "INSERT INTO block_images (session_id, message_seq, position, sha256) VALUES (?, ?, ?, ?)", image_rows)

    def _insert_run_configs(self, session_id: str, first_seq: int, configs: Sequence[RunConfig]) -> None:
        for offset, config in enumerate(configs):
            parts = rows.run_config_rows(session_id, first_seq + offset, config)
            if parts.prompt is not None:
                self._db.execute("INSERT OR IGNORE INTO prompts (hash, text) VALUES (?, ?)", parts.prompt)
            if parts.surface is not None:
                self._db.execute("INSERT OR IGNORE INTO surfaces (hash, tools) VALUES (?, ?)", parts.surface)
            self._db.execute(rows.insert_sql("run_configs", rows.RUN_CONFIG_COLUMNS), parts.row)

    def _next_seq(self, table: str, session_id: str) -> int:
        value = self._db.execute(f"SELECT coalesce(max(seq) + 1, 0) FROM {table} WHERE session_id = ?",
                                 (session_id,)).fetchone()[0]
        seq: int = value
        return seq

    # -- reading --------------------------------------------------------------------------------

    def sessions(self) -> list[SessionInfo]:
        """Every session, in the order it was stored.

        Returns:
            A summary of each session (without its messages).
        """
        return [SessionInfo(sid, fmt, file, title, tip, count, parent, forked_from, forked_at,
                            datetime.fromisoformat(created))
                for sid, fmt, file, title, tip, count, parent, forked_from, forked_at, created in self._db.execute(
                    "SELECT s.id, s.format, s.file, s.title, s.tip,"
                    " (SELECT count(*) FROM messages AS m WHERE m.session_id = s.id), s.parent_session_id,"
                    " s.forked_from, s.forked_at, s.created FROM sessions AS s ORDER BY s.rowid")]

    def __contains__(self, session_id: object) -> bool:
        return self._db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None

    def __len__(self) -> int:
        count: int = self._db.execute("SELECT count(*) FROM sessions").fetchone()[0]
        return count

    def session(self, session_id: str) -> Session:
        """The stored session as the record, equal to the one that was added or appended.

        Args:
            session_id: The session's id, as ``sessions()`` lists it.

        Returns:
            The session.

        Raises:
            UnknownSession: The store holds no such session.
        """
        with self._read():
            head = self._header(session_id)
            messages = self._messages(session_id)
            configs, events = self._configs_and_events(session_id)
        return Session(id=head.id, format=head.format, messages=tuple(messages), tip=head.tip, file=head.file,
                       run_configs=tuple(configs), events=tuple(events),
                       parent_session_id=head.parent_session_id, spawn_call_id=head.spawn_call_id,
                       title=head.title)

    def _configs_and_events(self, session_id: str) -> tuple[list[RunConfig], list[Event]]:
        configs = [rows.run_config_from_row(r) for r in self._db.execute(
            "SELECT r.message_id, r.model, r.provider, p.text, r.tool_names, r.surface_hash, t.tools, r.time,"
            " r.source_file, r.source_line FROM run_configs AS r"
            " LEFT JOIN prompts AS p ON p.hash = r.system_hash LEFT JOIN surfaces AS t ON t.hash = r.tools_hash"
            " WHERE r.session_id = ? ORDER BY r.seq", (session_id,))]
        columns = ", ".join(rows.EVENT_COLUMNS[2:])
        events = [rows.event_from_row(r) for r in self._db.execute(
            f"SELECT {columns} FROM events WHERE session_id = ? ORDER BY seq", (session_id,))]
        return configs, events

    def tip(self, session_id: str) -> str | None:
        """The id of the message a session's next turn continues from.

        Args:
            session_id: The session's id.

        Returns:
            The tip's message id, or ``None`` for a session with no messages.

        Raises:
            UnknownSession: The store holds no such session.
        """
        tip: str | None = self._header(session_id).tip
        return tip

    def path(self, session_id: str, tip: str | None = None) -> list[Message]:
        """Root to ``tip``: the conversation a model saw.

        Args:
            session_id: The session.
            tip: The last message (default: the session's tip).

        Returns:
            The messages, root first.

        Raises:
            UnknownSession: No such session is stored.
            NotFound: ``tip`` is not a message of the session."""
        with self._read():
            end = self._header(session_id).tip if tip is None else tip
            if tip is not None:
                self._seq_of(session_id, tip)
            return self._messages(session_id, self._path_seqs(session_id, end))

    def images(self, session_id: str | None = None) -> dict[str, bytes]:
        """Image bytes by sha256: every stored image, or those one session's blocks name.

        Args:
            session_id: The session whose images are wanted; ``None`` for the whole store's.

        Returns:
            The bytes of each image under its sha256.
        """
        if session_id is None:
            return dict(self._db.execute("SELECT sha256, data FROM images"))
        return dict(self._db.execute(
            "SELECT sha256, data FROM images WHERE sha256 IN"
            " (SELECT sha256 FROM block_images WHERE session_id = ?)", (session_id,)))

    def problems(self) -> list[Problem]:
        """Problems of the corpora loaded into the store, kept so nothing is silently dropped.

        Returns:
            The problems, in the order they were recorded.
        """
        return [Problem(*r) for r in self._db.execute("SELECT file, line, reason FROM problems ORDER BY seq")]

    def corpus(self) -> Corpus:
        """Every stored session, with its images and the problems of its loads, as a ``Corpus``.

        Returns:
            The corpus, for the analyses that take one.
        """
        from toolkit.corpus import Corpus

        return Corpus(sessions=[self.session(info.id) for info in self.sessions()], images=self.images(),
                      problems=self.problems())

    def checkpoints(self, session_id: str) -> list[Checkpoint]:
        """The checkpoints set in a session, oldest first: the marks a resume keeps or drops.

        Args:
            session_id: The session's id.

        Returns:
            The checkpoints.

        Raises:
            UnknownSession: The store holds no such session.
        """
        self._header(session_id)
        return [Checkpoint(name, mid, datetime.fromisoformat(created)) for name, mid, created in self._db.execute(
            "SELECT name, message_id, created FROM checkpoints WHERE session_id = ? ORDER BY created, name",
            (session_id,))]

    def counts(self) -> dict[str, int]:
        """Rows per table: what a branch does not change and a fork adds to.

        Returns:
            The row count of each table under its name.
        """
        tables = [r[0] for r in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return {t: self._db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}

    def integrity(self) -> list[str]:
        """``PRAGMA integrity_check`` and ``foreign_key_check`` findings (empty when the file is sound).

        Returns:
            The findings, one line each.
        """
        found = [r[0] for r in self._db.execute("PRAGMA integrity_check")]
        problems = [] if found == ["ok"] else found
        problems.extend(f"foreign key: {r}" for r in self._db.execute("PRAGMA foreign_key_check"))
        return problems

    # -- writing --------------------------------------------------------------------------------

    def add(self, corpus: Corpus | Session | Iterable[Session], *, images: Mapping[str, bytes] | None = None,
            replace: bool = False, progress: bool | None = None) -> list[str]:
        """Store imported sessions as they are (tree, tip, run configs, events), each in its own
        transaction, with the image bytes and the load's problems.

        With a surface store, every run config's specs are put there and its surface hash set
        (``toolkit.surface.record_surfaces``); a recorded hash that disagrees with the recorded specs is
        kept as recorded and stored as a problem naming its file and line.

        Args:
            corpus: A corpus, one session, or any sessions.
            images: Image bytes by sha256, added to the corpus's own (sessions alone bring none).
            replace: Overwrite sessions already stored; without, an id already stored is an error. An id
                given twice is always an error (one would silently replace the other). Both are checked
                before anything is written.
            progress: Show a progress bar (default: for more than 20 sessions).

        Returns:
            The stored ids.

        Raises:
            InvalidInput: An id is already stored (without ``replace``) or given twice."""
        from toolkit.corpus import Corpus

        problems: list[Problem] = []
        if isinstance(corpus, Corpus):
            sessions: list[Session] = list(corpus.sessions)
            found_images: dict[str, bytes] = dict(corpus.images)
            problems = list(corpus.problems)
        elif isinstance(corpus, Session):
            sessions, found_images = [corpus], {}
        else:
            sessions, found_images = list(corpus), {}
        found_images.update(images or {})
        if self.surfaces is not None:
            recorded = record_surfaces(Corpus(sessions=sessions, problems=problems), self.surfaces)
            sessions, problems = recorded.sessions, recorded.problems
        first: dict[str, Session] = {}
        for session in sessions:
            if session.id in first:
                raise InvalidInput(f"session id {session.id!r} is given twice (from {first[session.id].file or '?'} "
                                   f"and {session.file or '?'}); give one of them another id")
            first[session.id] = session
        if not replace:
            for session in sessions:
                if session.id in self:
                    where = f" (from {session.file})" if session.file else ""
                    raise AlreadyStored(f"session {session.id!r}{where} is already in {self.file}",
                                        "pass replace=True to overwrite it")
        with self._write() as db:
            db.executemany("INSERT OR IGNORE INTO images (sha256, data) VALUES (?, ?)", found_images.items())
            known = set(self.problems())  # loading a corpus again does not repeat its problems
            db.executemany("INSERT INTO problems (file, line, reason) VALUES (?, ?, ?)",
                           [(p.file, p.line, p.reason) for p in dict.fromkeys(problems) if p not in known])
        stored: list[str] = []
        for session in _progress(sessions, progress):
            with self._write() as db:
                db.execute("DELETE FROM sessions WHERE id = ?", (session.id,))
                self._insert_session(session)
            stored.append(session.id)
        return stored

    def append_turn(self, session_id: str, messages: Sequence[Message],
                    run_config: RunConfig | None = None) -> tuple[Message, ...]:
        """Write one whole turn after the session's tip, in one transaction, and move the tip to its last
        message. The session is created (format ``live``) when it does not exist.

        A turn with a tool call and no result, a result whose call is neither in the turn nor open on the
        path, a repeated call id or a message id the session already has writes nothing, so a crash or
        a bad turn never leaves half a turn no provider would accept.

        Args:
            session_id: The session.
            messages: The turn. A ``parent_id`` of ``None`` means "the message before" (the tip, for the
                first message), so several writers can append without reading the tip first; a parent id
                given must be exactly that.
            run_config: Stored with the turn, applying from its first message unless it names another of
                the turn's messages; its surface is recorded (the hash of its tool specs set, or checked
                when given) and its specs put in the surface store.

        Returns:
            The messages as stored (parent ids filled in).

        Raises:
            TurnError: The turn is not whole, or an id repeats.
            SurfaceMismatch: The run config's surface hash is not its specs'."""
        if not messages:
            raise TurnError(f"session {session_id!r}: a turn needs at least one message")
        with self._write() as db:
            row = db.execute("SELECT tip FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                db.execute("INSERT INTO sessions (id, format, created) VALUES (?, 'live', ?)", (session_id, _now()))
            tip: str | None = None if row is None else row[0]
            chained = self._chain(session_id, tip, messages)
            path = self._path_seqs(session_id, tip)
            entries = db.execute(
                "SELECT kind, call_id FROM blocks WHERE session_id = ? AND call_id IS NOT NULL"
                " AND kind IN ('tool_use', 'tool_result') AND message_seq IN (SELECT value FROM json_each(?))"
                " ORDER BY message_seq, position", (session_id, rows.dumps(path))).fetchall()
            check_turn(session_id, chained, PathCalls.of(entries))
            ids = [m.id for m in chained]
            taken = db.execute("SELECT DISTINCT id FROM messages WHERE session_id = ? AND id IN"
                               " (SELECT value FROM json_each(?))", (session_id, rows.dumps(ids))).fetchall()
            if taken:
                raise TurnError(f"session {session_id!r}: message id {taken[0][0]!r} is already in the session")
            if run_config is not None:
                if run_config.message_id is None:
                    run_config = replace(run_config, message_id=chained[0].id)
                elif run_config.message_id not in ids:
                    raise TurnError(f"session {session_id!r}: the run config names message "
                                    f"{run_config.message_id!r}, which is not in this turn")
                run_config = self._record_surface(session_id, run_config)
                self._insert_run_configs(session_id, self._next_seq("run_configs", session_id), [run_config])
            self._insert_messages(session_id, self._next_seq("messages", session_id), chained)
            db.execute("UPDATE sessions SET tip = ? WHERE id = ?", (chained[-1].id, session_id))
        return chained

    def _record_surface(self, session_id: str, config: RunConfig) -> RunConfig:
        """``config`` with the surface hash of the specs it carries, a given hash checked against
        them, and the specs put in the surface store when there is one."""
        where = f"session {session_id!r}, run config of message {config.message_id!r}"
        try:
            return record_run(config, self.surfaces)
        except SurfaceMismatch as exc:
            raise SurfaceMismatch(f"{where}: {exc}") from None

    @staticmethod
    def _chain(session_id: str, tip: str | None, messages: Sequence[Message]) -> tuple[Message, ...]:
        out: list[Message] = []
        parent = tip
        seen: set[str] = set()
        for message in messages:
            if message.id in seen:
                raise TurnError(f"session {session_id!r}: message id {message.id!r} appears twice in the turn")
            seen.add(message.id)
            if message.parent_id is None:
                message = replace(message, parent_id=parent)
            elif message.parent_id != parent:
                where = "the session's tip" if not out else "the message before it in the turn"
                raise TurnError(f"session {session_id!r}, message {message.id!r}: parent {message.parent_id!r} "
                                f"is not {where} ({parent!r}); branch there first, or leave parent_id None")
            out.append(message)
            parent = message.id
        return tuple(out)

    def branch(self, session_id: str, message_id: str) -> None:
        """Move the tip to ``message_id``. No message is written: the path left behind stays, and going back
        is another pointer move.

        Args:
            session_id: The session.
            message_id: The message that becomes the tip.

        Raises:
            UnknownSession: No such session is stored.
            NotFound: ``message_id`` is not a message of the session."""
        with self._write() as db:
            self._header(session_id)
            self._seq_of(session_id, message_id)
            db.execute("UPDATE sessions SET tip = ? WHERE id = ?", (message_id, session_id))

    def ensure_branch(self, session_id: str) -> list[str]:
        """Give a session without a branch one to show (a corpus of straight sessions, as most
        clients write them, has none): a labelled alternative reply after the path's first message,
        two when that message is the tip, so it becomes a branch point; then the tip moves back.
        Returns the ids written, none for a session that branches already.

        Args:
            session_id: The session to give a branch.

        Returns:
            The message ids written.
        """
        session = self.session(session_id)
        path = session.path()
        if len(session.leaves()) > 1 or not path:
            return []
        tip, first = session.tip, path[0]
        wanted = 2 - len(session.children().get(first.id, []))
        written: list[str] = []
        for n in range(1, wanted + 1):
            self.branch(session_id, first.id)
            turn = self.append_turn(session_id, [
                Message(f"alternative-{n}-user", None, "user", (Text(f"(alternative {n}, added to show a branch)"),)),
                Message(f"alternative-{n}-reply", None, "assistant", (Text(f"Alternative reply {n}."),)),
            ])
            written.extend(m.id for m in turn)
        self.branch(session_id, tip or first.id)
        return written

    def fork(self, session_id: str, message_id: str | None = None, *, new_session_id: str | None = None,
             title: str | None = None) -> str:
        """Copy the path root to ``message_id`` into a new session with new message ids.

        Nothing is shared with the source but content (and image bytes, which are stored once by hash): a
        later message in either never shows in the other. Run configs and events attached to copied
        messages (or to the whole session) and checkpoints on the copied path come along, renamed to the
        new ids. Tool call ids are content the model saw and stay as they were.

        Args:
            session_id: The source session.
            message_id: The last message copied (default: the tip).
            new_session_id: The new session's id (default: a random UUID).
            title: The new session's title.

        Returns:
            The new session's id.

        Raises:
            InvalidInput: The source has no messages, or ``new_session_id`` already exists.
            UnknownSession: No such source session is stored.
            NotFound: ``message_id`` is not a message of the source."""
        new_id = new_session_id or str(uuid.uuid4())
        with self._write():
            source = self._header(session_id)
            end = source.tip if message_id is None else message_id
            if end is None:
                raise InvalidInput(f"session {session_id!r} has no messages to fork")
            self._seq_of(session_id, end)
            if new_id in self:
                raise InvalidInput(f"session {new_id!r} already exists in {self.file}")
            path = self._messages(session_id, self._path_seqs(session_id, end))
            original_configs, original_events = self._configs_and_events(session_id)
            renamed = {m.id: fork_id(new_id, m.id) for m in path}
            messages = tuple(
                replace(m, id=renamed[m.id], parent_id=None if m.parent_id is None else renamed.get(m.parent_id))
                for m in path)
            configs = tuple(replace(c, message_id=None if c.message_id is None else renamed[c.message_id])
                            for c in original_configs if c.message_id is None or c.message_id in renamed)
            events = tuple(replace(e, message_id=None if e.message_id is None else renamed[e.message_id])
                           for e in original_events if e.message_id is None or e.message_id in renamed)
            copy = Session(id=new_id, format=source.format, messages=messages, tip=renamed[end], file=source.file,
                           run_configs=configs, events=events, parent_session_id=source.parent_session_id,
                           spawn_call_id=source.spawn_call_id, title=source.title if title is None else title)
            self._insert_session(copy, forked_from=session_id, forked_at=end)
            self._db.executemany(
                "INSERT INTO checkpoints (session_id, name, message_id, created) VALUES (?, ?, ?, ?)",
                [(new_id, name, renamed[mid], created) for name, mid, created in self._db.execute(
                    "SELECT name, message_id, created FROM checkpoints WHERE session_id = ?", (session_id,))
                 if mid in renamed])
        return new_id

    def checkpoint(self, session_id: str, name: str) -> str:
        """Mark the tip as ``name``; a name set again moves to the new tip.

        Args:
            session_id: The session.
            name: The checkpoint's name.

        Returns:
            The id of the message marked.

        Raises:
            InvalidInput: The session has no messages.
            UnknownSession: No such session is stored."""
        with self._write() as db:
            tip = self._header(session_id).tip
            if tip is None:
                raise InvalidInput(f"session {session_id!r} has no messages: nothing to checkpoint")
            db.execute("INSERT INTO checkpoints (session_id, name, message_id, created) VALUES (?, ?, ?, ?)"
                       " ON CONFLICT (session_id, name) DO UPDATE SET message_id = excluded.message_id,"
                       " created = excluded.created", (session_id, name, tip, _now()))
        tip_id: str = tip
        return tip_id

    def rewind(self, session_id: str, name: str) -> str:
        """Move the tip back to the checkpoint's own message (the same pointer a branch moves).

        Args:
            session_id: The session.
            name: The checkpoint's name.

        Returns:
            That message's id.

        Raises:
            NotFound: The session has no checkpoint ``name``.
            UnknownSession: No such session is stored."""
        with self._write() as db:
            self._header(session_id)
            row = db.execute("SELECT message_id FROM checkpoints WHERE session_id = ? AND name = ?",
                             (session_id, name)).fetchone()
            if row is None:
                known = [r[0] for r in db.execute("SELECT name FROM checkpoints WHERE session_id = ?", (session_id,))]
                raise NotFound(f"no checkpoint {name!r} in session {session_id!r} (known: {', '.join(known) or 'none'})")
            target: str = row[0]
            self._seq_of(session_id, target)
            db.execute("UPDATE sessions SET tip = ? WHERE id = ?", (target, session_id))
        return target

    def resume(self, session_id: str, *, max_messages: int | None = None, max_tokens: int | None = None,
               count: Callable[[Message], int] | None = None) -> Resumed:
        """The newest messages of the session's path within the limits, cut where a turn starts (never
        leaving a result without its call), with the checkpoints still inside them and the ones dropped.
        The store is not changed.

        Args:
            session_id: The session.
            max_messages: The most messages to keep.
            max_tokens: The most tokens to keep.
            count: A message's tokens (default: ``token_counter`` for the path's newest model,
                ``DEFAULT_MODEL`` when it names none).

        Returns:
            The kept messages and checkpoints, and the checkpoints dropped.

        Raises:
            InvalidInput: As ``toolkit.transcripts.trim`` raises.
            UnknownSession: No such session is stored."""
        with self._read():
            tip = self._header(session_id).tip
            path = self._messages(session_id, self._path_seqs(session_id, tip))
            marks = self.checkpoints(session_id)
        return trim(session_id, path, marks, max_messages=max_messages, max_tokens=max_tokens, count=count)


def _progress(sessions: list[Session], progress: bool | None) -> Iterable[Session]:
    show = progress if progress is not None else len(sessions) > 20
    if not show:
        return sessions
    from tqdm.auto import tqdm

    return tqdm(sessions, desc="storing", unit="session")
