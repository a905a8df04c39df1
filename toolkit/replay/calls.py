"""A reply's calls made replayable: paired with their answers, bounded, renamed into one
vocabulary, and given ids derived from the stored message id.

The ids are what keep a replay cacheable: ``replay_<stem>_<n>`` is the same bytes every time a
turn is replayed, so appending a turn never rewrites an earlier one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from toolkit.jsontext import json_text
from toolkit.record import JsonValue, ToolResult, ToolUse, bare_tool_name
from toolkit.replay.plan import Call

MAX_CALLS = 12
"""A reply replays its last 12 calls: a bound of this project's choosing, so one long tool loop does
not grow every later request (no provider sets it)."""

MAX_CHARS = 500
"""Inputs and answers keep at most 500 characters: the same kind of bound, the project's own; an input
cut short of valid JSON travels as ``{"input_excerpt": ...}``."""

CALL_ID_MAX = 40
"""OpenAI Chat Completions rejects longer tool call ids: "Expected a string with maximum length 40"
(error quoted in BerriAI/litellm#10083 and langgenius/dify#32222, read
2026-11-29). The strictest id rule of the five wires, so every wire gets it."""

ID_RE = re.compile(r"[A-Za-z0-9_-]+")
"""Anthropic tool_use ids: ``^[a-zA-Z0-9_-]+$`` (the Messages API's 400 error "String should
match pattern", read 2026-11-29)."""

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
"""A tool name every wire accepts: OpenAI "a-z, A-Z, 0-9, or contain underscores and dashes, with a
maximum length of 64" (openai 3.57.0 ``shared_params/function_definition.py``); Anthropic
``^[a-zA-Z0-9_-]{1,64}$`` (the Messages API's validation pattern); Gemini "Must start with a letter or an underscore"
(google-genai 3.6.1 ``types.FunctionDeclaration.name``). All read 2026-11-29."""

T = TypeVar("T")

_UNSAFE_ID = re.compile(r"[^A-Za-z0-9]")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]")
STEM_MAX = 20
"""``replay_`` + 20 + ``_`` + two digits stays within ``CALL_ID_MAX``."""


def stem(message_id: str) -> str:
    """The stored message id as an id fragment: kept as is when it is short and alphanumeric,
    else its first alphanumerics plus 8 hex digits of its sha256, so two ids never share a stem
    because they were cut or cleaned alike."""
    clean = _UNSAFE_ID.sub("", message_id)
    if clean and clean == message_id and len(clean) <= STEM_MAX:
        return clean
    digest = hashlib.sha256(message_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return (clean[:12] or "m") + digest


def call_id(message_id: str, index: int) -> str:
    return f"replay_{stem(message_id)}_{index}"


def cut(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` kept to ``limit`` characters; a cut says how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[… {len(text) - limit} more characters not replayed]"


def bounded_input(use: ToolUse, limit: int = MAX_CHARS) -> tuple[dict[str, JsonValue], str, str | None]:
    """The call's arguments as an object of at most ``limit`` characters of JSON, that object's
    compact JSON text, and the text of a free-text call. Arguments the cut (or the source) leaves
    as invalid JSON travel as ``{"input_excerpt": "..."}``, never as broken JSON; a value that is
    not an object is wrapped as ``{"input": value}``, since every wire but one takes only objects."""
    freeform: str | None = None
    if use.freeform:
        text = use.input if isinstance(use.input, str) else json_text(use.input)
        if len(text) <= limit:
            obj: dict[str, JsonValue] = {"input": text}
            return obj, json_text(obj), text
        obj, freeform = {"input_excerpt": text[:limit]}, cut(text, limit)
    elif use.raw_input is not None:
        obj = {"input_excerpt": use.raw_input[:limit]}
    else:
        text = json_text(use.input)
        if len(text) <= limit:
            if isinstance(use.input, dict):
                return dict(use.input), text, None
            obj = {"input": use.input}
        else:
            obj = {"input_excerpt": text[:limit]}
    return obj, json_text(obj), freeform


def input_text(use: ToolUse, limit: int = MAX_CHARS) -> str:
    """The call's input as prose shows it: its JSON (or raw text), bounded."""
    if use.raw_input is not None:
        return cut(use.raw_input, limit)
    if use.freeform and isinstance(use.input, str):
        return cut(use.input, limit)
    return cut(json_text(use.input), limit)


def sanitize_name(name: str) -> str:
    """A name within every wire's rules, derived deterministically (the same for a call and for
    the declaration it calls)."""
    clean = _UNSAFE_NAME.sub("_", name)[:64] or "tool"
    if not (clean[0].isascii() and (clean[0].isalpha() or clean[0] == "_")):
        clean = ("_" + clean)[:64]
    return clean


class Names:
    """One vocabulary: ``mcp__server__tool`` replays as ``tool`` whichever client recorded it.

    Declared tools whose bare names would collide keep their full (sanitized) names, so two MCP
    servers' ``search`` tools stay two tools; calls of those tools use the same names."""

    def __init__(self, declared: Iterable[str] = ()) -> None:
        names = list(dict.fromkeys(declared))
        bare: dict[str, list[str]] = {}
        for name in names:
            bare.setdefault(bare_tool_name(name), []).append(name)
        self._fixed = {
            name: sanitize_name(name if len(bare[bare_tool_name(name)]) > 1 else bare_tool_name(name))
            for name in names
        }

    def __call__(self, name: str) -> str:
        fixed = self._fixed.get(name)
        if fixed is None:
            fixed = self._fixed[name] = sanitize_name(bare_tool_name(name))
        return fixed


def split_kept(calls: Sequence[T], limit: int = MAX_CALLS) -> tuple[list[T], list[T]]:
    """``(omitted, kept)``: a reply keeps its last ``limit`` calls."""
    if len(calls) <= limit:
        return [], list(calls)
    return list(calls[:-limit]), list(calls[-limit:])


def make_calls(
    uses: Sequence[ToolUse], message_id: str, names: Names, signature: str | None = None
) -> list[Call]:
    """The kept calls of one stored reply, numbered in order; ``signature`` rides on the first."""
    out: list[Call] = []
    for index, use in enumerate(uses):
        obj, arguments, freeform = bounded_input(use)
        out.append(Call(
            id=call_id(message_id, index),
            name=names(use.name),
            input=obj,
            arguments=arguments,
            freeform=freeform,
            signature=signature if index == 0 else None,
            message_id=message_id,
            source_id=use.id,
        ))
    return out


@dataclass
class Pairing:
    """Which replayed call each stored result answers, across the fold of one path.

    A call is *pending* from its reply until its result lands. Only answered calls become pairs;
    a pending call whose turn was cut off is reported, and never sent as half a pair. A stored id
    used by two calls is answered first by the earlier one."""

    pending: dict[str, list[Call]] = field(default_factory=dict)
    """Stored call id → replayed calls awaiting a result, oldest first."""
    omitted: set[str] = field(default_factory=set)
    """Stored ids of calls left out by the ``MAX_CALLS`` bound (their results go with them)."""
    names: dict[str, str] = field(default_factory=dict)
    """Stored call id → replayed name, for results that do not name their tool."""

    def open(self, calls: Sequence[Call], omitted: Iterable[ToolUse], names: Names) -> None:
        for use in omitted:
            self.omitted.add(use.id)
            self.names[use.id] = names(use.name)
        for call in calls:
            self.pending.setdefault(call.source_id, []).append(call)
            self.names[call.source_id] = call.name

    def take(self, result: ToolResult) -> Call | None:
        """The oldest pending call ``result`` answers, no longer pending."""
        waiting = self.pending.get(result.tool_use_id)
        if not waiting:
            return None
        call = waiting.pop(0)
        if not waiting:
            del self.pending[result.tool_use_id]
        return call

    def is_omitted(self, result: ToolResult) -> bool:
        return result.tool_use_id in self.omitted

    def name_of(self, result: ToolResult, names: Names) -> str:
        known = self.names.get(result.tool_use_id)
        if known is not None:
            return known
        return names(result.name) if result.name else "unknown tool"

    def count(self) -> int:
        return sum(len(waiting) for waiting in self.pending.values())

    def orphan_all(self) -> list[Call]:
        """Every pending call, now known never to be answered in this path."""
        calls = [call for waiting in self.pending.values() for call in waiting]
        self.pending.clear()
        return calls
