"""Where a user's own transcripts live: the folders each client writes its sessions to, found by the
rules that client follows (its environment variables included; each format's ``Importer.layouts``)
and counted by listing and ``stat`` alone.

Nothing here opens, reads or parses a file: a folder is read only when the user picks it and loads
it (``toolkit.load(location.path)``). Counting walks with ``os.scandir`` (one ``stat`` per
transcript file and per directory entered, nothing else per file), enters each directory at most
once even through symlinks (a symlink loop ends instead of repeating), and never goes deeper than
the client's own layout. An environment variable set to an empty string counts as unset, as in the
clients themselves."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from toolkit.corpus.formats.layout import Layout, Parts

NONE_FOUND = "no transcripts found in the places their clients keep them"
"""What to say when ``own_corpora()`` finds nothing."""

DEMO_LABEL = "demo corpus (data/)"

@dataclass(frozen=True)
class Location:
    """One folder of one client's transcripts on this machine, with what listing it found."""

    client: str
    """``claude_code``, ``codex`` or ``gemini_cli``."""
    path: Path
    """The folder to load (``toolkit.load(path)`` reads every transcript under it)."""
    files: int
    """Transcript files under it, by the client's layout (nothing else is counted)."""
    bytes: int
    """Their total size."""
    newest: datetime | None
    """The latest modification time among them (UTC), ``None`` when there are none."""
    found_by: str = "default"
    """The environment variable that placed the folder, or ``default``."""
    compressed: int = 0
    """Codex rollouts stored compressed (``rollout-*.jsonl.zst``): counted apart, as the toolkit
    does not read them."""

    @property
    def name(self) -> str:
        """The client's display name (``Claude Code``)."""
        return client_names().get(self.client, self.client)

    def shown(self, home: Path | None = None) -> str:
        """The folder with the home directory written as ``~``."""
        return tilde(self.path, home)

    def size(self) -> str:
        """The total size for people (``2.3 GB``)."""
        return human_size(self.bytes)

    def line(self, home: Path | None = None, path_width: int = 0) -> str:
        """``claude_code  ~/.claude/projects  1,234 files  2.3 GB  newest 2026-11-30 14:02``."""
        text = (f"{self.client:<11}  {self.shown(home):<{path_width}}  {count(self.files, 'file')}  "
                f"{self.size()}")
        if self.newest is not None:
            text += f"  newest {local_time(self.newest)}"
        if self.compressed:
            text += f"  (and {count(self.compressed, 'compressed rollout')}, .jsonl.zst, not read)"
        return text

    def label(self, home: Path | None = None) -> str:
        """A picker's label: ``Claude Code: ~/.claude/projects (1,234 files, 2.3 GB)``."""
        return f"{self.name}: {self.shown(home)} ({count(self.files, 'file')}, {self.size()})"

    def as_dict(self, home: Path | None = None) -> dict[str, object]:
        """JSON values with stable keys (what ``toolkit corpora --json`` prints for each folder)."""
        return {
            "client": self.client,
            "name": self.name,
            "path": str(self.path),
            "shown": self.shown(home),
            "files": self.files,
            "bytes": self.bytes,
            "size": self.size(),
            "newest": self.newest.isoformat() if self.newest is not None else None,
            "found_by": self.found_by,
            "compressed": self.compressed,
        }

    def __str__(self) -> str:
        return self.line()


def layouts(environ: Mapping[str, str] | None = None, home: Path | None = None) -> list[Layout]:
    """Every folder the clients would keep transcripts in, by their rules, whether or not it exists,
    in the order of the format registry (``Importer.layouts``)."""
    from toolkit.corpus.formats import importers

    env = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    return [layout for i in importers() if i.layouts is not None for layout in i.layouts(env, home)]


def client_names() -> dict[str, str]:
    """Each client's name for people, by the format it writes (``claude_code``: ``Claude Code``)."""
    from toolkit.corpus.formats import importers

    return {i.name: i.client for i in importers() if i.client}


def _listed(layout: Layout) -> tuple[Location, tuple[int, int]] | None:
    """List one folder by its layout, with the folder's (device, inode); ``None`` when it is not a
    directory."""
    try:
        top = os.stat(layout.folder)
    except OSError:
        return None
    if not stat.S_ISDIR(top.st_mode):
        return None
    key = (top.st_dev, top.st_ino)
    entered = {key}
    stack: list[tuple[str, Parts]] = [(os.fspath(layout.folder), ())]
    files = size = compressed = 0
    newest: float | None = None
    while stack:
        directory, parts = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:  # unreadable or vanished: what cannot be listed is not counted
            continue
        for entry in entries:
            rel = (*parts, entry.name)
            try:
                if layout.wanted(rel) and entry.is_file():
                    st = entry.stat()
                    files += 1
                    size += st.st_size
                    newest = st.st_mtime if newest is None else max(newest, st.st_mtime)
                elif layout.compressed(rel) and entry.is_file():
                    compressed += 1
                elif layout.descend(rel) and entry.is_dir():
                    st = entry.stat()  # follows a symlink; its target is entered once at most
                    inode = (st.st_dev, st.st_ino)
                    if inode not in entered:
                        entered.add(inode)
                        stack.append((entry.path, rel))
            except OSError:  # a dangling symlink, a file removed while listing
                continue
    when = datetime.fromtimestamp(newest, tz=UTC) if newest is not None else None
    return Location(layout.client, layout.folder, files, size, when, layout.found_by, compressed), key


def own_corpora(environ: Mapping[str, str] | None = None, home: Path | None = None,
                include_empty: bool = False) -> list[Location]:
    """The folders on this machine where the clients keep transcripts, in the order of the format
    registry, each with its transcript count, total size and newest time.

    ``environ`` defaults to ``os.environ`` and ``home`` to ``Path.home()``. A folder holding no
    transcript is left out unless ``include_empty``; a folder reached by two names (a symlinked
    ``~/.config/claude``) is listed once. Only directory listings and ``stat`` are used: no file is
    opened."""
    found: list[Location] = []
    seen: set[tuple[int, int]] = set()
    for layout in layouts(environ, home):
        listed = _listed(layout)
        if listed is None:
            continue
        location, key = listed
        if key in seen:
            continue
        seen.add(key)
        if include_empty or location.files or location.compressed:
            found.append(location)
    return found


def choices(locations: Iterable[Location], default: str = "data/",
            home: Path | None = None) -> list[tuple[str, str]]:
    """A picker's options as ``(label, path)``: the corpus the parameters name first (labelled
    ``demo corpus (data/)`` when it is the demo corpus), then each location."""
    first = DEMO_LABEL if Path(default).name == "data" else f"CORPUS ({default})"
    return [(first, default), *((loc.label(home), str(loc.path)) for loc in locations)]


def table(locations: Iterable[Location], home: Path | None = None) -> list[str]:
    """One line per location (``Location.line``), folders aligned."""
    found = list(locations)
    width = max((len(loc.shown(home)) for loc in found), default=0)
    return [loc.line(home, width) for loc in found]


def rows(locations: Iterable[Location], home: Path | None = None) -> list[dict[str, object]]:
    """What a notebook shows of each location, with the parameters line that would load it."""
    return [{
        "client": loc.client,
        "folder": loc.shown(home),
        "files": loc.files,
        "size": loc.size(),
        "newest": local_time(loc.newest) if loc.newest is not None else "",
        "to load it": f"CORPUS = {str(loc.path)!r}",
    } for loc in locations]


def tilde(path: Path, home: Path | None = None) -> str:
    """``path`` with ``home`` (default: the user's) written as ``~``."""
    home = Path.home() if home is None else home
    try:
        rel = path.relative_to(home)
    except ValueError:
        return str(path)
    return "~" if rel == Path() else f"~{os.sep}{rel}"


def human_size(n: int) -> str:
    """Bytes for people, in powers of 1000: ``512 B``, ``12.3 kB``, ``2.3 GB``."""
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if round(value, 1) < 1000:
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} PB"


def count(n: int, noun: str) -> str:
    """``1 file``, ``1,234 files``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def local_time(when: datetime) -> str:
    """A time in this machine's zone, to the minute."""
    return when.astimezone().strftime("%Y-%m-%d %H:%M")
