"""Reflowed rows: source lines run on across full rows, each break a mark a reader sees and is
charged for."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import CORPORA
from toolkit.snapshot import Geometry, Passage, decode, font, geometry_for, legibility, render
from toolkit.snapshot.font import BREAK_SHAPE
from toolkit.snapshot.geometry import preset
from toolkit.snapshot.legibility import assess
from toolkit.snapshot.readers import (
    BREAK_SHOWN,
    RapidOcr,
    Strip,
    Tesseract,
    normalise,
    page_lines,
    read,
    restored,
    strips,
)
from toolkit.snapshot.render import CONTINUATION, fill

TEXT = ("def handler(event):\n\tif event:\n\t\treturn {'ok': 1}   \n\n"
        "The tool returned 3 files ¬ and a blank line follows.\n\n  indented  \n") * 40
REFLOW = Geometry("dejavu-aa-fullhint-6x11", 600, 400, columns=2, reflow=True)


@pytest.mark.parametrize("cell", ["4x6", "6x13", "dejavu-aa-fullhint-6x11"])
def test_reflowed_text_with_breaks_tabs_and_trailing_spaces_reads_back_exactly(cell: str) -> None:
    geometry = replace(REFLOW, cell=cell)
    pages = render(TEXT * 3, geometry)
    assert len(pages) > 1  # a line runs on across a page boundary too
    assert decode(pages, geometry).text == TEXT * 3
    assert not any((page.kinds == CONTINUATION).any() for page in pages)  # no row spends a cell on a mark
    assert sum(page.chars for page in pages) == len(TEXT * 3)  # newlines counted, a tab once


def test_messages_keep_their_breaks_and_a_trailing_newline() -> None:
    turns = [Passage("a\nb", "user", "m0"), Passage("x" * 700 + "\n", "assistant", "m1"),
             Passage("", "user", "m2"), Passage("\n\n", "assistant", "m3")]
    decoded = decode(render(turns, REFLOW), REFLOW)
    assert decoded.turns == tuple((turn.label, turn.text) for turn in turns)


def test_the_break_mark_is_no_glyph_of_the_text() -> None:
    """A ``¬`` of the text and a line break draw different cells, so the atlas decode tells them apart."""
    f = font(REFLOW.cell)
    assert f.line_break != f.lookup[ord(BREAK_SHAPE)]
    assert not any((f.glyphs[f.line_break] == g).all() for g in f.glyphs[:f.line_break])
    page, = render("a¬b\nc", REFLOW)
    assert page.grid[0, :5].tolist() == [*f.ids("a¬b"), f.line_break, *f.ids("c")]


def test_a_row_per_line_leaves_pages_as_they_were() -> None:
    """PNG digests of pages drawn before the option existed (so cached pages and snapshot ids of a row
    per line stand, whichever layout the presets use)."""
    plain = Geometry("6x13", 600, 400)
    assert repr(plain) == ("Geometry(cell='6x13', width=600, height=400, margin=2, line_spacing=0, tab_size=4, "
                           "columns=1, gutter=5)")
    assert "reflow=True" in repr(replace(plain, reflow=True))
    before = {plain: "b2d87a78fb4785ae", geometry_for("claude-sonnet-4.5", reflow=False): "d6f0c5bdb0c2cb90"}
    for geometry, digest in before.items():
        assert hashlib.sha256(b"".join(p.png() for p in render(TEXT, geometry))).hexdigest()[:16] == digest


def test_the_atlas_decode_counts_break_cells() -> None:
    model = "claude-sonnet-4.5"
    geometry = replace(geometry_for(model), reflow=True)
    result = legibility(TEXT, geometry, model)
    assert result.accuracy == 1.0
    pages = render(TEXT, geometry)
    assert result.chars == sum(int(p.text_cells.sum()) for p in pages)
    assert result.chars >= sum(p.chars for p in pages)  # every break has its cell (a tab's fill too)


def test_page_lines_show_each_break_and_a_reading_restores_it() -> None:
    page = render("ab\ncd\n\nef", REFLOW)[0]
    assert page_lines(page)[0] == f"ab{BREAK_SHOWN}cd{BREAK_SHOWN}{BREAK_SHOWN}ef"
    assert restored(page_lines(page)[0]) == "ab\ncd\n\nef"


class _Dropping(RapidOcr):
    """Reads every row perfectly except that it never sees a break mark."""

    def rows(self, strip: Strip) -> list[str]:
        return [line.replace(BREAK_SHOWN, "") for line in strip.lines]


class _DroppingColumns(Tesseract):
    """Tesseract's way of reading (a column of rows at once) with a reading made up, so the test
    needs no tesseract binary: it drops every break mark."""

    @property
    def name(self) -> str:
        return "tesseract (made up)"

    def text(self, strip: Strip) -> str:
        return "\n".join(line.replace(BREAK_SHOWN, "") for line in strip.lines)


def test_a_lost_break_counts_as_an_error_for_either_engine() -> None:
    text = "first line\nsecond\n\nthird line of text\n" * 20
    pages = render(text, REFLOW)
    cut = [s for page in pages for s in strips(page, page.image)]
    breaks = text.count("\n")
    for engine in (_Dropping(), _DroppingColumns()):
        reading = read(cut, engine)
        assert reading.chars == len(normalise(text)) + breaks
        assert reading.errors == breaks
    lines = render(text, replace(REFLOW, reflow=False))
    assert read([s for page in lines for s in strips(page, page.image)], _Dropping()).errors == 0


def test_rapidocr_reads_reflowed_rows() -> None:
    text = ("The tool returned three files.\nNext I will read them.\nimport os\nprint(os.getcwd())\n") * 4
    geometry = replace(geometry_for("claude-sonnet-4.5"), reflow=True)
    pages = render(text, geometry)
    reading = read([s for page in pages for s in strips(page, page.image)], RapidOcr())
    assert reading.chars == len(normalise(text)) + text.count("\n")
    assert reading.cer < 0.15


def test_reflowed_rows_fill_the_page_that_line_rows_leave_half_empty() -> None:
    if not CORPORA.is_dir():
        pytest.skip("../shared/corpora is absent")
    from toolkit.snapshot.tradeoff import reference_sample

    sample = reference_sample(CORPORA, 6_000)
    model = "claude-sonnet-4.5"
    lines = geometry_for(model, reflow=False)
    flowed = replace(lines, reflow=True)
    by_line, by_flow = render(sample, lines), render(sample, flowed)
    assert fill(by_line) < 0.8
    assert fill(by_flow) > 0.97
    assert decode(by_flow, flowed).text == decode(by_line, lines).text
    plain, run_on = assess(sample, lines, model), assess(sample, flowed, model)
    assert run_on.fill == pytest.approx(fill(by_flow))
    assert run_on.compression_full > 1.3 * plain.compression_full
    assert run_on.as_dict()["reflow"] is True


def test_the_page_search_counts_reflowed_rows_as_characters_over_the_row_width() -> None:
    model = "claude-sonnet-4.5"
    plain, flowed = preset(model, "6x13"), preset(model, "6x13", reflow=True)
    assert flowed.geometry.reflow and not plain.geometry.reflow
    assert flowed.chars_per_token > 1.3 * plain.chars_per_token
    assert flowed.chars_per_token <= flowed.capacity_per_token
    assert np.isclose(flowed.chars_per_token, flowed.capacity_per_token, rtol=0.02)


def test_search_varies_the_layout_and_reads_reflowed_rows_with_their_breaks() -> None:
    from toolkit.snapshot.tradeoff import search

    sample = TEXT[:3000]
    frame = search(sample, "claude-sonnet-4.5", ["dejavu-aa-fullhint-6x11"], line_spacings=(0,),
                   reflows=(False, True), names=("rapidocr",), reader_rows=4, progress=False)
    assert frame["reflow"].to_list() == [False, True]
    lines, flowed = frame.row(0, named=True), frame.row(1, named=True)
    assert flowed["fill"] > 0.9 > 0.8 > lines["fill"]  # a tab's fill cells are no characters
    assert flowed["compression_full"] > 1.3 * lines["compression_full"]
    assert flowed["reader_cer"] is not None and flowed["excess"] is not None
