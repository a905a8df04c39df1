"""``toolkit replay``: the exact request body a wire would be sent for a session, or a validity
check of every session of a corpus."""

from __future__ import annotations

import argparse
import json
import sys

from toolkit.cli.commands import help_for
from toolkit.replay import MODES, WIRES


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "replay",
        help=help_for("replay"),
        description="Replay a stored session to a provider wire. Prints the canonical request bytes for one "
        "session (the longest when --session is not given); with --all --check, replays every session, "
        "validates each request, and prints one JSON object with counts.",
    )
    parser.add_argument("path", help="a transcript file, a directory of them, or a saved corpus")
    parser.add_argument("--wire", required=True, choices=(*WIRES, "all"), help="the provider wire ('all' with --check)")
    parser.add_argument("--mode", required=True, choices=(*MODES, "all"), help="the replay mode ('all' with --check)")
    parser.add_argument("--session", help="the session id (default: the longest session)")
    parser.add_argument("--no-vision", action="store_true", help="images become markers saying they were not seen")
    parser.add_argument("--upto", metavar="MESSAGE_ID", help="replay the path up to this message (default: the tip)")
    parser.add_argument("--model", help="the target model every body names (default: the recorded one, if it is the "
                        "wire's; a note warns when the wire cannot serve it, it is retired, or it takes no images)")
    parser.add_argument("--all", action="store_true", help="every session of PATH (requires --check)")
    parser.add_argument("--check", action="store_true", help="validate against each wire's documented rules")
    parser.add_argument("--sdk", action="store_true", help="with --check: also validate against the official SDK types")
    parser.add_argument("--json", action="store_true", help="with --all --check: one JSON object of counts, not the table")
    parser.add_argument("--pretty", action="store_true", help="print the body indented for reading (not the bytes "
                        "sent, which stay compact: omit it to get them)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolkit.cli.commands import read_corpus
    from toolkit.replay import request, validate
    from toolkit.replay.analysis import check, check_table

    wires = WIRES if args.wire == "all" else (args.wire,)
    modes = MODES if args.mode == "all" else (args.mode,)
    corpus = read_corpus(args.path, progress=False)
    if corpus.problems:
        print(f"{args.path}: {len(corpus.problems)} problem(s) while loading (first: {corpus.problems[0]})",
              file=sys.stderr)
    if args.all:
        if not args.check:
            print("toolkit replay: --all prints counts only, so it needs --check", file=sys.stderr)
            return 2
        warn_unknown_model(args.model)
        result = check(corpus.sessions, wires=wires, modes=modes, visions=(not args.no_vision,),
                       images=corpus.images, sdk=args.sdk, model=args.model)
        print(json.dumps(result.as_dict(), ensure_ascii=False) if args.json else check_table(result))
        return 0 if result.invalid == 0 else 1
    if len(wires) != 1 or len(modes) != 1:
        print("toolkit replay: 'all' wires or modes need --all --check", file=sys.stderr)
        return 2
    warn_unknown_model(args.model)
    session = corpus.session(args.session) if args.session else corpus.longest()
    req = request(session, wire=wires[0], mode=modes[0], vision=not args.no_vision, upto=args.upto,
                  images=corpus.images, model=args.model)
    shown = json.dumps(req.body, ensure_ascii=False, indent=2).encode("utf-8") if args.pretty else req.bytes
    sys.stdout.buffer.write(shown + b"\n")
    sys.stdout.flush()
    for note in req.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.check:
        problems = validate(req.body, req.wire)
        if args.sdk:
            from toolkit.replay.sdk import sdk_problems

            problems += sdk_problems(req.body, req.wire)
        for problem in problems:
            print(f"problem: {problem}", file=sys.stderr)
        return 1 if problems else 0
    return 0


def warn_unknown_model(model: str | None) -> None:
    """A ``--model`` that neither the toolkit's model table nor its list of Ollama models knows is
    sent as given (a new or local model is the caller's to name), with a warning where ``costs``,
    ``simulate`` and ``snapshot`` would refuse it: a misspelt id is otherwise found only by the
    provider."""
    from toolkit.costs import family
    from toolkit.errors import UnknownModel
    from toolkit.replay.availability import SIGHT, bare

    if model is None or bare(model) in {row.model for row in SIGHT}:
        return
    try:
        family(model)
    except UnknownModel:
        print(f"warning: --model {model!r} is not in the toolkit's model table (no window, price or image rule); "
              "the body names it as given: check the spelling", file=sys.stderr)
