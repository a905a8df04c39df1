"""SQLite databases that clients keep sessions in (OpenCode's ``opencode.db``, Goose's ``sessions.db``),
opened without ever writing to them and asked for their schema before their rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database (https://www.sqlite.org/fileformat.html, section 1.3)."""


def connect(path: Path) -> sqlite3.Connection:
    """The database read-only. A database in WAL mode in a folder that cannot be written (its ``-shm``
    cannot be made) does not open read-only, so it is opened again as immutable, as a copy is."""
    uri = path.absolute().as_uri()
    try:
        con = sqlite3.connect(f"{uri}?mode=ro", uri=True)
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        return con
    except sqlite3.Error:
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)


def tables(con: sqlite3.Connection) -> set[str]:
    """The names of the database's tables."""
    return {str(row[0]) for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(con: sqlite3.Connection, table: str) -> set[str]:
    """The names of a table's columns (none for a table that is not there)."""
    return {str(row[1]) for row in con.execute(f"PRAGMA table_info({table})")}


def holds(path: Path, wanted: frozenset[str], table: str, needed: frozenset[str]) -> bool:
    """Whether a SQLite file has every table of ``wanted`` and ``table`` has the ``needed`` columns: the
    schema is read, never the rows (a sniff asks it of every SQLite file of a load, so another client's
    database is said no to at once)."""
    try:
        con = connect(path)
    except sqlite3.Error:
        return False
    try:
        return tables(con) >= wanted and needed <= columns(con, table)
    except sqlite3.Error:
        return False
    finally:
        con.close()
