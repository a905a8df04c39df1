"""The model registry: every model id a transcript may hold, mapped to a dated family.

Transcripts name models many ways (``claude-sonnet-4-5-20250929``, ``claude-opus-4-5``,
``gpt-4o-2024-08-06``, ``openai/gpt-4o-mini``, ``us.anthropic.claude-3-7-sonnet-20250219-v1:0``,
``claude-sonnet-4-5@20250929``, ``models/gemini-2.5-flash``, ``openrouter/anthropic/claude-sonnet-4.5``).
``resolve`` reduces each to one family, whose rules (text tokenizer, image formula, price) live
beside it in the sibling modules. A model that matches no family is an error naming the known
families: a silent default would price and resize with the wrong rule. Where a route ends and which
provider a name belongs to is ``toolkit.models``'s table, shared with the importers and replay.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Literal, TypeVar

from toolkit.errors import InvalidInput, UnknownModel
from toolkit.models import name_family, split_route

_T = TypeVar("_T")

Provider = Literal["openai", "anthropic", "google"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic", "google")


@dataclass(frozen=True, slots=True)
class Source:
    """Where a number came from: the document and the date it was read or dated."""

    url: str
    date: str
    """ISO date of the document revision (or the day it was read when the page shows none)."""
    note: str = ""

    def __str__(self) -> str:
        tail = f"; {self.note}" if self.note else ""
        return f"{self.url} ({self.date}{tail})"


@dataclass(frozen=True, slots=True)
class Family:
    """Models that share a text tokenizer, an image rule and a price."""

    name: str
    provider: Provider
    released: date | None
    """Release (or first snapshot) date; ``None`` where the sources do not give one."""
    tokenizer: str
    """A tiktoken encoding name for OpenAI families (exact counts), else the estimator's name."""

    @property
    def exact_text(self) -> bool:
        return self.provider == "openai"


@dataclass(frozen=True, slots=True)
class Model:
    """A model id as written in a transcript, with the family it belongs to."""

    id: str
    """The id exactly as given."""
    family: Family
    canonical: str
    """The id with routing prefixes, regions, dates and version suffixes removed."""


class UnknownModelError(UnknownModel):
    """A model id that matches no family in the registry (``toolkit.errors.UnknownModel`` with the
    registered families listed; the name existing imports use).

    Args:
        model: The model id that matched no family, as the caller wrote it.
        reason: Why it matched none, when more can be said than that.
    """

    def __init__(self, model: str, reason: str = "") -> None:
        super().__init__(model, {p: [f.name for f in FAMILIES if f.provider == p] for p in PROVIDERS}, reason)


# Tokenizer names for the families without a public tokenizer (estimators in ``text.py``).
CLAUDE = "claude"
"""Claude 3 through Claude Opus 4.6 / Sonnet 4.6 / Haiku 4.5."""
CLAUDE_2026 = "claude-2026"
"""The tokenizer introduced with Claude Opus 4.7 ("roughly 30% more tokens" for the same text,
https://platform.claude.com/docs/en/about-claude/models/overview, stored copy read 2026-11-29)."""
GEMINI = "gemini"


def _d(text: str) -> date:
    return date.fromisoformat(text)


# Families. Dates: the snapshot date in the model id where one exists (claude-sonnet-4-5-20250929 is
# 2025-09-29), otherwise the announcement date as the providers' pages give it, read 2026-11-29:
# https://developers.openai.com/api/docs/pricing, https://platform.claude.com/docs/en/about-claude/pricing
# and the model overview pages, https://ai.google.dev/gemini-api/docs/pricing;
# ``None`` when neither is known.
# Encodings: tiktoken 0.14.0 ``tiktoken/model.py`` (prefix "gpt-5" covers every GPT-5.x and later
# id since "Fail open for GPT-5 model tokenisers (#596)"; "gpt-oss-" → o200k_harmony).
FAMILIES: tuple[Family, ...] = (
    # OpenAI
    Family("gpt-3.5-turbo", "openai", _d("2023-03-01"), "cl100k_base"),
    Family("gpt-4", "openai", _d("2023-03-14"), "cl100k_base"),
    Family("gpt-4-turbo", "openai", _d("2024-04-09"), "cl100k_base"),
    Family("gpt-4o", "openai", _d("2024-05-13"), "o200k_base"),
    Family("gpt-4o-mini", "openai", _d("2024-07-18"), "o200k_base"),
    Family("gpt-4.5", "openai", _d("2025-02-27"), "o200k_base"),
    Family("gpt-4.1", "openai", _d("2025-04-14"), "o200k_base"),
    Family("gpt-4.1-mini", "openai", _d("2025-04-14"), "o200k_base"),
    Family("gpt-4.1-nano", "openai", _d("2025-04-14"), "o200k_base"),
    Family("o1", "openai", _d("2024-12-17"), "o200k_base"),
    Family("o1-mini", "openai", _d("2024-09-12"), "o200k_base"),
    Family("o1-pro", "openai", _d("2025-03-19"), "o200k_base"),
    Family("o3", "openai", _d("2025-04-16"), "o200k_base"),
    Family("o3-mini", "openai", _d("2025-01-31"), "o200k_base"),
    Family("o3-pro", "openai", _d("2025-06-10"), "o200k_base"),
    Family("o4-mini", "openai", _d("2025-04-16"), "o200k_base"),
    Family("gpt-oss", "openai", _d("2025-08-05"), "o200k_harmony"),
    Family("gpt-5", "openai", _d("2025-08-07"), "o200k_base"),
    Family("gpt-5-mini", "openai", _d("2025-08-07"), "o200k_base"),
    Family("gpt-5-nano", "openai", _d("2025-08-07"), "o200k_base"),
    Family("gpt-5-pro", "openai", _d("2025-10-06"), "o200k_base"),
    Family("gpt-5-codex", "openai", _d("2025-09-15"), "o200k_base"),
    Family("gpt-5-codex-mini", "openai", None, "o200k_base"),
    Family("gpt-5.1", "openai", _d("2025-11-13"), "o200k_base"),
    Family("gpt-5.1-codex", "openai", _d("2025-11-13"), "o200k_base"),
    Family("gpt-5.1-codex-mini", "openai", _d("2025-11-13"), "o200k_base"),
    Family("gpt-5.2", "openai", _d("2025-12-11"), "o200k_base"),
    Family("gpt-5.2-codex", "openai", None, "o200k_base"),
    Family("gpt-5.3-codex", "openai", None, "o200k_base"),
    Family("gpt-5.4", "openai", None, "o200k_base"),
    Family("gpt-5.4-mini", "openai", None, "o200k_base"),
    Family("gpt-5.4-nano", "openai", None, "o200k_base"),
    Family("gpt-5.5", "openai", None, "o200k_base"),
    Family("gpt-5.6-sol", "openai", None, "o200k_base"),
    Family("gpt-5.6-terra", "openai", None, "o200k_base"),
    Family("gpt-5.6-luna", "openai", None, "o200k_base"),
    Family("gpt-6-sol", "openai", _d("2026-09-22"), "o200k_base"),
    Family("gpt-6-luna", "openai", _d("2026-09-22"), "o200k_base"),
    Family("gpt-6.1-sol", "openai", _d("2026-09-29"), "o200k_base"),
    Family("gpt-6-astra", "openai", None, "o200k_base"),
    # Anthropic
    Family("claude-3-opus", "anthropic", _d("2024-02-29"), CLAUDE),
    Family("claude-3-sonnet", "anthropic", _d("2024-02-29"), CLAUDE),
    Family("claude-3-haiku", "anthropic", _d("2024-03-07"), CLAUDE),
    Family("claude-3.5-sonnet", "anthropic", _d("2024-06-20"), CLAUDE),
    Family("claude-3.5-haiku", "anthropic", _d("2024-10-22"), CLAUDE),
    Family("claude-3.7-sonnet", "anthropic", _d("2025-02-19"), CLAUDE),
    Family("claude-sonnet-4", "anthropic", _d("2025-05-14"), CLAUDE),
    Family("claude-opus-4", "anthropic", _d("2025-05-14"), CLAUDE),
    Family("claude-opus-4.1", "anthropic", _d("2025-08-05"), CLAUDE),
    Family("claude-sonnet-4.5", "anthropic", _d("2025-09-29"), CLAUDE),
    Family("claude-haiku-4.5", "anthropic", _d("2025-10-01"), CLAUDE),
    Family("claude-opus-4.5", "anthropic", _d("2025-11-24"), CLAUDE),
    Family("claude-opus-4.6", "anthropic", _d("2026-02-05"), CLAUDE),
    Family("claude-sonnet-4.6", "anthropic", None, CLAUDE),
    Family("claude-opus-4.7", "anthropic", None, CLAUDE_2026),
    Family("claude-opus-4.8", "anthropic", None, CLAUDE_2026),
    Family("claude-sonnet-5", "anthropic", None, CLAUDE_2026),
    Family("claude-opus-5", "anthropic", _d("2026-07-24"), CLAUDE_2026),
    Family("claude-fable-5", "anthropic", None, CLAUDE_2026),
    Family("claude-mythos-5", "anthropic", None, CLAUDE_2026),
    Family("claude-opus-5.5", "anthropic", _d("2026-09-22"), CLAUDE_2026),
    Family("claude-sonnet-5.5", "anthropic", None, CLAUDE_2026),
    Family("claude-haiku-5.5", "anthropic", None, CLAUDE_2026),
    Family("claude-fable-5.1", "anthropic", None, CLAUDE_2026),
    Family("claude-mythos-5.1", "anthropic", None, CLAUDE_2026),
    # Google
    Family("gemini-1.5-pro", "google", _d("2024-05-14"), GEMINI),
    Family("gemini-1.5-flash", "google", _d("2024-05-14"), GEMINI),
    Family("gemini-2.0-flash", "google", _d("2025-02-05"), GEMINI),
    Family("gemini-2.0-flash-lite", "google", _d("2025-02-25"), GEMINI),
    Family("gemini-2.5-pro", "google", _d("2025-06-17"), GEMINI),
    Family("gemini-2.5-flash", "google", _d("2025-06-17"), GEMINI),
    Family("gemini-2.5-flash-lite", "google", _d("2025-07-22"), GEMINI),
    Family("gemini-3-pro", "google", _d("2025-11-18"), GEMINI),
    Family("gemini-3-flash", "google", _d("2025-12-17"), GEMINI),
    Family("gemini-3.1-pro", "google", None, GEMINI),
    Family("gemini-3.1-flash-lite", "google", None, GEMINI),
    Family("gemini-3.5-flash", "google", None, GEMINI),
    Family("gemini-3.5-flash-lite", "google", None, GEMINI),
)

BY_NAME: dict[str, Family] = {f.name: f for f in FAMILIES}

ALIASES: dict[str, str] = {
    "chatgpt-4o": "gpt-4o",
    "gpt-35-turbo": "gpt-3.5-turbo",  # Azure deployment spelling (tiktoken/model.py)
    "gpt-4.5-preview": "gpt-4.5",
    "codex-mini": "gpt-5-codex-mini",
}
"""Other names of a family."""

_CLAUDE_NEW = re.compile(r"claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:[-.](\d)(?!\d))?")
_CLAUDE_OLD = re.compile(r"claude-(\d)(?:[-.](\d))?-(opus|sonnet|haiku)")
_BEDROCK_REGION = re.compile(r"^(?:us|eu|apac|au|jp|global|us-gov)\.")
_VERSION_SUFFIX = re.compile(r"-v\d+(?::\d+)?$")


def canonical_id(model: str) -> str:
    """The id without gateway route, region, vendor prefix, ``@date``, ``[1m]`` or ``-v1:0``: a
    gateway-served model is the model the route names."""
    text = model.strip().lower()
    if text.startswith("ft:"):
        text = text[3:].split(":", 1)[0]
    text = split_route(text)[1]
    text = _BEDROCK_REGION.sub("", text)
    for vendor in ("anthropic.", "openai.", "google."):
        if text.startswith(vendor):
            text = text[len(vendor):]
    text = text.split("@", 1)[0]
    text = re.sub(r"\[[^\]]*\]$", "", text)
    return _VERSION_SUFFIX.sub("", text)


def _claude_family(text: str) -> str | None:
    found = _CLAUDE_NEW.match(text)
    if found:
        tier, major, minor = found.groups()
        return f"claude-{tier}-{major}" + (f".{minor}" if minor else "")
    found = _CLAUDE_OLD.match(text)
    if found:
        major, minor, tier = found.groups()
        return f"claude-{major}" + (f".{minor}" if minor else "") + f"-{tier}"
    return None


def _prefix_family(text: str) -> str | None:
    """The longest family name (or alias) that ``text`` starts with, ending at a ``-`` boundary,
    so ``gpt-4o-mini-2024-07-18`` is gpt-4o-mini and ``gpt-5.1`` is not gpt-5."""
    best: str | None = None
    for name in (*BY_NAME, *ALIASES):
        matches = text == name or text.startswith(name + "-")
        if matches and (best is None or len(name) > len(best)):
            best = name
    if best is None:
        return None
    return ALIASES.get(best, best)


@functools.lru_cache(maxsize=4096)
def resolve(model: str) -> Model:
    """The family of a model id as a transcript or gateway writes it.

    Args:
        model: A model id as a transcript or gateway writes it (dated, prefixed by a gateway or a
            cloud, or bare).

    Returns:
        The id, its canonical form and its family.

    Raises:
        UnknownModelError: The id is empty or matches no registered family.
    """
    if not model or not model.strip():
        raise UnknownModelError(model, "empty model id")
    text = canonical_id(model)
    name = _claude_family(text) if name_family(text) == "anthropic" else _prefix_family(text)
    if name is None or name not in BY_NAME:
        reason = f"reads as {name!r}, which is not a registered family" if name else ""
        raise UnknownModelError(model, reason)
    return Model(id=model, family=BY_NAME[name], canonical=text)


def family(model: str) -> Family:
    """The family of ``model``: the unit prices, windows and image rules are recorded for.

    Args:
        model: A model id as a transcript or gateway writes it.

    Returns:
        The family.

    Raises:
        UnknownModelError: No family matches ``model``.
    """
    return resolve(model).family


def by_family(model: str, table: Mapping[str, _T], what: str) -> _T:
    """``table``'s entry for ``model``'s family: a family without one is an error naming the families
    that have one, never a silent default (a window, a cache rule or a price taken from another
    family would misstate every figure built on it)."""
    name = resolve(model).family.name
    found = table.get(name)
    if found is None:
        raise InvalidInput(f"no {what} recorded for {model!r} (family {name}); families with one: "
                           f"{', '.join(sorted(table))}")
    return found
