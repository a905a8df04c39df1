"""``toolkit tree PATH [--session ID]``: print session trees (branches, the tip, checkpoints) from
a transcript store or straight from a corpus."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from toolkit.cli.commands import help_for
from toolkit.errors import NotFound, UnknownSession
from toolkit.record import Session
from toolkit.transcripts import Checkpoint, SchemaError, TranscriptStore, is_store, tree_text


def pick(ids: Sequence[str], wanted: str) -> str:
    """The session id equal to ``wanted``, or the only one it is a prefix of."""
    if wanted in ids:
        return wanted
    matches = [i for i in ids if i.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UnknownSession(wanted, ids, where="the corpus or store")
    raise NotFound(f"session prefix {wanted!r} is ambiguous: {', '.join(matches)}")


def trees(path: str, session: str | None) -> list[tuple[Session, list[Checkpoint]]]:
    """The sessions to print, with their checkpoints (a corpus has none)."""
    if is_store(path):
        with TranscriptStore(path) as store:
            ids = [info.id for info in store.sessions()]
            chosen = ids if session is None else [pick(ids, session)]
            return [(store.session(i), store.checkpoints(i)) for i in chosen]
    from toolkit.cli.commands import read_corpus

    corpus = read_corpus(path)
    for problem in corpus.problems:
        print(f"problem: {problem}", file=sys.stderr)
    ids = [s.id for s in corpus.sessions]
    chosen = ids if session is None else [pick(ids, session)]
    return [(corpus.session(i), []) for i in chosen]


def run(args: argparse.Namespace) -> int:
    try:
        found = trees(args.path, args.session)
    except SchemaError as exc:  # not a store at all: exit 1, as for a path that holds no session
        print(exc, file=sys.stderr)
        return 1
    if not found:
        print(f"no session in {args.path}", file=sys.stderr)
        return 1
    for number, (session, marks) in enumerate(found):
        if number:
            print()
        print(tree_text(session, marks, width=args.width, collapse=args.collapse))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("tree", help=help_for("tree"))
    parser.add_argument("path", help="a transcript store (SQLite) or a corpus file or directory")
    parser.add_argument("--session", help="only this session (an id or a unique prefix of one)")
    parser.add_argument("--collapse", type=int, default=None, metavar="N",
                        help="show a straight run of more than N unmarked messages as its count")
    parser.add_argument("--width", type=int, default=110, help="line width (default 110)")
    parser.set_defaults(func=run)
