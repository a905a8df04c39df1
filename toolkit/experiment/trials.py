"""What the replay experiment asks: a frozen point in a session, the tool the next turn should call,
and the wire, model, replay mode and number of replies to ask for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ReplyKind = Literal["called", "called_other", "said", "other"]
"""A reply called the expected tool; called another; announced or reported the action in text with
no call (``said``); or neither."""
REPLY_KINDS: tuple[ReplyKind, ...] = ("called", "called_other", "said", "other")

Recorded = Literal["called", "said"]


@dataclass(frozen=True, slots=True)
class Point:
    """A place to freeze a history: the request is the session's path up to and including ``at``
    (the message before the reply being studied)."""

    file: str
    session: str
    at: str
    expect: tuple[str, ...]
    """Tool names a reply should call here (bare names, ``mcp__server__tool`` as ``tool``)."""
    recorded: Recorded
    """What the recorded next reply did: called one of ``expect``, or only talked about acting."""


@dataclass(frozen=True, slots=True)
class Trial:
    """``n`` replies asked for at ``point`` through ``wire`` from ``model`` with the history replayed
    in ``mode`` (``toolkit.replay.MODES``)."""

    point: Point
    wire: str
    model: str
    mode: str
    n: int
