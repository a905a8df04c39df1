"""Text held as base64 or hex in ordinary text: a tool's output of ``cat .env | base64`` or ``xxd -p``,
a token pasted encoded. A run of base64 (or hex) characters long enough to hold a secret, in lines
of one width (``base64`` wraps at 76, ``xxd -p`` at 60) joined by real or escaped line breaks, is
decoded; where it spells text, that text is scanned like any other (``bodies`` encodes it back with
the secrets replaced). Runs that decode to no text (images, hashes, random identifiers) are left
alone.

A word of the alphabet on the line after a dump (``Done``, ``EOF``) reads as its last line where the
dump's own last line is full (``base64 -w0`` writes one line, which is always full), and spoils the
decoding of the whole; so a run that does not decode is tried again without its last line. A line
before a dump can join it too (the dump's lines are then wider or narrower than that one): where a
run of one or two lines does not decode, the next run starts at its second line."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

_RUN = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}(?:(?:\r?\n|(?:\\+r)?\\+n)[A-Za-z0-9+/]+={0,2})*")
_CHUNK = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")
_MIN_TEXT = 12
"""Fewer decoded characters than this hold no secret worth the search."""


@dataclass(frozen=True)
class Run:
    """An encoded run: where it sits, its lines (relative to ``start``), and the text it spells."""

    start: int
    end: int
    chunks: tuple[tuple[int, int], ...]
    text: str
    alphabet: Literal["base64", "hex"]
    padded: bool
    upper: bool


def _chunks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The runs of base64 characters in ``text[start:end]``, the letter of an escape (``\\n``) left out."""
    spans = []
    for match in _CHUNK.finditer(text, start, end):
        low, high = match.span()
        if low > 0 and text[low - 1] == "\\":
            low += 1
        if low < high:
            spans.append((low, high))
    return spans


def _lines(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The first lines of ``spans`` that belong together: all as wide as the first but the last,
    which may be narrower."""
    if not spans:
        return []
    width = spans[0][1] - spans[0][0]
    kept = [spans[0]]
    for span in spans[1:]:
        size = span[1] - span[0]
        if kept[-1][1] - kept[-1][0] != width or size > width or "=" in text[kept[-1][0]:kept[-1][1]]:
            break
        kept.append(span)
    return kept


def _printable(text: str) -> bool:
    return len(text) >= _MIN_TEXT and all(c.isprintable() or c in "\t\r\n" for c in text)


def decode_run(payload: str) -> tuple[str, Literal["base64", "hex"]] | None:
    """The text a run spells, as hex where every character is a hex digit, else as base64."""
    if _HEX.fullmatch(payload):
        try:
            text = bytes.fromhex(payload).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            pass
        else:
            if _printable(text):
                return text, "hex"
    try:
        data = base64.b64decode(payload + "=" * (-len(payload) % 4), validate=True)
        text = data.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return (text, "base64") if _printable(text) else None


def runs(text: str) -> Iterator[Run]:
    """Every encoded run of ``text`` that spells text, in order."""
    for match in _RUN.finditer(text):
        spans = _chunks(text, *match.span())
        i = 0
        while i < len(spans):
            lines = _lines(text, spans[i:])
            run = _run(text, lines) or (_run(text, lines[:-1]) if len(lines) > 1 else None)
            if run is not None:
                i += len(run.chunks)
                yield run
            else:  # a line before the dump may have taken its first line: start again after it
                i += 1 if len(lines) <= 2 else len(lines)


def _run(text: str, lines: list[tuple[int, int]]) -> Run | None:
    """The run of ``lines`` (spans of ``text``), where they spell text."""
    start, end = lines[0][0], lines[-1][1]
    payload = "".join(text[a:b] for a, b in lines)
    if len(payload) < 24:
        return None
    decoded = decode_run(payload)
    if decoded is None:
        return None
    spelled, alphabet = decoded
    return Run(start, end, tuple((a - start, b - start) for a, b in lines), spelled, alphabet,
               padded=payload.endswith("=") or len(payload) % 4 == 0,
               upper=alphabet == "hex" and any(c in "ABCDEF" for c in payload))


def encode_run(text: str, alphabet: Literal["base64", "hex"], padded: bool, upper: bool) -> str:
    data = text.encode("utf-8")
    if alphabet == "hex":
        return data.hex().upper() if upper else data.hex()
    payload = base64.b64encode(data).decode("ascii")
    return payload if padded else payload.rstrip("=")


def read_back(raw: str) -> str | None:
    """The text the runs of a rewritten run spell (to check a rewrite)."""
    payload = "".join(raw[a:b] for a, b in _chunks(raw, 0, len(raw)))
    decoded = decode_run(payload)
    return decoded[0] if decoded is not None else None
