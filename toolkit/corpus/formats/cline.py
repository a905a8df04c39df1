"""Cline tasks, and those of its forks Roo Code and Kilo Code, which keep the same task folder.

A task lives in ``<global storage>/tasks/<task id>/``: ``api_conversation_history.json`` (what the model
was sent: an Anthropic Messages list), ``ui_messages.json`` (the UI's event log of the task; Claude Dev,
Cline's first name, called it ``claude_messages.json``), ``task_metadata.json`` (files in context, model
usage, environment history) and, by version, ``context_history.json``, ``settings.json`` (Cline),
``history_item.json`` (Roo Code). Sources: ``GlobalFileNames`` in src/core/storage/disk.ts of
https://github.com/cline/cline (tag v3.40.0; apps/vscode/src/core/storage/disk.ts at commit 21cb8d2525),
src/ClaudeDev.ts at tag v1.9.0, ``GlobalFileNames`` in src/shared/globalFileNames.ts and ``ApiMessage``
in src/core/task-persistence/apiMessages.ts of https://github.com/RooCodeInc/Roo-Code (commit cb83656718);
all read 2026-12-03.

How a tool result reaches the model, by version (the same sources):

- Claude Dev 1.x: native ``tool_use`` / ``tool_result`` blocks, read as any Anthropic list;
- Cline 2.x-3.x (and Roo Code before native tools): the calls are XML in the assistant's text
  (``<read_file><path>x</path></read_file>``), and each result is a user text block
  ``[read_file for 'x'] Result:`` followed by the content as its own block(s) (``pushToolResult`` in
  src/core/Cline.ts, v2.0.0, and src/core/task/index.ts, v3.17.0);
- Cline 3.x with native tools: ``tool_use`` blocks, and each result either a ``tool_result`` block, or,
  where the call's id could not be mapped, one text block ``[read_file for 'x'] Result:\\n<content>``
  (``ToolResultUtils.pushToolResult``, apps/vscode/src/core/task/tools/utils/ToolResultUtils.ts, v3.89.2).

Each ``[name...] Result:`` text is paired with an unanswered call of the assistant message just before
it: the first of the same name, else the first of any name (the header's name is the handler's
description, ``[subagents]`` for ``use_subagents``), in order, as Cline runs a message's tools in order.
The result's ``output`` is the text after the header, kept exactly, the header itself in ``detail``.
It is an error where Cline's own wording says so (``formatResponse`` in src/core/prompts/responses.ts).

XML calls are parsed into ``ToolUse`` blocks (ids ``<message id>:call<n>``) for the tool names Cline and
Roo Code define: without them every result of those versions would be an orphan and a native replay
would carry none of the task's calls; the text around each call stays text.

``ui_messages.json`` beside a history is owned by it and gives what the history lacks: each request's
usage and cost (``api_req_started``, ``ClineApiReqInfo`` in src/shared/ExtensionMessage.ts) and, for
histories without ``ts``, the time of each request. Alone it is read as a session of its own.

The client (Cline, Cline CLI, Roo Code, Kilo Code) is told by the global storage folder in the path,
else by Roo Code's own history fields; it is recorded as a ``meta`` event of type ``client``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from toolkit.corpus.formats.anthropic_messages import content_to_blocks
from toolkit.corpus.formats.importer import (
    CLIENT_EVENT,
    NOT_JSON,
    Head,
    ImportContext,
    Importer,
    parse_time,
    read_json,
)
from toolkit.corpus.formats.layout import Layout, Parts, expand, setting
from toolkit.corpus.formats.shapes import as_int, items, json_value, kind_name, obj, shown, text_of
from toolkit.corpus.formats.wirekit import CallBook, Where
from toolkit.jsontext import stringify
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

FORMAT = "cline"

HISTORY = "api_conversation_history.json"
UI_MESSAGES = "ui_messages.json"
CLAUDE_MESSAGES = "claude_messages.json"
"""Claude Dev 1.x's name for the UI log (src/ClaudeDev.ts, tag v1.9.0)."""
TASK_FILES = frozenset({"task_metadata.json", "context_history.json", "settings.json", "history_item.json"})
"""Other files of a task folder (Cline disk.ts ``GlobalFileNames`` and ``writeTaskSettingsToStorage``,
Roo Code globalFileNames.ts): bookkeeping, never a conversation."""

EXTENSIONS: tuple[tuple[str, str], ...] = (
    ("saoudrizwan.claude-dev", "Cline"),
    ("rooveterinaryinc.roo-cline", "Roo Code"),
    ("kilocode.kilo-code", "Kilo Code"),
)
"""VS Code extension ids (publisher.name, lower case as VS Code names the global storage folder): Cline's
package.json ``publisher: saoudrizwan, name: claude-dev``; Roo Code's ``RooVeterinaryInc.roo-cline``
(src/package.json of RooCodeInc/Roo-Code); Kilo Code's ``kilocode.kilo-code`` (Kilo-Org/kilocode);
read 2026-12-03."""

EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
"""Editors whose user data folder keeps ``User/globalStorage/<extension id>`` (VS Code's
https://code.visualstudio.com/docs/configure/settings#_settings-file-locations names ``Code`` and
``Code - Insiders``; VSCodium, Cursor and Windsurf keep the same layout under their product names; read
2026-12-03)."""

CLINE_DIR = "CLINE_DIR"
"""The Cline CLI's home (default ``~/.cline``); its global storage is ``$CLINE_DIR/data``
(src/standalone/vscode-context.ts, ``SETTINGS_SUBFOLDER = "data"``, tag v3.40.0, read 2026-12-03)."""

TOOL_NAMES = frozenset({
    # Cline: toolUseNames in src/core/assistant-message/index.ts (v3.17.0) and the 2.x list in src/core/Cline.ts
    "execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
    "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource",
    "ask_followup_question", "plan_mode_respond", "load_mcp_documentation", "attempt_completion", "new_task",
    "condense", "report_bug", "new_rule", "inspect_site", "web_fetch", "web_search", "use_subagents",
    "summarize_task", "apply_patch", "use_skill", "focus_chain",
    # Roo Code: toolNames in packages/types/src/tool.ts (commit cb83656718)
    "apply_diff", "insert_content", "search_and_replace", "search_replace", "edit_file", "switch_mode",
    "fetch_instructions", "codebase_search", "update_todo_list", "run_slash_command", "generate_image",
    "write_file", "read_command_output", "skill",
})
"""Tool names an assistant's XML may call (read 2026-12-03)."""

LONG_PARAMS = frozenset({"content", "diff"})
"""Parameters whose value may hold its own closing tag: Cline's parser ends them at the last one
(parseAssistantMessageV2, src/core/assistant-message/parse-assistant-message.ts, v3.17.0)."""

RESULT_HEADER = re.compile(r"\[([A-Za-z0-9_.:/-]+)(?: for '.*?')?(?: in '.*?')?\] Result:", re.DOTALL)
"""``${toolDescription()} Result:``; a description names the tool and its target in quotes."""

NOT_RUN = re.compile(r"(?:Skipping tool|Tool) \[([A-Za-z0-9_.:/-]+)(?: for '.*?')?(?: in '.*?')?\] "
                     r"(?:due to user rejecting|was interrupted and not executed|was not executed because)",
                     re.DOTALL)
"""A call Cline did not run (``toolAlreadyUsed`` and the rejection notices, Cline.ts v2.0.0 and
responses.ts v3.89.2): its answer, an error."""

ERROR_STARTS = (
    "The tool execution failed with the following error:",  # formatResponse.toolError
    "The user denied this operation",  # toolDenied, toolDeniedWithFeedback
    "Missing value for required parameter",  # missingToolParameterError
    "Command execution blocked by CLINE_COMMAND_PERMISSIONS",  # permissionDeniedError
    "Skipping tool", "Tool was interrupted and not executed",  # ToolExecutor.ts, v3.89.2
    "Error ",  # handleError before toolError wrapped it (Cline.ts v2.0.0)
)
"""How Cline's results that are errors start (src/core/prompts/responses.ts, v3.17.0 and v3.89.2)."""
IGNORED = re.compile(r"Access to .* is blocked by the \.clineignore file settings", re.DOTALL)


def client_of(path: Path) -> tuple[str, str] | None:
    """The client whose storage folder the path lies in, and how that was told."""
    text = str(path).replace("\\", "/").lower()
    for ext, client in EXTENSIONS:
        if f"/{ext}/" in text:
            return client, "path"
    if "/.cline/data/" in text:
        return "Cline CLI", "path"
    return None


# -- the history -----------------------------------------------------------------------------------


@dataclass
class _Call:
    id: str
    name: str


@dataclass
class _Task:
    """One task being read: its messages and what is known beside them."""

    path: Path
    ctx: ImportContext
    sid: str
    where: Where
    book: CallBook = field(default_factory=CallBook)
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    configs: list[RunConfig] = field(default_factory=list)
    title: str | None = None

    def source(self, line: int | None) -> SourceRef:
        return self.where.source(line)

    def event(self, kind: EventKind, type_: str, raw: object, line: int | None, *, text: str = "",
              time: datetime | None = None, message_id: str | None = None) -> None:
        self.events.append(Event(kind, type_, time, message_id, text, packed(json_value(raw)), self.source(line)))

    def session(self) -> Session:
        tip = self.messages[-1].id if self.messages else None
        return Session(self.sid, FORMAT, tuple(self.messages), tip, self.ctx.name(self.path), tuple(self.configs),
                       tuple(self.events), title=self.title)


def _task_id(path: Path) -> str:
    """A task's id is its folder's name (Cline names it by the task's start time in ms)."""
    if path.name in (HISTORY, UI_MESSAGES, CLAUDE_MESSAGES) and path.parent.name:
        return path.parent.name
    return path.stem


def _xml_calls(text: str, message_id: str, first: int) -> list[Block]:
    """An assistant's text with its XML tool calls as ``ToolUse`` blocks, the text around them kept."""
    out: list[Block] = []
    at = 0
    n = first
    for opened in re.finditer(r"<([a-z_]+)>", text):
        name = opened.group(1)
        if name not in TOOL_NAMES or opened.start() < at:
            continue
        end = _call_end(text, name, opened.end())
        if end is None:
            continue
        body = text[opened.end():end]
        before = text[at:opened.start()]
        if before.strip():
            out.append(Text(before))
        out.append(ToolUse(f"{message_id}:call{n}", name, _xml_params(body)))
        n += 1
        at = end + len(f"</{name}>")
    if at == 0:
        return [Text(text)] if text else []
    rest = text[at:]
    if rest.strip():
        out.append(Text(rest))
    return out


def _call_end(text: str, name: str, start: int) -> int | None:
    """Where a call's closing tag starts: past a long parameter's own last closing tag."""
    close = f"</{name}>"
    end = text.find(close, start)
    if end < 0:
        return None
    for param in LONG_PARAMS:
        opened = text.find(f"<{param}>", start, end)
        if opened >= 0:
            last = text.rfind(f"</{param}>", opened)
            if last > end:
                following = text.find(close, last)
                end = following if following >= 0 else end
    return end


def _xml_params(body: str) -> dict[str, JsonValue]:
    """The ``<param>value</param>`` pairs of a call, values trimmed as Cline's parser trims them."""
    params: dict[str, JsonValue] = {}
    at = 0
    while (opened := re.compile(r"<([a-z_]+)>").search(body, at)) is not None:
        param = opened.group(1)
        close = f"</{param}>"
        end = body.rfind(close) if param in LONG_PARAMS else body.find(close, opened.end())
        if end < 0:
            break
        params[param] = body[opened.end():end].strip("\n") if param in LONG_PARAMS else body[opened.end():end].strip()
        at = end + len(close)
    return params


def _is_error(body: str) -> bool:
    return body.startswith(ERROR_STARTS) or IGNORED.match(body) is not None


def _take(pending: list[_Call], name: str) -> _Call | None:
    """The call a result of ``name`` answers: the first unanswered one of that name, else the first."""
    for i, call in enumerate(pending):
        if call.name == name:
            return pending.pop(i)
    return pending.pop(0) if pending else None


def _user_blocks(task: _Task, content: list[Any], line: int | None, pending: list[_Call],
                 message_id: str) -> list[Block]:
    """A user message's blocks: ``[name] Result:`` texts become results of the pending calls."""
    out: list[Block] = []
    i = 0
    while i < len(content):
        raw = content[i]
        i += 1
        text = raw.get("text") if isinstance(raw, dict) and raw.get("type") == "text" else None
        header = RESULT_HEADER.match(text) if isinstance(text, str) else None
        skipped = NOT_RUN.match(text) if isinstance(text, str) and header is None else None
        if not isinstance(text, str) or (header is None and skipped is None):
            out.extend(_native(task, [raw], line, pending))
            continue
        found = header or skipped
        assert found is not None
        name = found.group(1)
        images: list[Image] = []
        extra: list[Block] = []
        if header is not None:
            body = text[header.end():]
            body = body[1:] if body.startswith("\n") else body
            detail: JsonValue = {"header": header.group(0)}
            if not body.strip() and i < len(content):  # the two-block form: the content follows
                nxt = content[i]
                if isinstance(nxt, dict) and nxt.get("type") == "text" and isinstance(nxt.get("text"), str):
                    body = nxt["text"]
                    i += 1
                while i < len(content) and isinstance(content[i], dict) and content[i].get("type") == "image":
                    for block in _native(task, [content[i]], line, pending):
                        if isinstance(block, Image):
                            images.append(block)
                        else:
                            extra.append(block)
                    i += 1
            error = _is_error(body)
        else:
            body, detail, error = text, {"header": None}, True
        call = _take(pending, name)
        if call is None:
            task.where.problem(line, f"result of {name!r} in message {message_id} follows no unanswered call; kept")
            call_id = f"{message_id}:result{len(out)}"
        else:
            call_id, name = call.id, call.name
            task.book.answer(call_id, None)
        out.append(ToolResult(call_id, body, error, tuple(images), name, packed(detail)))
        out.extend(extra)
    return out


UI_ROW_KEYS = frozenset({
    "ts", "type", "say", "ask", "text", "images", "files", "partial", "reasoning", "conversationHistoryIndex",
    "conversationHistoryDeletedRange", "lastCheckpointHash", "isCheckpointCheckedOut", "isOperationOutsideWorkspace",
    "modelInfo", "checkpoint", "progressStatus", "isProtected", "apiProtocol", "metadata",
})
"""Keys of a ``ClineMessage`` (``src/shared/ExtensionMessage.ts`` of cline/cline) and of Roo Code's."""


def _native(task: _Task, content: list[Any], line: int | None, pending: list[_Call]) -> list[Block]:
    """Blocks Anthropic's wire defines, read by its parser, and the forks' own blocks."""
    out: list[Block] = []
    for raw in content:
        kind = text_of(raw.get("type")) if isinstance(raw, dict) else None
        if isinstance(raw, dict) and kind == "reasoning":  # Roo Code: text, or OpenAI's encrypted reasoning
            encrypted = text_of(raw.get("encrypted_content"))
            words = stringify(raw.get("text") or "")
            out.append(Reasoning(words, signature=encrypted, redacted=not words and encrypted is not None))
        elif isinstance(raw, dict) and kind == "thoughtSignature":  # Roo Code: Gemini's signature, for replay
            out.append(Opaque(kind, json_value(raw), "a provider's thought signature kept beside the reply"))
        else:
            blocks = content_to_blocks([raw], task.where, line, None, None, task.book)
            for block in blocks:
                if isinstance(block, ToolResult):
                    pending[:] = [c for c in pending if c.id != block.tool_use_id]
            out.extend(blocks)
    return out


def _assistant_blocks(task: _Task, content: list[Any], line: int | None, message_id: str,
                      model: str | None, provider: str | None) -> list[Block]:
    native = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
    out: list[Block] = []
    for raw in content:
        if not native and isinstance(raw, dict) and raw.get("type") == "text" and isinstance(raw.get("text"), str):
            calls = _xml_calls(raw["text"], message_id, sum(isinstance(b, ToolUse) for b in out))
            for block in calls:
                if isinstance(block, ToolUse):
                    task.book.call(block.id, block.name)
            out.extend(calls)
            continue
        for block in _native(task, [raw], line, []):
            if isinstance(block, Reasoning) and block.provider is None:
                block = replace(block, provider=provider, model=model)
            out.append(block)
    return out


def _usage(metrics: object) -> Usage | None:
    """``metrics.tokens`` of a Cline history message: ``prompt`` and ``completion`` as the provider
    reported them, ``cached`` the sum of cache reads and writes (src/core/task/index.ts, v3.89.2),
    which cannot be split, so the cache counts stay unknown. Cline starts each count at 0 and writes
    0 where the provider reported nothing: both counts 0 is unknown."""
    tokens = obj(obj(metrics).get("tokens"))
    prompt, completion = as_int(tokens.get("prompt")), as_int(tokens.get("completion"))
    if not prompt and not completion:
        return None
    return Usage(prompt, completion, None, None)


def _request_usage(info: Mapping[str, Any]) -> Usage | None:
    """``ClineApiReqInfo``: ``tokensIn`` (uncached input), ``tokensOut``, ``cacheReads``, ``cacheWrites``."""
    found = Usage(as_int(info.get("tokensIn")), as_int(info.get("tokensOut")), as_int(info.get("cacheReads")),
                  as_int(info.get("cacheWrites")))
    return None if found == Usage() else found


def _requests(rows: list[Any]) -> list[tuple[int, dict[str, Any], int | None, int | None]]:
    """Each ``api_req_started`` row: its index, its parsed info, its ``ts`` and history index."""
    out: list[tuple[int, dict[str, Any], int | None, int | None]] = []
    for i, row in enumerate(rows):
        if isinstance(row, dict) and row.get("say") == "api_req_started" and isinstance(row.get("text"), str):
            try:
                info = orjson.loads(row["text"])
            except orjson.JSONDecodeError:
                continue
            if isinstance(info, dict):
                out.append((i, info, as_int(row.get("ts")), as_int(row.get("conversationHistoryIndex"))))
    return out


def _read_history(path: Path, ctx: ImportContext, doc: list[Any]) -> Session:
    sid = _task_id(path)
    task = _Task(path, ctx, sid, Where(path, ctx))
    told = client_of(path)
    if told is None and any(isinstance(m, dict) and not {"isSummary", "condenseId", "truncationId", "condenseParent"}
                            .isdisjoint(m) for m in doc):
        told = ("Roo Code", "content")
    if told is not None:
        task.event("meta", CLIENT_EVENT, {"client": told[0], "told_by": told[1]}, None, text=told[0])
    pending: list[_Call] = []
    reasoning: list[Block] = []
    model = provider = mode = None
    parent: str | None = None
    index_ids: dict[int, str] = {}
    for i, raw in enumerate(doc):
        line = i + 1
        mid = f"{sid}:{i}"
        if not isinstance(raw, dict):
            ctx.problem(path, line, f"history item {line} is {shown(raw)}, not a message; kept as opaque")
            message = Message(mid, parent, "user", (Opaque("message", json_value(raw), "not an object"),),
                              source=task.source(line))
            task.messages.append(message)
            parent = mid
            continue
        role = raw.get("role")
        time = parse_time(raw.get("ts"))
        if role is None and raw.get("type") == "reasoning":  # Roo Code's reasoning item, before its reply
            reasoning.extend(_native(task, [raw], line, []))
            continue
        info = obj(raw.get("modelInfo"))
        if role == "assistant" and (info.get("modelId"), info.get("providerId")) != (model, provider):
            model, provider = text_of(info.get("modelId")), text_of(info.get("providerId"))
            task.configs.append(RunConfig(model, provider, message_id=mid, time=time, source=task.source(line)))
        if role == "assistant" and text_of(info.get("mode")) not in (None, mode):
            mode = text_of(info.get("mode"))
            task.event("meta", "mode", info, line, text=mode or "", time=time, message_id=mid)
        content = raw.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(parts, list):
            ctx.problem(path, line, f"content of message {line} is {shown(content)}; kept as opaque")
            parts = []
            blocks: list[Block] = [Opaque("content", json_value(content), "neither text nor blocks")]
        else:
            blocks = []
        record_role: Role
        if role == "assistant":
            record_role = "assistant"
            blocks += reasoning + _assistant_blocks(task, parts, line, mid, model, provider)
            reasoning = []
            pending = [_Call(b.id, b.name) for b in blocks if isinstance(b, ToolUse)]
        elif role == "user":
            record_role = "user"
            blocks += _user_blocks(task, parts, line, pending, mid)
        else:
            ctx.problem(path, line, f"message {line} has role {shown(role)}; read as a user message")
            record_role = "user"
            blocks += _native(task, parts, line, pending)
        tags = ("compact_summary",) if raw.get("isSummary") is True else ()
        if tags:
            task.event("compaction", "condense", {k: v for k, v in raw.items() if k != "content"}, line,
                       text="condensed summary", time=time, message_id=mid)
        speaker = record_role == "assistant"
        message = Message(mid, parent, record_role, tuple(blocks), time, model if speaker else None,
                          provider if speaker else None, _usage(raw.get("metrics")) if speaker else None,
                          task.source(line), tags=tags)
        if speaker and "metrics" in raw:
            task.event("token_count", "metrics", raw["metrics"], line, time=time, message_id=mid)
        task.messages.append(message)
        index_ids[i] = mid
        parent = mid
    if reasoning:
        ctx.problem(path, len(doc), "reasoning item after the last reply; kept in a message of its own")
        task.messages.append(Message(f"{sid}:{len(doc)}", parent, "assistant", tuple(reasoning),
                                     source=task.source(len(doc))))
    if task.messages:
        task.title = _title(task.messages[0])
    _beside(task, path, index_ids)
    return task.session()


def _title(first: Message) -> str | None:
    """The task as the user typed it: the first line of the ``<task>`` text."""
    text = first.text
    found = re.search(r"<task>\s*(.*?)\s*(?:</task>|$)", text, re.DOTALL)
    words = (found.group(1) if found else text).strip()
    return words.split("\n", 1)[0] or None


def _beside(task: _Task, path: Path, index_ids: dict[int, str]) -> None:
    """Usage, cost and times from the UI log beside the history (``ui_messages.json``)."""
    ui = path.parent / UI_MESSAGES
    if path.name != HISTORY or not ui.is_file():
        return
    rows = read_json(ui, task.ctx)
    if not isinstance(rows, list):
        return
    assistants = [(i, m) for i, m in enumerate(task.messages) if m.role == "assistant"]
    by_index = {mid: n for n, mid in index_ids.items()}
    claimed: set[int] = set()
    ui_where = Where(ui, task.ctx)
    for row_index, info, ts, history_index in _requests(rows):
        target: int | None = None
        for at, message in assistants:
            if at in claimed:
                continue
            if message.time is not None and ts is not None:
                if message.time.timestamp() * 1000 >= ts:
                    target = at
                    break
            elif history_index is None or by_index.get(message.id, -1) > history_index:
                target = at  # without times or indexes, the requests answer the replies in order
                break
        use = _request_usage(info)
        mid = None
        if target is not None:
            claimed.add(target)
            message = task.messages[target]
            mid = message.id
            when = message.time if message.time is not None else parse_time(ts)
            task.messages[target] = replace(message, usage=use or message.usage, time=when)
        cost = info.get("cost")
        task.events.append(Event("token_count", "api_req_started", parse_time(ts), mid,
                                 f"cost {cost}" if isinstance(cost, int | float) else "", packed(json_value(info)),
                                 ui_where.source(row_index + 1)))


# -- the UI log alone ------------------------------------------------------------------------------

SAY_ASSISTANT = frozenset({"text", "completion_result", "reasoning"})
SAY_USER = frozenset({"task", "user_feedback", "user_feedback_diff"})
ASK_ASSISTANT = frozenset({"followup", "plan_mode_respond", "act_mode_respond", "completion_result"})
CALLS = frozenset({"tool", "command", "use_mcp_server", "browser_action_launch", "browser_action", "new_task",
                   "condense", "summarize_task", "report_bug", "use_subagents", "mcp_server_request_started"})
RESULTS = frozenset({"command_output", "browser_action_result", "mcp_server_response", "subagent"})
ERRORS = frozenset({"error", "api_req_failed", "diff_error", "clineignore_error", "command_permission_denied",
                    "mistake_limit_reached", "error_retry"})
"""``ClineSay`` and ``ClineAsk`` (src/shared/ExtensionMessage.ts, v3.89.2) by what they are in a
conversation; every other row is the UI's own bookkeeping and becomes an event."""


def _read_ui(path: Path, ctx: ImportContext, rows: list[Any]) -> Session:
    """A UI log without its history: what was said, the calls shown, their outputs, as messages."""
    sid = _task_id(path)
    task = _Task(path, ctx, f"{sid}:ui", Where(path, ctx))
    task.title = "UI log only (ui_messages.json)"
    told = client_of(path)
    if told is not None:
        task.event("meta", CLIENT_EVENT, {"client": told[0], "told_by": told[1]}, None, text=told[0])
    group: tuple[Role, list[Block], int, datetime | None] | None = None
    parent: str | None = None
    usage: Usage | None = None
    model: str | None = None
    provider: str | None = None
    last_call: str | None = None

    def close() -> None:
        nonlocal group, parent, usage
        if group is None:
            return
        role, blocks, line, time = group
        mid = f"{task.sid}:{line}"
        speaker = role == "assistant"
        task.messages.append(Message(mid, parent, role, tuple(blocks), time, model if speaker else None,
                                     provider if speaker else None, usage if speaker else None, task.source(line)))
        usage = None if speaker else usage
        parent, group = mid, None

    def open_(role: Role, line: int, time: datetime | None) -> list[Block]:
        nonlocal group
        if group is None or group[0] != role:
            close()
            group = (role, [], line, time)
        return group[1]

    for i, row in enumerate(rows):
        line = i + 1
        if not isinstance(row, dict):
            ctx.problem(path, line, f"UI row {line} is {shown(row)}, not an object; kept as an event")
            task.event("other", "row", row, line)
            continue
        kind = text_of(row.get("say") if row.get("type") == "say" else row.get("ask"))
        time = parse_time(row.get("ts"))
        said = row.get("text")
        text = said if isinstance(said, str) else ""
        if said is None and kind in SAY_USER | SAY_ASSISTANT | ASK_ASSISTANT and not row.get("images") and (
                odd := [str(k) for k in row if k not in UI_ROW_KEYS]):
            # a row that speaks, with no text and keys Cline does not write: its words sit under one of them
            ctx.problem(path, line, f"UI row {line} ({kind}) has no text (keys Cline lacks: {', '.join(odd)}); "
                                    "kept as an event")
            task.event("other", f"{kind_name(row.get('type'))}:{kind_name(kind)}", row, line, time=time)
            continue
        elif not isinstance(said, str | None):
            ctx.problem(path, line, f"UI row {line} text is {shown(said)}, not a string; kept as an event")
            task.event("other", f"{kind_name(row.get('type'))}:{kind_name(kind)}", row, line, time=time)
            continue
        info = obj(row.get("modelInfo"))
        if info:
            model, provider = text_of(info.get("modelId")) or model, text_of(info.get("providerId")) or provider
        name = f"{kind_name(row.get('type'))}:{kind_name(kind)}"
        if kind == "api_req_started":
            close()
            parsed = _requests([row])
            usage = _request_usage(parsed[0][1]) if parsed else None
            task.event("token_count", kind, parsed[0][1] if parsed else row, line, time=time)
        elif kind in SAY_USER and row.get("type") == "say":
            blocks = open_("user", line, time)
            if text:
                blocks.append(Text(text))
            for url in items(row.get("images")):
                if isinstance(url, str):
                    blocks.append(ctx.image_data_url(url, path, line))
        elif kind == "reasoning":
            open_("assistant", line, time).append(Reasoning(text, provider=provider, model=model))
        elif (kind in SAY_ASSISTANT and row.get("type") == "say") or (kind in ASK_ASSISTANT and row.get("type") == "ask"):
            if text:
                open_("assistant", line, time).append(Text(text))
        elif kind in CALLS:
            try:
                payload: object = orjson.loads(text) if text.startswith("{") else {"text": text}
            except orjson.JSONDecodeError:
                payload = {"text": text}
            tool = text_of(obj(payload).get("tool")) or kind
            last_call = f"{task.sid}:{line}:call"
            task.book.call(last_call, tool)
            open_("assistant", line, time).append(ToolUse(last_call, tool, json_value(payload)))
        elif kind in RESULTS:
            call = task.book.answer(last_call, None) if last_call else None
            if call is None:
                task.event("other", name, row, line, text=text, time=time)
                continue
            open_("user", line, time).append(ToolResult(call, text, False, (), kind))
            last_call = None
        elif kind in ERRORS:
            task.event("error", name, row, line, text=text, time=time)
        elif kind is None:
            ctx.problem(path, line, f"UI row {line} has no say or ask; kept as an event")
            task.event("other", name, row, line, text=text, time=time)
        else:
            task.event("progress" if kind == "task_progress" else "meta", name, row, line, text=text, time=time)
    close()
    first = next((m for m in task.messages if m.role == "user"), None)
    if first is not None and first.text:
        task.title = first.text.split("\n", 1)[0]
    return task.session()


# -- the importer ----------------------------------------------------------------------------------


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    doc = read_json(path, ctx)
    if doc is NOT_JSON:
        return []
    if not isinstance(doc, list):
        ctx.problem(path, None, f"a Cline task file holds a JSON list, found {shown(doc)}")
        return []
    if detection == "ui" or (detection is None and _ui_rows(doc[:5])):
        return [_read_ui(path, ctx, doc)]
    return [_read_history(path, ctx, doc)]


def _ui_rows(rows: list[Any]) -> bool:
    return bool(rows) and all(isinstance(r, dict) and r.get("type") in ("say", "ask") and "ts" in r for r in rows)


UI_START = re.compile(r'\[\s*\{\s*"ts"\s*:\s*\d+\s*,\s*"type"\s*:\s*"(?:say|ask)"\s*,\s*"(?:say|ask)"\s*:')
"""The first row of a UI log as Cline writes it: ``ts``, ``type``, then ``say`` or ``ask``."""
MESSAGE_TS = re.compile(r'"ts"\s*:\s*\d{12,}\s*[,}]')
"""Cline's ``ts`` (epoch milliseconds), which no Anthropic message has, in a list of messages."""
MARKERS = ("<task>\\n", "<environment_details>\\n")
"""What a Cline first user message says (its task, the environment details) as JSON text holds it."""


def sniff(found: Head) -> str | None:
    """A Cline/Roo Code/Kilo Code task file: a UI log whose rows open with ``ts``, ``type`` and ``say``
    or ``ask``; or a history, an Anthropic message list whose messages carry Cline's ``ts`` or
    ``modelInfo``, or whose user text holds Cline's ``<task>`` or ``<environment_details>`` framing."""
    if found.data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"[":
        return None
    text = found.text.lstrip("\ufeff \t\r\n")
    if UI_START.match(text[:400]):
        return "ui"
    if HISTORY_START.match(text[:200]) is None:
        return None
    window = text[:SNIFF_WINDOW]
    if MESSAGE_TS.search(window) or '"modelInfo"' in window:
        return "history"
    if any(marker in window for marker in MARKERS) and '"type"' in window:
        return "history"
    return None


HISTORY_START = re.compile(r'\[\s*\{\s*"role"\s*:\s*"user"\s*,\s*"(?:content|ts)"\s*:')
"""A history opens with the task, a user message (Anthropic's ``role``, ``content`` order)."""
SNIFF_WINDOW = 16384
"""How far into the head a history's markers are looked for: the first user message's task and
environment details, or the first messages' ``ts``, lie within it."""


def owns(path: str) -> bool:
    """A task folder's other files, and its UI log when the history is beside it."""
    name = os.path.basename(path)
    folder = os.path.dirname(path)
    if name in TASK_FILES:
        return os.path.isfile(os.path.join(folder, HISTORY)) or os.path.isfile(os.path.join(folder, UI_MESSAGES))
    if name in (UI_MESSAGES, CLAUDE_MESSAGES):
        return os.path.isfile(os.path.join(folder, HISTORY))
    return False


def _descend(parts: Parts) -> bool:
    return len(parts) == 1


def _wanted(parts: Parts) -> bool:
    return len(parts) == 2 and parts[1] == HISTORY


def _storage_roots(env: Mapping[str, str], home: Path) -> list[tuple[Path, str]]:
    """Each editor's ``User/globalStorage`` folder on Linux (``$XDG_CONFIG_HOME``, default ``~/.config``),
    macOS (``~/Library/Application Support``) and Windows (``%APPDATA%``)."""
    xdg = setting(env, "XDG_CONFIG_HOME")
    appdata = setting(env, "APPDATA")
    bases = [(expand(xdg, home) if xdg else home / ".config", "XDG_CONFIG_HOME" if xdg else "default"),
             (home / "Library" / "Application Support", "default"),
             (expand(appdata, home) if appdata else home / "AppData" / "Roaming", "APPDATA" if appdata else "default")]
    return [(base / editor / "User" / "globalStorage", by) for base, by in bases for editor in EDITORS]


def layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where Cline, Roo Code and Kilo Code keep tasks in each editor, and the Cline CLI's tasks."""
    found = [Layout(FORMAT, root / ext / "tasks", by, _descend, _wanted)
             for root, by in _storage_roots(env, home) for ext, _ in EXTENSIONS]
    cline = setting(env, CLINE_DIR)
    root, by = (expand(cline, home), CLINE_DIR) if cline is not None else (home / ".cline", "default")
    found.append(Layout(FORMAT, root / "data" / "tasks", by, _descend, _wanted))
    return found


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Cline, Roo Code and Kilo Code tasks: api_conversation_history.json, ui_messages.json",
    client="Cline",
    layouts=layouts,
    names_only="Cline's task files record the tools called, never the tool specs or system prompt sent",
    owns=owns,
)
