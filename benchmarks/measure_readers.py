"""Measure what ``toolkit.snapshot.tradeoff.MEASURED`` holds: each glyph cell read by the independent
readers, against the control font, on the reference sample of a corpora folder.

    python -m benchmarks.measure_readers ../shared/corpora [--chars 8000] [--cells 4x6,7x14] [--readers rapidocr]

Prints one ``CellReading`` per cell, ready to paste into ``MEASURED`` with the date and sample.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit.snapshot.tradeoff import measure, reference_sample


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--chars", type=int, default=8_000)
    parser.add_argument("--cells", help="comma-separated cells (default: every cell shipped)")
    parser.add_argument("--readers", default="rapidocr,tesseract", help="comma-separated readers")
    args = parser.parse_args(argv)
    sample = reference_sample(args.corpora, args.chars)
    print(f"# {len(sample):,} characters of {args.corpora.name}", flush=True)
    for item in measure(sample, args.cells.split(",") if args.cells else None, args.readers.split(",")):
        print(f"    {item!r},", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
