"""Continue (continuedev/continue) chat sessions: ``<global dir>/sessions/<session id>.json``.

A session is ``{sessionId, title, workspaceDirectory, history[], mode?, chatModelTitle?, usage?}``;
each history item ``{message, contextItems, editorState?, modifiers?, promptLogs?, toolCallStates?
(toolCallState, one, before mid 2025), isGatheringContext?, reasoning?, appliedRules?,
conversationSummary?}``; a message ``{role: user|assistant|thinking|system|tool, content, toolCalls?,
toolCallId?, usage?, signature?, redactedThinking?, id?}``, its content text or parts (``text``;
``imageUrl`` with ``imageUrl.url``). Sources: ``Session``, ``ChatHistoryItem``, ``ChatMessage``,
``MessagePart``, ``ToolCallState``, ``PromptLog`` and ``Usage`` in core/index.d.ts, the writer in
core/util/history.ts, the folder in core/util/paths.ts of https://github.com/continuedev/continue
(commit d0a3c0b626, 2026-06-18; the singular ``toolCallState`` at commit 63552e3fd3, 2025-07-02; the
first TypeScript layout, ``promptLogs`` as ``[prompt, completion]`` pairs, at commit 70bf23c3fa,
2024-02-09); read 2026-12-03. ``sessions.json`` beside them is the index (title, date, workspace),
owned, not a session; entries with ``session_id`` are the older Python server's, which Continue itself
no longer reads.

What the model is sent is rebuilt by gui/src/redux/util/constructMessages.ts (same commit): a user
message carries its context items' text before its own parts; the tool messages stored in the history
are replaced by one per tool call state, a cancelled call answered with ``The user cancelled this tool
call.`` (core/tools/constants.ts); history before the last ``conversationSummary`` is left out and the
summary sent instead. So: context items become text blocks ahead of the user's words, a cancelled call
no stored tool message answers gets that answer as a ``synthetic`` tool message, a result is an error
where its call state ``errored``, and a summary is a ``summary`` event. ``thinking`` messages are
reasoning, folded into the reply that follows. ``promptLogs`` (the raw prompt and completion of each
model call) are kept as ``meta`` events.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import NOT_JSON, Head, ImportContext, Importer, read_json
from toolkit.corpus.formats.layout import Layout, Parts, expand, setting
from toolkit.corpus.formats.shapes import as_int, items, json_value, kind_name, obj, shown, text_of
from toolkit.corpus.formats.wirekit import CallBook, Where, tool_use, unread_keys, unread_message
from toolkit.jsontext import stringify
from toolkit.record import (
    Block,
    Event,
    EventKind,
    Message,
    Opaque,
    Reasoning,
    Role,
    RunConfig,
    Session,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    packed,
)

FORMAT = "continue"
INDEX = "sessions.json"
CANCELLED = "The user cancelled this tool call."
"""``CANCELLED_TOOL_CALL_MESSAGE`` in core/tools/constants.ts (commit d0a3c0b626)."""

CONTINUE_GLOBAL_DIR = "CONTINUE_GLOBAL_DIR"
"""Moves ``~/.continue`` whole (core/util/paths.ts, commit d0a3c0b626, read 2026-12-03)."""

ROLES = frozenset({"user", "assistant", "thinking", "system", "tool"})
"""``ChatMessageRole`` in core/index.d.ts."""

MESSAGE_KEYS = frozenset({"role", "content", "toolCalls", "toolCallId", "usage", "signature", "redactedThinking", "id"})
"""The keys of ``ChatMessage``'s variants (the module docstring's sources): a message without
``content`` that holds another key has its content under a name Continue does not write."""

ITEM_KEYS = frozenset({
    "message", "contextItems", "editorState", "modifiers", "promptLogs", "toolCallStates", "toolCallState",
    "isGatheringContext", "reasoning", "appliedRules", "conversationSummary",
})
"""The keys of ``ChatHistoryItem`` (the module docstring's sources)."""
READ_ITEM_KEYS = ("promptLogs", "toolCallStates", "contextItems", "reasoning", "conversationSummary")
"""The item fields read into the record: one missing while a key like it is there is that field misspelt."""

TEXT_PART_KEYS = frozenset({"type", "text"})
"""``TextMessagePart`` (core/index.d.ts): a text part without ``text`` that holds another key has its
words under a name Continue does not write."""


def usage(raw: object) -> Usage | None:
    """``Usage`` (core/index.d.ts), meant as OpenAI's usage object, where ``promptTokens`` includes
    the cached tokens; Continue's Anthropic adapter (core/llm/llms/Anthropic.ts) writes Anthropic's
    uncached ``input_tokens`` there beside the Anthropic-only ``cacheWriteTokens``, so with that key
    ``promptTokens`` is already fresh input. Every count starts at 0 before the provider reports:
    all of them 0 is unknown."""
    found = obj(raw)
    prompt, completion = as_int(found.get("promptTokens")), as_int(found.get("completionTokens"))
    details = obj(found.get("promptTokensDetails"))
    cached, written = as_int(details.get("cachedTokens")), as_int(details.get("cacheWriteTokens"))
    if not any((prompt, completion, cached, written)):
        return None
    fresh = prompt if prompt is None or "cacheWriteTokens" in details else max(prompt - (cached or 0), 0)
    return Usage(fresh, completion, cached, written)


class _Reader:
    def __init__(self, path: Path, ctx: ImportContext, sid: str) -> None:
        self.path = path
        self.ctx = ctx
        self.sid = sid
        self.where = Where(path, ctx)
        self.book = CallBook()
        self.messages: list[Message] = []
        self.events: list[Event] = []
        self.states: dict[str, str] = {}
        """Call id → the status of its call state."""
        self.model: str | None = None
        self.provider: str | None = None

    def add(self, mid: str, role: Role, blocks: list[Block], line: int, use: Usage | None = None,
            tags: tuple[str, ...] = ()) -> None:
        parent = self.messages[-1].id if self.messages else None
        speaker = role == "assistant"
        self.messages.append(Message(mid, parent, role, tuple(blocks), None, self.model if speaker else None,
                                     self.provider if speaker else None, use, self.where.source(line), tags=tags))

    def event(self, kind: EventKind, type_: str, raw: object, line: int, text: str = "") -> None:
        self.events.append(Event(kind, type_, None, self.messages[-1].id if self.messages else None, text,
                                 packed(json_value(raw)), self.where.source(line)))

    def parts(self, content: object, line: int) -> list[Block]:
        """``MessageContent``: text, or parts (``text``, ``imageUrl``); other parts kept opaque."""
        if content is None or content == "":
            return []
        if isinstance(content, str):
            return [Text(content)]
        if not isinstance(content, list):
            self.ctx.problem(self.path, line, f"content is {shown(content)}, neither text nor parts; kept as opaque")
            return [Opaque("content", json_value(content), "neither text nor parts")]
        out: list[Block] = []
        for part in content:
            kind = text_of(part.get("type")) if isinstance(part, dict) else None
            if isinstance(part, dict) and kind == "text":
                words = stringify(part.get("text") or "")
                if words:
                    out.append(Text(words))
                else:  # its text under a misspelt key: reported and kept, not dropped
                    out += unread_message(part, "text", TEXT_PART_KEYS, self.where, line, "part")
            elif isinstance(part, dict) and kind in ("imageUrl", "image_url"):
                image = obj(part.get("imageUrl") or part.get("image_url"))
                url = image.get("url")
                if isinstance(url, str):
                    out.append(self.ctx.image_data_url(url, self.path, line))
                else:
                    self.ctx.problem(self.path, line, "image part without a URL; kept as opaque")
                    out.append(Opaque(kind, json_value(part), "image without a URL"))
            else:
                self.ctx.problem(self.path, line, f"unknown content part {shown(part)}; kept as opaque")
                out.append(Opaque(kind_name(part.get("type") if isinstance(part, dict) else part), json_value(part),
                                  "unknown content part"))
        return out

    def calls(self, raw: object, mid: str, line: int) -> list[Block]:
        """A message's ``toolCalls`` as calls; what is not a list of call objects is kept as opaque."""
        out: list[Block] = []
        if raw is not None and not isinstance(raw, list):
            self.ctx.problem(self.path, line, f"toolCalls of history item {line} is {shown(raw)}, not a list; "
                                              "kept as opaque")
            return [Opaque("toolCalls", json_value(raw), "not a list")]
        for n, call in enumerate(items(raw)):
            if not isinstance(call, dict):
                self.ctx.problem(self.path, line, f"tool call {n + 1} of history item {line} is {shown(call)}, "
                                                  "not an object; kept as opaque")
                out.append(Opaque("tool_call", json_value(call), "not an object"))
                continue
            function = obj(call.get("function"))
            call_id = text_of(call.get("id")) or f"{mid}:call{n}"
            name = text_of(function.get("name")) or ""
            self.book.call(call_id, name)
            out.append(tool_use(call_id, name, function.get("arguments"), self.where, line))
        return out


def _states(item: dict[str, Any], out: _Reader, line: int) -> list[dict[str, Any]]:
    """The item's tool call states: ``toolCallStates``, or the one ``toolCallState`` of older versions;
    a state that is not an object is reported and kept as an event."""
    states = item.get("toolCallStates")
    if not isinstance(states, list):
        one = item.get("toolCallState")
        states = [] if one is None else [one]
    found: list[dict[str, Any]] = []
    for state in states:
        if isinstance(state, dict):
            found.append(state)
        else:
            out.ctx.problem(out.path, line, f"a tool call state of history item {line} is {shown(state)}, "
                                                  "not an object; kept as an event")
            out.event("other", "toolCallState", state, line)
    return found


def _misspelt_fields(item: dict[str, Any], out: _Reader, line: int) -> None:
    """Item fields the reader reads, found under a misspelt key (``promptLgos``): reported and kept as
    an event, as what they hold would otherwise go in silence."""
    seen: set[str] = set()
    for key in READ_ITEM_KEYS:
        odd = [k for k in unread_keys(item, key, ITEM_KEYS, optional=True) if k not in seen]
        seen.update(odd)
        if odd:
            out.ctx.problem(out.path, line, f"history item {line} without {key} (keys Continue does not write: "
                                            f"{', '.join(odd)}); kept as an event")
            out.event("other", "item fields", {k: item[k] for k in odd}, line)


def _read_session(path: Path, ctx: ImportContext, doc: dict[str, Any]) -> Session:
    sid = text_of(doc.get("sessionId")) or path.stem
    out = _Reader(path, ctx, sid)
    out.model = text_of(doc.get("chatModelTitle"))
    history = doc.get("history")
    if not isinstance(history, list):
        ctx.problem(path, None, f"history is {shown(history)}, not a list")
        history = []
    thinking: list[Block] = []
    unanswered: list[tuple[str, str, int]] = []
    configs: list[RunConfig] = []
    for i, item in enumerate(history):
        line = i + 1
        if not isinstance(item, dict) or not isinstance(item.get("message"), dict):
            ctx.problem(path, line, f"history item {line} has no message; kept as an event")
            out.event("other", "item", item, line)
            continue
        message = item["message"]
        role = text_of(message.get("role"))
        mid = text_of(message.get("id")) or f"{sid}:{i}"
        _misspelt_fields(item, out, line)
        for log in items(item.get("promptLogs")):
            if isinstance(log, dict):
                title, provider = text_of(log.get("modelTitle")), text_of(log.get("modelProvider"))
                if (title or out.model, provider or out.provider) != (out.model, out.provider) or not configs:
                    out.model, out.provider = title or out.model, provider or out.provider
                    configs.append(RunConfig(out.model, out.provider, message_id=mid, source=out.where.source(line)))
        for state in _states(item, out, line):
            call_id = text_of(state.get("toolCallId")) or text_of(obj(state.get("toolCall")).get("id"))
            if call_id is not None:
                out.states[call_id] = text_of(state.get("status")) or ""
        if role != "tool" and unanswered:
            _cancelled(out, unanswered)
        unread = unread_message(message, "content", MESSAGE_KEYS, out.where, line, "message") if role in ROLES else []
        if role == "thinking":
            words = "\n".join(b.text for b in out.parts(message.get("content"), line) if isinstance(b, Text))
            redacted = text_of(message.get("redactedThinking"))
            thinking.append(Reasoning(words or "", signature=text_of(message.get("signature")) or redacted,
                                      provider=out.provider, model=out.model, redacted=not words and bool(redacted)))
            thinking += unread
        elif role == "assistant":
            blocks = list(thinking)
            thinking = []
            reasoning = obj(item.get("reasoning"))
            if not blocks and isinstance(reasoning.get("text"), str) and reasoning["text"]:
                blocks.append(Reasoning(reasoning["text"], provider=out.provider, model=out.model))
            blocks += out.parts(message.get("content"), line) + unread
            calls = out.calls(message.get("toolCalls"), mid, line)
            blocks += calls
            out.add(mid, "assistant", blocks or [Text("")], line, usage(message.get("usage")))
            unanswered = [(b.id, b.name, line) for b in calls if isinstance(b, ToolUse)]
        elif role == "tool":
            call_id = text_of(message.get("toolCallId")) or ""
            answered = out.book.answer(call_id, None)
            if answered is None:
                ctx.problem(path, line, f"tool message for call {call_id!r} that no earlier tool call made; kept")
            unanswered = [u for u in unanswered if u[0] != call_id]
            content = message.get("content")
            text = content if isinstance(content, str) else "\n".join(
                b.text for b in out.parts(content, line) if isinstance(b, Text))
            error = out.states.get(call_id) == "errored"
            out.add(mid, "tool", [ToolResult(call_id, text, error, (), None, packed(json_value(item.get("contextItems")) or None)),
                                  *unread], line)
        elif role in ("user", "system"):
            blocks = [Text(c["content"]) for c in items(item.get("contextItems")) if role == "user"
                      and isinstance(c, dict) and isinstance(c.get("content"), str) and c["content"].strip()]
            blocks += out.parts(message.get("content"), line) + unread
            out.add(mid, "user" if role == "user" else "system", blocks, line)
        else:
            ctx.problem(path, line, f"message role {shown(role)} is not one of Continue's; kept as an event")
            out.event("other", f"message:{kind_name(role)}", item, line)
            continue
        for log in items(item.get("promptLogs")):
            out.event("meta", "promptLog", log, line, text_of(obj(log).get("modelTitle")) or "")
        summary = item.get("conversationSummary")
        if isinstance(summary, str) and summary:
            out.event("summary", "conversationSummary", {"conversationSummary": summary}, line, summary)
    if unanswered:
        _cancelled(out, unanswered)
    if thinking:
        out.add(f"{sid}:{len(history)}", "assistant", thinking, len(history))
    rest = {k: v for k, v in doc.items() if k not in ("history", "sessionId", "title")}
    if rest:
        out.events.insert(0, Event("meta", "session", None, None, text_of(doc.get("mode")) or "", packed(json_value(rest)),
                                   out.where.source(None)))
    if not configs and (out.model or out.provider):
        configs.append(RunConfig(out.model, out.provider, source=out.where.source(None)))
    tip = out.messages[-1].id if out.messages else None
    return Session(sid, FORMAT, tuple(out.messages), tip, ctx.name(path), tuple(configs), tuple(out.events),
                   title=text_of(doc.get("title")))


def _cancelled(out: _Reader, unanswered: list[tuple[str, str, int]]) -> None:
    """Calls no tool message answered: a cancelled one gets the answer Continue sends for it."""
    results: list[Block] = []
    for call_id, name, _ in unanswered:
        if out.states.get(call_id) == "canceled":
            out.book.answer(call_id, None)
            results.append(ToolResult(call_id, CANCELLED, True, (), name or None))
    if results:
        out.add(f"{unanswered[0][0]}:cancelled", "tool", results, unanswered[0][2], tags=("synthetic",))
    unanswered.clear()


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    doc = read_json(path, ctx)
    if doc is NOT_JSON:
        return []
    if isinstance(doc, list):
        ctx.problem(path, None, "a list: Continue's sessions.json index, not a session")
        return []
    if not isinstance(doc, dict):
        ctx.problem(path, None, f"a Continue session is a JSON object, found {shown(doc)}")
        return []
    return [_read_session(path, ctx, doc)]


SESSION_START = re.compile(r'\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"title"\s*:')
"""``HistoryManager.save`` writes ``sessionId``, ``title``, ``workspaceDirectory``, ``history`` first."""


def sniff(found: Head) -> bool:
    """A Continue session: an object opening with ``sessionId`` and ``title`` that holds
    ``workspaceDirectory`` and a ``history`` of items with a ``message``."""
    if found.data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{":
        return False
    keys = found.keys()
    if keys is not None and not {"sessionId", "workspaceDirectory", "history"} <= keys:
        return False
    text = found.text.lstrip("\ufeff \t\r\n")
    if SESSION_START.match(text[:2000]) is None:
        return False
    return '"workspaceDirectory"' in text and re.search(r'"history"\s*:\s*\[\s*(?:\]|\{\s*"message"\s*:)', text) is not None


def owns(path: str) -> bool:
    """The session index beside the sessions."""
    return os.path.basename(path) == INDEX and os.path.basename(os.path.dirname(path)) == "sessions"


def _descend(parts: Parts) -> bool:
    return False


def _wanted(parts: Parts) -> bool:
    return len(parts) == 1 and parts[0].endswith(".json") and parts[0] != INDEX


def layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """``$CONTINUE_GLOBAL_DIR/sessions``, default ``~/.continue/sessions`` (core/util/paths.ts)."""
    root = setting(env, CONTINUE_GLOBAL_DIR)
    folder, by = (expand(root, home), CONTINUE_GLOBAL_DIR) if root is not None else (home / ".continue", "default")
    return [Layout(FORMAT, folder / "sessions", by, _descend, _wanted)]


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Continue chat sessions (~/.continue/sessions/<id>.json)",
    client="Continue",
    layouts=layouts,
    names_only="Continue sessions record only the specs of tools that were called, never the surface sent",
    owns=owns,
)
