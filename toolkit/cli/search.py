"""``toolkit search PATH QUERY``: blocks of a corpus by text, tool, error, model, role, session and
time, each naming its message's anchor in the page ``toolkit show`` writes."""

from __future__ import annotations

import argparse
import json
import sys

from toolkit.cli.commands import help_for, read_corpus


def run_search(args: argparse.Namespace) -> int:
    from toolkit.browse.searching import search

    corpus = read_corpus(args.path, progress=False)
    found = search(corpus, args.query, tool=args.tool, errors=args.errors, model=args.model, role=args.role,
                   session=args.session, since=args.since, until=args.until)
    rows = found.head(args.limit).to_dicts() if args.limit else found.to_dicts()
    if args.json:
        for row in rows:
            row["time"] = row["time"].isoformat() if row["time"] is not None else None
        sys.stdout.write(json.dumps({"total": found.height, "results": rows}, ensure_ascii=False) + "\n")
        return 0 if found.height else 1
    for row in rows:
        tool = f" {row['tool_name']}" if row["tool_name"] else ""
        error = " ERROR" if row["is_error"] else ""
        print(f"{row['session_id']}  #{row['index']} {row['role']} {row['kind']}{tool}{error}  #{row['anchor']}")
        print(f"    {row['snippet']}")
    shown = len(rows)
    more = f" ({found.height - shown} more: --limit 0 lists all)" if found.height > shown else ""
    print(f"{found.height} blocks match{more}. Read one in context: toolkit show {args.path} --session ID "
          "-o page.html, then open page.html#ANCHOR", file=sys.stderr)
    return 0 if found.height else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    search = sub.add_parser("search", help=help_for("search"), description=(
        "Find blocks of a corpus by text (case-insensitive substring), tool name, error results, model, role, "
        "session and time. Each result names its message's anchor in the page `toolkit show` writes."))
    search.add_argument("path", help="a transcript file, a directory of them, or a saved corpus")
    search.add_argument("query", nargs="?", default="", help="text to find (empty: every block the filters keep)")
    search.add_argument("--tool", help="calls of this tool and the results answering them (mcp__s__t matches t)")
    search.add_argument("--errors", action="store_true", help="error results only")
    search.add_argument("--model", help="messages whose model contains this")
    search.add_argument("--role", choices=("system", "user", "assistant", "tool"))
    search.add_argument("--session", help="one session id")
    search.add_argument("--since", help="messages at or after this ISO time (naive: UTC)")
    search.add_argument("--until", help="messages at or before this ISO time (naive: UTC)")
    search.add_argument("--limit", type=int, default=50, help="results to print (0: all; default 50)")
    search.add_argument("--json", action="store_true", help="print exactly one JSON object: total and results")
    search.set_defaults(func=run_search)
