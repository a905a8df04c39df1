"""OpenAI Responses (``POST /v1/responses``).

Calls: ``function_call`` items, then ``function_call_output`` items joined by ``call_id``; a
free-text call of a tool the recording declared as a custom (grammar) tool travels as
``custom_tool_call`` / ``custom_tool_call_output``, as Codex sends it. The system prompt is
``instructions``; system messages later in the history stay ``system`` input items. Reasoning
items need the ``rs_`` item id they were returned with, which the record does not keep, so
reasoning crosses as prose.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, assert_never

from toolkit.record import JsonValue
from toolkit.replay import tools as tools_
from toolkit.replay.checks import Checker, WireProblem
from toolkit.replay.openai_chat import MEDIA_TYPES, assistant_text, role_message
from toolkit.replay.parts import ImageRules, Inline, Resolved, resolve, result_text
from toolkit.replay.plan import Answer, Body, Exchange, Part, Plan, TextPart, ThoughtPart, WireMessage
from toolkit.replay.sdktypes import Validator, typed_dict
from toolkit.replay.send import read_responses, responses_sender
from toolkit.replay.spec import Sdk, SystemPlacement, WireSpec, place_system, wire_messages
from toolkit.surface import ToolSpec

NAME = "openai-responses"
IMAGES = ImageRules(NAME, MEDIA_TYPES, urls=True)
"""The image types of Chat Completions (the same vision input)."""
SYSTEM: SystemPlacement = "instructions"
OPENS_WITH_USER = True
"""No OpenAI page found says ``input`` must open with a user message; the cross-check of issue 12
flagged Responses bodies opening with the assistant's turn, and a placeholder user turn is harmless,
so Responses gets the treatment Anthropic and Gemini get (no validator rule: none is documented)."""
CALL_ID_LIMIT = 64
"""A generous bound for ``call_id`` (the API documents no limit; replay ids are at most 30)."""
INPUT_PARTS = ("input_text", "input_image", "input_file")
DETAILS = ("low", "high", "auto", "original")
"""``detail`` values (openai 3.57.0 ``types/responses/image_detail.py``, read 2026-11-29)."""


def encode(plan: Plan, notes: list[str]) -> Body:
    custom = frozenset(plan.names(s.name) for s in plan.tools or () if s.kind == "custom" and s.name)
    system, rest = place_system(plan, SYSTEM)
    items = wire_messages(rest, _turn, partial(_exchange, custom), opens_with_user=OPENS_WITH_USER)
    instructions = {"instructions": system} if system is not None else {}
    return {**tools_.declare(plan, notes, declare), **instructions, "input": items, "model": plan.model}


def declare(tools: Sequence[tools_.Declared]) -> list[dict[str, JsonValue]]:
    return [_tool(spec, name) for spec, name in tools]


def _tool(spec: ToolSpec, name: str) -> dict[str, JsonValue]:
    """A ``function`` tool (``strict`` off unless an OpenAI recording set it), or a free-text tool
    as the ``custom`` tool it was recorded as, with its grammar ``format``."""
    if spec.kind == "custom":
        grammar = {"format": spec.schema} if isinstance(spec.schema, dict) else {}
        return {"type": "custom", "name": name, **tools_.described(spec), **grammar}
    return {"type": "function", "name": name, **tools_.described(spec), "parameters": tools_.parameters(spec),
            "strict": tools_.recorded_strict(spec) or False}


def _turn(turn: WireMessage) -> dict[str, Any]:
    return role_message(turn, IMAGES, _part)


def _part(part: Resolved) -> dict[str, Any]:
    match part:
        case TextPart(text=text) | ThoughtPart(fallback=text):
            return {"type": "input_text", "text": text}
        case Inline():
            return {"type": "input_image", "image_url": part.data_url(), "detail": "auto"}
        case _:
            assert_never(part)


def _exchange(custom: frozenset[str], exchange: Exchange, items: list[dict[str, Any]]) -> None:
    if exchange.lead:
        items.append({"role": "assistant", "content": assistant_text(exchange.lead, IMAGES)})
    items.extend(_call(a, custom) for a in exchange.answers)
    items.extend(_output(a, custom) for a in exchange.answers)


def _call(answer: Answer, custom: frozenset[str]) -> dict[str, Any]:
    call = answer.call
    if call.freeform is not None and call.name in custom:
        return {"type": "custom_tool_call", "call_id": call.id, "name": call.name, "input": call.freeform}
    return {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments}


def _output(answer: Answer, custom: frozenset[str]) -> dict[str, Any]:
    kind = "custom_tool_call_output" if answer.call.freeform is not None and answer.call.name in custom \
        else "function_call_output"
    text = result_text(answer.output, answer.is_error)
    if not answer.images:
        return {"type": kind, "call_id": answer.call.id, "output": text}
    parts: list[Part] = [TextPart(text)] if text else []
    parts.extend(answer.images)
    return {"type": kind, "call_id": answer.call.id, "output": [_part(p) for p in resolve(parts, IMAGES)]}


def check(body: Body) -> list[WireProblem]:
    c = Checker(NAME)
    c.keys(body, "", ("tools", "instructions", "input", "model"), ("input", "model"))
    c.order(body, ("tools", "instructions", "input"))
    c.string(body.get("model"), "model", nonblank=True)
    if "instructions" in body:
        c.string(body["instructions"], "instructions")
    _check_tools(c, body.get("tools", []))
    calls: dict[str, str] = {}
    answered: set[str] = set()
    for where, item in c.objects(body.get("input"), "input", nonempty=True):
        kind = item.get("type", "message" if "role" in item else None)
        match kind:
            case "message":
                _check_message(c, item, where)
            case "function_call" | "custom_tool_call":
                field = "arguments" if kind == "function_call" else "input"
                c.keys(item, where, ("type", "call_id", "name", field, "id", "status"), ("call_id", "name", field))
                c.name(item.get("name"), f"{where}.name")
                if kind == "function_call":
                    c.json_object_text(item.get("arguments"), f"{where}.arguments")
                else:
                    c.string(item.get("input"), f"{where}.input")
                call_id = item.get("call_id")
                if c.call_id(call_id, f"{where}.call_id", limit=CALL_ID_LIMIT) and isinstance(call_id, str):
                    if call_id in calls:
                        c.add(f"{where}.call_id", "id", f"call_id {call_id!r} is used twice")
                    calls[call_id] = kind
            case "function_call_output" | "custom_tool_call_output":
                c.keys(item, where, ("type", "call_id", "output", "id", "status"), ("call_id", "output"))
                call_id = item.get("call_id")
                made = calls.get(call_id) if isinstance(call_id, str) else None
                if made is None or call_id in answered:
                    c.add(f"{where}.call_id", "pairing", f"No tool call found for function call output with call_id {call_id}.")
                elif made + "_output" != kind:
                    c.add(f"{where}.type", "pairing", f"a {made} is answered by a {made}_output, not a {kind}")
                elif isinstance(call_id, str):
                    answered.add(call_id)
                _check_output(c, item.get("output"), f"{where}.output")
            case "reasoning":
                c.add(where, "signature", "a reasoning item needs the rs_ id and encrypted content it was returned with")
            case _:
                c.add(where, "shape", f"unknown input item type {kind!r}")
    for call_id in calls:
        if call_id not in answered:
            c.add("input", "pairing", f"No tool output found for function call {call_id}.")
    return c.problems


def _check_tools(c: Checker, tools: Any) -> None:
    names: set[str] = set()
    for where, tool in c.objects(tools, "tools"):
        if tool.get("type") == "function":
            c.keys(tool, where, ("type", "name", "description", "parameters", "strict"),
                   ("type", "name", "parameters", "strict"))
            c.obj(tool.get("parameters"), f"{where}.parameters")
        elif tool.get("type") == "custom":
            c.keys(tool, where, ("type", "name", "description", "format"), ("type", "name"))
        else:
            c.add(f"{where}.type", "tools", f"unknown tool type {tool.get('type')!r}")
            continue
        c.unique_name(tool.get("name"), f"{where}.name", names)


def _check_message(c: Checker, item: dict[str, Any], where: str) -> None:
    c.keys(item, where, ("type", "role", "content", "phase"), ("role", "content"))
    role = item.get("role")
    content = item.get("content")
    if role not in ("user", "assistant", "system", "developer"):
        c.add(f"{where}.role", "role", f"role {role!r} is not user, assistant, system or developer")
        return
    if isinstance(content, str):
        return
    allowed = ("output_text", "refusal") if role == "assistant" else INPUT_PARTS
    for at, part in c.objects(content, f"{where}.content", nonempty=True):
        _check_part(c, part, at, allowed)


def _check_part(c: Checker, part: dict[str, Any], at: str, allowed: tuple[str, ...]) -> None:
    kind = part.get("type")
    if kind not in allowed:
        c.add(f"{at}.type", "image" if kind == "input_image" else "shape",
              f"Invalid value: {kind!r}. Supported values are: {', '.join(allowed)}")
        return
    if kind in ("input_text", "output_text"):
        c.keys(part, at, ("type", "text", "annotations"), ("text",))
        c.string(part.get("text"), f"{at}.text")
    elif kind == "input_image":
        c.keys(part, at, ("type", "image_url", "file_id", "detail"))
        if part.get("detail") not in DETAILS:
            c.add(f"{at}.detail", "image", f"detail must be one of {', '.join(DETAILS)}")
        if "image_url" in part:
            c.image_url(part["image_url"], f"{at}.image_url", MEDIA_TYPES)
        elif "file_id" not in part:
            c.add(at, "image", "an input_image needs image_url or file_id")


def _check_output(c: Checker, output: Any, where: str) -> None:
    if isinstance(output, str):
        return
    for at, part in c.objects(output, where, nonempty=True):
        _check_part(c, part, at, INPUT_PARTS)


def _sdk_types() -> Validator:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    return typed_dict(ResponseCreateParamsNonStreaming)


WIRE = WireSpec(
    name=NAME, family="openai", default_model="gpt-5.4", messages_key="input", system=SYSTEM, images=IMAGES,
    reasoning="none", opens_with_user=OPENS_WITH_USER, signs_calls=False, encode=encode, tools=declare, check=check,
    sdk=Sdk("openai.OpenAI().responses.create(**body)", _sdk_types, send=responses_sender, read=read_responses),
)
