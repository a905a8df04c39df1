"""The model registry: ids as transcripts and gateways write them, and clear errors for the rest."""

from __future__ import annotations

import pytest

from toolkit.costs import FAMILIES, UnknownModelError, resolve
from toolkit.costs.images import RULES
from toolkit.costs.models import canonical_id
from toolkit.costs.prices import PRICES
from toolkit.costs.text import ENCODINGS, ESTIMATORS


@pytest.mark.parametrize(("model", "family"), [
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4.5"),
    ("claude-sonnet-4-5", "claude-sonnet-4.5"),
    ("claude-sonnet-4-5-20250929[1m]", "claude-sonnet-4.5"),
    ("claude-opus-4-5", "claude-opus-4.5"),
    ("claude-opus-4-5-20251101", "claude-opus-4.5"),
    ("claude-sonnet-4-20250514", "claude-sonnet-4"),
    ("claude-opus-4-1-20250805", "claude-opus-4.1"),
    ("claude-haiku-4-5-20251001", "claude-haiku-4.5"),
    ("claude-3-5-sonnet-20241022", "claude-3.5-sonnet"),
    ("claude-3-7-sonnet-latest", "claude-3.7-sonnet"),
    ("claude-3-opus-20240229", "claude-3-opus"),
    ("claude-opus-4-7", "claude-opus-4.7"),
    ("anthropic/claude-sonnet-4.5", "claude-sonnet-4.5"),
    ("openrouter/anthropic/claude-3.5-sonnet", "claude-3.5-sonnet"),
    ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3.7-sonnet"),
    ("bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4.5"),
    ("vertex_ai/claude-sonnet-4-5@20250929", "claude-sonnet-4.5"),
    ("gpt-4o-2024-08-06", "gpt-4o"),
    ("gpt-4o", "gpt-4o"),
    ("openai/gpt-4o-mini", "gpt-4o-mini"),
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
    ("chatgpt-4o-latest", "gpt-4o"),
    ("ft:gpt-4o-mini-2024-07-18:org::abc123", "gpt-4o-mini"),
    ("gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"),
    ("gpt-5-codex", "gpt-5-codex"),
    ("gpt-5.1-codex", "gpt-5.1-codex"),
    ("gpt-5.1-codex-max", "gpt-5.1-codex"),
    ("gpt-5.3-codex", "gpt-5.3-codex"),
    ("gpt-5-2025-08-07", "gpt-5"),
    ("gpt-5.1-2025-11-13", "gpt-5.1"),
    ("gpt-5.4-mini", "gpt-5.4-mini"),
    ("gpt-35-turbo", "gpt-3.5-turbo"),
    ("o3-mini-2025-01-31", "o3-mini"),
    ("o4-mini", "o4-mini"),
    ("gpt-oss-120b", "gpt-oss"),
    ("gemini-2.5-flash", "gemini-2.5-flash"),
    ("models/gemini-2.5-flash", "gemini-2.5-flash"),
    ("gemini-2.5-flash-lite-preview-06-17", "gemini-2.5-flash-lite"),
    ("gemini/gemini-2.5-pro", "gemini-2.5-pro"),
    ("google/gemini-2.0-flash-001", "gemini-2.0-flash"),
    ("gemini-3-pro-preview", "gemini-3-pro"),
    ("gemini-3-flash-preview", "gemini-3-flash"),
])
def test_transcript_ids_resolve(model: str, family: str) -> None:
    assert resolve(model).family.name == family


@pytest.mark.parametrize("model", [
    "<synthetic>", "mimo-v2.5-pro", "gpt-7", "claude-sonnet-9", "claude-instant-1.2", "llama-3.1-70b",
    "azure/my-deployment", "", "   ",
])
def test_unknown_models_raise_naming_the_families(model: str) -> None:
    with pytest.raises(UnknownModelError) as raised:
        resolve(model)
    message = str(raised.value)
    assert repr(model) in message
    for family in ("claude-sonnet-4.5", "gpt-4o", "gemini-2.5-flash"):
        assert family in message


def test_a_prefix_is_not_a_family_without_a_dash_boundary() -> None:
    assert resolve("gpt-5.1").family.name == "gpt-5.1"
    with pytest.raises(UnknownModelError):
        resolve("gpt-5.9")  # not gpt-5


def test_canonical_id_strips_routes_and_versions() -> None:
    assert canonical_id("bedrock/us.anthropic.claude-3-7-sonnet-20250219-v1:0") == "claude-3-7-sonnet-20250219"
    assert canonical_id("claude-sonnet-4-5@20250929") == "claude-sonnet-4-5"


def test_every_family_has_its_rules() -> None:
    """Every family can count text; every one with a price or image rule is registered."""
    names = {f.name for f in FAMILIES}
    for fam in FAMILIES:
        assert fam.tokenizer in ENCODINGS or fam.tokenizer in ESTIMATORS
    assert set(RULES) <= names
    assert {p.family for p in PRICES} <= names


def test_families_are_dated_where_known() -> None:
    assert resolve("claude-sonnet-4-5").family.released is not None
    assert str(resolve("gpt-4o").family.released) == "2024-05-13"
