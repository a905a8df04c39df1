"""``toolkit store PATH -o DB [--surfaces DIR]``: load a corpus into a transcript store."""

from __future__ import annotations

import argparse
import sys

from toolkit.cli.commands import help_for, read_corpus
from toolkit.errors import InvalidInput
from toolkit.transcripts import SchemaError, TranscriptStore
from toolkit.transcripts.store import AlreadyStored


def run(args: argparse.Namespace) -> int:
    corpus = read_corpus(args.path, progress=True)
    try:
        with TranscriptStore(args.output, surfaces=args.surfaces) as store:
            stored = store.add(corpus, replace=args.replace, progress=True)
            total = len(store)
    except AlreadyStored as exc:
        print(f"{exc.what}; pass --replace to overwrite it", file=sys.stderr)
        return 1
    except (SchemaError, InvalidInput) as exc:  # the store refused it: exit 1, as for an unreadable corpus
        print(exc, file=sys.stderr)
        return 1
    messages = sum(len(s.messages) for s in corpus.sessions)
    print(f"stored {len(stored)} sessions ({messages} messages, {len(corpus.images)} images, "
          f"{len(corpus.problems)} problems) in {args.output}; it now holds {total} sessions")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("store", help=help_for("store"))
    parser.add_argument("path", help="a transcript file or a directory (searched recursively)")
    parser.add_argument("-o", "--output", required=True, help="the store file to write (created if absent)")
    parser.add_argument("--replace", action="store_true", help="overwrite sessions the store already holds")
    parser.add_argument("--surfaces", metavar="DIR", help="also put every run's tool specs in this surface store")
    parser.set_defaults(func=run)
