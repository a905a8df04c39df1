"""Files: a corpus walked in a stable order, each file scanned (as text, or a ZIP archive such as an
inspect ``.eval`` log member by member) and written to the copy, and what the run did to each
(``FileReport``, ``RedactionSummary``). ``scan`` and ``redact`` are the two passes' entry points."""

from __future__ import annotations

import copy
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
from toolkit.inflating import Budget, Inflated, zip_member
from toolkit.redact.bodies import (
    _coalesce,
    _Contents,
    _contents,
    _detect,
    _redact_contents,
    _Redacted,
    _redetect,
)
from toolkit.redact.detect import KINDS, Finding, _default_homes, _Rule, _rules
from toolkit.redact.encodings import Encoding, read, write
from toolkit.redact.placeholders import _apply, _canonical, _Placeholders
from toolkit.redact.repeats import _Known

Status = Literal["redacted", "clean", "partial", "skipped", "refused", "error"]


@dataclass(frozen=True)
class FileReport:
    """What redaction did to one file: ``redacted`` (secrets replaced), ``clean`` (scanned, copied
    as is), ``partial`` (scanned and copied, secrets found replaced, but some part could not be
    scanned: a recorded body that does not decode; ``reason`` says which), ``refused`` (not copied:
    compressed in a way that cannot be read or past the bound on inflating, or holding a secret that
    cannot be replaced), ``skipped`` (a version-control or tool directory, not copied) or ``error``
    (could not be read or written).
    A file that is not UTF-8 is read byte for byte (``reason`` says so) and redacted like text.
    ``path`` is where the file sits in the copy, its secrets replaced in its name too."""

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
        """How many files ended with ``status``, to report a run in one line.

        Args:
            status: One of ``redacted``, ``clean``, ``partial``, ``skipped``, ``refused``, ``error``.

        Returns:
            The number of files.
        """
        return sum(1 for report in self.files if report.status == status)

    def to_json(self) -> dict[str, Any]:
        """The summary as one JSON object: kinds, counts and file names, never a secret's text.

        Returns:
            The object, as ``toolkit redact --json`` prints it (with ``--verify``, beside the leaks found).
        """
        return {
            "source": self.source,
            "output": self.output,
            "files": sum(1 for r in self.files if r.status != "skipped"),
            "redacted": self.count("redacted"),
            "clean": self.count("clean"),
            "partial": self.count("partial"),
            "skipped": self.count("skipped"),
            "refused": self.count("refused"),
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
    mode: Literal["pending", "text", "zip", "refused", "error", "skipped"]
    reason: str | None = None
    texts: dict[str, _Contents] = field(default_factory=dict)
    """Per zip member (``""`` for a plain text file)."""
    encodings: dict[str, Encoding] = field(default_factory=dict)
    """How each member (``""``: the file) holds its text, where that is not plain UTF-8."""
    names: tuple[Finding, ...] = ()
    """The secrets in the names of a ZIP archive's members (a folder or file named for a token)."""

    def findings(self) -> Iterator[Finding]:
        for contents in self.texts.values():
            yield from contents.all_findings()
        yield from self.names

    def unscanned(self) -> list[str]:
        return [reason for contents in self.texts.values() for reason in contents.unscanned]


def _scan_file(source: Path, rel: str, rules: Sequence[_Rule]) -> _Plan:
    try:
        data = source.read_bytes()
    except OSError as exc:
        return _Plan(source, rel, "error", f"cannot read: {exc.strerror or exc}")
    notes = []
    if data.startswith(_ZIP_MAGIC):
        plan = _scan_zip(source, rel, rules)
        if plan.mode != "error":
            return plan
        notes.append(f"{plan.reason}: read as one text")
    opened = read(data)
    if isinstance(opened, str):
        return _Plan(source, rel, "refused", opened)
    text, encoding = opened
    note = encoding.note()
    if note:
        notes.append(note)
    return _Plan(source, rel, "text", "; ".join(notes) or None, texts={"": _contents(text, rules)},
                 encodings={"": encoding})


def _text(data: bytes) -> tuple[str, Encoding]:
    """The text of bytes read before (so readable): a file of the plan, or a member of its archive."""
    opened = read(data)
    if isinstance(opened, str):
        raise InvalidInput(opened)
    return opened


_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError, ValueError)


def _scan_zip(source: Path, rel: str, rules: Sequence[_Rule]) -> _Plan:
    """A ZIP archive member by member; one that cannot be read is read as bytes instead (mode ``error``
    tells the caller to)."""
    texts: dict[str, _Contents] = {}
    encodings: dict[str, Encoding] = {}
    names: list[Finding] = []
    try:
        with zipfile.ZipFile(source) as archive:
            budget = Budget.of(archive)
            for info in archive.infolist():
                names.extend(_name_findings(info.filename, rules))
                if info.is_dir():
                    continue
                opened = read(zip_member(archive, info, budget))
                if isinstance(opened, str):
                    return _Plan(source, rel, "refused", f"member {info.filename}: {opened}")
                text, encodings[info.filename] = opened
                contents = _contents(text, rules)
                texts[info.filename] = _Contents(
                    contents.findings, contents.bodies, tuple(f"{info.filename}: {r}" for r in contents.unscanned),
                    contents.viewed)
    except Inflated as exc:
        return _Plan(source, rel, "refused", f"{exc}: a zip bomb, or too large to read, so it is not copied")
    except _ZIP_ERRORS as exc:
        return _Plan(source, rel, "error", f"a ZIP archive that cannot be read ({type(exc).__name__}: {exc})")
    notes = sorted({note for e in encodings.values() if (note := e.note())})
    reason = f"members: {'; '.join(notes)}" if notes else None
    return _Plan(source, rel, "zip", reason, texts=texts, encodings=encodings, names=tuple(names))


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


def _in_name(part: str, rules: Sequence[_Rule]) -> list[Finding]:
    """The secrets in one part of a path: a dash joins words in a name (``rollout-ghp_...``), where in
    text it would continue a token, so the part is also read with its dashes as spaces."""
    found = _detect(part, rules)[0]
    if "-" in part:
        found = _coalesce([*found, *(Finding(f.kind, f.start, f.end, f.detector, part[f.start:f.end])
                                     for f in _detect(part.replace("-", " "), rules)[0])])
    return found


def _name_findings(rel: str, rules: Sequence[_Rule]) -> list[Finding]:
    """The secrets in a file's or folder's name (each part of its path)."""
    return [f for part in rel.rstrip("/").split("/") for f in _in_name(part, rules)]


def _renamed(rel: str, rules: Sequence[_Rule], known: _Known, placeholders: _Placeholders,
             priority: int) -> tuple[str, Counter[str]]:
    """``rel`` with the secrets of each part of it replaced, and their kinds."""
    parts = []
    counts: Counter[str] = Counter()
    for part in rel.split("/"):
        found = _redetect(part, _in_name(part, rules), (), known, priority)
        found = placeholders.relabel(found)
        counts.update(f.kind for f in found)
        parts.append(_apply(part, found, placeholders) if found else part)
    return "/".join(parts), counts


def scan(path: str | Path, *, homes: Sequence[str] | None = None, progress: bool = False) -> RedactionSummary:
    """What ``redact`` would find in ``path``, writing nothing (``output`` is empty): one pass, so
    a secret is counted where a detector sees it, not where only its repetition would be replaced.

    Args:
        path: The corpus to scan: a file or a directory.
        homes: Home folders whose user names are secrets (default: this user's).
        progress: Show a progress bar.

    Returns:
        Each file's status and findings, and the secrets found by kind.

    Raises:
        MissingPath: ``path`` does not exist.
    """
    source = Path(path)
    if not source.exists():
        raise MissingPath(f"no such file or directory: {source}")
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    plans = _walk(source)
    reports: list[FileReport] = []
    by_kind: Counter[str] = Counter()
    distinct: dict[str, set[str]] = {}
    placeholders = _Placeholders()
    with _progress(len(plans), progress) as bar:
        for plan in plans:
            if plan.mode == "pending":
                plan = _scan_file(plan.source, plan.rel, rules)
            findings = [*plan.findings(), *_name_findings(plan.rel, rules)]
            for finding in findings:
                distinct.setdefault(finding.kind, set()).add(_canonical(finding.kind, finding.value))
            counts = Counter(f.kind for f in findings)
            by_kind.update(counts)
            rel, _ = _renamed(plan.rel, rules, _Known(()), placeholders, len(rules))
            reports.append(_report(plan, counts, plan.unscanned(), rel))
            bar.update(1)
    return RedactionSummary(str(source), "", tuple(reports), _ordered(by_kind), _ordered(
        Counter({kind: len(values) for kind, values in distinct.items()})))


def redact(
    path: str | Path, out: str | Path, *, homes: Sequence[str] | None = None, progress: bool = False
) -> RedactionSummary:
    """Write a copy of ``path`` (a file or a directory) to ``out`` with every secret replaced.

    Every file is read as text (byte for byte where it is not UTF-8) and written with placeholders
    in place of secrets: seen raw, with JSON escapes undone, inside base64 and hex runs and inside
    the base64 (and gzip) bodies of recorded exchanges (each encoded back as it was), and in file
    and folder names. ZIP archives (inspect ``.eval``) are rewritten member by member, the names of
    members redacted too; gzip, bzip2 and xz files are decompressed, redacted and compressed again.
    A file compressed in a way the
    standard library cannot undo (zstd, 7z), one that would inflate past ``toolkit.inflating``'s
    bound (or an archive whose members would together inflate past its own), or one holding a secret
    that cannot be replaced, is refused: reported, not copied.
    Version-control and tool directories (``.git``, ``.venv``...) are not copied. A file that cannot
    be read or written is reported with its reason and the run goes on. Raises ``InvalidInput`` (a
    ``ValueError``), before writing anything, when ``out`` is ``path`` or a file of the copy would
    land inside ``path``, and ``MissingPath`` when ``path`` does not exist.

    Two passes: the first finds secrets in every file, the second replaces them and every other
    verbatim appearance of a secret found anywhere (so a token labelled in one file is replaced
    where it appears bare in another, a home folder's user name wherever it names the account).

    Args:
        path: The corpus to copy: a file or a directory.
        out: Where the copy goes; it must not be ``path`` or inside it.
        homes: Home folders whose user names are redacted (default: this user's).
        progress: Show a progress bar.

    Returns:
        Each file's status (redacted, clean, partial, refused, error) and findings, and the
        replacements by kind.

    Raises:
        InvalidInput: ``out`` is ``path`` or would land inside it.
        MissingPath: ``path`` does not exist."""
    return _redact(path, out, homes=homes, progress=progress)[0]


def _redact(
    path: str | Path, out: str | Path, *, homes: Sequence[str] | None, progress: bool
) -> tuple[RedactionSummary, _Known]:
    source, target = Path(path), Path(out)
    destination = _destination(source, target)
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    plans = _walk(source)
    if source.is_dir():
        _refuse_overlap(source, destination, plans)
    with _progress(2 * len(plans), progress) as bar:
        names: list[Finding] = []
        for i, plan in enumerate(plans):
            if plan.mode == "pending":
                plans[i] = _scan_file(plan.source, plan.rel, rules)
            names.extend(_name_findings(plan.rel, rules))
            bar.update(1)
        found = [*(f for plan in plans for f in plan.findings()), *names]
        known = _Known(found)
        placeholders = _Placeholders(found)
        reports: list[FileReport] = []
        by_kind: Counter[str] = Counter()
        for plan in plans:
            rel, renamed = _renamed(plan.rel, rules, known, placeholders, len(rules))
            where = destination if not source.is_dir() else destination / rel
            report = _write(plan, where, known, placeholders, rules, rel, renamed)
            by_kind.update(report.findings)
            reports.append(report)
            bar.update(1)
    summary = RedactionSummary(str(source), str(destination), tuple(reports), _ordered(by_kind),
                               _ordered(placeholders.per_kind))
    return summary, known


def _ordered(counts: Counter[str]) -> dict[str, int]:
    return {kind: counts[kind] for kind in KINDS if counts[kind]}


def _report(plan: _Plan, counts: Counter[str], unscanned: Sequence[str] = (), rel: str | None = None) -> FileReport:
    rel = plan.rel if rel is None else rel
    if plan.mode in ("error", "skipped", "refused"):
        return FileReport(rel, plan.mode, _ordered(counts), reason=plan.reason)
    notes = [plan.reason] if plan.reason else []
    if unscanned:
        shown = "; ".join(unscanned[:3]) + (f"; and {len(unscanned) - 3} more" if len(unscanned) > 3 else "")
        notes.append(f"partially scanned: {shown}")
    status: Status = "partial" if unscanned else "redacted" if counts else "clean"
    return FileReport(rel, status, _ordered(counts), "; ".join(notes) or None)


def _write(plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, rules: Sequence[_Rule], rel: str,
           renamed: Counter[str]) -> FileReport:
    if plan.mode in ("error", "skipped", "refused"):
        return _report(plan, renamed, rel=rel)
    try:
        if plan.mode == "zip":
            done = _write_zip(plan, where, known, placeholders, rules)
        else:
            done = _write_text(plan, where, known, placeholders, len(rules))
    except (OSError, UnicodeError, *_ZIP_ERRORS) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return FileReport(rel, "error", reason=f"cannot write the copy: {reason}")
    counts = done.counts + renamed
    if done.left:
        why = "; ".join(done.reasons[:3])
        return FileReport(rel, "refused", _ordered(counts),
                          f"not copied: {done.left} secret(s) cannot be replaced ({why})")
    return _report(plan, counts, [*plan.unscanned(), *done.reasons], rel)


def _write_text(plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, priority: int) -> _Redacted:
    text, encoding = _text(plan.source.read_bytes())
    done = _redact_contents(text, plan.texts[""], known, placeholders, priority)
    if done.left:
        return done
    where.parent.mkdir(parents=True, exist_ok=True)
    if done.text == text:
        shutil.copy2(plan.source, where)
        return done
    where.write_bytes(write(done.text, encoding))
    shutil.copystat(plan.source, where)
    return done


def _write_zip(plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders,
               rules: Sequence[_Rule]) -> _Redacted:
    """An archive rewritten member by member, the secrets in members' names replaced too."""
    counts: Counter[str] = Counter()
    reasons: list[str] = []
    left = 0
    priority = len(rules)
    members: list[tuple[zipfile.ZipInfo, bytes]] = []
    with zipfile.ZipFile(plan.source) as archive:
        comment = archive.comment
        budget = Budget.of(archive)
        for info in archive.infolist():
            data = zip_member(archive, info, budget)
            if info.filename in plan.texts:
                text, encoding = _text(data)
                done = _redact_contents(text, plan.texts[info.filename], known, placeholders, priority)
                reasons.extend(f"{info.filename}: {r}" for r in done.reasons)
                left += done.left
                if done.text != text:
                    data = write(done.text, encoding)
                    counts.update(done.counts)
            name, renamed = _renamed(info.filename, rules, known, placeholders, priority)
            if renamed:
                info = copy.copy(info)
                info.filename = info.orig_filename = name
                counts.update(renamed)
            members.append((info, data))
    done = _Redacted("", counts, reasons, left)
    if left:
        return done
    where.parent.mkdir(parents=True, exist_ok=True)
    if not counts:
        shutil.copy2(plan.source, where)
        return done
    with zipfile.ZipFile(where, "w") as archive:
        archive.comment = comment
        for info, data in members:
            archive.writestr(info, data)
    shutil.copystat(plan.source, where)
    return done
