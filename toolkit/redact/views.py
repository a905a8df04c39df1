"""Escapes undone: a text as a JSON (or YAML double-quoted) reader reads its strings.

``\\u0073k-...``, ``ghp\\u005f...``, ``jane\\u0040corp.io`` and ``postgres:\\/\\/u:pw@host`` are what
any JSON reader turns into a key, a token, an address and a URL with its password, while a scan of
the raw text sees none of them. So each line that holds such an escape is also read decoded (and
decoded again where the decoded text is itself escaped JSON, as tool arguments are), the decoded
text is scanned like any other, and each secret found there is mapped back to the raw characters
it was decoded from: those are replaced whole, escapes included, so the file keeps its syntax."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(["\\/bfnrt]))')
"""JSON's escapes (RFC 8259 §7) and YAML's ``\\xXX`` (YAML 1.2 §5.7)."""
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HIDING = re.compile(r"\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|/)")
"""The escapes a raw scan cannot see through; ``\\n``, ``\\t`` and ``\\"`` it reads as boundaries."""
_DEPTH = 3
"""JSON in a JSON string in a JSON string: as deep as transcripts nest tool arguments."""


@dataclass(frozen=True)
class View:
    """A decoded text and where each of its characters came from in the raw text."""

    text: str
    starts: tuple[int, ...]
    """Per segment: where it starts in ``text``."""
    raw: tuple[tuple[int, int], ...]
    """Per segment: the raw span it was decoded from (a literal run, or one escape)."""

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The raw span that ``text[start:end]`` was decoded from, whole escapes included."""
        return self._where(start)[0], self._where(end - 1)[1]

    def _where(self, i: int) -> tuple[int, int]:
        k = bisect.bisect_right(self.starts, i) - 1
        low, high = self.raw[k]
        begin = self.starts[k]
        following = self.starts[k + 1] if k + 1 < len(self.starts) else len(self.text)
        if high - low == following - begin:  # a literal run
            return low + i - begin, low + i - begin + 1
        return low, high


def decode(text: str, offset: int = 0) -> View:
    """``text`` with its escapes undone (a lone surrogate stays a lone surrogate)."""
    parts: list[str] = []
    starts: list[int] = []
    raw: list[tuple[int, int]] = []
    size = 0
    last = 0
    for match in _ESCAPE.finditer(text):
        if match.start() > last:
            starts.append(size)
            raw.append((offset + last, offset + match.start()))
            parts.append(text[last:match.start()])
            size += match.start() - last
        hexa, byte, simple = match.groups()
        char = chr(int(hexa or byte, 16)) if hexa or byte else _SIMPLE[simple]
        last = match.end()
        starts.append(size)
        raw.append((offset + match.start(), offset + match.end()))
        parts.append(char)
        size += 1
    if last < len(text) or not starts:
        starts.append(size)
        raw.append((offset + last, offset + len(text)))
        parts.append(text[last:])
    return View("".join(parts), tuple(starts), tuple(raw))


def hides(text: str) -> bool:
    return _HIDING.search(text) is not None


def views(text: str) -> Iterator[tuple[View, ...]]:
    """For each line of ``text`` holding an escape a raw scan cannot see through, its decoded
    views, outermost first (each later one decodes the one before it, where that one still hides
    something): a finding in any maps back through the ones before it (``to_raw``)."""
    pos = 0
    while (hit := _HIDING.search(text, pos)) is not None:
        start = text.rfind("\n", 0, hit.start()) + 1
        end = text.find("\n", hit.end())
        end = len(text) if end < 0 else end
        pos = end + 1
        line = text[start:end]
        chain = [decode(line, start)]
        while len(chain) < _DEPTH and hides(chain[-1].text):
            chain.append(decode(chain[-1].text))
        yield tuple(chain)


def to_raw(chain: tuple[View, ...], start: int, end: int) -> tuple[int, int]:
    """The raw span of ``chain[-1].text[start:end]`` (pass ``chain[:k + 1]`` for the ``k``-th view)."""
    for view in reversed(chain):
        start, end = view.span(start, end)
    return start, end
