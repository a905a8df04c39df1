"""OpenCode (sst/opencode, now anomalyco/opencode) sessions read into the record.

OpenCode keeps a session as three kinds of record: the session's info, its messages (one per user
prompt and one per model reply; a reply's ``parentID`` names the prompt it answers) and each
message's parts (text, reasoning, tool, file, step-start, step-finish, snapshot, patch, agent,
subtask, retry, compaction), each part written as it streams. Where they are depends on the release:

- 1.x JSON storage (until the SQLite move): ``<data>/storage/session/<project id>/<session>.json``,
  ``storage/message/<session>/<message>.json``, ``storage/part/<message>/<part>.json``, beside
  ``storage/project/``, ``storage/session_diff/``, ``storage/todo/``, ``storage/session_share/`` and the
  ``storage/migration`` counter (``Storage`` in packages/opencode/src/storage/storage.ts, whose first
  migration moved the 0.x layout here).
- 0.x: ``<data>/project/<project slug>/storage/session/info/<session>.json``,
  ``.../storage/session/message/<session>/<message>.json`` and
  ``.../storage/session/part/<session>/<message>/<part>.json``; the first 0.x messages (message v1,
  packages/opencode/src/session/message.ts) hold their parts inline (``parts``: text, reasoning,
  tool-invocation, source-url, file, step-start) with the model, tokens, cost and system prompts under
  ``metadata.assistant``.
- SQLite (2026 releases): ``<data>/opencode.db`` (``opencode-<channel>.db`` for other channels),
  tables ``session`` (a column per info field), ``message`` and ``part`` (``id``, ``session_id``,
  ``message_id``, ``time_created``, ``data``: the record as JSON less its ids), ``todo``, ``permission``,
  ``session_share``, ``project``; the JSON storage is copied in once (storage/json-migration.ts), and
  the newest releases add ``session_message`` (OpenCode V2: a row per message, ``type`` and ``data`` a
  ``SessionMessage.Message``: ``user`` with ``text`` and ``files``, ``assistant`` with ``content`` of
  ``text``, ``reasoning`` and ``tool`` items, each tool's ``state`` holding its input and output, and
  ``synthetic``, ``shell``, ``compaction``, ``agent-switched``, ``model-switched``). A session held only
  there is read from it like the 1.x rows (a reply's results in a ``tool`` message after it); beside
  1.x rows of the same session they are the same conversation projected again, kept as events.

Which file is the session (the toolkit reads one file at a time): the session info file, which joins
its messages and parts by the layout's rules; every other file of the storage is ``owns``-ed so a
folder load reads each session once. A message or part file is owned only while what reads it is
there (the session file for a message, the message file for a part): an orphan is read alone, as a
partial session with a problem, so it is not lost. A database file is read whole (every session).

What the model saw follows ``toModelMessages`` in session/message-v2.ts: a reply's tool parts hold the
call and its result together; the record puts the call in the reply and the result in a ``tool``
message after it (the AI SDK's ``ModelMessage`` shape OpenCode sends through), and a reply of several
steps (``step-start`` parts) is one record message per step, each with the usage of its
``step-finish``. Text parts marked ``ignored`` were not sent and are kept as opaque blocks.

Read from anomalyco/opencode, read 2026-12-03: packages/opencode/src/storage/storage.ts (at
00d1fee8, the migrations from 0.x), storage/json-migration.ts (062aa8c0), session/session.sql.ts
(063e8306), session/message-v2.ts (007a9409), session/message.ts (51302002, message v1),
packages/core/src/session-message.ts (7d5e0bc0, V2; its table ``SessionMessageTable`` in
packages/core/src/session/sql.ts, a row's ``data`` the encoded message less the ``id`` and ``type`` columns
as ``insertMessage`` writes it), global/index.ts (0259f2c1), storage/db.ts
(032cb74b), and the troubleshooting page https://opencode.ai/docs/troubleshooting (read 2026-12-03).
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from toolkit.corpus.formats.importer import (
    NOT_JSON,
    Head,
    ImportContext,
    Importer,
    client_event,
    parse_document,
    parse_time,
)
from toolkit.corpus.formats.layout import Layout, Parts, expand, setting
from toolkit.corpus.formats.shapes import as_int, items, kind_name, obj, shown, text_of
from toolkit.corpus.formats.sqlitefile import SQLITE_HEADER, connect, holds
from toolkit.corpus.formats.sqlitefile import tables as table_names
from toolkit.corpus.formats.wirekit import unread_keys
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

FORMAT = "opencode"

DB_TABLES = frozenset({"session", "message", "part"})
"""The tables an OpenCode database holds sessions in (session/session.sql.ts)."""
PART_COLUMNS = frozenset({"message_id", "session_id", "data"})
"""The columns of ``part`` the reader joins on."""

STORAGE_KINDS_OF_MESSAGES = "message"
STORAGE_KINDS_OF_PARTS = "part"
LEGACY_INFO = "info"
"""0.x folder names under ``storage/session/`` (storage.ts, the first migration)."""

SESSION_PREFIX, MESSAGE_PREFIX, PART_PREFIX = "ses_", "msg_", "prt_"
"""Id prefixes (``Identifier`` prefixes ``session``/``message``/``part`` in packages/opencode/src/id/id.ts)."""

COMPACTION_PROMPT = "What did we do so far?"
SUBTASK_PROMPT = "The following tool was executed by the user"
"""What ``toModelMessages`` (session/message-v2.ts) sends for a compaction part and a subtask part."""
INTERRUPTED = "[Tool execution was interrupted]"
"""What ``toModelMessages`` sends for a call left pending or running."""
UNSENT_FILE_MIMES = frozenset({"text/plain", "application/x-directory"})
"""File parts ``toModelMessages`` leaves out: their content was put in synthetic text parts."""

STEP_START_KEYS = frozenset({"id", "sessionID", "messageID", "type", "time"})
"""What every ``step-start`` part has; one holding more (its snapshot) is kept as an event."""

USER_KEYS = frozenset({"id", "sessionID", "role", "time", "format", "summary", "agent", "model", "fallbackModels",
                       "system", "tools"})
"""``MessageV2.User``'s fields (message-v2.ts): a prompt without ``summary`` holding another key has its
summary under a name OpenCode does not write."""
SESSION_KEYS = frozenset({"id", "slug", "projectID", "workspaceID", "directory", "parentID", "summary", "share",
                          "title", "version", "time", "permission", "revert"})
"""``Session.Info``'s fields (session/index.ts), read as ``USER_KEYS`` are."""

EVENT_PARTS: dict[str, EventKind] = {
    "step-start": "meta", "snapshot": "meta", "patch": "meta", "agent": "meta", "retry": "error",
}
"""Parts that are client bookkeeping, kept as events of these kinds (message-v2.ts)."""

V1_PARTS = frozenset({"text", "reasoning", "tool-invocation", "source-url", "file", "step-start"})
"""The inline part types of message v1 (session/message.ts)."""


# ---- where OpenCode keeps sessions -----------------------------------------------------------------
# The data folder is $XDG_DATA_HOME/opencode, else ~/.local/share/opencode, on every OS: Global.Path.data
# joins xdgData of the xdg-basedir package with "opencode" (packages/opencode/src/global/index.ts at
# 0259f2c1, read 2026-12-03); the docs give ~/.local/share/opencode/ on macOS/Linux and
# %USERPROFILE%\.local\share\opencode on Windows (https://opencode.ai/docs/troubleshooting, read
# 2026-12-03). JSON storage: <data>/storage/session/<project>/<session>.json (storage.ts); 0.x:
# <data>/project/<slug>/storage/session/info/<session>.json (the troubleshooting page of the time and
# storage.ts's first migration). SQLite: <data>/opencode.db for the latest and beta channels, else
# <data>/opencode-<channel>.db; OPENCODE_DB moves it (an absolute path, or one relative to <data>)
# (Database.Path in packages/opencode/src/storage/db.ts, read 2026-12-03).
XDG_DATA_HOME = "XDG_DATA_HOME"
OPENCODE_DB = "OPENCODE_DB"


def _storage_descend(parts: Parts) -> bool:
    return len(parts) <= 2 and parts[0] == "session"


def _storage_wanted(parts: Parts) -> bool:
    return len(parts) == 3 and parts[0] == "session" and parts[-1].endswith(".json")


def _legacy_descend(parts: Parts) -> bool:
    return len(parts) == 1 or (len(parts) <= 4 and parts[1:] == ("storage", "session", LEGACY_INFO)[:len(parts) - 1])


def _legacy_wanted(parts: Parts) -> bool:
    return len(parts) == 5 and parts[1:4] == ("storage", "session", LEGACY_INFO) and parts[-1].endswith(".json")


def _db_descend(parts: Parts) -> bool:
    return False


def _db_wanted(parts: Parts) -> bool:
    name = parts[-1]
    return len(parts) == 1 and name.endswith(".db") and (name == "opencode.db" or name.startswith("opencode-"))


def layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """Where OpenCode keeps sessions (see the rules above)."""
    xdg = setting(env, XDG_DATA_HOME)
    data, by = ((expand(xdg, home) / "opencode", XDG_DATA_HOME) if xdg is not None
                else (home / ".local" / "share" / "opencode", "default"))
    found = [Layout(FORMAT, data / "storage", by, _storage_descend, _storage_wanted),
             Layout(FORMAT, data / "project", by, _legacy_descend, _legacy_wanted)]
    db = setting(env, OPENCODE_DB)
    if db is not None and db != ":memory:":
        where = Path(db) if os.path.isabs(db) else data / db
        name = where.name
        found.append(Layout(FORMAT, where.parent, OPENCODE_DB, _db_descend,
                            lambda parts: len(parts) == 1 and parts[0] == name))
    else:
        found.append(Layout(FORMAT, data, by, _db_descend, _db_wanted))
    return found


# ---- detection -------------------------------------------------------------------------------------

HEAD_RECORD = re.compile(r'\s*\{\s*"id"\s*:\s*"(ses|msg|prt)_[^"]*"\s*,\s*"(\w+)"\s*:\s*"?([\w-]*)')
"""The start of a record too long for the head: ``JSON.stringify`` writes ``id`` first, then
``sessionID`` (a message or part of 1.x) or ``role`` (message v1), as the objects are built."""


def sniff(found: Head) -> str | None:
    """``"session"``, ``"message"``, ``"part"`` for the records of the JSON storage, ``"sqlite"`` for a
    database holding OpenCode's tables, else ``None``. Every record carries an id with OpenCode's
    prefixes (``ses_``, ``msg_``, ``prt_``), so other content is told apart by its bytes first."""
    data = found.data
    if data.startswith(SQLITE_HEADER):
        return "sqlite" if _opencode_tables(found.path) else None
    if b'"ses_' not in data and b'"msg_' not in data:
        return None
    if data.lstrip()[:1] != b"{":
        return None
    doc = found.prefix() if found.whole else found.document()  # a damaged record: what of it parses
    if isinstance(doc, dict):
        return _kind(doc)
    if found.whole:
        return None
    match = HEAD_RECORD.match(found.text)
    if match is None:
        return None
    prefix, key, value = match.groups()
    if prefix == "msg" and (key == "sessionID" or (key == "role" and value in ("user", "assistant"))):
        return "message"
    if prefix == "prt" and key == "sessionID":
        return "part"
    return None


def _kind(doc: dict[str, Any]) -> str | None:
    ident = text_of(doc.get("id")) or ""
    if ident.startswith(SESSION_PREFIX):
        if isinstance(doc.get("time"), dict) and "role" not in doc and ("title" in doc or "version" in doc):
            return "session"
        return None
    if ident.startswith(MESSAGE_PREFIX) and doc.get("role") in ("user", "assistant"):
        if isinstance(doc.get("parts"), list) and isinstance(doc.get("metadata"), dict):
            return "message"  # message v1, parts inline
        return "message" if (text_of(doc.get("sessionID")) or "").startswith(SESSION_PREFIX) else None
    if ident.startswith(PART_PREFIX) and isinstance(doc.get("type"), str):
        return "part" if (text_of(doc.get("messageID")) or "").startswith(MESSAGE_PREFIX) else None
    return None


def _opencode_tables(path: Path) -> bool:
    """Whether a SQLite file holds OpenCode's session tables (its schema only)."""
    return holds(path, DB_TABLES, "part", PART_COLUMNS)


# ---- which files a session file reads --------------------------------------------------------------


def owns(path: str) -> bool:
    """A storage file a session file reads (a message while its session file is there, a part while its
    message file is there) and the storage's other files (project, session_diff, todo, session_share,
    permission, the migration counter); the name is looked at first, the disk only for names of the
    storage's shape."""
    parent, _ = os.path.split(path)
    group, group_name = os.path.split(parent)
    kinds, kind = os.path.split(group)
    root, root_name = os.path.split(kinds)
    if kind == STORAGE_KINDS_OF_MESSAGES:
        if root_name == "session" and os.path.isdir(os.path.join(kinds, LEGACY_INFO)):  # 0.x message
            return os.path.isfile(os.path.join(kinds, LEGACY_INFO, group_name + ".json"))
        if os.path.isdir(os.path.join(kinds, "session")):
            return _session_file(kinds, group_name) is not None
        return False
    if kind == STORAGE_KINDS_OF_PARTS and os.path.isdir(os.path.join(kinds, "session")):
        session = _part_session(path)
        return session is not None and os.path.isfile(
            os.path.join(kinds, STORAGE_KINDS_OF_MESSAGES, session, group_name + ".json"))
    if root_name == STORAGE_KINDS_OF_PARTS and os.path.basename(root) == "session":  # 0.x part
        return os.path.isfile(os.path.join(root, STORAGE_KINDS_OF_MESSAGES, kind, group_name + ".json"))
    return _other_storage_file(path)


def _other_storage_file(path: str) -> bool:
    """A file of a storage folder that holds no conversation: anything under ``storage/`` outside
    ``session/``, ``message/`` and ``part/`` (``storage/migration`` included), and under 0.x
    ``storage/session/`` anything outside ``info/``, ``message/`` and ``part/``."""
    marker = os.sep + "storage" + os.sep
    at = path.rfind(marker)
    if at < 0:
        return False
    storage = path[:at + len(marker) - 1]
    rest = path[at + len(marker):].split(os.sep)
    if not os.path.isdir(os.path.join(storage, "session")):
        return False
    if rest[0] == "session":
        return len(rest) >= 3 and rest[1] not in (LEGACY_INFO, STORAGE_KINDS_OF_MESSAGES, STORAGE_KINDS_OF_PARTS) and \
            os.path.isdir(os.path.join(storage, "session", LEGACY_INFO))
    return rest[0] not in (STORAGE_KINDS_OF_MESSAGES, STORAGE_KINDS_OF_PARTS) or len(rest) < 3


def _session_file(root: str, session: str) -> str | None:
    """``session/<project>/<session>.json`` under a 1.x storage root, whichever project holds it."""
    try:
        projects = os.listdir(os.path.join(root, "session"))
    except OSError:
        return None
    for project in projects:
        candidate = os.path.join(root, "session", project, session + ".json")
        if os.path.isfile(candidate):
            return candidate
    return None


PART_SESSION = re.compile(rb'"sessionID"\s*:\s*"(ses_[^"]+)"')


def _part_session(path: str) -> str | None:
    """The session id a part file names near its start (``sessionID`` is written second)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(1024)
    except OSError:
        return None
    found = PART_SESSION.search(head)
    return found.group(1).decode("utf-8", "replace") if found else None


# ---- one session, whatever it was stored in --------------------------------------------------------


StepEvent = tuple[EventKind, str, str, JsonValue, SourceRef]
"""An event met while a message is read (kind, type, text, raw, source), recorded once its message is."""
Pending = tuple[EventKind, str, str, JsonValue, SourceRef, str | None]
"""The same with a compaction's trigger."""


@dataclass
class Stored:
    """One OpenCode message with its parts, as read from any layout."""

    info: dict[str, Any]
    source: SourceRef
    parts: list[tuple[dict[str, Any], SourceRef]] = field(default_factory=list)


@dataclass
class Step:
    """One model request within a reply: its blocks, the results of its calls and its step-finish."""

    blocks: list[Block] = field(default_factory=list)
    results: list[Block] = field(default_factory=list)
    finish: dict[str, Any] | None = None
    time: float | None = None
    result_time: float | None = None
    events: list[StepEvent] = field(default_factory=list)
    """Events of the step's bookkeeping parts (kind, type, text, raw, source)."""


@dataclass
class Builder:
    """Turns stored messages into the record's messages, events and run configurations."""

    ctx: ImportContext
    session_id: str
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    configs: list[RunConfig] = field(default_factory=list)
    calls: dict[str, str] = field(default_factory=dict)
    """Call id → the tool's name, for every call made so far."""
    spawned: dict[str, str] = field(default_factory=dict)
    """Subagent session id → the task call that spawned it (``metadata.sessionId`` of a task part)."""
    config_key: tuple[str | None, str | None, str | None] | None = None

    @property
    def last(self) -> str | None:
        return self.messages[-1].id if self.messages else None

    def problem(self, source: SourceRef, reason: str) -> None:
        self.ctx.problem(source.file, source.line, reason)

    def event(self, kind: EventKind, kind_type: str, text: str, raw: JsonValue, source: SourceRef,
              time: object = None, message_id: str | None = None, trigger: str | None = None,
              attached: bool = True) -> None:
        """An event, attached to ``message_id`` (else the last message so far) unless it is the session's."""
        at = (message_id or self.last) if attached else None
        self.events.append(Event(kind, kind_type, parse_time(time), at, text, packed(raw), source, None, trigger))

    def unread(self, info: dict[str, Any], known: frozenset[str], what: str, source: SourceRef,
               message_id: str | None = None, attached: bool = True) -> None:
        """An info without its ``summary`` that holds keys OpenCode does not write: reported, and those
        keys kept as an event, as the summary event they hide would otherwise go in silence."""
        odd = unread_keys(info, "summary", known, optional=True)
        if odd:
            self.problem(source, f"{what} without summary (keys OpenCode does not write: {', '.join(odd)}); "
                                 "kept as an event")
            self.event("other", f"{what}.unread", "", {k: info[k] for k in odd}, source, message_id=message_id,
                       attached=attached)

    def emit(self, message_id: str, role: Role, blocks: list[Block], time: object, model: str | None,
             provider: str | None, usage: Usage | None, source: SourceRef, tags: tuple[str, ...] = ()) -> None:
        self.messages.append(Message(message_id, self.last, role, tuple(blocks), parse_time(time), model, provider,
                                     usage, source, False, tags))

    def config(self, model: str | None, provider: str | None, system: str | None, source: SourceRef,
               time: object) -> None:
        """A run configuration when the model or the system prompt changes (placed by ``_resolve``)."""
        key = (model, provider, system)
        if key == self.config_key or (model is None and system is None):
            return
        self.config_key = key
        self.configs.append(RunConfig(model, provider, system, (), None, None, None, parse_time(time), source))

    # -- messages --------------------------------------------------------------------------------

    def add(self, stored: Stored) -> None:
        info = stored.info
        if isinstance(info.get("parts"), list) and isinstance(info.get("metadata"), dict):
            self.add_v1(stored)
            return
        role = info.get("role")
        if role == "user":
            self.add_user(stored)
        elif role == "assistant":
            self.add_assistant(stored)
        else:
            self.problem(stored.source, f"message with unknown role {shown(role)}; kept as an event")
            self.event("other", f"message:{kind_name(role)}", "", _raw(stored), stored.source)

    def add_user(self, stored: Stored) -> None:
        info = stored.info
        message_id = text_of(info.get("id")) or f"{self.session_id}:{len(self.messages)}"
        model = obj(info.get("model"))
        system = text_of(info.get("system"))
        time = obj(info.get("time")).get("created")
        self.config(text_of(model.get("modelID")), text_of(model.get("providerID")), system, stored.source, time)
        blocks: list[Block] = []
        tags: list[str] = []
        pending: list[Pending] = []
        for part, source in stored.parts:
            kind = text_of(part.get("type"))
            match kind:
                case "text":
                    blocks.append(self.text(part, source))
                    if part.get("synthetic") and "synthetic" not in tags:
                        tags.append("synthetic")
                case "file":
                    blocks.extend(self.file(part, source, pending))
                case "compaction":
                    blocks.append(Text(COMPACTION_PROMPT))
                    trigger = "auto" if part.get("auto") else "manual"
                    pending.append(("compaction", "compaction", f"{trigger} compaction", part, source, trigger))
                case "subtask":
                    blocks.append(Text(SUBTASK_PROMPT))
                    pending.append(("meta", "subtask", text_of(part.get("description")) or "", part, source, None))
                case _ if kind in EVENT_PARTS:
                    pending.append((EVENT_PARTS[kind], kind, "", part, source, None))
                case _:
                    blocks.append(self.unknown(part, source))
        if blocks:
            self.emit(message_id, "user", blocks, time, None, None, None, stored.source, tuple(tags))
        for kind_, type_, words, raw, where, trigger_ in pending:
            self.event(kind_, type_, words, raw, where, message_id=message_id if blocks else None, trigger=trigger_)
        summary = info.get("summary")
        if isinstance(summary, dict) and any(summary.values()):
            words = "\n\n".join(t for t in (text_of(summary.get("title")), text_of(summary.get("body"))) if t)
            self.event("summary", "message.summary", words, summary, stored.source,
                       message_id=message_id if blocks else None)
        self.unread(info, USER_KEYS, "message", stored.source, message_id if blocks else None)

    def add_assistant(self, stored: Stored) -> None:
        info = stored.info
        message_id = text_of(info.get("id")) or f"{self.session_id}:{len(self.messages)}"
        model = text_of(info.get("modelID")) or text_of(obj(info.get("model")).get("modelID"))
        provider = text_of(info.get("providerID")) or text_of(obj(info.get("model")).get("providerID"))
        times = obj(info.get("time"))
        steps: list[Step] = [Step(time=_number(times.get("created")))]
        for part, source in stored.parts:
            step = steps[-1]
            kind = text_of(part.get("type"))
            match kind:
                case "step-start":
                    if step.blocks or step.results or step.finish is not None:
                        steps.append(Step(time=_number(obj(part.get("time")).get("start"))))
                        step = steps[-1]
                    if part.get("snapshot") is not None or not set(part) <= STEP_START_KEYS:
                        step.events.append(("meta", "step-start", "", part, source))
                case "step-finish":
                    step.finish = part
                case "text":
                    step.blocks.append(self.text(part, source))
                case "reasoning":
                    step.blocks.append(self.reasoning(part, model, provider))
                case "tool":
                    self.tool(part, source, step)
                case "file":
                    pending: list[Pending] = []
                    step.blocks.extend(self.file(part, source, pending))
                    step.events.extend(p[:5] for p in pending)
                case _ if kind in EVENT_PARTS:
                    step.events.append((EVENT_PARTS[kind], kind, _event_text(part), part, source))
                case _:
                    step.blocks.append(self.unknown(part, source))
        tags = ("compact_summary",) if info.get("summary") is True else ()
        error = info.get("error")
        if error is not None:
            self.event("error", kind_name(obj(error).get("name")) if isinstance(error, dict) else "error",
                       text_of(obj(obj(error).get("data")).get("message")) or "", error, stored.source,
                       times.get("completed"))
        whole = _usage(info.get("tokens"))
        finishes = sum(s.finish is not None for s in steps)
        for n, step in enumerate(steps):
            step_id = message_id if n == 0 else f"{message_id}:step{n}"
            usage = _usage(step.finish.get("tokens")) if step.finish is not None else (whole if finishes == 0 else None)
            if step.blocks:
                self.emit(step_id, "assistant", step.blocks, step.time or times.get("created"), model, provider,
                          usage, stored.source, tags)
            if step.results:
                self.emit(f"{step_id}:results", "tool", step.results, step.result_time, None, None, None,
                          stored.source)
            for kind_, type_, text, raw, source in step.events:
                self.event(kind_, type_, text, raw, source, message_id=step_id if step.blocks else None)
            if step.finish is not None:
                self.event("token_count", "step-finish", _cost_text(step.finish.get("cost")), step.finish,
                           stored.source, message_id=step_id if step.blocks else None)
        if finishes == 0 and ("cost" in info or "tokens" in info):
            self.event("token_count", "assistant.tokens", _cost_text(info.get("cost")),
                       {"cost": info.get("cost"), "tokens": info.get("tokens")}, stored.source,
                       message_id=message_id if steps[0].blocks else None)

    # -- parts -----------------------------------------------------------------------------------

    def text(self, part: dict[str, Any], source: SourceRef) -> Block:
        text = part.get("text")
        if not isinstance(text, str):
            self.problem(source, f"text part whose text is {shown(text)}; kept as opaque")
            return Opaque("text", part, "text is not a string")
        if part.get("ignored"):
            return Opaque("text", part, "ignored: OpenCode did not send this text to the model")
        return Text(text)

    def reasoning(self, part: dict[str, Any], model: str | None, provider: str | None) -> Block:
        """A reasoning part; its provider's proof is in ``metadata`` (``anthropic.signature``,
        ``openai.reasoningEncryptedContent``), as the AI SDK hands it over."""
        meta = obj(part.get("metadata"))
        signature = text_of(obj(meta.get("anthropic")).get("signature")) or text_of(
            obj(meta.get("openai")).get("reasoningEncryptedContent"))
        text = part.get("text")
        redacted = text_of(obj(meta.get("anthropic")).get("redactedData")) is not None
        return Reasoning(text if isinstance(text, str) else "", signature, provider, model, redacted)

    def file(self, part: dict[str, Any], source: SourceRef,
             pending: list[Pending]) -> list[Block]:
        """A file part: an image becomes an image block (bytes from a ``data:`` URL, a remote URL kept,
        a local ``file:`` path only named); a text file or folder is left to the synthetic text parts
        OpenCode wrote beside it (an attachment event); other media are opaque."""
        mime = text_of(part.get("mime")) or text_of(part.get("mediaType")) or ""
        url = text_of(part.get("url")) or ""
        name = text_of(part.get("filename")) or ""
        if mime in UNSENT_FILE_MIMES:
            pending.append(("attachment", "file", name or url, part, source, None))
            return []
        if mime.startswith("image/"):
            if url.startswith("data:"):
                return [self.ctx.image_data_url(url, source.file, source.line)]
            if url.startswith(("http://", "https://")):
                return [Image(mime, None, url=url)]
            pending.append(("attachment", "file", name or url, part, source, None))
            return [Image(mime, None)]
        return [Opaque("file", part, f"{mime or 'file'} attachment the record has no kind for")]

    def tool(self, part: dict[str, Any], source: SourceRef, step: Step) -> None:
        """A tool part: the call in the reply, its result (if it has one) in the tool message after it."""
        call_id = text_of(part.get("callID")) or text_of(part.get("id")) or f"{self.session_id}:call{len(self.calls)}"
        name = text_of(part.get("tool")) or ""
        state = obj(part.get("state"))
        status = text_of(state.get("status"))
        arguments = state.get("input")
        raw = text_of(state.get("raw"))
        if status == "pending" and not arguments and raw:
            step.blocks.append(ToolUse(call_id, name, None, raw))
        else:
            step.blocks.append(ToolUse(call_id, name, {} if arguments is None else arguments))
        self.calls[call_id] = name
        meta = obj(state.get("metadata"))
        child = text_of(meta.get("sessionId")) or text_of(meta.get("sessionID"))
        if child is not None:
            self.spawned.setdefault(child, call_id)
        detail = {k: v for k, v in state.items() if k not in ("input", "output", "status", "attachments", "raw")} or None
        end = _number(obj(state.get("time")).get("end"))
        match status:
            case "completed":
                output = state.get("output")
                text = output if isinstance(output, str) else json_text(output)
                images = tuple(b for b in self.attachments(state.get("attachments"), source) if isinstance(b, Image))
                step.results.append(ToolResult(call_id, text, False, images, name, packed(detail)))
            case "error":
                interrupted = meta.get("output") if meta.get("interrupted") is True else None
                error = state.get("error")
                text = interrupted if isinstance(interrupted, str) else (
                    error if isinstance(error, str) else json_text(error))
                step.results.append(ToolResult(call_id, text, not isinstance(interrupted, str), (), name, packed(detail)))
            case "pending" | "running":
                step.events.append(("meta", f"tool.{status}", f"{name} {status}: {INTERRUPTED}", part, source))
                return
            case _:
                self.problem(source, f"tool part with unknown status {shown(state.get('status'))}; call kept")
                step.results.append(Opaque("tool", part, "unknown tool status"))
                return
        if end is not None:
            step.result_time = end

    def attachments(self, value: object, source: SourceRef) -> list[Block]:
        pending: list[Pending] = []
        out: list[Block] = []
        for item in value if isinstance(value, list) else []:
            if isinstance(item, dict):
                out.extend(self.file(item, source, pending))
        return out

    def unknown(self, part: dict[str, Any], source: SourceRef) -> Opaque:
        self.problem(source, f"unknown part type {shown(part.get('type'))}; kept as opaque")
        return Opaque(kind_name(part.get("type")), part, "unknown part type")

    # -- message v1 (0.x, parts inline) ----------------------------------------------------------

    def add_v1(self, stored: Stored) -> None:
        """A message v1: ``parts`` inline, ``tool-invocation`` parts holding call and result, the model,
        tokens, cost and system prompts under ``metadata.assistant`` (session/message.ts)."""
        info = stored.info
        meta = obj(info.get("metadata"))
        message_id = text_of(info.get("id")) or f"{self.session_id}:{len(self.messages)}"
        times = obj(meta.get("time"))
        tools = obj(meta.get("tool"))
        assistant = obj(meta.get("assistant"))
        model, provider = text_of(assistant.get("modelID")), text_of(assistant.get("providerID"))
        if info.get("role") == "user":
            blocks: list[Block] = []
            pending: list[Pending] = []
            for part in info["parts"]:
                if not isinstance(part, dict):
                    blocks.append(Opaque("part", part, "part is not an object"))
                elif part.get("type") == "text":
                    blocks.append(self.text(part, stored.source))
                elif part.get("type") == "file":
                    blocks.extend(self.file(part, stored.source, pending))
                else:
                    blocks.append(self.v1_unknown(part, stored.source))
            if blocks:
                self.emit(message_id, "user", blocks, times.get("created"), None, None, None, stored.source)
            for kind_, type_, words, raw, where, trigger_ in pending:
                self.event(kind_, type_, words, raw, where, trigger=trigger_)
            return
        systems = [s for s in assistant.get("system") or [] if isinstance(s, str)]
        self.config(model, provider, "\n".join(systems) if systems else None, stored.source, times.get("created"))
        steps: list[Step] = [Step(time=_number(times.get("created")))]
        for part in info["parts"]:
            step = steps[-1]
            kind = text_of(part.get("type")) if isinstance(part, dict) else None
            if not isinstance(part, dict):
                step.blocks.append(Opaque("part", part, "part is not an object"))
            elif kind == "step-start":
                if step.blocks or step.results:
                    steps.append(Step())
            elif kind == "text":
                step.blocks.append(self.text(part, stored.source))
            elif kind == "reasoning":
                signature = text_of(obj(obj(part.get("providerMetadata")).get("anthropic")).get("signature"))
                step.blocks.append(Reasoning(text_of(part.get("text")) or "", signature, provider, model))
            elif kind == "tool-invocation":
                self.v1_tool(obj(part.get("toolInvocation")), tools, part, stored.source, step)
            elif kind == "file":
                pending = []
                step.blocks.extend(self.file(part, stored.source, pending))
                step.events.extend(p[:5] for p in pending)
            elif kind == "source-url":
                step.events.append(("meta", "source-url", text_of(part.get("url")) or "", part, stored.source))
            else:
                step.blocks.append(self.v1_unknown(part, stored.source))
        tags = ("compact_summary",) if assistant.get("summary") is True else ()
        usage = _usage(assistant.get("tokens"))
        for n, step in enumerate(steps):
            step_id = message_id if n == 0 else f"{message_id}:step{n}"
            if step.blocks:
                self.emit(step_id, "assistant", step.blocks, step.time or times.get("created"), model, provider,
                          usage if n == len(steps) - 1 else None, stored.source, tags)
            if step.results:
                self.emit(f"{step_id}:results", "tool", step.results, step.result_time, None, None, None,
                          stored.source)
            for kind_, type_, text, raw, source in step.events:
                self.event(kind_, type_, text, raw, source, message_id=step_id if step.blocks else None)
        error = meta.get("error")
        if error is not None:
            self.event("error", kind_name(obj(error).get("name")), text_of(obj(obj(error).get("data")).get("message"))
                       or "", error, stored.source, times.get("completed"))
        if assistant:
            self.event("token_count", "assistant.tokens", _cost_text(assistant.get("cost")),
                       {"cost": assistant.get("cost"), "tokens": assistant.get("tokens")}, stored.source)

    def v1_tool(self, call: dict[str, Any], tools: dict[str, Any], part: dict[str, Any], source: SourceRef,
                step: Step) -> None:
        call_id = text_of(call.get("toolCallId")) or f"{self.session_id}:call{len(self.calls)}"
        name = text_of(call.get("toolName")) or ""
        step.blocks.append(ToolUse(call_id, name, {} if call.get("args") is None else call.get("args")))
        self.calls[call_id] = name
        state = text_of(call.get("state"))
        detail = tools.get(call_id)
        if state == "result":
            result = call.get("result")
            error = obj(detail).get("error")
            step.results.append(ToolResult(call_id, result if isinstance(result, str) else json_text(result),
                                           bool(error), (), name, packed(detail)))
            step.result_time = _number(obj(obj(detail).get("time")).get("end")) or step.result_time
        elif state not in ("call", "partial-call"):
            self.problem(source, f"tool invocation in unknown state {shown(call.get('state'))}; call kept")
            step.results.append(Opaque("tool-invocation", part, "unknown state"))

    def v1_unknown(self, part: dict[str, Any], source: SourceRef) -> Opaque:
        kind = part.get("type")
        if kind in V1_PARTS:
            return Opaque(str(kind), part, "part of a kind this message's role does not send")
        self.problem(source, f"unknown part type {shown(kind)}; kept as opaque")
        return Opaque(kind_name(kind), part, "unknown part type")

    # -- OpenCode V2 (``session_message`` rows) ------------------------------------------------------

    def add_v2(self, data: dict[str, Any], row: dict[str, Any], source: SourceRef) -> None:
        """One ``session_message`` row: ``data`` is a ``SessionMessage.Message`` (packages/core/src/
        session-message.ts), tagged by ``type`` like the row's own column."""
        kind = text_of(data.get("type")) or text_of(row.get("type"))
        message_id = text_of(data.get("id")) or text_of(row.get("id")) or f"{self.session_id}:{len(self.messages)}"
        time = obj(data.get("time")).get("created") or row.get("time_created")
        match kind:
            case "user":
                self.v2_user(data, message_id, time, source)
            case "synthetic":
                self.emit(message_id, "user", [self.v2_text(data, "text", message_id, source)], time, None, None,
                          None, source, ("synthetic",))
            case "shell":
                self.v2_shell(data, message_id, time, source)
            case "assistant":
                self.v2_assistant(data, message_id, time, source)
            case "compaction":
                reason = text_of(data.get("reason"))
                self.emit(message_id, "user", [self.v2_text(data, "summary", message_id, source)], time, None, None,
                          None, source, ("compact_summary",))
                self.event("compaction", "compaction", f"{reason or 'compaction'}", data, source, time,
                           message_id, reason)
            case "agent-switched":
                self.event("meta", kind, text_of(data.get("agent")) or "", data, source, time)
            case "model-switched":
                model = obj(data.get("model"))
                self.config(text_of(model.get("id")), text_of(model.get("providerID")), None, source, time)
                self.event("meta", kind, text_of(model.get("id")) or "", data, source, time)
            case _:
                self.problem(source, f"session_message {row.get('id')} of unknown type {shown(kind)}; kept as an event")
                self.event("other", f"session_message:{kind_name(kind)}", "", json_value_of(row, data), source, time)

    def v2_user(self, data: dict[str, Any], message_id: str, time: object, source: SourceRef) -> None:
        """A prompt: its ``text``, its ``files`` (``FileAttachment``: ``uri``, ``mime``, ``name``) as the
        V1 file parts are read, its ``agents`` and ``references`` as events."""
        blocks: list[Block] = []
        pending: list[Pending] = []
        text = data.get("text")
        if isinstance(text, str):
            if text:
                blocks.append(Text(text))
        elif text is not None:
            self.problem(source, f"user message {message_id} whose text is {shown(text)}; kept as opaque")
            blocks.append(Opaque("text", text, "text is not a string"))
        for attachment in self.listed(data.get("files"), "files", source, blocks):
            if isinstance(attachment, dict):
                blocks.extend(self.file({**attachment, "url": attachment.get("uri"),
                                         "filename": attachment.get("name")}, source, pending))
            else:
                blocks.append(Opaque("file", attachment, "attachment is not an object"))
        self.emit(message_id, "user", blocks or [Text("")], time, None, None, None, source)
        for kind_, type_, words, raw, where, trigger_ in pending:
            self.event(kind_, type_, words, raw, where, message_id=message_id, trigger=trigger_)
        for key in ("agents", "references"):
            if data.get(key):
                self.event("meta", f"user.{key}", "", data[key], source, time, message_id)

    def v2_text(self, data: dict[str, Any], key: str, message_id: str, source: SourceRef) -> Block:
        text = data.get(key)
        if isinstance(text, str):
            return Text(text)
        self.problem(source, f"{data.get('type') or 'message'} {message_id} whose {key} is {shown(text)}; kept as opaque")
        return Opaque(key, data, f"{key} is not a string")

    def listed(self, value: JsonValue, what: str, source: SourceRef, kept: list[Block]) -> list[Any]:
        """``value`` as the list the schema gives it; anything else is kept opaque in ``kept`` and reported."""
        if isinstance(value, list) or value is None:
            return value or []
        self.problem(source, f"{what} is {shown(value)}, not a list; kept as opaque")
        kept.append(Opaque(what, value, "not a list"))
        return []

    def v2_shell(self, data: dict[str, Any], message_id: str, time: object, source: SourceRef) -> None:
        """A command the person ran (``!``): a ``bash`` call and its output, as 1.x records it (a reply
        holding a ``bash`` tool part)."""
        call_id = text_of(data.get("callID")) or f"{message_id}.call"
        command, output = data.get("command"), data.get("output")
        self.calls[call_id] = "bash"
        self.emit(message_id, "assistant", [ToolUse(call_id, "bash", {"command": command})], time, None, None,
                  None, source, ("shell",))
        self.emit(f"{message_id}:results", "tool",
                  [ToolResult(call_id, output if isinstance(output, str) else json_text(output), False, (), "bash")],
                  obj(data.get("time")).get("completed") or time, None, None, None, source, ("shell",))

    def v2_assistant(self, data: dict[str, Any], message_id: str, time: object, source: SourceRef) -> None:
        """One model step: ``content`` (text, reasoning, tool with its state), ``model``, ``tokens``,
        ``cost``, ``error``; the calls' results go in a ``tool`` message after it, as in 1.x."""
        model_ref = obj(data.get("model"))
        model = text_of(model_ref.get("id")) or text_of(model_ref.get("modelID"))
        provider = text_of(model_ref.get("providerID"))
        self.config(model, provider, None, source, time)
        step = Step(time=_number(time))
        content = data.get("content")
        if not isinstance(content, list):
            self.problem(source, f"assistant message {message_id} whose content is {shown(content)}; kept as opaque")
            content = [content] if content is not None else []
        tags: list[str] = []
        for item in content:
            kind = text_of(item.get("type")) if isinstance(item, dict) else None
            if not isinstance(item, dict):
                step.blocks.append(Opaque("content", item, "content item is not an object"))
            elif kind == "text":
                step.blocks.append(self.text(item, source))
                if item.get("synthetic") and "synthetic" not in tags:
                    tags.append("synthetic")
            elif kind == "reasoning":
                text = item.get("text")
                step.blocks.append(Reasoning(text if isinstance(text, str) else "", None, provider, model))
            elif kind == "tool":
                self.v2_tool(item, source, step)
            else:
                step.blocks.append(self.unknown(item, source))
        if step.blocks:
            self.emit(message_id, "assistant", step.blocks, time, model, provider, _usage(data.get("tokens")),
                      source, tuple(tags))
        if step.results:
            self.emit(f"{message_id}:results", "tool", step.results, step.result_time, None, None, None, source)
        at = message_id if step.blocks else None
        for kind_, type_, text, raw, where in step.events:
            self.event(kind_, type_, text, raw, where, message_id=at)
        error = data.get("error")
        if error is not None:
            self.event("error", kind_name(obj(error).get("type") or obj(error).get("name") or "error"),
                       text_of(obj(error).get("message")) or "", error, source, obj(data.get("time")).get("completed"),
                       message_id=at)
        if "cost" in data or "tokens" in data:
            self.event("token_count", "assistant.tokens", _cost_text(data.get("cost")),
                       {"cost": data.get("cost"), "tokens": data.get("tokens"), "finish": data.get("finish")}, source,
                       message_id=at)
        if data.get("snapshot"):
            self.event("meta", "snapshot", "", data["snapshot"], source, message_id=at)

    def v2_tool(self, item: dict[str, Any], source: SourceRef, step: Step) -> None:
        """A ``tool`` content item: the call (a pending call's ``input`` is the arguments' text so far)
        and, completed or failed, its result: the text items of ``content`` joined, files and
        ``attachments`` as images, ``structured`` and the provider's part in the result's detail."""
        call_id = text_of(item.get("id")) or f"{self.session_id}:call{len(self.calls)}"
        name = text_of(item.get("name")) or ""
        state = obj(item.get("state"))
        status = text_of(state.get("status"))
        arguments = state.get("input")
        if isinstance(arguments, str):
            step.blocks.append(ToolUse(call_id, name, None, arguments))
        else:
            step.blocks.append(ToolUse(call_id, name, {} if arguments is None else arguments))
        self.calls[call_id] = name
        times = obj(item.get("time"))
        detail = {k: v for k, v in (("structured", state.get("structured")), ("provider", item.get("provider")),
                                    ("time", item.get("time"))) if v} or None
        # the ``subagent`` tool's output names the child session it created (``Output.sessionID`` in
        # packages/core/src/tool/subagent.ts at 17c2ea16, whose ``parentID`` is this session)
        child = text_of(obj(state.get("structured")).get("sessionID"))
        if child is not None:
            self.spawned.setdefault(child, call_id)
        if status in ("pending", "running"):  # never answered: the model was sent the interruption note
            step.events.append(("meta", f"tool.{status}", f"{name} {status}: {INTERRUPTED}", item, source))
            return
        if status not in ("completed", "error"):
            self.problem(source, f"tool item with unknown status {shown(state.get('status'))}; call kept")
            step.results.append(Opaque("tool", item, "unknown tool status"))
            return
        words: list[str] = []
        images: list[Image] = []
        others: list[Block] = []
        for part in [*self.listed(state.get("content"), "content", source, others),
                     *self.listed(state.get("attachments"), "attachments", source, others)]:
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                words.append(part["text"])
            elif isinstance(part, dict) and (part.get("uri") or part.get("url")):
                for block in self.file({**part, "url": part.get("uri") or part.get("url"),
                                        "filename": part.get("name")}, source, []):
                    if isinstance(block, Image):
                        images.append(block)
                    else:
                        others.append(block)
            else:
                others.append(Opaque("tool-content", part, "tool output item the record has no kind for"))
        failed = status == "error"
        if failed and not words:
            error = state.get("error")
            words.append(text_of(obj(error).get("message")) or (error if isinstance(error, str) else json_text(error)))
        step.results.append(ToolResult(call_id, "\n".join(words), failed, tuple(images), name, packed(detail)))
        step.results.extend(others)
        end = _number(times.get("completed"))
        if end is not None:
            step.result_time = end

    # -- the session -----------------------------------------------------------------------------

    def session(self, info: dict[str, Any], file: str, source: SourceRef) -> Session:
        """The session with its info's own events (its client version, change summary, share, revert)."""
        version = text_of(info.get("version"))
        if version:
            self.events.append(client_event(FORMAT, version, source, parse_time(obj(info.get("time")).get("created"))))
        summary = info.get("summary")
        if isinstance(summary, dict) and summary:
            self.event("summary", "session.summary", _summary_text(summary), summary, source, attached=False)
        self.unread(info, SESSION_KEYS, "session", source, attached=False)
        for key in ("share", "revert"):
            if info.get(key):
                self.event("meta", f"session.{key}", "", info[key], source, attached=False)
        configs = _resolve(self.configs, self.messages)
        return Session(self.session_id, FORMAT, tuple(self.messages), self.last, file, configs, tuple(self.events),
                       text_of(info.get("parentID")), None, text_of(info.get("title")) or None)


def _resolve(configs: list[RunConfig], messages: list[Message]) -> tuple[RunConfig, ...]:
    """Each configuration names the first message met after it (by time); the first applies to all."""
    out: list[RunConfig] = []
    for config in configs:
        first = None
        if out and config.time is not None:
            first = next((m.id for m in messages if m.time is not None and m.time >= config.time), None)
        out.append(RunConfig(config.model, config.provider, config.system, (), None, None, first, config.time,
                             config.source))
    return tuple(out)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _usage(tokens: object) -> Usage | None:
    """A reply's token counts as OpenCode keeps them: ``input`` less the cache (getUsage in
    session/index.ts subtracts cached tokens for providers that include them), ``output`` and
    ``reasoning`` apart (both billed at the output rate, so both are the record's output), ``cache``
    read and write. OpenCode writes 0 for a count the provider did not report (its ``safe`` helper, and
    a reply is created with every count 0), so a reply whose counts are all 0 has unknown usage."""
    if not isinstance(tokens, dict):
        return None
    cache = obj(tokens.get("cache"))
    fresh, output, reasoning = as_int(tokens.get("input")), as_int(tokens.get("output")), as_int(tokens.get("reasoning"))
    read, write = as_int(cache.get("read")), as_int(cache.get("write"))
    if not any((fresh, output, reasoning, read, write)):
        return None
    out = None if output is None and reasoning is None else (output or 0) + (reasoning or 0)
    return Usage(fresh, out, read, write)


def _cost_text(cost: object) -> str:
    return f"cost {cost}" if isinstance(cost, int | float) and not isinstance(cost, bool) else ""


def _event_text(part: dict[str, Any]) -> str:
    kind = part.get("type")
    if kind == "retry":
        return text_of(obj(obj(part.get("error")).get("data")).get("message")) or f"attempt {part.get('attempt')}"
    if kind == "patch":
        return ", ".join(f for f in items(part.get("files")) if isinstance(f, str))
    if kind == "agent":
        return text_of(part.get("name")) or ""
    return ""


def _summary_text(summary: dict[str, Any]) -> str:
    counts = [f"{summary[k]} {k}" for k in ("files", "additions", "deletions") if isinstance(summary.get(k), int)]
    return ", ".join(counts)


def _raw(stored: Stored) -> JsonValue:
    return {"info": stored.info, "parts": [p for p, _ in stored.parts]}


# ---- JSON storage ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Storage:
    """Where one session's records are: the folder of its messages, and how a message's parts are found."""

    root: Path
    """The storage folder (``storage/``, or 0.x ``storage/session/``)."""
    legacy: bool
    session_path: Path | None

    def messages(self, session: str) -> Path:
        return self.root / STORAGE_KINDS_OF_MESSAGES / session

    def parts(self, session: str, message: str) -> Path:
        if self.legacy:
            return self.root / STORAGE_KINDS_OF_PARTS / session / message
        return self.root / STORAGE_KINDS_OF_PARTS / message


def _storage_of_session(path: Path) -> Storage:
    """The storage a session file sits in: 0.x ``storage/session/info/<id>.json`` or 1.x
    ``storage/session/<project>/<id>.json``."""
    if path.parent.name == LEGACY_INFO and (path.parent.parent / STORAGE_KINDS_OF_MESSAGES).is_dir():
        return Storage(path.parent.parent, True, path)
    if path.parent.name == LEGACY_INFO and not (path.parent.parent.parent / "session").is_dir():
        return Storage(path.parent.parent, True, path)
    return Storage(path.parent.parent.parent, False, path)


class Names:
    """How the files a session file reads are named in problems and sources: beside the session file's
    own name (relative to the loaded root), so nothing names where the corpus sits on disk."""

    def __init__(self, ctx: ImportContext, anchor: Path, root: Path) -> None:
        self.ctx = ctx
        self.root = root
        shown_name = ctx.name(anchor)
        try:
            depth = len(anchor.relative_to(root).parts)
        except ValueError:
            depth = 0
        if shown_name != str(anchor) and depth:
            parts = Path(shown_name).parts
            self.prefix: Path | None = Path(*parts[:-depth]) if len(parts) > depth else Path()
        else:
            self.prefix = None

    def __call__(self, path: Path) -> str:
        if self.prefix is None:
            return self.ctx.name(path)
        try:
            return str(self.prefix / path.relative_to(self.root))
        except ValueError:
            return self.ctx.name(path)


def _json_files(folder: Path) -> list[Path]:
    """The ``.json`` files of a folder by name (ascending ids sort in creation order, as
    ``Storage.list`` sorts them), without the ``.oc-*.tmp`` files an atomic write leaves."""
    try:
        return sorted(p for p in folder.iterdir() if p.name.endswith(".json") and p.is_file())
    except OSError:
        return []


def _record(path: Path, name: str, ctx: ImportContext) -> dict[str, Any] | None:
    """The record of the file ``path``, its problems named ``name`` as its records' sources are (a
    message or part file the load did not list has no name of its own relative to the loaded root)."""
    value = parse_document(path.read_bytes(), name, ctx)
    if value is NOT_JSON:
        return None
    if not isinstance(value, dict):
        ctx.problem(name, 1, f"OpenCode record is a JSON {type(value).__name__}, not an object; left out")
        return None
    return value


def _stored_message(path: Path, store: Storage, session: str, names: Names, ctx: ImportContext) -> Stored | None:
    name = names(path)
    info = _record(path, name, ctx)
    if info is None:
        return None
    message_id = text_of(info.get("id")) or path.stem
    stored = Stored(info, SourceRef(name, None))
    if not isinstance(info.get("parts"), list):
        for part_path in _json_files(store.parts(session, message_id)):
            part_name = names(part_path)
            part = _record(part_path, part_name, ctx)
            if part is not None:
                stored.parts.append((part, SourceRef(part_name, None)))
        stored.parts.sort(key=lambda item: text_of(item[0].get("id")) or "")
    return stored


def read_session_file(path: Path, ctx: ImportContext) -> list[Session]:
    store = _storage_of_session(path)
    names = Names(ctx, path, store.root)
    file = names(path)
    info = _record(path, file, ctx)
    if info is None:
        return []
    session_id = text_of(info.get("id")) or path.stem
    builder = Builder(ctx, session_id)
    folder = store.messages(session_id)
    stored = [s for p in _json_files(folder) if (s := _stored_message(p, store, session_id, names, ctx)) is not None]
    stored.sort(key=lambda s: text_of(s.info.get("id")) or "")
    for one in stored:
        builder.add(one)
    return [builder.session(info, file, SourceRef(file, None))]


def read_message_file(path: Path, ctx: ImportContext) -> list[Session]:
    """A message file read alone (named directly, or its session file is missing): a partial session of
    that message and its parts."""
    legacy = path.parent.parent.name == STORAGE_KINDS_OF_MESSAGES and path.parent.parent.parent.name == "session" \
        and (path.parent.parent.parent / LEGACY_INFO).is_dir()
    store = Storage(path.parent.parent.parent, legacy, None)
    names = Names(ctx, path, store.root)
    file = names(path)
    session_id = path.parent.name
    one = _stored_message(path, store, session_id, names, ctx)
    if one is None:
        return []
    session_id = text_of(one.info.get("sessionID")) or text_of(obj(one.info.get("metadata")).get("sessionID")) or \
        session_id
    ctx.problem(file, None, f"message read without its session file (session {session_id}): a partial session")
    builder = Builder(ctx, session_id)
    builder.add(one)
    return [builder.session({}, file, SourceRef(file, None))]


def read_part_file(path: Path, ctx: ImportContext) -> list[Session]:
    """A part file read alone (its message file is missing): a partial session of one message."""
    file = ctx.name(path)
    part = _record(path, file, ctx)
    if part is None:
        return []
    session_id = text_of(part.get("sessionID")) or "opencode"
    message_id = text_of(part.get("messageID")) or path.parent.name
    ctx.problem(file, None, f"part read without its message file (message {message_id}): a partial session")
    role = "user" if part.get("type") in ("compaction", "subtask", "agent") else "assistant"
    builder = Builder(ctx, session_id)
    builder.add(Stored({"id": message_id, "role": role}, SourceRef(file, None), [(part, SourceRef(file, None))]))
    return [builder.session({}, file, SourceRef(file, None))]


# ---- SQLite ----------------------------------------------------------------------------------------


def _loads(text: object, where: str, ctx: ImportContext, what: str) -> dict[str, Any] | None:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        ctx.problem(where, None, f"{what}: data is not valid JSON ({exc}); left out")
        return None
    if not isinstance(value, dict):
        ctx.problem(where, None, f"{what}: data is a JSON {type(value).__name__}, not an object; left out")
        return None
    return value


def _session_info(row: sqlite3.Row, names: list[str], where: str, ctx: ImportContext) -> dict[str, Any]:
    """A ``session`` row as the info record the JSON storage held (json-migration.ts maps one to the other)."""
    get = {k: row[k] for k in names}
    info: dict[str, Any] = {"id": get.get("id"), "title": get.get("title"), "version": get.get("version"),
                            "parentID": get.get("parent_id"), "projectID": get.get("project_id"),
                            "directory": get.get("directory"),
                            "time": {"created": get.get("time_created"), "updated": get.get("time_updated")}}
    summary = {k[len("summary_"):]: get[k] for k in ("summary_additions", "summary_deletions", "summary_files")
               if get.get(k) is not None}
    if summary:
        info["summary"] = summary
    if get.get("share_url"):
        info["share"] = {"url": get["share_url"]}
    if get.get("revert"):
        info["revert"] = _loads(get["revert"], where, ctx, f"session {get.get('id')} revert") or get["revert"]
    return info


def read_database(path: Path, ctx: ImportContext) -> list[Session]:
    file = ctx.name(path)
    try:
        con = connect(path)
    except sqlite3.Error as exc:
        ctx.problem(path, None, f"SQLite database cannot be opened: {exc}")
        return []
    try:
        con.row_factory = sqlite3.Row
        tables = table_names(con)
        if not tables >= DB_TABLES:
            ctx.problem(path, None, f"SQLite database without OpenCode's tables (has {sorted(tables)[:8]}); not read")
            return []
        return _database_sessions(con, tables, file, ctx)
    except sqlite3.Error as exc:
        ctx.problem(path, None, f"SQLite database could not be read: {exc}")
        return []
    finally:
        con.close()


def _database_sessions(con: sqlite3.Connection, tables: set[str], file: str, ctx: ImportContext) -> list[Session]:
    source = SourceRef(file, None)
    infos: dict[str, dict[str, Any]] = {}
    cursor = con.execute("SELECT * FROM session ORDER BY time_created, id")
    columns = [d[0] for d in cursor.description]
    for row in cursor:
        info = _session_info(row, columns, file, ctx)
        if isinstance(info.get("id"), str):
            infos[info["id"]] = info
    stored: dict[str, list[Stored]] = {}
    by_id: dict[str, Stored] = {}
    for row in con.execute("SELECT id, session_id, data FROM message ORDER BY session_id, time_created, id"):
        data = _loads(row["data"], file, ctx, f"message {row['id']}")
        if data is None:
            continue
        data = {**data, "id": row["id"], "sessionID": row["session_id"]}
        one = Stored(data, source)
        by_id[str(row["id"])] = one
        stored.setdefault(str(row["session_id"]), []).append(one)
    for row in con.execute("SELECT id, message_id, session_id, data FROM part ORDER BY message_id, id"):
        data = _loads(row["data"], file, ctx, f"part {row['id']}")
        if data is None:
            continue
        owner = by_id.get(str(row["message_id"]))
        part = {**data, "id": row["id"], "sessionID": row["session_id"], "messageID": row["message_id"]}
        if owner is None:
            ctx.problem(file, None, f"part {row['id']} names message {row['message_id']}, which is not in the "
                                    "message table; read as a message of its own")
            owner = Stored({"id": row["message_id"], "sessionID": row["session_id"], "role": "assistant"}, source)
            by_id[str(row["message_id"])] = owner
            stored.setdefault(str(row["session_id"]), []).append(owner)
        owner.parts.append((part, source))
    v2: dict[str, list[dict[str, Any]]] = {}
    if "session_message" in tables:
        # the newest schema orders a session's rows by ``seq`` (its event sequence), the first by time
        held = {r[1] for r in con.execute("PRAGMA table_info(session_message)")}
        order = "seq, time_created, id" if "seq" in held else "time_created, id"
        for row in con.execute(f"SELECT * FROM session_message ORDER BY session_id, {order}"):
            v2.setdefault(str(row["session_id"]), []).append(dict(zip(row.keys(), tuple(row), strict=True)))
    sessions: list[Session] = []
    spawned: dict[str, str] = {}
    for session_id in dict.fromkeys([*infos, *stored, *v2]):
        found = infos.get(session_id)
        if found is None:
            ctx.problem(file, None, f"messages of session {session_id}, which is not in the session table: a "
                                    "partial session")
        info = found or {}
        builder = Builder(ctx, session_id)
        for one in stored.get(session_id, []):
            builder.add(one)
        # V2 rows beside 1.x message rows are the same conversation in the client's other projection:
        # the 1.x rows are read and the V2 rows kept as events; a session held in V2 rows only is read from them
        for row in v2.get(session_id, []):
            if stored.get(session_id):
                builder.event("other", f"session_message:{kind_name(row.get('type'))}", "", _v2_raw(row, file, ctx),
                              source, row.get("time_created"), attached=False)
                continue
            data = _loads(row.get("data"), file, ctx, f"session_message {row.get('id')}")
            if data is not None:
                builder.add_v2(data, row, source)
        spawned.update(builder.spawned)
        sessions.append(builder.session(info, file, source))
    return [_spawned(s, spawned) for s in sessions]


def json_value_of(row: dict[str, Any], data: dict[str, Any]) -> JsonValue:
    """A V2 row kept whole, its ``data`` parsed."""
    out: dict[str, JsonValue] = {k: v for k, v in row.items() if isinstance(v, str | int | float) or v is None}
    out["data"] = data
    return out


def _v2_raw(row: dict[str, Any], file: str, ctx: ImportContext) -> JsonValue:
    out: dict[str, JsonValue] = {k: v for k, v in row.items() if isinstance(v, str | int | float) or v is None}
    data = row.get("data")
    if isinstance(data, str):
        parsed = _loads(data, file, ctx, f"session_message {row.get('id')}")
        out["data"] = parsed if parsed is not None else data
    return out


def _spawned(session: Session, spawned: dict[str, str]) -> Session:
    call = spawned.get(session.id)
    if call is None or session.parent_session_id is None:
        return session
    return Session(session.id, session.format, session.messages, session.tip, session.file, session.run_configs,
                   session.events, session.parent_session_id, call, session.title)


# ---- entry -----------------------------------------------------------------------------------------


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    if detection is None:
        detection = sniff(Head.of_file(path))
    match detection:
        case "sqlite":
            return read_database(path, ctx)
        case "session":
            return read_session_file(path, ctx)
        case "message":
            return read_message_file(path, ctx)
        case "part":
            return read_part_file(path, ctx)
    ctx.problem(path, None, "not an OpenCode session, message, part or database file")
    return []


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="OpenCode sessions: JSON storage (session, message and part files, 0.x and 1.x) or opencode.db",
    client="OpenCode",
    layouts=layouts,
    names_only="OpenCode stores the tools called and the tools a prompt turned on or off, never the tool specs sent",
    owns=owns,
)
