"""What every wire's validator shares: the problem type and small checks over JSON bodies.

The validators encode each wire's documented rules (pairing, ordering, roles, ids, argument
types, signatures, image placement), the rules the providers' SDK types do not check.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from toolkit.replay.calls import CALL_ID_MAX, ID_RE, NAME_RE

RULES = (
    "shape", "order", "role", "pairing", "id", "name", "arguments", "signature", "image", "empty", "tools",
    "sdk",
)
"""The kinds of problem a validator reports (``WireProblem.rule``)."""


@dataclass(frozen=True, slots=True)
class WireProblem:
    """One way a request body breaks its wire's rules: where (a JSON path), which rule, and why."""

    wire: str
    where: str
    rule: str
    reason: str

    def __str__(self) -> str:
        return f"{self.wire} {self.where or '(body)'}: [{self.rule}] {self.reason}"


_DATA_URL = re.compile(r"data:([a-z0-9.+/-]+);base64,(.*)", re.S)


@dataclass
class Checker:
    """Collects the problems of one body."""

    wire: str
    problems: list[WireProblem] = field(default_factory=list)

    def add(self, where: str, rule: str, reason: str) -> None:
        self.problems.append(WireProblem(self.wire, where, rule, reason))

    def obj(self, value: Any, where: str) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.add(where, "shape", f"expected an object, got {_kind(value)}")
        return None

    def array(self, value: Any, where: str, *, nonempty: bool = False) -> list[Any] | None:
        if not isinstance(value, list):
            self.add(where, "shape", f"expected an array, got {_kind(value)}")
            return None
        if nonempty and not value:
            self.add(where, "empty", "must not be empty")
        return value

    def objects(self, value: Any, where: str, *, nonempty: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(path, object)`` for each object of the array ``value``; anything else is a problem."""
        for i, raw in enumerate(self.array(value, where, nonempty=nonempty) or []):
            at = f"{where}[{i}]"
            found = self.obj(raw, at)
            if found is not None:
                yield at, found

    def string(self, value: Any, where: str, *, nonblank: bool = False) -> bool:
        if not isinstance(value, str):
            self.add(where, "shape", f"expected a string, got {_kind(value)}")
            return False
        if nonblank and not value.strip():
            self.add(where, "empty", "text must hold non-whitespace characters")
            return False
        return True

    def keys(self, value: dict[str, Any], where: str, allowed: Iterable[str], required: Iterable[str] = ()) -> None:
        allowed_set = set(allowed)
        for key in value:
            if key not in allowed_set:
                self.add(f"{where}.{key}" if where else key, "shape", "unknown field")
        for key in required:
            if key not in value:
                self.add(f"{where}.{key}" if where else key, "shape", "required field is missing")

    def order(self, body: dict[str, Any], keys: Iterable[str]) -> None:
        """Tools, then system, then messages: the order a prefix cache reads them in."""
        present = [k for k in keys if k in body]
        positions = [list(body).index(k) for k in present]
        if positions != sorted(positions):
            self.add("", "order", f"body keys must render in the order {' → '.join(present)}")

    def call_id(self, value: Any, where: str, *, limit: int | None = CALL_ID_MAX) -> bool:
        if not self.string(value, where):
            return False
        if not ID_RE.fullmatch(value):
            self.add(where, "id", f"id {value!r} must match ^[A-Za-z0-9_-]+$")
            return False
        if limit is not None and len(value) > limit:
            self.add(where, "id", f"id is {len(value)} characters long; at most {limit} are accepted")
            return False
        return True

    def name(self, value: Any, where: str) -> bool:
        if not self.string(value, where):
            return False
        if not NAME_RE.fullmatch(value):
            self.add(where, "name", f"tool name {value!r} must match {NAME_RE.pattern} (at most 64 characters)")
            return False
        return True

    def unique_name(self, value: Any, where: str, seen: set[str]) -> None:
        """A declared tool's name: within the rules, and not declared twice."""
        if self.name(value, where):
            if value in seen:
                self.add(where, "tools", f"duplicate tool name {value!r}")
            seen.add(value)

    def function_tools(self, tools: Any, function_keys: Iterable[str]) -> None:
        """``tools`` as ``{"type": "function", "function": {...}}`` declarations (Chat Completions and
        Ollama, the only kind a replay declares there), each function holding only ``function_keys``."""
        names: set[str] = set()
        for where, tool in self.objects(tools, "tools"):
            self.keys(tool, where, ("type", "function"), ("type", "function"))
            if "type" in tool and tool["type"] != "function":
                self.add(f"{where}.type", "tools", f"type must be 'function', not {tool['type']!r}")
            function = self.obj(tool.get("function"), f"{where}.function")
            if function is None:
                continue
            self.keys(function, f"{where}.function", function_keys, ("name",))
            self.unique_name(function.get("name"), f"{where}.function.name", names)
            if "parameters" in function:
                self.obj(function["parameters"], f"{where}.function.parameters")

    def json_object_text(self, value: Any, where: str) -> None:
        """Arguments carried as a string must be the JSON text of an object."""
        if not isinstance(value, str):
            self.add(where, "arguments", f"arguments must be a string of JSON, not {_kind(value)}")
            return
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            self.add(where, "arguments", f"arguments are not valid JSON ({exc})")
            return
        if not isinstance(parsed, dict):
            self.add(where, "arguments", f"arguments must be a JSON object, got {_kind(parsed)}")

    def base64(self, value: Any, where: str) -> None:
        if not self.string(value, where):
            return
        if not is_base64(value):
            self.add(where, "image", "image data is not valid base64")

    def media_type(self, value: Any, where: str, media_types: frozenset[str]) -> None:
        if not (isinstance(value, str) and value in media_types):
            self.add(where, "image", f"{value!r} is not one of {', '.join(sorted(media_types))}")

    def image_url(self, value: Any, where: str, media_types: frozenset[str]) -> None:
        """An image URL: http(s), or a base64 data URL of an accepted type."""
        if not self.string(value, where):
            return
        if value.startswith(("https://", "http://")):
            return
        found = _DATA_URL.fullmatch(value)
        if found is None:
            self.add(where, "image", "image URL must be http(s) or a base64 data URL")
            return
        if found.group(1) not in media_types:
            self.add(where, "image", f"{found.group(1)} is not an accepted image type ({', '.join(sorted(media_types))})")
        if not is_base64(found.group(2)):
            self.add(where, "image", "data URL payload is not valid base64")


def is_base64(text: str) -> bool:
    """Standard or URL-safe base64, padded or not (Google's JSON accepts both alphabets)."""
    try:
        base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_" if ("-" in text or "_" in text) else None,
                         validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)
