"""Which part of a prompt each provider bills as cache read, cache write or fresh input.

A replay that prices every request at the full input rate overstates what a long session costs by
up to ten times, and a compaction that rewrites the history's beginning throws the cache away; both
show only when each request's input is split the way the provider bills it:

* Anthropic (a breakpoint at the prompt's end, as Claude Code's one top-level ``cache_control``
  places it): a prompt below the model's minimum is not cached at all; otherwise the reused prefix
  is read and everything after it is written, at the 5-minute write rate.
* OpenAI (automatic prefix caching from 1,024 tokens): hits counted in 128-token blocks before the
  GPT-5.6 family; writes are billed from GPT-5.6 on.
* Gemini 2.5 and newer (implicit caching): hits above the model's minimum, no write charge; Gemini
  2.0 and older cache nothing implicitly.

Each minimum, lifetime and increment names the document and date it was read (the providers' caching
guides below, read 2026-11-29 unless a source says otherwise); ``evidence`` says whether the figures are documented or assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal, assert_never

from toolkit.costs.models import Provider, Source, by_family
from toolkit.costs.prices import Cost, request_cost
from toolkit.errors import InvalidInput

CacheMode = Literal["breakpoint", "automatic", "implicit", "none"]


@dataclass(frozen=True, slots=True)
class CacheRule:
    """How one family caches a prompt prefix."""

    family: str
    provider: Provider
    mode: CacheMode
    minimum: int
    """The smallest prompt (OpenAI, Gemini) or prefix (Anthropic) that is cached; 0 where nothing is."""
    increment: int
    """Cache hits are counted in multiples of this many tokens."""
    ttl_seconds: float | None
    """How long an entry lives unused (``None``: nothing is cached)."""
    writes_billed: bool
    source: Source
    evidence: Literal["documented", "assumed"]
    """Whether ``minimum`` and ``ttl_seconds`` come from the documents or are assumptions."""


@dataclass(frozen=True, slots=True)
class InputSplit:
    """A request's prompt tokens by how they are billed (disjoint, as ``request_cost`` takes them)."""

    fresh: int
    cache_read: int
    cache_write: int

    @property
    def total(self) -> int:
        return self.fresh + self.cache_read + self.cache_write


READ = "2026-12-01"
GUIDES_READ = "2026-11-29"
"""The day the caching guides were read for their minimums, lifetimes and increments."""

# Anthropic ---------------------------------------------------------------------------------------
ANTHROPIC_GUIDE = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching"
ANTHROPIC_CACHING = Source(
    ANTHROPIC_GUIDE, GUIDES_READ,
    "latest stored revision (late 2026): minimum per model 512 / 1,024 / 2,048 / 4,096; TTL 5 min, refreshed on "
    "each hit; writes at the 5-minute rate",
)
ANTHROPIC_EARLY_2026 = Source(
    "https://github.com/anthropics/anthropic-sdk-python/issues/1194", READ,
    "the guide's early-2026 minimums quoted in an SDK issue: Sonnet 3.7 1,024; Haiku 3 2,048",
)
ANTHROPIC_LEGACY = Source(
    "https://docs.truefoundry.com/gateway/chat-completions-prompt-caching", READ,
    "3rd-party table from the guide's 2025 revision: Sonnet 3.5 and Opus 3 1,024 tokens",
)
ANTHROPIC_ASSUMED = Source(
    ANTHROPIC_GUIDE, GUIDES_READ,
    "no minimum stored for this model; assumed equal to its predecessor's (Sonnet 5: 1,024; Haiku 4.5: 4,096)",
)
ANTHROPIC_TTL = 300.0
"""5 minutes, refreshed on each hit (ANTHROPIC_CACHING)."""

# OpenAI ------------------------------------------------------------------------------------------
OPENAI_GUIDE = "https://developers.openai.com/api/docs/guides/prompt-caching"
OPENAI_IN_MEMORY = Source(
    OPENAI_GUIDE, GUIDES_READ,
    "automatic for prompts >= 1,024 tokens ('gpt-4o and newer'); hits in 128-token increments (Prompt Caching 201 "
    "cookbook, models before GPT-5.6); in-memory entries 'typically' cleared after 5-10 min idle: 5 min assumed",
)
OPENAI_GPT55 = Source(
    OPENAI_GUIDE, GUIDES_READ,
    "prompt_cache_retention is only '24h' for gpt-5.5 and later; 1,024 minimum, 128 increments",
)
OPENAI_GPT56 = Source(
    OPENAI_GUIDE, READ,
    "GPT-5.6 and later: writes cost 1.25x uncached input; prompt_cache_options ttl 'defaults to 30m' (a minimum "
    "lifetime) and supersedes prompt_cache_retention; breakpoints match exactly, 'not rounded to a token block' "
    "(API reference text as carried by docs.rs openai-client-base 0.16.0 and the openai 3.57.0 SDK)",
)
OPENAI_LEGACY = Source(OPENAI_GUIDE, READ, "'enabled for all recent models, gpt-4o and newer': none before gpt-4o")
OPENAI_MINIMUM = 1_024
OPENAI_INCREMENT = 128
OPENAI_IN_MEMORY_TTL = 300.0
"""Assumed: the low end of '5-10 minutes of inactivity' (OPENAI_IN_MEMORY)."""
OPENAI_24H = 86_400.0
OPENAI_30M = 1_800.0

# Google ------------------------------------------------------------------------------------------
GEMINI_GUIDE = "https://ai.google.dev/gemini-api/docs/caching"
GEMINI_IMPLICIT = Source(
    GEMINI_GUIDE, "2026-10-13",
    "revision updated 2026-10-13: implicit caching on for Gemini 2.5 and newer; minimum 4,096 for 3.x Flash and "
    "3.1 Pro, 2,048 for 2.5 Flash and 2.5 Pro; entry lifetime undocumented (5 min assumed)",
)
GEMINI_2026_07 = Source(GEMINI_GUIDE, "2026-07-07", "revision updated 2026-07-07: Gemini 3.5 Flash 4,096")
GEMINI_2026_05 = Source(
    "https://ai.google.dev/gemini-api/docs/interactions/caching", "2026-05-07",
    "revision updated 2026-05-07: Gemini 3 Flash Preview 1,024, Gemini 3 Pro Preview 4,096",
)
GEMINI_LITE = Source(
    "https://discuss.ai.google.dev/t/context-caching-docs-list-wrong-minimum-token-count-for-gemini-2-5-flash-"
    "flash-lite-missing-entirely/178942", READ,
    "3rd-party: Flash-Lite is missing from the guide; the API refuses gemini-2.5-flash-lite caches under 2,048 "
    "tokens (explicit caches; taken for implicit ones too). 3.x Flash-Lite assumed as 3.x Flash (4,096)",
)
GEMINI_NONE = Source(GEMINI_GUIDE, "2026-10-13", "implicit caching only for Gemini 2.5 and newer")
GEMINI_TTL = 300.0
"""Assumed: Google documents no lifetime for implicit entries, only 'send similar-prefix requests close together'."""


def _claude(family: str, minimum: int, source: Source = ANTHROPIC_CACHING,
            evidence: Literal["documented", "assumed"] = "documented") -> CacheRule:
    return CacheRule(family, "anthropic", "breakpoint", minimum, 1, ANTHROPIC_TTL, True, source, evidence)


def _openai(family: str, ttl: float, source: Source, evidence: Literal["documented", "assumed"]) -> CacheRule:
    return CacheRule(family, "openai", "automatic", OPENAI_MINIMUM, OPENAI_INCREMENT, ttl, False, source, evidence)


def _openai_56(family: str) -> CacheRule:
    """GPT-5.6 and later: exact breakpoints (increment 1), writes billed, 30-minute minimum lifetime."""
    return CacheRule(family, "openai", "automatic", OPENAI_MINIMUM, 1, OPENAI_30M, True, OPENAI_GPT56, "documented")


def _gemini(family: str, minimum: int, source: Source = GEMINI_IMPLICIT) -> CacheRule:
    """Implicit entries' lifetime is always assumed (GEMINI_TTL), so the evidence is too."""
    return CacheRule(family, "google", "implicit", minimum, 1, GEMINI_TTL, False, source, "assumed")


def _none(family: str, provider: Provider, source: Source) -> CacheRule:
    return CacheRule(family, provider, "none", 0, 1, None, False, source, "documented")


CACHE_RULES: tuple[CacheRule, ...] = (
    # Anthropic: minimums from the latest revision (ANTHROPIC_CACHING) unless noted.
    *(_claude(name, 512) for name in ("claude-fable-5.1", "claude-mythos-5.1", "claude-opus-5.5", "claude-opus-5",
                                      "claude-fable-5", "claude-mythos-5")),
    *(_claude(name, 1_024) for name in ("claude-opus-4.8", "claude-sonnet-5", "claude-sonnet-4.6",
                                        "claude-sonnet-4.5", "claude-opus-4.1", "claude-opus-4", "claude-sonnet-4")),
    *(_claude(name, 2_048) for name in ("claude-opus-4.7", "claude-3.5-haiku")),
    *(_claude(name, 4_096) for name in ("claude-opus-4.6", "claude-opus-4.5", "claude-haiku-4.5")),
    _claude("claude-sonnet-5.5", 1_024, ANTHROPIC_ASSUMED, "assumed"),
    _claude("claude-haiku-5.5", 4_096, ANTHROPIC_ASSUMED, "assumed"),
    _claude("claude-3.7-sonnet", 1_024, ANTHROPIC_EARLY_2026),
    _claude("claude-3-haiku", 2_048, ANTHROPIC_EARLY_2026),
    *(_claude(name, 1_024, ANTHROPIC_LEGACY) for name in ("claude-3.5-sonnet", "claude-3-opus")),
    # OpenAI: writes billed from the GPT-5.6 family on.
    *(_openai_56(name) for name in ("gpt-6.1-sol", "gpt-6-sol", "gpt-6-luna", "gpt-6-astra", "gpt-5.6-sol",
                                    "gpt-5.6-terra", "gpt-5.6-luna")),
    _openai("gpt-5.5", OPENAI_24H, OPENAI_GPT55, "documented"),
    *(_openai(name, OPENAI_IN_MEMORY_TTL, OPENAI_IN_MEMORY, "assumed")
      for name in ("gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano", "gpt-5.3-codex", "gpt-5.2", "gpt-5.2-codex",
                   "gpt-5.1", "gpt-5.1-codex", "gpt-5.1-codex-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-pro",
                   "gpt-5-codex", "gpt-5-codex-mini", "o4-mini", "o3", "o3-pro", "o3-mini", "o1", "o1-pro",
                   "o1-mini", "gpt-4.5", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4o", "gpt-4o-mini")),
    *(_none(name, "openai", OPENAI_LEGACY) for name in ("gpt-4-turbo", "gpt-4", "gpt-3.5-turbo")),
    # Google
    _gemini("gemini-3.1-pro", 4_096),
    _gemini("gemini-3.5-flash", 4_096, GEMINI_2026_07),
    _gemini("gemini-3-pro", 4_096, GEMINI_2026_05),
    _gemini("gemini-3-flash", 1_024, GEMINI_2026_05),
    *(_gemini(name, 2_048) for name in ("gemini-2.5-pro", "gemini-2.5-flash")),
    _gemini("gemini-2.5-flash-lite", 2_048, GEMINI_LITE),
    *(_gemini(name, 4_096, GEMINI_LITE) for name in ("gemini-3.1-flash-lite", "gemini-3.5-flash-lite")),
    *(_none(name, "google", GEMINI_NONE) for name in ("gemini-2.0-flash", "gemini-2.0-flash-lite",
                                                      "gemini-1.5-pro", "gemini-1.5-flash")),
)
"""No rule (nothing stored): claude-3-sonnet, gpt-oss (self-hosted weights)."""

_BY_FAMILY: dict[str, CacheRule] = {r.family: r for r in CACHE_RULES}


def cache_rule(model: str) -> CacheRule:
    """The caching rule of ``model``'s family; a family without one is an error, never a default.

    Args:
        model: A model id as a transcript or gateway writes it.

    Returns:
        The rule: how the family caches a prompt prefix, from what length, for how long.

    Raises:
        InvalidInput: The family has no recorded cache rule.
        UnknownModel: No family is known for ``model``.
    """
    return by_family(model, _BY_FAMILY, "cache rule")


def reusable(model: str, *, head: int, pinned: int, shared: int, extends: bool) -> int:
    """Tokens at the start of a prompt that an earlier request left in ``model``'s provider cache.
    ``head`` is everything before the messages, ``pinned`` the part of it a client ends with a
    breakpoint of its own (its system prompt and tools), ``shared`` the tokens of the leading
    messages identical to the previous request's, ``extends`` whether the prompt carries that whole
    previous request unchanged.

    OpenAI and Gemini cache any prefix of a prompt they saw ("Cache hits are only possible for exact
    prefix matches within a prompt", ``OPENAI_GUIDE``; Gemini: https://ai.google.dev/gemini-api/docs/caching):
    ``head + shared``. Anthropic writes only at breakpoints ("Cache writes happen only at your
    breakpoint", ``ANTHROPIC_GUIDE``): with one at the end of each prompt, a prompt that extends
    the previous one reads it whole; a rewritten history reads only up to the client's breakpoint
    after its system prompt and tools (measured: golfgod, Claude Code 2.0.22, the first request after
    its compaction read 16,555 tokens and wrote 42,121), ``pinned``."""
    match cache_rule(model).mode:
        case "none":
            return 0
        case "breakpoint":
            return head + shared if extends else pinned
        case "automatic" | "implicit":
            return head + shared
        case unknown:
            assert_never(unknown)


def split_input(model: str, prompt: int, reusable: int, *, elapsed: float | None = None) -> InputSplit:
    """How ``model``'s provider bills a ``prompt``-token request whose first ``reusable`` tokens equal
    the prefix of an earlier cached request.

    What counts as identical is the caller's judgement: tools, system, images and thinking settings
    all take part in the prefix.

    Args:
        model: A model id as a transcript or gateway writes it.
        prompt: The request's input tokens.
        reusable: How many of them equal the earlier request's prefix.
        elapsed: Seconds since that request (``None``: within the cache's lifetime).

    Returns:
        The prompt tokens by how they are billed: fresh, read from the cache, written to it.

    Raises:
        InvalidInput: ``prompt`` or ``elapsed`` is negative, or the family has no caching rule.
        UnknownModel: No family is known for ``model``."""
    if prompt < 0:
        raise InvalidInput(f"prompt must not be negative, got {prompt}")
    if elapsed is not None and elapsed < 0:
        raise InvalidInput(f"elapsed must not be negative, got {elapsed}")
    rule = cache_rule(model)
    reusable = min(max(reusable, 0), prompt)
    if rule.mode == "none" or prompt < rule.minimum:
        return InputSplit(prompt, 0, 0)
    live = rule.ttl_seconds is None or elapsed is None or elapsed <= rule.ttl_seconds
    if rule.mode == "automatic":
        reusable = reusable // rule.increment * rule.increment
    read = reusable if live and reusable >= rule.minimum else 0
    if rule.writes_billed:
        return InputSplit(0, read, prompt - read)
    return InputSplit(prompt - read, read, 0)


def input_cost(model: str, prompt: int, reusable: int, output: int, *, elapsed: float | None = None,
               on: date | None = None) -> tuple[InputSplit, Cost]:
    """The split of ``split_input`` and what the request costs at the price in force on ``on``.

    Args:
        model: A model id as a transcript or gateway writes it.
        prompt: The request's input tokens.
        reusable: How many of them equal an earlier cached request's prefix.
        output: The reply's output tokens.
        elapsed: Seconds since that request (``None``: within the cache's lifetime).
        on: The day whose prices apply (default: the newest recorded).

    Returns:
        The split and the cost.

    Raises:
        InvalidInput: As ``split_input`` and ``request_cost`` raise.
        UnknownModel: No family is known for ``model``."""
    split = split_input(model, prompt, reusable, elapsed=elapsed)
    cost = request_cost(model, input_tokens=split.fresh, output_tokens=output, cached_tokens=split.cache_read,
                        cache_write_tokens=split.cache_write, on=on)
    return split, cost
