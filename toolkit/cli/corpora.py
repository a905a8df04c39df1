"""``toolkit corpora``: where this machine keeps each client's transcripts (every format whose importer
says where its client keeps files), with counts and sizes. Folders are listed, never read."""

from __future__ import annotations

import argparse
import json
import sys

from toolkit.cli.commands import help_for
from toolkit.corpus.locations import NONE_FOUND, own_corpora, table


def run(args: argparse.Namespace) -> int:
    found = own_corpora()
    if args.json:
        data = {"locations": [location.as_dict() for location in found]}
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    if not found:
        print(NONE_FOUND)
        return 0
    for line in table(found):
        print(line)
    print("load one with: toolkit info FOLDER  (or CORPUS = FOLDER in a notebook's parameters cell)")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    corpora = sub.add_parser(
        "corpora", help=help_for("corpora"),
        description="Where the agents whose formats the toolkit reads keep transcripts on this machine "
                    "(their standard places, or wherever the clients' own environment variables move them, "
                    "such as CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME), with counts, sizes and the "
                    "newest time. Folders are listed, never read.")
    corpora.add_argument("--json", action="store_true", help="print exactly one JSON object")
    corpora.set_defaults(func=run)
