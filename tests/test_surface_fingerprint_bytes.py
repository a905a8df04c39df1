"""The frozen canonical form of a tool surface is written by orjson where that gives the same bytes
as Python's ``json``, and by ``json`` otherwise: the two writers must never disagree on a stored name."""

from __future__ import annotations

import importlib
import json
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

fp = importlib.import_module("toolkit.surface.fingerprint")  # the package re-exports a function of that name


def frozen_form(specs: object) -> bytes:
    """The definition of the canonical form, written the slow way."""
    return json.dumps(specs, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


every_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(every_char, max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(every_char, max_size=6), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.lists(json_values, max_size=4))
@example([{"minimum": 1e-05, "maximum": 1e16}])
@example([{"x": math.nan, "y": -math.inf, "z": None}])
@example([{"name": "s\ud800", "n": 2**64}])
@example([{"n": 2**64 - 1, "m": -(2**63), "f": 0.1, "g": 5e-324, "h": -0.0}])
@example([{"d": "\x00\x1f\x7f\u2028\"\\\b\f\n\r\t/é中😀"}])
def test_canonical_bytes_equal_the_frozen_form(specs: list[object]) -> None:
    assert fp.canonical_bytes(specs) == frozen_form(specs)


def test_keys_that_are_not_strings_take_the_slow_path() -> None:
    specs = [{1: "a", False: "b", None: "c", 2.5: "d"}]
    assert fp.canonical_bytes(specs) == frozen_form(specs)
    assert frozen_form(specs) == b'[{"1":"a","false":"b","null":"c","2.5":"d"}]'


def test_a_plain_surface_is_written_by_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is taken for an ordinary surface, and the slow one where orjson would differ."""
    plain = [{"type": "function", "function": {"name": "read", "description": "Read a file, 2.0 style",
                                               "parameters": {"type": "object", "properties": {
                                                   "path": {"type": "string"}, "limit": {"type": "integer",
                                                                                         "maximum": 2000}}}}}]
    expected = frozen_form(plain)
    small = [{"name": "t", "input_schema": {"minimum": 1e-05}}]
    small_expected = frozen_form(small)

    def refuse(*args: object, **kwargs: object) -> str:
        raise AssertionError("json.dumps was asked")

    monkeypatch.setattr(fp.json, "dumps", refuse)
    assert fp.canonical_bytes(plain) == expected
    with pytest.raises(AssertionError, match=r"json\.dumps was asked"):
        fp.canonical_bytes(small)
    assert small_expected == b'[{"name":"t","input_schema":{"minimum":1e-05}}]'
