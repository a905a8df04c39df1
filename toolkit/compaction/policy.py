"""Compaction policies as data: which rungs, when, what they keep, on which page.

A policy is a frozen dataclass so a sweep can hold many and a TOML file can define one
(``load``); the built-in ones (``POLICIES``) imitate what clients do, with the source of each
figure beside it (``../shared/reference/peers.md`` gathers them, read 2026-11-29).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from toolkit.compaction.markers import RUNGS, RungName
from toolkit.errors import InvalidInput, UnreadableInput
from toolkit.snapshot.font import cells


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    rungs: tuple[RungName, ...]
    """Tried in this order until the request fits; cheapest first in every built-in policy."""
    description: str = ""
    threshold: float = 0.8
    """Fraction of the window past which compaction runs before a request (proactive)."""
    target: float = 0.5
    """Fraction of the window a compaction brings the request under, so it does not run again on
    the very next turn (each run rewrites the prompt and breaks the provider's cache)."""
    keep_results: int = 3
    """``elide``: most recent tool results kept whole."""
    keep_errors: bool = True
    exclude_tools: tuple[str, ...] = ()
    keep_images: int = 1
    head: int = 2
    """``snapshot``/``summarize``: messages kept verbatim at the start (the task and its constraints)."""
    tail: int = 6
    """``snapshot``/``summarize``: messages kept verbatim at the end (the current work)."""
    summary_chars: int = 8000
    keep_user_tokens: int | None = None
    """``summarize`` in Codex's shape: keep only recent plain user messages, up to this many tokens."""
    summariser: str = "extractive"
    """``toolkit.compaction.summaries.summariser`` spec: ``extractive`` or ``model:<id>``."""
    geometry: str | None = None
    """A snapshot cell name (``toolkit.snapshot.font.cells()``); ``None``: ``geometry_for(model)``."""

    def __post_init__(self) -> None:
        unknown = [r for r in self.rungs if r not in RUNGS]
        if unknown:
            raise InvalidInput(f"policy {self.name!r}: unknown rung(s) {unknown}; rungs are {', '.join(RUNGS)}")
        if not 0 < self.target <= self.threshold <= 1.5:
            raise InvalidInput(f"policy {self.name!r}: need 0 < target <= threshold <= 1.5, got "
                               f"target {self.target}, threshold {self.threshold}")
        for name in ("keep_results", "keep_images", "head", "tail", "summary_chars", "keep_user_tokens"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise InvalidInput(f"policy {self.name!r}: {name} must not be negative")
        if self.geometry is not None and self.geometry not in cells():
            raise InvalidInput(f"policy {self.name!r}: no glyph cell {self.geometry!r}; cells: {', '.join(cells())}")

    @property
    def compacts(self) -> bool:
        return bool(self.rungs)


POLICIES: dict[str, Policy] = {p.name: p for p in (
    Policy("none", (), "never compact: the request grows until the provider rejects it"),
    Policy("elide-only", ("elide",),
           "clear old tool results, keep the last 3 (Anthropic clear_tool_uses and inspect_ai "
           "CompactionEdit default keep=3, peers.md A.3/A.9)", keep_results=3),
    Policy("claude-code", ("summarize",),
           "one summary of everything when the context nears the window, as Claude Code's auto-compact; "
           "threshold measured on the one auto compaction in the shared corpora (Claude Code 2.0.22 on "
           "Sonnet 4.5, 200,000 window): it did not fire at 157,134 tokens and fired at 157,932, so "
           "between 0.786 and 0.790; third-party source analyses say ~0.92 (peers.md A.5)",
           threshold=0.789, target=0.5, head=0, tail=2),
    Policy("codex", ("summarize",),
           "summary plus the most recent user messages up to 20,000 tokens at 0.9 of the window, as Codex's "
           "auto_compact_token_limit and COMPACT_USER_MESSAGE_MAX_TOKENS (peers.md A.6)",
           threshold=0.9, target=0.5, head=0, tail=0, keep_user_tokens=20_000),
    Policy("ladder", ("elide", "drop_images", "snapshot", "summarize"),
           "every rung, cheapest first: elide, drop images, snapshot pages, then a summary"),
    Policy("ladder-no-summary", ("elide", "drop_images", "snapshot"),
           "every rung but the summary: needs no model call, key or network"),
)}


def _field_types() -> dict[str, str]:
    return {f.name: str(f.type) for f in fields(Policy)}


def from_mapping(data: dict[str, Any], origin: str) -> Policy:
    """A policy from parsed TOML (or any mapping); unknown keys and wrong types are errors naming
    ``origin`` and the key, never ignored."""
    known = _field_types()
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise InvalidInput(f"{origin}: unknown policy key(s) {unknown}; known: {', '.join(known)}")
    if "name" not in data or "rungs" not in data:
        raise InvalidInput(f"{origin}: a policy needs 'name' and 'rungs'")
    values = dict(data)
    for key in ("rungs", "exclude_tools"):
        if key in values:
            if not isinstance(values[key], list) or not all(isinstance(v, str) for v in values[key]):
                raise InvalidInput(f"{origin}: {key} must be a list of strings")
            values[key] = tuple(values[key])
    for key, kind in (("threshold", (int, float)), ("target", (int, float)), ("keep_results", int),
                      ("keep_images", int), ("head", int), ("tail", int), ("summary_chars", int),
                      ("keep_user_tokens", int), ("keep_errors", bool), ("name", str), ("description", str),
                      ("summariser", str), ("geometry", str)):
        if key in values and (not isinstance(values[key], kind) or (kind is not bool and isinstance(values[key], bool))):
            raise InvalidInput(f"{origin}: {key} has the wrong type ({type(values[key]).__name__})")
    try:
        return Policy(**values)
    except ValueError as error:
        raise InvalidInput(f"{origin}: {error}") from None


def load(spec: str | Path) -> Policy:
    """A built-in policy by name, or one read from a TOML file (top-level keys are ``Policy``'s
    fields; a file may also hold it under a ``[policy]`` table)."""
    if isinstance(spec, str) and spec in POLICIES:
        return POLICIES[spec]
    path = Path(spec)
    if not path.is_file():
        raise InvalidInput(f"no policy named {str(spec)!r} and no such file; built-in: {', '.join(POLICIES)}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UnreadableInput(f"{path}: not a TOML file: {error}") from None
    table = data.get("policy", data)
    if not isinstance(table, dict):
        raise InvalidInput(f"{path}: [policy] must be a table")
    return from_mapping(table, str(path))
