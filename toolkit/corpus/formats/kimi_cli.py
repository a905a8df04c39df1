"""Kimi CLI (Moonshot AI) sessions read into the record.

A session is a folder ``sessions/<work-dir hash>/<session id>/`` of Kimi's home holding:

- ``context.jsonl``: the conversation as the model is sent it, one kosong ``Message`` a line (role,
  ``content`` as text or parts ``text`` / ``think`` / ``image_url`` / ``audio_url`` / ``video_url``,
  ``tool_calls``, ``tool_call_id``), plus the client's own records under pseudo-roles: ``_checkpoint``
  (``id``; the target of a revert), ``_usage`` (``token_count``: the context's size, written with the
  request's input before the reply and input plus output after it) and, since March 2026,
  ``_system_prompt`` (``content``) as the first line. A revert (D-Mail), ``/clear`` or a compaction
  moves the file aside as ``context_<n>.jsonl`` and starts a new one (a compaction's with the summary).
- ``wire.jsonl``: the event log of the UI protocol, ``{timestamp, message: {type, payload}}`` lines
  after a ``{"type": "metadata", "protocol_version"}`` header (since protocol 1.1; earlier files have
  none): turns, steps, content parts, tool calls and results, per-step token usage with cache reads,
  approvals, compactions. It is never rotated, so it spans every context file of the session.
- ``state.json`` (session settings), before it ``metadata.json`` (title, archive flags), and background
  tasks' ``tasks/<task id>/`` files (spec, state, output): no transcript.
- subagents: ``subagents/<agent id>/{context.jsonl, wire.jsonl, meta.json, prompt.txt, output}``
  (since March 2026), before that ``context_sub_<n>.jsonl`` beside the context file.

Which file is the session: ``context.jsonl``, because it is what the model saw, system prompt,
compaction summaries and client-injected messages included; the wire repeats the same words as a UI
stream and lacks those. The wire beside it is read for what the context lacks (times, per-step usage
with cache reads, tool errors, approvals) and is owned (``owns``) so a folder load reads the session
once; a wire without its context file is read on its own. ``context_<n>.jsonl`` files are earlier
histories of the same session (what the model saw before the rotation) and each is its own session
``<id>/context_<n>``; the wire gives them times and usage too, its events go to the current file only.
The oldest layout (Sept to Nov 2025) kept the context as ``sessions/<hash>/<session id>.jsonl`` and
subagents as ``<session id>_sub_<n>.jsonl``; the content is the same.

Subagents are linked (``link``) to the parent's call that spawned them: an ``Agent`` call's result names
the instance (``agent_id: <id>``), and so does the wire's first ``SubagentEvent`` of each run (kept as a
``meta`` event of the parent); a ``resume`` call continues an instance and did not spawn it. The older
files (``context_sub_<n>``, ``<id>_sub_<n>``) name no agent, so the ``Task`` call whose ``prompt`` opened
the subagent is its call when exactly one does. A subagent whose parent's files are not on disk is a problem.

Read from MoonshotAI/kimi-cli at 4a550effdfcb29a25a5d325bf935296cc50cd417 (kimi-cli 1.49.0, July
2026) and its history, read 2026-12-03: ``src/kimi_cli/soul/context.py`` (the context file),
``src/kimi_cli/soul/kimisoul.py`` (when ``_usage`` is written, compaction), ``src/kimi_cli/wire/types.py``
and ``file.py`` (the wire), ``packages/kosong/src/kosong/message.py`` (messages and parts),
``src/kimi_cli/session.py``, ``metadata.py``, ``share.py``, ``session_state.py``,
``subagents/store.py``; the older layouts at 50a663a9 (2025-11-25), 23f44063 (2025-09-16),
da488190 (2025-09-26), ff09e97c (2026-03-23); the protocol versions in docs/en/customization/wire-mode.md.

Kimi CLI records no model name in a session (it is in the user's config) and no tool specs, so
``model`` is ``None`` except for subagents, whose ``meta.json`` names the effective model.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import (
    Head,
    ImportContext,
    Importer,
    iter_json_lines,
    parse_time,
    read_json,
)
from toolkit.corpus.formats.layout import Layout, Parts, expand, setting
from toolkit.corpus.formats.shapes import as_int, kind_name, shown, text_of
from toolkit.corpus.formats.wirekit import Where, result_parts, tool_use, unread_message
from toolkit.corpus.linking import Linker, Spawned, Spawns, opening, spawn_links, spawning_calls, spawns_of
from toolkit.record import (
    Block,
    Event,
    Image,
    JsonValue,
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

FORMAT = "kimi_cli"

CONTEXT_FILE = "context.jsonl"
WIRE_FILE = "wire.jsonl"
"""File names of a session folder (``Session.create`` in src/kimi_cli/session.py)."""
OWNED_NAMES = frozenset({"state.json", "metadata.json", "meta.json", "prompt.txt", "output"})
"""Files of a session or subagent folder that hold no transcript: ``state.json`` (session_state.py),
the legacy ``metadata.json`` it migrates from, and a subagent's ``meta.json``, ``prompt.txt`` and
``output`` (``SubagentStore`` in src/kimi_cli/subagents/store.py)."""
TASK_NAMES = frozenset({"spec.json", "runtime.json", "control.json", "consumer.json", "output.log"})
"""A background task's files, ``<session>/tasks/<task id>/`` (``BackgroundTaskStore`` in
src/kimi_cli/background/store.py, since c8547edf of 2026-03-17): its spec (kind, description, the
``tool_call_id`` that started it), state and output; no transcript."""
ROTATED = re.compile(r"context_(\d+)\.jsonl")
"""A context file moved aside by a revert, ``/clear`` or a compaction (``next_available_rotation`` in
src/kimi_cli/utils/path.py names it ``<stem>_<n><suffix>``)."""
SUBAGENT_FILE = re.compile(r"(.+)_sub_\d+\.jsonl")
"""A subagent's context beside its parent's (``<stem>_sub_<n>.jsonl``, the Task tool in
src/kimi_cli/tools/multiagent/task.py from da488190 until ff09e97c)."""

PSEUDO_ROLES = frozenset({"_checkpoint", "_usage", "_system_prompt"})
"""The records ``Context`` writes besides messages (src/kimi_cli/soul/context.py)."""
COMPACTION_PREFIX = "<system>Previous context has been compacted. Here is the compaction output:</system>"
"""The first part of the user message a compaction leaves (``COMPACTION_OUTPUT_PREFIX`` wrapped by
``system()`` in src/kimi_cli/soul/compaction.py, the same since f5154532, 2025-10-23)."""
CHECKPOINT_MESSAGE = re.compile(r"<system>CHECKPOINT \d+</system>")
"""The user message a checkpoint adds when the D-Mail tool is on (``Context.checkpoint``)."""
ERROR_PREFIX = "<system>ERROR: "
"""How a failed tool's result starts in the context (``tool_result_to_message`` in
src/kimi_cli/soul/message.py): the context has no error flag of its own."""
MEDIA_PARTS = frozenset({"audio_url", "video_url"})
"""Content parts the record has no kind for (kosong ``AudioURLPart``, ``VideoURLPart``)."""
MESSAGE_KEYS = frozenset({"role", "name", "content", "tool_calls", "tool_call_id", "partial"})
"""The kosong ``Message`` fields this reader reads: a reply without ``tool_calls`` that holds a key like
it (``unread_keys`` with ``optional``, so a field kosong adds later is no damage) has its calls under it."""
TEXT_PART_KEYS = frozenset({"type", "text"})
"""kosong ``TextPart``: a text part without ``text`` that holds another key has its words under it."""

WIRE_TYPES = frozenset({
    "TurnBegin", "SteerInput", "TurnEnd", "StepBegin", "StepInterrupted", "StepRetry", "HookTriggered",
    "HookResolved", "CompactionBegin", "CompactionEnd", "MCPLoadingBegin", "MCPLoadingEnd", "StatusUpdate",
    "Notification", "ContentPart", "ToolCall", "ToolCallPart", "ToolResult", "ApprovalResponse",
    "ApprovalRequestResolved", "SubagentEvent", "PlanDisplay", "BtwBegin", "BtwEnd", "ApprovalRequest",
    "ToolCallRequest", "QuestionRequest", "HookRequest",
})
"""Every wire message type through protocol 1.10 (src/kimi_cli/wire/types.py; ``ApprovalRequestResolved``
is the name before 1.1)."""
WIRE_META_TYPES = frozenset({
    "HookTriggered", "HookResolved", "MCPLoadingBegin", "MCPLoadingEnd", "Notification", "ApprovalResponse",
    "ApprovalRequestResolved", "PlanDisplay", "BtwBegin", "BtwEnd", "ApprovalRequest", "ToolCallRequest",
    "QuestionRequest", "HookRequest",
})
"""Wire messages that are client bookkeeping, not words the model saw: kept as ``meta`` events."""


# ---- where Kimi CLI keeps sessions ---------------------------------------------------------------
# The share directory is ~/.kimi, or KIMI_SHARE_DIR when set (get_share_dir in src/kimi_cli/share.py,
# the variable since 87d01791, 2026-01-30); before bb4a7d2e (2025-10-21) it was ~/.local/share/kimi,
# hard-coded. Sessions: <share>/sessions/<md5 of the work dir, or <kaos>_<md5>>/<session id>/
# (WorkDirMeta.sessions_dir in src/kimi_cli/metadata.py), subagents in <session>/subagents/<id>/;
# imported sessions in <share>/imported_sessions/<session id>/ (src/kimi_cli/vis/api/sessions.py);
# until 50a663a9 (2025-11-25) the context was <share>/sessions/<hash>/<session id>.jsonl. Read
# 2026-12-03 at 4a550effdfcb29a25a5d325bf935296cc50cd417.
KIMI_SHARE_DIR = "KIMI_SHARE_DIR"


def _context_name(name: str) -> bool:
    return name == CONTEXT_FILE or ROTATED.fullmatch(name) is not None or name.startswith("context_sub_")


def _sessions_descend(parts: Parts) -> bool:
    return len(parts) <= 2 or (len(parts) in (3, 4) and parts[2] == "subagents")


def _sessions_wanted(parts: Parts) -> bool:
    name = parts[-1]
    if len(parts) == 2:  # the flat layout before 2025-11-25
        return name.endswith(".jsonl")
    return (len(parts) == 3 and _context_name(name) and name.endswith(".jsonl")) or (
        len(parts) == 5 and parts[2] == "subagents" and name == CONTEXT_FILE)


def _imported_descend(parts: Parts) -> bool:
    return len(parts) == 1


def _imported_wanted(parts: Parts) -> bool:
    return len(parts) == 2 and _context_name(parts[-1]) and parts[-1].endswith(".jsonl")


def layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where Kimi CLI keeps sessions (see the rules above)."""
    share = setting(env, KIMI_SHARE_DIR)
    root, by = (expand(share, home), KIMI_SHARE_DIR) if share is not None else (home / ".kimi", "default")
    found = [Layout(FORMAT, root / "sessions", by, _sessions_descend, _sessions_wanted),
             Layout(FORMAT, root / "imported_sessions", by, _imported_descend, _imported_wanted)]
    if share is None:
        found.append(Layout(FORMAT, home / ".local" / "share" / "kimi" / "sessions", "default",
                            _sessions_descend, _sessions_wanted))
    return found


# ---- detection -------------------------------------------------------------------------------------

SYSTEM_PROMPT_START = re.compile(r'\{\s*"role"\s*:\s*"_system_prompt"\s*,\s*"content"\s*:\s*"')
"""A first line too long for the head: the system prompt ``json.dumps`` wrote first."""


def sniff(found: Head) -> str | None:
    """``"context"`` for a context file (a pseudo-role record among its first lines), ``"wire"`` for a
    wire log (its metadata header, or a first record of a known wire type), else ``None``. Every line
    of both files opens with the key the client writes first (``role``; ``type`` or ``timestamp``), so
    other content is told apart by its first bytes."""
    data = found.data.lstrip()
    if data.startswith(b'{"role":'):
        if b'"role": "_' not in data:  # ``json.dumps`` writes the pseudo-role records (context.py)
            return None
        for line in found.lines(40):
            rec = found.value(line)
            if isinstance(rec, dict) and _pseudo_record(rec):
                return "context"
            if not isinstance(rec, dict):
                return "context" if SYSTEM_PROMPT_START.match(line) else None
        return None
    if data.startswith((b'{"type": "metadata"', b'{"timestamp":')):
        for line in found.lines(3):
            if not line.strip():
                continue
            rec = found.value(line)
            if not isinstance(rec, dict):
                return None
            if rec.get("type") == "metadata" and isinstance(rec.get("protocol_version"), str) and len(rec) == 2:
                return "wire"
            message = rec.get("message")
            if (isinstance(message, dict) and message.get("type") in WIRE_TYPES
                    and isinstance(message.get("payload"), dict) and isinstance(rec.get("timestamp"), int | float)):
                return "wire"
            return None
    return None


def _pseudo_record(rec: dict[str, Any]) -> bool:
    role = rec.get("role")
    if role == "_checkpoint":
        return as_int(rec.get("id")) is not None
    if role == "_usage":
        return as_int(rec.get("token_count")) is not None
    return role == "_system_prompt" and isinstance(rec.get("content"), str)


def owns(path: str) -> bool:
    """A session folder's wire log when its context file is beside it, and the files that hold no
    transcript (settings, a subagent's metadata, prompt and output, a background task's files) when
    their session's context or wire file is there: a folder load reads each session once, from its
    context file."""
    name = os.path.basename(path)
    if name == WIRE_FILE:  # an empty context file (a session made and left) leaves the wire to be read
        try:
            return os.path.getsize(os.path.join(os.path.dirname(path), CONTEXT_FILE)) > 0
        except OSError:
            return False
    folder = os.path.dirname(path)
    if name in TASK_NAMES and os.path.basename(os.path.dirname(folder)) == "tasks":
        folder = os.path.dirname(os.path.dirname(folder))  # the session folder the task belongs to
    elif name not in OWNED_NAMES:
        return False
    return os.path.isfile(os.path.join(folder, CONTEXT_FILE)) or os.path.isfile(os.path.join(folder, WIRE_FILE))


# ---- the wire log ----------------------------------------------------------------------------------


@dataclass
class Entry:
    """One message the wire shows: a turn's user input, a step's reply, or a tool result."""

    role: Role
    line: int
    time: datetime | None
    blocks: list[Block | dict[str, Any]] = field(default_factory=list)
    """Blocks, and tool calls still being streamed (raw, completed by ``ToolCallPart``)."""
    texts: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    usage: Usage | None = None
    done: datetime | None = None
    """When the step's usage came (the reply was complete)."""
    tags: tuple[str, ...] = ()
    is_error: bool | None = None
    detail: JsonValue = None
    parts: list[int] = field(default_factory=list)
    """The lines after ``line`` read into the entry (streamed parts, its usage), for ``account``."""

    def account(self, ctx: ImportContext, path: Path, into: str) -> None:
        """Say that the entry's lines became the record ``into`` (``ImportContext.account``)."""
        for number in (self.line, *self.parts):
            ctx.account(path, number, "folded", into)


@dataclass
class Wire:
    """What one pass over a wire log gives."""

    version: str | None = None
    entries: list[Entry] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    results: dict[str, Entry] = field(default_factory=dict)


def read_wire(path: Path, ctx: ImportContext, companion: bool) -> Wire:
    """A wire log's messages and events. ``companion``: read beside a context file, whose own
    subagent files hold what ``SubagentEvent`` records repeat, so those are left out."""
    out = Wire()
    where = Where(path, ctx)
    step: Entry | None = None
    spawned: set[tuple[str, str]] = set()
    for line, rec in iter_json_lines(path, ctx):
        if rec.get("type") == "metadata" and "message" not in rec:
            out.version = text_of(rec.get("protocol_version"))
            ctx.account(path, line, "folded", "the wire's protocol version")
            continue
        message = rec.get("message")
        kind = text_of(message.get("type")) if isinstance(message, dict) else None
        payload = message.get("payload") if isinstance(message, dict) else None
        time = parse_time(rec.get("timestamp"))
        source = where.source(line)
        if kind is None or not isinstance(payload, dict):
            where.problem(line, "wire record without a message type and payload; kept as an event")
            out.events.append(Event("other", kind_name(kind), time, raw_json=packed(rec), source=source))
            continue
        match kind:
            case "TurnBegin" | "SteerInput":
                step = None
                entry = Entry("user", line, time, [*_parts(payload.get("user_input"), where, line, None)])
                entry.texts = [b.text for b in entry.blocks if isinstance(b, Text)]
                out.entries.append(entry)
            case "TurnEnd":
                step = None
                ctx.account(path, line, "folded", "the end of the turn before it")
            case "StepBegin":
                step = Entry("assistant", line, time)
                out.entries.append(step)
            case "StepInterrupted" | "StepRetry":
                out.events.append(Event("error", kind, time, text=_brief(payload), raw_json=packed(payload), source=source))
                if step is not None and kind == "StepRetry":  # the attempt's partial output is shown again
                    step.blocks, step.texts, step.calls = [], [], []
                elif step is not None:
                    step.tags = ("interrupted",)
                    step = None
            case "ContentPart" | "ToolCall" | "ToolCallPart":
                if step is None:
                    step = Entry("assistant", line, time)
                    out.entries.append(step)
                else:
                    step.parts.append(line)
                _stream(step, kind, payload, where, line)
            case "ToolResult":
                # no step ends here: a call runs as soon as it is complete, while the reply streams on
                entry = _wire_result(payload, where, line, time)
                out.entries.append(entry)
                call_id = text_of(payload.get("tool_call_id"))
                if call_id is not None:
                    out.results[call_id] = entry
            case "StatusUpdate":
                usage = _token_usage(payload.get("token_usage"))
                target = step if step is not None else _last_assistant(out.entries)
                if usage is not None and target is not None and target.usage is None:
                    target.usage, target.done = usage, time
                    target.parts.append(line)
                else:
                    tokens, limit = as_int(payload.get("context_tokens")), as_int(payload.get("max_context_tokens"))
                    text = f"{tokens} of {limit} tokens in context" if tokens is not None else ""
                    out.events.append(Event("token_count", kind, time, text=text, raw_json=packed(payload), source=source))
            case "CompactionBegin" | "CompactionEnd":
                out.events.append(Event("meta" if companion else "compaction", kind, time, raw_json=packed(payload), source=source))
            case "SubagentEvent":
                if not companion:
                    out.events.append(Event("other", kind, time, raw_json=packed(payload), source=source))
                elif (spawn := _spawn_named(payload)) is None or spawn in spawned:
                    ctx.account(path, line, "repeat", "the subagent's own files")
                else:
                    # the subagent's own files hold the event itself; which call ran which agent is kept
                    spawned.add(spawn)
                    out.events.append(Event("meta", kind, time, text=f"agent {spawn[0]} run by call {spawn[1]}",
                                            raw_json=packed({"agent_id": spawn[0], "parent_tool_call_id": spawn[1]}),
                                            source=source))
            case _ if kind in WIRE_META_TYPES:
                out.events.append(Event("meta", kind, time, text=_brief(payload), raw_json=packed(payload), source=source))
            case _:
                where.problem(line, f"unknown wire message type {shown(kind)}; kept as an event")
                out.events.append(Event("other", kind, time, raw_json=packed(payload), source=source))
    for entry in out.entries:
        entry.blocks = [_call(b, where, entry.line) if isinstance(b, dict) else b for b in entry.blocks]
    return out


def _spawn_named(payload: Mapping[str, Any]) -> tuple[str, str] | None:
    """The agent a ``SubagentEvent`` came from and the parent's call that ran it (``agent_id`` and
    ``parent_tool_call_id`` since ff09e97c; before it only ``task_tool_call_id``, no agent)."""
    agent, call = text_of(payload.get("agent_id")), text_of(payload.get("parent_tool_call_id"))
    return (agent, call) if agent and call else None


def _stream(step: Entry, kind: str, payload: dict[str, Any], where: Where, line: int) -> None:
    """A content part, a tool call, or a piece of a call's arguments, added to the step."""
    if kind == "ContentPart":
        for block in _part(payload, where, line, None):
            step.blocks.append(block)
            if isinstance(block, Text):
                step.texts.append(block.text)
    elif kind == "ToolCall":
        call = dict(payload)
        function = call.get("function")
        call["function"] = dict(function) if isinstance(function, dict) else function
        step.blocks.append(call)
        call_id = text_of(call.get("id"))
        if call_id is not None:
            step.calls.append(call_id)
    else:
        piece = payload.get("arguments_part")
        last = next((b for b in reversed(step.blocks) if isinstance(b, dict)), None)
        function = last.get("function") if last is not None else None
        if not isinstance(function, dict):
            where.problem(line, "ToolCallPart without a tool call before it in its step; dropped its text")
            return
        if isinstance(piece, str):
            before = function.get("arguments")
            function["arguments"] = (before if isinstance(before, str) else "") + piece


def _wire_result(payload: dict[str, Any], where: Where, line: int, time: datetime | None) -> Entry:
    """A ``ToolResult`` as the tool message the context holds for it (``tool_result_to_message`` in
    src/kimi_cli/soul/message.py): the message in a ``<system>`` tag (``ERROR:`` first for an error),
    then the output, and a note when there is nothing or no text."""
    call_id = text_of(payload.get("tool_call_id")) or f"{where.name}:{line}.result"
    value = payload.get("return_value")
    if not isinstance(value, dict):
        where.problem(line, "ToolResult without a return_value object; kept as opaque")
        return Entry("tool", line, time, [ToolResult(call_id, "", False), Opaque("ToolResult", payload, "no return_value")])
    failed = value.get("is_error") is True
    note = text_of(value.get("message")) or ""
    output = value.get("output")
    content: list[Any] = []
    if failed:
        content.append({"type": "text", "text": f"{ERROR_PREFIX}{note}</system>"})
    elif note:
        content.append({"type": "text", "text": f"<system>{note}</system>"})
    if isinstance(output, str) and output:
        content.append({"type": "text", "text": output})
    elif isinstance(output, list):
        content.extend(output)
    elif output not in (None, ""):
        content.append(output)
    if not content:
        content.append({"type": "text", "text": "<system>Tool output is empty.</system>"})
    elif not failed and not any(isinstance(p, dict) and p.get("type") == "text" for p in content):
        content.insert(0, {"type": "text", "text": "<system>Tool returned non-text content.</system>"})
    text, images, others = _result_content(content, where, line)
    detail = {k: value[k] for k in ("display", "extras") if value.get(k)}
    result = ToolResult(call_id, text, failed, images, None, packed(detail or None))
    return Entry("tool", line, time, [result, *others], is_error=failed, detail=detail or None)


def _token_usage(raw: object) -> Usage | None:
    """kosong ``TokenUsage``: ``input_other`` excludes the cache reads and writes. ``input_cache_creation``
    defaults to 0 and only the Anthropic provider fills it (packages/kosong/src/kosong/chat_provider/
    __init__.py), so a 0 there is "not measured" and becomes ``None``."""
    if not isinstance(raw, dict):
        return None
    written = as_int(raw.get("input_cache_creation"))
    return Usage(as_int(raw.get("input_other")), as_int(raw.get("output")), as_int(raw.get("input_cache_read")),
                 written or None)


def _last_assistant(entries: list[Entry]) -> Entry | None:
    for entry in reversed(entries):
        if entry.role == "assistant":
            return entry
        if entry.role == "user":
            return None
    return None


def _brief(payload: dict[str, Any]) -> str:
    for key in ("description", "title", "error_type", "response", "event", "question"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


# ---- content ---------------------------------------------------------------------------------------


def _parts(content: Any, where: Where, line: int | None, model: str | None) -> list[Block]:
    """A message's content (kosong writes one text part as a bare string) as blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [Text(content)] if content else []
    if not isinstance(content, list):
        where.problem(line, f"content is {shown(content)}, neither text nor a list of parts; kept as opaque")
        return [Opaque("content", content, "neither text nor parts")]
    out: list[Block] = []
    for part in content:
        if isinstance(part, dict):
            out.extend(_part(part, where, line, model))
        elif isinstance(part, str):
            out.extend([Text(part)] if part else [])
        else:
            where.problem(line, f"content part is {shown(part)}, not an object; kept as opaque")
            out.append(Opaque("part", part, "not an object"))
    return out


def _part(part: dict[str, Any], where: Where, line: int | None, model: str | None) -> list[Block]:
    raw_kind = part.get("type")
    kind = text_of(raw_kind)
    if kind == "text":
        text = part.get("text")
        return [Text(text)] if isinstance(text, str) and text else unread_message(part, "text", TEXT_PART_KEYS, where,
                                                                                  line, "part")
    if kind == "think":  # kosong ThinkPart: ``encrypted`` is the provider's signature
        think = part.get("think")
        signature = text_of(part.get("encrypted")) or None
        text = think if isinstance(think, str) else ""
        if not text and signature is None:
            return []
        return [Reasoning(text, signature, None, model, not text)]
    if kind == "image_url":
        ref = part.get("image_url")
        url = ref.get("url") if isinstance(ref, dict) else ref
        if isinstance(url, str):
            return [where.ctx.image_data_url(url, where.file, line)]
        where.problem(line, "image_url part without a URL; kept as opaque")
        return [Opaque("image_url", part, "no URL")]
    if kind in MEDIA_PARTS:
        return [Opaque(str(kind), part, "content the record has no kind for")]
    where.problem(line, f"unknown content part type {shown(raw_kind)}; kept as opaque")
    return [Opaque(kind_name(raw_kind), part, "unknown content part")]


def _call(call: dict[str, Any], where: Where, line: int | None) -> Block:
    """A kosong ``ToolCall`` (``function.arguments`` a JSON string, or ``None``)."""
    call_id = text_of(call.get("id"))
    function = call.get("function")
    if call_id is None or not isinstance(function, dict) or not isinstance(function.get("name"), str):
        where.problem(line, "tool call without an id or a function name; kept as opaque")
        return Opaque("tool_call", call, "no id or name")
    return tool_use(call_id, function["name"], function.get("arguments"), where, line)


def _result_content(content: Any, where: Where, line: int | None) -> tuple[str, tuple[Image, ...], list[Block]]:
    """A tool message's parts as the result's text (parts joined by newlines), its images, and the
    parts that are neither."""
    return result_parts(_parts(content, where, line, None))


# ---- the context file ------------------------------------------------------------------------------


@dataclass
class Alignment:
    """The wire's entries found again for the context's messages, matched in order: a reply by its
    first call's id or by its words (also when the wire has no step with its call), a user message by
    its words, a tool message by its call id."""

    wire: Wire
    steps_by_call: dict[str, int] = field(default_factory=dict)
    by_text: dict[tuple[Role, str], list[int]] = field(default_factory=dict)
    last: dict[Role, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for i, entry in enumerate(self.wire.entries):
            if entry.role == "assistant":
                for call_id in entry.calls:
                    self.steps_by_call.setdefault(call_id, i)
            if entry.role in ("user", "assistant") and not entry.calls:
                self.by_text.setdefault((entry.role, "".join(entry.texts)), []).append(i)

    def find(self, role: Role, blocks: Iterable[Block]) -> Entry | None:
        listed = list(blocks)
        calls = [b.id for b in listed if isinstance(b, ToolUse)]
        if role == "tool":
            results = [b for b in listed if isinstance(b, ToolResult)]
            return self.wire.results.get(results[0].tool_use_id) if results else None
        last = self.last.get(role, -1)
        at: int | None = None
        if calls:
            found = self.steps_by_call.get(calls[0])
            at = found if found is not None and found > last else None
        if at is None:  # no call, or the wire lost its step's call (a line gone): found by its words
            candidates = self.by_text.get((role, "".join(b.text for b in listed if isinstance(b, Text))), [])
            k = bisect.bisect_right(candidates, last)
            at = candidates[k] if k < len(candidates) else None
        if at is None:
            return None
        self.last[role] = at
        return self.wire.entries[at]


@dataclass
class Names:
    """Who a context file is: its session id, its parent's, and the files beside it."""

    session: str
    parent: str | None
    wire: Path | None
    folder: Path | None
    """The session folder whose ``state.json`` names the session (``None`` for subagents)."""
    meta: Path | None
    """A subagent's ``meta.json``."""
    current: bool
    """The session's live context file (the wire's events belong to it)."""


def _names(path: Path) -> Names:
    folder = path.parent
    name = path.name
    wire = folder / WIRE_FILE
    has_wire = wire.is_file()
    if folder.parent.name == "subagents" and name == CONTEXT_FILE:
        parent = folder.parent.parent.name
        meta = folder / "meta.json"
        return Names(f"{parent}/{folder.name}", parent, wire if has_wire else None, None,
                     meta if meta.is_file() else None, True)
    if name == CONTEXT_FILE:
        return Names(folder.name, None, wire if has_wire else None, folder, None, True)
    if ROTATED.fullmatch(name):
        return Names(f"{folder.name}/{path.stem}", None, wire if has_wire else None, folder, None, False)
    if name.startswith("context_sub_"):
        return Names(f"{folder.name}/{path.stem}", folder.name, None, None, None, False)
    legacy = SUBAGENT_FILE.fullmatch(name)
    if legacy:
        return Names(path.stem, legacy.group(1), None, None, None, False)
    return Names(path.stem, None, None, None, None, False)


def _title(names: Names, ctx: ImportContext) -> tuple[str | None, str | None]:
    """The session's title (a custom title in ``state.json`` or the legacy ``metadata.json``; a
    subagent's description) and a subagent's model (``meta.json``)."""
    if names.meta is not None:
        meta = read_json(names.meta, ctx)
        if isinstance(meta, dict):
            spec = meta.get("launch_spec")
            model = text_of(spec.get("effective_model")) if isinstance(spec, dict) else None
            return text_of(meta.get("description")), model
        return None, None
    if names.folder is None:
        return None, None
    for file, key in (("state.json", "custom_title"), ("metadata.json", "title")):
        path = names.folder / file
        if path.is_file():
            doc = read_json(path, ctx)
            title = text_of(doc.get(key)) if isinstance(doc, dict) else None
            if title and title != "Untitled":
                return title, None
    return None, None


def _parent_files(path: Path) -> tuple[Path, ...]:
    """Where a subagent's parent session keeps its context and wire (either one lets ``link`` find
    the spawning call): the session folder above ``subagents/``, the folder of a ``context_sub_<n>``
    file, or the ``<id>.jsonl`` beside a ``<id>_sub_<n>.jsonl``."""
    folder = path.parent
    if folder.parent.name == "subagents":
        return folder.parent.parent / CONTEXT_FILE, folder.parent.parent / WIRE_FILE
    legacy = SUBAGENT_FILE.fullmatch(path.name)
    if legacy and not path.name.startswith("context_sub_"):
        return (folder / f"{legacy.group(1)}.jsonl",)
    return folder / CONTEXT_FILE, folder / WIRE_FILE


def _check_parent(path: Path, session: str, ctx: ImportContext) -> None:
    """A subagent whose parent's files are not on disk cannot be tied to the call that spawned it."""
    files = _parent_files(path)
    if not any(f.is_file() and f != path for f in files):
        ctx.problem(path, None, f"subagent {session}: its parent session's {' or '.join(f.name for f in files)} "
                                f"is not in {files[0].parent.name}/, so the call that spawned it is unknown")


def read_context(path: Path, ctx: ImportContext) -> list[Session]:
    names = _names(path)
    for companion in (names.wire, names.meta, *(names.folder / f for f in ("state.json", "metadata.json")
                                                  if names.folder is not None)):
        if companion is not None:
            ctx.beside(path, companion)
    if names.parent is not None:
        _check_parent(path, names.session, ctx)
    title, model = _title(names, ctx)
    wire = read_wire(names.wire, ctx, True) if names.wire is not None else None
    align = Alignment(wire) if wire is not None else None
    where = Where(path, ctx)
    messages: list[Message] = []
    events: list[Event] = []
    configs: list[RunConfig] = []
    calls: set[str] = set()
    parent: str | None = None
    matched: set[int] = set()
    """The wire's lines whose entries became messages of the context."""
    for line, rec in iter_json_lines(path, ctx):
        role = rec.get("role")
        source = where.source(line)
        last = messages[-1].id if messages else None
        if isinstance(role, str) and role.startswith("_"):
            if role == "_system_prompt" and isinstance(rec.get("content"), str):
                configs.append(RunConfig(model=model, system=rec["content"], source=source))
            elif role == "_usage" and as_int(rec.get("token_count")) is not None:
                events.append(Event("token_count", role, None, last, f"{rec['token_count']} tokens in context",
                                    packed(rec), source))
            elif role == "_checkpoint" and as_int(rec.get("id")) is not None:
                events.append(Event("meta", role, None, last, f"checkpoint {rec['id']}", packed(rec), source))
            else:
                where.problem(line, f"client record {shown(role)} of an unknown shape; kept as an event")
                events.append(Event("other", role, None, last, raw_json=packed(rec), source=source))
            continue
        if role is None and as_int(rec.get("token_count")) is not None:  # kosong's first storage
            events.append(Event("token_count", "token_count", None, last, f"{rec['token_count']} tokens", packed(rec), source))
            continue
        message_id = f"{names.session}:{line}"
        message, extra = _message(rec, message_id, parent, where, line, model, calls)
        if align is not None and names.wire is not None:
            entry = align.find(message.role, message.blocks)
            if entry is not None:
                entry.account(ctx, names.wire, f"message {message_id}")
                matched.add(entry.line)
            message = _enriched(message, entry)
        messages.append(message)
        events.extend(extra)
        parent = message_id
    if wire is not None and names.wire is not None and names.current:
        events.extend(wire.events)
        rotated = any(ROTATED.fullmatch(p.name) for p in path.parent.iterdir())
        events.extend(_unwritten(wire, matched, rotated, messages[-1].id if messages else None,
                                 Where(names.wire, ctx)))
    ids = [m.id for m in messages]
    return [Session(names.session, FORMAT, tuple(messages), ids[-1] if ids else None, where.name,
                    tuple(_placed(configs, messages, model, where)), tuple(events), names.parent, None, title)]


def _unwritten(wire: Wire, matched: set[int], rotated: bool, last: str | None, where: Where) -> list[Event]:
    """The wire's entries the context does not hold (``matched``: the lines of those it does): after
    the last one it holds, what it never got (a step cut short as the session ended, a context file
    cut); before it, with no rotated files (``rotated``) to hold them, what it holds in another order
    or not at all (a line of either file moved or gone). Kept as events, not dropped; a step that
    said nothing is named as such. Entries before the last one held belong to the rotated files
    (``context_<n>.jsonl``) where there are some."""
    kept: list[Event] = []
    after = max(matched, default=0)
    for entry in wire.entries:
        if entry.line in matched or (entry.line < after and rotated):
            continue
        if not entry.blocks:
            entry.account(where.ctx, Path(where.file), "nothing: a step that said nothing")
            continue
        kept.append(Event("other", "wire entry the context lacks", entry.done or entry.time, last,
                          "\n".join(entry.texts), packed({"role": entry.role, "line": entry.line}), where.source(entry.line)))
        entry.account(where.ctx, Path(where.file), f"its event at line {entry.line}")
    return kept


def _placed(configs: list[RunConfig], messages: list[Message], model: str | None, where: Where) -> list[RunConfig]:
    """The system prompts as run configurations: the first applies to the whole session, a later one
    (written again after a compaction) from the message after it."""
    out: list[RunConfig] = []
    for config in configs:
        line = config.source.line if config.source is not None and config.source.line is not None else 0
        after = None if not out else next((m.id for m in messages if _line(m) > line), None)
        out.append(RunConfig(config.model, None, config.system, (), None, None, after, None, config.source))
    if not out and model is not None:
        out.append(RunConfig(model=model, source=where.source(None)))
    return out


def _line(message: Message) -> int:
    return (message.source.line or 0) if message.source is not None else 0


def _message(rec: dict[str, Any], message_id: str, parent: str | None, where: Where, line: int,
             model: str | None, calls: set[str]) -> tuple[Message, list[Event]]:
    """A kosong ``Message`` line as a record message, and the events it implies (a compaction)."""
    role = rec.get("role")
    source = where.source(line)
    tags: list[str] = []
    extra: list[Event] = []
    record_role: Role
    blocks: list[Block]
    if role == "assistant":
        record_role = "assistant"
        blocks = _parts(rec.get("content"), where, line, model)
        for call in rec.get("tool_calls") or []:
            block = _call(call, where, line) if isinstance(call, dict) else Opaque("tool_call", call, "not an object")
            if isinstance(block, ToolUse):
                calls.add(block.id)
            if isinstance(call, dict) and call.get("extras"):
                blocks.append(block)
                block = Opaque("tool_call_extras", call["extras"], "extra fields of the call")
            blocks.append(block)
        blocks += unread_message(rec, "tool_calls", MESSAGE_KEYS, where, line, "message", optional=True)
    elif role == "tool":
        record_role = "tool"
        content = rec.get("content")
        text, images, others = _result_content(content, where, line)
        call_id = text_of(rec.get("tool_call_id"))
        if call_id is None or call_id not in calls:
            where.problem(line, f"tool result for call {call_id!r} has no earlier call (orphan); kept")
        blocks = [ToolResult(call_id or f"{message_id}.result", text, text.startswith(ERROR_PREFIX), images,
                             text_of(rec.get("name"))), *others]
    elif role in ("user", "system"):
        record_role = "user" if role == "user" else "system"
        blocks = _parts(rec.get("content"), where, line, None)
        first = blocks[0] if blocks else None
        if isinstance(first, Text) and first.text.startswith(COMPACTION_PREFIX):
            tags.append("compact_summary")
            summary = "\n".join(b.text for b in blocks[1:] if isinstance(b, Text))
            extra.append(Event("compaction", "compaction", None, message_id, summary, packed(rec), source))
        elif len(blocks) == 1 and isinstance(first, Text) and CHECKPOINT_MESSAGE.fullmatch(first.text):
            tags.append("meta")
    else:
        where.problem(line, f"message with unknown role {shown(role)}; kept as a user message")
        record_role = "user"
        blocks = [*_parts(rec.get("content"), where, line, None), Opaque("message", rec, "unknown role")]
    if rec.get("partial"):
        tags.append("partial")
    speaker = record_role == "assistant"
    return Message(message_id, parent, record_role, tuple(blocks), None, model if speaker else None, None, None,
                   source, False, tuple(tags)), extra


def _enriched(message: Message, entry: Entry | None) -> Message:
    """The message with what the wire adds: its time, a reply's usage, a tool result's error flag and
    the display blocks the UI showed."""
    if entry is None:
        return message
    time = entry.done or entry.time
    if message.role == "assistant":
        return Message(message.id, message.parent_id, message.role, message.blocks, time, message.model,
                       message.provider, entry.usage, message.source, message.sidechain, message.tags)
    blocks = message.blocks
    if message.role == "tool" and entry.is_error is not None:
        blocks = tuple(_flagged(b, entry) for b in blocks)
    return Message(message.id, message.parent_id, message.role, blocks, time, message.model, message.provider,
                   message.usage, message.source, message.sidechain, message.tags)


def _flagged(block: Block, entry: Entry) -> Block:
    if isinstance(block, ToolResult):
        return ToolResult(block.tool_use_id, block.output, bool(entry.is_error), block.images, block.name,
                          packed(entry.detail))
    return block


# ---- a wire log alone ------------------------------------------------------------------------------


def read_wire_session(path: Path, ctx: ImportContext) -> list[Session]:
    """A wire log without its context file: its turns, steps and results as messages (what the model
    saw of a compacted history is not in it; its compactions are events)."""
    session = path.parent.name if path.name == WIRE_FILE else path.stem
    parent: str | None = None
    if path.parent.parent.name == "subagents":
        parent = path.parent.parent.parent.name
        session = f"{parent}/{path.parent.name}"
        _check_parent(path, session, ctx)
    wire = read_wire(path, ctx, False)
    where = Where(path, ctx)
    messages: list[Message] = []
    calls: set[str] = set()
    last: str | None = None
    for entry in wire.entries:
        blocks = [b for b in entry.blocks if not isinstance(b, dict)]
        if not blocks:
            entry.account(ctx, path, "nothing: a step that said nothing")
            continue
        for block in blocks:
            if isinstance(block, ToolUse):
                calls.add(block.id)
            elif isinstance(block, ToolResult) and block.tool_use_id not in calls:
                where.problem(entry.line, f"tool result for call {block.tool_use_id!r} has no earlier call (orphan); kept")
        message_id = f"{session}:{entry.line}"
        entry.account(ctx, path, f"message {message_id}")
        time = entry.done or entry.time
        messages.append(Message(message_id, last, entry.role, tuple(blocks), time, None, None, entry.usage,
                                where.source(entry.line), False, entry.tags))
        last = message_id
    return [Session(session, FORMAT, tuple(messages), last, where.name, (), tuple(wire.events), parent)]


# ---- linking a subagent to its call ----------------------------------------------------------------

SPAWN_TOOLS = frozenset({"Task", "Agent"})
"""The tools that start a subagent: ``Task`` (src/kimi_cli/tools/multiagent/task.py, 79897fe9 of
2025-09-16 until ff09e97c of 2026-03-23) and ``Agent`` (src/kimi_cli/tools/agent/__init__.py since)."""
AGENT_LINE = re.compile(r"^agent_id: (\S+)$", re.MULTILINE)
"""How an ``Agent`` call's result names the instance it ran: an ``agent_id: <id>`` line, first in a
foreground run's output (``ForegroundSubagentRunner.run`` in src/kimi_cli/subagents/runner.py) and among
a background launch's lines (``AgentTool._run_in_background``). A call with ``resume`` set continues an
instance an earlier call started."""
ROTATED_ID = re.compile(r"context_\d+")


def _agent_named(result: ToolResult) -> str | None:
    found = AGENT_LINE.search(result.output)
    return found.group(1) if found else None


def link_facts(session: Session) -> Spawns | None:
    """A session's spawning calls (their results, and the wire's ``SubagentEvent`` records, name the
    agent each ran) and, for a subagent, its parent, agent id (the ``subagents/<id>/`` folder) and
    prompt. The older layouts' subagent files name no agent: their prompt is all that links them."""
    child: Spawned | None = None
    head, _, tail = session.id.partition("/")
    if session.parent_session_id is not None and session.spawn_call_id is None:
        agent = tail if tail and not tail.startswith("context_sub_") else None
        child = Spawned(session.parent_session_id, agent, opening(session))
    family = session.id if session.parent_session_id is not None or not ROTATED_ID.fullmatch(tail) else head
    more = [found for e in session.events
            if e.type == "SubagentEvent" and isinstance(e.raw, dict) and (found := _spawn_named(e.raw)) is not None]
    return spawns_of(session, spawning_calls(session, SPAWN_TOOLS), _agent_named, family, child, "resume", more)


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    if detection is None:
        detection = sniff(Head.of_file(path))
    if detection == "wire":
        return read_wire_session(path, ctx)
    return read_context(path, ctx)


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Kimi CLI sessions: context.jsonl (with the wire.jsonl beside it), or a wire.jsonl alone",
    client="Kimi CLI",
    layouts=layouts,
    names_only="Kimi CLI sessions record the tools called, never the tool specs sent",
    owns=owns,
    link=Linker(link_facts, spawn_links),
)
