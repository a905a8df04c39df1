"""The renderer: layout rules, pixels against a per-cell reference, and the round trip."""

from __future__ import annotations

import hashlib
from io import BytesIO
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from toolkit.snapshot.font import cells, face, load
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.render import (
    CONTINUATION,
    END,
    HEADER,
    TEXT,
    UNUSED,
    Page,
    Passage,
    decode,
    read,
    render,
)


def tiny(cols: int = 10, rows: int = 3, cell: str = "4x6", **extra: Any) -> Geometry:
    width = int(cell.split("x")[0])
    return Geometry(cell, 4 + cols * width, 4 + rows * load(cell).height, **extra)


def reference_ink(page: Page) -> np.ndarray:
    """The page drawn one cell at a time (slow and obvious, independent of ``draw``)."""
    g = page.geometry
    font = load(g.cell)
    out = np.zeros((g.height, g.width), dtype=bool)
    for index, (row, kind) in enumerate(zip(page.grid, page.kinds, strict=True)):
        column, r = divmod(index, g.rows)
        y = g.margin + r * g.pitch
        for c, glyph in enumerate(row):
            x = g.column_x(column) + c * font.width
            bitmap = font.glyphs[font.greater if kind == HEADER and c == 0 else glyph]
            out[y:y + font.height, x:x + font.width] = bitmap
        if kind == HEADER:
            x0 = g.column_x(column)
            out[y:y + g.pitch, x0:x0 + g.cols * font.width] ^= True
    for column in range(1, g.columns):
        out[g.margin:g.margin + g.rows * g.pitch, g.column_x(column) - (g.gutter + 1) // 2] = True
    return out


def test_a_long_line_wraps_with_the_continuation_mark() -> None:
    font = load("4x6")
    page, = render("a" * 25, tiny())
    a = font.lookup[ord("a")]
    assert list(page.kinds) == [TEXT, CONTINUATION, CONTINUATION]
    assert (page.grid[0] == a).all()
    assert page.grid[1, 0] == font.continuation and (page.grid[1, 1:] == a).all()
    assert page.grid[2, 0] == font.continuation
    assert (page.grid[2, 1:7] == a).all() and (page.grid[2, 7:] == font.blank).all()
    assert page.chars == 25 and page.text_cells.sum() == 25


def test_the_first_unused_row_carries_the_end_mark() -> None:
    font = load("4x6")
    page, = render("x", tiny())
    assert list(page.kinds) == [TEXT, END, UNUSED]
    assert page.grid[1, 0] == font.end


def test_tabs_expand_to_stops_and_trailing_spaces_are_marked() -> None:
    font = load("4x6")
    page, = render("a\tb\nab  ", tiny(tab_size=4))
    row0, row1 = page.grid[0], page.grid[1]
    assert list(row0[:5]) == [font.lookup[ord("a")], font.tab, font.blank, font.blank, font.lookup[ord("b")]]
    assert list(row1[:4]) == [font.lookup[ord("a")], font.lookup[ord("b")], font.trailing, font.trailing]
    assert page.chars == len("a\tb\nab  ")


def test_uncovered_characters_are_marked_and_counted() -> None:
    font = load("4x6")
    page, = render("x😀y\x1b", tiny())
    assert page.uncovered == 2 and page.chars == 4
    assert page.grid[0, 1] == font.uncovered and page.grid[0, 3] == font.uncovered


def test_messages_start_with_an_inverted_header_row() -> None:
    g = tiny(cols=20, rows=4)
    page, = render([Passage("hi", "user · m1", "m1"), Passage("yo", "assistant · m2", "m2")], g)
    assert list(page.kinds) == [HEADER, TEXT, HEADER, TEXT]
    band = page.ink[g.margin:g.margin + g.pitch, g.margin:g.margin + g.cols * 4]
    assert band.mean() > 0.6
    assert page.turns == ("m1", "m2")


@pytest.mark.parametrize("geometry", [
    Geometry("4x6", 300, 200), Geometry("6x13", 500, 300, line_spacing=2), Geometry("5x8", 700, 200, columns=2),
    Geometry("9x15", 900, 300, columns=2, margin=3), Geometry("10x20", 600, 300),
])
def test_pixels_match_a_cell_by_cell_reference(geometry: Geometry) -> None:
    text = "Header test\tx  \n" + "word " * 90 + "\nІсторія ✓ 😀 ┌─┐\n\n\tend"
    pages = render([Passage(text, "user · m1", "m1"), Passage("second", "assistant · m2", "m2")], geometry)
    assert len(pages) >= 1
    for page in pages:
        assert (page.ink == reference_ink(page)).all()


def test_png_is_one_bit_deterministic_and_reads_back() -> None:
    g = Geometry("4x6", 200, 120)
    first = render("Same text, same bytes.\n\tAgain.", g)[0].png()
    second = render("Same text, same bytes.\n\tAgain.", g)[0].png()
    assert first == second
    with Image.open(BytesIO(first)) as image:
        assert image.mode == "1" and image.size == (200, 120)
        assert decode([image.copy()], g).text == "Same text, same bytes.\n\tAgain."


def test_kept_png_bytes_are_the_bytes_a_fresh_encoding_gives() -> None:
    """``png`` keeps encodings by what determines the pixels: the same page drawn again gets the
    same bytes without drawing, a page differing by one character gets its own."""
    geometry = Geometry("dejavu-aa-nohint-5x12", 400, 200)
    first = render("def parse(text):\n    return text", geometry)[0]
    again = render("def parse(text):\n    return text", geometry)[0]
    other = render("def parse(text):\n    return test", geometry)[0]
    out = BytesIO()
    first.image.save(out, format="PNG")
    assert first.png() == again.png() == out.getvalue()
    assert "_pixels" not in again.__dict__  # served from the kept encoding, never drawn
    assert other.png() != first.png()
    assert np.array_equal(np.asarray(Image.open(BytesIO(other.png()))), ~other.levels)


def test_read_finds_the_grid_and_row_kinds_from_pixels() -> None:
    g = tiny(cols=12, rows=5)
    page, = render([Passage("abc " * 5, "u · 1", "1")], g)
    grid, kinds = read(page.image, g)
    assert (kinds[:3] == page.kinds[:3]).all() and kinds[3] == END
    used = page.kinds != UNUSED
    assert (grid[used] == page.grid[used]).all()


ALPHABET = st.sampled_from(list("abcXYZ019 .,;:!?-_/\\\"'()[]{}<>|") + list("АБВгдеЇїҐґ") + list("ΑΒΓαβγάέ")
                           + list("┌┐└┘─│├┤") + list("\t\n  \u00a0") + ["\x1b", "\r", "😀", "联", "\ue000", "é", "ß"])


@settings(max_examples=60, deadline=None)
@given(text=st.lists(ALPHABET, max_size=400).map("".join))
def test_round_trip_returns_the_text_up_to_homoglyphs_and_uncovered(text: str) -> None:
    for geometry in (Geometry("4x6", 120, 60, tab_size=4), Geometry("6x13", 300, 100, columns=2, tab_size=8)):
        font = load(geometry.cell)
        pages = render(text, geometry)
        assert decode(pages, geometry).text == font.fold(text)
        assert sum(p.chars for p in pages) == len(text)
        assert sum(p.uncovered for p in pages) == sum(1 for c in text if c not in "\n\t" and not font.covers(c))


def test_messages_round_trip_with_their_labels() -> None:
    g = Geometry("5x7", 400, 150, columns=2)
    turns = [Passage("first\nmessage", "user · 2025-01-01 10:00 · a1", "a1"), Passage("", "assistant · a2", "a2"),
             Passage("tab\there  ", "tool · a3", "a3")]
    decoded = decode(render(turns, g), g)
    assert decoded.turns == (("user · 2025-01-01 10:00 · a1", "first\nmessage"), ("assistant · a2", ""),
                             ("tool · a3", "tab\there  "))


def test_no_messages_no_pages_and_empty_text_one_page() -> None:
    g = tiny()
    assert render([], g) == []
    page, = render("", g)
    assert list(page.kinds) == [TEXT, END, UNUSED] and page.chars == 0
    assert decode([page], g).text == ""


def test_geometry_rejects_unknown_cells_and_pages_too_small() -> None:
    with pytest.raises(ValueError, match="no glyph cell"):
        Geometry("3x5", 400, 400)
    with pytest.raises(ValueError, match="at least 8 columns"):
        Geometry("4x6", 30, 400)


# --- 1-bit pages stay as they were; greyscale pages ----------------------------------------------

DIGEST_TEXT = "Digest of 1-bit pages\twith tabs  \n" + "wrapping words " * 40 + "\nІсторія ✓ 😀 ┌─┐"


def test_one_bit_pages_are_byte_identical_to_before_greyscale_cells() -> None:
    """PNG digests taken before greyscale cells were added to the renderer."""
    before = {"4x6": "8f67ce655c7e6d64", "6x13": "2ade15f57e7f7cb1", "terminus-6x12": "3c87e8352dd9ce15",
              "dejavu-7x14": "59495e46f057fbd3", "unifont-8x16": "26252fcc7c2e89dc"}
    found = {}
    for cell in before:
        pages = render([Passage(DIGEST_TEXT, "user · m1", "m1")], Geometry(cell, 420, 200, columns=2))
        assert all(page.image.mode == "1" and not page.grey for page in pages)
        found[cell] = hashlib.sha256(b"".join(page.png() for page in pages)).hexdigest()[:16]
    assert found == before


GREY = [cell for cell in cells() if face(cell).startswith("dejavu-aa")]


def reference_levels(page: Page) -> np.ndarray:
    """A greyscale page drawn one cell at a time (slow and obvious, independent of ``draw``)."""
    g = page.geometry
    font = load(g.cell)
    out = np.zeros((g.height, g.width), dtype=np.uint8)
    for index, (row, kind) in enumerate(zip(page.grid, page.kinds, strict=True)):
        column, r = divmod(index, g.rows)
        y = g.margin + r * g.pitch
        for c, glyph in enumerate(row):
            x = g.column_x(column) + c * font.width
            out[y:y + font.height, x:x + font.width] = font.glyphs[font.greater if kind == HEADER and c == 0 else glyph]
        if kind == HEADER:
            x0 = g.column_x(column)
            out[y:y + g.pitch, x0:x0 + g.cols * font.width] = 255 - out[y:y + g.pitch, x0:x0 + g.cols * font.width]
    for column in range(1, g.columns):
        out[g.margin:g.margin + g.rows * g.pitch, g.column_x(column) - (g.gutter + 1) // 2] = 255
    return out


@pytest.mark.parametrize("cell", GREY)
def test_greyscale_pages_are_8_bit_deterministic_and_decode_exactly(cell: str) -> None:
    font = load(cell)
    text = "Header test\tx  \n" + "word " * 90 + "\nІсторія ✓ 😀 ┌─┐ l1I|0O .,`'\n\n\tend"
    geometry = Geometry(cell, 300, 80, columns=2, line_spacing=1, tab_size=4)
    turns = [Passage(text, "user · m1", "m1"), Passage("second", "assistant · m2", "m2")]
    pages = render(turns, geometry)
    assert len(pages) >= 2
    for page in pages:
        assert page.grey and page.image.mode == "L"
        assert (page.levels == reference_levels(page)).all()
        assert (page.ink == (page.levels >= 128)).all()
        levels = np.unique(page.levels)
        assert levels[0] == 0 and levels[-1] == 255 and len(levels) > 50
    pngs = [page.png() for page in pages]
    assert pngs == [page.png() for page in render(turns, geometry)]
    images = [Image.open(BytesIO(png)) for png in pngs]
    assert all(image.mode == "L" and image.size == geometry.size for image in images)
    expected = ((font.fold("user · m1"), font.fold(text)), (font.fold("assistant · m2"), "second"))
    assert decode(images, geometry).turns == expected
    assert decode(pages, geometry).turns == expected
    assert decode([page.levels for page in pages], geometry).turns == expected


@settings(max_examples=30, deadline=None)
@given(text=st.lists(ALPHABET, max_size=300).map("".join))
def test_greyscale_round_trip_returns_the_text_up_to_homoglyphs(text: str) -> None:
    geometry = Geometry("dejavu-aa-5x9", 200, 80, tab_size=4)
    font = load(geometry.cell)
    assert decode(render(text, geometry), geometry).text == font.fold(text)


def test_a_greyscale_header_row_is_a_dark_bar() -> None:
    g = Geometry("dejavu-aa-6x11", 200, 60)
    page, = render([Passage("hi", "user · m1", "m1")], g)
    band = page.levels[g.margin:g.margin + g.pitch, g.margin:g.margin + g.cols * 6]
    assert band.mean() > 200
