"""Gemini ``generateContent`` (REST body; the model is named in the URL).

Calls: a model turn of ``functionCall`` parts, the first carrying a thought signature, then a user
turn of ``functionResponse`` parts. The signature is the one the same model returned when the
record keeps it, else the documented placeholder that tells Gemini to skip validation of a call it
did not sign. A function call turn must follow a user turn or a function response turn, so calls
answered after a model turn of words join that turn: the one place where appending a stored
message rewrites the last content of the shorter request. Images a tool returned follow in a user
turn of their own, as pydantic-ai sends them (corpora ``gemini/pydanticai_cassette_function_
response_images.yaml``, accepted by gemini-2.5-flash).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, assert_never

from toolkit.record import JsonValue
from toolkit.replay import prose
from toolkit.replay import tools as tools_
from toolkit.replay.checks import Checker, WireProblem
from toolkit.replay.parts import ImageRules, Inline, Resolved, resolve, text_of, tool_images
from toolkit.replay.plan import Body, Exchange, Part, Plan, TextPart, ThoughtPart, WireMessage
from toolkit.replay.sdktypes import Validator
from toolkit.replay.send import generate_sender, read_generate
from toolkit.replay.spec import Sdk, SystemPlacement, WireSpec, place_system, wire_messages
from toolkit.surface import ToolSpec

NAME = "gemini"
MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})
"""https://ai.google.dev/gemini-api/docs/image-understanding (read 2026-11-29)."""
IMAGES = ImageRules(NAME, MEDIA_TYPES, urls=False)
SYSTEM: SystemPlacement = "slot"

PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator"
"""The documented dummy signature for calls Gemini did not sign ("You can set the following dummy
signatures of either 'context_engineering_is_the_way_to_go' or 'skip_thought_signature_validator'",
https://ai.google.dev/gemini-api/docs/thought-signatures; Vertex documents only the second). It
travels as the literal string in the REST JSON: base64-encoding it makes it a different value that
Gemini rejects (langchain-ai/langchain-google#1972, 2026-08-27; googleapis/go-genai#711)."""

DATA_FIELDS = ("text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode",
               "codeExecutionResult")
"""The ``data`` one-of of a part: exactly one must be set ("required oneof field 'data' must have
one initialized field", API error quoted in boldsoftware/sketch#68)."""
PART_FIELDS = (*DATA_FIELDS, "thought", "thoughtSignature", "mediaResolution", "videoMetadata")
OPENS_WITH_USER = True
"""A function call turn must follow a user turn ("Please ensure that function call turn comes
immediately after a user turn or after a function response turn.", also when the history starts with
a model function call: the generateContent 400 error, as google-gemini/gemini-cli issues quote it), and the SDK's chats refuse a history that does not start
with a user turn ("History must start with a user turn.", googleapis/python-genai#529, 2025-03-18)."""


def encode(plan: Plan, notes: list[str]) -> Body:
    system, items = place_system(plan, SYSTEM)
    joined = 0

    def exchange(item: Exchange, contents: list[dict[str, Any]]) -> None:
        nonlocal joined
        joined += _exchange(item, contents)

    contents = wire_messages(items, _turn, exchange, opens_with_user=OPENS_WITH_USER)
    if joined:
        notes.append(f"gemini: {joined} call turn(s) joined the model turn before them (a function call turn must "
                     "follow a user or function response turn)")
    instruction = {"systemInstruction": {"parts": [{"text": system}]}} if system is not None else {}
    return {**tools_.declare(plan, notes, declare), **instruction, "contents": contents}


def declare(tools: Sequence[tools_.Declared]) -> list[dict[str, JsonValue]]:
    """One tool holding every ``functionDeclarations`` entry, as Gemini CLI sends them."""
    return [{"functionDeclarations": [_declaration(spec, name) for spec, name in tools]}]


def _declaration(spec: ToolSpec, name: str) -> dict[str, JsonValue]:
    """A recorded Gemini schema keeps its own OpenAPI ``parameters``; any other travels as JSON
    Schema in ``parametersJsonSchema``."""
    declaration: dict[str, JsonValue] = {"name": name, **tools_.described(spec)}
    if spec.kind == "custom":
        declaration["parametersJsonSchema"] = tools_.freeform_schema()
    elif tools_.openapi(spec):
        declaration["parameters"] = tools_.case_types(spec.schema, str.upper)
    else:
        declaration["parametersJsonSchema"] = tools_.json_schema(spec)
    return declaration


def _turn(turn: WireMessage) -> dict[str, Any]:
    match turn.role:
        case "system":
            return {"role": "user", "parts": [{"text": prose.system_note(text_of(turn.parts))}]}
        case "user":
            return {"role": "user", "parts": _parts(turn.parts)}
        case "assistant":
            return {"role": "model", "parts": _parts(turn.parts)}
        case _:
            assert_never(turn.role)


def _exchange(exchange: Exchange, contents: list[dict[str, Any]]) -> int:
    """Append the call turn, the response turn, and the images the tools returned. Model turns of
    words just before the call turn join it (a function call turn must follow a user turn; the
    shared opening turn, ``OPENS_WITH_USER``, is what precedes one that would open the history).
    Returns 1 when earlier contents were rewritten."""
    calls: list[dict[str, Any]] = []
    for n, answer in enumerate(exchange.answers):
        call = answer.call
        part: dict[str, Any] = {"functionCall": {"id": call.id, "name": call.name, "args": call.input}}
        if n == 0:
            part["thoughtSignature"] = call.signature or PLACEHOLDER_SIGNATURE
        calls.append(part)
    words: list[dict[str, Any]] = []
    while contents and contents[-1]["role"] == "model":
        words[:0] = contents.pop()["parts"]
    own = _parts(exchange.lead) if exchange.lead else []
    contents.append({"role": "model", "parts": words + own + calls})
    contents.append({"role": "user", "parts": [_response(a.call.id, a.call.name, a.output, a.is_error)
                                               for a in exchange.answers]})
    contents.extend(_turn(images) for images in tool_images(exchange))
    return 1 if words else 0


def _response(call_id: str, name: str, output: str, is_error: bool) -> dict[str, Any]:
    """Gemini CLI's own shape for a result: ``{"output": ...}`` or ``{"error": ...}``."""
    return {"functionResponse": {"id": call_id, "name": name, "response": {"error" if is_error else "output": output}}}


def _parts(parts: tuple[Part, ...]) -> list[dict[str, Any]]:
    return [_part(p) for p in resolve(parts, IMAGES)] or [{"text": prose.EMPTY_MESSAGE}]


def _part(part: Resolved) -> dict[str, Any]:
    match part:
        case TextPart(text=text):
            return {"text": text}
        case ThoughtPart(block=block):
            return {"text": block.text, "thought": True, "thoughtSignature": block.signature}
        case Inline():
            assert part.data is not None
            return {"inlineData": {"mimeType": part.image.media_type, "data": part.data}}
        case _:
            assert_never(part)


def check(body: Body) -> list[WireProblem]:
    c = Checker(NAME)
    c.keys(body, "", ("tools", "systemInstruction", "contents"), ("contents",))
    c.order(body, ("tools", "systemInstruction", "contents"))
    _check_tools(c, body.get("tools", []))
    if "systemInstruction" in body:
        system = c.obj(body["systemInstruction"], "systemInstruction")
        if system is not None:
            c.keys(system, "systemInstruction", ("parts", "role"), ("parts",))
            for at, part in c.objects(system.get("parts"), "systemInstruction.parts", nonempty=True):
                c.string(part.get("text"), f"{at}.text")
    previous: tuple[str, list[dict[str, Any]]] | None = None
    for where, content in c.objects(body.get("contents"), "contents", nonempty=True):
        c.keys(content, where, ("role", "parts"), ("role", "parts"))
        role = content.get("role")
        if role not in ("user", "model"):
            c.add(f"{where}.role", "role", f"role must be 'user' or 'model', not {role!r}")
        parts = [p for at, p in c.objects(content.get("parts"), f"{where}.parts", nonempty=True)
                 if _check_part(c, p, at, role)]
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        before = previous[1] if previous else []
        if calls:
            if previous is None or previous[0] != "user":
                c.add(where, "order", "Please ensure that function call turn comes immediately after a user turn or "
                      "after a function response turn.")
            first = next(p for p in parts if "functionCall" in p)
            if not first.get("thoughtSignature"):
                c.add(where, "signature", "Function call is missing a thought_signature in functionCall parts "
                      "(the first functionCall part of each step must carry one).")
        if previous is not None and any("functionCall" in p for p in before) and not responses:
            c.add(where, "pairing", "a function call turn must be answered by the function response turn after it")
        if responses:
            asked = [p["functionCall"] for p in before if "functionCall" in p]
            if not asked:
                c.add(where, "pairing", "Please ensure that function response turn comes immediately after a function "
                      "call turn.")
            elif len(asked) != len(responses):
                c.add(where, "pairing", "Please ensure that the number of function response parts is equal to the "
                      "number of function call parts of the function call turn.")
            else:
                for k, (call, response) in enumerate(zip(asked, responses, strict=True)):
                    if (call.get("id"), call.get("name")) != (response.get("id"), response.get("name")):
                        c.add(f"{where}.parts[{k}].functionResponse", "pairing",
                              "function responses must answer the calls of the turn before, in order (id and name)")
        previous = (str(role), parts)
    if previous is not None and any("functionCall" in p for p in previous[1]):
        c.add("contents", "pairing", "the request ends on a function call turn without its function responses")
    return c.problems


def _check_part(c: Checker, part: dict[str, Any], at: str, role: Any) -> bool:
    """Check one part; whether it holds one kind of data, readable by the pairing checks (a call or
    response that is not an object is reported here and left out of them)."""
    c.keys(part, at, PART_FIELDS)
    data = [k for k in DATA_FIELDS if k in part]
    if len(data) != 1:
        c.add(at, "shape", f"a part holds exactly one of {', '.join(DATA_FIELDS)} (found {len(data)})")
        return False
    kind = data[0]
    if kind == "text":
        c.string(part["text"], f"{at}.text", nonblank=not part.get("thought"))
    elif kind == "inlineData":
        blob = c.obj(part["inlineData"], f"{at}.inlineData")
        if blob is not None:
            c.keys(blob, f"{at}.inlineData", ("mimeType", "data", "displayName"), ("mimeType", "data"))
            c.media_type(blob.get("mimeType"), f"{at}.inlineData.mimeType", MEDIA_TYPES)
            c.base64(blob.get("data"), f"{at}.inlineData.data")
    elif kind == "functionCall":
        if role != "model":
            c.add(at, "role", "functionCall parts belong in model turns")
        call = c.obj(part["functionCall"], f"{at}.functionCall")
        if call is not None:
            c.keys(call, f"{at}.functionCall", ("id", "name", "args"), ("name",))
            c.name(call.get("name"), f"{at}.functionCall.name")
            if "args" in call and not isinstance(call["args"], dict):
                c.add(f"{at}.functionCall.args", "arguments", "args must be an object")
            if "id" in call:
                c.string(call["id"], f"{at}.functionCall.id")
    elif kind == "functionResponse":
        if role != "user":
            c.add(at, "role", "functionResponse parts belong in user turns")
        response = c.obj(part["functionResponse"], f"{at}.functionResponse")
        if response is not None:
            c.keys(response, f"{at}.functionResponse", ("id", "name", "response", "parts"), ("name", "response"))
            c.name(response.get("name"), f"{at}.functionResponse.name")
            if not isinstance(response.get("response"), dict):
                c.add(f"{at}.functionResponse.response", "shape", "response must be a JSON object")
    if "thoughtSignature" in part:
        c.base64(part["thoughtSignature"], f"{at}.thoughtSignature")
    return kind not in ("functionCall", "functionResponse") or isinstance(part[kind], dict)


def _check_tools(c: Checker, tools: Any) -> None:
    names: set[str] = set()
    for where, tool in c.objects(tools, "tools"):
        declarations = tool.get("functionDeclarations")
        if declarations is None:
            continue
        for at, decl in c.objects(declarations, f"{where}.functionDeclarations"):
            c.keys(decl, at, ("name", "description", "parameters", "parametersJsonSchema"), ("name",))
            if "parameters" in decl and "parametersJsonSchema" in decl:
                c.add(at, "tools", "parameters and parametersJsonSchema are mutually exclusive")
            c.unique_name(decl.get("name"), f"{at}.name", names)


def _sdk_types() -> Validator:
    """Gemini's types are pydantic models that forbid unknown keys; they are read from JSON so
    base64 fields decode as the REST API reads them."""
    from google.genai import types

    def validate(body: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
        for key in body:
            if key not in ("tools", "systemInstruction", "contents"):
                yield key, {key: body[key]}, {}
        for i, content in enumerate(body.get("contents", [])):
            yield f"contents[{i}]", content, _dump(types.Content.model_validate_json(_json(content)))
        if "systemInstruction" in body:
            yield "systemInstruction", body["systemInstruction"], _dump(
                types.Content.model_validate_json(_json(body["systemInstruction"])))
        for i, tool in enumerate(body.get("tools", [])):
            yield f"tools[{i}]", tool, _dump(types.Tool.model_validate_json(_json(tool)))

    return validate


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


WIRE = WireSpec(
    name=NAME, family="google", default_model="gemini-2.5-flash", messages_key="contents", system=SYSTEM,
    images=IMAGES, reasoning="signed", opens_with_user=OPENS_WITH_USER, signs_calls=True, encode=encode, tools=declare, check=check,
    sdk=Sdk("google.genai.Client().models.generate_content(model=MODEL, contents=body['contents'], "
            "config={'system_instruction': body.get('systemInstruction'), 'tools': body.get('tools')})",
            _sdk_types, bytes_fields=frozenset({"thoughtSignature", "data"}), send=generate_sender, read=read_generate),
)
"""Gemini names its model in the URL, not the body (``MODEL`` in the SDK call). Its SDK types
``thoughtSignature`` and ``data`` as bytes: it reads base64 and writes URL-safe base64."""
