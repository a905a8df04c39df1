"""Snapshot compaction: verbatim head, the middle as pages of pixel text, verbatim tail.

The pages are always rendered from the source text of the messages they replace, never from an
earlier snapshot's pixels: ``compact`` given a ``Compacted`` history puts each snapshot's source
messages back and renders again, so compacting twice gives the very pages compacting once gave.
``resnap`` is the alternative a compactor without the source would take (re-rendering the previous
pages from their pixels) and shows what each generation of that loses.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import assert_never

import numpy as np
from PIL import Image

from toolkit.errors import InvalidInput
from toolkit.record import Image as ImageBlock
from toolkit.record import Message, Opaque, Reasoning, Text, ToolResult, ToolUse, bare_tool_name
from toolkit.replay import prose
from toolkit.replay.calls import input_text
from toolkit.snapshot.font import Bitmaps, Coverage
from toolkit.snapshot.geometry import Geometry, seen
from toolkit.snapshot.legibility import DEFAULT_RESAMPLE, compare
from toolkit.snapshot.render import Page, Passage, read, render
from toolkit.snapshot.tradeoff import geometry_for

DEFAULT_MODEL = "claude-sonnet-4.5"
"""The model whose page ``compact`` uses when given neither a geometry nor a model (a
``PRESET_MODELS`` id: Claude's standard image tier)."""

SNAPSHOT_TAG = "snapshot"
"""Tag of a message that carries snapshot pages."""

OPAQUE_LIMIT = 2000
"""Characters of an unrecognised block's raw JSON put on a page (the cut says how much is left)."""

IMAGE_NOT_KEPT = "snapshots carry text only; the picture is not on the page"


def label(message: Message) -> str:
    """A header bar's text: speaker, time, message id (last, so a narrow column cuts only the id)."""
    parts: list[str] = [message.role]
    if message.time is not None:
        parts.append(message.time.strftime("%Y-%m-%d %H:%M"))
    parts.append(message.id)
    return " · ".join(parts)


def tool_names(messages: Sequence[Message]) -> dict[str, str]:
    """Call id → tool name (one vocabulary: ``mcp__server__tool`` is ``tool``)."""
    return {b.id: bare_tool_name(b.name) for m in messages for b in m.blocks if isinstance(b, ToolUse)}


def message_text(message: Message, names: Mapping[str, str]) -> str:
    """Every block of a message in its prose form, in full (a page is cheap; nothing is cut but an
    unrecognised block's raw JSON).

    Args:
        message: The message to render.
        names: Call id to tool name, so a result the source did not name is labelled by its call.

    Returns:
        The text a snapshot page draws for the message.
    """
    parts: list[str] = []
    for block in message.blocks:
        match block:
            case Text():
                parts.append(block.text)
            case ToolUse():
                parts.append(prose.tool_use(bare_tool_name(block.name), input_text(block, sys.maxsize)))
            case ToolResult():
                name = block.name or names.get(block.tool_use_id, "unknown tool")
                parts.append(prose.tool_result(bare_tool_name(name), block.output, block.is_error))
                parts.extend(prose.image_unseen(image, IMAGE_NOT_KEPT) for image in block.images)
            case Reasoning():
                parts.append(prose.reasoning(block))
            case ImageBlock():
                parts.append(prose.image_unseen(block, IMAGE_NOT_KEPT))
            case Opaque():
                parts.append(prose.opaque(block, OPAQUE_LIMIT))
            case _:
                assert_never(block)
    return "\n".join(parts)


def turns(messages: Sequence[Message], names: Mapping[str, str] | None = None) -> list[Passage]:
    """Messages as the turns a snapshot renders.

    Args:
        messages: The messages to render, in order.
        names: Call id to tool name (default: read from ``messages``); a caller rendering part of a
            history passes the whole history's, so results whose calls fall outside are still named.

    Returns:
        One passage per message: its text, label and id.
    """
    names = tool_names(messages) if names is None else names
    return [Passage(message_text(m, names), label(m), m.id) for m in messages]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What one snapshot message replaced, so it can be rendered again from the source."""

    message_id: str
    sources: tuple[Message, ...]
    geometry: Geometry


@dataclass(frozen=True)
class Compacted:
    """A compacted history: the messages to send, the page bytes its image blocks name, and the
    source of every snapshot in it."""

    messages: tuple[Message, ...]
    images: dict[str, bytes]
    """sha256 → PNG bytes of every page."""
    pages: tuple[Page, ...]
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    head: int = 0
    tail: int = 0

    @property
    def chars(self) -> int:
        return sum(p.chars for p in self.pages)

    @property
    def uncovered(self) -> int:
        return sum(p.uncovered for p in self.pages)

    def expanded(self) -> list[Message]:
        """The history with every snapshot message replaced by the messages it stands for.

        Returns:
            The messages a reader of the original history saw, in order.
        """
        return expand(self.messages, self.snapshots)


def expand(messages: Sequence[Message], snapshots: Mapping[str, Snapshot]) -> list[Message]:
    """Snapshot messages replaced by their sources (recursively); a message whose parent was a
    snapshot is relinked to the snapshot's last source message."""
    out: list[Message] = []
    last_source: dict[str, str | None] = {}
    for message in messages:
        if message.id in snapshots:
            sources = expand(snapshots[message.id].sources, snapshots)
            last_source[message.id] = sources[-1].id if sources else message.parent_id
            out.extend(sources)
        elif SNAPSHOT_TAG in message.tags:
            raise InvalidInput(
                f"message {message.id} is a snapshot whose source messages are not known: compact the "
                "Compacted object itself (it keeps them), or use resnap() to re-render from pixels"
            )
        elif message.parent_id in last_source:
            out.append(replace(message, parent_id=last_source[message.parent_id]))
        else:
            out.append(message)
    return out


def pair_safe_bounds(messages: Sequence[Message], head: int, tail: int) -> tuple[int, int]:
    """Head end and tail start moved so no tool call is split from its result across a boundary."""
    n = len(messages)
    head, tail_start = min(head, n), max(min(head, n), n - tail)
    calls = {b.id: i for i, m in enumerate(messages) for b in m.blocks if isinstance(b, ToolUse)}
    answers: dict[str, int] = {}
    for i, m in enumerate(messages):
        for b in m.blocks:
            if isinstance(b, ToolResult):
                answers.setdefault(b.tool_use_id, i)
    changed = True
    while changed:
        changed = False
        for call_id, at in calls.items():
            answer = answers.get(call_id)
            if answer is None:
                continue
            if at < head <= answer < tail_start:
                head, changed = answer + 1, True
            if head <= at < tail_start <= answer:
                tail_start, changed = at, True
        tail_start = max(tail_start, head)
    return head, tail_start


def image_blocks(pages: Sequence[Page]) -> tuple[list[ImageBlock], dict[str, bytes]]:
    """The pages as image blocks naming their PNG by sha256, and the store holding the bytes."""
    images: dict[str, bytes] = {}
    blocks: list[ImageBlock] = []
    for page in pages:
        data = page.png()
        digest = hashlib.sha256(data).hexdigest()
        images[digest] = data
        blocks.append(ImageBlock("image/png", digest, len(data), page.geometry.width, page.geometry.height))
    return blocks, images


def _caption(sources: Sequence[Message], pages: Sequence[Page], geometry: Geometry) -> str:
    ids = [m.id for m in sources]
    listed = ", ".join(ids) if len(ids) <= 12 else f"{ids[0]} … {ids[-1]}"
    chars = sum(p.chars for p in pages)
    uncovered = sum(p.uncovered for p in pages)
    return (
        f"[Snapshot of {len(ids)} earlier messages ({listed}) as {len(pages)} page image"
        f"{'s' if len(pages) != 1 else ''} of pixel text: {chars} characters"
        + (f", {uncovered} of them not drawable and shown as an inverted ?" if uncovered else "")
        + ". Read the pages in order, each page's text columns left to right. Each message starts with a "
        + ("black bar naming its speaker, time and id" if geometry.header == "bar" else
           "row naming its speaker, time and id, underlined")
        + ("; faint lines separate the rows" if geometry.row_rule else "")
        + "; a row starting with a hooked arrow continues the line "
        "above; an arrow to a bar is a tab; open boxes at a line's end are trailing spaces.]"
    )


def _snapshot_id(sources: Sequence[Message], geometry: Geometry) -> str:
    digest = hashlib.sha256(("\n".join(m.id for m in sources) + "\n" + repr(geometry)).encode("utf-8", "surrogatepass"))
    return f"snapshot-{digest.hexdigest()[:16]}"


def compact(messages: Sequence[Message] | Compacted, head: int = 2, tail: int = 6,
            geometry: Geometry | None = None, *, model: str | None = None) -> Compacted:
    """Keep the first ``head`` and last ``tail`` messages as they are and render the middle to pages,
    carried as image blocks of one user message with a caption.

    Boundaries move so no tool call is parted from its result. A ``Compacted`` history is first
    expanded back to its source messages, so its snapshots are rendered again from their text, never
    from their pixels (each pass over pixels would lose legibility).

    Args:
        messages: The history, or an earlier compaction of it.
        head: Messages kept as they are at the start.
        tail: Messages kept as they are at the end.
        geometry: The page to render in. Default: the page for ``model``
            (``toolkit.snapshot.geometry_for``: the largest page its provider does not shrink, in the
            glyph cell the readers read best); with no ``model`` either, the page for
            ``DEFAULT_MODEL``. ``Geometry()`` itself, 4x6 cells, is dense but poorly read (see
            ``tradeoff``) and is used only when passed.
        model: The model that will read the pages.

    Returns:
        The messages to send, the page bytes their image blocks name, and the source of every
        snapshot."""
    geometry = geometry or geometry_for(model or DEFAULT_MODEL)
    source = messages.expanded() if isinstance(messages, Compacted) else expand(messages, {})
    head_end, tail_start = pair_safe_bounds(source, head, tail)
    middle = source[head_end:tail_start]
    if not middle:
        return Compacted(tuple(source), {}, (), {}, head_end, len(source) - tail_start)
    pages = render(turns(middle, tool_names(source)), geometry)
    shown, images = image_blocks(pages)
    blocks: list[Text | ImageBlock] = [Text(_caption(middle, pages, geometry)), *shown]
    snapshot_id = _snapshot_id(middle, geometry)
    snapshot = Message(
        id=snapshot_id, parent_id=source[head_end - 1].id if head_end else None, role="user",
        blocks=tuple(blocks), time=middle[-1].time, tags=(SNAPSHOT_TAG,),
    )
    tail_messages = list(source[tail_start:])
    if tail_messages:
        tail_messages[0] = replace(tail_messages[0], parent_id=snapshot_id)
    return Compacted(
        messages=(*source[:head_end], snapshot, *tail_messages), images=images, pages=tuple(pages),
        snapshots={snapshot_id: Snapshot(snapshot_id, tuple(middle), geometry)},
        head=head_end, tail=len(tail_messages),
    )


# --- re-snapping from pixels ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Generation:
    """One re-snap of a page from the previous generation's pixels."""

    generation: int
    ink: Bitmaps
    """Pixels with ink (in a greyscale page: at least half covered, as ``Page.ink``)."""
    accuracy: float
    """Characters of the original page still read correctly."""
    lost: tuple[tuple[str, str, int], ...]
    levels: Coverage | None = None
    """A greyscale page's coverage (0 paper, 255 full ink) as this generation holds it, which is
    what it is read from; ``None`` for a 1-bit page."""

    @property
    def image(self) -> Image.Image:
        """Black on white: 1-bit, or 8-bit for a greyscale page."""
        if self.levels is not None:
            return Image.fromarray(~self.levels, mode="L")
        return Image.fromarray(~self.ink)


def resnap(page: Page, model: str | None = None, *, scale: float | None = None, passes: int = 3,
           resample: Image.Resampling = DEFAULT_RESAMPLE) -> list[Generation]:
    """Re-render a page from its own pixels ``passes`` times, as a compactor without the source text
    would: what each generation of re-snapping loses.

    Each pass the previous generation goes through the provider's resize, or is shrunk to make room
    in the next snapshot, and is drawn back onto a page: snapped to 1 bit for a 1-bit page, kept as
    8-bit coverage for a greyscale one (snapping an anti-aliased page would lose its grey levels
    whether or not anything was resized). Each generation is read against the atlas from the pixels
    it holds.

    Args:
        page: Generation 0, the page rendered from the source text.
        model: The model whose provider's resize applies, when it changes this page's size.
        scale: The shrink per pass instead, so generation k holds the text at ``scale**k`` of its
            size.
        passes: How many generations to make after the first.
        resample: The resize filter.

    Returns:
        Every generation, 0 first, with what it reads as."""
    geometry = page.geometry
    resized: tuple[int, int] | None = None
    if model is not None:
        view = seen(geometry.width, geometry.height, model)
        if view.size != geometry.size:
            resized = view.size
    pixels: Bitmaps | Coverage = page.levels if page.grey else page.ink
    out = [_generation(0, page, pixels, resample)]
    for generation in range(1, passes + 1):
        target = resized
        if scale is not None:
            factor = scale ** generation
            target = (max(1, round(geometry.width * factor)), max(1, round(geometry.height * factor)))
        pixels = _redrawn(pixels, target, geometry.size, resample)
        out.append(_generation(generation, page, pixels, resample))
    return out


def _redrawn(pixels: Bitmaps | Coverage, target: tuple[int, int] | None, size: tuple[int, int],
             resample: Image.Resampling) -> Bitmaps | Coverage:
    """A page's pixels shrunk to ``target`` and drawn back at ``size``: coverage (8-bit) stays grey,
    bits are snapped to 1 bit again."""
    grey = pixels.dtype == np.uint8
    image = Image.fromarray(~pixels, mode="L") if grey else Image.fromarray(~pixels).convert("L")
    if target is not None and target != size:
        image = image.resize(target, resample).resize(size, resample)
    elif grey:
        return pixels
    return ~np.asarray(image, dtype=np.uint8) if grey else np.asarray(image) < 128


def _generation(generation: int, page: Page, pixels: Bitmaps | Coverage, resample: Image.Resampling) -> Generation:
    result = compare([page], [read(pixels, page.geometry, resample)])
    if pixels.dtype == np.uint8:
        levels: Coverage = pixels.astype(np.uint8, copy=False)
        return Generation(generation, levels >= 128, result.accuracy, result.lost, levels)
    return Generation(generation, pixels.astype(bool, copy=False), result.accuracy, result.lost)
