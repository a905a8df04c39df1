"""Regenerate the committed glyph atlas from installed bitmap fonts and DejaVu Sans Mono.

Run only to rebuild the atlas (development time, never at run time), in one command::

    apt-get install -y xfonts-base xfonts-terminus fonts-spleen xfonts-unifont fonts-dejavu-core
    python -m toolkit.snapshot.fonts.build_atlas [--fonts DIR] [--out DIR]

Faces (PCF files under /usr/share/fonts/X11/misc/ unless ``--fonts`` says otherwise):

- X11 "misc-fixed" ISO10646-1 (``4x6.pcf.gz`` ...), public domain: the cells with bare names
  (``"4x6"``); their entries must stay byte-identical from one build to the next;
- Terminus Font, normal and bold (``ter-u12n_unicode.pcf.gz`` ...), SIL OFL 1.1;
- Spleen (``spleen-5x8.pcf.gz`` ...), BSD-2-Clause;
- GNU Unifont (``unifont.pcf.gz``), SIL OFL 1.1 or GPL-2+ with the font embedding exception: its
  single-width glyphs as the ``unifont-8x16`` cell; and its double-width glyphs, area-averaged down
  to two cells of each cell of ``WIDE_CELLS``, as that cell's wide sheet (``<cell>-wide.png``, the
  ``"wide"`` entry of the cell): East Asian Wide and Fullwidth characters drawn two cells wide;
- DejaVu Sans Mono (``DejaVuSansMono.ttf`` beside this script) rasterised by FreeType through
  Pillow, 1-bit and hinted, at the pixel sizes of ``DEJAVU_SIZES``; and anti-aliased (8-bit
  coverage, Pillow's ``"L"`` mode) at the sizes of ``GREY_SIZES``, hinted (``dejavu-aa-WxH``) and
  with the font's TrueType instructions removed (``dejavu-aa-nohint-WxH``), since Pillow offers no
  switch for FreeType's ``FT_LOAD_NO_HINTING``; and anti-aliased and hinted in both directions at
  the sizes of ``FULL_HINT_SIZES`` (``dejavu-aa-fullhint-WxH``): the font's instructions run by
  FreeType's TrueType interpreter version 35, which snaps stems and dots to whole pixels across as
  well as down, where FreeType's default (version 40) hints vertically only and leaves vertical
  stems grey across two columns. A FreeType library takes its interpreter version once, from
  ``FREETYPE_PROPERTIES`` when it starts, so those glyphs are rasterised in a child Python process
  started with ``FREETYPE_PROPERTIES=truetype:interpreter-version=35`` (this script run with
  ``--full-hinting``), and the build fails if they come back the same as the default hinting's.

For each cell it places every glyph in its character cell, adds the few glyphs the project draws
itself (required characters a small cell lacks, check marks, the snapshot's own marks), checks
that the marks differ from every glyph of their cell, and writes one PNG per cell (1-bit, or
8-bit greyscale with ``"mode": "L"`` in the cell's entry: black ink on white) plus
``atlas.json`` (cell metrics, the code points as runs, and each face's Debian package, version and
licence, read with ``dpkg-query``). Licences and notices: LICENSE.txt beside this script.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import struct
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont, features

from toolkit.errors import InvalidInput

Bitmap = npt.NDArray[np.bool_]
Coverage = npt.NDArray[np.uint8]
Glyph = Bitmap | Coverage
"""A glyph as the atlas stores it: 1-bit (True = ink) or 8-bit coverage (255 = full ink)."""

HERE = Path(__file__).resolve().parent
DEFAULT_FONTS = Path("/usr/share/fonts/X11/misc")
CELLS: tuple[str, ...] = ("4x6", "5x7", "5x8", "6x10", "6x13", "7x14", "9x15", "10x20")
"""The misc-fixed cells, smallest first; each is the misc-fixed face of that name."""
PCF_FACES: tuple[tuple[str, str], ...] = (
    *(("terminus", f"ter-u{size}n_unicode.pcf.gz") for size in (12, 14, 16, 18, 20)),
    *(("terminus-bold", f"ter-u{size}b_unicode.pcf.gz") for size in (14, 16, 18, 20)),
    *(("spleen", f"spleen-{cell}.pcf.gz") for cell in ("5x8", "6x12", "8x16")),
    ("unifont", "unifont.pcf.gz"),
)
"""The other bitmap faces (face, PCF file): every size the packages ship that is 4 to 10 px wide
and at most 20 px high (Terminus 22 px and up and Spleen 12x24 and up are wider). Terminus bold
12 px is left out: it differs from the normal weight in six block elements only."""
DEJAVU = HERE / "DejaVuSansMono.ttf"
DEJAVU_SIZES: tuple[int, ...] = (8, 9, 10, 11, 12, 13)
"""FreeType pixel sizes of DejaVu Sans Mono: cells from 5x9 to 8x15."""
GREY_SIZES: tuple[int, ...] = (7, 8, 9, 10, 11)
"""FreeType pixel sizes of the anti-aliased DejaVu Sans Mono cells (4x9 to 7x14): the sizes where
OCR engines read Pillow's greyscale DejaVu Sans Mono within a few points of its 16 px rendering."""
FULL_HINT_SIZES: tuple[int, ...] = (10,)
"""FreeType pixel sizes of the anti-aliased DejaVu Sans Mono cells hinted in both directions
(``dejavu-aa-fullhint-WxH``). Each spans the rows of the hinted cell of its size (``dejavu-aa-6x11``
at 10 px), so the two differ in hinting only; full hinting lifts the accents of capitals one row
higher, and the top row of those accents is clipped. At 10 px both readers read it with fewer
errors than the hinted ``dejavu-aa-6x11`` (``toolkit.snapshot.measured.MEASURED`` holds the rates,
with their date and sample): the two ticks of ``"`` and the stems of ``m`` or ``0`` come out as
full-ink columns, not as one grey smear. Fully hinted 9 px (5x12, 5x13) and 10 px cut to the ASCII
rows (6x10, accents of capitals gone) read about twice as wrong as this cell, and are not built."""
FULL_HINTING = "truetype:interpreter-version=35"
"""``FREETYPE_PROPERTIES`` of the process that rasterises the fully hinted cells."""


@dataclass(frozen=True, slots=True)
class Family:
    """A face of the atlas: where it comes from and under which licence."""

    package: str
    """The Debian package the glyphs are read from (its version is recorded at build time)."""
    licence: str
    notice: str
    """The notice LICENSE.txt carries for the face (checked there by the tests)."""


FAMILIES: dict[str, Family] = {
    "misc-fixed": Family("xfonts-base", "public domain", "Public domain font.  Share and enjoy."),
    "terminus": Family("xfonts-terminus", "OFL-1.1", "Copyright (c) 2010-2014 Dimitar Toshkov Zhekov"),
    "terminus-bold": Family("xfonts-terminus", "OFL-1.1", "Copyright (c) 2010-2014 Dimitar Toshkov Zhekov"),
    "spleen": Family("fonts-spleen", "BSD-2-Clause", "Copyright (c) 2018-2021, Frederic Cambus"),
    "unifont": Family("xfonts-unifont", "OFL-1.1 OR GPL-2.0-or-later WITH Font-exception-2.0",
                      "Copyright (C) 1998-2022 Roman Czyborra, Paul Hardy, Qianqian Fang"),
    "dejavu": Family("fonts-dejavu-core", "Bitstream-Vera AND public domain (DejaVu changes)",
                     "Copyright (c) 2003 by Bitstream, Inc. All Rights Reserved."),
}
FAMILIES["dejavu-aa"] = FAMILIES["dejavu-aa-nohint"] = FAMILIES["dejavu-aa-fullhint"] = FAMILIES["dejavu"]
"""Every face, misc-fixed first. Each notice is the copyright line of the font (Terminus and DejaVu
as their Debian copyright files give it, Spleen and Unifont as their PCF COPYRIGHT property)."""
ATLAS_COLUMNS = 64
"""Glyphs per row of an atlas PNG."""

MARKS: tuple[str, ...] = ("uncovered", "continuation", "tab", "trailing", "header", "end")
"""The snapshot's own marks, stored after the font's glyphs in this order (see ``font.py``)."""

# PCF table types and format bits (X.Org libXfont ``pcf.h``).
_PROPERTIES, _ACCELERATORS, _METRICS, _BITMAPS, _ENCODINGS, _BDF_ACCELERATORS = 1, 2, 4, 8, 32, 256
_COMPRESSED_METRICS = 0x100

# Hand-drawn glyphs for required characters a cell lacks ("#" ink, "." blank), one row per string.
# Ѝ/ѝ are И/и with a grave accent where Й/й carry their breve.
DRAWN: dict[str, dict[str, tuple[str, ...]]] = {
    "4x6": {
        "Ѝ": (".#..", "#...", "#.#.", "###.", "#.#.", "..#."),
        "ѝ": ("#...", ".#..", "#.#.", "###.", "#.#.", "...."),
    },
}


@dataclass(frozen=True, slots=True)
class Face:
    name: str
    width: int
    height: int
    ascent: int
    glyphs: dict[int, Glyph]
    """Code point → its cell bitmap (``height`` x ``width``), all 1-bit or all coverage."""
    font: str
    copyright: str
    grey: bool = False


def _read_pcf(data: bytes, origin: str, span: int = 1) -> Face:
    """A PCF font's glyphs placed in character cells (format as in X.Org libXfont ``pcfread.c``);
    with ``span=2``, only its double-width glyphs, each in a cell two cells wide."""
    if data[:4] != b"\x01fcp":
        raise InvalidInput(f"{origin}: not a PCF file")
    (count,) = struct.unpack_from("<i", data, 4)
    toc: dict[int, int] = {}
    for i in range(count):
        kind, _fmt, _size, offset = struct.unpack_from("<iiii", data, 8 + 16 * i)
        toc[kind] = offset

    def table(kind: int) -> tuple[int, str, int]:
        if kind not in toc:
            raise InvalidInput(f"{origin}: PCF table {kind} missing")
        (fmt,) = struct.unpack_from("<i", data, toc[kind])
        return fmt, (">" if fmt & 4 else "<"), toc[kind] + 4

    properties = _properties(data, *table(_PROPERTIES)[1:])
    _fmt, order, at = table(_BDF_ACCELERATORS if _BDF_ACCELERATORS in toc else _ACCELERATORS)
    ascent, descent = struct.unpack_from(order + "ii", data, at + 8)
    metrics = _metrics(data, *table(_METRICS))
    bitmaps = _bitmaps(data, metrics, *table(_BITMAPS))
    encoding = _encoding(data, *table(_ENCODINGS)[1:])
    width = int(properties["AVERAGE_WIDTH"]) // 10 * span
    height = ascent + descent
    glyphs: dict[int, Glyph] = {}
    for codepoint, index in encoding.items():
        left, _right, advance, glyph_ascent, _descent = metrics[index]
        if advance != width:
            continue
        cell = np.zeros((height, width), dtype=bool)
        bits = bitmaps[index]
        for y in range(bits.shape[0]):
            for x in range(bits.shape[1]):
                cy, cx = ascent - glyph_ascent + y, left + x
                if bits[y, x] and 0 <= cy < height and 0 <= cx < width:
                    cell[cy, cx] = True
        glyphs[codepoint] = cell
    return Face(origin, width, height, ascent, glyphs, str(properties.get("FONT", "")),
                str(properties.get("COPYRIGHT", "")))


def _properties(data: bytes, order: str, at: int) -> dict[str, str | int]:
    (count,) = struct.unpack_from(order + "i", data, at)
    at += 4
    raw = [struct.unpack_from(order + "ibi", data, at + 9 * i) for i in range(count)]
    at += 9 * count + ((4 - (count & 3)) & 3)
    (size,) = struct.unpack_from(order + "i", data, at)
    strings = data[at + 4: at + 4 + size]

    def text(offset: int) -> str:
        return strings[offset: strings.index(b"\0", offset)].decode("latin-1")

    return {text(name): (text(value) if is_string else value) for name, is_string, value in raw}


def _metrics(data: bytes, fmt: int, order: str, at: int) -> list[tuple[int, int, int, int, int]]:
    out: list[tuple[int, int, int, int, int]] = []
    if fmt & 0xFF00 == _COMPRESSED_METRICS:
        (count,) = struct.unpack_from(order + "H", data, at)
        for i in range(count):
            left, right, advance, ascent, descent = (b - 0x80 for b in data[at + 2 + 5 * i: at + 7 + 5 * i])
            out.append((left, right, advance, ascent, descent))
        return out
    (count,) = struct.unpack_from(order + "i", data, at)
    for i in range(count):
        left, right, advance, ascent, descent, _attributes = struct.unpack_from(order + "hhhhhH", data, at + 4 + 12 * i)
        out.append((left, right, advance, ascent, descent))
    return out


def _bitmaps(data: bytes, metrics: Sequence[tuple[int, int, int, int, int]], fmt: int, order: str,
             at: int) -> list[Bitmap]:
    (count,) = struct.unpack_from(order + "i", data, at)
    offsets = struct.unpack_from(order + f"{count}i", data, at + 4)
    sizes = struct.unpack_from(order + "4i", data, at + 4 + 4 * count)
    start = at + 4 + 4 * count + 16
    raw = np.frombuffer(data, dtype=np.uint8, count=sizes[fmt & 3], offset=start)
    if not fmt & 8:  # least significant bit first: bring to most significant first
        raw = np.packbits(np.unpackbits(raw, bitorder="little"))
    unit = 1 << ((fmt >> 4) & 3)
    if bool(fmt & 4) != bool(fmt & 8) and unit > 1:
        raw = raw.reshape(-1, unit)[:, ::-1].reshape(-1)
    pad = 1 << (fmt & 3)
    out: list[Bitmap] = []
    for i, (left, right, _advance, ascent, descent) in enumerate(metrics):
        width, height = right - left, ascent + descent
        stride = ((width + 7) // 8 + pad - 1) // pad * pad
        rows = raw[offsets[i]: offsets[i] + stride * height].reshape(height, stride)
        out.append(np.unpackbits(rows, axis=1)[:, :width].astype(bool))
    return out


def _encoding(data: bytes, order: str, at: int) -> dict[int, int]:
    first_col, last_col, first_row, last_row, _default = struct.unpack_from(order + "5h", data, at)
    cols = last_col - first_col + 1
    count = cols * (last_row - first_row + 1)
    indices = struct.unpack_from(order + f"{count}H", data, at + 10)
    out: dict[int, int] = {}
    for k, index in enumerate(indices):
        if index != 0xFFFF:
            row, col = divmod(k, cols)
            out[((row + first_row) << 8) | (col + first_col)] = index
    return out


def _kept(codepoint: int) -> bool:
    """Printable characters only: controls and private-use code points never come from the font
    (the snapshot's marks live in the private-use area, and text in it counts as uncovered)."""
    return not (codepoint < 0x20 or 0x7F <= codepoint < 0xA0 or 0xE000 <= codepoint <= 0xF8FF)


def _inked(glyphs: dict[int, Glyph]) -> dict[int, Glyph]:
    """Glyphs without empty bitmaps, except for blank characters (spaces, format characters, the
    blank braille pattern). Spleen 5x8 maps all of Latin-1 to empty cells and small DejaVu sizes
    clip some marks away; shown as blanks they would vanish from a page, uncovered they are counted.
    (Misc-fixed cells are kept as they are.)"""
    blank = ("Zs", "Zl", "Zp", "Cf")
    return {cp: bits for cp, bits in glyphs.items()
            if bits.any() or unicodedata.category(chr(cp)) in blank or cp == 0x2800}


def _drawn(rows: tuple[str, ...], face: Face) -> Bitmap:
    cell = np.array([[c == "#" for c in row] for row in rows], dtype=bool)
    if cell.shape != (face.height, face.width):
        raise InvalidInput(f"drawn glyph is {cell.shape}, cell {face.name} is {(face.height, face.width)}")
    return cell


def _lines(face: Face, strokes: Iterable[tuple[float, float, float, float]]) -> Bitmap:
    """Strokes given in cell fractions (x0, y0, x1, y1 of the glyph box above the descent)."""
    image = Image.new("1", (face.width, face.height), 0)
    draw = ImageDraw.Draw(image)
    right, bottom = face.width - 2, face.ascent - 1
    for x0, y0, x1, y1 in strokes:
        draw.line((round(x0 * right), round(y0 * bottom), round(x1 * right), round(y1 * bottom)), fill=1)
    return np.array(image, dtype=bool)


def _ink(bits: Bitmap, face: Face) -> Glyph:
    """A drawn 1-bit glyph in the face's kind (full coverage where the bit is set)."""
    return bits.astype(np.uint8) * np.uint8(255) if face.grey else bits


def _inverse(glyph: Glyph) -> Glyph:
    """The negative of a glyph (bitwise not: ``255 - x`` for coverage)."""
    return ~glyph


def supplements(face: Face) -> dict[int, Glyph]:
    """Glyphs the project adds to a face: composed where the font has an identical form
    (Ѐ is È, ѐ is è), drawn where it has none."""
    out: dict[int, Glyph] = {}
    glyphs = face.glyphs
    for cyrillic, latin in (("Ѐ", "È"), ("ѐ", "è")):
        if ord(cyrillic) not in glyphs and ord(latin) in glyphs:
            out[ord(cyrillic)] = glyphs[ord(latin)]
    for char, rows in DRAWN.get(face.name, {}).items():
        if ord(char) not in glyphs:
            out[ord(char)] = _ink(_drawn(rows, face), face)
    for plain, grave, base in (("и", "ѝ", "e"), ("И", "Ѝ", "E")):
        accented = "è" if base == "e" else "È"
        if ord(grave) in glyphs or ord(grave) in out or ord(plain) not in glyphs or face.grey:
            continue
        accent = glyphs[ord(accented)] & ~glyphs[ord(base)]
        if (glyphs[ord(base)] & glyphs[ord(accented)]).sum() == glyphs[ord(base)].sum() and not (
                accent & glyphs[ord(plain)]).any():
            out[ord(grave)] = glyphs[ord(plain)] | accent
    if ord("✓") not in glyphs:
        out[ord("✓")] = _ink(_lines(face, [(0.0, 0.55, 0.35, 1.0), (0.35, 1.0, 1.0, 0.15)]), face)
    if ord("✗") not in glyphs:
        out[ord("✗")] = _ink(_lines(face, [(0.0, 0.2, 1.0, 1.0), (0.0, 1.0, 1.0, 0.2)]), face)
    return out


def marks(face: Face) -> list[Glyph]:
    """The snapshot's marks for one face, in ``MARKS`` order: uncovered = an inverted ``?`` (the
    convention of U+FFFD), continuation = a hooked arrow at the start of a wrapped row, tab = an
    arrow to a bar, trailing = an open box across the whole cell (wider
    than the font's own U+2423) for a trailing space, header = an inverted ``>`` that
    starts a message's inverted header bar, end = a bar with a rule that follows the last line.
    In a greyscale face the line marks have full coverage and the inverted ones are negatives."""
    question = face.glyphs[ord("?")]
    greater = face.glyphs[ord(">")]
    mid = face.ascent // 2
    w, a = face.width, face.ascent
    continuation = np.zeros((face.height, w), dtype=bool)
    continuation[0:mid + 1, 0] = True
    continuation[mid, 0:w] = True
    continuation[max(0, mid - 1), w - 2] = True
    continuation[min(a - 1, mid + 1), w - 2] = True
    tab = np.zeros((face.height, w), dtype=bool)
    tab[1:a, w - 1] = True
    tab[mid, 0:w] = True
    tab[max(0, mid - 1), w - 3] = True
    tab[min(a - 1, mid + 1), w - 3] = True
    trailing = np.zeros((face.height, w), dtype=bool)
    trailing[a - 1, :] = True
    trailing[a - 2, 0] = True
    trailing[a - 2, w - 1] = True
    end = np.zeros((face.height, w), dtype=bool)
    end[:, 0] = True
    end[mid, :] = True
    end[mid - 1, :] = True
    return [_inverse(question), _ink(continuation, face), _ink(tab, face), _ink(trailing, face), _inverse(greater),
            _ink(end, face)]


def _cell(face: Face, out: Path) -> dict[str, object]:
    """Write ``<cell>.png`` of one face; returns its ``atlas.json`` entry."""
    glyphs = {cp: bits for cp, bits in face.glyphs.items() if _kept(cp)}
    added = supplements(face)
    glyphs.update(added)
    order = sorted(glyphs)
    stack = [glyphs[cp] for cp in order]
    own = marks(face)
    seen = {bits.tobytes(): cp for cp, bits in zip(order, stack, strict=True)}
    for mark_name, bits in zip(MARKS, own, strict=True):
        clash = seen.get(bits.tobytes())
        if clash is not None:
            raise InvalidInput(f"{face.name}: mark {mark_name} has the same bitmap as U+{clash:04X}")
        seen[bits.tobytes()] = -1
    stack.extend(own)
    rows = (len(stack) + ATLAS_COLUMNS - 1) // ATLAS_COLUMNS
    sheet = np.zeros((rows * face.height, ATLAS_COLUMNS * face.width), dtype=np.uint8 if face.grey else bool)
    for i, bits in enumerate(stack):
        r, c = divmod(i, ATLAS_COLUMNS)
        sheet[r * face.height:(r + 1) * face.height, c * face.width:(c + 1) * face.width] = bits
    Image.fromarray(_inverse(sheet)).save(out / f"{face.name}.png", optimize=True)
    entry: dict[str, object] = {
        "width": face.width, "height": face.height, "ascent": face.ascent,
        "file": f"{face.name}.png", "columns": ATLAS_COLUMNS, "glyphs": len(order),
        "codepoints": _runs(order), "marks": list(MARKS), "added": sorted(added),
        "font": face.font, "copyright": face.copyright,
    }
    return {**entry, "mode": "L"} if face.grey else entry


WIDE_CELLS: tuple[str, ...] = ("dejavu-aa-fullhint-6x11",)
"""Cells that draw East Asian Wide and Fullwidth characters (two cells each): the preset cell."""
WIDE_SETS: tuple[tuple[str, Callable[[int], bool]], ...] = (
    ("gb2312", lambda cp: True), ("iso2022_jp", lambda cp: True), ("euc_kr", lambda cp: 0xAC00 <= cp <= 0xD7A3),
)
"""Which wide characters a wide sheet holds: those of GB 2312 (simplified Chinese), JIS X 0208
(Japanese kanji, kana and symbols) and the Hangul syllables of KS X 1001, the national standard sets
that cover everyday text; Unifont's other wide glyphs (rare ideographs, emoji) stay uncovered and
counted, which keeps the sheet to a few hundred kilobytes."""


def _in_wide_sets(codepoint: int) -> bool:
    char = chr(codepoint)
    if unicodedata.east_asian_width(char) not in ("W", "F"):
        return False
    for codec, keep in WIDE_SETS:
        try:
            char.encode(codec)
        except UnicodeEncodeError:
            continue
        if keep(codepoint):
            return True
    return False


def wide_sheet(cell: dict[str, object], name: str, unifont: Path, out: Path) -> dict[str, object]:
    """Write ``<name>-wide.png``: Unifont's double-width glyphs of the ``WIDE_SETS`` scaled by area
    averaging to two cells of ``cell`` (8-bit coverage in a greyscale cell, else ink from half
    coverage up); returns the cell's ``"wide"`` entry. Blank glyphs (the ideographic space) are left out."""
    face = _read_pcf(gzip.decompress(unifont.read_bytes()), str(unifont), span=2)
    width, height = 2 * int(str(cell["width"])), int(str(cell["height"]))
    grey = cell.get("mode") == "L"
    order: list[int] = []
    stack: list[Coverage] = []
    for codepoint in sorted(face.glyphs):
        bits = face.glyphs[codepoint]
        if not (_kept(codepoint) and _in_wide_sets(codepoint)) or not bits.any():
            continue
        scaled = Image.fromarray(bits.astype(np.uint8) * 255).resize((width, height), Image.Resampling.BOX)
        coverage = np.asarray(scaled, dtype=np.uint8)
        order.append(codepoint)
        stack.append(coverage if grey else np.where(coverage >= 128, 255, 0).astype(np.uint8))
    columns = ATLAS_COLUMNS // 2
    rows = (len(stack) + columns - 1) // columns
    sheet = np.zeros((rows * height, columns * width), dtype=np.uint8)
    for i, glyph in enumerate(stack):
        r, c = divmod(i, columns)
        sheet[r * height:(r + 1) * height, c * width:(c + 1) * width] = glyph
    image = Image.fromarray(255 - sheet) if grey else Image.fromarray(sheet < 128)
    image.save(out / f"{name}-wide.png", optimize=True)
    return {"file": f"{name}-wide.png", "columns": columns, "glyphs": len(order), "codepoints": _runs(order),
            "font": f"{face.font}, double-width glyphs scaled to {width}x{height}", "copyright": face.copyright}


def _pcf(path: Path, family: str) -> Face:
    """A PCF face named as its cell, ``<family>-<W>x<H>``."""
    face = _read_pcf(gzip.decompress(path.read_bytes()), str(path))
    name = f"{family}-{face.width}x{face.height}"
    return Face(name, face.width, face.height, face.ascent, _inked(face.glyphs), face.font, face.copyright)


def _ttf_codepoints(data: bytes, origin: str) -> list[int]:
    """Code points of a TrueType font's Unicode BMP cmap (format 4 subtable, platform 3/1 or 0/x)."""
    (tables,) = struct.unpack_from(">H", data, 4)
    offsets = {data[12 + 16 * i: 16 + 16 * i]: struct.unpack_from(">I", data, 20 + 16 * i)[0] for i in range(tables)}
    if b"cmap" not in offsets:
        raise InvalidInput(f"{origin}: no cmap table")
    cmap = offsets[b"cmap"]
    (count,) = struct.unpack_from(">H", data, cmap + 2)
    for i in range(count):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
        at = cmap + offset
        if (platform, encoding) not in ((3, 1), (0, 3)) or struct.unpack_from(">H", data, at)[0] != 4:
            continue
        segments = struct.unpack_from(">H", data, at + 6)[0] // 2
        ends = struct.unpack_from(f">{segments}H", data, at + 14)
        starts = struct.unpack_from(f">{segments}H", data, at + 16 + 2 * segments)
        deltas = struct.unpack_from(f">{segments}h", data, at + 16 + 4 * segments)
        range_at = at + 16 + 6 * segments
        ranges = struct.unpack_from(f">{segments}H", data, range_at)
        out: list[int] = []
        for k in range(segments):
            for cp in range(starts[k], min(ends[k], 0xFFFE) + 1):
                if ranges[k]:
                    where = range_at + 2 * k + ranges[k] + 2 * (cp - starts[k])
                    glyph = struct.unpack_from(">H", data, where)[0]
                    glyph = (glyph + deltas[k]) & 0xFFFF if glyph else 0
                else:
                    glyph = (cp + deltas[k]) & 0xFFFF
                if glyph:
                    out.append(cp)
        return out
    raise InvalidInput(f"{origin}: no Unicode BMP cmap (format 4) subtable")


def _dejavu(path: Path, size: int, *, grey: bool = False, hinted: bool = True,
            width_of: Callable[[float], int] = round, rows: tuple[int, int] | None = None) -> Face:
    """DejaVu Sans Mono at ``size`` px, rasterised by FreeType through Pillow: 1-bit and hinted, or
    anti-aliased (``grey``) with or without the font's hinting. The cell is ``width_of(advance)``
    wide (the rounded advance unless told) and as high as the ink of printable ASCII and Latin-1
    (the font's ascent leaves room for taller accents, which are clipped), or spans ``rows`` (top,
    bottom: pixel rows below the top of the font's ascent) when given; ink past the cell is
    clipped too. In a process started with ``FREETYPE_PROPERTIES`` set to ``FULL_HINTING`` the
    hinted glyphs are hinted in both directions (``dejavu-aa-fullhint``)."""
    data = path.read_bytes()
    font = ImageFont.truetype(BytesIO(data if hinted else _unhinted(data, str(path))), size)
    width = width_of(font.getlength("M"))
    ascent, descent = font.getmetrics()
    if rows is None:
        boxes = [font.getbbox(chr(cp)) for cp in (*range(0x21, 0x7F), *range(0xA1, 0x100))]
        top = int(min(box[1] for box in boxes if box[3] > box[1]))
        bottom = int(max(box[3] for box in boxes if box[3] > box[1]))
    else:
        top, bottom = rows
        if not 0 <= top < bottom <= ascent + descent:
            raise InvalidInput(f"rows {rows} are not within the font's {ascent} + {descent} px")
    full = grey and hinted and os.environ.get("FREETYPE_PROPERTIES") == FULL_HINTING
    glyphs: dict[int, Glyph] = {}
    for cp in _ttf_codepoints(data, str(path)):
        image = Image.new("L" if grey else "1", (width, ascent + descent), 0)
        draw = ImageDraw.Draw(image)
        draw.fontmode = "L" if grey else "1"
        draw.text((0, 0), chr(cp), font=font, fill=255 if grey else 1)
        glyphs[cp] = np.array(image, dtype=np.uint8 if grey else bool)[top:bottom]
    family, style = font.getname()
    prefix = "dejavu-aa" if grey else "dejavu"
    prefix += "-fullhint" if full else "" if hinted else "-nohint"
    rendering = ("greyscale" if grey else "1-bit") + (" hinted" if hinted else " unhinted (instructions removed)")
    rendering = f"(TrueType interpreter v35, x and y) {rendering}" if full else rendering
    return Face(f"{prefix}-{width}x{bottom - top}", width, bottom - top, ascent - top, _inked(glyphs),
                f"{family} {style} {size} px, FreeType {features.version('freetype2')} {rendering}",
                "Copyright (c) 2003 by Bitstream, Inc. All Rights Reserved. DejaVu changes are in public domain.",
                grey)


def _full_hinted(path: Path, size: int) -> Face:
    """DejaVu Sans Mono at ``size`` px, anti-aliased and hinted in both directions, in the rows of
    the hinted greyscale cell of that size: rasterised by a child process whose FreeType runs the
    version 35 TrueType interpreter (``FULL_HINTING``), which returns the glyphs as an ``.npz``."""
    light = _dejavu(path, size, grey=True)
    font = ImageFont.truetype(BytesIO(path.read_bytes()), size)
    top = font.getmetrics()[0] - light.ascent
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--full-hinting", str(path), str(size),
                           str(top), str(top + light.height)],
                          env={**os.environ, "FREETYPE_PROPERTIES": FULL_HINTING}, capture_output=True, check=False)
    if done.returncode:
        raise InvalidInput(f"rasterising {path.name} {size} px fully hinted failed: {done.stderr.decode()}")
    with np.load(BytesIO(done.stdout)) as arrays:
        codepoints, stack, meta = arrays["codepoints"], arrays["glyphs"], json.loads(str(arrays["meta"]))
    face = Face(meta["name"], int(meta["width"]), int(meta["height"]), int(meta["ascent"]),
                {int(cp): glyph for cp, glyph in zip(codepoints, stack, strict=True)}, meta["font"], meta["copyright"],
                True)
    if not face.name.startswith("dejavu-aa-fullhint-") or (face.width, face.height) != (light.width, light.height):
        raise InvalidInput(f"fully hinted {size} px came back as {face.name}, not in the cell of {light.name}")
    if all(np.array_equal(face.glyphs[cp], light.glyphs[cp]) for cp in range(0x21, 0x7F)):
        raise InvalidInput(f"FreeType {features.version('freetype2')} ignored FREETYPE_PROPERTIES={FULL_HINTING}: "
                         "its fully hinted ASCII is its default hinting's")
    return face


def _write_full_hinted(path: Path, size: int, top: int, bottom: int) -> None:
    """The child side of ``_full_hinted``: the face's glyphs as an ``.npz`` on standard output."""
    if os.environ.get("FREETYPE_PROPERTIES") != FULL_HINTING:
        raise SystemExit(f"--full-hinting needs FREETYPE_PROPERTIES={FULL_HINTING} in the environment")
    face = _dejavu(path, size, grey=True, rows=(top, bottom))
    codepoints = sorted(face.glyphs)
    meta = {"name": face.name, "width": face.width, "height": face.height, "ascent": face.ascent,
            "font": face.font, "copyright": face.copyright}
    out = BytesIO()
    np.savez(out, codepoints=np.array(codepoints, dtype=np.int64),
             glyphs=np.stack([face.glyphs[cp] for cp in codepoints]), meta=np.array(json.dumps(meta)))
    sys.stdout.buffer.write(out.getvalue())


_MORE_COMPONENTS, _WE_HAVE_INSTRUCTIONS = 0x20, 0x100
"""Composite glyph flags and the glyph layouts below: OpenType glyf table,
https://learn.microsoft.com/en-us/typography/opentype/otspec181/glyf (OpenType 1.8.1, read 2026-12-01)."""


def _without_instructions(glyph: bytes) -> bytes:
    """One glyf entry with its TrueType instructions removed (simple and composite glyphs)."""
    if not glyph:
        return glyph
    (contours,) = struct.unpack_from(">h", glyph, 0)
    if contours >= 0:
        at = 10 + 2 * contours
        (length,) = struct.unpack_from(">H", glyph, at)
        return glyph[:at] + b"\0\0" + glyph[at + 2 + length:]
    out = bytearray(glyph[:10])
    at = 10
    while True:
        (flags,) = struct.unpack_from(">H", glyph, at)
        size = 4 + (4 if flags & 1 else 2) + (2 if flags & 8 else 4 if flags & 0x40 else 8 if flags & 0x80 else 0)
        out += struct.pack(">H", flags & ~_WE_HAVE_INSTRUCTIONS) + glyph[at + 2:at + size]
        at += size
        if not flags & _MORE_COMPONENTS:
            return bytes(out)


def _unhinted(data: bytes, origin: str) -> bytes:
    """A TrueType font with every glyph's instructions removed, so FreeType's native hinter has
    nothing to run and the outlines are rasterised as designed (Pillow has no way to pass
    ``FT_LOAD_NO_HINTING``: its ``font_render`` loads glyphs with ``FT_LOAD_DEFAULT``). ``maxp``
    still announces instructions, so FreeType does not switch to its auto-hinter instead. The glyf
    table is rewritten with a long loca; checksums are left stale (FreeType does not verify them)."""
    (count,) = struct.unpack_from(">H", data, 4)
    tables = {data[12 + 16 * i:16 + 16 * i]: struct.unpack_from(">II", data, 20 + 16 * i) for i in range(count)}
    if b"glyf" not in tables:
        raise InvalidInput(f"{origin}: no glyf table (not a TrueType-outline font)")
    head, maxp, loca, glyf = (tables[tag][0] for tag in (b"head", b"maxp", b"loca", b"glyf"))
    (glyph_count,) = struct.unpack_from(">H", data, maxp + 4)
    if struct.unpack_from(">h", data, head + 50)[0]:
        offsets = list(struct.unpack_from(f">{glyph_count + 1}I", data, loca))
    else:
        offsets = [2 * o for o in struct.unpack_from(f">{glyph_count + 1}H", data, loca)]
    new_glyf = bytearray()
    new_offsets = []
    for g in range(glyph_count):
        new_offsets.append(len(new_glyf))
        new_glyf += _without_instructions(data[glyf + offsets[g]:glyf + offsets[g + 1]])
        new_glyf += b"\0" * (-len(new_glyf) % 4)
    new_offsets.append(len(new_glyf))
    new_head = bytearray(data[head:head + tables[b"head"][1]])
    new_head[50:52] = struct.pack(">h", 1)
    body = {tag: data[at:at + length] for tag, (at, length) in tables.items()}
    body.update({b"glyf": bytes(new_glyf), b"loca": struct.pack(f">{glyph_count + 1}I", *new_offsets),
                 b"head": bytes(new_head)})
    out = bytearray(data[:12])
    at = 12 + 16 * count
    records = bytearray()
    blobs = bytearray()
    for i in range(count):
        tag = data[12 + 16 * i:16 + 16 * i]
        (checksum,) = struct.unpack_from(">I", data, 16 + 16 * i)
        records += tag + struct.pack(">III", checksum, at + len(blobs), len(body[tag]))
        blobs += body[tag] + b"\0" * (-len(body[tag]) % 4)
    return bytes(out + records + blobs)


def _version(package: str) -> str:
    """The installed Debian version of ``package`` (the atlas records where its glyphs came from)."""
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True,
                          check=False)
    if done.returncode or not done.stdout:
        raise InvalidInput(f"Debian package {package} is not installed: {done.stderr.strip()}")
    return done.stdout


def build(fonts: Path, out: Path) -> dict[str, object]:
    """Write ``<cell>.png`` per cell and ``atlas.json``; returns the JSON written. Misc-fixed cells
    come first in their own order, the other 1-bit faces after them by cell area, then the
    greyscale cells (hinted, then unhinted, then hinted in both directions, each smallest first)."""
    if "FREETYPE_PROPERTIES" in os.environ:
        raise InvalidInput("FREETYPE_PROPERTIES is set: the atlas is built with FreeType's default properties "
                         "(the fully hinted cells set their own in a child process)")
    cells: dict[str, object] = {}
    for name in CELLS:
        path = fonts / f"{name}.pcf.gz"
        cells[name] = _cell(_read_pcf(gzip.decompress(path.read_bytes()), name), out)
    others = [(family, _pcf(fonts / file, family)) for family, file in PCF_FACES]
    others += [("dejavu", _dejavu(DEJAVU, size)) for size in DEJAVU_SIZES]
    grey = [(family, _dejavu(DEJAVU, size, grey=True, hinted=hinted))
            for family, hinted in (("dejavu-aa", True), ("dejavu-aa-nohint", False)) for size in GREY_SIZES]
    grey += [("dejavu-aa-fullhint", _full_hinted(DEJAVU, size)) for size in FULL_HINT_SIZES]
    names = [face.name for _, face in others + grey]
    if len(set(names)) != len(names):
        raise InvalidInput(f"two faces give one cell name: {sorted(names)}")
    for family, face in sorted(others, key=lambda item: (item[1].width * item[1].height, item[1].name)):
        cells[face.name] = {**_cell(face, out), "face": family}
    for family, face in grey:
        cells[face.name] = {**_cell(face, out), "face": family}
    for name in WIDE_CELLS:
        entry = cells[name]
        assert isinstance(entry, dict)
        entry["wide"] = wide_sheet(entry, name, fonts / "unifont.pcf.gz", out)
    faces = {name: {"package": family.package, "version": _version(family.package), "licence": family.licence,
                    "notice": family.notice} for name, family in FAMILIES.items()}
    atlas: dict[str, object] = {
        "format": 1,
        "source": "X11 misc-fixed, Terminus Font, Spleen and GNU Unifont bitmap fonts and DejaVu Sans Mono "
                  "(Debian packages in faces); licences in LICENSE.txt; "
                  "regenerate with toolkit/snapshot/fonts/build_atlas.py",
        "faces": faces,
        "cells": cells,
    }
    (out / "atlas.json").write_text(json.dumps(atlas, separators=(",", ":")) + "\n", encoding="utf-8")
    return atlas


def _runs(codepoints: Sequence[int]) -> list[list[int]]:
    """Sorted code points as ``[first, length]`` runs."""
    runs: list[list[int]] = []
    for cp in codepoints:
        if runs and runs[-1][0] + runs[-1][1] == cp:
            runs[-1][1] += 1
        else:
            runs.append([cp, 1])
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--fonts", type=Path, default=DEFAULT_FONTS, help="directory of the PCF files")
    parser.add_argument("--out", type=Path, default=HERE, help="where to write the atlas")
    parser.add_argument("--full-hinting", nargs=4, metavar=("TTF", "SIZE", "TOP", "BOTTOM"),
                        help=f"internal: write one fully hinted face as .npz (needs FREETYPE_PROPERTIES={FULL_HINTING})")
    parser.add_argument("--wide-only", action="store_true",
                        help="only (re)write the wide sheets of WIDE_CELLS into the existing atlas.json")
    args = parser.parse_args(argv)
    if args.full_hinting:
        ttf, size, top, bottom = args.full_hinting
        _write_full_hinted(Path(ttf), int(size), int(top), int(bottom))
        return 0
    if args.wide_only:
        path = args.out / "atlas.json"
        atlas = json.loads(path.read_text("utf-8"))
        for name in WIDE_CELLS:
            atlas["cells"][name]["wide"] = wide_sheet(atlas["cells"][name], name, args.fonts / "unifont.pcf.gz", args.out)
            print(name, atlas["cells"][name]["wide"]["glyphs"], "wide glyphs")
        path.write_text(json.dumps(atlas, separators=(",", ":")) + "\n", encoding="utf-8")
        return 0
    atlas = build(args.fonts, args.out)
    cells = atlas["cells"]
    assert isinstance(cells, dict)
    for name, cell in cells.items():
        print(name, cell["glyphs"], "glyphs,", len(cell["added"]), "added by the project")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
