"""List prices in USD per million tokens, dated, each with the document it was read from.

Prices moved monthly in 2026, so each entry has the day it took effect (``None``: the earliest
price known) and ``price_for`` picks the one in force on a given day. A family without a recorded
price is an error, never zero.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from toolkit.costs.models import Source, resolve
from toolkit.errors import InvalidInput

PER_MILLION = 1_000_000

ANTHROPIC_PRICING = Source(
    "https://platform.claude.com/docs/en/about-claude/pricing", "2026-10-08",
    "model pricing table, rows read 2026-09-23..2026-10-08 as public repositories quoted them; "
    "cross-checked against litellm 1.110.2 model_prices_and_context_window_backup.json",
)
ANTHROPIC_PRICING_LEGACY_ROWS = Source(
    "https://platform.claude.com/docs/en/about-claude/pricing", "2026-11-29",
    "stored copy of the table: retired/legacy rows (Opus 4/4.1, Sonnet 4/3.7, Haiku 3.5/3)",
)
ANTHROPIC_SONNET_5 = Source(
    "https://docs.rs/synaps/0.10.2/synaps_cli/pricing/index.html", "2026-10-10",
    "3rd-party table citing the pricing page: Sonnet 5 $2/$10, standard cache multipliers",
)
OPENAI_PRICING = Source(
    "https://developers.openai.com/api/docs/pricing", "2026-09-29",
    "GPT-6 Sol/Luna published 2026-09-22, GPT-6.1 Sol 2026-09-29; cross-checked against litellm 1.110.2 "
    "model_prices_and_context_window_backup.json",
)
OPENAI_GPT5_CODEX = Source("https://developers.openai.com/api/docs/models/gpt-5-codex", "2026-11-29",
                           "model page: GPT-5-Codex and GPT-5 $1.25 / $0.125 cached / $10")
OPENAI_GPT51 = Source("https://developers.openai.com/api/docs/models/gpt-5.1", "2026-11-29",
                      "model page: $1.25 / $0.125 cached / $10")
COPILOT_TABLE = Source(
    "https://github.com/github/docs/blob/main/data/tables/copilot/models-and-pricing.yml", "2026-11-29",
    "3rd-party (GitHub Copilot's per-token table at OpenAI list rates)",
)
OPENAI_O1 = Source("https://community.openai.com/t/how-to-correct-compute-the-cost-of-an-o1-model-api-call/1099176/2",
                   "2025-01", "3rd-party quote of the pricing page: o1 $15 / $7.50 cached / $60")
GEMINI_PRICING = Source("https://ai.google.dev/gemini-api/docs/pricing", "2026-11-29",
                        "paid tier; cache = context-cache read; output includes thinking; cross-checked "
                        "against litellm 1.110.2 model_prices_and_context_window_backup.json")
GEMINI_3_PRO_LAUNCH = Source(
    "https://inference.sh/apps/openrouter/gemini-3-1-pro-preview.md", "2026-10-11",
    "3rd-party; gemini-3-pro-preview assumed at the 3.1 Pro Preview rates ($2/$12; >200k $4/$18)",
)


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per million tokens of each kind."""

    input: float
    cached_input: float | None
    """Cache reads (``None``: no cache discount recorded)."""
    cache_write: float | None
    """Cache writes: Anthropic's 5-minute write, OpenAI's from GPT-5.6 on (``None``: not billed apart)."""
    output: float
    cache_write_1h: float | None = None


@dataclass(frozen=True, slots=True)
class Price:
    family: str
    rates: Rates
    source: Source
    effective: date | None = None
    """The day these rates took effect (``None``: from the earliest date known)."""
    long_above: int | None = None
    """Prompt size (input + cache reads + cache writes) above which ``long_rates`` bill the whole request."""
    long_rates: Rates | None = None


@dataclass(frozen=True, slots=True)
class Cost:
    """What one request cost, by token kind, in USD."""

    model: str
    family: str
    input: float
    cached_input: float
    cache_write: float
    output: float
    long_context: bool
    source: Source

    @property
    def total(self) -> float:
        return self.input + self.cached_input + self.cache_write + self.output


def _claude(in_: float, write: float, write_1h: float, hit: float, out: float) -> Rates:
    return Rates(in_, hit, write, out, write_1h)


def _openai(in_: float, cached: float, out: float, write: float | None = None) -> Rates:
    return Rates(in_, cached, write, out)


def _long_openai(r: Rates) -> Rates:
    """> 272K input: input, cached (and writes, 1.25x input) x2, output x1.5 (litellm GPT-6
    announcement, https://github.com/BerriAI/litellm/discussions/42523, read 2026-11-29)."""
    return Rates(
        r.input * 2, None if r.cached_input is None else r.cached_input * 2,
        None if r.cache_write is None else r.cache_write * 2, r.output * 1.5,
    )


def _many(names: tuple[str, ...], rates: Rates, source: Source) -> list[Price]:
    return [Price(name, rates, source) for name in names]


# Anthropic: https://platform.claude.com/docs/en/about-claude/pricing (rows read 2026-09-23..2026-10-08,
# legacy rows 2026-11-29).
_OPUS_45 = _claude(5, 6.25, 10, 0.50, 25)
_OPUS_4 = _claude(15, 18.75, 30, 1.50, 75)
_SONNET = _claude(3, 3.75, 6, 0.30, 15)
# Long-context threshold, input tokens: https://github.com/BerriAI/litellm/discussions/42523 (read 2026-11-29).
_OPENAI_LONG = 272_000
# OpenAI: https://developers.openai.com/api/docs/pricing (2026-09-29).
_GPT6_ASTRA = _openai(10, 1.00, 50, 12.50)
_GPT6_SOL = _openai(2, 0.20, 10, 2.50)
_GPT61_SOL = _openai(2, 0.10, 10, 2.50)
_GPT6_LUNA = _openai(0.10, 0.01, 0.50, 0.125)
_GPT56_SOL = _openai(4, 0.40, 20, 5)
_GPT55 = _openai(5, 0.50, 30)
_GPT54 = _openai(2.50, 0.25, 15)
# Google: https://ai.google.dev/gemini-api/docs/pricing (2026-11-29).
_GEMINI_25_PRO = Rates(1.25, 0.125, None, 10.00)
_GEMINI_31_PRO = Rates(2.00, 0.20, None, 12.00)

PRICES: tuple[Price, ...] = (
    # Anthropic: input / 5m write / 1h write / hit / output (ANTHROPIC_PRICING)
    *_many(("claude-fable-5.1", "claude-mythos-5.1"), _claude(10, 12.50, 20, 0.25, 50), ANTHROPIC_PRICING),
    *_many(("claude-fable-5", "claude-mythos-5"), _claude(10, 12.50, 20, 1.00, 50), ANTHROPIC_PRICING),
    Price("claude-opus-5.5", _claude(4, 5, 8, 0.20, 20), ANTHROPIC_PRICING),
    *_many(("claude-opus-5", "claude-opus-4.8", "claude-opus-4.7", "claude-opus-4.6", "claude-opus-4.5"),
           _OPUS_45, ANTHROPIC_PRICING),
    Price("claude-sonnet-5.5", _claude(2, 2.50, 4, 0.20, 10), ANTHROPIC_PRICING),
    # Sonnet 5.5 cache hits cut to $0.10 on 2026-10-07 (3rd-party release notes; litellm 1.110.2 has 0.10).
    Price("claude-sonnet-5.5", _claude(2, 2.50, 4, 0.10, 10), ANTHROPIC_PRICING, date(2026, 10, 7)),
    Price("claude-sonnet-5", _claude(2, 2.50, 4, 0.20, 10), ANTHROPIC_SONNET_5),
    *_many(("claude-sonnet-4.6", "claude-sonnet-4.5"), _SONNET, ANTHROPIC_PRICING),
    *_many(("claude-sonnet-4", "claude-3.7-sonnet", "claude-3.5-sonnet"), _SONNET, ANTHROPIC_PRICING_LEGACY_ROWS),
    Price("claude-haiku-5.5", _claude(0.10, 0.125, 0.20, 0.01, 0.50), ANTHROPIC_PRICING,
          long_above=100_000, long_rates=_claude(0.50, 0.625, 1, 0.05, 2.50)),
    Price("claude-haiku-4.5", _claude(1, 1.25, 2, 0.10, 5), ANTHROPIC_PRICING),
    *_many(("claude-opus-4.1", "claude-opus-4", "claude-3-opus"), _OPUS_4, ANTHROPIC_PRICING_LEGACY_ROWS),
    Price("claude-3.5-haiku", _claude(0.80, 1, 1.6, 0.08, 4), ANTHROPIC_PRICING_LEGACY_ROWS),
    Price("claude-3-haiku", _claude(0.25, 0.30, 0.50, 0.03, 1.25), ANTHROPIC_PRICING_LEGACY_ROWS),
    # OpenAI: input / cached / output / cache write (OPENAI_PRICING); writes billed from GPT-5.6 on.
    Price("gpt-6-astra", _GPT6_ASTRA, OPENAI_PRICING, long_above=_OPENAI_LONG, long_rates=_long_openai(_GPT6_ASTRA)),
    Price("gpt-6-sol", _GPT6_SOL, OPENAI_PRICING, long_above=_OPENAI_LONG, long_rates=_long_openai(_GPT6_SOL)),
    Price("gpt-6.1-sol", _GPT61_SOL, OPENAI_PRICING, long_above=_OPENAI_LONG, long_rates=_long_openai(_GPT61_SOL)),
    Price("gpt-6-luna", _GPT6_LUNA, OPENAI_PRICING, long_above=_OPENAI_LONG, long_rates=_long_openai(_GPT6_LUNA)),
    # GPT-5.6 Sol launched (July 2026) at $5/$30; $4/$20 by 2026-09-22 (OPENAI_PRICING).
    Price("gpt-5.6-sol", _openai(5, 0.50, 30, 6.25), OPENAI_PRICING),
    Price("gpt-5.6-sol", _GPT56_SOL, OPENAI_PRICING, date(2026, 9, 22), _OPENAI_LONG, _long_openai(_GPT56_SOL)),
    Price("gpt-5.5", _GPT55, OPENAI_PRICING, long_above=_OPENAI_LONG, long_rates=_long_openai(_GPT55)),
    Price("gpt-5.4", _GPT54, OPENAI_PRICING, long_above=_OPENAI_LONG, long_rates=_long_openai(_GPT54)),
    Price("gpt-5.4-mini", _openai(0.75, 0.075, 4.50), OPENAI_PRICING),
    *_many(("gpt-5.2", "gpt-5.2-codex", "gpt-5.3-codex"), _openai(1.75, 0.175, 14), COPILOT_TABLE),
    *_many(("gpt-5.1", "gpt-5.1-codex"), _openai(1.25, 0.125, 10), OPENAI_GPT51),
    *_many(("gpt-5", "gpt-5-codex"), _openai(1.25, 0.125, 10), OPENAI_GPT5_CODEX),
    Price("gpt-5-mini", _openai(0.25, 0.025, 2), COPILOT_TABLE),
    Price("gpt-4.1", _openai(2, 0.50, 8), OPENAI_PRICING),
    Price("gpt-4o", _openai(2.50, 1.25, 10), OPENAI_PRICING),
    Price("gpt-4o-mini", _openai(0.15, 0.075, 0.60), OPENAI_PRICING),
    Price("o1", _openai(15, 7.50, 60), OPENAI_O1),
    # Google: input / context-cache read / output (GEMINI_PRICING)
    Price("gemini-3.1-pro", _GEMINI_31_PRO, GEMINI_PRICING, long_above=200_000,
          long_rates=Rates(4.00, 0.40, None, 18.00)),
    Price("gemini-3-pro", _GEMINI_31_PRO, GEMINI_3_PRO_LAUNCH, long_above=200_000,
          long_rates=Rates(4.00, 0.40, None, 18.00)),
    Price("gemini-3.5-flash", Rates(1.50, 0.15, None, 9.00), GEMINI_PRICING),
    Price("gemini-3.5-flash-lite", Rates(0.30, 0.03, None, 2.50), GEMINI_PRICING),
    Price("gemini-3.1-flash-lite", Rates(0.25, 0.025, None, 1.50), GEMINI_PRICING),
    Price("gemini-2.5-pro", _GEMINI_25_PRO, GEMINI_PRICING, long_above=200_000,
          long_rates=Rates(2.50, 0.25, None, 15.00)),
    Price("gemini-2.5-flash", Rates(0.30, 0.03, None, 2.50), GEMINI_PRICING),
    Price("gemini-2.5-flash-lite", Rates(0.10, 0.01, None, 0.40), GEMINI_PRICING),
)
"""Gemini 3.1 Pro's > 200k cache rate (0.40) is the standard 10% of the long input rate; the table
gives only the long input (4.00) and output (18.00, per GEMINI_3_PRO_LAUNCH)."""


def price_for(model: str, on: date | None = None) -> Price:
    """The price of ``model``'s family in force on a day.

    Args:
        model: A model id as a transcript or gateway writes it.
        on: The day (default: the latest recorded price).

    Returns:
        The rates, the long-context rates where the family has them, and their source.

    Raises:
        InvalidInput: No price is recorded for the family, or none was in force on ``on``.
        UnknownModel: No family is known for ``model``."""
    family = resolve(model).family.name
    entries = [p for p in PRICES if p.family == family]
    if not entries:
        priced = sorted({p.family for p in PRICES})
        raise InvalidInput(f"no price recorded for {model!r} (family {family}); priced families: {', '.join(priced)}")
    in_force = [p for p in entries if p.effective is None or on is None or p.effective <= on]
    if not in_force:
        raise InvalidInput(f"no price for {model!r} in force on {on} (earliest recorded: {entries[0].effective})")
    return max(in_force, key=lambda p: p.effective or date.min)


def request_cost(
    model: str,
    input_tokens: int,
    output_tokens: int,
    cached_tokens: int = 0,
    cache_write_tokens: int = 0,
    *,
    on: date | None = None,
    cache_write_1h: bool = False,
) -> Cost:
    """USD cost of one request at the list price in force on a date.

    The three input counts are disjoint, as ``Usage`` holds them: OpenAI and Gemini report the
    prompt including cached tokens, so subtract those first. Cache writes on a family that bills none
    are billed as input.

    Args:
        model: A model id as a transcript or gateway writes it.
        input_tokens: Fresh (uncached) input tokens only.
        output_tokens: Output tokens, thinking included.
        cached_tokens: Input tokens read from the cache.
        cache_write_tokens: Input tokens written to the cache.
        on: The day whose prices apply (default: the newest recorded).
        cache_write_1h: Bill the writes at Anthropic's 1-hour rate instead of the 5-minute one.

    Returns:
        The cost per part, whether the long-context rates applied, and the price's source.

    Raises:
        InvalidInput: A count is negative, no price is recorded for the model (or on that day), or
            no 1-hour write rate is recorded.
        UnknownModel: No family is known for ``model``."""
    for name, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens),
                        ("cached_tokens", cached_tokens), ("cache_write_tokens", cache_write_tokens)):
        if value < 0:
            raise InvalidInput(f"{name} must not be negative, got {value}")
    price = price_for(model, on)
    prompt = input_tokens + cached_tokens + cache_write_tokens
    long_context = price.long_above is not None and price.long_rates is not None and prompt > price.long_above
    rates = price.long_rates if long_context and price.long_rates is not None else price.rates
    if cache_write_1h:
        if rates.cache_write_1h is None:
            raise InvalidInput(f"{model}: no 1-hour cache write rate recorded ({price.source})")
        rates = replace(rates, cache_write=rates.cache_write_1h)
    cached_rate = rates.input if rates.cached_input is None else rates.cached_input
    write_rate = rates.input if rates.cache_write is None else rates.cache_write
    return Cost(
        model=model, family=price.family,
        input=input_tokens * rates.input / PER_MILLION,
        cached_input=cached_tokens * cached_rate / PER_MILLION,
        cache_write=cache_write_tokens * write_rate / PER_MILLION,
        output=output_tokens * rates.output / PER_MILLION,
        long_context=long_context, source=price.source,
    )
