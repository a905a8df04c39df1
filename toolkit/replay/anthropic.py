"""Anthropic Messages (``POST /v1/messages``).

Calls: an assistant message of ``tool_use`` blocks, then a user message whose ``tool_result``
blocks come first. Consecutive messages of one role are kept as stored: the API combines them
into one turn ("Consecutive user or assistant turns in your request will be combined into a single
turn", Messages API reference, read 2026-11-29), which is also how the validator reads them. The
system prompt and leading system messages go to ``system``; a system message later in a history
becomes a user message saying it is one (role ``system`` inside ``messages`` is accepted only by
Claude Opus 4.8 and later). Assistant text loses trailing whitespace everywhere, since a final
assistant turn may not end with it and trimming only the last would rewrite earlier bytes later.
Signed thinking from the same model replays as ``thinking``, except in the final assistant turn,
which may not carry it while thinking is disabled; there it crosses as prose.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, assert_never

from toolkit.record import JsonValue
from toolkit.replay import prose
from toolkit.replay import tools as tools_
from toolkit.replay.checks import Checker, WireProblem
from toolkit.replay.parts import ImageRules, Inline, Resolved, content, resolve, text_of
from toolkit.replay.plan import Body, Exchange, Item, Part, Plan, TextPart, ThoughtPart, WireMessage
from toolkit.replay.sdktypes import Validator, typed_dict
from toolkit.replay.send import messages_sender, read_messages
from toolkit.replay.spec import Sdk, SystemPlacement, WireSpec, place_system, wire_messages
from toolkit.surface import ToolSpec

NAME = "anthropic"
MEDIA_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""JPEG, PNG, GIF, WebP (https://platform.claude.com/docs/en/build-with-claude/vision, read
2026-11-29)."""
IMAGES = ImageRules(NAME, MEDIA_TYPES, urls=True)
SYSTEM: SystemPlacement = "slot"
OPENS_WITH_USER = True
"""'messages: first message must use the "user" role' (400 invalid_request_error, lobehub/lobehub#1601,
2024-03-16); the first-party API later took an assistant turn first while Bedrock still refused it
(anthropics/anthropic-sdk-typescript#622, 2024-12-06), so a replay never opens with one."""
STUB_DESCRIPTION = "Declared by the replay: the recording kept this tool's name, not its specification."

USER_BLOCKS = ("text", "image", "tool_result", "document", "search_result")
ASSISTANT_BLOCKS = ("text", "thinking", "redacted_thinking", "tool_use")
THINKING = ("thinking", "redacted_thinking")


def encode(plan: Plan, notes: list[str]) -> Body:
    system, items = place_system(plan, SYSTEM)
    messages = wire_messages(items, _turn, _exchange, opens_with_user=OPENS_WITH_USER)
    _final_thinking(messages, notes)
    tools = tools_.declare(plan, notes, declare) or _stubs(items, notes)
    return {**tools, **({"system": system} if system is not None else {}), "messages": messages,
            "model": plan.model, "max_tokens": plan.max_tokens}


def declare(tools: Sequence[tools_.Declared]) -> list[dict[str, JsonValue]]:
    return [_tool(spec, name) for spec, name in tools]


def _tool(spec: ToolSpec, name: str) -> dict[str, JsonValue]:
    schema = tools_.parameters(spec)
    input_schema = schema if schema.get("type") is not None else {"type": "object", **schema}
    return {"name": name, **tools_.described(spec), "input_schema": input_schema}


def _turn(turn: WireMessage) -> dict[str, Any]:
    match turn.role:
        case "system":
            return {"role": "user", "content": prose.system_note(text_of(turn.parts))}
        case "user":
            return {"role": "user", "content": _content(turn.parts, user=True)}
        case "assistant":
            return {"role": "assistant", "content": _content(turn.parts, user=False)}
        case _:
            assert_never(turn.role)


def _exchange(exchange: Exchange, messages: list[dict[str, Any]]) -> None:
    words = _content(exchange.lead, user=False) if exchange.lead else []
    messages.append({"role": "assistant", "content": [
        *([{"type": "text", "text": words}] if isinstance(words, str) else words),
        *({"type": "tool_use", "id": a.call.id, "name": a.call.name, "input": a.call.input} for a in exchange.answers),
    ]})
    messages.append({"role": "user", "content": [_result(a.call.id, a.output, a.is_error, a.images)
                                                 for a in exchange.answers]})


def _stubs(items: list[Item], notes: list[str]) -> dict[str, Any]:
    """Stub declarations for the called tools when the recording kept none: the API refuses a
    history with ``tool_use`` blocks and no tools ("Requests which include tool_use or tool_result
    blocks must define tools", anthropics/anthropic-sdk-python#494, 2024-05-13)."""
    called = dict.fromkeys(a.call.name for item in items if isinstance(item, Exchange) for a in item.answers)
    if not called:
        return {}
    notes.append(f"tools: {len(called)} tool(s) declared as stubs from their calls' names, because "
                 "Anthropic refuses tool_use blocks without declared tools")
    return {"tools": [{"name": name, "description": STUB_DESCRIPTION, "input_schema": {"type": "object"}}
                      for name in called]}


def _content(parts: tuple[Part, ...], user: bool) -> str | list[dict[str, Any]]:
    resolved = resolve(parts, IMAGES, allowed=user, where="assistant messages")
    if not user:
        resolved = [TextPart(p.text.rstrip()) if isinstance(p, TextPart) else p for p in resolved]
    return content(resolved, _block)


def _block(part: Resolved) -> dict[str, Any]:
    match part:
        case TextPart(text=text):
            return {"type": "text", "text": text}
        case ThoughtPart(block=block):
            if block.redacted:
                return {"type": "redacted_thinking", "data": block.signature or ""}
            return {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}
        case Inline():
            source: dict[str, str | None] = (
                {"type": "base64", "media_type": part.image.media_type, "data": part.data} if part.data is not None
                else {"type": "url", "url": part.url}
            )
            return {"type": "image", "source": source}
        case _:
            assert_never(part)


def _result(call_id: str, output: str, is_error: bool, images: tuple[Part, ...]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    if images:
        parts: list[Part] = [TextPart(output)] if output.strip() else []
        parts.extend(images)
        block["content"] = [_block(p) for p in resolve(parts, IMAGES)]
    elif output.strip():
        block["content"] = output
    if is_error:
        block["is_error"] = True
    return block


def _final_thinking(messages: list[dict[str, Any]], notes: list[str]) -> None:
    """The final assistant turn may not carry thinking while thinking is disabled ("When thinking is
    disabled, an assistant message in the final position cannot contain thinking", the Messages
    API's 400 error): there, and only there, thinking crosses as prose."""
    changed = False
    for message in reversed(messages):
        if message["role"] != "assistant":
            break
        blocks = message["content"]
        if isinstance(blocks, list) and any(b["type"] in THINKING for b in blocks):
            message["content"] = [
                {"type": "text", "text": prose.reasoning_text(b.get("thinking", ""))} if b["type"] in THINKING else b
                for b in blocks
            ]
            changed = True
    if changed:
        notes.append("reasoning: the final assistant turn's thinking crosses as prose (Anthropic refuses thinking "
                     "in the final assistant turn while thinking is disabled)")


def check(body: Body) -> list[WireProblem]:
    c = Checker(NAME)
    c.keys(body, "", ("tools", "system", "messages", "model", "max_tokens", "thinking"),
           ("messages", "model", "max_tokens"))
    c.order(body, ("tools", "system", "messages"))
    c.string(body.get("model"), "model", nonblank=True)
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        c.add("max_tokens", "shape", "max_tokens must be a positive integer")
    if "system" in body and not isinstance(body["system"], str):
        for at, block in c.objects(body["system"], "system"):
            _check_text_block(c, block, at)
    tools = _check_tools(c, body.get("tools", []))
    turns: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []
    uses_tools = False
    for where, message in c.objects(body.get("messages"), "messages", nonempty=True):
        c.keys(message, where, ("role", "content"), ("role", "content"))
        role = message.get("role")
        if role not in ("user", "assistant"):
            c.add(f"{where}.role", "role", f"role {role!r} in messages is accepted only by some models "
                  "(system: Claude Opus 4.8 and later, after a user turn); use user or assistant")
            continue
        blocks = _blocks(c, message.get("content"), where, role)
        uses_tools = uses_tools or any(b.get("type") in ("tool_use", "tool_result") for _, b in blocks)
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    if OPENS_WITH_USER and turns and turns[0][0] != "user":
        c.add("messages[0].role", "role", 'messages: first message must use the "user" role')
    _check_pairing(c, turns)
    if turns and turns[-1][0] == "assistant":
        _check_final(c, turns[-1][1], "thinking" in body)
    if uses_tools and not tools:
        c.add("tools", "tools", "Requests which include tool_use or tool_result blocks must define tools.")
    return c.problems


def _check_tools(c: Checker, tools: Any) -> set[str]:
    names: set[str] = set()
    for where, tool in c.objects(tools, "tools"):
        if tool.get("type") not in (None, "custom"):
            continue
        c.keys(tool, where, ("type", "name", "description", "input_schema", "cache_control", "strict"),
               ("name", "input_schema"))
        schema = c.obj(tool.get("input_schema"), f"{where}.input_schema")
        if schema is not None and schema.get("type") != "object":
            c.add(f"{where}.input_schema.type", "tools", "input_schema must be an object schema (type 'object')")
        c.unique_name(tool.get("name"), f"{where}.name", names)
    return names


def _blocks(c: Checker, content: Any, where: str, role: str) -> list[tuple[str, dict[str, Any]]]:
    """The message's content as (path, block) pairs, each block checked on its own."""
    if isinstance(content, str):
        c.string(content, f"{where}.content", nonblank=True)
        return [(f"{where}.content", {"type": "text", "text": content})]
    out: list[tuple[str, dict[str, Any]]] = []
    allowed = USER_BLOCKS if role == "user" else ASSISTANT_BLOCKS
    for at, block in c.objects(content, f"{where}.content", nonempty=True):
        kind = block.get("type")
        if kind not in allowed:
            c.add(f"{at}.type", "image" if kind == "image" else "role", f"{kind!r} blocks are not accepted in {role} turns")
            continue
        out.append((at, block))
        match kind:
            case "text":
                _check_text_block(c, block, at)
            case "image":
                _check_image(c, block, at)
            case "tool_use":
                c.keys(block, at, ("type", "id", "name", "input", "cache_control"), ("id", "name", "input"))
                c.call_id(block.get("id"), f"{at}.id", limit=None)
                c.name(block.get("name"), f"{at}.name")
                if not isinstance(block.get("input"), dict):
                    c.add(f"{at}.input", "arguments", "tool_use input must be an object")
            case "tool_result":
                c.keys(block, at, ("type", "tool_use_id", "content", "is_error", "cache_control"), ("tool_use_id",))
                inner = block.get("content")
                if isinstance(inner, list):
                    for part_at, part in c.objects(inner, f"{at}.content"):
                        if part.get("type") == "image":
                            _check_image(c, part, part_at)
                        elif part.get("type") == "text":
                            _check_text_block(c, part, part_at)
                        else:
                            c.add(part_at, "shape", f"unexpected {part.get('type')!r} block in a tool_result")
                elif inner is not None:
                    c.string(inner, f"{at}.content")
                if "is_error" in block and not isinstance(block["is_error"], bool):
                    c.add(f"{at}.is_error", "shape", "is_error must be a boolean")
            case "thinking":
                c.keys(block, at, ("type", "thinking", "signature"), ("thinking", "signature"))
                c.string(block.get("thinking"), f"{at}.thinking")
                if not isinstance(block.get("signature"), str) or not block["signature"]:
                    c.add(f"{at}.signature", "signature", "a thinking block needs the signature it was returned with")
            case "redacted_thinking":
                c.keys(block, at, ("type", "data"), ("data",))
                if not isinstance(block.get("data"), str) or not block["data"]:
                    c.add(f"{at}.data", "signature", "a redacted_thinking block needs its data")
    return out


def _check_text_block(c: Checker, block: dict[str, Any], at: str) -> None:
    c.keys(block, at, ("type", "text", "cache_control", "citations"), ("text",))
    c.string(block.get("text"), f"{at}.text", nonblank=True)


def _check_image(c: Checker, block: dict[str, Any], at: str) -> None:
    c.keys(block, at, ("type", "source", "cache_control"), ("source",))
    source = c.obj(block.get("source"), f"{at}.source")
    if source is None:
        return
    match source.get("type"):
        case "base64":
            c.keys(source, f"{at}.source", ("type", "media_type", "data"), ("media_type", "data"))
            c.media_type(source.get("media_type"), f"{at}.source.media_type", MEDIA_TYPES)
            c.base64(source.get("data"), f"{at}.source.data")
        case "url":
            c.keys(source, f"{at}.source", ("type", "url"), ("url",))
            url = source.get("url")
            if not (isinstance(url, str) and url.startswith(("https://", "http://"))):
                c.add(f"{at}.source.url", "image", "an image URL must be http(s)")
        case other:
            c.add(f"{at}.source.type", "image", f"unknown image source type {other!r}")


def _check_pairing(c: Checker, turns: list[tuple[str, list[tuple[str, dict[str, Any]]]]]) -> None:
    """On the combined turns: every ``tool_use`` answered by a ``tool_result`` first in the next
    (user) turn, and every ``tool_result`` answering a ``tool_use`` of the turn just before."""
    seen: set[str] = set()
    for n, (role, blocks) in enumerate(turns):
        if role == "assistant":
            uses = [(at, b["id"]) for at, b in blocks if b.get("type") == "tool_use" and isinstance(b.get("id"), str)]
            for at, use_id in uses:
                if use_id in seen:
                    c.add(f"{at}.id", "id", f"tool_use id {use_id!r} is used twice")
                seen.add(use_id)
            if not uses:
                continue
            following = turns[n + 1][1] if n + 1 < len(turns) else []
            leading: set[str] = set()
            for _, b in following:
                if b.get("type") != "tool_result":
                    break
                leading.add(str(b.get("tool_use_id")))
            missing = [use_id for _, use_id in uses if use_id not in leading]
            if missing:
                c.add(uses[0][0], "pairing", f"tool_use ids were found without tool_result blocks immediately after: "
                      f"{', '.join(missing)}. Each tool_use block must have a corresponding tool_result block "
                      "at the start of the next message.")
        else:
            previous = turns[n - 1][1] if n > 0 and turns[n - 1][0] == "assistant" else []
            asked = {b["id"] for _, b in previous if b.get("type") == "tool_use" and isinstance(b.get("id"), str)}
            after_other = False
            for at, b in blocks:
                if b.get("type") != "tool_result":
                    after_other = True
                    continue
                if after_other:
                    c.add(at, "order", "tool_result blocks must come first in the user message, before any other content")
                if not isinstance(b.get("tool_use_id"), str) or b["tool_use_id"] not in asked:
                    c.add(f"{at}.tool_use_id", "pairing", f"unexpected tool_use_id found in tool_result blocks: "
                          f"{b.get('tool_use_id')}. Each tool_result block must have a corresponding tool_use block "
                          "in the previous message.")


def _check_final(c: Checker, blocks: list[tuple[str, dict[str, Any]]], thinking: bool) -> None:
    if not thinking:
        for at, b in blocks:
            if b.get("type") in ("thinking", "redacted_thinking"):
                c.add(at, "signature", "When thinking is disabled, an assistant message in the final position cannot "
                      "contain thinking.")
    texts = [(at, b) for at, b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
    if texts and texts[-1][1]["text"] != texts[-1][1]["text"].rstrip():
        c.add(texts[-1][0], "shape", "final assistant content cannot end with trailing whitespace")


def _sdk_types() -> Validator:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    return typed_dict(MessageCreateParamsNonStreaming)


WIRE = WireSpec(
    name=NAME, family="anthropic", default_model="claude-sonnet-4-5", messages_key="messages", system=SYSTEM,
    images=IMAGES, reasoning="signed", opens_with_user=OPENS_WITH_USER, signs_calls=False, encode=encode, tools=declare, check=check,
    sdk=Sdk("anthropic.Anthropic().messages.create(**body)", _sdk_types, send=messages_sender, read=read_messages),
)
