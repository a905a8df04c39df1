"""Validate request bodies against the official SDKs' type definitions, strictly.

Strict means two things the types do not do by themselves (found by running them, 2026-11-29, with
openai 3.57.0, anthropic 2.14.0, google-genai 3.6.1,
ollama 0.6.3, pydantic 2.14.4):

- fields typed ``Iterable[...]`` validate lazily, only when iterated: every validated value is
  materialised, so a wrong nested shape surfaces;
- TypedDicts and pydantic models drop unknown keys: the validated value is compared with the input,
  and any key the type dropped or value it changed is a problem.

The SDKs are development dependencies; without them ``sdk_problems`` says so in one problem. Each
wire module builds its own check from its SDK's types (``WireSpec.sdk``); this runs it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from functools import cache
from typing import Any

from toolkit.replay.checks import WireProblem
from toolkit.replay.lookup import wire_spec
from toolkit.replay.sdktypes import Validator


def sdk_problems(body: dict[str, Any], wire: str) -> list[WireProblem]:
    """Every way ``body`` fails the official SDK types of ``wire`` (an empty list: it passes)."""
    spec = wire_spec(wire)
    name = spec.name
    try:
        from pydantic import ValidationError

        validator = _validator(name)
    except ImportError as exc:
        return [WireProblem(name, "", "sdk", f"the official SDK is not installed ({exc})")]
    problems: list[WireProblem] = []
    try:
        for where, given, validated in validator(body):
            for path, reason in _differences(given, validated, where, spec.sdk.bytes_fields):
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
    """The wire's check, built once: building it imports the SDK and compiles its types."""
    return wire_spec(wire).sdk.validator()


def _differences(given: Any, validated: Any, where: str, bytes_fields: frozenset[str]) -> Iterator[tuple[str, str]]:
    """Where the validated value lost a key or changed a value of the input (``bytes_fields``
    compared as the bytes their base64 stands for)."""
    if isinstance(given, dict):
        if not isinstance(validated, dict):
            yield where, f"became {type(validated).__name__} after validation"
            return
        for key, value in given.items():
            at = f"{where}.{key}" if where else key
            if key not in validated:
                yield at, "dropped by the SDK type (unknown or misplaced field)"
            elif key in bytes_fields and isinstance(value, str) and isinstance(validated[key], str):
                if _bytes(value) != _bytes(validated[key]):
                    yield at, "changed by the SDK type"
            else:
                yield from _differences(value, validated[key], at, bytes_fields)
    elif isinstance(given, list):
        if not isinstance(validated, list) or len(validated) != len(given):
            yield where, "changed length or type after validation"
            return
        for i, (a, b) in enumerate(zip(given, validated, strict=True)):
            yield from _differences(a, b, f"{where}[{i}]", bytes_fields)
    elif given != validated and not (isinstance(given, int | float) and given == validated):
        yield where, f"changed by the SDK type ({given!r} → {validated!r})"


def _bytes(text: str) -> bytes | str:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_" if ("-" in text or "_" in text) else None)
    except ValueError:
        return text
