"""A session tree laid out for reading: as indented text (``toolkit tree``) and as lanes for a
chart (the tip's path runs along the first lane, every other branch gets a lane of its own)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from toolkit.record import Image, Message, Opaque, Reasoning, Session, Text, ToolResult, ToolUse
from toolkit.transcripts.resume import Checkpoint
from toolkit.transcripts.turns import is_turn_start

if TYPE_CHECKING:
    import altair as alt
    import polars as pl

ID_WIDTH = 8
"""Characters of a message id shown, grown until every shown id in the session is unique."""


@dataclass(frozen=True, slots=True)
class Node:
    """One message placed in the tree."""

    index: int
    """Position in ``Session.messages``."""
    message: Message
    parent: int | None
    """Index of the parent node (``None`` for a root: no parent, or one the session lacks)."""
    depth: int
    """Distance from the root of its tree."""
    lane: int
    """Branch lane: 0 is the tip's path; a new lane starts at every further child of a branch point."""
    children: int
    on_path: bool
    tip: bool
    checkpoints: tuple[str, ...]
    unreachable: bool = False
    """Part of a parent cycle, so no root leads to it; laid out as a root so it is not lost."""


def layout(session: Session, checkpoints: Iterable[Checkpoint] = ()) -> list[Node]:
    """Every message of the session once, depth first from each root, the child leading to the tip
    first.

    Repeated ids (a source that wrote a message twice) are kept as separate nodes; children hang
    under the first message of an id, as ``Session.get`` resolves it.

    Args:
        session: The session.
        checkpoints: Checkpoints to mark.

    Returns:
        One node per message, with its depth and lane."""
    messages = session.messages
    first: dict[str, int] = {}
    for i, m in enumerate(messages):
        first.setdefault(m.id, i)
    kids: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, m in enumerate(messages):
        parent = first.get(m.parent_id) if m.parent_id is not None else None
        if parent is None or parent == i:
            roots.append(i)
        else:
            kids.setdefault(parent, []).append(i)
    path = {first[m.id] for m in session.path() if m.id in first}
    tip = first.get(session.tip) if session.tip is not None else None
    marks: dict[str, list[str]] = {}
    for mark in checkpoints:
        marks.setdefault(mark.message_id, []).append(mark.name)
    order: list[Node] = []
    placed: set[int] = set()
    next_lane = 0

    def walk(root: int, unreachable: bool) -> None:
        nonlocal next_lane
        stack: list[tuple[int, int | None, int, int]] = [(root, None, 0, next_lane)]
        next_lane += 1
        while stack:
            index, parent, depth, lane = stack.pop()
            placed.add(index)
            children = [k for k in sorted(kids.get(index, []), key=lambda k: (k not in path, k)) if k not in placed]
            message = messages[index]
            names = marks.get(message.id, []) if first[message.id] == index else []
            order.append(Node(index, message, parent, depth, lane, len(children), index in path, index == tip,
                              tuple(names), unreachable))
            lanes = [lane, *range(next_lane, next_lane + len(children) - 1)][: len(children)]
            next_lane += max(len(children) - 1, 0)
            for child, child_lane in reversed(list(zip(children, lanes, strict=True))):
                stack.append((child, index, depth + 1, child_lane))

    for root in sorted(roots, key=lambda r: (r not in path, r)):
        walk(root, False)
    for index in range(len(messages)):
        if index not in placed:
            walk(index, True)
    return order


def summary(message: Message, width: int = 60) -> str:
    """A message in one line: its words, then what else it carries (calls, results, images)."""
    words = " ".join(message.text.split())
    extras: list[str] = []
    for block in message.blocks:
        match block:
            case Text():
                pass
            case ToolUse():
                extras.append(f"→{block.name}")
            case ToolResult():
                extras.append("✗result" if block.is_error else "result")
                if block.images:
                    extras.append(f"{len(block.images)} image(s)")
            case Reasoning():
                extras.append("thinking")
            case Image():
                extras.append("image")
            case Opaque():
                extras.append(f"opaque:{block.type}")
            case _:
                assert_never(block)
    line = words + (" " if words and extras else "") + (f"[{' '.join(_squash(extras))}]" if extras else "")
    return line if len(line) <= width else line[: max(width - 1, 0)] + "…"


def _squash(items: Sequence[str]) -> list[str]:
    """``a a a b`` → ``a×3 b``: a message with many results stays one short line."""
    out: list[str] = []
    for item in items:
        if out and (out[-1] == item or out[-1].startswith(item + "×")):
            head, _, times = out[-1].partition("×")
            out[-1] = f"{head}×{int(times or 1) + 1}"
        else:
            out.append(item)
    return out


def short_ids(session: Session) -> dict[str, str]:
    """Message id → the shortest prefix (at least ``ID_WIDTH`` characters) unique in the session."""
    ids = sorted({m.id for m in session.messages})
    width = ID_WIDTH
    while len({i[:width] for i in ids}) < len(ids) and width < max((len(i) for i in ids), default=0):
        width += 1
    return {i: i[:width] for i in ids}


def tree_text(session: Session, checkpoints: Iterable[Checkpoint] = (), *, width: int = 100,
           collapse: int | None = None) -> str:
    """The tree as text: one line per message (``*`` on the tip's path, role, id, summary), nested only
    where a message has several children, the tip and checkpoints marked.

    Args:
        session: The session.
        checkpoints: Checkpoints to mark.
        width: The longest line, in characters.
        collapse: Show a straight run of more than this many unmarked messages as its count.

    Returns:
        The text, one line per message or collapsed run."""
    marks = list(checkpoints)
    nodes = layout(session, marks)
    kids: dict[int, list[Node]] = {}
    for node in nodes:
        if node.parent is not None:
            kids.setdefault(node.parent, []).append(node)
    ids = short_ids(session)
    leaves = sum(1 for n in nodes if n.children == 0)
    lines = [f"session {session.id} ({session.format}) · {len(session.messages)} messages · {leaves} leaves"
             f" · tip {ids.get(session.tip, session.tip) if session.tip else 'none'}"]
    for mark in marks:
        lines.append(f"  checkpoint {mark.name!r} → {ids.get(mark.message_id, mark.message_id)}")

    def line(node: Node, prefix: str) -> str:
        m = node.message
        tags = "".join(f"  ⚑ {name}" for name in node.checkpoints)
        if node.tip:
            tags += "  ◀ tip"
        if node.unreachable:
            tags += "  (parent cycle)"
        head = f"{prefix}{'*' if node.on_path else ' '} {m.role:<9} {ids[m.id]}  "
        room = max(width - len(head) - len(tags), 10)
        return head + summary(m, room) + tags

    def plain(node: Node) -> bool:
        return node.children == 1 and not node.tip and not node.checkpoints

    stack: list[tuple[Node, str, str]] = [(n, "", "") for n in reversed(nodes) if n.parent is None]
    while stack:
        node, first, rest = stack.pop()
        lines.append(line(node, first))
        children = kids.get(node.index, [])
        if len(children) == 1 and collapse is not None:
            run: list[Node] = []
            nxt = children[0]
            while plain(nxt):
                run.append(nxt)
                nxt = kids[nxt.index][0]
            if len(run) > collapse:
                lines.append(f"{rest}  ┆ … {len(run)} messages …")
                children = [nxt]
        if len(children) == 1:
            stack.append((children[0], rest, rest))
            continue
        for position, child in reversed(list(enumerate(children))):
            last = position == len(children) - 1
            stack.append((child, rest + ("└─" if last else "├─"), rest + ("  " if last else "│ ")))
    return "\n".join(lines)


def frame(session: Session, checkpoints: Iterable[Checkpoint] = ()) -> pl.DataFrame:
    """The layout as a polars frame.

    Args:
        session: The session.
        checkpoints: Checkpoints to mark.

    Returns:
        Columns: message_id, parent_id, role, depth, lane, parent_depth, parent_lane, on_path, tip,
        checkpoint (names joined, ``None`` if none), children, turn_start (a user prompt: where a
        resume may cut), text."""
    import polars as pl

    nodes = layout(session, checkpoints)
    by_index = {n.index: n for n in nodes}
    records = []
    for n in nodes:
        parent = by_index.get(n.parent) if n.parent is not None else None
        records.append({
            "message_id": n.message.id, "parent_id": n.message.parent_id, "role": n.message.role,
            "depth": n.depth, "lane": n.lane, "parent_depth": None if parent is None else parent.depth,
            "parent_lane": None if parent is None else parent.lane, "on_path": n.on_path, "tip": n.tip,
            "checkpoint": ", ".join(n.checkpoints) or None, "children": n.children,
            "turn_start": is_turn_start(n.message),
            "text": summary(n.message, 80),
        })
    schema = {"message_id": pl.String, "parent_id": pl.String, "role": pl.String, "depth": pl.Int64,
              "lane": pl.Int64, "parent_depth": pl.Int64, "parent_lane": pl.Int64, "on_path": pl.Boolean,
              "tip": pl.Boolean, "checkpoint": pl.String, "children": pl.Int64, "turn_start": pl.Boolean,
              "text": pl.String}
    return pl.DataFrame(records, schema=schema)


def chart(session: Session, checkpoints: Iterable[Checkpoint] = (), *, width: int = 900) -> alt.LayerChart:
    """The tree drawn with altair: messages by depth (x) and branch lane (y), coloured by role, turn
    starts larger, edges to their parents, the tip's path bold, the tip ringed, checkpoints flagged.

    Args:
        session: The session.
        checkpoints: Checkpoints to flag.
        width: The chart's width in pixels.

    Returns:
        The chart."""
    import altair as alt

    from toolkit.axes import count_axis

    data = frame(session, checkpoints)
    lanes = int(data["lane"].n_unique()) if data.height else 1
    height = min(max(40 * lanes, 120), 600)
    base = alt.Chart(data).encode(
        x=alt.X("depth:Q", title="depth (messages from the root)", axis=count_axis(),
                scale=alt.Scale(padding=14, nice=False)),
        y=alt.Y("lane:Q", title="branch lane", scale=alt.Scale(reverse=True, padding=14, nice=False),
                axis=alt.Axis(values=list(range(lanes)), format="d")),
    )
    edges = alt.Chart(data.filter(data["parent_depth"].is_not_null())).mark_rule().encode(
        x="parent_depth:Q", y="parent_lane:Q", x2="depth:Q", y2="lane:Q",
        strokeWidth=alt.condition("datum.on_path", alt.value(2.5), alt.value(1)),
        color=alt.condition("datum.on_path", alt.value("#333"), alt.value("#bbb")),
    )
    nodes = base.mark_circle(opacity=0.9).encode(
        color=alt.Color("role:N", scale=alt.Scale(domain=["system", "user", "assistant", "tool"])),
        size=alt.condition("datum.turn_start", alt.value(130), alt.value(45)),
        tooltip=["message_id", "role", "depth", "lane", "text", "checkpoint"],
    )
    tip = base.transform_filter("datum.tip").mark_point(size=260, shape="circle", strokeWidth=2.5,
                                                         color="crimson")
    flags = base.transform_filter("datum.checkpoint != null").mark_point(
        shape="triangle-down", size=140, color="darkorange", filled=True, yOffset=-12)
    labels = base.transform_filter("datum.checkpoint != null").mark_text(
        dy=-24, color="darkorange", fontSize=11).encode(text="checkpoint:N")
    layered = alt.LayerChart(layer=[edges, nodes, tip, flags, labels]).properties(
        width=width, height=height, title=f"session {session.id}: {len(session.messages)} messages, tip ringed")
    return layered
