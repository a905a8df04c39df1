"""``toolkit info PATH`` and ``toolkit import PATH -o DIR``: load a corpus, summarise or save it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any

from toolkit.cli.commands import (
    help_for,
    nothing_to_read,
    python_answers_ctrl_c,
    require_empty_folder_refused,
    require_path,
    workers_option,
)
from toolkit.content import block_images
from toolkit.corpus import Corpus, load
from toolkit.corpus.corpus import anything_read
from toolkit.errors import NoSession
from toolkit.record import BLOCK_KINDS, IMAGE_ORIGINS, ToolResult, ToolUse


def summary(corpus: Corpus) -> dict[str, Any]:
    """The numbers ``toolkit info --json`` prints: one object, stable keys. ``images`` counts every
    image where it sits (an image block, or inside a tool result) and by origin (stored bytes, a URL
    without bytes, omitted by the source); ``images_stored`` counts distinct stored bytes."""
    kinds: Counter[str] = Counter({kind: 0 for kind in BLOCK_KINDS})
    sits_in: Counter[str] = Counter({"message": 0, "tool_result": 0})
    origins: Counter[str] = Counter({origin: 0 for origin in IMAGE_ORIGINS})
    calls = 0
    for session in corpus.sessions:
        for _, block in session.blocks():
            kinds[block.kind] += 1
            if isinstance(block, ToolUse):
                calls += 1
            for image in block_images(block):
                sits_in["tool_result" if isinstance(block, ToolResult) else "message"] += 1
                origins[image.origin] += 1
    return {
        "files": len(corpus.files),
        "formats": dict(Counter(corpus.formats.values())),
        "sessions": len(corpus.sessions),
        "messages": sum(len(s.messages) for s in corpus.sessions),
        "blocks": dict(kinds),
        "tool_calls": calls,
        "events": sum(len(s.events) for s in corpus.sessions),
        "images_stored": len(corpus.images),
        "images": {"total": sum(origins.values()), "sits_in": dict(sits_in), "origin": dict(origins)},
        "problems": [{"file": p.file, "line": p.line, "reason": p.reason} for p in corpus.problems],
    }


def readable(corpus: Corpus) -> bool:
    """Whether anything at all loaded (the exit status of ``info``)."""
    return anything_read(len(corpus.sessions), len(corpus.files), len(corpus.problems))


def print_sessions(rows: list[dict[str, Any]], others: dict[str, list[str]]) -> None:
    """The ``--sessions`` table: one line per session, then the files that were not transcripts."""
    head = ("session", "format", "client", "messages", "model", "input tok", "output tok", "cost USD")
    lines = [head] + [(
        r["session_id"], r["format"], r["client_version"] or "?", f"{r['messages']:,}", r["model"] or "?",
        "?" if r["input_tokens"] is None else f"{r['input_tokens']:,}",
        "?" if r["output_tokens"] is None else f"{r['output_tokens']:,}" + (
            "" if r["output_measured"] == r["replies"] else f" ({r['output_measured']}/{r['replies']} known)"),
        "?" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}" + ("" if r["priced"] == r["replies"] else
                                                                   f" ({r['priced']}/{r['replies']} priced)"),
    ) for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    print()
    for line in lines:
        print("  ".join(cell.ljust(width) if i in (0, 1, 2, 4) else cell.rjust(width)
                        for i, (cell, width) in enumerate(zip(line, widths, strict=True))).rstrip())
    print(f"\nnot transcripts: {len(others)} file{'s' if len(others) != 1 else ''}")
    for file, reasons in others.items():
        print(f"  {file}" + (f": {reasons[0]}" if reasons else ""))


def run_info(args: argparse.Namespace) -> int:
    """A summary even of a folder with no session in it (its problems say why), but a missing path
    or a folder with no file at all is one line and exit 2, as in every command."""
    require_path(args.path)
    corpus = load(args.path, progress=not args.json and None, workers=args.workers, engine=args.engine)
    if not corpus.files and not corpus.problems:
        raise NoSession(nothing_to_read(args.path))
    data = summary(corpus)
    if args.sessions:
        from dataclasses import asdict

        from toolkit.browse.sessions import not_transcripts, session_table

        rows = session_table(corpus)
        data["session_rows"] = [asdict(row) for row in rows]
        data["not_transcripts"] = not_transcripts(corpus)
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    else:
        print(f"files     {data['files']}  ({', '.join(f'{k}: {v}' for k, v in data['formats'].items())})")
        print(f"sessions  {data['sessions']}")
        print(f"messages  {data['messages']}")
        print("blocks    " + ", ".join(f"{k} {v}" for k, v in data["blocks"].items()))
        images = data["images"]
        print(f"tool calls {data['tool_calls']}   events {data['events']}   images {images['total']} "
              f"({images['sits_in']['tool_result']} in tool results; "
              + ", ".join(f"{k} {v}" for k, v in images["origin"].items())
              + f"; {data['images_stored']} distinct stored)")
        print(f"problems  {len(data['problems'])}")
        for problem in corpus.problems[: args.show]:
            print(f"  {problem}")
        if len(corpus.problems) > args.show:
            print(f"  ... {len(corpus.problems) - args.show} more (--json lists all)")
        if args.sessions:
            print_sessions(data["session_rows"], data["not_transcripts"])
    return 0 if readable(corpus) else 1


POLARS_ALLOCATOR_OPTIONS = "_RJEM_MALLOC_CONF"
RETURN_FREED_PAGES = "dirty_decay_ms:0,muzzy_decay_ms:0"
"""polars allocates through jemalloc, which reads its options from ``_RJEM_MALLOC_CONF`` once, as
polars loads; polars writes its own decay there (500 ms) and appends what the variable already held,
so that an option set before it wins (polars ``__init__.py``, https://github.com/pola-rs/polars/pull/21829).
Without decay, jemalloc gives pages back as soon as they are free (``opt.dirty_decay_ms``,
https://jemalloc.net/jemalloc.3.html): an import builds a part's frames a slice at a time, and the
pages each slice left behind added to its peak (``benchmarks/bench_import_memory.py``). A setting of
the user's own is kept."""


def run_import(args: argparse.Namespace) -> int:
    os.environ.setdefault(POLARS_ALLOCATOR_OPTIONS, RETURN_FREED_PAGES)  # before polars loads, and for the workers
    from toolkit.corpus.ingesting import ingest

    python_answers_ctrl_c()
    require_empty_folder_refused(args.path)
    try:
        done = ingest(args.path, args.output, workers=args.workers, engine=args.engine, progress=True)
    except ImportError as exc:
        print(f"toolkit import: {exc}", file=sys.stderr)
        return 2
    if not done.readable:
        raise NoSession(f"{args.path}: no session in {done.files} files ({done.problems} problems; "
                        f"`toolkit info {args.path}` lists them)" if done.files else nothing_to_read(args.path))
    print(f"wrote {done.sessions} sessions from {done.files} files, {done.problems} problems, to {done.directory}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    info = sub.add_parser("info", help=help_for("info"))
    info.add_argument("path", help="a transcript file or a directory (searched recursively)")
    info.add_argument("--json", action="store_true", help="print exactly one JSON object")
    info.add_argument("--show", type=int, default=20, help="problems to list (text output)")
    info.add_argument("--sessions", action="store_true",
                      help="one row per session (id, format, client version, messages, model, recorded tokens and "
                           "cost) and the files that were not transcripts")
    workers_option(info)
    info.set_defaults(func=run_info)
    imp = sub.add_parser("import", help=help_for("import"))
    imp.add_argument("path")
    imp.add_argument("-o", "--output", required=True, help="directory to write")
    workers_option(imp)
    imp.set_defaults(func=run_import)
