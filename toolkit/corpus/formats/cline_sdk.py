"""Cline SDK sessions read into the record: what ``@cline/core`` writes for Cline for VS Code since 4.0.0
(apps/vscode/src/sdk/SdkController.ts; version 4.0.0 in apps/vscode/package.json at b5388e5c8d,
2026-06-24), the Cline CLI 3.x (apps/cli depends on ``@cline/core``) and the SDK's own CLI and desktop
app. The older task folders (``api_conversation_history.json``) are ``cline``.

The store is the sessions folder (``~/.cline/data/sessions``; ``resolveSessionDataDir`` in
sdk/packages/shared/src/storage/paths.ts), one folder per session ``<id>/`` holding:

- ``<id>.messages.json``: the conversation, ``{version: 1, updated_at, messages}``; since the SDK's
  per-turn metadata (April 2026) also ``agent`` (``lead``, ``subagent``, ``teammate``), ``sessionId``,
  ``taskType``, later ``origin`` (``source``, ``mode``, ``parentThreadId``, ``subagent``, ``version``,
  ``trigger``) and ``system_prompt``. Each message is ``{id, role, content, ts, modelInfo: {id,
  provider, family}, metrics: {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, cost}}``,
  content Anthropic-shaped blocks (``text``, ``thinking``, ``redacted_thinking``, ``tool_use``,
  ``tool_result`` on a user message) plus Cline's ``image`` (``data``, ``mediaType``), ``file``
  (``path``, ``content``; sent as ``<file_content path="...">`` text, ``formatFileContentBlock``) and,
  since August 2026, ``media`` (model-generated media). Before the version field's contract was
  written down, content could also be a plain string. Sources: ``buildMessagesFilePayload`` in
  sdk/packages/core/src/services/session-data.ts, ``ContentBlock`` in
  sdk/packages/shared/src/llms/messages.ts, sdk/packages/core/docs/messages-contract-v1.md at commit
  21cb8d2525 of https://github.com/cline/cline, and the first SDK commit 78aedcde84 (2026-03-02,
  ``{version, updated_at, messages}`` in sdk/core/src/session/session-service.ts); read 2026-12-04.
- ``<id>.json``: the manifest (``SessionManifestSchema``, sdk/packages/core/src/session/models/
  session-manifest.ts): ``session_id``, ``source``, ``started_at``, ``ended_at``, ``status``,
  ``provider``, ``model``, ``cwd``, ``prompt``, ``metadata`` (``title``, ``fork.forkedFromSessionId``,
  ``sessionHistoryOrigin.version``), ``messages_path``, ``compaction_path``.
- ``<id>.compaction.json``: the compacted history the model is sent after a compaction
  (``SessionCompactionStateSchema``: ``source_message_count``, ``messages``); the messages file stays
  the whole history (session-compaction.ts).
- subagents: ``<agent id>.messages.json`` in the root session's folder (their ``sessionId`` is
  ``<root>__<agent id>``, a team task's ``<root>__teamtask__<agent>__<nonce>``; ``SessionArtifacts``
  in session-artifacts.ts), in the first releases a folder ``<root>/<agent id>/`` (team tasks
  ``<root>/teamtask-<id>/<agent>/``) with ``<sub id>.messages.json`` and its manifest.
- beside the session folders: ``sessions.db`` (the SQLite session rows) or, without SQLite,
  ``sessions.index.json`` (``{version: 1, sessions: {id: row}}``) and ``subagent-spawn-queue.json``
  (file-session-service.ts); and per session ``<id>.hooks.jsonl`` and ``<id>.log`` in the first
  releases. None holds a conversation: a folder load leaves them to the messages files (``owns``).

Each messages file is a session; its manifest beside it gives the title, the fork it came from (as the
parent session, as Codex forks are) and the client's source and version. ``metrics.inputTokens`` is
the request's whole input since the SDK moved to AI SDK handlers (the cost in
sdk/packages/llms/src/providers/ai-sdk.ts takes ``inputTokens - cacheReadTokens - cacheWriteTokens``
as the fresh input; commit 27c93efeed, 2026-04-08), the fresh input before that (anthropic-base.ts at
78aedcde84 reported ``input_tokens``): an input below its cache counts can only be the fresh one and is
kept, any other has the cache counts taken off (an estimate for a file of March 2026). A tool_use's
``call_id`` (the provider's own id of the same call) is not kept: results name ``id``.

A subagent is tied to the ``spawn_agent`` call whose ``task`` opened it (the call's result names no
agent; spawn-agent-tool.ts), through ``toolkit.corpus.linking.spawn_links``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

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
from toolkit.corpus.formats.shapes import (
    as_int,
    items,
    json_value,
    kind_name,
    obj,
    read_object,
    shown,
    text_of,
)
from toolkit.corpus.formats.wirekit import CallBook, Where, tool_use, usage_of
from toolkit.corpus.linking import Linker, Spawned, Spawns, spawn_links, spawning_calls, spawns_of
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
    Text,
    ToolResult,
    Usage,
    packed,
)

FORMAT = "cline_sdk"

MESSAGES = ".messages.json"
COMPACTION = ".compaction.json"
STORE_FILES = frozenset({"sessions.index.json", "subagent-spawn-queue.json", "sessions.db", "sessions.db-wal",
                         "sessions.db-shm"})
"""The sessions folder's own files (file-session-service.ts, sqlite-session-store.ts): rows, no talk."""

SPAWN_TOOLS = frozenset({"spawn_agent"})
"""The subagent tool (``createSpawnAgentTool``, sdk/packages/core/src/extensions/tools/team/spawn-agent-tool.ts)."""

CLINE_DIR, CLINE_DATA_DIR, CLINE_SESSION_DATA_DIR = "CLINE_DIR", "CLINE_DATA_DIR", "CLINE_SESSION_DATA_DIR"
"""``resolveSessionDataDir``: ``$CLINE_SESSION_DATA_DIR``, else ``$CLINE_DATA_DIR/sessions``, else
``$CLINE_DIR/data/sessions``, else ``~/.cline/data/sessions`` (sdk/packages/shared/src/storage/paths.ts,
commit 21cb8d2525, read 2026-12-04)."""

USER_INPUT = re.compile(r'\A\s*<user_input mode="[a-z]+">(.*)</user_input>\s*\Z', re.DOTALL)
"""How the SDK wraps what a user typed (``formatUserInputBlock``, sdk/packages/shared/src/prompt/format.ts)."""


# -- one session -----------------------------------------------------------------------------------


@dataclass
class _Reading:
    """One messages file being read."""

    path: Path
    ctx: ImportContext
    sid: str
    where: Where
    book: CallBook = field(default_factory=CallBook)
    names: dict[str, str] = field(default_factory=dict)
    """Each call's tool name by its id, for the results (which named none before ``name`` was added)."""
    events: list[Event] = field(default_factory=list)
    configs: list[RunConfig] = field(default_factory=list)

    def event(self, kind: EventKind, type_: str, raw: object, line: int | None, *, text: str = "",
              time: datetime | None = None, message_id: str | None = None, where: Where | None = None) -> None:
        self.events.append(Event(kind, type_, time, message_id, text, packed(json_value(raw)), (where or self.where).source(line)))


def session_id_of(path: Path, doc: Mapping[str, Any]) -> str:
    """The file's ``sessionId``, else its name less ``.messages.json`` (the first releases named each
    file by its session, subagents' included)."""
    return text_of(doc.get("sessionId")) or path.name.removesuffix(COMPACTION).removesuffix(MESSAGES)


def parent_of(sid: str) -> str | None:
    """The root session of a subagent's or team task's id (``<root>__<agent>``; ``parseSubSessionId``
    and ``parseTeamTaskSubSessionId`` in sdk/packages/core/src/session/models/session-graph.ts)."""
    root, mark, rest = sid.partition("__")
    return root if mark and root and rest else None


def _metrics_usage(metrics: Mapping[str, Any]) -> Usage | None:
    """``metrics`` as the record counts it: fresh input, output, cache reads and writes (see the module)."""
    given, read, write = as_int(metrics.get("inputTokens")), as_int(metrics.get("cacheReadTokens")), \
        as_int(metrics.get("cacheWriteTokens"))
    cached = (read or 0) + (write or 0)
    fresh = given - cached if given is not None and given >= cached else given
    return usage_of(fresh, as_int(metrics.get("outputTokens")), read, write)


def _image(reading: _Reading, block: Mapping[str, Any], line: int) -> Image | Opaque:
    data, media_type = block.get("data"), text_of(block.get("mediaType"))
    if not isinstance(data, str):
        reading.where.problem(line, f"image block holds no base64 data ({shown(data)}); kept as opaque")
        return Opaque("image", json_value(block), "no image data")
    if data.startswith("data:"):
        return reading.ctx.image_data_url(data, reading.path, line)
    return reading.ctx.image_base64(data, media_type, reading.path, line)


def _media(reading: _Reading, block: Mapping[str, Any], line: int) -> Block:
    """Model-generated media (``GeneratedMediaSchema``, sdk/packages/shared/src/llms/media.ts): an
    image with its bytes or URL is an image; audio, video, files and artifact ids are kept opaque."""
    media = obj(block.get("media"))
    source = obj(media.get("source"))
    media_type = text_of(media.get("mediaType"))
    if media.get("modality") == "image" and source.get("type") == "base64" and isinstance(source.get("data"), str):
        return reading.ctx.image_base64(source["data"], media_type, reading.path, line)
    if media.get("modality") == "image" and source.get("type") == "url" and isinstance(source.get("url"), str):
        return Image(media_type or "image/*", None, url=source["url"])
    if not media:
        reading.where.problem(line, f"media block holds {shown(block.get('media'))}, not media; kept as opaque")
    return Opaque("media", json_value(block), "generated media the record keeps no bytes of")


def file_text(block: Mapping[str, Any]) -> str:
    """A ``file`` block as the model is sent it (``formatFileContentBlock``, format.ts)."""
    return f'<file_content path="{stringify(block.get("path") or "")}">\n{stringify(block.get("content") or "")}\n</file_content>'


def _result(reading: _Reading, block: Mapping[str, Any], line: int) -> list[Block]:
    """A ``tool_result``: its content as text (typed text and file parts as the model reads them, the
    tools' own result objects as JSON), its images, and what is neither kept beside it."""
    given = text_of(block.get("tool_use_id"))
    call = reading.book.answer(given, None)
    if call is None:
        reading.where.problem(line, f"tool_result for call {given!r} has no earlier tool_use (orphan); kept")
    content = block.get("content")
    texts: list[str] = []
    images: list[Image] = []
    others: list[Block] = []
    for part in content if isinstance(content, list) else [content] if content is not None else []:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "file":
            texts.append(file_text(part))
        elif kind == "image":
            found = _image(reading, part, line)
            if isinstance(found, Image):
                images.append(found)
            else:
                others.append(found)
        elif kind is None:  # a string, or a tool's own result object (Cline's ToolOperationResult)
            texts.append(stringify(part))
        else:
            reading.where.problem(line, f"unknown tool_result content type {shown(kind)}; kept as opaque")
            others.append(Opaque(kind_name(kind), json_value(part), "unknown tool result content"))
    name = text_of(block.get("name")) or reading.names.get(call or "")
    return [ToolResult(call or given or "", "\n".join(texts), block.get("is_error") is True, tuple(images), name),
            *others]


def _blocks(reading: _Reading, content: object, line: int, model: str | None, provider: str | None) -> list[Block]:
    if isinstance(content, str):
        return [Text(content)] if content else []
    if not isinstance(content, list):
        reading.where.problem(line, f"content of message {line} is {shown(content)}; kept as opaque")
        return [Opaque("content", json_value(content), "neither text nor blocks")]
    out: list[Block] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict):
            reading.where.problem(line, f"content block is {shown(block)}, not an object; kept as opaque")
            out.append(Opaque("block", json_value(block), "not an object"))
        elif kind == "text" and isinstance(block.get("text"), str):
            if block["text"]:  # an empty text part carries nothing (and a wire would refuse it)
                out.append(Text(block["text"]))
            if text_of(block.get("signature")):
                out.append(Opaque("text_signature", json_value({"signature": block["signature"]}),
                                  "Gemini's thought signature of the text before it, kept for replay"))
        elif kind == "thinking":
            out.append(Reasoning(stringify(block.get("thinking") or ""), text_of(block.get("signature")),
                                 provider, model))
            if items(block.get("details")) or items(block.get("summary")):
                out.append(Opaque("reasoning_details", json_value({k: block[k] for k in ("details", "summary")
                                                                   if k in block}),
                                  "the same reasoning in the provider's structured form, kept for replay"))
        elif kind == "redacted_thinking":
            out.append(Reasoning("", text_of(block.get("data")), provider, model, redacted=True))
        elif kind == "tool_use":
            call_id = text_of(block.get("id")) or f"{reading.sid}:{line}:call{len(out)}"
            name = text_of(block.get("name")) or ""
            if not name:
                reading.where.problem(line, f"tool_use {call_id} has no name")
            reading.book.call(call_id, name)
            reading.names[call_id] = name
            out.append(tool_use(call_id, name, block.get("input"), reading.where, line))
        elif kind == "tool_result":
            out.extend(_result(reading, block, line))
        elif kind == "image":
            out.append(_image(reading, block, line))
        elif kind == "file":
            out.append(Text(file_text(block)))
        elif kind == "media":
            out.append(_media(reading, block, line))
        else:
            reading.where.problem(line, f"unknown content block type {shown(kind)} in message {line}; kept as opaque")
            out.append(Opaque(kind_name(kind), json_value(block), "unknown content block"))
    return out


def read_messages(path: Path, ctx: ImportContext, doc: Mapping[str, Any], compacted: bool = False) -> Session:
    """One messages file (or a compaction file: the compacted history) as a session. Each message's
    line is its position in ``messages`` from 1 (the record's convention for a JSON document)."""
    sid = session_id_of(path, doc)
    if compacted:
        sid = f"{sid}:compaction"
    reading = _Reading(path, ctx, sid, Where(path, ctx))
    if doc.get("version") != 1:
        reading.where.problem(None, f"messages file version {shown(doc.get('version'))}; read as version 1")
    origin = obj(doc.get("origin"))
    manifest = _manifest(reading, path)
    meta = obj(manifest.get("metadata"))
    source = text_of(origin.get("source")) or text_of(manifest.get("source"))
    version = text_of(origin.get("version")) or text_of(obj(meta.get("sessionHistoryOrigin")).get("version"))
    if source or version:
        reading.event("meta", CLIENT_EVENT, {"client": source, "version": version, "origin": origin,
                                             "agent": doc.get("agent"), "taskType": doc.get("taskType")},
                      None, text=" ".join(t for t in (source, version) if t))
    model, provider = text_of(manifest.get("model")), text_of(manifest.get("provider"))
    system = text_of(doc.get("system_prompt"))
    if model or provider or system:
        reading.configs.append(RunConfig(model, provider, system, source=reading.where.source(None)))
    raws = doc.get("messages")
    if not isinstance(raws, list):
        reading.where.problem(None, f"messages is {shown(raws)}, not a list; no messages read")
        raws = []
    messages: list[Message] = []
    parent: str | None = None
    for i, raw in enumerate(raws):
        line = i + 1
        if not isinstance(raw, dict):
            reading.where.problem(line, f"message {line} is {shown(raw)}, not an object; kept as opaque")
            messages.append(Message(f"{sid}:{i}", parent, "user", (Opaque("message", json_value(raw), "not an object"),),
                                    source=reading.where.source(line)))
            parent = messages[-1].id
            continue
        mid = text_of(raw.get("id")) or f"{sid}:{i}"
        time = parse_time(raw.get("ts"))
        role: Role = "assistant" if raw.get("role") == "assistant" else "user"
        if raw.get("role") not in ("user", "assistant"):
            reading.where.problem(line, f"message {line} has role {shown(raw.get('role'))}; read as a user message")
        info = obj(raw.get("modelInfo"))
        speaker = role == "assistant"
        said_model = text_of(info.get("id")) or text_of(raw.get("modelId"))  # modelId, providerId: before modelInfo
        said_provider = text_of(info.get("provider")) or text_of(raw.get("providerId"))
        if speaker and (said_model or said_provider) and (said_model, said_provider) != (model, provider):
            model, provider = said_model or model, said_provider or provider
            reading.configs.append(RunConfig(model, provider, system, message_id=mid, time=time,
                                             source=reading.where.source(line)))
        blocks = _blocks(reading, raw.get("content"), line, model if speaker else None, provider if speaker else None)
        metrics = obj(raw.get("metrics"))
        if metrics:
            cost = metrics.get("cost")
            reading.event("token_count", "metrics", metrics, line, time=time, message_id=mid,
                          text=f"cost {cost}" if isinstance(cost, int | float) else "")
        messages.append(Message(mid, parent, role, tuple(blocks), time, model if speaker else None,
                                provider if speaker else None, _metrics_usage(metrics) if speaker else None,
                                reading.where.source(line)))
        parent = mid
    title = text_of(meta.get("title")) or _first_line(messages)
    if compacted:
        title = f"compacted history: {title}" if title else "compacted history"
    fork = text_of(obj(meta.get("fork")).get("forkedFromSessionId"))
    spawned = parent_of(sid) if doc.get("agent") != "lead" and not compacted else None
    return Session(sid, FORMAT, tuple(messages), messages[-1].id if messages else None, ctx.name(path),
                   tuple(reading.configs), tuple(reading.events),
                   parent_session_id=text_of(origin.get("parentThreadId")) or spawned or fork, title=title)


def _first_line(messages: list[Message]) -> str | None:
    """The first line the user typed: the title the SDK derives without one (``deriveTitleFromPrompt``)."""
    first = next((m for m in messages if m.role == "user" and m.text.strip()), None)
    if first is None:
        return None
    return unwrapped(first.text).split("\n", 1)[0] or None


def unwrapped(text: str) -> str:
    """What the user typed, without the SDK's ``<user_input>`` wrapper, stripped."""
    found = USER_INPUT.match(text)
    return (found.group(1) if found else text).strip()


def _manifest(reading: _Reading, path: Path) -> dict[str, Any]:
    """The session's manifest beside its messages file (``<id>.json``), read as an event; ``{}`` when
    there is none (a subagent of the current layout has none)."""
    stem = path.name.removesuffix(COMPACTION).removesuffix(MESSAGES)
    beside = path.parent / f"{stem}.json"
    if stem == path.name or not beside.is_file():
        return {}
    found = read_json(beside, reading.ctx)
    if not isinstance(found, dict):
        if found is not NOT_JSON:
            reading.ctx.problem(beside, None, f"a Cline SDK manifest is a JSON object, found {shown(found)}")
        return {}
    where = Where(beside, reading.ctx)
    status = " ".join(t for t in (text_of(found.get("source")), text_of(found.get("status"))) if t)
    reading.event("meta", "manifest", found, None, text=status, time=parse_time(found.get("started_at")), where=where)
    ended = parse_time(found.get("ended_at"))
    if ended is not None:
        reading.event("meta", "ended", {"ended_at": found.get("ended_at"), "exit_code": found.get("exit_code")}, None,
                      text=text_of(found.get("status")) or "", time=ended, where=where)
    return found


# -- the store's other files -----------------------------------------------------------------------


def _from_manifest(path: Path, ctx: ImportContext) -> list[Session]:
    """A manifest named on its own: the session of the messages file beside it."""
    beside = path.parent / f"{path.stem}{MESSAGES}"
    if not beside.is_file():
        ctx.problem(path, None, f"a Cline SDK manifest without its messages file ({beside.name}): no conversation")
        return []
    return read(beside, ctx, "messages")


def _from_index(path: Path, ctx: ImportContext, doc: Mapping[str, Any]) -> list[Session]:
    """``sessions.index.json`` named on its own: the sessions it lists whose messages files are in its folder."""
    out: list[Session] = []
    for sid in obj(doc.get("sessions")):
        root = parent_of(sid)
        found = next((f for f in _candidates(path.parent, sid, root) if f.is_file()), None)
        if found is None:
            ctx.problem(path, None, f"session {sid} of the index has no messages file in {path.parent.name}/")
            continue
        out.extend(read(found, ctx, "messages"))
    return out


def _candidates(folder: Path, sid: str, root: str | None) -> list[Path]:
    """Where a session's messages file lies, by layout (see the module)."""
    if root is None:
        return [folder / sid / f"{sid}{MESSAGES}"]
    agent = sid[len(root) + 2:]
    return [folder / root / f"{agent}{MESSAGES}", folder / root / agent / f"{sid}{MESSAGES}"]


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    kind = detection if detection is not None else sniff(Head.of_file(path))
    if kind == "manifest":
        return _from_manifest(path, ctx)
    doc = read_object(path, ctx, "a Cline SDK session file")
    if doc is None:
        return []
    if kind == "index":
        return _from_index(path, ctx, doc)
    return [read_messages(path, ctx, doc, compacted=kind == "compaction" or "source_message_count" in doc)]


# -- detection -------------------------------------------------------------------------------------

START = re.compile(rb'(?:\xef\xbb\xbf)?[ \t\r\n]*\{\s*"version"\s*:\s*1\s*,\s*"(updated_at|session_id|sessions)"\s*:\s*')
AFTER_UPDATED = re.compile(rb'"(?:[^"\\]|\\.)*"\s*,\s*"(agent|messages|conversation_id|source_message_count)"\s*:')
AFTER_SESSION = re.compile(rb'"(?:[^"\\]|\\.)*"\s*,\s*"source"\s*:\s*"')
"""The keys the SDK writes first, in its order (``JSON.stringify`` keeps the order of the object built):
a messages file ``version, updated_at`` then ``agent`` (or ``messages`` in the first releases); a
compaction file ``version, updated_at`` then ``conversation_id`` or ``source_message_count``; a manifest
``version, session_id, source``; the index ``version, sessions``. Matched on the head's bytes, so a
file of another format costs one failed match at its first bytes."""


def sniff(found: Head) -> str | None:
    """``"messages"``, ``"compaction"``, ``"manifest"`` or ``"index"`` by the keys a file opens with."""
    opened = START.match(found.data)
    if opened is None:
        return None
    key, at = opened.group(1), opened.end()
    if key == b"sessions":
        return "index" if found.data[at:at + 1] == b"{" else None
    if key == b"session_id":
        return "manifest" if AFTER_SESSION.match(found.data, at, at + 400) else None
    after = AFTER_UPDATED.match(found.data, at, at + 400)
    if after is None:
        return None
    return "compaction" if after.group(1) in (b"conversation_id", b"source_message_count") else "messages"


def owns(path: str) -> bool:
    """The store's own files, and what a session folder holds beside a messages file (its manifest,
    compaction, hook log and transcript log), so a folder load reads each session once. Only a name
    that can be a session's is looked up beside it: a manifest is named by its folder's session (or a
    first-release subagent's ``<root>__<agent>.json``)."""
    name = os.path.basename(path)
    folder = os.path.dirname(path)
    if name in STORE_FILES:
        return name != "sessions.db" or os.path.isfile(os.path.join(folder, "sessions.index.json")) or any(
            os.path.isfile(os.path.join(folder, entry, f"{entry}{MESSAGES}")) for entry in _listing(folder))
    for suffix in (COMPACTION, ".hooks.jsonl", ".log"):
        if name.endswith(suffix):
            stem = name[:-len(suffix)]
            break
    else:
        stem = name[:-len(".json")] if name.endswith(".json") and not name.endswith(MESSAGES) else ""
        if stem != os.path.basename(folder) and "__" not in stem:
            return False
    return bool(stem) and os.path.isfile(os.path.join(folder, stem + MESSAGES))


def _listing(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


# -- subagents -------------------------------------------------------------------------------------


def link_facts(session: Session) -> Spawns | None:
    """A session's ``spawn_agent`` calls (their ``task`` is the subagent's first message) and, for a
    subagent not yet tied to its call, its root session and first message. Team tasks (teammates) are
    started by the team tools, whose calls name no task a teammate opens with: their root is all."""
    child = None
    if session.parent_session_id is not None and session.spawn_call_id is None and "__teamtask__" not in session.id \
            and parent_of(session.id) is not None:
        first = next((m for m in session.path() if m.role == "user"), None)
        child = Spawned(session.parent_session_id, None, unwrapped(first.text) if first is not None else None)
    return spawns_of(session, spawning_calls(session, SPAWN_TOOLS), lambda _: None, session.id, child,
                     prompt_key="task")


# -- where the client keeps sessions ---------------------------------------------------------------


def _descend(parts: Parts) -> bool:
    return len(parts) <= 3


def _wanted(parts: Parts) -> bool:
    return parts[-1].endswith(MESSAGES) and len(parts) >= 2


def layouts(env: Mapping[str, str], home: Path) -> list[Layout]:
    """The sessions folder ``resolveSessionDataDir`` names (see ``CLINE_SESSION_DATA_DIR``)."""
    for name, tail in ((CLINE_SESSION_DATA_DIR, ()), (CLINE_DATA_DIR, ("sessions",)), (CLINE_DIR, ("data", "sessions"))):
        value = setting(env, name)
        if value is not None:
            return [Layout(FORMAT, expand(value, home).joinpath(*tail), name, _descend, _wanted)]
    return [Layout(FORMAT, home / ".cline" / "data" / "sessions", "default", _descend, _wanted)]


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Cline SDK sessions (Cline 4.x, Cline CLI 3.x): <id>.messages.json with its manifest, subagents",
    client="Cline 4.x and Cline CLI 3.x (SDK)",
    layouts=layouts,
    names_only="Cline SDK session files record the system prompt and the tools called, never the tool specs sent",
    owns=owns,
    link=Linker(link_facts, spawn_links),
)
