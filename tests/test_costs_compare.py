"""Text against pages of glyphs: the arithmetic behind notebook 04."""

from __future__ import annotations

from toolkit.costs.compare import chars_per_page, cheapest_pages, image_vs_text, size_sweep
from toolkit.costs.text import count_exact

TEXT = "The quick brown fox jumps over the lazy dog. " * 100  # 4500 characters


def test_chars_per_page() -> None:
    assert chars_per_page(384, 384, (6, 12)) == 64 * 32
    assert chars_per_page(100, 10, (6, 12)) == 0


def test_rows_by_hand() -> None:
    frame = image_vs_text(TEXT, ["claude-sonnet-4-5", "gpt-4o"], sizes=[(384, 384), (1024, 1024)])
    claude = frame.filter(frame["model"] == "claude-sonnet-4-5").row(0, named=True)
    # 4500 chars / 2048 per page -> 3 pages of ceil(384/28)^2 = 196 tokens
    assert (claude["pages"], claude["tokens_per_page"], claude["image_tokens"]) == (3, 196, 588)
    assert claude["downscaled"] is False and claude["glyph_height_seen"] == 12
    big = frame.filter(frame["model"] == "gpt-4o").row(1, named=True)
    # 1024 px pages are shrunk to 768 px: the 12 px glyphs are seen 9 px high
    assert (big["resized_width"], big["downscaled"], big["glyph_height_seen"]) == (768, True, 9.0)
    gpt_text = frame.filter(frame["model"] == "gpt-4o")["text_tokens"][0]
    assert gpt_text == count_exact(TEXT)


def test_cheapest_pages_skip_downscaled_sizes() -> None:
    frame = image_vs_text(TEXT * 4, ["gpt-4o"], sizes=[(512, 512), (2048, 2048)])
    best = cheapest_pages(frame).row(0, named=True)
    assert (best["width"], best["height"]) == (512, 512)  # 2048 would be cheaper but is shrunk to 768
    assert best["saving"] == 1 - best["image_tokens"] / best["text_tokens"]


def test_size_sweep_steps() -> None:
    sweep = size_sweep(["gpt-4o", "gpt-5.3-codex"], [512, 513, 768, 769])
    assert sweep["model"].unique().to_list() == ["gpt-4o"]  # no documented multiplier: no rows
    assert sweep["tokens"].to_list() == [255, 765, 765, 765]  # squares: 513 px is already 2 x 2 tiles
    assert sweep["downscaled"].to_list() == [False, False, False, True]
