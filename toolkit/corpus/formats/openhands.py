"""OpenHands event streams: one session per event list.

Read layouts:

- the event list OpenHands (V0, ``openhands/events/serialization``) exports and replays: a JSON
  array of action events ``{id, timestamp, source, message, action, args}`` and observation events
  ``{id, ..., cause, observation, content, extras}``, or such a list under ``trajectory``,
  ``events`` or ``history`` in an object;
- evaluation output (``output.jsonl``): one object per line with ``instance_id`` and a ``history``
  of events (early releases stored ``[action, observation]`` pairs there);
- one event per file (the event store's ``events/<n>.json``, the SDK's ``events/event-<n>-*.json``):
  the directory is read as one session, when its first file is read; the store's ``event_cache/``
  pages repeat those events and are not read again when ``events/`` is beside them;
- events one per JSONL line;
- the software-agent-sdk (V1) events, told apart by their ``kind``: ``SystemPromptEvent``,
  ``MessageEvent``, ``ActionEvent``, ``ObservationEvent``, ``AgentErrorEvent``,
  ``UserRejectObservation``, condensation and state events.

How events become the record:

- user and agent ``message`` actions are text (with their images); the ``system`` action (or
  ``SystemPromptEvent``) is the system message, and its tool specs the run config;
- an action carrying ``tool_call_metadata`` (V1: every ``ActionEvent``) is a tool call: id and name
  from the metadata, arguments from the call with that id in the metadata's ``model_response``
  (the arguments as the model wrote them; the action's ``args`` when the response was not kept).
  Actions from one model response (same response id) form ONE assistant message, whose text and
  reasoning come from the response message (read by the Chat Completions importer), and whose
  usage is the response's usage;
- the observation whose ``tool_call_metadata`` (or ``cause``) names that call is its result; an
  ``error`` or rejected observation, or a command that did not succeed, is an error result;
- ``thought`` is the visible text that came with a call (OpenHands copies the response's content
  into it), so it is text, not reasoning; reasoning is only what the response marks as such
  (``reasoning_content``, ``thinking_blocks``);
- actions an agent wrote as text (before function calling) keep their thought as the assistant's
  text and the action as an event; their observations are the user turns the model was shown;
- a ``finish`` call is the assistant's last text, as OpenHands' ``ConversationMemory`` sends it (the
  thought and the response's content, then the final message), not a call left unanswered; the
  action itself, with every argument, is an ``action:finish`` event on that message;
- state changes, recalls, condensations and other bookkeeping are events; a type this importer
  does not know is kept as an ``other`` event and reported.

Sources: ``ActionType``/``ObservationType`` in openhands/core/schema and ``event_to_dict`` in
openhands/events/serialization/event.py (github.com/All-Hands-AI/OpenHands, 2025), and
openhands-sdk/openhands/sdk/event (github.com/OpenHands/software-agent-sdk, 2025).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import (
    NOT_JSON,
    Head,
    ImportContext,
    Importer,
    iter_json_lines,
    parse_arguments,
    parse_time,
    read_json,
)
from toolkit.corpus.formats.openai_chat import response_to_record
from toolkit.corpus.formats.shapes import as_int, id_text, obj, shown, surface_hash, text_of
from toolkit.jsontext import loads, stringify
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

FORMAT = "openhands"

BOOKKEEPING_ACTIONS = frozenset(
    {
        "start",
        "null",
        "summarize",
        "pause",
        "resume",
        "stop",
        "change_agent_state",
        "push",
        "send_pr",
        "recall",
        "search",
        "condensation",
        "condensation_request",
    }
)
"""Actions that are not something the model said: the runtime's and the UI's own records."""

ACTION_TYPES = BOOKKEEPING_ACTIONS | frozenset(
    {
        "message",
        "system",
        "read",
        "write",
        "edit",
        "run",
        "run_ipython",
        "browse",
        "browse_interactive",
        "mcp",
        "call_tool_mcp",
        "delegate",
        "think",
        "finish",
        "reject",
        "task_tracking",
        "loop_recovery",
        "validation_failure",
        "function_call_not_exists",
    }
)
"""``ActionType`` values (openhands/core/schema/action.py, all releases)."""

OBSERVATION_TYPES = frozenset(
    {
        "read",
        "write",
        "edit",
        "browse",
        "run",
        "run_ipython",
        "chat",
        "delegate",
        "message",
        "error",
        "success",
        "null",
        "think",
        "agent_state_changed",
        "user_rejected",
        "condense",
        "microagent",
        "workspace_context",
        "recall",
        "mcp",
        "download",
        "task_tracking",
        "loop_detection",
    }
)
"""``ObservationType`` values (openhands/core/schema/observation.py, all releases)."""

BOOKKEEPING_OBSERVATIONS = frozenset(
    {
        "null",
        "agent_state_changed",
        "recall",
        "microagent",
        "workspace_context",
        "success",
        "chat",
        "condense",
        "loop_detection",
    }
)

V1_KINDS: dict[str, EventKind] = {
    "Condensation": "compaction",
    "CondensationRequest": "compaction",
    "ConversationStateUpdateEvent": "meta",
    "PauseEvent": "meta",
    "InterruptEvent": "meta",
    "TokenEvent": "token_count",
    "LLMCompletionLogEvent": "meta",
    "HookExecutionEvent": "meta",
    "ACPToolCallEvent": "meta",
    "StreamingDeltaEvent": "progress",
    "ConversationErrorEvent": "error",
    "ConversationIterationLimitEvent": "error",
}
"""software-agent-sdk event kinds that are bookkeeping (openhands-sdk/openhands/sdk/event)."""

V1_MESSAGE_KINDS = frozenset(
    {
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "AgentErrorEvent",
        "UserRejectObservation",
        "CondensationSummaryEvent",
    }
)

IMAGE_EXTRAS = ("screenshot", "image_urls")
"""Observation ``extras`` holding images (browser screenshots, image results)."""

_V0_EVENT = re.compile(r'"(?:action|observation)"\s*:\s*"[a-z_]+"')
_V0_SOURCE = re.compile(r'"source"\s*:\s*"(?:agent|user|environment)"')
_V1_EVENT = re.compile(r'"kind"\s*:\s*"(?:' + "|".join(sorted(V1_MESSAGE_KINDS | set(V1_KINDS))) + r')"')
_EVAL_OUTPUT = re.compile(r'"instance_id"\s*:')
_EVENT_HISTORY = re.compile(
    r'"history"\s*:\s*\[\s*(?:\]|\[?\s*\{\s*"(?:id|kind|timestamp|source|message|action|observation)")'
)
"""An evaluation output's ``history`` whose first entry (or first pair) is an OpenHands event, not
a chat message (``{"role": ...}``)."""
_KEYS = frozenset({"instance_id", "action", "observation", "kind"})
_ANY_KEY = re.compile(r'"(?:instance_id|action|observation|kind)"\s*:')
"""The keys ``_EVAL_OUTPUT``, ``_V0_EVENT`` and ``_V1_EVENT`` start with, one of which every way the
sniff says yes needs: a head without any is no OpenHands file, told in one scan instead of three
(16 us against 30 us for a 20 KB chat file), or from the keys of a whole document."""
_EVENT_FILE = re.compile(r"^(?:\d+|event-\d+-.*)$")
"""How the event stores name one-event files: ``<id>.json`` (V0 ``sessions/<sid>/events/``) and
``event-<n>-<uuid>.json`` (software-agent-sdk ``<conversation>/events/``)."""


def sniff(head: Head) -> bool:
    text = head.text.lstrip()
    if not text.startswith(("[", "{")):
        return False
    keys = head.keys()
    if _KEYS.isdisjoint(keys) if keys is not None else not _ANY_KEY.search(text):
        return False
    if text.startswith("{") and _EVAL_OUTPUT.search(text):
        if _EVENT_HISTORY.search(text):
            return True
        if '"history"' not in text and '"test_result"' in text:
            return True  # the history starts beyond the sniffed bytes of a long evaluation record
    return (bool(_V0_EVENT.search(text)) and bool(_V0_SOURCE.search(text))) or bool(_V1_EVENT.search(text))


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    if path.parent.name == "event_cache" and (path.parent.parent / "events").is_dir():
        return []  # pages of the event store's cache: the same events as ``events/``, read there
    data = path.read_bytes()
    text = data.lstrip()
    if not text:
        ctx.problem(path, 1, "empty file")
        return []
    if text.startswith(b"{") and _is_jsonl(data):
        records = list(iter_json_lines(path, ctx))
        if records and _is_event(records[0][1]):  # an event stream written one event per line
            positions = [(path, number) for number, _ in records]
            return [
                _session([r for _, r in records], path, ctx, ctx.name(path), None, {}, positions=positions)
            ]
        sessions: list[Session] = []
        for number, record in records:
            session = _record(record, path, number, ctx, f"{ctx.name(path)}#{number}")
            if session is not None:
                sessions.append(session)
        return sessions
    value = read_json(path, ctx)
    if value is NOT_JSON:
        return []
    if isinstance(value, list):
        return [_session(value, path, ctx, ctx.name(path), None, {})]
    if not isinstance(value, dict):
        ctx.problem(path, 1, f"expected a list of events or an object, found a JSON {type(value).__name__}")
        return []
    if _is_event(value):
        return _event_directory(path, value, ctx)
    session = _record(value, path, None, ctx, ctx.name(path))
    return [session] if session is not None else []


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="OpenHands event streams (V0 action/observation events, eval output, V1 SDK events)",
)


def _is_jsonl(data: bytes) -> bool:
    """Several JSON objects one per line (evaluation output), not one pretty-printed object."""
    first, _, rest = data.lstrip().partition(b"\n")
    if not rest.strip():
        return False
    try:
        return isinstance(loads(first), dict)
    except ValueError:
        return False


def _is_event(value: dict[str, Any]) -> bool:
    if isinstance(value.get("kind"), str) and ("timestamp" in value or "source" in value):
        return True
    return (
        isinstance(value.get("action"), str) or isinstance(value.get("observation"), str)
    ) and "source" in value


def _record(
    record: dict[str, Any], path: Path, line: int | None, ctx: ImportContext, default_id: str
) -> Session | None:
    """An object holding an event list: evaluation output (``history``) or an export."""
    for key in ("history", "trajectory", "events"):
        events = record.get(key)
        if isinstance(events, list):
            instance = record.get("instance_id")
            ident = id_text(instance)
            if instance is not None and ident is None:
                ctx.problem(path, line, f"instance_id is {shown(instance)}, not text or a number; ignored")
            session_id = f"{ctx.name(path)}#{ident}" if ident is not None else default_id
            rest = {k: v for k, v in record.items() if k != key}
            return _session(
                events,
                path,
                ctx,
                session_id,
                line,
                rest,
                title=ident,
            )
    ctx.problem(path, line, "object holds no event list (history, trajectory or events)")
    return None


def _event_directory(path: Path, first: dict[str, Any], ctx: ImportContext) -> list[Session]:
    """One event per file: the event files of the directory (named as the event stores name them)
    are one session, read with its first file; the others return nothing, so the session is not
    read twice. A lone event file named otherwise is a session of its own."""
    if not _EVENT_FILE.match(path.stem):
        return [_session([first], path, ctx, ctx.name(path), None, {}, positions=[(path, 1)])]
    siblings = sorted(
        (
            p
            for p in path.parent.iterdir()
            if p.suffix == ".json" and _EVENT_FILE.match(p.stem) and p.is_file()
        ),
        key=_event_order,
    )
    if siblings and siblings[0] != path:
        return []
    events: list[Any] = [first]
    files = [path]
    display = Path(ctx.name(path)).parent
    for sibling in siblings[1:]:
        ctx.names.setdefault(str(sibling), str(display / sibling.name))
        value = read_json(sibling, ctx)
        if isinstance(value, dict) and _is_event(value):
            events.append(value)
            files.append(sibling)
        elif value is not NOT_JSON:
            ctx.problem(sibling, 1, "an OpenHands event file that holds no event")
    session_dir = display.parent if path.parent.name == "events" else display
    return [
        _session(
            events,
            path,
            ctx,
            str(session_dir),
            None,
            {},
            title=session_dir.name,
            positions=[(f, 1) for f in files],
        )
    ]


def _event_order(path: Path) -> tuple[int, str]:
    digits = re.findall(r"\d+", path.stem)
    return (int(digits[0]) if digits else 1 << 62, path.name)


# --- the stream ----------------------------------------------------------------------------------


@dataclass
class _Draft:
    id: str
    role: Role
    blocks: list[Block]
    time: datetime | None
    source: SourceRef
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    response: str | None = None
    """The model response this assistant message came from (actions of one response share it)."""
    tags: tuple[str, ...] = ()
    calls: dict[str, ToolUse] = field(default_factory=dict)
    """The tool calls of that response by id, as the model wrote them."""


@dataclass
class _Stream:
    path: Path
    ctx: ImportContext
    file: str
    line: int | None
    positions: list[tuple[Path, int]] | None
    """Where each event sits when events do not share one list: their own files (one event per
    file) or their own lines (one event per JSONL line)."""
    drafts: list[_Draft] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    configs: list[RunConfig] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)
    call_of_event: dict[str, str] = field(default_factory=dict)
    """Event id of an action → the tool call id it made (pairs observations by ``cause``)."""
    answered: set[str] = field(default_factory=set)

    def where(self, index: int) -> tuple[Path | str, int | None]:
        """The file and line of the event at ``index``: its own file or line where it has one,
        the line of the JSONL record holding the list, else its position in the list."""
        if self.positions is not None and index < len(self.positions):
            return self.positions[index]
        if self.line is not None:
            return self.path, self.line
        return self.path, index + 1

    def problem(self, index: int, reason: str) -> None:
        file, line = self.where(index)
        self.ctx.problem(file, line, reason)

    def source(self, index: int) -> SourceRef:
        file, line = self.where(index)
        return SourceRef(self.ctx.name(file), line)

    def add(self, draft: _Draft) -> _Draft:
        taken = {d.id for d in self.drafts}
        base, n = draft.id, 1
        while draft.id in taken:
            n += 1
            draft.id = f"{base}#{n}"
        self.drafts.append(draft)
        return draft

    def said(self, raw: dict[str, Any], index: int, role: Role, blocks: list[Block],
             response: str | None = None) -> _Draft:
        """A message event ``raw`` added as a draft with the event's id, time and place."""
        return self.add(
            _Draft(_event_id(raw, index), role, blocks, parse_time(raw.get("timestamp")), self.source(index),
                   response=response)
        )

    def event(
        self,
        index: int,
        kind: EventKind,
        type_: str,
        raw: dict[str, Any],
        text: str = "",
        message_id: str | None = None,
    ) -> None:
        self.events.append(
            Event(kind, type_, parse_time(raw.get("timestamp")), message_id, text, packed(raw), self.source(index))
        )


def _session(
    events: list[Any],
    path: Path,
    ctx: ImportContext,
    session_id: str,
    line: int | None,
    rest: dict[str, Any],
    title: str | None = None,
    positions: list[tuple[Path, int]] | None = None,
) -> Session:
    stream = _Stream(path, ctx, ctx.name(path), line, positions)
    for index, raw in enumerate(_flatten_pairs(events)):
        if not isinstance(raw, dict):
            stream.problem(index, f"event {index} is a JSON {type(raw).__name__}, not an object")
            continue
        if isinstance(raw.get("action"), str) or isinstance(raw.get("observation"), str):
            _v0(raw, index, stream)
        elif isinstance(raw.get("kind"), str):
            _v1(raw, index, stream)
        else:
            stream.problem(index, "event has neither action, observation nor kind; kept as an event")
            stream.event(index, "other", "unknown", raw, "unrecognised OpenHands event")
    if rest:
        stream.events.append(Event("meta", "record", None, None, "", packed(rest), SourceRef(stream.file, line)))
    messages: list[Message] = []
    for draft in stream.drafts:
        messages.append(
            Message(
                id=draft.id,
                parent_id=messages[-1].id if messages else None,
                role=draft.role,
                blocks=tuple(draft.blocks),
                time=draft.time,
                model=draft.model,
                provider=draft.provider,
                usage=draft.usage,
                source=draft.source,
                tags=draft.tags,
            )
        )
    return Session(
        id=session_id,
        format=FORMAT,
        messages=tuple(messages),
        tip=messages[-1].id if messages else None,
        file=stream.file,
        run_configs=tuple(stream.configs),
        events=tuple(stream.events),
        title=title,
    )


def _flatten_pairs(events: list[Any]) -> list[Any]:
    """Early evaluation output kept ``[action, observation]`` pairs; later releases a flat list."""
    flat: list[Any] = []
    for item in events:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, dict) for x in item):
            flat.extend(item)
        else:
            flat.append(item)
    return flat


def _event_id(raw: dict[str, Any], index: int) -> str:
    return id_text(raw.get("id")) or f"e{index}"


# --- V0 events --------------------------------------------------------------------------------------


def _v0(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    metadata = raw.get("tool_call_metadata")
    action = text_of(raw.get("action"))
    if action is not None:
        if isinstance(metadata, dict):
            _v0_call(raw, metadata, index, stream)
        elif action == "message":
            _v0_message(raw, index, stream)
        elif action == "system":
            _v0_system(raw, index, stream)
        elif action in BOOKKEEPING_ACTIONS:
            _bookkeeping(raw, action, index, stream)
        elif action in ACTION_TYPES:
            _v0_text_action(raw, action, index, stream)
        else:
            stream.problem(index, f"unknown OpenHands action type {shown(action)}; kept as an event")
            stream.event(index, "other", f"action:{action}", raw, stringify(raw.get("message") or ""))
        return
    observation = text_of(raw.get("observation"))
    call_id = metadata.get("tool_call_id") if isinstance(metadata, dict) else None
    if not isinstance(call_id, str):
        call_id = stream.call_of_event.get(id_text(raw.get("cause")) or "")
    paired = isinstance(metadata, dict) or (
        call_id not in stream.answered and observation not in ("null", "agent_state_changed")
    )
    if isinstance(call_id, str) and paired:
        _v0_result(raw, call_id, metadata if isinstance(metadata, dict) else {}, index, stream)
    elif observation == "error":
        stream.event(
            index, "error", "observation:error", raw, stringify(raw.get("content") or raw.get("message"))
        )
    elif observation in BOOKKEEPING_OBSERVATIONS:
        kind: EventKind = "compaction" if observation == "condense" else "meta"
        if observation in ("recall", "microagent", "workspace_context"):
            kind = "attachment"
        stream.event(index, kind, f"observation:{observation}", raw, stringify(raw.get("message") or ""))
    elif observation in OBSERVATION_TYPES:
        _v0_text_observation(raw, index, stream)
    else:
        stream.problem(index, f"unknown OpenHands observation type {shown(observation)}; kept as an event")
        stream.event(index, "other", f"observation:{observation}", raw, stringify(raw.get("message") or ""))


def _args(raw: dict[str, Any]) -> dict[str, Any]:
    args = raw.get("args")
    return args if isinstance(args, dict) else {}


def _v0_call(raw: dict[str, Any], metadata: dict[str, Any], index: int, stream: _Stream) -> None:
    call_id = metadata.get("tool_call_id")
    name = metadata.get("function_name")
    if not isinstance(call_id, str) or not call_id:
        stream.problem(index, "tool_call_metadata without a tool_call_id; the action is kept as an event")
        stream.event(index, "other", f"action:{raw.get('action')}", raw)
        return
    response = metadata.get("model_response")
    response = response if isinstance(response, dict) else {}
    response_id = response.get("id") if isinstance(response.get("id"), str) else None
    draft = stream.drafts[-1] if stream.drafts else None
    if draft is None or draft.role != "assistant" or response_id is None or draft.response != response_id:
        draft = stream.add(_response_draft(response, _event_id(raw, index), index, stream))
        draft.response = response_id
        draft.time = parse_time(raw.get("timestamp"))
        if not draft.blocks:
            thought = _args(raw).get("thought")
            if isinstance(thought, str) and thought:
                draft.blocks.append(Text(thought))
    if raw.get("action") == "finish":
        _finish(raw, draft, index, stream)
        return
    use = draft.calls.get(call_id) or ToolUse(
        call_id, name if isinstance(name, str) else str(raw.get("action")), _args(raw)
    )
    draft.blocks.append(use)
    stream.calls.add(call_id)
    stream.call_of_event[_event_id(raw, index)] = call_id


def _finish(raw: dict[str, Any], draft: _Draft, index: int, stream: _Stream) -> None:
    """A ``finish`` call is what the agent said last, not a call awaiting a result: OpenHands'
    ``ConversationMemory`` sends it as assistant text (the thought, then the response's content)
    and drops the call. Its final message (``final_thought``, the ``message`` argument) is text too
    when nothing said already holds it; the whole action, ``outputs`` included, is an event."""
    final = _args(raw).get("final_thought")
    said = {b.text for b in draft.blocks if isinstance(b, Text)}
    if isinstance(final, str) and final and final not in said:
        draft.blocks.append(Text(final))
    if not draft.blocks:
        draft.blocks.append(Text(""))  # ConversationMemory sends the empty thought: a message, not nothing
    stream.event(index, "meta", "action:finish", raw, stringify(raw.get("message") or ""), draft.id)


def _v0_message(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    args = _args(raw)
    content = args.get("content")
    if not isinstance(content, str):
        content = raw.get("message") if isinstance(raw.get("message"), str) else stringify(content)
    blocks: list[Block] = [Text(content)] if content else []
    blocks.extend(_images(args.get("image_urls"), index, stream))
    files = args.get("file_urls")
    if files:
        blocks.append(Opaque("file_urls", files, "files attached to the message"))
    role: Role = "assistant" if raw.get("source") == "agent" else "user"
    stream.said(raw, index, role, blocks)


def _v0_system(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    args = _args(raw)
    content = args.get("content")
    text = content if isinstance(content, str) else stringify(content)
    draft = stream.said(raw, index, "system", [Text(text)])
    _config(args.get("tools"), text, draft, raw, index, stream)


def _config(tools: Any, system: str, draft: _Draft, raw: dict[str, Any], index: int, stream: _Stream) -> None:
    """A run config from a system prompt and its tools. Specs in a wire shape (Chat Completions'
    ``{"type": "function", "function": {...}}``) are the tools as sent and get a surface hash;
    other tool descriptions only name the tools."""
    specs = tools if isinstance(tools, list) else []
    names = tuple(n for n in (_tool_name(t) for t in specs) if n)
    as_sent = bool(specs) and all(isinstance(t, dict) and t.get("type") == "function" for t in specs)
    stream.configs.append(
        RunConfig(
            system=system,
            tool_names=names,
            surface_hash=surface_hash(specs, lambda reason: stream.problem(index, reason)) if as_sent else None,
            tools=tuple(specs) if as_sent else None,
            message_id=draft.id if stream.configs else None,
            time=parse_time(raw.get("timestamp")),
            source=stream.source(index),
        )
    )


def _tool_name(spec: Any) -> str:
    if not isinstance(spec, dict):
        return ""
    function = spec.get("function")
    name = function.get("name") if isinstance(function, dict) else spec.get("name")
    return name if isinstance(name, str) else ""


def _bookkeeping(raw: dict[str, Any], action: str, index: int, stream: _Stream) -> None:
    args = _args(raw)
    kind: EventKind = "meta"
    text = stringify(raw.get("message") or "")
    if action in ("condensation", "condensation_request"):
        kind = "compaction"
        summary = args.get("summary")
        text = summary if isinstance(summary, str) and summary else text
    elif action == "recall":
        kind = "attachment"
    stream.event(index, kind, f"action:{action}", raw, text)


def _v0_text_action(raw: dict[str, Any], action: str, index: int, stream: _Stream) -> None:
    """An action the agent wrote as text (no function calling): its thought is what the model
    said, the parsed action an event beside it. The same from the user (a command typed in the
    UI) is only an event."""
    thought = _args(raw).get("thought")
    message_id: str | None = None
    if raw.get("source") == "agent" and isinstance(thought, str) and thought:
        draft = stream.said(raw, index, "assistant", [Text(thought)])
        message_id = draft.id
    stream.event(index, "meta", f"action:{action}", raw, stringify(raw.get("message") or ""), message_id)


def _v0_text_observation(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    content = raw.get("content")
    text = content if isinstance(content, str) else stringify(content)
    blocks: list[Block] = [Text(text)] if text else []
    blocks.extend(_extra_images(raw, index, stream))
    if blocks:
        stream.said(raw, index, "user", blocks)
    else:
        stream.event(index, "meta", f"observation:{raw.get('observation')}", raw)


def _v0_result(
    raw: dict[str, Any], call_id: str, metadata: dict[str, Any], index: int, stream: _Stream
) -> None:
    if call_id not in stream.calls:
        stream.problem(index, f"observation answers tool call {call_id}, which no earlier action made")
    elif call_id in stream.answered:
        stream.problem(index, f"second observation for tool call {call_id}")
    stream.answered.add(call_id)
    observation = raw.get("observation")
    content = raw.get("content")
    output = content if isinstance(content, str) else stringify(content)
    extras = raw.get("extras") if isinstance(raw.get("extras"), dict) else {}
    assert isinstance(extras, dict)
    is_error = observation in ("error", "user_rejected") or raw.get("success") is False
    name = metadata.get("function_name")
    images = tuple(b for b in _extra_images(raw, index, stream) if isinstance(b, Image))
    detail = {k: v for k, v in extras.items() if k not in IMAGE_EXTRAS}
    result = ToolResult(
        call_id, output, is_error, images, name if isinstance(name, str) else None, packed(detail or None)
    )
    stream.said(raw, index, "tool", [result])


def _images(urls: Any, index: int, stream: _Stream) -> list[Block]:
    if not isinstance(urls, list):
        return []
    blocks: list[Block] = []
    for url in urls:
        if isinstance(url, str) and url:
            file, line = stream.where(index)
            blocks.append(stream.ctx.image_data_url(url, file, line))
    return blocks


def _extra_images(raw: dict[str, Any], index: int, stream: _Stream) -> list[Block]:
    extras = raw.get("extras")
    if not isinstance(extras, dict):
        return []
    screenshot = extras.get("screenshot")
    urls = [screenshot] if isinstance(screenshot, str) and screenshot else []
    more = extras.get("image_urls")
    if isinstance(more, list):
        urls.extend(u for u in more if isinstance(u, str) and u)
    return _images(urls, index, stream)


# --- the model response inside tool_call_metadata -------------------------------------------------


def _response_draft(response: dict[str, Any], message_id: str, index: int, stream: _Stream) -> _Draft:
    """The assistant message a model response (litellm's ``ModelResponse``, Chat Completions
    shaped) holds: read by the Chat Completions importer, with litellm's Anthropic
    ``thinking_blocks`` (signed) in place of its unsigned ``reasoning_content`` copy of them."""
    choices = response.get("choices")
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = first.get("message") if isinstance(first.get("message"), dict) else {}
    assert isinstance(message, dict)
    model = response.get("model") if isinstance(response.get("model"), str) else None
    provider = _provider(model, message)
    thinking = litellm_thinking(message.get("thinking_blocks"), model)
    if thinking:
        message = {k: v for k, v in message.items() if k != "reasoning_content"}
    file, line = stream.where(index)
    body = {**response, "choices": [{**first, "message": message}]}
    replies = (
        response_to_record(
            body, file=file, ctx=stream.ctx, message_id=message_id, line=line, provider=provider
        )
        if message
        else []
    )
    blocks: list[Block] = list(thinking)
    calls: dict[str, ToolUse] = {}
    for block in replies[0].blocks if replies else ():
        if isinstance(block, ToolUse):
            calls[block.id] = block
        else:
            blocks.append(block)
    return _Draft(
        message_id,
        "assistant",
        blocks,
        None,
        stream.source(index),
        model,
        provider,
        _usage(response.get("usage")),
        calls=calls,
    )


def litellm_thinking(blocks: Any, model: str | None) -> list[Block]:
    """Anthropic thinking blocks as litellm passes them on: ``thinking`` with its signature, or
    ``redacted_thinking`` whose ``data`` is the encrypted thinking."""
    found: list[Block] = []
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "redacted_thinking":
            data = block.get("data")
            found.append(
                Reasoning("", data if isinstance(data, str) else None, "anthropic", model, redacted=True)
            )
        else:
            text = block.get("thinking")
            signature = block.get("signature")
            found.append(
                Reasoning(
                    text if isinstance(text, str) else "",
                    signature if isinstance(signature, str) else None,
                    "anthropic" if signature else None,
                    model,
                )
            )
    return found


def _provider(model: str | None, message: dict[str, Any]) -> str | None:
    """litellm routes are ``provider/model``; a bare model name says no provider, except that
    only Anthropic returns thinking blocks."""
    if model and "/" in model:
        return model.split("/", 1)[0]
    if message.get("thinking_blocks"):
        return "anthropic"
    return None


def _usage(raw: Any) -> Usage | None:
    """litellm usage: ``prompt_tokens`` counts every input token, cached reads
    (``cache_read_input_tokens`` or ``prompt_tokens_details.cached_tokens``) and Anthropic cache
    writes (``cache_creation_input_tokens``) included, so the uncached input is the difference
    (litellm ``Usage`` in litellm/types/utils.py, github.com/BerriAI/litellm, 2025)."""
    if not isinstance(raw, dict):
        return None
    prompt = as_int(raw.get("prompt_tokens"))
    read = as_int(raw.get("cache_read_input_tokens"))
    if read is None:
        read = as_int(obj(raw.get("prompt_tokens_details")).get("cached_tokens"))
    write = as_int(raw.get("cache_creation_input_tokens"))
    fresh = max(prompt - (read or 0) - (write or 0), 0) if prompt is not None else None
    return Usage(fresh, as_int(raw.get("completion_tokens")), read, write)


# --- V1 (software-agent-sdk) events ----------------------------------------------------------------


def _v1(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    kind = raw["kind"]
    time = parse_time(raw.get("timestamp"))
    event_id = _event_id(raw, index)
    if kind == "SystemPromptEvent":
        texts = [_content_text(raw.get("system_prompt")), _content_text(raw.get("dynamic_context"))]
        system = "\n".join(t for t in texts if t)
        draft = stream.add(
            _Draft(event_id, "system", [Text(t) for t in texts if t], time, stream.source(index))
        )
        _config(raw.get("tools"), system, draft, raw, index, stream)
    elif kind == "MessageEvent":
        _v1_message(raw, index, stream)
    elif kind == "ActionEvent":
        _v1_action(raw, index, stream)
    elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
        _v1_result(raw, index, stream)
    elif kind == "CondensationSummaryEvent":
        summary = raw.get("summary")
        stream.add(
            _Draft(
                event_id,
                "user",
                [Text(summary if isinstance(summary, str) else stringify(summary))],
                time,
                stream.source(index),
                tags=("compact_summary",),
            )
        )
    elif kind in V1_KINDS:
        summary = raw.get("summary") if kind == "Condensation" else raw.get("detail") or raw.get("key")
        stream.event(index, V1_KINDS[kind], kind, raw, stringify(summary) if summary is not None else "")
    else:
        stream.problem(index, f"unknown OpenHands event kind {shown(kind)}; kept as an event")
        stream.event(index, "other", kind, raw, "unrecognised OpenHands event")


def _content_text(value: Any) -> str:
    if isinstance(value, dict):
        text = value.get("text")
        return text if isinstance(text, str) else ""
    return value if isinstance(value, str) else ""


def _v1_content(content: Any, index: int, stream: _Stream) -> list[Block]:
    """``TextContent`` and ``ImageContent`` (``image_urls``) of the SDK's messages."""
    if isinstance(content, str):
        return [Text(content)] if content else []
    blocks: list[Block] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("type") == "text":
            blocks.append(Text(_content_text(part)))
        elif isinstance(part, dict) and part.get("type") == "image":
            blocks.extend(_images(part.get("image_urls"), index, stream))
        else:
            stream.problem(index, f"unknown content part {part!r:.80}; kept as opaque")
            blocks.append(
                Opaque(
                    str(part.get("type") if isinstance(part, dict) else "part"),
                    part,
                    "unknown OpenHands content part",
                )
            )
    return blocks


def _v1_reasoning(holder: dict[str, Any]) -> list[Block]:
    """Signed thinking blocks where the model gave them, else its plain ``reasoning_content``
    (litellm fills both from Anthropic thinking, so reading both would count it twice)."""
    blocks = litellm_thinking(holder.get("thinking_blocks"), None)
    reasoning = holder.get("reasoning_content")
    if not blocks and isinstance(reasoning, str) and reasoning:
        blocks.append(Reasoning(reasoning))
    return blocks


def _v1_message(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    message = raw.get("llm_message") if isinstance(raw.get("llm_message"), dict) else {}
    assert isinstance(message, dict)
    role_value = message.get("role")
    role: Role = (
        role_value
        if role_value in ("system", "user", "assistant")
        else ("assistant" if raw.get("source") == "agent" else "user")
    )
    blocks = _v1_reasoning(message) + _v1_content(message.get("content"), index, stream)
    blocks.extend(_v1_content(raw.get("extended_content"), index, stream))
    stream.said(
        raw, index, role, blocks,
        response=raw.get("llm_response_id") if isinstance(raw.get("llm_response_id"), str) else None,
    )


def _v1_action(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    call = raw.get("tool_call") if isinstance(raw.get("tool_call"), dict) else {}
    assert isinstance(call, dict)
    call_id = call.get("id") if isinstance(call.get("id"), str) else raw.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        stream.problem(index, "ActionEvent without a tool call id; kept as an event")
        stream.event(index, "other", "ActionEvent", raw)
        return
    response_id = raw.get("llm_response_id") if isinstance(raw.get("llm_response_id"), str) else None
    draft = stream.drafts[-1] if stream.drafts else None
    if draft is None or draft.role != "assistant" or response_id is None or draft.response != response_id:
        blocks = _v1_reasoning(raw) + _v1_content(raw.get("thought"), index, stream)
        draft = stream.said(raw, index, "assistant", blocks, response=response_id)
    arguments = call.get("arguments")
    value: JsonValue
    raw_input: str | None = None
    if isinstance(arguments, str):
        value, raw_input = parse_arguments(arguments)
        if raw_input is not None:
            stream.problem(index, f"tool call {call_id} arguments are not valid JSON")
    else:
        action = raw.get("action")
        value = arguments if arguments is not None else (action if isinstance(action, dict) else {})
    name = call.get("name") if isinstance(call.get("name"), str) else raw.get("tool_name")
    draft.blocks.append(ToolUse(call_id, name if isinstance(name, str) else "", value, raw_input))
    stream.calls.add(call_id)
    stream.call_of_event[_event_id(raw, index)] = call_id


def _v1_result(raw: dict[str, Any], index: int, stream: _Stream) -> None:
    kind = raw["kind"]
    call_id = raw.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        action_id = raw.get("action_id")
        call_id = stream.call_of_event.get(id_text(action_id) or "")
    if not isinstance(call_id, str):
        stream.problem(index, f"{kind} names no tool call; kept as an event")
        stream.event(index, "error" if kind == "AgentErrorEvent" else "other", kind, raw)
        return
    if call_id not in stream.calls:
        stream.problem(index, f"observation answers tool call {call_id}, which no earlier action made")
    stream.answered.add(call_id)
    images: tuple[Image, ...] = ()
    detail: JsonValue = None
    if kind == "ObservationEvent":
        observation = raw.get("observation") if isinstance(raw.get("observation"), dict) else {}
        assert isinstance(observation, dict)
        blocks = _v1_content(observation.get("content"), index, stream)
        if not blocks and "output" in observation:
            blocks = [Text(stringify(observation.get("output")))]
        blocks.extend(_v1_content(raw.get("extended_content"), index, stream))
        output = "\n".join(b.text for b in blocks if isinstance(b, Text))
        images = tuple(b for b in blocks if isinstance(b, Image))
        is_error = observation.get("is_error") is True or observation.get("error") not in (None, "", False)
        detail = {k: v for k, v in observation.items() if k != "content"} or None
    elif kind == "UserRejectObservation":
        output = f"Action rejected: {stringify(raw.get('rejection_reason') or 'User rejected the action')}"
        is_error = True
    else:
        output = stringify(raw.get("error") or "")
        is_error = True
    name = raw.get("tool_name")
    stream.add(
        _Draft(
            _event_id(raw, index),
            "tool",
            [ToolResult(call_id, output, is_error, images, name if isinstance(name, str) else None, packed(detail))],
            parse_time(raw.get("timestamp")),
            stream.source(index),
        )
    )
