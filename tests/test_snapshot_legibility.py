"""Legibility after each provider's resize, compression against text, the OCR cross-check."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import CORPORA
from toolkit.corpus import load as load_corpus
from toolkit.snapshot.compact import turns
from toolkit.snapshot.font import load
from toolkit.snapshot.geometry import PRESET_MODELS, Geometry, geometry_for, seen
from toolkit.snapshot.legibility import assess, compare, edit_distance, legibility, tesseract_available
from toolkit.snapshot.render import Passage, read, render

PROSE = ("The snapshot renders old history onto dense pages of tiny bitmap glyphs.\n"
         "An image is billed flat or by area, never by the characters in it.\n"
         "Pages stay below the size at which the provider downscales them,\n"
         "because downscaling silently destroys glyphs a few pixels high.\n") * 4


@pytest.fixture(scope="module")
def sample(request: pytest.FixtureRequest) -> list[Passage]:
    """About 60,000 characters of the longest shared-corpus session, as rendered messages."""
    corpora = CORPORA
    if not corpora.is_dir():
        pytest.skip("../shared/corpora is absent")
    corpus = load_corpus(corpora, progress=False)
    assert corpus.sessions, "toolkit.corpus.load found no sessions in ../shared/corpora"
    out: list[Passage] = []
    for turn in turns(corpus.longest().path()):
        out.append(turn)
        if sum(len(t.text) for t in out) > 60_000:
            break
    return out


@pytest.mark.parametrize("model", PRESET_MODELS)
def test_each_provider_preset_survives_its_own_resize(model: str, sample: list[Passage]) -> None:
    g = geometry_for(model)
    result = assess(sample, g, model)
    assert result.resized is False
    assert result.legibility.accuracy >= 0.999
    assert result.legibility.structure_accuracy == 1.0
    assert result.compression > 1.0
    assert result.image_tokens == result.pages * result.tokens_per_page
    assert result.chars == sum(len(t.text) for t in sample)


def test_a_page_over_the_downscale_threshold_loses_glyphs() -> None:
    big = Geometry("4x6", 2000, 1000)
    view = seen(2000, 1000, "claude-sonnet-4.5")
    assert view.size == (1568, 784)  # 2000x1000 scaled to 56x28 patches of 28 px = 1568 tokens
    lost = legibility(PROSE, big, "claude-sonnet-4.5")
    assert lost.downscaled is True
    assert lost.accuracy < 0.9
    assert lost.lost and lost.lost[0][2] > 0
    kept = legibility(PROSE, geometry_for("claude-sonnet-4.5"), "claude-sonnet-4.5")
    assert kept.accuracy == 1.0 and kept.lost == ()


def test_bigger_glyphs_survive_a_mild_downscale_better() -> None:
    accuracy = {cell: legibility(PROSE, Geometry(cell, 1700, 850), "claude-sonnet-4.5").accuracy
                for cell in ("4x6", "6x13", "10x20")}
    assert accuracy["4x6"] < accuracy["6x13"] < accuracy["10x20"]
    assert accuracy["10x20"] > 0.99


def test_compare_counts_every_misread_cell() -> None:
    g = Geometry("4x6", 200, 40)
    page, = render("hello world", g)
    grid, kinds = read(page.ink, g)
    grid = grid.copy()
    grid[0, 0] = load("4x6").lookup[ord("j")]
    result = compare([page], [(grid, kinds)])
    assert result.chars == 11 and result.correct == 10
    assert result.lost == (("h", "j", 1),)
    assert np.isclose(result.accuracy, 10 / 11)


def test_edit_distance() -> None:
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3
    assert edit_distance("intention", "execution") == 5
    assert edit_distance("same", "same") == 0


@pytest.mark.skipif(not tesseract_available(), reason="tesseract is not installed")
def test_tesseract_reads_pages_with_cells_large_enough() -> None:
    result = legibility(PROSE, Geometry("9x15", 800, 400), "claude-sonnet-4.5", ocr=True)
    assert result.ocr is not None
    assert result.ocr.accuracy >= 0.97 and result.accuracy == 1.0
    assert result.ocr.engine.startswith("tesseract")


@pytest.mark.skipif(not tesseract_available(), reason="tesseract is not installed")
def test_tesseract_reads_what_a_downscale_leaves() -> None:
    mild = legibility(PROSE, Geometry("9x15", 1600, 800), "claude-sonnet-4.5", ocr=True)
    assert mild.downscaled is True
    assert mild.ocr is not None and mild.ocr.accuracy >= 0.95
