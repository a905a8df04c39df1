"""Resuming a run from its stored path: the newest messages that fit, cut where a provider would
still accept the history, and the checkpoints that survive the cut.

A result whose call was cut is a request providers reject outright, and a transcript that cannot
be sent is worse than a short one, so the cut only ever falls where a turn starts. A checkpoint
whose message was cut is dropped and reported: rewinding "to the mark" and landing anywhere else
is the very failure the mark exists to prevent."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import assert_never

from toolkit.record import Image, Message, Opaque, Reasoning, Text, ToolResult, ToolUse
from toolkit.transcripts.serialize import dumps
from toolkit.transcripts.turns import call_positions, is_turn_start

CHARS_PER_TOKEN = 4
"""Estimate, not a tokenizer: "a token is equivalent to about 4 characters"
(https://ai.google.dev/gemini-api/docs/tokens, read 2026-11-29; OpenAI's help centre gives the same
rule of thumb). Pass ``count=`` to ``resume`` for a real tokenizer."""

PATCH_PX = 28
IMAGE_TOKEN_LIMIT = 1568
"""Estimate of an image's tokens: ``ceil(w/28) * ceil(h/28)`` visual tokens, at most 1568 on
standard-tier Claude models (https://platform.claude.com/docs/en/build-with-claude/vision, page as
captured 2026-07-13). An image of unknown size counts as the limit."""


def _content(message: Message) -> tuple[str, list[Image]]:
    """What a message sends as text (words, tool inputs and outputs, reasoning, opaque JSON) and
    the images it carries."""
    parts: list[str] = []
    images: list[Image] = []
    for block in message.blocks:
        match block:
            case Text():
                parts.append(block.text)
            case ToolUse():
                parts.append(block.name)
                parts.append(block.raw_input if block.raw_input is not None else dumps(block.input))
            case ToolResult():
                parts.append(block.output)
                images.extend(block.images)
            case Reasoning():
                parts.append(block.text)
            case Image():
                images.append(block)
            case Opaque():
                parts.append(dumps(block.raw))
            case _:
                assert_never(block)
    return "".join(parts), images


def estimate_tokens(message: Message) -> int:
    """Rough token count of what a message sends, from its length: for budgets, not for bills."""
    text, images = _content(message)
    return math.ceil(len(text) / CHARS_PER_TOKEN) + sum(image_tokens(i) for i in images)


def token_counter(model: str | None = None) -> Callable[[Message], int]:
    """A ``count`` for ``resume``: ``toolkit.costs.text_tokens`` for ``model`` (exact for OpenAI
    encodings, a calibrated estimate otherwise) plus the image estimate; the length estimate when
    no model is named or ``toolkit.costs`` is not installed."""
    if model is None:
        return estimate_tokens
    try:
        from toolkit.costs.text import text_tokens
    except ImportError:
        return estimate_tokens

    def count(message: Message) -> int:
        text, images = _content(message)
        return text_tokens(text, model).tokens + sum(image_tokens(i) for i in images)

    return count


def image_tokens(image: Image) -> int:
    if image.width is None or image.height is None:
        return IMAGE_TOKEN_LIMIT
    patches = math.ceil(image.width / PATCH_PX) * math.ceil(image.height / PATCH_PX)
    return min(patches, IMAGE_TOKEN_LIMIT)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A named mark on a message of a session, stored with the transcript."""

    name: str
    message_id: str
    created: datetime | None = None


@dataclass(frozen=True, slots=True)
class Dropped:
    """A checkpoint a resumed run cannot rewind to, and why."""

    name: str
    message_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Resumed:
    """What a resumed run starts from: the kept messages (root-pinned system messages, then the
    newest whole turns), the checkpoints still inside them, and the ones dropped."""

    session_id: str
    messages: tuple[Message, ...]
    checkpoints: tuple[Checkpoint, ...]
    dropped: tuple[Dropped, ...]
    cut: int
    """Messages of the path left out between the pinned system messages and the kept turns."""
    tokens: int
    """Estimated tokens of the kept messages (by the ``count`` the resume used)."""

    def checkpoint(self, name: str) -> Checkpoint:
        for mark in self.checkpoints:
            if mark.name == name:
                return mark
        for gone in self.dropped:
            if gone.name == name:
                raise LookupError(f"checkpoint {name!r} was dropped on resume: {gone.reason}")
        raise KeyError(f"no checkpoint {name!r} in session {self.session_id!r}")

    def rewind(self, name: str) -> tuple[Message, ...]:
        """The kept messages up to and including the checkpoint's own message; a dropped checkpoint
        raises ``LookupError`` instead of landing on a neighbour."""
        target = self.checkpoint(name).message_id
        for index, message in enumerate(self.messages):
            if message.id == target:
                return self.messages[: index + 1]
        raise AssertionError(f"kept checkpoint {name!r} names {target!r}, which is not kept")


def trim(
    session_id: str,
    path: Sequence[Message],
    checkpoints: Iterable[Checkpoint] = (),
    *,
    max_messages: int | None = None,
    max_tokens: int | None = None,
    count: Callable[[Message], int] = estimate_tokens,
) -> Resumed:
    """The newest part of ``path`` within the limits, cut only where a turn starts and no kept
    result loses its call. System messages at the root are instructions everything else relies
    on: they are always kept and count against the limits."""
    if max_messages is not None and max_messages < 0:
        raise ValueError(f"max_messages must be >= 0, not {max_messages}")
    if max_tokens is not None and max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, not {max_tokens}")
    pinned = 0
    while pinned < len(path) and path[pinned].role == "system":
        pinned += 1
    sizes = [count(m) for m in path]
    pinned_tokens = sum(sizes[:pinned])
    if max_tokens is not None and pinned_tokens > max_tokens:
        raise ValueError(f"session {session_id!r}: the {pinned} system message(s) at the root alone need "
                         f"{pinned_tokens} tokens, more than max_tokens={max_tokens}")
    if max_messages is not None and pinned > max_messages:
        raise ValueError(f"session {session_id!r}: the {pinned} system message(s) at the root alone exceed "
                         f"max_messages={max_messages}")
    start = _cut(path, sizes, pinned, pinned_tokens, max_messages, max_tokens)
    kept = (*path[:pinned], *path[start:])
    kept_ids = {m.id for m in kept}
    path_ids = {m.id for m in path}
    alive: list[Checkpoint] = []
    dropped: list[Dropped] = []
    for mark in checkpoints:
        if mark.message_id in kept_ids:
            alive.append(mark)
        elif mark.message_id in path_ids:
            dropped.append(Dropped(mark.name, mark.message_id,
                                   f"its message {mark.message_id!r} was cut by the resume"))
        else:
            dropped.append(Dropped(mark.name, mark.message_id,
                                   f"its message {mark.message_id!r} is not on the resumed path"))
    return Resumed(session_id, kept, tuple(alive), tuple(dropped), start - pinned,
                   pinned_tokens + sum(sizes[start:]))


def _cut(path: Sequence[Message], sizes: Sequence[int], pinned: int, pinned_tokens: int,
         max_messages: int | None, max_tokens: int | None) -> int:
    """The earliest allowed start index whose suffix fits: the whole path, a turn start that
    orphans no result, or the empty suffix."""
    n = len(path)
    earliest_call: list[int] = [n] * (n + 1)
    """earliest_call[k]: the smallest index of a call answered by a result at or after k."""
    for index, at in reversed(list(enumerate(call_positions(path)))):
        earliest_call[index] = min(earliest_call[index + 1], n if at is None else at)
    suffix = 0
    tokens_from = [0] * (n + 1)
    for index in range(n - 1, -1, -1):
        suffix += sizes[index]
        tokens_from[index] = suffix
    for start in range(pinned, n + 1):
        allowed = start in (pinned, n) or (is_turn_start(path[start]) and earliest_call[start] >= start)
        if not allowed:
            continue
        if max_messages is not None and pinned + (n - start) > max_messages:
            continue
        if max_tokens is not None and pinned_tokens + tokens_from[start] > max_tokens:
            continue
        return start
    return n
