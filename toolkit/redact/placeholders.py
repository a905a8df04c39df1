"""Replacement: typed, numbered placeholders (``<redacted:openai-key:1>``) in place of secrets,
the same secret numbered the same wherever a run meets it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from toolkit.redact.detect import Finding, scan_text


def placeholder(kind: str, number: int) -> str:
    """The text that stands for the ``number``-th distinct secret of ``kind`` in a run: no quote,
    backslash or whitespace, so it is safe inside JSON strings, YAML scalars and URLs."""
    return f"<redacted:{kind}:{number}>"


def _canonical(kind: str, value: str) -> str:
    """What makes two findings the same secret: a private key is the same key however its line
    breaks were escaped."""
    if kind == "private-key":
        return re.sub(r"\\+[nrt]|\s", "", value)
    return value


class _Placeholders:
    """Numbers each distinct secret of a kind in the order a run meets it."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, str], int] = {}
        self.per_kind: Counter[str] = Counter()

    def get(self, kind: str, value: str) -> str:
        key = (kind, _canonical(kind, value))
        number = self.numbers.get(key)
        if number is None:
            self.per_kind[kind] += 1
            number = self.numbers[key] = self.per_kind[kind]
        return placeholder(kind, number)


def _apply(text: str, findings: Sequence[Finding], placeholders: _Placeholders) -> str:
    parts: list[str] = []
    last = 0
    for finding in findings:
        parts.append(text[last:finding.start])
        parts.append(placeholders.get(finding.kind, finding.value))
        last = finding.end
    parts.append(text[last:])
    return "".join(parts)


def redact_text(text: str, *, homes: Sequence[str] | None = None) -> tuple[str, list[Finding]]:
    """``text`` with every secret replaced (numbered from 1 within this text) and the findings."""
    findings = scan_text(text, homes=homes)
    return _apply(text, findings, _Placeholders()), findings
