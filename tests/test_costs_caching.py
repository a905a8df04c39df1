"""Cache-aware input pricing: what each provider bills as cache read, cache write or fresh input."""

from __future__ import annotations

import json
from datetime import date, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from toolkit.costs import CacheRule, InputSplit, cache_rule, input_cost, split_input
from toolkit.costs.caching import CACHE_RULES
from toolkit.costs.models import BY_NAME, UnknownModelError

SONNET_45 = "claude-sonnet-4-5-20250929"


# Anthropic: a breakpoint at the prompt's end --------------------------------------------------------

def test_anthropic_below_the_minimum_caches_nothing() -> None:
    assert cache_rule(SONNET_45).minimum == 1_024
    assert split_input(SONNET_45, 1_023, 1_000) == InputSplit(fresh=1_023, cache_read=0, cache_write=0)
    assert split_input(SONNET_45, 1_024, 0) == InputSplit(fresh=0, cache_read=0, cache_write=1_024)


def test_anthropic_reads_the_reused_prefix_and_writes_the_rest() -> None:
    split = split_input(SONNET_45, 10_000, 8_000)
    assert split == InputSplit(fresh=0, cache_read=8_000, cache_write=2_000)
    assert split.total == 10_000
    # a reused prefix shorter than the minimum was never cached: everything is written
    assert split_input(SONNET_45, 10_000, 1_023) == InputSplit(0, 0, 10_000)


def test_anthropic_ttl_expiry() -> None:
    assert cache_rule(SONNET_45).ttl_seconds == 300
    assert split_input(SONNET_45, 10_000, 8_000, elapsed=300).cache_read == 8_000
    assert split_input(SONNET_45, 10_000, 8_000, elapsed=300.5) == InputSplit(0, 0, 10_000)
    assert split_input(SONNET_45, 10_000, 8_000, elapsed=None).cache_read == 8_000


def test_anthropic_minimums_per_model() -> None:
    # late-2026 revision of https://platform.claude.com/docs/en/build-with-claude/prompt-caching, including its revisions
    expected = {"claude-opus-5": 512, "claude-fable-5-1": 512, "claude-sonnet-4-6": 1_024,
                "claude-opus-4-7": 2_048, "claude-opus-4-6": 4_096, "claude-haiku-4-5-20251001": 4_096,
                "claude-3-5-haiku-20241022": 2_048}
    assert {m: cache_rule(m).minimum for m in expected} == expected
    assert split_input("claude-opus-4-6", 4_095, 4_000) == InputSplit(4_095, 0, 0)
    assert split_input("claude-opus-5", 600, 520) == InputSplit(0, 520, 80)


def test_sonnet_45_write_billed_at_125x_input() -> None:
    split, cost = input_cost(SONNET_45, 1_000_000, 0, 0)
    assert split == InputSplit(0, 0, 1_000_000)
    assert cost.cache_write == pytest.approx(3.75) and cost.total == pytest.approx(3.75)
    # 600k read at $0.30, 400k written at $3.75, 1k output at $15
    split, cost = input_cost(SONNET_45, 1_000_000, 600_000, 1_000)
    assert (cost.cached_input, cost.cache_write, cost.input, cost.output) == pytest.approx((0.18, 1.5, 0, 0.015))


# OpenAI: automatic prefix caching ----------------------------------------------------------------

def test_openai_1024_floor() -> None:
    assert split_input("gpt-5", 1_023, 1_023) == InputSplit(1_023, 0, 0)
    assert split_input("openai/gpt-4o", 1_023, 900) == InputSplit(1_023, 0, 0)


def test_openai_hits_in_128_token_increments() -> None:
    assert cache_rule("gpt-5").increment == 128
    assert split_input("gpt-5", 5_000, 2_000) == InputSplit(fresh=3_080, cache_read=1_920, cache_write=0)
    assert split_input("gpt-5", 5_000, 1_100).cache_read == 1_024
    # 1,151 rounds down to 1,024; 1,023 rounds down to 896, below the minimum: no hit
    assert split_input("gpt-5", 5_000, 1_151).cache_read == 1_024
    assert split_input("gpt-5", 5_000, 1_023) == InputSplit(5_000, 0, 0)


def test_gpt5_bills_no_write() -> None:
    split, cost = input_cost("gpt-5", 100_000, 60_032, 0)
    assert split == InputSplit(39_968, 60_032, 0)
    assert cost.cache_write == 0
    assert cost.total == pytest.approx(39_968 * 1.25 / 1e6 + 60_032 * 0.125 / 1e6)


def test_gpt56_family_bills_writes() -> None:
    rule = cache_rule("gpt-5.6-sol")
    assert (rule.writes_billed, rule.increment, rule.ttl_seconds) == (True, 1, 1_800)
    split, cost = input_cost("gpt-5.6-sol", 100_000, 60_001, 0, on=date(2026, 10, 1))
    assert split == InputSplit(0, 60_001, 39_999)
    # $4 input from 2026-09-22: cached $0.40, writes $5 (1.25x)
    assert cost.cached_input == pytest.approx(60_001 * 0.40 / 1e6)
    assert cost.cache_write == pytest.approx(39_999 * 5 / 1e6)
    assert cache_rule("gpt-6-sol").writes_billed and not cache_rule("gpt-5.5").writes_billed


def test_openai_lifetimes() -> None:
    assert cache_rule("gpt-4.1").ttl_seconds == 300 and cache_rule("gpt-4.1").evidence == "assumed"
    assert cache_rule("gpt-5.5").ttl_seconds == 86_400 and cache_rule("gpt-5.5").evidence == "documented"
    assert split_input("gpt-4.1", 5_000, 4_096, elapsed=301) == InputSplit(5_000, 0, 0)
    assert split_input("gpt-5.5", 5_000, 4_096, elapsed=3_600).cache_read == 4_096


def test_models_before_gpt4o_cache_nothing() -> None:
    assert cache_rule("gpt-4-turbo").mode == "none"
    assert split_input("gpt-4-turbo", 50_000, 40_000) == InputSplit(50_000, 0, 0)


# Gemini: implicit caching ------------------------------------------------------------------------

def test_gemini_25_implicit_minimum() -> None:
    model = "models/gemini-2.5-flash"
    assert cache_rule(model).mode == "implicit" and cache_rule(model).minimum == 2_048
    assert split_input(model, 3_000, 2_047) == InputSplit(3_000, 0, 0)
    assert split_input(model, 3_000, 2_048) == InputSplit(952, 2_048, 0)
    assert split_input(model, 2_047, 2_047) == InputSplit(2_047, 0, 0)
    assert cache_rule("gemini-3.5-flash").minimum == 4_096


def test_gemini_implicit_cost_uses_the_cache_rate() -> None:
    split, cost = input_cost("gemini-2.5-pro", 100_000, 80_000, 0)
    assert split == InputSplit(20_000, 80_000, 0)
    assert cost.total == pytest.approx(20_000 * 1.25 / 1e6 + 80_000 * 0.125 / 1e6)


def test_gemini_20_caches_nothing_implicitly() -> None:
    assert cache_rule("gemini-2.0-flash").mode == "none"
    assert split_input("gemini-2.0-flash-001", 100_000, 90_000) == InputSplit(100_000, 0, 0)


# Arguments and the table -------------------------------------------------------------------------

def test_reusable_is_clamped_and_negatives_refused() -> None:
    assert split_input(SONNET_45, 5_000, 9_000) == InputSplit(0, 5_000, 0)
    assert split_input(SONNET_45, 5_000, -3) == InputSplit(0, 0, 5_000)
    assert split_input("gpt-5", 0, 0) == InputSplit(0, 0, 0)
    with pytest.raises(ValueError, match="prompt must not be negative"):
        split_input(SONNET_45, -1, 0)
    with pytest.raises(ValueError, match="elapsed must not be negative"):
        split_input(SONNET_45, 10, 0, elapsed=-1)


def test_a_family_without_a_rule_is_an_error_naming_those_with_one() -> None:
    with pytest.raises(ValueError, match=r"no cache rule recorded for 'claude-3-sonnet-20240229'") as caught:
        cache_rule("claude-3-sonnet-20240229")
    assert "claude-sonnet-4.5" in str(caught.value) and "gemini-2.5-pro" in str(caught.value)
    with pytest.raises(UnknownModelError):
        cache_rule("llama-3-70b")


def test_rules_are_sourced_and_consistent() -> None:
    families = [r.family for r in CACHE_RULES]
    assert len(families) == len(set(families))
    for rule in CACHE_RULES:
        assert isinstance(rule, CacheRule)
        assert BY_NAME[rule.family].provider == rule.provider, rule.family
        assert rule.source.url.startswith("https://") and date.fromisoformat(rule.source.date)
        assert (rule.mode == "none") == (rule.ttl_seconds is None), rule.family
        assert rule.writes_billed == (rule.provider == "anthropic" or rule.family.startswith(("gpt-5.6", "gpt-6")))
    every_claude = {f.name for f in BY_NAME.values() if f.provider == "anthropic"} - {"claude-3-sonnet"}
    assert every_claude <= set(families)


# Cross-check against what a real Claude Code session reported -------------------------------------

def _main_chain_usage(path: Path) -> list[tuple[str, datetime, dict[str, Any]]]:
    """One entry per distinct API response of the main chain (a response spans several records)."""
    seen: set[str] = set()
    out: list[tuple[str, datetime, dict[str, Any]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line) if line.strip() else {}
        message = record.get("message")
        if record.get("type") != "assistant" or record.get("isSidechain") or not isinstance(message, dict):
            continue
        if "usage" not in message or message.get("id") in seen:
            continue
        seen.add(message["id"])
        stamp = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
        out.append((message["model"], stamp, message["usage"]))
    return out


def test_claude_code_cache_reads_match_the_previous_request(corpora: Path) -> None:
    path = corpora / "claude_code" / "viewer_v1.0.98_orchestrator_sidechains.jsonl"
    if not path.is_file():
        pytest.skip("viewer_v1.0.98 transcript absent")
    requests = _main_chain_usage(path)
    assert len(requests) >= 5
    for (model, before, prev), (_, after, usage) in pairwise(requests):
        # the previous request cached what it read plus what it wrote
        cached = prev["cache_read_input_tokens"] + prev["cache_creation_input_tokens"]
        prompt = usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"]
        split = split_input(model, prompt, cached, elapsed=(after - before).total_seconds())
        assert split.cache_read == usage["cache_read_input_tokens"]
        # Claude Code's breakpoint sits a few tokens before the end; the simulated one sits at the end
        assert split.cache_write == usage["cache_creation_input_tokens"] + usage["input_tokens"]
        assert usage["input_tokens"] < 400


def test_what_a_rewritten_history_can_still_read() -> None:
    """A prompt that extends the previous one reads it whole everywhere; after a rewrite Anthropic
    reads only up to the client's own breakpoint, OpenAI and Gemini every unchanged leading token."""
    from toolkit.costs.caching import reusable

    for model in ("claude-sonnet-4-5", "gpt-5", "gemini-2.5-flash"):
        assert reusable(model, head=5000, pinned=3000, shared=20000, extends=True) == 25000
    assert reusable("claude-sonnet-4-5", head=5000, pinned=3000, shared=20000, extends=False) == 3000
    assert reusable("gpt-5", head=5000, pinned=3000, shared=20000, extends=False) == 25000
    assert reusable("gemini-2.5-flash", head=5000, pinned=3000, shared=0, extends=False) == 5000
    assert reusable("gpt-3.5-turbo", head=5000, pinned=3000, shared=20000, extends=True) == 0
