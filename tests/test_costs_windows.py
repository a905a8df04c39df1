"""Context windows: the prompt ceiling per family, however a transcript spells the model."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from toolkit.costs import WINDOWS, UnknownModelError, Window, window_for
from toolkit.costs.models import BY_NAME, FAMILIES


@pytest.mark.parametrize("model", [
    "claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "claude-sonnet-4-5@20250929",
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "openrouter/anthropic/claude-sonnet-4.5",
])
def test_claude_sonnet_45_standard_window_whatever_the_spelling(model: str) -> None:
    window = window_for(model)
    assert (window.family, window.input, window.output) == ("claude-sonnet-4.5", 200_000, 64_000)
    assert "context-1m-2025-08-07" in window.note  # the 1M beta is noted, not the default
    assert window.source.url.startswith("https://platform.claude.com/docs/")


def test_claude_families_whose_default_window_is_1m() -> None:
    for model in ("claude-opus-4-6", "claude-opus-4-6[1m]", "claude-sonnet-4-6", "claude-opus-5", "claude-haiku-5-5"):
        assert window_for(model).input == 1_000_000, model
        assert window_for(model).output == 128_000, model
    assert window_for("claude-haiku-4-5-20251001").input == 200_000
    assert window_for("claude-opus-4-5-20251101").input == 200_000


def test_every_claude_family_has_a_window() -> None:
    claude = {f.name for f in FAMILIES if f.provider == "anthropic"}
    assert claude <= {w.family for w in WINDOWS}


@pytest.mark.parametrize("model", ["openai/gpt-4o", "gpt-4o-2024-08-06", "azure/gpt-4o"])
def test_gpt4o_prompt_limit_leaves_room_for_the_largest_output(model: str) -> None:
    window = window_for(model)
    assert (window.input, window.output) == (128_000 - 16_384, 16_384)
    assert "shared with output" in window.note and "3rd-party" in window.note


def test_openai_input_limits() -> None:
    assert window_for("gpt-5-2025-08-07").input == 272_000
    assert window_for("gpt-5.1-codex").input == 272_000  # a 400,000 window less 128,000 output
    assert window_for("gpt-5.4").input == 922_000
    assert window_for("gpt-6.1-sol").input == 922_000
    assert window_for("gpt-4.1-mini-2025-04-14").input == 1_047_576 - 32_768


@pytest.mark.parametrize("model", ["models/gemini-2.5-flash", "gemini-2.5-flash", "gemini/gemini-2.5-flash"])
def test_gemini_documented_input_limit(model: str) -> None:
    window = window_for(model)
    assert (window.family, window.input, window.output) == ("gemini-2.5-flash", 1_048_576, 65_536)
    assert window_for("gemini-3.1-pro-preview").input == 1_048_576
    assert window_for("gemini-2.0-flash-001").output == 8_192


def test_a_family_without_a_window_is_an_error_naming_those_with_one() -> None:
    with pytest.raises(ValueError, match=r"no context window recorded for 'gemini-1.5-pro' \(family gemini-1.5-pro\)"
                       ) as caught:
        window_for("gemini-1.5-pro")
    assert "families with one:" in str(caught.value) and "claude-opus-4.6" in str(caught.value)
    with pytest.raises(UnknownModelError):
        window_for("llama-3-70b")


def test_windows_are_sourced() -> None:
    families = [w.family for w in WINDOWS]
    assert len(families) == len(set(families))
    for window in WINDOWS:
        assert isinstance(window, Window) and window.family in BY_NAME
        assert window.source.url.startswith("https://") and date.fromisoformat(window.source.date)
        assert window.input > 0 and (window.output is None or window.output > 0)
        if "3rd-party" in window.source.note:
            assert "3rd-party" in window.note, window.family


def test_claude_code_prompts_fit_their_window(corpora: Path) -> None:
    """Every prompt a Claude Code session reported fits the window recorded for its model."""
    checked = 0
    for path in sorted((corpora / "claude_code").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            message = record.get("message")
            if not isinstance(message, dict) or "usage" not in message:
                continue
            try:
                window = window_for(str(message.get("model")))
            except ValueError:  # synthetic records and other vendors' models
                continue
            usage = message["usage"]
            prompt = sum(usage.get(k, 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                   "cache_read_input_tokens"))
            assert prompt <= window.input
            checked += 1
    if not checked:
        pytest.skip("no Claude Code record with a known model")
