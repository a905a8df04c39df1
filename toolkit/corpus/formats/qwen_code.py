"""Qwen Code chat recordings read into the record.

Qwen Code (github QwenLM/qwen-code) is a fork of Gemini CLI. Since its "resume previous conversations"
work (QwenLM/qwen-code#1100, 2025-11-24: "Breaking Change: JSON -> JSONL Storage", old JSON session files
no longer read) it records each session as ``<runtime>/projects/<sanitized cwd>/chats/<session id>.jsonl``
(``ChatRecordingService`` in packages/core/src/services/chatRecordingService.ts, ``Storage.getProjectDir``
in packages/core/src/config/storage.ts). One line is a ``ChatRecord``: Claude Code's envelope
(``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``type``, ``cwd``, ``version``, ``gitBranch``)
around a Gemini ``Content`` (``message: {role, parts}``, the parts exactly as sent: text, ``thought``
parts, ``functionCall``, ``functionResponse``, ``inlineData``...).

Record types and how they are read:

- ``user``: a user message. With a ``subtype`` (``notification``, ``cron``, ``goal_runtime``,
  ``mid_turn_user_message``, ``realtime_message``) it is still sent to the model, tagged ``meta`` when the
  client wrote it rather than the person. Its ``systemPayload`` (the prompt as displayed) is a ``meta`` event.
- ``assistant``: one API reply, ``model``, ``usageMetadata`` (Gemini's field names whatever the backend),
  ``contextWindowSize``. Thought parts are ``Reasoning`` (a ``thoughtSignature`` kept as its signature).
- ``tool_result``: one tool's ``functionResponse`` (role ``tool``, as Gemini sends it) and ``toolCallResult``
  (``callId``, ``status``, ``resultDisplay``, ``error``): the display is the result's ``detail`` and an
  ``error``/``cancelled`` status marks it an error. Results written one after another for the calls of
  one reply are one message, as Qwen Code sends them in one ``Content``.
- ``system``: never sent to the model, so an event per record, kept raw: ``ui_telemetry`` (the UI's
  ``qwen-code.api_response`` per API call is a ``token_count`` event attached to the reply it precedes,
  whose usage it is when the reply records none; ``qwen-code.api_error`` an ``error``; tool calls
  ``meta``), ``chat_compression`` (a ``compaction`` with ``info.originalTokenCount`` as ``tokens_before``;
  the new count and the summary are in its text and raw), ``slash_command``, ``at_command``,
  ``custom_title`` (the session's title), ``parent_session`` (the session's parent), ``rewind`` and the
  rest of ``SYSTEM_SUBTYPES``.

The tree follows ``parentUuid``; system records are events, so a message hangs from the nearest message
above it. A rewind re-roots the chain at the record before the rewound turn and leaves the rewound
records on a dead branch; side records (a re-anchored title) are children of the tail. So the tip is the
message at or above the file's last record. Records that carry an ``agentId`` (a background subagent's,
``subagents/<session>/agent-<id>.jsonl``) are a session ``<sessionId>:agent-<agentId>`` of their own,
linked (``link``) to the parent's ``agent`` call that launched it: the one whose result names the agent
(``(ID: <agentId>)``) or whose completion notice does (``backgroundTask.toolUseId``), else the one whose
``prompt`` opened the agent's records. A subagent whose parent session is neither in its file nor in
``chats/`` is a problem. A daemon-mode sub-session (a chat file whose ``parent_session`` record names its
parent) is linked to the ``create_sub_session`` call whose result links it (``qwen-session://<id>``).

Versions. The first JSONL recorder (zhutao100/qwen-code at 1806390421, a fork of QwenLM/qwen-code)
wrote ``user``/``assistant``/``tool_result`` and the system subtypes ``chat_compression``,
``slash_command`` and ``ui_telemetry``; later releases added ``contextWindowSize`` (0.14.0 writes it),
the other subtypes and envelope keys (``provenance``, ``promptId``, ``agentId``, ``forkedFrom``...;
QwenLM/qwen-code at 015346f1d5, read 2026-12-03). Before the JSONL recorder Qwen Code wrote Gemini CLI's
files under ``<runtime>/tmp/<project hash>/`` (``logs.json``, ``/chat save`` checkpoints
``checkpoint-<tag>.json``, the JSON chat recordings ``chats/session-*.json``), which are exactly Gemini
CLI's formats and are read by the ``gemini_cli`` importer (a bare ``Content[]`` checkpoint by ``gemini``).

Token counts. Qwen Code's OpenAI-compatible backend (every Qwen model) fills ``usageMetadata`` from the
OpenAI usage: ``promptTokenCount`` = ``prompt_tokens`` (cached included), ``candidatesTokenCount`` =
``completion_tokens`` (reasoning included), ``thoughtsTokenCount`` = ``reasoning_tokens``,
``totalTokenCount`` = ``total_tokens``, and writes ``cached_tokens ?? 0``
(packages/core/src/core/openaiContentGenerator/converter.ts, read 2026-12-03), so a cached count of 0
means unknown. Gemini's own backend counts thoughts apart from candidates. Which one a reply came from is
told by its total: thoughts are added to the output only when the total counts them apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.claude_code import QWEN_FIRST_LINE, qwen_code_record
from toolkit.corpus.formats.gemini_contents import parts_to_blocks
from toolkit.corpus.formats.importer import Head, ImportContext, Importer, iter_json_lines, parse_time
from toolkit.corpus.formats.layout import Layout, Parts, expand, setting
from toolkit.corpus.formats.shapes import as_int, items, json_value, kind_name, obj, shown, text_of
from toolkit.corpus.formats.wirekit import CallBook, Where
from toolkit.corpus.linking import Linker, Spawned, Spawns, opening, spawn_links, spawning_calls, spawns_of
from toolkit.jsontext import stringify
from toolkit.models import name_family
from toolkit.record import (
    Block,
    Event,
    EventKind,
    Message,
    Role,
    RunConfig,
    Session,
    SourceRef,
    Text,
    ToolResult,
    Usage,
    packed,
)

FORMAT = "qwen_code"
AGENT_MARK = ":agent-"

RECORD_TYPES = frozenset({"user", "assistant", "tool_result", "system"})
"""``ChatRecord.type`` (chatRecordingService.ts)."""

SYSTEM_SUBTYPES: dict[str, EventKind] = {
    "chat_compression": "compaction", "slash_command": "meta", "ui_telemetry": "meta", "at_command": "meta",
    "attribution_snapshot": "meta", "notification": "meta", "background_task_completed": "meta", "cron": "meta",
    "custom_title": "meta", "parent_session": "meta", "session_source": "meta", "session_execution_engine": "meta",
    "omni_recall": "meta", "session_model": "meta", "session_approval_mode": "meta", "rewind": "meta",
    "agent_bootstrap": "meta", "agent_launch_prompt": "meta", "agent_retry": "meta", "agent_session_ready": "meta",
    "file_history_snapshot": "meta", "user_text_elements": "meta", "session_artifact_event": "meta",
    "session_artifact_snapshot": "meta", "session_sources_snapshot": "meta", "branch_checkpoint": "meta",
    "goal_state": "meta", "goal_runtime": "meta", "goal_turn_end": "meta", "turn_result": "meta",
    "session_notes": "meta", "managed_session_header_v1": "meta", "managed_session_event_v1": "meta",
    "managed_session_commit_v1": "meta",
}
"""Every ``ChatRecord.subtype`` of a system record (chatRecordingService.ts at 015346f1d5) and the event
kind it is; ``ui_telemetry`` and ``turn_result`` are refined by their payload."""

CLIENT_USER_SUBTYPES = frozenset({"notification", "cron", "goal_runtime"})
"""User records the client wrote (a background task's notice, a scheduled prompt, the goal runtime):
sent to the model, but no one typed them, so they are tagged ``meta``."""

TELEMETRY_KINDS: dict[str, EventKind] = {
    "qwen-code.api_response": "token_count", "qwen-code.api_error": "error", "qwen-code.tool_call": "meta",
}
"""``UiEvent`` names (packages/core/src/telemetry/uiTelemetry.ts, the ``EVENT_*`` constants of
telemetry/constants.ts); another name is a ``meta`` event too."""

API_RESPONSE = "qwen-code.api_response"

ERROR_STATUSES = frozenset({"error", "cancelled"})
"""Tool-call statuses whose result reached the model as an error (``Status`` of coreToolScheduler.ts)."""

AUTH_PROVIDERS: dict[str, str] = {
    "qwen-oauth": "alibaba", "gemini": "google", "gemini-api-key": "google", "vertex-ai": "google",
    "oauth-personal": "google", "cloud-shell": "google", "anthropic": "anthropic",
}
"""``AuthType`` (packages/core/src/core/contentGenerator.ts; ``gemini-api-key``, ``oauth-personal`` and
``cloud-shell`` in releases before 0.1) → who serves the model. ``openai`` is any OpenAI-compatible host:
the model's name decides, else unknown. Qwen OAuth serves Alibaba's models (``coder-model``)."""


def usage(metadata: object) -> Usage | None:
    """``usageMetadata`` (Gemini field names) as the record's usage: fresh input is the prompt less the
    cached tokens (a cached count of 0 is unknown, see the module docstring) plus tool-use prompt tokens;
    output adds the thoughts only when the total counts them apart from the candidates."""
    if not isinstance(metadata, dict):
        return None
    return _counts(metadata.get("promptTokenCount"), metadata.get("candidatesTokenCount"),
                   metadata.get("thoughtsTokenCount"), metadata.get("cachedContentTokenCount"),
                   metadata.get("toolUsePromptTokenCount"), metadata.get("totalTokenCount"))


def telemetry_usage(event: Mapping[str, Any]) -> Usage | None:
    """An ``api_response`` UI event's counts, the same numbers under snake-case names
    (``ApiResponseEvent`` in telemetry/types.ts copies them from the response's ``usageMetadata``)."""
    return _counts(event.get("input_token_count"), event.get("output_token_count"),
                   event.get("thoughts_token_count"), event.get("cached_content_token_count"),
                   event.get("tool_token_count"), event.get("total_token_count"))


def _counts(prompt_raw: object, candidates_raw: object, thoughts_raw: object, cached_raw: object,
            tool_raw: object, total_raw: object) -> Usage | None:
    prompt, candidates, thoughts = as_int(prompt_raw), as_int(candidates_raw), as_int(thoughts_raw)
    cached, tool, total = as_int(cached_raw), as_int(tool_raw) or 0, as_int(total_raw)
    cached = cached or None
    output = candidates
    if candidates is not None and thoughts and not (prompt is not None and total == prompt + candidates):
        output = candidates + thoughts
    fresh = None if prompt is None else max(prompt - (cached or 0), 0) + tool
    if fresh is None and output is None and cached is None:
        return None
    return Usage(fresh, output, cached, None)


# -- reading ---------------------------------------------------------------------------------------


@dataclass
class _Draft:
    id: str
    parent: str | None
    role: Role
    blocks: list[Block]
    line: int
    time: datetime | None
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    tags: tuple[str, ...] = ()
    results: bool = False
    """Made of ``tool_result`` records: the next result of the same round joins it."""


@dataclass
class _Session:
    """One session of a file being read: its records in file order become drafts and events."""

    path: Path
    ctx: ImportContext
    sid: str
    where: Where
    auth: str | None
    agent: bool = False
    book: CallBook = field(default_factory=CallBook)
    drafts: list[_Draft] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    node: dict[str, str | None] = field(default_factory=dict)
    """Record uuid → the message at or above it (``None`` above the first message)."""
    api_call: dict[str, int] = field(default_factory=dict)
    """Record uuid → the ``api_response`` event nearest above it since the last message (-1: none)."""
    calls: dict[int, Usage | None] = field(default_factory=dict)
    """Event index of an ``api_response`` → its usage."""
    title: str | None = None
    parent_session: str | None = None
    last: str | None = None
    """The uuid of the last record read."""
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)

    def source(self, line: int | None) -> SourceRef:
        return self.where.source(line)

    def problem(self, line: int | None, reason: str) -> None:
        self.ctx.problem(self.path, line, reason)

    def event(self, kind: EventKind, type_: str, rec: dict[str, Any], line: int, anchor: str | None,
              text: str = "", tokens_before: int | None = None, trigger: str | None = None) -> int:
        self.events.append(Event(kind, type_, parse_time(rec.get("timestamp")), anchor, text, packed(json_value(rec)),
                                 self.source(line), tokens_before, trigger))
        return len(self.events) - 1

    def provider(self, model: str | None) -> str | None:
        by_auth = AUTH_PROVIDERS.get(self.auth or "")
        return by_auth or (name_family(model) if model else None)

    def record(self, line: int, rec: dict[str, Any]) -> None:
        uuid = text_of(rec.get("uuid")) or f"{self.where.name}:{line}"
        if not text_of(rec.get("uuid")):
            self.problem(line, f"record has uuid {shown(rec.get('uuid'))}, not text; named by its line")
        if uuid in self.seen:
            if self.seen[uuid] != rec:
                self.problem(line, f"uuid {uuid} repeats with other content; the first record is kept")
            else:
                self.ctx.account(self.path, line, "repeat", f"record {uuid}")
            return
        self.seen[uuid] = rec
        raw_parent = rec.get("parentUuid")
        parent_uuid = raw_parent if isinstance(raw_parent, str) and raw_parent else None
        if raw_parent is not None and parent_uuid is None:
            self.problem(line, f"parentUuid is {shown(raw_parent)}, not text; read as a root")
        if parent_uuid is not None and parent_uuid not in self.node:
            self.problem(line, f"parent {parent_uuid} is not an earlier record of the file; the record is a root")
            parent_uuid = None
        parent = self.node.get(parent_uuid) if parent_uuid is not None else None
        self.last = uuid
        kind = text_of(rec.get("type"))
        if kind == "system":
            self.node[uuid] = parent
            self.system(uuid, parent_uuid, parent, line, rec)
            return
        self.api_call[uuid] = -1
        if kind in ("user", "assistant", "tool_result"):
            self.node[uuid] = self.message(uuid, parent_uuid, parent, kind, line, rec)
            return
        self.node[uuid] = parent
        self.problem(line, f"record type {shown(rec.get('type'))} is not one Qwen Code writes; kept as an event")
        self.event("other", kind_name(rec.get("type", "unknown")), rec, line, parent)

    # -- messages ----------------------------------------------------------------------------------

    def message(self, uuid: str, parent_uuid: str | None, parent: str | None, kind: str, line: int,
                rec: dict[str, Any]) -> str | None:
        time = parse_time(rec.get("timestamp"))
        content = rec.get("message")
        if content is not None and not isinstance(content, dict):
            self.problem(line, f"{kind} record's message is {shown(content)}, not an object; read as empty")
        parts = obj(content).get("parts")
        if parts is not None and not isinstance(parts, list):
            self.problem(line, f"{kind} record's parts are {shown(parts)}, not a list; read as empty")
        parts = items(parts)
        if kind == "assistant":
            return self.reply(uuid, parent_uuid, parent, line, time, rec, parts, content is not None)
        blocks = parts_to_blocks(parts, uuid, self.where, line, None, None, self.book)
        if kind == "tool_result":
            return self.results(uuid, parent, line, time, rec, blocks)
        subtype = text_of(rec.get("subtype"))
        tags = ("meta",) if subtype in CLIENT_USER_SUBTYPES else ()
        if isinstance(rec.get("systemPayload"), dict):
            displayed = rec["systemPayload"].get("displayText")
            self.event("meta", f"user:{subtype or 'prompt'}", rec, line, uuid,
                       displayed if isinstance(displayed, str) else "")
        role: Role = "tool" if blocks and all(isinstance(b, ToolResult) for b in blocks) else "user"
        self.drafts.append(_Draft(uuid, parent, role, blocks or [Text("")], line, time, tags=tags))
        return uuid

    def reply(self, uuid: str, parent_uuid: str | None, parent: str | None, line: int, time: datetime | None,
              rec: dict[str, Any], parts: list[Any], has_message: bool) -> str | None:
        model = text_of(rec.get("model")) or None
        call = self.api_call.get(parent_uuid, -1) if parent_uuid is not None else -1
        provider = self.provider(model)
        if not has_message:
            # recordAssistantTurn writes a record without a message when a turn returned only usage
            self.event("token_count", "assistant:usage", rec, line, parent)
            return parent
        blocks = parts_to_blocks(parts, uuid, self.where, line, model, provider, self.book)
        spent = usage(rec.get("usageMetadata"))
        if call >= 0:
            self.events[call] = replace(self.events[call], message_id=uuid)
            spent = spent or self.calls.get(call)
        self.drafts.append(_Draft(uuid, parent, "assistant", blocks or [Text("")], line, time, model, provider, spent))
        return uuid

    def results(self, uuid: str, parent: str | None, line: int, time: datetime | None, rec: dict[str, Any],
                blocks: list[Block]) -> str:
        outcome = rec.get("toolCallResult")
        if outcome is not None and not isinstance(outcome, dict):
            self.problem(line, f"toolCallResult is {shown(outcome)}, not an object; ignored")
        outcome = obj(outcome)
        call_id = text_of(outcome.get("callId"))
        failed = text_of(outcome.get("status")) in ERROR_STATUSES
        if not any(isinstance(b, ToolResult) for b in blocks) and call_id is not None:
            # a record without its functionResponse: the UI's copy of the outcome is all there is
            display = outcome.get("resultDisplay")
            error = obj(outcome.get("error")).get("message")
            text = display if isinstance(display, str) else error if isinstance(error, str) else stringify(display)
            if self.book.answer(call_id, None) is None:
                self.problem(line, f"tool result for call {call_id!r} that no earlier functionCall made; kept")
            blocks = [ToolResult(call_id, text, failed, detail_json=packed(json_value(display))), *blocks]
        elif outcome:
            results = [(i, b) for i, b in enumerate(blocks) if isinstance(b, ToolResult)]
            for i, result in [(i, b) for i, b in results if b.tool_use_id == call_id] or results[:1]:
                detail = packed(json_value(outcome["resultDisplay"])) if "resultDisplay" in outcome else result.detail_json
                blocks[i] = replace(result, is_error=result.is_error or failed, detail_json=detail)
        only_results = bool(blocks) and all(isinstance(b, ToolResult) for b in blocks)
        last = self.drafts[-1] if self.drafts else None
        if last is not None and last.results and last.id == parent and only_results:
            last.blocks.extend(blocks)
            self.ctx.account(self.path, line, "merged", f"message {last.id}")
            return last.id
        self.drafts.append(_Draft(uuid, parent, "tool" if only_results else "user", blocks or [Text("")], line,
                                  time, results=only_results))
        return uuid

    # -- system records ----------------------------------------------------------------------------

    def system(self, uuid: str, parent_uuid: str | None, parent: str | None, line: int, rec: dict[str, Any]) -> None:
        self.api_call[uuid] = self.api_call.get(parent_uuid, -1) if parent_uuid is not None else -1
        subtype = text_of(rec.get("subtype"))
        payload = obj(rec.get("systemPayload"))
        if subtype not in SYSTEM_SUBTYPES:
            self.problem(line, f"system record of subtype {shown(rec.get('subtype'))} is not one Qwen Code "
                               "writes; kept as an event")
            self.event("other", kind_name(rec.get("subtype", "system")), rec, line, parent)
            return
        kind = SYSTEM_SUBTYPES[subtype]
        if subtype == "ui_telemetry":
            ui = obj(payload.get("uiEvent"))
            name = text_of(ui.get("event.name")) or "unknown"
            self.auth = text_of(ui.get("auth_type")) or self.auth
            error = ui.get("error")
            index = self.event(TELEMETRY_KINDS.get(name, "meta"), name, rec, line, parent,
                               error if isinstance(error, str) else text_of(ui.get("function_name")) or "")
            if name == API_RESPONSE:
                self.api_call[uuid] = index
                self.calls[index] = telemetry_usage(ui)
            return
        if subtype == "chat_compression":
            info = obj(payload.get("info"))
            before, after = as_int(info.get("originalTokenCount")), as_int(info.get("newTokenCount"))
            summary = "\n".join(p["text"] for c in items(payload.get("compressedHistory"))
                                for p in items(obj(c).get("parts")) if isinstance(p, dict) and isinstance(p.get("text"), str))
            head = f"{before} -> {after} tokens (compressionStatus {info.get('compressionStatus')})"
            self.event(kind, subtype, rec, line, parent, f"{head}\n{summary}" if summary else head, before,
                       text_of(payload.get("trigger")))
            return
        if subtype == "turn_result" and payload.get("state") == "error":
            kind = "error"
        if subtype == "custom_title" and isinstance(payload.get("customTitle"), str):
            self.title = payload["customTitle"] or self.title
        if subtype == "parent_session" and isinstance(payload.get("parentSessionId"), str):
            self.parent_session = payload["parentSessionId"] or self.parent_session
        if subtype == "session_model" and isinstance(payload.get("authType"), str):
            self.auth = payload["authType"]
        self.event(kind, subtype, rec, line, parent, _system_text(payload))

    # -- the session -------------------------------------------------------------------------------

    def session(self) -> Session:
        configs: list[RunConfig] = []
        current: str | None = None
        messages: list[Message] = []
        for d in self.drafts:
            if d.role == "assistant" and d.model is not None and d.model != current:
                current = d.model
                configs.append(RunConfig(current, d.provider, message_id=d.id, time=d.time, source=self.source(d.line)))
            messages.append(Message(d.id, d.parent, d.role, tuple(d.blocks), d.time, d.model, d.provider, d.usage,
                                    self.source(d.line), self.agent, d.tags))
        tip = self.node.get(self.last) if self.last is not None else None
        if tip is None and messages:
            tip = messages[-1].id  # rewound to before the first message: nothing is live, the newest stays the tip
        parent = self.parent_session
        if self.agent and parent is None:
            parent = self.sid.rpartition(AGENT_MARK)[0]
        return Session(self.sid, FORMAT, tuple(messages), tip, self.where.name, tuple(configs), tuple(self.events),
                       parent, title=self.title)


def _system_text(payload: dict[str, Any]) -> str:
    """The words a system record's payload shows: a slash command, a title, a notice."""
    for key in ("rawCommand", "customTitle", "displayText", "userText", "message", "parentSessionId", "modelId"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _auth_type(rec: dict[str, Any]) -> str | None:
    if rec.get("subtype") != "ui_telemetry":
        return None
    return text_of(obj(obj(rec.get("systemPayload")).get("uiEvent")).get("auth_type"))


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    """Every session of one chat file: the main conversation and each subagent's records."""
    records = list(iter_json_lines(path, ctx))
    if not records:
        ctx.problem(path, None, "no Qwen Code record in the file")
        return []
    where = Where(path, ctx)
    # a reply before the first API call's telemetry is still served by the session's first backend
    auth = next((found for _, r in records if (found := _auth_type(r))), None)
    sessions: dict[str, _Session] = {}
    for line, rec in records:
        sid = text_of(rec.get("sessionId")) or ""
        if not sid:
            ctx.problem(path, line, f"record has sessionId {shown(rec.get('sessionId'))}; read as the file's session")
            sid = path.stem
        agent = text_of(rec.get("agentId"))
        key = f"{sid}{AGENT_MARK}{agent}" if agent else sid
        if key not in sessions:
            sessions[key] = _Session(path, ctx, key, where, auth, agent=bool(agent))
        sessions[key].record(line, rec)
    for key in sessions:
        sid, _, agent = key.partition(AGENT_MARK)
        if agent and sid not in sessions:
            _check_parent(path, key, sid, ctx)
    return [s.session() for s in sessions.values()]


def _check_parent(path: Path, key: str, sid: str, ctx: ImportContext) -> None:
    """A subagent whose parent session is neither in its file nor where Qwen Code keeps it
    (``<project>/chats/<session>.jsonl``, or ``chats/archive/``, beside ``subagents/<session>/``)
    cannot be tied to the call that spawned it."""
    project = path.parent.parent.parent if path.parent.parent.name == "subagents" else path.parent.parent
    chats = project / "chats"
    if not any((folder / f"{sid}.jsonl").is_file() for folder in (chats, chats / "archive", path.parent)):
        ctx.problem(path, None, f"subagent {key}: its parent session {sid} is neither in the file nor at "
                                f"chats/{sid}.jsonl, so the call that spawned it is unknown")


# -- linking a subagent to its call ---------------------------------------------------------------------

SPAWN_TOOLS = frozenset({"agent", "task", "create_sub_session"})
"""The tools that start a subagent: ``agent`` (``ToolNames.AGENT`` in packages/core/src/tools/tool-names.ts),
``task`` before its rename (``ToolNamesMigration``); and ``create_sub_session`` (daemon mode), which starts
a session of its own that names its parent in a ``parent_session`` record."""
LAUNCHED = re.compile(r"\(ID: ([^()\s]+)\)|qwen-session://([0-9A-Za-z_-]+)")
"""How a result names what its call started: a background launch ``Background agent launched:
"<description>" (ID: <agentId>)`` (``AgentToolInvocation.execute`` in packages/core/src/tools/agent/agent.ts
at d3b60d60fc; a foreground run's result is the agent's final text and names none), a sub-session its
``qwen-session://<sessionId>`` link (``CreateSubSessionInvocation.execute`` in tools/create-sub-session.ts
at 10b47dfc30); read 2026-12-03."""


def _agent_named(result: ToolResult) -> str | None:
    found = LAUNCHED.search(result.output)
    return (found.group(1) or found.group(2)) if found else None


def _notified(raw: object) -> tuple[str, str] | None:
    """A completion notice naming the agent and its call: a ``notification`` record's
    ``systemPayload.backgroundTask`` of kind ``agent`` (``taskId`` the agent, ``toolUseId`` the call;
    ``NotificationRecordPayload`` in chatRecordingService.ts at 015346f1d5)."""
    task = obj(obj(obj(raw).get("systemPayload")).get("backgroundTask"))
    agent, call = text_of(task.get("taskId")), text_of(task.get("toolUseId"))
    return (agent, call) if task.get("kind") == "agent" and agent and call else None


def link_facts(session: Session) -> Spawns | None:
    """A session's spawning calls (a background launch's result, and the completion notice, name the
    agent; a sub-session's link names the session) and, for a subagent's records (``agentId``) or a
    sub-session, its parent, agent (or session) id and prompt."""
    sid, _, agent = session.id.partition(AGENT_MARK)
    child: Spawned | None = None
    if session.spawn_call_id is None and agent:
        child = Spawned(sid, agent, opening(session))
    elif session.spawn_call_id is None and session.parent_session_id is not None:  # a sub-session
        child = Spawned(session.parent_session_id, session.id, opening(session))
    more = [found for e in session.events if (found := _notified(e.raw)) is not None]
    return spawns_of(session, spawning_calls(session, SPAWN_TOOLS), _agent_named, session.id, child, None, more)


# -- detection -------------------------------------------------------------------------------------

ENVELOPE = re.compile(rb'"parentUuid"\s*:')
ENVELOPE_WINDOW = 4096
"""The envelope's keys come first in every record (``createBaseRecord`` spreads them before the
content; only a small ``backgroundTurn`` object may precede ``uuid``), so a file whose first 4 KB
lack ``"parentUuid":`` is none of Qwen Code's (the number is this module's own margin)."""


def looks_like_record(value: object) -> bool:
    """A Qwen Code chat record: the envelope with Qwen's Gemini message or system payload."""
    if not isinstance(value, dict) or "uuid" not in value or "sessionId" not in value:
        return False
    kind = text_of(value.get("type"))
    if kind not in RECORD_TYPES:
        return False
    if kind == "tool_result":
        return "message" in value or "toolCallResult" in value
    return qwen_code_record(value)


def sniff(head: Head) -> bool:
    """Qwen Code chat records as JSONL, told from the first records (a first line longer than the
    head by how its envelope and Gemini message open)."""
    data = head.data
    start = len(data) - len(data.lstrip(b"\xef\xbb\xbf \t\r\n"))
    if data[start:start + 1] != b"{" or ENVELOPE.search(data, start, start + ENVELOPE_WINDOW) is None:
        return False
    text = head.text.lstrip("\ufeff \t\r\n")
    decided = head.records_decide(text, 12, 6, looks_like_record)
    if decided is not None:
        return decided
    first = next(head.lines(1, text))
    return '"uuid":' in first and '"sessionId":' in first and QWEN_FIRST_LINE.search(first) is not None


# -- where Qwen Code keeps files --------------------------------------------------------------------
# The runtime base is QWEN_RUNTIME_DIR, else the ``advanced.runtimeOutputDir`` setting (a relative value
# resolved against each project's root), else QWEN_HOME, else ~/.qwen: Storage.getRuntimeBaseDir and
# getGlobalQwenDir in packages/core/src/config/storage.ts, Storage.setRuntimeBaseDir(settings.advanced?
# .runtimeOutputDir, cwd) in packages/cli/src/config/config.ts (QwenLM/qwen-code, read 2026-12-03);
# "QWEN_HOME: customizes the global configuration directory (default: ~/.qwen)", "QWEN_RUNTIME_DIR:
# overrides the runtime output directory (conversations, logs, todos); defaults to QWEN_HOME"
# (docs/users/configuration/settings.md, summarised at https://www.developersdigest.tech/reference/qwen-code/
# env-vars, read 2026-12-03). The setting lives in settings.json, which a layout does not read.
# Under it: projects/<sanitized cwd>/chats/<session id>.jsonl (Storage.getProjectDir joins "projects" and
# sanitizeCwd of the project root; ChatRecordingService.ensureChatsDir adds "chats"), archived sessions in
# chats/archive/ (QwenLM/qwen-code 0.22.0 per zszz3/AgentRecall#475, read 2026-12-03), subagents'
# projects/<project>/subagents/<session>/agent-<id>.jsonl (vshulcz/deja-vu docs/registry/qwen.md, verified
# 2026-09-07, read 2026-12-03); tmp/<project hash>/ holds the Gemini CLI layout older releases wrote
# (Storage.getProjectTempDir), read by the gemini_cli importer.
QWEN_HOME = "QWEN_HOME"
QWEN_RUNTIME_DIR = "QWEN_RUNTIME_DIR"


def _projects_descend(parts: Parts) -> bool:
    if len(parts) == 1:
        return True
    if len(parts) == 2:
        return parts[1] in ("chats", "subagents")
    return len(parts) == 3 and (parts[1] == "subagents" or parts[1:] == ("chats", "archive"))


def _projects_wanted(parts: Parts) -> bool:
    if not parts[-1].endswith(".jsonl") or len(parts) < 3:
        return False
    if parts[1] == "chats":
        return len(parts) == 3 or (len(parts) == 4 and parts[2] == "archive")
    return len(parts) == 4 and parts[1] == "subagents" and parts[-1].startswith("agent-")


def _tmp_descend(parts: Parts) -> bool:
    return len(parts) == 1 or (len(parts) == 2 and parts[1] == "chats")


def _tmp_wanted(parts: Parts) -> bool:
    name = parts[-1]
    if len(parts) == 3:
        return parts[1] == "chats" and name.startswith("session-") and name.endswith(".json")
    return len(parts) == 2 and (name == "logs.json" or (name.startswith("checkpoint-") and name.endswith(".json")))


def layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where Qwen Code keeps chat recordings, and the Gemini CLI files older releases wrote."""
    runtime, qwen_home = setting(env, QWEN_RUNTIME_DIR), setting(env, QWEN_HOME)
    if runtime is not None:
        root, by = expand(runtime, home), QWEN_RUNTIME_DIR
    elif qwen_home is not None:
        root, by = expand(qwen_home, home), QWEN_HOME
    else:
        root, by = home / ".qwen", "default"
    return [Layout(FORMAT, root / "projects", by, _projects_descend, _projects_wanted),
            Layout(FORMAT, root / "tmp", by, _tmp_descend, _tmp_wanted)]


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Qwen Code chat recordings (~/.qwen/projects/<project>/chats/<session>.jsonl)",
    client="Qwen Code",
    layouts=layouts,
    names_only="the Qwen Code chat recording records tool names only, not the specs sent",
    link=Linker(link_facts, spawn_links),
)
