"""Text onto pages of tiny glyphs, and pages back into text.

Rendering is array indexing: the text becomes a grid of glyph ids (one cell per character) and the
page is ``glyphs[grid]`` reshaped, with no draw call per character. The layout is reversible from
the pixels alone, so a page can be decoded and compared with what was drawn:

- a line longer than the page wraps; each wrapped row starts with the *continuation* mark;
- a tab becomes the *tab* mark followed by blank cells up to the next stop (every ``tab_size``
  cells of the logical line);
- spaces (and other blank characters) at the end of a line are drawn as the *trailing* mark, so a
  line's end is visible;
- each message starts with a *header* row naming its speaker: inverted into a black bar, or, with
  ``Geometry.header == "rule"``, plain text after the header mark with a solid rule under it;
- with ``Geometry.row_rule``, a faint rule runs in the gap between two rows of text (not after the
  last, nor under a header, whose own style marks it);
- with ``Geometry.reflow``, a message's lines run on across full rows instead: each line break is
  the *line-break* mark (``Geometry.break_mark``, one of ``font.BREAK_MARKS``) in a cell of its own,
  no row starts with the continuation mark, and decoding splits the message's cells at the marks;
- a wide character (``Font.wide``) takes two cells, its left and right half, and may be cut by a
  row's end like any other run of cells; decoding joins the halves (``cell_text``);
- a character the font cannot draw is the *uncovered* mark (an inverted ``?``), and is counted;
- the first unused row of the last page starts with the *end* mark.

Pages of a greyscale cell (``Font.grey``) are 8-bit: the glyphs' coverage is gathered as it is,
header bars are its negative, and the page reads back exactly by matching each cell's coverage.
Rules lie in the gap below a row, outside every cell, so they never change what a page reads as.
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import BytesIO

import numpy as np
import numpy.typing as npt
from PIL import Image

from toolkit.snapshot.font import UNCOVERED_CHAR, Bitmaps, Coverage, Font, Glyphs, Ids, load
from toolkit.snapshot.geometry import Geometry

Floats = npt.NDArray[np.float32]
Index = npt.NDArray[np.intp]

TEXT, CONTINUATION, HEADER, END, UNUSED = 0, 1, 2, 3, 4
"""Row kinds."""

_TAB = 0x110000
_FILL = 0x110001
_BREAK = 0x110002
_RIGHT = 0x110003
"""Internal code values past U+10FFFF for a tab's mark, the blank cells after it, a reflowed
row's line-break mark and the right cell of a wide character."""



ENCODED_PAGES = 512
"""PNG encodings kept (about 100 KB each): enough for every page of a simulated corpus sweep's
current snapshots."""
_ENCODED: OrderedDict[bytes, bytes] = OrderedDict()

ROW_RULE_LEVEL = 55
"""Coverage of a row rule on an 8-bit page: 200/255 grey on white, faint beside glyph strokes."""

@dataclass(frozen=True, slots=True)
class Passage:
    """One message to render: its text and the label of its header row (speaker, id)."""

    text: str
    label: str = ""
    id: str | None = None


@dataclass(frozen=True, eq=False)
class Page:
    """One rendered page: the glyph grid it shows and its pixels on demand."""

    index: int
    geometry: Geometry
    grid: Ids
    """(rows, cols) glyph id each cell should read as (a header row's first cell: the header mark)."""
    kinds: npt.NDArray[np.int8]
    """Row kind per row (``TEXT``, ``CONTINUATION``, ``HEADER``, ``END``, ``UNUSED``)."""
    text_cells: Bitmaps
    """Cells that show a character of the source text (not marks, headers or padding)."""
    lookalikes: Bitmaps
    """Text cells whose character is drawn with the bitmap of another (Cyrillic ``а`` as Latin ``a``):
    no reader of pixels can recover the character, only its look-alike group."""
    chars: int
    """Source characters on this page (newlines included, a tab counted once)."""
    uncovered: int
    """Of those, characters the font cannot draw (shown as the uncovered mark)."""
    turns: tuple[str, ...]
    """Ids of the messages with rows on this page."""

    @functools.cached_property
    def _pixels(self) -> Glyphs:
        return draw(self.grid, self.kinds, self.geometry)

    @property
    def grey(self) -> bool:
        """Drawn in a greyscale (anti-aliased) cell."""
        return self._pixels.dtype == np.uint8

    @functools.cached_property
    def ink(self) -> Bitmaps:
        """(height, width) pixels, True = ink. In a greyscale cell: pixels at least half covered
        (a mask for callers that want one; ``levels`` holds the page as drawn)."""
        pixels = self._pixels
        return pixels >= 128 if pixels.dtype == np.uint8 else pixels.astype(bool, copy=False)

    @functools.cached_property
    def levels(self) -> Coverage:
        """(height, width) coverage, 0 = paper and 255 = full ink: the anti-aliased page in a
        greyscale cell, 0 or 255 in a 1-bit one."""
        pixels = self._pixels
        return pixels.astype(np.uint8, copy=False) if pixels.dtype == np.uint8 else pixels.astype(np.uint8) * np.uint8(255)

    @property
    def image(self) -> Image.Image:
        """The page as a Pillow image, black glyphs on white: 1-bit (mode ``"1"``), or 8-bit
        (mode ``"L"``) in a greyscale cell."""
        if self.grey:
            return Image.fromarray(~self.levels, mode="L")
        return Image.fromarray(~self.ink)

    def png(self) -> bytes:
        """The page as PNG bytes (1-bit, or 8-bit greyscale in a greyscale cell; deterministic for
        the same page). Drawing and encoding are most of what rendering costs, and a history
        compacted again renders its earlier pages again cell for cell, so bytes are kept by a digest
        of what determines the pixels: the glyph grid, the row kinds and the geometry.

        Returns:
            The PNG bytes.
        """
        key = hashlib.sha256(b"".join((self.grid.tobytes(), self.kinds.tobytes(), repr(self.grid.shape).encode(),
                                       repr(self.geometry).encode()))).digest()
        known = _ENCODED.get(key)
        if known is not None:
            _ENCODED.move_to_end(key)
            return known
        out = BytesIO()
        self.image.save(out, format="PNG")
        data = out.getvalue()
        _ENCODED[key] = data
        if len(_ENCODED) > ENCODED_PAGES:
            _ENCODED.popitem(last=False)
        return data


@functools.cache
def _padded(cell: str, line_spacing: int) -> Glyphs:
    font = load(cell)
    glyphs = font.glyphs
    if line_spacing:
        pad = np.zeros((len(glyphs), line_spacing, font.width), dtype=glyphs.dtype)
        glyphs = np.concatenate([glyphs, pad], axis=1)
    return glyphs


@functools.cache
def _lookup(cell: str) -> Ids:
    """The font's lookup extended with the internal tab and fill codes."""
    font = load(cell)
    return np.concatenate([font.lookup, np.array([font.tab, font.blank, font.line_break, font.blank], dtype=np.int32)])


@functools.cache
def lookalike(cell: str) -> Bitmaps:
    """Per code point (and the internal tab and fill codes): drawn with a bitmap it shares with a
    character that decoding returns instead."""
    font = load(cell)
    shared = np.array([len(group) > 1 for group in font.members], dtype=bool)
    representative = np.array([ord(c) if len(c) == 1 else -1 for c in font.chars], dtype=np.int64)
    table = _lookup(cell)
    out: Bitmaps = shared[table] & (representative[table] != np.arange(len(table)))
    out[[_TAB, _FILL, _BREAK, _RIGHT]] = False  # the layout's own cells and a wide character's right cell
    if len(font.right):
        out[np.flatnonzero(font.right >= 0)] = False  # its two cells tell it (a blank half is the space glyph)
    return out


@functools.cache
def _row_words(cell: str, line_spacing: int) -> tuple[npt.NDArray[np.uint64], int, int] | None:
    """Each glyph row as an integer of ``width`` bits, how many cells fill a whole number of bytes
    within 64 bits, and those bytes; ``None`` when no such group exists (9-px cells) or the cell is
    greyscale."""
    glyphs = _padded(cell, line_spacing)
    width = glyphs.shape[2]
    group = next((g for g in range(64 // width, 0, -1) if g * width % 8 == 0), 0)
    if not group or glyphs.dtype != bool:
        return None
    weights = (np.uint64(1) << np.arange(width - 1, -1, -1, dtype=np.uint64))
    words = (glyphs.astype(np.uint64) * weights).sum(axis=2, dtype=np.uint64)
    return words, group, group * width // 8


@functools.cache
def _cell_rows(cell: str, line_spacing: int) -> npt.NDArray[np.void]:
    """Every row of every (padded) glyph as one opaque ``width``-byte item, glyph-major: a
    greyscale page is gathered row item by row item straight into its final layout."""
    glyphs = np.ascontiguousarray(_padded(cell, line_spacing))
    return glyphs.view(np.dtype((np.void, glyphs.shape[2]))).reshape(-1)


def draw(grid: Ids, kinds: npt.NDArray[np.int8], geometry: Geometry) -> Glyphs:
    """Pixels of a glyph grid, header rows as the geometry draws them (a bar is inverted) and its
    rules in the gaps: bool (True = ink), or uint8 coverage in a greyscale cell. 1-bit glyph rows
    are gathered as packed integers (a handful of cells per 64-bit word) and unpacked once, so no
    per-character work remains; greyscale glyphs are gathered whole."""
    font = load(geometry.cell)
    shown = grid.copy()
    header_rows = kinds == HEADER
    if geometry.header == "bar":
        shown[header_rows, 0] = font.greater  # inverted with its row into the header mark
    rows, cols = shown.shape
    pitch, cw, margin = geometry.pitch, font.width, geometry.margin
    packed = _row_words(geometry.cell, geometry.line_spacing)
    block: Glyphs
    if font.grey:
        index = shown[:, None, :].astype(np.intp) * pitch + np.arange(pitch, dtype=np.intp)[None, :, None]
        block = _cell_rows(geometry.cell, geometry.line_spacing)[index].view(np.uint8).reshape(rows * pitch, cols * cw)
    elif packed is None:
        gathered = _padded(geometry.cell, geometry.line_spacing)[shown]
        block = gathered.transpose(0, 2, 1, 3).reshape(rows * pitch, cols * cw)
    else:
        words, group, nbytes = packed
        groups = -(-cols // group)
        padded = np.full((rows, groups * group), font.blank, dtype=np.int32)
        padded[:, :cols] = shown
        cells_of = padded.reshape(rows, groups, group)
        joined = np.zeros((rows, groups, pitch), dtype=np.uint64)
        for k in range(group):
            joined |= words[cells_of[:, :, k]] << np.uint64(cw * (group - 1 - k) + 64 - group * cw)
        ordered = np.ascontiguousarray(joined.transpose(0, 2, 1), dtype=">u8")
        row_bytes = ordered.view(np.uint8).reshape(rows, pitch, groups, 8)
        bits = np.unpackbits(row_bytes[..., :nbytes].reshape(rows * pitch, groups * nbytes), axis=1)
        block = bits[:, :cols * cw].view(bool)
    if header_rows.any() and geometry.header == "bar":
        bar = np.repeat(header_rows, pitch)
        block[bar] = ~block[bar]
    if geometry.row_rule or geometry.header == "rule":
        _rules(block, kinds, geometry)
    shape = (geometry.height, geometry.width)
    page: Glyphs = np.zeros(shape, dtype=np.uint8) if font.grey else np.zeros(shape, dtype=bool)
    full = 255 if font.grey else True
    per_column = geometry.rows * pitch
    for column in range(geometry.columns):
        x = geometry.column_x(column)
        page[margin:margin + per_column, x:x + cols * cw] = block[column * per_column:(column + 1) * per_column]
        if column and geometry.gutter >= 3:
            page[margin:margin + per_column, x - (geometry.gutter + 1) // 2] = full
    return page


def _rules(block: Glyphs, kinds: npt.NDArray[np.int8], geometry: Geometry) -> None:
    """Rules into ``block`` (all text columns' rows stacked), each in the middle of the gap below its
    row: a solid rule under a header row in the ``"rule"`` style; with ``row_rule``, a faint one
    (dotted on a 1-bit page) between two rows of text of the same column."""
    pitch = geometry.pitch
    offset = load(geometry.cell).height + (geometry.line_spacing - 1) // 2
    grey = block.dtype == np.uint8
    if geometry.row_rule:
        text = np.isin(kinds, (TEXT, CONTINUATION))
        below = np.zeros_like(text)
        below[:-1] = text[:-1] & (text[1:] | (kinds[1:] == HEADER))
        below[geometry.rows - 1::geometry.rows] = False  # a column's last row has no row under it
        ys = np.flatnonzero(below) * pitch + offset
        if grey:
            block[ys, :] = ROW_RULE_LEVEL
        else:
            block[ys[:, None], np.arange(0, block.shape[1], 2)[None, :]] = True
    if geometry.header == "rule":
        block[np.flatnonzero(kinds == HEADER) * pitch + offset, :] = 255 if grey else True


@dataclass(frozen=True, slots=True)
class _Rows:
    grid: Ids
    kinds: npt.NDArray[np.int8]
    text_cells: Bitmaps
    lookalikes: Bitmaps
    char_rows: npt.NDArray[np.int64]
    """Row of every source character (the layout's own cells excluded)."""
    uncovered_rows: npt.NDArray[np.int64]


def _codepoints(text: str, tab_size: int, right: Ids) -> npt.NDArray[np.uint32]:
    """Code points of ``text``, one per cell: each tab replaced by its mark and the fill up to the
    next stop, each wide character (``right``, ``Font.right``) followed by its right cell."""
    codes = _tabbed(text, tab_size, right)
    if not len(right) or not len(codes):
        return codes
    wide = np.flatnonzero(right[np.minimum(codes, len(right) - 1)] >= 0)
    return np.insert(codes, wide + 1, _RIGHT) if len(wide) else codes


def _tabbed(text: str, tab_size: int, right: Ids) -> npt.NDArray[np.uint32]:
    if "\t" not in text:
        return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    pieces: list[npt.NDArray[np.uint32]] = []
    for line in text.split("\n"):
        column = 0
        parts = line.split("\t")
        for part in parts[:-1]:
            codes = np.frombuffer(part.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            pieces.append(codes)
            column += len(part) + (int((right[codes] >= 0).sum()) if len(right) else 0)
            width = tab_size - column % tab_size
            pieces.append(np.array([_TAB] + [_FILL] * (width - 1), dtype=np.uint32))
            column += width
        pieces.append(np.frombuffer(parts[-1].encode("utf-32-le", "surrogatepass"), dtype=np.uint32))
        pieces.append(np.array([10], dtype=np.uint32))
    return np.concatenate(pieces)[:-1]


def _layout(text: str, font: Font, cols: int, tab_size: int, reflow: bool = False, mark: int = -1) -> _Rows:
    """Rows of one message body (vectorised over characters)."""
    ids, codes = _cells(text, font, tab_size)
    n = len(codes)
    newline = codes == 10
    if reflow:
        return _reflowed(codes, _trailing(codes, ids, newline, font), newline, font, cols, mark)
    ids = _trailing(codes, ids, newline, font)
    breaks = np.flatnonzero(newline)
    starts = np.concatenate([[0], breaks + 1])
    lengths = np.concatenate([breaks, [n]]) - starts
    line_of = np.cumsum(newline) - newline
    wraps = np.where(lengths > cols, (lengths - cols + cols - 2) // (cols - 1), 0)
    per_line = 1 + wraps
    first_row = np.concatenate([[0], np.cumsum(per_line)[:-1]])
    total = int(per_line.sum())
    cells = np.flatnonzero(~newline)
    offset = cells - starts[line_of[cells]]
    wrapped = offset >= cols
    row = first_row[line_of[cells]] + np.where(wrapped, 1 + (offset - cols) // (cols - 1), 0)
    col = np.where(wrapped, 1 + (offset - cols) % (cols - 1), offset)
    grid = np.full((total, cols), font.blank, dtype=np.int32)
    grid[row, col] = ids[cells]
    text_cells = np.zeros((total, cols), dtype=bool)
    text_cells[row, col] = True
    lookalikes = np.zeros((total, cols), dtype=bool)
    lookalikes[row, col] = lookalike(font.cell)[codes[cells]]
    kinds = np.full(total, CONTINUATION, dtype=np.int8)
    kinds[first_row] = TEXT
    grid[kinds == CONTINUATION, 0] = font.continuation
    char_rows = np.empty(n, dtype=np.int64)
    char_rows[cells] = row
    char_rows[breaks] = first_row[:-1] + per_line[:-1] - 1
    counted = (codes != _FILL) & (codes != _RIGHT)
    uncovered = (ids == font.uncovered) & counted & ~newline
    return _Rows(grid, kinds, text_cells, lookalikes, char_rows[counted], char_rows[uncovered])


def _trailing(codes: npt.NDArray[np.uint32], ids: Ids, newline: Bitmaps, font: Font) -> Ids:
    """``ids`` with the blank characters at the end of each line as the trailing mark."""
    n = len(codes)
    breaks = np.flatnonzero(newline)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [n]])
    line_of: npt.NDArray[np.int64] = np.cumsum(newline) - newline
    position = np.arange(n)
    inked = np.where(((ids != font.blank) | (codes == _RIGHT)) & ~newline, position, -1)
    last_inked = np.maximum.accumulate(inked) if n else inked
    last = np.where(ends > starts, last_inked[np.maximum(ends - 1, 0)] if n else -1, -1)
    last = np.maximum(last, starts - 1)
    trailing = (position > last[line_of]) & ~newline & (codes != _FILL) & (codes != _RIGHT)
    return np.where(trailing, font.trailing, ids).astype(np.int32)


def _reflowed(codes: npt.NDArray[np.uint32], ids: Ids, newline: Bitmaps, font: Font, cols: int,
              mark: int) -> _Rows:
    """Rows of one message body run on: every cell in reading order, a line break its own cell (the
    glyph ``mark``)."""
    n = len(codes)
    ids = np.where(newline, mark, ids).astype(np.int32)
    total = max(1, -(-n // cols))
    position = np.arange(n)
    grid = np.full(total * cols, font.blank, dtype=np.int32)
    grid[:n] = ids
    text_cells = np.zeros(total * cols, dtype=bool)
    text_cells[:n] = True
    lookalikes = np.zeros(total * cols, dtype=bool)
    lookalikes[:n] = lookalike(font.cell)[np.where(newline, _BREAK, codes)]
    row = position // cols
    counted = (codes != _FILL) & (codes != _RIGHT)
    uncovered = (ids == font.uncovered) & counted
    return _Rows(grid.reshape(total, cols), np.full(total, TEXT, dtype=np.int8), text_cells.reshape(total, cols),
                 lookalikes.reshape(total, cols), row[counted], row[uncovered])


def _header(label: str, font: Font, cols: int) -> Ids:
    clean = " ".join(label.split())[: cols - 2]
    row = np.full(cols, font.blank, dtype=np.int32)
    row[0] = font.header
    ids = _cells(clean, font, 1)[0][: cols - 2]
    row[2:2 + len(ids)] = ids
    return row


def _cells(text: str, font: Font, tab_size: int) -> tuple[Ids, npt.NDArray[np.uint32]]:
    """Glyph ids and code points of ``text``'s cells (a wide character's right cell its right half)."""
    codes = _codepoints(text, tab_size, font.right)
    ids = _lookup(font.cell)[codes]
    halves = np.flatnonzero(codes == _RIGHT)
    ids[halves] = font.right[codes[halves - 1]]
    return ids, codes


def fill(pages: Sequence[Page]) -> float:
    """Source characters per cell of the rows the text fills (a newline counts: in reflowed rows it
    is the line-break mark's cell, in rows per line the row's end): how much of what is paid for
    carries text."""
    rows = filled_rows(pages)
    return sum(page.chars for page in pages) / (rows * pages[0].geometry.cols) if rows else 0.0


def filled_rows(pages: Sequence[Page]) -> int:
    """Rows the text fills over all pages (unused rows and the end mark's row not counted): what a
    long history, which fills its pages, pays for."""
    return sum(int((page.kinds != UNUSED).sum() - (page.kinds == END).sum()) for page in pages)


def render(text: str | Sequence[Passage], geometry: Geometry | None = None) -> list[Page]:
    """Pages of ``text`` in ``geometry``'s glyph cell and page size.

    Args:
        text: A plain string, or messages, each rendered under a header row naming its speaker.
        geometry: The page and glyph cell (default: ``Geometry()``, 4x6 cells).

    Returns:
        The pages in reading order, each with the glyph grid it shows and its pixels on demand; no
        messages, no pages."""
    geometry = geometry or Geometry()
    font = load(geometry.cell)
    cols, per_page = geometry.cols, geometry.lines
    turns = [Passage(text)] if isinstance(text, str) else list(text)
    if not turns:
        return []
    with_headers = not isinstance(text, str)
    grids: list[Ids] = []
    kinds: list[npt.NDArray[np.int8]] = []
    masks: list[Bitmaps] = []
    alike: list[Bitmaps] = []
    char_rows: list[npt.NDArray[np.int64]] = []
    uncovered_rows: list[npt.NDArray[np.int64]] = []
    turn_rows: list[npt.NDArray[np.int64]] = []
    row0 = 0
    for index, turn in enumerate(turns):
        if with_headers:
            grids.append(_header(turn.label, font, cols)[None, :])
            kinds.append(np.array([HEADER], dtype=np.int8))
            masks.append(np.zeros((1, cols), dtype=bool))
            alike.append(np.zeros((1, cols), dtype=bool))
            turn_rows.append(np.array([index], dtype=np.int64))
            row0 += 1
        body = _layout(turn.text, font, cols, geometry.tab_size, geometry.reflow, font.break_glyph(geometry.break_mark))
        grids.append(body.grid)
        kinds.append(body.kinds)
        masks.append(body.text_cells)
        alike.append(body.lookalikes)
        char_rows.append(body.char_rows + row0)
        uncovered_rows.append(body.uncovered_rows + row0)
        turn_rows.append(np.full(len(body.kinds), index, dtype=np.int64))
        row0 += len(body.kinds)
    pages_needed = max(1, -(-row0 // per_page))
    slots = pages_needed * per_page
    grid = np.full((slots, cols), font.blank, dtype=np.int32)
    kind = np.full(slots, UNUSED, dtype=np.int8)
    mask = np.zeros((slots, cols), dtype=bool)
    same = np.zeros((slots, cols), dtype=bool)
    same[:row0] = np.concatenate(alike)
    grid[:row0] = np.concatenate(grids)
    kind[:row0] = np.concatenate(kinds)
    mask[:row0] = np.concatenate(masks)
    if row0 < slots:
        kind[row0] = END
        grid[row0, 0] = font.end
    owner = np.full(slots, -1, dtype=np.int64)
    owner[:row0] = np.concatenate(turn_rows)
    chars = np.bincount(np.concatenate(char_rows) // per_page, minlength=pages_needed)
    missing = np.bincount(np.concatenate(uncovered_rows) // per_page, minlength=pages_needed)
    pages = []
    for p in range(pages_needed):
        rows = slice(p * per_page, (p + 1) * per_page)
        on_page = sorted({int(t) for t in owner[rows] if t >= 0})
        pages.append(Page(
            index=p, geometry=geometry, grid=grid[rows], kinds=kind[rows], text_cells=mask[rows], lookalikes=same[rows],
            chars=int(chars[p]), uncovered=int(missing[p]),
            turns=tuple(turns[t].id or str(t) for t in on_page),
        ))
    return pages


# --- reading pages back ------------------------------------------------------------------------


def as_ink(image: Image.Image | Glyphs | Floats, geometry: Geometry,
           resample: Image.Resampling = Image.Resampling.BICUBIC) -> Glyphs | Floats:
    """Pixels of ``image`` at the page size of ``geometry``, ink as True (or 1.0, or 255): exact
    bits when the image is a 1-bit page itself, exact uint8 coverage when it is a greyscale cell's
    page itself (an 8-bit image or coverage array of the page's size), grey levels when it has to
    be scaled back first. Arrays are ink-high: bool, float 0-1 or uint8 coverage 0-255."""
    shape = (geometry.height, geometry.width)
    grey_cell = load(geometry.cell).grey
    if isinstance(image, np.ndarray):
        if image.shape == shape and (image.dtype == bool or (image.dtype == np.uint8 and grey_cell)):
            return image
        if image.dtype == np.uint8:
            grey = Image.fromarray(image, mode="L")
        elif image.dtype == bool:
            grey = Image.fromarray(image.astype(np.uint8) * 255, mode="L")
        else:
            grey = Image.fromarray((image.astype(np.float32) * 255).clip(0, 255).astype(np.uint8), mode="L")
        ink_is_white = True
    else:
        if image.mode == "1" and image.size == geometry.size:
            return ~np.array(image, dtype=bool)
        grey = image.convert("L")
        if grey_cell and grey.size == geometry.size:
            return ~np.asarray(grey, dtype=np.uint8)
        ink_is_white = False
    if grey.size != geometry.size:
        grey = grey.resize(geometry.size, resample)
    values = np.asarray(grey, dtype=np.float32) / 255.0
    return values if ink_is_white else 1.0 - values


@functools.cache
def _templates(cell: str) -> tuple[Floats, Floats]:
    """Glyphs as flat float vectors (ink 1.0) and their squared norms, for nearest-glyph matching."""
    font = load(cell)
    glyphs = font.glyphs.reshape(len(font.glyphs), -1).astype(np.float32) / (255.0 if font.grey else 1.0)
    return glyphs, (glyphs * glyphs).sum(axis=1)


def _nearest(cells: Floats, cell: str, chunk: int = 4096) -> Ids:
    """Each cell's nearest glyph in squared distance (a matrix product per chunk). Cells come from
    8-bit images, so equal cells are matched once; in a 1-bit cell a cell with no pixel at half ink
    or more is nearest to the blank glyph (every ink pixel of a glyph would add ``1 - 2x > 0``), in
    a greyscale cell (faint glyphs) only an empty one is taken as blank unmatched."""
    levels = np.rint(np.clip(cells, 0.0, 1.0) * 255).astype(np.uint8)
    keys = np.ascontiguousarray(levels).view(np.dtype((np.void, levels.shape[1]))).ravel()
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    distinct = levels[first].astype(np.float32) / 255.0
    font = load(cell)
    out = np.full(len(distinct), font.blank, dtype=np.int32)
    inked = np.flatnonzero(distinct.max(axis=1) >= (0.5 / 255 if font.grey else 0.5))
    glyphs, norms = _templates(cell)
    for start in range(0, len(inked), chunk):
        rows = inked[start:start + chunk]
        out[rows] = np.argmin(norms[None, :] - 2.0 * distinct[rows] @ glyphs.T, axis=1)
    del unique
    return out[inverse.ravel()]


@functools.cache
def _weights(cell: str) -> tuple[npt.NDArray[np.uint64], bool]:
    """Per-pixel weights of a cell's key: powers of two (an exact key) when a 1-bit cell has at
    most 64 pixels, else fixed random odd 64-bit numbers (a hash of bits or coverage, so matches
    are verified)."""
    font = load(cell)
    size = font.height * font.width
    if size <= 64 and not font.grey:
        return (np.uint64(1) << np.arange(size, dtype=np.uint64)).reshape(font.height, font.width), False
    draws = np.random.default_rng(20261129).integers(0, 2**63, size=size, dtype=np.uint64)
    return (draws * np.uint64(2) + np.uint64(1)).reshape(font.height, font.width), True


@functools.cache
def _glyph_keys(cell: str) -> tuple[npt.NDArray[np.uint64], Ids]:
    """Keys of every glyph, sorted, and the glyph id of each."""
    weights, _ = _weights(cell)
    keys = (load(cell).glyphs.astype(np.uint64) * weights).sum(axis=(1, 2), dtype=np.uint64)
    order = np.argsort(keys, kind="stable")
    if len(np.unique(keys)) != len(keys):
        raise ValueError(f"glyph keys of cell {cell} collide")
    return keys[order], order.astype(np.int32)


def _keys(area: Glyphs, cell: str) -> npt.NDArray[np.uint64]:
    """Key of every cell of ``area`` (rows, height, cols, width): one array operation per pixel
    of a cell, never one per cell."""
    weights, _ = _weights(cell)
    keys = np.zeros((area.shape[0], area.shape[2]), dtype=np.uint64)
    for y in range(area.shape[1]):
        for x in range(area.shape[3]):
            keys += area[:, y, :, x].astype(np.uint64) * weights[y, x]
    return keys


def _exact(keys: npt.NDArray[np.uint64], cells_at: Callable[[Index], Glyphs], font: Font) -> Ids:
    """Glyph ids of cells by key; cells whose key is no glyph's get the nearest glyph.
    ``cells_at(indices)`` gives the bitmaps (or coverage) of some cells (only those needed are
    copied)."""
    known, ids = _glyph_keys(font.cell)
    at = np.minimum(np.searchsorted(known, keys), len(known) - 1)
    found = np.where(known[at] == keys, ids[at], -1).astype(np.int32)
    if _weights(font.cell)[1]:
        hit = np.flatnonzero(found >= 0)
        same = (font.glyphs[found[hit]] == cells_at(hit)).all(axis=(1, 2))
        found[hit[~same]] = -1
    unknown = np.flatnonzero(found < 0)
    if len(unknown):
        cells = cells_at(unknown)
        scale = 255.0 if cells.dtype == np.uint8 else 1.0
        found[unknown] = _nearest(cells.reshape(len(unknown), -1).astype(np.float32) / scale, font.cell)
    return found


def read(image: Image.Image | Glyphs | Floats, geometry: Geometry,
         resample: Image.Resampling = Image.Resampling.BICUBIC) -> tuple[Ids, npt.NDArray[np.int8]]:
    """The glyph grid and row kinds a page shows, from its pixels alone.

    A header row is found by its first cell (the header mark) and read inverted (as it is, in the
    ``"rule"`` style). Exact pixels (a 1-bit page's bits, a greyscale page's coverage) are read by
    key; pixels that went through a resize are matched to the nearest glyph.

    Args:
        image: The page's pixels: an image, or its bits or coverage as an array.
        geometry: The page and glyph cell it was rendered in.
        resample: The filter that brings a resized page back to the page's size before reading.

    Returns:
        The glyph id of each cell, and the kind of each row."""
    font = load(geometry.cell)
    ink = as_ink(image, geometry, resample)
    rows, cols, pitch, cw, ch, m = geometry.lines, geometry.cols, geometry.pitch, font.width, font.height, geometry.margin
    stacked = np.concatenate([ink[m:m + geometry.rows * pitch, x:x + cols * cw]
                              for x in map(geometry.column_x, range(geometry.columns))])
    area = stacked.reshape(rows, pitch, cols, cw)[:, :ch]
    cells = area.transpose(0, 2, 1, 3)
    exact = area.dtype in (np.dtype(bool), np.dtype(np.uint8))
    if exact:
        pixels: Glyphs = area
        keys = _keys(pixels, geometry.cell)
        full = np.uint64(255 if area.dtype == np.uint8 else 1)
        total = (_weights(geometry.cell)[0] * full).sum(dtype=np.uint64)
        first = _exact(keys[:, 0], lambda i: pixels[i, :, 0, :], font)
    else:
        first = _nearest(cells[:, 0].reshape(rows, -1).astype(np.float32), geometry.cell)
    kinds = np.full(rows, TEXT, dtype=np.int8)
    kinds[first == font.continuation] = CONTINUATION
    kinds[first == font.header] = HEADER
    kinds[first == font.end] = END
    grid = np.empty((rows, cols), dtype=np.int32)
    grid[:, 0] = first
    for inverted in (False, True):
        if inverted and geometry.header != "bar":
            continue
        bar_rows = kinds == HEADER if geometry.header == "bar" else np.zeros(rows, dtype=bool)
        chosen = np.flatnonzero(bar_rows if inverted else ~bar_rows)
        if not len(chosen):
            continue
        if exact:
            def cells_at(i: Index, chosen: Index = chosen, inverted: bool = inverted) -> Glyphs:
                found = pixels[chosen[i // (cols - 1)], :, 1 + i % (cols - 1), :]
                return ~found if inverted else found

            part_keys = keys[chosen, 1:].ravel()
            found = _exact(total - part_keys if inverted else part_keys, cells_at, font)
        else:
            values = cells[chosen, 1:].astype(np.float32).reshape(len(chosen) * (cols - 1), -1)
            found = _nearest(1.0 - values if inverted else values, geometry.cell)
        grid[chosen, 1:] = found.reshape(-1, cols - 1)
    ended = np.flatnonzero(kinds == END)
    if len(ended):
        kinds[ended[0] + 1:] = UNUSED
    return grid, kinds


@dataclass(frozen=True, slots=True)
class Decoded:
    """What pages say, read from pixels: each message's header label and text."""

    turns: tuple[tuple[str | None, str], ...]

    @property
    def text(self) -> str:
        """The text of a render without headers (messages joined by newlines otherwise)."""
        return "\n".join(text for _, text in self.turns)


def decode(images: Sequence[Image.Image | Glyphs | Floats | Page], geometry: Geometry,
           resample: Image.Resampling = Image.Resampling.BICUBIC) -> Decoded:
    """Text of pages read from their pixels (``Page`` objects are read from their pixels too).

    Args:
        images: The pages, as images, pixel arrays or ``Page`` objects.
        geometry: The page and glyph cell they were rendered in.
        resample: The filter that brings a resized page back to the page's size before reading.

    Returns:
        The text read, page by page."""
    font = load(geometry.cell)
    chars = np.array(font.chars, dtype=object)
    chars[font.trailing] = " "
    chars[font.uncovered] = UNCOVERED_CHAR
    mark = font.break_glyph(geometry.break_mark)
    turns: list[tuple[str | None, list[str]]] = []
    segments: list[Ids] = []

    def finish_line() -> None:
        if not segments:
            return
        last = segments[-1]
        inked = np.flatnonzero(last != font.blank)
        segments[-1] = last[: inked[-1] + 1] if len(inked) else last[:0]
        ids = np.concatenate(segments)
        segments.clear()
        if not turns:
            turns.append((None, []))
        lines = np.split(ids, np.flatnonzero(ids == mark)) if geometry.reflow else [ids]
        for k, line in enumerate(lines):
            turns[-1][1].append(_line_text(line[1:] if k else line, chars, font, geometry.tab_size))

    for image in images:
        pixels = (image.levels if font.grey else image.ink) if isinstance(image, Page) else image
        grid, kinds = read(pixels, geometry, resample)
        for row, kind in zip(grid, kinds, strict=True):
            if kind in (END, UNUSED):
                break
            if kind == HEADER:
                finish_line()
                label = "".join(cell_text(row[1:], chars, font)).strip()
                turns.append((label, []))
            elif kind == CONTINUATION:
                segments.append(row[1:])
            elif geometry.reflow and segments:
                segments.append(row)
            else:
                finish_line()
                segments.append(row)
    finish_line()
    return Decoded(tuple((label, "\n".join(lines)) for label, lines in turns))


def cell_text(ids: Ids, table: npt.NDArray[np.object_], font: Font) -> list[str]:
    """What each cell of a run of cells shows (``table``: glyph id → text): a wide character in its
    left cell, ``""`` in its right one; half of a wide character whose other half is not beside it
    (cut off by a misread) shows the uncovered mark's text."""
    shown: list[str] = table[ids].tolist()
    if not len(font.half) or not font.half[ids].any():
        return shown
    position = 0
    while position < len(ids):
        glyph = int(ids[position])
        if font.half[glyph]:
            after = int(ids[position + 1]) if position + 1 < len(ids) else font.blank  # a blank right half trimmed
            if (char := font.pairs.get((glyph, after))) is not None:
                shown[position] = char
                if position + 1 < len(ids):
                    shown[position + 1] = ""
                position += 2
                continue
            if position and ids[position - 1] == font.blank and (char := font.pairs.get((font.blank, glyph))):
                shown[position - 1], shown[position] = char, ""  # a wide character with a blank left half
            else:
                shown[position] = table[font.uncovered]
        position += 1
    return shown


def _line_text(ids: Ids, chars: npt.NDArray[np.object_], font: Font, tab_size: int) -> str:
    shown = cell_text(ids, chars, font)
    if font.tab not in ids:
        return "".join(shown)
    out: list[str] = []
    skip = 0
    for position, glyph in enumerate(ids):
        if skip:
            skip -= 1
            continue
        if glyph == font.tab:
            out.append("\t")
            skip = tab_size - position % tab_size - 1
        else:
            out.append(shown[position])
    return "".join(out)
