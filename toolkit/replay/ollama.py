"""Ollama ``POST /api/chat``.

Calls: an assistant message with ``tool_calls`` (arguments as an object, no call ids), then one
``tool`` message per call naming it in ``tool_name``: Ollama matches results to calls by name and
order (ollama/ollama#11294). Images ride as base64 in ``images`` (no URLs); tool messages carry
text, so a tool's images follow in a user message. Thinking from the same model rides in
``thinking``.
"""

from __future__ import annotations

from typing import Any, assert_never

from toolkit.replay import tools as tools_
from toolkit.replay.checks import Checker, WireProblem
from toolkit.replay.parts import Inline, resolve, result_text, text_of, tool_images
from toolkit.replay.plan import Body, Exchange, Part, Plan, TextPart, ThoughtPart, Turn, WireSpec
from toolkit.replay.wires import render, system_first

NAME = "ollama"
MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp"})
""""Valid image formats depend on the model" (ollama 0.6.3 ``_types.Message.images``); the client
reads png, jpg, jpeg and webp files (``_types.Image``), read 2026-11-29."""
ROLES = ("system", "user", "assistant", "tool")


def encode(plan: Plan, notes: list[str]) -> Body:
    messages = render(system_first(plan), _turn, _exchange)
    return {**tools_.declare(plan, notes), "messages": messages, "model": plan.model, "stream": False}


def _turn(turn: Turn) -> dict[str, Any]:
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
    for part in resolve(parts, NAME, MEDIA_TYPES, False, allowed=role == "user", where="assistant messages"):
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


WIRE = WireSpec(
    name="ollama", family="ollama", messages_key="messages", encode=encode, check=check,
    sdk_call="ollama.Client().chat(**body)",
)
