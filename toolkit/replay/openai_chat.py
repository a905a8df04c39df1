"""OpenAI Chat Completions (``POST /v1/chat/completions``).

Calls: an assistant message with ``tool_calls`` (arguments as a JSON string), then one ``tool``
message per call, directly after it. Tool messages take text only, so images a tool returned
follow in a user message (as pydantic-ai sends them: corpora ``openai_chat/
pydanticai_cassette_chat_images_after_tool.yaml``). No reasoning slot: reasoning crosses as prose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, assert_never

from toolkit.record import JsonValue
from toolkit.replay import tools as tools_
from toolkit.replay.checks import Checker, WireProblem
from toolkit.replay.parts import (
    ImageRules,
    Inline,
    Resolved,
    content,
    resolve,
    result_text,
    text_of,
    tool_images,
)
from toolkit.replay.plan import Body, Exchange, Part, Plan, TextPart, ThoughtPart, WireMessage
from toolkit.replay.sdktypes import Validator, typed_dict
from toolkit.replay.send import chat_sender, read_chat
from toolkit.replay.spec import Sdk, SystemPlacement, WireSpec, place_system, wire_messages

NAME = "openai-chat"
MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
"""PNG, JPEG, WEBP, non-animated GIF (https://developers.openai.com/api/docs/guides/images-vision,
"Input limits", read 2026-11-29)."""
IMAGES = ImageRules(NAME, MEDIA_TYPES, urls=True)
SYSTEM: SystemPlacement = "message"
OPENS_WITH_USER = False
"""Chat Completions takes the assistant's turn first (mckaywrigley/chatbot-ui#1656, 2024-04-09:
"OpenAI doesn't mind which comes first"); no documented rule says otherwise."""

ROLES = ("system", "developer", "user", "assistant", "tool")


def encode(plan: Plan, notes: list[str]) -> Body:
    _, items = place_system(plan, SYSTEM)
    messages = wire_messages(items, _turn, _exchange, opens_with_user=OPENS_WITH_USER)
    return {**tools_.declare(plan, notes, declare), "messages": messages, "model": plan.model}


def declare(tools: Sequence[tools_.Declared]) -> list[dict[str, JsonValue]]:
    """``function`` tools, ``strict`` as an OpenAI recording set it."""
    out: list[dict[str, JsonValue]] = []
    for spec, name in tools:
        strict = tools_.recorded_strict(spec)
        function: dict[str, JsonValue] = {"name": name, **tools_.described(spec), "parameters": tools_.parameters(spec)}
        if strict is not None:
            function["strict"] = strict
        out.append({"type": "function", "function": function})
    return out


def role_message(turn: WireMessage, images: ImageRules, spell: Callable[[Resolved], dict[str, Any]]) -> dict[str, Any]:
    """A turn as a ``role``/``content`` message, the way both OpenAI wires write it but for how
    ``spell`` writes a user content part."""
    match turn.role:
        case "system":
            return {"role": "system", "content": text_of(turn.parts)}
        case "user":
            return {"role": "user", "content": content(resolve(turn.parts, images), spell)}
        case "assistant":
            return {"role": "assistant", "content": assistant_text(turn.parts, images)}
        case _:
            assert_never(turn.role)


def _turn(turn: WireMessage) -> dict[str, Any]:
    return role_message(turn, IMAGES, _content_part)


def assistant_text(parts: tuple[Part, ...], images: ImageRules = IMAGES) -> str:
    """An assistant turn as text: images become markers that name the wire (assistant content
    takes text only on both OpenAI wires)."""
    return text_of(resolve(parts, images, allowed=False, where="assistant messages"))


def _content_part(part: Resolved) -> dict[str, Any]:
    match part:
        case TextPart(text=text) | ThoughtPart(fallback=text):
            return {"type": "text", "text": text}
        case Inline():
            return {"type": "image_url", "image_url": {"url": part.data_url()}}
        case _:
            assert_never(part)


def _exchange(exchange: Exchange, messages: list[dict[str, Any]]) -> None:
    calls = [
        {"id": a.call.id, "type": "function", "function": {"name": a.call.name, "arguments": a.call.arguments}}
        for a in exchange.answers
    ]
    messages.append({"role": "assistant", "content": assistant_text(exchange.lead) or None, "tool_calls": calls})
    messages.extend(
        {"role": "tool", "tool_call_id": a.call.id, "content": result_text(a.output, a.is_error)}
        for a in exchange.answers
    )
    messages.extend(_turn(images) for images in tool_images(exchange))


def check(body: Body) -> list[WireProblem]:
    c = Checker(NAME)
    c.keys(body, "", ("tools", "messages", "model"), ("messages", "model"))
    c.order(body, ("tools", "messages"))
    c.string(body.get("model"), "model", nonblank=True)
    c.function_tools(body.get("tools", []), ("name", "description", "parameters", "strict"))
    pending: dict[str, str] = {}
    seen_ids: set[str] = set()
    for where, message in c.objects(body.get("messages"), "messages", nonempty=True):
        role = message.get("role")
        if pending and role != "tool":
            c.add(where, "pairing", "an assistant message with 'tool_calls' must be followed by tool messages "
                  f"responding to each 'tool_call_id'; missing: {', '.join(pending)}")
            pending = {}
        match role:
            case "system" | "developer":
                c.keys(message, where, ("role", "content", "name"), ("content",))
                _check_text_content(c, message.get("content"), f"{where}.content")
            case "user":
                c.keys(message, where, ("role", "content", "name"), ("content",))
                _check_user_content(c, message.get("content"), f"{where}.content")
            case "assistant":
                c.keys(message, where, ("role", "content", "tool_calls", "name", "refusal"))
                pending = _check_assistant(c, message, where, seen_ids)
            case "tool":
                c.keys(message, where, ("role", "content", "tool_call_id"), ("content", "tool_call_id"))
                call_id = message.get("tool_call_id")
                if not isinstance(call_id, str) or call_id not in pending:
                    c.add(where, "pairing", "messages with role 'tool' must be a response to a preceding message "
                          f"with 'tool_calls' (no pending call {call_id!r})")
                else:
                    del pending[call_id]
                _check_text_content(c, message.get("content"), f"{where}.content", "tool messages")
            case _:
                c.add(f"{where}.role", "role", f"role {role!r} is not one of {', '.join(ROLES)}")
    if pending:
        c.add("messages", "pairing", f"tool calls without tool messages at the end: {', '.join(pending)}")
    return c.problems


def _check_text_content(c: Checker, content: Any, where: str, what: str = "this message") -> None:
    if isinstance(content, str):
        return
    for at, part in c.objects(content, where):
        if part.get("type") != "text":
            c.add(at, "image" if part.get("type") == "image_url" else "shape",
                  f"{what} take text parts only, not {part.get('type')!r}")
        else:
            c.string(part.get("text"), f"{at}.text")


def _check_user_content(c: Checker, content: Any, where: str) -> None:
    if isinstance(content, str):
        return
    for at, part in c.objects(content, where, nonempty=True):
        match part.get("type"):
            case "text":
                c.keys(part, at, ("type", "text"), ("text",))
                c.string(part.get("text"), f"{at}.text")
            case "image_url":
                c.keys(part, at, ("type", "image_url"), ("image_url",))
                image = c.obj(part.get("image_url"), f"{at}.image_url")
                if image is not None:
                    c.keys(image, f"{at}.image_url", ("url", "detail"), ("url",))
                    c.image_url(image.get("url"), f"{at}.image_url.url", MEDIA_TYPES)
            case other:
                c.add(at, "shape", f"unknown content part type {other!r}")


def _check_assistant(c: Checker, message: dict[str, Any], where: str, seen: set[str]) -> dict[str, str]:
    content = message.get("content")
    calls = message.get("tool_calls")
    if content is None and not calls:
        c.add(f"{where}.content", "empty", "an assistant message needs content or tool_calls")
    elif content is not None:
        _check_text_content(c, content, f"{where}.content", "assistant messages")
    pending: dict[str, str] = {}
    if calls is None:
        return pending
    for at, call in c.objects(calls, f"{where}.tool_calls", nonempty=True):
        c.keys(call, at, ("id", "type", "function"), ("id", "type", "function"))
        if c.call_id(call.get("id"), f"{at}.id"):
            if call["id"] in seen:
                c.add(f"{at}.id", "id", f"tool call id {call['id']!r} is used twice in the request")
            seen.add(call["id"])
        if call.get("type") != "function":
            c.add(f"{at}.type", "shape", "type must be 'function'")
        function = c.obj(call.get("function"), f"{at}.function")
        if function is None:
            continue
        c.keys(function, f"{at}.function", ("name", "arguments"), ("name", "arguments"))
        c.name(function.get("name"), f"{at}.function.name")
        c.json_object_text(function.get("arguments"), f"{at}.function.arguments")
        if isinstance(call.get("id"), str):
            pending[call["id"]] = str(function.get("name"))
    return pending


def _sdk_types() -> Validator:
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    return typed_dict(CompletionCreateParamsNonStreaming)


WIRE = WireSpec(
    name=NAME, family="openai", default_model="gpt-5.4", messages_key="messages", system=SYSTEM, images=IMAGES,
    reasoning="none", opens_with_user=OPENS_WITH_USER, signs_calls=False, encode=encode, tools=declare, check=check,
    sdk=Sdk("openai.OpenAI().chat.completions.create(**body)", _sdk_types, send=chat_sender, read=read_chat),
)
