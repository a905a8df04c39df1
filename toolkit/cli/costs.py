"""``toolkit costs image W H --model M``, ``toolkit costs text FILE --model M`` and
``toolkit costs calibrate PATH``: what an image or a text costs a model, and how good the estimates are."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from toolkit.cli.commands import help_for
from toolkit.costs.images import PLATFORMS, ImageCost, image_tokens


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("costs", help=help_for("costs"))
    nested = parser.add_subparsers(dest="costs_command", required=True, metavar="WHAT")

    image = nested.add_parser("image", help="tokens an image costs, and the size the model sees it at")
    image.add_argument("width", type=int)
    image.add_argument("height", type=int)
    image.add_argument("--model", required=True, help="model id as a transcript or gateway writes it")
    image.add_argument("--detail", help="OpenAI low/high/original/auto, Gemini media_resolution level, "
                                        "or 'legacy' for Claude's w*h/750 rule")
    image.add_argument("--platform", default="gemini-api", choices=PLATFORMS,
                       help="where a Gemini model is called (counts differ); other providers ignore it")
    image.add_argument("--media-resolution", dest="media_resolution",
                       help="Gemini media_resolution level (low, medium, high, ultra_high on Gemini 3)")
    image.add_argument("--json", action="store_true", help="one JSON object")
    image.set_defaults(func=run_image)

    text = nested.add_parser("text", help="tokens a text file costs (exact for OpenAI, else an estimate)")
    text.add_argument("file", type=Path, help="a UTF-8 text file, or - for standard input")
    text.add_argument("--model", required=True)
    text.add_argument("--json", action="store_true")
    text.set_defaults(func=run_text)

    calibrate = nested.add_parser("calibrate", help="estimator error against the counts providers reported")
    calibrate.add_argument("path", type=Path, help="corpus file or directory")
    calibrate.add_argument("--json", action="store_true")
    calibrate.set_defaults(func=run_calibrate)


def _plain(value: Any) -> dict[str, Any]:
    """A result dataclass as JSON-ready data (nested sources included)."""
    data: dict[str, Any] = dataclasses.asdict(value)
    return data


def _fail(message: str) -> int:
    print(f"toolkit costs: {message}", file=sys.stderr)
    return 2


def image_lines(cost: ImageCost) -> list[str]:
    """The human report of one image: each figure with its evidence class and source beside it."""
    seen = f"{cost.resized[0]}x{cost.resized[1]}"
    where = f", {cost.platform}" if cost.platform else ""
    level = f", detail {cost.detail}" if cost.detail else ""
    lines = [
        f"{cost.tokens} tokens  {cost.width}x{cost.height} -> {seen}  ({cost.family}{where}, {cost.rule}{level})",
        f"tokens ({cost.evidence}): {cost.source}",
        f"seen size ({cost.seen_evidence}): "
        + ("same source" if cost.seen_source == cost.source else str(cost.seen_source)),
    ]
    if cost.tiles is not None:
        t = cost.tiles
        lines.append(f"tiles: {t.columns}x{t.rows} crops of {t.crop} px, each scaled to {t.tile} px")
    if cost.note:
        lines.append(f"note: {cost.note}")
    return lines


def run_image(args: argparse.Namespace) -> int:
    cost = image_tokens(args.width, args.height, args.model, args.detail, platform=args.platform,
                        media_resolution=args.media_resolution)
    if args.json:
        print(json.dumps({**_plain(cost), "downscaled": cost.downscaled}, ensure_ascii=False))
        return 0
    print("\n".join(image_lines(cost)))
    return 0


def run_text(args: argparse.Namespace) -> int:
    from toolkit.cli.textfile import read_text

    text, where = read_text(args.file)
    from toolkit.costs.text import text_tokens

    count = text_tokens(text, args.model)
    if args.json:
        print(json.dumps({**_plain(count), "file": where, "chars": len(text)}, ensure_ascii=False))
        return 0
    kind = "exact" if count.exact else (
        f"estimate, median error {count.error_median:.0%}, p90 {count.error_p90:.0%}")
    print(f"{count.tokens} tokens  ({count.family}, {count.method}, {kind})")
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    import polars as pl

    from toolkit.cli.commands import read_corpus
    from toolkit.costs.calibration import table

    corpus = read_corpus(args.path, progress=False)
    frame = table(corpus.sessions)
    if frame.is_empty():
        return _fail(f"{args.path}: no request with provider-reported usage and a registered model")
    if args.json:
        print(json.dumps(frame.to_dicts()))
        return 0
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=40, float_precision=3,
                   tbl_hide_dataframe_shape=True):
        print(frame.drop("families"))
    return 0
