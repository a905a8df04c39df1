"""``toolkit fingerprint FILE [--semantic]``: the hash of a tool surface held in a JSON file."""

from __future__ import annotations

import argparse

from toolkit.cli.commands import help_for
from toolkit.surface import fingerprint
from toolkit.surface.fingerprint import read_tools


def run(args: argparse.Namespace) -> int:
    tools = read_tools(args.file)
    print(fingerprint(tools, semantic=args.semantic))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "fingerprint",
        help=help_for("fingerprint"),
        description="Print sha256:<hex> of the tool specs in FILE, exactly as sent (compact JSON, key "
        "order kept, UTF-8), or with --semantic of what they mean (descriptions, key order and tool "
        "order ignored).",
    )
    parser.add_argument("file", metavar="FILE",
                        help="JSON: a list of tool specs, one spec, or a request body with 'tools' (- for stdin)")
    parser.add_argument("--semantic", action="store_true", help="ignore descriptions, key order and tool order")
    parser.set_defaults(func=run)
