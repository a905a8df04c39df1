"""Files: a corpus walked in a stable order, each file scanned (as text, or a ZIP archive such as an
inspect ``.eval`` log member by member) and written to the copy, and what the run did to each
(``FileReport``, ``RedactionSummary``). ``scan`` and ``redact`` are the two passes' entry points."""

from __future__ import annotations

import os
import shutil
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from toolkit.corpus import SKIP_DIRS
from toolkit.errors import InvalidInput, MissingPath
from toolkit.redact.bodies import _Contents, _contents, _redact_contents
from toolkit.redact.detect import KINDS, Finding, _default_homes, _Rule, _rules
from toolkit.redact.placeholders import _canonical, _Placeholders
from toolkit.redact.repeats import _Known

Status = Literal["redacted", "clean", "partial", "not-scanned", "skipped", "error"]


@dataclass(frozen=True)
class FileReport:
    """What redaction did to one file: ``redacted`` (secrets replaced), ``clean`` (scanned, copied
    as is), ``partial`` (scanned and copied, secrets found replaced, but some part could not be
    scanned or rewritten: a recorded body that does not decode to text or cannot be encoded back;
    ``reason`` says which), ``not-scanned`` (neither text nor a known container: copied as is),
    ``skipped`` (a version-control or tool directory, not copied) or ``error`` (could not be read
    or written)."""

    path: str
    status: Status
    findings: dict[str, int] = field(default_factory=dict)
    reason: str | None = None


@dataclass(frozen=True)
class RedactionSummary:
    """One run: every file's report, findings per kind, and distinct secrets per kind."""

    source: str
    output: str
    files: tuple[FileReport, ...]
    by_kind: dict[str, int]
    distinct: dict[str, int]

    @property
    def findings(self) -> int:
        return sum(self.by_kind.values())

    def count(self, status: Status) -> int:
        return sum(1 for report in self.files if report.status == status)

    def to_json(self) -> dict[str, Any]:
        """The summary as one JSON object: kinds, counts and file names, never a secret's text."""
        return {
            "source": self.source,
            "output": self.output,
            "files": sum(1 for r in self.files if r.status != "skipped"),
            "redacted": self.count("redacted"),
            "clean": self.count("clean"),
            "partial": self.count("partial"),
            "not_scanned": self.count("not-scanned"),
            "skipped": self.count("skipped"),
            "errors": self.count("error"),
            "findings": self.findings,
            "by_kind": dict(self.by_kind),
            "distinct": dict(self.distinct),
            "per_file": [
                {"path": r.path, "status": r.status, "findings": dict(r.findings), "reason": r.reason}
                for r in self.files
            ],
        }


_ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class _Plan:
    """What the first pass learnt of one file."""

    source: Path
    rel: str
    mode: Literal["pending", "text", "zip", "binary", "error", "skipped"]
    reason: str | None = None
    texts: dict[str, _Contents] = field(default_factory=dict)
    """Per zip member (``""`` for a plain text file)."""
    binary_members: int = 0

    def findings(self) -> Iterator[Finding]:
        for contents in self.texts.values():
            yield from contents.all_findings()

    def unscanned(self) -> list[str]:
        return [reason for contents in self.texts.values() for reason in contents.unscanned]


def _scan_file(source: Path, rel: str, rules: Sequence[_Rule]) -> _Plan:
    try:
        data = source.read_bytes()
    except OSError as exc:
        return _Plan(source, rel, "error", f"cannot read: {exc.strerror or exc}")
    if data.startswith(_ZIP_MAGIC):
        return _scan_zip(source, rel, rules)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _Plan(source, rel, "binary", "not UTF-8 text and not a ZIP archive")
    return _Plan(source, rel, "text", texts={"": _contents(text, rules)})


_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError, ValueError)


def _scan_zip(source: Path, rel: str, rules: Sequence[_Rule]) -> _Plan:
    texts: dict[str, _Contents] = {}
    binary = 0
    try:
        with zipfile.ZipFile(source) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                data = archive.read(info)
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    binary += 1
                    continue
                contents = _contents(text, rules)
                texts[info.filename] = _Contents(
                    contents.findings, contents.bodies, tuple(f"{info.filename}: {r}" for r in contents.unscanned))
    except _ZIP_ERRORS as exc:
        return _Plan(source, rel, "binary", f"a ZIP archive that cannot be read ({type(exc).__name__}: {exc})")
    return _Plan(source, rel, "zip", texts=texts, binary_members=binary)


def _walk(root: Path) -> list[_Plan]:
    """Every file under ``root`` in a stable order, and the directories not copied."""
    if not root.is_dir():
        return [_Plan(root, root.name, "pending")]
    found: list[_Plan] = []
    for directory, dirnames, filenames in os.walk(root):
        here = Path(directory)
        keep = []
        for name in sorted(dirnames):
            rel = (here / name).relative_to(root).as_posix()
            if name in SKIP_DIRS:
                found.append(_Plan(here / name, rel + "/", "skipped", "version-control or tool directory"))
            elif (here / name).is_symlink():
                found.append(_Plan(here / name, rel + "/", "skipped", "symbolic link to a directory"))
            else:
                keep.append(name)
        dirnames[:] = keep
        found.extend(_Plan(here / name, (here / name).relative_to(root).as_posix(), "pending") for name in filenames)
    found.sort(key=lambda plan: plan.rel)
    return found


def _destination(source: Path, out: Path) -> Path:
    """Where the copy goes; refuses a copy that would land inside or onto its source."""
    if not source.exists():
        raise MissingPath(f"no such file or directory: {source}")
    src, dst = source.resolve(), out.resolve()
    if source.is_dir():
        if dst == src:
            raise InvalidInput(f"refusing to write the redacted copy onto its source: {out} is {source}")
        if src in dst.parents:
            raise InvalidInput(f"refusing to write the redacted copy inside its source: {out} is inside {source}")
        if out.exists() and not out.is_dir():
            raise InvalidInput(f"{out} exists and is not a directory")
        return out
    target = out / source.name if out.is_dir() else out
    if target.resolve() == src:
        raise InvalidInput(f"refusing to write the redacted copy onto its source: {target} is {source}")
    return target


def _refuse_overlap(source: Path, destination: Path, plans: Sequence[_Plan]) -> None:
    """Refuses, before anything is written, a copy one of whose files would land in the source
    (``OUT`` an ancestor of ``PATH`` holding a directory of the same name)."""
    src = source.resolve()
    for plan in plans:
        where = (destination / plan.rel).resolve()
        if where == src or src in where.parents:
            raise InvalidInput(f"refusing to write the redacted copy into its source: {destination / plan.rel} "
                               f"is inside {source}")


def _progress(total: int, show: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="redacting", unit="file", disable=not show)


def scan(path: str | Path, *, homes: Sequence[str] | None = None, progress: bool = False) -> RedactionSummary:
    """What ``redact`` would find in ``path``, writing nothing (``output`` is empty): one pass, so
    a secret is counted where a detector sees it, not where only its repetition would be replaced."""
    source = Path(path)
    if not source.exists():
        raise MissingPath(f"no such file or directory: {source}")
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    plans = _walk(source)
    reports: list[FileReport] = []
    by_kind: Counter[str] = Counter()
    distinct: dict[str, set[str]] = {}
    with _progress(len(plans), progress) as bar:
        for plan in plans:
            if plan.mode == "pending":
                plan = _scan_file(plan.source, plan.rel, rules)
            findings = list(plan.findings())
            for finding in findings:
                distinct.setdefault(finding.kind, set()).add(_canonical(finding.kind, finding.value))
            counts = Counter(f.kind for f in findings)
            by_kind.update(counts)
            reports.append(_report(plan, counts, plan.unscanned()))
            bar.update(1)
    return RedactionSummary(str(source), "", tuple(reports), _ordered(by_kind), _ordered(
        Counter({kind: len(values) for kind, values in distinct.items()})))


def redact(
    path: str | Path, out: str | Path, *, homes: Sequence[str] | None = None, progress: bool = False
) -> RedactionSummary:
    """Write a copy of ``path`` (a file or a directory) to ``out`` with every secret replaced.

    Text files (every format the toolkit imports is text) are rewritten with placeholders in
    place of secrets, base64 (and gzip) bodies of recorded exchanges included (a file where one
    cannot be decoded to text or encoded back is reported ``partial``, with the reason); ZIP
    archives (inspect ``.eval``) are rewritten member by member; other files are copied and
    reported as not scanned; version-control and tool directories (``.git``,
    ``.venv``...) are not copied. A file that cannot be read or written is reported with its reason
    and the run goes on. Raises ``InvalidInput`` (a ``ValueError``), before writing anything, when
    ``out`` is ``path`` or a file of the copy would land inside ``path``, and ``MissingPath`` when
    ``path`` does not exist.

    Two passes: the first finds secrets in every file, the second replaces them and every other
    verbatim appearance of a secret found anywhere (so a token labelled in one file is replaced
    where it appears bare in another)."""
    source, target = Path(path), Path(out)
    destination = _destination(source, target)
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    plans = _walk(source)
    if source.is_dir():
        _refuse_overlap(source, destination, plans)
    with _progress(2 * len(plans), progress) as bar:
        for i, plan in enumerate(plans):
            if plan.mode == "pending":
                plans[i] = _scan_file(plan.source, plan.rel, rules)
            bar.update(1)
        known = _Known(f for plan in plans for f in plan.findings())
        placeholders = _Placeholders()
        reports: list[FileReport] = []
        by_kind: Counter[str] = Counter()
        for plan in plans:
            where = destination if not source.is_dir() else destination / plan.rel
            report = _write(plan, where, known, placeholders, len(rules))
            by_kind.update(report.findings)
            reports.append(report)
            bar.update(1)
    return RedactionSummary(str(source), str(destination), tuple(reports), _ordered(by_kind),
                            _ordered(placeholders.per_kind))


def _ordered(counts: Counter[str]) -> dict[str, int]:
    return {kind: counts[kind] for kind in KINDS if counts[kind]}


def _report(plan: _Plan, counts: Counter[str], unscanned: Sequence[str] = ()) -> FileReport:
    if plan.mode in ("error", "skipped"):
        return FileReport(plan.rel, plan.mode, reason=plan.reason)
    if plan.mode == "binary":
        return FileReport(plan.rel, "not-scanned", reason=plan.reason)
    notes = [f"{plan.binary_members} binary member(s) not scanned"] if plan.binary_members else []
    if unscanned:
        shown = "; ".join(unscanned[:3]) + (f"; and {len(unscanned) - 3} more" if len(unscanned) > 3 else "")
        notes.append(f"partially scanned: {shown}")
    status: Status = "partial" if unscanned else "redacted" if counts else "clean"
    return FileReport(plan.rel, status, _ordered(counts), "; ".join(notes) or None)


def _write(plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, priority: int) -> FileReport:
    if plan.mode in ("error", "skipped"):
        return _report(plan, Counter())
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        if plan.mode == "binary":
            shutil.copy2(plan.source, where)
            return _report(plan, Counter())
        if plan.mode == "zip":
            counts, reasons = _write_zip(plan, where, known, placeholders, priority)
        else:
            counts, reasons = _write_text(plan, where, known, placeholders, priority)
    except (OSError, UnicodeDecodeError, *_ZIP_ERRORS) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return FileReport(plan.rel, "error", reason=f"cannot write the copy: {reason}")
    return _report(plan, counts, [*plan.unscanned(), *reasons])


def _write_text(
    plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, priority: int
) -> tuple[Counter[str], list[str]]:
    text = plan.source.read_bytes().decode("utf-8")
    redacted, counts, reasons = _redact_contents(text, plan.texts[""], known, placeholders, priority)
    if redacted == text:
        shutil.copy2(plan.source, where)
        return Counter(), reasons
    where.write_bytes(redacted.encode("utf-8"))
    shutil.copystat(plan.source, where)
    return counts, reasons


def _write_zip(
    plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, priority: int
) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    reasons: list[str] = []
    members: list[tuple[zipfile.ZipInfo, bytes]] = []
    with zipfile.ZipFile(plan.source) as archive:
        comment = archive.comment
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename in plan.texts:
                text = data.decode("utf-8")
                redacted, found, why = _redact_contents(text, plan.texts[info.filename], known, placeholders, priority)
                reasons.extend(f"{info.filename}: {r}" for r in why)
                if redacted != text:
                    data = redacted.encode("utf-8")
                    counts.update(found)
            members.append((info, data))
    if not counts:
        shutil.copy2(plan.source, where)
        return counts, reasons
    with zipfile.ZipFile(where, "w") as archive:
        archive.comment = comment
        for info, data in members:
            archive.writestr(info, data)
    shutil.copystat(plan.source, where)
    return counts, reasons
