"""Snapshot compaction: head and tail verbatim, the middle as pages, always from the source text."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from io import BytesIO

import pytest
from PIL import Image

from toolkit.record import Image as ImageBlock
from toolkit.record import Message, Reasoning, Text, ToolResult, ToolUse
from toolkit.snapshot.compact import SNAPSHOT_TAG, Compacted, compact, label, message_text, resnap, tool_names
from toolkit.snapshot.font import load
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.render import decode, render

GEOMETRY = Geometry("4x6", 600, 400, columns=2)


def history() -> list[Message]:
    t = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)

    def msg(i: int, role: str, *blocks: object) -> Message:
        return Message(f"m{i}", f"m{i - 1}" if i else None, role, tuple(blocks), time=t)  # type: ignore[arg-type]

    return [
        msg(0, "user", Text("Task: fix the failing test.\nConstraint: do not touch the API.")),
        msg(1, "assistant", Text("Looking."), ToolUse("c1", "mcp__fs__read", {"path": "a.py"})),
        msg(2, "user", ToolResult("c1", "def f():\n\treturn 1  ")),
        msg(3, "assistant", Reasoning("The test expects 2."), ToolUse("c2", "Bash", {"command": "pytest -q"})),
        msg(4, "user", ToolResult("c2", "1 failed", is_error=True)),
        msg(5, "assistant", Text("Changing the return value. Привіт ✓")),
        msg(6, "user", Text("ok"), ImageBlock("image/png", "ab" * 32, 100, 10, 10)),
        msg(7, "assistant", ToolUse("c3", "Bash", {"command": "pytest -q"})),
        msg(8, "user", ToolResult("c3", "1 passed")),
        msg(9, "assistant", Text("Done.")),
    ]


def test_prose_form_of_every_block() -> None:
    messages = history()
    names = tool_names(messages)
    assert message_text(messages[1], names) == 'Looking.\nTool use: read({"path":"a.py"})'
    assert message_text(messages[2], names) == "Result (read): def f():\n\treturn 1  "
    assert message_text(messages[4], names) == "Error (Bash): 1 failed"
    assert message_text(messages[3], names).startswith("[Reasoning]: The test expects 2.\nTool use: Bash(")
    assert "[image not seen:" in message_text(messages[6], names)
    assert label(messages[0]) == "user · 2025-03-01 09:00 · m0"


def test_middle_becomes_pages_and_head_and_tail_stay_verbatim() -> None:
    messages = history()
    done = compact(messages, head=1, tail=2, geometry=GEOMETRY)
    # head=1 would part call c1 (m1) from nothing, but tail=2 starts at m8, whose call c3 is in m7:
    # the tail moves back to m7 so the pair stays together.
    assert done.messages[0] is messages[0]
    assert [m.id for m in done.messages[2:]] == ["m7", "m8", "m9"]
    snapshot = done.messages[1]
    assert snapshot.role == "user" and SNAPSHOT_TAG in snapshot.tags
    assert snapshot.parent_id == "m0" and done.messages[2].parent_id == snapshot.id
    caption, *pages = snapshot.blocks
    assert isinstance(caption, Text)
    assert "Snapshot of 6 earlier messages (m1, m2, m3, m4, m5, m6)" in caption.text
    assert f"{len(done.pages)} page image" in caption.text and f"{done.chars} characters" in caption.text
    assert len(pages) == len(done.pages) and done.chars == sum(len(message_text(m, tool_names(messages)))
                                                               for m in messages[1:7])
    for block in pages:
        assert isinstance(block, ImageBlock)
        data = done.images[block.sha256 or ""]
        assert hashlib.sha256(data).hexdigest() == block.sha256 and block.size == len(data)
        with Image.open(BytesIO(data)) as image:
            assert image.size == GEOMETRY.size and image.mode == "1"


def test_pages_decode_to_the_middle_messages() -> None:
    messages = history()
    done = compact(messages, head=1, tail=3, geometry=GEOMETRY)
    font = load(GEOMETRY.cell)
    images = [Image.open(BytesIO(done.images[b.sha256 or ""])) for b in done.messages[1].blocks[1:]
              if isinstance(b, ImageBlock)]
    decoded = decode(images, GEOMETRY)
    names = tool_names(messages)
    assert decoded.turns == tuple((label(m), font.fold(message_text(m, names))) for m in messages[1:7])


def test_a_head_that_would_part_a_call_from_its_result_grows() -> None:
    done = compact(history(), head=2, tail=1, geometry=GEOMETRY)
    assert done.head == 3  # m1 calls c1, answered in m2
    assert [m.id for m in done.messages[:3]] == ["m0", "m1", "m2"]


def test_compacting_twice_renders_again_from_the_source_text() -> None:
    messages = history()
    once = compact(messages, head=1, tail=2, geometry=GEOMETRY)
    twice = compact(once, head=1, tail=2, geometry=GEOMETRY)
    assert twice.images == once.images
    assert twice.messages == once.messages
    assert once.expanded() == messages


def test_a_snapshot_without_its_source_is_refused() -> None:
    once = compact(history(), head=1, tail=2, geometry=GEOMETRY)
    with pytest.raises(ValueError, match="source messages are not known"):
        compact(list(once.messages), head=1, tail=2, geometry=GEOMETRY)


def test_nothing_to_compact_returns_the_history() -> None:
    messages = history()[:3]
    done = compact(messages, head=2, tail=2, geometry=GEOMETRY)
    assert isinstance(done, Compacted) and list(done.messages) == messages and not done.images


def test_resnapping_from_pixels_loses_a_generation_each_pass() -> None:
    text = "Every re-snap of an image degrades its glyphs by one generation.\n" * 20
    page = render(text, Geometry("5x8", 600, 300))[0]
    lossless = resnap(page, "claude-sonnet-4.5", passes=2)
    assert [g.accuracy for g in lossless] == [1.0, 1.0, 1.0]
    lossy = resnap(page, scale=0.85, passes=3)
    accuracies = [g.accuracy for g in lossy]
    assert accuracies[0] == 1.0
    assert accuracies[1] < 1.0
    assert accuracies[3] < accuracies[1]
    assert lossy[3].lost
    assert compact(history(), head=1, tail=2, geometry=GEOMETRY).pages[0].png() == \
        compact(history(), head=1, tail=2, geometry=GEOMETRY).pages[0].png()
