"""Goose (block/goose, now aaif-goose/goose) sessions read into the record.

Where Goose keeps a session depends on the release:

- before 1.10.0, one JSON Lines file per session, ``<data>/sessions/<session id>.jsonl``: a first line of
  session metadata (``working_dir``, ``description``, ``schedule_id``, ``message_count``, the token
  counts, later ``extension_data`` and ``recipe``; ``SessionMetadata`` in crates/goose/src/session/
  storage.rs), then one ``Message`` a line. A file whose first line is not metadata starts with a
  message (``read_messages`` there and in session/legacy.rs).
- since 1.10.0, one SQLite database ``<data>/sessions/sessions.db`` (``SessionStorage`` in
  session/session_manager.rs): table ``sessions`` (a column per session field) and ``messages`` (one
  row per message: ``role``, ``content_json``, ``created_timestamp``, ``metadata_json``, ``message_id``),
  under numbered migrations recorded in ``schema_version``. What each version changed that is read
  here: 2 ``user_recipe_values_json``, 3 ``messages.metadata_json`` (visibility), 4 ``name`` (before it
  the title was ``description``), 5 ``session_type``, 6 ``provider_name`` and ``model_config_json``, 7
  ``messages.message_id`` (filled as ``msg_<session>_<row id>``), 8 ``goose_mode``, 10 ``threads`` and
  ``thread_messages`` (the ACP server's chats, whose rows repeat the messages of the sessions serving
  them; see ``Threads``), 12 ``archived_at``
  and ``project_id``, 13 ``accumulated_cost``, 14 cache token counts, 15 ``parent_session_id`` (the
  session a subagent ran for) and ``usage_ledger`` (one row per provider call: model, tokens, cost).
  The legacy files are imported into the database when Goose creates it and left on disk.

A message (crates/goose/src/conversation/message.rs, later conversation/message/) is ``role`` (user or
assistant), ``created`` (epoch seconds, milliseconds in some releases), ``content`` (a list tagged by
``type``: text, image, toolRequest, toolResponse, toolConfirmationRequest, actionRequired,
frontendToolRequest, thinking, redactedThinking, systemNotification; in earlier releases also
contextLengthExceeded, summarizationRequested, conversationCompacted and reasoning; in the newest,
moved to crates/goose-provider-types, also document and error, and no frontendToolRequest) and
``metadata`` (``userVisible``, ``agentVisible``; later ``inference``, the provider and model; newest
``usage``, the reply's tokens and cost, and the flags ``turnContext``, ``steer``,
``outputTokenLimitReached``, kept as tags). A tool call's
``toolCall`` and a result's ``toolResult`` are ``{"status": "success", "value": ...}`` or
``{"status": "error", "error": ...}`` (conversation/tool_result_serde.rs); a result's value is an MCP
``CallToolResult`` (``content``, ``isError``, ``structuredContent``), in older sessions the content list
alone.

What a replayed history holds: what the model saw. A message Goose hid from the agent
(``agentVisible: false``: the originals a compaction replaced, notices for the user) stays in the
session, tagged ``agent_invisible``, as a leaf beside the path rather than on it; the session's tip is
the last message the agent saw, so the path is the history Goose would send next. Content the model is
never sent (confirmation and action requests, system notifications, error notices, compaction markers,
items annotated for the user's audience alone; ``filter_for_audience`` in message/content_types.rs) becomes
events on its message; a message of nothing else is no message of the record. Thinking, redacted
thinking and a call's Gemini thought signature are reasoning blocks. A call Goose could not parse
(``toolCall`` with status error) has no name or input, so it is kept as an opaque block and its result
crosses as a result without a call. A document (a PDF the user attached) is an opaque block: the record
has no kind for it, and it was sent.

Goose records no system prompt and no tool specs in a session; the model and provider are the
session's (``model_config_json``, ``provider_name``) or the message's (``metadata.inference``). Usage is
recorded per session (last request and accumulated) and, since schema 15, per provider call in
``usage_ledger`` without naming the message: both are kept as ``token_count`` events. A reply gets a
``Usage`` only where its own ``metadata.usage`` says (the newest releases).

Read from block/goose, read 2026-12-04: crates/goose/src/session/session_manager.rs (at 0164300,
schema 5; and its newest stored version, ``CURRENT_SCHEMA_VERSION`` 16, whose commit the source index
does not name), crates/goose/src/acp/server.rs (``on_prompt``), session/migrations.rs (865e4a0, schema 13),
session/session_storage.rs (2b73d36, schema 6), session/storage.rs (01a262b and e3e6f12, the JSONL
files), session/legacy.rs (0fc5e54), conversation/message.rs (0513296), message/mod.rs,
message/content_types.rs and message/tool_types.rs (865e4a0), crates/goose/src/message.rs (1f2f6b1,
the first content types), conversation/tool_result_serde.rs (0513296), config/paths.rs (0780e22); and
from aaif-goose/goose crates/goose-provider-types/src/conversation/message.rs (d841b2b, the newest).
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import orjson

from toolkit.corpus.formats.importer import (
    Head,
    ImportContext,
    Importer,
    iter_json_lines,
    name_stem,
    parse_time,
)
from toolkit.corpus.formats.layout import Layout, Parts, expand, setting
from toolkit.corpus.formats.shapes import as_int, json_value, kind_name, obj, shown, text_field, text_of
from toolkit.corpus.formats.sqlitefile import SQLITE_HEADER, columns, connect, holds, tables
from toolkit.corpus.formats.wirekit import Where
from toolkit.jsontext import json_text
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

FORMAT = "goose"

SESSIONS_FOLDER = "sessions"
DB_NAME = "sessions.db"
"""``SESSIONS_FOLDER`` and ``DB_NAME`` of session/session_manager.rs; the JSONL files sat in the same folder."""
DB_SIDE_FILES = frozenset({DB_NAME + "-wal", DB_NAME + "-shm", DB_NAME + "-journal"})
"""What SQLite keeps beside a database in WAL or rollback mode (https://www.sqlite.org/tempfiles.html)."""
DB_TABLES = frozenset({"sessions", "messages"})
MESSAGE_COLUMNS = frozenset({"session_id", "role", "content_json"})
"""The tables and the ``messages`` columns every schema version has (the first ``create`` of
session_manager.rs): OpenCode's database names its tables ``session``, ``message`` and ``part``."""

MILLISECOND_THRESHOLD = 10_000_000_000
"""A ``created`` above this is milliseconds (``MILLISECOND_TIMESTAMP_THRESHOLD`` of session_manager.rs)."""

BLOCK_TYPES = frozenset({"text", "image", "document", "toolRequest", "frontendToolRequest", "toolResponse",
                         "thinking", "redactedThinking", "reasoning"})
EVENT_TYPES: dict[str, EventKind] = {
    "toolConfirmationRequest": "meta", "actionRequired": "meta", "systemNotification": "meta",
    "summarizationRequested": "meta", "contextLengthExceeded": "error", "conversationCompacted": "compaction",
    "error": "error",
}
"""Content items the model is never sent: the Goose client's own requests, notices, errors and markers
(message.rs; the providers' formatters skip them or refuse them, as ``to_bedrock_message_content`` does
``contextLengthExceeded`` and ``summarizationRequested``; later releases drop ``conversationCompacted``
items, "pre-14.0", when they read a message)."""
CONTENT_TYPES = BLOCK_TYPES | frozenset(EVENT_TYPES)
FLAGS = {"turnContext": "turn_context", "steer": "steer", "outputTokenLimitReached": "output_limit_reached"}
"""Message flags of the newest ``MessageMetadata``, kept as tags: a per-turn context the agent appended, a
steer injected into a running turn, a reply cut at the output limit."""
THOUGHT_SIGNATURE = "thoughtSignature"
"""Where a Gemini call's thought signature sits: the call's own field (until late 2025), then its
provider ``metadata`` (``THOUGHT_SIGNATURE_KEY`` of providers/formats/google.rs)."""


# ---- where Goose keeps sessions ----------------------------------------------------------------------
# The data folder is the etcetera app strategy's for app "goose" by "Block" (config/paths.rs at 0780e22;
# session/storage.rs before it): choose_app_strategy is the XDG strategy everywhere but Windows
# (https://docs.rs/etcetera/latest/etcetera/app_strategy/fn.choose_app_strategy.html, read 2026-12-04),
# so $XDG_DATA_HOME/goose, default ~/.local/share/goose, on Linux and macOS, and %APPDATA%\Block\goose\data
# on Windows; GOOSE_PATH_ROOT, when an absolute path, replaces it with <root>/data. Sessions are in
# <data>/sessions: sessions.db since 1.10.0, <id>.jsonl before ("goose Logging System",
# https://block.github.io/goose/docs/guides/logs, read 2026-12-04).
GOOSE_PATH_ROOT = "GOOSE_PATH_ROOT"
XDG_DATA_HOME = "XDG_DATA_HOME"
APPDATA = "APPDATA"


def _descend(parts: Parts) -> bool:
    return False


def _wanted(parts: Parts) -> bool:
    return len(parts) == 1 and (parts[0] == DB_NAME or parts[0].endswith(".jsonl"))


def layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where Goose keeps sessions (see the rules above)."""
    root = setting(env, GOOSE_PATH_ROOT)
    if root is not None and os.path.isabs(root):
        return [Layout(FORMAT, Path(root) / "data" / SESSIONS_FOLDER, GOOSE_PATH_ROOT, _descend, _wanted)]
    xdg = setting(env, XDG_DATA_HOME)
    data, by = ((expand(xdg, home) / "goose", XDG_DATA_HOME) if xdg is not None
                else (home / ".local" / "share" / "goose", "default"))
    appdata = setting(env, APPDATA)
    windows, win_by = ((expand(appdata, home), APPDATA) if appdata is not None
                       else (home / "AppData" / "Roaming", "default"))
    return [Layout(FORMAT, data / SESSIONS_FOLDER, by, _descend, _wanted),
            Layout(FORMAT, windows / "Block" / "goose" / "data" / SESSIONS_FOLDER, win_by, _descend, _wanted)]


# ---- detection ---------------------------------------------------------------------------------------

HEAD_START = re.compile(
    r'\{"working_dir":"(?:[^"\\]|\\.)*","description":'
    r'|\{(?:"id":(?:null|"(?:[^"\\]|\\.)*"),)?"role":"(?:user|assistant)","created":\d+,"content":\[\{"type":"')
"""The start of a first line too long for the head, as serde_json writes it: the metadata's fields in
``SessionMetadata`` order, a message's in ``Message`` order."""


def sniff(found: Head) -> str | None:
    """``"sqlite"`` for a database with Goose's tables, ``"jsonl"`` for a session file whose first record
    is Goose's session metadata or message, else ``None``."""
    data = found.data
    if data.startswith(SQLITE_HEADER):
        return "sqlite" if holds(found.path, DB_TABLES, "messages", MESSAGE_COLUMNS) else None
    if data.lstrip()[:2] != b'{"' or (b'"role"' not in data and b'"description"' not in data):
        return None
    for line in found.lines(3):
        text = line.strip()
        if not text:
            continue
        record = found.value(text)
        if isinstance(record, dict):
            return "jsonl" if _is_metadata(record) or _is_message(record) else None
        return "jsonl" if HEAD_START.match(text) else None
    return None


def _is_metadata(record: dict[str, Any]) -> bool:
    return "description" in record and as_int(record.get("message_count")) is not None and "role" not in record


def _is_message(record: dict[str, Any]) -> bool:
    content = record.get("content")
    if record.get("role") not in ("user", "assistant") or as_int(record.get("created")) is None:
        return False
    if not isinstance(content, list):
        return False
    if not content:
        return "userVisible" in obj(record.get("metadata"))
    return any(isinstance(item, dict) and item.get("type") in CONTENT_TYPES for item in content)


def _beside_db(path: str) -> bool:
    """Whether a file sits in a Goose sessions folder that holds the database."""
    folder = os.path.dirname(path)
    return os.path.basename(folder) == SESSIONS_FOLDER and os.path.isfile(os.path.join(folder, DB_NAME))


def owns(path: str) -> bool:
    """SQLite's files beside ``sessions.db``, and the legacy session files beside it: the database read
    takes those its ``sessions`` table lacks (Goose imported the others when it made the database)."""
    name = os.path.basename(path)
    if name in DB_SIDE_FILES:
        return os.path.isfile(os.path.join(os.path.dirname(path), DB_NAME))
    return name.endswith(".jsonl") and _beside_db(path)


# ---- one session's messages --------------------------------------------------------------------------


def goose_time(value: object) -> datetime | None:
    """A message's ``created`` (seconds, or milliseconds above Goose's threshold) or a column's text time
    (SQLite's ``CURRENT_TIMESTAMP`` is UTC without saying so)."""
    number = as_int(value)
    if number is not None and not isinstance(value, str):
        seconds = number / 1000 if number > MILLISECOND_THRESHOLD else number
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    found = parse_time(value)
    return found.replace(tzinfo=UTC) if found is not None and found.tzinfo is None else found


@dataclass
class Builder:
    """The messages of one session as they come, in Goose's order."""

    where: Where
    session_id: str
    model: str | None = None
    provider: str | None = None
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    calls: dict[str, str] = field(default_factory=dict)
    """Call id → tool name (``""`` for a call Goose could not parse)."""
    ids: set[str] = field(default_factory=set)
    tip: str | None = None
    """The last message the agent saw."""

    @cached_property
    def _whole(self) -> SourceRef:
        """Where a message of the database is: the file (its rows have no lines)."""
        return self.where.source(None)

    def add(self, raw: dict[str, Any], message_id: str, line: int | None, what: str, lead: Block | None = None) -> None:
        """One Goose ``Message`` (``what`` names it in problems: its line or row); ``lead`` is a block kept in
        place of content that could not be read."""
        source = self._whole if line is None else self.where.source(line)
        if message_id in self.ids:
            message_id = f"{message_id}#{len(self.messages)}"
        role = raw.get("role")
        record_role: Role = "assistant" if role == "assistant" else "user"
        metadata = obj(raw.get("metadata"))
        inference = obj(metadata.get("inference"))
        model = text_of(inference.get("resolvedModel")) or text_of(inference.get("requestedModel")) or self.model
        provider = text_of(inference.get("provider")) or self.provider
        time = goose_time(raw.get("created"))
        blocks: list[Block] = [] if lead is None else [lead]
        events: list[Event] = []
        if role not in ("user", "assistant"):
            self.where.problem(line, f"{what}: message with unknown role {shown(role)}; kept as a user message")
            blocks.append(Opaque("message", json_value(raw), "unknown role"))
        content = raw.get("content")
        if isinstance(content, list):
            for item in content:
                self._item(item, record_role == "assistant", model, provider, line, what, blocks, events)
        elif not blocks:
            self.where.problem(line, f"{what}: content is {shown(content)}, not a list; kept as opaque")
            blocks.append(Opaque("content", json_value(content), "not a list"))
        seen = metadata.get("agentVisible") is not False
        tags = [] if seen else ["agent_invisible"]
        if metadata.get("userVisible") is False:
            tags.append("user_invisible")
        tags.extend(tag for key, tag in FLAGS.items() if metadata.get(key) is True)
        if not blocks and content:
            for event in events:
                self.events.append(_on(event, self.tip, time, source))
            return
        speaker = record_role == "assistant"
        self.messages.append(Message(message_id, self.tip, record_role, tuple(blocks), time,
                                     model if speaker else None, provider if speaker else None,
                                     message_usage(metadata.get("usage")) if speaker else None, source,
                                     False, tuple(tags)))
        self.ids.add(message_id)
        self.events.extend(_on(event, message_id, time, source) for event in events)
        if seen:
            self.tip = message_id

    def _item(self, item: object, speaker: bool, model: str | None, provider: str | None, line: int | None,
              what: str, blocks: list[Block], events: list[Event]) -> None:
        kind = text_of(item.get("type")) if isinstance(item, dict) else None
        if not isinstance(item, dict) or kind is None:
            self.where.problem(line, f"{what}: content item {shown(item)} has no type; kept as opaque")
            blocks.append(Opaque(kind_name(kind), json_value(item), "no type"))
            return
        if kind in EVENT_TYPES:
            events.append(_client_event(kind, item))
            return
        if kind in ("text", "image") and not _for_model(item):
            shown_to_user = text_of(item.get("text")) or text_of(item.get("mimeType")) or ""
            events.append(Event("meta", f"{kind}:user_audience", text=shown_to_user, raw_json=packed(json_value(item))))
            return
        match kind:
            case "text":
                text = item.get("text")
                if isinstance(text, str):
                    blocks.append(Text(text))
                else:
                    self.where.problem(line, f"{what}: text item without text ({shown(text)}); kept as opaque")
                    blocks.append(Opaque(kind, json_value(item), "no text"))
            case "image":
                blocks.append(self._image(item, line, what))
            case "toolRequest" | "frontendToolRequest":
                blocks.extend(self._call(item, model, provider, line, what))
            case "toolResponse":
                blocks.extend(self._result(item, line, what))
            case "thinking":
                blocks.append(Reasoning(text_of(item.get("thinking")) or "", text_of(item.get("signature")) or None,
                                        provider if speaker else None, model if speaker else None))
            case "redactedThinking":
                blocks.append(Reasoning("", text_of(item.get("data")), provider if speaker else None,
                                        model if speaker else None, redacted=True))
            case "reasoning":
                blocks.append(Reasoning(text_of(item.get("text")) or "", None, provider if speaker else None,
                                        model if speaker else None))
            case "document":
                blocks.append(Opaque(kind, json_value(item), "a document (such as a PDF) sent to the model; the "
                                                             "record has no kind for it"))
            case _:
                self.where.problem(line, f"{what}: unknown content type {shown(kind)}; kept as opaque")
                blocks.append(Opaque(kind, json_value(item), "unknown content type"))

    def _image(self, item: dict[str, Any], line: int | None, what: str) -> Image | Opaque:
        data = item.get("data")
        if not isinstance(data, str):
            self.where.problem(line, f"{what}: image without data ({shown(data)}); kept as opaque")
            return Opaque("image", json_value(item), "no data")
        return self.where.ctx.image_base64(data, text_of(item.get("mimeType")), self.where.file, line)

    def _call(self, item: dict[str, Any], model: str | None, provider: str | None, line: int | None,
              what: str) -> list[Block]:
        call_id = text_field(item.get("id"), f"{what}: call id", lambda r: self.where.problem(line, r))
        call = obj(item.get("toolCall"))
        if call.get("status") != "success":
            self.calls[call_id] = ""
            return [Opaque(str(item.get("type")), json_value(item),
                           f"a call Goose could not parse: {text_of(call.get('error')) or shown(call)}")]
        value = obj(call.get("value"))
        name = text_field(value.get("name"), f"{what}: tool name", lambda r: self.where.problem(line, r))
        arguments = value.get("arguments")
        self.calls[call_id] = name
        out: list[Block] = []
        signature = text_of(item.get(THOUGHT_SIGNATURE)) or text_of(obj(item.get("metadata")).get(THOUGHT_SIGNATURE))
        if signature:
            out.append(Reasoning("", signature, provider, model))
        out.append(ToolUse(call_id, name, {} if arguments is None else json_value(arguments)))
        return out

    def _result(self, item: dict[str, Any], line: int | None, what: str) -> list[Block]:
        call_id = text_field(item.get("id"), f"{what}: result id", lambda r: self.where.problem(line, r))
        if call_id not in self.calls:
            self.where.problem(line, f"{what}: tool response for call {call_id!r} has no earlier call (orphan); kept")
        name = self.calls.get(call_id) or None
        result = obj(item.get("toolResult"))
        if result.get("status") != "success":
            error = text_of(result.get("error")) or json_text(json_value(result))
            return [ToolResult(call_id, error, True, (), name)]
        value = result.get("value")
        detail: dict[str, JsonValue] = {}
        is_error = False
        if isinstance(value, dict):
            contents = value.get("content")
            is_error = value.get("isError") is True
            for key in ("structuredContent", "_meta"):
                if value.get(key) is not None:
                    detail[key] = json_value(value[key])
        else:
            contents = value
        if item.get("metadata") is not None:
            detail["metadata"] = json_value(item["metadata"])
        if not isinstance(contents, list):
            self.where.problem(line, f"{what}: tool result content is {shown(contents)}, not a list; kept as opaque")
            return [ToolResult(call_id, "", is_error, (), name, packed(json_value(value))),
                    Opaque("toolResult", json_value(value), "content not a list")]
        texts: list[str] = []
        images: list[Image] = []
        others: list[Block] = []
        unseen: list[JsonValue] = []
        for content in contents:
            self._result_content(content, line, what, texts, images, others, unseen)
        if unseen:
            detail["user_only"] = unseen
        return [ToolResult(call_id, "\n".join(texts), is_error, tuple(images), name, packed(detail or None)), *others]

    def _result_content(self, content: object, line: int | None, what: str, texts: list[str], images: list[Image],
                        others: list[Block], unseen: list[JsonValue]) -> None:
        """One MCP content item of a result: its words, its image, or (for the user alone) left out of
        what the model saw (``filter_for_audience``)."""
        if not isinstance(content, dict):
            self.where.problem(line, f"{what}: tool result item {shown(content)} is not an object; kept as opaque")
            others.append(Opaque("tool_result_content", json_value(content), "not an object"))
            return
        if not _for_model(content):
            unseen.append(json_value(content))
            return
        match text_of(content.get("type")):
            case "text":
                texts.append(text_of(content.get("text")) or "")
            case "image":
                image = self._image(content, line, what)
                if isinstance(image, Image):
                    images.append(image)
                else:
                    others.append(image)
            case "resource":
                resource = obj(content.get("resource"))
                text = text_of(resource.get("text"))
                texts.append(text if text is not None else
                             f"[Binary content: {text_of(resource.get('mimeType')) or 'unknown type'}, "
                             f"{text_of(resource.get('uri')) or 'no uri'}]")
            case "resource_link" | "resourceLink":
                texts.append("[Resource link]")
            case "audio":
                texts.append("[Audio content: not supported]")
            case other:
                self.where.problem(line, f"{what}: unknown tool result content type {shown(other)}; kept as opaque")
                others.append(Opaque(kind_name(content.get("type")), json_value(content), "unknown content type"))

    def session(self, file: str, title: str | None, configs: tuple[RunConfig, ...], events: list[Event],
                parent: str | None = None) -> Session:
        tip = self.tip if self.tip is not None else (self.messages[-1].id if self.messages else None)
        return Session(self.session_id, FORMAT, tuple(self.messages), tip, file, configs,
                       tuple([*events, *self.events]), parent, None, title)


def message_usage(value: object) -> Usage | None:
    """A reply's ``metadata.usage`` (``MessageUsage``, the newest releases) as the record's usage. Goose's
    ``inputTokens`` counts every input token, cache reads and writes included (the Anthropic format adds
    them, providers/formats/anthropic.rs; OpenAI's ``prompt_tokens`` includes cached tokens), so the
    fresh input is what is left once the cache counts are taken off."""
    usage = obj(value)
    total, output = as_int(usage.get("inputTokens")), as_int(usage.get("outputTokens"))
    read, write = as_int(usage.get("cacheReadTokens")), as_int(usage.get("cacheWriteTokens"))
    if total is None and output is None:
        return None
    fresh = None if total is None else max(total - (read or 0) - (write or 0), 0)
    return Usage(fresh, output, read, write)


def _for_model(item: dict[str, Any]) -> bool:
    """Whether an item reaches the model: MCP ``annotations.audience``, when given, names the assistant."""
    audience = obj(item.get("annotations")).get("audience")
    return not isinstance(audience, list) or "assistant" in audience


def _client_event(kind: str, item: dict[str, Any]) -> Event:
    """A content item the model is never sent, as an event with Goose's own words for it."""
    event_kind = EVENT_TYPES[kind]
    text = text_of(item.get("msg")) or text_of(item.get("prompt")) or text_of(item.get("toolName")) or ""
    name = kind
    if kind == "systemNotification":
        notification = text_of(item.get("notificationType")) or "unknown"
        name = f"{kind}:{notification}"
        event_kind = "error" if notification == "creditsExhausted" else "meta"
    elif kind == "error":
        name = f"{kind}:{text_of(item.get('kind')) or 'unknown'}"
        text = text_of(item.get("message")) or ""
    elif kind == "actionRequired":
        data = obj(item.get("data"))
        name = f"{kind}:{text_of(data.get('actionType')) or 'unknown'}"
        text = text_of(data.get("toolName")) or text_of(data.get("message")) or ""
    return Event(event_kind, name, text=text, raw_json=packed(json_value(item)))


def _on(event: Event, message_id: str | None, time: datetime | None, source: Any) -> Event:
    return Event(event.kind, event.type, time, message_id, event.text, event.raw_json, source)


# ---- session information -----------------------------------------------------------------------------

TOKEN_FIELDS = ("total_tokens", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
                "accumulated_total_tokens", "accumulated_input_tokens", "accumulated_output_tokens",
                "accumulated_cache_read_tokens", "accumulated_cache_write_tokens", "accumulated_cost")
"""The session's token counts: the last request's and the session's sums (``Session`` of session_manager.rs)."""
JSON_COLUMNS = ("extension_data", "recipe_json", "user_recipe_values_json", "model_config_json")


@dataclass(frozen=True)
class Info:
    """What a session's metadata line or ``sessions`` row says besides its messages."""

    title: str | None
    model: str | None
    provider: str | None
    parent: str | None
    time: datetime | None
    updated: datetime | None
    raw: dict[str, JsonValue]

    def events(self, source: Any) -> list[Event]:
        out = [Event("meta", "session", self.time, None, _describe(self.raw), packed(self.raw), source)]
        tokens = {k: self.raw[k] for k in TOKEN_FIELDS if self.raw.get(k) is not None}
        if tokens:
            out.append(Event("token_count", "session_tokens", self.updated, None,
                             ", ".join(f"{k} {v}" for k, v in tokens.items()), packed(tokens), source))
        return out

    def configs(self, source: Any) -> tuple[RunConfig, ...]:
        if self.model is None and self.provider is None:
            return ()
        return (RunConfig(model=self.model, provider=self.provider, source=source),)


def _describe(raw: Mapping[str, JsonValue]) -> str:
    kind = text_of(raw.get("session_type")) or "user"
    where = text_of(raw.get("working_dir"))
    return f"{kind} session" + (f" in {where}" if where else "")


def _info(raw: dict[str, JsonValue]) -> Info:
    config = obj(raw.get("model_config_json") or raw.get("model_config"))
    title = text_of(raw.get("name")) or text_of(raw.get("description")) or None
    return Info(title, text_of(config.get("model_name")), text_of(raw.get("provider_name")),
                text_of(raw.get("parent_session_id")), goose_time(raw.get("created_at")),
                goose_time(raw.get("updated_at")), raw)


def _parsed(text: object, what: str, where: Where) -> JsonValue:
    """A JSON column's value, its text kept (and reported) when it does not parse."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        return json_value(text)
    try:
        return json_value(orjson.loads(text))
    except orjson.JSONDecodeError as exc:
        where.problem(None, f"{what} is not valid JSON ({exc}); kept as text")
        return text


# ---- the legacy JSON Lines files ---------------------------------------------------------------------


def read_legacy(path: Path, ctx: ImportContext) -> list[Session]:
    where = Where(path, ctx)
    builder = Builder(where, name_stem(path.name))
    info: Info | None = None
    first = True
    for line, record in iter_json_lines(path, ctx):
        if first and _is_metadata(record):
            info = _info(record)
            builder.model, builder.provider = info.model, info.provider
            first = False
            continue
        first = False
        builder.add(record, f"{builder.session_id}:{line}", line, f"line {line}")
    source = where.source(1 if info is not None else None)
    return [builder.session(where.name, info.title if info else None, info.configs(source) if info else (),
                            info.events(source) if info else [])]


# ---- the database ------------------------------------------------------------------------------------


def read_database(path: Path, ctx: ImportContext) -> list[Session]:
    where = Where(path, ctx)
    try:
        con = connect(path)
    except sqlite3.Error as exc:
        ctx.problem(path, None, f"SQLite database cannot be opened: {exc}")
        return []
    try:
        found = tables(con)
        if not found >= DB_TABLES:
            ctx.problem(path, None, f"SQLite database without Goose's tables (has {sorted(found)[:8]}); not read")
            return []
        sessions = _database_sessions(con, found, where)
    except sqlite3.Error as exc:
        ctx.problem(path, None, f"SQLite database could not be read: {exc}")
        return []
    finally:
        con.close()
    if path.name == DB_NAME and _beside_db(str(path)):
        sessions.extend(_legacy_beside(path, {s.id for s in sessions}, ctx))
    return sessions


def _rows(con: sqlite3.Connection, sql: str) -> list[dict[str, Any]]:
    """The rows of a query as column name → value."""
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor]


def _database_sessions(con: sqlite3.Connection, found: set[str], where: Where) -> list[Session]:
    message_columns = columns(con, "messages")
    order = "created_timestamp, id" if "created_timestamp" in message_columns else "id"
    infos = {str(row["id"]): row for row in _rows(con, "SELECT * FROM sessions ORDER BY created_at, id")}
    rows: dict[str, list[dict[str, Any]]] = {}
    for row in _rows(con, f"SELECT * FROM messages ORDER BY session_id, {order}"):
        rows.setdefault(str(row["session_id"]), []).append(row)
    ledger: dict[str, list[dict[str, Any]]] = {}
    if "usage_ledger" in found:
        for row in _rows(con, "SELECT * FROM usage_ledger ORDER BY session_id, created_timestamp, id"):
            ledger.setdefault(str(row["session_id"]), []).append(row)
    source = where.source(None)
    out: list[Session] = []
    threads = (_threads(con, where, {*infos, *rows}) if {"threads", "thread_messages"} <= found else Threads())
    for session_id in dict.fromkeys([*infos, *rows]):
        info_row = infos.get(session_id)
        if info_row is None:
            where.problem(None, f"messages of session {session_id}, which is not in the sessions table: a partial "
                                "session")
        raw = {k: (_parsed(v, f"session {session_id} {k}", where) if k in JSON_COLUMNS else json_value(v))
               for k, v in (info_row or {"id": session_id}).items()}
        info = _info(raw)
        builder = Builder(where, session_id, info.model, info.provider)
        for message in rows.get(session_id, []):
            _add_row(builder, message, session_id, where)
        events = [*info.events(source), *(_ledger_event(entry, source) for entry in ledger.get(session_id, [])),
                  *threads.by_session.get(session_id, [])]
        out.append(builder.session(where.name, info.title, info.configs(source), events, info.parent))
    return out + threads.alone


def _add_row(builder: Builder, row: dict[str, Any], session_id: str, where: Where) -> None:
    """One ``messages`` (or ``thread_messages``) row as the ``Message`` Goose would read from it."""
    what = f"message row {row.get('id')} of {session_id}"
    content = _parsed(row.get("content_json"), f"{what} content_json", where)
    metadata = _parsed(row.get("metadata_json"), f"{what} metadata_json", where) if row.get("metadata_json") else {}
    lead: Block | None = None
    if isinstance(content, str):
        content, lead = [], Opaque("content_json", content, "not valid JSON")
    raw = {"role": row.get("role"), "created": row.get("created_timestamp"), "content": content,
           "metadata": metadata if isinstance(metadata, dict) else {}}
    message_id = text_of(row.get("message_id")) or f"msg_{session_id}_{row.get('id')}"
    builder.add(raw, message_id, None, what, lead)


def _ledger_event(row: dict[str, Any], source: Any) -> Event:
    text = (f"{text_of(row.get('model')) or 'unknown model'}: {row.get('input_tokens')} in, "
            f"{row.get('output_tokens')} out" + (" (compaction)" if row.get("is_compaction") else ""))
    return Event("token_count", "usage_ledger", goose_time(row.get("created_timestamp")), None, text,
                 packed({k: json_value(v) for k, v in row.items()}), source)


@dataclass
class Threads:
    """The chats of ``threads`` (schema 10): the ACP server keeps one per client conversation and appends
    each prompt to it as well as to the session that serves it (``append_message`` then ``agent.reply``
    in ``on_prompt`` of crates/goose/src/acp/server.rs, read 2026-12-04), so a thread's rows that name a session of the database repeat that session's
    messages. Those are told as a ``thread`` event on the session; the rows that name no such session are
    read as a session ``thread:<id>`` of their own, so nothing is lost or counted twice."""

    by_session: dict[str, list[Event]] = field(default_factory=dict)
    alone: list[Session] = field(default_factory=list)


def _threads(con: sqlite3.Connection, where: Where, known: set[str]) -> Threads:
    messages: dict[str, list[dict[str, Any]]] = {}
    for row in _rows(con, "SELECT * FROM thread_messages ORDER BY thread_id, created_timestamp, id"):
        messages.setdefault(str(row["thread_id"]), []).append(row)
    threads = {str(row["id"]): row for row in _rows(con, "SELECT * FROM threads ORDER BY created_at, id")}
    source = where.source(None)
    out = Threads()
    for thread_id in dict.fromkeys([*threads, *messages]):
        row = threads.get(thread_id) or {"id": thread_id}
        raw: dict[str, JsonValue] = {k: json_value(v) for k, v in row.items()}
        rows = messages.get(thread_id, [])
        served = [r for r in rows if text_of(r.get("session_id")) in known]
        for session_id in dict.fromkeys(str(r["session_id"]) for r in served):
            count = sum(str(r["session_id"]) == session_id for r in served)
            out.by_session.setdefault(session_id, []).append(
                Event("meta", "thread", goose_time(row.get("created_at")), None,
                      f"thread {thread_id}: {count} of its messages are this session's", packed(raw), source))
        rest = [r for r in rows if text_of(r.get("session_id")) not in known]
        if rest or not served:
            session_id = f"thread:{thread_id}"
            builder = Builder(where, session_id)
            for message in rest:
                _add_row(builder, message, session_id, where)
            event = Event("meta", "thread", goose_time(row.get("created_at")), None, _describe(raw), packed(raw), source)
            out.alone.append(builder.session(where.name, text_of(row.get("name")), (), [event]))
    return out


def _legacy_beside(path: Path, known: set[str], ctx: ImportContext) -> list[Session]:
    """The legacy files beside the database whose session it lacks (an import that failed, a file put
    there later): read from the file, as the folder load left them to this read (``owns``)."""
    out: list[Session] = []
    for entry in sorted(os.listdir(path.parent)):
        if not entry.endswith(".jsonl") or name_stem(entry) in known:
            continue
        legacy = path.parent / entry
        if not legacy.is_file():
            continue
        detected = sniff(Head.of_file(legacy))
        ctx.beside(path, legacy)
        if detected != "jsonl":
            ctx.problem(legacy, None, "a file beside sessions.db that is not a Goose session; not read")
            continue
        out.extend(read_legacy(legacy, ctx))
    return out


# ---- entry -------------------------------------------------------------------------------------------


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    if detection is None:
        detection = sniff(Head.of_file(path))
    match detection:
        case "sqlite":
            return read_database(path, ctx)
        case "jsonl":
            return read_legacy(path, ctx)
    ctx.problem(path, None, "not a Goose session file or sessions database")
    return []


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Goose sessions: sessions.db (SQLite, 1.10.0 on) or one <id>.jsonl per session (before)",
    client="Goose",
    layouts=layouts,
    names_only="Goose stores the tools called, never the tool specs or system prompt sent",
    owns=owns,
)
