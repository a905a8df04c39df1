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
        """The messages with every snapshot replaced by what it was rendered from.

        Returns:
            The messages the history stands for, in order: what facts are looked for in.
        """
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


def _observations(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Where a text-action agent's observations are: each user text after the task (the first user
    message that is no demonstration), as SWE-agent records the environment's output."""
    task = next((i for i, m in enumerate(messages) if m.role == "user" and not {"demo", "meta"} & set(m.tags)), None)
    if task is None:
        return []
    return [(i, j) for i, m in enumerate(messages) if i > task and m.role == "user" and not {"demo", "meta"} & set(m.tags)
            for j, b in enumerate(m.blocks) if isinstance(b, Text)]


def elide(history: History, *, keep: int = 3, keep_errors: bool = True,
          exclude_tools: Sequence[str] = (), text_observations: bool = False) -> Step:
    """Replace the output of old tool results by a marker.

    A result shorter than its marker is left alone: eliding it would lengthen the history.

    Args:
        history: The history to compact.
        keep: How many of the most recent results keep their output.
        keep_errors: Keep every error result (the agent may still be fixing it).
        exclude_tools: Tools whose results are never elided.
        text_observations: Count a text-action agent's observations (``_observations``) as results,
            as SWE-agent's ``last_n_observations`` does.

    Returns:
        The new history and what was removed (``None``: nothing to remove)."""
    names = tool_names(history.messages)
    results = [(i, j) for i, m in enumerate(history.messages) for j, b in enumerate(m.blocks)
               if isinstance(b, ToolResult)]
    if text_observations:
        results = sorted({*results, *_observations(history.messages)})
    old = results[:max(0, len(results) - keep)]
    excluded = {bare_tool_name(t) for t in exclude_tools}
    messages = list(history.messages)
    touched: set[int] = set()
    blocks = chars = 0
    for i, j in old:
        block = messages[i].blocks[j]
        if isinstance(block, Text):
            output, tool, error = block.text, "environment", False
        else:
            assert isinstance(block, ToolResult)
            output, error = block.output, block.is_error
            tool = bare_tool_name(block.name or names.get(block.tool_use_id, "tool"))
        if (keep_errors and error) or tool in excluded or output.startswith(ELIDED):
            continue
        marker = elided(tool, len(output), output.count("\n") + 1)
        if len(output) <= len(marker):
            continue
        new_blocks = list(messages[i].blocks)
        new_blocks[j] = replace(block, text=marker) if isinstance(block, Text) else replace(block, output=marker)
        messages[i] = replace(messages[i], blocks=tuple(new_blocks))
        touched.add(i)
        blocks += 1
        chars += len(output)
    if not blocks:
        return Step(history, None)
    return Step(
        replace(history, messages=tuple(messages)),
        Removal("elide", len(touched), blocks, chars, first_changed=min(touched)),
    )


def drop_images(history: History, *, keep: int = 1) -> Step:
    """Replace every image but the most recent by a marker naming its type, size and bytes.

    Snapshot pages are not dropped here: they are the text of the messages they replaced.

    Args:
        history: The history to compact.
        keep: How many of the most recent images stay.

    Returns:
        The new history and what was removed (``None``: nothing to remove)."""
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
    """Render the middle of the history onto glyph pages, from the source text of any earlier snapshot
    in it (never from its pixels).

    Args:
        history: The history to compact.
        geometry: The page and glyph cell to render in.
        head: Messages kept as they are at the start.
        tail: Messages kept as they are at the end.

    Returns:
        The new history and what was removed (``None``: nothing to remove)."""
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


def _leading_context(source: Sequence[Message]) -> int:
    """How many messages at the start are the client's own context (``meta``: Codex's AGENTS.md and
    environment fragments), which Codex rebuilds after a compaction rather than summarising."""
    return next((i for i, m in enumerate(source) if "meta" not in m.tags), len(source))


def _plain_user(message: Message) -> bool:
    return (message.role == "user" and not any(isinstance(b, ToolResult) for b in message.blocks)
            and not {"meta", SUMMARY_TAG, "compact_summary"} & set(message.tags))


def _recent_user_turns(source: Sequence[Message], start: int, budget: float,
                       measure: Callable[[Message], float]) -> list[Message]:
    """The most recent plain user messages after ``start`` (no tool results, no client context, no
    earlier summary), newest last, within ``budget`` tokens; the first that does not fit is cut to
    what is left and the walk stops (Codex ``build_compacted_history_with_limit``, compact.rs
    @0100b103)."""
    kept: list[Message] = []
    left = budget
    for message in reversed(source[start:]):
        if left <= 0:
            break
        if not _plain_user(message):
            continue
        cost = measure(message)
        if cost <= left:
            kept.append(message)
            left -= cost
            continue
        text = message.text
        share = max(0.0, left / cost) if cost else 0.0
        cut = text[:int(len(text) * share)]
        kept.append(replace(message, id=f"{message.id}-cut", blocks=(
            Text(f"{cut}\n[…{round(cost - left):,} tokens truncated]"),)))
        break
    return kept[::-1]


def _share_split(source: Sequence[Message], keep: float) -> int:
    """Where to split so that about the last ``keep`` share of the characters stays: at the first
    plain user message past the rest (Gemini CLI ``findCompressSplitPoint``: the split falls at a
    user message that is no function response; if none, everything is compressed when the history
    ends in a model turn without calls, else at the last such message)."""
    sizes = [sum(len(block_text(b)) for b in m.blocks) for m in source]
    goal = sum(sizes) * (1 - keep)
    last = 0
    running = 0
    for i, message in enumerate(source):
        if message.role == "user" and not any(isinstance(b, ToolResult) for b in message.blocks):
            if running >= goal:
                return i
            last = i
        running += sizes[i]
    end = source[-1] if source else None
    if end is not None and end.role == "assistant" and not any(isinstance(b, ToolUse) for b in end.blocks):
        return len(source)
    return last


def truncate_old_results(messages: Sequence[Message], budget_tokens: int, *, lines: int = 30) -> list[Message]:
    """Gemini CLI's reverse budget: tool results newest first; once ``budget_tokens`` (chars/4) of
    them are counted, every older result is cut to its last ``lines`` lines
    (``truncateHistoryToBudget``, chatCompressionService.ts @02b2885c)."""
    out = list(messages)
    used = 0.0
    for i in range(len(out) - 1, -1, -1):
        blocks = list(out[i].blocks)
        changed = False
        for j in range(len(blocks) - 1, -1, -1):
            block = blocks[j]
            if not isinstance(block, ToolResult):
                continue
            cost = len(block.output) / 4
            if used + cost <= budget_tokens:
                used += cost
                continue
            kept = "\n".join(block.output.splitlines()[-lines:])
            note = f"[output cut by compaction to its last {lines} lines]\n{kept}"
            if len(note) < len(block.output):
                blocks[j] = replace(block, output=note)
                changed = True
            used += len(note) / 4
        if changed:
            out[i] = replace(out[i], blocks=tuple(blocks))
    return out


def summarize(history: History, summariser: Summariser, *, head: int = 0, tail: int = 2,
              budget_chars: int = 8000, keep_user_tokens: float | None = None,
              measure: Callable[[Message], float] | None = None, keep_share: float | None = None,
              tool_budget_tokens: int | None = None,
              reinject: Callable[[Sequence[Message]], Message | None] | None = None,
              acknowledge: str | None = None) -> Step:
    """Replace the middle by one user message holding a summary of it.

    The keyword arguments after ``budget_chars`` reproduce particular clients' shapes; without them
    the ``head`` and ``tail`` messages stay as they are around the summary.

    Args:
        history: The history to compact.
        summariser: What writes the summary (``toolkit.compaction.summariser``).
        head: Messages kept as they are at the start.
        tail: Messages kept as they are at the end.
        budget_chars: The character budget the summariser is given.
        keep_user_tokens: Codex's shape: the client's leading context stays, everything after it is
            summarised, and only the most recent plain user messages, up to this many tokens, are
            kept, before the summary, which comes last.
        measure: A message's tokens; needed with ``keep_user_tokens``.
        keep_share: Gemini CLI's shape: this last share of the history, by characters, stays after
            the summary and a model turn saying ``acknowledge``.
        tool_budget_tokens: Gemini CLI's reverse budget, applied first: once this many tokens
            (chars/4) of tool results, newest first, are counted, every older result is cut to its
            last lines (``truncate_old_results``).
        reinject: What a client attaches after the summary (Claude Code's recently read files).
        acknowledge: The model turn that follows the summary in Gemini CLI's shape.

    Returns:
        The new history and what was removed (``None``: nothing to remove).

    Raises:
        InvalidInput: ``keep_user_tokens`` is given without ``measure``."""
    source = history.source()
    if tool_budget_tokens is not None:
        source = truncate_old_results(source, tool_budget_tokens)
    if keep_user_tokens is not None:
        head, tail = _leading_context(source), 0
    elif keep_share is not None:
        tail = len(source) - _share_split(source, keep_share)
    head_end, tail_start = pair_safe_bounds(source, head, tail)
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
    extra = reinject(middle) if reinject is not None else None
    between = [extra] if extra is not None else []
    if acknowledge is not None:
        between.append(Message(id=f"{note.id}-ack", parent_id=None, role="assistant", blocks=(Text(acknowledge),),
                               time=note.time, tags=(MARKER_TAG,)))
    if keep_user_tokens is not None:
        messages = _linked([*source[:head_end], *kept_after, note])
    else:
        messages = _linked([*source[:head_end], note, *between, *kept_after])
    removed = [m for m in source[head_end:] if m not in kept_after] if keep_user_tokens is not None else middle
    chars = sum(len(block_text(b)) for m in removed for b in m.blocks)
    return Step(
        History(messages, {}, {}),
        Removal("summarize", len(removed), len(removed), chars, summary_chars=len(summary.text),
                first_changed=_first_changed(history.messages, messages)),
        summary,
    )


def _linked(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The messages with each one's parent the one before it (the compacted history is a path)."""
    out = list(messages)
    for i in range(1, len(out)):
        if out[i].parent_id != out[i - 1].id:
            out[i] = replace(out[i], parent_id=out[i - 1].id)
    return tuple(out)


def unpaired(messages: Sequence[Message]) -> list[str]:
    """Why a history cannot be sent: each call without a result and each result without its call."""
    calls = {b.id for m in messages for b in m.blocks if isinstance(b, ToolUse)}
    results = {b.tool_use_id for m in messages for b in m.blocks if isinstance(b, ToolResult)}
    return ([f"call {c} has no result" for c in sorted(calls - results)]
            + [f"result {r} has no call" for r in sorted(results - calls)])
