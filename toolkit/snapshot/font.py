"""The glyph atlas: every glyph of one cell size as a numpy array, ready for array indexing.

The bitmaps come from the public-domain X11 misc-fixed fonts (cells named by size, ``"4x6"``) and
from other faces (cells named ``"<face>-<W>x<H>"``: Terminus Font, Spleen, GNU Unifont's
single-width glyphs, DejaVu Sans Mono rasterised 1-bit), committed as one 1-bit PNG per cell plus
``atlas.json`` (licences in ``fonts/LICENSE.txt``; ``fonts/build_atlas.py`` regenerates them).
Nothing but Pillow and numpy is needed at run time.

Greyscale cells (``"dejavu-aa-WxH"``, and ``"dejavu-aa-nohint-WxH"`` from the font with its hinting
instructions removed) are DejaVu Sans Mono anti-aliased by FreeType, stored as 8-bit sheets
(``"mode": "L"`` in their atlas entry). Their ``Font.glyphs`` are uint8 coverage, 0 = paper and
255 = full ink, exactly as FreeType rendered them (``Font.grey`` says which kind a cell is); OCR
engines read them far better than any 1-bit cell of the same size.

East Asian Wide and Fullwidth characters (CJK, kana, Hangul, fullwidth forms) take two cells: a
cell with a wide sheet (``"wide"`` in its atlas entry: GNU Unifont's double-width glyphs scaled to
two cells of the cell's height) draws each as a left and a right half glyph, ``Font.pairs`` names
the character a pair of halves shows, and the other cells leave them uncovered, as emoji stay in every cell.

Identical bitmaps are one glyph: Latin ``A``, Greek ``Α`` and Cyrillic ``А`` look the same in these
fonts, so no reader of pixels can tell them apart. Each such set is a *class*, decoded as its
representative (the ASCII member when there is one, else the lowest code point), and accuracy
counts a class as one character. ``Font.homoglyphs`` lists the classes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from toolkit.errors import InvalidInput, NotFound

FONTS = Path(__file__).parent / "fonts"
"""The committed atlas (read beside this file, so reading it imports no package)."""

Bitmaps = npt.NDArray[np.bool_]
Coverage = npt.NDArray[np.uint8]
"""Greyscale pixels: 0 = paper, 255 = full ink."""
Glyphs = Bitmaps | Coverage
Ids = npt.NDArray[np.int32]

MARKS: tuple[str, ...] = ("uncovered", "continuation", "tab", "trailing", "header", "end")
"""The snapshot's own marks, stored after the font's glyphs (``fonts/build_atlas.py``)."""

@dataclass(frozen=True, slots=True)
class BreakMark:
    """A way to draw the line-break mark of reflowed rows (``Geometry.break_mark``): the bitmap of
    ``shape`` moved down ``drop`` pixels (up when negative), so the atlas decode tells it from a
    ``shape`` of the text, and shown to an OCR reader as ``shape`` (what an engine that saw the
    break reads there)."""

    name: str
    shape: str
    drop: int


BREAK_MARKS: tuple[BreakMark, ...] = (
    BreakMark("not", "\u00ac", 2),
    BreakMark("section", "\u00a7", 1),
    BreakMark("guillemet", "\u00bb", 1),
)
"""The break marks a page may use, the default first. ``not``: a NOT SIGN ``¬`` sitting low in its cell,
like the hook of a return key; neither engine's character set holds it (RapidOCR's PP-OCRv4 keys,
tesseract 5's ``eng`` LSTM unicharset), so an engine can never read it. ``section`` (``§``) and
``guillemet`` (``»``) are in both character sets and almost never in agent text (the shared corpora
hold no ``§`` and 16 ``»`` in 15 MB). Each is the face's own glyph moved, so it matches the face's
stroke; moved, it is no character's bitmap."""
BREAK_SHAPE = BREAK_MARKS[0].shape
BREAK_DROP = BREAK_MARKS[0].drop


def break_mark(name: str) -> BreakMark:
    """The break mark called ``name``, or an ``InvalidInput`` naming the marks."""
    for mark in BREAK_MARKS:
        if mark.name == name:
            return mark
    raise InvalidInput(f"no break mark {name!r}; marks: {', '.join(m.name for m in BREAK_MARKS)}")


UNCOVERED_CHAR = "\ue000"
"""What decoding returns for a cell showing the uncovered mark. A private-use code point: text in
the private-use area is itself uncovered, so the two never disagree."""

MAX_CODEPOINT = 0x110000

REQUIRED: dict[str, tuple[int, ...]] = {
    "ascii": tuple(range(0x20, 0x7F)),
    "latin-1": tuple(range(0xA0, 0x100)),
    "greek": tuple(c for c in range(0x384, 0x3CF) if c not in (0x38B, 0x38D, 0x3A2)),
    "cyrillic": (*range(0x400, 0x460), 0x490, 0x491),
    "box drawing": tuple(range(0x2500, 0x2580)),
}
"""What every cell of 6 px height or less must draw: printable ASCII, Latin-1 (U+00A0-U+00FF),
modern Greek (U+0384-U+03CE), Cyrillic (U+0400-U+045F and Ukrainian Ґ ґ) and box drawing."""


@dataclass(frozen=True, eq=False)
class Font:
    """One cell size: glyph bitmaps (``glyphs[i]`` is ``height`` x ``width``, True = ink, or uint8
    coverage in a greyscale cell) and the code point → glyph lookup. The marks are glyphs too; their
    ids are attributes."""

    cell: str
    width: int
    height: int
    ascent: int
    glyphs: Glyphs
    """(glyph count, height, width), bool or (``grey``) uint8 coverage; identical bitmaps
    collapsed into one glyph."""
    lookup: Ids
    """Code point → glyph id for every code point up to U+10FFFF; uncovered ones hold ``uncovered``."""
    chars: tuple[str, ...]
    """Glyph id → the character decoding returns for it (its class representative)."""
    members: tuple[str, ...]
    """Glyph id → every font character drawn with that bitmap."""
    font: str
    added: frozenset[int]
    """Code points the project drew or composed (not from the font file)."""
    uncovered: int
    continuation: int
    tab: int
    trailing: int
    header: int
    end: int
    blank: int
    """The glyph of the space character (and every other empty bitmap)."""
    greater: int
    """``>``: a header row's first cell, before the row is inverted into the header mark."""
    right: Ids = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    """Code point → the glyph of a wide character's right cell (its left cell is ``lookup``'s), -1
    for a character one cell wide; empty in a cell without a wide sheet."""
    pairs: dict[tuple[int, int], str] = dataclasses.field(default_factory=dict)
    """(left glyph, right glyph) → the wide character the two cells draw."""
    half: Bitmaps = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Glyph id → one half of a wide character (no narrow character's bitmap)."""
    breaks: tuple[int, ...] = ()
    """Glyph id of each of ``BREAK_MARKS``, in order: the line-break marks of reflowed rows, derived at
    load after every glyph of the atlas, not stored in it, and kept out of ``MARKS`` because, unlike
    them, they are shown to the readers."""
    grey: bool = False
    """Anti-aliased: ``glyphs`` are uint8 coverage, pages are greyscale."""

    @property
    def covered(self) -> int:
        """How many code points the font draws."""
        return int(np.count_nonzero(self.lookup != self.uncovered))

    def wide(self, char: str) -> bool:
        """Drawn two cells wide.

        Args:
            char: One character.

        Returns:
            ``True`` for a character this font draws across two cells, which a page lays out as two.
        """
        return bool(len(self.right)) and bool(self.right[ord(char)] >= 0)

    @property
    def line_break(self) -> int:
        """The default line-break mark (``BREAK_MARKS[0]``)."""
        return self.breaks[0]

    def break_glyph(self, name: str) -> int:
        """The glyph of the break mark called ``name``.

        Args:
            name: The name of one of ``BREAK_MARKS`` (``not``, ``section``, ``guillemet``).

        Returns:
            The glyph's index in the atlas."""
        return self.breaks[BREAK_MARKS.index(break_mark(name))]

    def covers(self, char: str) -> bool:
        """Whether the font has a glyph of its own for ``char``, so a page shows it rather than the
        uncovered mark.

        Args:
            char: One character.

        Returns:
            ``True`` when the character is covered.
        """
        return bool(self.lookup[ord(char)] != self.uncovered)

    def ids(self, text: str) -> Ids:
        """Glyph ids of ``text``, one per code point (lone surrogates are uncovered).

        Args:
            text: The text to draw.

        Returns:
            The glyph ids, an array as long as ``text``'s code points.
        """
        codepoints = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        return self.lookup[codepoints]

    def fold(self, text: str) -> str:
        """``text`` as a pixel reader can know it: each character replaced by its class
        representative, uncovered ones by ``UNCOVERED_CHAR``; newlines and tabs kept.

        Args:
            text: The source text of a page.

        Returns:
            The text a perfect reader of the page would read back, to score a reading against.
        """
        out = []
        for char in text:
            if char in "\n\t" or self.wide(char):
                out.append(char)
            else:
                out.append(self.chars[int(self.lookup[ord(char)])])
        return "".join(out)

    def homoglyphs(self) -> Iterator[tuple[str, ...]]:
        """Sets of characters drawn with one identical bitmap (more than one member).

        Yields:
            Each group of characters a reader cannot tell apart on a page.
        """
        for group in self.members:
            if len(group) > 1:
                yield tuple(group)


@functools.cache
def _atlas() -> dict[str, object]:
    data = FONTS.joinpath("atlas.json").read_text("utf-8")
    atlas = json.loads(data)
    assert isinstance(atlas, dict)
    return atlas


def cells() -> tuple[str, ...]:
    """The cells shipped: misc-fixed smallest first (``"4x6"``, ``"5x7"``, ...), then the other
    1-bit faces by cell area (``"spleen-5x8"``, ..., ``"terminus-10x20"``), then the greyscale
    cells (``"dejavu-aa-4x9"``, ..., ``"dejavu-aa-nohint-7x14"``).

    Returns:
        The cell names, each one ``font`` and ``geometry_for`` take.
    """
    cells_ = _atlas()["cells"]
    assert isinstance(cells_, dict)
    return tuple(cells_)


def parse_cell(cell: str) -> tuple[int, int]:
    """(width, height) of a cell name, ``"6x13"``, ``"terminus-6x12"`` or ``"dejavu-aa-6x11"``."""
    size = cell.rpartition("-")[2]
    width, x, height = size.partition("x")
    if not (x and width.isdigit() and height.isdigit()):
        raise InvalidInput(f"not a glyph cell name: {cell!r} (expected WxH or face-WxH)")
    return int(width), int(height)


def face(cell: str) -> str:
    """The face family of a cell: ``"misc-fixed"`` for the bare names, else the name's prefix
    (``"terminus-bold"`` for ``"terminus-bold-8x16"``)."""
    parse_cell(cell)
    return cell.rpartition("-")[0] or "misc-fixed"


def _rank(char: str) -> tuple[int, int]:
    """Which member of a class decoding returns: ASCII first, then Latin-1, then the lowest."""
    code = ord(char)
    return (0 if code < 0x80 else 1 if code < 0x100 else 2, code)


@functools.cache
def load(cell: str = "4x6") -> Font:
    """The font of one cell size, from the committed atlas."""
    cells_ = _atlas()["cells"]
    assert isinstance(cells_, dict)
    if cell not in cells_:
        raise NotFound(f"no glyph cell {cell!r}; cells: {', '.join(cells_)}")
    meta = cells_[cell]
    width, height, columns = int(meta["width"]), int(meta["height"]), int(meta["columns"])
    grey = meta.get("mode", "1") == "L"
    sheet, codepoints = _sheet(meta, grey)
    total = len(codepoints) + len(MARKS)
    rows = sheet.reshape(sheet.shape[0] // height, height, columns, width).transpose(0, 2, 1, 3)
    stack = rows.reshape(-1, height, width)[:total]
    unique: dict[bytes, int] = {}
    glyphs: list[Glyphs] = []
    members: list[list[str]] = []
    raw_to_glyph: list[int] = []
    for i, bits in enumerate(stack):
        key = bits.tobytes()
        is_mark = i >= len(codepoints)
        if key not in unique or is_mark:
            if is_mark and key in unique:
                raise ValueError(f"atlas {cell}: mark {MARKS[i - len(codepoints)]} is not distinct")
            unique[key] = len(glyphs)
            glyphs.append(bits)
            members.append([])
        glyph = unique[key]
        raw_to_glyph.append(glyph)
        if not is_mark:
            members[glyph].append(chr(codepoints[i]))
    mark_ids = dict(zip(MARKS, raw_to_glyph[len(codepoints):], strict=True))
    lookup = np.full(MAX_CODEPOINT, mark_ids["uncovered"], dtype=np.int32)
    lookup[np.array(codepoints, dtype=np.int64)] = np.array(raw_to_glyph[:len(codepoints)], dtype=np.int32)
    chars = []
    for glyph, group in enumerate(members):
        if group:
            chars.append(min(group, key=_rank))
        elif glyph == mark_ids["uncovered"]:
            chars.append(UNCOVERED_CHAR)
        else:
            chars.append("")
    right, pairs = _wide(meta, glyphs, members, chars, unique, lookup, grey)
    half = np.zeros(len(glyphs) + len(BREAK_MARKS), dtype=bool)
    half[[glyph for pair in pairs for glyph in pair]] = True
    half[int(lookup[ord(" ")])] = False
    first_break = len(glyphs)
    for mark in BREAK_MARKS:
        glyphs.append(_break_bitmap(glyphs, glyphs[int(lookup[ord(mark.shape)])], mark, cell))
        members.append([])
        chars.append("")
    stacked = np.stack(glyphs)
    bitmaps: Glyphs = stacked.astype(np.uint8, copy=False) if grey else stacked.astype(bool, copy=False)
    return Font(
        cell=cell, width=width, height=height, ascent=int(meta["ascent"]), glyphs=bitmaps,
        lookup=lookup, chars=tuple(chars), members=tuple("".join(sorted(g, key=_rank)) for g in members),
        font=str(meta["font"]), added=frozenset(int(c) for c in meta["added"]),
        blank=int(lookup[ord(" ")]), greater=int(lookup[ord(">")]), uncovered=mark_ids["uncovered"],
        continuation=mark_ids["continuation"], tab=mark_ids["tab"], trailing=mark_ids["trailing"],
        header=mark_ids["header"], end=mark_ids["end"], right=right, pairs=pairs, half=half,
        breaks=tuple(range(first_break, len(glyphs))), grey=grey,
    )


def _wide(meta: dict[str, object], glyphs: list[Glyphs], members: list[list[str]], chars: list[str],
          unique: dict[bytes, int], lookup: Ids, grey: bool) -> tuple[Ids, dict[tuple[int, int], str]]:
    """The cell's wide sheet, if it has one, cut into left and right cells appended to ``glyphs``
    (identical halves shared; an empty half, as of ``。``, is the space glyph). A wide character
    whose half is some other narrow character's bitmap, or whose two halves another wide character
    already has, is left uncovered: a decoder could not tell it apart."""
    wide = meta.get("wide")
    if not isinstance(wide, dict):
        return np.zeros(0, dtype=np.int32), {}
    width, height, columns = int(str(meta["width"])), int(str(meta["height"])), int(str(wide["columns"]))
    sheet, codepoints = _sheet(wide, grey)
    rows = sheet.reshape(sheet.shape[0] // height, height, columns, 2 * width).transpose(0, 2, 1, 3)
    stack = rows.reshape(-1, height, 2 * width)[:len(codepoints)]
    narrow = dict(unique)
    halves: dict[bytes, int] = {}
    right = np.full(MAX_CODEPOINT, -1, dtype=np.int32)
    pairs: dict[tuple[int, int], str] = {}
    for codepoint, bits in zip(codepoints, stack, strict=True):
        sides = (bits[:, :width], bits[:, width:])
        keys = [side.tobytes() for side in sides]
        blank = narrow.get(np.zeros_like(sides[0]).tobytes(), -1)
        if any(narrow.get(key, blank) != blank for key in keys):
            continue
        ids = []
        for key, side in zip(keys, sides, strict=True):
            if key in narrow:
                ids.append(blank)
                continue
            if key not in halves:
                halves[key] = len(glyphs)
                glyphs.append(np.ascontiguousarray(side))
                members.append([])
                chars.append("")
            ids.append(halves[key])
        pair = (ids[0], ids[1])
        if pair in pairs:
            continue
        pairs[pair] = chr(codepoint)
        lookup[codepoint] = ids[0]
        right[codepoint] = ids[1]
    return right, pairs


def _sheet(entry: dict[str, object], grey: bool) -> tuple[Glyphs, list[int]]:
    """An atlas sheet (ink high: coverage, or True = ink) and the code points of its glyphs."""
    png = FONTS.joinpath(str(entry["file"])).read_bytes()
    sheet: Glyphs
    if grey:
        sheet = 255 - np.array(Image.open(BytesIO(png)).convert("L"), dtype=np.uint8)
    else:
        sheet = ~np.array(Image.open(BytesIO(png)).convert("1"), dtype=bool)
    runs = entry["codepoints"]
    assert isinstance(runs, list)
    return sheet, [first + i for first, length in runs for i in range(length)]


def _break_bitmap(glyphs: list[Glyphs], shape: Glyphs, mark: BreakMark, cell: str) -> Glyphs:
    """``shape`` moved by the mark's drop, or a pixel further each time it would be some glyph's
    bitmap (a face without the shape moves its uncovered mark, which another mark may have moved
    already): the first bitmap no earlier glyph has."""
    step = 1 if mark.drop >= 0 else -1
    for drop in range(mark.drop, step * len(shape), step):
        moved = _moved(shape, drop)
        if not any((moved == other).all() for other in glyphs):
            return moved
    raise ValueError(f"atlas {cell}: the {mark.name} break mark is some glyph's bitmap however far it is moved")


def _moved(bitmap: Glyphs, pixels: int) -> Glyphs:
    """``bitmap`` moved down ``pixels`` rows, up when negative (what falls off the edge row is merged
    into it, so no ink is lost in a short cell)."""
    out = np.zeros_like(bitmap)
    if pixels > 0:
        out[pixels:] = bitmap[:-pixels]
        out[-1] = np.maximum(out[-1], bitmap[-pixels:].max(axis=0))
    elif pixels < 0:
        out[:pixels] = bitmap[-pixels:]
        out[0] = np.maximum(out[0], bitmap[:-pixels].max(axis=0))
    else:
        out[:] = bitmap
    return out
