"""The JSON writers under the record and the saved corpus: what they cost in memory, and that each
writes what the others read back."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from tests.mutation import deep_recursion
from toolkit.jsontext import json_bytes, json_bytes_sparing_strings, json_text, loads, stable_json_bytes


def _wrap(value: object, levels: int) -> object:
    for _ in range(levels):
        value = [value]
    return value


def _deep(levels: int) -> object:
    return _wrap("leaf", levels)


ODD_VALUES: list[object] = [
    {"text": "caf\u00e9 \u2713 \u4f60\u597d", "n": [1, 2.5, True, None]},
    {"nan": float("nan")},  # orjson writes null, the standard library NaN (not JSON)
    {1: "an integer key"},
    "\ud800 a lone surrogate",
    _deep(600),  # deeper than orjson writes
    {"at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)},  # not JSON: orjson writes it, as text
]


def test_json_bytes_are_the_size_of_their_text() -> None:
    """orjson's bytes keep the whole buffer it wrote into; a holder of many paid 4 KiB each."""
    small = json_bytes({"a": 1})
    assert small == b'{"a":1}'
    assert sys.getsizeof(small) - len(small) < 64


def test_the_sparing_writer_leaves_strings_as_they_were() -> None:
    """orjson leaves a non-ASCII string holding its UTF-8 form for as long as the string lives; the
    writer of a held record must not, or the import of a large file grows by its text."""
    held = "na\u00efve \u2713 \u4f60\u597d " * 1000
    before = sys.getsizeof(held)
    json_bytes_sparing_strings({"text": held})
    assert sys.getsizeof(held) == before
    json_bytes({"text": held})
    assert sys.getsizeof(held) > before  # the cost spared above, so this test can tell


def test_every_writer_reads_back_as_json_bytes_does() -> None:
    for value in ODD_VALUES:
        expected = loads(json_bytes(value))
        assert loads(json_bytes_sparing_strings(value)) == expected
        assert loads(stable_json_bytes(value)) == expected
    assert loads(json_bytes({"nan": float("nan")})) == {"nan": None}


def test_nan_beside_a_value_orjson_refuses_is_null() -> None:
    """The standard library writes NaN as ``NaN``, which no JSON reader takes back: deep in a tool's
    input it made a saved corpus unreadable, and beside 1,100 levels it crashed the import."""
    for depth in (300, 1100):
        deep = _deep(depth)
        for value in ([float("nan"), deep], [deep, float("inf")], _wrap({"x": float("nan")}, depth)):
            read = [loads(json_bytes(value)), loads(stable_json_bytes(value)), loads(json_bytes_sparing_strings(value))]
            assert "NaN" not in json_text(value) and "Infinity" not in json_text(value)
            with deep_recursion():  # comparing lists this deep recurses too
                assert read[0] == read[1] == read[2]
        kept = loads(stable_json_bytes([float("nan"), deep]))
        with deep_recursion():
            assert kept == [None, deep]


def test_a_value_too_deep_for_any_writer_is_still_json() -> None:
    too_deep = _deep(100_000)
    assert loads(json_bytes(too_deep)) == "<a JSON list nested too deep to write>"
    assert json_text(too_deep) == "<a JSON list nested too deep to write>"
    assert loads(json_bytes_sparing_strings(too_deep)) == "<a JSON list nested too deep to write>"
