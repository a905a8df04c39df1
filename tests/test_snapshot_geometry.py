"""Page geometry per provider: never downscaled, chosen from the provider's own token rule."""

from __future__ import annotations

import math

import pytest

from toolkit.costs import downscaled, image_tokens
from toolkit.snapshot.geometry import (
    MAX_PAGE_SIDE,
    MIN_COLUMN_CELLS,
    PRESET_MODELS,
    REFERENCE,
    Geometry,
    geometry_for,
    preset,
    pricing,
    rows_needed,
    seen,
)


@pytest.mark.parametrize("model", PRESET_MODELS)
def test_preset_page_is_seen_at_full_size(model: str) -> None:
    p = preset(model)
    g = p.geometry
    assert seen(g.width, g.height, model).downscaled is False
    assert max(g.size) <= MAX_PAGE_SIDE
    assert g.cols >= MIN_COLUMN_CELLS
    if p.resize_documented:
        assert downscaled(g.width, g.height, model) is False
    assert p.tokens == image_tokens(g.width, g.height, model).tokens


def test_claude_page_fits_the_documented_patch_budget() -> None:
    for model, edge, budget in (("claude-sonnet-4.5", 1568, 1568), ("claude-opus-4.7", 2576, 4784)):
        g = geometry_for(model)
        patches = math.ceil(g.width / 28) * math.ceil(g.height / 28)
        assert patches <= budget and max(g.size) <= edge
        assert preset(model).tokens == patches


def test_openai_pages_follow_tile_and_patch_rules() -> None:
    tiles = geometry_for("gpt-4o")
    assert min(tiles.size) <= 768 and max(tiles.size) <= 2048
    assert preset("gpt-4o").tokens == 85 + 170 * math.ceil(tiles.width / 512) * math.ceil(tiles.height / 512)
    patches = geometry_for("gpt-5.4")
    count = math.ceil(patches.width / 32) * math.ceil(patches.height / 32)
    assert count <= 2500 and max(patches.size) <= 2048
    assert preset("gpt-5.4").tokens == math.ceil(count * 1.2)


def test_gemini_two_pages_fit_the_encoders_fixed_size() -> None:
    """The Developer API bills a flat 258 per image whatever its size (python-genai #1349, #1907), so
    the encoder sees one fixed size (assumed: the 768-px tile square): the page is that square, and
    the old 1536x1153 four-tile preset would be shrunk by half."""
    p = preset("gemini-2.5-flash")
    assert p.geometry.size == (768, 768) and p.tokens == 258 and p.pricing == "flat"
    assert p.seen_evidence == "assumed" and not p.resize_documented
    old = seen(1536, 1153, "gemini-2.5-flash")
    assert old.downscaled and old.size == (768, 576) and old.cost.tokens == 258
    vertex = image_tokens(1536, 1153, "gemini-2.5-flash", platform="vertex")
    assert vertex.tokens > 258 and vertex.platform == "vertex"


def test_flat_and_area_pricing_are_told_apart() -> None:
    assert pricing("gemini-3-pro") == "flat"
    assert pricing("claude-sonnet-4.5") == "area" and pricing("gpt-5.4") == "area"
    flat = preset("gemini-3-pro")
    assert flat.tokens == 1120 and not flat.resize_documented
    assert flat.seen_evidence == "assumed"


def test_gateway_routes_follow_the_model_they_name() -> None:
    direct = geometry_for("claude-sonnet-4.5")
    assert geometry_for("openrouter/anthropic/claude-sonnet-4.5") == direct
    assert geometry_for("us.anthropic.claude-sonnet-4-5-20250929-v1:0") == direct
    assert geometry_for("openrouter/google/gemini-2.5-flash") == geometry_for("gemini-2.5-flash")


def test_preset_beats_the_plain_single_column_pages_on_transcript_text() -> None:
    """Chars per token on the reference line lengths, computed here from rows_needed directly."""
    model = "claude-sonnet-4.5"
    best = preset(model)
    chars = sum(n * (length + 1) for length, n in REFERENCE)
    for width, height in ((1092, 1092), (1568, 784), (784, 1568)):
        g = Geometry("4x6", width, height)
        pages = rows_needed(REFERENCE, g.cols) / g.rows
        assert best.chars_per_token > chars / (pages * image_tokens(width, height, model).tokens)


def test_a_sample_of_fixed_length_lines_gets_columns_that_fit_them() -> None:
    sample = "\n".join("x" * 60 for _ in range(2000))
    g = geometry_for("gemini-2.5-flash", sample=sample)
    assert 60 <= g.cols < 120


def test_rows_needed_counts_wrapped_rows() -> None:
    assert rows_needed(((0, 3), (10, 2), (11, 1), (28, 1)), 10) == 3 + 2 + 2 + 3
