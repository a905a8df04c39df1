"""Sessions of different files tied together once every file is read: a subagent's transcript (Claude
Code, Kimi CLI, Qwen Code) to the session and the call that spawned it.

Linking works from a few facts per session rather than the sessions themselves, so files read by
different worker processes link exactly as if one process had read them all: each worker gives the
facts of its sessions, the caller decides the links over all of them, and the links are applied
where the sessions are (in memory, or to the rows of a saved corpus's session tables)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from toolkit.record import Problem, Session, ToolResult, ToolUse


@dataclass(frozen=True)
class Link:
    """What a link sets on a session (the fields of the same names, in the record and the frames),
    and why it could not be tied to the call that spawned it when that is a fault of the corpus."""

    parent_session_id: str | None
    spawn_call_id: str | None
    title: str | None
    unlinked: Problem | None = None
    """A subagent whose parent session is loaded but no call of it matches: a problem of the subagent's
    file, which the corpus counts with those of reading (``problems``). A parent that was not loaded is
    no fault (its calls were never seen), nor are two calls that match (the link is left unknown
    rather than guessed, as the linker says)."""


def problems(links: dict[int, Link]) -> list[Problem]:
    """The problems of linking, in corpus order."""
    return [link.unlinked for _, link in sorted(links.items()) if link.unlinked is not None]


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


def link(sessions: list[Session], chosen: dict[str, Linker]) -> tuple[list[Session], list[Problem]]:
    """``sessions`` with the links of ``chosen`` (the linkers of the formats read) applied, and the
    problems of linking (``Link.unlinked``)."""
    if not chosen:
        return sessions, []
    decided = decide(facts_of(sessions, chosen), chosen)
    linked = [apply(session, decided[i]) if i in decided else session for i, session in enumerate(sessions)]
    return linked, problems(decided)


# ---- subagents that name their agent ---------------------------------------------------------------


@dataclass(frozen=True)
class Spawned:
    """A subagent session whose spawning call is not known yet: the session it belongs to, its agent's
    id where the client names one, and the first message it was given (stripped)."""

    parent: str
    agent: str | None
    opening: str | None


@dataclass(frozen=True)
class Spawns:
    """What ``spawn_links`` needs of one session (Kimi CLI, Qwen Code): the subagents it started and,
    for a subagent, who it is."""

    id: str
    file: str
    """The session's file, as the corpus names it (for the problem when a subagent cannot be linked)."""
    family: str
    """The session these calls belong to: its own id, or for an earlier history of a session (a
    context file the client moved aside) that session's id."""
    title: str | None
    child: Spawned | None
    calls: tuple[tuple[str, str | None, str | None, bool], ...]
    """Each spawning call: its id, prompt (stripped), description, and whether it resumed an agent an
    earlier call started (so it is not the call that spawned that agent)."""
    agents: tuple[tuple[str, str], ...]
    """Each agent a call's result or a record about the call names: agent id, call id."""


def spawning_calls(session: Session, names: frozenset[str]) -> list[ToolUse]:
    """The calls in ``session`` to a tool of ``names`` (the client's subagent tools)."""
    return [b for m in session.messages if m.role == "assistant" for b in m.blocks
            if isinstance(b, ToolUse) and b.name in names]


def spawns_of(session: Session, calls: list[ToolUse], named: Callable[[ToolResult], str | None],
              family: str, child: Spawned | None, resumes: str | None = None,
              more: Sequence[tuple[str, str]] = (), prompt_key: str = "prompt") -> Spawns:
    """A session's ``Spawns`` from its spawning ``calls``: ``named`` reads the agent a call's result
    names, ``resumes`` is the input key of a call that resumes an agent, ``more`` are agents named
    elsewhere (agent id, call id), ``prompt_key`` the input key of the prompt a subagent opens with.
    A session that spawned nothing still gives its facts: a subagent of it is then known to have a
    parent loaded that holds no call for it."""
    ids = {call.id for call in calls}
    described: list[tuple[str, str | None, str | None, bool]] = []
    for call in calls:
        inputs = call.input if isinstance(call.input, dict) else {}
        prompt, description = inputs.get(prompt_key), inputs.get("description")
        described.append((call.id, prompt.strip() if isinstance(prompt, str) else None,
                          description if isinstance(description, str) else None,
                          resumes is not None and bool(inputs.get(resumes))))
    agents = [(agent, block.tool_use_id) for message in session.messages for block in message.blocks
              if isinstance(block, ToolResult) and block.tool_use_id in ids and (agent := named(block)) is not None]
    return Spawns(session.id, session.file, family, session.title, child, tuple(described), (*agents, *more))


def opening(session: Session) -> str | None:
    """The first user message on the session's path, stripped: the prompt a subagent was given."""
    first = next((m for m in session.path() if m.role == "user"), None)
    return first.text.strip() if first is not None else None


def spawn_links(facts: Sequence[tuple[int, object]]) -> dict[int, Link]:
    """Tie each waiting subagent to the session and the call that spawned it: the one call (not a
    resume) whose result or record names its agent, else the one call whose prompt opened it. No call,
    or more than one, leaves the spawning call unknown rather than guessed; the parent stays the
    session the subagent's files belong to. Of two histories holding the call, the session itself wins
    over an earlier history of it. A subagent left without its call while its parent is loaded carries
    the problem saying why (``Link.unlinked``)."""
    known = [(index, found) for index, found in facts if isinstance(found, Spawns)]
    loaded = {spawns.family for _, spawns in known} | {spawns.id for _, spawns in known}
    spawning: dict[str, int] = {}
    for _, spawns in known:
        spawning[spawns.family] = spawning.get(spawns.family, 0) + len(spawns.calls)
    named: dict[tuple[str, str], list[tuple[str, str]]] = {}
    prompted: dict[tuple[str, str], list[tuple[str, str]]] = {}
    resumed: set[tuple[str, str]] = set()
    described: dict[tuple[str, str], str] = {}
    for _, session in known:
        for call_id, prompt, description, resumes in session.calls:
            if resumes:
                resumed.add((session.family, call_id))
            elif prompt:
                prompted.setdefault((session.family, prompt), []).append((session.id, call_id))
            if description is not None:
                described[(session.family, call_id)] = description
        for agent, call_id in session.agents:
            named.setdefault((session.family, agent), []).append((session.id, call_id))
    out: dict[int, Link] = {}
    for index, session in known:
        child = session.child
        if child is None:
            continue
        found: list[tuple[str, str]] = []
        if child.agent is not None:
            found = [f for f in named.get((child.parent, child.agent), []) if (child.parent, f[1]) not in resumed]
        if not found and child.opening:
            found = prompted.get((child.parent, child.opening), [])
        calls = {call_id for _, call_id in found}
        if len(calls) != 1:
            why = None
            if not calls and child.parent in loaded:
                why = Problem(session.file, None, _unlinked(session.id, child, spawning.get(child.parent, 0)))
            out[index] = Link(child.parent, None, session.title, why)
            continue
        (call,) = calls
        holders = [holder for holder, _ in found]
        parent = child.parent if child.parent in holders else holders[0]
        out[index] = Link(parent, call, session.title or described.get((child.parent, call)))
    return out


def _unlinked(sid: str, child: Spawned, calls: int) -> str:
    """Why a subagent whose parent is loaded is tied to no call of it."""
    if calls == 0:
        return (f"subagent {sid} not linked to its spawning call: its parent session {child.parent} is loaded "
                "but holds no spawning call")
    by = "names its agent or opened it with its prompt" if child.agent is not None else "opened it with its prompt"
    return (f"subagent {sid} not linked to its spawning call: none of the {calls} spawning calls of its parent "
            f"session {child.parent} {by}")
