"""What a message puts in front of a model: the text of each block and the images it carries.

One switch over the record's block kinds, shared by everything that counts or shows a history's
content (the corpus frames and ``toolkit info``, the calibration, the text-against-pages
comparison, the transcript store's resume budget), so a new kind is handled in one place and every
count agrees on what a block sends. It sits beside the record, below the importers and costs alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import assert_never

from toolkit.jsontext import json_text
from toolkit.record import (
    Block,
    Image,
    JsonValue,
    Message,
    Opaque,
    Reasoning,
    Session,
    Text,
    ToolResult,
    ToolUse,
)


def _json(value: JsonValue) -> str:
    """Compact JSON as ``json_text`` writes it; values it refuses (integers beyond 64 bits, lone
    surrogates) through the standard library, which keeps them."""
    try:
        return json_text(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def block_text(block: Block) -> str:
    """The characters a block sends: words, a call's name and arguments as sent, a result's
    output, reasoning that is not redacted, an unparsed block's JSON; nothing for an image."""
    match block:
        case Text():
            return block.text
        case ToolUse():
            body = block.raw_input if block.raw_input is not None else (
                block.input if isinstance(block.input, str) and block.freeform else _json(block.input))
            return f"{block.name}\n{body}"
        case ToolResult():
            return block.output
        case Reasoning():
            return "" if block.redacted else block.text
        case Image():
            return ""
        case Opaque():
            return _json(block.raw)
        case _:
            assert_never(block)


def input_size(block: ToolUse) -> int:
    """Bytes of a call's input as the model wrote it."""
    if block.raw_input is not None:
        return len(block.raw_input.encode("utf-8"))
    if block.freeform and isinstance(block.input, str):
        return len(block.input.encode("utf-8"))
    return len(_json(block.input).encode("utf-8"))


def block_images(block: Block) -> tuple[Image, ...]:
    """The images a block carries: itself, or those attached to a tool result."""
    match block:
        case Image():
            return (block,)
        case ToolResult():
            return block.images
        case Text() | ToolUse() | Reasoning() | Opaque():
            return ()
        case _:
            assert_never(block)


def message_images(message: Message) -> list[Image]:
    return [image for block in message.blocks for image in block_images(block)]


def history_text(messages: Iterable[Message], *, reasoning: bool = False) -> str:
    """The text of ``messages``, one block per paragraph. Reasoning is left out unless asked:
    providers drop the thinking of earlier turns from what they resend."""
    return "\n".join(
        text for message in messages for block in message.blocks
        if (reasoning or not isinstance(block, Reasoning)) and (text := block_text(block))
    )


def session_text(session: Session, *, reasoning: bool = False) -> str:
    """The text a model saw on the session's path (root to tip)."""
    return history_text(session.path(), reasoning=reasoning)
