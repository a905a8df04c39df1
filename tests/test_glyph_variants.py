"""Glyph cell variants: DejaVu Sans Mono anti-aliased and hinted in both directions (``dejavu-aa-fullhint``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from toolkit.snapshot.font import MARKS, REQUIRED, cells, face, load, parse_cell
from toolkit.snapshot.fonts import build_atlas

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
    assert font.covered == light.covered > 3000
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
