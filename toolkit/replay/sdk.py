"""Validate request bodies against the official SDKs' type definitions, strictly.

Strict means two things the types do not do by themselves (../shared/reference/environment-notes.md,
providers.md §4.6, checked 2026-11-29 with openai 3.57.0, anthropic 2.14.0, google-genai 3.6.1,
ollama 0.6.3, pydantic 2.14.4):

- fields typed ``Iterable[...]`` validate lazily, only when iterated: every validated value is
  materialised, so a wrong nested shape surfaces;
- TypedDicts and pydantic models drop unknown keys: the validated value is compared with the input,
  and any key the type dropped or value it changed is a problem.

The SDKs are development dependencies; without them ``sdk_problems`` says so in one problem.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from toolkit.replay.checks import WireProblem
from toolkit.replay.wires import wire_spec

Validator = Callable[[dict[str, Any]], Iterator[tuple[str, Any, Any]]]
"""Yields (where, input, validated) triples to compare, raising ``ValidationError`` on bad shapes."""

BYTES_FIELDS = frozenset({"thoughtSignature", "data"})
"""Gemini fields typed ``bytes``: the SDK reads base64 and writes URL-safe base64, so they are
compared as bytes."""


def sdk_problems(body: dict[str, Any], wire: str) -> list[WireProblem]:
    """Every way ``body`` fails the official SDK types of ``wire`` (an empty list: it passes)."""
    name = wire_spec(wire).name
    try:
        from pydantic import ValidationError

        validator = _validator(name)
    except ImportError as exc:
        return [WireProblem(name, "", "sdk", f"the official SDK is not installed ({exc})")]
    problems: list[WireProblem] = []
    try:
        for where, given, validated in validator(body):
            for path, reason in _differences(given, validated, where):
                problems.append(WireProblem(name, path, "sdk", reason))
    except ValidationError as exc:
        for error in exc.errors()[:20]:
            location = ".".join(str(part) for part in error["loc"])
            problems.append(WireProblem(name, location, "sdk", f"{error['msg']} ({error['type']})"))
        if not problems:
            problems.append(WireProblem(name, "", "sdk", str(exc)))
    return problems


@cache
def _validator(wire: str) -> Validator:
    match wire:
        case "openai-chat":
            from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

            return _typed_dict(CompletionCreateParamsNonStreaming)
        case "openai-responses":
            from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

            return _typed_dict(ResponseCreateParamsNonStreaming)
        case "anthropic":
            from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

            return _typed_dict(MessageCreateParamsNonStreaming)
        case "gemini":
            return _gemini
        case "ollama":
            return _ollama
    raise ValueError(f"no SDK validator for wire {wire!r}")


def _typed_dict(kind: Any) -> Validator:
    """A TypedDict request type, validated with unknown keys forbidden (the config reaches nested
    TypedDicts only through a container type, hence the one-element list)."""
    from pydantic import ConfigDict, TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(list[kind], config=ConfigDict(extra="forbid"))

    def validate(body: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
        validated = adapter.validate_python([body])
        yield "", body, materialise(validated[0])

    return validate


def _gemini(body: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    """Gemini's types are pydantic models that forbid unknown keys; they are read from JSON so
    base64 fields decode as the REST API reads them."""
    from google.genai import types

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


def _ollama(body: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    """Ollama's ``ChatRequest`` accepts messages as plain mappings without looking inside, so each
    message and tool is validated with its own type; images become ``Image`` values first, as the
    client's own ``_copy_messages`` does before it validates."""
    from ollama._types import ChatRequest, Image, Message, Tool

    request = ChatRequest.model_validate({k: v for k, v in body.items() if k not in ("messages", "tools")})
    yield "", {k: v for k, v in body.items() if k not in ("messages", "tools")}, \
        request.model_dump(exclude_none=True, exclude={"messages", "tools"})
    for i, message in enumerate(body.get("messages", [])):
        validated = Message.model_validate(
            {k: [Image(value=i) for i in v] if k == "images" else v for k, v in message.items()})
        yield f"messages[{i}]", message, validated.model_dump(exclude_none=True)
    for i, tool in enumerate(body.get("tools", [])):
        validated_tool = Tool.model_validate(tool)
        yield f"tools[{i}]", tool, validated_tool.model_dump(exclude_none=True, by_alias=True)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def materialise(value: Any) -> Any:
    """Every lazily validated iterable turned into a list, recursively (which raises what it hid)."""
    if isinstance(value, dict):
        return {k: materialise(v) for k, v in value.items()}
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [materialise(v) for v in value]
    try:
        items = iter(value)
    except TypeError:
        return value
    return [materialise(v) for v in items]


def _differences(given: Any, validated: Any, where: str) -> Iterator[tuple[str, str]]:
    """Where the validated value lost a key or changed a value of the input."""
    if isinstance(given, dict):
        if not isinstance(validated, dict):
            yield where, f"became {type(validated).__name__} after validation"
            return
        for key, value in given.items():
            at = f"{where}.{key}" if where else key
            if key not in validated:
                yield at, "dropped by the SDK type (unknown or misplaced field)"
            elif key in BYTES_FIELDS and isinstance(value, str) and isinstance(validated[key], str):
                if _bytes(value) != _bytes(validated[key]):
                    yield at, "changed by the SDK type"
            else:
                yield from _differences(value, validated[key], at)
    elif isinstance(given, list):
        if not isinstance(validated, list) or len(validated) != len(given):
            yield where, "changed length or type after validation"
            return
        for i, (a, b) in enumerate(zip(given, validated, strict=True)):
            yield from _differences(a, b, f"{where}[{i}]")
    elif given != validated and not (isinstance(given, int | float) and given == validated):
        yield where, f"changed by the SDK type ({given!r} → {validated!r})"


def _bytes(text: str) -> bytes | str:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_" if ("-" in text or "_" in text) else None)
    except ValueError:
        return text
