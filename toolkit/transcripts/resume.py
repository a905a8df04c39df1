"""Resuming a run from its stored path: the newest messages that fit, cut where a provider would
still accept the history, and the checkpoints that survive the cut.

A result whose call was cut is a request providers reject outright, and a transcript that cannot
be sent is worse than a short one, so the cut only ever falls where a turn starts. A checkpoint
whose message was cut is dropped and reported: rewinding "to the mark" and landing anywhere else
is the very failure the mark exists to prevent."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.content import block_text, message_images
from toolkit.costs import UnknownModelError, image_tokens, resolve, rule_for, text_tokens
from toolkit.errors import InvalidInput, NotFound
from toolkit.record import Image, Message
from toolkit.transcripts.turns import call_positions, is_turn_start

DEFAULT_MODEL = "claude-sonnet-4.5"
"""Whose counts a resume uses when the path names no model. A choice, not a measurement: Claude
counts more tokens than o200k for the same text (on the shared corpora o200k falls 35% short of
Claude's reported growth, ``toolkit costs calibrate``), so a budget taken from it errs on the side
of room. Its image rule is Claude's standard tier (28-px patches, at most 1568 visual tokens),
which also stands in for models without a documented one."""

CHARS_PER_TOKEN = 4
"""Estimate, not a tokenizer: "a token is equivalent to about 4 characters"
(https://ai.google.dev/gemini-api/docs/tokens, read 2026-11-29; OpenAI's help centre gives the same
rule of thumb). Used only for models the registry (``toolkit.costs.resolve``) does not know."""

UNKNOWN_IMAGE_SIZE = (2000, 2000)
"""ESTIMATE: an image whose size was not recorded (or that the model's rule rejects) is counted as
a 2000x2000 one, the most Anthropic advises per side when a request carries many images ("stay
<= 2000 px per side", https://platform.claude.com/docs/en/build-with-claude/vision, read
2026-07-13): a budget should overcount, not overflow."""


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """A ``count`` for ``resume``: the tokens a message sends to one model, text by
    ``toolkit.costs.text_tokens`` (exact for OpenAI encodings, a calibrated estimate otherwise)
    and images by ``toolkit.costs.image_tokens``; for a model the registry does not know, the
    text by its length (``CHARS_PER_TOKEN``). ``method`` says which. Reasoning counts as sent: a
    budget errs on the side of room."""

    model: str | None
    """The model asked for (``None``: none was named)."""
    text_model: str | None
    """The model whose text count applies; ``None``: the length estimate."""
    image_model: str
    """The model whose image rule applies (``DEFAULT_MODEL`` where ``model`` has none)."""

    def __call__(self, message: Message) -> int:
        texts = (block_text(block) for block in message.blocks)
        return sum(self.text(t) for t in texts if t) + sum(self.image(i) for i in message_images(message))

    def text(self, text: str) -> int:
        """Tokens ``text`` costs the model, so a resume cuts at the same budget a provider would count.

        Args:
            text: Any text a message sends.

        Returns:
            The token count (an estimate unless the model's encoding is exact).
        """
        if self.text_model is None:
            return math.ceil(len(text) / CHARS_PER_TOKEN)
        return text_tokens(text, self.text_model).tokens

    def image(self, image: Image) -> int:
        """Tokens an image costs the model, at its recorded size or ``UNKNOWN_IMAGE_SIZE`` when the
        record has none or the provider would reject the one recorded.

        Args:
            image: The image block.

        Returns:
            The token count.
        """
        if image.width is not None and image.height is not None:
            try:
                return image_tokens(image.width, image.height, self.image_model).tokens
            except ValueError:  # a size the provider rejects: counted like one not recorded
                pass
        return image_tokens(*UNKNOWN_IMAGE_SIZE, self.image_model).tokens

    @property
    def method(self) -> str:
        images = f"images by {rule_for(self.image_model).name} ({self.image_model})"
        if self.text_model is None:
            why = "" if self.model is None else f", {self.model!r} is not in the model registry"
            return f"length estimate ({CHARS_PER_TOKEN} characters per token{why}); {images}"
        return f"text by {text_tokens('', self.text_model).method} ({self.text_model}); {images}"


estimate_tokens = TokenCounter(None, None, DEFAULT_MODEL)
"""The length estimate: what a message sends, ``CHARS_PER_TOKEN`` characters per token, images
by ``DEFAULT_MODEL``'s rule. For when no model applies; ``token_counter`` when one does."""


@functools.cache
def token_counter(model: str | None = None) -> TokenCounter:
    """The ``count`` for ``model`` (default ``DEFAULT_MODEL``). A model the registry does not know
    (``<synthetic>``, a gateway's own name) gets the length estimate instead of an error, and a
    model without a documented image rule counts its images by ``DEFAULT_MODEL``'s.

    Args:
        model: The model whose window the resume fills.

    Returns:
        The counter.
    """
    name = DEFAULT_MODEL if model is None else model
    try:
        resolve(name)
    except UnknownModelError:
        return TokenCounter(model, None, DEFAULT_MODEL)
    try:
        image_tokens(*UNKNOWN_IMAGE_SIZE, name)
    except ValueError:
        return TokenCounter(model, name, DEFAULT_MODEL)
    return TokenCounter(model, name, name)


def path_model(path: Sequence[Message]) -> str | None:
    """The model of the newest message on the path that names one: whose window a resume fills.

    Args:
        path: The messages of the path, root first.

    Returns:
        The model id, or ``None`` when no message names one.
    """
    return next((m.model for m in reversed(path) if m.model), None)


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
    counted_by: str = ""
    """How ``tokens`` were counted (a ``TokenCounter``'s method; a caller's own ``count`` says so)."""

    def checkpoint(self, name: str) -> Checkpoint:
        """The kept checkpoint called ``name``, the mark a run resumes or rewinds to.

        Args:
            name: The checkpoint's name, as ``TranscriptStore.checkpoint`` was given it.

        Returns:
            The checkpoint.

        Raises:
            NotFound: The checkpoint was dropped on resume (the message says why) or never set.
        """
        for mark in self.checkpoints:
            if mark.name == name:
                return mark
        for gone in self.dropped:
            if gone.name == name:
                raise NotFound(f"checkpoint {name!r} was dropped on resume: {gone.reason}")
        raise NotFound(f"no checkpoint {name!r} in session {self.session_id!r}")

    def rewind(self, name: str) -> tuple[Message, ...]:
        """The kept messages up to and including the checkpoint's own message; a dropped checkpoint
        raises ``NotFound`` (a ``LookupError``) instead of landing on a neighbour.

        Args:
            name: The checkpoint to rewind to.

        Returns:
            The messages a run restarts from.
        """
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
    count: Callable[[Message], int] | None = None,
) -> Resumed:
    """The newest part of ``path`` within the limits, cut only where a turn starts and no kept result
    loses its call.

    System messages at the root are instructions everything else relies on: they are always kept
    and count against the limits.

    Args:
        session_id: The session's id, for messages and errors.
        path: The messages, root first.
        checkpoints: The session's checkpoints; one whose target is cut is dropped, never moved.
        max_messages: The most messages to keep.
        max_tokens: The most tokens to keep.
        count: A message's tokens (default: ``token_counter`` for the path's newest model,
            ``path_model``).

    Returns:
        The kept messages and the checkpoints that survive.

    Raises:
        InvalidInput: A limit is negative, or the root's system messages alone exceed it."""
    if count is None:
        count = token_counter(path_model(path))
    counted_by = count.method if isinstance(count, TokenCounter) else "a count given by the caller"
    if max_messages is not None and max_messages < 0:
        raise InvalidInput(f"max_messages must be >= 0, not {max_messages}")
    if max_tokens is not None and max_tokens < 0:
        raise InvalidInput(f"max_tokens must be >= 0, not {max_tokens}")
    pinned = 0
    while pinned < len(path) and path[pinned].role == "system":
        pinned += 1
    sizes = [count(m) for m in path]
    pinned_tokens = sum(sizes[:pinned])
    if max_tokens is not None and pinned_tokens > max_tokens:
        raise InvalidInput(f"session {session_id!r}: the {pinned} system message(s) at the root alone need "
                           f"{pinned_tokens} tokens, more than max_tokens={max_tokens}")
    if max_messages is not None and pinned > max_messages:
        raise InvalidInput(f"session {session_id!r}: the {pinned} system message(s) at the root alone exceed "
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
                   pinned_tokens + sum(sizes[start:]), counted_by)


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
