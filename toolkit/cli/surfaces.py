"""``toolkit surfaces PATH [--store DIR] [--tools FILE] [--json]``: the tool surfaces of a corpus."""

from __future__ import annotations

import argparse
import json
import sys

from toolkit.cli.commands import help_for, read_corpus
from toolkit.surface import SurfaceStore, SurfaceSummary, record_surfaces, summary
from toolkit.surface.fingerprint import read_tools


def run(args: argparse.Namespace) -> int:
    current = read_tools(args.tools) if args.tools else None
    corpus = read_corpus(args.path, progress=not args.json and None)
    store = SurfaceStore(args.store) if args.store else None
    if store is not None:
        corpus = record_surfaces(corpus, store)
    result = summary(corpus.sessions, store, current)
    if args.json:
        data = result.as_dict()
        data["problems"] = [str(p) for p in corpus.problems]
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    else:
        print(describe(result, args.tools))
        if corpus.problems:
            print(f"problems                      {len(corpus.problems)} (toolkit info lists them)")
    return 0 if corpus.sessions else 1


def describe(result: SurfaceSummary, tools_file: str | None) -> str:
    """The summary as aligned text lines."""
    share = f" ({result.recorded / result.runs:.0%})" if result.runs else ""
    ratio = (
        f"  (inlining costs {result.inline_bytes_per_session / result.store_bytes:.1f}x the store)"
        if result.store_bytes else ""
    )
    against = f"against {tools_file}" if tools_file else "(no --tools given: nothing to compare against)"
    lines = [
        f"sessions                      {result.sessions}",
        f"runs                          {result.runs}",
        f"runs with a recorded surface  {result.recorded}{share}",
        f"runs rebuildable              {result.rebuildable}",
        f"distinct surfaces             {result.distinct} ({result.distinct_semantic} once descriptions "
        "and order are ignored)",
        f"fidelity {against}",
        "  " + ", ".join(f"{state} {count}" for state, count in result.fidelity.items()),
    ]
    lines += [f"  unknown ({count}): {reason}" for reason, count in result.unknown_reasons.items()]
    lines += [
        f"inline bytes, every session   {result.inline_bytes_per_session:,}",
        f"inline bytes, every run       {result.inline_bytes_per_run:,}",
        f"store bytes                   {result.store_bytes:,}{ratio}",
    ]
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "surfaces",
        help=help_for("surfaces"),
        description="Runs, runs with a recorded tool surface, distinct surfaces, fidelity against a "
        "tool file, and the bytes of inlining the specs in every session against a store.",
    )
    parser.add_argument("path", metavar="PATH", help="a transcript file or a directory")
    parser.add_argument("--store", metavar="DIR", help="surface store to put the recorded specs in (created)")
    parser.add_argument("--tools", metavar="FILE", help="today's tools (JSON list or request body) to compare with")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.set_defaults(func=run)
