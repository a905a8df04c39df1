"""The notebook's data: the sweep, the published points, the re-snap generations."""

from __future__ import annotations

import pytest

from toolkit.snapshot.charts import PUBLISHED, generations, published_frame, sweep
from toolkit.snapshot.geometry import geometry_for
from toolkit.snapshot.render import render

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
    assert preset_row["legibility"] == 1.0 and not preset_row["downscaled"]
    assert big_row["downscaled"] and big_row["legibility"] < 0.9
    assert big_row["compression_full"] > preset_row["compression_full"]
    assert preset_row["page"] == "{}x{}".format(*geometry_for("claude-sonnet-4.5").size)


def test_generations_lose_more_with_each_pass() -> None:
    page = render(TEXT, geometry_for("gpt-5.4", "5x8"))[0]
    accuracy = generations(page, scale=0.9, passes=3)["accuracy"].to_list()
    assert accuracy[0] == 1.0 and accuracy[1] > accuracy[2] > accuracy[3]
