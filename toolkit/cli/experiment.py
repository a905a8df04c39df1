"""``toolkit experiment`` (ask a model for the next turn at frozen points under each replay mode)
and ``toolkit experiment-report`` (the table of what the replies did)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from toolkit.cli.commands import help_for, read_corpus, require_path
from toolkit.errors import NotFound

if TYPE_CHECKING:
    from toolkit.corpus import Corpus
    from toolkit.experiment.trials import Point


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "experiment", help=help_for("experiment"),
        description="Freeze a session at a point, ask a model for the next turn N times under each replay mode "
        "through the wire's official SDK (tools declared, never executed), and append every reply to a results "
        "JSONL; a rerun skips replies already there. Keys come from the environment only.",
    )
    parser.add_argument("path", help="a transcript file, a directory of them, or a saved corpus")
    parser.add_argument("--at", required=True, metavar="MESSAGE_ID|auto",
                        help="the last message before the studied reply, or 'auto': every point find_points "
                        "proposes where the recorded reply called a tool")
    parser.add_argument("--expect", action="append", metavar="TOOL",
                        help="a tool the reply should call (repeatable; default: what the recorded reply called)")
    parser.add_argument("--wire", required=True, help="openai-chat, openai-responses, anthropic or gemini")
    parser.add_argument("--model", required=True, help="the model asked (named in every body)")
    parser.add_argument("--modes", default="text,prose_head,native", help="replay modes, comma-separated")
    parser.add_argument("-n", type=int, default=10, help="replies per point and mode (default 10)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server (Ollama: http://localhost:11434/v1) "
                        "or another endpoint for the wire's SDK")
    parser.add_argument("--api-key-env", metavar="NAME", help="the environment variable holding the key "
                        "(default: the SDK's own)")
    parser.add_argument("--max-cost", type=float, metavar="USD", help="stop asking once the reported spend reaches it")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and its cost estimate; send nothing")
    parser.add_argument("-o", "--output", default="experiment.jsonl", metavar="RESULTS",
                        help="the results JSONL, appended to (default experiment.jsonl)")
    parser.add_argument("--concurrency", type=int, default=4, metavar="K", help="requests in flight (default 4)")
    parser.add_argument("--max-retries", type=int, default=2, help="the SDK's own retries (default 2)")
    parser.set_defaults(func=run)

    report = sub.add_parser("experiment-report", help=help_for("experiment-report"),
                            description="One row per point x mode x model: replies, what they did, the call rate "
                            "and its Wilson 95%% interval.")
    report.add_argument("results", help="a results JSONL written by 'toolkit experiment'")
    report.add_argument("--json", action="store_true", help="a JSON list of rows")
    report.set_defaults(func=run_report)


def _points(corpus: Corpus, at: str, expect: list[str] | None) -> list[Point]:
    """The points asked for: ``find_points``' called points, or the one at ``at`` (its expected
    tools given, or those ``session_points`` reads from the recorded next reply)."""
    from dataclasses import replace

    from toolkit.experiment.points import find_points, session_points
    from toolkit.experiment.trials import Point

    if at == "auto":
        found = [p for p in find_points(corpus) if p.recorded == "called"]
        return [Point(p.file, p.session, p.at, tuple(expect), p.recorded) for p in found] if expect else found
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
    corpus = read_corpus(args.path, progress=False)
    points = _points(corpus, args.at, args.expect)
    if not points:
        print("toolkit experiment: no points found where the recorded reply called a tool", file=sys.stderr)
        return 1
    trials = [Trial(p, args.wire, args.model, mode, args.n) for p in points for mode in modes]
    if args.dry_run:
        return _print_plan(plan(trials, corpus))
    endpoint = Endpoint(base_url=args.base_url, api_key_env=args.api_key_env, max_retries=args.max_retries)
    outcome = _send(send, trials, corpus, args, endpoint)
    print(f"{outcome.sent} sent, {outcome.skipped} already done, {outcome.failed} failed, "
          f"${outcome.spent_usd:.4f} reported in {args.output}", file=sys.stderr)
    if outcome.stopped:
        print(f"stopped: {outcome.stopped} ({outcome.unsent} not sent)", file=sys.stderr)
    return 1 if outcome.failed else 0


def _send(send: Any, trials: list[Any], corpus: Corpus, args: argparse.Namespace, endpoint: Any) -> Any:
    from tqdm.auto import tqdm

    total = sum(t.n for t in trials)
    with tqdm(total=total, desc="replies", unit="reply", file=sys.stderr) as bar:
        return send(trials, corpus, args.output, endpoint=endpoint, concurrency=args.concurrency,
                    max_cost=args.max_cost, on_reply=lambda row: bar.update(1))


def _print_plan(planned: Any) -> int:
    for row in planned.rows():
        cost = "unpriced" if row["cost_usd"] is None else f"${row['cost_usd']:.4f}"
        print(f"{row['session']} @ {row['at']}  {row['wire']} {row['model']} {row['mode']:<10} x{row['n']}  "
              f"~{row['input_tokens']} in + {row['output_tokens']} out  {cost}")
        for note in row["fidelity"]:
            print(f"    fidelity: {note}")
    unpriced = f" ({planned.unpriced} replies of unpriced models not counted)" if planned.unpriced else ""
    print(f"{planned.replies} replies, estimated ${planned.cost_usd:.4f} (output assumed at max_tokens){unpriced}; nothing was sent")
    return 0


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
