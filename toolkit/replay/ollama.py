"""Ollama ``POST /api/chat``.

Calls: an assistant message with ``tool_calls`` (arguments as an object, no call ids), then one
``tool`` message per call naming it in ``tool_name``: Ollama matches results to calls by name and
order (ollama/ollama#11294). Images ride as base64 in ``images`` (no URLs); tool messages carry
text, so a tool's images follow in a user message. Thinking from the same model rides in
``thinking``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, assert_never

from toolkit.record import JsonValue
from toolkit.replay import tools as tools_
from toolkit.replay.checks import Checker, WireProblem
from toolkit.replay.parts import ImageRules, Inline, resolve, result_text, text_of, tool_images
from toolkit.replay.plan import Body, Exchange, Part, Plan, TextPart, ThoughtPart, WireMessage
from toolkit.replay.sdktypes import Validator
from toolkit.replay.spec import Sdk, SystemPlacement, WireSpec, place_system, wire_messages

NAME = "ollama"
MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp"})
""""Valid image formats depend on the model" (ollama 0.6.3 ``_types.Message.images``); the client
reads png, jpg, jpeg and webp files (``_types.Image``), read 2026-11-29."""
IMAGES = ImageRules(NAME, MEDIA_TYPES, urls=False)
SYSTEM: SystemPlacement = "message"
OPENS_WITH_USER = False
"""No rule of Ollama's chat endpoint or its client types (ollama 0.6.3 ``Message``) asks for a user turn first."""
ROLES = ("system", "user", "assistant", "tool")

PROPERTY_KEYS = ("type", "items", "description", "enum")
"""The per-property keys Ollama's tool type keeps (ollama 0.6.3 ``_types.Tool.Function.Parameters.
Property``, read 2026-11-29); anything else would be dropped on arrival, so it is not sent."""
PARAMETER_KEYS = ("$defs", "items", "required")


def encode(plan: Plan, notes: list[str]) -> Body:
    _, items = place_system(plan, SYSTEM)
    messages = wire_messages(items, _turn, _exchange, opens_with_user=OPENS_WITH_USER)
    return {**tools_.declare(plan, notes, declare), "messages": messages, "model": plan.model, "stream": False}


def declare(tools: Sequence[tools_.Declared]) -> list[dict[str, JsonValue]]:
    """Chat Completions' ``function`` shape, its parameters cut to what Ollama's type keeps."""
    return [{"type": "function", "function": {"name": name, **tools_.described(spec),
                                              "parameters": _parameters(tools_.parameters(spec))}}
            for spec, name in tools]


def _parameters(schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {"type": "object"}
    for key in PARAMETER_KEYS:
        if key in schema:
            out[key] = schema[key]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {
            name: ({k: v for k, v in prop.items() if k in PROPERTY_KEYS} if isinstance(prop, dict) else {})
            for name, prop in properties.items()
        }
    return out


def _turn(turn: WireMessage) -> dict[str, Any]:
    match turn.role:
        case "system":
            return {"role": "system", "content": text_of(turn.parts)}
        case "user" | "assistant":
            return _message(turn.role, turn.parts)
        case _:
            assert_never(turn.role)


def _exchange(exchange: Exchange, messages: list[dict[str, Any]]) -> None:
    reply: dict[str, Any] = _message("assistant", exchange.lead) if exchange.lead else {"role": "assistant"}
    if not reply.get("content"):
        reply.pop("content", None)
    reply["tool_calls"] = [{"function": {"name": a.call.name, "arguments": a.call.input}} for a in exchange.answers]
    messages.append(reply)
    messages.extend({"role": "tool", "tool_name": a.call.name, "content": result_text(a.output, a.is_error)}
                    for a in exchange.answers)
    messages.extend(_turn(images) for images in tool_images(exchange))


def _message(role: str, parts: tuple[Part, ...]) -> dict[str, Any]:
    """A message's words in ``content``, same-model thinking in ``thinking``, image bytes in
    ``images`` (user messages only: assistant images become markers)."""
    texts: list[str] = []
    thinking: list[str] = []
    images: list[str] = []
    for part in resolve(parts, IMAGES, allowed=role == "user", where="assistant messages"):
        match part:
            case TextPart(text=text):
                texts.append(text)
            case ThoughtPart(block=block):
                thinking.append(block.text)
            case Inline(data=data):
                assert data is not None, "a wire without URLs inlines bytes or writes a marker"
                images.append(data)
            case _:
                assert_never(part)
    message: dict[str, Any] = {"role": role, "content": "\n\n".join(texts)}
    if thinking:
        message["thinking"] = "\n\n".join(thinking)
    if images:
        message["images"] = images
    return message


def check(body: Body) -> list[WireProblem]:
    c = Checker(NAME)
    c.keys(body, "", ("tools", "messages", "model", "stream"), ("messages", "model"))
    c.order(body, ("tools", "messages"))
    c.string(body.get("model"), "model", nonblank=True)
    if "stream" in body and not isinstance(body["stream"], bool):
        c.add("stream", "shape", "stream must be a boolean")
    c.function_tools(body.get("tools", []), ("name", "description", "parameters"))
    expected: list[str] = []
    for where, message in c.objects(body.get("messages"), "messages", nonempty=True):
        role = message.get("role")
        if role != "tool" and expected:
            c.add(where, "pairing", f"tool calls without tool messages: {', '.join(expected)}")
            expected = []
        if role not in ROLES:
            c.add(f"{where}.role", "role", f"role {role!r} is not one of {', '.join(ROLES)}")
            continue
        allowed = ["role", "content", "images"]
        if role == "assistant":
            allowed += ["thinking", "tool_calls"]
        if role == "tool":
            allowed.append("tool_name")
        c.keys(message, where, allowed, () if "tool_calls" in message else ("content",))
        if "content" in message:
            c.string(message["content"], f"{where}.content")
        for k, image in enumerate(c.array(message.get("images", []), f"{where}.images") or []):
            c.base64(image, f"{where}.images[{k}]")
        if "thinking" in message:
            c.string(message["thinking"], f"{where}.thinking")
        if role == "assistant" and "tool_calls" in message:
            expected = _check_calls(c, message["tool_calls"], where)
        elif role == "tool":
            if not expected:
                c.add(where, "pairing", "a tool message must answer a call of the assistant message before it")
            elif message.get("tool_name") != expected[0]:
                c.add(f"{where}.tool_name", "pairing",
                      f"tool_name {message.get('tool_name')!r} does not answer the next call, {expected[0]!r}")
                expected.pop(0)
            else:
                expected.pop(0)
    if expected:
        c.add("messages", "pairing", f"tool calls without tool messages at the end: {', '.join(expected)}")
    return c.problems


def _check_calls(c: Checker, calls: Any, where: str) -> list[str]:
    names: list[str] = []
    for at, call in c.objects(calls, f"{where}.tool_calls", nonempty=True):
        c.keys(call, at, ("function",), ("function",))
        function = c.obj(call.get("function"), f"{at}.function")
        if function is None:
            continue
        c.keys(function, f"{at}.function", ("name", "arguments"), ("name", "arguments"))
        if c.name(function.get("name"), f"{at}.function.name"):
            names.append(function["name"])
        if not isinstance(function.get("arguments"), dict):
            c.add(f"{at}.function.arguments", "arguments", "arguments must be an object")
    return names


def _sdk_types() -> Validator:
    """Ollama's ``ChatRequest`` accepts messages as plain mappings without looking inside, so each
    message and tool is validated with its own type; images become ``Image`` values first, as the
    client's own ``_copy_messages`` does before it validates."""
    from ollama._types import ChatRequest, Image, Message, Tool

    def validate(body: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
        request = ChatRequest.model_validate({k: v for k, v in body.items() if k not in ("messages", "tools")})
        yield "", {k: v for k, v in body.items() if k not in ("messages", "tools")}, \
            request.model_dump(exclude_none=True, exclude={"messages", "tools"})
        for i, message in enumerate(body.get("messages", [])):
            validated = Message.model_validate(
                {k: [Image(value=data) for data in v] if k == "images" else v for k, v in message.items()})
            yield f"messages[{i}]", message, validated.model_dump(exclude_none=True)
        for i, tool in enumerate(body.get("tools", [])):
            validated_tool = Tool.model_validate(tool)
            yield f"tools[{i}]", tool, validated_tool.model_dump(exclude_none=True, by_alias=True)

    return validate


WIRE = WireSpec(
    name=NAME, family="ollama", default_model="llama3.2", messages_key="messages", system=SYSTEM, images=IMAGES,
    reasoning="readable", opens_with_user=OPENS_WITH_USER, signs_calls=False, encode=encode, tools=declare, check=check,
    sdk=Sdk("ollama.Client().chat(**body)", _sdk_types),
)
