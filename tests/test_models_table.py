"""One table of model id → provider family (``toolkit.models``): the Claude Code importer, replay and
the costs registry all read it, agree with it on every model id the demo and shared corpora hold
(and gateway-routed spellings of them), and answer exactly what they answered before it was shared."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPORA, DATA, REPO
from toolkit.corpus import load
from toolkit.corpus.formats.claude_code import provider_of
from toolkit.costs.models import ALIASES, FAMILIES, UnknownModelError, canonical_id, resolve
from toolkit.models import PREFIXES, ROUTES, model_family, name_family, route_family, split_route
from toolkit.record import Reasoning
from toolkit.replay.request import model_name, provider_family

GATEWAY_IDS = (
    "openrouter/anthropic/claude-sonnet-4.5", "openrouter/anthropic/claude-opus-4-5-20251101",
    "google/gemini-2.5-flash", "google/gemini-3-pro-preview", "openrouter/google/gemini-2.5-pro",
    "models/gemini-2.5-flash", "gemini/gemini-2.5-flash", "vertex/gemini-2.5-pro", "openai/gpt-4o-mini",
    "openrouter/openai/gpt-5-codex", "azure/gpt-4o", "azure_openai/gpt-4.1", "anthropic/claude-haiku-4-5",
)


def _corpus_ids(root: Path) -> set[str]:
    """Every model id a corpus records: on messages, run configs and reasoning blocks."""
    ids: set[str] = set()
    for session in load(root, progress=False).sessions:
        ids |= {c.model for c in session.run_configs if c.model}
        for message in session.messages:
            ids |= {message.model} if message.model else set()
            ids |= {b.model for b in message.blocks if isinstance(b, Reasoning) and b.model}
    return ids


@pytest.fixture(scope="module")
def model_ids() -> list[str]:
    ids = _corpus_ids(DATA) | set(GATEWAY_IDS)
    if CORPORA.is_dir():
        ids |= _corpus_ids(CORPORA)
    return sorted(ids)


def _costs_provider(model: str) -> str | None:
    try:
        return resolve(model).family.provider
    except UnknownModelError:
        return None


def test_the_corpora_hold_the_ids_the_table_must_cover(model_ids: list[str]) -> None:
    assert {"claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06"} <= set(model_ids)
    if CORPORA.is_dir():
        assert {"mimo-v2.5-pro", "gpt-5-codex", "gemini-3-pro-preview", "openai/gpt-4o-mini", "<synthetic>"} <= set(
            model_ids)


def test_each_call_site_answers_what_the_table_says(model_ids: list[str]) -> None:
    for model in model_ids:
        importer = name_family(split_route(model)[1], reader="claude_code") or "anthropic"
        assert provider_of(model) == (None if model == "<synthetic>" else importer), model
        assert provider_family(None, model) == model_family(model, reader="replay"), model
        costs = _costs_provider(model)
        assert costs is None or costs == model_family(model), model


def test_the_three_call_sites_agree_on_every_corpus_and_gateway_id(model_ids: list[str]) -> None:
    for model in model_ids:
        # an id no family names (Cursor's composer-2-fast, read from a SpecStory export) is Anthropic's
        # to the Claude Code importer by its own rule (Claude Code speaks to an Anthropic endpoint)
        importer = {provider_of(model)} if model_family(model) is not None else set()
        said = (importer | {provider_family(None, model), _costs_provider(model)}) - {None}
        assert len(said) <= 1, (model, said)
        assert said <= {model_family(model)}, model


def test_every_registered_family_and_alias_has_its_provider_in_the_table() -> None:
    for family in FAMILIES:
        assert name_family(family.name) == family.provider, family.name
    for alias, name in ALIASES.items():
        assert name_family(alias) == name_family(name), alias


def test_the_table_is_unambiguous() -> None:
    texts = [row.text for row in PREFIXES]
    assert len(set(texts)) == len(texts)
    assert not [(a, b) for a in texts for b in texts if a != b and b.startswith(a)], "order would matter"
    assert all(key == key.lower() for key in ROUTES) and "" not in ROUTES


def test_the_route_split_is_the_last_slash() -> None:
    assert split_route("openrouter/anthropic/claude-sonnet-4.5") == ("openrouter/anthropic", "claude-sonnet-4.5")
    assert split_route("gpt-4o") == ("", "gpt-4o")
    assert canonical_id("openrouter/anthropic/claude-sonnet-4.5") == "claude-sonnet-4.5"
    assert route_family("Vertex_AI") == "google" and route_family("openrouter/anthropic") is None


# What each call site answered before the table was shared (computed from the three old
# implementations): model → (Claude Code importer, replay, replay's model name, costs registry).
# The rows where they differ are the differences kept on purpose (see ``toolkit.models.Prefix``):
# the importer ignores routes and never knew chatgpt/codex/gemma (default anthropic); replay knows
# only the families it has wires for, reads the route first (``vertex_ai/claude-*`` is google's) and
# does not strip Bedrock regions or ``ft:`` prefixes, which only the costs registry does.
BEFORE: dict[str, tuple[str | None, str | None, str, str | None]] = {
    "claude-sonnet-4-5-20250929": ("anthropic", "anthropic", "claude-sonnet-4-5-20250929", "anthropic"),
    "<synthetic>": (None, None, "<synthetic>", None),
    "mimo-v2.5-pro": ("xiaomi", None, "mimo-v2.5-pro", None),
    "openai/gpt-4o-mini": ("openai", "openai", "gpt-4o-mini", "openai"),
    "openrouter/anthropic/claude-sonnet-4.5": (
        "anthropic", "anthropic", "openrouter/anthropic/claude-sonnet-4.5", "anthropic"),
    "google/gemini-2.5-flash": ("google", "google", "gemini-2.5-flash", "google"),
    "models/gemini-2.5-flash": ("google", "google", "models/gemini-2.5-flash", "google"),
    "vertex_ai/claude-sonnet-4-5": ("anthropic", "google", "claude-sonnet-4-5", "anthropic"),
    "ollama/llama3.2": ("anthropic", "ollama", "llama3.2", None),
    "llama3.2": ("anthropic", None, "llama3.2", None),
    "chatgpt-4o-latest": ("anthropic", "openai", "chatgpt-4o-latest", "openai"),
    "codex-mini-latest": ("anthropic", "openai", "codex-mini-latest", "openai"),
    "gemma-3-27b-it": ("anthropic", "google", "gemma-3-27b-it", None),
    "deepseek-chat": ("deepseek", None, "deepseek-chat", None),
    "glm-4.6": ("zhipu", None, "glm-4.6", None),
    "kimi-k2": ("moonshot", None, "kimi-k2", None),
    "qwen3-coder": ("alibaba", None, "qwen3-coder", None),
    "grok-4": ("xai", None, "grok-4", None),
    "MiniMax-M2": ("minimax", None, "MiniMax-M2", None),
    "us.anthropic.claude-3-7-sonnet-20250219-v1:0": (
        "anthropic", None, "us.anthropic.claude-3-7-sonnet-20250219-v1:0", "anthropic"),
    "openai/claude-opus-4-5": ("anthropic", "openai", "claude-opus-4-5", "anthropic"),
    "anthropic/gpt-4o": ("openai", "anthropic", "gpt-4o", "openai"),
    "OpenAI/GPT-4o": ("openai", "openai", "GPT-4o", "openai"),
    "o3-mini": ("openai", "openai", "o3-mini", "openai"),
    "Claude-Opus-4-5": ("anthropic", "anthropic", "Claude-Opus-4-5", "anthropic"),
    "": ("anthropic", None, "", None),
    "ft:gpt-4o-mini:org::abc": ("anthropic", None, "ft:gpt-4o-mini:org::abc", "openai"),
}


@pytest.mark.parametrize("model", sorted(BEFORE))
def test_each_call_site_answers_as_before_the_table_was_shared(model: str) -> None:
    assert (provider_of(model), provider_family(None, model), model_name(model), _costs_provider(model)) == BEFORE[model]


def test_a_recorded_provider_still_decides_before_the_model() -> None:
    assert provider_of(None) == "anthropic"
    assert provider_family("Azure", "claude-x") == "openai"
    assert provider_family("OLLAMA", None) == "ollama"
    assert provider_family("Bedrock", "claude-x") == "bedrock"
    assert provider_family("xiaomi", None) == "xiaomi"


@pytest.mark.parametrize("module", ["models", "errors"])
def test_the_bottom_layer_imports_nothing_from_the_toolkit(module: str) -> None:
    tree = ast.parse((REPO / "toolkit" / f"{module}.py").read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [name for name in imported if name.startswith("toolkit")]
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import toolkit.{module}"],
                          cwd=REPO, capture_output=True, text=True, check=True)
    heavy = [line for line in done.stderr.splitlines()
             if line.rsplit("|", 1)[-1].strip().split(".")[0] in ("polars", "numpy", "altair")]
    assert not heavy, heavy[:5]
