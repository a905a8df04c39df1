"""``toolkit redact PATH -o OUT [--verify] [--json]``: write a copy of a corpus with its secrets replaced
(and read it again for anything left); ``toolkit redact --verify COPY`` checks a copy."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from toolkit.cli.commands import help_for, require_empty_folder_refused
from toolkit.errors import InvalidInput
from toolkit.inflating import INFLATE_RATIO, INFLATED_FREELY, INFLATED_MOST
from toolkit.redact import Leak, RedactionSummary, redact, redact_and_verify, verify


def run(args: argparse.Namespace) -> int:
    progress = not args.json and sys.stderr.isatty()
    summary: RedactionSummary | None = None
    leaks: tuple[Leak, ...] | None = None
    require_empty_folder_refused(str(args.path))
    if args.output is None:
        if not args.verify:
            raise InvalidInput("give -o OUT to write a redacted copy, or --verify to check PATH as one")
        leaks = verify(args.path)
    elif args.verify:
        summary, leaks = redact_and_verify(args.path, args.output, progress=progress)
    else:
        summary = redact(args.path, args.output, progress=progress)
    if args.json:
        data: dict[str, Any] = summary.to_json() if summary is not None else {"source": str(args.path)}
        if leaks is not None:
            data["verified"] = not leaks
            data["leaks"] = [{"path": leak.path, "kind": leak.kind, "detector": leak.detector} for leak in leaks]
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    else:
        if summary is not None:
            _print(summary)
        if leaks is not None:
            _print_leaks(summary.output if summary is not None else str(args.path), leaks)
    failed = summary is not None and (summary.count("error") or summary.count("refused"))
    return 1 if failed or leaks else 0


def _print_leaks(where: str, leaks: tuple[Leak, ...]) -> None:
    if not leaks:
        print(f"verified {where}: nothing recoverable left")
        return
    print(f"NOT SAFE: {_count(len(leaks), 'secret')} still recoverable in {where}:")
    for leak in leaks:
        print(f"  {leak.path}: {leak.kind} ({leak.detector})")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun if number == 1 else noun + 's'}"


def _print(summary: RedactionSummary) -> None:
    files = sum(1 for r in summary.files if r.status != "skipped")
    holding = sum(1 for r in summary.files if r.findings)
    print(f"wrote {summary.output}: {_count(files, 'file')}, {_count(summary.findings, 'secret')} replaced "
          f"({sum(summary.distinct.values())} distinct) in {_count(holding, 'file')}; "
          f"{summary.count('clean')} clean, {summary.count('partial')} partially scanned, "
          f"{summary.count('refused')} refused (not copied), {_count(summary.count('error'), 'error')}")
    if summary.by_kind:
        print(f"  {'kind':<20} {'found':>8} {'distinct':>9}")
        for kind, count in summary.by_kind.items():
            print(f"  {kind:<20} {count:>8} {summary.distinct.get(kind, 0):>9}")
    listed = [r for r in summary.files if r.status != "clean"]
    if listed:
        print("files:")
    for report in listed:
        found = ", ".join(f"{kind} {count}" for kind, count in report.findings.items())
        detail = "; ".join(part for part in (found, report.reason or "") if part)
        print(f"  {report.status:<12} {report.path}" + (f"  ({detail})" if detail else ""))
    if summary.count("clean"):
        print(f"  {_count(summary.count('clean'), 'clean file')} not listed (--json lists every file)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "redact",
        help=help_for("redact"),
        description="Copy a transcript file or directory with API keys, tokens, private keys, passwords "
        "(in URLs, on command lines, assigned to names that say secret), e-mail addresses and home-directory "
        "user names replaced by placeholders such as <redacted:openai-key:1>, in file names too; every file "
        "keeps its format. Secrets are looked for as readers see them: with JSON escapes undone, inside "
        "base64 and hex runs and the base64 or gzip bodies of recorded exchanges (encoded back as they "
        "were), in files that are not UTF-8 byte for byte. ZIP archives (inspect .eval) are rewritten member "
        "by member, members' names redacted too; gzip, bzip2 and xz files are decompressed, redacted and "
        "compressed again. A zstd or 7z file, a file or ZIP member that would inflate past "
        f"{INFLATE_RATIO} times its compressed size (at least {INFLATED_FREELY >> 20} MiB, at most "
        f"{INFLATED_MOST >> 30} GiB, the importer's bound; an archive's members together are bound by the "
        "archive's size the same way), or a file with a secret that cannot be replaced, "
        "is refused (listed with the reason, not copied). --verify reads the copy again with the same "
        "decoders and fails if anything is left. Exit status: 0 done, 1 some file refused or not read or "
        "written, or --verify found something (listed), 2 bad arguments.",
    )
    parser.add_argument("path", help="a transcript file or a directory (searched recursively); "
                        "with --verify and no -o, the copy to check")
    parser.add_argument("-o", "--output",
                        help="where to write the copy: a directory (a file when PATH is a file); never inside PATH")
    parser.add_argument("--verify", action="store_true",
                        help="read the copy again and fail, naming file and kind, if any secret is recoverable")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.set_defaults(func=run)
