"""What a compaction rung removed, and the marker text it leaves in the history in its place.

A marker is part of the history the model reads, so it says in words what is gone and how much;
``Removal`` is the same fact as data, for the simulator's frames.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RungName = Literal["elide", "drop_images", "snapshot", "summarize"]
RUNGS: tuple[RungName, ...] = ("elide", "drop_images", "snapshot", "summarize")
"""The ladder's rungs, cheapest first: eliding old routine tool results, dropping old images and
rendering glyph pages cost no model call; a summary costs one and decides for you what mattered."""

Trigger = Literal["proactive", "reactive"]

SUMMARY_TAG = "compaction_summary"
"""Tag of the message a ``summarize`` rung puts in place of the messages it summarised."""
MARKER_TAG = "compaction_marker"
"""Tag of a message whose every block a rung rewrote into a marker (an image-only user turn)."""


@dataclass(frozen=True, slots=True)
class Removal:
    """What one rung took out of a history."""

    rung: RungName
    messages: int
    """Messages the rung rewrote or replaced."""
    blocks: int
    """Blocks (tool results, images, whole messages) it removed or replaced by a marker."""
    chars: int
    """Characters of text the model no longer reads verbatim."""
    images: int = 0
    image_bytes: int = 0
    pages: int = 0
    """Snapshot pages added in their place."""
    summary_chars: int = 0
    """Characters of the summary added in their place."""
    first_changed: int | None = None
    """Index of the first message the rung changed: the provider's prompt cache breaks there."""


ELIDED = "[elided by compaction"
"""How every elision marker starts: a rung recognises its own earlier work by it."""
DROPPED = "[image dropped by compaction"
"""How every dropped-image marker starts."""


def elided(tool: str, chars: int, lines: int) -> str:
    return (f"{ELIDED}: the output of this {tool} call, {chars:,} characters in "
            f"{lines:,} lines; run it again if it is needed]")


def dropped(media_type: str, width: int | None, height: int | None, size: int) -> str:
    shape = f"{width}x{height} " if width is not None and height is not None else ""
    weight = f", {size:,} bytes" if size else ""
    return f"{DROPPED}: {shape}{media_type}{weight}]"


def summarised(count: int, first: str, last: str, by: str) -> str:
    return (f"[Summary by {by} of {count} earlier messages ({first} … {last}), which compaction "
            "removed; details it leaves out are gone from this context:]")
