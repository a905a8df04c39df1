"""One answer to "how much do glyph pages save against text for model M": notebook 04, notebook 05's
preset table and the guide's benchmark all take it from ``toolkit.snapshot.savings``, on a named
sample, and "legible" is one rule wherever it is said (issue 30)."""

from __future__ import annotations

import json
from dataclasses import replace

import polars as pl
import pytest

from tests.conftest import CORPORA, DATA, REPO
from toolkit.corpus import load
from toolkit.costs.compare import Sample, corpus_sample
from toolkit.errors import InvalidInput
from toolkit.snapshot import charts
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.legibility import assess
from toolkit.snapshot.readers import Reading
from toolkit.snapshot.savings import preset_table, saving, savings
from toolkit.snapshot.tradeoff import choose, geometry_for, reference_sample, tradeoff, verdict

PAIRS = (("claude-sonnet-4-5", "claude-sonnet-4.5"), ("gpt-4o", "gpt-4o"), ("gemini-2.5-flash", "gemini-2.5-flash"))
"""The same model as notebook 04 names it and as notebook 05 (``PRESET_MODELS``) does."""


@pytest.fixture(scope="module")
def demo() -> Sample:
    """The sample both notebooks compare on: the demo corpus's text as ``corpus_sample`` takes it."""
    return corpus_sample(load(DATA, progress=False), "data/")


@pytest.fixture(scope="module")
def table_05(demo: Sample) -> pl.DataFrame:
    """Notebook 05's preset table on the sample."""
    return preset_table(demo.text, demo.name)


@pytest.mark.parametrize(("costs_id", "preset_id"), PAIRS)
def test_notebooks_04_and_05_show_one_figure_per_model_and_sample(demo: Sample, table_05: pl.DataFrame,
                                                                  costs_id: str, preset_id: str) -> None:
    shown_04 = savings(demo.text, [costs_id], demo.name).row(0, named=True)
    shown_05 = table_05.filter(pl.col("model") == preset_id).row(0, named=True)
    figures = ("compression", "saving", "page", "cell", "text_tokens", "tokens_per_page", "legible")
    assert {k: shown_04[k] for k in figures} == {k: shown_05[k] for k in figures}
    assert shown_04["sample"] == shown_05["sample"] == demo.name and "449,492 characters" in demo.name
    # the guide's benchmark (benchmarks.preset_table) measures the same quantity on its own sample
    found = assess(demo.text, geometry_for(preset_id), preset_id)
    assert shown_05["compression"] == found.compression_full
    assert shown_05["saving"] == pytest.approx(1 - found.image_tokens / found.text_tokens, abs=0.01)
    # notebook 05's frontier on the same sample: the chosen cell's row is the same figure, and its
    # "legible" is the verdict of the preset's cell
    chosen = tradeoff(preset_id, demo.text, [choose(preset_id)]).row(0, named=True)
    assert chosen["compression"] == shown_05["compression"] and chosen["page"] == shown_05["page"]
    assert shown_05["legible"] is chosen["legible"] is True


def test_both_notebooks_take_the_figure_from_savings_on_corpus_sample() -> None:
    for name in ("04_image_vs_text", "05_page_geometry"):
        source = "".join("".join(c["source"]) for c in json.loads(
            (REPO / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code")
        assert "corpus_sample(corpus" in source, name
        assert ("savings(sample.text, MODELS, sample.name)" if name.startswith("04") else
                "preset_table(sample.text, sample.name)") in source, name


def test_a_saving_names_its_sample_and_has_text() -> None:
    with pytest.raises(InvalidInput, match="no text"):
        saving("", "gpt-4o", "empty")
    with pytest.raises(InvalidInput, match="name of its sample"):
        saving("some text", "gpt-4o", "")
    found = saving("word " * 4000, "gpt-4o", "4,000 words")
    assert found.sample == "4,000 words" and found.saving == 1 - 1 / found.compression


def test_the_explorer_says_legible_only_where_the_table_does() -> None:
    text = "def handler(event, context):\n    return {'statusCode': 200}\n" * 200
    model = "claude-sonnet-4.5"
    table = tradeoff(model, cell_names=[choose(model), "4x6", "dejavu-aa-nohint-7x14"])
    assert set(table["legible"]) == {True, False}
    for cell in table["cell"].to_list():
        found = assess(text, geometry_for(model, cell), model)
        judged = verdict(found)
        assert judged.legible is table.filter(table["cell"] == cell)["legible"].item(), cell
        said = charts.describe(found, "sample")
        assert ("<td style='text-align:left'>yes:" in said) is judged.legible, cell
    tiny = assess(text, Geometry("4x6", 800, 400, reflow=True), model)
    glance = (Reading("rapidocr", 100, 1),)  # a few rows read as well as the control: still the table's verdict
    lucky = replace(tiny, legibility=replace(tiny.legibility, readings=glance, controls=glance))
    assert lucky.legibility.legible is True and verdict(lucky).legible is False
    shrunk = assess(text[:2000], geometry_for(model).with_page(1600, 1600), model)
    assert shrunk.resized and verdict(shrunk).legible is None, "a resized page is not judged on a reading of another size"
    assert verdict(replace(shrunk, legibility=replace(shrunk.legibility, readings=glance, controls=glance))).legible


def test_a_page_whose_control_reading_fails_is_not_judged_and_says_why() -> None:
    """Judged on its own reading (the provider resizes it), a page whose reader misreads the control
    itself (``MAX_CONTROL_CER``) is not judged, though within a point of it; the verdict, the explorer
    and the saving's row say why. One whose control is a floor is judged as before."""
    model = "claude-sonnet-4.5"
    shrunk = assess("def handler(event, context):\n" * 60, geometry_for(model).with_page(1600, 1600), model)
    assert shrunk.resized
    for control, legible in ((310, None), (20, True)):  # errors in 1,000 characters
        read = replace(shrunk, legibility=replace(shrunk.legibility,
                                                  readings=(Reading("tesseract 5.3.0", 1000, control + 8),),
                                                  controls=(Reading("tesseract 5.3.0", 1000, control),)))
        judged = verdict(read)
        said = charts.describe(read, "sample")
        row = replace(saving("x", model, "sample"), assessment=read).row()
        assert judged.legible is row["legible"] is legible, control
        if legible is None:
            assert judged.not_judged == row["not_judged"] and judged.not_judged is not None
            assert "on the control itself is 31.0%" in judged.not_judged and judged.not_judged in judged.basis
            assert f"<td style='text-align:left'>not judged: {judged.basis}</td>" in said
        else:
            assert judged.not_judged is row["not_judged"] is None and "control itself" not in said
            assert "<td style='text-align:left'>yes:" in said


@pytest.mark.parametrize(("model", "compression", "saved", "per_char"),
                         [("claude-sonnet-4.5", 5.23, 0.809, 0.47), ("gpt-4o", 6.72, 0.851, 0.35)])
def test_the_demo_figures_the_docs_cite(demo: Sample, model: str, compression: float, saved: float,
                                        per_char: float) -> None:
    """docs/findings.md and the guide cite these as what the notebooks show on the demo corpus."""
    found = saving(demo.text, model, demo.name)
    assert round(found.compression, 2) == compression and round(found.saving, 3) == saved
    assert round(found.assessment.text_tokens / len(demo.text), 2) == per_char


@pytest.mark.skipif(not CORPORA.is_dir(), reason="the shared corpora are not here")
def test_the_guide_figures_are_savings_on_their_draw() -> None:
    """The guide's 3.52x and 5.39x (benchmarks.preset_table --seed 3 --reflow) are ``saving`` on that draw."""
    draw = reference_sample(CORPORA, 30_000, seed=3)
    assert len(draw) == 30_074
    for model, compression, saved, per_char in (("claude-sonnet-4.5", 3.52, 0.716, 0.30), ("gpt-4o", 5.39, 0.814, 0.27)):
        found = saving(draw, model, "reference_sample(seed=3)")
        assert round(found.compression, 2) == compression and round(found.saving, 3) == saved
        assert round(found.assessment.text_tokens / len(draw), 2) == per_char
