"""Claude Code transcripts: the JSONL files under ``~/.claude/projects`` (1.0.x to 2.1.x), their
subagent side files (``agent-<id>.jsonl``, in ``<session>/subagents/`` since 2.1), and the same
records dumped as one JSON array (Stop hooks copy ``transcript_path`` that way).

How records become the record, and why:

* Sessions. The main records of a file are one session per ``sessionId`` (ids that a resumed file
  joins by parent links count as one, named after the file when it carries one of them).
  ``isSidechain`` records inlined in a pre-2.x file become one session per sidechain root, id
  ``<session>:sidechain-<root uuid>``, linked to the ``Task`` call whose prompt they answer.
  Records that carry an ``agentId`` become ``<sessionId>:agent-<agentId>``, whose parent session is
  the ``sessionId`` they carry even when that file is not loaded; ``link`` names the spawning call,
  the one whose ``toolUseResult.agentId`` names them (agent ids repeat across sessions, so the
  parent session decides between candidates).
* The tree. ``system``, ``attachment``, ``progress`` and unknown records with a uuid are events,
  not messages: a message whose parent is one of them hangs from the nearest message above it, and
  a compact boundary's ``logicalParentUuid`` carries the tree across the compaction, and its
  ``compactMetadata`` (``microcompactMetadata``) gives the event its ``tokens_before`` and ``trigger``.
* One API reply that Claude Code wrote as several records (same ``message.id``, each the child of
  the previous) is one message whose id is the first record's uuid; parallel tool results written as
  separate records (siblings under the reply in 2.x, a chain in 1.x) are one user message, as the
  client sends them to the API. Otherwise a path would hold calls whose answers sit on a side leaf.
* The tip is the newest leaf below the message the last ``last-prompt`` record names, else the newest
  leaf. Newest means last written: the files are append-only logs.
* Bad input. Every problem names file, line and reason and the rest loads: unknown record types
  are ``other`` events and unknown blocks opaque blocks, both with their raw JSON; a repeated uuid
  keeps the first copy (reported only when the copies differ); a parent cycle is cut at its first
  written record; a missing parent stays named on the message, whose path then starts there.
* Lines. JSONL: the line. JSON array: the line where the record's ``{`` opens when every top-level
  record starts its own line (``json.dump(..., indent=N)``), else the record's index + 1.
* Subagent side files. Beside ``agent-<id>.jsonl`` 2.1 writes ``agent-<id>.meta.json``, one flat object
  (``agentType``, and as the run had them ``description``, ``toolUseId``, ``spawnDepth``, ``model``,
  ``name``, ``parentAgentId``, ``worktreePath``...), and a forked skill's run ``agent-<id>.forked-skill.json``
  (``skillName``, ``effort``...). They are part of the subagent's transcript (``owns``), read with it: the
  session's title is the meta's ``description`` (the spawning call's own ``description``, which ``link``
  gives a subagent whose meta is missing), its ``spawn_call_id`` the ``toolUseId``, and each file a
  ``meta`` event first in the session (type ``agent-meta`` with the agent type as its text, or
  ``forked-skill`` with the skill name) holding the file's JSON. The agent type stays out of the
  title, which then reads the same with or without the meta file. Keys from third-party readers of
  real 2.1.x files (daintreehq/daintree#11949, kamp-us/phoenix#8404, ikuwow/dotfiles#303, xingkaixin/
  codesesh#263, read 2026-12-03; the forked-skill file as of 2.1.223); Claude Code's changelog does not
  name the files.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from toolkit.corpus.formats.anthropic_messages import (
    SERVER_CALLS,
    is_server_result,
    server_call_name,
    server_result,
)
from toolkit.corpus.formats.importer import (
    CLIENT_EVENT,
    Head,
    ImportContext,
    Importer,
    Spot,
    client_event,
    collector_paused,
    iter_json_line_spots,
    iter_json_lines,
    iter_json_lines_bytes,
    line_of,
    objects_of,
    parse_arguments,
    parse_time,
    reparse,
)
from toolkit.corpus.formats.layout import claude_code_layouts
from toolkit.corpus.formats.shapes import kind_name, shown, text_of
from toolkit.corpus.linking import Link, Linker
from toolkit.jsontext import stringify
from toolkit.models import name_family, split_route
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

NAME = "claude_code"
AGENT_MARK = ":agent-"
SIDECHAIN_MARK = ":sidechain-"

SESSION_RECORD_TYPES = frozenset({
    "file-history-snapshot", "queue-operation", "last-prompt", "ai-title", "custom-title", "agent-name",
    "agent-setting", "pr-link", "permission-mode", "mode", "bridge-session", "worktree-state", "turn_end",
})
"""Bookkeeping records without a place in the tree, kept as ``meta`` events (names from the
claude-code-viewer zod schemas and the agent-schemas 2.1.144 session schema)."""

NODE_EVENT_TYPES: dict[str, EventKind] = {"system": "meta", "attachment": "attachment", "progress": "progress"}
"""Records that sit in the parentUuid tree but are not messages a model saw."""

SYSTEM_KINDS: dict[str, EventKind] = {
    "compact_boundary": "compaction", "microcompact_boundary": "compaction", "api_error": "error",
}

EVENT_TEXT_KEYS = {
    "summary": "summary", "ai-title": "aiTitle", "custom-title": "customTitle", "last-prompt": "lastPrompt",
    "agent-name": "agentName", "pr-link": "prUrl", "permission-mode": "permissionMode",
    "queue-operation": "content", "system": "content",
}

FLAG_TAGS = (
    ("isMeta", "meta"), ("isCompactSummary", "compact_summary"), ("isVisibleInTranscriptOnly", "transcript_only"),
    ("isApiErrorMessage", "api_error"),
)
"""Record flags kept as message tags: client-injected text, the summary that opens a compacted
context, a line shown to the user but never sent, a client-made API error stub."""
FLAG_KEYS = frozenset(key for key, _ in FLAG_TAGS)

TITLE_TYPES = ("custom-title", "ai-title", "summary", "loose summary")
"""Where a session's title comes from, strongest first: the user's ``/rename``, the client's
generated title, a summary written for a leaf of this session, then one written for a leaf
elsewhere (a 1.x file opens with the summary of the conversation it resumes)."""

KNOWN_OPAQUE_BLOCKS = {
    "document": "a document the client attached, kept raw",
    "tool_reference": "a tool reference returned by tool search",
    "search_result": "a search result block",
    "container_upload": "a file uploaded to the code-execution container",
}
"""Block types the Anthropic wire defines that the record has no kind for: kept as opaque without a
problem. Server tools (``server_tool_use``, ``mcp_tool_use`` and every ``*_tool_result`` block: web
search, code execution, advisor...) are calls and results, read as ``anthropic_messages`` reads them."""

KNOWN_RESULT_PARTS = frozenset({"text", "image", "tool_reference", "search_result", "document"})

SPAWN_TOOLS = frozenset({"Task", "Agent"})
"""The tools that start a subagent (``Task`` until 2.1, ``Agent`` since)."""

AGENT_TRAILER = re.compile(r"agentId: ([0-9A-Za-z_-]+)")
"""The line an Agent result carries since 2.1 (``agentId: a2ed...``) when ``toolUseResult`` lacks it."""

ARRAY_ELEMENT = re.compile(rb"^([ \t]*)\{", re.MULTILINE)


@functools.cache
def provider_of(model: str | None) -> str | None:
    """Who produced a reply: ``anthropic`` unless the model's name (a route is ignored) names
    another family in ``toolkit.models``'s table, as this importer reads it (models served behind
    Claude Code's Anthropic-compatible endpoint setting sign their thinking themselves); ``None``
    for the client's own ``<synthetic>`` stubs."""
    if model is None:
        return "anthropic"
    if model == "<synthetic>":
        return None
    return name_family(split_route(model)[1], reader="claude_code") or "anthropic"


def looks_like_record(value: object) -> bool:
    """A record Claude Code writes, recognised by its type and the keys that type always carries.
    Qwen Code writes records with the same envelope, told apart by what only Qwen's carry (see
    ``qwen_code_record``)."""
    if not isinstance(value, dict):
        return False
    kind = text_of(value.get("type"))
    if kind in ("user", "assistant"):
        message = value.get("message")
        return (isinstance(message, dict) and ("parentUuid" in value or "sessionId" in value)
                and not qwen_code_record(value))
    if kind in NODE_EVENT_TYPES:
        return "parentUuid" in value and "uuid" in value and not qwen_code_record(value)
    if kind == "summary":
        return "leafUuid" in value
    if kind == "file-history-snapshot":
        return "snapshot" in value and "messageId" in value
    return kind in SESSION_RECORD_TYPES and "sessionId" in value


def qwen_code_record(value: dict[str, Any]) -> bool:
    """A Qwen Code chat record (``~/.qwen/projects/<project>/chats/*.jsonl``): Claude Code's
    envelope around a Gemini ``Content`` (``message.parts``, never ``content``, which every Anthropic
    message has), or a ``system`` record with Qwen's ``systemPayload`` (telemetry, slash commands,
    compression), a key no Claude Code record has. Read as Claude Code, such a file loads as a session
    without a tool call and a problem per tool result."""
    message = value.get("message")
    if isinstance(message, dict):
        return "parts" in message and "content" not in message
    return "systemPayload" in value


QWEN_FIRST_LINE = re.compile(r'"message":\{"role":"(?:user|model)","parts":')
"""How a Qwen Code message record's message opens, for a first line longer than the head."""

RECORD_KEYS = frozenset({"parentUuid", "sessionId", "leafUuid", "messageId"})
"""One of which every record ``looks_like_record`` takes carries, beside its ``type``."""

FALLBACK_KEYS = frozenset({"parentUuid", "sessionId"})
"""The keys the sniff's tests of the text need when no line or item decodes to a record (a first line
longer than the head, an array nested deeper than ``json`` decodes)."""


def sniff(head: Head) -> object:
    """Claude Code records as JSONL or as a JSON array, judged from the first records. A file whose
    first line is one of its records is told from that line's bytes, and its detection is then its
    bytes when the head holds them all (so reading does not read it again). A head that is one whole
    JSON document says no at once when none of its objects has the keys every record has and it
    lacks the keys the text tests: every record the lines or items below decode to is one of its
    objects, and the keys the text tests are keys of them (see ``Head.keys``)."""
    if opens_with_record(head):
        return head.data if head.whole else True
    text = head.text.lstrip("\ufeff \t\r\n")
    keys = head.keys() if text.startswith(("[", "{")) else None
    if keys is not None and not keys >= FALLBACK_KEYS and (
            "type" not in keys or RECORD_KEYS.isdisjoint(keys) or not _holds_record_keys(head.document())):
        return False
    if text.startswith("["):
        return _sniff_array(text, head)
    if not text.startswith("{"):
        return False
    decided = head.records_decide(text, 40, 8, looks_like_record)
    if decided is not None:
        return decided
    first = next(head.lines(1, text))
    return '"parentUuid":' in first and '"sessionId":' in first and QWEN_FIRST_LINE.search(first) is None


def _holds_record_keys(document: object) -> bool:
    """Whether one object of the document carries a ``type`` and one of ``RECORD_KEYS``, as every
    record ``looks_like_record`` takes does. Without one, and without ``FALLBACK_KEYS``, no line or
    item of it is a record: a Gemini CLI session has ``sessionId`` at its top and ``type`` in its
    messages, and was read line by line for nothing (25 us for 8 KB)."""
    return any("type" in value and not RECORD_KEYS.isdisjoint(value) for value in objects_of(document))


def opens_with_record(found: Head) -> bool:
    """Whether ``sniff`` takes the file at its first line (a record on a line of its own), told from
    the bytes of that line alone, without decoding the head; ``False`` when unsure. The line is
    the one ``sniff`` reads: what it strips first (byte-order marks, whitespace) is one byte
    sequence each, and UTF-8 decodes the bytes up to a newline as it decodes them in the whole head
    (errors replaced: a newline byte always ends what came before it)."""
    head = found.data
    start = 0
    while True:
        if head.startswith(b"\xef\xbb\xbf", start):
            start += 3
        elif start < len(head) and head[start] in b" \t\r\n":
            start += 1
        else:
            break
    end = head.find(b"\n", start)
    if end < 0 or head[start:start + 1] != b"{":
        return False
    raw = head[start:end]
    try:  # orjson parses clean bytes faster than text that is not ASCII (see ``Head.json``)
        line, data = raw.decode("utf-8"), raw
    except UnicodeDecodeError:
        line, data = raw.decode("utf-8", errors="replace"), None
    text = line.strip()
    if len(text) != len(line.strip(" \t\r\n")):  # stripped of more than JSON's whitespace
        data = None
    return looks_like_record(found.json(text, data))


def _sniff_array(text: str, head: Head) -> bool:
    """The first records of a JSON-array dump, decoded one at a time (a dump longer than the head is
    cut); when an item does not decode, the keys records carry decide. A head that is one whole array
    says no at once when none of its first items is a record and it lacks those keys: each item would
    decode to the same value, and one nested too deep to decode alone would only ask for the keys.
    That parse is the one the recording sniff takes over (decoding the items cost 36 us a 20 KB file)."""
    document = head.document()
    if isinstance(document, list) and not _dump_keys(text) and not any(map(looks_like_record, document[:8])):
        return False
    decoder = json.JSONDecoder()
    at = 1
    for _ in range(8):
        at = _skip_space(text, at)
        if at >= len(text) or text[at] == "]":
            return False
        try:
            value, at = decoder.raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError):
            return _dump_keys(text)
        if looks_like_record(value):
            return True
        at = _skip_space(text, at)
        if at < len(text) and text[at] == ",":
            at += 1
    return False


def _dump_keys(text: str) -> bool:
    return '"parentUuid":' in text and '"sessionId":' in text and '"isSidechain":' in text


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    """The sessions of one file; ``detection`` may be the file's bytes, when detection read them all
    (``formats.sniff``: the file is then not read again). The cyclic garbage collector is paused
    meanwhile: a transcript is hundreds of thousands of freshly parsed dicts that cannot form cycles,
    and rescanning them on every allocation burst doubled the load time of a 200 MB file (a load
    pauses it already; this is for a file read on its own)."""
    with collector_paused():
        sessions = _read(path, ctx, detection if isinstance(detection, bytes) else None)
    if path.name.startswith(AGENT_FILE_PREFIX) and path.name.endswith(".jsonl"):
        return _with_side_files(path, ctx, sessions)
    return sessions


SYNTHETIC = "<synthetic>"
"""The model Claude Code names on the replies it writes itself (API errors, interruptions)."""

AGENT_FILE_PREFIX = "agent-"
SIDE_FILES = (".meta.json", ".forked-skill.json")
"""What follows ``agent-<id>`` in the names of a subagent's side files (see the module's docstring)."""
SIDE_FILE = re.compile(r"(agent-.+)(\.meta|\.forked-skill)\.json")


def owns(path: str) -> bool:
    """A subagent's side file beside its transcript: ``agent-<id>.meta.json`` (or ``.forked-skill.json``)
    next to ``agent-<id>.jsonl``. Asked of every file of a folder load, so a name that cannot be one
    is refused before the file system is asked."""
    name = os.path.basename(path)
    if not name.startswith(AGENT_FILE_PREFIX) or not name.endswith(".json"):
        return False
    found = SIDE_FILE.fullmatch(name)
    return found is not None and os.path.isfile(os.path.join(os.path.dirname(path), found.group(1) + ".jsonl"))


def _with_side_files(path: Path, ctx: ImportContext, sessions: list[Session]) -> list[Session]:
    """The subagent sessions of ``agent-<id>.jsonl`` with what its side files say of them."""
    stem = path.name[:-len(".jsonl")]
    name = ctx.name(path)
    found: list[tuple[str, dict[str, Any]]] = []
    for suffix in SIDE_FILES:
        side = path.with_name(stem + suffix)
        if not side.is_file():
            continue
        side_name = (name[:-len(".jsonl")] if name.endswith(".jsonl") else str(side)) + suffix
        try:
            value = orjson.loads(side.read_bytes())
        except (OSError, orjson.JSONDecodeError) as exc:
            ctx.problem(side_name, None, f"subagent side file cannot be read as JSON ({exc}); left out")
            continue
        if not isinstance(value, dict):
            ctx.problem(side_name, None, f"subagent side file holds a JSON {type(value).__name__}, not an object; "
                                         "left out")
            continue
        found.append((side_name, value))
    if not found:
        return sessions
    agent = stem[len(AGENT_FILE_PREFIX):]
    mine = [i for i, s in enumerate(sessions) if s.id.endswith(AGENT_MARK + agent)] or ([0] if sessions else [])
    for i in mine:
        sessions[i] = _described(sessions[i], found)
    return sessions


def _described(session: Session, found: list[tuple[str, dict[str, Any]]]) -> Session:
    events: list[Event] = []
    title, spawn = session.title, session.spawn_call_id
    for side_name, value in found:
        if side_name.endswith(".meta.json"):
            description, call = text_of(value.get("description")), text_of(value.get("toolUseId"))
            title = title or description
            spawn = spawn or call
            events.append(Event("meta", "agent-meta", None, None, text_of(value.get("agentType")) or "", packed(value),
                                SourceRef(side_name)))
        else:
            events.append(Event("meta", "forked-skill", None, None, text_of(value.get("skillName")) or "", packed(value),
                                SourceRef(side_name)))
    return replace(session, events=(*events, *session.events), title=title, spawn_call_id=spawn)


def _read(path: Path, ctx: ImportContext, data: bytes | None) -> list[Session]:
    """The sessions of the file, whose bytes are ``data`` when detection read them all. JSON Lines
    read from the file are parsed a line at a time, so its bytes are never held beside the records
    parsed from them (a large transcript cost its size once more), and the records of a file over
    ``HELD_WHOLE_BYTES`` are each kept as where they lie until the build comes to them (``Spot``)."""
    opening = data if data is not None else _opening(path)
    start = re.match(rb"\s*", opening)
    first = start.end() if start else 0
    if first >= len(opening):
        ctx.problem(path, None, "empty file: no Claude Code records")
        return []
    reader = _FileReader(path, ctx)
    if opening[first:first + 1] == b"[":
        return reader.build(_held(_array_records(data if data is not None else path.read_bytes(), path, ctx)))
    if data is not None:
        return reader.build(_held(iter_json_lines_bytes(data, path, ctx)))
    if path.stat().st_size <= HELD_WHOLE_BYTES:
        return reader.build(_held(iter_json_lines(path, ctx)))
    with path.open("rb") as again:
        return reader.build(iter_json_line_spots(path, ctx), again)


HELD_WHOLE_BYTES = 16 << 20
"""Files up to this size are built from their records held as parsed. The tree needs every record's
ids before it is built, and a file's parsed records cost about three times its size, so a larger file
is read twice: once for the ids and where each record lies, then each record as it is built, for about
a tenth more time (``benchmarks/bench_import_memory.py``)."""


def _held(records: Iterable[tuple[int, dict[str, Any]]]) -> Iterator[tuple[int, dict[str, Any], None]]:
    """Records read from bytes in memory, held as parsed (there is no file to read them again from)."""
    for line, rec in records:
        yield line, rec, None


def _opening(path: Path) -> bytes:
    """The file's bytes up to its first that is not whitespace (what tells an array dump from JSON
    Lines), read in pieces: a file of blank lines alone is read to its end, nothing more is kept."""
    with path.open("rb") as handle:
        while part := handle.read(1 << 16):
            if part.strip():
                return part
    return b""


def _array_records(data: bytes, path: Path, ctx: ImportContext) -> list[tuple[int, dict[str, Any]]]:
    """The records of a JSON-array dump with their lines; a broken array keeps every record before
    the break (and reports where it broke)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _salvage_array(data, path, ctx)
    if not isinstance(value, list):
        ctx.problem(path, 1, f"file holds a JSON {type(value).__name__}, not an array of records")
        return []
    lines = _element_lines(data, len(value))
    out: list[tuple[int, dict[str, Any]]] = []
    for index, item in enumerate(value):
        line = lines[index] if lines is not None else index + 1
        if isinstance(item, dict):
            out.append((line, item))
        else:
            ctx.problem(path, line, f"record {index + 1} is a JSON {type(item).__name__}, not an object")
    return out


def _element_lines(data: bytes, count: int) -> list[int] | None:
    """The line each top-level element opens on, when each opens a line of its own at the smallest
    indent (nested objects sit deeper); ``None`` when the layout does not allow it."""
    starts = [(m.start(), len(m.group(1))) for m in ARRAY_ELEMENT.finditer(data)]
    if not starts:
        return None
    indent = min(width for _, width in starts)
    tops = [pos for pos, width in starts if width == indent]
    if len(tops) != count:
        return None
    lines: list[int] = []
    line, last = 1, 0
    for pos in tops:
        line += data.count(b"\n", last, pos)
        lines.append(line)
        last = pos
    return lines


def _salvage_array(data: bytes, path: Path, ctx: ImportContext) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        ctx.problem(path, line_of(data, exc.start),
                    f"file is not valid UTF-8 ({exc.reason}); undecodable bytes replaced with U+FFFD")
        text = data.decode("utf-8", errors="replace")
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
        else:
            if isinstance(value, list):
                return _array_records(text.encode("utf-8"), path, ctx)
    decoder = json.JSONDecoder()
    out: list[tuple[int, dict[str, Any]]] = []
    at = _skip_space(text, 0) + 1
    index = 0
    while True:
        at = _skip_space(text, at)
        if at >= len(text):
            ctx.problem(path, line_of(text, at), f"array ends after {index} records without its closing ']'")
            return out
        if text[at] == "]":
            return out
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            ctx.problem(path, line_of(text, at),
                        f"record {index + 1} is not valid JSON ({exc.msg} at line {line_of(text, exc.pos)}); "
                        "the records before it are kept")
            return out
        except RecursionError:
            ctx.problem(path, line_of(text, at),
                        f"record {index + 1} is nested too deep to read; the records before it are kept")
            return out
        index += 1
        line = line_of(text, at)
        if isinstance(value, dict):
            out.append((line, value))
        else:
            ctx.problem(path, line, f"record {index} is a JSON {type(value).__name__}, not an object")
        at = _skip_space(text, end)
        if at < len(text) and text[at] == ",":
            at += 1


_Node = tuple[int, "dict[str, Any] | Spot", str, object, str | None, bool, bool, str | None, object]
"""A record with a uuid, and what every step asks of it, read once (the build made 33 dict lookups a
record before, 25 now): its line, the record (or where it lies, parsed again when built), its uuid,
its raw ``parentUuid``, its session id (``_session_id``), whether it belongs to the main conversation
(neither ``isSidechain`` nor an ``agentId``), whether it is on a side branch (``_is_side``), its
``agentId`` when that is a name, and its raw ``logicalParentUuid`` (``ABSENT`` without one). Once a
node is made a message or an event, its record is let go (``RELEASED``): the rest is what later nodes
ask of it."""

ABSENT = object()
"""A key the record does not have."""

RELEASED: dict[str, Any] = {}
"""What a node holds as its record once the record was made a message or an event: held to the end of
the build, the parsed records of a large file cost about its size again beside the sessions."""


NO_IDS: frozenset[str] = frozenset()


class _Draft:
    """A message while its records are still arriving (merges append to it)."""

    __slots__ = (
        "answers",
        "api_id",
        "blocks",
        "id",
        "line",
        "model",
        "order",
        "provider",
        "raw_parent",
        "results",
        "role",
        "session",
        "sidechain",
        "tags",
        "time",
        "tool_ids",
        "usage",
    )

    def __init__(self, uid: str, raw_parent: str | None, role: Role, blocks: list[Block], line: int,
                 rec: dict[str, Any], order: int, session: _SessionDraft) -> None:
        self.id = uid
        self.raw_parent = raw_parent
        self.role: Role = role
        self.blocks = blocks
        self.time = parse_time(rec.get("timestamp"))
        self.model: str | None = None
        self.provider: str | None = None
        self.usage: Usage | None = None
        """The ``message.usage`` of the reply's last record."""
        self.line = line
        self.sidechain = rec.get("isSidechain") is True
        self.tags: tuple[str, ...] = ()
        self.api_id: str | None = None
        self.tool_ids: AbstractSet[str] = NO_IDS
        """Assistant: the calls it made. Result group: the calls it answers. A draft of neither shares
        one empty set rather than holding a ``set`` of its own (216 bytes, empty)."""
        self.answers: _Draft | None = None
        """Result group: the reply whose calls it answers."""
        self.results: _Draft | None = None
        """Reply: the result group that answers it."""
        self.order = order
        self.session = session


class _EventDraft:
    __slots__ = ("anchor", "kind", "line", "raw_json", "text", "time", "tokens_before", "trigger", "type")

    def __init__(self, kind: EventKind, etype: str, rec: dict[str, Any], anchor: object, text: object,
                 line: int) -> None:
        self.kind: EventKind = kind
        self.type = etype
        self.time = parse_time(rec.get("timestamp"))
        self.anchor = anchor if isinstance(anchor, str) else None
        self.text = text if isinstance(text, str) else ""
        self.raw_json = packed(rec)
        self.line = line
        self.tokens_before: int | None = None
        self.trigger: str | None = None


class _SessionDraft:
    __slots__ = ("drafts", "events", "id", "key", "last_prompt", "parent_session_id", "version")

    def __init__(self, key: tuple[str, str], sid: str, parent_session_id: str | None) -> None:
        self.key = key
        self.id = sid
        self.drafts: list[_Draft] = []
        self.events: list[_EventDraft] = []
        self.parent_session_id = parent_session_id
        self.last_prompt: str | None = None
        self.version: str | None = None
        """The client version of the session's last record that named one."""


class _FileReader:
    """Turns the records of one file into sessions."""

    def __init__(self, path: Path, ctx: ImportContext) -> None:
        self.path = path
        self.ctx = ctx
        self.name = ctx.name(path)
        self.stem = path.stem
        self.nodes: dict[str, _Node] = {}
        """Every record with a uuid (messages and the events that sit in the tree)."""
        self.alias: dict[str, str] = {}
        """Record uuid → the id of the message it became part of."""
        self.through: dict[str, str | None] = {}
        """Uuid of a non-message node → its parent: resolving a parent walks through these."""
        self.drafts: dict[str, _Draft] = {}
        self.sessions: dict[tuple[str, str], _SessionDraft] = {}
        self.main_ids: dict[str | None, str] = {}
        """Session id a main record carries → the id of the session it joins."""
        self.main_sessions: dict[str | None, _SessionDraft] = {}
        self.side_roots: dict[str, str] = {}
        self.looped: set[str] = set()
        self.tool_use_ids: set[str] = set()
        self.results: list[tuple[str, int]] = []
        self.order = 0
        self.changed: set[int] = set()
        """Lines found changed on the second reading (each reported once)."""

    def problem(self, line: int | None, reason: str) -> None:
        self.ctx.problem(self.path, line, reason)

    def build(self, records: Iterable[tuple[int, dict[str, Any], Spot | None]],
              file: BinaryIO | None = None) -> list[Session]:
        """The sessions of ``records``. A record that comes with its spot is kept as the spot and
        parsed again from ``file`` when built; each is let go once it was made a message or an event
        (``RELEASED``)."""
        nodes, loose = self._index(records, file)
        self._join_main_ids(nodes)
        for at, node in enumerate(nodes):
            rec = self._record(node[0], node[1], file)
            if rec is not None:
                self._node(node, rec)
            else:  # not read again (its line changed): what hangs from it hangs from its parent
                self.through[node[2]] = node[3] if isinstance(node[3], str) else None
            nodes[at] = self.nodes[node[2]] = (node[0], RELEASED, *node[2:])
        for line, held in loose:
            rec = self._record(line, held, file)
            if rec is not None:
                self._loose(line, rec)
        sessions = [self._finish(s) for s in self.sessions.values()]
        self._check_results()
        return self._link_sidechains(sessions)

    def _record(self, line: int, held: dict[str, Any] | Spot, file: BinaryIO | None) -> dict[str, Any] | None:
        """A record as parsed, from where it lies when that is what was kept."""
        if isinstance(held, dict):
            return held
        assert file is not None, "a record kept as its spot comes with its file"
        rec = reparse(file, held, line)
        if rec is None and line not in self.changed:
            self.changed.add(line)
            self.problem(line, "the line changed while the file was read (it is read twice: for the tree's "
                               "ids, then for the record); its record is not read")
        return rec

    def _repeats(self, first: _Node, rec: dict[str, Any], spot: Spot | None, file: BinaryIO | None) -> bool:
        """Whether a record is a copy of the first with its uuid: the same bytes, else the same parsed
        record, or the same written out (NaN, which a source may hold, is unequal to itself)."""
        held = first[1]
        if isinstance(held, Spot) and spot is not None and (held.digest, held.length) == (spot.digest, spot.length):
            return True
        kept = self._record(first[0], held, file)
        if kept is None or kept == rec:
            return kept is not None
        try:
            return json.dumps(kept) == json.dumps(rec)
        except (ValueError, TypeError, RecursionError):  # nested too deep to write: taken as different
            return False

    def _index(
        self, records: Iterable[tuple[int, dict[str, Any], Spot | None]], file: BinaryIO | None
    ) -> tuple[list[_Node], list[tuple[int, dict[str, Any] | Spot]]]:
        """Split records into tree nodes (with a uuid) and loose records; drop repeated copies."""
        nodes: list[_Node] = []
        loose: list[tuple[int, dict[str, Any] | Spot]] = []
        seen = self.nodes
        for line, rec, spot in records:
            held = rec if spot is None else spot
            uid = rec.get("uuid")
            if not isinstance(uid, str) or not uid:
                if rec.get("type") in ("user", "assistant"):
                    uid = f"{self.stem}:line-{line}"
                    self.problem(line, f"{rec.get('type')} record without a uuid; named {uid}")
                else:
                    loose.append((line, held))
                    continue
            first = seen.get(uid)
            if first is not None:
                if self._repeats(first, rec, spot, file):
                    self.ctx.account(self.path, line, "repeat", f"line {first[0]}")
                else:
                    self.problem(line, f"duplicate uuid {uid} (first at line {first[0]}) with different "
                                       "content; the first is kept, this copy stays in the raw file only")
                continue
            agent = rec.get("agentId")
            node = (line, held, uid, rec.get("parentUuid"), _session_id(rec),
                    not (rec.get("isSidechain") is True or agent), _is_side(rec),
                    agent if isinstance(agent, str) and agent else None, rec.get("logicalParentUuid", ABSENT))
            seen[uid] = node
            nodes.append(node)
        for line, _, uid, parent, *_ in nodes:
            if parent is not None and not isinstance(parent, str):
                self.problem(line, f"parentUuid of {uid} is {shown(parent)}, not an id; the record is made a root")
            elif parent is not None and parent not in seen:
                self.problem(line, f"parent {parent} of {uid} is not in the file")
        return nodes, loose

    def _join_main_ids(self, nodes: list[_Node]) -> None:
        """Main records whose parents carry another session id (a resumed conversation copied into a
        new file) belong to one session: the file's own id when it is one of them, else the last."""
        classes: dict[str | None, str | None] = {}
        all_nodes = self.nodes
        for _, _, _, parent, sid, main, _, _, logical in nodes:
            if not main:
                continue
            if sid not in classes:
                classes[sid] = sid
            found = all_nodes.get(parent) if isinstance(parent, str) else None
            if found is None:
                if logical is ABSENT:
                    continue
                found = all_nodes.get(_parent_of(parent, logical, all_nodes) or "")
                if found is None:
                    continue
            other = found[4]
            if other == sid or not found[5]:
                continue
            if other not in classes:
                classes[other] = other
            a, b = _find(classes, sid), _find(classes, other)
            if a != b:
                classes[a] = b
        members: dict[str | None, list[str]] = {}
        for sid in classes:
            named = members.setdefault(_find(classes, sid), [])
            if sid is not None:
                named.append(sid)
        for sid in classes:
            named = members[_find(classes, sid)]
            self.main_ids[sid] = self.stem if self.stem in named else (named[-1] if named else self.stem)

    def _session_for(self, node: _Node) -> _SessionDraft:
        sid = node[4]
        if node[5]:
            found = self.main_sessions.get(sid)
            if found is None:
                main = self.main_ids.get(sid) or self.stem
                key = ("main", main)
                found = self.sessions.get(key)
                if found is None:
                    found = self.sessions[key] = _SessionDraft(key, main, None)
                self.main_sessions[sid] = found
            return found
        agent = node[7]
        parent = self.main_ids.get(sid) or sid
        if agent is not None:
            name = f"{parent or self.stem}{AGENT_MARK}{agent}"
            key = ("agent", name)
        else:
            root = self._side_root(node[2])
            parent = parent or self.stem
            name = f"{parent}{SIDECHAIN_MARK}{root}"
            key = ("side", root)
        session = self.sessions.get(key)
        if session is None:
            session = self.sessions[key] = _SessionDraft(key, name, parent)
        return session

    def _side_root(self, uid: str) -> str:
        """The first record of the sidechain ``uid`` belongs to (walking up through sidechain nodes)."""
        chain: list[str] = []
        node = uid
        while node not in self.side_roots:
            chain.append(node)
            parent = self.nodes[node][3]
            up = self.nodes.get(parent) if isinstance(parent, str) else None
            if up is None or not isinstance(parent, str) or not up[6] or parent in chain:
                root = node
                break
            node = parent
        else:
            root = self.side_roots[node]
        for item in chain:
            self.side_roots[item] = root
        return root

    def _node(self, node: _Node, rec: dict[str, Any]) -> None:
        line, uid = node[0], node[2]
        session = self._session_for(node)
        self._client(session, line, rec, uid)
        kind = rec.get("type")
        if kind == "user" or kind == "assistant":
            self._message(node, rec, kind, session)
            return
        parent = _tree_parent(rec, self.nodes)
        self.through[uid] = parent
        session.events.append(self._event(line, rec, kind, parent))

    def _client(self, session: _SessionDraft, line: int, rec: dict[str, Any], uid: str) -> None:
        """A ``client`` event where a record's ``version`` (written on every record) first names one
        and wherever it changes: a session resumed in a newer client carries both."""
        version = text_of(rec.get("version"))
        if not version or version == session.version:
            return
        session.version = version
        kept = client_event(NAME, version, None)
        event = _EventDraft("meta", CLIENT_EVENT, rec, uid, kept.text, line)
        event.raw_json = kept.raw_json
        session.events.append(event)

    def _event(self, line: int, rec: dict[str, Any], kind: object, anchor: object) -> _EventDraft:
        name = kind if isinstance(kind, str) else "?"
        text = rec.get(EVENT_TEXT_KEYS.get(name, ""))
        if name == "system":
            subtype = rec.get("subtype")
            etype = subtype if isinstance(subtype, str) else "system"
            event_kind = SYSTEM_KINDS.get(etype) or ("error" if rec.get("level") == "error" else "meta")
            facts = rec.get("compactMetadata") or rec.get("microcompactMetadata")
            event = _EventDraft(event_kind, etype, rec, anchor, text, line)
            if event_kind == "compaction" and isinstance(facts, dict):
                pre, trigger = facts.get("preTokens"), facts.get("trigger")
                event.text = (f"{event.text or 'Conversation compacted'} (trigger: {stringify(trigger)}, "
                              f"tokens before: {stringify(pre)})")
                event.tokens_before = pre if type(pre) is int else None
                event.trigger = trigger if isinstance(trigger, str) and trigger else None
            return event
        if name in NODE_EVENT_TYPES:
            inner = rec.get("attachment" if name == "attachment" else "data")
            inner_type = inner.get("type") if isinstance(inner, dict) else None
            return _EventDraft(NODE_EVENT_TYPES[name], inner_type if isinstance(inner_type, str) else name,
                               rec, anchor, text, line)
        if name == "summary":
            return _EventDraft("summary", name, rec, anchor, text, line)
        if name in SESSION_RECORD_TYPES:
            if name == "queue-operation" and not isinstance(text, str):
                text = rec.get("operation")
            return _EventDraft("meta", name, rec, anchor, text, line)
        if kind is None:
            self.problem(line, "record has no type; kept as an event of kind 'other'")
        else:
            self.problem(line, f"unknown record type {shown(kind)}; kept as an event of kind 'other'")
        return _EventDraft("other", name, rec, anchor, text, line)

    def _loose(self, line: int, rec: dict[str, Any]) -> None:
        """Records outside the tree go to the session they name, else the one their anchor is in."""
        kind = rec.get("type")
        anchor = rec.get("leafUuid") if kind in ("summary", "last-prompt") else rec.get("messageId")
        session = self._loose_session(rec, anchor)
        event = self._event(line, rec, kind, anchor)
        if kind == "file-history-snapshot" and event.time is None:
            snapshot = rec.get("snapshot")
            if isinstance(snapshot, dict):
                event.time = parse_time(snapshot.get("timestamp"))
        session.events.append(event)
        if kind == "last-prompt" and isinstance(anchor, str):
            session.last_prompt = anchor

    def _loose_session(self, rec: dict[str, Any], anchor: object) -> _SessionDraft:
        main = self.main_ids.get(_session_id(rec))
        if main is not None and ("main", main) in self.sessions:
            return self.sessions[("main", main)]
        node = self.nodes.get(anchor) if isinstance(anchor, str) else None
        if node is not None:
            return self._session_for(node)
        for key, session in self.sessions.items():
            if key[0] == "main":
                return session
        if self.sessions:
            return next(iter(self.sessions.values()))
        sid = _session_id(rec) or self.stem
        key = ("main", sid)
        self.sessions[key] = _SessionDraft(key, sid, None)
        return self.sessions[key]

    def resolve(self, uid: str | None) -> str | None:
        """The message a parent id stands for: itself, the message it was merged into, or the nearest
        message above a chain of non-message nodes. An id the file lacks comes back unchanged."""
        steps = 0
        while uid is not None:
            head = self.alias.get(uid)
            if head is not None:
                return head
            if uid not in self.through:
                return uid
            uid = self.through[uid]
            steps += 1
            if steps > len(self.through) and uid is not None:
                if uid not in self.looped:
                    ring: list[str] = []
                    node: str | None = uid
                    while node is not None and node not in ring:
                        ring.append(node)
                        node = self.through.get(node)
                    self.looped.update(ring)
                    self.problem(self.nodes[uid][0], f"parent cycle through non-message records at {uid}; "
                                                     "the messages below it are made roots")
                return None
        return None

    def _message(self, node: _Node, rec: dict[str, Any], kind: Role, session: _SessionDraft) -> None:
        line, uid, parent = node[0], node[2], node[3]
        body = rec.get("message")
        raw_parent = parent if isinstance(parent, str) else None
        model: str | None = None
        provider: str | None = None
        api_id: str | None = None
        if not isinstance(body, dict):
            self.problem(line, f"{kind} record {uid} has no message object; kept as an opaque block")
            blocks: list[Block] = [Opaque(kind, rec, "record without a message object")]
            body = {}
        else:
            if kind == "assistant":
                found = body.get("model")
                model = found if isinstance(found, str) else None
                provider = provider_of(model)
                reply = body.get("id")
                api_id = reply if isinstance(reply, str) else None
            if body.get("content") is None:
                # a message is its content: one lost (a key renamed, a value nulled) loses it whole
                self.problem(line, f"{kind} record {uid} has a message without content "
                                   f"(keys: {', '.join(map(str, body)) or 'none'}); kept as an opaque block")
                blocks = [Opaque(kind, body, "message without content")]
            else:
                blocks = self._blocks(body.get("content"), rec, line, model, provider)
        only_results = kind == "user" and _all_results(blocks)
        if ((api_id is not None and self._merge_reply(raw_parent, uid, api_id, body, blocks, session))
                or (only_results and not rec.get("isMeta") and self._merge_results(raw_parent, uid, blocks, session))):
            self.ctx.account(self.path, line, "merged", f"message {self.alias[uid]}")
            return
        draft = _Draft(uid, raw_parent, kind, blocks, line, rec, self.order, session)
        self.order += 1
        if kind == "assistant":
            draft.model = model
            draft.provider = provider
            draft.usage = _usage(body.get("usage"))
            draft.api_id = api_id
            draft.tool_ids = {b.id for b in blocks if isinstance(b, ToolUse)}
        draft.tags = tuple(_tags(rec, kind, model, blocks))
        self.drafts[uid] = draft
        self.alias[uid] = uid
        session.drafts.append(draft)
        if rec.get("isApiErrorMessage") is True or (model == SYNTHETIC and (
                rec.get("error") is not None or rec.get("apiErrorStatus") is not None)):
            # the client's own error reply (2.1 records the error and its status beside the flag)
            text = "\n".join(b.text for b in blocks if isinstance(b, Text))
            session.events.append(_EventDraft("error", "api_error", rec, uid, text, line))
        if only_results:
            self._open_results(draft, blocks)

    def _merge_reply(self, raw_parent: str | None, uid: str, api_id: str, body: dict[str, Any],
                     blocks: list[Block], session: _SessionDraft) -> bool:
        """A record that continues the reply its parent belongs to (same API message id)."""
        head = self.drafts.get(self.resolve(raw_parent) or "")
        if head is None or head.session is not session or head.role != "assistant" or head.api_id != api_id:
            return False
        head.blocks.extend(blocks)
        head.tool_ids = {*head.tool_ids, *(b.id for b in blocks if isinstance(b, ToolUse))}
        usage = body.get("usage")
        if usage is not None:
            head.usage = _usage(usage)
        self.alias[uid] = head.id
        return True

    def _merge_results(self, raw_parent: str | None, uid: str, blocks: list[Block], session: _SessionDraft) -> bool:
        """A tool-result record that answers more calls of the reply an earlier result record answers."""
        above = self.drafts.get(self.resolve(raw_parent) or "")
        if above is None or above.session is not session:
            return False
        group = above.results if above.role == "assistant" else above
        if group is None or group.answers is None:
            return False
        ids = {b.tool_use_id for b in blocks if isinstance(b, ToolResult)}
        if not ids <= group.answers.tool_ids or not ids.isdisjoint(group.tool_ids):
            return False
        group.blocks.extend(blocks)
        group.tool_ids = {*group.tool_ids, *ids}
        self.alias[uid] = group.id
        return True

    def _open_results(self, draft: _Draft, blocks: list[Block]) -> None:
        above = self.drafts.get(self.resolve(draft.raw_parent) or "")
        ids = {b.tool_use_id for b in blocks if isinstance(b, ToolResult)}
        if above is not None and above.role == "assistant" and above.results is None and ids <= above.tool_ids:
            draft.answers = above
            draft.tool_ids = ids
            above.results = draft

    def _blocks(self, content: object, rec: dict[str, Any], line: int, model: str | None,
                provider: str | None) -> list[Block]:
        if isinstance(content, str):
            return [Text(content)]
        if content is None:
            return []
        if not isinstance(content, list):
            self.problem(line, f"message content is a JSON {type(content).__name__}, not text or blocks; "
                               "kept as opaque")
            return [Opaque("content", rec.get("message"), "content is neither text nor a list of blocks")]
        out: list[Block] = []
        detail: JsonValue = rec.get("toolUseResult")
        for block in content:
            if not isinstance(block, dict):
                if isinstance(block, str):
                    # the API's content blocks are objects: a bare string is a block lost to text
                    self.problem(line, "content block is text, not a block object; kept as text")
                    out.append(Text(block))
                else:
                    self.problem(line, f"content block is a JSON {type(block).__name__}; kept as opaque")
                    out.append(Opaque("content", block, "block is not an object"))
                continue
            kind = text_of(block.get("type"))
            if kind == "text":
                text = block.get("text")
                out.append(Text(text if isinstance(text, str) else stringify(text)))
            elif kind == "tool_use":
                out.append(self._tool_use(block, line))
            elif kind == "tool_result":
                out.extend(self._tool_result(block, detail, line))
                detail = None
            elif kind == "thinking":
                text = block.get("thinking")
                signature = block.get("signature")
                out.append(Reasoning(text if isinstance(text, str) else stringify(text),
                                     signature if isinstance(signature, str) and signature else None,
                                     provider, model))
            elif kind == "redacted_thinking":
                data = block.get("data")
                out.append(Reasoning("", data if isinstance(data, str) else None, provider, model, redacted=True))
            elif kind == "image":
                out.append(self._image(block, line))
            elif kind in SERVER_CALLS:
                out.append(self._tool_use(block, line, server_call_name(block)))
            elif is_server_result(kind):
                call_id = text_of(block.get("tool_use_id"))
                if call_id is None:
                    self.problem(line, f"{kind} block without a tool_use_id")
                self.results.append((call_id or "", line))
                out.append(server_result(block, call_id or ""))
            elif kind in KNOWN_OPAQUE_BLOCKS:
                out.append(Opaque(kind, block, KNOWN_OPAQUE_BLOCKS[kind]))
            else:
                self.problem(line, f"unknown content block type {shown(block.get('type'))}; kept as opaque")
                out.append(Opaque(kind_name(block.get("type")), block, "unknown block type"))
        return out

    def _tool_use(self, block: dict[str, Any], line: int, tool: object = None) -> ToolUse:
        call_id = block.get("id")
        name = block.get("name") if tool is None else tool
        if not isinstance(call_id, str) or not call_id:
            self.problem(line, f"tool_use block without an id (tool {shown(name)})")
            call_id = ""
        if not isinstance(name, str):
            self.problem(line, f"tool_use {call_id} has no tool name")
            name = ""
        self.tool_use_ids.add(call_id)
        value = block.get("input", {})
        if isinstance(value, dict):
            return ToolUse(call_id, name, value)
        if isinstance(value, str):
            parsed, bad = parse_arguments(value)
            if bad is None and isinstance(parsed, dict):
                return ToolUse(call_id, name, parsed)
        raw = stringify(value)
        self.problem(line, f"tool_use {call_id} ({name}) input is not a JSON object; the raw input is kept")
        return ToolUse(call_id, name, None, raw_input=raw)

    def _tool_result(self, block: dict[str, Any], detail: JsonValue, line: int) -> list[Block]:
        call_id = block.get("tool_use_id")
        if not isinstance(call_id, str):
            self.problem(line, "tool_result block without a tool_use_id")
            call_id = ""
        content = block.get("content")
        images: list[Image] = []
        extra: list[Block] = []
        if isinstance(content, str):
            output = content
        elif isinstance(content, list):
            parts: list[str] = []
            for part in content:
                part_type = text_of(part.get("type")) if isinstance(part, dict) else None
                if part_type == "text" and isinstance(part, dict):
                    text = part.get("text")
                    parts.append(text if isinstance(text, str) else stringify(text))
                elif part_type == "image" and isinstance(part, dict):
                    image = self._image(part, line)
                    if isinstance(image, Image):
                        images.append(image)
                    else:
                        extra.append(image)
                elif isinstance(part, str):
                    parts.append(part)
                else:
                    if part_type not in KNOWN_RESULT_PARTS:
                        self.problem(line, f"tool_result {call_id} holds an unknown part {part_type!r}; "
                                           "kept as JSON text in the output")
                    parts.append(stringify(part))
            output = "\n".join(parts)
        elif content is None:
            output = ""
        else:
            output = stringify(content)
        self.results.append((call_id, line))
        result = ToolResult(call_id, output, block.get("is_error") is True, tuple(images), detail_json=packed(detail))
        return [result, *extra]

    def _image(self, block: dict[str, Any], line: int) -> Image | Opaque:
        source = block.get("source")
        if isinstance(source, dict):
            kind = source.get("type")
            media_type = source.get("media_type")
            media = media_type if isinstance(media_type, str) else None
            data = source.get("data")
            url = source.get("url")
            if kind == "base64" and isinstance(data, str):
                return self.ctx.image_base64(data, media, self.path, line)
            if kind == "url" and isinstance(url, str):
                return self.ctx.image_data_url(url, self.path, line)
        self.problem(line, "image block without a base64 or url source; kept as opaque")
        return Opaque("image", block, "unsupported image source")

    def _finish(self, session: _SessionDraft) -> Session:
        by_id = {d.id: d for d in session.drafts}
        parents: dict[str, str | None] = {}
        for draft in session.drafts:
            parents[draft.id] = self.resolve(draft.raw_parent)
        self._break_cycles(session, by_id, parents)
        name = self.name
        messages = tuple(
            Message(d.id, parents[d.id], d.role, tuple(d.blocks), d.time, d.model, d.provider, d.usage,
                    SourceRef(name, d.line), d.sidechain, d.tags)
            for d in session.drafts
        )
        events = []
        title: dict[str, str] = {}
        for event in sorted(session.events, key=_event_line):
            anchor = self.resolve(event.anchor)
            events.append(Event(event.kind, event.type, event.time, anchor if anchor in by_id else None,
                                event.text, event.raw_json, SourceRef(name, event.line), event.tokens_before,
                                event.trigger))
            if event.type in TITLE_TYPES and event.text:
                loose = event.type == "summary" and anchor not in by_id
                title["loose summary" if loose else event.type] = event.text
        return Session(
            id=session.id,
            format=NAME,
            messages=messages,
            tip=self._tip(session, by_id, parents),
            file=name,
            run_configs=_run_configs(session.drafts, name),
            events=tuple(events),
            parent_session_id=session.parent_session_id,
            title=next((title[t] for t in TITLE_TYPES if t in title), None),
        )

    def _break_cycles(self, session: _SessionDraft, by_id: dict[str, _Draft],
                      parents: dict[str, str | None]) -> None:
        state: dict[str, bool] = {}
        for draft in session.drafts:
            node: str | None = draft.id
            above = parents[draft.id]
            if node in state or above is None or above not in by_id or above in state:
                state[draft.id] = True  # walked, or hangs from a walked node: no cycle to find (0.25 us a draft)
                continue
            walk: list[str] = []
            while node is not None and node in by_id and node not in state:
                state[node] = False
                walk.append(node)
                node = parents[node]
            if node is not None and state.get(node) is False:
                loop = walk[walk.index(node):]
                first = min(loop, key=lambda n: by_id[n].order)
                self.problem(by_id[first].line, "parent cycle " + " -> ".join([*loop, node])
                             + f"; {first} is made a root")
                parents[first] = None
            for item in walk:
                state[item] = True

    def _tip(self, session: _SessionDraft, by_id: dict[str, _Draft], parents: dict[str, str | None]) -> str | None:
        if not session.drafts:
            return None
        children: dict[str, list[str]] = {}
        for draft in session.drafts:
            parent = parents[draft.id]
            if parent is not None:
                children.setdefault(parent, []).append(draft.id)
        start = self.resolve(session.last_prompt) if session.last_prompt else None
        descend = start is not None and start in by_id
        stack = [start] if descend and start is not None else [d.id for d in session.drafts]
        newest: _Draft | None = None
        while stack:
            node = stack.pop()
            below = children.get(node)
            if below:
                if descend:
                    stack.extend(below)
                continue
            draft = by_id[node]
            if newest is None or draft.order > newest.order:
                newest = draft
        return newest.id if newest is not None else session.drafts[-1].id

    def _check_results(self) -> None:
        for call_id, line in self.results:
            if call_id not in self.tool_use_ids:
                self.problem(line, f"tool_result answers tool_use {call_id!r}, which is not in the file; "
                                   "the result is kept")

    def _link_sidechains(self, sessions: list[Session]) -> list[Session]:
        """Point each inlined sidechain at the Task call whose prompt opened it."""
        sides = [i for i, s in enumerate(sessions) if SIDECHAIN_MARK in s.id]
        if not sides:
            return sessions
        calls: dict[tuple[str | None, str], list[str]] = {}
        for session in sessions:
            if SIDECHAIN_MARK in session.id or AGENT_MARK in session.id:
                continue
            for call in spawn_calls(session):
                prompt = call.input.get("prompt") if isinstance(call.input, dict) else None
                if isinstance(prompt, str):
                    calls.setdefault((session.id, prompt.strip()), []).append(call.id)
        for i in sides:
            side = sessions[i]
            root = side.path()[0] if side.tip else None
            if root is None:
                continue
            waiting = calls.get((side.parent_session_id, root.text.strip()))
            if waiting:
                sessions[i] = replace(side, spawn_call_id=waiting.pop(0))
        return sessions


def _event_line(event: _EventDraft) -> int:
    return event.line


def _session_id(rec: dict[str, Any]) -> str | None:
    sid = rec.get("sessionId")
    return sid if isinstance(sid, str) and sid else None


def _find(classes: dict[str | None, str | None], sid: str | None) -> str | None:
    while classes[sid] != sid:
        sid = classes[sid]
    return sid


def _is_side(rec: dict[str, Any]) -> bool:
    agent = rec.get("agentId")
    return rec.get("isSidechain") is True or (isinstance(agent, str) and bool(agent))


def _tree_parent(rec: dict[str, Any], nodes: dict[str, _Node]) -> str | None:
    """A node's parent; a compact boundary (parentUuid null) hangs from its ``logicalParentUuid``
    when that record is in the file."""
    return _parent_of(rec.get("parentUuid"), rec.get("logicalParentUuid"), nodes)


def _parent_of(parent: object, logical: object, nodes: dict[str, _Node]) -> str | None:
    if isinstance(parent, str):
        return parent
    return logical if isinstance(logical, str) and logical in nodes else None


def _usage(value: object) -> Usage | None:
    if not isinstance(value, dict):
        return None
    get = value.get
    fresh, output = get("input_tokens"), get("output_tokens")
    read, write = get("cache_read_input_tokens"), get("cache_creation_input_tokens")
    return Usage(fresh if type(fresh) is int else None, output if type(output) is int else None,
                 read if type(read) is int else None, write if type(write) is int else None)


def _all_results(blocks: list[Block]) -> bool:
    """The blocks are tool results only (and there are some). A loop, not ``all()`` over a generator:
    0.3 us less a user record."""
    for block in blocks:
        if not isinstance(block, ToolResult):
            return False
    return bool(blocks)


def _tags(rec: dict[str, Any], role: Role, model: str | None, blocks: list[Block]) -> list[str]:
    tags = [tag for key, tag in FLAG_TAGS if rec.get(key) is True] if not FLAG_KEYS.isdisjoint(rec) else []
    if model == "<synthetic>":
        tags.append("synthetic")
    if role == "user" and blocks and isinstance(blocks[0], Text) \
            and blocks[0].text.startswith("[Request interrupted by user"):
        tags.append("interrupted")
    return tags


def _run_configs(drafts: list[_Draft], name: str) -> tuple[RunConfig, ...]:
    """One configuration per model in force, starting at the first reply it wrote. Claude Code
    does not record its system prompt or tool specs, so the surface stays unknown."""
    configs: list[RunConfig] = []
    current: str | None = None
    for draft in drafts:
        if draft.role != "assistant" or draft.model is None or draft.model == "<synthetic>":
            continue
        if draft.model != current:
            current = draft.model
            configs.append(RunConfig(model=current, provider=draft.provider, surface_hash=None,
                                     message_id=draft.id, time=draft.time, source=SourceRef(name, draft.line)))
    return tuple(configs)


def spawn_calls(session: Session) -> list[ToolUse]:
    """The calls in ``session`` that start a subagent."""
    out: list[ToolUse] = []
    for message in session.messages:
        if message.role != "assistant":
            continue
        for block in message.blocks:
            if isinstance(block, ToolUse) and (block.name in SPAWN_TOOLS or (
                    isinstance(block.input, dict) and "subagent_type" in block.input)):
                out.append(block)
    return out


@dataclass(frozen=True)
class _LinkFacts:
    """What linking needs of one session: the subagents it spawned and, for a subagent session not
    yet tied to its call, what it opened with."""

    id: str
    parent_session_id: str | None
    title: str | None
    waiting: bool
    """A subagent session whose spawning call is not known yet."""
    opening: str | None
    """The first message on a waiting session's path, stripped."""
    spawns: tuple[tuple[str, str | None, str | None], ...]
    """Each spawning call: its id, prompt (stripped) and description."""
    agents: tuple[tuple[str, str], ...]
    """Each subagent a spawning call's result names, with the call's id."""


def link_facts(session: Session) -> _LinkFacts | None:
    waiting = AGENT_MARK in session.id and session.spawn_call_id is None
    spawns = {call.id: call for call in spawn_calls(session)}
    if not spawns and not waiting:
        return None
    described: list[tuple[str, str | None, str | None]] = []
    for call in spawns.values():
        inputs = call.input if isinstance(call.input, dict) else {}
        prompt, description = inputs.get("prompt"), inputs.get("description")
        described.append((call.id, prompt.strip() if isinstance(prompt, str) else None,
                          description if isinstance(description, str) else None))
    agents = [(agent, block.tool_use_id) for message in session.messages for block in message.blocks
              if isinstance(block, ToolResult) and block.tool_use_id in spawns
              and (agent := _agent_named(block)) is not None]
    opening = session.path()[0].text.strip() if waiting and session.tip is not None else None
    return _LinkFacts(session.id, session.parent_session_id, session.title, waiting, opening,
                      tuple(described), tuple(agents))


def links(facts: Sequence[tuple[int, object]]) -> dict[int, Link]:
    """Tie each subagent session to the session and the call that spawned it: the call whose result
    names its ``agentId`` (``toolUseResult.agentId``, or the ``agentId:`` line of the result text),
    else the spawning call whose prompt opened it."""
    known = [(index, found) for index, found in facts if isinstance(found, _LinkFacts)]
    by_agent: dict[str, list[tuple[str, str]]] = {}
    by_prompt: dict[tuple[str, str], list[str]] = {}
    described: dict[str, str] = {}
    for _, session in known:
        for call_id, prompt, description in session.spawns:
            if prompt is not None:
                by_prompt.setdefault((session.id, prompt), []).append(call_id)
            if description is not None:
                described[call_id] = description
        for agent, call_id in session.agents:
            by_agent.setdefault(agent, []).append((session.id, call_id))
    out: dict[int, Link] = {}
    for index, session in known:
        if not session.waiting:
            continue
        agent = session.id.rpartition(AGENT_MARK)[2]
        found = by_agent.get(agent, [])
        mine = [f for f in found if f[0] == session.parent_session_id] or (found if len(found) == 1 else [])
        parent: str | None = mine[0][0] if mine else session.parent_session_id
        spawn: str | None = mine[0][1] if mine else None
        if spawn is None and session.opening is not None:
            calls = by_prompt.get((parent or "", session.opening))
            if calls:
                spawn = calls[0]
        out[index] = Link(parent, spawn, session.title or described.get(spawn or ""))
    return out


def _agent_named(result: ToolResult) -> str | None:
    detail = result.detail
    if isinstance(detail, dict):
        agent = detail.get("agentId")
        if isinstance(agent, str) and agent:
            return agent
    found = AGENT_TRAILER.search(result.output)
    return found.group(1) if found else None


IMPORTER = Importer(
    name=NAME,
    sniff=sniff,
    read=read,
    link=Linker(link_facts, links),
    owns=owns,
    description="Claude Code session transcripts (JSONL, subagent files, or a JSON-array dump), 1.0.x-2.1.x",
    client="Claude Code",
    layouts=claude_code_layouts,
    names_only="the Claude Code transcript format records tool names only, not the specs sent",
)
