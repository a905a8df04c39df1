"""The prose form of every block kind: how a block crosses when the wire is not asked, or not
able, to carry it in its own shape. Each form is a plain sentence a model reads as a record of
what happened, never as a stub shaped like success."""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolkit.record import Image, Opaque, Reasoning

EMPTY_MESSAGE = "[empty message]"
"""A stored message with nothing to say still gets its wire message in ``prose`` mode (one wire
message per stored message), and no wire accepts an empty one."""

EMPTY_HISTORY = "[the replayed history holds no messages in this mode]"
"""The one user message of a request whose path renders to nothing: every wire needs one."""

HISTORY_OPENS = "[the replayed history opens with the model's turn: no user turn before it is replayed]"
"""The user turn put first on wires whose messages must open with one, when the path's first user
message rendered to nothing (empty, or results only) or the path opens with a reply."""

VISION_OFF = "images are not shown in this replay"
"""Why an image is a marker when ``vision=False``."""


def tool_use(name: str, input_text: str) -> str:
    return f"Tool use: {name}({input_text})"


def tool_result(name: str, output: str, is_error: bool) -> str:
    return f"{'Error' if is_error else 'Result'} ({name}): {output}"


def reasoning(block: Reasoning) -> str:
    return reasoning_text(block.text)


def reasoning_text(text: str) -> str:
    """Reasoning as prose from its text alone (a wire body's thinking block keeps no more)."""
    if text.strip():
        return f"[Reasoning]: {text}"
    return "[Reasoning]: (not readable: the provider kept it as an opaque signature)"


def image_unseen(image: Image, why: str) -> str:
    """A marker that says plainly the model did not see the image, and why."""
    facts = [image.media_type]
    if image.width and image.height:
        facts.append(f"{image.width}×{image.height}")
    if image.sha256:
        facts.append(f"sha256 {image.sha256[:12]}")
    elif image.url:
        facts.append(image.url[:200])
    return f"[image not seen: {why} ({', '.join(facts)})]"


def opaque(block: Opaque, limit: int) -> str:
    """An unrecognised block crosses as its kind and an excerpt of its raw JSON."""
    raw = json.dumps(block.raw, ensure_ascii=False, separators=(",", ":"), default=str)
    cut = raw if len(raw) <= limit else raw[:limit] + f" [… {len(raw) - limit} more characters not replayed]"
    reason = f" ({block.reason})" if block.reason else ""
    return f"[Unrecognised {block.type} block{reason}]: {cut}"


def system_note(text: str) -> str:
    """A system message in the middle of a history, on a wire that only takes one at the top."""
    return f"[System message]\n{text}"


def calls_omitted(count: int, limit: int) -> str:
    return f"[{count} earlier call{'s' if count != 1 else ''} of this reply not replayed: only its last {limit} are]"


RESULT_OMITTED = "[result of a call not replayed (beyond the last calls of its reply)]"


def unanswered(lines: Sequence[str]) -> str:
    """Calls whose results never landed, told at the head of the next user message instead of
    as half a pair."""
    return "[Calls without a recorded result]\n" + "\n".join(lines)


def head(lines: Sequence[str]) -> str:
    """``prose_head``: the previous reply's calls, ahead of the next user message's words."""
    return "[Calls made in the previous reply]\n" + "\n".join(lines)


NO_RESULT = "(no result was recorded)"
