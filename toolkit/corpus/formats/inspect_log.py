"""inspect_ai evaluation logs: ``EvalLog`` JSON files and zipped ``.eval`` logs.

One session per sample and epoch. ``samples[].messages`` is what the model saw, so it becomes the
message chain: system/user/assistant/tool messages, content parts (text, image, reasoning with its
signature, audio/video/document/data and provider-run tool use kept as opaque), tool calls with
``tool_call_id`` pairing and ``error`` on tool messages as the error flag. A tool call inspect
could not parse (``parse_error``) is a problem and its input is kept as text.

The transcript events add what the messages do not hold: each ``ModelEvent`` gives the model, the
usage of the assistant message it produced and, from ``call.request`` (the raw provider request),
the tool specs exactly as sent, which become run configs with a surface hash. Every transcript
event is a record event and no event is made up: a score is its ``ScoreEvent`` (``sample.scores``
only adds the scores no event records), and the sample's other fields ride on its ``sample_init``.

inspect condenses logs: long strings in events and data-URI images in messages are replaced by
``attachment://<hash>`` references into ``sample.attachments`` (earlier logs used ``tc://``); they
are resolved before anything is read. Format reference: inspect_ai ``src/inspect_ai/log/_log.py``,
``_condense.py`` and ``_recorders/eval.py`` (github.com/UKGovernmentBEIS/inspect_ai, read 2025).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import (
    Head,
    ImportContext,
    Importer,
    client_event,
    guess_media_type,
    line_of,
    parse_arguments,
    parse_time,
)
from toolkit.corpus.formats.shapes import (
    as_int,
    id_text,
    kind_name,
    read_object,
    role_event,
    shown,
    surface_hash,
    text_of,
)
from toolkit.corpus.formats.wirekit import unread_keys, unread_message
from toolkit.inflating import ArchiveInflated, Budget, Inflated, zip_member
from toolkit.jsontext import json_text, loads, stringify
from toolkit.record import (
    ROLES,
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

ZIP_MAGIC = "PK\x03\x04"
HEADER_MEMBERS = ("header.json", "_journal/start.json", "start.json")
"""Where an ``.eval`` keeps the log header: ``header.json`` once the run finished,
``_journal/start.json`` while it runs, ``start.json`` in the first ``.eval`` releases."""

ATTACHMENT_PREFIXES = ("attachment://", "tc://")
REMOVED_IMAGE = "<base64-data-removed>"
"""What inspect writes in place of an image when the log was written with ``log_images=False``."""

EVENT_KINDS: dict[str, EventKind] = {
    "model": "token_count",
    "score": "meta",
    "score_edit": "meta",
    "sample_init": "meta",
    "sample_limit": "error",
    "error": "error",
    "compaction": "compaction",
    "info": "meta",
    "approval": "meta",
    "input": "meta",
    "logger": "other",
    "tool": "progress",
    "sandbox": "progress",
    "state": "progress",
    "store": "progress",
    "step": "progress",
    "subtask": "progress",
    "span_begin": "progress",
    "span_end": "progress",
}
"""Every transcript event type inspect writes (``src/inspect_ai/event/``), by record event kind."""

HEAVY_EVENT_KEYS = frozenset({"input", "input_refs", "call", "events"})
"""Left out of an event's raw copy: a ``ModelEvent``'s input repeats the sample's messages and its
``call`` the same messages in the provider's shape; nested ``events`` are kept as events of their own."""

MESSAGE_KEYS = frozenset({
    "id", "content", "source", "metadata", "role", "internal", "tool_call_id", "tool_calls", "model", "function",
    "error", "tool_error", "reasoning",
})
"""The fields of ``ChatMessage``'s variants (``src/inspect_ai/model/_chat_message.py``) and the two
older ones it still migrates (``reasoning``, ``tool_error``)."""

SAMPLE_KEYS = frozenset({
    "id", "epoch", "input", "choices", "target", "sandbox", "files", "setup", "messages", "output", "scores",
    "metadata", "store", "events", "timelines", "model_usage", "role_usage", "started_at", "completed_at",
    "total_time", "working_time", "uuid", "invalidation", "error", "error_retries", "attachments", "events_data",
    "limit", "message_pool", "call_pool",
})
"""The fields of ``EvalSample`` (``src/inspect_ai/log/_log.py``) and the older condensed pools. A
sample without ``messages`` (inspect's default is an empty list) that holds another key has its
conversation under a name inspect does not write."""

_JSON_LOG = re.compile(r'^\s*\{[^{}]*?"version"\s*:\s*\d+', re.S)
_EVAL_KEY = re.compile(r'"eval"\s*:\s*\{\s*"(?:eval_id|run_id|created|task)"')
_ARGS_IN_PARSE_ERROR = re.compile(
    r"^Error parsing the following tool call arguments:\n\n(.*)\n\nError details: ", re.S
)
"""inspect's ``tool_parse_error_message`` template, which is the only place the unparsed
arguments survive (``src/inspect_ai/model/_call_tools.py``)."""


def sniff(found: Head) -> bool:
    """A ZIP with an inspect log header and inspect's layout (or, when the archive is too broken
    to list, those member names in its first local headers); a JSON object opening with
    ``version`` and an ``eval`` spec."""
    if found.data.startswith(ZIP_MAGIC.encode("latin-1")):
        head = found.text
        return _zip_header(found.path) is not None or any(m in head for m in (*HEADER_MEMBERS, "samples/"))
    return bool(_JSON_LOG.match(found.text)) and bool(_EVAL_KEY.search(found.text))


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic == ZIP_MAGIC.encode("latin-1"):
        return _read_eval_zip(path, ctx)
    log = read_object(path, ctx, "an inspect log")
    if log is None:
        return []
    samples = log.get("samples") or []
    if not isinstance(samples, list):
        ctx.problem(path, None, "'samples' is not a list")
        return []
    where = _Where(path, ctx.name(path), path.read_bytes())
    sessions: list[Session] = []
    for index, sample in enumerate(samples):
        if not isinstance(sample, dict):
            ctx.problem(path, None, f"samples[{index}] is a JSON {type(sample).__name__}, not an object")
            continue
        sessions.append(_session(sample, log, where, ctx))
    return sessions


IMPORTER = Importer(
    name="inspect",
    sniff=sniff,
    read=read,
    description="inspect_ai evaluation logs (.json EvalLog and zipped .eval), one session per sample/epoch",
)


_ID_FIELD = re.compile(rb'"id"\s*:\s*"((?:[^"\\]|\\.)*)"')


@dataclass
class _Where:
    """Where a sample sits, so problems and sources name the file (and the zip member) and, where
    the message carries an id, the line it is on."""

    path: Path
    name: str
    data: bytes = b""
    member: str | None = None
    _lines: dict[str, int] | None = None

    @property
    def file(self) -> str:
        return self.name if self.member is None else f"{self.name}:{self.member}"

    def line(self, message_id: object) -> int | None:
        """The line of the first ``"id": "<message_id>"`` in the file, from one pass over it."""
        if not isinstance(message_id, str) or not self.data:
            return None
        if self._lines is None:
            self._lines = {}
            line, at = 1, 0
            for found in _ID_FIELD.finditer(self.data):
                line += self.data.count(b"\n", at, found.start())
                at = found.start()
                self._lines.setdefault(found.group(1).decode("utf-8", "replace"), line)
        return self._lines.get(message_id)


def _problem(ctx: ImportContext, where: _Where, line: int | None, reason: str) -> None:
    if where.member is None:
        ctx.problem(where.path, line, reason)
    else:
        ctx.problem(where.file, line, reason)


# --- the .eval zip ------------------------------------------------------------------------------


def _zip_header(path: Path) -> str | None:
    """The header member of an archive laid out as an inspect log, else ``None``."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    layout = any(
        n.startswith(("samples/", "_journal/")) or n in ("summaries.json", "results.json") for n in names
    )
    return next((m for m in HEADER_MEMBERS if m in names), None) if layout else None


def _read_eval_zip(path: Path, ctx: ImportContext) -> list[Session]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        ctx.problem(path, None, f"not a readable .eval ZIP archive: {exc}")
        return []
    loaded: list[tuple[tuple[int, str], Session]] = []
    with archive:
        budget = Budget.of(archive)
        names = archive.namelist()
        header_name = next((m for m in HEADER_MEMBERS if m in names), None)
        header: dict[str, Any] = {}
        samples = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
        reached = 0
        try:
            if header_name is None:
                ctx.problem(path, None, "no header.json or _journal/start.json in the .eval archive")
            else:
                value, _ = _member_json(archive, header_name, path, ctx, budget)
                if isinstance(value, dict):
                    header = value
                elif value is not None:
                    ctx.problem(f"{ctx.name(path)}:{header_name}", 1, "the log header is not a JSON object")
            for member in samples:
                _read_sample(archive, member, path, ctx, budget, header, loaded)
                reached += 1
        except ArchiveInflated as exc:
            ctx.problem(path, None, f"{exc} (a zip bomb, or a log too large to read): the "
                                    f"{len(samples) - reached} sample member(s) from there on are left out, "
                                    f"the {len(loaded)} sample(s) read before are kept")
    loaded.sort(key=lambda item: item[0])
    return [session for _, session in loaded]


def _read_sample(archive: zipfile.ZipFile, member: str, path: Path, ctx: ImportContext, budget: Budget,
                 header: dict[str, Any], loaded: list[tuple[tuple[int, str], Session]]) -> None:
    """One sample member read into ``loaded`` (nothing, and a problem, when it cannot be)."""
    value, data = _member_json(archive, member, path, ctx, budget)
    if value is None:
        return
    where = _Where(path, ctx.name(path), data, member)
    if not isinstance(value, dict):
        _problem(ctx, where, 1, f"sample is a JSON {type(value).__name__}, not an object")
        return
    loaded.append((_sample_order(value), _session(value, header, where, ctx)))


def _member_json(archive: zipfile.ZipFile, member: str, path: Path, ctx: ImportContext,
                 budget: Budget) -> tuple[Any, bytes]:
    """A member's parsed JSON and its bytes (``None`` and a problem when it cannot be read).

    Raises:
        ArchiveInflated: the archive's members, this one with those read before, inflate past the
            archive's bound; the caller reads no more of it."""
    where = f"{ctx.name(path)}:{member}"
    try:
        data = zip_member(archive, member, budget)
    except ArchiveInflated:
        raise
    except Inflated as exc:
        ctx.problem(where, None, f"{exc} (a zip bomb, or a sample too large to read); left out")
        return None, b""
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        ctx.problem(where, None, f"member cannot be read from the archive: {exc}")
        return None, b""
    except NotImplementedError as exc:
        ctx.problem(where, None, f"member uses a compression this Python cannot read: {exc}")
        return None, b""
    try:
        return loads(data), data
    except ValueError as exc:
        if not data.strip():
            ctx.problem(where, 1, "member is empty")
        else:
            ctx.problem(where, _error_line(data, exc), f"member is not valid JSON: {exc}")
        return None, b""


def _error_line(data: bytes, exc: ValueError) -> int | None:
    pos = getattr(exc, "pos", None)
    return line_of(data, pos) if isinstance(pos, int) else None


def _sample_order(sample: dict[str, Any]) -> tuple[int, str]:
    epoch = sample.get("epoch")
    sample_id = sample.get("id")
    key = f"{sample_id:>20}" if isinstance(sample_id, int) else kind_name(sample_id)
    return (epoch if isinstance(epoch, int) else 0, key)


# --- one sample -------------------------------------------------------------------------------


@dataclass
class _Sample:
    """The state of reading one sample."""

    where: _Where
    ctx: ImportContext
    session_id: str
    default_model: str | None
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    used_ids: set[str] = field(default_factory=set)
    produced: dict[int, str] = field(default_factory=dict)
    """``id()`` of a ``ModelEvent`` → the assistant message its output became."""

    def problem(self, line: int | None, reason: str) -> None:
        _problem(self.ctx, self.where, line, reason)

    def source(self, line: int | None = None) -> SourceRef:
        return SourceRef(self.where.file, line)


def _session(sample: dict[str, Any], log: dict[str, Any], where: _Where, ctx: ImportContext) -> Session:
    attachments = sample.get("attachments")
    missing: list[str] = []
    if isinstance(attachments, dict) and attachments:
        try:
            sample = _resolve(sample, attachments, missing)
        except RecursionError:
            _problem(ctx, where, None, f"sample {shown(sample.get('id'))} is nested too deep to resolve its "
                                       "attachments; read with the references left in place")
    spec = log.get("eval") if isinstance(log.get("eval"), dict) else {}
    assert isinstance(spec, dict)
    raw_id, raw_epoch = sample.get("id"), sample.get("epoch", 1)
    sample_id, epoch = id_text(raw_id) or "?", id_text(raw_epoch) or "?"
    base = text_of(spec.get("eval_id")) or text_of(spec.get("run_id")) or where.name
    session_id = text_of(sample.get("uuid")) or f"{base}:{sample_id}:epoch{epoch}"
    model = spec.get("model") if isinstance(spec.get("model"), str) else None
    state = _Sample(where, ctx, session_id, model)
    label = f"sample {shown(raw_id)} epoch {shown(raw_epoch)}"
    if "?" in (sample_id, epoch):
        state.problem(None, f"{label}: the sample's id or epoch is not text or a number; named {session_id}")
    if missing:
        state.problem(
            None,
            f"{label}: {len(missing)} attachment reference(s) not in the sample's "
            f"attachments (first: {missing[0]})",
        )

    raw_messages = sample.get("messages")
    odd = unread_keys(sample, "messages", SAMPLE_KEYS)
    if odd:
        state.problem(None, f"{label}: no messages (keys inspect does not write: {', '.join(odd)}); "
                            "they are kept on the sample's fields")
    if raw_messages is None and "messages" in sample:  # inspect writes a list, empty by default
        state.problem(None, f"{label}: 'messages' is null, not a list")
    elif raw_messages is not None and not isinstance(raw_messages, list):
        state.problem(None, f"{label}: 'messages' is not a list")
    if not isinstance(raw_messages, list):
        raw_messages = []
    model_events = [e for e in _walk_events(sample.get("events"), state, label) if e.get("event") == "model"]
    outputs = _outputs_by_key(model_events)
    for index, raw in enumerate(raw_messages):
        _message(raw, index, label, outputs, state)

    if sample.get("events") is None and raw_messages:
        # inspect writes a sample's transcript of events beside its messages (``EvalSample.events``)
        state.problem(None, f"{label}: no events beside the messages")
    for raw_event in _walk_events(sample.get("events"), state, label, report=True):
        state.events.append(_event(raw_event, label, state))
    _sample_fields(sample, label, state)
    packages = spec.get("packages")
    version = text_of(packages.get("inspect_ai")) if isinstance(packages, dict) else None
    if version:  # the eval's ``packages``: the inspect_ai release that ran it
        state.events.insert(0, client_event("inspect_ai", version, state.source(), parse_time(spec.get("created"))))
    run_configs = _run_configs(model_events, state)
    task = text_of(spec.get("task"))
    return Session(
        id=session_id,
        format="inspect",
        messages=tuple(state.messages),
        tip=state.messages[-1].id if state.messages else None,
        file=where.file,
        run_configs=tuple(run_configs),
        events=tuple(state.events),
        title=f"{task} sample {sample_id} epoch {epoch}" if task else f"sample {sample_id} epoch {epoch}",
    )


def _resolve(value: Any, attachments: dict[str, Any], missing: list[str]) -> Any:
    """Every ``attachment://`` (or legacy ``tc://``) string replaced by the attachment it names."""
    if isinstance(value, str):
        for prefix in ATTACHMENT_PREFIXES:
            if value.startswith(prefix):
                key = value[len(prefix) :]
                if key in attachments:
                    return attachments[key]
                missing.append(value)
                return value
        return value
    if isinstance(value, list):
        return [_resolve(item, attachments, missing) for item in value]
    if isinstance(value, dict):
        return {k: (v if k == "attachments" else _resolve(v, attachments, missing)) for k, v in value.items()}
    return value


def _walk_events(events: Any, state: _Sample, label: str, report: bool = False) -> Iterator[dict[str, Any]]:
    """The transcript events in order, nested ``events`` (subtask and tool events of older logs)
    right after their parent."""
    if events is None:
        return
    if not isinstance(events, list):
        if report:
            state.problem(None, f"{label}: 'events' is not a list")
        return
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            if report:
                state.problem(None, f"{label}: events[{index}] is not an object")
            continue
        yield event
        yield from _walk_events(event.get("events"), state, label, report)


# --- messages ----------------------------------------------------------------------------------


def _message(
    raw: Any, index: int, label: str, outputs: dict[str, list[dict[str, Any]]], state: _Sample
) -> None:
    where = f"{label}, messages[{index}]"
    if not isinstance(raw, dict):
        state.problem(None, f"{where}: a message is a JSON object, found {type(raw).__name__}")
        return
    line = state.where.line(raw.get("id"))
    role = raw.get("role")
    if role not in ROLES:
        state.problem(line, f"{where}: unknown message role {shown(role)}, kept as an event")
        state.events.append(
            role_event("message", role, raw, state.source(line), f"message with unknown role {shown(role)}")
        )
        return
    message_id = _unique_id(raw.get("id"), index, state)
    blocks: list[Block] = []
    images: list[Image] = []
    texts: list[str] = []
    model = raw.get("model") if isinstance(raw.get("model"), str) else None
    blocks += unread_message(raw, "content", MESSAGE_KEYS, state, line, "message")
    for part in _parts(raw.get("content"), where, line, state):
        block = _part(part, where, line, state, model)
        if role == "tool" and isinstance(block, Text):
            texts.append(block.text)
        elif role == "tool" and isinstance(block, Image):
            images.append(block)
        else:
            blocks.append(block)
    usage: Usage | None = None
    provider: str | None = None
    if role == "assistant":
        event = _match_output(raw, outputs, state)
        route = state.default_model
        if event is not None:
            state.produced.setdefault(id(event), message_id)
            output = event.get("output") if isinstance(event.get("output"), dict) else {}
            assert isinstance(output, dict)
            usage = _usage(output.get("usage"))
            route = event["model"] if isinstance(event.get("model"), str) else route
            model = model or (output["model"] if isinstance(output.get("model"), str) else None) or route
        provider = _provider(route)
        model = model or state.default_model
        blocks.extend(_tool_calls(raw.get("tool_calls"), where, line, state))
        blocks = [_sign(b, provider, model) for b in blocks]
    if role == "tool":
        blocks.insert(0, _tool_result(raw, "\n".join(texts), tuple(images), where, line, state))
    state.messages.append(
        Message(
            id=message_id,
            parent_id=state.messages[-1].id if state.messages else None,
            role=_role(role),
            blocks=tuple(blocks),
            model=model if role == "assistant" else None,
            provider=provider,
            usage=usage,
            source=state.source(line),
        )
    )


def _role(role: str) -> Role:
    match role:
        case "system" | "user" | "assistant" | "tool":
            return role
    raise ValueError(role)  # cannot happen: the one caller kept only roles in ROLES


def _unique_id(raw_id: Any, index: int, state: _Sample) -> str:
    base = raw_id if isinstance(raw_id, str) and raw_id else f"{state.session_id}:m{index}"
    candidate = base
    n = 1
    while candidate in state.used_ids:
        n += 1
        candidate = f"{base}#{n}"
    state.used_ids.add(candidate)
    return candidate


def _parts(content: Any, where: str, line: int | None, state: _Sample) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        parts: list[dict[str, Any]] = []
        for index, part in enumerate(content):
            if isinstance(part, dict):
                parts.append(part)
            elif isinstance(part, str):
                parts.append({"type": "text", "text": part})
            else:
                state.problem(line, f"{where}: content[{index}] is a JSON {type(part).__name__}")
                parts.append({"type": "?", "value": part})
        return parts
    state.problem(line, f"{where}: content is a JSON {type(content).__name__}, not text or a list")
    return [{"type": "?", "value": content}]


def _part(part: dict[str, Any], where: str, line: int | None, state: _Sample, model: str | None) -> Block:
    kind = part.get("type")
    match kind:
        case "text":
            text = part.get("text")
            return Text(text if isinstance(text, str) else stringify(text))
        case "reasoning":
            return _reasoning(part, model)
        case "image":
            return _image(part.get("image"), where, line, state)
        case "audio" | "video" | "document" | "data":
            return Opaque(kind_name(kind), part, f"inspect {kind} content has no record kind")
        case "tool_use":
            return Opaque("tool_use", part, "a tool the provider ran itself (server-side), with its result")
    state.problem(line, f"{where}: unknown content type {shown(kind)}, kept as opaque")
    return Opaque(kind_name(kind), part, "unknown inspect content type")


def _reasoning(part: dict[str, Any], model: str | None) -> Reasoning:
    text = part.get("reasoning")
    text = text if isinstance(text, str) else ""
    signature = part.get("signature") if isinstance(part.get("signature"), str) else None
    redacted = part.get("redacted") is True
    if redacted:
        summary = part.get("summary")
        if signature is None:
            signature = text or None
        text = summary if isinstance(summary, str) else ""
    return Reasoning(text=text, signature=signature, model=model, redacted=redacted)


def _sign(block: Block, provider: str | None, model: str | None) -> Block:
    """Reasoning records who signed it: the provider and model of the message that carries it."""
    if isinstance(block, Reasoning):
        return replace(block, provider=block.provider or provider, model=block.model or model)
    return block


def _image(value: Any, where: str, line: int | None, state: _Sample) -> Image | Opaque:
    if not isinstance(value, str) or not value:
        state.problem(line, f"{where}: image content without an image")
        return Opaque("image", value, "image content without an image")
    if value == REMOVED_IMAGE:
        return Image(media_type="image/*", sha256=None)
    if value.startswith("data:"):
        return state.ctx.image_data_url(value, state.where.file, line)
    return Image(media_type=guess_media_type(value), sha256=None, url=value)


def _tool_calls(calls: Any, where: str, line: int | None, state: _Sample) -> list[Block]:
    if calls is None:
        return []
    if not isinstance(calls, list):
        state.problem(line, f"{where}: tool_calls is not a list")
        return [Opaque("tool_calls", calls, "tool_calls is not a list")]
    blocks: list[Block] = []
    for index, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("id"), str):
            state.problem(line, f"{where}: tool_calls[{index}] has no id")
            blocks.append(Opaque("tool_call", call, "tool call without an id"))
            continue
        call_id = call["id"]
        function = call.get("function")
        name = (
            function
            if isinstance(function, str)
            else (function.get("name") if isinstance(function, dict) else None)
        )
        arguments = call.get("arguments")
        if isinstance(function, dict) and arguments is None:
            arguments = function.get("arguments")
        value: JsonValue
        raw_input: str | None = None
        if isinstance(arguments, str):
            value, raw_input = parse_arguments(arguments)
        else:
            value = arguments if arguments is not None else {}
        parse_error = call.get("parse_error")
        if isinstance(parse_error, str) and parse_error:
            found = _ARGS_IN_PARSE_ERROR.match(parse_error)
            raw_input = found.group(1) if found else (raw_input or json_text(value))
            value = None
            state.problem(
                line,
                f"{where}: tool call {call_id} arguments did not parse: "
                f"{parse_error.strip().splitlines()[-1]}",
            )
        elif raw_input is not None:
            state.problem(line, f"{where}: tool call {call_id} arguments are not valid JSON")
        state.call_ids.add(call_id)
        blocks.append(
            ToolUse(
                id=call_id,
                name=name if isinstance(name, str) else "",
                input=value,
                raw_input=raw_input,
                freeform=call.get("type") == "custom",
            )
        )
    return blocks


def _tool_result(
    raw: dict[str, Any], output: str, images: tuple[Image, ...], where: str, line: int | None, state: _Sample
) -> ToolResult:
    call_id = raw.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        state.problem(line, f"{where}: tool message without a tool_call_id")
        call_id = ""
    elif call_id not in state.call_ids:
        state.problem(line, f"{where}: tool result for call {call_id}, which no earlier message made")
    error = raw.get("error")
    if isinstance(error, dict) and not output:
        message = error.get("message")
        output = message if isinstance(message, str) else stringify(error)
    function = raw.get("function")
    return ToolResult(
        tool_use_id=call_id,
        output=output,
        is_error=error is not None,
        images=images,
        name=function if isinstance(function, str) else None,
        detail_json=packed(error if error is not None else None),
    )


# --- model events: usage, model, tool surfaces ---------------------------------------------------


def _message_key(message: Any) -> str | None:
    """How an assistant message is recognised in a ``ModelEvent``'s output: by id where inspect
    gave messages ids, else by its content and call ids (logs before message ids)."""
    if not isinstance(message, dict):
        return None
    message_id = message.get("id")
    if isinstance(message_id, str):
        return "id:" + message_id
    calls = message.get("tool_calls") or []
    ids = [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    return "content:" + json_text([message.get("content"), ids])


def _output_message(event: dict[str, Any]) -> dict[str, Any] | None:
    output = event.get("output")
    if not isinstance(output, dict):
        return None
    choices = output.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    return message if isinstance(message, dict) else None


def _outputs_by_key(model_events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for event in model_events:
        message = _output_message(event)
        for key in {_message_key(message), _content_key(message)}:
            if key is not None:
                found.setdefault(key, []).append(event)
    return found


def _content_key(message: Any) -> str | None:
    if not isinstance(message, dict):
        return None
    stripped = {k: v for k, v in message.items() if k != "id"}
    return _message_key(stripped)


def _match_output(
    raw: dict[str, Any], outputs: dict[str, list[dict[str, Any]]], state: _Sample
) -> dict[str, Any] | None:
    """The first model call not yet matched whose output is this message."""
    for key in (_message_key(raw), _content_key(raw)):
        for event in outputs.get(key or "", ()):
            if id(event) not in state.produced:
                return event
    return None


def _usage(raw: Any) -> Usage | None:
    """inspect's ``ModelUsage`` as the record's usage, ``input`` being the uncached input.

    inspect keeps each provider's meaning of ``input_tokens``: its OpenAI providers report the
    whole prompt (cached tokens included, ``total_tokens = input + output``), its Anthropic
    provider the uncached part (``total_tokens = input + cache write + cache read + output``);
    see ``src/inspect_ai/model/_providers/openai.py`` and ``anthropic.py``. The total tells which,
    so cached tokens are taken out of ``input`` only when they were counted in it."""
    if not isinstance(raw, dict):
        return None
    fresh = as_int(raw.get("input_tokens"))
    output = as_int(raw.get("output_tokens"))
    read = as_int(raw.get("input_tokens_cache_read"))
    write = as_int(raw.get("input_tokens_cache_write"))
    total = as_int(raw.get("total_tokens"))
    cached = (read or 0) + (write or 0)
    if fresh is not None and cached and total is not None and total == fresh + (output or 0):
        fresh = max(fresh - cached, 0)
    if fresh is None and output is None and read is None and write is None:
        return None
    return Usage(input=fresh, output=output, cache_read=read, cache_write=write)


def _provider(route: str | None) -> str | None:
    """inspect names models ``provider/model`` (``openai/gpt-4o-mini``)."""
    if not route or "/" not in route:
        return None
    return route.split("/", 1)[0]


def _run_configs(model_events: list[dict[str, Any]], state: _Sample) -> list[RunConfig]:
    """A run config at the first model call and at every call whose model or tool surface changed.
    Tools come from ``call.request`` (the specs as the provider was sent them); calls without a
    recorded request still name their tools (inspect's ``ToolInfo``) but get no surface hash."""
    system = next((m.text for m in state.messages if m.role == "system"), None)
    configs: list[RunConfig] = []
    last: tuple[object, ...] | None = None
    for index, event in enumerate(model_events):
        call = event.get("call")
        request = call.get("request") if isinstance(call, dict) else None
        sent = request.get("tools") if isinstance(request, dict) else None
        infos = event.get("tools")
        names = (
            tuple(t["name"] for t in infos if isinstance(t, dict) and isinstance(t.get("name"), str))
            if isinstance(infos, list)
            else ()
        )
        tools = tuple(sent) if isinstance(sent, list) else None
        if not names and tools:
            names = tuple(_tool_name(t) for t in tools)
        route = event.get("model") if isinstance(event.get("model"), str) else state.default_model
        surface = surface_hash(tools, lambda reason: state.problem(None, reason)) if tools is not None else None
        key = (route, surface, names)
        if key == last:
            continue
        last = key
        configs.append(
            RunConfig(
                model=route,
                provider=_provider(route),
                system=system,
                tool_names=names,
                surface_hash=surface,
                tools=tools,
                message_id=_nearest_assistant(model_events, index, state.produced) if configs else None,
                time=parse_time(event.get("timestamp")),
                source=state.source(),
            )
        )
    return configs


def _nearest_assistant(
    model_events: list[dict[str, Any]], index: int, produced: dict[int, str]
) -> str | None:
    for event in model_events[index:]:
        if id(event) in produced:
            return produced[id(event)]
    return None


def _tool_name(spec: JsonValue) -> str:
    """A tool's name in the provider's own spec shape (Chat Completions nests it in ``function``)."""
    if isinstance(spec, dict):
        function = spec.get("function")
        name = function.get("name") if isinstance(function, dict) else spec.get("name")
        if isinstance(name, str):
            return name
    return ""


# --- events -------------------------------------------------------------------------------------


SAMPLE_READ = frozenset({
    "id", "epoch", "uuid", "messages", "events", "attachments", "scores", "error", "limit", "input", "output",
    "message_pool", "call_pool",
})
"""Sample fields the record holds elsewhere: the session's id and title, its messages, its events
(and the ``input`` the messages and ``sample_init`` repeat, the ``output`` the last message repeats)."""


def _sample_fields(sample: dict[str, Any], label: str, state: _Sample) -> None:
    """What the sample holds beside its transcript, each thing once. A score, error or limit the
    transcript already records as an event is not repeated from ``sample.scores`` (inspect keeps
    both: the ``ScoreEvent`` and the final score); one it does not record is kept as an event of
    the same type. The rest (timings, ``model_usage``, metadata, the final store) is no event of
    inspect's, so it goes on the sample's ``sample_init`` event under ``sample_fields``; only a
    sample whose transcript has no ``sample_init`` keeps it as a ``sample_fields`` event."""
    source = state.source()
    recorded = {e.type for e in state.events}
    score_events = [i for i, e in enumerate(state.events)
                    if e.type == "score" and isinstance(e.raw, dict) and e.raw.get("intermediate") is not True]
    scores = sample.get("scores")
    for name, score in scores.items() if isinstance(scores, dict) else ():
        value = score.get("value") if isinstance(score, dict) else score
        text = f"{name}: {stringify(value)}"
        found = next((i for i in score_events if isinstance(raw := state.events[i].raw, dict)
                      and raw.get("score") == score), None)
        if found is None:
            state.events.append(Event("meta", "score", text=text, raw_json=packed({"scorer": name, "score": score}), source=source))
        else:
            score_events.remove(found)
            state.events[found] = replace(state.events[found], text=text)
    error = sample.get("error")
    if error and "error" not in recorded:
        message = error.get("message") if isinstance(error, dict) else error
        state.events.append(Event("error", "sample_error", text=stringify(message), raw_json=packed(error), source=source))
    limit = sample.get("limit")
    if limit and "sample_limit" not in recorded:
        state.events.append(Event("error", "sample_limit", text=stringify(limit), raw_json=packed(limit), source=source))
    rest: dict[str, JsonValue] = {k: v for k, v in sample.items() if k not in SAMPLE_READ}
    if not rest:
        return
    init = next((i for i, e in enumerate(state.events) if e.type == "sample_init" and isinstance(e.raw, dict)), None)
    if init is None:
        state.events.append(Event("meta", "sample_fields", text=label, raw_json=packed(rest), source=source))
        return
    raw = state.events[init].raw
    assert isinstance(raw, dict)
    state.events[init] = replace(state.events[init], raw_json=packed({**raw, "sample_fields": rest}))


def _event(raw: dict[str, Any], label: str, state: _Sample) -> Event:
    name = raw.get("event")
    kind = EVENT_KINDS.get(name) if isinstance(name, str) else None
    copy: dict[str, JsonValue] = {k: v for k, v in raw.items() if k not in HEAVY_EVENT_KEYS}
    time = parse_time(raw.get("timestamp"))
    if kind is None:
        state.problem(None, f"{label}: unknown transcript event type {shown(name)}, kept as an event")
        return Event(
            "other", kind_name(name), time=time, raw_json=packed(copy), source=state.source(), text="unknown inspect event"
        )
    message_id: str | None = None
    text = ""
    if name == "model":
        message_id = state.produced.get(id(raw))
        usage = raw.get("output", {}).get("usage") if isinstance(raw.get("output"), dict) else None
        model = stringify(raw.get("model") or "")
        text = f"{model}: {json_text(usage)}" if usage else model
        if raw.get("error"):
            kind = "error"
            text = stringify(raw.get("error"))
    elif name in ("error", "sample_limit"):
        detail = raw.get("error") or raw.get("message")
        text = stringify(detail) if detail is not None else ""
    elif name == "score":
        score = raw.get("score")
        text = stringify(score.get("value")) if isinstance(score, dict) else ""
    elif name == "compaction":
        text = stringify({k: v for k, v in raw.items() if k.startswith("tokens") or k == "type"})
    elif name == "tool":
        text = stringify(raw.get("function") or "")
    elif name in ("info", "logger"):
        data = raw.get("data") if name == "info" else raw.get("message")
        text = stringify(data)[:500] if data is not None else ""
    return Event(
        kind, kind_name(name), time=time, message_id=message_id, text=text, raw_json=packed(copy), source=state.source()
    )
