"""What the wire parsers (``openai_chat``, ``anthropic_messages``, ``gemini_contents``) share, and
what importers that embed their shapes (Codex, Gemini CLI, SWE-agent) use of it: where a body sits
(``Where``) and where a conversation read from it starts (``Origin``), the request and wire types, the
call book that pairs results with calls, and the helpers that build messages, blocks and run configs.

It sits below the parsers and imports none of them; the recording importer sits above them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, assert_never

from toolkit.corpus.formats.importer import ImportContext, parse_arguments
from toolkit.corpus.formats.shapes import surface_hash
from toolkit.record import (
    Block,
    Image,
    JsonValue,
    Message,
    Opaque,
    Reasoning,
    RunConfig,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
)

JsonObj = dict[str, Any]


@dataclass(frozen=True)
class Where:
    """Where a body sits: its file, the import context, the body's line and, when the source
    gives them (YAML cassettes), the line of each item of its message list."""

    file: str | Path
    ctx: ImportContext
    line: int | None = None
    lines: Sequence[int | None] | None = None

    def at(self, index: int) -> int | None:
        """Line of item ``index``: its own line, else the body's, else ``index + 1`` (the record's
        convention for whole-file JSON arrays)."""
        if self.lines is not None and 0 <= index < len(self.lines):
            return self.lines[index]
        return self.line if self.line is not None else index + 1

    @cached_property
    def name(self) -> str:
        return self.ctx.name(self.file)

    def source(self, line: int | None) -> SourceRef:
        return SourceRef(self.name, line)

    def problem(self, line: int | None, reason: str) -> None:
        self.ctx.problem(self.file, line, reason)


@dataclass(frozen=True, kw_only=True)
class Origin(Where):
    """Where a conversation read from a body starts, one value for every parser's entry point:
    besides where the body sits, its messages' ids (``<id_prefix>:<first_index + i>``, the first
    chained under ``parent_id``), who spoke (``model`` and ``provider`` label the assistant's
    messages and sign their reasoning; a body that names its model wins, and a parser given no
    provider uses its wire's own, except Chat Completions, which every OpenAI-compatible server
    speaks), and the earlier messages (``history``) whose calls these may answer."""

    id_prefix: str
    first_index: int = 0
    parent_id: str | None = None
    model: str | None = None
    provider: str | None = None
    history: Sequence[Message] = ()


@dataclass(frozen=True)
class ParsedRequest:
    """A request body read into the record."""

    messages: list[Message]
    """The conversation it carried, parents chained root first."""
    config: RunConfig
    next_index: int
    """The index the reply takes in the ``<prefix>:<index>`` id scheme."""


class RequestParser(Protocol):
    """Reads a request body; the origin's ``model`` is the model the URL names, for wires whose
    body does not (Gemini, Vertex), and its ``provider`` the host that served the call."""

    def __call__(self, body: JsonObj, origin: Origin) -> ParsedRequest: ...


class ResponseParser(Protocol):
    def __call__(
        self, body: JsonObj, where: Where, *, message_id: str, provider: str | None = None,
        time: datetime | None = None,
    ) -> list[Message]: ...


@dataclass(frozen=True)
class Wire:
    """One provider wire: how its request and response bodies read into the record."""

    name: str
    """``openai_chat``, ``openai_responses``, ``anthropic`` or ``gemini``."""
    format: str
    """The importer whose format a bare body of this wire is."""
    provider: str
    parse_request: RequestParser
    parse_response: ResponseParser
    merge_stream: Callable[[list[JsonObj]], JsonObj]
    """Streamed events (SSE ``data`` objects or JSON-array chunks) folded into one response body."""


class CallBook:
    """The tool calls of one conversation so far, so each result finds its call: by id where the
    wire gives one, else (Gemini without ids, legacy OpenAI functions, Ollama) the oldest
    unanswered call of the same name."""

    def __init__(self, history: Iterable[Message] = ()) -> None:
        self.ids: set[str] = set()
        self.pending: dict[str, str] = {}
        """Unanswered call id → tool name, oldest first."""
        for message in history:
            for block in message.blocks:
                match block:
                    case ToolUse():
                        self.call(block.id, block.name)
                    case ToolResult():
                        self.answer(block.tool_use_id, block.name)
                    case Text() | Reasoning() | Image() | Opaque():
                        pass
                    case _:
                        assert_never(block)

    def call(self, call_id: str, name: str) -> None:
        self.ids.add(call_id)
        self.pending[call_id] = name

    def answer(self, call_id: str | None, name: str | None, *, by_name: bool = False) -> str | None:
        """The id of the call a result answers, or ``None`` when no earlier call matches. With
        ``by_name`` a result whose id names no call still pairs by name and order."""
        if call_id is not None and call_id in self.ids:
            self.pending.pop(call_id, None)
            return call_id
        if call_id is not None and not by_name:
            return None
        for pending_id, pending_name in self.pending.items():
            if name is None or pending_name == name:
                del self.pending[pending_id]
                return pending_id
        return None


def chain(messages: list[Message], parent_id: str | None) -> list[Message]:
    """Each message's parent is the one before it; the first hangs under ``parent_id``."""
    out: list[Message] = []
    parent = parent_id
    for message in messages:
        out.append(message if message.parent_id == parent else replace(message, parent_id=parent))
        parent = message.id
    return out


def after_system(system: list[Message], parent_id: str | None,
                 rest: Callable[[str | None], list[Message]]) -> list[Message]:
    """The request's system messages chained under ``parent_id``, then the conversation ``rest``
    builds under the last of them, so the system prompt is the root the turns hang from."""
    head = chain(system, parent_id)
    return head + rest(head[-1].id if head else parent_id)


def each_message(raws: Sequence[Any], where: Where, prefix: str, first: int, parent: str | None, noun: str,
                 read: Callable[[JsonObj, int, str, str | None], Message]) -> list[Message]:
    """Messages with ids ``<prefix>:<first + i>``, each the child of the one before (the first of
    ``parent``), ``read(raw, i, id, parent)`` from each object; an item that is not an object (a
    ``noun``) is reported and kept as an opaque user message, so the numbering and the chain stay whole."""
    out: list[Message] = []
    for i, raw in enumerate(raws):
        message_id = f"{prefix}:{first + i}"
        if isinstance(raw, dict):
            out.append(read(raw, i, message_id, parent))
        else:
            line = where.at(i)
            where.problem(line, f"{noun} {i + 1} is a JSON {type(raw).__name__}, not an object")
            out.append(Message(message_id, parent, "user", (Opaque(noun, raw, "not an object"),),
                               source=where.source(line)))
        parent = message_id
    return out


class Reporter(Protocol):
    """Whatever an importer reports problems through (``Where``, or an importer's own state)."""

    def problem(self, line: int | None, reason: str) -> None: ...


def unread_keys(raw: JsonObj, key: str, known: frozenset[str], *, optional: bool = False) -> list[str]:
    """The keys of ``raw`` its format does not write, when ``raw`` lacks ``key``: what a record
    holding its ``key`` under a misspelt name (``contnet``) shows. Empty when ``key`` holds a value
    or every key is the format's, as a record that simply has nothing under ``key`` shows.

    A record is often without an ``optional`` key (a reply that calls no tool has no ``toolCalls``),
    and a client's next release adds fields of its own, so there only a key that looks like damage to
    ``key`` counts (``misnamed``), never every field the toolkit has not met yet."""
    if raw.get(key) is not None:
        return []
    odd = [str(k) for k in raw if k not in known]
    return [name for name in odd if misnamed(name, key)] if optional else odd


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
NEAR = 0.8
"""How alike (``difflib.SequenceMatcher.ratio``) a key must be to the one it stands for to count as
that key misspelt: ``contnet`` is 0.86 of ``content``, ``tolCalls`` 0.94 of ``toolCalls``, a field
with a name of its own (``finishReason``) far below."""


LITERALS = frozenset({"null", "true", "false", "None", "True", "False"})
"""What a key that was a JSON or YAML literal reads as once written as a JSON object's key."""


def misnamed(name: str, key: str) -> bool:
    """Whether ``name`` reads as ``key`` damaged: a near spelling of it, or no name at all (``""``,
    ``1``, ``null``: what a corrupted key becomes, never a field a client adds)."""
    import difflib

    if name in LITERALS or not NAME.fullmatch(name):
        return True
    return difflib.SequenceMatcher(None, name.lower(), key.lower()).ratio() >= NEAR


def unread_message(raw: JsonObj, key: str, known: frozenset[str], where: Reporter, line: int | None,
                   noun: str, *, optional: bool = False) -> list[Block]:
    """A message none of whose content was read although it holds keys the wire does not have (its
    content under a misspelt key, ``contnet``): reported and kept whole as an opaque block, as the
    message would otherwise keep its place and lose its words in silence. Empty when the content key
    holds a value or every key is the wire's (``unread_keys``, ``optional`` as there)."""
    odd = unread_keys(raw, key, known, optional=optional)
    if not odd:
        return []
    where.problem(line, f"{noun} without {key} (keys the wire lacks: {', '.join(odd)}); kept as an opaque block")
    return [Opaque(noun, raw, f"no {key}")]


def content_blocks(content: Any, where: Where, line: int | None, noun: str,
                   read: Callable[[JsonObj], list[Block]]) -> list[Block]:
    """A message's content, text or a list of ``noun`` objects (``read`` turns one into blocks), as
    record blocks; a bare string in the list is read as text and reported (no wire writes one: it stands
    where a block was), anything else is reported and kept opaque."""
    if content is None:
        return []
    if isinstance(content, str):
        return [Text(content)] if content else []
    if not isinstance(content, list):
        where.problem(line, f"content is a JSON {type(content).__name__}, neither text nor a list of {noun}s")
        return [Opaque("content", content, f"neither text nor {noun}s")]
    out: list[Block] = []
    for item in content:
        if isinstance(item, str):
            where.problem(line, f"content {noun} is a bare string, not an object; read as text")
            if item:
                out.append(Text(item))
        elif isinstance(item, dict):
            out.extend(read(item))
        else:
            where.problem(line, f"content {noun} is a JSON {type(item).__name__}, not an object; kept as opaque")
            out.append(Opaque(noun, item, "not an object"))
    return out


def body_list(body: JsonObj, key: str, where: Where) -> list[Any]:
    """The request body's conversation under ``key``; a body without that list is reported and read
    as an empty conversation."""
    value = body.get(key)
    if isinstance(value, list):
        return value
    where.problem(where.line, f"request body has no {key} list")
    return []


def tool_use(call_id: str, name: str, arguments: Any, where: Where, line: int | None,
             freeform: bool = False) -> ToolUse:
    """A call whose arguments may be a JSON string (text that is not valid JSON is kept raw and
    reported), an object (Anthropic, Gemini, Ollama, inspect_ai) or absent."""
    if isinstance(arguments, str) and not freeform:
        parsed, raw_input = parse_arguments(arguments)
        if raw_input is not None:
            where.problem(line, f"arguments of tool call {call_id} ({name}) are not valid JSON; kept as text")
        return ToolUse(call_id, name, parsed, raw_input)
    return ToolUse(call_id, name, {} if arguments is None else arguments, freeform=freeform)


def standard_base64(payload: str) -> str:
    """Standard-alphabet, padded base64. Protobuf JSON (the Gemini REST encoding) "accepts either
    standard or URL-safe base64 encoding with/without paddings" for bytes fields
    (https://protobuf.dev/programming-guides/json/, read 2026-11-29), and ``base64.b64decode``
    silently drops characters outside the standard alphabet, so URL-safe text must be mapped."""
    text = "".join(payload.split())
    if "-" in text or "_" in text:
        text = text.replace("-", "+").replace("_", "/")
    return text + "=" * (-len(text) % 4)


def image_base64(where: Where, line: int | None, payload: str, media_type: str | None) -> Image | Opaque:
    return where.ctx.image_base64(standard_base64(payload), media_type, where.file, line)


def run_config(
    *,
    model: str | None,
    provider: str | None,
    system: str | None,
    tools: Sequence[JsonValue] | None,
    tool_names: Sequence[str],
    where: Where,
) -> RunConfig:
    """A request body's configuration. ``tools`` is ``None`` only when no body was recorded; a body
    without tools was sent an empty surface, which is known."""
    return RunConfig(
        model=model,
        provider=provider,
        system=system,
        tool_names=tuple(tool_names),
        surface_hash=None if tools is None else surface_hash(tools, lambda reason: where.problem(where.line, reason)),
        tools=None if tools is None else tuple(tools),
        source=where.source(where.line),
    )


def usage_of(input: int | None, output: int | None, cache_read: int | None, cache_write: int | None) -> Usage | None:
    if input is None and output is None and cache_read is None and cache_write is None:
        return None
    return Usage(input=input, output=output, cache_read=cache_read, cache_write=cache_write)


def result_parts(blocks: Iterable[Block]) -> tuple[str, tuple[Image, ...], list[Block]]:
    """The blocks of a tool result's content as the result's text (text blocks joined by newlines),
    its images, and the blocks that are neither (kept beside the result)."""
    texts: list[str] = []
    images: list[Image] = []
    others: list[Block] = []
    for block in blocks:
        match block:
            case Text():
                texts.append(block.text)
            case Image():
                images.append(block)
            case ToolUse() | ToolResult() | Reasoning() | Opaque():
                others.append(block)
            case _:
                assert_never(block)
    return "\n".join(texts), tuple(images), others
