"""The independent readers: what they compare, how pages are cut for them, and that they can fail."""

from __future__ import annotations

import os

import pytest
from PIL import Image

from tests.conftest import missing_package
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.legibility import shown
from toolkit.snapshot.readers import (
    RapidOcr,
    Strip,
    Tesseract,
    control,
    edit_distance,
    normalise,
    page_lines,
    read,
    readers,
    sample_rows,
    strips,
    tesseract_available,
)
from toolkit.snapshot.render import render

TEXT = ("def handler(event, context):\n"
        "    result = subprocess.run(['git', 'status', '--short'], capture_output=True)\n"
        "    return {'statusCode': 200, 'body': result.stdout.decode()}\n"
        "ERROR 2026-11-30 14:02:11 worker-3 timeout after 30s (retry 2 of 5)\n") * 6


def test_edit_distance() -> None:
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3
    assert edit_distance("intention", "execution") == 5
    assert edit_distance("same", "same") == 0


def test_comparison_ignores_whitespace_and_width_forms() -> None:
    # RapidOCR's recogniser returns full-width punctuation; both engines drop spaces in monospace text.
    assert normalise("a，b： c\t d") == "a,b:cd"
    assert normalise("Dr David") == normalise("DrDavid")


def test_strips_cut_every_text_column_with_its_rows() -> None:
    g = Geometry("6x13", 800, 300, columns=2)
    page = render(TEXT, g)[0]
    cut = strips(page, page.image)
    assert len(cut) == 2
    lines = page_lines(page)
    assert cut[0].lines + cut[1].lines == tuple(lines[:2 * g.rows])
    assert all(s.image.height == g.rows * g.pitch and s.pitch == g.pitch for s in cut)
    half = strips(page, shown(page, (400, 150)))
    assert [s.pitch for s in half] == [g.pitch / 2] * 2
    assert half[0].lines == cut[0].lines


def test_sample_rows_spreads_over_every_strip() -> None:
    g = Geometry("6x13", 800, 300, columns=2)
    cut = [s for page in render(TEXT * 3, g) for s in strips(page, page.image)]
    shown_rows = sum(1 for s in cut for line in s.lines if normalise(line))
    picked = sample_rows(cut, 10)
    assert sum(len(s.lines) for s in picked) == 10
    assert len(picked) > 2  # not just the first strip
    assert all(s.image.height == round(len(s.lines) * s.pitch) for s in picked)
    assert sample_rows(cut, None) == cut and sum(1 for s in sample_rows(cut, shown_rows) for _ in s.lines) > 0


def test_rapidocr_reads_the_control_and_misreads_noise() -> None:
    lines = [line for line in TEXT.splitlines() if line][:8]
    engine = RapidOcr()
    clean = read([control(lines)], engine)
    assert clean.chars == len(normalise("".join(lines)))
    assert clean.cer < 0.03
    noise = Strip(Image.effect_noise((600, 24 * len(lines)), 120).convert("L"), tuple(lines), 24.0, 8.0)
    assert read([noise], engine).cer > 0.5


def test_unknown_reader_is_an_error() -> None:
    with pytest.raises(ValueError, match="no reader 'easyocr'"):
        readers(["easyocr"])


@pytest.mark.skipif(not tesseract_available(), reason=missing_package("tesseract-ocr"))
def test_tesseract_reads_the_control() -> None:
    lines = [line for line in TEXT.splitlines() if line][:8]
    engine, = readers(["tesseract"])
    assert read([control(lines)], engine).cer < 0.05


@pytest.mark.parametrize("chosen", [None, "2"])
def test_tesseract_runs_on_one_thread_unless_the_caller_chose(chosen: str | None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Its OpenMP threads spin against each other on a busy machine (a strip took seconds): the call
    sees a limit of 1, or the caller's own, and the process's environment is as it was after."""
    pytesseract = pytest.importorskip("pytesseract")
    seen: list[str | None] = []

    def image_to_string(*args: object, **kwargs: object) -> str:
        seen.append(os.environ.get("OMP_THREAD_LIMIT"))
        return "ok"

    monkeypatch.setattr(pytesseract, "image_to_string", image_to_string)
    if chosen is None:
        monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    else:
        monkeypatch.setenv("OMP_THREAD_LIMIT", chosen)
    strip = Strip(Image.new("L", (80, 24), 255), ("ok",), 24.0, 8.0)
    assert Tesseract().text(strip) == "ok"
    assert seen == [chosen or "1"]
    assert os.environ.get("OMP_THREAD_LIMIT") == chosen
