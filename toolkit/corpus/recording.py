"""Recorded exchanges with model APIs, and what the three wire importers share.

A recording is a file of HTTP interactions: VCR cassettes (vcrpy YAML or JSON, pydantic-ai's
``parsed_body`` variant, Ruby VCR / Betamax ``http_interactions`` with ``base64_string`` bodies),
HAR files (``log.entries``) and JSONL request logs (one exchange, batch input or batch output line
per line). Each request body is recognised by its URI (``chat/completions``, ``responses``,
``v1/messages``, ``:generateContent`` / ``:streamGenerateContent``, Ollama ``api/chat``) or, failing
that, by its shape, and read by the wire parser of ``openai_chat``, ``anthropic_messages`` or
``gemini_contents``. A bare wire file (a message list, a request body, a response) is the same
thing with one interaction and no URI, so every importer of this family reads through here.

Sessions: a client resends the whole history on every call, so successive requests of one
conversation are prefixes of each other. Requests are compared message by message on their
content (role, words with whitespace collapsed, calls, results, images; ids, signatures and
reasoning left out, since clients rewrite those), and a request that extends an earlier one
continues its conversation. A conversation becomes ONE session: the messages
of its longest (last) request, then that request's reply as the tip. The reply of every earlier
request lands on the message the next request carried in its place, which takes the reply's usage,
model and time (and its reasoning when the client did not send that back); a reply the client
rewrote before sending it back is kept as a sibling branch. A request that continues nothing starts
a new session. A conversation replayed to another provider (the pydantic-ai cassette that moves from
Gemini to OpenAI mid-conversation) is a new session on that wire, titled as continuing the earlier
one when its first user message is the same; the sessions of one file never share message ids.
Non-model interactions (an image download, a token count, and Bedrock Converse calls, a wire this
reader does not parse) are kept as ``meta`` events of the conversation they happened in; error
responses are ``error`` events. The tools of each request body become the session's run config, a
new one whenever the model, system prompt or tools change between requests. A problem in a message
is reported once, from the request that ends up in the session, not from every request that resent it.
"""

from __future__ import annotations

import base64
import binascii
import email.utils
import gzip
import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, assert_never
from urllib.parse import urlsplit

import orjson
import yaml

from toolkit.corpus.shapes import as_int, obj, surface_hash, text_of
from toolkit.corpus.source import (
    ImportContext,
    Importer,
    iter_json_lines_bytes,
    line_of,
    parse_arguments,
    parse_time,
)
from toolkit.jsontext import json_text, stringify
from toolkit.record import (
    Block,
    Event,
    Image,
    JsonValue,
    Message,
    Opaque,
    Problem,
    Reasoning,
    RunConfig,
    Session,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
)

try:
    from yaml import CSafeLoader as YamlLoader
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader as YamlLoader  # type: ignore[assignment]

JsonObj = dict[str, Any]

FORMAT = "recording"

# --------------------------------------------------------------------------------------------
# What the wire parsers share


@dataclass(frozen=True)
class Origin:
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


@dataclass(frozen=True)
class Request:
    """A request body read into the record."""

    messages: list[Message]
    """The conversation it carried, parents chained root first."""
    config: RunConfig
    next_index: int
    """The index the reply takes in the ``<prefix>:<index>`` id scheme."""


class RequestParser(Protocol):
    """Reads a request body; ``model`` is the model the URL names, for wires whose body does not
    (Gemini, Vertex)."""

    def __call__(
        self, body: JsonObj, where: Origin, *, id_prefix: str, first_index: int = 0,
        history: Sequence[Message] = (), provider: str | None = None, model: str | None = None,
    ) -> Request: ...


class ResponseParser(Protocol):
    def __call__(
        self, body: JsonObj, where: Origin, *, message_id: str, provider: str | None = None,
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


def each_message(raws: Sequence[Any], where: Origin, prefix: str, first: int, parent: str | None, noun: str,
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


def content_blocks(content: Any, where: Origin, line: int | None, noun: str,
                   read: Callable[[JsonObj], list[Block]]) -> list[Block]:
    """A message's content, text or a list of ``noun`` objects (``read`` turns one into blocks), as
    record blocks; bare strings in the list are text, anything else is reported and kept opaque."""
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
            if item:
                out.append(Text(item))
        elif isinstance(item, dict):
            out.extend(read(item))
        else:
            where.problem(line, f"content {noun} is a JSON {type(item).__name__}, not an object; kept as opaque")
            out.append(Opaque(noun, item, "not an object"))
    return out


def body_list(body: JsonObj, key: str, where: Origin) -> list[Any]:
    """The request body's conversation under ``key``; a body without that list is reported and read
    as an empty conversation."""
    value = body.get(key)
    if isinstance(value, list):
        return value
    where.problem(where.line, f"request body has no {key} list")
    return []


def tool_use(call_id: str, name: str, arguments: Any, where: Origin, line: int | None,
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


def image_base64(where: Origin, line: int | None, payload: str, media_type: str | None) -> Image | Opaque:
    return where.ctx.image_base64(standard_base64(payload), media_type, where.file, line)


def run_config(
    *,
    model: str | None,
    provider: str | None,
    system: str | None,
    tools: Sequence[JsonValue] | None,
    tool_names: Sequence[str],
    where: Origin,
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


PROVIDER_HOSTS: tuple[tuple[str, str], ...] = (
    ("api.openai.com", "openai"),
    ("openai.azure.com", "azure"),
    ("api.anthropic.com", "anthropic"),
    ("generativelanguage.googleapis.com", "google"),
    ("aiplatform.googleapis.com", "google-vertex"),
    ("amazonaws.com", "bedrock"),
    ("openrouter.ai", "openrouter"),
    ("api.deepseek.com", "deepseek"),
    ("api.groq.com", "groq"),
    ("api.mistral.ai", "mistral"),
    ("api.x.ai", "xai"),
    ("api.together.xyz", "together"),
    ("api.fireworks.ai", "fireworks"),
    (":11434", "ollama"),
)
"""Host → who served the call (and so who can accept its signatures back)."""


MODEL_IN_PATH = re.compile(r"/models/([^/:]+)(?::|/|$)")


def model_of(uri: str | None) -> str | None:
    """The model a URL names (Gemini ``/models/<model>:generateContent``, Vertex, Bedrock)."""
    if not uri:
        return None
    found = MODEL_IN_PATH.search(urlsplit(uri).path) or re.search(r"/model/([^/]+)/", urlsplit(uri).path)
    return found.group(1) if found else None


def provider_of(uri: str | None, wire: Wire) -> str | None:
    """The serving provider named by the request's host (the host itself when not listed). Without
    a URL, the wire's provider for the Anthropic and Gemini wires, and unknown for Chat
    Completions, which every OpenAI-compatible server speaks."""
    netloc = urlsplit(uri).netloc.lower() if uri else ""
    for needle, provider in PROVIDER_HOSTS:
        if netloc and needle in netloc:
            return provider
    if netloc:
        return netloc
    return None if wire.name == "openai_chat" else wire.provider


# --------------------------------------------------------------------------------------------
# Recognising bodies


ANTHROPIC_BLOCKS = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use",
    "mcp_tool_result", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result",
    "tool_search_tool_result", "document", "search_result", "container_upload", "compaction",
})
OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file"})
RESPONSES_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
                             "custom_tool_call_output", "item_reference", "compaction"})
ANTHROPIC_BODY_KEYS = frozenset({"system", "anthropic_version", "stop_sequences", "thinking", "anthropic_beta",
                                 "top_k", "container", "mcp_servers"})
OPENAI_BODY_KEYS = frozenset({"n", "response_format", "stream_options", "frequency_penalty", "presence_penalty",
                              "logprobs", "top_logprobs", "max_completion_tokens", "parallel_tool_calls",
                              "reasoning_effort", "logit_bias", "seed", "functions", "function_call", "modalities",
                              "prediction", "audio", "store", "user", "service_tier"})


SIGNAL_SAMPLE = 500
"""Messages a classification looks at: a wire's marks show within the first turns."""

OPENAI_MESSAGE_KEYS = frozenset({"tool_calls", "function_call", "tool_call_id", "images", "reasoning_content"})


def _message_signals(messages: Sequence[object]) -> tuple[int, int, int, int]:
    """Votes for (openai_chat, anthropic, responses, gemini) from a message list's shapes."""
    openai = anthropic = responses = gemini = 0
    for m in messages[:SIGNAL_SAMPLE]:
        if not isinstance(m, dict):
            continue
        if "parts" in m:
            gemini += 1
        kind = m.get("type")
        if isinstance(kind, str) and (kind in RESPONSES_ITEMS or kind.endswith(("_call", "_call_output"))):
            responses += 1
        if m.get("role") in ("developer", "tool", "function") or not OPENAI_MESSAGE_KEYS.isdisjoint(m):
            openai += 1
        content = m.get("content")
        if isinstance(content, list):
            for part in content:
                if not isinstance(part, dict):
                    continue
                ptype = part.get("type")
                if not isinstance(ptype, str):
                    continue
                if ptype in ANTHROPIC_BLOCKS or (ptype == "image" and "source" in part):
                    anthropic += 1
                elif ptype in OPENAI_PARTS:
                    openai += 1
                elif ptype in RESPONSES_PARTS:
                    responses += 1
    return openai, anthropic, responses, gemini


MESSAGE_SHARE = 2 / 3
"""Share of a list's items that must look like messages (objects with a ``role`` or ``type``) for the
list to be a conversation: the odd items of a real one are read as problems, not lose the file."""


def _role_list(value: object) -> bool:
    if not isinstance(value, list) or not value:
        return False
    sample = value[:SIGNAL_SAMPLE]
    shaped = sum(1 for m in sample if isinstance(m, dict) and ("role" in m or "type" in m))
    return shaped >= MESSAGE_SHARE * len(sample) and any(isinstance(m, dict) and "role" in m for m in sample)


def _tools_signal(tools: object) -> tuple[int, int]:
    openai = anthropic = 0
    if isinstance(tools, list):
        for tool in tools:
            if isinstance(tool, dict):
                if "function" in tool or "custom" in tool:
                    openai += 1
                if "input_schema" in tool:
                    anthropic += 1
    return openai, anthropic


def classify(doc: object) -> tuple[str, str] | None:
    """``(wire, kind)`` of a bare body, kind being ``request``, ``response`` or ``messages``; ``None``
    when the document is not a body of any of these wires."""
    if isinstance(doc, list):
        parted = sum(1 for m in doc[:SIGNAL_SAMPLE] if isinstance(m, dict) and "parts" in m)
        if not _role_list(doc) and not (doc and parted >= MESSAGE_SHARE * len(doc[:SIGNAL_SAMPLE])):
            return None
        openai, anthropic, responses, gemini = _message_signals(doc)
        if gemini and gemini >= max(openai, anthropic, responses):
            return "gemini", "messages"
        if responses > max(openai, anthropic):
            return "openai_responses", "messages"
        if anthropic > openai:
            return "anthropic", "messages"
        return "openai_chat", "messages"
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("contents"), list) or "systemInstruction" in doc or "system_instruction" in doc:
        return "gemini", "request"
    if isinstance(doc.get("candidates"), list) or ("usageMetadata" in doc and "modelVersion" in doc):
        return "gemini", "response"
    if isinstance(doc.get("choices"), list):
        return "openai_chat", "response"
    if doc.get("type") == "message" and isinstance(doc.get("content"), list) and (
        "model" in doc or "usage" in doc or "stop_reason" in doc
    ):
        return "anthropic", "response"
    if doc.get("object") == "response" or (isinstance(doc.get("output"), list) and "usage" in doc):
        return "openai_responses", "response"
    messages = doc.get("messages")
    if isinstance(messages, list) and (not messages or _role_list(messages)):
        openai, anthropic, responses, _ = _message_signals(messages)
        tools_openai, tools_anthropic = _tools_signal(doc.get("tools"))
        openai += tools_openai + sum(1 for k in doc if k in OPENAI_BODY_KEYS)
        anthropic += tools_anthropic + sum(1 for k in doc if k in ANTHROPIC_BODY_KEYS)
        if isinstance(doc.get("tool_choice"), dict) and doc["tool_choice"].get("type") in ("auto", "any", "tool", "none"):
            anthropic += 1
        return ("anthropic" if anthropic > openai else "openai_chat"), "request"
    if "messages" in doc and ("model" in doc or "tools" in doc):  # a request whose messages are broken
        return ("openai_chat" if ANTHROPIC_BODY_KEYS.isdisjoint(doc) else "anthropic"), "request"
    if "input" in doc and ("model" in doc or "instructions" in doc or "previous_response_id" in doc):
        return "openai_responses", "request"
    return None


def wires() -> dict[str, Wire]:
    """The wire parsers by name. Imported here, not at the top, because each wire module imports
    the shared pieces above from this one."""
    from toolkit.corpus import anthropic_messages, gemini_contents, openai_chat

    return {w.name: w for w in (openai_chat.WIRE, openai_chat.RESPONSES_WIRE, anthropic_messages.WIRE,
                                gemini_contents.WIRE)}


GENERATION_PATHS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/chat/completions/?$"), "openai_chat"),
    (re.compile(r"/api/chat/?$"), "openai_chat"),  # Ollama's native chat: OpenAI-shaped messages
    (re.compile(r"/responses/?$"), "openai_responses"),
    (re.compile(r"/v\d+/messages/?$"), "anthropic"),  # not OpenAI Assistants' /threads/<id>/messages
    (re.compile(r":(stream)?generatecontent$", re.IGNORECASE), "gemini"),
)
"""Endpoints that generate a reply, by URL path."""

OTHER_PATHS = re.compile(
    r"(count_?tokens|counttokens|embed|/models/?$|/files|/batches|/moderations|/images/|/audio/|/uploads|"
    r"/responses/[^/]+|/input_tokens|/converse(-stream)?$)",
    re.IGNORECASE,
)
"""Endpoints kept as events, not conversations: those that carry a conversation-shaped body but
generate no reply (token counts, embeddings...), and Bedrock's Converse API, a wire of its own that
this reader does not parse (its full request is kept in the event)."""


def wire_for(uri: str | None, body: object) -> tuple[Wire, str] | None:
    """The wire of an interaction and whether its body is a ``request`` or a bare ``messages``
    list, from its URI first and its body's shape second."""
    table = wires()
    path = urlsplit(uri).path if uri else ""
    for pattern, name in GENERATION_PATHS:
        if path and pattern.search(path):
            shape = classify(body)
            kind = shape[1] if shape is not None and shape[0] == name else "request"
            return table[name], kind
    if path and OTHER_PATHS.search(path):
        return None
    shape = classify(body)
    if shape is None or shape[1] == "response":
        return None
    return table[shape[0]], shape[1]


# --------------------------------------------------------------------------------------------
# Interactions: one recorded request and its response, whatever the container


@dataclass
class Interaction:
    index: int
    """1-based position in the file."""
    line: int | None
    method: str = "POST"
    uri: str | None = None
    request: Any = None
    """The decoded request body: a JSON value, text, bytes, or ``None``."""
    response: Any = None
    """The decoded response body: a JSON value, SSE events (a list), text, bytes, or ``None``."""
    status: int | None = None
    time: datetime | None = None
    request_lines: dict[str, list[int]] = field(default_factory=dict)
    """Body list key → the line of each item (YAML cassettes with parsed bodies)."""
    response_line: int | None = None
    content_type: str = ""
    response_size: int = 0
    recorded: bool = True
    """False for a bare body read as a one-interaction file (no HTTP exchange recorded)."""
    shape: tuple[str, str] | None = None
    """A bare body's ``classify`` result, kept so it is computed once."""


def _headers(raw: object) -> dict[str, str]:
    """Headers as lower-cased name → first value (VCR maps to lists, HAR lists name/value pairs)."""
    out: dict[str, str] = {}
    if isinstance(raw, dict):
        for name, value in raw.items():
            if isinstance(value, list):
                value = value[0] if value else ""
            out[stringify(name).lower()] = stringify(value)
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict) and "name" in item:
                out.setdefault(stringify(item["name"]).lower(), stringify(item.get("value", "")))
    return out


def _sse_events(text: str) -> tuple[list[JsonObj], list[str]]:
    """The JSON objects of a server-sent-event stream, and what did not parse."""
    events: list[JsonObj] = []
    bad: list[str] = []
    for chunk in re.split(r"\r?\n\r?\n", text):
        data = "\n".join(line[5:].lstrip() for line in chunk.splitlines() if line.startswith("data:"))
        if not data or data.strip() == "[DONE]":
            continue
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            bad.append(data[:80])
            continue
        if isinstance(value, dict):
            events.append(value)
        elif isinstance(value, list):
            events.extend(v for v in value if isinstance(v, dict))
    return events, bad


def decode_body(value: object, headers: dict[str, str]) -> tuple[Any, str | None]:
    """A recorded body as a JSON value, a list of SSE event objects, text or bytes, with the reason
    when it cannot be decoded. Handles VCR ``{string: ...}``, Ruby VCR / Betamax ``base64_string``,
    YAML ``!!binary`` bytes, and gzip / deflate compression."""
    if isinstance(value, dict) and value and set(value) <= {"string", "base64_string", "encoding"}:
        if isinstance(value.get("base64_string"), str):
            try:
                value = base64.b64decode(standard_base64(value["base64_string"]), validate=True)
            except (binascii.Error, ValueError) as exc:
                return None, f"base64 body does not decode ({exc})"
        else:
            value = value.get("string")
    if value is None or isinstance(value, dict | list | int | float):
        return value, None
    if isinstance(value, bytes):
        encoding = headers.get("content-encoding", "").lower()
        try:
            if value[:2] == b"\x1f\x8b":
                value = gzip.decompress(value)
            elif encoding == "deflate":
                value = zlib.decompress(value, -zlib.MAX_WBITS if value[:1] != b"\x78" else zlib.MAX_WBITS)
        except (OSError, EOFError, zlib.error) as exc:
            return None, f"{encoding or 'gzip'}-compressed body does not decompress ({exc})"
        if encoding in ("br", "zstd") and value[:1] not in (b"{", b"["):
            return None, f"body is {encoding}-compressed, which this reader cannot decompress"
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return value, None
    if not isinstance(value, str):
        return None, f"body of type {type(value).__name__} is not text"
    stripped = value.lstrip()
    if not stripped:
        return None, None
    if stripped[0] in "{[":
        try:
            return orjson.loads(value), None
        except orjson.JSONDecodeError as exc:
            if stripped[0] == "[" or "\n" not in stripped.strip():
                return value, f"body is not valid JSON ({exc})"
            events, _ = _sse_events("\n\n".join("data: " + line for line in stripped.splitlines()))
            return (events, None) if events else (value, f"body is not valid JSON ({exc})")
    if stripped.startswith(("event:", "data:", "id:", ":")):
        events, bad = _sse_events(value)
        if bad:
            return events, f"{len(bad)} stream event(s) are not valid JSON (first: {bad[0]!r})"
        return events, None
    return value, None


def _status(raw: object) -> int | None:
    if isinstance(raw, dict):
        return as_int(raw.get("code"))
    return as_int(raw)


def _time(raw: object) -> datetime | None:
    found = parse_time(raw)
    if found is None and isinstance(raw, str):
        try:
            return email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
    return found


def _vcr_interaction(raw: object, index: int, line: int | None, lines: tuple[dict[str, list[int]], int | None],
                     where: Origin) -> Interaction | None:
    """One vcrpy / Ruby VCR / Betamax interaction."""
    if not isinstance(raw, dict) or not isinstance(raw.get("request"), dict):
        where.problem(line, f"interaction {index} has no request")
        return None
    request: JsonObj = raw["request"]
    response: JsonObj = raw["response"] if isinstance(raw.get("response"), dict) else {}
    req_headers, resp_headers = _headers(request.get("headers")), _headers(response.get("headers"))
    it = Interaction(index=index, line=line, method=(text_of(request.get("method")) or "POST").upper(),
                     uri=text_of(request.get("uri")) or text_of(request.get("url")),
                     status=_status(response.get("status")), time=_time(raw.get("recorded_at")),
                     request_lines=lines[0], response_line=lines[1] or line,
                     content_type=resp_headers.get("content-type", ""))
    if "parsed_body" in request:
        it.request = request["parsed_body"]
    else:
        it.request, reason = decode_body(request.get("body"), req_headers)
        if reason:
            where.problem(line, f"interaction {index}: request body cannot be decoded: {reason}")
            it.request = None
    if "parsed_body" in response:
        it.response = response["parsed_body"]
    else:
        body = response.get("body")
        it.response, reason = decode_body(body, resp_headers)
        if isinstance(it.response, bytes | str):
            it.response_size = len(it.response)
        if reason:
            where.problem(it.response_line, f"interaction {index}: response body cannot be decoded: {reason}")
            it.response = None
    return it


def _har_interaction(entry: object, index: int, where: Origin) -> Interaction | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
        where.problem(index, f"HAR entry {index} has no request")
        return None
    request: JsonObj = entry["request"]
    response: JsonObj = entry["response"] if isinstance(entry.get("response"), dict) else {}
    post = obj(request.get("postData"))
    content = obj(response.get("content"))
    it = Interaction(index=index, line=index, method=(text_of(request.get("method")) or "POST").upper(),
                     uri=text_of(request.get("url")), status=as_int(response.get("status")),
                     time=_time(entry.get("startedDateTime")),
                     content_type=text_of(content.get("mimeType")) or "", response_line=index)
    it.request, reason = decode_body(post.get("text"), _headers(request.get("headers")))
    if reason:
        where.problem(index, f"HAR entry {index}: request body cannot be decoded: {reason}")
        it.request = None
    text = content.get("text")
    if content.get("encoding") == "base64" and isinstance(text, str):
        text = {"base64_string": text}
    it.response, reason = decode_body(text, _headers(response.get("headers")))
    it.response_size = as_int(content.get("size")) or 0
    if reason:
        where.problem(index, f"HAR entry {index}: response body cannot be decoded: {reason}")
        it.response = None
    return it


def is_exchange(obj: JsonObj) -> bool:
    """A JSONL row that records an exchange rather than being a bare body."""
    return ("custom_id" in obj or isinstance(obj.get("request"), dict)
            or (isinstance(obj.get("response"), dict) and "messages" not in obj and "contents" not in obj))


def _line_interaction(obj: JsonObj, number: int, where: Origin) -> Interaction | None:
    """One JSONL line: an exchange (``request``/``response``), a batch input line (``custom_id`` with
    ``body`` or ``params``), a batch output line, or a bare request or response body."""
    it = Interaction(index=number, line=number, response_line=number, recorded=False)
    if is_exchange(obj):
        it.recorded = True
        request = obj.get("request", obj)
        if isinstance(request, dict):
            it.uri = text_of(request.get("url")) or text_of(request.get("uri")) or text_of(obj.get("url"))
            it.method = (text_of(request.get("method")) or text_of(obj.get("method")) or "POST").upper()
            it.request = request.get("body", request.get("params"))
            if it.request is None and request is not obj:
                it.request = request
        response = obj.get("response")
        if isinstance(response, dict) and ("body" in response or "status_code" in response):
            it.status = as_int(response.get("status_code"))
            response = response.get("body")
        result = obj.get("result")
        if response is None and isinstance(result, dict):
            response = result.get("message")
        it.response = response
        if isinstance(it.request, str):
            it.request, reason = decode_body(it.request, {})
            if reason:
                where.problem(number, f"line {number}: request body cannot be decoded: {reason}")
        return it
    shape = classify(obj)
    if shape is None:
        where.problem(number, "line is neither a model request, a response nor a recorded exchange")
        return None
    if shape[1] == "response":
        it.response = obj
    else:
        it.request = obj
    return it


# --------------------------------------------------------------------------------------------
# Reading a file into interactions


@dataclass
class Loaded:
    interactions: list[Interaction]
    recording: bool
    """A recording (HTTP exchanges) rather than a bare wire document."""


def _node_get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v  # type: ignore[no-any-return]
    return None


def _key_line(node: yaml.Node | None, key: str) -> int | None:
    """1-based line of ``key:`` in a mapping node."""
    if isinstance(node, yaml.MappingNode):
        for k, _ in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return int(k.start_mark.line) + 1
    return None


def _node_items(node: yaml.Node | None) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _body_lines(request_node: yaml.Node | None) -> dict[str, list[int]]:
    body = _node_get(request_node, "parsed_body") or _node_get(request_node, "body")
    out: dict[str, list[int]] = {}
    if isinstance(body, yaml.MappingNode):
        for k, v in body.value:
            if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.SequenceNode):
                out[str(k.value)] = [item.start_mark.line + 1 for item in v.value]
    return out




def _json_values(doc: object) -> int:
    """Make a YAML document hold what JSON holds, in place: keys that YAML read as numbers, booleans or
    null become their text (as JSON writes them), dates their ISO text, bytes outside a body their
    base64 text. Returns how many keys and bytes were changed (a ``yes:`` key read as ``true`` lost
    its spelling; a date keeps its meaning). Iterative: the document may be deep."""
    changed = 0
    stack: list[tuple[object, object]] = [(doc, None)]
    while stack:
        node, above = stack.pop()
        slots: Iterable[tuple[Any, Any]]
        if isinstance(node, dict):
            for key in [k for k in node if not isinstance(k, str)]:
                node[_yaml_text(key)] = node.pop(key)
                changed += 1
            slots = node.items()
        elif isinstance(node, list):
            slots = enumerate(node)
        else:
            continue
        for slot, value in list(slots):
            if isinstance(value, date):
                node[slot] = value.isoformat()
            elif isinstance(value, bytes) and not (slot == "body" or (slot == "string" and above == "body")):
                node[slot] = base64.b64encode(value).decode("ascii")  # the decoder reads bytes in a body only
                changed += 1
            elif isinstance(value, dict | list):
                stack.append((value, slot))
    return changed


def _yaml_text(key: object) -> str:
    if isinstance(key, bool) or key is None:
        return json_text(key)
    return key.isoformat() if isinstance(key, date) else str(key)


def _load_yaml(text: str, where: Origin) -> Loaded | None:
    loader = YamlLoader(text)
    try:
        node = loader.get_single_node()
        doc = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where.problem(None if mark is None else mark.line + 1, f"file is not valid YAML: {exc}")
        return None
    finally:
        loader.dispose()
    odd = _json_values(doc)
    if odd:
        where.problem(None, f"{odd} YAML keys or binary values have no JSON type; keys read as their JSON text, "
                            "binary values as base64 text")
    if not isinstance(doc, dict):
        where.problem(1, "YAML document is not a cassette (no interactions mapping)")
        return None
    key = "interactions" if "interactions" in doc else "http_interactions"
    raw = doc.get(key)
    if not isinstance(raw, list):
        where.problem(1, "YAML document is not a cassette (no interactions list)")
        return None
    nodes = _node_items(_node_get(node, key))
    out: list[Interaction] = []
    for i, item in enumerate(raw):
        item_node = nodes[i] if i < len(nodes) else None
        line = None if item_node is None else item_node.start_mark.line + 1
        lines = (_body_lines(_node_get(item_node, "request")), _key_line(item_node, "response"))
        it = _vcr_interaction(item, i + 1, line, lines, where)
        if it is not None:
            out.append(it)
    return Loaded(out, recording=True)


def _from_document(doc: object, where: Origin, shape: tuple[str, str] | None = None) -> Loaded | None:
    if isinstance(doc, dict):
        for key in ("interactions", "http_interactions"):
            if isinstance(doc.get(key), list):
                found = [_vcr_interaction(item, i + 1, i + 1, ({}, None), where) for i, item in enumerate(doc[key])]
                return Loaded([it for it in found if it is not None], recording=True)
        log = doc.get("log")
        if isinstance(log, dict) and isinstance(log.get("entries"), list):
            found = [_har_interaction(entry, i + 1, where) for i, entry in enumerate(log["entries"])]
            return Loaded([it for it in found if it is not None], recording=True)
        if is_exchange(doc):  # a one-line exchange log
            it = _line_interaction(doc, 1, where)
            return Loaded([] if it is None else [it], recording=True)
    shape = shape or classify(doc)
    if shape is None:
        where.problem(None, "document is neither a recording nor a model request, response or message list")
        return None
    it = Interaction(index=1, line=None, recorded=False, shape=shape)
    if shape[1] == "response":
        it.response = doc
    else:
        it.request = doc
    return Loaded([it], recording=False)


def _load_jsonl(data: bytes, where: Origin) -> Loaded:
    rows = list(iter_json_lines_bytes(data, where.file, where.ctx))
    if rows and all("role" in obj and not classify(obj) for _, obj in rows):
        it = Interaction(index=1, line=None, request=[obj for _, obj in rows], recorded=False,
                         request_lines={"": [n for n, _ in rows]})
        return Loaded([it], recording=False)
    found = [_line_interaction(obj, number, where) for number, obj in rows]
    interactions = [it for it in found if it is not None]
    return Loaded(interactions, recording=any(it.recorded for it in interactions))


def load(path: Path, ctx: ImportContext) -> Loaded | None:
    """A file's interactions, or ``None`` (with a problem) when it cannot be read at all."""
    where = Origin(path, ctx)
    key = _version(path)
    if _PARSED and key is not None and _PARSED[0][0] == key:
        _, doc, shape = _PARSED.pop()
        return _from_document(doc, where, shape)
    data = path.read_bytes()
    if not data.strip():
        where.problem(None, "empty file")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where.problem(line_of(data, exc.start), f"file is not valid UTF-8 ({exc.reason} at byte {exc.start})")
        return None
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith(("{", "[")):
        return _load_yaml(text, where)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        first = stripped.split("\n", 1)[0]
        if "\n" in stripped.strip() and _parses(first):
            return _load_jsonl(data, where)
        where.problem(line_of(data, exc.pos), f"file is not valid JSON: {exc.msg}")
        return None
    return _from_document(doc, where)


def _parses(text: str) -> bool:
    try:
        return isinstance(orjson.loads(text), dict)
    except orjson.JSONDecodeError:
        return False


# --------------------------------------------------------------------------------------------
# Interactions into sessions

Key = tuple[str, tuple[tuple[object, ...], ...]]


def _words(text: str) -> str:
    return " ".join(text.split())


def _block_key(block: Block) -> tuple[object, ...] | None:
    """What identifies a non-text block across resends: its content, not ids or signatures, which
    clients rewrite (pydantic-ai adds call ids and re-encodes Gemini signatures URL-safe). Reasoning
    is left out: many clients do not send it back."""
    match block:
        case Text():
            return None
        case ToolUse():
            raw = block.raw_input if block.raw_input is not None else json_text(block.input, sort_keys=True)
            return ("tool_use", block.name, raw)
        case ToolResult():
            return ("tool_result", _words(block.output), tuple(i.sha256 or i.url for i in block.images))
        case Reasoning():
            return None
        case Image():
            return ("image", block.sha256 or block.url)
        case Opaque():
            return ("opaque", block.type)
        case _:
            assert_never(block)


def message_key(message: Message) -> Key:
    """A message by content: its role, its words (however the client split them into parts, with
    whitespace collapsed), and its other blocks."""
    others = tuple(k for k in (_block_key(b) for b in message.blocks) if k is not None)
    return message.role, (("text", _words(message.text)), *others)


@dataclass
class Turn:
    """One model call of a conversation: the request as read and what came back."""

    interaction: Interaction
    request: Request
    replies: list[Message] = field(default_factory=list)
    response_id: str | None = None
    provider: str | None = None
    problems: list[Problem] = field(default_factory=list)
    """Problems of the request's content, reported only if the request ends up in a session: every
    request resends the whole history, and a bad message must be reported once, not per request."""

    @cached_property
    def keys(self) -> list[Key]:
        """The request's messages by content (computed only when requests are compared)."""
        return [message_key(m) for m in self.request.messages]


@dataclass
class Conversation:
    wire: Wire
    turns: list[Turn] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def keys(self) -> list[Key]:
        return self.turns[-1].keys


def _is_prefix(short: list[Key], long: list[Key]) -> bool:
    return bool(short) and len(short) <= len(long) and long[: len(short)] == short


def _error_text(body: object) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return stringify(error.get("message") or error.get("type") or error)
        if error is not None:
            return stringify(error)
    return stringify(body)[:300]


def _excerpt(value: object) -> JsonValue:
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if isinstance(value, str):
        return value[:2000]
    if isinstance(value, dict | list | int | float | bool) or value is None:
        return value
    return stringify(value)


def _meta_event(it: Interaction, where: Origin) -> Event:
    size = it.response_size or (len(json_text(it.response).encode()) if isinstance(it.response, dict | list) else 0)
    raw: JsonValue = {"method": it.method, "uri": it.uri, "status": it.status, "content_type": it.content_type,
                      "response_bytes": size, "request": _excerpt(it.request)}
    return Event(kind="meta", type="http", time=it.time, text=f"{it.method} {it.uri} -> {it.status}", raw=raw,
                 source=where.source(it.line))


def sessions(loaded: Loaded, path: Path, ctx: ImportContext) -> list[Session]:
    """The conversations of a file's interactions, one session each (see the module docstring)."""
    where = Origin(path, ctx)
    name = ctx.name(path)
    stem = Path(name).stem
    conversations: list[Conversation] = []
    early: list[Event] = []  # non-model interactions met before any conversation
    by_response: dict[str, Turn] = {}
    last: Conversation | None = None
    for it in loaded.interactions:
        found = _wire_of(it)
        if found is None:
            event = _meta_event(it, where)
            if last is None:
                early.append(event)
            else:
                last.events.append(replace(event, message_id=_last_id(last)))
            continue
        wire, kind = found
        turn = _turn(it, wire, kind, stem, by_response, where)
        if turn is None:
            continue
        target = _continues(conversations, wire, turn)
        if target is None:
            target = Conversation(wire)
            conversations.append(target)
        target.turns.append(turn)
        last = target
        _response(it, turn, target, stem, where)
        if turn.response_id:
            by_response[turn.response_id] = turn
    for conversation in conversations:
        for problem in conversation.turns[-1].problems:
            ctx.problem(problem.file, problem.line, problem.reason)
    if not conversations:
        if not early:
            return []
        return [Session(id=name, format=FORMAT, messages=(), file=name, events=tuple(early))]
    total = len(conversations)
    out = [_assemble(c, k, total, name, stem, loaded.recording, early if k == 0 else [])
           for k, c in enumerate(conversations)]
    return _link(out, conversations)


def _wire_of(it: Interaction) -> tuple[Wire, str] | None:
    if it.request is not None:
        if it.uri is None and it.shape is not None:
            return wires()[it.shape[0]], it.shape[1]
        return wire_for(it.uri, it.request)
    if it.response is not None and not (it.uri and OTHER_PATHS.search(urlsplit(it.uri).path)):
        shape = classify(it.response)  # a response recorded without its request (batch output)
        if shape is not None:
            return wires()[shape[0]], "none"
    return None


def _last_id(conversation: Conversation) -> str | None:
    messages = conversation.turns[-1].request.messages
    return messages[-1].id if messages else None


BODY_LIST_KEYS = {"gemini": "contents", "openai_responses": "input"}
"""The key of a request body's conversation list, per wire (``messages`` otherwise)."""


def _turn(it: Interaction, wire: Wire, kind: str, stem: str, by_response: dict[str, Turn],
          where: Origin) -> Turn | None:
    provider = provider_of(it.uri, wire)
    key = BODY_LIST_KEYS.get(wire.name, "messages")
    if kind == "none":  # a bare response: no request was recorded
        request = Request(messages=[], config=RunConfig(), next_index=0)
        return Turn(it, request, provider=provider)
    if kind == "messages":
        body: object = {key: it.request}
        lines = it.request_lines.get("")
    else:
        body = it.request
        lines = it.request_lines.get(key)
    if not isinstance(body, dict):
        where.problem(it.line, f"interaction {it.index}: {wire.name} request body is not a JSON object")
        return None
    deferred = ImportContext(images=where.ctx.images, names=where.ctx.names)
    at = Origin(where.file, deferred, it.line, lines)
    history: list[Message] = []
    inherited: list[Problem] = []
    first = 0
    previous = body.get("previous_response_id")
    if isinstance(previous, str):
        prior = by_response.get(previous)
        if prior is None:
            where.problem(it.line, f"interaction {it.index}: previous_response_id {previous} names no "
                                   "recorded response; the conversation before it is missing")
        else:
            history = prior.request.messages + prior.replies[:1]
            inherited = prior.problems
            first = prior.request.next_index + 1
    request = wire.parse_request(body, at, id_prefix=stem, first_index=first, history=history, provider=provider,
                                 model=model_of(it.uri))
    if kind == "messages":  # a bare message list: what the run was sent besides it is unknown
        request = replace(request, config=replace(request.config, tools=None, surface_hash=None, provider=None))
    if history:
        request = replace(request, messages=history + chain(request.messages, history[-1].id))
    return Turn(it, request, provider=provider, problems=inherited + deferred.problems)


def _response(it: Interaction, turn: Turn, conversation: Conversation, stem: str, where: Origin) -> None:
    """Read an interaction's response into its turn: the reply, or an event saying why there is none."""
    body = it.response
    if body is None:
        return
    wire = conversation.wire
    if isinstance(body, list):
        body = wire.merge_stream([e for e in body if isinstance(e, dict)])
    failed = it.status is not None and it.status >= 400
    if failed or (isinstance(body, dict) and body.get("error")
                  and not any(body.get(k) for k in ("choices", "candidates", "content", "output", "message"))):
        conversation.events.append(Event(
            kind="error", type=f"http_{it.status}" if it.status else "error", time=it.time,
            message_id=_last_id(conversation), raw=_excerpt(body),
            text=f"HTTP {it.status}: {_error_text(body)}" if it.status else _error_text(body),
            source=where.source(it.response_line)))
        return
    if not isinstance(body, dict):
        where.problem(it.response_line, f"interaction {it.index}: {wire.name} response body is not a JSON object")
        return
    at = Origin(where.file, where.ctx, it.response_line)
    replies = wire.parse_response(body, at, message_id=f"{stem}:{turn.request.next_index}",
                                  provider=turn.provider, time=it.time)
    parent = turn.request.messages[-1].id if turn.request.messages else None
    turn.replies = [replace(r, parent_id=parent) for r in replies]
    rid = body.get("id") or body.get("responseId")
    turn.response_id = rid if isinstance(rid, str) else None
    if not replies:
        conversation.events.append(Event(
            kind="other", type="empty_response", time=it.time, message_id=_last_id(conversation),
            text="the response holds no reply", raw=_excerpt(body), source=where.source(it.response_line)))


def _continues(conversations: list[Conversation], wire: Wire, turn: Turn) -> Conversation | None:
    """The conversation whose last request this one extends (the longest such), if any."""
    best: Conversation | None = None
    if not conversations:
        return None
    for conversation in conversations:
        if conversation.wire.name != wire.name or not _is_prefix(conversation.keys, turn.keys):
            continue
        if best is None or len(conversation.keys) > len(best.keys):
            best = conversation
    return best


def _enrich(base: Message, reply: Message) -> Message:
    """The message a request carried in place of an earlier reply, with what only the response
    knew: usage, the exact model, the time, and reasoning the client did not send back."""
    blocks = base.blocks
    reasoning = tuple(b for b in reply.blocks if isinstance(b, Reasoning))
    if reasoning and not any(isinstance(b, Reasoning) for b in base.blocks):
        blocks = reasoning + blocks
    elif reply.model:
        blocks = tuple(replace(b, model=reply.model) if isinstance(b, Reasoning) else b for b in blocks)
    return replace(base, blocks=blocks, usage=reply.usage or base.usage, model=reply.model or base.model,
                   provider=reply.provider or base.provider, time=reply.time or base.time)


def _assemble(conversation: Conversation, k: int, total: int, name: str, stem: str, recording: bool,
              early: list[Event]) -> Session:
    final = conversation.turns[-1]
    messages = list(final.request.messages)
    branches: list[Message] = []
    for number, turn in enumerate(conversation.turns, 1):
        if turn is final or not turn.replies:
            continue
        at = len(turn.keys)
        main, rest = turn.replies[0], turn.replies[1:]
        if at < len(messages) and message_key(messages[at]) == message_key(main):
            messages[at] = _enrich(messages[at], main)
        else:
            rest = turn.replies
        branches.extend(replace(reply, id=f"{reply.id}@{number}") for reply in rest)
    messages.extend(final.replies)
    messages.extend(branches)
    tip = final.replies[0].id if final.replies else (messages[-1].id if messages else None)
    configs = _configs(conversation, {m.id for m in messages})
    events = early + conversation.events
    session_id = name
    if total > 1:
        session_id = f"{name}#{k + 1}"
        messages, events, configs, tip = _reprefix(messages, events, configs, tip, stem, f"{stem}#{k + 1}")
    model = final.request.config.model or (final.replies[0].model if final.replies else None)
    title = f"{conversation.wire.name} {model}" if model else conversation.wire.name
    return Session(id=session_id, format=FORMAT if recording else conversation.wire.format,
                   messages=tuple(messages), tip=tip, file=name, run_configs=tuple(configs),
                   events=tuple(events), title=title)


def _configs(conversation: Conversation, present: set[str]) -> list[RunConfig]:
    """One run config per change of model, system prompt or tools along the conversation: the
    first applies to the whole session, a later one from the first message its request added."""
    out: list[RunConfig] = []
    seen: tuple[object, ...] | None = None
    count = 0  # messages the conversation held before this request: earlier requests and their reply
    for turn in conversation.turns:
        config = replace(turn.request.config, time=turn.interaction.time)
        signature = (config.model, config.provider, config.system, config.surface_hash, config.tool_names)
        messages = turn.request.messages
        if signature != seen and signature != (None, None, None, None, ()):
            if out:
                candidates = [m.id for m in messages[count:]] + [r.id for r in turn.replies]
                config = replace(config, message_id=next((i for i in candidates if i in present), None))
            out.append(config)
            seen = signature
        count = len(messages) + (1 if turn.replies else 0)
    return out


def _reprefix(messages: list[Message], events: list[Event], configs: list[RunConfig], tip: str | None,
              old: str, new: str) -> tuple[list[Message], list[Event], list[RunConfig], str | None]:
    """Rename ``<old>:...`` message ids to ``<new>:...`` so the sessions of one file share no ids."""

    def rename(value: str | None) -> str | None:
        return new + value[len(old):] if value is not None and value.startswith(old + ":") else value

    def block(b: Block) -> Block:  # call ids made up from a message id (Gemini calls without one)
        match b:
            case ToolUse():
                return replace(b, id=rename(b.id) or b.id)
            case ToolResult():
                return replace(b, tool_use_id=rename(b.tool_use_id) or b.tool_use_id)
            case Text() | Reasoning() | Image() | Opaque():
                return b
            case _:
                assert_never(b)

    return ([replace(m, id=rename(m.id) or m.id, parent_id=rename(m.parent_id),
                     blocks=tuple(block(b) for b in m.blocks)) for m in messages],
            [replace(e, message_id=rename(e.message_id)) for e in events],
            [replace(c, message_id=rename(c.message_id)) for c in configs], rename(tip))


def _link(out: list[Session], conversations: list[Conversation]) -> list[Session]:
    """Title a session that carries an earlier one on to another wire (same first user message)."""
    if len(out) < 2:
        return out
    firsts = [next((m.text.strip() for m in s.path() if m.role == "user" and m.text.strip()), None) for s in out]
    linked: list[Session] = []
    for k, session in enumerate(out):
        earlier = next((j for j in range(k) if firsts[j] and firsts[j] == firsts[k]
                        and conversations[j].wire.name != conversations[k].wire.name), None)
        if earlier is not None:
            session = replace(session, title=f"{session.title} (continues {out[earlier].id} "
                                             f"from {conversations[earlier].wire.name})")
        linked.append(session)
    return linked


# --------------------------------------------------------------------------------------------
# Detection and the importer

SNIFF_FULL_PARSE = 32 * 1024 * 1024
"""Largest JSON document detection parses whole when its first 64 KiB do not decide."""

_SHAPES: dict[tuple[str, int, int], str | None] = {}
_PARSED: list[tuple[tuple[str, int, int], object, tuple[str, str] | None]] = []
"""The last document detection parsed whole and its shape, so the read that follows does not
parse or classify it again."""


def _version(path: Path) -> tuple[str, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path), stat.st_mtime_ns, stat.st_size


def _parse_whole(path: Path) -> object:
    """The file as one JSON document (``None`` when it is not one), remembered for the next read."""
    try:
        doc: object = orjson.loads(path.read_bytes())
    except (orjson.JSONDecodeError, OSError):
        return None
    key = _version(path)
    _PARSED[:] = [] if key is None else [(key, doc, classify(doc))]
    return doc

BODY_KEY = re.compile(r'"(messages|contents|choices|candidates|input|content|role|model|tools|system|instructions|'
                      r'systemInstruction|system_instruction|generationConfig)"\s*:')
"""A key of a model request or response. A body whose first 64 KiB hold only part of a huge value
(a long tool list or system prompt before ``messages``) is still parsed whole when one of these shows."""

CASSETTE_YAML = re.compile(r"(?m)^(interactions|http_interactions):")
CASSETTE_JSON = re.compile(r'"(interactions|http_interactions)"\s*:\s*\[')
HAR_JSON = re.compile(r'"log"\s*:\s*\{')


def detect(path: Path, head: str) -> str | None:
    """Which importer of this family a file belongs to (``recording``, ``openai_chat``,
    ``anthropic``, ``gemini``), from its content; cached per file version, since four sniffers ask."""
    key = _version(path)
    if key is None:
        return None
    if key not in _SHAPES:
        if len(_SHAPES) > 4096:
            _SHAPES.clear()
        _SHAPES[key] = _detect(path, head, key[2])
    return _SHAPES[key]


def _detect(path: Path, head: str, size: int) -> str | None:
    text = head.lstrip("\ufeff \t\r\n")
    if not text:
        return None
    if text[0] not in "{[":
        if CASSETTE_YAML.search(head) and re.search(r"(?m)^\s*-?\s*request:", head):
            return FORMAT
        return None
    if text[0] == "{" and (CASSETTE_JSON.search(head) or (HAR_JSON.search(head[:200]) and '"entries"' in head)):
        return FORMAT
    doc: object = None
    first_line = text.split("\n", 1)[0]
    if size <= 65536:
        doc = _parse_whole(path)
    if doc is None and "\n" in text.strip() and _parses(first_line):
        row = orjson.loads(first_line)
        if is_exchange(row):
            return FORMAT
        shape = classify(row)
        if shape is None and "role" in row:  # one message per line: every line must be a message
            rows = [orjson.loads(line) for line in text.split("\n")[:-1] if line.strip() and _parses(line)]
            shape = classify(rows) if all("role" in r for r in rows) else None
        return None if shape is None else wires()[shape[0]].format
    if doc is None and text[0] == "[":
        doc = _first_items(text)
    elif doc is None and size <= SNIFF_FULL_PARSE and BODY_KEY.search(head):
        doc = _parse_whole(path)
        if doc is None:
            return None
    if isinstance(doc, dict) and is_exchange(doc):
        return FORMAT
    shape = _PARSED[0][2] if _PARSED and _PARSED[0][1] is doc else classify(doc)
    return None if shape is None else wires()[shape[0]].format


def _first_items(text: str) -> list[object]:
    """The complete items at the start of a JSON array whose end lies beyond the head."""
    import json

    decoder = json.JSONDecoder()
    items: list[object] = []
    i = 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return items
        try:
            value, i = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            return items
        items.append(value)


def read(path: Path, ctx: ImportContext) -> list[Session]:
    """Every session of a recording or bare wire file."""
    loaded = load(path, ctx)
    if loaded is None:
        return []
    return sessions(loaded, path, ctx)


def sniff(path: Path, head: str) -> bool:
    return detect(path, head) == FORMAT


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Recorded model-API exchanges: VCR cassettes (YAML or JSON), HAR files, JSONL request logs",
)
