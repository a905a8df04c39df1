"""``toolkit snapshot FILE --model M [-o DIR] [--cell C] [--page WxH] [--reflow | --lines] [--break-mark B]
[--json]``: render a text
(or the middle of a corpus file's longest session) into glyph pages for a model, write the PNGs,
and print what they cost, what they save and what survives the provider's resize."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from toolkit.cli.commands import help_for
from toolkit.cli.textfile import read_text
from toolkit.corpus import detect, load
from toolkit.errors import InvalidInput, MissingPath
from toolkit.snapshot.compact import compact, turns
from toolkit.snapshot.font import BREAK_MARKS, cells
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.legibility import MAX_EXCESS, READER_ROWS, Assessment, assess
from toolkit.snapshot.render import Passage, render
from toolkit.snapshot.tradeoff import geometry_for


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("snapshot", help=help_for("snapshot"))
    parser.add_argument("file", type=Path, help="a UTF-8 text file, or a corpus file (its longest session's middle)")
    parser.add_argument("--model", required=True, help="model id as a transcript or gateway writes it")
    parser.add_argument("-o", "--out", type=Path, help="directory to write page-NNN.png into")
    parser.add_argument("--cell", help="glyph cell, e.g. 7x14 or dejavu-aa-7x14 (default: the cell the independent readers can read, "
                        "from toolkit.snapshot.tradeoff)")
    parser.add_argument("--page", help="page size WxH (default: the model's preset)")
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument("--reflow", action="store_const", const=True, dest="reflow",
                        help="run lines on across full rows, each line break drawn as a mark, on the page the search "
                        "picks for reflowed rows (default: the presets' layout)")
    layout.add_argument("--lines", action="store_const", const=False, dest="reflow",
                        help="a row per line, on the page the search picks for it")
    parser.add_argument("--break-mark", choices=[mark.name for mark in BREAK_MARKS],
                        help="the line-break mark of reflowed rows (default: the presets')")
    parser.add_argument("--head", type=int, default=2, help="messages kept verbatim at the start (corpus files)")
    parser.add_argument("--tail", type=int, default=6, help="messages kept verbatim at the end (corpus files)")
    parser.add_argument("--readers", default="rapidocr,tesseract",
                        help="independent OCR readers for reader_cer, comma-separated, or 'none' (default: "
                        "rapidocr,tesseract; tesseract only where installed)")
    parser.add_argument("--reader-rows", type=int, default=READER_ROWS,
                        help=f"rows each reader reads, spread over all pages; 0 reads every row (default {READER_ROWS})")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.set_defaults(func=run)


def _size(text: str, what: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise InvalidInput(f"{what} must be WxH, e.g. 4x6 or 1568x784, got {text!r}")
    return int(width), int(height)


def content(path: Path, head: int, tail: int, geometry: Geometry) -> tuple[str | list[Passage], str]:
    """What to render: the middle of the longest session of a corpus file, else the file's text."""
    if detect(path) is not None:
        corpus = load(path, progress=False)
        if corpus.sessions:
            session = corpus.longest()
            done = compact(session.path(), head=head, tail=tail, geometry=geometry)
            middle = [m for snap in done.snapshots.values() for m in snap.sources]
            return turns(middle), f"session {session.id}: {len(middle)} middle messages"
    return read_text(path)[0], "text file"


def run(args: argparse.Namespace) -> int:
    if args.cell and args.cell not in cells():
        raise InvalidInput(f"--cell: no glyph cell {args.cell!r}; cells: {', '.join(cells())}")
    geometry = geometry_for(args.model, args.cell, reflow=args.reflow, break_mark=args.break_mark)
    if args.page:
        geometry = geometry.with_page(*_size(args.page, "--page"))
    if not args.file.is_file():
        raise MissingPath(f"{args.file}: no such file")
    text, what = content(args.file, args.head, args.tail, geometry)
    names = () if args.readers == "none" else tuple(n.strip() for n in args.readers.split(",") if n.strip())
    result = assess(text, geometry, args.model, reader_names=names, reader_rows=args.reader_rows or None)
    written = write_pages(text, geometry, args.out) if args.out else []
    report(result, what, written, args.json)
    return 0


def write_pages(text: str | Sequence[Passage], geometry: Geometry, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for page in render(text, geometry):
        path = out / f"page-{page.index + 1:03d}.png"
        path.write_bytes(page.png())
        paths.append(path)
    return paths


def report(result: Assessment, what: str, written: list[Path], as_json: bool) -> None:
    data = {**result.as_dict(), "source": what, "written": [str(p) for p in written]}
    if as_json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return
    for key in ("model", "cell", "page", "pages", "chars", "uncovered_chars", "image_tokens", "tokens_evidence",
                "tokens_source", "platform", "text_tokens",
                "compression", "fill", "reflow", "resized", "seen_size", "seen_evidence", "legibility", "reader_cer", "control_cer",
                "legible", "source"):
        print(f"{key:16s}{data[key]}")
    for reading in result.legibility.readings:
        print(f"{'':16s}{reading.reader}: {reading.cer:.2%} of {reading.chars:,} characters")
    if (excess := result.legibility.excess) is not None:
        print(f"{'':16s}(best reader {excess:+.2%} over its control; legible means at most "
              f"{MAX_EXCESS * 100:g} point over it)")
    if (not_judged := data["not_judged"]) is not None:
        print(f"{'':16s}(not judged: {not_judged})")
    if not result.text_tokens_exact:
        print(f"{'':16s}(text tokens are an estimate for {result.model})")
    if result.seen_evidence != "documented":
        print(f"{'':16s}(the size the model sees is {result.seen_evidence}, not documented: "
              f"{result.seen_size[0]}x{result.seen_size[1]})")
    print(f"{'':16s}(legibility is the atlas decode after the resize; reader_cer is what OCR engines no one "
          f"here wrote recover, beside their error on the same rows in a plain font, control_cer)")
    if written:
        print(f"{'written':16s}{len(written)} PNG files in {written[0].parent}")
