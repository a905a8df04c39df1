"""``toolkit experiment`` (ask a model for the next turn at frozen points under each replay mode)
and ``toolkit experiment-report`` (the table of what the replies did)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from toolkit.cli.commands import help_for, read_corpus, require_path, sending_options
from toolkit.errors import NotFound

if TYPE_CHECKING:
    from toolkit.corpus import Corpus
    from toolkit.experiment.points import Spread
    from toolkit.experiment.run import Plan
    from toolkit.experiment.trials import Point
    from toolkit.replay import Request

DEFAULT_POINTS = 20
DEFAULT_PER_SESSION = 2
DEFAULT_SEED = 30
"""``toolkit.experiment.points.DEFAULT_SEED``, repeated so that building the parser imports nothing."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "experiment", help=help_for("experiment"),
        description="Freeze a session at a point, ask a model for the next turn N times under each replay mode "
        "through the wire's official SDK (tools declared, never executed), and append every reply to a results "
        "JSONL; a rerun skips replies already there. Keys come from the environment only.",
    )
    parser.add_argument("path", help="a transcript file, a directory of them, or a saved corpus")
    parser.add_argument("--at", required=True, metavar="MESSAGE_ID|auto",
                        help="the last message before the studied reply, or 'auto': points find_points proposes "
                        "where the recorded reply called a tool and the modes' bodies differ (a point before any "
                        "call sends one body in every mode and measures nothing), drawn by --points, "
                        "--per-session and --seed")
    parser.add_argument("--points", type=int, default=DEFAULT_POINTS, metavar="N",
                        help=f"with --at auto, at most N points overall, 0 for every one (default {DEFAULT_POINTS}: "
                        f"with -n 10 and three modes {DEFAULT_POINTS * 30} replies, from {DEFAULT_POINTS // DEFAULT_PER_SESSION} "
                        "sessions or more where the corpus has them: a plan one can read and an experiment one "
                        "can afford; raise it once the plan looks right)")
    parser.add_argument("--per-session", type=int, default=DEFAULT_PER_SESSION, metavar="K",
                        help=f"with --at auto, at most K points from one session, 0 for no limit (default "
                        f"{DEFAULT_PER_SESSION}: one long session cannot fill the sample); points are drawn "
                        "round-robin over sessions")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"the shuffle of sessions and points (default {DEFAULT_SEED}: the same corpus always "
                        "gives the same points)")
    parser.add_argument("--expect", action="append", metavar="TOOL",
                        help="a tool the reply should call (repeatable; default: what the recorded reply called)")
    parser.add_argument("--wire", required=True, help="openai-chat, openai-responses, anthropic or gemini")
    parser.add_argument("--model", required=True, help="the model asked (named in every body)")
    parser.add_argument("--modes", default="text,prose_head,native", help="replay modes, comma-separated")
    parser.add_argument("-n", type=int, default=10, help="replies per point and mode (default 10)")
    sending_options(parser, "experiment.jsonl")
    parser.set_defaults(func=run)

    report = sub.add_parser("experiment-report", help=help_for("experiment-report"),
                            description="One row per point x mode x model: replies, what they did, the call rate "
                            "and its Wilson 95%% interval.")
    report.add_argument("results", help="a results JSONL written by 'toolkit experiment'")
    report.add_argument("--json", action="store_true", help="a JSON list of rows")
    report.set_defaults(func=run_report)


def _points(corpus: Corpus, at: str, expect: list[str] | None) -> list[Point]:
    """The point at ``at`` (its expected tools given, or those ``session_points`` reads from the
    recorded next reply)."""
    from dataclasses import replace

    from toolkit.experiment.points import session_points
    from toolkit.experiment.trials import Point

    session = next((s for s in corpus.sessions if at in s), None)
    if session is None:
        raise NotFound(f"no session holds message {at!r}")
    point = next((p for p in session_points(session) if p.at == at), None)
    if point is None:
        if not expect:
            raise NotFound(f"no reply follows {at!r} on its session's main path whose tool could be expected: "
                           "name the expected one with --expect")
        return [Point(session.file, session.id, at, tuple(expect), "said")]
    return [replace(point, expect=tuple(expect))] if expect else [point]


def _auto(corpus: Corpus, args: argparse.Namespace, modes: list[str],
          built: dict[Any, Request]) -> Spread:
    """``find_points``' called points, sampled by ``spread``, keeping those whose modes' bodies differ;
    the bodies built for the test go into ``built`` for the plan or the run to reuse."""
    from dataclasses import replace

    from tqdm.auto import tqdm

    from toolkit.experiment.points import find_points, spread
    from toolkit.experiment.run import modes_differ, trial_request
    from toolkit.experiment.trials import Trial
    from toolkit.replay.lookup import check_sent

    check_sent(args.wire)
    found = [p for p in find_points(corpus) if p.recorded == "called"]
    if args.expect:
        found = [replace(p, expect=tuple(args.expect)) for p in found]

    def differ(point: Point) -> bool:
        trials = [Trial(point, args.wire, args.model, mode, args.n) for mode in modes]
        for trial in trials:
            built[trial] = trial_request(trial, corpus)
        return len(modes) < 2 or modes_differ(built[t] for t in trials)

    total = args.points or None
    with tqdm(total=total or len(found), desc="choosing points", unit="point", file=sys.stderr, delay=1.0) as bar:
        return spread(found, total=total, per_session=args.per_session or None, seed=args.seed, keep=differ,
                      on_point=lambda point: bar.update(1))


def run(args: argparse.Namespace) -> int:
    from toolkit.experiment.run import Endpoint, plan
    from toolkit.experiment.run import run as send
    from toolkit.experiment.trials import Trial
    from toolkit.replay import MODES

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes or args.n < 1:
        print(f"toolkit experiment: modes must be among {', '.join(MODES)} and -n at least 1", file=sys.stderr)
        return 2
    if args.points < 0 or args.per_session < 0:
        print("toolkit experiment: --points and --per-session must be 0 (no limit) or more", file=sys.stderr)
        return 2
    corpus = read_corpus(args.path, progress=False)
    built: dict[Any, Request] = {}
    chosen = _auto(corpus, args, modes, built) if args.at == "auto" else None
    points = list(chosen.points) if chosen is not None else _points(corpus, args.at, args.expect)
    if not points:
        why = f" ({chosen.skipped} skipped: their modes' bodies are the same)" if chosen and chosen.skipped else ""
        print(f"toolkit experiment: no points found where the recorded reply called a tool{why}", file=sys.stderr)
        return 1
    trials = [Trial(p, args.wire, args.model, mode, args.n) for p in points for mode in modes]
    if args.dry_run:
        from tqdm.auto import tqdm

        with tqdm(total=len(trials), desc="planning", unit="request", file=sys.stderr, delay=1.0) as bar:
            planned = plan(trials, corpus, built=built, on_trial=lambda trial: bar.update(1))
        return _print_plan(planned, chosen, args)
    endpoint = Endpoint(base_url=args.base_url, api_key_env=args.api_key_env, max_retries=args.max_retries)
    outcome = _send(send, trials, corpus, args, endpoint)
    for line in outcome.lines(args.output):
        print(line, file=sys.stderr)
    return 1 if outcome.failed else 0


def _send(send: Any, trials: list[Any], corpus: Corpus, args: argparse.Namespace, endpoint: Any) -> Any:
    from tqdm.auto import tqdm

    total = sum(t.n for t in trials)
    with tqdm(total=total, desc="replies", unit="reply", file=sys.stderr) as bar:
        return send(trials, corpus, args.output, endpoint=endpoint, concurrency=args.concurrency,
                    max_cost=args.max_cost, on_reply=lambda row: bar.update(1))


def _print_plan(planned: Plan, chosen: Spread | None, args: argparse.Namespace) -> int:
    """One line per session and the totals; each distinct note once, with how many requests carry it."""
    sessions = planned.sessions()
    for row in sessions:
        cost = "unpriced" if row.unpriced == row.replies else f"${row.cost_usd:.4f}"
        print(f"{row.session}  {row.points} point(s), {row.requests} request(s), {row.replies} replies  "
              f"~{row.input_tokens:,} in + {row.output_tokens:,} out  {cost}")
    points = sum(row.points for row in sessions)
    unpriced = f" ({planned.unpriced} replies of unpriced models not counted)" if planned.unpriced else ""
    print(f"total: {len(sessions)} session(s), {points} point(s), {len(planned.estimates)} request(s), "
          f"{planned.replies} replies, ~{sum(r.input_tokens for r in sessions):,} in + "
          f"{sum(r.output_tokens for r in sessions):,} out, estimated ${planned.cost_usd:.4f}{unpriced}; "
          "nothing was sent")
    sources = planned.output_sources()
    print("output estimated from " + ", ".join(f"{WHERE[source]} ({count} request(s))"
                                               for source, count in sources.items()))
    if chosen is not None:
        overall = f"at most {args.points} point(s)" if args.points else "every point"
        each = f"{args.per_session} per session" if args.per_session else "any number per session"
        limits = f"{overall}, {each}, seed {args.seed}"
        print(f"points: {len(chosen.points)} chosen of {chosen.candidates} where the recorded reply called a tool "
              f"({limits}); {chosen.skipped} of the {chosen.examined} examined skipped: the same body in every mode")
    notes = planned.note_groups()
    if notes:
        print("fidelity notes (requests carrying each):")
        for note, count in notes[:NOTES_SHOWN]:
            print(f"  {count:>5}  {note}")
        if len(notes) > NOTES_SHOWN:
            rest = notes[NOTES_SHOWN:]
            print(f"  and {len(rest)} more distinct note(s) on {sum(c for _, c in rest)} request(s)")
    return 0


NOTES_SHOWN = 12
"""Distinct notes printed, most carried first: past a screenful a list of notes is not read."""


WHERE = {
    "recorded usage": "the recorded reply's reported output tokens",
    "recorded text": "the recorded reply's text, counted (toolkit.costs.text_tokens, an estimate)",
    "max_tokens": "max_tokens (no recorded reply to read)",
}


def run_report(args: argparse.Namespace) -> int:
    from toolkit.experiment.report import load_results, table

    require_path(args.results)
    rows = table(load_results(args.results))
    if args.json:
        print(json.dumps(rows.to_dicts(), ensure_ascii=False))
        return 0
    if rows.is_empty():
        print("no replies in the results file")
        return 0
    for row in rows.iter_rows(named=True):
        print(f"{row['session']} @ {row['at']}  {row['model']} {row['mode']:<10} n={row['n']:<3} "
              f"called {row['called']}  other call {row['called_other']}  said {row['said']}  other {row['other']}  "
              f"rate {row['rate']:.0%} [{row['low']:.0%}, {row['high']:.0%}]")
    return 0
