"""``toolkit compactions PATH [--predict] [--json]``: the compactions real clients made in a corpus,
with the context before and after each and the summary that replaced it; with ``--predict``, each
beside its client's own modelled policy replayed on the same history."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from toolkit.cli.commands import help_for, read_corpus
from toolkit.compaction.recorded import observed

COLUMNS: tuple[tuple[str, str], ...] = (
    ("client", "client"), ("session", "session"), ("time", "time (UTC)"), ("trigger", "trigger"),
    ("tokens_before", "before"), ("source", "from"), ("tokens_after", "after"), ("after_source", "from"),
    ("summary_chars", "summary chars"), ("summary_tokens", "summary tokens"), ("model", "model"),
)
"""The text table's columns (key, header); ``--json`` gives every column."""

PREDICTED: tuple[tuple[str, str], ...] = (
    ("client", "client"), ("version", "version"), ("session", "session"), ("trigger", "trigger"),
    ("tokens_before", "before"), ("tokens_after", "after"), ("policy", "policy"), ("threshold", "threshold"),
    ("count_at_recorded", "its count"), ("predicted_offset", "offset"), ("predicted_after", "after (policy)"),
    ("after_if_run_here", "after if run here"), ("note", "note"),
)
"""``--predict``'s text columns: its count is the policy's count at the recorded compaction, offset
the requests from there to where the policy fires (``-``: never)."""

NUMERIC = frozenset({"tokens_before", "tokens_after", "summary_chars", "summary_tokens", "threshold",
                     "count_at_recorded", "predicted_offset", "predicted_after", "after_if_run_here"})


def rows(path: str, progress: bool | None, predict: bool = False) -> tuple[list[dict[str, Any]], int, int]:
    """The compactions of ``path`` as JSON-ready objects (with ``predict``, beside the modelled
    policies), with the sessions and problems met."""
    corpus = read_corpus(path, progress=progress)
    if predict:
        from toolkit.compaction.predicted import predict as predicted

        return predicted(corpus).to_dicts(), len(corpus.sessions), len(corpus.problems)
    found = observed(corpus).to_dicts()
    for row in found:
        row["time"] = row["time"].isoformat() if row["time"] is not None else None
    return found, len(corpus.sessions), len(corpus.problems)


def table(found: list[dict[str, Any]], columns: tuple[tuple[str, str], ...] = COLUMNS) -> str:
    """Aligned text: numbers right-aligned with thousands separators, nulls as ``-``."""
    def cell(key: str, value: Any) -> str:
        if value is None:
            return "-"
        if key in NUMERIC:
            return f"{value:,}"
        if key == "time":
            return str(value)[:19].replace("T", " ")
        return str(value)

    grid = [[header for _, header in columns]] + [[cell(k, row[k]) for k, _ in columns] for row in found]
    widths = [max(len(line[i]) for line in grid) for i in range(len(columns))]
    return "\n".join(
        "  ".join(text.rjust(w) if key in NUMERIC else text.ljust(w)
                  for (key, _), text, w in zip(columns, line, widths, strict=True)).rstrip()
        for line in grid)


def run(args: argparse.Namespace) -> int:
    found, sessions, problems = rows(args.path, progress=not args.json and None, predict=args.predict)
    if args.json:
        sys.stdout.write(json.dumps(found, ensure_ascii=False) + "\n")
    else:
        shown = table(found, PREDICTED if args.predict else COLUMNS)
        print(shown if found else f"no compaction in {sessions} session{'' if sessions == 1 else 's'}")
        if problems:
            print(f"problems  {problems} (toolkit info lists them)")
    return 0 if sessions else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "compactions", help=help_for("compactions"),
        description="One line per compaction a client (Claude Code, Codex) made: what started it (auto, "
        "manual, unknown), the context before (the client's own figure, else the last request's usage) and "
        "after (the client's own figure, else the next request; a zero usage is unknown), and the size of "
        "the summary that replaced the history.",
    )
    parser.add_argument("path", metavar="PATH", help="a transcript file or a directory")
    parser.add_argument("--predict", action="store_true",
                        help="beside each, the client's own modelled policy replayed on the same history: where "
                             "it fires (requests from the recorded compaction) and the size it leaves")
    parser.add_argument("--json", action="store_true", help="print one JSON list of objects, one per compaction")
    parser.set_defaults(func=run)
