"""Legibility, measured: render, apply the provider's own resize, read the cells back, count.

The reader knows the font and the grid and matches every cell to the nearest of all the font's
glyphs, with no idea which characters are likely: a character counts as legible only when its cell
still looks more like its own glyph than like any other. That is a glyph-level measure, stricter
than a reader with a language prior: after a downscale, tesseract (the independent cross-check,
where installed) recovers words the matcher loses, because it guesses from context what a model
would also guess. Both numbers are reported; neither is a model's reading.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from toolkit.costs import image_tokens, text_tokens
from toolkit.snapshot.font import MARKS, Font, Ids, load
from toolkit.snapshot.geometry import Geometry, seen
from toolkit.snapshot.render import CONTINUATION, END, HEADER, TEXT, Page, Passage, read, render

DEFAULT_RESAMPLE = Image.Resampling.BICUBIC
"""Providers do not document their resampling filter; bicubic is Pillow's default for resizing
greyscale images and a common choice of image services. Pass another to compare."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """How many cells of pages read back as drawn."""

    chars: int
    correct: int
    structure: int
    structure_correct: int
    lost: tuple[tuple[str, str, int], ...]
    """(drawn, read as, count), most frequent first; marks are written ``<name>``."""

    @property
    def accuracy(self) -> float:
        return self.correct / self.chars if self.chars else 1.0

    @property
    def structure_accuracy(self) -> float:
        """Row marks (continuation, header, end) read as drawn."""
        return self.structure_correct / self.structure if self.structure else 1.0


@dataclass(frozen=True, slots=True)
class OcrCheck:
    """Tesseract's reading of the pages, against the text they show."""

    accuracy: float
    """1 - character edit distance / characters (whitespace runs collapsed on both sides)."""
    chars: int
    scale: int
    """The pages were enlarged this many times (nearest neighbour) before OCR."""
    engine: str


@dataclass(frozen=True, slots=True)
class Legibility:
    """Character accuracy of pages after the provider's resize."""

    model: str
    geometry: Geometry
    pages: int
    chars: int
    """Text cells compared (characters of the source, each tab's mark counted once per cell)."""
    correct: int
    uncovered: int
    """Characters the font cannot draw (drawn as the uncovered mark; they read back as that mark)."""
    lost: tuple[tuple[str, str, int], ...]
    structure_accuracy: float
    seen_size: tuple[int, int] | None
    downscaled: bool | None
    resize_documented: bool
    resample: str
    ocr: OcrCheck | None

    @property
    def accuracy(self) -> float:
        return self.correct / self.chars if self.chars else 1.0


def _name(font: Font, glyph: int) -> str:
    for mark in MARKS:
        if getattr(font, mark) == glyph:
            return f"<{mark}>"
    return font.chars[glyph]


def compare(pages: Sequence[Page], grids: Sequence[tuple[Ids, np.ndarray]]) -> Comparison:
    """Cells of ``pages`` against the grids and row kinds read from their pixels."""
    if not pages:
        return Comparison(0, 0, 0, 0, ())
    font = load(pages[0].geometry.cell)
    chars = correct = structure = structure_correct = 0
    lost: Counter[tuple[str, str]] = Counter()
    for page, (grid, _kinds) in zip(pages, grids, strict=True):
        mask = page.text_cells
        same = grid == page.grid
        chars += int(mask.sum())
        correct += int((same & mask).sum())
        marked = np.isin(page.kinds, (CONTINUATION, HEADER, END))
        structure += int(marked.sum())
        structure_correct += int(same[marked, 0].sum())
        wrong = mask & ~same
        if wrong.any():
            pairs = Counter(zip(page.grid[wrong].tolist(), grid[wrong].tolist(), strict=True))
            for (drawn, got), count in pairs.items():
                lost[(_name(font, drawn), _name(font, got))] += count
    return Comparison(chars, correct, structure, structure_correct,
                      tuple((a, b, n) for (a, b), n in lost.most_common()))


def legibility(text: str | Sequence[Passage] | Sequence[Page], geometry: Geometry, model: str, *,
               resample: Image.Resampling = DEFAULT_RESAMPLE, ocr: bool = False) -> Legibility:
    """Render ``text`` (or take pages already rendered), shrink (or enlarge) each page as
    ``model``'s provider does before its model sees it, read the cells back and count the
    characters that survive."""
    pages = _pages(text, geometry)
    view = seen(geometry.width, geometry.height, model)
    grids = [read(shown(page, view.size, resample), geometry, resample) for page in pages]
    result = compare(pages, grids)
    return Legibility(
        model=model, geometry=geometry, pages=len(pages), chars=result.chars, correct=result.correct,
        uncovered=sum(p.uncovered for p in pages), lost=result.lost, structure_accuracy=result.structure_accuracy,
        seen_size=view.size, downscaled=view.downscaled, resize_documented=view.documented,
        resample=resample.name, ocr=ocr_check(pages, size=view.size, resample=resample) if ocr else None,
    )


def _pages(text: str | Sequence[Passage] | Sequence[Page], geometry: Geometry) -> list[Page]:
    if isinstance(text, str):
        return render(text, geometry)
    items = list(text)
    if items and all(isinstance(item, Page) for item in items):
        return [item for item in items if isinstance(item, Page)]
    return render([item for item in items if isinstance(item, Passage)], geometry)


@dataclass(frozen=True, slots=True)
class Assessment:
    """What a snapshot of some text costs one model, what it saves and what survives."""

    model: str
    geometry: Geometry
    pages: int
    chars: int
    uncovered_chars: int
    image_tokens: int
    """All pages together."""
    tokens_per_page: int
    text_tokens: int
    """The same content sent as text (its words only, without the page's header bars)."""
    text_tokens_exact: bool
    resized: bool | None
    """Whether the provider resizes the page before its model sees it (``None``: not documented)."""
    seen_size: tuple[int, int] | None
    resize_documented: bool
    legibility: Legibility

    @property
    def compression(self) -> float:
        """Text tokens of the content per image token of its pages."""
        return self.text_tokens / self.image_tokens if self.image_tokens else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "model": self.model, "cell": self.geometry.cell, "page": f"{self.geometry.width}x{self.geometry.height}",
            "pages": self.pages, "chars": self.chars, "uncovered_chars": self.uncovered_chars,
            "image_tokens": self.image_tokens, "tokens_per_page": self.tokens_per_page,
            "text_tokens": self.text_tokens, "text_tokens_exact": self.text_tokens_exact,
            "compression": round(self.compression, 3), "resized": self.resized,
            "resize_documented": self.resize_documented, "legibility": round(self.legibility.accuracy, 6),
            "ocr_accuracy": None if self.legibility.ocr is None else round(self.legibility.ocr.accuracy, 4),
        }


def assess(text: str | Sequence[Passage], geometry: Geometry, model: str, *,
           resample: Image.Resampling = DEFAULT_RESAMPLE, ocr: bool = False) -> Assessment:
    """Pages, image tokens, text tokens, compression and legibility of ``text`` for ``model``."""
    pages = render(text, geometry)
    cost = image_tokens(geometry.width, geometry.height, model)
    content = text if isinstance(text, str) else "\n".join(turn.text for turn in text)
    words = text_tokens(content, model)
    result = legibility(pages, geometry, model, resample=resample, ocr=ocr)
    return Assessment(
        model=model, geometry=geometry, pages=len(pages), chars=sum(p.chars for p in pages),
        uncovered_chars=sum(p.uncovered for p in pages), image_tokens=cost.tokens * len(pages),
        tokens_per_page=cost.tokens, text_tokens=words.tokens, text_tokens_exact=words.exact,
        resized=None if result.seen_size is None else result.seen_size != geometry.size, seen_size=result.seen_size, resize_documented=result.resize_documented,
        legibility=result,
    )


def shown(page: Page, size: tuple[int, int] | None, resample: Image.Resampling = DEFAULT_RESAMPLE) -> Image.Image:
    """The page as the model receives it: resized to ``size`` (unchanged when ``None`` or equal)."""
    image = page.image
    if size is None or size == image.size:
        return image
    return image.convert("L").resize(size, resample)


# --- OCR cross-check ---------------------------------------------------------------------------


def tesseract_available() -> bool:
    try:
        import pytesseract
    except ImportError:
        return False
    return shutil.which(pytesseract.pytesseract.tesseract_cmd) is not None


def page_lines(page: Page) -> list[str]:
    """What a page shows, row by row, marks as spaces (what an OCR engine should read)."""
    font = load(page.geometry.cell)
    chars = list(font.chars)
    for mark in MARKS:
        chars[getattr(font, mark)] = " "
    table = np.array(chars, dtype=object)
    lines = []
    for row, kind in zip(page.grid, page.kinds, strict=True):
        if kind in (TEXT, CONTINUATION, HEADER):
            lines.append("".join(table[row]).rstrip())
    return lines


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


def ocr_check(pages: Sequence[Page], scale: int = 3, size: tuple[int, int] | None = None,
              resample: Image.Resampling = DEFAULT_RESAMPLE) -> OcrCheck | None:
    """Tesseract's accuracy on the pages as a model receives them (resized to ``size`` first, then
    enlarged ``scale`` times for the engine); ``None`` where tesseract is not installed."""
    if not tesseract_available() or not pages:
        return None
    import pytesseract

    expected_total = errors = 0
    for page in pages:
        image = shown(page, size, resample).convert("L")
        enlarged = (page.geometry.width * scale, page.geometry.height * scale)
        image = image.resize(enlarged, Image.Resampling.NEAREST if image.size == page.geometry.size else resample)
        read_text = pytesseract.image_to_string(image, config="--psm 6")
        expected = " ".join(" ".join(page_lines(page)).split())
        got = " ".join(read_text.split())
        expected_total += len(expected)
        errors += edit_distance(expected, got)
    accuracy = max(0.0, 1.0 - errors / expected_total) if expected_total else 1.0
    return OcrCheck(accuracy, expected_total, scale, f"tesseract {pytesseract.get_tesseract_version()}")
