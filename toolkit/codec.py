"""The record as plain JSON values and back, losslessly: what a saved corpus (Parquet) and the
transcript store (SQLite) write, so no consumer keeps its own serialisation of the kinds."""

from __future__ import annotations

from datetime import datetime
from typing import Any, assert_never, cast

from toolkit.errors import InvalidInput
from toolkit.record import (
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
    Session,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    packed,
)


def encode_time(value: datetime | None) -> str | None:
    """A time as ISO 8601 text, the form every stored copy of the record keeps."""
    return None if value is None else value.isoformat()


def decode_time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _source(ref: SourceRef | None) -> JsonValue:
    return None if ref is None else {"file": ref.file, "line": ref.line}


def _parse_source(value: Any) -> SourceRef | None:
    return None if value is None else SourceRef(value["file"], value.get("line"))


def encode_image(image: Image) -> dict[str, JsonValue]:
    return {"kind": "image", "media_type": image.media_type, "sha256": image.sha256, "size": image.size,
            "width": image.width, "height": image.height, "url": image.url}


def decode_image(d: dict[str, Any]) -> Image:
    return Image(media_type=d["media_type"], sha256=d.get("sha256"), size=d.get("size", 0),
                 width=d.get("width"), height=d.get("height"), url=d.get("url"))


def encode_block(block: Block) -> dict[str, JsonValue]:
    match block:
        case Text():
            return {"kind": "text", "text": block.text}
        case ToolUse():
            return {"kind": "tool_use", "id": block.id, "name": block.name, "input": block.input,
                    "raw_input": block.raw_input, "freeform": block.freeform}
        case ToolResult():
            return {"kind": "tool_result", "tool_use_id": block.tool_use_id, "output": block.output,
                    "is_error": block.is_error, "images": [encode_image(i) for i in block.images],
                    "name": block.name, "detail": block.detail}
        case Reasoning():
            return {"kind": "reasoning", "text": block.text, "signature": block.signature,
                    "provider": block.provider, "model": block.model, "redacted": block.redacted}
        case Image():
            return encode_image(block)
        case Opaque():
            return {"kind": "opaque", "type": block.type, "raw": block.raw, "reason": block.reason}
        case _:
            assert_never(block)


def decode_block(d: dict[str, Any]) -> Block:
    kind = d["kind"]
    if kind == "text":
        return Text(d["text"])
    if kind == "tool_use":
        return ToolUse(id=d["id"], name=d["name"], input=d.get("input"), raw_input=d.get("raw_input"),
                       freeform=bool(d.get("freeform", False)))
    if kind == "tool_result":
        return ToolResult(tool_use_id=d["tool_use_id"], output=d["output"], is_error=bool(d["is_error"]),
                          images=tuple(decode_image(i) for i in d.get("images") or ()),
                          name=d.get("name"), detail_json=packed(d.get("detail")))
    if kind == "reasoning":
        return Reasoning(text=d["text"], signature=d.get("signature"), provider=d.get("provider"),
                         model=d.get("model"), redacted=bool(d.get("redacted", False)))
    if kind == "image":
        return decode_image(d)
    if kind == "opaque":
        return Opaque(type=d["type"], raw=d.get("raw"), reason=d.get("reason", ""))
    raise InvalidInput(f"unknown block kind {kind!r} in stored record")


def encode_usage(usage: Usage | None) -> JsonValue:
    if usage is None:
        return None
    return {"input": usage.input, "output": usage.output, "cache_read": usage.cache_read,
            "cache_write": usage.cache_write}


def decode_usage(d: Any) -> Usage | None:
    if d is None:
        return None
    return Usage(input=d.get("input"), output=d.get("output"), cache_read=d.get("cache_read"),
                 cache_write=d.get("cache_write"))


def encode_message(message: Message) -> dict[str, JsonValue]:
    return {
        "id": message.id, "parent_id": message.parent_id, "role": message.role,
        "blocks": [encode_block(b) for b in message.blocks], "time": encode_time(message.time),
        "model": message.model, "provider": message.provider, "usage": encode_usage(message.usage),
        "source": _source(message.source), "sidechain": message.sidechain, "tags": list(message.tags),
    }


def decode_message(d: dict[str, Any]) -> Message:
    return Message(
        id=d["id"], parent_id=d.get("parent_id"), role=cast(Role, d["role"]),
        blocks=tuple(decode_block(b) for b in d["blocks"]), time=decode_time(d.get("time")),
        model=d.get("model"), provider=d.get("provider"), usage=decode_usage(d.get("usage")),
        source=_parse_source(d.get("source")), sidechain=bool(d.get("sidechain", False)),
        tags=tuple(d.get("tags") or ()),
    )


def encode_event(event: Event) -> dict[str, JsonValue]:
    return {"kind": event.kind, "type": event.type, "time": encode_time(event.time),
            "message_id": event.message_id, "text": event.text, "raw": event.raw,
            "source": _source(event.source), "tokens_before": event.tokens_before, "trigger": event.trigger}


def decode_event(d: dict[str, Any]) -> Event:
    return Event(kind=cast(EventKind, d["kind"]), type=d["type"], time=decode_time(d.get("time")),
                 message_id=d.get("message_id"), text=d.get("text", ""), raw_json=packed(d.get("raw")),
                 source=_parse_source(d.get("source")), tokens_before=d.get("tokens_before"),
                 trigger=d.get("trigger"))


def encode_run_config(config: RunConfig) -> dict[str, JsonValue]:
    return {"model": config.model, "provider": config.provider, "system": config.system,
            "tool_names": list(config.tool_names), "surface_hash": config.surface_hash,
            "tools": None if config.tools is None else list(config.tools),
            "message_id": config.message_id, "time": encode_time(config.time),
            "source": _source(config.source)}


def decode_run_config(d: dict[str, Any]) -> RunConfig:
    tools = d.get("tools")
    return RunConfig(model=d.get("model"), provider=d.get("provider"), system=d.get("system"),
                     tool_names=tuple(d.get("tool_names") or ()), surface_hash=d.get("surface_hash"),
                     tools=None if tools is None else tuple(tools), message_id=d.get("message_id"),
                     time=decode_time(d.get("time")), source=_parse_source(d.get("source")))


def encode_session_header(session: Session) -> dict[str, JsonValue]:
    """Everything about a session except its messages, events and run configs."""
    return {"id": session.id, "format": session.format, "tip": session.tip, "file": session.file,
            "parent_session_id": session.parent_session_id, "spawn_call_id": session.spawn_call_id,
            "title": session.title}


def decode_session(header: dict[str, Any], messages: list[Message], events: list[Event],
                   run_configs: list[RunConfig]) -> Session:
    return Session(id=header["id"], format=header["format"], messages=tuple(messages),
                   tip=header.get("tip"), file=header.get("file") or "",
                   run_configs=tuple(run_configs), events=tuple(events),
                   parent_session_id=header.get("parent_session_id"),
                   spawn_call_id=header.get("spawn_call_id"), title=header.get("title"))
