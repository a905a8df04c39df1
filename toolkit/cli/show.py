"""``toolkit show PATH``: one session as a self-contained HTML page, turn by turn (``toolkit.browse``)."""

from __future__ import annotations

import argparse
import sys

from toolkit.cli.commands import help_for, read_corpus
from toolkit.replay import MODES, WIRES


def run_show(args: argparse.Namespace) -> int:
    from toolkit.browse.rendering import Replay, choose, page
    from toolkit.browse.replaying import default_wire

    corpus = read_corpus(args.path, progress=False)
    session = choose(corpus, args.session)
    wires = list(WIRES) if args.wire == ["all"] else (args.wire or [default_wire(session)])
    modes = list(MODES) if args.mode == ["all"] else (args.mode or ["native"])
    replay = [] if args.no_replay else [Replay(w, m, not args.no_vision) for w in wires for m in modes]
    text = page(corpus, session, replay=replay, subagents=not args.no_subagents)
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(text)
    print(f"wrote {args.output}: session {session.id} ({len(session.messages)} messages), "
          f"{len(replay)} replay{'s' if len(replay) != 1 else ''} embedded", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    show = sub.add_parser("show", help=help_for("show"), description=(
        "Draw one session (when --session is not given, the one that shows the most with the least: the most "
        "kinds of block, then of compaction, summary, error and branch markers, then the fewest messages) and the "
        "subagent sessions it spawned as one HTML page that loads nothing from the network: every block, calls "
        "with their results, reasoning, images, compactions, branches, recorded usage beside the toolkit's "
        "estimate, and the exact replayed body up to each message for each --wire x --mode."))
    show.add_argument("path", help="a transcript file, a directory of them, or a saved corpus")
    show.add_argument("--session", help="the session id (default: the one that shows the most with the least)")
    show.add_argument("-o", "--output", help="the HTML file to write (default: standard output)")
    show.add_argument("--wire", action="append", choices=(*WIRES, "all"),
                      help="a wire whose bodies the page embeds (repeatable; default: the session's provider's)")
    show.add_argument("--mode", action="append", choices=(*MODES, "all"),
                      help="a replay mode the page embeds (repeatable; default: native)")
    show.add_argument("--no-replay", action="store_true", help="embed no replayed bodies (a smaller page)")
    show.add_argument("--no-vision", action="store_true", help="replay images as markers saying they were not seen")
    show.add_argument("--no-subagents", action="store_true", help="draw the session alone, without its subagents")
    show.set_defaults(func=run_show)
