"""Verification: a redacted copy read again with every decoder redaction uses (raw text, JSON
escapes undone, base64 and hex runs, cassette bodies, byte-for-byte reading, file names), so that a
copy believed safe to share is checked, not assumed, to hold nothing recoverable."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import MissingPath
from toolkit.inflating import Budget, zip_member
from toolkit.redact.bodies import _Contents, _redetect
from toolkit.redact.detect import Finding, _default_homes, _rules
from toolkit.redact.files import (
    _ZIP_ERRORS,
    RedactionSummary,
    _name_findings,
    _redact,
    _scan_file,
    _text,
    _walk,
)
from toolkit.redact.repeats import _Known


@dataclass(frozen=True)
class Leak:
    """Something recoverable left in a copy: the file (``file!member`` inside an archive), the kind
    of secret, and which detector saw it (never the secret itself)."""

    path: str
    kind: str
    detector: str


def _repeats(text: str, contents: _Contents, known: _Known, priority: int) -> Iterator[Finding]:
    """Secrets of the original run that reappear in a text of the copy: raw, decoded or in a body."""
    yield from _redetect(text, [], contents.viewed, known, priority)
    for body in contents.bodies:
        yield from _redetect(body.text, [], body.viewed, known, priority)


def verify(path: str | Path, *, homes: Sequence[str] | None = None, known: _Known | None = None) -> tuple[Leak, ...]:
    """Everything recoverable in ``path`` (a redacted copy), in file order; empty when it is clean.

    ``known`` (from the run that wrote the copy) adds the secrets that run found in the original,
    looked for wherever that run would have replaced them.

    Args:
        path: The copy to check: a file or a directory.
        homes: Home folders whose user names count as secrets (default: this user's).
        known: The secrets the redacting run found (``redact_and_verify`` passes them).

    Returns:
        One ``Leak`` per secret found (its file, kind and the decoder that found it), never the
        secret's text.

    Raises:
        MissingPath: ``path`` does not exist."""
    source = Path(path)
    if not source.exists():
        raise MissingPath(f"no such file or directory: {source}")
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    known = known if known is not None else _Known(())
    leaks: list[Leak] = []
    for plan in _walk(source):
        if plan.mode == "skipped":
            continue
        scanned = _scan_file(plan.source, plan.rel, rules) if plan.mode == "pending" else plan
        found = [*scanned.findings(), *_name_findings(plan.rel, rules)]
        leaks.extend(Leak(plan.rel, f.kind, f.detector) for f in found)
        if scanned.mode in ("error", "refused"):
            leaks.append(Leak(plan.rel, "unreadable", scanned.reason or "cannot be read"))
            continue
        for member, text in _texts(scanned.source, scanned.mode == "zip"):
            where = f"{plan.rel}!{member}" if member else plan.rel
            leaks.extend(Leak(where, f.kind, f.detector)
                         for f in _repeats(text, scanned.texts[member], known, len(rules)))
    return tuple(leaks)


def _texts(source: Path, archive: bool) -> Iterator[tuple[str, str]]:
    if not archive:
        yield "", _text(source.read_bytes())[0]
        return
    try:
        with zipfile.ZipFile(source) as opened:
            budget = Budget.of(opened)
            for info in opened.infolist():
                if not info.is_dir():
                    yield info.filename, _text(zip_member(opened, info, budget))[0]
    except _ZIP_ERRORS:
        return


def redact_and_verify(
    path: str | Path, out: str | Path, *, homes: Sequence[str] | None = None, progress: bool = False
) -> tuple[RedactionSummary, tuple[Leak, ...]]:
    """``redact`` then ``verify`` of the copy, with the secrets this run found in the original.

    Args:
        path: The corpus to copy, as ``redact`` takes it.
        out: Where the copy goes, as ``redact`` takes it.
        homes: Home folders whose user names are redacted (default: this user's).
        progress: Show a progress bar.

    Returns:
        What ``redact`` returns, and what ``verify`` still finds in the copy (empty: nothing left)."""
    summary, known = _redact(path, out, homes=homes, progress=progress)
    return summary, verify(summary.output, homes=homes, known=known)
