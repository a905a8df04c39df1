"""The record as rows of the transcript store and back, field for field.

Block content goes through ``toolkit.codec`` (the one serialisation of the kinds); this module
adds only what the tables need beside it: the columns SQL queries use (call ids, tool names,
usage, roles) and a JSON text encoding that loses nothing (NaN, integers beyond 64 bits, lone
surrogates), so a stored session compares equal to the one that was added."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, NamedTuple, assert_never, cast

from toolkit import codec
from toolkit.errors import InvalidInput
from toolkit.record import (
    BLOCK_KINDS,
    EVENT_KINDS,
    ROLES,
    Block,
    Event,
    EventKind,
    Image,
    JsonValue,
    Message,
    Opaque,
    Reasoning,
    Role,
    RunConfig,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    packed,
)
from toolkit.surface import fingerprint


def dumps(value: object) -> str:
    """JSON text that reads back to an equal value. The standard library's encoder keeps NaN,
    infinities and integers of any size (orjson turns NaN into null and big integers into floats);
    a lone surrogate, which SQLite cannot store as UTF-8, is written as a ``\\u`` escape."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text


def loads(text: str) -> Any:
    return json.loads(text)


def _source(file: str | None, line: int | None) -> SourceRef | None:
    return None if file is None else SourceRef(file, line)


def content_hash(text: str) -> str:
    """Key of a stored system prompt: ``sha256:<hex>`` of its UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class BlockKeys(NamedTuple):
    """The columns of a block row that queries use; everything else is in the JSON body."""

    call_id: str | None
    tool_name: str | None
    images: tuple[str, ...]
    """sha256 of every image the block names (bytes live once in the ``images`` table)."""


def block_keys(block: Block) -> BlockKeys:
    match block:
        case Text() | Reasoning() | Opaque():
            return BlockKeys(None, None, ())
        case ToolUse():
            return BlockKeys(block.id, block.name, ())
        case ToolResult():
            return BlockKeys(block.tool_use_id, block.name,
                             tuple(i.sha256 for i in block.images if i.sha256 is not None))
        case Image():
            return BlockKeys(None, None, () if block.sha256 is None else (block.sha256,))
        case _:
            assert_never(block)


MESSAGE_COLUMNS = (
    "session_id", "seq", "id", "parent_id", "role", "time", "model", "provider", "has_usage",
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "sidechain", "tags",
    "source_file", "source_line",
)
BLOCK_COLUMNS = ("session_id", "message_seq", "position", "kind", "call_id", "tool_name", "body")
EVENT_COLUMNS = (
    "session_id", "seq", "kind", "type", "time", "message_id", "text", "raw", "source_file", "source_line",
    "tokens_before", "trigger",
)
RUN_CONFIG_COLUMNS = (
    "session_id", "seq", "message_id", "model", "provider", "system_hash", "tool_names", "surface_hash",
    "tools_hash", "time", "source_file", "source_line",
)


def insert_sql(table: str, columns: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def message_row(session_id: str, seq: int, message: Message) -> tuple[object, ...]:
    usage = message.usage or Usage()
    source = message.source
    return (
        session_id, seq, message.id, message.parent_id, message.role, codec.encode_time(message.time), message.model,
        message.provider, int(message.usage is not None), usage.input, usage.output, usage.cache_read,
        usage.cache_write, int(message.sidechain), dumps(list(message.tags)),
        None if source is None else source.file, None if source is None else source.line,
    )


def block_rows(session_id: str, seq: int, message: Message) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for position, block in enumerate(message.blocks):
        keys = block_keys(block)
        rows.append((session_id, seq, position, block.kind, keys.call_id, keys.tool_name,
                     dumps(codec.encode_block(block))))
    return rows


def message_from_row(row: Sequence[Any], blocks: Sequence[Block]) -> Message:
    """``row`` holds the columns of ``MESSAGE_COLUMNS`` from ``id`` on."""
    (id_, parent_id, role, time, model, provider, has_usage, inp, out, cache_read, cache_write, sidechain,
     tags, source_file, source_line) = row
    if role not in ROLES:
        raise InvalidInput(f"stored message {id_!r} has unknown role {role!r}")
    return Message(
        id=id_, parent_id=parent_id, role=cast(Role, role), blocks=tuple(blocks), time=codec.decode_time(time),
        model=model, provider=provider,
        usage=Usage(inp, out, cache_read, cache_write) if has_usage else None,
        source=_source(source_file, source_line), sidechain=bool(sidechain), tags=tuple(loads(tags)),
    )


def block_from_row(kind: str, body: str) -> Block:
    if kind not in BLOCK_KINDS:
        raise InvalidInput(f"stored block has unknown kind {kind!r}")
    block = codec.decode_block(loads(body))
    if block.kind != kind:
        raise InvalidInput(f"stored block row says {kind!r} but its body holds {block.kind!r}")
    return block


def event_row(session_id: str, seq: int, event: Event) -> tuple[object, ...]:
    source = event.source
    return (session_id, seq, event.kind, event.type, codec.encode_time(event.time), event.message_id, event.text,
            dumps(event.raw), None if source is None else source.file, None if source is None else source.line,
            event.tokens_before, event.trigger)


def event_from_row(row: Sequence[Any]) -> Event:
    """``row`` holds the columns of ``EVENT_COLUMNS`` from ``kind`` on."""
    kind, type_, time, message_id, text, raw, source_file, source_line, tokens_before, trigger = row
    if kind not in EVENT_KINDS:
        raise InvalidInput(f"stored event has unknown kind {kind!r}")
    return Event(kind=cast(EventKind, kind), type=type_, time=codec.decode_time(time), message_id=message_id,
                 text=text, raw_json=packed(loads(raw)), source=_source(source_file, source_line), tokens_before=tokens_before,
                 trigger=trigger)


class RunConfigRows(NamedTuple):
    row: tuple[object, ...]
    prompt: tuple[str, str] | None
    """(hash, text) for the ``prompts`` table: a system prompt is stored once however often sent."""
    surface: tuple[str, str] | None
    """(hash, JSON) for the ``surfaces`` table: a tool list is stored once by its fingerprint."""


def run_config_rows(session_id: str, seq: int, config: RunConfig) -> RunConfigRows:
    prompt = None if config.system is None else (content_hash(config.system), config.system)
    surface = None if config.tools is None else (fingerprint(config.tools), dumps(list(config.tools)))
    source = config.source
    row = (session_id, seq, config.message_id, config.model, config.provider,
           None if prompt is None else prompt[0], dumps(list(config.tool_names)), config.surface_hash,
           None if surface is None else surface[0], codec.encode_time(config.time),
           None if source is None else source.file, None if source is None else source.line)
    return RunConfigRows(row, prompt, surface)


def run_config_from_row(row: Sequence[Any]) -> RunConfig:
    """``row`` holds ``message_id, model, provider, system text, tool_names, surface_hash, tools JSON,
    time, source_file, source_line`` (the prompt and surface joined in)."""
    message_id, model, provider, system, tool_names, surface_hash, tools, time, source_file, source_line = row
    tool_list: list[JsonValue] | None = None if tools is None else loads(tools)
    return RunConfig(model=model, provider=provider, system=system, tool_names=tuple(loads(tool_names)),
                     surface_hash=surface_hash, tools=None if tool_list is None else tuple(tool_list),
                     message_id=message_id, time=codec.decode_time(time), source=_source(source_file, source_line))
