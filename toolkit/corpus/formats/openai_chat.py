"""OpenAI Chat Completions conversations, and OpenAI Responses API items, read into the record.

Documents: a JSON array of messages; a request body (``messages`` with ``model``, ``tools``,
``functions``, ``tool_choice``...); a response (``choices[].message`` with ``usage``); the same one per
JSONL line (fine-tuning rows ``{"messages": [...], "tools": [...]}`` included). OpenAI-compatible
servers are read too: ``reasoning_content`` (DeepSeek, vLLM), ``reasoning`` / ``reasoning_details``
(OpenRouter: details sharing an ``id`` are one reasoning item, one block), Gemini's OpenAI-compatible
thought signatures on calls (``extra_content.google.thought_signature``, a redacted block before the call),
and Ollama's ``/api/chat`` (``images``, ``thinking``, ``tool_name``, arguments given as
objects, calls without ids).

Roles: ``system`` and ``developer`` (tagged ``developer``) become ``system``; ``tool`` and the legacy
``function`` results become ``tool`` messages holding a ``ToolResult`` (its ``name`` kept when the
message names the tool). Content is a string or parts: text, ``image_url`` (``data:`` URLs stored as
image bytes, other URLs kept as references), refusal (text), ``input_audio`` / ``file`` (opaque,
kept). Assistant ``tool_calls`` (function and custom) and the legacy ``function_call`` become
``ToolUse`` blocks; arguments that are not valid JSON are kept as raw text and reported. A result whose
call is missing is reported and kept. Message ids are ``<prefix>:<index in the list>``.

The Responses API (``input`` / ``output`` item lists) is read by ``items_to_record``: messages,
``reasoning`` (one block an item: its summary text, then any raw content text, ``encrypted_content`` as the
signature), ``function_call`` / ``custom_tool_call`` and every other client-executed ``*_call`` with a ``call_id``, their
``*_call_output`` items, and server-side tool items as opaque blocks. Consecutive model-side items form
one assistant message, consecutive outputs one tool message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import ImportContext, parse_time
from toolkit.corpus.formats.shapes import as_int, items, kind_name, obj, shown, text_field, text_of
from toolkit.corpus.formats.wirekit import (
    CallBook,
    JsonObj,
    Origin,
    ParsedRequest,
    Where,
    Wire,
    body_list,
    content_blocks,
    each_message,
    image_base64,
    result_parts,
    run_config,
    tool_use,
    unread_message,
    usage_of,
)
from toolkit.jsontext import stringify
from toolkit.record import (
    Block,
    Image,
    Message,
    Opaque,
    Reasoning,
    Role,
    Text,
    ToolResult,
    ToolUse,
    Usage,
)

FORMAT = "openai_chat"
PROVIDER = "openai"

KNOWN_PARTS = frozenset({"input_audio", "file", "audio", "audio_url", "video_url", "input_video"})
"""Content parts the record has no kind for: kept as opaque blocks without a problem."""

REASONING_KEYS = frozenset({"reasoning_details", "reasoning_content", "reasoning", "thinking"})
"""Fields OpenAI-compatible servers put reasoning in (OpenRouter, DeepSeek / vLLM, Ollama)."""

MESSAGE_KEYS = frozenset({
    "role", "content", "name", "tool_calls", "tool_call_id", "function_call", "refusal", "audio", "annotations",
    "images", "tool_name", "id", "type", "prefix", "partial", "index", "status", *REASONING_KEYS,
})
"""Keys a Chat Completions message has: OpenAI's (``ChatCompletionMessageParam`` of openai-python),
those of the compatible servers read here, and those chat logs add (``id``, ``type``, ``status``,
``index``; ``prefix`` and ``partial``: Mistral and Moonshot prefix completion)."""


# --------------------------------------------------------------------------------------------
# Chat Completions messages


def messages_to_record(messages: Sequence[Any], origin: Origin) -> list[Message]:
    """Chat Completions messages as record messages, ids ``<id_prefix>:<first_index + i>``, each the
    child of the one before (the first of the origin's ``parent_id``).

    The origin's ``line`` / ``lines`` say where the list sits for problems (default: item index + 1);
    its ``model`` and ``provider`` (none by default: any server may speak this wire) label assistant
    messages and their reasoning; its ``history`` holds earlier messages of the same conversation
    whose calls these messages may answer."""
    return _messages(messages, origin, origin.id_prefix, origin.first_index, origin.model, origin.provider,
                     CallBook(origin.history), origin.parent_id)


def _messages(messages: Sequence[Any], where: Where, prefix: str, first: int, model: str | None,
              provider: str | None, book: CallBook, parent: str | None = None) -> list[Message]:
    return each_message(messages, where, prefix, first, parent, "message",
                        lambda raw, i, message_id, parent: _message(raw, i, message_id, where, model, provider,
                                                                    book, parent))


def _message(raw: JsonObj, i: int, message_id: str, where: Where, model: str | None, provider: str | None,
             book: CallBook, parent: str | None = None) -> Message:
    line = where.at(i)
    role = raw.get("role")
    content = raw.get("content")
    # Messages are built with positional arguments: keywords cost 0.3 us a message (20 in a 20 KB file).
    if role == "user" and isinstance(content, str) and "images" not in raw:  # the common case, kept fast
        return Message(message_id, parent, "user", (Text(content),) if content else (), None, None, None, None,
                       where.source(line))
    blocks: list[Block] = []
    tags: tuple[str, ...] = ()
    record_role: Role
    if role == "assistant":
        record_role = "assistant"
        if not REASONING_KEYS.isdisjoint(raw):
            blocks += _reasoning(raw, where, line, model, provider)
        if content is not None:  # a reply that only calls tools has none
            blocks += _content(content, where, line, model, provider)
        if isinstance(raw.get("refusal"), str) and raw["refusal"]:
            blocks.append(Text(raw["refusal"]))
        if "tool_calls" in raw or "function_call" in raw:
            blocks += _calls(raw, message_id, where, line, book, model, provider)
        for key in ("audio", "annotations"):
            if raw.get(key):
                blocks.append(Opaque(key, raw[key], "assistant metadata the record has no kind for"))
    elif role in ("tool", "function"):
        record_role = "tool"
        blocks += _result(raw, message_id, where, line, book)
    elif role in ("system", "developer", "user"):
        record_role = "user" if role == "user" else "system"
        tags = ("developer",) if role == "developer" else ()
        blocks += _content(content, where, line, model, provider)
        blocks += _ollama_images(raw.get("images"), where, line)
    else:
        where.problem(line, f"message {i + 1} has unknown role {shown(role)}; kept as a user message")
        record_role = "user"
        blocks += _content(content, where, line, model, provider)
    if not blocks or record_role == "tool":  # a tool message's content is its result's output
        blocks += unread_message(raw, "content", MESSAGE_KEYS, where, line, "message")
    speaker = record_role == "assistant"
    return Message(message_id, parent, record_role, tuple(blocks), None, model if speaker else None,
                   provider if speaker else None, None, where.source(line), False, tags)


def _reasoning(raw: JsonObj, where: Where, line: int | None, model: str | None,
               provider: str | None) -> list[Block]:
    """Reasoning fields OpenAI-compatible servers add to assistant messages."""
    details = raw.get("reasoning_details")
    if isinstance(details, list) and details:  # OpenRouter; supersedes its plain ``reasoning`` copy
        out: list[Block] = []
        # item id -> its block: OpenRouter gives one OpenAI reasoning item as a summary detail and an
        # encrypted detail carrying the item's id, and an item is one reasoning block (``frames``)
        items_at: dict[str, int] = {}
        for detail in details:
            kind = detail.get("type") if isinstance(detail, dict) else None
            if not isinstance(detail, dict):
                continue
            found: Reasoning
            if kind in ("reasoning.text", "reasoning.summary"):
                text = detail.get("text") if kind == "reasoning.text" else detail.get("summary")
                found = Reasoning(text if isinstance(text, str) else "", signature=text_of(detail.get("signature")),
                                  provider=provider, model=model)
            elif kind == "reasoning.encrypted":
                found = Reasoning("", signature=text_of(detail.get("data")), provider=provider, model=model,
                                  redacted=True)
            else:
                where.problem(line, f"unknown reasoning detail type {shown(kind)}; kept as opaque")
                out.append(Opaque(kind_name(kind), detail, "unknown reasoning detail"))
                continue
            item = text_of(detail.get("id"))
            at = items_at.get(item) if item is not None else None
            if at is None:
                if item is not None:
                    items_at[item] = len(out)
                out.append(found)
                continue
            held = out[at]
            assert isinstance(held, Reasoning)
            joined = "\n\n".join(t for t in (held.text, found.text) if t)
            signature = held.signature if found.signature is None else found.signature
            out[at] = replace(held, text=joined, signature=signature, redacted=not joined and signature is not None)
        return out
    for key in ("reasoning_content", "reasoning", "thinking"):
        text = raw.get(key)
        if isinstance(text, str) and text:
            return [Reasoning(text, provider=provider, model=model)]
    return []


def _content(content: Any, where: Where, line: int | None, model: str | None,
             provider: str | None) -> list[Block]:
    return content_blocks(content, where, line, "part", lambda part: _part(part, where, line, model, provider))


def _part(part: JsonObj, where: Where, line: int | None, model: str | None, provider: str | None) -> list[Block]:
    kind = part.get("type")
    if kind is not None and not isinstance(kind, str):
        where.problem(line, f"content part type is a JSON {type(kind).__name__}, not a string; kept as opaque")
        return [Opaque("part", part, "type is not a string")]
    if kind in ("text", "input_text", "output_text") or (kind is None and isinstance(part.get("text"), str)):
        text = part.get("text")
        if not isinstance(text, str):
            where.problem(line, f"{kind or 'text'} part whose text is {shown(text)}, not a string; kept as opaque")
            return [Opaque(kind_name(kind), part, "text part without text")]
        return [Text(text)] if text else []
    if kind in ("image_url", "input_image"):
        ref = part.get("image_url")
        url = ref.get("url") if isinstance(ref, dict) else ref
        if isinstance(url, str):
            return [where.ctx.image_data_url(url, where.file, line)]
        if kind == "input_image" and isinstance(part.get("file_id"), str):
            return [Opaque("input_image", part, "image by file id; bytes not recorded")]
        where.problem(line, f"{kind} part without a URL; kept as opaque")
        return [Opaque(kind_name(kind), part, "no URL")]
    if kind == "refusal":
        return [Text(stringify(part.get("refusal") or ""))]
    if kind in ("thinking", "reasoning"):  # Mistral-style thinking parts in assistant content
        inner = part.get("thinking", part.get("text"))
        if isinstance(inner, list):
            inner = "".join(stringify(p.get("text", "")) for p in inner if isinstance(p, dict))
        return [Reasoning(stringify(inner or ""), signature=text_of(part.get("signature")), provider=provider, model=model)]
    if kind in KNOWN_PARTS or kind == "input_file":
        return [Opaque(kind_name(kind), part, "content the record has no kind for")]
    where.problem(line, f"unknown content part type {shown(kind)}; kept as opaque")
    return [Opaque(kind_name(kind), part, "unknown content part")]


def _ollama_images(images: Any, where: Where, line: int | None) -> list[Block]:
    """Ollama puts user images beside the text as bare base64 strings."""
    if not isinstance(images, list):
        return []
    return [image_base64(where, line, image, None) for image in images if isinstance(image, str)]


def _calls(raw: JsonObj, message_id: str, where: Where, line: int | None, book: CallBook, model: str | None = None,
           provider: str | None = None) -> list[Block]:
    out: list[Block] = []
    calls = raw.get("tool_calls")
    if isinstance(calls, list):
        for j, call in enumerate(calls):
            if isinstance(call, dict):
                signature = _google_signature(call)
                if signature is not None:
                    out.append(Reasoning("", signature=signature, provider=provider, model=model, redacted=True))
                out.append(_tool_use(call, message_id, j, where, line, book))
            else:
                where.problem(line, f"tool call {j + 1} is a JSON {type(call).__name__}; kept as opaque")
                out.append(Opaque("tool_call", call, "not an object"))
    legacy = raw.get("function_call")
    if isinstance(legacy, dict):
        out.append(_tool_use({"function": legacy}, message_id, "function_call", where, line, book))
    return out


def _google_signature(value: JsonObj) -> str | None:
    """The thought signature Gemini's OpenAI-compatible endpoint puts on a call (``extra_content.google.
    thought_signature``, https://ai.google.dev/gemini-api/docs/thought-signatures, read 2026-12-03): a
    redacted reasoning block before the call, as the Gemini wire reads a signed ``functionCall`` part."""
    extra = value.get("extra_content")
    if not isinstance(extra, dict):
        return None
    return text_of(obj(extra.get("google")).get("thought_signature"))


def _tool_use(call: JsonObj, message_id: str, slot: int | str, where: Where, line: int | None,
              book: CallBook) -> Block:
    """A call; one without an id is named ``<message id>.<slot>``."""
    call_id = text_of(call.get("id")) or f"{message_id}.{slot}"
    custom = call.get("custom")
    if call.get("type") == "custom" or isinstance(custom, dict):
        spec = obj(custom)
        name = text_field(spec.get("name"), f"name of custom tool call {call_id}", lambda r: where.problem(line, r))
        book.call(call_id, name)
        text = spec.get("input")
        return ToolUse(call_id, name, text if isinstance(text, str) else stringify(text), freeform=True)
    function = call.get("function")
    if isinstance(function, str):  # inspect_ai and similar: {"function": name, "arguments": {...}}
        name, arguments = function, call.get("arguments")
    elif isinstance(function, dict):
        given = function.get("name")  # only a name that is not text needs the problem's wording (0.4 us a call)
        name = given if isinstance(given, str) else text_field(given, f"name of tool call {call_id}",
                                                               lambda r: where.problem(line, r))
        arguments = function.get("arguments")
    else:
        where.problem(line, f"tool call {call_id} has no function; kept as opaque")
        return Opaque("tool_call", call, "no function")
    book.call(call_id, name)
    return tool_use(call_id, name, arguments, where, line)


def _result(raw: JsonObj, message_id: str, where: Where, line: int | None, book: CallBook) -> list[Block]:
    call_id = text_of(raw.get("tool_call_id"))
    name = text_of(raw.get("name")) or text_of(raw.get("tool_name"))
    answered = book.answer(call_id, name)
    if answered is None:
        where.problem(line, f"tool result for call {call_id or name!r} has no earlier call (orphan); kept")
    output, images, others = result_content(raw.get("content"), where, line)
    result = ToolResult(answered or call_id or f"{message_id}.result", output, False, images, name)
    return [result, *others]


def result_content(content: Any, where: Where, line: int | None) -> tuple[str, tuple[Image, ...], list[Block]]:
    """A tool result's content as its text, its images, and any parts that are neither."""
    if content is None:
        return "", (), []
    if isinstance(content, str):
        return content, (), []
    if not isinstance(content, list):
        return stringify(content), (), []
    return result_parts(_content(content, where, line, None, None))


def tool_name(tool: Any) -> str:
    """The name a tool spec gives its tool (function, custom, or a built-in's type)."""
    if isinstance(tool, dict):
        for key in ("function", "custom"):
            inner = tool.get(key)
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                return str(inner["name"])
        if isinstance(tool.get("name"), str):
            return str(tool["name"])
        if isinstance(tool.get("type"), str):
            return str(tool["type"])
    return ""


def _system_text(messages: Sequence[Message]) -> str | None:
    """The leading system and developer messages' words: the system prompt the run was given."""
    texts: list[str] = []
    for message in messages:
        if message.role != "system":
            break
        texts.append(message.text)
    return "\n".join(texts) if texts else None


def parse_request(body: JsonObj, origin: Origin) -> ParsedRequest:
    """A Chat Completions request body (also a bare ``{"messages": [...]}``)."""
    model = text_of(body.get("model")) or origin.model
    messages = body_list(body, "messages", origin)
    out = _messages(messages, origin, origin.id_prefix, origin.first_index, model, origin.provider,
                    CallBook(origin.history), origin.parent_id)
    sent = [t for key in ("tools", "functions") if isinstance(body.get(key), list) for t in body[key]]
    config = run_config(model=model, provider=origin.provider, system=_system_text(out), tools=sent,
                        tool_names=[tool_name(t) for t in sent], where=origin)
    return ParsedRequest(out, config, next_index=origin.first_index + len(messages))


# --------------------------------------------------------------------------------------------
# Chat Completions responses


def chat_usage(raw: Any) -> Usage | None:
    """Usage of a Chat Completions response, with ``input`` the uncached prompt tokens:
    ``prompt_tokens`` counts cached ones too ("cached_tokens: Cached tokens present in the prompt",
    https://platform.openai.com/docs/guides/prompt-caching, read 2026-11-29; likewise
    ``cache_write_tokens``, "the unadjusted number of prompt tokens written to cache", openai-python
    3.57.0 ``CompletionUsage``). DeepSeek reports its hits as ``prompt_cache_hit_tokens``
    (https://api-docs.deepseek.com/guides/kv_cache, read 2026-11-29). Ollama counts
    ``prompt_eval_count`` / ``eval_count``."""
    if not isinstance(raw, dict):
        return None
    prompt = as_int(raw.get("prompt_tokens", raw.get("prompt_eval_count")))
    output = as_int(raw.get("completion_tokens", raw.get("eval_count")))
    details = obj(raw.get("prompt_tokens_details"))
    cached = as_int(details.get("cached_tokens"))
    if cached is None:
        cached = as_int(raw.get("prompt_cache_hit_tokens"))
    written = as_int(details.get("cache_write_tokens"))
    fresh = None if prompt is None else max(0, prompt - (cached or 0) - (written or 0))
    return usage_of(fresh, output, cached, written)


def response_to_record(body: JsonObj, *, file: str | Path, ctx: ImportContext, message_id: str,
                       line: int | None = None, provider: str | None = None,
                       time: datetime | None = None) -> list[Message]:
    """A Chat Completions response (or Ollama chat response) as assistant messages: the first
    choice with id ``message_id`` and the response's usage, further choices as ``<id>/<n>``."""
    return parse_response(body, Where(file, ctx, line), message_id=message_id, provider=provider, time=time)


def parse_response(body: JsonObj, where: Where, *, message_id: str, provider: str | None = None,
                   time: datetime | None = None) -> list[Message]:
    model = text_of(body.get("model"))
    when = parse_time(body.get("created")) or parse_time(body.get("created_at")) or time
    choices = body.get("choices")
    if not isinstance(choices, list) and isinstance(body.get("message"), dict):
        choices = [{"message": body["message"]}]
    usage = chat_usage(body.get("usage") if "usage" in body else body)
    book = CallBook()
    out: list[Message] = []
    for k, choice in enumerate(choices if isinstance(choices, list) else []):
        raw = choice.get("message") or choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(raw, dict):
            continue
        mid = message_id if k == 0 else f"{message_id}/{k}"
        message = _message({**raw, "role": "assistant"}, 0, mid, where, model, provider, book)
        out.append(replace(message, usage=usage if k == 0 else None, time=when))
    return out


def merge_stream(events: list[JsonObj]) -> JsonObj:
    """Chat Completions chunks (or Ollama NDJSON chunks) folded into one response body."""
    body: JsonObj = {}
    choices: dict[int, JsonObj] = {}
    calls: dict[int, dict[int, JsonObj]] = {}
    for event in events:
        for key in ("id", "model", "created", "system_fingerprint", "error"):
            if event.get(key) is not None:
                body[key] = event[key]
        if isinstance(event.get("usage"), dict):
            body["usage"] = event["usage"]
        if "prompt_eval_count" in event or "eval_count" in event:
            body["usage"] = {"prompt_tokens": event.get("prompt_eval_count"), "completion_tokens": event.get("eval_count")}
        deltas = event.get("choices")
        if not isinstance(deltas, list):
            deltas = [{"index": 0, "delta": event["message"]}] if isinstance(event.get("message"), dict) else []
        for choice in deltas:
            if not isinstance(choice, dict):
                continue
            index = as_int(choice.get("index")) or 0
            message = choices.setdefault(index, {"role": "assistant"})
            delta = obj(choice.get("delta") or choice.get("message"))
            for key in ("content", "refusal", "reasoning_content", "reasoning", "thinking"):
                if isinstance(delta.get(key), str):
                    message[key] = message.get(key, "") + delta[key]
            if isinstance(delta.get("reasoning_details"), list):
                message.setdefault("reasoning_details", []).extend(delta["reasoning_details"])
            for n, call in enumerate(items(delta.get("tool_calls"))):
                if not isinstance(call, dict):
                    continue
                slot = calls.setdefault(index, {}).setdefault(as_int(call.get("index")) or n, {
                    "type": "function", "function": {"name": "", "arguments": ""}})
                if call.get("id"):
                    slot["id"] = call["id"]
                function = obj(call.get("function"))
                slot["function"]["name"] += stringify(function.get("name") or "")
                arguments = function.get("arguments")
                if isinstance(arguments, str) and isinstance(slot["function"]["arguments"], str):
                    slot["function"]["arguments"] += arguments
                elif arguments is not None:
                    slot["function"]["arguments"] = arguments
            if choice.get("finish_reason"):
                message["finish_reason"] = choice["finish_reason"]
    out: list[JsonObj] = []
    for index in sorted(choices):
        message = choices[index]
        if index in calls:
            message["tool_calls"] = [calls[index][n] for n in sorted(calls[index])]
        out.append({"index": index, "message": message})
    body["choices"] = out
    return body


# --------------------------------------------------------------------------------------------
# Responses API items

RESPONSES_USER_SIDE = frozenset({"mcp_approval_response", "item_reference"})
RESPONSES_KNOWN = frozenset({"mcp_list_tools", "mcp_approval_request", "compaction", "item_reference",
                             "mcp_approval_response"})
"""Responses items the record has no kind for, kept as opaque blocks without a problem (server-side
tool items, named ``*_call`` without a ``call_id``, are kept the same way)."""


def items_to_record(items: Sequence[Any], origin: Origin) -> list[Message]:
    """Responses API input or output items as record messages (the origin as in
    ``messages_to_record``); a message's id is that of its first item."""
    return _items(items, origin, origin.id_prefix, origin.first_index, origin.model, origin.provider,
                  CallBook(origin.history), origin.parent_id)


def _items(entries: Sequence[Any], where: Where, prefix: str, first: int, model: str | None,
           provider: str | None, book: CallBook, parent: str | None = None) -> list[Message]:
    groups: list[tuple[Role, int, list[Block], tuple[str, ...]]] = []
    for i, item in enumerate(entries):
        role: Role
        blocks: list[Block]
        tags: tuple[str, ...]
        if isinstance(item, dict):
            role, blocks, tags = _item(item, i, where, model, provider, book)
        else:
            where.problem(where.at(i), f"item {i + 1} is a JSON {type(item).__name__}, not an object; kept as opaque")
            role, blocks, tags = "user", [Opaque("item", item, "not an object")], ()
        if groups and groups[-1][0] == role and role in ("assistant", "tool"):
            groups[-1][2].extend(blocks)
        else:
            groups.append((role, i, blocks, tags))
    out: list[Message] = []
    for role, i, blocks, tags in groups:
        speaker = role == "assistant"
        out.append(Message(f"{prefix}:{first + i}", parent, role, tuple(blocks), model=model if speaker else None,
                           provider=provider if speaker else None, source=where.source(where.at(i)), tags=tags))
        parent = out[-1].id
    return out


def _item(item: JsonObj, i: int, where: Where, model: str | None, provider: str | None,
          book: CallBook) -> tuple[Role, list[Block], tuple[str, ...]]:
    line = where.at(i)
    kind = item.get("type")
    role = item.get("role")
    if kind == "message" or (kind is None and role is not None):
        blocks = _content(item.get("content"), where, line, model, provider)
        if role == "assistant":
            return "assistant", blocks, ()
        if role in ("system", "developer"):
            return "system", blocks, ("developer",) if role == "developer" else ()
        if role != "user":
            where.problem(line, f"item {i + 1} has unknown role {shown(role)}; kept as a user message")
        return "user", blocks, ()
    if kind == "reasoning":
        return "assistant", [_reasoning_item(item, model, provider)], ()
    call_id = text_of(item.get("call_id"))
    if isinstance(kind, str) and kind.endswith("_call_output"):
        return "tool", _call_output(item, kind, call_id, where, line, book), ()
    if isinstance(kind, str) and kind.endswith("_call") and call_id is not None:
        name = text_of(item.get("name")) or kind.removesuffix("_call")
        book.call(call_id, name)
        if kind == "custom_tool_call":
            return "assistant", [tool_use(call_id, name, item.get("input"), where, line, freeform=True)], ()
        arguments = next((item[k] for k in ("arguments", "input", "action", "operation") if k in item), None)
        return "assistant", [tool_use(call_id, name, arguments, where, line)], ()
    if isinstance(kind, str) and (kind.endswith("_call") or kind in RESPONSES_KNOWN):
        side: Role = "user" if kind in RESPONSES_USER_SIDE else "assistant"
        return side, [Opaque(kind, item, "server-side item the record has no kind for")], ()
    where.problem(line, f"unknown item type {shown(kind)}; kept as opaque")
    return "user", [Opaque(kind_name(kind), item, "unknown item type")], ()


def _reasoning_item(item: JsonObj, model: str | None, provider: str | None) -> Reasoning:
    def texts(key: str) -> str:
        parts = item.get(key)
        if not isinstance(parts, list):
            return ""
        return "\n\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("text"))

    text = "\n\n".join(t for t in (texts("summary"), texts("content")) if t)  # as ``codex`` reads an item
    signature = text_of(item.get("encrypted_content"))
    return Reasoning(text, signature=signature, provider=provider, model=model,
                     redacted=not text and signature is not None)


def _call_output(item: JsonObj, kind: str, call_id: str | None, where: Where, line: int | None,
                 book: CallBook) -> list[Block]:
    answered = book.answer(call_id, None)
    if answered is None:
        where.problem(line, f"{kind} for call {call_id!r} has no earlier call (orphan); kept")
    output = item.get("output")
    if isinstance(output, dict) and output.get("type") in ("computer_screenshot", "input_image"):
        output = [output]
    if isinstance(output, list) and all(isinstance(p, dict) and p.get("type") in (
            "input_text", "output_text", "text", "input_image", "input_file", "computer_screenshot") for p in output):
        parts = [{**p, "type": "input_image"} if p.get("type") == "computer_screenshot" else p for p in output]
        text, images, others = result_content(parts, where, line)
    else:
        text, images, others = (output if isinstance(output, str) else stringify(output)), (), []
    failed = item.get("status") in ("failed", "incomplete")
    return [ToolResult(answered or call_id or f"{kind}:{line}", text, is_error=failed, images=images), *others]


def responses_usage(raw: Any) -> Usage | None:
    """Usage of a Responses API response; ``input_tokens`` counts the cached ones too
    (``input_tokens_details.cached_tokens``, https://platform.openai.com/docs/guides/prompt-caching,
    read 2026-11-29), so ``input`` is what was not cached."""
    if not isinstance(raw, dict):
        return None
    prompt = as_int(raw.get("input_tokens"))
    details = obj(raw.get("input_tokens_details"))
    cached = as_int(details.get("cached_tokens"))
    written = as_int(details.get("cache_write_tokens"))
    fresh = None if prompt is None else max(0, prompt - (cached or 0) - (written or 0))
    return usage_of(fresh, as_int(raw.get("output_tokens")), cached, written)


def parse_responses_request(body: JsonObj, origin: Origin) -> ParsedRequest:
    """A Responses API request body: ``instructions`` as a leading system message, ``input`` items."""
    model = text_of(body.get("model")) or origin.model
    raw = body.get("input")
    entries: list[Any] = [{"role": "user", "content": raw}] if isinstance(raw, str) else items(raw)
    instructions = text_of(body.get("instructions"))
    prefix, first = origin.id_prefix, origin.first_index
    system: list[Message] = []
    if instructions and not origin.history:  # a continued response already holds them
        system = [Message(f"{prefix}:{first}.instructions", origin.parent_id, "system", (Text(instructions),),
                          source=origin.source(origin.line))]
    messages = system + _items(entries, origin, prefix, first, model, origin.provider, CallBook(origin.history),
                               system[0].id if system else origin.parent_id)
    tools = items(body.get("tools"))
    config = run_config(model=model, provider=origin.provider, system=instructions, tools=tools,
                        tool_names=[tool_name(t) for t in tools], where=origin)
    return ParsedRequest(messages, config, next_index=first + len(entries))


def parse_responses_response(body: JsonObj, where: Where, *, message_id: str, provider: str | None = None,
                             time: datetime | None = None) -> list[Message]:
    output = body.get("output")
    if not isinstance(output, list) or not output:
        return []
    model = text_of(body.get("model"))
    grouped = _items(output, where, message_id, 0, model, provider, CallBook())
    blocks = tuple(b for m in grouped for b in m.blocks)
    when = parse_time(body.get("created_at")) or time
    return [Message(message_id, None, "assistant", blocks, time=when, model=model, provider=provider,
                    usage=responses_usage(body.get("usage")), source=where.source(where.line))]


def merge_responses_stream(events: list[JsonObj]) -> JsonObj:
    """Responses API stream events folded into the final response: the ``response`` of the closing
    event when recorded, else the skeleton of ``response.created`` with every finished output item."""
    final: JsonObj = {}
    items: list[JsonObj] = []
    for event in events:
        kind = event.get("type")
        response = event.get("response")
        if kind in ("response.completed", "response.incomplete", "response.failed", "response.done") \
                and isinstance(response, dict):
            return response
        if kind == "response.created" and isinstance(response, dict):
            final = dict(response)
        if kind == "response.output_item.done" and isinstance(event.get("item"), dict):
            items.append(event["item"])
        if kind == "error":
            final["error"] = event.get("error", event)
    final["output"] = items
    return final


WIRE = Wire(name="openai_chat", format=FORMAT, provider=PROVIDER, parse_request=parse_request,
            parse_response=parse_response, merge_stream=merge_stream)
RESPONSES_WIRE = Wire(name="openai_responses", format=FORMAT, provider=PROVIDER,
                      parse_request=parse_responses_request, parse_response=parse_responses_response,
                      merge_stream=merge_responses_stream)

__all__ = ["RESPONSES_WIRE", "WIRE", "chat_usage", "items_to_record", "messages_to_record",
           "response_to_record", "result_content", "tool_name"]
