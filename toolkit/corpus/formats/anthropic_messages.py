"""Anthropic Messages API conversations read into the record.

Documents: a request body (``model``, ``system`` as a string or text blocks, ``messages``, ``tools``),
a bare messages list, a response (``type: message`` with ``content`` and ``usage``), the same one per
JSONL line, and Message Batches lines (``params`` / ``result.message``), read by
``toolkit.corpus.formats.recording``. The ``system`` prompt becomes a ``system`` message at the root (id
``<prefix>:system``) and the run config's system prompt (text blocks joined by a newline).

Blocks: text; image (``base64`` sources stored as bytes, ``url`` sources kept as references, Files API
sources kept opaque); ``tool_use``; ``tool_result`` (content a string or text / image blocks, images
going to ``ToolResult.images``, other blocks kept as opaque blocks after it; ``is_error``); ``thinking``
with its signature and ``redacted_thinking`` (its ``data`` as the signature, ``redacted``), both
signed by provider ``anthropic`` and the model; document and container blocks (``document``,
``container_upload``...) kept as opaque blocks and counted, without a problem. Tool results stay in
``user`` messages, as the wire has them. Unknown block types are kept as opaque and reported.

Server tools (``server_tool_use`` and every ``*_tool_result`` block: web search and fetch, code
execution, bash and text-editor code execution, tool search, advisor; the MCP connector's
``mcp_tool_use`` / ``mcp_tool_result``) are calls and results the provider ran itself, inside one
reply: a ``ToolUse`` (an MCP call named ``mcp__<server_name>__<name>``, as Claude Code names MCP tools)
and a ``ToolResult`` in the same assistant message, the result's readable text as its output and the
whole block as its ``detail`` (encrypted search results and the error codes included). A consumer tells
them from client calls by that: a result in the message that made its call, its ``detail`` naming the
block ``type`` (and the ids Anthropic gives them, ``srvtoolu_`` / ``mcptoolu_``). A replay shows them as
any call and result (the model saw both); none can cross back as a server block, whose tool the replay
would have to declare and whose encrypted content only the provider checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from toolkit.corpus.formats.importer import ImportContext
from toolkit.corpus.formats.shapes import as_int, items, kind_name, obj, shown, text_field, text_of
from toolkit.corpus.formats.wirekit import (
    CallBook,
    JsonObj,
    Origin,
    ParsedRequest,
    Where,
    Wire,
    after_system,
    body_list,
    content_blocks,
    each_message,
    image_base64,
    run_config,
    tool_use,
    unread_message,
    usage_of,
)
from toolkit.jsontext import stringify
from toolkit.record import (
    Block,
    Image,
    Message,
    Opaque,
    Reasoning,
    Role,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    packed,
)

FORMAT = "anthropic"
PROVIDER = "anthropic"

KNOWN_BLOCKS = frozenset({
    "document", "search_result", "container_upload", "compaction", "tool_reference", "browser_state", "fallback",
    "mcp_tool_listing",
})
"""Documented block types the record has no kind for (anthropic 2.16.0 ``ContentBlockParam`` and the
beta blocks): kept as opaque blocks without a problem."""

SERVER_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})
"""Calls the provider runs itself (anthropic 2.16.0 ``ServerToolUseBlock``, names ``web_search``,
``web_fetch``, ``code_execution``, ``bash_code_execution``, ``text_editor_code_execution``,
``tool_search_tool_regex`` / ``_bm25`` and, in beta, ``advisor``; ``BetaMCPToolUseBlock`` with its
``server_name``)."""

SERVER_RESULTS = frozenset({
    "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result", "tool_search_tool_result", "advisor_tool_result", "mcp_tool_result",
})
"""Their results (anthropic 2.16.0 ``ContentBlock`` and ``BetaContentBlock``); a later ``*_tool_result``
type is read the same way (``is_server_result``)."""


def is_server_result(kind: str | None) -> bool:
    return kind is not None and (kind in SERVER_RESULTS or kind.endswith("_tool_result")) and kind != "tool_result"


def server_call_name(block: JsonObj) -> str | None:
    """A server call's tool name; an MCP connector call is ``mcp__<server_name>__<name>``."""
    name = text_of(block.get("name"))
    server = text_of(block.get("server_name"))
    if block.get("type") == "mcp_tool_use" and name is not None and server is not None:
        return f"mcp__{server}__{name}"
    return name


def server_result(block: JsonObj, call_id: str) -> ToolResult:
    """A server tool's result: the words a reader would see as the output, the block as the detail."""
    kind = text_of(block.get("type"))
    output, failed = _server_output(block.get("content"))
    if kind == "mcp_tool_result":
        failed = block.get("is_error") is True
    return ToolResult(call_id, output, is_error=failed, detail_json=packed(block))


def _server_output(content: Any) -> tuple[str, bool]:
    """Readable text of a server result's ``content`` and whether it is an error object (every
    ``*_tool_result_error`` / ``*_tool_error`` carries an ``error_code``)."""
    if isinstance(content, str):
        return content, False
    if isinstance(content, list):
        lines: list[str] = []
        for item in content:
            kind = text_of(item.get("type")) if isinstance(item, dict) else None
            if isinstance(item, dict) and kind == "text":
                lines.append(stringify(item.get("text") or ""))
            elif isinstance(item, dict) and kind == "web_search_result":
                lines.append("\n".join(t for t in (text_of(item.get("title")), text_of(item.get("url"))) if t))
            else:
                lines.append(stringify(item))
        return "\n\n".join(lines), False
    if not isinstance(content, dict):
        return ("" if content is None else stringify(content)), False
    if "error_code" in content:
        words = [stringify(content.get("error_code")), text_of(content.get("error_message"))]
        return ": ".join(w for w in words if w), True
    kind = text_of(content.get("type"))
    found: list[str | None]
    match kind:
        case "code_execution_result" | "bash_code_execution_result":
            found = [text_of(content.get("stdout")), text_of(content.get("stderr"))]
        case "text_editor_code_execution_view_result" | "advisor_result":
            found = [text_of(content.get("content")), text_of(content.get("text"))]
        case "web_fetch_result":
            document = obj(content.get("content"))
            source = obj(document.get("source"))
            found = [text_of(content.get("url")), text_of(document.get("title")),
                     text_of(source.get("data")) if source.get("type") == "text" else None]
        case "tool_search_tool_search_result":
            found = [", ".join(stringify(r.get("tool_name")) for r in items(content.get("tool_references"))
                               if isinstance(r, dict))]
        case _:
            found = []
    text = "\n".join(t for t in found if t)
    return (text or stringify(content)), False


MESSAGE_KEYS = frozenset({"role", "content", "id", "type", "model", "stop_reason", "stop_sequence", "usage",
                          "container", "cache_control"})
"""Keys an Anthropic message has (``MessageParam`` and ``Message`` of anthropic-sdk-python)."""


def messages_to_record(messages: Sequence[Any], origin: Origin, *, system: Any = None) -> list[Message]:
    """Anthropic messages (and the request's ``system``, a string or text blocks, as a leading
    ``system`` message) as record messages, ids ``<id_prefix>:<first_index + i>``, chained under the
    origin's ``parent_id``; the origin as in ``openai_chat.messages_to_record``, its provider
    ``anthropic`` when it names none."""
    return _conversation(messages, system, origin, origin.model)


def _conversation(messages: Sequence[Any], system: Any, origin: Origin, model: str | None) -> list[Message]:
    """The system prompt, then the messages under it, signed by the origin's provider or Anthropic."""
    signer = origin.provider or PROVIDER
    book = CallBook(origin.history)
    return after_system(_system(system, origin, origin.id_prefix), origin.parent_id,
                        lambda parent: _messages(messages, origin, origin.id_prefix, origin.first_index, model,
                                                 signer, book, parent))


def system_text(system: Any) -> str | None:
    """The system prompt's words: the string, or its text blocks joined by a newline."""
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        texts = [stringify(b.get("text", "")) for b in system if isinstance(b, dict) and b.get("type", "text") == "text"]
        return "\n".join(texts)
    return None


def _system(system: Any, where: Where, prefix: str) -> list[Message]:
    text = system_text(system)
    if not text:
        return []
    blocks: list[Block] = [Text(text)] if isinstance(system, str) else [
        Text(stringify(b.get("text", ""))) for b in system if isinstance(b, dict) and b.get("type", "text") == "text"]
    return [Message(f"{prefix}:system", None, "system", tuple(blocks), source=where.source(where.line))]


def _messages(messages: Sequence[Any], where: Where, prefix: str, first: int, model: str | None,
              provider: str | None, book: CallBook, parent: str | None) -> list[Message]:
    # the calls the message before left open: the API takes a conversation only when the next message
    # holds a tool_result for each ("Each tool_use block must have a corresponding tool_result block in
    # the next message"), so a next message without them lost them (its content retyped to text, a
    # block cut out), which no other problem would name
    asked: list[str] = []

    def read(raw: JsonObj, i: int, message_id: str, parent: str | None) -> Message:
        nonlocal asked
        line = where.at(i)
        role = raw.get("role")
        record_role: Role
        if role in ("user", "assistant", "system"):
            record_role = role
        else:
            where.problem(line, f"message {i + 1} has unknown role {shown(role)}; kept as a user message")
            record_role = "user"
        blocks = content_to_blocks(raw.get("content"), where, line, model, provider, book)
        if not blocks:
            blocks = unread_message(raw, "content", MESSAGE_KEYS, where, line, "message")
        speaker = record_role == "assistant"
        unanswered = [call_id for call_id in asked if call_id in book.pending]
        if unanswered:
            where.problem(line, f"message {i + 1} holds no tool_result for {len(unanswered)} tool_use block(s) of "
                                f"the message before it ({', '.join(unanswered)}); their results are missing")
        asked = [b.id for b in blocks if isinstance(b, ToolUse) and b.id in book.pending] if speaker else []
        return Message(message_id, parent, record_role, tuple(blocks), model=model if speaker else None,
                       provider=provider if speaker else None, source=where.source(line))

    return each_message(messages, where, prefix, first, parent, "message", read)


def content_to_blocks(content: Any, where: Where, line: int | None, model: str | None, provider: str | None,
                      book: CallBook) -> list[Block]:
    """A message's content (a string or content blocks) as record blocks."""
    return content_blocks(content, where, line, "block",
                          lambda block: _block(block, where, line, model, provider, book))


def _block(block: JsonObj, where: Where, line: int | None, model: str | None, provider: str | None,
           book: CallBook) -> list[Block]:
    kind = text_of(block.get("type"))
    if kind == "text":
        text = block.get("text")
        if isinstance(text, str):
            return [Text(text)] if text else []
        where.problem(line, f"text block holds {shown(text)}, not text; kept as opaque")
        return [Opaque("text", block, "text is not a string")]
    if kind == "image":
        return [image(block, where, line)]
    if kind == "tool_use":
        call_id = text_field(block.get("id"), "tool_use id", lambda r: where.problem(line, r))
        name = text_field(block.get("name"), f"name of tool_use {call_id}", lambda r: where.problem(line, r))
        book.call(call_id, name)
        return [tool_use(call_id, name, block.get("input"), where, line)]
    if kind == "tool_result":
        return _result(block, where, line, book)
    if kind == "thinking":
        return [Reasoning(stringify(block.get("thinking") or ""), signature=text_of(block.get("signature")),
                          provider=provider, model=model)]
    if kind == "redacted_thinking":
        return [Reasoning("", signature=text_of(block.get("data")), provider=provider, model=model, redacted=True)]
    if kind in SERVER_CALLS:
        call_id = text_field(block.get("id"), f"{kind} id", lambda r: where.problem(line, r))
        name = text_field(server_call_name(block), f"name of {kind} {call_id}", lambda r: where.problem(line, r))
        book.call(call_id, name)
        return [tool_use(call_id, name, block.get("input"), where, line)]
    if is_server_result(kind):
        given = text_of(block.get("tool_use_id"))
        answered = book.answer(given, None)
        if answered is None:
            where.problem(line, f"{kind} for call {given!r} has no earlier server call (orphan); kept")
        return [server_result(block, answered or given or "")]
    if kind in KNOWN_BLOCKS:
        return [Opaque(kind, block, "block the record has no kind for")]
    where.problem(line, f"unknown content block type {shown(block.get('type'))}; kept as opaque")
    return [Opaque(kind_name(block.get("type")), block, "unknown content block")]


def image(block: JsonObj, where: Where, line: int | None) -> Image | Opaque:
    """An image block: base64 bytes stored, a URL kept as a reference, a Files API id kept opaque."""
    source = block.get("source")
    kind = source.get("type") if isinstance(source, dict) else None
    if isinstance(source, dict) and kind == "base64" and isinstance(source.get("data"), str):
        return image_base64(where, line, source["data"], text_of(source.get("media_type")))
    if isinstance(source, dict) and kind == "url" and isinstance(source.get("url"), str):
        return where.ctx.image_data_url(source["url"], where.file, line)
    if kind == "file":
        return Opaque("image", block, "image by Files API id; bytes not recorded")
    where.problem(line, f"image block with source type {shown(kind)} cannot be read; kept as opaque")
    return Opaque("image", block, "unreadable image source")


def _result(block: JsonObj, where: Where, line: int | None, book: CallBook) -> list[Block]:
    call_id = text_of(block.get("tool_use_id"))
    answered = book.answer(call_id, None)
    if answered is None:
        where.problem(line, f"tool_result for call {call_id!r} has no earlier tool_use (orphan); kept")
    content = block.get("content")
    texts: list[str] = []
    images: list[Image] = []
    others: list[Block] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for part in content:
            kind = text_of(part.get("type")) if isinstance(part, dict) else None
            if isinstance(part, dict) and kind == "text":
                texts.append(stringify(part.get("text") or ""))
            elif isinstance(part, dict) and kind == "image":
                found = image(part, where, line)
                if isinstance(found, Image):
                    images.append(found)
                else:
                    others.append(found)
            elif isinstance(part, dict) and kind in KNOWN_BLOCKS:
                others.append(Opaque(kind, part, "tool result content the record has no kind for"))
            else:
                where.problem(line, f"unknown tool_result content type {kind!r}; kept as opaque")
                others.append(Opaque(kind_name(part.get("type") if isinstance(part, dict) else None), part,
                                     "unknown tool result content"))
    elif content is not None:
        texts.append(stringify(content))
    result = ToolResult(answered or call_id or "", "\n".join(texts), is_error=block.get("is_error") is True,
                        images=tuple(images))
    return [result, *others]


def anthropic_usage(raw: Any) -> Usage | None:
    """Usage as Anthropic reports it: ``input_tokens`` are already the uncached ones, beside
    ``cache_read_input_tokens`` and ``cache_creation_input_tokens``
    (https://platform.claude.com/docs/en/build-with-claude/prompt-caching, read 2026-11-29)."""
    if not isinstance(raw, dict):
        return None
    return usage_of(as_int(raw.get("input_tokens")), as_int(raw.get("output_tokens")),
                    as_int(raw.get("cache_read_input_tokens")), as_int(raw.get("cache_creation_input_tokens")))


def tool_names(tools: Sequence[Any]) -> list[str]:
    return [str(t.get("name") or t.get("type") or "") if isinstance(t, dict) else "" for t in tools]


def parse_request(body: JsonObj, origin: Origin) -> ParsedRequest:
    """A Messages request body (also a bare ``{"messages": [...]}``)."""
    model = text_of(body.get("model")) or origin.model
    messages = body_list(body, "messages", origin)
    out = _conversation(messages, body.get("system"), origin, model)
    tools = items(body.get("tools"))
    config = run_config(model=model, provider=origin.provider or PROVIDER, system=system_text(body.get("system")),
                        tools=tools, tool_names=tool_names(tools), where=origin)
    return ParsedRequest(out, config, next_index=origin.first_index + len(messages))


def response_to_record(body: JsonObj, *, file: str | Path, ctx: ImportContext, message_id: str,
                       line: int | None = None, provider: str | None = PROVIDER,
                       time: datetime | None = None) -> list[Message]:
    """A Messages response as the assistant message it holds (with its usage), in a list."""
    return parse_response(body, Where(file, ctx, line), message_id=message_id, provider=provider, time=time)


def parse_response(body: JsonObj, where: Where, *, message_id: str, provider: str | None = None,
                   time: datetime | None = None) -> list[Message]:
    content = body.get("content")
    if not isinstance(content, list):
        if content is None and body.get("type") != "message":
            return []  # no message: an error body, read as the exchange's error
        where.problem(where.line, f"response content is {shown(content)}, not a list of blocks; kept as opaque")
        return [Message(message_id, None, "assistant", (Opaque("response", body, "content is not a list"),),
                        time=time, provider=provider or PROVIDER, source=where.source(where.line))]
    model = text_of(body.get("model"))
    signer = provider or PROVIDER
    blocks = content_to_blocks(body["content"], where, where.line, model, signer, CallBook())
    return [Message(message_id, None, "assistant", tuple(blocks), time=time, model=model, provider=signer,
                    usage=anthropic_usage(body.get("usage")), source=where.source(where.line))]


def merge_stream(events: list[JsonObj]) -> JsonObj:
    """Messages stream events folded into the final message (``message_start``, the content block
    events with text, JSON, thinking and signature deltas, ``message_delta`` usage)."""
    message: JsonObj = {}
    blocks: dict[int, JsonObj] = {}
    partial: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        index = as_int(event.get("index")) or 0
        if kind == "message_start" and isinstance(event.get("message"), dict):
            message = dict(event["message"])
        elif kind == "content_block_start" and isinstance(event.get("content_block"), dict):
            blocks[index] = dict(event["content_block"])
        elif kind == "content_block_delta" and isinstance(event.get("delta"), dict):
            delta = event["delta"]
            block = blocks.setdefault(index, {"type": "text", "text": ""})
            dtype = delta.get("type")
            if dtype == "text_delta":
                block["text"] = stringify(block.get("text") or "") + stringify(delta.get("text") or "")
            elif dtype == "input_json_delta":
                partial[index] = partial.get(index, "") + stringify(delta.get("partial_json") or "")
            elif dtype == "thinking_delta":
                block["thinking"] = stringify(block.get("thinking") or "") + stringify(delta.get("thinking") or "")
            elif dtype == "signature_delta":
                block["signature"] = stringify(block.get("signature") or "") + stringify(delta.get("signature") or "")
            elif dtype == "citations_delta":
                block["citations"] = [*items(block.get("citations")), delta.get("citation")]
        elif kind == "message_delta":
            if isinstance(event.get("delta"), dict):
                message.update({k: v for k, v in event["delta"].items() if v is not None})
            if isinstance(event.get("usage"), dict):
                usage = dict(obj(message.get("usage")))
                usage.update({k: v for k, v in event["usage"].items() if v is not None})
                message["usage"] = usage
        elif kind == "error":
            message["error"] = event.get("error", event)
    for index, text in partial.items():
        try:
            blocks[index]["input"] = orjson.loads(text) if text.strip() else {}
        except orjson.JSONDecodeError:
            blocks[index]["input"] = text  # read as a call whose arguments are not valid JSON
    message.setdefault("type", "message")
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


WIRE = Wire(name="anthropic", format=FORMAT, provider=PROVIDER, parse_request=parse_request,
            parse_response=parse_response, merge_stream=merge_stream)
