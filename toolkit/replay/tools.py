"""The recorded tool specs, spelled in each wire's tool shape.

The specs come from the run's recording (``toolkit.surface.tools_for_replay``), never from the
tools current today. Each wire gets the same tools converted deterministically: the bytes differ
per wire, the tools do not. Server tools (web search and the like) have no function shape another
wire could call, so they are left out, and the request says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolkit.record import JsonValue
from toolkit.replay.plan import Plan, WireName
from toolkit.surface import ToolSpec

STUB_DESCRIPTION = "Declared by the replay: the recording kept this tool's name, not its specification."

OLLAMA_PROPERTY_KEYS = ("type", "items", "description", "enum")
"""The per-property keys Ollama's tool type keeps (ollama 0.6.3 ``_types.Tool.Function.Parameters.
Property``, read 2026-11-29); anything else would be dropped on arrival, so it is not sent."""
OLLAMA_PARAMETER_KEYS = ("$defs", "items", "required")

EMPTY_SCHEMA: dict[str, JsonValue] = {"type": "object", "properties": {}}


def declared(specs: Sequence[ToolSpec] | None) -> list[str]:
    """The names of the callable tools, in order (what ``Names`` keeps consistent)."""
    return [s.name for s in specs or () if s.name and s.kind in ("function", "custom")]


def declare(plan: Plan, notes: list[str]) -> dict[str, Any]:
    """The body's ``tools`` field for the plan's recorded tools (empty: nothing to declare)."""
    tools = encode(plan.tools, plan.wire, plan.names, notes)
    return {"tools": tools} if tools else {}


def encode(
    specs: Sequence[ToolSpec] | None, wire: WireName, names: Callable[[str], str], notes: list[str]
) -> list[dict[str, JsonValue]] | None:
    """The wire's ``tools`` value (``None``: nothing to declare)."""
    if specs is None:
        return None
    out: list[dict[str, JsonValue]] = []
    gemini: list[JsonValue] = []
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
        if wire == "gemini":
            gemini.append(_gemini(spec, name))
        else:
            out.append(_tool(spec, name, wire))
    if left_out:
        notes.append("tools: server or unrecognised tools have no function shape to replay and are left out: "
                     + ", ".join(left_out))
    if wire == "gemini" and gemini:
        out.append({"functionDeclarations": gemini})
    return out or None


def _tool(spec: ToolSpec, name: str, wire: WireName) -> dict[str, JsonValue]:
    description = spec.description if isinstance(spec.description, str) else None
    custom = spec.kind == "custom"
    if custom and wire == "openai-responses":
        tool: dict[str, JsonValue] = {"type": "custom", "name": name}
        if description is not None:
            tool["description"] = description
        if isinstance(spec.schema, dict):
            tool["format"] = spec.schema
        return tool
    schema = _freeform_schema() if custom else json_schema(spec)
    strict = spec.extra.get("strict")
    match wire:
        case "openai-chat" | "ollama":
            function: dict[str, JsonValue] = {"name": name}
            if description is not None:
                function["description"] = description
            function["parameters"] = _ollama_parameters(schema) if wire == "ollama" else schema
            if wire == "openai-chat" and isinstance(strict, bool) and spec.shape.startswith("openai"):
                function["strict"] = strict
            return {"type": "function", "function": function}
        case "openai-responses":
            tool = {"type": "function", "name": name}
            if description is not None:
                tool["description"] = description
            tool["parameters"] = schema
            tool["strict"] = strict if isinstance(strict, bool) and spec.shape.startswith("openai") else False
            return tool
        case "anthropic":
            tool = {"name": name}
            if description is not None:
                tool["description"] = description
            tool["input_schema"] = schema if schema.get("type") is not None else {"type": "object", **schema}
            return tool
        case "gemini":
            return _gemini(spec, name)


def _gemini(spec: ToolSpec, name: str) -> dict[str, JsonValue]:
    declaration: dict[str, JsonValue] = {"name": name}
    if isinstance(spec.description, str):
        declaration["description"] = spec.description
    if spec.kind == "custom":
        declaration["parametersJsonSchema"] = _freeform_schema()
    elif _openapi(spec):
        declaration["parameters"] = _case_types(spec.schema, str.upper)
    else:
        declaration["parametersJsonSchema"] = json_schema(spec)
    return declaration


def _openapi(spec: ToolSpec) -> bool:
    """Gemini's own ``parameters`` hold an OpenAPI schema (upper-case types), not JSON Schema."""
    return spec.shape == "gemini" and isinstance(spec.raw, dict) and "parameters" in spec.raw \
        and isinstance(spec.schema, dict)


def json_schema(spec: ToolSpec) -> dict[str, JsonValue]:
    """The spec's input schema as JSON Schema: Gemini's OpenAPI type names lower-cased, and an
    empty object schema for a tool recorded without one."""
    schema = spec.schema
    if not isinstance(schema, dict):
        return dict(EMPTY_SCHEMA)
    if _openapi(spec):
        lowered = _case_types(schema, str.lower)
        assert isinstance(lowered, dict)
        return lowered
    return schema


def _case_types(value: JsonValue, case: Callable[[str], str]) -> JsonValue:
    """Type names in one case: JSON Schema spells them lower-case, Gemini's OpenAPI ``Type`` enum
    upper-case (google-genai 3.6.1 ``types.Type``), which is how its SDK sends them."""
    if isinstance(value, dict):
        return {k: (case(v) if k == "type" and isinstance(v, str) else _case_types(v, case)) for k, v in value.items()}
    if isinstance(value, list):
        return [_case_types(v, case) for v in value]
    return value


def _freeform_schema() -> dict[str, JsonValue]:
    """A free-text tool on a wire without grammar tools: one string argument holding the text."""
    return {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}


def _ollama_parameters(schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {"type": "object"}
    for key in OLLAMA_PARAMETER_KEYS:
        if key in schema:
            out[key] = schema[key]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {
            name: ({k: v for k, v in prop.items() if k in OLLAMA_PROPERTY_KEYS} if isinstance(prop, dict) else {})
            for name, prop in properties.items()
        }
    return out


def stubs(call_names: Sequence[str]) -> list[dict[str, JsonValue]]:
    """Anthropic declarations for called tools whose specs were not recorded: the API refuses a
    history with ``tool_use`` blocks and no tools ("Requests which include tool_use or tool_result
    blocks must define tools", anthropics/anthropic-sdk-python#494, 2024-05-13)."""
    return [
        {"name": name, "description": STUB_DESCRIPTION, "input_schema": {"type": "object"}}
        for name in dict.fromkeys(call_names)
    ]
