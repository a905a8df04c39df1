"""Prices: dated entries, disjoint token kinds, long-context tiers, no silent zero."""

from __future__ import annotations

from datetime import date

import pytest

from toolkit.costs import price_for, request_cost
from toolkit.costs.prices import PRICES


def test_claude_sonnet_45_all_kinds() -> None:
    # $3 in, $15 out, $0.30 cache hit, $3.75 5-minute write per million
    cost = request_cost("claude-sonnet-4-5-20250929", 1_000_000, 1_000_000, 1_000_000, 1_000_000)
    assert (cost.input, cost.output, cost.cached_input, cost.cache_write) == pytest.approx((3, 15, 0.30, 3.75))
    assert cost.total == pytest.approx(22.05)
    assert cost.source.url.startswith("https://platform.claude.com")


def test_one_hour_cache_write() -> None:
    assert request_cost("claude-opus-4-5", 0, 0, cache_write_tokens=1_000_000, cache_write_1h=True).total == 10


def test_openai_small_request() -> None:
    # gpt-4o: 12,000 fresh at $2.50, 3,000 cached at $1.25, 500 out at $10
    cost = request_cost("gpt-4o-2024-08-06", 12_000, 500, cached_tokens=3_000)
    assert cost.total == pytest.approx(0.03 + 0.00375 + 0.005)


def test_codex_models_are_priced() -> None:
    assert request_cost("gpt-5-codex", 1_000_000, 0).total == 1.25
    assert request_cost("gpt-5.1-codex", 0, 1_000_000).total == 10
    assert request_cost("gpt-5.3-codex", 1_000_000, 0).total == 1.75


def test_cache_writes_where_none_are_billed_cost_input() -> None:
    assert request_cost("gpt-4o", 0, 0, cache_write_tokens=1_000_000).total == 2.50


def test_dated_prices() -> None:
    assert price_for("claude-sonnet-5-5", date(2026, 10, 6)).rates.cached_input == 0.20
    assert price_for("claude-sonnet-5-5", date(2026, 10, 7)).rates.cached_input == 0.10
    assert price_for("claude-sonnet-5-5").rates.cached_input == 0.10
    assert price_for("gpt-5.6-sol", date(2026, 8, 1)).rates.input == 5
    assert price_for("gpt-5.6-sol", date(2026, 9, 22)).rates.input == 4


def test_long_context_tiers() -> None:
    at = request_cost("gemini-2.5-pro", 200_000, 1_000_000)
    assert (at.long_context, at.output) == (False, 10)
    above = request_cost("gemini-2.5-pro", 200_001, 1_000_000)
    assert above.long_context and above.output == 15 and above.input == pytest.approx(200_001 * 2.5 / 1e6)
    # Haiku 5.5: the prompt (fresh + cached + written) decides, and the whole request moves tier.
    haiku = request_cost("claude-haiku-5-5", 50_000, 1_000_000, cached_tokens=50_001)
    assert haiku.long_context and haiku.output == 2.50
    gpt = request_cost("gpt-5.4", 272_001, 1_000_000)
    assert gpt.long_context and gpt.output == 22.5 and gpt.input == pytest.approx(272_001 * 5 / 1e6)


def test_unpriced_family_is_an_error_not_zero() -> None:
    with pytest.raises(ValueError, match="no price recorded"):
        request_cost("gpt-4.5-preview", 10, 10)
    with pytest.raises(ValueError, match="unknown model"):
        request_cost("mystery-model", 10, 10)


def test_negative_counts() -> None:
    with pytest.raises(ValueError, match="output_tokens"):
        request_cost("gpt-4o", 10, -1)


def test_every_price_is_sourced_and_sane() -> None:
    for price in PRICES:
        assert price.source.url.startswith("https://") and price.source.date
        rates = price.rates
        assert rates.output >= rates.input > 0
        if rates.cached_input is not None:
            assert rates.cached_input < rates.input
