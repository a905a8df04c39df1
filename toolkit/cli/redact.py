"""``toolkit redact PATH -o OUT [--json]``: write a copy of a corpus with its secrets replaced."""

from __future__ import annotations

import argparse
import json
import sys

from toolkit.cli.commands import help_for
from toolkit.redact import RedactionSummary, redact


def run(args: argparse.Namespace) -> int:
    summary = redact(args.path, args.output, progress=not args.json and sys.stderr.isatty())
    if args.json:
        sys.stdout.write(json.dumps(summary.to_json(), ensure_ascii=False) + "\n")
    else:
        _print(summary)
    return 1 if summary.count("error") else 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun if number == 1 else noun + 's'}"


def _print(summary: RedactionSummary) -> None:
    files = sum(1 for r in summary.files if r.status != "skipped")
    holding = sum(1 for r in summary.files if r.findings)
    print(f"wrote {summary.output}: {_count(files, 'file')}, {_count(summary.findings, 'secret')} replaced "
          f"({sum(summary.distinct.values())} distinct) in {_count(holding, 'file')}; "
          f"{summary.count('clean')} clean, {summary.count('partial')} partially scanned, "
          f"{summary.count('not-scanned')} not scanned, {_count(summary.count('error'), 'error')}")
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
        description="Copy a transcript file or directory with API keys, tokens, private keys, URL "
        "passwords, e-mail addresses and home-directory user names replaced by placeholders such as "
        "<redacted:openai-key:1>; every file keeps its format, and base64 or gzip bodies of recorded "
        "exchanges are decoded, redacted and encoded back (a file where some body cannot be is listed as "
        "partial). Exit status: 0 done, 1 some file could not be read or written (listed), 2 bad arguments.",
    )
    parser.add_argument("path", help="a transcript file or a directory (searched recursively)")
    parser.add_argument("-o", "--output", required=True,
                        help="where to write the copy: a directory (a file when PATH is a file); never inside PATH")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.set_defaults(func=run)
