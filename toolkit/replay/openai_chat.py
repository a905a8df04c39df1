"""OpenAI Chat Completions (``POST /v1/chat/completions``).

Calls: an assistant message with ``tool_calls`` (arguments as a JSON string), then one ``tool``
message per call, directly after it. Tool messages take text only, so images a tool returned
follow in a user message (as pydantic-ai sends them: corpora ``openai_chat/
pydanticai_cassette_chat_images_after_tool.yaml``). No reasoning slot: reasoning crosses as prose.
"""

from __future__ import annotations

from typing import Any, assert_never

from toolkit.replay import prose
from toolkit.replay import tools as tools_
from toolkit.replay.checks import Checker, WireProblem
from toolkit.replay.parts import Inline, Resolved, only_text, resolve, text_of
from toolkit.replay.plan import Body, Exchange, Part, Plan, TextPart, ThoughtPart, Turn, WireSpec

NAME = "openai-chat"
MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
"""PNG, JPEG, WEBP, non-animated GIF (https://developers.openai.com/api/docs/guides/images-vision,
"Input limits", read 2026-11-29 via ../shared/reference/providers.md §1.1)."""

ROLES = ("system", "developer", "user", "assistant", "tool")


def encode(plan: Plan, notes: list[str]) -> Body:
    messages: list[dict[str, Any]] = []
    if plan.system:
        messages.append({"role": "system", "content": plan.system})
    for item in plan.items:
        match item:
            case Turn():
                messages.append(_turn(item))
            case Exchange():
                messages.extend(_exchange(item))
            case _:
                assert_never(item)
    if not messages:
        messages.append({"role": "user", "content": prose.EMPTY_HISTORY})
    body: Body = {}
    tools = tools_.encode(plan.tools, plan.wire, plan.names, notes)
    if tools:
        body["tools"] = tools
    body["messages"] = messages
    body["model"] = plan.model
    return body


def _turn(turn: Turn) -> dict[str, Any]:
    match turn.role:
        case "system":
            return {"role": "system", "content": text_of(turn.parts)}
        case "user":
            return {"role": "user", "content": user_content(turn.parts)}
        case "assistant":
            return {"role": "assistant", "content": assistant_text(turn.parts)}
        case _:
            assert_never(turn.role)


def assistant_text(parts: tuple[Part, ...]) -> str:
    """An assistant turn as text: images become markers (assistant content takes text only)."""
    return text_of(resolve(parts, NAME, MEDIA_TYPES, True, allowed=False, where="assistant messages"))


def user_content(parts: tuple[Part, ...] | list[Part]) -> str | list[dict[str, Any]]:
    resolved = resolve(parts, NAME, MEDIA_TYPES, True)
    single = only_text(resolved)
    if single is not None:
        return single
    return [_content_part(part) for part in resolved]


def _content_part(part: Resolved) -> dict[str, Any]:
    match part:
        case TextPart(text=text):
            return {"type": "text", "text": text}
        case ThoughtPart(fallback=fallback):
            return {"type": "text", "text": fallback}
        case Inline():
            return {"type": "image_url", "image_url": {"url": part.data_url()}}
        case _:
            assert_never(part)


def _exchange(exchange: Exchange) -> list[dict[str, Any]]:
    calls = [
        {"id": a.call.id, "type": "function", "function": {"name": a.call.name, "arguments": a.call.arguments}}
        for a in exchange.answers
    ]
    words = assistant_text(exchange.lead)
    out: list[dict[str, Any]] = [{"role": "assistant", "content": words or None, "tool_calls": calls}]
    out.extend(
        {"role": "tool", "tool_call_id": a.call.id, "content": result_text(a.output, a.is_error)}
        for a in exchange.answers
    )
    images = tool_images(exchange)
    if images:
        out.append({"role": "user", "content": user_content(images)})
    return out


def result_text(output: str, is_error: bool) -> str:
    """A result on a wire without an error flag says it failed in its text."""
    return f"Error: {output}" if is_error else output


def tool_images(exchange: Exchange) -> list[Part]:
    """The images an exchange's tools returned, each group labelled with its call, for wires
    whose result slot takes no images."""
    parts: list[Part] = []
    for answer in exchange.answers:
        if answer.images:
            parts.append(TextPart(f"Images returned by {answer.call.name} (call {answer.call.id}):"))
            parts.extend(answer.images)
    return parts


def check(body: Body) -> list[WireProblem]:
    c = Checker(NAME)
    c.keys(body, "", ("tools", "messages", "model"), ("messages", "model"))
    c.order(body, ("tools", "messages"))
    c.string(body.get("model"), "model", nonblank=True)
    _check_tools(c, body.get("tools", []))
    messages = c.array(body.get("messages"), "messages", nonempty=True) or []
    pending: dict[str, str] = {}
    seen_ids: set[str] = set()
    for i, raw in enumerate(messages):
        where = f"messages[{i}]"
        message = c.obj(raw, where)
        if message is None:
            continue
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
                if call_id not in pending:
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


def _check_tools(c: Checker, tools: Any) -> None:
    names: set[str] = set()
    for i, raw in enumerate(c.array(tools, "tools") or []):
        where = f"tools[{i}]"
        tool = c.obj(raw, where)
        if tool is None:
            continue
        c.keys(tool, where, ("type", "function"), ("type", "function"))
        function = c.obj(tool.get("function"), f"{where}.function")
        if tool.get("type") != "function" or function is None:
            continue
        c.keys(function, f"{where}.function", ("name", "description", "parameters", "strict"), ("name",))
        if c.name(function.get("name"), f"{where}.function.name"):
            if function["name"] in names:
                c.add(f"{where}.function.name", "tools", f"duplicate tool name {function['name']!r}")
            names.add(function["name"])
        if "parameters" in function:
            c.obj(function["parameters"], f"{where}.function.parameters")


def _check_text_content(c: Checker, content: Any, where: str, what: str = "this message") -> None:
    if isinstance(content, str):
        return
    for j, raw in enumerate(c.array(content, where) or []):
        part = c.obj(raw, f"{where}[{j}]")
        if part is None:
            continue
        if part.get("type") != "text":
            c.add(f"{where}[{j}]", "image" if part.get("type") == "image_url" else "shape",
                  f"{what} take text parts only, not {part.get('type')!r}")
        else:
            c.string(part.get("text"), f"{where}[{j}].text")


def _check_user_content(c: Checker, content: Any, where: str) -> None:
    if isinstance(content, str):
        return
    for j, raw in enumerate(c.array(content, where, nonempty=True) or []):
        at = f"{where}[{j}]"
        part = c.obj(raw, at)
        if part is None:
            continue
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
    for k, raw in enumerate(c.array(calls, f"{where}.tool_calls", nonempty=True) or []):
        at = f"{where}.tool_calls[{k}]"
        call = c.obj(raw, at)
        if call is None:
            continue
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


WIRE = WireSpec(
    name="openai-chat", family="openai", messages_key="messages", encode=encode, check=check,
    sdk_call="openai.OpenAI().chat.completions.create(**body)",
)
