"""The README's preset table: each provider's preset page (``geometry_for``) read by both
independent readers on a draw of the shared corpora other than the one the cells were chosen on.

    python -m benchmarks.preset_table ../shared/corpora [--chars 30000] [--seed 1] [--rows 150]
        [--reflow | --lines] [--break-marks not,section] [--models gpt-4o,...]

Prints one Markdown row per model of ``toolkit.snapshot.geometry.PRESET_MODELS``: face and cell,
rendering, page, image tokens per page, compression (full pages / the draw's last page as it is),
each reader's CER against its control, and how the size the model sees is known, then what each
reader read. ``--reflow`` / ``--lines``: reflowed rows (``Geometry.reflow``, on the page the search
picks for them; a reader is charged for every line break it misses) or a row per line, in the preset's
cell, whichever layout the presets use; ``--break-marks``: one row per break mark of reflowed rows.
Slow: every preset is read anew (``--rows`` rows of each, spread over its pages). The compression is
``toolkit.snapshot.savings.saving``'s, the figure notebooks 04 and 05 show on their own sample.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit.snapshot.font import break_mark, face, load
from toolkit.snapshot.geometry import PRESET_MODELS, Geometry
from toolkit.snapshot.geometry import preset as cell_preset
from toolkit.snapshot.legibility import Assessment
from toolkit.snapshot.savings import saving
from toolkit.snapshot.tradeoff import geometry_for, reference_sample

HEADER = ("| model | face and cell | rendering | page | image tokens / page | compression full / actual | "
          "RapidOCR CER vs control | tesseract CER vs control | size the model sees |\n"
          "|---|---|---|---|---|---|---|---|---|")


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def row(found: Assessment) -> str:
    """One table row of an assessment read by both readers."""
    geometry = found.geometry
    cell = geometry.cell
    by_reader = {r.reader.split()[0]: r for r in found.legibility.readings}
    controls = {r.reader.split()[0]: r for r in found.legibility.controls}

    def versus(name: str) -> str:
        if name not in by_reader:
            return "not installed"
        return f"{_percent(by_reader[name].cer)} vs {_percent(controls[name].cer)}"

    return (f"| {found.model} | {load(cell).font.split(',')[0]} `{cell}` | {rendering(cell)} | "
            f"{geometry.width}x{geometry.height}, {geometry.columns} col{_layout(geometry)} | "
            f"{found.tokens_per_page} | "
            f"{found.compression_full:.2f}x / {found.compression:.2f}x | {versus('rapidocr-onnxruntime')} | "
            f"{versus('tesseract')} | {found.seen_evidence} |")


def _layout(geometry: Geometry) -> str:
    return f", reflowed, `{break_mark(geometry.break_mark).shape}` breaks" if geometry.reflow else ""


def rendering(cell: str) -> str:
    """How a cell's glyphs were drawn, in a few words (from its face's name)."""
    name = face(cell)
    if not name.startswith("dejavu-aa"):
        return "1-bit"
    if name.endswith("-nohint"):
        return "anti-aliased greyscale, unhinted"
    if name.endswith("-fullhint"):
        return "anti-aliased greyscale, hinted across and down"
    return "anti-aliased greyscale, hinted down"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--chars", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=1, help="the draw (MEASURED was taken on seed 0)")
    parser.add_argument("--rows", type=int, default=150, help="rows each reader reads per preset")
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument("--reflow", action="store_true", help="reflowed rows, whatever the presets use")
    layout.add_argument("--lines", action="store_true", help="a row per line, whatever the presets use")
    parser.add_argument("--break-marks", default=None,
                        help="comma-separated break marks of reflowed rows, each read (default: the preset's)")
    parser.add_argument("--models", default=",".join(PRESET_MODELS), help="comma-separated models")
    args = parser.parse_args(argv)
    sample = reference_sample(args.corpora, args.chars, seed=args.seed)
    name = f"{len(sample):,} characters of {args.corpora.name}, reference_sample(seed={args.seed})"
    print(name, flush=True)
    print(HEADER, flush=True)
    notes = []
    for model in args.models.split(","):
        chosen = geometry_for(model)
        flow = args.reflow or (chosen.reflow and not args.lines)
        marks = args.break_marks.split(",") if args.break_marks and flow else [chosen.break_mark]
        for mark in marks:
            geometry = cell_preset(model, chosen.cell, reflow=flow, break_mark=mark).geometry
            found = saving(sample, model, name, geometry=geometry, reader_names=("rapidocr", "tesseract"),
                           reader_rows=args.rows).assessment
            print(row(found), flush=True)
            notes.append(read_note(found))
    print("\n".join(notes), flush=True)
    return 0


def read_note(found: Assessment) -> str:
    """What each reader read for one row of the table: rows and characters, and the control's error."""
    readings = ", ".join(f"{r.reader} {r.chars:,} characters" for r in found.legibility.readings)
    mark = f", breaks as {found.geometry.break_mark}" if found.geometry.reflow else ""
    return f"- {found.model}{mark}: {readings} (whitespace not counted)"


if __name__ == "__main__":
    sys.exit(main())
