"""Reading a JSON document that no longer parses as far as it goes: a file cut short or damaged in
one place keeps every value before the damage. The text before the error is cut back to the last
point where a value (or a member of an object) ended, and the containers still open there are
closed, so what comes back is a prefix of the document: the messages before the damage, none
after it, nothing made up."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

import orjson

CLOSING = {"{": "}", "[": "]"}
SPECIAL = re.compile(r'[\\"{}\[\],]')

ATTEMPTS = 64
"""Cut points tried, from the damage backwards, before giving up (each is one parse of the prefix):
the first almost always parses; a value damaged inside a long string may need a few."""


@dataclass(frozen=True)
class Salvaged:
    """What a damaged document still holds: ``value``, read from its first ``end`` characters."""

    value: object
    end: int


def salvage(text: str, error: int) -> Salvaged | None:
    """The longest prefix of the document ``text`` before ``error`` (where a parser gave up) that
    ends a value, with its open containers closed, parsed; ``None`` when the document never opened a
    container (a damaged scalar has no prefix to keep) or no cut parses."""
    cuts = _cuts(text, min(max(error, 0), len(text)))
    for end, closers in reversed(cuts):
        try:
            value = orjson.loads(text[:end] + closers)
        except orjson.JSONDecodeError:
            continue
        return Salvaged(value, end)
    return None


def _cuts(text: str, stop: int) -> deque[tuple[int, str]]:
    """The last ``ATTEMPTS`` places before ``stop`` where the text may be cut with its open
    containers closed after it: just inside an opening bracket, after a closing one, and before a
    comma (what precedes a comma is a whole value, or a whole member of an object), each with the
    brackets that close it. The scan jumps from one bracket, comma, quote or backslash to the next."""
    cuts: deque[tuple[int, str]] = deque(maxlen=ATTEMPTS)
    stack: list[str] = []
    inside = False
    at = 0
    while (found := SPECIAL.search(text, at, stop)) is not None:
        char, at = found.group(), found.end()
        if inside:
            if char == "\\":
                at += 1  # the escaped character, whatever it is
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in CLOSING:
            stack.append(CLOSING[char])
            cuts.append((at, "".join(reversed(stack))))
        elif char in "}]":
            if not stack or stack[-1] != char:
                break  # a bracket that closes nothing: the damage itself
            stack.pop()
            cuts.append((at, "".join(reversed(stack))))
        elif char == "," and stack:
            cuts.append((at - 1, "".join(reversed(stack))))
    return cuts
