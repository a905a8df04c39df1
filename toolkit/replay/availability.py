"""Which wire can serve a model, which models are retired, and which see images: dated rows, each
citing the page it was read from, so a replay can say when the body it builds names a model the
wire would refuse.

The recorded model is what a body names by default (``toolkit.replay.request``); these rows never
change it, they only explain in the request's notes why it would fail and what the provider names
as its successor. ``model=`` (``--model``) is how a caller chooses another. A model no row names is
taken to be served and to see images: the rows list what is known to fail, not what is known to work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from toolkit.models import split_route


@dataclass(frozen=True, slots=True)
class WireOnly:
    """Models (names matching ``pattern`` in full, in lower case) that only ``wires`` serve."""

    pattern: str
    wires: tuple[str, ...]
    source: str
    """The page saying so, and the date it was read or written."""


@dataclass(frozen=True, slots=True)
class Retired:
    """A model its provider no longer serves: requests naming it fail."""

    model: str
    since: str | None
    """The retirement or shutdown date (ISO), when the page gives one."""
    successor: str | None
    """The replacement the provider names, when it names one."""
    source: str


@dataclass(frozen=True, slots=True)
class Sight:
    """Whether a model (its name before any ``:tag``, in lower case) takes images as input."""

    model: str
    vision: bool
    source: str


WIRE_ONLY: tuple[WireOnly, ...] = (
    WireOnly(
        r"gpt-[0-9.]+-codex(-[a-z0-9-]+)?|codex-mini(-[a-z0-9-]+)?", ("openai-responses",),
        "GPT-5-Codex \"is available in the Responses API only\" (https://developers.openai.com/api/docs/models/"
        "gpt-5-codex, stored copy, undated); Chat Completions answers 404 \"This model is only supported in "
        "v1/responses and not in v1/chat/completions.\" for gpt-5-codex (alvinunreal/tmuxai#82, 2025-10-12), "
        "gpt-5.1-codex-mini (HeyPuter/puter#2110, 2025-12-08) and codex-mini-latest (aaif-goose/goose#2564, "
        "2025-05-16); the GPT-5-Codex guide covers GPT-5.1-Codex too (openai/openai-cookbook#2236)",
    ),
)
"""Models served by some wires only (read 2026-11-30)."""

RETIRED: tuple[Retired, ...] = (
    Retired(
        "claude-3-5-sonnet-20241022", "2025-10-22", "claude-sonnet-4-6",
        "https://platform.claude.com/docs/en/about-claude/model-deprecations (deprecated 2025-08-13, retired "
        "2025-10-22, as quoted by gitlab-org/gitlab#572012; the successor as given by "
        "https://clauder-navi.com/en/claude-sonnet-35/, read 2026-11-30)",
    ),
    Retired(
        "claude-sonnet-4-20250514", "2026-06-15", "claude-sonnet-4-6",
        "https://platform.claude.com/docs/en/release-notes/overview (retired 2026-06-15, replacement Sonnet 4.6, "
        "as recorded by ottto-ai/ai-provider-watch on 2026-06-17)",
    ),
    Retired(
        "gemini-2.0-flash-exp", None, None,
        "https://ai.google.dev/gemini-api/docs/models/gemini-2.0-flash (lists gemini-2.0-flash-exp as shut down, "
        "page updated 2026-02-18; it names no replacement, and gemini-2.0-flash itself was shut down on "
        "2026-06-01 per https://firebase.google.com/docs/ai-logic/prompt-design, updated 2026-06-18)",
    ),
    Retired(
        "gemini-2.0-flash", "2026-06-01", None,
        "https://firebase.google.com/docs/ai-logic/prompt-design (updated 2026-06-18: gemini-2.0-flash shut down "
        "on 2026-06-01; it names no replacement)",
    ),
    Retired(
        "gpt-5-codex", None, None,
        "https://developers.openai.com/api/docs/models/gpt-5-codex (marks GPT-5-Codex \"Shut down\", stored copy, "
        "undated; names no replacement)",
    ),
)
"""Models retired by their provider (read 2026-11-30)."""

SIGHT: tuple[Sight, ...] = (
    Sight("llama3.2", False, "https://ollama.com/library/llama3.2 (the 1B and 3B text models: tags tools, 1b, 3b, "
          "no vision; Meta's Llama 3.2 text models, released 2024-09-25)"),
    Sight("llama3.2-vision", True, "https://ollama.com/library/llama3.2-vision (tag vision; "
          "https://ollama.com/blog/llama3.2-vision, 2024-11-06)"),
    Sight("llava", True, "https://ollama.com/library/llava (tag vision)"),
    Sight("gemma3", True, "https://ollama.com/blog/multimodal-models (2025-05-15: Gemma 3 among the vision models "
          "of Ollama's multimodal engine)"),
    Sight("qwen2.5vl", True, "https://ollama.com/library/qwen2.5vl (tag vision)"),
)
"""Ollama models with and without vision (read 2026-11-30). Every other model is taken to see images."""


def bare(model: str) -> str:
    """The model as its provider lists it: no route, no Ollama ``:tag``, lower case."""
    return split_route(model)[1].partition(":")[0].lower()


GATEWAYS: tuple[str, ...] = ("openrouter",)
"""Routes that serve every model they list over their own Chat Completions-shaped API, whatever wire
the model's provider limits it to ("OpenRouter provides an OpenAI-compatible completion API to 400+
models", https://openrouter.ai/docs/quickstart, read 2026-12-01): ``WIRE_ONLY`` does not apply to them."""


@lru_cache(maxsize=256)
def unsendable(model: str, wire: str) -> tuple[str, ...]:
    """Why a body naming ``model`` would fail on ``wire`` (empty: no row says it would), each
    reason naming its source and the successor the provider names."""
    name = bare(model)
    gateway = split_route(model)[0].partition("/")[0].lower() in GATEWAYS
    reasons: list[str] = []
    for row in WIRE_ONLY:
        if not gateway and re.fullmatch(row.pattern, name) and wire not in row.wires:
            reasons.append(f"{model!r} is served only by {', '.join(row.wires)}, not {wire} ({row.source})")
    for retired in RETIRED:
        if retired.model == name:
            when = f"on {retired.since}" if retired.since else "(no date given)"
            successor = f"; its named successor is {retired.successor!r}" if retired.successor else ""
            reasons.append(f"{model!r} was retired {when}{successor} ({retired.source})")
    return tuple(reasons)


@lru_cache(maxsize=256)
def blind(model: str) -> Sight | None:
    """The row saying ``model`` sees no images (``None``: it does, or no row says otherwise)."""
    name = bare(model)
    return next((row for row in SIGHT if row.model == name and not row.vision), None)


__all__ = ["GATEWAYS", "RETIRED", "SIGHT", "WIRE_ONLY", "Retired", "Sight", "WireOnly", "bare", "blind", "unsendable"]
