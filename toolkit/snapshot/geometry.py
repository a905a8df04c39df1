"""Page geometry: the glyph cell, the page, its text columns, and the best page for each provider.

A page is billed flat or by area, never by the characters on it, and a provider that resizes a page
before its model sees it destroys glyphs a few pixels high when it shrinks them. So
``geometry_for(model)`` takes the provider's resize and token rule from ``toolkit.costs``, keeps
only the pages the model sees exactly as sent, and among them picks the page size and number of
text columns with the most characters per image token on transcript-shaped text
(``REFERENCE_LINES``, or a ``sample``): half of all transcript lines are short, so one column as
wide as the page would leave most of it empty. Columns are never narrower than ``MIN_COLUMN_CELLS``;
pages within ``TIE`` of the best count as equal and the largest wins (fewer images per request).

Per family (4x6 cells; the numbers are what the search finds, see ``PRESET_MODELS``):

- **Anthropic** (area: ``ceil(w/28)*ceil(h/28)`` visual tokens; resized past 1568 px / 1568 tokens,
  or 2576 px / 4784 tokens on the high-resolution tier): a page that nearly fills the tier's token
  budget (1024x1174 = 1554 tokens on the standard tier), in five columns. A larger page buys nothing
  but a resize.
- **OpenAI patch models** (area: 32-px patches times a multiplier, shrunk past the detail level's
  patch budget): a page within the budget of the level ``auto`` means (gpt-5.4: 2,500 patches).
- **OpenAI tile models** (``base + per_tile * tiles``, shortest side scaled to 768): the longest page
  allowed, so the fixed base spreads over the most tiles (gpt-4o: 2000x508, four 512-px tiles).
- **Gemini 2.x, Developer API** (a flat 258 per image whatever its size, measured from reported
  usage): the encoder works at one fixed size, assumed to be the 768-px square its tiling documents
  name, so the page is the 768x768 square that holds the most text; anything larger is shrunk.
- **Gemini 3** (flat: one ceiling per ``media_resolution`` level whatever the size): the page that
  holds the most text at the size the encoder works at, an assumed box at the 2.x pixels per token.

Where the size a model sees is assumed rather than documented, ``Preset.seen_evidence`` says so.

Two layout options change how a page looks, never how much it holds (the page search ignores them):
``row_rule`` draws a faint rule in the gap between rows, and ``header`` draws each message's header
row either as an inverted black bar (``"bar"``) or as plain text underlined (``"rule"``). Both rules
sit in the gap ``line_spacing`` leaves below a row, so they need ``line_spacing >= 1`` and never touch
a glyph: the page still reads back exactly. At their defaults a page is the very page it was before
the options existed (and ``repr`` leaves them out, so ids derived from it do not move).

``reflow`` changes how much a page holds: a message's source lines run on across rows, every row
full, each line break drawn as the line-break mark (``break_mark``, one of ``font.BREAK_MARKS``) in
the cell the break takes. Indentation is kept as drawn: every leading space is a cell, a tab its mark
and fill to the next stop of its own line, so code reads back exactly and nothing is collapsed. Off in
a ``Geometry`` by default and here (the presets of ``toolkit.snapshot.tradeoff`` reflow); the page
search (``preset(..., reflow=True)``) then counts rows as the cells over the row width. ``gutter`` and
``columns`` fix the pixels between text columns and their number instead of the search's own.

A gateway-served model follows the model id its route names (``openrouter/anthropic/claude-sonnet-4.5``
is Claude Sonnet 4.5): ``toolkit.costs.resolve`` strips the route. No page side exceeds
``MAX_PAGE_SIDE``.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from toolkit.costs import Evidence, ImageCost, Source, image_tokens, resolve
from toolkit.errors import InvalidInput
from toolkit.snapshot.font import BREAK_MARKS, break_mark, cells, load, parse_cell

Pricing = Literal["flat", "area"]
HeaderStyle = Literal["bar", "rule"]
HEADER_STYLES: tuple[HeaderStyle, ...] = ("bar", "rule")
"""How a message's header row is drawn: inverted into a black bar, or as plain text with a rule under it."""

MAX_PAGE_SIDE = 2000
"""No page side beyond 2000 px: Anthropic rejects larger images in requests of more than 20 images
("stay ≤ 2000 px per side to be safe", https://platform.claude.com/docs/en/build-with-claude/vision,
read 2026-07-13), and a snapshot of a long history is such a request. Under area pricing a larger
page only saves margins."""
MIN_PAGE_SIDE = 64
GUTTER = 5
"""Pixels between text columns; a one-pixel rule runs down the middle."""

def header_style(name: str) -> HeaderStyle:
    """``name`` as a header style, or a ``ValueError`` naming the styles."""
    for style in HEADER_STYLES:
        if name == style:
            return style
    raise InvalidInput(f"no header style {name!r}; styles: {', '.join(HEADER_STYLES)}")


@dataclass(frozen=True, slots=True)
class Geometry:
    """A page layout: the glyph cell, the page in pixels, its margin, the extra pixels between
    rows, and how many text columns share the page (``gutter`` pixels apart, a rule between them).
    Tabs expand to stops every ``tab_size`` cells. ``row_rule`` draws a faint rule in the gap
    between rows (light grey, 200/255, on a greyscale cell's 8-bit page; dotted, every other pixel,
    on a 1-bit page, which has no grey); ``header`` draws each message's header row as an inverted
    bar (``"bar"``) or as plain text with a solid rule under it (``"rule"``; the row still starts
    with the header mark, so the page reads back). Both rules need ``line_spacing >= 1``.
    ``reflow`` runs a message's lines on across full rows, each break drawn as the line-break mark
    named by ``break_mark`` (``font.BREAK_MARKS``)."""

    cell: str = "4x6"
    width: int = 1092
    height: int = 1092
    margin: int = 2
    line_spacing: int = 0
    tab_size: int = 4
    columns: int = 1
    gutter: int = GUTTER
    row_rule: bool = False
    header: HeaderStyle = "bar"
    reflow: bool = False
    break_mark: str = BREAK_MARKS[0].name

    def __post_init__(self) -> None:
        if self.cell not in cells():
            raise InvalidInput(f"no glyph cell {self.cell!r}; cells: {', '.join(cells())}")
        if self.margin < 0 or self.line_spacing < 0 or self.tab_size < 1 or self.columns < 1 or self.gutter < 0:
            raise InvalidInput(f"margin, line spacing, gutter must be >= 0, tab size and columns >= 1: {self}")
        header_style(self.header)
        break_mark(self.break_mark)
        if (self.row_rule or self.header == "rule") and self.line_spacing < 1:
            raise InvalidInput(f"a row rule or a ruled header sits in the gap between rows: line spacing must be "
                             f">= 1: {self}")
        if self.cols < 8 or self.rows < 2:
            raise InvalidInput(f"a {self.width}x{self.height} page in {self.columns} column(s) holds {self.cols}x{self.rows} "
                             f"cells of {self.cell} per column; at least 8 columns of cells and 2 rows are needed")

    def __repr__(self) -> str:
        """The dataclass form, leaving out layout options at their defaults: a page's PNG cache key
        and a snapshot's id are derived from it and must not move for pages drawn as before."""
        shown = [f"{name}={getattr(self, name)!r}" for name in (
            "cell", "width", "height", "margin", "line_spacing", "tab_size", "columns", "gutter")]
        if self.row_rule:
            shown.append(f"row_rule={self.row_rule!r}")
        if self.header != "bar":
            shown.append(f"header={self.header!r}")
        if self.reflow:
            shown.append(f"reflow={self.reflow!r}")
        if self.break_mark != BREAK_MARKS[0].name:
            shown.append(f"break_mark={self.break_mark!r}")
        return f"Geometry({', '.join(shown)})"

    @property
    def cell_width(self) -> int:
        return parse_cell(self.cell)[0]

    @property
    def cell_height(self) -> int:
        return load(self.cell).height

    @property
    def pitch(self) -> int:
        """Pixels from one row of cells to the next."""
        return self.cell_height + self.line_spacing

    @property
    def cols(self) -> int:
        """Cells across one text column."""
        return (self.width - 2 * self.margin - (self.columns - 1) * self.gutter) // self.cell_width // self.columns

    @property
    def rows(self) -> int:
        """Rows of cells down one text column."""
        return (self.height - 2 * self.margin + self.line_spacing) // self.pitch

    @property
    def lines(self) -> int:
        """Rows on a page: every text column's rows, in reading order."""
        return self.rows * self.columns

    @property
    def capacity(self) -> int:
        """Cells on a page: the most characters it can hold."""
        return self.cols * self.lines

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    def column_x(self, column: int) -> int:
        """Left pixel of a text column.

        Args:
            column: The text column, 0 for the leftmost.

        Returns:
            Its left edge in pixels.
        """
        return self.margin + column * (self.cols * self.cell_width + self.gutter)

    def with_page(self, width: int, height: int) -> Geometry:
        """The same layout on a page of another size, as a command's ``--page`` asks for.

        Args:
            width: The page's width in pixels.
            height: The page's height in pixels.

        Returns:
            The new geometry.
        """
        return replace(self, width=width, height=height)

    def with_cell(self, cell: str) -> Geometry:
        """The same layout in another cell (font and size), for comparing cells on one page.

        Args:
            cell: A cell name from ``toolkit.snapshot.cells()``.

        Returns:
            The new geometry.
        """
        return replace(self, cell=cell)


@dataclass(frozen=True, slots=True)
class Seen:
    """What a model does to a page before it sees it."""

    size: tuple[int, int]
    """The size the model's encoder works at (``toolkit.costs``: documented, measured or assumed)."""
    evidence: Evidence
    """How the size is known."""
    source: Source
    cost: ImageCost

    @property
    def documented(self) -> bool:
        return self.evidence == "documented"

    @property
    def downscaled(self) -> bool:
        return self.size[0] < self.cost.width or self.size[1] < self.cost.height


def seen(width: int, height: int, model: str) -> Seen:
    """The page as ``model`` sees it, with how that is known.

    Args:
        width: The page's width in pixels, as sent.
        height: The page's height in pixels, as sent.
        model: The model that reads it.

    Returns:
        The size the model sees, how that is known (documented, measured or assumed) and its source,
        and the image's token cost."""
    cost = image_tokens(width, height, model)
    return Seen(cost.resized, cost.seen_evidence, cost.seen_source, cost)


@dataclass(frozen=True, slots=True)
class Preset:
    """The page ``geometry_for`` chose for a model, and why."""

    model: str
    family: str
    geometry: Geometry
    pricing: Pricing
    tokens: int
    """Image tokens of one full page."""
    chars_per_token: float
    """Characters per image token of transcript-shaped text (``REFERENCE_LINES``, or the sample)."""
    capacity_per_token: float
    """Cells per image token: the ceiling, reached only by text without short lines."""
    rule: str
    source: Source
    seen_evidence: Evidence
    """How the size the model sees the page at is known (documented, measured or assumed)."""
    note: str

    @property
    def resize_documented(self) -> bool:
        return self.seen_evidence == "documented"


def pricing(model: str) -> Pricing:
    """Flat when the token count of a page does not depend on its size."""
    sizes = ((256, 256), (512, 384), (1024, 1024))
    counts = {image_tokens(w, h, model).tokens for w, h in sizes}
    return "flat" if len(counts) == 1 else "area"


def geometry_for(model: str, cell: str = "4x6", *, margin: int = 2, line_spacing: int = 0,
                 max_side: int = MAX_PAGE_SIDE, sample: str | None = None) -> Geometry:
    """The page for ``model`` that the provider does not downscale and that gives the most
    characters per image token (see the module docstring for the choice per family). With a
    ``sample`` text the count is of that text as laid out (short lines leave row ends empty, so
    real text favours narrower pages); without, it is the page's capacity."""
    return preset(model, cell, margin=margin, line_spacing=line_spacing, max_side=max_side, sample=sample).geometry


Lengths = tuple[tuple[int, int], ...]

REFERENCE_LINES: tuple[int, ...] = (
    0, 0, 0, 0, 0, 1, 2, 4, 7, 7, 9, 11, 13, 14, 16, 18, 20, 22, 23, 25, 27, 28, 30, 32, 34, 36, 38, 40,
    42, 44, 47, 49, 51, 54, 57, 60, 62, 66, 70, 74, 78, 82, 88, 96, 106, 120, 136, 170, 244, 692,
)
"""Line lengths of agent transcripts, the 1st to 99th percentile in 50 steps: measured with
``line_lengths`` on the prose text of every message of the shared corpora (26 files, 35,698 lines,
2026-11-29). Half the lines are shorter than 36 characters, so a page as wide as a provider allows
would be mostly empty; ``geometry_for`` lays this text out to choose the page and its columns."""


def line_lengths(text: str, tab_size: int = 4) -> Lengths:
    """(cells, how many lines) of ``text``'s lines (``line_cells``): all the layout needs."""
    counts = Counter(line_cells(line, tab_size) for line in text.split("\n"))
    return tuple(sorted(counts.items()))


def line_cells(line: str, tab_size: int = 4) -> int:
    """Cells a line takes as a page draws it: an East Asian Wide or Fullwidth character two (the
    preset cell draws it two cells wide; a cell without wide glyphs shows one uncovered mark, one
    cell fewer than counted), a tab up to the next stop of the cells before it."""
    if line.isascii():
        return len(line.expandtabs(tab_size))
    column = 0
    for char in line:
        if char == "\t":
            column += tab_size - column % tab_size
        else:
            column += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return column


REFERENCE: Lengths = tuple(sorted(Counter(REFERENCE_LINES).items()))


def rows_needed(lengths: Lengths, cols: int) -> int:
    """Rows a text takes at ``cols`` cells per row: a wrapped row starts with the continuation mark."""
    length = np.array([item[0] for item in lengths], dtype=np.int64)
    count = np.array([item[1] for item in lengths], dtype=np.int64)
    return int(_rows(length, count, np.array([cols], dtype=np.int64))[0])


def _rows(length: npt.NDArray[np.int64], count: npt.NDArray[np.int64],
          cols: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Rows the text takes at each row width of ``cols`` (all widths in one pass: the page search
    asks for every column count of a page at once)."""
    widths = cols[:, None]
    wraps = np.where(length > widths, (length - widths + widths - 2) // (widths - 1), 0)
    rows: npt.NDArray[np.int64] = (count * (1 + wraps)).sum(axis=1)
    return rows


def preset(model: str, cell: str = "4x6", *, margin: int = 2, line_spacing: int = 0,
           max_side: int = MAX_PAGE_SIDE, sample: str | None = None, reflow: bool = False,
           break_mark: str = BREAK_MARKS[0].name, gutter: int = GUTTER, columns: int | None = None) -> Preset:
    """``geometry_for`` with the numbers behind the choice (``reflow``: for reflowed rows, their breaks
    drawn as ``break_mark``; ``gutter``: pixels between text columns; ``columns``: that many text
    columns, the page chosen for them, instead of the count the search finds best)."""
    family = resolve(model).family.name
    lengths = REFERENCE if sample is None else line_lengths(sample)
    if columns is not None and columns < 1:
        raise InvalidInput(f"a page has at least one text column, not {columns}")
    width, height, count, score = _search(family, cell, margin, line_spacing, max_side, lengths, reflow, gutter,
                                          columns)
    geometry = Geometry(cell, width, height, margin, line_spacing, columns=count, gutter=gutter, reflow=reflow,
                        break_mark=break_mark)
    view = seen(geometry.width, geometry.height, family)
    kind = pricing(family)
    note = ("flat price: the page the model sees at full size that holds the most text" if kind == "flat"
            else "area price: the page with the most characters per token within the resize limits")
    return Preset(
        model=model, family=family, geometry=geometry, pricing=kind, tokens=view.cost.tokens,
        chars_per_token=score, capacity_per_token=geometry.capacity / view.cost.tokens, rule=view.cost.rule,
        source=view.source, seen_evidence=view.evidence, note=note,
    )


def _sides(low: int, high: int, margin: int, unit: int, offset: int, step_px: int) -> list[int]:
    """Cell-aligned page sides (``2*margin + k*unit - offset``) from ``low`` to ``high``, about
    ``step_px`` apart."""
    out: list[int] = []
    k = max(1, math.ceil((low - 2 * margin + offset) / unit))
    stride = max(1, step_px // unit)
    while (side := 2 * margin + k * unit - offset) <= high:
        out.append(side)
        k += stride
    return out


MIN_COLUMN_CELLS = 48
"""Text columns are never narrower than 48 cells, so code and paths wrap rarely."""
COLUMN_COUNTS = np.arange(1, 64, dtype=np.int64)
"""Text columns a page may be split into."""
TIE = 0.99
"""Pages within 1% of the best characters per token count as equal and the largest wins: area
pricing makes many small pages cost about the same, but requests limit the number of images
(Anthropic: at most 100 images per API request for models with a 200k-token context window,
https://platform.claude.com/docs/en/build-with-claude/vision, page text as captured 2026-07-13)."""


@functools.cache
def _search(family: str, cell: str, margin: int, line_spacing: int, max_side: int,
            lengths: Lengths, reflow: bool = False, gutter: int = GUTTER,
            columns_only: int | None = None) -> tuple[int, int, int, float]:
    """Page size and text columns with the most characters of ``lengths``-shaped text per token
    among the pages the model sees exactly as sent (``toolkit.costs`` reports no shrink); within ``TIE`` of the best, the larger page (fewer
    images). A coarse grid (cell-aligned sides and multiples of 32 px, where provider limits
    fall), then every cell-aligned size near the best, then every size within a
    few pixels (a provider's limit need not fall on a cell boundary). Returns width, height,
    columns and the characters per token."""
    cw = parse_cell(cell)[0]
    pitch = load(cell).height + line_spacing
    counts = COLUMN_COUNTS if columns_only is None else np.array([columns_only], dtype=np.int64)
    chars = sum(length * count for length, count in lengths) + sum(count for _, count in lengths)
    line_length = np.array([item[0] for item in lengths], dtype=np.int64)
    line_count = np.array([item[1] for item in lengths], dtype=np.int64)

    layouts: dict[int, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}

    def layout(w: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Cells per row, column counts and rows the text takes, for every column count that fits
        a page ``w`` wide (the same for every height)."""
        if w not in layouts:
            cols = (w - 2 * margin - (counts - 1) * gutter) // cw // counts
            fitting = int(np.count_nonzero(cols >= MIN_COLUMN_CELLS))  # cols falls as columns rise
            cols = cols[:fitting]
            needed = -(-chars // cols) if reflow else _rows(line_length, line_count, cols)
            layouts[w] = cols, counts[:fitting], needed
        return layouts[w]

    def score(w: int, h: int) -> tuple[float, int, int] | None:
        try:
            view = seen(w, h, family)
        except ValueError:
            return None
        if view.size != (w, h):
            return None
        rows = (h - 2 * margin + line_spacing) // pitch
        cols, columns, needed = layout(w)
        if rows < 2 or not len(cols):
            return None
        per_token = chars / (needed / (rows * columns) * view.cost.tokens)
        best = int(np.argmax(per_token))  # the fewest columns among equals
        return float(per_token[best]), int(cols[best] * rows * columns[best]), int(columns[best])

    results: dict[tuple[int, int], tuple[float, int, int]] = {}

    def sweep(widths: list[int], heights: list[int]) -> None:
        for w in widths:
            for h in heights:
                if (w, h) not in results and (found := score(w, h)) is not None:
                    results[(w, h)] = found

    round_sides = list(range(MIN_PAGE_SIDE, max_side + 1, 32))
    sweep(sorted({*_sides(MIN_PAGE_SIDE, max_side, margin, cw, 0, 32), *round_sides}),
          sorted({*_sides(MIN_PAGE_SIDE, max_side, margin, pitch, line_spacing, 32), *round_sides}))
    if not results:
        split = "" if columns_only is None else f" in {columns_only} columns of {MIN_COLUMN_CELLS} cells or more"
        raise InvalidInput(f"{family}: no page of {cell} cells up to {max_side} px{split} is seen at full size")
    for _ in range(2):
        (bw, bh), _best = max(results.items(), key=lambda item: item[1])
        sweep(_sides(max(MIN_PAGE_SIDE, bw - 40), min(max_side, bw + 40), margin, cw, 0, 1),
              _sides(max(MIN_PAGE_SIDE, bh - 40), min(max_side, bh + 40), margin, pitch, line_spacing, 1))
    (bw, bh), _best = max(results.items(), key=lambda item: item[1])
    sweep(list(range(max(MIN_PAGE_SIDE, bw - 12), min(max_side, bw + 12) + 1)),
          list(range(max(MIN_PAGE_SIDE, bh - 12), min(max_side, bh + 12) + 1)))
    top = max(value[0] for value in results.values())
    (width, height), (value, _capacity, columns) = max(
        ((size, v) for size, v in results.items() if v[0] >= TIE * top), key=lambda item: (item[1][1], item[0]))
    return width, height, columns, value


PRESET_MODELS: tuple[str, ...] = (
    "claude-sonnet-4.5", "claude-opus-4.7", "gpt-4o", "gpt-5.4", "gemini-2.5-flash", "gemini-3-pro",
)
"""One model per image rule: Claude standard and high-resolution tiers, OpenAI tiles and patches,
Gemini 2.x (a flat 258 on the Developer API) and Gemini 3 flat pricing."""
