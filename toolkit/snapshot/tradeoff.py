"""The tradeoff a snapshot makes: text per image token against what an independent reader recovers.

A smaller glyph cell puts more text on a page and reads worse; no single point answers "how small".
``tradeoff(model)`` lays the curve out per glyph cell (compression of the reference text against the
readers' character error rate) and ``choose`` takes the point ``geometry_for`` uses: the best
compression whose reader error is within ``MAX_EXCESS`` of the readers' own floor (the control).

The error rates are measured, not computed each call (reading is slow): ``measure`` renders the
reference sample in every cell at the size it is sent (the presets are pages the model sees
unshrunk), reads it with both readers of ``toolkit.snapshot.readers`` and draws the same rows in the
control font; ``MEASURED`` holds the result with its date and sample, and
``python -m benchmarks.measure_readers CORPORA --chars 8000`` measures again. Published results on
the same axes are in ``toolkit.snapshot.charts.PUBLISHED``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.snapshot.font import BREAK_MARKS, break_mark, cells, face, load, parse_cell
from toolkit.snapshot.geometry import GUTTER, MAX_PAGE_SIDE, PRESET_MODELS, Geometry, Preset, header_style
from toolkit.snapshot.geometry import preset as cell_preset
from toolkit.snapshot.legibility import MAX_EXCESS as MAX_EXCESS
from toolkit.snapshot.legibility import Assessment, is_legible, unjudged
from toolkit.snapshot.measured import CONTROL as CONTROL
from toolkit.snapshot.measured import MEASURED as MEASURED
from toolkit.snapshot.measured import MEASURED_ON as MEASURED_ON
from toolkit.snapshot.measured import CellReading as CellReading
from toolkit.snapshot.measured import reading as reading
from toolkit.snapshot.readers import Reader, control, read, readers, strips
from toolkit.snapshot.render import Passage, render

if TYPE_CHECKING:
    import polars as pl


def reference_sample(root: Path, chars: int = 12_000, chunk: int = 400, seed: int = 0) -> str:
    """Chunks of real agent text from every corpus file under ``root``, drawn at random (seeded) among
    chunks every misc-fixed cell draws: a character those faces cannot draw (CJK, emoji) is counted as
    uncovered elsewhere and would only measure the uncovered mark here. Faces that draw less (Spleen:
    ASCII only at 5x8) show their uncovered mark for the rest, and pay for it in reader error."""
    from toolkit.content import session_text
    from toolkit.corpus import detect
    from toolkit.corpus import load as load_corpus

    texts: list[str] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if detect(path) is None:
            continue
        corpus = load_corpus(path, progress=False)
        texts.extend(text for session in corpus.sessions if (text := session_text(session)))
    text = "\n".join(texts)
    drawn = set.intersection(*(set(load(cell).chars) for cell in cells() if face(cell) == "misc-fixed"))
    drawn.update("\n\t")
    rng = random.Random(seed)
    picked: list[str] = []
    for _ in range(200_000):
        if sum(map(len, picked)) >= chars or len(text) <= chunk:
            break
        start = rng.randrange(0, len(text) - chunk)
        piece = text[start:start + chunk]
        if set(piece) <= drawn:
            picked.append(piece)
    return "\n".join(picked)


CONTROL_WIDTH = 100
"""Characters per control row: about a page column's width; far longer rows read worse (a reader
rescales a whole row to one height) and would raise the floor for no reason of the font's."""


def wrapped(text: str, width: int = CONTROL_WIDTH) -> list[str]:
    """``text``'s lines cut every ``width`` characters, tabs expanded."""
    return [line[i:i + width] for raw in text.split("\n") for line in [raw.expandtabs()]
            for i in range(0, max(1, len(line)), width)]


def measure(sample: str, cell_names: Iterable[str] | None = None, names: Sequence[str] = ("rapidocr", "tesseract"),
            page: tuple[int, int] = (960, 720)) -> list[CellReading]:
    """Read ``sample`` rendered in each cell (one text column per page, at the size sent) and, once, in
    the control font, with each named reader that runs here. The control is read once: whitespace is
    not compared, so how a cell wraps the lines does not change what the control shows."""
    engines: list[Reader] = readers(names)
    rows = control(wrapped(sample))
    floor = tuple((r.name, read([rows], r).cer) for r in engines)
    out = []
    for cell in cell_names or cells():
        pages = render(sample, Geometry(cell, *page))
        shown = [strip for p in pages for strip in strips(p, p.image)]
        out.append(CellReading(cell, tuple((r.name, read(shown, r).cer) for r in engines), floor,
                               sum(p.chars for p in pages)))
    return out


def candidates() -> tuple[str, ...]:
    """The measured cells no other beats on both counts, smallest first: none is smaller (fewer pixels
    per character, so more characters per image token for every provider) at no more reader error.
    Laying a page out for a cell takes a quarter of a second; the rest need not be laid out."""
    measured = [item for item in MEASURED if item.cell in cells()]
    area = {item.cell: parse_cell(item.cell)[0] * parse_cell(item.cell)[1] for item in measured}
    # a smaller cell is a larger "compression" to the frontier: less area, more characters per token
    kept = frontier([-area[item.cell] for item in measured], [item.excess for item in measured])
    return tuple(sorted((item.cell for item, on in zip(measured, kept, strict=True) if on), key=area.__getitem__))


def tradeoff(model: str, sample: str | None = None, cell_names: Iterable[str] | None = None) -> pl.DataFrame:
    """One row per glyph cell: the model's preset page in that cell, its characters per image token,
    the compression that gives on ``sample``, and the measured reader error.

    Pages are laid out for transcript-shaped lines (``geometry.REFERENCE``) in the presets' layout
    (``PRESET_REFLOW``), as ``geometry_for`` does; the compression is the sample rendered onto each
    page, every page full (``Assessment.compression_full``), so the chosen cell's row shows what
    ``toolkit.snapshot.savings`` gives for the model on the same sample.

    Args:
        model: The model whose pages apply.
        sample: Text rendered onto each page for the compression (default: none, and the
            compression is null).
        cell_names: The glyph cells (default: ``candidates()``).

    Returns:
        Columns: model, cell, page, chars_per_token, compression, reader, reader_cer, control_cer,
        excess, legible (``legibility.is_legible`` of the measured reading), not_judged (why legible is
        null, ``legibility.unjudged``; null where it is not), read_on (characters of the shared corpora
        the cell was read on, ``MEASURED``), chosen."""
    import polars as pl

    from toolkit.costs import image_tokens, text_tokens
    from toolkit.snapshot.legibility import full_compression
    from toolkit.snapshot.render import filled_rows

    # the text's tokens once; per cell only its pages (the compression needs no decode of them)
    text = sample or ""
    words = text_tokens(text, model).tokens if text else None
    chosen = choose(model)
    rows = []
    names = list(cell_names or candidates())
    if cell_names is None and chosen not in names:
        names.append(chosen)
    for cell in names:
        found = reading(cell)
        if found is None:
            continue
        p = cell_preset(model, cell, reflow=PRESET_REFLOW)
        g = p.geometry
        name, cer = found.best
        rows.append({
            "model": model, "cell": cell, "page": f"{g.width}x{g.height}",
            "chars_per_token": p.chars_per_token,
            "compression": None if words is None else full_compression(
                words, image_tokens(g.width, g.height, model).tokens, filled_rows(render(text, g)), g.lines),
            "reader": name, "reader_cer": cer,
            "control_cer": found.control_cer, "excess": found.excess,
            "legible": is_legible(found.excess, found.control_cer),
            "not_judged": unjudged(found.excess, found.control_cer), "read_on": found.chars,
            "chosen": cell == chosen,
        })
    return pl.DataFrame(rows, schema_overrides={"compression": pl.Float64, "not_judged": pl.String})


@functools.cache
def choose(model: str) -> str:
    """The cell with the most characters per image token whose measured reader error is within
    ``MAX_EXCESS`` of the control, legible by the one rule (``legibility.is_legible``; of equals, the one
    read best); the lowest excess where none is.
    Only ``candidates()`` are laid out: a cell some no larger cell reads better than is not worth
    the quarter second its page search takes.

    Args:
        model: The model that will read the pages; cells are compared by its image token cost.

    Returns:
        The cell's name.
    """
    measured = [item for item in MEASURED if item.cell in cells()]
    if not measured:
        return "4x6"
    kept = set(candidates())
    within = [item for item in measured if is_legible(item.excess, item.control_cer) and item.cell in kept]
    if not within:
        return min(measured, key=lambda item: item.excess).cell
    return max(within, key=lambda item: (cell_preset(model, item.cell, reflow=PRESET_REFLOW).chars_per_token,
                                         -item.excess)).cell


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a page is legible by the one rule (``legibility.is_legible``), and on which reading."""

    legible: bool | None
    """``None``: not judged, ``not_judged`` says why."""
    excess: float | None
    """The best reader's error over its control the verdict rests on (``None``: nothing read)."""
    basis: str
    """Which reading: the cell's measured one, or the page's own (and ``not_judged``, if it is not)."""
    not_judged: str | None
    """Why ``legible`` is ``None`` (``legibility.unjudged``, or no reading at all)."""


def verdict(result: Assessment) -> Verdict:
    """The verdict the tradeoff table gives: a page the model sees at the size sent is judged on its
    cell's measured reading (``MEASURED``, thousands of characters, the ``legible`` of ``tradeoff``), so
    a glance of a few rows never contradicts the table; a page the provider resizes, or a cell never
    measured, on the reading ``result`` carries, if any."""
    found = reading(result.geometry.cell)
    if found is not None and not result.resized:
        return _verdict(is_legible(found.excess, found.control_cer), found.excess,
                        f"the cell's measured reading ({found.chars:,} characters of the shared corpora, "
                        f"{found.best[0]} {found.excess * 100:+.1f} points over its control)",
                        unjudged(found.excess, found.control_cer))
    read_ = result.legibility
    why = "the provider resizes this page" if found is not None else "this cell was never measured"
    if read_.excess is not None and read_.best is not None:
        return _verdict(read_.legible, read_.excess,
                        f"{why}: this reading ({read_.best.chars:,} characters, {read_.best.reader} "
                        f"{read_.excess * 100:+.1f} points over its control)", read_.unjudged)
    unread = f"{why}, and no reader has read it"
    return Verdict(None, None, unread, unread)


def _verdict(legible: bool | None, excess: float | None, basis: str, not_judged: str | None) -> Verdict:
    """A verdict whose basis also says why it is not judged, where it is not."""
    return Verdict(legible, excess, f"{basis}; {not_judged}" if not_judged else basis, not_judged)


def search(sample: str, model: str, cell_names: Iterable[str] | None = None, line_spacings: Sequence[int] = (0, 1),
           names: Sequence[str] = ("rapidocr",), reader_rows: int | None = 120, progress: bool = True,
           row_rules: Sequence[bool] = (False,), headers: Sequence[str] = ("bar",),
           reflows: Sequence[bool] = (False,), break_marks: Sequence[str] = (BREAK_MARKS[0].name,),
           column_counts: Sequence[int | None] = (None,), gutters: Sequence[int] = (GUTTER,)) -> pl.DataFrame:
    """Every candidate page for ``model``, rendered with ``sample`` and read by the independent readers
    at the size the model's encoder sees it, against the control. Slow: each candidate is read anew.

    A candidate is each cell and line spacing (the preset page ``toolkit.snapshot.geometry`` finds for
    it on ``sample``) and, on it, each of ``row_rules`` and ``headers``, the layout options of
    ``Geometry``, which do not change the page size. A plain sample has no header rows, so when
    ``headers`` asks for more than the default bar, every candidate renders ``sample`` as messages
    instead (``as_messages``: a header row about every ``MESSAGE_CHARS`` characters, as a history has
    them; the readers never see header rows, so only the rows and rules around them can differ). A
    rule needs a line spacing of at least 1: combinations without one are left out. Each of
    ``column_counts`` (``None``: the count the page search finds best) and ``gutters`` picks a page of
    its own; each of ``break_marks`` is tried on reflowed rows only (rows per line draw no break).

    Args:
        sample: The text to render and read.
        model: The model whose pages and resize apply.
        cell_names: The glyph cells to try (default: ``candidates()``).
        line_spacings: The line spacings to try.
        names: The readers (``rapidocr``, ``tesseract``).
        reader_rows: How many rows the readers read (``None``: every row).
        progress: Show a progress bar.
        row_rules: Whether a rule is drawn between rows, each value tried.
        headers: The header row styles to try.
        reflows: The layouts to try: with ``True``, rows reflowed on the page the search picks for
            them (``Geometry.reflow``; the readers are charged for every line break they miss).
        break_marks: The line-break marks of reflowed rows to try (``font.BREAK_MARKS``).
        column_counts: The text column counts to try (``None``: the page search's own choice).
        gutters: The pixels between text columns to try.

    Returns:
        Columns: model, cell, face, line_spacing, row_rule, header, reflow, break_mark (null on rows
        per line), gutter, fill, page, columns,
        seen_size, seen_evidence, compression (the last page as it is), compression_full (pages
        filled), reader, reader_cer, control_cer, excess, frontier (no other candidate compresses
        more at no greater excess).

    Raises:
        InvalidInput: A name in ``names`` is no reader."""
    import polars as pl
    from tqdm.auto import tqdm

    from toolkit.snapshot.legibility import assess

    styles = [header_style(name) for name in headers]
    marks = [break_mark(name).name for name in break_marks]
    layouts_ = [(flow, mark) for flow in reflows for mark in (marks if flow else [None])]
    grid = [(cell, spacing, rule, style, flow, mark, count, gutter)
            for cell in (cell_names or cells()) for spacing in line_spacings
            for rule in row_rules for style in styles for flow, mark in layouts_
            for count in column_counts for gutter in gutters
            if spacing >= 1 or not (rule or style == "rule")]
    text: str | list[Passage] = as_messages(sample) if any(style != "bar" for style in styles) else sample
    rows = []
    for cell, spacing, rule, style, flow, mark, count, gutter in tqdm(grid, desc=f"pages for {model}",
                                                                      disable=not progress):
        geometry = replace(cell_preset(model, cell, line_spacing=spacing, sample=sample, reflow=flow,
                                       break_mark=mark or BREAK_MARKS[0].name, gutter=gutter,
                                       columns=count).geometry,
                           row_rule=rule, header=style)
        found = assess(text, geometry, model, reader_names=names, reader_rows=reader_rows)
        read_ = found.legibility
        rows.append({
            "model": model, "cell": cell, "face": face(cell), "line_spacing": spacing,
            "row_rule": rule, "header": style, "reflow": flow, "break_mark": mark, "gutter": gutter,
            "fill": found.fill,
            "page": f"{geometry.width}x{geometry.height}", "columns": geometry.columns,
            "seen_size": f"{found.seen_size[0]}x{found.seen_size[1]}", "seen_evidence": found.seen_evidence,
            "compression": found.compression, "compression_full": found.compression_full,
            "reader": None if read_.best is None else read_.best.reader, "reader_cer": read_.reader_cer,
            "control_cer": read_.control_cer, "excess": read_.excess,
        })
    frame = pl.DataFrame(rows, schema_overrides={"reader_cer": pl.Float64, "control_cer": pl.Float64,
                                                 "excess": pl.Float64, "break_mark": pl.String})
    return frame.with_columns(frontier=pl.Series(frontier(frame["compression_full"].to_list(),
                                                          frame["excess"].to_list())))


def layouts(sample: str, model: str, names: Sequence[str] = ("rapidocr", "tesseract"),
            reader_rows: int | None = 120, cell: str | None = None) -> pl.DataFrame:
    """Rows per line against reflowed rows on the same text: the model's preset page (in ``cell``, or
    the chosen one) laid out for ``sample`` with one source line per row (``"lines"``), the same page
    with the rows reflowed (``"reflow"``), and the page the search picks for reflowed rows
    (``"reflow-page"``), each read by every named reader on ``reader_rows`` rows (a reflowed row's
    breaks shown as ``readers.BREAK_SHOWN``, so a break a reader misses is an edit). One row per layout
    and reader. Columns: model, layout, cell, page, columns, fill, compression_full, reader,
    chars_read, reader_cer, control_cer, excess."""
    import polars as pl

    from toolkit.snapshot.legibility import assess

    chosen = cell or choose(model)
    lines = cell_preset(model, chosen, sample=sample).geometry
    candidates_ = (("lines", lines), ("reflow", replace(lines, reflow=True)),
                   ("reflow-page", cell_preset(model, chosen, sample=sample, reflow=True).geometry))
    rows = []
    for name, geometry in candidates_:
        found = assess(sample, geometry, model, reader_names=names, reader_rows=reader_rows)
        for reading_, floor in zip(found.legibility.readings, found.legibility.controls, strict=True):
            rows.append({
                "model": model, "layout": name, "cell": geometry.cell, "page": f"{geometry.width}x{geometry.height}",
                "columns": geometry.columns, "fill": found.fill, "compression_full": found.compression_full,
                "reader": reading_.reader, "chars_read": reading_.chars, "reader_cer": reading_.cer,
                "control_cer": floor.cer, "excess": reading_.cer - floor.cer,
            })
    return pl.DataFrame(rows)


MESSAGE_CHARS = 400
"""Characters per message when ``search`` renders a sample as messages: the chunk
``reference_sample`` draws."""


def as_messages(sample: str, chars: int = MESSAGE_CHARS) -> list[Passage]:
    """``sample`` as messages of whole lines, each about ``chars`` characters, under header rows
    labelled as ``compact`` labels them (speakers alternating); joined by newlines they are
    ``sample`` again."""
    out: list[Passage] = []
    lines: list[str] = []
    size = 0
    for line in sample.split("\n"):
        lines.append(line)
        size += len(line) + 1
        if size >= chars:
            out.append(_message(len(out), lines))
            lines, size = [], 0
    if lines or not out:
        out.append(_message(len(out), lines))
    return out


def _message(index: int, lines: list[str]) -> Passage:
    role = "user" if index % 2 == 0 else "assistant"
    return Passage("\n".join(lines), f"{role} · 2026-01-01 12:00 · m{index}", f"m{index}")


def frontier(compression: Sequence[float], excess: Sequence[float | None]) -> list[bool]:
    """Which points no other beats: none compresses at least as much with less error, or more with
    no more error (points without a reading are never on it)."""
    points = list(zip(compression, excess, strict=True))
    out = []
    for c, e in points:
        if e is None:
            out.append(False)
            continue
        beaten = any(oe is not None and ((oc >= c and oe < e) or (oc > c and oe <= e)) for oc, oe in points)
        out.append(not beaten)
    return out


PRESET_REFLOW = True
"""The presets run lines on (``Geometry.reflow``): by the rule that chose the cell (the most
compression with both readers within ``MAX_EXCESS`` of their control), read by
``python -m benchmarks.preset_table ../shared/corpora --chars 30000 --seed 3 --rows 150 --reflow``
on a draw the cells were not chosen on (2026-12-04), reflowed pages keep both readers within the
point and carry about 1.4 times the text of a row per line (Claude Sonnet 4.5 3.52x, gpt-4o 5.39x
on full pages; the figures per model are in ``docs/findings.md``)."""
PRESET_BREAK_MARK = BREAK_MARKS[0].name
"""The line-break mark of the presets' reflowed rows (``font.BREAK_MARKS``): ``¬``, which neither
engine's character set holds, so every break costs the reader and the control alike an edit. On the
same draw tesseract reads the other two far better, but nearer the rule's edge: ``§`` 2.5% against a
control of 1.4% on Claude's page and 3.9% against 2.6% on gpt-4o's (outside it), ``»`` 1.8% against
1.4% and 3.8% against 2.8% (one point over, to the rounding), where ``¬`` read 3.5% against 3.4% and
5.2% against 4.4%; RapidOCR read all three within 0.6 points under its control."""


def preset(model: str, cell: str | None = None, *, margin: int = 2, line_spacing: int = 0,
           max_side: int = MAX_PAGE_SIDE, sample: str | None = None, reflow: bool | None = None,
           break_mark: str | None = None) -> Preset:
    """The page for ``model`` (``toolkit.snapshot.geometry.preset``) in ``cell``, or, without one, in
    the cell ``choose`` takes from the measured readers' tradeoff.

    Args:
        model: The model that will read the pages.
        cell: A glyph cell such as ``"6x13"`` (default: ``choose(model)``).
        margin: The page margin in pixels.
        line_spacing: Extra pixels between rows.
        max_side: The longest page side allowed, in pixels.
        sample: Text whose line lengths the characters per token are counted on (default: the
            reference lengths of transcript lines).
        reflow: Reflowed rows or a row per line (default: the presets' layout, ``PRESET_REFLOW``).
        break_mark: The line-break mark of reflowed rows (default: ``PRESET_BREAK_MARK``).

    Returns:
        The page, its image tokens, characters per token, and how the size the model sees is known."""
    return cell_preset(model, cell or choose(model), margin=margin, line_spacing=line_spacing,
                       max_side=max_side, sample=sample, reflow=PRESET_REFLOW if reflow is None else reflow,
                       break_mark=break_mark or PRESET_BREAK_MARK)


def presets(cell: str | None = None) -> dict[str, Preset]:
    """The preset of every model in ``PRESET_MODELS``, in ``cell`` or in each one's chosen cell.

    Args:
        cell: One cell for every model, to compare models on equal pages; ``None`` for each model's
            chosen cell.

    Returns:
        Each model's preset under its id.
    """
    return {model: preset(model, cell) for model in PRESET_MODELS}


def geometry_for(model: str, cell: str | None = None, *, margin: int = 2, line_spacing: int = 0,
                 max_side: int = MAX_PAGE_SIDE, sample: str | None = None, reflow: bool | None = None,
                 break_mark: str | None = None) -> Geometry:
    """The page a snapshot for ``model`` uses: the provider's page that its encoder sees unshrunk with
    the most characters per image token, in the glyph cell the independent readers can read.

    Args:
        model: The model that will read the pages.
        cell: A glyph cell such as ``"6x13"`` (default: the one ``choose`` takes from the readers'
            measured tradeoff).
        margin: The page margin in pixels.
        line_spacing: Extra pixels between rows.
        max_side: The longest page side allowed, in pixels.
        sample: Text whose line lengths the characters per token are counted on (default: the
            reference lengths of transcript lines, ``REFERENCE_LINES``).
        reflow: Reflowed rows or a row per line (default: the presets' layout, ``PRESET_REFLOW``).
        break_mark: The line-break mark of reflowed rows (default: ``PRESET_BREAK_MARK``).

    Returns:
        The page's size, glyph cell, spacing and layout."""
    return preset(model, cell, margin=margin, line_spacing=line_spacing, max_side=max_side, sample=sample,
                  reflow=reflow, break_mark=break_mark).geometry
