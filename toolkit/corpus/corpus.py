"""The corpus value: the sessions of one load, the image bytes they name, every problem met, and the
files read with their formats. Its frames and its Parquet copy are a method call away, their modules
imported on first use."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.errors import InvalidInput, UnknownSession
from toolkit.record import Problem, Session

if TYPE_CHECKING:
    import polars as pl


def anything_read(sessions: int, files: int, problems: int) -> bool:
    """Whether a load read anything at all: a session, or a file without a problem (the exit status
    of ``toolkit info`` and ``toolkit import``)."""
    return sessions > 0 or 0 < files > problems


@dataclass(frozen=True)
class Corpus:
    """Sessions loaded from one or more files, the image bytes they name, and every problem met."""

    sessions: list[Session]
    images: dict[str, bytes] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    """Every file the load read (or tried to), relative to the loaded root where possible."""
    formats: dict[str, str] = field(default_factory=dict)
    """File → importer name for each file that was recognised."""

    def __len__(self) -> int:
        return len(self.sessions)

    def __repr__(self) -> str:
        """Counts, never contents: a corpus holds every message and every image's bytes."""
        return (f"Corpus({len(self.sessions)} sessions, {len(self.files)} files, {len(self.images)} images, "
                f"{len(self.problems)} problems)")

    def __iter__(self) -> Iterator[Session]:
        return iter(self.sessions)

    def session(self, session_id: str) -> Session:
        """The session with id ``session_id``, the handle every analysis of one session starts from.

        Args:
            session_id: The id as the sessions frame shows it.

        Returns:
            The session.

        Raises:
            UnknownSession: The corpus holds no session of that id (the message names the ids it holds).
        """
        for session in self.sessions:
            if session.id == session_id:
                return session
        raise UnknownSession(session_id, [s.id for s in self.sessions])

    def longest(self) -> Session:
        """The session whose path is longest (ties: the first loaded).

        Returns:
            The session, a fair first choice for a demo or a look at a corpus.

        Raises:
            InvalidInput: The corpus holds no session.
        """
        if not self.sessions:
            raise InvalidInput("the corpus holds no session")
        return max(self.sessions, key=lambda s: len(s.path()))

    def frames(self) -> dict[str, pl.DataFrame]:
        """The corpus as polars DataFrames: sessions, messages, blocks, tool_calls, events, problems
        (columns documented in ``toolkit.corpus.frames``).

        Returns:
            Each frame under its name.
        """
        from toolkit.corpus.frames import corpus_frames

        return corpus_frames(self)

    def save(self, directory: str | Path) -> Path:
        """Write the corpus as Parquet so ``toolkit.load(directory)`` reopens it without the sources.

        Args:
            directory: Where to write: a new or empty directory, or a saved corpus to replace (the
                old one stays whole until the new one is written).

        Returns:
            The directory written.

        Raises:
            InvalidInput: ``directory`` holds files that are not a saved corpus.
        """
        from toolkit.corpus.parquet import save

        return save(self, Path(directory))
