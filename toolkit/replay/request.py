"""Replay: the exact request body a wire would be sent for a session's path, and its bytes.

One fold over the stored path decides what the model is shown; the wire module spells it.

- ``text``: the words only (user and assistant text, and images).
- ``prose``: every block in its prose form, one wire message per stored message, no tool roles
  and no call ids.
- ``prose_head``: the words, plus a prose record of the previous reply's calls at the head of
  the next user message.
- ``native``: each reply's calls paired with their stored answers, in the wire's own shape, at
  the point the answers landed (ahead of the next reply's text). A call whose answer never landed
  is never half a pair: when a new user message shows it was cut off, it is told in prose at the
  head of that message; at the end of the path it is left out and the request notes it.

Reasoning policy: reasoning replays natively only to the provider that signed it and to the same
model (Anthropic ``thinking`` with its signature, Gemini thought parts and signatures, Ollama
``thinking``); everywhere else it crosses as ``[Reasoning]: ...`` prose (``prose`` and ``native``)
or not at all (``text`` and ``prose_head``, which carry words only). OpenAI reasoning items are
bound to an item id the record does not keep, and Chat Completions has no reasoning slot, so
OpenAI reasoning always crosses as prose.

Every request renders tools → system → messages, so the tool specs are the first bytes and an
appended turn changes only bytes after everything earlier.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import assert_never

import orjson

from toolkit.errors import NotFound, UnknownMode
from toolkit.jsontext import json_text
from toolkit.models import model_family, route_family, split_route
from toolkit.record import (
    Image,
    Message,
    Opaque,
    Reasoning,
    RunConfig,
    Session,
    Text,
    ToolResult,
    ToolUse,
)
from toolkit.replay import prose
from toolkit.replay import tools as tools_
from toolkit.replay.availability import blind, unsendable
from toolkit.replay.calls import MAX_CALLS, MAX_CHARS, Names, Pairing, cut, input_text, make_calls, split_kept
from toolkit.replay.lookup import wire_spec
from toolkit.replay.parts import image_part, join_text
from toolkit.replay.plan import (
    MODES,
    Answer,
    Body,
    Call,
    Exchange,
    ImagePart,
    Item,
    Mode,
    Part,
    Plan,
    TextPart,
    ThoughtPart,
    TurnRole,
    WireMessage,
    WireName,
)
from toolkit.replay.spec import WireSpec
from toolkit.surface import SurfaceStore, ToolSpec, tool_specs, tools_for_replay

DEFAULT_MAX_TOKENS = 4096
"""Anthropic requires ``max_tokens``; the value is this toolkit's choice, not a documented one."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Request:
    """One replayed request: the body a wire would be sent, its canonical bytes, and notes on
    everything the replay could not carry as recorded (tools not rebuilt, calls without results,
    images without bytes...)."""

    wire: WireName
    mode: Mode
    vision: bool
    session_id: str
    upto: str | None
    """The last stored message of the replayed path (``None``: an empty session)."""
    model: str
    body: Body
    bytes: builtins.bytes
    """``body`` as canonical JSON: keys in render order, compact, UTF-8."""
    notes: tuple[str, ...]
    path_length: int
    """How many stored messages the replayed path holds."""

    @property
    def messages_key(self) -> str:
        return wire_spec(self.wire).messages_key

    def messages_bytes(self) -> builtins.bytes:
        """The canonical bytes of the messages part alone (what prefix stability compares).

        Returns:
            The bytes of the body's message list (``messages``, ``input`` or ``contents``, by wire).
        """
        return canonical(self.body[self.messages_key])


def canonical(value: object) -> bytes:
    """Compact JSON in key order, non-ASCII as UTF-8, written by orjson: several times faster than
    ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` and byte for byte the same on
    every body of the shared corpora (orjson writes some float exponents shorter, ``1.5e-7`` for
    ``1.5e-07``; the standard module takes the integers beyond 64 bits orjson refuses).

    Args:
        value: A request body, or any JSON value.

    Returns:
        The bytes a request is compared and hashed by.
    """
    return _encode(value)[0]


def _encode(value: object) -> tuple[bytes, object | None]:
    """The canonical bytes, and the value with its lone surrogates replaced by U+FFFD when it held
    any (JSON text can hold one, UTF-8 cannot, and no provider accepts one as text)."""
    try:
        return orjson.dumps(value), None
    except orjson.JSONEncodeError:
        scrubbed = _scrub(value)
    try:
        return orjson.dumps(scrubbed), (scrubbed if scrubbed != value else None)
    except orjson.JSONEncodeError:
        return _ENCODER.encode(scrubbed).encode("utf-8"), (scrubbed if scrubbed != value else None)


def _scrub(value: object) -> object:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_LONE_SURROGATE.sub("\ufffd", k): _scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def request(
    session: Session,
    *,
    wire: str,
    mode: str,
    vision: bool = True,
    upto: str | None = None,
    images: Mapping[str, bytes] | None = None,
    model: str | None = None,
    store: SurfaceStore | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> Request:
    """The request ``wire`` would be sent for ``session``'s path, in ``mode``.

    Args:
        session: The session to replay; its main path (or the path to ``upto``) is what is sent.
        wire: The wire to spell it for (``toolkit.replay.WIRES``).
        mode: How earlier turns are replayed (``toolkit.replay.MODES``).
        vision: Whether images travel as images; without, each is named as unseen in text.
        upto: The id of the last message sent (default: the session's tip).
        images: The corpus image store (sha256 to bytes) the image blocks point into.
        model: The model the body names (default: the recorded one, when it is the wire's provider's).
        store: A ``toolkit.surface.SurfaceStore`` to rebuild tools recorded by hash only.
        max_tokens: The reply budget an Anthropic body names (its Messages API requires one).

    Returns:
        The body, its canonical bytes and the notes on what changed on the way.

    Raises:
        UnknownWire: ``wire`` is not one of ``WIRES``.
        UnknownMode: ``mode`` is not one of ``MODES``.
        NotFound: ``upto`` is not a message of the session."""
    spec = wire_spec(wire)
    plan, notes, path = build_plan(
        session, wire=spec, mode=_mode(mode), vision=vision, upto=upto, images=images, model=model,
        store=store, max_tokens=max_tokens,
    )
    body = spec.encode(plan, notes)
    data, scrubbed = _encode(body)
    if isinstance(scrubbed, dict):
        body = scrubbed
        notes.append("text: lone surrogates (not valid Unicode) are sent as U+FFFD")
    return Request(
        wire=spec.name, mode=plan.mode, vision=vision, session_id=session.id,
        upto=path[-1].id if path else None, model=plan.model, body=body, bytes=data,
        notes=tuple(dict.fromkeys(notes)), path_length=len(path),
    )


def _mode(mode: str) -> Mode:
    for name in MODES:
        if name == mode:
            return name
    raise UnknownMode(mode, MODES)


def build_plan(
    session: Session,
    *,
    wire: WireSpec,
    mode: Mode,
    vision: bool,
    upto: str | None,
    images: Mapping[str, bytes] | None,
    model: str | None,
    store: SurfaceStore | None,
    max_tokens: int,
) -> tuple[Plan, list[str], list[Message]]:
    """The neutral plan (and the notes so far, and the path) a wire module spells."""
    if upto is not None and upto not in session:
        raise NotFound(f"session {session.id!r} has no message {upto!r}")
    path = session.path(upto)
    config = session.run_config(path[-1].id) if path else session.run_config()
    notes: list[str] = []
    specs = _recorded_tools(config, store, session.format, notes)
    names = Names(tools_.declared(specs))
    target, why = _target_model(wire, config, path, model)
    if why:
        notes.append(why)
    notes.extend(f"model: {reason}; the body names it as {'given' if model is not None else 'recorded'} "
                 "(model= or --model chooses another)" for reason in unsendable(target, wire.name))
    fold = _Fold(wire, mode, _unseen(vision, target), images, target, names, notes)
    fold.run(path, config.system if config is not None else None)
    plan = Plan(
        wire=wire.name, mode=mode, model=target, system=config.system if config is not None else None,
        items=tuple(fold.items), tools=specs, names=names, max_tokens=max_tokens,
    )
    return plan, notes, path


def _recorded_tools(
    config: RunConfig | None, store: SurfaceStore | None, format: str, notes: list[str]
) -> tuple[ToolSpec, ...] | None:
    """The run's recorded tool specs, rebuilt from the recording (store blob or run config),
    never from today's tools."""
    tools, reason = tools_for_replay(config, store, format=format)
    if tools is None:
        notes.append(f"tools: not rebuilt ({reason})")
        return None
    return tuple(tool_specs(tools))


def provider_family(provider: str | None, model: str | None) -> str | None:
    """Which provider family signed or served something: from the recorded provider, else from
    the model id (``claude-*`` → anthropic...; a ``route/model`` prefix names the provider), as
    ``toolkit.models``'s table reads for replay."""
    if provider:
        return route_family(provider) or provider.lower()
    if model:
        return model_family(model, reader="replay")
    return None


def model_name(model: str | None) -> str | None:
    """The model as its provider names it (``openai/gpt-4o-mini`` → ``gpt-4o-mini``)."""
    if model is None:
        return None
    route, name = split_route(model)
    return name if route_family(route) is not None else model


def _unseen(vision: bool, model: str) -> str | None:
    """Why images cross as markers (``None``: they cross as images): vision is off, or the model
    the body names takes no images."""
    if not vision:
        return prose.VISION_OFF
    return f"{model} does not take images" if blind(model) is not None else None


def _target_model(
    wire: WireSpec, config: RunConfig | None, path: Sequence[Message], model: str | None
) -> tuple[str, str]:
    if model is not None:
        return model, ""
    recorded = config.model if config is not None else None
    provider = config.provider if config is not None else None
    for message in reversed(path):
        if recorded is not None:
            break
        if message.role == "assistant" and message.model:
            recorded, provider = message.model, message.provider
    if recorded is not None and provider_family(provider, recorded) == wire.family:
        name = model_name(recorded)
        assert name is not None
        return name, ""
    default = wire.default_model
    said = f"the recording's model {recorded!r} is not a {wire.family} model" if recorded else "no model was recorded"
    return default, f"model: {said}; the body names {default!r} (model= or --model chooses one)"


@dataclass
class _HeadEntry:
    """One call in ``prose_head``'s running record of the previous reply."""

    use: str | None
    result: str | None = None
    images: list[str] = field(default_factory=list)


@dataclass
class _Held:
    """A reply whose calls await their answers (``native``)."""

    message_id: str
    words: list[Part]
    calls: list[Call]
    answers: dict[str, Answer] = field(default_factory=dict)
    """Replay call id → its answer."""
    closed: bool = False
    """A later user message showed the unanswered calls never will be."""

    def ready(self) -> bool:
        return self.closed or len(self.answers) == len(self.calls)


class _Fold:
    """One pass over the path, appending plan items. Each stored message's items depend only on
    the messages before it, which is what makes the request for a longer path extend the shorter
    one byte for byte."""

    def __init__(
        self, wire: WireSpec, mode: Mode, unseen: str | None, images: Mapping[str, bytes] | None, model: str,
        names: Names, notes: list[str],
    ) -> None:
        self.wire = wire
        self.mode = mode
        self.unseen = unseen
        self.images = images
        self.model = model
        self.names = names
        self.notes = notes
        self.items: list[Item] = []
        self.pairing = Pairing()
        self.call_names: dict[str, str] = {}
        self.prose_omitted: set[str] = set()
        self.stretch: list[_HeadEntry] = []
        self.head_by_id: dict[str, _HeadEntry] = {}
        self.queue: list[_Held | WireMessage] = []
        self.held_by_call: dict[str, _Held] = {}
        self.counts: dict[str, int] = {}

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def run(self, path: Sequence[Message], system: str | None) -> None:
        leading = True
        deduped = False
        for message in path:
            if message.role == "system":
                if leading and not deduped and system is not None and message.text.strip() == system.strip():
                    deduped = True
                    continue
                self._system(message, leading)
                continue
            leading = False
            match self.mode:
                case "text":
                    self._text(message)
                case "prose":
                    self._prose(message)
                case "prose_head":
                    self._prose_head(message)
                case "native":
                    self._native(message)
                case _:
                    assert_never(self.mode)
        self._finish()

    def _finish(self) -> None:
        pending = self.pairing.count()
        if pending:
            held = self.queue[0]
            self.notes.append(
                f"calls: {pending} call(s) have no result in this path yet; the reply {held.message_id} that made "
                f"them and the {len(self.queue) - 1} item(s) after it are held back until the results land, since "
                "a call without its result would fail the request"
            )
        said = {
            "omitted": "call(s) beyond the last {max} of their reply are not replayed",
            "dropped": "result(s) of calls beyond the bound are not replayed",
            "orphaned": "call(s) whose results never landed are told in prose at the head of the next user message",
            "orphan_results": "result(s) without a call in the path cross as prose",
            "signatures": "Gemini thought signature(s) on text-only replies are not replayed",
        }
        if self.counts.get("blind"):
            sight = blind(self.model)
            assert sight is not None
            self.notes.append(f"images: {self.counts['blind']} image(s) cross as markers saying they were not seen, "
                              f"because {self.model} takes no images ({sight.source}); model= or --model chooses one "
                              "that does")
        if self.counts.get("no_bytes"):
            self.notes.append(f"images: {self.counts['no_bytes']} image(s) whose bytes are not in the image store given "
                              "(pass images=corpus.images) cross by URL where the wire fetches URLs, else as markers")
        for key, text in said.items():
            if self.counts.get(key):
                self.notes.append(f"calls: {self.counts[key]} " + text.format(max=MAX_CALLS))

    # ---- shared pieces ------------------------------------------------------------------

    def _image(self, image: Image) -> ImagePart | TextPart:
        if self.unseen is None and image.sha256 and (self.images is None or image.sha256 not in self.images):
            self.count("no_bytes")
        elif self.unseen is not None and self.unseen != prose.VISION_OFF:
            self.count("blind")
        return image_part(image, self.images, self.unseen)

    def _words(self, message: Message) -> list[Part]:
        """Text and images: what ``text`` mode keeps."""
        out: list[Part] = []
        for block in message.blocks:
            match block:
                case Text(text=text):
                    if text.strip():
                        out.append(TextPart(text))
                case Image():
                    out.append(self._image(block))
                case ToolUse() | ToolResult() | Reasoning() | Opaque():
                    pass
                case _:
                    assert_never(block)
        return out

    def _turn(self, message: Message, parts: Sequence[Part]) -> None:
        role: TurnRole = "assistant" if message.role == "assistant" else "user"
        if parts:
            self.items.append(WireMessage(role, join_text(parts), message.id))

    def _system(self, message: Message, leading: bool) -> None:
        parts = self._prose_parts(message) if self.mode == "prose" else self._words(message)
        if not parts:
            if self.mode != "prose":
                return
            parts = [TextPart(prose.EMPTY_MESSAGE)]
        turn = WireMessage("system", join_text(parts), message.id, leading=leading)
        if self.queue:
            self.queue.append(turn)
        else:
            self.items.append(turn)

    def _call_name(self, use: ToolUse) -> str:
        """The call's replayed name, remembered for the results that do not name their tool."""
        name = self.names(use.name)
        self.call_names[use.id] = name
        return name

    def _result_name(self, result: ToolResult) -> str:
        known = self.call_names.get(result.tool_use_id)
        if known is not None:
            return known
        return self.names(result.name) if result.name else "unknown tool"

    # ---- modes --------------------------------------------------------------------------

    def _text(self, message: Message) -> None:
        if message.role != "tool":
            self._turn(message, self._words(message))

    def _prose_parts(self, message: Message) -> list[Part]:
        omitted, _ = split_kept(_calls_and_results(message)[0])
        left_out = {id(b) for b in omitted}
        parts: list[Part] = []
        marked = False
        for block in message.blocks:
            match block:
                case Text(text=text):
                    if text.strip():
                        parts.append(TextPart(text))
                case ToolUse():
                    name = self._call_name(block)
                    if id(block) in left_out:
                        self.prose_omitted.add(block.id)
                        if not marked:
                            parts.append(TextPart(prose.calls_omitted(len(omitted), MAX_CALLS)))
                            marked = True
                    else:
                        parts.append(TextPart(prose.tool_use(name, input_text(block))))
                case ToolResult():
                    if block.tool_use_id in self.prose_omitted:
                        parts.append(TextPart(prose.RESULT_OMITTED))
                        continue
                    parts.append(TextPart(prose.tool_result(self._result_name(block), cut(block.output),
                                                            block.is_error)))
                    parts.extend(self._image(image) for image in block.images)
                case Reasoning():
                    parts.append(TextPart(prose.reasoning(block)))
                case Image():
                    parts.append(self._image(block))
                case Opaque():
                    parts.append(TextPart(prose.opaque(block, MAX_CHARS)))
                case _:
                    assert_never(block)
        return parts

    def _prose(self, message: Message) -> None:
        parts = self._prose_parts(message) or [TextPart(prose.EMPTY_MESSAGE)]
        self._turn(message, parts)

    def _prose_head(self, message: Message) -> None:
        for block in message.blocks:
            match block:
                case ToolUse():
                    entry = _HeadEntry(prose.tool_use(self._call_name(block), input_text(block)))
                    self.stretch.append(entry)
                    self.head_by_id[block.id] = entry
                case ToolResult():
                    said = prose.tool_result(self._result_name(block), cut(block.output), block.is_error)
                    found = self.head_by_id.pop(block.tool_use_id, None)
                    if found is None:
                        found = _HeadEntry(None)
                        self.stretch.append(found)
                    found.result = said
                    found.images = [prose.image_unseen(i, "images returned by tools are not shown in prose_head")
                                    for i in block.images]
                case Text() | Reasoning() | Image() | Opaque():
                    pass
                case _:
                    assert_never(block)
        words = self._words(message) if message.role != "tool" else []
        if message.role == "user" and words and self.stretch:
            words.insert(0, TextPart(prose.head(self._head_lines())))
            self.stretch.clear()
            self.head_by_id.clear()
        self._turn(message, words)

    def _head_lines(self) -> list[str]:
        omitted, kept = split_kept(self.stretch)
        lines = [prose.calls_omitted(len(omitted), MAX_CALLS)] if omitted else []
        for entry in kept:
            if entry.use is not None:
                lines.append(entry.use)
            lines.append(entry.result if entry.result is not None else prose.NO_RESULT)
            lines.extend(entry.images)
        return lines

    def _native(self, message: Message) -> None:
        """A reply with calls is held until every call is answered (or shown never to be), then
        emitted whole: its words with its calls, then the results. Whatever follows a held reply
        waits behind it, so the items keep the stored order and nothing emitted is ever rewritten."""
        uses, results = _calls_and_results(message)
        lead: list[Part] = []
        if message.role == "user" and not results and self.pairing.pending:
            orphans = self.pairing.orphan_all()
            self.count("orphaned", len(orphans))
            for held in self.queue:
                if isinstance(held, _Held):
                    held.closed = True
            lead.append(TextPart(prose.unanswered([_told(c) for c in orphans])))
        parts, signature = self._native_parts(message)
        omitted, kept = split_kept(uses)
        if omitted:
            self.count("omitted", len(omitted))
        new_calls = make_calls(kept, message.id, self.names, signature)
        if signature is not None and not new_calls:
            self.count("signatures")
        role: TurnRole = "assistant" if message.role == "assistant" else "user"
        if role == "assistant":
            self._hold(message.id, parts, new_calls, omitted)
            extra = self._answer(results)
            if extra:
                self.queue.append(WireMessage("user", join_text(extra), message.id))
        else:
            extra = self._answer(results)
            if lead or extra or parts:
                self.queue.append(WireMessage(role, join_text(lead + extra + parts), message.id))
            self._hold(message.id, [], new_calls, omitted)
        self._flush()

    def _hold(self, message_id: str, parts: list[Part], new_calls: list[Call], omitted: list[ToolUse]) -> None:
        if new_calls:
            held = _Held(message_id, parts, new_calls)
            for call in new_calls:
                self.held_by_call[call.id] = held
            self.queue.append(held)
        elif parts:
            self.queue.append(WireMessage("assistant", join_text(parts), message_id))
        self.pairing.open(new_calls, omitted, self.names)

    def _answer(self, results: Sequence[ToolResult]) -> list[Part]:
        """Give each result to the held reply whose call it answers; return the prose of results
        that answer no call in the path."""
        extra: list[Part] = []
        for result in results:
            call = self.pairing.take(result)
            if call is not None:
                images = tuple(self._image(i) for i in result.images)
                held = self.held_by_call.pop(call.id)
                held.answers[call.id] = Answer(call, cut(result.output), result.is_error, images)
            elif self.pairing.is_omitted(result):
                self.count("dropped")
            else:
                self.count("orphan_results")
                name = self.pairing.name_of(result, self.names)
                extra.append(TextPart(prose.tool_result(name, cut(result.output), result.is_error)))
                extra.extend(self._image(i) for i in result.images)
        return extra

    def _flush(self) -> None:
        while self.queue:
            head = self.queue[0]
            if isinstance(head, _Held):
                if not head.ready():
                    return
                answers = tuple(head.answers[c.id] for c in head.calls if c.id in head.answers)
                if answers:
                    self.items.append(Exchange(answers, head.message_id, join_text(head.words)))
                elif head.words:
                    self.items.append(WireMessage("assistant", join_text(head.words), head.message_id))
            else:
                self.items.append(head)
            self.queue.pop(0)

    def _native_parts(self, message: Message) -> tuple[list[Part], str | None]:
        """The message's blocks other than calls and results, and a bare thought signature from
        the same model to ride on its first call (on a wire that signs calls: Gemini)."""
        parts: list[Part] = []
        signature: str | None = None
        for block in message.blocks:
            match block:
                case Text(text=text):
                    if text.strip():
                        parts.append(TextPart(text))
                case Reasoning():
                    if not self._native_thought(block, message):
                        parts.append(TextPart(prose.reasoning(block)))
                    elif self.wire.signs_calls and not block.text.strip():
                        signature = signature or block.signature
                    else:
                        parts.append(ThoughtPart(block, prose.reasoning(block)))
                case Image():
                    parts.append(self._image(block))
                case Opaque():
                    parts.append(TextPart(prose.opaque(block, MAX_CHARS)))
                case ToolUse() | ToolResult():
                    pass
                case _:
                    assert_never(block)
        return parts, signature

    def _native_thought(self, block: Reasoning, message: Message) -> bool:
        """Whether ``block`` may cross natively: same provider, same model, in a form the wire keeps."""
        if message.role != "assistant":
            return False
        match self.wire.reasoning:
            case "none":
                return False
            case "signed":
                return self._same_model(block, message) and bool(block.signature)
            case "readable":
                return self._same_model(block, message) and bool(block.text.strip()) and not block.redacted
            case _:
                assert_never(self.wire.reasoning)

    def _same_model(self, block: Reasoning, message: Message) -> bool:
        """The block was made by the wire's provider and by the model the body names."""
        signer = provider_family(block.provider or message.provider, block.model or message.model)
        return signer == self.wire.family and model_name(block.model or message.model) == self.model


def _calls_and_results(message: Message) -> tuple[list[ToolUse], list[ToolResult]]:
    """The message's calls and its results, each in stored order."""
    uses: list[ToolUse] = []
    results: list[ToolResult] = []
    for block in message.blocks:
        match block:
            case ToolUse():
                uses.append(block)
            case ToolResult():
                results.append(block)
            case Text() | Reasoning() | Image() | Opaque():
                pass
            case _:
                assert_never(block)
    return uses, results


def _told(call: Call) -> str:
    text = call.freeform if call.freeform is not None else json_text(call.input)
    return prose.tool_use(call.name, text) + " " + prose.NO_RESULT
