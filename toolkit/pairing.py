"""Which result answers which call: one rule for every consumer that pairs them (the corpus frames'
``tool_calls``, the session browser).

A result answers the most recent still-unanswered earlier call with its id, in source order. Ids
are not unique in real data (SWE-agent demonstrations reuse them), so a result pairs with the
nearest open call of its id, not the first call ever given it, and each result with its own call.
Consumers apply the rule while they walk a session's blocks anyway, so pairing costs no pass of
its own.
"""

from __future__ import annotations

from typing import Generic, TypeVar

Call = TypeVar("Call")
"""Whatever the consumer keeps for a call: a frame row, a block's place."""


class OpenCalls(Generic[Call]):
    """The calls still waiting for an answer, by call id, in source order."""

    __slots__ = ("_waiting",)

    def __init__(self) -> None:
        self._waiting: dict[str, list[Call]] = {}

    def call(self, call_id: str, call: Call) -> None:
        """A call was made: it waits for a result with its id."""
        waiting = self._waiting.get(call_id)
        if waiting is None:
            self._waiting[call_id] = [call]
        else:
            waiting.append(call)

    def answer(self, call_id: str) -> Call | None:
        """A result with this id came: the call it answers, no longer waiting; ``None`` when no call
        with its id is waiting (a result whose call was never recorded, or an id answered twice)."""
        waiting = self._waiting.get(call_id)
        return waiting.pop() if waiting else None
