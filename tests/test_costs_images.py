"""Image tokens and resizes: the documents' worked examples and the counts providers reported, then
every family at its thresholds.

Expected values are worked by hand from the formulas and reports of the providers' documents that
``toolkit.costs.images`` cites (Gemini: the counts reported for the Developer API) and written out here, never computed with the
code under test."""

from __future__ import annotations

import pytest

from toolkit.costs import Evidence, Tiling, downscaled, image_tokens, resize_for

# --- cells the documents' own worked examples confirm --------------------------------------------


@pytest.mark.parametrize(("size", "tokens"), [((1024, 1024), 1229), ((2048, 2048), 3000)])
def test_doc_gpt54_high(size: tuple[int, int], tokens: int) -> None:
    assert image_tokens(*size, "gpt-5.4", "high").tokens == tokens


def test_doc_gpt54_high_2048_shrinks_to_1600() -> None:
    cost = image_tokens(2048, 2048, "gpt-5.4", "high")
    assert cost.resized == (1600, 1600)
    assert cost.units == 2500


def test_doc_gpt4o_1024() -> None:
    cost = image_tokens(1024, 1024, "gpt-4o-2024-08-06", "high")
    assert (cost.tokens, cost.resized, cost.units) == (765, (768, 768), 4)


def test_doc_gpt4o_2048x4096() -> None:
    cost = image_tokens(2048, 4096, "gpt-4o")
    assert (cost.tokens, cost.resized) == (1105, (768, 1536))


@pytest.mark.parametrize(("model", "tokens", "resized"), [
    ("claude-sonnet-4-5-20250929", 1560, (1456, 819)),
    ("claude-opus-4-7", 2691, (1920, 1080)),
])
def test_doc_claude_1920x1080_both_tiers(model: str, tokens: int, resized: tuple[int, int]) -> None:
    cost = image_tokens(1920, 1080, model)
    assert (cost.tokens, cost.resized) == (tokens, resized)


# --- Gemini 2.x: what the Developer API and Vertex AI reported ---------------------------------------

@pytest.mark.parametrize(("model", "size", "report"), [
    ("gemini-2.0-flash", (2048, 1362), "Counting_Tokens"),  # cookbook, 2025-02-21: 263 with a short prompt
    ("gemini-2.5-pro", (768, 1280), "issues/1349"),  # python-genai#1349, 2025-09-09: 258 each
    ("gemini-2.5-pro", (1024, 1024), "issues/1349"),
    ("gemini-2.5-pro", (3840, 2160), "issues/1349"),
    ("gemini-2.5-flash", (700, 1003), "#1907"),  # python-genai#1907, 2026-01-05: ~258 on the Developer API
    ("gemini-2.5-flash", (960, 540), "issues/1349"),
])
def test_reported_gemini_api_flat_258(model: str, size: tuple[int, int], report: str) -> None:
    cost = image_tokens(*size, model)
    assert (cost.tokens, cost.units, cost.platform, cost.tiles) == (258, 1, "gemini-api", None)
    assert cost.evidence == "measured"
    assert report in str(cost.source)


def test_gemini_api_seen_size_is_an_assumed_768_square() -> None:
    """One fixed resolution per image; 768x768 (the tile the docs name) is an assumption, and says so."""
    cost = image_tokens(960, 540, "gemini-2.5-flash", platform="gemini-api")
    assert (cost.resized, cost.downscaled) == ((768, 432), True)
    assert cost.seen_evidence == "assumed" and "assumed" in cost.note
    assert cost.seen_source.url == "https://ai.google.dev/gemini-api/docs/image-understanding"
    assert image_tokens(300, 200, "gemini-2.5-flash").resized == (300, 200)  # never enlarged


def test_gemini_15_flat_rate_is_assumed() -> None:
    cost = image_tokens(960, 540, "gemini-1.5-pro")
    assert (cost.tokens, cost.evidence) == (258, "assumed")


def test_reported_vertex_700x1003() -> None:
    """python-genai#1907: the same 700x1003 image, ~1806 = 7 x 258 on Vertex AI. The doc's tile is
    floor(700 / 1.5) = 466 px: ceil(700/466) x ceil(1003/466) = 2 x 3 = 6 tiles, plus one."""
    cost = image_tokens(700, 1003, "gemini-2.5-flash", platform="vertex")
    assert (cost.tokens, cost.units) == (1806, 7)
    assert cost.tiles == Tiling(crop=466, columns=2, rows=3, tile=768)
    assert (cost.evidence, cost.platform) == ("assumed", "vertex")  # the +1 rests on this one report
    assert "issues/1907" in cost.source.url
    assert (cost.resized, cost.seen_evidence) == ((700, 1003), "documented")
    assert "input-file-requirements" in cost.seen_source.url


def test_vertex_960x540_tiles_are_the_doc_example() -> None:
    """The doc's worked example: tile floor(540 / 1.5) = 360, 3 x 2 = 6 tiles = 1548 tokens, each crop
    enlarged to 768 px (nothing lost). The whole-image 258 the Vertex report adds comes on top: 1806."""
    cost = image_tokens(960, 540, "gemini-2.5-flash", platform="vertex")
    assert cost.tiles == Tiling(crop=360, columns=3, rows=2, tile=768)
    assert cost.tiles.count * 258 == 1548 and cost.tiles.scale > 1
    assert (cost.tokens, cost.units) == (1548 + 258, 7)
    assert (cost.resized, cost.downscaled) == ((960, 540), False)


def test_doc_gpt6_astra_wide_image_keeps_size() -> None:
    cost = image_tokens(4096, 512, "gpt-6-astra", "high")
    assert (cost.tokens, cost.resized, cost.units) == (2458, (4096, 512), 2048)


def test_doc_1536_budget_model() -> None:
    """1800x2400 -> 4275 patches -> shrink 0.603, adjusted 0.586 -> 1056x1408, 33x44 = 1452."""
    cost = image_tokens(1800, 2400, "gpt-4.1-nano")
    assert (cost.resized, cost.units) == ((1056, 1408), 1452)
    assert cost.tokens == 3572  # ceil(1452 * 2.46) = ceil(3571.92)


@pytest.mark.parametrize(("size", "standard", "high"), [
    ((200, 200), (64, (200, 200)), (64, (200, 200))),
    ((1000, 1000), (1296, (1000, 1000)), (1296, (1000, 1000))),
    ((1092, 1092), (1521, (1092, 1092)), (1521, (1092, 1092))),
    ((2000, 1500), (1564, (1269, 952)), (3888, (2000, 1500))),
    ((3840, 2160), (1560, (1456, 819)), (4784, (2576, 1449))),
])
def test_doc_claude_table(size: tuple[int, int], standard: tuple[int, tuple[int, int]],
                          high: tuple[int, tuple[int, int]]) -> None:
    low_tier = image_tokens(*size, "claude-haiku-4-5-20251001")
    high_tier = image_tokens(*size, "claude-opus-4-8")
    assert (low_tier.tokens, low_tier.resized) == standard
    assert (high_tier.tokens, high_tier.resized) == high


def test_doc_claude_a4_shrinks_though_both_sides_fit() -> None:
    cost = image_tokens(1075, 1520, "claude-sonnet-4-20250514")
    assert cost.resized == (924, 1307)
    assert cost.tokens == 33 * 47


@pytest.mark.parametrize(("size", "tokens"), [((200, 200), 54), ((1000, 1000), 1334), ((1092, 1092), 1590)])
def test_doc_claude_legacy_examples(size: tuple[int, int], tokens: int) -> None:
    cost = image_tokens(*size, "claude-3-5-sonnet-20241022", "legacy")
    assert (cost.tokens, cost.rule) == (tokens, "anthropic-legacy-750")


# --- the rest of the section 6 table (computed from the rules) -------------------------------------

@pytest.mark.parametrize(("size", "gpt54", "gpt4o", "claude", "claude_hi", "gemini2"), [
    ((1920, 1080), 2448, 1105, 1560, 2691, 7 * 258),  # Vertex: tile 720, 3 x 2 + 1
    ((2048, 2048), 3000, 765, 1521, 4761, 10 * 258),  # tile 1365 clamped to 768: 3 x 3 + 1
    ((960, 540), 612, 765, 700, 700, 7 * 258),
    ((300, 200), 84, 255, 88, 88, 258),
])
def test_section6_rows(size: tuple[int, int], gpt54: int, gpt4o: int, claude: int, claude_hi: int,
                       gemini2: int) -> None:
    assert image_tokens(*size, "gpt-5.4", "high").tokens == gpt54
    assert image_tokens(*size, "gpt-4o").tokens == gpt4o
    assert image_tokens(*size, "claude-sonnet-4-5").tokens == claude
    assert image_tokens(*size, "claude-opus-4-7").tokens == claude_hi
    assert image_tokens(*size, "gemini-2.0-flash", platform="vertex").tokens == gemini2
    assert image_tokens(*size, "gemini-2.0-flash").tokens == 258
    assert image_tokens(*size, "gemini-3-pro-preview").tokens == 1120


# --- OpenAI tile models ----------------------------------------------------------------------------

def test_tile_boundary_512() -> None:
    assert image_tokens(512, 512, "gpt-4o").tokens == 85 + 170
    assert image_tokens(513, 512, "gpt-4o").tokens == 85 + 2 * 170


def test_tile_shortest_side_768_step() -> None:
    at = image_tokens(768, 1000, "gpt-4.1")
    assert (at.resized, at.tokens, at.downscaled) == ((768, 1000), 85 + 4 * 170, False)
    above = image_tokens(769, 769, "gpt-4.1")
    assert (above.resized, above.tokens, above.downscaled) == ((768, 768), 85 + 4 * 170, True)


def test_tile_2048_fit_step() -> None:
    at = image_tokens(2048, 1000, "gpt-4o")
    assert at.resized == (1572, 768)  # 2048 * 768 // 1000
    above = image_tokens(2049, 1000, "gpt-4o")
    assert above.resized == (1574, 768)  # 2048 x 999 first, then 2048 * 768 // 999
    assert above.tokens == 85 + 8 * 170


def test_tile_small_images_are_not_enlarged() -> None:
    assert image_tokens(300, 200, "gpt-4o").resized == (300, 200)


@pytest.mark.parametrize(("model", "low", "high_1024"), [
    ("gpt-4o", 85, 765), ("gpt-4o-mini-2024-07-18", 2833, 2833 + 4 * 5667), ("gpt-5", 70, 70 + 4 * 140),
    ("gpt-5.1-2025-11-13", 70, 630), ("o3", 75, 75 + 4 * 150), ("o1-2024-12-17", 75, 675),
])
def test_tile_base_and_per_tile(model: str, low: int, high_1024: int) -> None:
    assert image_tokens(4000, 3000, model, "low").tokens == low
    assert image_tokens(1024, 1024, model).tokens == high_1024


def test_tile_low_is_a_512_view() -> None:
    assert image_tokens(2000, 1000, "gpt-4o", "low").resized == (512, 256)


def test_tile_models_reject_original() -> None:
    with pytest.raises(ValueError, match="original"):
        image_tokens(100, 100, "gpt-4o", "original")


def test_codex_tile_rule_is_flagged_as_assumed() -> None:
    cost = image_tokens(1024, 1024, "gpt-5-codex")
    assert cost.tokens == 630
    assert "assumed" in cost.note


# --- OpenAI patch models ---------------------------------------------------------------------------

def test_patch_budget_boundary() -> None:
    at = image_tokens(1600, 1600, "gpt-5.4", "high")
    assert (at.units, at.tokens, at.resized) == (2500, 3000, (1600, 1600))
    above = image_tokens(1601, 1600, "gpt-5.4", "high")
    # shrink*adjust leaves 49 patch rows: factor 0.98 -> 1568x1568, 49*49 = 2401 -> ceil(2881.2)
    assert (above.resized, above.units, above.tokens) == ((1568, 1568), 2401, 2882)


def test_patch_2048_fit() -> None:
    cost = image_tokens(2049, 100, "gpt-5.4", "high")
    assert cost.resized == (2048, 99)
    assert (cost.units, cost.tokens) == (64 * 4, 308)


def test_patch_low_can_cost_more_than_high_on_gpt54() -> None:
    low = image_tokens(2048, 2048, "gpt-5.4-mini", "low")
    assert (low.units, low.tokens) == (4096, 4916)
    assert low.tokens > image_tokens(2048, 2048, "gpt-5.4-mini", "high").tokens


def test_patch_original_budget_boundary() -> None:
    assert image_tokens(3200, 3200, "gpt-5.4", "original").tokens == 12000
    above = image_tokens(3201, 3200, "gpt-5.4", "original")
    assert (above.resized, above.units, above.tokens) == ((3168, 3168), 9801, 11762)


def test_patch_auto_levels() -> None:
    assert image_tokens(2048, 2048, "gpt-5.4").detail == "high"
    assert image_tokens(2048, 2048, "gpt-5.5").detail == "original"
    assert image_tokens(2048, 2048, "gpt-6-astra").detail == "original"


def test_patch_low_512_box() -> None:
    cost = image_tokens(1024, 768, "gpt-5.5", "low")
    assert cost.resized == (512, 384)
    assert (cost.units, cost.tokens) == (16 * 12, 231)  # ceil(192 * 1.2) = ceil(230.4)


def test_patch_low_box_boundary() -> None:
    assert image_tokens(512, 512, "gpt-5.5", "low").resized == (512, 512)
    assert image_tokens(513, 512, "gpt-5.5", "low").resized == (512, 511)  # 512 * 512 // 513


def test_patch_1536_budget_boundary() -> None:
    at = image_tokens(1248, 1248, "gpt-4.1-nano")
    assert (at.resized, at.units) == ((1248, 1248), 1521)
    # 40 x 39 = 1560 patches: shrink 1.004516, adjusted to 39 columns: x 39/39.2075 -> 0.999199,
    # so 1249 x 1248 becomes 1248.0 x 1247.0
    above = image_tokens(1249, 1248, "gpt-4.1-nano")
    assert (above.resized, above.units) == ((1248, 1247), 1521)


def test_patch_2048_box_binds_before_the_6144_budget() -> None:
    at = image_tokens(2048, 2048, "gpt-5.2")
    assert (at.units, at.tokens) == (4096, 4916)  # 64 x 64 < 6144: the budget never binds
    assert image_tokens(2049, 2049, "gpt-5.2").resized == (2048, 2048)


def test_patch_30000_limit_rejects() -> None:
    ok = image_tokens(5536, 5536, "gpt-6-astra", "original")
    assert (ok.units, ok.tokens) == (173 * 173, 35915)
    with pytest.raises(ValueError, match="30,000"):
        image_tokens(6000, 6000, "gpt-6-astra", "original")


@pytest.mark.parametrize(("model", "tokens"), [
    ("gpt-4.1-mini-2025-04-14", 1659), ("o4-mini", 1762), ("gpt-5-nano", 1536), ("gpt-5-mini", 1229),
    # newest revision (2026-11-29): 1.2 from gpt-5.2 to the GPT-5.6 family (earlier: mini 1.62, nano 2.46)
    ("gpt-5.2", 1229), ("gpt-5.4-mini", 1229), ("gpt-5.4-nano", 1229), ("gpt-5.5", 1229), ("gpt-5.6-sol", 1229),
])
def test_patch_multipliers(model: str, tokens: int) -> None:
    # 1024x1024 = 1024 patches: x1.62 = 1658.88, x1.72 = 1761.28, x1.5 = 1536, x1.2 = 1228.8
    cost = image_tokens(1024, 1024, model)
    assert (cost.tokens, cost.evidence) == (tokens, "documented")


def test_patch_model_without_documented_multiplier() -> None:
    assert resize_for(1800, 2400, "gpt-5.3-codex") == (1056, 1408)
    with pytest.raises(ValueError, match="no multiplier"):
        image_tokens(1800, 2400, "gpt-5.3-codex")


# --- Anthropic -------------------------------------------------------------------------------------

def test_claude_token_limit_boundary() -> None:
    assert image_tokens(1092, 1092, "claude-opus-4-5").resized == (1092, 1092)
    above = image_tokens(1093, 1093, "claude-opus-4-5")
    assert (above.resized, above.tokens) == ((1092, 1092), 1521)


def test_claude_edge_limit_boundary() -> None:
    assert image_tokens(1568, 28, "claude-sonnet-4-5").resized == (1568, 28)
    assert image_tokens(1569, 28, "claude-sonnet-4-5").resized == (1568, 28)
    assert image_tokens(2576, 28, "claude-opus-4-7").resized == (2576, 28)
    high = image_tokens(2577, 28, "claude-opus-4-7")
    assert (high.resized, high.tokens) == ((2576, 28), 92)


def test_claude_tall_images_swap_axes() -> None:
    assert image_tokens(1080, 1920, "claude-sonnet-4-5").resized == (819, 1456)


def test_claude_rejects_over_8000() -> None:
    image_tokens(8000, 10, "claude-sonnet-4-5")
    with pytest.raises(ValueError, match="8000"):
        image_tokens(8001, 10, "claude-sonnet-4-5")


def test_claude_legacy_edge_and_area() -> None:
    assert image_tokens(1568, 100, "claude-3-7-sonnet", "legacy").tokens == 210  # ceil(156800/750)
    above = image_tokens(1569, 100, "claude-3-7-sonnet", "legacy")
    assert (above.resized, above.tokens) == ((1568, 99), 207)
    assert image_tokens(1095, 1095, "claude-3-7-sonnet", "legacy").resized == (1095, 1095)
    assert image_tokens(1096, 1096, "claude-3-7-sonnet", "legacy").resized == (1095, 1095)


# --- Gemini ----------------------------------------------------------------------------------------

def test_vertex_small_image_boundary() -> None:
    small = image_tokens(384, 384, "gemini-2.5-pro", platform="vertex")
    assert (small.tokens, small.units, small.resized, small.tiles) == (258, 1, (384, 384), None)
    # tile floor(384 / 1.5) = 256: 2 x 2 tiles + 1
    assert image_tokens(385, 384, "gemini-2.5-pro", platform="vertex").tokens == 5 * 258
    assert image_tokens(384, 385, "gemini-2.5-pro", platform="vertex").tokens == 5 * 258


def test_vertex_tile_is_clamped_to_256_and_768() -> None:
    thin = image_tokens(1000, 300, "gemini-2.5-flash", platform="vertex")  # 300 / 1.5 = 200 -> 256
    assert thin.tiles == Tiling(crop=256, columns=4, rows=2, tile=768)
    assert thin.tokens == 9 * 258
    big = image_tokens(2048, 2048, "models/gemini-2.5-flash", platform="vertex")  # 1365 -> 768
    assert big.tiles == Tiling(crop=768, columns=3, rows=3, tile=768)
    assert (big.resized, big.downscaled) == ((2048, 2048), False)  # crops of 768 are not shrunk


def test_vertex_fits_3072_first() -> None:
    at = image_tokens(3072, 3072, "gemini-2.5-flash", platform="vertex")
    assert (at.resized, at.downscaled, at.tokens) == ((3072, 3072), False, 17 * 258)
    above = image_tokens(6144, 3073, "gemini-2.5-flash", platform="vertex")
    assert (above.resized, above.downscaled) == ((3072, 1536), True)  # 3073 * 3072 // 6144
    assert above.tiles == Tiling(crop=768, columns=4, rows=2, tile=768)
    assert downscaled(6144, 3073, "gemini-2.5-flash", platform="vertex") is True
    assert resize_for(6144, 3073, "gemini-2.5-flash") == (768, 384)  # the Developer API's assumed square


def test_tiles_describe_openai_tiling_and_patches_have_none() -> None:
    assert image_tokens(1024, 1024, "gpt-4o").tiles == Tiling(512, 2, 2, 512)  # of the 768x768 resize
    assert image_tokens(1024, 1024, "gpt-5.4").tiles is None
    assert image_tokens(1024, 1024, "claude-sonnet-4-5").tiles is None
    assert image_tokens(300, 300, "gemini-2.5-flash", platform="vertex").tiles is None  # one 258-token image


@pytest.mark.parametrize(("level", "tokens", "box"), [
    ("low", 64, 382), ("MEDIA_RESOLUTION_MEDIUM", 256, 765), ("high", 256, 765),
])
@pytest.mark.parametrize("platform", ["gemini-api", "vertex"])
def test_gemini2_media_resolution_levels(level: str, tokens: int, box: int, platform: str) -> None:
    """media-resolution page (2026-02-19): Gemini 2.5 images LOW 64, MEDIUM 256, HIGH 256 + Pan & Scan.
    The seen size is a box holding the tokens at 258 per 768x768: sqrt(768^2 * 64 / 258) = 382.5."""
    cost = image_tokens(1000, 1000, "gemini-2.5-flash", media_resolution=level, platform=platform)
    assert (cost.tokens, cost.units, cost.evidence) == (tokens, 1, "documented")
    assert "media-resolution" in cost.source.url and cost.source.date == "2026-02-19"
    assert (cost.resized, cost.seen_evidence) == ((box, box), "assumed")
    assert image_tokens(1000, 1000, "gemini-2.5-flash", level, platform=platform).tokens == tokens  # via detail


def test_gemini2_high_names_pan_and_scan() -> None:
    assert "Pan & Scan" in image_tokens(1000, 1000, "gemini-2.5-flash", media_resolution="high").note


@pytest.mark.parametrize(("detail", "tokens"), [
    (None, 1120), ("low", 280), ("medium", 560), ("high", 1120), ("ultra_high", 2240),
    ("MEDIA_RESOLUTION_LOW", 280),
])
def test_gemini3_levels(detail: str | None, tokens: int) -> None:
    cost = image_tokens(4032, 3024, "gemini-3-pro-preview", detail)
    assert (cost.tokens, cost.evidence, cost.seen_evidence) == (tokens, "documented", "assumed")
    assert "a ceiling" in cost.note
    assert image_tokens(4032, 3024, "gemini-3-pro-preview", media_resolution=detail,
                        platform="vertex").tokens == tokens


@pytest.mark.parametrize(("level", "box"), [("low", 800), ("medium", 1131), ("high", 1600), ("ultra_high", 2262)])
def test_gemini3_assumed_boxes(level: str, box: int) -> None:
    """sqrt(768^2 * ceiling / 258): 280 -> 800.0, 560 -> 1131.5, 1120 -> 1600.1, 2240 -> 2263.0 (just under)."""
    cost = image_tokens(8000, 8000, "gemini-3-flash-preview", media_resolution=level)
    assert cost.resized == (box, box) and cost.downscaled
    assert "assumed" in cost.note


def test_gemini3_unknown_level() -> None:
    with pytest.raises(ValueError, match="no level"):
        image_tokens(100, 100, "gemini-3-flash-preview", "extreme")


# --- shared behaviour ------------------------------------------------------------------------------

def test_downscaled_helper() -> None:
    assert downscaled(1000, 1000, "claude-sonnet-4-5") is False
    assert downscaled(2000, 2000, "claude-sonnet-4-5") is True
    assert downscaled(1500, 1500, "gemini-3-pro-preview") is False  # inside the assumed 1600 box
    assert downscaled(2000, 2000, "gemini-3-pro-preview") is True


@pytest.mark.parametrize(("model", "evidence", "seen"), [
    ("gpt-4o", "documented", "documented"), ("gpt-5.4", "documented", "documented"),
    ("gpt-5-codex", "assumed", "assumed"), ("claude-sonnet-4-5", "documented", "documented"),
    ("gemini-2.5-flash", "measured", "assumed"), ("gemini-3-pro-preview", "documented", "assumed"),
])
def test_every_result_names_its_evidence_and_sources(model: str, evidence: Evidence, seen: Evidence) -> None:
    cost = image_tokens(800, 600, model)
    assert (cost.evidence, cost.seen_evidence) == (evidence, seen)
    for source in (cost.source, cost.seen_source):
        assert source.url.startswith("https://") and source.date
    assert cost.platform == ("gemini-api" if model.startswith("gemini") else None)


def test_platform_and_media_resolution_errors() -> None:
    with pytest.raises(ValueError, match="unknown platform 'bedrock' \\(choices: gemini-api, vertex\\)"):
        image_tokens(10, 10, "gemini-2.5-flash", platform="bedrock")
    with pytest.raises(ValueError, match="unknown platform"):
        image_tokens(10, 10, "gpt-4o", platform="bedrock")
    assert image_tokens(1024, 1024, "gpt-4o", platform="vertex").tokens == 765  # others bill the same anywhere
    with pytest.raises(ValueError, match="Gemini setting"):
        image_tokens(10, 10, "gpt-4o", media_resolution="low")
    with pytest.raises(ValueError, match="disagree"):
        image_tokens(10, 10, "gemini-2.5-flash", "low", media_resolution="high")
    assert image_tokens(10, 10, "gemini-2.5-flash", "LOW", media_resolution="media_resolution_low").tokens == 64


def test_openai_low_seen_size_cites_the_2024_guide() -> None:
    cost = image_tokens(2000, 1000, "gpt-4o", "low")
    assert cost.seen_source.date == "2024" and cost.source.date == "2026-11-29"


def test_bad_sizes_and_unknown_models() -> None:
    with pytest.raises(ValueError, match="positive"):
        image_tokens(0, 10, "gpt-4o")
    with pytest.raises(ValueError, match="unknown model"):
        image_tokens(10, 10, "llama-3-70b")
    with pytest.raises(ValueError, match="no documented image rule"):
        image_tokens(10, 10, "o3-mini")


def test_lite_models_flat_count_is_assumed_not_measured() -> None:
    """No report covers the lite models: they take the flat 258 of their family as an assumption."""
    for model in ("gemini-2.0-flash-lite", "gemini-2.5-flash-lite"):
        cost = image_tokens(1024, 1024, model)
        assert (cost.tokens, cost.evidence) == (258, "assumed")
    assert image_tokens(1024, 1024, "gemini-2.5-flash").evidence == "measured"
