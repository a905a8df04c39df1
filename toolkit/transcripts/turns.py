"""Turn boundaries: where a transcript may be persisted and where a resumed run may be cut.

A history taken between a tool call and its result is one no provider accepts, so a turn is
stored whole or not at all, and a resumed run never starts with a result whose call was cut."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from toolkit.errors import InvalidInput
from toolkit.record import Image, Message, Opaque, Reasoning, Text, ToolResult, ToolUse


class TurnError(InvalidInput):
    """A turn the store refuses: it names the session, the message and the reason."""


@dataclass(frozen=True, slots=True)
class ToolRef:
    """A tool call made (``name`` set) or answered (``name`` is ``None``) by one block."""

    call_id: str
    name: str | None

    @property
    def is_call(self) -> bool:
        return self.name is not None


def tool_refs(message: Message) -> list[ToolRef]:
    """The calls a message makes and answers, in block order."""
    refs: list[ToolRef] = []
    for block in message.blocks:
        match block:
            case ToolUse():
                refs.append(ToolRef(block.id, block.name))
            case ToolResult():
                refs.append(ToolRef(block.tool_use_id, None))
            case Text() | Reasoning() | Image() | Opaque():
                pass
            case _:
                assert_never(block)
    return refs


def is_turn_start(message: Message) -> bool:
    """A turn starts at a user message that is more than tool results (a prompt, an image, a
    client note): the place a person, not a tool, spoke.

    Args:
        message: The message to classify.

    Returns:
        ``True`` when a turn starts at ``message``.
    """
    if message.role != "user" or not message.blocks:
        return False
    return not all(isinstance(block, ToolResult) for block in message.blocks)


@dataclass(frozen=True, slots=True)
class PathCalls:
    """What a turn must be checked against: every call id already on the path, and those of them
    still waiting for a result (possible only in imported sessions)."""

    made: frozenset[str]
    open: frozenset[str]

    @classmethod
    def of(cls, entries: Iterable[tuple[str, str]]) -> PathCalls:
        """From ``(kind, call_id)`` pairs in path order, kind ``tool_use`` or ``tool_result``."""
        made: set[str] = set()
        open_: set[str] = set()
        for kind, call_id in entries:
            if kind == "tool_use":
                made.add(call_id)
                open_.add(call_id)
            else:
                open_.discard(call_id)
        return cls(frozenset(made), frozenset(open_))


def check_turn(session_id: str, messages: Sequence[Message], path: PathCalls) -> None:
    """Raise ``TurnError`` unless every tool call made in the turn gets its result in the turn and
    every result answers a call made earlier in the turn or left open on the path, once."""
    if not messages:
        raise TurnError(f"session {session_id!r}: a turn needs at least one message")
    open_calls: dict[str, tuple[str, str]] = {}
    made: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        for ref in tool_refs(message):
            call_id = ref.call_id
            if ref.name is not None:
                if call_id in made or call_id in path.made:
                    raise TurnError(f"session {session_id!r}, message {message.id!r}: tool call id "
                                    f"{call_id!r} is already used on this path (providers reject a repeated "
                                    "call id)")
                made.add(call_id)
                open_calls[call_id] = (message.id, ref.name)
            elif call_id in answered or (call_id in path.made and call_id not in path.open):
                raise TurnError(f"session {session_id!r}, message {message.id!r}: tool result for call "
                                f"{call_id!r}, which already has its result")
            elif call_id in open_calls or call_id in path.open:
                open_calls.pop(call_id, None)
                answered.add(call_id)
            else:
                raise TurnError(f"session {session_id!r}, message {message.id!r}: tool result for call "
                                f"{call_id!r}, which is neither in this turn nor on the path")
    if open_calls:
        missing = ", ".join(f"{call_id!r} ({name}, in message {mid!r})"
                            for call_id, (mid, name) in open_calls.items())
        raise TurnError(f"session {session_id!r}: the turn is not closed: tool call {missing} has no result; "
                        "a turn is stored only once every call it makes is answered")


def call_positions(path: Sequence[Message]) -> list[int | None]:
    """For each message, the earliest path index of a call that one of its results answers
    (``None`` when it answers none): a cut after that index would orphan the result."""
    last_call: dict[str, int] = {}
    out: list[int | None] = []
    for index, message in enumerate(path):
        earliest: int | None = None
        for ref in tool_refs(message):
            if ref.is_call:
                last_call[ref.call_id] = index
            elif ref.call_id in last_call:
                at = last_call[ref.call_id]
                earliest = at if earliest is None else min(earliest, at)
        out.append(earliest)
    return out
