"""``toolkit experiment-pages FILE... --wire W --model M [-n N] [--reflow | --lines] [--max-cost USD]
[--dry-run]``: have a vision model transcribe the glyph pages of each text (``toolkit.experiment.pages``),
its replies scored by character error rate against the source and appended to a results JSONL;
``--reflow`` / ``--lines`` send reflowed rows (the prompt then explains the break mark) or a row per
line instead of the presets' layout; ``--dry-run`` prices the requests, prints each body's sha256 and
sends nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.cli.commands import help_for, sending_options
from toolkit.cli.textfile import read_text
from toolkit.errors import InvalidInput, MissingPath

if TYPE_CHECKING:
    from toolkit.experiment.pages import Sample


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "experiment-pages", help=help_for("experiment-pages"),
        description="Render each text on the model's preset glyph pages, ask the model through the wire's "
        "official SDK to transcribe them N times, and append every reply with its character error rate to a "
        "results JSONL; a rerun skips replies already there. Keys come from the environment only.",
    )
    parser.add_argument("texts", nargs="+", type=Path, help="UTF-8 text files, one sample each (named by file stem)")
    parser.add_argument("--wire", required=True, help="openai-chat, openai-responses, anthropic or gemini")
    parser.add_argument("--model", required=True, help="the model asked (its preset page is the one drawn)")
    parser.add_argument("-n", type=int, default=1, help="transcriptions per text (default 1)")
    parser.add_argument("--chars", type=int, default=4_000,
                        help="characters of each text sent (default 4000: a page or two)")
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument("--reflow", action="store_const", const=True, dest="reflow",
                        help="reflowed rows, each line break drawn as a mark the prompt explains")
    layout.add_argument("--lines", action="store_const", const=False, dest="reflow",
                        help="a row per line (default: the presets' layout)")
    sending_options(parser, "pages.jsonl")
    parser.set_defaults(func=run)


def samples(paths: list[Path], chars: int) -> list[Sample]:
    """One ``Sample`` per file: its first ``chars`` characters, named by its stem."""
    from toolkit.experiment.pages import Sample

    if chars < 1:
        raise InvalidInput(f"--chars must be at least 1, got {chars}")
    out: list[Sample] = []
    for path in paths:
        if not path.is_file():
            raise MissingPath(f"{path}: no such file")
        text = read_text(path)[0][:chars]
        if not text.strip():
            raise InvalidInput(f"{path}: no text to render")
        out.append(Sample(path.stem, text))
    return out


def run(args: argparse.Namespace) -> int:
    from toolkit.experiment.pages import plan_pages, run_pages
    from toolkit.experiment.run import Endpoint

    if args.n < 1:
        raise InvalidInput(f"-n must be at least 1, got {args.n}")
    chosen = samples(args.texts, args.chars)
    if args.dry_run:
        planned = plan_pages(chosen, wire=args.wire, model=args.model, n=args.n, reflow=args.reflow)
        for row in planned.rows():
            cost = "unpriced" if row["cost_usd"] is None else f"${row['cost_usd']:.4f}"
            layout = f" {row['layout']}" if "layout" in row else ""
            print(f"{row['sample']}  {row['wire']} {row['model']}{layout} x{row['n']}  "
                  f"~{row['input_tokens']} in + {row['output_tokens']} out  {cost}  body {row['request_sha256']}")
        unpriced = f" ({planned.unpriced} replies of unpriced models not counted)" if planned.unpriced else ""
        print(f"{planned.replies} replies, estimated ${planned.cost_usd:.4f} (output assumed at max_tokens)"
              f"{unpriced}; nothing was sent")
        return 0
    endpoint = Endpoint(base_url=args.base_url, api_key_env=args.api_key_env, max_retries=args.max_retries)
    outcome = run_pages(chosen, args.output, wire=args.wire, model=args.model, n=args.n, endpoint=endpoint,
                        concurrency=args.concurrency, max_cost=args.max_cost, reflow=args.reflow)
    for line in outcome.lines(args.output):
        print(line, file=sys.stderr)
    return 1 if outcome.failed else 0
