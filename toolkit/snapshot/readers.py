"""Independent readers: OCR engines no one on this project wrote, reading pages as a model receives them.

The atlas decode in ``render.read`` matches each cell against the very bitmaps that drew it, so it
proves only that the pixels survive the provider's resize; it cannot tell that ``m`` and ``n`` are a
blur apart at 4x6. A reader that has never seen our font can. Two engines, chosen because both run
offline (RapidOCR's weights ship inside its wheel; tesseract is a system package) and read code and log
text:

- **RapidOCR** (``rapidocr-onnxruntime``, PP-OCRv4 recognition weights inside the wheel): its
  recogniser alone, one text row at a time (the row boxes are known from the layout, so no detector
  guesses them). A Python dependency, so it is always there.
- **tesseract** (``pytesseract`` and the ``tesseract`` binary, where installed): one text column at a
  time (over a whole multi-column page it interleaves the columns), ``--psm 6``.

Each reader gets the page as the provider's encoder receives it (resized to the size
``toolkit.costs`` says the model sees), with the snapshot's own marks and header bars blanked
(``unread``: they are layout, not text), then enlarged (``RESAMPLE``) so a row is ``ROW_HEIGHT``
pixels high with a border of half a row: both engines were trained on text about that size. The
enlargement adds no detail the model did not get; it only brings the rows to the size the engines read.

The character error rate is the edit distance between what a page shows and what the reader read,
per row (RapidOCR) or per column (tesseract), over the characters shown, with whitespace left
out on both sides and the reader's output NFKC-normalised (RapidOCR's Chinese-trained
recogniser returns full-width punctuation such as ``，`` for ``,``). The readers' own floor is not
zero: ``control`` draws the same rows in DejaVu Sans Mono 16 px, which both engines read at about
1.5-2.7% CER on the shared corpora's agent text (code-heavy, with Greek and Cyrillic the engines do not
know), so an excess over the control is the fair figure.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import shutil
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont, ImageOps

from toolkit.errors import InvalidInput
from toolkit.snapshot.font import BREAK_MARKS, FONTS, MARKS, Font, break_mark, load
from toolkit.snapshot.geometry import line_cells
from toolkit.snapshot.render import CONTINUATION, TEXT, Page, cell_text

ROW_HEIGHT = 24
"""Pixels per text row handed to a reader (after the provider's resize, enlarged bicubically).
Tried 24, 32, 40 and 48: RapidOCR rescales every row to 48 px itself and read them alike; tesseract
read 24 best (7x14 cells: 7.9% against 8.8% at 40)."""

RESAMPLE = Image.Resampling.BICUBIC
"""Enlargement filter. Bicubic read better than Lanczos with both engines on 3,200 characters of
agent text (tesseract at 4x6: 33% against 36%; at 7x14: 7.9% against 9.6%), bilinear about as well."""

CONTROL_FONT = FONTS / "DejaVuSansMono.ttf"
"""DejaVu Sans Mono (Bitstream Vera licence, ``fonts/LICENSE.txt``), shipped so the control is the
same on every machine."""
CONTROL_SIZE = 16
"""Pixel size of the control rows: the size at which both readers reach their floor on agent text."""


@dataclass(frozen=True, slots=True)
class Strip:
    """One text column of a page as the model receives it: its pixels and the rows it shows."""

    image: Image.Image
    """Greyscale, already resized as the provider resizes the page."""
    lines: tuple[str, ...]
    """What each row shows (the snapshot's marks as spaces)."""
    pitch: float
    """Pixels from one row to the next in ``image``."""
    advance: float
    """Pixels from one cell to the next across a row in ``image``."""

    def row(self, index: int) -> Image.Image:
        """One row, cut one cell past its text (an engine's time grows with the width it reads, and
        half of all transcript lines are short)."""
        right = min(self.image.width, round((span(self.lines[index]) + 1) * self.advance))
        bottom = min(self.image.height, round((index + 1) * self.pitch))
        return self.image.crop((0, min(bottom - 1, round(index * self.pitch)), right, bottom))


@dataclass(frozen=True, slots=True)
class Reading:
    """One reader's reading of some pages."""

    reader: str
    """Engine and version, e.g. ``rapidocr-onnxruntime 1.4.4``."""
    chars: int
    """Characters shown (whitespace not counted)."""
    errors: int
    """Character edits from what was shown to what was read."""

    @property
    def cer(self) -> float:
        """Character error rate, 0-1 (it can exceed 1 when a reader invents text); NaN when nothing
        was shown to read (a page of characters the font cannot draw)."""
        return self.errors / self.chars if self.chars else math.nan


def span(line: str) -> int:
    """Cells a row of text takes (``geometry.line_cells``: two for an East Asian Wide or Fullwidth
    character, at most one more than drawn, for a wide character the cell cannot draw)."""
    return line_cells(line)


class Reader(Protocol):
    """An OCR engine: reads the rows of one strip and says how far its reading is from them."""

    @property
    def name(self) -> str: ...

    def errors(self, strip: Strip) -> tuple[int, int]:
        """(characters shown, edits) for one strip."""
        ...

    def text(self, strip: Strip) -> str:
        """What the engine reads in the strip, for callers that look for something on a page."""
        ...


BREAK_SHOWN = BREAK_MARKS[0].shape
"""What a reflowed row's default line-break mark shows a reader (``page_lines``). Every break mark
(``font.BREAK_MARKS``) is shown as its ``shape``, the one reading of an engine that restores a line
break: an engine that reads the shape there has seen the break; anything else it reads in that place
(``-``, ``_``, nothing) is an edit, so a lost break counts in the error. The control rows draw the
same shape. A ``shape`` of the text itself reads as a break too (the atlas decode tells the two
apart; an engine cannot, as the mark is that shape moved a pixel or two)."""


def normalise(text: str) -> str:
    """What a comparison sees: NFKC, no whitespace. Both engines drop and insert spaces in
    monospace text ("Dr David" read as "DrDavid"); counted, spaces alone put the control font's
    error at 3.4% (tesseract) where it is 1.4% without them."""
    return "".join(unicodedata.normalize("NFKC", text).split())


def restored(reading: str, mark: str = BREAK_MARKS[0].name) -> str:
    """An engine's reading of reflowed rows with its line breaks restored (the shape of the break
    mark called ``mark`` back to a newline): the text a reader recovers from them."""
    return reading.replace(break_mark(mark).shape, "\n")


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row at a time."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    source = np.frombuffer(a.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    target = np.frombuffer(b.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    steps = np.arange(len(b) + 1, dtype=np.int64)
    previous = steps.copy()
    for i, code in enumerate(source, 1):
        current = np.empty_like(previous)
        current[0] = i
        current[1:] = np.minimum(previous[:-1] + (target != code), previous[1:] + 1)
        previous = np.minimum.accumulate(current - steps) + steps
    return int(previous[-1])


def enlarge(image: Image.Image, pitch: float, row_height: int = ROW_HEIGHT,
            resample: Image.Resampling = RESAMPLE) -> Image.Image:
    """``image`` with a white border of half a row, scaled so one row is ``row_height`` pixels high
    (never shrunk). Both engines misread rows cut flush to the glyphs: on 4x6 rows RapidOCR's error
    fell from about 60% to 18% with the border."""
    border = max(2, round(pitch / 2))
    framed = ImageOps.expand(image, border=border, fill=255)
    scale = max(1.0, row_height / pitch)
    if scale == 1.0:
        return framed
    size = (max(1, round(framed.width * scale)), max(1, round(framed.height * scale)))
    return framed.resize(size, resample)


class RapidOcr:
    """RapidOCR's recogniser, one row at a time (the layout gives the row boxes)."""

    def __init__(self, row_height: int = ROW_HEIGHT) -> None:
        self.row_height = row_height

    @property
    def name(self) -> str:
        return f"rapidocr-onnxruntime {version('rapidocr-onnxruntime')}"

    def errors(self, strip: Strip) -> tuple[int, int]:
        chars = errors = 0
        for line, got in zip(strip.lines, self.rows(strip), strict=True):
            shown = normalise(line)
            if shown:
                chars += len(shown)
                errors += edit_distance(shown, normalise(got))
        return chars, errors

    def rows(self, strip: Strip) -> list[str]:
        """What the recogniser reads in each row of a strip (``""`` for a row that shows nothing):
        the text itself, for callers that look for something on a page rather than count errors."""
        shown = [i for i, line in enumerate(strip.lines) if normalise(line)]
        if not shown:
            return [""] * len(strip.lines)
        crops = [np.asarray(enlarge(strip.row(i), strip.pitch, self.row_height).convert("RGB"))[:, :, ::-1]
                 for i in shown]
        read_as = dict(zip(shown, _recognise(crops), strict=True))
        return [read_as.get(i, "") for i in range(len(strip.lines))]

    def text(self, strip: Strip) -> str:
        return "\n".join(self.rows(strip))


@functools.cache
def _rapid_engine() -> object:
    """The engine on one thread: ONNX Runtime's pool otherwise spins a thread per core, and beside
    other work (a test run's second worker, a notebook kernel next to its client) the spinning
    threads fight for the cores (``benchmarks/bench_ocr.py`` times both settings)."""
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)


def _recognise(crops: list[np.ndarray]) -> list[str]:
    """Text of each row image (BGR arrays), through the recogniser alone, in batches."""
    engine = _rapid_engine()
    results, _elapsed = engine.text_rec(crops)  # type: ignore[attr-defined]
    return [str(text) for text, _score in results]


class Tesseract:
    """tesseract over one text column at a time (``--psm 6``: a block of uniform text)."""

    def __init__(self, row_height: int = ROW_HEIGHT, resample: Image.Resampling = RESAMPLE) -> None:
        self.row_height = row_height
        self.resample = resample

    @property
    def name(self) -> str:
        import pytesseract

        return f"tesseract {pytesseract.get_tesseract_version()}"

    def errors(self, strip: Strip) -> tuple[int, int]:
        shown = normalise(" ".join(strip.lines))
        if not shown:
            return 0, 0
        return len(shown), edit_distance(shown, normalise(self.text(strip)))

    def text(self, strip: Strip) -> str:
        import pytesseract

        if not normalise(" ".join(strip.lines)):
            return ""
        widest = max(span(line) for line in strip.lines) + 1
        block = strip.image.crop((0, 0, min(strip.image.width, round(widest * strip.advance)), strip.image.height))
        with _one_thread():
            return str(pytesseract.image_to_string(enlarge(block, strip.pitch, self.row_height, self.resample),
                                                   config="--psm 6"))


@contextmanager
def _one_thread() -> Iterator[None]:
    """tesseract single-threaded unless the caller chose ``OMP_THREAD_LIMIT``: its OpenMP threads
    spin against each other and against any busy core, so one small strip takes seconds where one
    thread takes a fraction of that (tesseract-ocr/tesseract#3109 and #898; ``bench_ocr`` measures
    the same for RapidOCR's thread pool). pytesseract passes this process's environment to the
    binary, so the limit is set for the call only."""
    if "OMP_THREAD_LIMIT" in os.environ:
        yield
        return
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        os.environ.pop("OMP_THREAD_LIMIT", None)


def tesseract_available() -> bool:
    try:
        import pytesseract
    except ImportError:
        return False
    return shutil.which(pytesseract.pytesseract.tesseract_cmd) is not None


def readers(names: Iterable[str] = ("rapidocr", "tesseract")) -> list[Reader]:
    """The named readers that can run here (tesseract needs its binary; RapidOCR is a dependency)."""
    found: list[Reader] = []
    for name in names:
        match name:
            case "rapidocr":
                found.append(RapidOcr())
            case "tesseract":
                if tesseract_available():
                    found.append(Tesseract())
            case _:
                raise InvalidInput(f"no reader {name!r}; readers: rapidocr, tesseract")
    return found


@functools.cache
def shown_chars(cell: str) -> npt.NDArray[np.object_]:
    """Glyph id → the character a cell shows, the snapshot's marks as spaces, each break mark as its shape."""
    font = load(cell)
    chars = list(font.chars)
    for mark in MARKS:
        chars[getattr(font, mark)] = " "
    for shown, glyph in zip(BREAK_MARKS, font.breaks, strict=True):
        chars[glyph] = shown.shape
    return np.array(chars, dtype=object)


def page_lines(page: Page) -> list[str]:
    """Every row of a page in reading order, the snapshot's marks as spaces and a reflowed row's
    line breaks as their mark's shape (``BREAK_SHOWN`` by default); header, end and unused rows empty (``unread`` blanks them before
    a reader sees the page)."""
    table = shown_chars(page.geometry.cell)
    font = load(page.geometry.cell)
    text_rows = np.isin(page.kinds, (TEXT, CONTINUATION))
    lines = [cell_text(row, table, font) if shown else [] for row, shown in zip(page.grid, text_rows, strict=True)]
    if len(font.half):
        for index in np.flatnonzero(text_rows[:-1] & text_rows[1:]):
            _rejoin(lines, page.grid, int(index), font, page.kinds[index + 1] == CONTINUATION)
    return ["".join(line).rstrip() for line in lines]


def _rejoin(lines: list[list[str]], grid: npt.NDArray[np.int32], index: int, font: Font, marked: bool) -> None:
    """A wide character cut by a row's end (its left cell last in row ``index``, its right cell
    first in the next, after the continuation mark when there is one): shown in the row its left cell is in."""
    start = 1 if marked else 0
    pair = (int(grid[index, -1]), int(grid[index + 1, start]))
    if font.half[pair[0]] and pair in font.pairs:
        lines[index][-1] = font.pairs[pair]
        lines[index + 1][start] = ""


def unread(page: Page) -> npt.NDArray[np.bool_]:
    """Pixels a reader is not shown: the snapshot's own marks (continuation, tab, trailing, uncovered,
    end) and the header rows, bar or ruled, with the gap below them. They are layout, not text: a
    reader would read a tab's mark as ``→`` and a wrapped row's mark as ``L`` or ``4``, and tesseract
    skips inverted bars, so counting them would charge the control-free layout to the font. Row rules
    (``Geometry.row_rule``) stay: whether a rule between rows helps a reader is what is measured, so
    a mark in a text row is then blanked only down to the gap."""
    geometry = page.geometry
    font = load(geometry.cell)
    marks = np.isin(page.grid, [getattr(font, mark) for mark in MARKS])
    text_rows = np.isin(page.kinds, (TEXT, CONTINUATION))
    cells = marks | ~text_rows[:, None]
    mask = np.zeros((geometry.height, geometry.width), dtype=bool)
    span = geometry.rows * geometry.pitch
    gap = np.arange(geometry.pitch) >= font.height
    for column in range(geometry.columns):
        rows = slice(column * geometry.rows, (column + 1) * geometry.rows)
        block = cells[rows]
        pixels = np.repeat(np.repeat(block, geometry.pitch, axis=0), geometry.cell_width, axis=1)
        if geometry.row_rule:
            pixels[np.repeat(text_rows[rows], geometry.pitch) & np.tile(gap, geometry.rows)] = False
        x = geometry.column_x(column)
        mask[geometry.margin:geometry.margin + span, x:x + pixels.shape[1]] = pixels
    return mask


def _blanked(page: Page, image: Image.Image) -> Image.Image:
    """``image`` (the page at any size) in greyscale with ``unread`` pixels white (marks and header
    rows of either style, never row rules); a pixel the resize blended with a mark is whitened too."""
    clean = image.convert("L")
    mask = unread(page)
    if mask.any():
        scaled = Image.fromarray(mask.astype(np.uint8) * 255).resize(clean.size, Image.Resampling.BILINEAR)
        clean.paste(255, mask=scaled.point(lambda v: 255 if v else 0))
    return clean


def strips(page: Page, image: Image.Image) -> list[Strip]:
    """The text columns of ``page``, cut from ``image`` (the page as the model receives it, at any
    size), with the snapshot's marks and header bars blanked (``unread``)."""
    geometry = page.geometry
    sx, sy = image.width / geometry.width, image.height / geometry.height
    image = _blanked(page, image)
    lines = page_lines(page)
    width = geometry.cols * geometry.cell_width
    out = []
    for column in range(geometry.columns):
        x = geometry.column_x(column)
        box = (round(x * sx), round(geometry.margin * sy), round((x + width) * sx),
               round((geometry.margin + geometry.rows * geometry.pitch) * sy))
        shown = tuple(lines[column * geometry.rows:(column + 1) * geometry.rows])
        out.append(Strip(image.crop(box), shown, geometry.pitch * sy, geometry.cell_width * sx))
    return out


def sample_rows(strips_: Sequence[Strip], rows: int | None) -> list[Strip]:
    """At most ``rows`` rows with text, spread evenly over all strips (all of them when ``None``), as
    strips of those rows only: reading is slow, and an even spread over every page estimates the
    whole without reading it all."""
    shown = [(k, i) for k, strip in enumerate(strips_) for i, line in enumerate(strip.lines) if normalise(line)]
    if rows is None or len(shown) <= rows:
        return list(strips_)
    keep = {shown[round(j * len(shown) / rows)] for j in range(rows)}
    out = []
    for k, strip in enumerate(strips_):
        chosen = [i for i in range(len(strip.lines)) if (k, i) in keep]
        if not chosen:
            continue
        image = Image.new("L", (strip.image.width, max(1, round(len(chosen) * strip.pitch))), 255)
        for j, i in enumerate(chosen):
            image.paste(strip.row(i), (0, round(j * strip.pitch)))
        out.append(Strip(image, tuple(strip.lines[i] for i in chosen), strip.pitch, strip.advance))
    return out


READINGS_KEPT = 256
"""Readings remembered by the pixels and rows they read (``read``)."""
_READINGS: dict[tuple[str, bytes], Reading] = {}


def read(strips_: Sequence[Strip], reader: Reader) -> Reading:
    """One reader over strips: characters shown and edits, summed. A reading is remembered by the
    exact pixels and rows it read, so asking again for the same pages (a notebook showing one state
    twice, a widget set back to an earlier value) costs nothing and gives the same figure."""
    name = reader.name  # tesseract's asks the binary for its version
    engine = _engine_key(reader, name)
    key = None if engine is None else (engine, _digest(strips_))
    if key is not None and (known := _READINGS.get(key)) is not None:
        return known
    chars = errors = 0
    for strip in strips_:
        shown, edits = reader.errors(strip)
        chars += shown
        errors += edits
    reading = Reading(name, chars, errors)
    if key is not None:
        if len(_READINGS) >= READINGS_KEPT:
            del _READINGS[next(iter(_READINGS))]
        _READINGS[key] = reading
    return reading


def _engine_key(reader: Reader, name: str) -> str | None:
    """The toolkit's own engines (exactly those classes) by ``name`` (engine and version), settings
    and, for tesseract, the binary run; any other reader, a subclass included, is never remembered
    (it may read differently each time)."""
    if type(reader) not in (RapidOcr, Tesseract):
        return None
    binary = None
    if type(reader) is Tesseract:
        import pytesseract

        binary = pytesseract.pytesseract.tesseract_cmd
    return repr((name, binary, sorted(vars(reader).items())))


def _digest(strips_: Sequence[Strip]) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    for strip in strips_:
        h.update(repr((strip.image.mode, strip.image.size, strip.lines, strip.pitch, strip.advance)).encode())
        h.update(strip.image.tobytes())
    return h.digest()


def control(lines: Sequence[str], font_path: Path = CONTROL_FONT, size: int = CONTROL_SIZE) -> Strip:
    """The same rows drawn in a plain TrueType monospace at reading size: the readers' floor."""
    font = ImageFont.truetype(str(font_path), size)
    ascent, descent = font.getmetrics()
    pitch = ascent + descent
    advance = font.getlength("M")
    width = max(8, round(advance * max((span(line) for line in lines), default=1)))
    image = Image.new("L", (width, pitch * max(1, len(lines))), 255)
    pen = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        pen.text((0, i * pitch), line, font=font, fill=0)
    return Strip(image, tuple(lines), float(pitch), advance)
