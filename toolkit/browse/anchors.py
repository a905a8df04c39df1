"""Where a message sits in a browser page: one id per session, message and call, the same in the page,
in ``toolkit search`` results and in the notebook widget, so a search result links to its message."""

from __future__ import annotations

import hashlib
import re

_SAFE = re.compile(r"[A-Za-z0-9_.:-]{1,80}")
"""Ids kept as they are: characters a URL fragment and an HTML id take without escaping (``~`` is left
out: it separates the parts)."""


def _part(value: str) -> str:
    if _SAFE.fullmatch(value):
        return value
    return "x" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def session_anchor(session_id: str) -> str:
    """The id of a session's section.

    Args:
        session_id: The session's id.

    Returns:
        The HTML id, safe in a URL fragment whatever the session id holds.
    """
    return f"s~{_part(session_id)}"


def message_anchor(session_id: str, index: int) -> str:
    """The id of the ``index``-th message (source order) of a session: by position, since a message id
    may repeat within a session (the record keeps the first of each for lookups).

    Args:
        session_id: The session's id.
        index: The message's position in the session (source order).

    Returns:
        The HTML id, safe in a URL fragment whatever the session id holds.
    """
    return f"m~{_part(session_id)}~{index}"


def block_anchor(session_id: str, index: int, block: int) -> str:
    """The id of one block of a message (a tool call, which its result links back to).

    Args:
        session_id: The session's id.
        index: The message's position in the session (source order).
        block: The block's position in the message.

    Returns:
        The HTML id.
    """
    return f"{message_anchor(session_id, index)}~{block}"
