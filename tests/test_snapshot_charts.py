"""The notebook's data: the sweep, the published points, the re-snap generations."""

from __future__ import annotations

from typing import Any

import pytest

from toolkit.snapshot import charts
from toolkit.snapshot.charts import PUBLISHED, generations, published_frame, sweep
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.legibility import Assessment, assess
from toolkit.snapshot.render import render
from toolkit.snapshot.tradeoff import geometry_for

TEXT = "Pages stay below the size at which the provider downscales them.\n" * 150


def test_published_points_are_those_of_peers_section_b() -> None:
    frame = published_frame()
    assert frame.height == len(PUBLISHED)
    deepseek = {p.compression: p.accuracy for p in PUBLISHED if p.paper.startswith("DeepSeek-OCR (2")}
    assert deepseek == {20.0: 0.60}
    pixels = next(p for p in PUBLISHED if "GPT-4.1-mini" in p.paper)
    assert pixels.compression == pytest.approx(1000 / 442) and pixels.accuracy == 0.99
    assert all(p.source.startswith("https://") for p in PUBLISHED)


def test_sweep_shows_the_oversized_page_losing_glyphs() -> None:
    frame = sweep(TEXT, ["claude-sonnet-4.5"], ["4x6"], scales=(1.0, 1.3))
    preset_row, big_row = frame.row(0, named=True), frame.row(1, named=True)
    assert preset_row["atlas_decode"] == 1.0 and not preset_row["downscaled"]
    assert big_row["downscaled"] and big_row["atlas_decode"] < 0.9
    assert big_row["compression_full"] > preset_row["compression_full"]
    assert preset_row["page"] == "{}x{}".format(*geometry_for("claude-sonnet-4.5").size)


def test_generations_lose_more_with_each_pass() -> None:
    page = render(TEXT, geometry_for("gpt-5.4", "5x8"))[0]
    accuracy = generations(page, scale=0.9, passes=3)["accuracy"].to_list()
    assert accuracy[0] == 1.0 and accuracy[1] > accuracy[2] > accuracy[3]


def test_one_change_in_the_explorer_assesses_the_page_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new model sets the page's width and height to its preset; those widgets' own observers must
    not assess the page again (three assessments per change, issue 30)."""
    calls: list[tuple[str, str]] = []
    real = assess

    def counting(text: str, geometry: Geometry, model: str, **kwargs: Any) -> Assessment:
        calls.append((model, f"{geometry.width}x{geometry.height}"))
        return real(text, geometry, model, **kwargs)

    monkeypatch.setattr("toolkit.snapshot.charts.assess", counting)
    cell = "dejavu-aa-fullhint-6x11"
    ui = charts.explorer({"prose": TEXT}, ["claude-sonnet-4.5", "gpt-4o"], [cell, "9x15"])
    model, chosen, _sample = ui.children[0].children
    follow, width, height = ui.children[1].children
    assert chosen.value == cell and len(calls) == 1
    calls.clear()
    model.value = "gpt-4o"
    preset_page = geometry_for("gpt-4o", cell)
    assert calls == [("gpt-4o", f"{preset_page.width}x{preset_page.height}")]
    assert (width.value, height.value) == preset_page.size, "the page follows the model's preset"
    calls.clear()
    follow.value = False
    width.value = 640
    assert calls == [("gpt-4o", f"{preset_page.width}x{preset_page.height}"), ("gpt-4o", f"640x{preset_page.height}")]
