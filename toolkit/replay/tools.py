"""The recorded tool specs, ready for each wire to spell in its own tool shape.

The specs come from the run's recording (``toolkit.surface.tools_for_replay``), never from the
tools current today. Every wire gets the same tools, kept and renamed here once: the bytes differ
per wire (each wire module's ``declare``), the tools do not. Server tools (web search and the like)
have no function shape another wire could call, so they are left out, and the request says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from toolkit.record import JsonValue
from toolkit.replay.plan import Plan
from toolkit.surface import ToolSpec

Declared: TypeAlias = tuple[ToolSpec, str]
"""A recorded tool to declare, and the name the replay gives it."""
Declarer: TypeAlias = Callable[[Sequence[Declared]], list[dict[str, JsonValue]]]
"""A wire's ``tools`` value for one or more tools, in order."""

EMPTY_SCHEMA: dict[str, JsonValue] = {"type": "object", "properties": {}}


def declared(specs: Sequence[ToolSpec] | None) -> list[str]:
    """The names of the callable tools, in order (what ``Names`` keeps consistent)."""
    return [s.name for s in specs or () if s.name and s.kind in ("function", "custom")]


def declare(plan: Plan, notes: list[str], declarer: Declarer) -> dict[str, Any]:
    """The body's ``tools`` field for the plan's recorded tools (empty: nothing to declare)."""
    tools = encode(plan.tools, plan.names, notes, declarer)
    return {"tools": tools} if tools else {}


def encode(
    specs: Sequence[ToolSpec] | None, names: Callable[[str], str], notes: list[str], declarer: Declarer
) -> list[dict[str, JsonValue]] | None:
    """The wire's ``tools`` value (``None``: nothing to declare): the callable tools, renamed, each
    name once, spelled by the wire's ``declarer``."""
    if specs is None:
        return None
    kept: list[Declared] = []
    seen: set[str] = set()
    left_out: list[str] = []
    for spec in specs:
        if spec.kind not in ("function", "custom") or not spec.name:
            left_out.append(f"{spec.name or '?'} ({spec.kind})")
            continue
        name = names(spec.name)
        if name in seen:
            notes.append(f"tools: a second tool named {name!r} is left out (a wire rejects duplicate names)")
            continue
        seen.add(name)
        kept.append((spec, name))
    if left_out:
        notes.append("tools: server or unrecognised tools have no function shape to replay and are left out: "
                     + ", ".join(left_out))
    return declarer(kept) if kept else None


def described(spec: ToolSpec) -> dict[str, JsonValue]:
    """The recorded description as a ``description`` field (empty when there is none)."""
    return {"description": spec.description} if isinstance(spec.description, str) else {}


def parameters(spec: ToolSpec) -> dict[str, JsonValue]:
    """The tool's arguments as JSON Schema, a free-text tool's as its one string argument."""
    return freeform_schema() if spec.kind == "custom" else json_schema(spec)


def recorded_strict(spec: ToolSpec) -> bool | None:
    """The ``strict`` flag an OpenAI tool was recorded with (``None``: not recorded)."""
    strict = spec.extra.get("strict")
    return strict if isinstance(strict, bool) and spec.shape.startswith("openai") else None


def openapi(spec: ToolSpec) -> bool:
    """Gemini's own ``parameters`` hold an OpenAPI schema (upper-case types), not JSON Schema."""
    return spec.shape == "gemini" and isinstance(spec.raw, dict) and "parameters" in spec.raw \
        and isinstance(spec.schema, dict)


def json_schema(spec: ToolSpec) -> dict[str, JsonValue]:
    """The spec's input schema as JSON Schema: Gemini's OpenAPI type names lower-cased, and an
    empty object schema for a tool recorded without one."""
    schema = spec.schema
    if not isinstance(schema, dict):
        return dict(EMPTY_SCHEMA)
    if openapi(spec):
        lowered = case_types(schema, str.lower)
        assert isinstance(lowered, dict)
        return lowered
    return schema


def case_types(value: JsonValue, case: Callable[[str], str]) -> JsonValue:
    """Type names in one case: JSON Schema spells them lower-case, Gemini's OpenAPI ``Type`` enum
    upper-case (google-genai 3.6.1 ``types.Type``), which is how its SDK sends them."""
    if isinstance(value, dict):
        return {k: (case(v) if k == "type" and isinstance(v, str) else case_types(v, case)) for k, v in value.items()}
    if isinstance(value, list):
        return [case_types(v, case) for v in value]
    return value


def freeform_schema() -> dict[str, JsonValue]:
    """A free-text tool on a wire without grammar tools: one string argument holding the text."""
    return {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
