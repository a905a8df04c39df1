"""Sessions of different files tied together once every file is read: a Claude Code subagent's
transcript to the session and the call that spawned it.

Linking works from a few facts per session rather than the sessions themselves, so files read by
different worker processes link exactly as if one process had read them all: each worker gives the
facts of its sessions, the caller decides the links over all of them, and the links are applied
where the sessions are (in memory, or to the rows of a saved corpus's session tables)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from toolkit.record import Session


@dataclass(frozen=True)
class Link:
    """What a link sets on a session (the fields of the same names, in the record and the frames)."""

    parent_session_id: str | None
    spawn_call_id: str | None
    title: str | None


@dataclass(frozen=True)
class Linker:
    """How one format links its sessions. ``facts`` is what linking needs to know of one session
    (small and picklable; ``None`` when the session takes no part); ``links`` gets the facts of every
    session of the format with its position in the corpus and returns the links by position."""

    facts: Callable[[Session], object | None]
    links: Callable[[Sequence[tuple[int, object]]], dict[int, Link]]


Facts = list[tuple[int, str, object]]
"""Position in the corpus, format, and that session's facts."""


def facts_of(sessions: Sequence[Session], chosen: dict[str, Linker], offset: int = 0) -> Facts:
    """The facts of every session a linker takes part in, at ``offset`` + its position."""
    out: Facts = []
    for index, session in enumerate(sessions):
        linker = chosen.get(session.format)
        if linker is not None:
            found = linker.facts(session)
            if found is not None:
                out.append((offset + index, session.format, found))
    return out


def decide(facts: Facts, chosen: dict[str, Linker]) -> dict[int, Link]:
    """The links of a whole corpus from the facts of its sessions."""
    links: dict[int, Link] = {}
    for name, linker in chosen.items():
        links.update(linker.links([(index, found) for index, form, found in facts if form == name]))
    return links


def apply(session: Session, link: Link) -> Session:
    return replace(session, parent_session_id=link.parent_session_id, spawn_call_id=link.spawn_call_id,
                   title=link.title)


def link(sessions: list[Session], chosen: dict[str, Linker]) -> list[Session]:
    """``sessions`` with the links of ``chosen`` (the linkers of the formats read) applied."""
    if not chosen:
        return sessions
    decided = decide(facts_of(sessions, chosen), chosen)
    return [apply(session, decided[i]) if i in decided else session for i, session in enumerate(sessions)]
