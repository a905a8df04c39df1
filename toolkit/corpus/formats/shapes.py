"""Guards every importer uses where a file is valid JSON but not the shape its format promises.

A field that drives dispatch (``type``, ``role``, an id) may hold any JSON value: a dict looked up in
a set raises ``TypeError``, and one such record must not lose the whole file. These helpers turn the
value into what the importer can dispatch on, and name the odd value in the problem they report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import NOT_JSON, ImportContext, read_json
from toolkit.jsontext import json_text
from toolkit.record import Event, JsonValue, SourceRef, packed
from toolkit.surface.fingerprint import fingerprint


def text_of(value: object) -> str | None:
    """A text field (a dispatch tag such as ``type`` or ``role``, an id, a name) as text, or ``None``
    for any other JSON value: safe to look up in sets and maps, where an object or array would raise."""
    return value if isinstance(value, str) else None


def text_field(value: object, what: str, report: Callable[[str], None]) -> str:
    """A field that must hold text (a tool's name, a call id): the text, ``""`` when absent, and any
    other value reported and kept as its JSON text, so the odd value still shows."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    report(f"{what} is {shown(value)}, not text; kept as its JSON text")
    return json_text(value)


def id_text(value: object) -> str | None:
    """An identifier as text: non-empty text, or an integer (OpenHands event ids, inspect sample
    ids and epochs are numbers); ``None`` for anything else."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def obj(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def items(value: object) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def as_int(value: object) -> int | None:
    """A count: an integer (not a boolean), an integral float, or digits as text (proto3 JSON writes
    int64 as strings); anything else is ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"), (int, "number"), (float, "number"), (str, "string"), (list, "array"), (dict, "object"),
)


def json_type(value: object) -> str:
    """The JSON name of a value's type, for problems (``object``, ``array``, ``null``...)."""
    if value is None:
        return "null"
    for kind, name in JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def kind_name(value: object) -> str:
    """A source's name for a thing (the ``type`` of an ``Opaque`` block or an ``Event``) from a field
    that should be text: the text, else the JSON type in angle brackets (``<object>``, ``<null>``),
    never the value itself, which may be huge or nested too deep to print."""
    return value if isinstance(value, str) else f"<{json_type(value)}>"


def shown(value: object, limit: int = 60) -> str:
    """A value as a problem quotes it: a string in quotes, a number, boolean or null as JSON, an
    object or array by its JSON type and an excerpt; cut to ``limit`` characters so a huge or deep
    value does not flood the report."""
    if isinstance(value, str):
        return repr(value[:limit] + ("..." if len(value) > limit else ""))
    text = json_text(value)
    if not isinstance(value, dict | list):
        return text[:limit]
    return f"a JSON {json_type(value)} {text[:limit]}{'...' if len(text) > limit else ''}"


def read_object(path: Path, ctx: ImportContext, what: str) -> dict[str, Any] | None:
    """A whole-file JSON document that must be an object (``what``, for the problem): ``None`` when
    it cannot be read (``read_json`` reported why) or holds another JSON value (reported here)."""
    value = read_json(path, ctx)
    if value is NOT_JSON:
        return None
    if isinstance(value, dict):
        return value
    ctx.problem(path, 1, f"{what} is a JSON object, found a JSON {type(value).__name__}")
    return None


def role_event(what: str, role: object, raw: JsonValue, source: SourceRef | None, text: str) -> Event:
    """An item whose role the record has no place for, kept as an ``other`` event ``<what>:<role>``
    (the role by ``kind_name``) so it is still seen."""
    return Event("other", f"{what}:{kind_name(role)}", raw_json=packed(raw), source=source, text=text)


def surface_hash(tools: Sequence[JsonValue], report: Callable[[str], None]) -> str | None:
    """The fingerprint of the tool specs a request was sent, or ``None`` (reported) when they cannot
    be written as JSON: nested deeper than the encoder recurses, or holding values JSON lacks (a
    YAML date)."""
    try:
        return fingerprint(tools)
    except (RecursionError, ValueError, TypeError) as exc:
        report(f"tool specs cannot be fingerprinted ({type(exc).__name__}); the surface hash is left unknown")
        return None


def json_value(value: object) -> JsonValue:
    """A value ``orjson.loads`` gave, typed as the JSON value it already is (no copy, no check)."""
    return value  # type: ignore[return-value]
