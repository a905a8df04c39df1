"""The store's schema, as numbered migrations from its first version on.

``PRAGMA user_version`` holds how many migrations a database has had. Opening a store applies the
missing ones in order, inside the same write transaction that reads the version, so two processes
opening a new file at once cannot both migrate it. A new column or table is a new function at the
end of ``MIGRATIONS``; an applied migration is never edited."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from toolkit.errors import ToolkitError

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []

APPLICATION_ID = 0x54524E53
"""``PRAGMA application_id`` of a transcript store (ASCII ``TRNS``): tells our files from other
SQLite databases without guessing from table names."""


class SchemaError(ToolkitError, RuntimeError):
    """The file is an SQLite database this toolkit cannot use as a transcript store."""


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


def version(db: sqlite3.Connection) -> int:
    value: int = db.execute("PRAGMA user_version").fetchone()[0]
    return value


def migrate(db: sqlite3.Connection, name: str) -> int:
    """Bring the schema up to date; the caller holds a write transaction. Returns the version."""
    current = version(db)
    if current > len(MIGRATIONS):
        raise SchemaError(f"{name}: store schema version {current} is newer than this toolkit knows "
                          f"({len(MIGRATIONS)}); upgrade the toolkit to open it")
    if current == 0:
        tables = db.execute("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchone()[0]
        if tables:
            raise SchemaError(f"{name}: an SQLite database with {tables} tables of its own, not a transcript store")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    elif db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        raise SchemaError(f"{name}: an SQLite database of another application, not a transcript store")
    for step in MIGRATIONS[current:]:
        step(db)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    return len(MIGRATIONS)


def _run(db: sqlite3.Connection, statements: str) -> None:
    """Execute ``;``-separated DDL one statement at a time (``executescript`` would commit the
    caller's transaction first)."""
    for statement in statements.split(";"):
        if statement.strip():
            db.execute(statement)


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    _run(db, """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        format TEXT NOT NULL,
        file TEXT NOT NULL DEFAULT '',
        title TEXT,
        tip TEXT,
        parent_session_id TEXT,
        spawn_call_id TEXT,
        forked_from TEXT,
        forked_at TEXT,
        created TEXT NOT NULL
    );
    CREATE TABLE messages (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        parent_id TEXT,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        time TEXT,
        model TEXT,
        provider TEXT,
        has_usage INTEGER NOT NULL,
        input_tokens INTEGER,
        output_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        sidechain INTEGER NOT NULL,
        tags TEXT NOT NULL,
        source_file TEXT,
        source_line INTEGER,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX messages_by_id ON messages (session_id, id);
    CREATE INDEX messages_by_parent ON messages (session_id, parent_id);
    CREATE TABLE blocks (
        session_id TEXT NOT NULL,
        message_seq INTEGER NOT NULL,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL
            CHECK (kind IN ('text', 'tool_use', 'tool_result', 'reasoning', 'image', 'opaque')),
        call_id TEXT,
        tool_name TEXT,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, message_seq, position),
        FOREIGN KEY (session_id, message_seq) REFERENCES messages (session_id, seq) ON DELETE CASCADE
    ) WITHOUT ROWID;
    CREATE INDEX blocks_by_call ON blocks (session_id, call_id) WHERE call_id IS NOT NULL;
    CREATE TABLE block_images (
        session_id TEXT NOT NULL,
        message_seq INTEGER NOT NULL,
        position INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        FOREIGN KEY (session_id, message_seq, position)
            REFERENCES blocks (session_id, message_seq, position) ON DELETE CASCADE
    );
    CREATE INDEX block_images_by_block ON block_images (session_id, message_seq, position);
    CREATE INDEX block_images_by_sha ON block_images (sha256);
    CREATE TABLE images (
        sha256 TEXT PRIMARY KEY,
        data BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE prompts (
        hash TEXT PRIMARY KEY,
        text TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE surfaces (
        hash TEXT PRIMARY KEY,
        tools TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE run_configs (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message_id TEXT,
        model TEXT,
        provider TEXT,
        system_hash TEXT REFERENCES prompts(hash),
        tool_names TEXT NOT NULL,
        surface_hash TEXT,
        tools_hash TEXT REFERENCES surfaces(hash),
        time TEXT,
        source_file TEXT,
        source_line INTEGER,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        type TEXT NOT NULL,
        time TEXT,
        message_id TEXT,
        text TEXT NOT NULL,
        raw TEXT NOT NULL,
        source_file TEXT,
        source_line INTEGER,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE checkpoints (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        message_id TEXT NOT NULL,
        created TEXT NOT NULL,
        PRIMARY KEY (session_id, name)
    ) WITHOUT ROWID;
    CREATE TABLE problems (
        seq INTEGER PRIMARY KEY,
        file TEXT NOT NULL,
        line INTEGER,
        reason TEXT NOT NULL
    )
    """)


@migration
def m002_event_compaction_facts(db: sqlite3.Connection) -> None:
    """Events keep what the client said about a compaction: the context size it measured and what
    started it (``Event.tokens_before``, ``Event.trigger``); older rows read as unknown."""
    _run(db, """
    ALTER TABLE events ADD COLUMN tokens_before INTEGER;
    ALTER TABLE events ADD COLUMN trigger TEXT
    """)
