"""The glyph atlas: coverage, distinct bitmaps, homoglyph classes, committed compactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from toolkit.snapshot.font import MARKS, REQUIRED, UNCOVERED_CHAR, cells, load, parse_cell

FONTS = Path(__file__).resolve().parents[1] / "toolkit" / "snapshot" / "fonts"


def test_there_is_a_cell_of_six_pixels_or_less_and_larger_ones() -> None:
    heights = [parse_cell(cell)[1] for cell in cells()]
    assert min(heights) <= 6
    assert max(heights) >= 13
    assert cells()[0] == "4x6"


@pytest.mark.parametrize("cell", [c for c in cells() if parse_cell(c)[1] <= 6])
def test_small_cells_draw_every_required_character(cell: str) -> None:
    font = load(cell)
    for name, codepoints in REQUIRED.items():
        missing = [chr(c) for c in codepoints if not font.covers(chr(c))]
        assert not missing, f"{cell} lacks {name}: {''.join(missing)}"
    assert len(REQUIRED["ascii"]) == 95 and len(REQUIRED["latin-1"]) == 96
    assert font.covers("Ґ") and font.covers("ґ") and font.covers("ї") and font.covers("Ω")


def test_four_by_six_letters_are_the_misc_fixed_bitmaps() -> None:
    font = load("4x6")
    expected_e = ["###.", "#...", "##..", "#...", "###.", "...."]
    glyph = font.glyphs[font.lookup[ord("E")]]
    assert ["".join("#" if bit else "." for bit in row) for row in glyph] == expected_e
    assert font.glyphs[font.blank].sum() == 0
    assert (font.width, font.height, font.ascent) == (4, 6, 5)


@pytest.mark.parametrize("cell", cells())
def test_glyphs_are_pairwise_distinct_and_marks_are_not_characters(cell: str) -> None:
    font = load(cell)
    flat = font.glyphs.reshape(len(font.glyphs), -1)
    assert len(np.unique(flat, axis=0)) == len(flat)
    mark_ids = [getattr(font, mark) for mark in MARKS]
    assert len(set(mark_ids)) == len(MARKS)
    for glyph in mark_ids:
        assert font.members[glyph] == ""
        assert not (font.lookup == glyph).any() or glyph == font.uncovered


def test_identical_bitmaps_form_one_class_decoded_as_ascii() -> None:
    font = load("4x6")
    latin, greek, cyrillic = ord("A"), ord("Α"), ord("А")
    assert font.lookup[latin] == font.lookup[greek] == font.lookup[cyrillic]
    assert font.fold("\u0410\u0412\u0421") == "ABC"
    assert any({"A", "Α", "А"} <= set(group) for group in font.homoglyphs())
    assert font.lookup[ord("0")] != font.lookup[ord("O")]


def test_controls_private_use_and_astral_characters_are_uncovered() -> None:
    font = load("4x6")
    for char in ("\x1b", "\r", "\ue000", "\uf8ff", "😀", "联"):
        assert not font.covers(char)
    assert font.fold("a\x1bb\tc\nd😀") == f"a{UNCOVERED_CHAR}b\tc\nd{UNCOVERED_CHAR}"
    assert font.fold("\ud800") == UNCOVERED_CHAR


def test_atlas_is_committed_as_one_bit_png_and_json_with_its_licence() -> None:
    atlas = json.loads((FONTS / "atlas.json").read_text("utf-8"))
    assert list(atlas["cells"]) == list(cells())
    total = (FONTS / "atlas.json").stat().st_size
    for cell, meta in atlas["cells"].items():
        path = FONTS / meta["file"]
        total += path.stat().st_size
        with Image.open(path) as image:
            assert image.mode == "1"
        count = sum(length for _, length in meta["codepoints"])
        assert count == meta["glyphs"]
        assert "Public domain" in meta["copyright"]
        assert load(cell).covered == count
    assert total < 300_000
    licence = (FONTS / "LICENSE.txt").read_text("utf-8")
    assert "Public domain font.  Share and enjoy." in licence
    assert (FONTS / "build_atlas.py").is_file()
