"""A session laid out turn by turn: each call with the result that answered it, the events placed where
they happened, the sessions a call spawned, and where the tree branches. No HTML here: the page and the
widget draw this."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import assert_never

from toolkit.pairing import OpenCalls
from toolkit.record import Event, Image, Opaque, Reasoning, Session, Text, ToolResult, ToolUse

KEY_EVENTS = frozenset({"compaction", "summary", "error"})
"""Event kinds drawn as markers in the flow; the rest (client bookkeeping) fold into one line."""


@dataclass(frozen=True)
class Place:
    """One block of one message: its message's position in the session and its own in the message."""

    message: int
    block: int


@dataclass(frozen=True)
class Layout:
    """What the page needs beyond the record itself, computed once per session."""

    session: Session
    result_of: dict[Place, Place] = field(default_factory=dict)
    """A call's place → the place of the result that answered it."""
    call_of: dict[Place, Place] = field(default_factory=dict)
    """A result's place → the place of the call it answers."""
    before: dict[int, list[Event]] = field(default_factory=dict)
    """Message position → events that happened before it (by source line)."""
    after: dict[int, list[Event]] = field(default_factory=dict)
    """Message position → events the source attached to it."""
    trailing: list[Event] = field(default_factory=list)
    """Events after the last message, or placed nowhere else."""
    on_path: frozenset[int] = frozenset()
    """Positions of the messages on the root → tip path."""
    children: dict[int, list[int]] = field(default_factory=dict)
    """Message position → positions of its children, where it has more than one (a branch point)."""
    parent: dict[int, int] = field(default_factory=dict)
    """Message position → its parent's position, where the parent is in the session."""
    spawned: dict[str, list[Session]] = field(default_factory=dict)
    """Call id → the sessions (subagents) it spawned."""
    unlinked: list[Session] = field(default_factory=list)
    """Sessions naming this one as parent without naming the call."""


def pair_calls(session: Session) -> tuple[dict[Place, Place], dict[Place, Place]]:
    """Calls and results paired by the one rule the frames pair them by (``toolkit.pairing``)."""
    waiting: OpenCalls[Place] = OpenCalls()
    result_of: dict[Place, Place] = {}
    call_of: dict[Place, Place] = {}
    for m, message in enumerate(session.messages):
        for b, block in enumerate(message.blocks):
            match block:
                case ToolUse():
                    waiting.call(block.id, Place(m, b))
                case ToolResult():
                    call = waiting.answer(block.tool_use_id)
                    if call is not None:
                        result_of[call] = Place(m, b)
                        call_of[Place(m, b)] = call
                case Text() | Reasoning() | Image() | Opaque():
                    pass
                case _:
                    assert_never(block)
    return result_of, call_of


def _place_events(session: Session) -> tuple[dict[int, list[Event]], dict[int, list[Event]], list[Event]]:
    """Each event after the message the source attached it to, else before the first message of its
    file with a later line, else at the end."""
    first_at: dict[str, int] = {}
    by_file: dict[str, list[tuple[int, int]]] = {}
    for m, message in enumerate(session.messages):
        first_at.setdefault(message.id, m)
        if message.source is not None and message.source.line is not None:
            by_file.setdefault(message.source.file, []).append((message.source.line, m))
    # per file: lines sorted, and the earliest message position at or after each of them
    earliest: dict[str, tuple[list[int], list[int]]] = {}
    for file, pairs in by_file.items():
        pairs.sort()
        suffix = [m for _, m in pairs]
        for i in range(len(suffix) - 2, -1, -1):
            suffix[i] = min(suffix[i], suffix[i + 1])
        earliest[file] = ([line for line, _ in pairs], suffix)
    before: dict[int, list[Event]] = {}
    after: dict[int, list[Event]] = {}
    trailing: list[Event] = []
    for event in session.events:
        if event.message_id is not None and event.message_id in first_at:
            after.setdefault(first_at[event.message_id], []).append(event)
            continue
        source = event.source
        found = earliest.get(source.file) if source is not None and source.line is not None else None
        if source is None or source.line is None or found is None:
            trailing.append(event)
            continue
        lines, suffix = found
        at = bisect.bisect_right(lines, source.line)
        if at == len(lines):
            trailing.append(event)
        else:
            before.setdefault(suffix[at], []).append(event)
    return before, after, trailing


def layout(session: Session, sessions: Sequence[Session] = ()) -> Layout:
    """``session`` laid out for reading; ``sessions`` (the corpus) gives the subagents it spawned.

    Args:
        session: The session to read.
        sessions: The corpus's sessions, to find the subagent sessions ``session`` spawned.

    Returns:
        The layout: calls paired with results, events placed, the path and branches, the subagents.
    """
    result_of, call_of = pair_calls(session)
    before, after, trailing = _place_events(session)
    position: dict[str, int] = {}
    for m, message in enumerate(session.messages):
        position.setdefault(message.id, m)
    path_ids = {message.id for message in session.path()}
    on_path = frozenset(m for m, message in enumerate(session.messages) if message.id in path_ids)
    kids: dict[int, list[int]] = {}
    parent: dict[int, int] = {}
    for m, message in enumerate(session.messages):
        if message.parent_id is not None and message.parent_id in position:
            parent[m] = position[message.parent_id]
            kids.setdefault(position[message.parent_id], []).append(m)
    spawned: dict[str, list[Session]] = {}
    unlinked: list[Session] = []
    calls = {block.id for _, block in session.blocks() if isinstance(block, ToolUse)}
    for other in sessions:
        if other.parent_session_id != session.id or other is session:
            continue
        if other.spawn_call_id is not None and other.spawn_call_id in calls:
            spawned.setdefault(other.spawn_call_id, []).append(other)
        else:
            unlinked.append(other)
    return Layout(session, result_of, call_of, before, after, trailing, on_path,
                  {m: c for m, c in kids.items() if len(c) > 1}, parent, spawned, unlinked)


def descendants(session: Session, sessions: Sequence[Session]) -> list[Session]:
    """``session`` and every session spawned from it, at any depth, parents first."""
    out = [session]
    seen = {id(session)}
    i = 0
    while i < len(out):
        current = out[i]
        for other in sessions:
            if other.parent_session_id == current.id and id(other) not in seen:
                seen.add(id(other))
                out.append(other)
        i += 1
    return out
