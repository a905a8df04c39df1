"""Gemini CLI sessions, in every layout the CLI writes.

- chat recordings: ``~/.gemini/tmp/<project>/chats/session-*.json``, one JSON object
  ``{sessionId, projectHash, startTime, lastUpdated, messages[]}``, and their JSONL successor where
  the first line holds that metadata, each later line a message record (a record whose ``id``
  repeats replaces the earlier one), ``{"$rewindTo": id}`` (the message and all after it leave the
  conversation) or ``{"$set": {...}}`` (a metadata update). Source: ``chatRecordingService.ts`` and
  ``chatRecordingTypes.ts`` in https://github.com/google-gemini/gemini-cli (packages/core/src/
  services, read 2026);
- headless output: ``--output-format stream-json`` (events ``init``, ``message``, ``tool_use``,
  ``tool_result``, ``error``, ``result``; packages/core/src/output/types.ts) and
  ``--output-format json`` (one object ``{session_id, response, stats, error}``);
- ``logs.json`` (the prompts typed, per session) and the checkpoints ``/chat save`` writes
  (``{"history": Content[], "authType"}``) and ``/restore`` reads (``{"clientHistory": Content[],
  "toolCall", ...}``), both in packages/core/src/core/logger.ts. A bare ``Content[]`` array (the
  oldest ``/chat save`` layout) is Gemini ``contents`` and is left to that importer.

Parts (``PartListUnion``) are read by ``gemini_contents.parts_to_blocks``, the same reading as
any Gemini ``contents``. Each ``gemini`` message with tool calls becomes an assistant message
(thoughts, text, calls) and then a ``tool`` message with the results (``resultDisplay`` is the
result's detail). ``info``, ``warning`` and ``error`` messages are the
CLI's own notices, never sent to the model, so they are events. A rewind leaves the rewound
messages in the tree and branches the next message off before them.

Each result is read once, from the call's record. The CLI also writes the turn that sent results back
as a ``user`` message: before 0.44 only when a steering hint rode with the results (the turn then held
text beside the ``functionResponse`` parts, and ``isFunctionResponse`` asked for every part to be one,
packages/core/src/utils/messageInspectors.ts before f47d6c6f7a, 2026-07-31), from 0.44 always
(``recordSyntheticMessage`` in geminiChat.ts, 055e0f6452, 2026-05-18). A ``functionResponse`` there that
answers a call already answered is left out, the hint stays a user message, and a record left empty
is no message. Since 0.44 ``updateMessagesFromHistory`` (chatRecordingService.ts) may also overwrite
each call's ``result`` with that whole turn: a call's result is its own ``functionResponse`` and the
parts after it up to the next one.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any, assert_never

from toolkit.corpus.formats.gemini_contents import contents_to_record, parts_to_blocks
from toolkit.corpus.formats.importer import (
    NOT_JSON,
    Head,
    ImportContext,
    Importer,
    iter_json_lines,
    parse_time,
    read_json,
)
from toolkit.corpus.formats.layout import gemini_cli_layouts
from toolkit.corpus.formats.shapes import as_int, items, json_value, kind_name, shown, text_of
from toolkit.corpus.formats.wirekit import CallBook, Origin, Where, tool_use, unread_message
from toolkit.jsontext import stringify
from toolkit.record import (
    Block,
    Event,
    EventKind,
    Image,
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

FORMAT = "gemini_cli"
PROVIDER = "google"

STREAM_TYPES = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})
"""``JsonStreamEventType`` in gemini-cli packages/core/src/output/types.ts."""

NOTICE_KINDS: dict[str, EventKind] = {"info": "meta", "warning": "other", "error": "error"}
"""Chat-recording message types that are the CLI's notices rather than conversation."""

ERROR_STATUSES = frozenset({"error", "cancelled"})
"""Tool-call statuses whose result reached the model as an error (scheduler ``Status``)."""



def usage(tokens: object) -> Usage | None:
    """Gemini usage as the CLI recorded it (``TokensSummary``: input = promptTokenCount, output =
    candidatesTokenCount, cached = cachedContentTokenCount, thoughts, tool = toolUsePromptTokenCount).
    ``promptTokenCount`` includes the cached tokens, and thinking and tool-use prompt tokens are
    counted apart from prompt and candidates (UsageMetadata,
    https://ai.google.dev/api/generate-content#UsageMetadata, read 2026), so fresh input is
    input + tool - cached and output is candidates + thoughts."""
    if not isinstance(tokens, dict):
        return None
    prompt = as_int(tokens.get("input"))
    if prompt is None:
        return None
    cached, tool, thoughts = (as_int(tokens.get(key)) or 0 for key in ("cached", "tool", "thoughts"))
    out = as_int(tokens.get("output"))
    return Usage(max(prompt + tool - cached, 0), out + thoughts if out is not None else None, cached, None)


def _parts(value: object) -> list[Any]:
    """A ``PartListUnion`` (a string, one part, or a list of both) as a list of parts."""
    if value is None or value == "":
        return []
    items = value if isinstance(value, list) else [value]
    return [{"text": p} if isinstance(p, str) else p for p in items if p != ""]


def _words(value: object) -> str:
    """The text of a notice's content, which the model never sees."""
    return "\n".join(p["text"] for p in _parts(value) if isinstance(p, dict) and isinstance(p.get("text"), str))


class _Session:
    """Messages, events and run configs of one Gemini CLI session being read."""

    def __init__(self, path: Path, ctx: ImportContext, sid: str) -> None:
        self.path = path
        self.ctx = ctx
        self.file = ctx.name(path)
        self.sid = sid
        self.where = Where(path, ctx)
        self.book = CallBook()
        self.messages: list[Message] = []
        self.events: list[Event] = []
        self.configs: list[RunConfig] = []
        self.model: str | None = None
        self.title: str | None = None
        self.parent_session_id: str | None = None
        self.answered: set[str] = set()
        """Calls whose result a gemini record's ``toolCalls`` gave (see the module's docstring)."""

    def add(self, mid: str, parent: str | None, role: Role, blocks: list[Block], line: int | None,
            time: datetime | None, model: str | None = None, use: Usage | None = None,
            tags: tuple[str, ...] = ()) -> Message:
        if model is not None and model != self.model:
            self.model = model
            self.configs.append(RunConfig(model, PROVIDER, message_id=mid, time=time, source=self.source(line)))
        message = Message(mid, parent, role, tuple(blocks), time, model if role == "assistant" else None,
                          PROVIDER if role == "assistant" else None, use, self.source(line), tags=tags)
        self.messages.append(message)
        return message

    def event(self, kind: EventKind, type_: str, time: datetime | None, text: str, raw: object,
              line: int | None, message_id: str | None = None) -> None:
        self.events.append(Event(kind, type_, time, message_id, text, packed(json_value(raw)), self.source(line)))

    def blocks(self, value: object, message_id: str, line: int | None, model: str | None = None) -> list[Block]:
        return parts_to_blocks(_parts(value), message_id, self.where, line, model, PROVIDER, self.book)

    def call(self, call_id: str, name: str, arguments: object, line: int | None) -> ToolUse:
        self.book.call(call_id, name)
        return tool_use(call_id, name, arguments, self.where, line)

    def source(self, line: int | None) -> SourceRef:
        return SourceRef(self.file, line)

    def session(self, tip: str | None = None) -> Session:
        """A session with messages always names a tip: the last message when nothing else is
        live (a rewind to before the first message, reported as a problem or event)."""
        if tip is None and self.messages:
            tip = self.messages[-1].id
        return Session(self.sid, FORMAT, tuple(self.messages), tip, self.file, tuple(self.configs),
                       tuple(self.events), self.parent_session_id, title=self.title)


def _role_of(blocks: list[Block]) -> Role:
    return "tool" if blocks and all(isinstance(b, ToolResult) for b in blocks) else "user"


# -- chat recordings -------------------------------------------------------------------------------


class _Recording:
    """A chat recording: metadata, message records (updated in place by id), rewinds."""

    def __init__(self, path: Path, ctx: ImportContext) -> None:
        self.path = path
        self.ctx = ctx
        self.meta: dict[str, Any] = {}
        self.records: dict[str, tuple[int | None, dict[str, Any]]] = {}
        self.parent: dict[str, str | None] = {}
        self.chain: list[str] = []
        self.notes: list[tuple[EventKind, str, datetime | None, str, object, int | None]] = []

    def record(self, line: int | None, rec: dict[str, Any]) -> None:
        rewind = rec.get("$rewindTo")
        if isinstance(rewind, str):
            self.rewind(rewind, line)
        elif isinstance(rec.get("$set"), dict):
            update = rec["$set"]
            self.meta.update({k: v for k, v in update.items() if k != "messages"})
            self.notes.append(("meta", "$set", None, ", ".join(sorted(update)), rec, line))
            if isinstance(update.get("messages"), list):
                self.messages(update["messages"], line)
        elif isinstance(rec.get("id"), str) and "type" in rec:
            self.message(line, rec)
        elif "sessionId" in rec:
            self.meta.update({k: v for k, v in rec.items() if k != "messages"})
            if isinstance(rec.get("messages"), list):
                self.messages(rec["messages"], line)
        else:
            self.notes.append(("other", kind_name(rec.get("type", "unknown")), None, "", rec, line))

    def messages(self, items: list[Any], line: int | None) -> None:
        """Messages held inside one document: their record index + 1 stands for the line when
        the document is pretty-printed JSON (``line`` is ``None``)."""
        for index, item in enumerate(items, 1):
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                self.message(line if line is not None else index, item)
            else:
                self.ctx.problem(self.path, line if line is not None else index,
                                 f"messages[{index - 1}] is not a message record with an id")

    def message(self, line: int | None, rec: dict[str, Any]) -> None:
        mid = rec["id"]
        if mid in self.records:
            self.records[mid] = (self.records[mid][0], rec)
            if mid not in self.chain:
                self.chain.append(mid)
            return
        self.records[mid] = (line, rec)
        self.parent[mid] = self.chain[-1] if self.chain else None
        self.chain.append(mid)

    def rewind(self, target: str, line: int | None) -> None:
        self.notes.append(("other", "$rewindTo", None, target, {"$rewindTo": target}, line))
        if target in self.chain:
            del self.chain[self.chain.index(target):]
        else:
            self.ctx.problem(self.path, line, f"rewind to message {target} that the session does not hold")
            self.chain.clear()

    def session(self) -> Session:
        sid = self.meta.get("sessionId")
        out = _Session(self.path, self.ctx, sid if isinstance(sid, str) and sid else self.ctx.name(self.path))
        summary = self.meta.get("summary")
        out.title = summary if isinstance(summary, str) and summary else None
        if self.meta.get("kind") == "subagent" and self.path.parent.name not in ("chats", ""):
            out.parent_session_id = self.path.parent.name  # the CLI nests subagents under chats/<parent id>/
        out.event("meta", "session", parse_time(self.meta.get("startTime")), "", self.meta, None)
        last: dict[str, str | None] = {}
        for mid, (line, rec) in self.records.items():
            parent_rec = self.parent[mid]
            parent = last.get(parent_rec) if parent_rec is not None else None
            last[mid] = _convert(out, mid, parent, line, rec)
        for kind, type_, time, text, raw, line in self.notes:
            out.event(kind, type_, time, text, raw, line)
        tip = last.get(self.chain[-1]) if self.chain else None
        return out.session(tip)


MESSAGE_KEYS = frozenset({"id", "timestamp", "content", "displayContent", "type", "toolCalls", "thoughts", "tokens",
                          "model"})
"""``MessageRecord``'s fields (chatRecordingTypes.ts, the module docstring's source)."""
CALL_KEYS = frozenset({"id", "name", "args", "result", "status", "timestamp", "agentId", "displayName", "description",
                       "resultDisplay", "renderOutputAsMarkdown"})
"""``ToolCallRecord``'s fields (chatRecordingTypes.ts): a call without ``result`` holding another key has
its result under a name the CLI does not write, not a call that never finished."""
READ_LISTS = ("content", "toolCalls", "thoughts")
"""What a message record says or does, each optional in a ``gemini`` record."""


def _unread(out: _Session, rec: dict[str, Any], line: int | None, keys: tuple[str, ...],
            optional: bool) -> list[Block]:
    """The record kept whole as an opaque block, reported, when one of ``keys`` is missing and it
    holds a key the CLI does not write (``toolCalls`` misspelt): otherwise its calls or thoughts
    would go in silence. ``optional`` as ``unread_keys`` takes it."""
    for key in keys:
        unread = unread_message(rec, key, MESSAGE_KEYS, out.where, line, "message", optional=optional)
        if unread:
            return unread
    return []


def _convert(out: _Session, mid: str, parent: str | None, line: int | None, rec: dict[str, Any]) -> str | None:
    """One message record into messages (or a notice event); returns the id later records hang from."""
    kind = text_of(rec.get("type"))
    time = parse_time(rec.get("timestamp"))
    if kind in NOTICE_KINDS:
        out.event(NOTICE_KINDS[kind], kind, time, _words(rec.get("content")), rec, line, parent)
        return parent
    if kind == "user":
        said = out.blocks(rec.get("content"), mid, line) + _unread(out, rec, line, ("content",), optional=False)
        fresh = [b for b in said if not (isinstance(b, ToolResult) and b.tool_use_id in out.answered)]
        if said and not fresh:
            return parent  # only results the calls' records gave already
        fresh = fresh or [Text("")]  # an empty prompt is still a turn
        return out.add(mid, parent, _role_of(fresh), fresh, line, time).id
    if kind != "gemini":
        if kind is None:
            out.ctx.problem(out.path, line, f"message {mid} has type {shown(rec.get('type'))}, not a name; "
                                            "kept as an event")
        out.event("other", kind or "message", time, "", rec, line, parent)
        return parent
    model = rec.get("model")
    model = model if isinstance(model, str) and model else out.model
    blocks: list[Block] = []
    for index, thought in enumerate(_listed(out, rec, "thoughts", line)):
        blocks.append(_thought(out, thought, f"thoughts[{index}] of message {mid}", line, model))
    blocks.extend(out.blocks(rec.get("content"), mid, line, model))
    blocks.extend(_unread(out, rec, line, READ_LISTS, optional=True))
    results: list[Block] = []
    called = {b.id for b in blocks if isinstance(b, ToolUse)}
    for index, call in enumerate(_listed(out, rec, "toolCalls", line)):
        if not isinstance(call, dict):
            out.ctx.problem(out.path, line, f"toolCalls[{index}] of message {mid} is {shown(call)}, not an object; "
                                            "kept as opaque")
            blocks.append(Opaque("toolCall", json_value(call), "not an object"))
            continue
        call_id = call.get("id")
        name = call.get("name")
        name = name if isinstance(name, str) else ""
        if not isinstance(call_id, str) or not call_id:
            call_id = f"{mid}.call{index}"
        if call_id not in called:
            blocks.append(out.call(call_id, name, call.get("args"), line))
        blocks.extend(unread_message(call, "result", CALL_KEYS, out.where, line, "toolCall", optional=True))
        result = _tool_result(out, call, call_id, name, f"{mid}:results.{index}", line)
        if result is not None:
            results.append(result)
            out.answered.add(call_id)
    assistant = out.add(mid, parent, "assistant", blocks or [Text("")], line, time, model, usage(rec.get("tokens")))
    if not results:
        return assistant.id
    return out.add(f"{mid}:results", assistant.id, "tool", results, line, time).id


def _listed(out: _Session, rec: dict[str, Any], key: str, line: int | None) -> list[Any]:
    """A list field of a message record; another value is reported and read as a list of one, so
    the reader of an item keeps it (as what it is, or opaque)."""
    value = rec.get(key)
    if value is not None and not isinstance(value, list):
        out.ctx.problem(out.path, line, f"{key} of message {rec.get('id')} is {shown(value)}, not a list; "
                                        "read as a list of one")
        return [value]
    return items(value)


def _thought(out: _Session, thought: object, where: str, line: int | None, model: str | None) -> Block:
    """One thought (``{subject, description}``) as a reasoning block; one written as text is that
    text; anything else, or an object holding no text, is kept opaque and reported."""
    if isinstance(thought, str):
        return Reasoning(thought, None, PROVIDER, model)
    if isinstance(thought, dict):
        subject, description = thought.get("subject"), thought.get("description")
        texts = [t for t in (subject, description) if isinstance(t, str)]
        odd = [t for t in (subject, description) if t is not None and not isinstance(t, str)]
        if texts and not odd:
            return Reasoning("\n\n".join(t for t in texts if t), None, PROVIDER, model)
        if not thought or (not odd and not set(thought) - {"subject", "description", "timestamp"}):
            return Reasoning("", None, PROVIDER, model)
    out.ctx.problem(out.path, line, f"{where} is {shown(thought)}, not a subject and a description; kept as opaque")
    return Opaque("thought", json_value(thought), "not a subject and a description")


def _tool_result(out: _Session, call: dict[str, Any], call_id: str, name: str, part_id: str,
                 line: int | None) -> ToolResult | None:
    """The result a call got (its ``functionResponse`` parts and any parts beside them, such as
    the image ``read_file`` returns), or ``None`` when it never finished (a turn killed mid-round)."""
    status = call.get("status")
    result = call.get("result")
    detail = json_value(call.get("resultDisplay"))
    failed = text_of(status) in ERROR_STATUSES
    if result is None:
        if not failed:
            return None
        return ToolResult(call_id, detail if isinstance(detail, str) else str(status), True, (), name, packed(detail))
    texts: list[str] = []
    images: list[Image] = []
    for block in out.blocks(_own_parts(_parts(result), call_id, name), part_id, line):
        match block:
            case ToolResult():
                texts.append(block.output)
                images.extend(block.images)
                failed = failed or block.is_error
            case Text():
                texts.append(block.text)
            case Image():
                images.append(block)
            case ToolUse():
                texts.append(f"[functionCall {block.name}]")
            case Reasoning():
                texts.append(block.text)
            case Opaque():
                texts.append(f"[{block.type}]")
            case _:
                assert_never(block)
    return ToolResult(call_id, "\n".join(t for t in texts if t), failed, tuple(images), name or None, packed(detail))


def _own_parts(parts: list[Any], call_id: str, name: str) -> list[Any]:
    """The parts of a call's ``result`` that are its own: its ``functionResponse`` (by id, else by
    name, else the only one) and the parts after it up to the next response. A result that holds no
    response, or none of this call's, is kept whole."""
    responses = [i for i, p in enumerate(parts) if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
    if not responses or (len(responses) == 1 and responses[0] == 0):
        return parts

    def answers(i: int, key: str, value: str) -> bool:
        return bool(parts[i]["functionResponse"].get(key) == value)

    mine = next((i for i in responses if answers(i, "id", call_id)), None)
    if mine is None:
        mine = next((i for i in responses if answers(i, "name", name)), None)
    if mine is None:
        if len(responses) > 1:
            return parts
        mine = responses[0]
    end = next((i for i in responses if i > mine), len(parts))
    return parts[mine:end]


# -- stream-json -----------------------------------------------------------------------------------


def _read_stream(path: Path, ctx: ImportContext, records: list[tuple[int, dict[str, Any]]]) -> list[Session]:
    """Headless events. A record before ``init`` without the CLI's ``timestamp``, or of a type the
    CLI does not emit, was added by whatever captured the stream: kept as a ``meta`` event."""
    init = next((r for _, r in records if r.get("type") == "init" and isinstance(r.get("session_id"), str)), None)
    sid = init["session_id"] if init else ctx.name(path)
    out = _Session(path, ctx, sid)
    tip: str | None = None
    group: tuple[Role, list[Block], int, datetime | None] | None = None
    delta = False

    def close() -> None:
        nonlocal group, tip
        if group is not None:
            role, blocks, line, time = group
            tip = out.add(f"{sid}:{line}", tip, role, blocks, line, time,
                          out.model if role == "assistant" else None).id
            group = None

    def open_(role: Role, line: int, time: datetime | None) -> list[Block]:
        nonlocal group
        if group is None or group[0] != role:
            close()
            group = (role, [], line, time)
        else:  # the events of one turn in a row are one message
            ctx.account(path, line, "merged", f"message {sid}:{group[2]}")
        return group[1]

    for line, rec in records:
        kind = text_of(rec.get("type"))
        time = parse_time(rec.get("timestamp"))
        if kind not in STREAM_TYPES or "timestamp" not in rec:
            if kind is None and "type" in rec:
                ctx.problem(path, line, f"event type is {shown(rec['type'])}, not a name; kept as an event")
            elif kind is None and "timestamp" in rec:  # a CLI event (it has the CLI's timestamp) that lost its type
                ctx.problem(path, line, f"event without a type (keys: {', '.join(map(str, rec))}); kept as an event")
            content = rec.get("content")
            out.event("meta", f"harness:{kind_name(rec.get('type'))}", parse_time(rec.get("ts")),
                      content if isinstance(content, str) else "", rec, line)
            continue
        was_delta, delta = delta, False
        if kind == "init":
            model = rec.get("model")
            out.model = model if isinstance(model, str) else out.model
            out.configs.append(RunConfig(out.model, PROVIDER, time=time, source=out.source(line)))
            out.event("meta", "init", time, "", rec, line)
        elif kind == "message":
            content = rec.get("content")
            text = content if isinstance(content, str) else stringify(content)
            if rec.get("role") == "assistant":
                said = open_("assistant", line, time)
                if rec.get("delta") is True and was_delta and said and isinstance(said[-1], Text):
                    said[-1] = Text(said[-1].text + text)
                else:
                    said.append(Text(text))
                delta = rec.get("delta") is True
            else:
                close()
                group = ("user", [Text(text)], line, time)
                close()
        elif kind == "tool_use":
            call_id = rec.get("tool_id")
            name = rec.get("tool_name")
            open_("assistant", line, time).append(out.call(
                call_id if isinstance(call_id, str) and call_id else f"{sid}:{line}",
                name if isinstance(name, str) else "", rec.get("parameters"), line))
        elif kind == "tool_result":
            call_id = rec.get("tool_id")
            call_id = call_id if isinstance(call_id, str) else ""
            if out.book.answer(call_id, None) is None:
                ctx.problem(path, line, f"tool_result for call {call_id!r} that no earlier tool_use made")
            output = rec.get("output")
            error = rec.get("error")
            if not isinstance(output, str) or not output:
                output = error.get("message") if isinstance(error, dict) else output
            open_("tool", line, time).append(
                ToolResult(call_id, output if isinstance(output, str) else stringify(output),
                           rec.get("status") == "error", (), None, packed(json_value(error))))
        elif kind == "error":
            close()
            message = rec.get("message")
            out.event("error" if rec.get("severity") != "warning" else "other", "error", time,
                      message if isinstance(message, str) else "", rec, line, tip)
        else:
            close()
            error = rec.get("error")
            status = error.get("message") if isinstance(error, dict) else rec.get("status")
            out.event("error" if rec.get("status") == "error" else "meta", "result", time,
                      status if isinstance(status, str) else "", rec, line, tip)
    close()
    return [out.session(tip)]


# -- documents -------------------------------------------------------------------------------------


def _read_contents(path: Path, ctx: ImportContext, doc: dict[str, Any], key: str) -> list[Session]:
    """A checkpoint's Gemini ``contents``: role ``model`` is the assistant."""
    name = ctx.name(path)
    out = _Session(path, ctx, f"{name}:{key}")
    out.title = path.stem.removeprefix("checkpoint-") if path.stem.startswith("checkpoint-") else None
    rest = {k: v for k, v in doc.items() if k != key}
    if rest:
        out.event("meta", "checkpoint", None, ", ".join(sorted(rest)), rest, None)
    out.messages.extend(contents_to_record(doc[key], Origin(path, ctx, id_prefix=out.sid)))
    return [out.session()]


def _read_logs(path: Path, ctx: ImportContext, entries: list[Any]) -> list[Session]:
    """``logs.json``: only the prompts a user typed, per session (the CLI's input history)."""
    by_session: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    for index, entry in enumerate(entries, 1):
        if not (isinstance(entry, dict) and isinstance(entry.get("sessionId"), str)
                and isinstance(entry.get("message"), str)):
            ctx.problem(path, index, "logs.json entry without a sessionId and a message")
            continue
        order = entry.get("messageId")
        by_session.setdefault(entry["sessionId"], []).append((order if isinstance(order, int) else index, index, entry))
    sessions: list[Session] = []
    for sid, prompts in by_session.items():
        out = _Session(path, ctx, f"{sid}:logs")
        out.title = "prompts only (logs.json)"
        tip: str | None = None
        for order, index, entry in sorted(prompts, key=lambda t: (t[0], t[1])):
            role_ok = entry.get("type") == "user"
            if not role_ok:
                ctx.problem(path, index, f"logs.json entry of type {shown(entry.get('type'))} read as user")
            tip = out.add(f"{sid}:logs:{order}", tip, "user", [Text(entry["message"])], index,
                          parse_time(entry.get("timestamp"))).id
        sessions.append(out.session(tip))
    return sessions


def _read_output(path: Path, ctx: ImportContext, doc: dict[str, Any]) -> list[Session]:
    """``--output-format json``: the final response and the run's statistics (no prompt)."""
    sid = doc.get("session_id")
    out = _Session(path, ctx, sid if isinstance(sid, str) and sid else ctx.name(path))
    tip: str | None = None
    response = doc.get("response")
    if isinstance(response, str):
        tip = out.add(f"{out.sid}:response", None, "assistant", [Text(response)], None, None).id
    if "stats" in doc:
        out.event("meta", "stats", None, "", doc["stats"], None, tip)
    error = doc.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        out.event("error", "error", None, message if isinstance(message, str) else "", error, None, tip)
    return [out.session(tip)]


def _document(path: Path, ctx: ImportContext, doc: object, line: int | None) -> list[Session] | None:
    if isinstance(doc, list):
        if doc and all(isinstance(e, dict) and "messageId" in e for e in doc[:5]):
            return _read_logs(path, ctx, doc)
        return None
    if not isinstance(doc, dict):
        return None
    if "sessionId" in doc and isinstance(doc.get("messages"), list):
        recording = _Recording(path, ctx)
        recording.record(line, doc)
        return [recording.session()]
    for key in ("clientHistory", "history"):
        if isinstance(doc.get(key), list) and all(isinstance(c, dict) and "parts" in c for c in doc[key][:5]):
            return _read_contents(path, ctx, doc, key)
    if ("response" in doc or "error" in doc) and set(doc) <= {"session_id", "response", "stats", "error"}:
        return _read_output(path, ctx, doc)
    return None


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    with path.open("rb") as handle:
        start = handle.read(4096).lstrip()
    first = start.split(b"\n", 1)[0].strip()
    if start[:1] == b"[" or first == b"{":
        doc = read_json(path, ctx)
        if doc is NOT_JSON:
            return []
        found = _document(path, ctx, doc, None)
        if found is None:
            ctx.problem(path, None, "JSON document in no Gemini CLI layout (recording, checkpoint, logs, output)")
            return []
        return found
    records = list(iter_json_lines(path, ctx))
    if not records:
        ctx.problem(path, None, "no Gemini CLI record in the file")
        return []
    if len(records) == 1:
        found = _document(path, ctx, records[0][1], records[0][0])
        if found is not None:
            return found
    head = records[0][1]
    if ("sessionId" in head and "projectHash" in head) or any("$rewindTo" in r or "$set" in r for _, r in records[:50]):
        recording = _Recording(path, ctx)
        for line, rec in records:
            recording.record(line, rec)
        return [recording.session()]
    return _read_stream(path, ctx, records)


def _stream_event(rec: dict[str, Any]) -> bool:
    kind = rec.get("type")
    return ((kind == "init" and "session_id" in rec and "model" in rec)
            or (kind == "tool_use" and "tool_id" in rec and "tool_name" in rec)
            or (kind == "tool_result" and "tool_id" in rec and "status" in rec)
            or (kind == "message" and "timestamp" in rec and rec.get("role") in ("user", "assistant")
                and isinstance(rec.get("content"), str)))


KEYS = frozenset({"sessionId", "session_id", "tool_id", "history", "clientHistory", "response"})
STREAM_MESSAGE_KEYS = frozenset({"type", "timestamp", "role", "content"})
"""The keys ``sniff`` tests for, in the text or in the objects a line decodes to: every way it says
yes needs one of ``KEYS`` or all of ``STREAM_MESSAGE_KEYS`` (a stream-json message event)."""

SESSION_START = re.compile(r'\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"projectHash"\s*:')


def sniff(found: Head) -> bool:
    """Gemini CLI content: recording metadata (``sessionId`` with ``projectHash``), stream-json
    events (``init`` with ``session_id``, ``tool_use``/``tool_result`` with ``tool_id``), a
    ``logs.json`` array, a checkpoint object, or the json output object."""
    stripped = found.text.lstrip()
    if stripped.startswith("["):
        return re.match(r'\[\s*\{\s*"sessionId"\s*:', stripped) is not None and '"messageId"' in stripped[:4000]
    if not stripped.startswith("{"):
        return False
    keys = found.keys()  # a whole document lacking every key a way to say yes needs: no
    if keys is not None and KEYS.isdisjoint(keys) and not keys >= STREAM_MESSAGE_KEYS:
        return False
    lines = [line for line in found.lines(12, stripped) if line.strip()]
    for number, line in enumerate(lines):
        rec = found.value(line)
        if isinstance(rec, dict):
            if ("sessionId" in rec and "projectHash" in rec) or _stream_event(rec):
                return True
        elif number == 0 and SESSION_START.match(line.strip()):
            return True  # a first line longer than the head
    if lines[0].strip() != "{":
        return False
    if keys is None or {"sessionId", "projectHash"} <= keys:  # a key a whole document lacks is in no window
        window = stripped[:8000]
        if re.search(r'"sessionId"\s*:', window) and re.search(r'"projectHash"\s*:', window):
            return True
    if re.match(r'\{\s*"(?:history|clientHistory)"\s*:\s*\[', stripped):
        return '"parts"' in stripped or '"clientHistory"' in stripped
    return (re.match(r'\{\s*"(?:session_id|response)"\s*:', stripped) is not None
            and '"stats"' in stripped and '"models"' in stripped)


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Gemini CLI chat recordings (JSON, JSONL), stream-json/json output, logs.json, checkpoints",
    client="Gemini CLI",
    layouts=gemini_cli_layouts,
    names_only="the Gemini CLI transcript format records tool names only, not the specs sent",
)
