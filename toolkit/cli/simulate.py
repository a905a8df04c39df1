"""``toolkit simulate PATH --model M --policy P``: replay a corpus under compaction policies and
print what each cost and kept."""

from __future__ import annotations

import argparse
import json
import sys

from toolkit.cli.commands import help_for, python_answers_ctrl_c, read_corpus, require_path, workers_option


def run(args: argparse.Namespace) -> int:
    from toolkit.compaction.policy import load as policy
    from toolkit.compaction.simulator import simulate_corpus, summary
    from toolkit.costs.caching import cache_rule
    from toolkit.costs.prices import price_for
    from toolkit.costs.windows import window_for

    python_answers_ctrl_c()

    require_path(args.path)
    policies = [policy(spec) for spec in args.policy or ["none", "elide-only", "ladder"]]
    for model in args.model:
        if args.window is None:
            window_for(model)
        cache_rule(model)
        price_for(model)
    corpus = read_corpus(args.path, progress=not args.json and None, workers=args.workers, engine=args.engine)
    frame = simulate_corpus(corpus, args.model, policies, window=args.window, read_pages=args.read_pages,
                            progress=not args.json, workers=args.workers, engine=args.engine)
    rows = summary(frame).to_dicts()
    if args.json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return 0
    if not rows:
        print("no session with a reply to replay", file=sys.stderr)
        return 1
    print(f"{'policy':<26} {'model':<22} {'sess':>5} {'turns':>6} {'compact':>7} {'reject':>6} "
          f"{'input tok':>12} {'cache read':>12} {'cost $':>10} {'summary $':>10} {'kept chars':>11} {'retention':>9}")
    for r in rows:
        print(f"{r['policy']:<26} {r['model']:<22} {r['sessions']:>5} {r['turns']:>6} {r['compactions']:>7} "
              f"{r['rejected']:>6} {r['input_tokens']:>12,} {r['cache_read_tokens']:>12,} {r['cost_usd']:>10.4f} "
              f"{r['compaction_cost_usd']:>10.4f} {r['kept_verbatim_chars']:>11,} {r['retention']:>9.3f}")
    print("tokens are the toolkit's estimates (toolkit.costs); prices are list prices with their dates; cost "
          "includes the summary requests (summary $), priced as each client makes them; "
          "retention counts a fact on a snapshot page as kept when its source text was rendered "
          "(--read-pages reads the pages with OCR instead)", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("simulate", help=help_for("simulate"), description=__doc__)
    p.add_argument("path", help="a transcript file or a folder of them")
    p.add_argument("--model", action="append", required=True,
                   help="the model to replay for (its window and prices); repeat for several")
    p.add_argument("--policy", action="append",
                   help="a built-in policy (toolkit.compaction.POLICIES: none, elide-only, claude-code-2.0, "
                        "claude-code-2.1, codex, codex-remote, gemini-cli, openhands, inspect-edit, inspect-summary, "
                        "anthropic-context-editing, anthropic-compaction, ladder, ladder-no-summary) or a TOML file; "
                        "repeat for several (default: none, elide-only, ladder)")
    p.add_argument("--window", type=int, help="replace the model's input window by this many tokens")
    p.add_argument("--read-pages", action="store_true", help="read snapshot pages back with OCR for retention")
    p.add_argument("--json", action="store_true", help="one JSON list, one object per policy and model")
    workers_option(p)
    p.set_defaults(func=run)
