"""Legibility after each provider's resize (the atlas decode), compression against text, and the
independent readers' figures as legibility carries them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import CORPORA, missing_package
from toolkit.corpus import load as load_corpus
from toolkit.snapshot.compact import turns
from toolkit.snapshot.font import load
from toolkit.snapshot.geometry import PRESET_MODELS, Geometry, seen
from toolkit.snapshot.legibility import (
    MAX_CONTROL_CER,
    MAX_EXCESS,
    assess,
    compare,
    is_legible,
    legibility,
    unjudged,
)
from toolkit.snapshot.readers import Reading, tesseract_available
from toolkit.snapshot.render import Passage, read, render
from toolkit.snapshot.tradeoff import geometry_for

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
    read = result.legibility
    assert (read.correct + read.lookalikes) / read.chars >= 0.999  # every glyph survives the resize
    assert read.lookalikes / read.chars < 0.01  # a look-alike is not a character read
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


def test_readers_cross_check_what_the_atlas_decode_cannot() -> None:
    """A 4x6 page decodes perfectly against the atlas that drew it, yet an OCR engine that never saw
    the font misreads it several times more than 9x15 cells of the same text."""
    tiny = legibility(PROSE, Geometry("4x6", 800, 400), "claude-sonnet-4.5", reader_names=("rapidocr",))
    plain = legibility(PROSE, Geometry("9x15", 800, 400), "claude-sonnet-4.5", reader_names=("rapidocr",))
    assert tiny.accuracy == plain.accuracy == 1.0
    assert tiny.reader_cer is not None and plain.reader_cer is not None
    assert tiny.reader_cer > 0.05 > plain.reader_cer
    assert tiny.reader_cer > 3 * plain.reader_cer
    assert tiny.legible is False
    assert tiny.control_cer is not None and tiny.control_cer < 0.03
    assert tiny.readings[0].chars == plain.readings[0].chars == len("".join(PROSE.split()))


def test_legible_is_one_rule_a_point_over_the_control() -> None:
    assert is_legible(MAX_EXCESS, 0.02) is True and is_legible(MAX_EXCESS + 1e-9, 0.02) is False
    assert is_legible(-0.004, 0.02) is True and is_legible(None, None) is None
    for cell, legible in (("4x6", False), ("9x15", True)):
        result = assess(PROSE, Geometry(cell, 800, 400), "claude-sonnet-4.5", reader_names=("rapidocr",))
        row = result.as_dict()
        cer, control = result.legibility.reader_cer, result.legibility.control_cer
        assert cer is not None and control is not None and row["reader_cer"] == round(cer, 4)
        assert row["legible"] is legible is (cer - control <= MAX_EXCESS)
        assert row["legibility"] == 1.0
    unread = assess(PROSE, Geometry("9x15", 800, 400), "claude-sonnet-4.5")
    assert unread.as_dict()["reader_cer"] is None and unread.as_dict()["legible"] is None


def test_a_reading_whose_control_itself_fails_is_not_judged() -> None:
    """Within a point of a control the reader misread (CJK read by tesseract's English model alone)
    says nothing: past ``MAX_CONTROL_CER`` the page is not judged, and the reason is said with it."""
    assert is_legible(0.0, MAX_CONTROL_CER) is True and unjudged(0.0, MAX_CONTROL_CER) is None
    assert is_legible(0.0, MAX_CONTROL_CER + 1e-9) is None and is_legible(0.5, 0.3) is None
    assert unjudged(None, None) == "nothing was read"
    unread = assess(PROSE, Geometry("9x15", 800, 400), "claude-sonnet-4.5")
    for errors, control, legible in ((318, 310, None), (68, 60, True), (40, 20, False)):  # in 1,000 characters
        found = replace(unread, legibility=replace(unread.legibility,
                                                   readings=(Reading("tesseract 5.3.0", 1000, errors),),
                                                   controls=(Reading("tesseract 5.3.0", 1000, control),)))
        row = found.as_dict()
        assert found.legibility.legible is row["legible"] is legible, (errors, control)
        if legible is None:
            assert found.legibility.excess == pytest.approx(0.008), "within a point of the control: legible before"
            assert row["not_judged"] == found.legibility.unjudged == (
                "the best reader's error on the control itself is 31.0%, past the 10% under which its "
                "control is a floor (MAX_CONTROL_CER)")
        else:
            assert row["not_judged"] is None
    assert unread.as_dict()["not_judged"] == "nothing was read"


@pytest.mark.skipif(not tesseract_available(), reason=missing_package("tesseract-ocr"))
def test_tesseract_reads_pages_with_cells_large_enough() -> None:
    result = legibility(PROSE, Geometry("9x15", 800, 400), "claude-sonnet-4.5", reader_names=("tesseract",))
    reading, = result.readings
    assert reading.reader.startswith("tesseract")
    assert reading.cer <= 0.03 and result.accuracy == 1.0


@pytest.mark.skipif(not tesseract_available(), reason=missing_package("tesseract-ocr"))
def test_tesseract_reads_what_a_downscale_leaves() -> None:
    mild = legibility(PROSE, Geometry("9x15", 1600, 800), "claude-sonnet-4.5", reader_names=("tesseract",))
    assert mild.downscaled is True
    assert mild.reader_cer is not None and mild.reader_cer <= 0.05


def test_a_lookalike_is_not_a_character_read() -> None:
    """At 4x6 Cyrillic р, е, м and П are drawn with the bitmaps of Latin p, e, m and Greek Π: the
    glyphs survive, but no reader of pixels can say which alphabet was meant, so those cells do
    not count as read, and the groups the text touches are reported."""
    result = legibility("Hello world\nПривет, мир\n", Geometry("4x6", 300, 60), "claude-sonnet-4.5")
    assert result.lookalikes == len("Пррем")
    assert result.correct == result.chars - result.lookalikes
    groups = dict(result.groups)
    # counted where the text uses a member decoding cannot return: Latin e in "Hello" is not counted
    assert groups == {"pр": 2, "ΠП∏": 1, "eе": 1, "mмн": 1}
    assert result.accuracy < 1.0
