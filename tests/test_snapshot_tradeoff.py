"""The tradeoff: compression against what independent readers recover, and the cell presets take from it."""

from __future__ import annotations

import pytest

from toolkit.snapshot.font import cells, parse_cell
from toolkit.snapshot.geometry import PRESET_MODELS
from toolkit.snapshot.geometry import preset as cell_preset
from toolkit.snapshot.tradeoff import (
    MAX_EXCESS,
    MEASURED,
    candidates,
    choose,
    frontier,
    geometry_for,
    reading,
    search,
    tradeoff,
    wrapped,
)

TEXT = ("$ git log --oneline -3\n9f2c1ab Fix the retry loop in worker.py (timeout 30s)\n"
        "    def handler(event, context): return {'statusCode': 200}\n"
        "The tests pass: 412 passed, 3 skipped in 18.2s. Next I will update the README.\n") * 8


def test_frontier_keeps_only_points_nothing_beats() -> None:
    compression = [8.0, 2.7, 2.5, 2.0, 1.9]
    excess = [0.13, 0.03, 0.04, 0.01, None]
    assert frontier(compression, excess) == [True, True, False, True, False]
    assert frontier([3.0, 3.0], [0.02, 0.02]) == [True, True]


def test_control_rows_are_cut_to_a_column_width() -> None:
    assert wrapped("a" * 250 + "\n\tb", 100) == ["a" * 100, "a" * 100, "a" * 50, "        b"[:9]]
    assert wrapped("", 100) == [""]


def test_every_shipped_misc_fixed_cell_is_measured_with_its_control() -> None:
    measured = {item.cell for item in MEASURED}
    assert {"4x6", "6x13", "7x14", "9x15", "10x20"} <= measured <= set(cells())
    for item in MEASURED:
        assert item.chars > 5000
        assert {name.split()[0] for name, _ in item.cer} == {"rapidocr-onnxruntime", "tesseract"}
        assert dict(item.control).keys() == dict(item.cer).keys()
        assert 0 <= item.reader_cer <= 1 and item.excess == item.reader_cer - dict(item.control)[item.best[0]]


def test_small_misc_fixed_cells_read_worse_than_large_ones() -> None:
    small, large = reading("4x6"), reading("10x20")
    assert small is not None and large is not None
    assert small.reader_cer > 3 * large.reader_cer
    assert small.excess > MAX_EXCESS


@pytest.mark.parametrize("model", PRESET_MODELS)
def test_the_preset_cell_is_the_most_compressed_within_a_point_of_the_control(model: str) -> None:
    chosen = choose(model)
    assert geometry_for(model).cell == chosen
    found = reading(chosen)
    assert found is not None
    within = [item for item in MEASURED if item.excess <= MAX_EXCESS and item.cell in candidates()]
    if within:
        assert found.excess <= MAX_EXCESS
        best = max(cell_preset(model, item.cell).chars_per_token for item in within)
        assert cell_preset(model, chosen).chars_per_token == best
        ties = [i for i in within if cell_preset(model, i.cell).chars_per_token == best]
        assert found.excess == min(i.excess for i in ties)
    else:
        assert found.excess == min(item.excess for item in MEASURED)


def test_tradeoff_frame_marks_the_choice_and_never_calls_a_poor_reading_legible() -> None:
    frame = tradeoff("claude-sonnet-4.5", TEXT)
    assert frame["chosen"].sum() == 1
    assert frame.filter(frame["chosen"])["cell"].item() == choose("claude-sonnet-4.5")
    assert (frame["legible"] == (frame["excess"] <= MAX_EXCESS)).all()
    assert frame.filter(frame["chosen"])["legible"].item(), "the preset's cell is legible by the rule that chose it"
    assert frame["compression"].null_count() == 0 and (frame["compression"] > 0).all()
    assert tradeoff("claude-sonnet-4.5")["compression"].null_count() == frame.height


def test_search_reads_each_candidate_at_the_size_the_encoder_sees() -> None:
    frame = search(TEXT, "gemini-2.5-flash", ["4x6", "9x15"], (0,), reader_rows=30, progress=False)
    assert frame.height == 2
    assert set(frame["seen_evidence"]) == {"assumed"}
    assert (frame["compression_full"] >= frame["compression"]).all()
    small, large = frame.sort("cell")["excess"].to_list()
    assert small is not None and large is not None and small > large
    assert frame["frontier"].any()


def test_candidates_are_the_cells_nothing_smaller_reads_as_well() -> None:
    kept = candidates()
    assert kept and set(kept) <= {item.cell for item in MEASURED}
    area = {item.cell: parse_cell(item.cell)[0] * parse_cell(item.cell)[1] for item in MEASURED}
    excess = {item.cell: item.excess for item in MEASURED}
    for cell in set(area) - set(kept):
        assert any(area[k] <= area[cell] and excess[k] <= excess[cell] for k in kept), cell
    assert [area[c] for c in kept] == sorted(area[c] for c in kept)
