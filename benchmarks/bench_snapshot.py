"""Glyph snapshot rendering throughput against Pillow's ``ImageDraw.text`` in the same run.

The toolkit renders text to pages by array indexing over a glyph atlas. The baselines draw the very
same rows (the toolkit's layout, row by row) onto pages of the same size with ``ImageDraw.text``:
one call per row with Pillow's default font (FreeType when Pillow has it), one call per row with
Pillow's built-in bitmap font, and one call per character (timed on the first pages only and
scaled up). The ratios are the point: the machines are shared and absolute times vary. For a
greyscale cell (``dejavu-aa-*``) the toolkit draws 8-bit pages and the baselines draw onto 8-bit
("L") pages too, so Pillow anti-aliases as the toolkit's atlas was.

Run: ``python -m benchmarks.bench_snapshot [--model M] [--cell C] [--chars N] [--text FILE] [--reflow | --lines]``
(``--reflow`` / ``--lines``: reflowed rows or a row per line on the page the search picks for them,
default the presets' layout; Pillow draws the same rows).
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from benchmarks import best_of
from toolkit.snapshot.font import load
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.readers import shown_chars
from toolkit.snapshot.render import UNUSED, Page, render
from toolkit.snapshot.tradeoff import geometry_for

REPO = Path(__file__).resolve().parents[1]
TARGET = 20.0
"""At least 20x faster than ``ImageDraw.text`` drawing the same rows with Pillow's default font."""


def sample_text(chars: int, path: Path | None) -> str:
    """Transcript text: the given file, else the prose of the demo corpus, else this repository's
    own source, repeated to ``chars`` characters."""
    if path is not None:
        base = path.read_text(encoding="utf-8")
    else:
        base = ""
        data = REPO / "data"
        if data.is_dir():
            from toolkit.corpus import load as load_corpus
            from toolkit.snapshot.compact import turns

            corpus = load_corpus(data, progress=False)
            base = "\n".join(t.text for s in corpus.sessions for t in turns(s.messages))
        if not base:
            base = "\n".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "toolkit").rglob("*.py")))
    return (base * (chars // max(1, len(base)) + 1))[:chars]


def rows_of(page: Page) -> list[tuple[int, int, str]]:
    """(x, y, text) of every used row of a page as the toolkit laid it out (marks as spaces)."""
    g = page.geometry
    table = shown_chars(g.cell)
    out = []
    for index, (row, kind) in enumerate(zip(page.grid, page.kinds, strict=True)):
        if kind == UNUSED:
            continue
        column, r = divmod(index, g.rows)
        out.append((g.column_x(column), g.margin + r * g.pitch, "".join(table[row]).rstrip()))
    return out


def page_mode(geometry: Geometry) -> str:
    """The Pillow mode of the toolkit's pages in this geometry: what the baselines draw onto."""
    return "L" if load(geometry.cell).grey else "1"


def pillow_rows(layouts: Sequence[list[tuple[int, int, str]]], geometry: Geometry,
                font: ImageFont.ImageFont | ImageFont.FreeTypeFont) -> None:
    for rows in layouts:
        image = Image.new(page_mode(geometry), geometry.size, "white")
        draw = ImageDraw.Draw(image)
        for x, y, text in rows:
            draw.text((x, y), text, font=font, fill=0)


def pillow_chars(layouts: Sequence[list[tuple[int, int, str]]], geometry: Geometry,
                 font: ImageFont.ImageFont | ImageFont.FreeTypeFont) -> None:
    width = geometry.cell_width
    for rows in layouts:
        image = Image.new(page_mode(geometry), geometry.size, "white")
        draw = ImageDraw.Draw(image)
        for x, y, text in rows:
            for i, char in enumerate(text):
                if char != " ":
                    draw.text((x + i * width, y), char, font=font, fill=0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", default="claude-sonnet-4.5")
    parser.add_argument("--cell", help="glyph cell (default: the one the model's preset uses)")
    parser.add_argument("--chars", type=int, default=1_000_000, help="characters to render")
    parser.add_argument("--text", type=Path, help="a UTF-8 file to render instead of the demo corpus")
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument("--reflow", action="store_const", const=True, dest="reflow",
                        help="reflowed rows (Geometry.reflow)")
    layout.add_argument("--lines", action="store_const", const=False, dest="reflow", help="a row per line")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; the best is kept")
    args = parser.parse_args(argv)

    geometry = geometry_for(args.model, args.cell, reflow=args.reflow)
    text = sample_text(args.chars, args.text)
    warm = render(text[:10_000], geometry)[0].ink  # load the atlas and lookup tables before timing
    assert warm.any()
    grey = load(geometry.cell).grey

    def toolkit_render() -> list[Page]:
        pages = render(text, geometry)
        for page in pages:
            _ = page.levels if grey else page.ink
        return pages

    toolkit_s = best_of(args.repeat, toolkit_render)[0]
    pages = render(text, geometry)
    start = time.perf_counter()
    png_sizes = [len(page.png()) for page in pages]
    png_s = time.perf_counter() - start
    layouts = [rows_of(page) for page in pages]
    default_font = ImageFont.load_default()
    bitmap_font = ImageFont.load_default_imagefont()
    rows_default_s = best_of(args.repeat, lambda: pillow_rows(layouts, geometry, default_font))[0]
    latin = [[(x, y, row.encode("latin-1", "replace").decode("latin-1")) for x, y, row in rows] for rows in layouts]
    rows_bitmap_s = best_of(args.repeat, lambda: pillow_rows(latin, geometry, bitmap_font))[0]
    few = layouts[: max(1, len(layouts) // 20)]
    chars_default_s = best_of(1, lambda: pillow_chars(few, geometry, default_font))[0] * len(layouts) / len(few)
    result = {
        "model": args.model,
        "geometry": f"{geometry.cell} cells, {geometry.width}x{geometry.height} px, {geometry.columns} columns"
                    + (", reflowed rows" if geometry.reflow else ""),
        "chars": len(text),
        "pages": len(pages),
        "toolkit_s": round(toolkit_s, 3),
        "toolkit_chars_per_s": round(len(text) / toolkit_s),
        "png_bytes_per_page": round(sum(png_sizes) / len(png_sizes)),
        "png_encode_s": round(png_s, 3),
        "pillow_default_font": type(default_font).__name__,
        "pillow_rows_default_font_s": round(rows_default_s, 3),
        "pillow_rows_bitmap_font_s": round(rows_bitmap_s, 3),
        "pillow_per_char_default_font_s": round(chars_default_s, 3),
        "ratio_vs_rows_default_font": round(rows_default_s / toolkit_s, 1),
        "ratio_vs_rows_bitmap_font": round(rows_bitmap_s / toolkit_s, 2),
        "ratio_vs_per_char_default_font": round(chars_default_s / toolkit_s, 1),
        "target_ratio": TARGET,
        "within_target": rows_default_s / toolkit_s >= TARGET,
    }
    print(json.dumps(result))
    return 0 if rows_default_s / toolkit_s >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
