"""Glyph cell variants: DejaVu Sans Mono anti-aliased and hinted in both directions (``dejavu-aa-fullhint``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from io import BytesIO
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from toolkit.snapshot import Geometry, Passage, decode, geometry_for, legibility, render
from toolkit.snapshot.font import MARKS, REQUIRED, UNCOVERED_CHAR, cells, face, load, parse_cell
from toolkit.snapshot.fonts import build_atlas
from toolkit.snapshot.readers import RapidOcr, normalise, page_lines, read, strips

FONTS = Path(__file__).resolve().parents[1] / "toolkit" / "snapshot" / "fonts"
FULL = "dejavu-aa-fullhint-6x11"
LIGHT = "dejavu-aa-6x11"
"""The hinted greyscale cell of the same size (10 px): FreeType's default hints vertically only."""


def _glyph(cell: str, char: str) -> npt.NDArray[np.uint8]:
    font = load(cell)
    return np.asarray(font.glyphs[font.lookup[ord(char)]], dtype=np.uint8)


def test_the_fully_hinted_cell_is_shipped_and_recorded() -> None:
    assert FULL in cells() and cells()[-1] == FULL
    assert parse_cell(FULL) == (6, 11) and face(FULL) == "dejavu-aa-fullhint"
    atlas = json.loads((FONTS / "atlas.json").read_text("utf-8"))
    entry, family = atlas["cells"][FULL], atlas["faces"]["dejavu-aa-fullhint"]
    assert entry["face"] == "dejavu-aa-fullhint" and entry["mode"] == "L" and entry["file"] == f"{FULL}.png"
    assert entry["font"].startswith("DejaVu Sans Mono Book 10 px, FreeType ")
    assert "(TrueType interpreter v35, x and y) greyscale hinted" in entry["font"]
    assert family == atlas["faces"]["dejavu-aa"] and family["package"] == "fonts-dejavu-core"
    assert family["notice"] in (FONTS / "LICENSE.txt").read_text("utf-8")
    assert build_atlas.FULL_HINT_SIZES == (10,)


def test_the_fully_hinted_cell_is_well_formed() -> None:
    font, light = load(FULL), load(LIGHT)
    assert font.grey and font.glyphs.dtype == np.uint8 and font.glyphs.shape[1:] == (11, 6)
    assert (font.width, font.height, font.ascent) == (light.width, light.height, light.ascent) == (6, 11, 9)
    ascii_ids = {int(font.lookup[c]) for c in REQUIRED["ascii"]}
    assert len(ascii_ids) == 95 and font.uncovered not in ascii_ids  # all drawn, no two alike
    assert font.covered - len(font.pairs) == light.covered > 3000  # and its wide characters
    marks = font.glyphs[[getattr(font, mark) for mark in MARKS]].reshape(len(MARKS), -1)
    assert len(np.unique(marks, axis=0)) == len(MARKS)
    assert (font.glyphs[font.header] == 255 - font.glyphs[font.greater]).all()
    assert font.glyphs[font.blank].sum() == 0


def test_full_hinting_puts_stems_on_whole_pixels() -> None:
    """The glyphs OCR engines misread in the default hinting: ``"`` is one grey smear four columns
    wide there (read as ``TM``, ``*`` or ``®``), two full-ink ticks with a blank column between
    them here; the stems of ``m`` and ``H`` are full-ink columns here and grey pairs there."""
    quote, smear = _glyph(FULL, '"'), _glyph(LIGHT, '"')
    assert quote[2:5].tolist() == [[0, 0, 255, 0, 255, 0]] * 3 and quote.sum() == 6 * 255
    assert smear.max() < 160 and int((smear > 0).sum()) == 12
    m, light_m = _glyph(FULL, "m"), _glyph(LIGHT, "m")
    assert m[7].tolist() == m[8].tolist() == [0, 255, 0, 255, 0, 255]
    assert light_m.max() < 255
    h, light_h = _glyph(FULL, "H"), _glyph(LIGHT, "H")
    assert (h[2:9, 1] == 255).all() and (h[2:9, 5] == 255).all() and (h[5, 1:] == 255).all()
    assert (light_h == 255).sum() < (h == 255).sum()
    full_ids = load(FULL).lookup[list(REQUIRED["ascii"])]
    light_ids = load(LIGHT).lookup[list(REQUIRED["ascii"])]
    solid, light_solid = int((load(FULL).glyphs[full_ids] == 255).sum()), int((load(LIGHT).glyphs[light_ids] == 255).sum())
    assert solid > 3 * light_solid  # full ink replaces grey across the whole of ASCII
    # Vertical hinting alone is the same in both: rows of H's crossbar and of the baseline agree.
    assert (light_h[5] > 0).sum() >= 4 and (light_h[9:] == 0).all() and (h[9:] == 0).all()


def _built_with() -> str:
    cell = json.loads((Path(build_atlas.__file__).parent / "atlas.json").read_text(encoding="utf-8"))["cells"][FULL]
    return str(cell["font"]).split("FreeType ")[1].split()[0]


def test_the_build_rasterises_the_committed_cell_with_full_hinting() -> None:
    """The build's child process reproduces the committed glyphs exactly, and the default hinting
    differs from them (so FreeType took ``FREETYPE_PROPERTIES``)."""
    from PIL import features

    if features.version("freetype2") != _built_with():
        pytest.skip(f"Pillow's FreeType {features.version('freetype2')} is not the {_built_with()} the atlas was "
                    "built with: another FreeType may place pixels differently")
    built = build_atlas._full_hinted(build_atlas.DEJAVU, 10)
    font = load(FULL)
    assert built.name == FULL and (built.width, built.height, built.ascent) == (6, 11, 9)
    for char in '"mH0l{}@~':
        assert np.array_equal(built.glyphs[ord(char)], font.glyphs[font.lookup[ord(char)]]), char
    light = build_atlas._dejavu(build_atlas.DEJAVU, 10, grey=True)
    assert not np.array_equal(light.glyphs[ord('"')], built.glyphs[ord('"')])


def test_the_child_refuses_to_run_without_the_freetype_property() -> None:
    env = {k: v for k, v in os.environ.items() if k != "FREETYPE_PROPERTIES"}
    done = subprocess.run([sys.executable, build_atlas.__file__, "--full-hinting", str(build_atlas.DEJAVU), "10", "1",
                           "12"], env=env, capture_output=True, check=False, text=True)
    assert done.returncode != 0 and "FREETYPE_PROPERTIES" in done.stderr


def test_the_build_refuses_freetype_properties_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    monkeypatch.setenv("FREETYPE_PROPERTIES", build_atlas.FULL_HINTING)
    with pytest.raises(ValueError, match="FREETYPE_PROPERTIES is set"):
        build_atlas.build(tmp_path, tmp_path)
    assert not list(tmp_path.iterdir())


# --- wide characters: GNU Unifont's double-width glyphs, two cells each ---------------------------

CJK = ("日本語のテキストを読みます。「ファイル」、三つ。\t这是一个中文句子：测试，完成！\n"
       "한국어 문장입니다. ＡＢＣ１２３ 全角\n" + "x" * 47 + "中文\n")


def _wide_geometry(reflow: bool) -> Geometry:
    return Geometry(FULL, 600, 200, columns=2, reflow=reflow)


def test_the_wide_sheet_is_unifonts_double_width_glyphs_recorded_with_its_licence() -> None:
    atlas = json.loads((FONTS / "atlas.json").read_text("utf-8"))
    wide = atlas["cells"][FULL]["wide"]
    assert wide["file"] == f"{FULL}-wide.png" and (FONTS / wide["file"]).is_file()
    assert wide["font"].endswith("Unifont-Medium-R-Normal-Sans-16-160-75-75-c-80-iso10646-1, double-width glyphs "
                                 "scaled to 12x11")
    assert wide["copyright"].startswith("Copyright (C) 1998-2022 Roman Czyborra, Paul Hardy, Qianqian Fang")
    assert "wide sheet" in (FONTS / "LICENSE.txt").read_text("utf-8")
    font = load(FULL)
    assert len(font.pairs) > 20_000
    # every wide character the cell draws is East Asian Wide or Fullwidth, and two distinct cells
    for (left, right), char in list(font.pairs.items())[::97]:
        assert unicodedata.east_asian_width(char) in ("W", "F")
        assert font.lookup[ord(char)] == left and font.right[ord(char)] == right and font.wide(char)
        assert font.half[left] or font.half[right]
    assert not font.wide("a") and not font.wide("Ж")
    assert not load("4x6").covers("联") and not len(load("4x6").right)  # cells without a wide sheet


@pytest.mark.parametrize("reflow", [False, True])
def test_cjk_text_renders_with_no_uncovered_character_and_decodes_back(reflow: bool) -> None:
    geometry = _wide_geometry(reflow)
    text = CJK * 8
    pages = render([Passage(text, "user · 用户", "a1"), Passage("末尾", "tool", "a2")], geometry)
    assert sum(page.uncovered for page in pages) == 0
    assert decode(pages, geometry).turns == (("user · 用户", text), ("tool", "末尾"))
    images = [Image.open(BytesIO(page.png())) for page in pages]
    assert decode(images, geometry).turns[0][1] == text
    assert legibility(text, geometry, "claude-sonnet-4.5").accuracy == 1.0


def test_a_wide_character_takes_two_cells_and_a_tab_stops_by_cells() -> None:
    geometry = _wide_geometry(False)
    font = load(FULL)
    page, = render("中a\tb", geometry)
    assert page.grid[0, :4].tolist() == [font.lookup[ord("中")], font.right[ord("中")], font.ids("a")[0], font.tab]
    assert page.grid[0, 4] == font.ids("b")[0] and page.chars == 4


def test_a_wide_character_cut_by_the_row_end_is_shown_once_to_the_readers() -> None:
    geometry = _wide_geometry(False)
    page, = render("x" * (geometry.cols - 1) + "中文", geometry)
    lines = page_lines(page)
    assert lines[0] == "x" * (geometry.cols - 1) + "中" and lines[1].strip() == "文"
    assert decode([page], geometry).text == "x" * (geometry.cols - 1) + "中文"


def test_emoji_and_rare_ideographs_stay_counted_marks() -> None:
    geometry = _wide_geometry(True)
    text = "ok 😀 𠀀 ✓ 中"
    page, = render(text, geometry)
    assert page.uncovered == 2  # the emoji and the CJK Extension B ideograph
    assert decode([page], geometry).text == f"ok {UNCOVERED_CHAR} {UNCOVERED_CHAR} ✓ 中"


def test_rapidocr_reads_the_chinese_of_a_page() -> None:
    text = "这是一个中文句子测试\n我们需要检查代码的错误\n"
    geometry = geometry_for("claude-sonnet-4.5", reflow=False)  # a row per line: no break mark to read
    page, = render(text, geometry)
    reading = read(strips(page, page.image), RapidOcr())
    assert reading.chars == len(normalise(text))
    assert reading.cer < 0.1
