"""JSON text both ways, never failing on depth: the bottom layer that importers, replay, costs and
the saved corpus all write and read JSON through (orjson for speed, the standard library where
orjson refuses a nesting depth)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # the record packs its raw JSON through this module
    from toolkit.record import JsonValue

DEEP_RECURSION_LIMIT = 4000
"""Recursion allowed while writing a value orjson refuses: its parser accepts 1024 levels of nesting
but its writer only 255, and the record adds a few levels around a source's raw JSON."""


def json_text(value: JsonValue | object, *, sort_keys: bool = False) -> str:
    """Compact JSON text of a parsed value, non-ASCII kept as is, never raising: values nested
    deeper than orjson writes go through the standard library, and a value too deep even for it
    is named as such."""
    try:
        return orjson.dumps(value, default=str, option=_options(sort_keys)).decode("utf-8")
    except TypeError:
        return _stdlib(value, sort_keys, ascii_only=False) or _too_deep(value)


def json_bytes(value: JsonValue | object, *, sort_keys: bool = False) -> bytes:
    """``json_text`` as UTF-8 bytes, for writers that take bytes (a Parquet column is filled from
    them without making a Python string of each). Text orjson refuses (a lone surrogate, too deep)
    is written with ``\\u`` escapes, which read back as the same value and are valid UTF-8. A value
    too deep even for the standard library is written as a JSON string that names it, so the bytes
    always parse. orjson's bytes keep the whole buffer it wrote into (4 KiB at least), which a
    caller that holds many (a record table's batch, the record's packed JSON) pays for each, so they
    are copied to their length."""
    try:
        return _orjson_bytes(value, sort_keys)
    except TypeError:
        return (_stdlib(value, sort_keys, ascii_only=True) or orjson.dumps(_too_deep(value)).decode()).encode("ascii")


def json_bytes_sparing_strings(value: JsonValue | object) -> bytes:
    """``json_bytes`` written by the standard library, for a writer that goes through strings it
    keeps: orjson leaves each non-ASCII string it writes holding its UTF-8 form beside its own for as
    long as the string lives (CPython's UTF-8 cache), which for a record written while it is held (an
    import of a large file) grows its memory by the size of its non-ASCII text. What the standard
    library cannot write as orjson would (NaN, values nested deep, a lone surrogate, a value not JSON)
    goes to ``json_bytes``."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                          default=_not_json).encode("utf-8")
    except (RecursionError, ValueError, TypeError):  # UnicodeEncodeError is a ValueError
        return json_bytes(value)


def _not_json(value: object) -> object:
    raise TypeError(type(value).__name__)


def stable_json_bytes(value: JsonValue | object) -> bytes:
    """``json_bytes`` of the value ``loads`` reads back from them, so that writing what was read gives
    the same bytes: where orjson refuses a value, the standard library's text may hold an integer
    beyond 64 bits, which is read back as a float."""
    try:
        return _orjson_bytes(value, sort_keys=False)
    except TypeError:
        return json_bytes(loads(json_bytes(value)))


def _orjson_bytes(value: object, sort_keys: bool) -> bytes:
    """orjson's bytes copied to their length: they keep the whole buffer orjson wrote into."""
    return memoryview(orjson.dumps(value, default=str, option=_options(sort_keys))).tobytes()


def _options(sort_keys: bool) -> int:
    return orjson.OPT_NON_STR_KEYS | (orjson.OPT_SORT_KEYS if sort_keys else 0)


def _stdlib(value: object, sort_keys: bool, ascii_only: bool) -> str | None:
    """The standard library's JSON text, NaN and the infinities written as null (as orjson writes
    them: JSON has no words for them), or ``None`` for a value nested too deep even for it."""
    def dumps(value: object, *, allow_nan: bool) -> str:
        return json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"), sort_keys=sort_keys, default=str,
                          allow_nan=allow_nan)

    with _deep_recursion():
        try:
            try:
                return dumps(value, allow_nan=False)
            except ValueError:  # a float JSON cannot write: written, read back as null, written again
                return dumps(json.loads(dumps(value, allow_nan=True), parse_constant=lambda _: None), allow_nan=False)
        except (RecursionError, ValueError, TypeError):
            return None


@contextlib.contextmanager
def _deep_recursion() -> Iterator[None]:
    """The standard library's reader and writer recurse once a level: values orjson refuses for their
    depth need more than Python's default limit."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _too_deep(value: object) -> str:
    return f"<a JSON {type(value).__name__} nested too deep to write>"


def stringify(value: object) -> str:
    """Tool output as text: strings as themselves, anything else as compact JSON."""
    return value if isinstance(value, str) else json_text(value)


def loads(data: bytes | str) -> Any:
    """Parse JSON (orjson: the same values as the standard library, several times faster). Text
    nested deeper than orjson reads (1024 levels), or holding a lone surrogate escape (which the
    standard library reads and ``json_bytes`` writes), is parsed by the standard library instead."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        reason = str(exc).lower()
        if not any(word in reason for word in ("depth", "recursion", "surrogate")):
            raise
    with _deep_recursion():
        return json.loads(data)
