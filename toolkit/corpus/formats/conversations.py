"""The interactions of one recorded file grouped into conversations, one session each.

A client resends the whole history on every call, so successive requests of one conversation are
prefixes of each other. Requests are compared message by message on their content (role, words
with whitespace collapsed, calls, results, images; ids, signatures and reasoning left out, since
clients rewrite those), and a request that extends an earlier one continues its conversation. A
conversation becomes ONE session: the messages of its longest (last) request, then that request's
reply as the tip. The reply of every earlier request lands on the message the next request carried
in its place, which takes the reply's usage, model and time (and its reasoning when the client did
not send that back); a reply the client rewrote before sending it back is kept as a sibling branch.
A request that continues nothing starts a new session. A conversation replayed to another provider
(the pydantic-ai cassette that moves from Gemini to OpenAI mid-conversation) is a new session on
that wire, titled as continuing the earlier one when its first user message is the same; the
sessions of one file never share message ids. Non-model interactions (an image download, a token
count, and Bedrock Converse calls, a wire this reader does not parse) are kept as ``meta`` events
of the conversation they happened in; error responses are ``error`` events. The tools of each
request body become the session's run config, a new one whenever the model, system prompt or tools
change between requests. A problem in a message is reported once, from the request that ends up in
the session, not from every request that resent it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import assert_never
from urllib.parse import urlsplit

from toolkit.corpus.formats.cassettes import FORMAT, Interaction, Loaded
from toolkit.corpus.formats.importer import ImportContext, name_stem
from toolkit.corpus.formats.wirekit import Origin, ParsedRequest, Where, Wire, chain
from toolkit.corpus.formats.wires import OTHER_PATHS, WIRES, classify, model_of, provider_of, wire_for
from toolkit.jsontext import json_text, stringify
from toolkit.record import (
    Block,
    Event,
    Image,
    JsonValue,
    Message,
    Opaque,
    Problem,
    Reasoning,
    RunConfig,
    Session,
    Text,
    ToolResult,
    ToolUse,
    packed,
)

Key = tuple[str, tuple[tuple[object, ...], ...]]


def _words(text: str) -> str:
    return " ".join(text.split())


def _block_key(block: Block) -> tuple[object, ...] | None:
    """What identifies a non-text block across resends: its content, not ids or signatures, which
    clients rewrite (pydantic-ai adds call ids and re-encodes Gemini signatures URL-safe). Reasoning
    is left out: many clients do not send it back."""
    match block:
        case Text():
            return None
        case ToolUse():
            raw = block.raw_input if block.raw_input is not None else json_text(block.input, sort_keys=True)
            return ("tool_use", block.name, raw)
        case ToolResult():
            return ("tool_result", _words(block.output), tuple(i.sha256 or i.url for i in block.images))
        case Reasoning():
            return None
        case Image():
            return ("image", block.sha256 or block.url)
        case Opaque():
            return ("opaque", block.type)
        case _:
            assert_never(block)


def message_key(message: Message) -> Key:
    """A message by content: its role, its words (however the client split them into parts, with
    whitespace collapsed), and its other blocks."""
    others = tuple(k for k in (_block_key(b) for b in message.blocks) if k is not None)
    return message.role, (("text", _words(message.text)), *others)


@dataclass
class ModelCall:
    """One model call of a conversation: the request as read and what came back."""

    interaction: Interaction
    request: ParsedRequest
    replies: list[Message] = field(default_factory=list)
    response_id: str | None = None
    provider: str | None = None
    problems: list[Problem] = field(default_factory=list)
    """Problems of the request's content, reported only if the request ends up in a session: every
    request resends the whole history, and a bad message must be reported once, not per request."""

    @cached_property
    def keys(self) -> list[Key]:
        """The request's messages by content (computed only when requests are compared)."""
        return [message_key(m) for m in self.request.messages]


@dataclass
class Conversation:
    wire: Wire
    turns: list[ModelCall] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def keys(self) -> list[Key]:
        return self.turns[-1].keys


def _is_prefix(short: list[Key], long: list[Key]) -> bool:
    return bool(short) and len(short) <= len(long) and long[: len(short)] == short


def _error_text(body: object) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return stringify(error.get("message") or error.get("type") or error)
        if error is not None:
            return stringify(error)
    return stringify(body)[:300]


def _excerpt(value: object) -> JsonValue:
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if isinstance(value, str):
        return value[:2000]
    if isinstance(value, dict | list | int | float | bool) or value is None:
        return value
    return stringify(value)


def _meta_event(it: Interaction, where: Where) -> Event:
    size = it.response_size or (len(json_text(it.response).encode()) if isinstance(it.response, dict | list) else 0)
    raw: JsonValue = {"method": it.method, "uri": it.uri, "status": it.status, "content_type": it.content_type,
                      "response_bytes": size, "request": _excerpt(it.request)}
    return Event(kind="meta", type="http", time=it.time, text=f"{it.method} {it.uri} -> {it.status}", raw_json=packed(raw),
                 source=where.source(it.line))


def sessions(loaded: Loaded, path: Path, ctx: ImportContext) -> list[Session]:
    """The conversations of a file's interactions, one session each (see the module docstring)."""
    where = Where(path, ctx)
    name = ctx.name(path)
    stem = name_stem(name)
    conversations: list[Conversation] = []
    early: list[Event] = []  # non-model interactions met before any conversation
    by_response: dict[str, ModelCall] = {}
    last: Conversation | None = None
    for it in loaded.interactions:
        found = _wire_of(it)
        if found is None:
            event = _meta_event(it, where)
            if last is None:
                early.append(event)
            else:
                last.events.append(replace(event, message_id=_last_id(last)))
            continue
        wire, kind = found
        turn = _turn(it, wire, kind, stem, by_response, where)
        if turn is None:
            continue
        target = _continues(conversations, wire, turn)
        if target is None:
            target = Conversation(wire)
            conversations.append(target)
        target.turns.append(turn)
        last = target
        _response(it, turn, target, stem, where)
        if turn.response_id:
            by_response[turn.response_id] = turn
    for conversation in conversations:
        for problem in conversation.turns[-1].problems:
            ctx.problem(problem.file, problem.line, problem.reason)
    if not conversations:
        if not early:
            return []
        return [Session(id=name, format=FORMAT, messages=(), file=name, events=tuple(early))]
    total = len(conversations)
    out = [_assemble(c, k, total, name, stem, loaded.recording, early if k == 0 else [])
           for k, c in enumerate(conversations)]
    return _link(out, conversations)


def _wire_of(it: Interaction) -> tuple[Wire, str] | None:
    if it.request is not None:
        if it.uri is None and it.shape is not None:
            return WIRES[it.shape[0]], it.shape[1]
        return wire_for(it.uri, it.request)
    if it.response is not None and not (it.uri and OTHER_PATHS.search(urlsplit(it.uri).path)):
        shape = classify(it.response)  # a response recorded without its request (batch output)
        if shape is not None:
            return WIRES[shape[0]], "none"
    return None


def _last_id(conversation: Conversation) -> str | None:
    messages = conversation.turns[-1].request.messages
    return messages[-1].id if messages else None


BODY_LIST_KEYS = {"gemini": "contents", "openai_responses": "input"}
"""The key of a request body's conversation list, per wire (``messages`` otherwise)."""


def _turn(it: Interaction, wire: Wire, kind: str, stem: str, by_response: dict[str, ModelCall],
          where: Where) -> ModelCall | None:
    provider = provider_of(it.uri, wire)
    key = BODY_LIST_KEYS.get(wire.name, "messages")
    if kind == "none":  # a bare response: no request was recorded
        request = ParsedRequest(messages=[], config=RunConfig(), next_index=0)
        return ModelCall(it, request, provider=provider)
    if kind == "messages":
        body: object = {key: it.request}
        lines = it.request_lines.get("")
    else:
        body = it.request
        lines = it.request_lines.get(key)
    if not isinstance(body, dict):
        where.problem(it.line, f"interaction {it.index}: {wire.name} request body is not a JSON object")
        return None
    deferred = ImportContext(images=where.ctx.images, names=where.ctx.names)
    history: list[Message] = []
    inherited: list[Problem] = []
    first = 0
    previous = body.get("previous_response_id")
    if isinstance(previous, str):
        prior = by_response.get(previous)
        if prior is None:
            where.problem(it.line, f"interaction {it.index}: previous_response_id {previous} names no "
                                   "recorded response; the conversation before it is missing")
        else:
            history = prior.request.messages + prior.replies[:1]
            inherited = prior.problems
            first = prior.request.next_index + 1
    origin = Origin(where.file, deferred, it.line, lines, id_prefix=stem, first_index=first, history=history,
                    provider=provider, model=model_of(it.uri))
    request = wire.parse_request(body, origin)
    if kind == "messages":  # a bare message list: what the run was sent besides it is unknown
        unknown = replace(request.config, tools=None, surface_hash=None, provider=None)
        request = ParsedRequest(request.messages, unknown, request.next_index)
    if history:
        request = replace(request, messages=history + chain(request.messages, history[-1].id))
    return ModelCall(it, request, provider=provider, problems=inherited + deferred.problems)


def _response(it: Interaction, turn: ModelCall, conversation: Conversation, stem: str, where: Where) -> None:
    """Read an interaction's response into its turn: the reply, or an event saying why there is none."""
    body = it.response
    if body is None:
        return
    wire = conversation.wire
    if isinstance(body, list):
        body = wire.merge_stream([e for e in body if isinstance(e, dict)])
    failed = it.status is not None and it.status >= 400
    if failed or (isinstance(body, dict) and body.get("error")
                  and not any(body.get(k) for k in ("choices", "candidates", "content", "output", "message"))):
        conversation.events.append(Event(
            kind="error", type=f"http_{it.status}" if it.status else "error", time=it.time,
            message_id=_last_id(conversation), raw_json=packed(_excerpt(body)),
            text=f"HTTP {it.status}: {_error_text(body)}" if it.status else _error_text(body),
            source=where.source(it.response_line)))
        return
    if not isinstance(body, dict):
        where.problem(it.response_line, f"interaction {it.index}: {wire.name} response body is not a JSON object")
        return
    at = Where(where.file, where.ctx, it.response_line)
    replies = wire.parse_response(body, at, message_id=f"{stem}:{turn.request.next_index}",
                                  provider=turn.provider, time=it.time)
    parent = turn.request.messages[-1].id if turn.request.messages else None
    turn.replies = [replace(r, parent_id=parent) for r in replies]
    rid = body.get("id") or body.get("responseId")
    turn.response_id = rid if isinstance(rid, str) else None
    if not replies:
        conversation.events.append(Event(
            kind="other", type="empty_response", time=it.time, message_id=_last_id(conversation),
            text="the response holds no reply", raw_json=packed(_excerpt(body)), source=where.source(it.response_line)))


def _continues(conversations: list[Conversation], wire: Wire, turn: ModelCall) -> Conversation | None:
    """The conversation whose last request this one extends (the longest such), if any."""
    best: Conversation | None = None
    if not conversations:
        return None
    for conversation in conversations:
        if conversation.wire.name != wire.name or not _is_prefix(conversation.keys, turn.keys):
            continue
        if best is None or len(conversation.keys) > len(best.keys):
            best = conversation
    return best


def _enrich(base: Message, reply: Message) -> Message:
    """The message a request carried in place of an earlier reply, with what only the response
    knew: usage, the exact model, the time, and reasoning the client did not send back."""
    blocks = base.blocks
    reasoning = tuple(b for b in reply.blocks if isinstance(b, Reasoning))
    if reasoning and not any(isinstance(b, Reasoning) for b in base.blocks):
        blocks = reasoning + blocks
    elif reply.model:
        blocks = tuple(replace(b, model=reply.model) if isinstance(b, Reasoning) else b for b in blocks)
    return replace(base, blocks=blocks, usage=reply.usage or base.usage, model=reply.model or base.model,
                   provider=reply.provider or base.provider, time=reply.time or base.time)


def _assemble(conversation: Conversation, k: int, total: int, name: str, stem: str, recording: bool,
              early: list[Event]) -> Session:
    final = conversation.turns[-1]
    messages = list(final.request.messages)
    branches: list[Message] = []
    for number, turn in enumerate(conversation.turns, 1):
        if turn is final or not turn.replies:
            continue
        at = len(turn.keys)
        main, rest = turn.replies[0], turn.replies[1:]
        if at < len(messages) and message_key(messages[at]) == message_key(main):
            messages[at] = _enrich(messages[at], main)
        else:
            rest = turn.replies
        branches.extend(replace(reply, id=f"{reply.id}@{number}") for reply in rest)
    messages.extend(final.replies)
    messages.extend(branches)
    tip = final.replies[0].id if final.replies else (messages[-1].id if messages else None)
    configs = _configs(conversation, {m.id for m in messages})
    events = early + conversation.events
    session_id = name
    if total > 1:
        session_id = f"{name}#{k + 1}"
        messages, events, configs, tip = _reprefix(messages, events, configs, tip, stem, f"{stem}#{k + 1}")
    model = final.request.config.model or (final.replies[0].model if final.replies else None)
    title = f"{conversation.wire.name} {model}" if model else conversation.wire.name
    return Session(id=session_id, format=FORMAT if recording else conversation.wire.format,
                   messages=tuple(messages), tip=tip, file=name, run_configs=tuple(configs),
                   events=tuple(events), title=title)


def _configs(conversation: Conversation, present: set[str]) -> list[RunConfig]:
    """One run config per change of model, system prompt or tools along the conversation: the
    first applies to the whole session, a later one from the first message its request added."""
    out: list[RunConfig] = []
    seen: tuple[object, ...] | None = None
    count = 0  # messages the conversation held before this request: earlier requests and their reply
    for turn in conversation.turns:
        config = turn.request.config
        if config.time != turn.interaction.time:
            config = replace(config, time=turn.interaction.time)
        signature = (config.model, config.provider, config.system, config.surface_hash, config.tool_names)
        messages = turn.request.messages
        if signature != seen and signature != (None, None, None, None, ()):
            if out:
                candidates = [m.id for m in messages[count:]] + [r.id for r in turn.replies]
                config = replace(config, message_id=next((i for i in candidates if i in present), None))
            out.append(config)
            seen = signature
        count = len(messages) + (1 if turn.replies else 0)
    return out


def _reprefix(messages: list[Message], events: list[Event], configs: list[RunConfig], tip: str | None,
              old: str, new: str) -> tuple[list[Message], list[Event], list[RunConfig], str | None]:
    """Rename ``<old>:...`` message ids to ``<new>:...`` so the sessions of one file share no ids."""

    def rename(value: str | None) -> str | None:
        return new + value[len(old):] if value is not None and value.startswith(old + ":") else value

    def block(b: Block) -> Block:  # call ids made up from a message id (Gemini calls without one)
        match b:
            case ToolUse():
                return replace(b, id=rename(b.id) or b.id)
            case ToolResult():
                return replace(b, tool_use_id=rename(b.tool_use_id) or b.tool_use_id)
            case Text() | Reasoning() | Image() | Opaque():
                return b
            case _:
                assert_never(b)

    return ([replace(m, id=rename(m.id) or m.id, parent_id=rename(m.parent_id),
                     blocks=tuple(block(b) for b in m.blocks)) for m in messages],
            [replace(e, message_id=rename(e.message_id)) for e in events],
            [replace(c, message_id=rename(c.message_id)) for c in configs], rename(tip))


def _link(out: list[Session], conversations: list[Conversation]) -> list[Session]:
    """Title a session that carries an earlier one on to another wire (same first user message)."""
    if len(out) < 2:
        return out
    firsts = [next((m.text.strip() for m in s.path() if m.role == "user" and m.text.strip()), None) for s in out]
    linked: list[Session] = []
    for k, session in enumerate(out):
        earlier = next((j for j in range(k) if firsts[j] and firsts[j] == firsts[k]
                        and conversations[j].wire.name != conversations[k].wire.name), None)
        if earlier is not None:
            session = replace(session, title=f"{session.title} (continues {out[earlier].id} "
                                             f"from {conversations[earlier].wire.name})")
        linked.append(session)
    return linked
