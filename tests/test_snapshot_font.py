"""The glyph atlas: coverage, distinct bitmaps, homoglyph classes, committed compactly."""

from __future__ import annotations

import hashlib
import json
import struct
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from toolkit.snapshot.font import MARKS, REQUIRED, UNCOVERED_CHAR, cells, face, load, parse_cell
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.render import Passage, decode, render

FONTS = Path(__file__).resolve().parents[1] / "toolkit" / "snapshot" / "fonts"
MISC_FIXED = ("4x6", "5x7", "5x8", "6x10", "6x13", "7x14", "9x15", "10x20")
NEW = [cell for cell in cells() if face(cell) != "misc-fixed"]
GREY = [cell for cell in NEW if face(cell).startswith("dejavu-aa")]
ONE_BIT_NEW = [cell for cell in NEW if cell not in GREY]


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
    grey_total = 0
    for cell, meta in atlas["cells"].items():
        path = FONTS / meta["file"]
        grey = meta.get("mode", "1") == "L"
        if grey:
            grey_total += path.stat().st_size
        else:
            total += path.stat().st_size
        assert grey == (cell in GREY)
        with Image.open(path) as image:
            assert image.mode == ("L" if grey else "1")
        count = sum(length for _, length in meta["codepoints"])
        assert count == meta["glyphs"]
        assert "Public domain" in meta["copyright"] or cell in NEW
        wide = meta.get("wide")
        assert load(cell).covered == count + (len(load(cell).pairs) if wide else 0)
    assert total < 600_000
    assert grey_total < 900_000
    licence = (FONTS / "LICENSE.txt").read_text("utf-8")
    assert "Public domain font.  Share and enjoy." in licence
    assert (FONTS / "build_atlas.py").is_file()


# --- the other faces ------------------------------------------------------------------------------


def _digest(cell: str) -> str:
    """Of the atlas's glyphs: the line-break marks derived at load come after them all, so no
    earlier glyph id moves."""
    font = load(cell)
    assert font.breaks == tuple(range(len(font.glyphs) - len(font.breaks), len(font.glyphs)))
    return hashlib.sha256(font.glyphs[:font.line_break].tobytes() + font.lookup.tobytes()).hexdigest()[:16]


def test_misc_fixed_cells_come_first_and_load_exactly_as_before_the_other_faces() -> None:
    """Digests of (glyph bitmaps, code point lookup) taken before any other face was added."""
    before = {"4x6": "164623fa2b064d2d", "5x7": "75f964f9123f02a7", "5x8": "5277752bb0d61e3b",
              "6x10": "9d2114d2125de5a1", "6x13": "0a873dc85634d453", "7x14": "42b41574cbe83e80",
              "9x15": "4461398149d9e3a7", "10x20": "05686ea5ab16c01e"}
    assert cells()[:len(MISC_FIXED)] == MISC_FIXED
    assert {cell: _digest(cell) for cell in MISC_FIXED} == before
    assert all(face(cell) == "misc-fixed" for cell in MISC_FIXED)


def test_other_faces_follow_by_cell_area_then_the_greyscale_cells() -> None:
    areas = [parse_cell(cell)[0] * parse_cell(cell)[1] for cell in ONE_BIT_NEW]
    assert areas == sorted(areas)
    assert NEW[0] == "spleen-5x8"
    assert NEW == ONE_BIT_NEW + GREY
    assert {face(cell) for cell in ONE_BIT_NEW} == {"terminus", "terminus-bold", "spleen", "unifont", "dejavu"}
    assert GREY == ["dejavu-aa-4x9", "dejavu-aa-5x9", "dejavu-aa-5x11", "dejavu-aa-6x11", "dejavu-aa-7x14",
                    "dejavu-aa-nohint-4x9", "dejavu-aa-nohint-5x10", "dejavu-aa-nohint-5x12", "dejavu-aa-nohint-6x13",
                    "dejavu-aa-nohint-7x14", "dejavu-aa-fullhint-6x11"]
    assert {"terminus-6x12", "terminus-8x14", "terminus-8x16", "terminus-10x18", "terminus-10x20",
            "spleen-5x8", "spleen-6x12", "spleen-8x16", "unifont-8x16", "dejavu-5x9", "dejavu-8x15"} <= set(NEW)


def test_parse_cell_reads_both_name_forms() -> None:
    assert parse_cell("4x6") == (4, 6)
    assert parse_cell("terminus-bold-10x20") == (10, 20)
    assert face("terminus-bold-10x20") == "terminus-bold"
    assert face("dejavu-5x9") == "dejavu"
    assert face("9x15") == "misc-fixed"
    for bad in ("terminus", "spleen-5by8", "x6", "4x"):
        with pytest.raises(ValueError, match="not a glyph cell name"):
            parse_cell(bad)


@pytest.mark.parametrize("cell", NEW)
def test_other_faces_draw_ascii_at_their_named_size(cell: str) -> None:
    font = load(cell)
    assert (font.width, font.height) == parse_cell(cell)
    assert font.glyphs.shape[1:] == (font.height, font.width)
    missing = [chr(c) for c in REQUIRED["ascii"] if not font.covers(chr(c))]
    assert not missing
    ascii_ids = {int(font.lookup[c]) for c in REQUIRED["ascii"]}
    assert len(ascii_ids) == len(REQUIRED["ascii"])  # no two printable ASCII characters look alike
    assert font.glyphs[font.blank].sum() == 0


@pytest.mark.parametrize("cell", NEW)
def test_other_faces_record_package_version_licence_and_notice(cell: str) -> None:
    atlas = json.loads((FONTS / "atlas.json").read_text("utf-8"))
    meta = atlas["faces"][face(cell)]
    assert meta["package"] and meta["version"] and meta["licence"]
    assert meta["notice"] in (FONTS / "LICENSE.txt").read_text("utf-8")
    assert atlas["cells"][cell]["face"] == face(cell)


def test_glyphs_are_the_fonts_bitmaps_and_empty_ones_are_uncovered() -> None:
    rows = {
        ("spleen-5x8", "m"): [".....", ".....", "#..#.", "####.", "####.", "#..#.", "#..#.", "....."],
        ("dejavu-5x9", "E"): [".....", ".####", ".#...", ".#...", ".####", ".#...", ".####", ".....", "....."],
        ("terminus-6x12", "a"): ["......"] * 4 + [".###..", "....#.", ".####.", "#...#.", "#...#.", ".####."]
                                 + ["......"] * 2,
    }
    for (cell, char), expected in rows.items():
        font = load(cell)
        glyph = font.glyphs[font.lookup[ord(char)]]
        assert ["".join("#" if bit else "." for bit in row) for row in glyph] == expected
    spleen = load("spleen-5x8")  # its Latin-1 letters are empty cells in the font file
    assert spleen.covers("a") and not spleen.covers("é") and spleen.covered == 374
    assert spleen.covers("✓")  # drawn by the project
    bold, normal = load("terminus-bold-8x16"), load("terminus-8x16")
    assert bold.glyphs[bold.lookup[ord("a")]].sum() > normal.glyphs[normal.lookup[ord("a")]].sum()


def test_unifont_draws_single_width_glyphs_and_leaves_double_width_uncovered() -> None:
    font = load("unifont-8x16")
    assert font.covers("Ж") and font.covers("α") and font.covers("ｱ")
    assert not font.covers("联") and not font.covers("ア")
    assert font.fold("Жa联") == f"Жa{UNCOVERED_CHAR}"


ROUND_TRIP = "def f(x):\n\treturn x + 1  \nΑλφα Ж é ß ✓ ┌─┐ 联 😀 " + "long line " * 12 + "\n\n{[()]} l1I|0O m/n"


@pytest.mark.parametrize("cell", NEW)
def test_a_page_in_every_new_cell_decodes_back_from_its_png(cell: str) -> None:
    font = load(cell)
    width, height = parse_cell(cell)
    geometry = Geometry(cell, 4 + 40 * width * 2 + 5, 4 + 5 * height, columns=2, tab_size=4)
    turns = [Passage(ROUND_TRIP, "user · a1", "a1"), Passage("tail\t ", "tool · a2", "a2")]
    pages = render(turns, geometry)
    assert len(pages) == 2
    images = [Image.open(BytesIO(page.png())) for page in pages]
    decoded = decode(images, geometry)
    assert decoded.turns == ((font.fold("user · a1"), font.fold(ROUND_TRIP)), (font.fold("tool · a2"), "tail\t "))
    assert sum(page.uncovered for page in pages) == sum(1 for c in ROUND_TRIP if c not in "\n\t" and not font.covers(c))


# --- greyscale (anti-aliased) cells ---------------------------------------------------------------


@pytest.mark.parametrize("cell", GREY)
def test_greyscale_cells_hold_coverage_with_distinct_marks_and_all_of_ascii(cell: str) -> None:
    font = load(cell)
    assert font.grey and font.glyphs.dtype == np.uint8
    assert not load("dejavu-7x14").grey and load("dejavu-7x14").glyphs.dtype == bool
    marks = font.glyphs[[getattr(font, mark) for mark in MARKS]].reshape(len(MARKS), -1)
    assert len(np.unique(marks, axis=0)) == len(MARKS)
    assert all(font.covers(chr(c)) for c in REQUIRED["ascii"])
    assert (font.glyphs[font.header] == 255 - font.glyphs[font.greater]).all()
    assert (font.glyphs[font.uncovered] == 255 - font.glyphs[font.lookup[ord("?")]]).all()
    hinting = "unhinted (instructions removed)" if face(cell) == "dejavu-aa-nohint" else "hinted"
    assert font.font.endswith(f"greyscale {hinting}")


def test_greyscale_m_is_anti_aliased_not_thresholded() -> None:
    """DejaVu Sans Mono 10 px: FreeType's hinting moves points vertically only, so the hinted and
    unhinted "m" share their columns' grey levels and differ in height (5 rows against 6)."""
    hinted, unhinted = load("dejavu-aa-6x11"), load("dejavu-aa-nohint-6x13")
    m = hinted.glyphs[hinted.lookup[ord("m")]]
    assert int(((m > 0) & (m < 255)).sum()) == 30 and int((m == 255).sum()) == 0 and int(m.sum()) == 3602
    assert m[8].tolist() == [120, 88, 96, 112, 72, 140]
    n = unhinted.glyphs[unhinted.lookup[ord("m")]]
    assert int(((n > 0) & (n < 255)).sum()) == 36 and n[9].tolist() == [120, 88, 96, 112, 72, 140]
    assert "10 px" in hinted.font and "10 px" in unhinted.font


def test_instructions_are_removed_from_simple_and_composite_glyphs() -> None:
    from toolkit.snapshot.fonts.build_atlas import _without_instructions

    box = struct.pack(">hhhhh", 1, 0, 0, 10, 10)
    simple = box + struct.pack(">HH", 2, 3) + b"\x01\x02\x03" + b"points"
    assert _without_instructions(simple) == box + struct.pack(">HH", 2, 0) + b"points"
    head = struct.pack(">hhhhh", -1, 0, 0, 10, 10)
    first = struct.pack(">HHbb", 0x0020 | 0x0100, 7, 1, 2)  # byte args, more components, instructions
    second = struct.pack(">HHhhh", 0x0001 | 0x0008, 8, 300, -4, 0x4000)  # word args and a scale
    composite = head + first + second + struct.pack(">H", 2) + b"\xb0\x00"
    stripped = head + struct.pack(">HHbb", 0x0020, 7, 1, 2) + second
    assert _without_instructions(composite) == stripped
    assert _without_instructions(b"") == b""
