"""Gemini ``generateContent`` conversations read into the record.

Documents: a request body (``contents``, ``systemInstruction``, ``tools[].functionDeclarations``,
``toolConfig``, ``generationConfig``), a bare ``contents`` list, a response (``candidates[].content``,
``usageMetadata``), streamed chunks, and the same one per JSONL line, read by
``toolkit.corpus.formats.recording``. REST bodies may use camelCase or snake_case field names (the proto JSON
mapping accepts both), and both are read. The model comes from the URL (``/models/<model>:...``)
or the response's ``modelVersion``.

Roles: ``model`` → ``assistant``; ``user`` → ``user``, or ``tool`` when the turn holds only
``functionResponse`` parts; ``function`` (older clients) → ``tool``. ``systemInstruction`` becomes a
``system`` message at the root (id ``<prefix>:system``) and the run config's system prompt.

Parts: text; ``thought: true`` text → ``Reasoning``; ``inlineData`` images → stored bytes (URL-safe
base64 accepted); ``fileData`` images → URL references; other media, ``executableCode``,
``codeExecutionResult``, ``toolCall`` / ``toolResponse`` → opaque blocks (kept, counted, no problem);
``functionCall`` → ``ToolUse`` (a call without an ``id`` gets ``<message id>.<part index>``);
``functionResponse`` → ``ToolResult`` with the tool's ``name`` and the ``response`` object as
``detail``: its ``output`` key is the output and an ``error`` key marks an error, else the whole
object is the output (google-genai 3.6.1 ``FunctionResponse.response``). A response pairs with its
call by ``id``, else by order among the unanswered calls of the same name.

Thought signatures. A ``thoughtSignature`` on a thought part stays on that part's ``Reasoning``. On
any other part (the first ``functionCall`` of a step, a final text part) it becomes a redacted
``Reasoning`` block with empty text and the signature, placed immediately before the block of the
part that carried it. Every such block names who signed (provider ``google`` or the serving host,
and the model), so a replay knows the signature existed, whom it binds to, and which part to put it
back on; the record never loses a signature and never invents one (what one reasoning block is, for
every provider: ``toolkit.corpus.frames``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import ImportContext, guess_media_type, parse_time
from toolkit.corpus.formats.shapes import as_int, items, obj, shown, text_field, text_of
from toolkit.corpus.formats.wirekit import (
    CallBook,
    JsonObj,
    Origin,
    ParsedRequest,
    Where,
    Wire,
    after_system,
    body_list,
    each_message,
    image_base64,
    run_config,
    tool_use,
    unread_keys,
    unread_message,
    usage_of,
)
from toolkit.jsontext import json_text, stringify
from toolkit.record import (
    Block,
    Image,
    JsonValue,
    Message,
    Opaque,
    Reasoning,
    Role,
    Text,
    ToolResult,
    Usage,
    packed,
)

FORMAT = "gemini"
PROVIDER = "google"

DATA_KEYS = ("inlineData", "fileData", "functionCall", "functionResponse")
"""Part fields the record reads, each an object."""

KNOWN_PARTS = ("executableCode", "codeExecutionResult", "toolCall", "toolResponse")
"""Part kinds the record has no block for: kept as opaque without a problem."""

METADATA_KEYS = frozenset({"thought", "thoughtSignature", "videoMetadata", "mediaResolution", "partMetadata",
                           "mediaProcessing", "audioTranscription", "speechMetadata", "documentMetadata",
                           "spreadsheetMetadata", "audioMetadata"})
"""Part fields that qualify the part's data rather than being data (google-genai 3.6.1 ``Part``)."""

PART_KEYS = METADATA_KEYS | {"text", *DATA_KEYS, *KNOWN_PARTS}
"""Every part field the record knows (camelCase): what a misspelt ``thoughtSignature`` is told from."""


def field(obj: JsonObj, name: str) -> Any:
    """``obj[name]`` under its camelCase name or its snake_case spelling."""
    if name in obj:
        return obj[name]
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return obj.get(snake)


def _camel(key: object) -> str:
    if not isinstance(key, str):  # a YAML recording may hold keys that are numbers, booleans, null
        return json_text(key)
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def contents_to_record(contents: Sequence[Any], origin: Origin, *, system_instruction: Any = None) -> list[Message]:
    """Gemini ``contents`` (and a ``systemInstruction`` as a leading ``system`` message) as record
    messages, ids ``<id_prefix>:<first_index + i>``, chained under the origin's ``parent_id``; the
    origin as in ``openai_chat.messages_to_record``, its provider ``google`` when it names none."""
    return _conversation(contents, system_instruction, origin, origin.model)


def _conversation(contents: Sequence[Any], instruction: Any, origin: Origin, model: str | None) -> list[Message]:
    """The system instruction, then the contents under it, signed by the origin's provider or Google."""
    book = CallBook(origin.history)
    return after_system(_system(instruction, origin, origin.id_prefix), origin.parent_id,
                        lambda parent: _contents(contents, origin, origin.id_prefix, origin.first_index, model,
                                                 origin.provider or PROVIDER, book, parent))


def system_text(instruction: Any) -> str | None:
    """A system instruction's words (a Content's text parts joined by a newline, or a string)."""
    if isinstance(instruction, str):
        return instruction
    parts = instruction.get("parts") if isinstance(instruction, dict) else instruction
    if isinstance(parts, list):
        return "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and "text" in p)
    return None


def _system(instruction: Any, where: Where, prefix: str) -> list[Message]:
    text = system_text(instruction)
    if not text:
        return []
    return [Message(f"{prefix}:system", None, "system", (Text(text),), source=where.source(where.line))]


def _contents(contents: Sequence[Any], where: Where, prefix: str, first: int, model: str | None,
              provider: str | None, book: CallBook, parent: str | None) -> list[Message]:
    def read(raw: JsonObj, i: int, message_id: str, parent: str | None) -> Message:
        return content_to_message(raw, message_id, where, where.at(i), model, provider, book, index=i, parent=parent)

    return each_message(contents, where, prefix, first, parent, "content", read)


CONTENT_KEYS = frozenset({"role", "parts"})
"""Keys a Gemini ``Content`` has (the generateContent reference)."""


def content_to_message(raw: JsonObj, message_id: str, where: Where, line: int | None, model: str | None,
                       provider: str | None, book: CallBook, index: int = 0, parent: str | None = None) -> Message:
    """One ``Content`` (role and parts) as a record message."""
    role = raw.get("role")
    parts = raw.get("parts")
    if not isinstance(parts, list):
        if parts is not None:
            where.problem(line, f"content {index + 1} has parts that are not a list")
        parts = []
    signer = provider or PROVIDER
    blocks = parts_to_blocks(parts, message_id, where, line, model if role == "model" else None, signer, book)
    if not blocks:
        blocks = unread_message(raw, "parts", CONTENT_KEYS, where, line, "content")
    record_role: Role
    if role == "model":
        record_role = "assistant"
    elif role in ("function", "tool"):
        record_role = "tool"
    elif role in (None, "user"):
        answers = [b for b in blocks if isinstance(b, ToolResult)]
        record_role = "tool" if answers and all(isinstance(b, ToolResult | Reasoning) for b in blocks) else "user"
    elif role == "system":
        record_role = "system"
    else:
        where.problem(line, f"content {index + 1} has unknown role {shown(role)}; kept as a user message")
        record_role = "user"
    speaker = record_role == "assistant"
    return Message(message_id, parent, record_role, tuple(blocks), model=model if speaker else None,
                   provider=signer if speaker else None, source=where.source(line))


def parts_to_blocks(parts: Sequence[Any], message_id: str, where: Where, line: int | None, model: str | None,
                    provider: str | None, book: CallBook) -> list[Block]:
    blocks: list[Block] = []
    for j, part in enumerate(parts):
        if not isinstance(part, dict):
            where.problem(line, f"part {j + 1} is a JSON {type(part).__name__}, not an object; kept as opaque")
            blocks.append(Opaque("part", part, "not an object"))
            continue
        norm = {_camel(k): v for k, v in part.items()}
        signature = text_of(norm.get("thoughtSignature"))
        # a signature under a misspelt key (``thoughtSiganture``) is no data of the part: without this, a
        # call or text part read as if unsigned and the signature went in silence
        misspelt = unread_keys(norm, "thoughtSignature", PART_KEYS, optional=True)
        unsigned: list[Block] = []
        if misspelt:
            where.problem(line, f"part {j + 1} has no thoughtSignature but {', '.join(map(repr, misspelt))}, "
                                "a key Gemini does not write; kept as an opaque block")
            unsigned = [Opaque("thoughtSignature", {k: norm.pop(k) for k in misspelt}, "signature under a misspelt key")]
        if norm.get("thought") is True:
            blocks.append(Reasoning(stringify(norm.get("text") or ""), signature=signature, provider=provider, model=model))
            blocks.extend(unsigned)
            continue
        if signature is not None:
            blocks.append(Reasoning("", signature=signature, provider=provider, model=model, redacted=True))
        blocks.extend(unsigned)
        blocks.extend(_data(norm, part, f"{message_id}.{j}", where, line, book))
        if not (set(norm) - METADATA_KEYS) and signature is None and not unsigned:
            where.problem(line, f"part {j + 1} holds no data; kept as opaque")
            blocks.append(Opaque("part", part, "no data"))
    if not blocks and any(isinstance(p, dict) and p.get("text") == "" for p in parts):
        blocks.append(Text(""))  # parts that said nothing are still a turn: the message keeps its empty text
    return blocks


def _data(part: JsonObj, raw: JsonObj, fallback_id: str, where: Where, line: int | None,
          book: CallBook) -> list[Block]:
    """The data of one part (``part`` with camelCase keys, ``raw`` as the source held it)."""
    if "text" in part:
        text = part["text"]
        if isinstance(text, str):
            return [Text(text)] if text else []
        where.problem(line, f"part's text is {shown(text)}, not text; kept as opaque")
        return [Opaque("text", raw, "text is not a string")]
    for key in DATA_KEYS:
        if key in part and not isinstance(part[key], dict):
            where.problem(line, f"part's {key} is {shown(part[key])}, not an object; kept as opaque")
            return [Opaque(key, raw, f"{key} is not an object")]
    if isinstance(part.get("inlineData"), dict):
        return [_inline(part["inlineData"], raw, where, line)]
    if isinstance(part.get("fileData"), dict):
        return [_file(part["fileData"], raw)]
    if isinstance(part.get("functionCall"), dict):
        call = part["functionCall"]
        call_id = text_of(call.get("id")) or fallback_id
        name = text_field(call.get("name"), f"name of functionCall {call_id}", lambda r: where.problem(line, r))
        book.call(call_id, name)
        return [tool_use(call_id, name, call.get("args"), where, line)]
    if isinstance(part.get("functionResponse"), dict):
        return _function_response(part["functionResponse"], fallback_id, where, line, book)
    for kind in KNOWN_PARTS:
        if kind in part:
            return [Opaque(kind, raw, "part the record has no kind for")]
    unknown = sorted(set(part) - METADATA_KEYS)
    if unknown:
        where.problem(line, f"unknown part kind {unknown[0]!r}; kept as opaque")
        return [Opaque(unknown[0], raw, "unknown part")]
    return []


def _inline(blob: JsonObj, part: JsonObj, where: Where, line: int | None) -> Image | Opaque:
    mime = text_of(field(blob, "mimeType"))
    data = blob.get("data")
    if mime is not None and mime.startswith("image/") and isinstance(data, str):
        return image_base64(where, line, data, mime)
    return Opaque("inlineData", part, f"inline {mime or 'data'} the record has no kind for")


def _file(ref: JsonObj, part: JsonObj) -> Image | Opaque:
    mime = text_of(field(ref, "mimeType"))
    uri = text_of(field(ref, "fileUri"))
    if uri is not None and ((mime or "").startswith("image/") or (mime is None and guess_media_type(uri) != "image/*")):
        return Image(media_type=mime or guess_media_type(uri), sha256=None, url=uri)
    return Opaque("fileData", part, f"file {mime or ''} the record has no kind for")


def _function_response(response: JsonObj, fallback_id: str, where: Where, line: int | None,
                       book: CallBook) -> list[Block]:
    name = text_of(response.get("name"))
    given = text_of(response.get("id"))
    answered = book.answer(given, name, by_name=True)
    if answered is None:
        where.problem(line, f"functionResponse {name!r} has no earlier unanswered functionCall (orphan); kept")
    payload = response.get("response")
    output, failed = response_output(payload)
    images: list[Image] = []
    others: list[Block] = []
    for sub in items(response.get("parts")):
        if not isinstance(sub, dict):
            continue
        sub = {_camel(k): v for k, v in sub.items()}
        found = (_inline(sub["inlineData"], sub, where, line) if isinstance(sub.get("inlineData"), dict)
                 else _file(sub["fileData"], sub) if isinstance(sub.get("fileData"), dict)
                 else Opaque("part", sub, "function response part the record has no kind for"))
        if isinstance(found, Image):
            images.append(found)
        else:
            others.append(found)
    detail: JsonValue = payload if isinstance(payload, dict) else None
    result = ToolResult(answered or given or fallback_id, output, is_error=failed, images=tuple(images), name=name,
                        detail_json=packed(detail))
    return [result, *others]


def response_output(payload: Any) -> tuple[str, bool]:
    """A ``functionResponse.response`` as output text and error flag: "Use "output" key to specify
    function output and "error" key to specify error details (if any). If "output" and "error" keys
    are not specified, then whole "response" is treated as function output." (google-genai 3.6.1
    ``types.FunctionResponse.response``, read 2026-11-29)."""
    if isinstance(payload, dict):
        error = payload.get("error")
        failed = error not in (None, "", {}, [])
        if "output" in payload:
            return stringify(payload["output"]), failed
        if "error" in payload:
            return stringify(error), failed
    if payload is None:
        return "", False
    return stringify(payload), False


def tools_sent(tools: Any) -> list[Any]:
    """``tools`` as sent, as a list (some clients send one Tool object instead of a list)."""
    if isinstance(tools, list):
        return tools
    return [tools] if isinstance(tools, dict) else []


def tool_names(tools: Sequence[Any]) -> list[str]:
    """Function declaration names, and the key of each built-in tool (``googleSearch``...)."""
    names: list[str] = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        for key, value in tool.items():
            if _camel(key) == "functionDeclarations" and isinstance(value, list):
                names.extend(str(d.get("name") or "") for d in value if isinstance(d, dict))
            else:
                names.append(_camel(key))
    return names


def parse_request(body: JsonObj, origin: Origin) -> ParsedRequest:
    """A generateContent request body (also a bare ``{"contents": [...]}``)."""
    model = text_of(body.get("model")) or origin.model
    if model is not None and model.startswith("models/"):
        model = model[len("models/"):]
    contents = body_list(body, "contents", origin)
    instruction = field(body, "systemInstruction")
    out = _conversation(contents, instruction, origin, model)
    tools = tools_sent(body.get("tools"))
    config = run_config(model=model, provider=origin.provider or PROVIDER, system=system_text(instruction),
                        tools=tools, tool_names=tool_names(tools), where=origin)
    return ParsedRequest(out, config, next_index=origin.first_index + len(contents))


def gemini_usage(raw: Any) -> Usage | None:
    """``usageMetadata`` with ``input`` the uncached prompt: ``promptTokenCount`` "also includes the
    number of tokens in the cached content" (``cachedContentTokenCount``), and tool-use prompt tokens
    are input counted apart; ``output`` adds the thinking tokens (``thoughtsTokenCount``) to the
    candidates' (google-genai 3.6.1 ``GenerateContentResponseUsageMetadata``, read 2026-11-29)."""
    if not isinstance(raw, dict):
        return None
    raw = {_camel(k): v for k, v in raw.items()}
    prompt = as_int(raw.get("promptTokenCount"))
    cached = as_int(raw.get("cachedContentTokenCount"))
    tool_prompt = as_int(raw.get("toolUsePromptTokenCount")) or 0
    candidates = as_int(raw.get("candidatesTokenCount"))
    thoughts = as_int(raw.get("thoughtsTokenCount"))
    fresh = None if prompt is None else max(0, prompt - (cached or 0)) + tool_prompt
    output = None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0)
    return usage_of(fresh, output, cached, None)


def response_to_record(body: JsonObj, *, file: str | Path, ctx: ImportContext, message_id: str,
                       line: int | None = None, provider: str | None = PROVIDER,
                       time: datetime | None = None) -> list[Message]:
    """A generateContent response as assistant messages: the first candidate with id
    ``message_id`` and the usage, further candidates as ``<id>/<n>``."""
    return parse_response(body, Where(file, ctx, line), message_id=message_id, provider=provider, time=time)


def parse_response(body: JsonObj, where: Where, *, message_id: str, provider: str | None = None,
                   time: datetime | None = None) -> list[Message]:
    model = text_of(field(body, "modelVersion"))
    when = parse_time(field(body, "createTime")) or time
    usage = gemini_usage(field(body, "usageMetadata"))
    out: list[Message] = []
    book = CallBook()
    candidates = body.get("candidates")
    for k, candidate in enumerate(candidates if isinstance(candidates, list) else []):
        content = candidate.get("content") if isinstance(candidate, dict) else None
        if not isinstance(content, dict) or not content.get("parts"):
            continue
        mid = message_id if not out else f"{message_id}/{k}"
        message = content_to_message({**content, "role": "model"}, mid, where, where.line, model, provider, book)
        out.append(Message(message.id, None, message.role, message.blocks, time=when, model=model,
                           provider=message.provider, usage=usage if not out else None, source=message.source))
    return out


def merge_stream(events: list[JsonObj]) -> JsonObj:
    """streamGenerateContent chunks folded into one response: the first candidate's parts in order,
    adjacent text of the same kind joined (a signature arriving on a later chunk's part stays on
    the joined part; a signed part is never extended), the last usage and model version."""
    body: JsonObj = {}
    parts: list[JsonObj] = []
    role = "model"
    finish: object = None
    for event in events:
        for key in ("modelVersion", "responseId", "usageMetadata", "promptFeedback", "createTime", "error"):
            value = field(event, key)
            if value is not None:
                body[key] = value
        candidates = event.get("candidates")
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            continue
        content = obj(candidates[0].get("content"))
        role = text_of(content.get("role")) or role
        finish = field(candidates[0], "finishReason") or finish
        for raw in items(content.get("parts")):
            if isinstance(raw, dict):
                _append(parts, {_camel(k): v for k, v in raw.items()})
    body["candidates"] = [{"content": {"role": role, "parts": parts}, "finishReason": finish}] if parts else []
    return body


def _append(parts: list[JsonObj], part: JsonObj) -> None:
    last = parts[-1] if parts else None
    text_only = isinstance(part.get("text"), str) and not (set(part) - METADATA_KEYS - {"text"})
    if (last is not None and text_only and isinstance(last.get("text"), str)
            and not (set(last) - METADATA_KEYS - {"text"}) and bool(last.get("thought")) == bool(part.get("thought"))
            and "thoughtSignature" not in last):
        last["text"] += part["text"]
        if "thoughtSignature" in part:
            last["thoughtSignature"] = part["thoughtSignature"]
        return
    parts.append(dict(part))


WIRE = Wire(name="gemini", format=FORMAT, provider=PROVIDER, parse_request=parse_request,
            parse_response=parse_response, merge_stream=merge_stream)
