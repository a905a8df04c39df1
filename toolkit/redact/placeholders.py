"""Replacement: typed, numbered placeholders (``<redacted:openai-key:1>``) in place of secrets,
the same secret numbered the same wherever a run meets it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from toolkit.redact.detect import KINDS, Finding, scan_text


def placeholder(kind: str, number: int) -> str:
    """The text that stands for the ``number``-th distinct secret of ``kind`` in a run: no quote,
    backslash or whitespace, so it is safe inside JSON strings, YAML scalars and URLs.

    Args:
        kind: The secret's kind (``toolkit.redact.KINDS``).
        number: Which distinct secret of that kind it is, from 1.

    Returns:
        The placeholder, ``<redacted:KIND:N>``.
    """
    return f"<redacted:{kind}:{number}>"


def _canonical(kind: str, value: str) -> str:
    """What makes two findings the same secret: a private key is the same key however its line
    breaks were escaped."""
    if kind == "private-key":
        return re.sub(r"\\+[nrt]|\s", "", value)
    return value


class _Placeholders:
    """Numbers each distinct secret of a kind in the order a run meets it. ``kinds`` names a secret
    found as several kinds (a GitHub token also assigned to ``TOKEN=``) by the most specific, so it
    gets one placeholder wherever it is."""

    def __init__(self, findings: Iterable[Finding] = ()) -> None:
        self.numbers: dict[tuple[str, str], int] = {}
        self.per_kind: Counter[str] = Counter()
        rank = {kind: i for i, kind in enumerate(KINDS)}
        self.kinds: dict[str, str] = {}
        for finding in findings:
            known = self.kinds.get(finding.value)
            if known is None or rank[finding.kind] < rank[known]:
                self.kinds[finding.value] = finding.kind

    def relabel(self, findings: Sequence[Finding]) -> list[Finding]:
        """``findings`` each named for the most specific kind its secret was found as."""
        return [f if self.kinds.get(f.value, f.kind) == f.kind else
                Finding(self.kinds[f.value], f.start, f.end, f.detector, f.value) for f in findings]

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
    """``text`` with every secret replaced (numbered from 1 within this text) and the findings.

    Args:
        text: The text to redact.
        homes: Home folders whose user names are secrets (default: this user's).

    Returns:
        The redacted text and the findings, by position in the original text.
    """
    findings = scan_text(text, homes=homes)
    return _apply(text, findings, _Placeholders()), findings
