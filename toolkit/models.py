"""Model id → provider family: the one table the importers, replay and costs read.

Transcripts and gateways write a model bare (``claude-sonnet-4-5-20250929``) or behind a route
(``openai/gpt-4o-mini``, ``openrouter/anthropic/claude-sonnet-4.5``, ``google/gemini-2.5-flash``).
``split_route`` is the one place such an id is split; ``route_family`` reads a route (or a recorded
provider name), ``name_family`` a bare name by its prefix, ``model_family`` both, route first.
``toolkit.costs.models`` keeps the richer registry (families with tokenizers, image rules, prices)
and agrees with this table on every family it registers (``tests/test_models_table.py``).

Bottom layer: imports nothing from the toolkit, so importers, replay and costs can all read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, assert_never

Reader = Literal["any", "claude_code", "replay"]
"""Who reads the prefix table: the rows each reader knew before the table was shared (``Prefix``)."""


def split_route(model: str) -> tuple[str, str]:
    """``(route, name)`` at the last ``/``: ``openrouter/anthropic/claude-x`` is
    ``("openrouter/anthropic", "claude-x")``; a bare name has the route ``""``."""
    route, _, name = model.rpartition("/")
    return route, name


# Provider names as importers record them, and gateway routes: inspect_ai writes
# ``openai/gpt-4o-mini`` (https://inspect.aisi.org.uk/providers.html, page undated); LiteLLM routes
# ``azure/<deployment>`` (https://docs.litellm.ai/docs/providers/azure, dated 2026-10-08) and
# ``vertex_ai/claude-*`` (https://docs.litellm.ai/docs/providers/vertex_partner, dated 2026-10-17).
# A route names who serves the model, so ``vertex_ai/claude-*`` reads as google.
ROUTES: Mapping[str, str] = {
    "openai": "openai", "azure": "openai", "azure_openai": "openai", "anthropic": "anthropic",
    "claude": "anthropic", "google": "google", "gemini": "google", "vertex": "google",
    "vertex_ai": "google", "google-genai": "google", "ollama": "ollama",
}
"""A route or recorded provider name (lower case) → its family."""


@dataclass(frozen=True, slots=True)
class Prefix:
    """Model names starting with ``text`` (compared in lower case) belong to ``family``."""

    text: str
    family: str
    claude_code: bool = True
    """Read by the Claude Code importer. It never knew ``chatgpt``, ``codex`` or ``gemma`` and
    stores such a reply as anthropic's; kept so that sharing the table changed no stored provider."""
    replay: bool = True
    """Read by replay, which names only the families it has wires for (anything else is ``None``)."""

    def read_by(self, reader: Reader) -> bool:
        match reader:
            case "any":
                return True
            case "claude_code":
                return self.claude_code
            case "replay":
                return self.replay
            case _:
                assert_never(reader)


# The rows merge the Claude Code importer's list and replay's (neither cited a document). Every
# first-party family ``toolkit.costs.models.FAMILIES`` registers, with its dated source, starts with
# one of these rows and has its provider (checked by ``tests/test_models_table.py``). The other
# vendors' rows are the models served behind Claude Code's Anthropic-compatible endpoint setting
# (``mimo-v2.5-pro`` in the shared Claude Code 2.1.145 transcripts): their thinking signatures are
# valid only with the vendor that made them. No prefix starts another, so the order does not matter.
PREFIXES: tuple[Prefix, ...] = (
    Prefix("claude", "anthropic"),
    Prefix("gpt", "openai"),
    Prefix("chatgpt", "openai", claude_code=False),
    Prefix("o1", "openai"),
    Prefix("o3", "openai"),
    Prefix("o4", "openai"),
    Prefix("codex", "openai", claude_code=False),
    Prefix("gemini", "google"),
    Prefix("gemma", "google", claude_code=False),
    Prefix("mimo", "xiaomi", replay=False),
    Prefix("deepseek", "deepseek", replay=False),
    Prefix("glm", "zhipu", replay=False),
    Prefix("kimi", "moonshot", replay=False),
    Prefix("qwen", "alibaba", replay=False),
    Prefix("grok", "xai", replay=False),
    Prefix("minimax", "minimax", replay=False),
)


def route_family(route: str) -> str | None:
    """The family a route or recorded provider name stands for (``vertex_ai`` → google), if known."""
    return ROUTES.get(route.lower())


def name_family(name: str, *, reader: Reader = "any") -> str | None:
    """The family a bare model name belongs to by its prefix (``gpt-4o-mini`` → openai), if known."""
    lowered = name.lower()
    for row in PREFIXES:
        if lowered.startswith(row.text) and row.read_by(reader):
            return row.family
    return None


def model_family(model: str, *, reader: Reader = "any") -> str | None:
    """The family of a model id: its route when the route names a provider (``azure/gpt-4o``,
    ``vertex_ai/claude-...``), else its name (``openrouter/anthropic/claude-...`` → anthropic)."""
    route, name = split_route(model)
    return route_family(route) or name_family(name, reader=reader)


__all__ = ["PREFIXES", "ROUTES", "Prefix", "Reader", "model_family", "name_family", "route_family", "split_route"]
