"""Break marks of reflowed rows, the page search over marks, column counts and gutters, and the
cells a wide character takes in the layout's line lengths."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from toolkit.errors import InvalidInput
from toolkit.snapshot import Geometry, decode, font, render
from toolkit.snapshot.font import BREAK_MARKS
from toolkit.snapshot.geometry import GUTTER, line_cells, line_lengths, preset, rows_needed
from toolkit.snapshot.readers import page_lines, restored
from toolkit.snapshot.tradeoff import search

CELL = "dejavu-aa-fullhint-6x11"
TEXT = "def f(x):\n\treturn x  \n\nThe § sign, a » and a ¬ of the text itself.\n" * 30
NAMES = [mark.name for mark in BREAK_MARKS]


@pytest.mark.parametrize("name", NAMES)
def test_every_break_mark_reads_back_and_is_shown_as_its_shape(name: str) -> None:
    geometry = Geometry(CELL, 600, 400, columns=2, reflow=True, break_mark=name)
    pages = render(TEXT, geometry)
    assert decode(pages, geometry).text == TEXT, "the text's own §, » and ¬ are not breaks"
    f = font(CELL)
    glyph = f.break_glyph(name)
    assert int((pages[0].grid == glyph).sum()) > 0
    assert not (pages[0].grid == f.lookup[ord(BREAK_MARKS[NAMES.index(name)].shape)]).all()
    page = render("ab\ncd", geometry)[0]
    shape = BREAK_MARKS[NAMES.index(name)].shape
    assert page_lines(page)[0] == f"ab{shape}cd"
    assert restored(page_lines(page)[0], name) == "ab\ncd"


def test_the_marks_are_distinct_from_every_glyph_and_each_other() -> None:
    for cell in (CELL, "4x6", "spleen-5x8"):  # spleen-5x8 draws none of the shapes: its moved uncovered marks differ
        f = font(cell)
        assert len(set(f.breaks)) == len(BREAK_MARKS) and f.breaks[0] == f.line_break
        marks = f.glyphs[list(f.breaks)]
        others = f.glyphs[:f.breaks[0]]
        for mark in marks:
            assert not (others == mark).all(axis=(1, 2)).any()
        assert len({m.tobytes() for m in marks}) == len(marks)


def test_a_break_mark_is_named_or_refused() -> None:
    with pytest.raises(InvalidInput, match="no break mark 'pilcrow'; marks: not, section, guillemet"):
        Geometry(CELL, 600, 400, reflow=True, break_mark="pilcrow")
    plain = Geometry(CELL, 600, 400, reflow=True)
    assert "break_mark" not in repr(plain), "the default mark leaves page ids as they were"
    assert "break_mark='section'" in repr(replace(plain, break_mark="section"))


def test_a_wide_character_takes_two_cells_in_the_line_lengths() -> None:
    assert line_cells("日本") == 4 and line_cells("ab") == 2 and line_cells("ＡＢ") == 4  # fullwidth too
    assert line_cells("日\tx") == 5, "the tab stops after the two cells of 日"
    assert line_lengths("日本語\nabc\n\tx") == ((3, 1), (5, 1), (6, 1))
    assert rows_needed(line_lengths("日本語日本語"), 10) == 2, "12 cells wrap where 6 characters would not"
    geometry = Geometry(CELL, 600, 400)
    line = "表示\t中文 text 日本"
    page, = render(line, geometry)
    drawn = np.flatnonzero(page.grid[0] != font(CELL).blank)
    assert drawn[-1] + 1 == line_cells(line), "the layout counts what the renderer draws"


def test_the_page_search_takes_a_gutter_and_a_column_count() -> None:
    model = "gemini-2.5-flash"  # one flat-priced page size to search: the cheapest search
    own = preset(model, CELL, reflow=True)
    two = preset(model, CELL, reflow=True, columns=2, gutter=9)
    assert two.geometry.columns == 2 and two.geometry.gutter == 9 and own.geometry.gutter == GUTTER
    assert own.geometry.columns != 2 and own.chars_per_token > two.chars_per_token, "a gutter holds no text"
    with pytest.raises(InvalidInput, match="in 40 columns"):
        preset(model, CELL, columns=40)
    with pytest.raises(InvalidInput, match="at least one text column"):
        preset(model, CELL, columns=0)


def test_search_varies_break_mark_column_count_and_gutter() -> None:
    """Two pages searched (two gutters at two columns, where the search alone takes one column for
    reflowed rows on this flat-priced page), each with two break marks; reading is tested elsewhere."""
    frame = search(TEXT, "gemini-2.5-flash", [CELL], line_spacings=(0,), names=(), progress=False,
                   reflows=(True,), break_marks=("not", "section"), column_counts=(2,), gutters=(5, 9))
    assert frame.height == 2 * 2
    assert frame["break_mark"].to_list() == ["not", "not", "section", "section"]
    assert frame["gutter"].to_list() == [5, 9, 5, 9] and frame["columns"].to_list() == [2] * 4
    assert preset("gemini-2.5-flash", CELL, sample=TEXT, reflow=True).geometry.columns == 1
    assert frame["reader_cer"].null_count() == frame.height, "no reader asked"
