"""The ladder's rungs: each takes a history and returns a shorter one with a marker where it cut.

No rung parts a tool call from its result: ``elide`` and ``drop_images`` rewrite a block's content
and keep the block, ``snapshot`` and ``summarize`` move their boundaries with
``toolkit.snapshot.compact.pair_safe_bounds`` so a call and its result are on the same side.
``snapshot`` and ``summarize`` work on the source messages of earlier snapshots (``History.snapshots``),
never on their pixels: a page is always rendered from text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from toolkit.compaction.markers import (
    DROPPED,
    ELIDED,
    MARKER_TAG,
    SUMMARY_TAG,
    Removal,
    dropped,
    elided,
    summarised,
)
from toolkit.compaction.summaries import Summariser, Summary
from toolkit.content import block_text, history_text
from toolkit.errors import InvalidInput
from toolkit.record import Image, Message, Text, ToolResult, ToolUse, bare_tool_name
from toolkit.snapshot.compact import (
    SNAPSHOT_TAG,
    Compacted,
    Snapshot,
    compact,
    expand,
    pair_safe_bounds,
    tool_names,
)
from toolkit.snapshot.geometry import Geometry


@dataclass(frozen=True)
class History:
    """A history as the ladder carries it between compactions: the messages sent, the bytes of the
    pages they show, and the source messages of every snapshot among them."""

    messages: tuple[Message, ...]
    images: Mapping[str, bytes] = field(default_factory=dict)
    snapshots: Mapping[str, Snapshot] = field(default_factory=dict)

    def source(self) -> list[Message]:
        """The messages with every snapshot replaced by what it was rendered from."""
        return expand(self.messages, self.snapshots)


@dataclass(frozen=True)
class Step:
    """One rung's result: the new history and what it removed (``None``: nothing to remove)."""

    history: History
    removal: Removal | None
    summary: Summary | None = None


def same(a: Message, b: Message) -> bool:
    """Whether two messages send the same content (a relinked parent id is not sent)."""
    return a is b or (a.id == b.id and a.role == b.role and a.blocks == b.blocks)


def shared_prefix(before: Sequence[Message], after: Sequence[Message]) -> int:
    """How many leading messages two histories send alike."""
    k = 0
    for a, b in zip(before, after, strict=False):
        if not same(a, b):
            break
        k += 1
    return k


def _first_changed(before: Sequence[Message], after: Sequence[Message]) -> int | None:
    k = shared_prefix(before, after)
    return None if k == len(before) == len(after) else k


def elide(history: History, *, keep: int = 3, keep_errors: bool = True,
          exclude_tools: Sequence[str] = ()) -> Step:
    """Replace the output of old tool results by a marker, keeping the ``keep`` most recent, every
    error (the agent may still be fixing it) and the tools named in ``exclude_tools``. A result
    shorter than its marker is left alone: eliding it would lengthen the history."""
    names = tool_names(history.messages)
    results = [(i, j) for i, m in enumerate(history.messages) for j, b in enumerate(m.blocks)
               if isinstance(b, ToolResult)]
    old = results[:max(0, len(results) - keep)]
    excluded = {bare_tool_name(t) for t in exclude_tools}
    messages = list(history.messages)
    touched: set[int] = set()
    blocks = chars = 0
    for i, j in old:
        block = messages[i].blocks[j]
        assert isinstance(block, ToolResult)
        tool = bare_tool_name(block.name or names.get(block.tool_use_id, "tool"))
        if (keep_errors and block.is_error) or tool in excluded or block.output.startswith(ELIDED):
            continue
        marker = elided(tool, len(block.output), block.output.count("\n") + 1)
        if len(block.output) <= len(marker):
            continue
        new_blocks = list(messages[i].blocks)
        new_blocks[j] = replace(block, output=marker)
        messages[i] = replace(messages[i], blocks=tuple(new_blocks))
        touched.add(i)
        blocks += 1
        chars += len(block.output)
    if not blocks:
        return Step(history, None)
    return Step(
        replace(history, messages=tuple(messages)),
        Removal("elide", len(touched), blocks, chars, first_changed=min(touched)),
    )


def drop_images(history: History, *, keep: int = 1) -> Step:
    """Replace every image but the ``keep`` most recent by a marker naming its type, size and bytes.
    Snapshot pages are not dropped here: they are the text of the messages they replaced."""
    places = [(i, j) for i, m in enumerate(history.messages) if SNAPSHOT_TAG not in m.tags
              for j, b in enumerate(m.blocks) if isinstance(b, Image) or (isinstance(b, ToolResult) and b.images)]
    counted: list[tuple[int, int, int]] = []
    for i, j in places:
        block = history.messages[i].blocks[j]
        pictures = block.images if isinstance(block, ToolResult) else (block,)
        counted.extend((i, j, k) for k in range(len(pictures)))
    dropping = counted[:max(0, len(counted) - keep)]
    if not dropping:
        return Step(history, None)
    messages = list(history.messages)
    by_block: dict[tuple[int, int], list[int]] = {}
    for i, j, k in dropping:
        by_block.setdefault((i, j), []).append(k)
    size = 0
    for (i, j), ks in by_block.items():
        block = messages[i].blocks[j]
        new_blocks = list(messages[i].blocks)
        if isinstance(block, Image):
            size += block.size
            new_blocks[j] = Text(dropped(block.media_type, block.width, block.height, block.size))
        else:
            assert isinstance(block, ToolResult)
            gone = [block.images[k] for k in ks]
            size += sum(p.size for p in gone)
            notes = "\n".join(dropped(p.media_type, p.width, p.height, p.size) for p in gone)
            kept = tuple(p for k, p in enumerate(block.images) if k not in ks)
            new_blocks[j] = replace(block, images=kept, output=f"{block.output}\n{notes}" if block.output else notes)
        tags = messages[i].tags
        if all(isinstance(b, Text) and b.text.startswith(DROPPED) for b in new_blocks):
            tags = (*tags, MARKER_TAG)
        messages[i] = replace(messages[i], blocks=tuple(new_blocks), tags=tags)
    touched = {i for i, _ in by_block}
    return Step(
        replace(history, messages=tuple(messages)),
        Removal("drop_images", len(touched), len(by_block), 0, images=len(dropping), image_bytes=size,
                first_changed=min(touched)),
    )


def snapshot(history: History, *, geometry: Geometry, head: int = 2, tail: int = 6) -> Step:
    """Render the middle of the history (between ``head`` and ``tail`` messages) onto glyph pages,
    from the source text of any earlier snapshot in it."""
    before = history.messages
    earlier = Compacted(before, dict(history.images), (), dict(history.snapshots))
    done = compact(earlier, head=head, tail=tail, geometry=geometry)
    if not done.pages:
        return Step(history, None)
    new_id = next(iter(done.snapshots))
    middle = done.snapshots[new_id].sources
    verbatim = {m.id for m in before}
    chars = len(history_text(m for m in middle if m.id in verbatim))
    shown = {b.sha256 for m in done.messages for b in m.blocks if isinstance(b, Image)}
    images = {k: v for k, v in (*history.images.items(), *done.images.items()) if k in shown}
    ids = {m.id for m in done.messages}
    snapshots = {k: v for k, v in (*history.snapshots.items(), *done.snapshots.items()) if k in ids}
    return Step(
        History(done.messages, images, snapshots),
        Removal("snapshot", len(middle), len(middle), chars, pages=len(done.pages),
                first_changed=_first_changed(before, done.messages)),
    )


def _recent_user_turns(source: Sequence[Message], start: int, budget: float,
                       measure: Callable[[Message], float]) -> list[Message]:
    """The most recent plain user messages (no tool results) after ``start``, newest last, within
    ``budget`` tokens: what Codex keeps beside its summary (peers.md A.6)."""
    kept: list[Message] = []
    used = 0.0
    for message in reversed(source[start:]):
        if message.role != "user" or any(isinstance(b, ToolResult) for b in message.blocks):
            continue
        cost = measure(message)
        if used + cost > budget:
            break
        kept.append(message)
        used += cost
    return kept[::-1]


def summarize(history: History, summariser: Summariser, *, head: int = 0, tail: int = 2,
              budget_chars: int = 8000, keep_user_tokens: float | None = None,
              measure: Callable[[Message], float] | None = None) -> Step:
    """Replace the middle by one user message holding a summary of it. With ``keep_user_tokens``
    (Codex's shape) everything after ``head`` is summarised and only the most recent plain user
    messages, up to that many tokens, are kept after the summary."""
    source = history.source()
    head_end, tail_start = pair_safe_bounds(source, head, 0 if keep_user_tokens is not None else tail)
    middle = source[head_end:tail_start]
    if not middle:
        return Step(history, None)
    kept_after = list(source[tail_start:])
    if keep_user_tokens is not None:
        if measure is None:
            raise InvalidInput("summarize: keep_user_tokens needs a measure of a message's tokens")
        kept_after = _recent_user_turns(source, head_end, keep_user_tokens, measure)
    summary = summariser.summarise(middle, budget_chars=budget_chars)
    marker = summarised(len(middle), middle[0].id, middle[-1].id, summary.by)
    digest = hashlib.sha256("\n".join(m.id for m in middle).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    parent = source[head_end - 1].id if head_end else None
    note = Message(id=f"summary-{digest}", parent_id=parent, role="user",
                   blocks=(Text(f"{marker}\n{summary.text}"),), time=middle[-1].time, tags=(SUMMARY_TAG,))
    if kept_after:
        kept_after[0] = replace(kept_after[0], parent_id=note.id)
    messages = (*source[:head_end], note, *kept_after)
    removed = [m for m in source[head_end:] if m not in kept_after] if keep_user_tokens is not None else middle
    chars = sum(len(block_text(b)) for m in removed for b in m.blocks)
    return Step(
        History(messages, {}, {}),
        Removal("summarize", len(removed), len(removed), chars, summary_chars=len(summary.text),
                first_changed=_first_changed(history.messages, messages)),
        summary,
    )


def unpaired(messages: Sequence[Message]) -> list[str]:
    """Why a history cannot be sent: each call without a result and each result without its call."""
    calls = {b.id for m in messages for b in m.blocks if isinstance(b, ToolUse)}
    results = {b.tool_use_id for m in messages for b in m.blocks if isinstance(b, ToolResult)}
    return ([f"call {c} has no result" for c in sorted(calls - results)]
            + [f"result {r} has no call" for r in sorted(results - calls)])
