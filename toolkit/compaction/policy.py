"""Compaction policies as data: which rungs, when, what they keep, on which page.

A policy is a frozen dataclass so a sweep can hold many and a TOML file can define one
(``load``). The built-in ones (``POLICIES``) are of two kinds: the toolkit's own ladder, which aims
at ``target`` of the window, and the rules real clients and providers follow, each taken from its
source (cited beside it), with nothing fitted on the sessions they are checked against. A client
policy says how its client counts (``count``), what it compares the count with (``trigger``) and
what it keeps; ``toolkit.compaction.clients`` holds the arithmetic.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args

from toolkit.compaction.markers import RUNGS, RungName
from toolkit.costs.windows import ClientName
from toolkit.errors import InvalidInput, UnreadableInput
from toolkit.snapshot.font import cells

TriggerRule = Literal["fraction", "tokens", "claude-code-2.0", "claude-code-2.1", "events"]
"""What the count is compared with: ``threshold`` of the window; ``threshold_tokens``; Claude Code's
window less its output reserve and 13,000 (2.0.x reserved the whole max output, 2.1.21 and later at
most 20,000); ``threshold_tokens`` events (OpenHands counts events, not tokens)."""

CountRule = Literal["estimate", "claude-code-2.0", "claude-code-2.1", "reported", "reported+output", "request",
                    "events"]
"""How the client counts before a request (``toolkit.compaction.clients.client_count``)."""

SummaryCache = Literal["prefix", "none"]
"""What of the conversation's prompt cache the summary request reuses: its prefix (the request
carries the conversation as sent, plus the summary prompt), or nothing (Codex's local compaction
sends no tools, so its prefix differs from the first byte)."""


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    rungs: tuple[RungName, ...]
    """Tried in this order until the request fits; cheapest first in every built-in policy."""
    description: str = ""
    trigger: TriggerRule = "fraction"
    threshold: float = 0.8
    """``trigger="fraction"``: fraction of the window past which compaction runs before a request."""
    threshold_tokens: int | None = None
    """``trigger="tokens"``: tokens; ``trigger="events"``: events."""
    fires_at_threshold: bool = False
    """Whether a count equal to the threshold fires (Claude Code, Codex and Gemini CLI compare with
    ``>=``; the others with ``>``)."""
    window: ClientName | None = None
    """Whose window the trigger is reckoned against: a client's own (``toolkit.costs.windows.
    client_window``), or ``None``: the API's."""
    count: CountRule = "estimate"
    target: float | None = 0.5
    """The toolkit's ladder: fraction of the window a compaction brings the request under, so it
    does not run again on the very next turn. ``None``: no aim, every rung runs once (what clients
    do: the size after follows from their keep rules)."""
    keep_results: int = 3
    """``elide``: most recent tool results kept whole."""
    keep_errors: bool = True
    exclude_tools: tuple[str, ...] = ()
    clear_at_least: int | None = None
    """``elide``: clear nothing unless this many tokens go (Anthropic's ``clear_at_least``)."""
    text_observations: bool = False
    """``elide``: a text-action agent's observations (user text after the task, as SWE-agent
    records them) count as tool results."""
    per_request: bool = False
    """The provider edits each request past the trigger, from the client's full history, which the
    client keeps and the trigger counts (Anthropic's context editing is applied server-side)."""
    keep_images: int = 1
    head: int = 2
    """``snapshot``/``summarize``: messages kept verbatim at the start (the task and its constraints)."""
    tail: int = 6
    """``snapshot``/``summarize``: messages kept verbatim at the end (the current work)."""
    keep_share: float | None = None
    """``summarize``: keep the last share of the history by characters instead of ``tail`` messages."""
    tool_budget_tokens: int | None = None
    """``summarize``: before summarising, cut tool results older than this many tokens of newer
    results to their last 30 lines (Gemini CLI)."""
    summary_chars: int = 8000
    keep_user_tokens: int | None = None
    """``summarize`` in Codex's shape: the client's own context first, then recent plain user
    messages up to this many tokens (the first that does not fit cut to the rest), the summary last."""
    reinject: bool = False
    """``summarize``: put back after the summary what Claude Code re-attaches (recently read files, the plan)."""
    summariser: str = "extractive"
    """``toolkit.compaction.summaries.summariser`` spec: ``extractive`` or ``model:<id>``."""
    summary_cache: SummaryCache = "prefix"
    summary_calls: int = 1
    """Model calls per summary, each a pass over the history (Gemini CLI checks its snapshot with a second)."""
    geometry: str | None = None
    """A snapshot cell name (``toolkit.snapshot.font.cells()``); ``None``: ``geometry_for(model)``."""

    def __post_init__(self) -> None:
        unknown = [r for r in self.rungs if r not in RUNGS]
        if unknown:
            raise InvalidInput(f"policy {self.name!r}: unknown rung(s) {unknown}; rungs are {', '.join(RUNGS)}")
        for name, kind in (("trigger", TriggerRule), ("count", CountRule), ("summary_cache", SummaryCache),
                           ("window", ClientName)):
            value = getattr(self, name)
            if value is not None and value not in get_args(kind):
                raise InvalidInput(f"policy {self.name!r}: {name} must be one of {', '.join(get_args(kind))}, "
                                   f"got {value!r}")
        if not 0 < self.threshold <= 1.5:
            raise InvalidInput(f"policy {self.name!r}: need 0 < threshold <= 1.5, got {self.threshold}")
        if self.target is not None and not 0 < self.target <= self.threshold:
            raise InvalidInput(f"policy {self.name!r}: need 0 < target <= threshold <= 1.5, got "
                               f"target {self.target}, threshold {self.threshold}")
        if self.trigger in ("tokens", "events") and self.threshold_tokens is None:
            raise InvalidInput(f"policy {self.name!r}: trigger {self.trigger!r} needs threshold_tokens")
        if (self.trigger == "events") != (self.count == "events"):
            raise InvalidInput(f"policy {self.name!r}: an events trigger needs the events count, and only it")
        if self.keep_share is not None and not 0 < self.keep_share < 1:
            raise InvalidInput(f"policy {self.name!r}: keep_share must be between 0 and 1")
        for name in ("keep_results", "keep_images", "head", "tail", "summary_chars", "keep_user_tokens",
                     "threshold_tokens", "clear_at_least", "tool_budget_tokens"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise InvalidInput(f"policy {self.name!r}: {name} must not be negative")
        if self.summary_calls < 1:
            raise InvalidInput(f"policy {self.name!r}: summary_calls must be at least 1")
        if self.geometry is not None and self.geometry not in cells():
            raise InvalidInput(f"policy {self.name!r}: no glyph cell {self.geometry!r}; cells: {', '.join(cells())}")

    @property
    def compacts(self) -> bool:
        return bool(self.rungs)


_CC_LEAK = ("DroxKiwi/claude-code-leak-packaged@fb1320d1 (leaked 2.1.88 source) src/services/compact/"
            "autoCompact.ts, compact.ts, src/utils/tokens.ts")
_CODEX = "openai/codex@0100b103 codex-rs/core/src/compact.rs; protocol openai_models.rs auto_compact_token_limit"
_GEMINI = ("google-gemini/gemini-cli@02b2885c packages/core/src/services/chatCompressionService.ts "
           "(DEFAULT_COMPRESSION_TOKEN_THRESHOLD 0.5, COMPRESSION_PRESERVE_THRESHOLD 0.3, "
           "COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET 50,000)")
_OPENHANDS = ("OpenHands/software-agent-sdk@611629e6 openhands-tools/openhands/tools/preset/default.py "
              "(default_condenser max_size=80, keep_first=4), openhands-sdk/.../llm_summarizing_condenser.py")
_INSPECT = "UKGovernmentBEIS/inspect_ai@016e13c5 src/inspect_ai/model/_compaction/{_compaction,edit,summary}.py"
_CONTEXT_EDITING = ("https://platform.claude.com/docs/en/build-with-claude/context-editing (clear_tool_uses_20250919: "
                    "trigger 100,000 input tokens, keep 3 tool uses, clear_at_least none; read 2026-12-02)")
_SERVER_COMPACTION = ("https://platform.claude.com/docs/en/build-with-claude/compaction (compact_20260112: "
                      "trigger 150,000 input tokens, minimum 50,000; read 2026-12-02)")

CLAUDE_CODE_SUMMARY_CHARS = 15_000
"""Claude Code's summaries: the prompt asks for nine detailed sections and every user message, with
up to 20,000 output tokens (p99.99 17,387 tokens, ``autoCompact.ts``); the one full auto summary in
the shared corpora (golfgod, 2.0.22) is 14,796 characters. A length, not a fitted threshold."""
CODEX_SUMMARY_CHARS = 4_000
"""Codex's prompt asks for a "concise" handoff and states no length (``templates/compact/prompt.md``
@11baefb5): an assumption, about a thousand tokens."""

_CODEX_LOCAL = Policy("codex", ("summarize",),
                      "Codex local compaction: when the last request's tokens (input + output) reach min(configured limit, "
                      "0.9 x its catalog window: 244,800 of 272,000); keeps its own context, then user messages newest first "
                      "up to 20,000 tokens (the first over cut to the rest), the summary last; the compaction request sends "
                      f"no tools, so it reads nothing from the cache ({_CODEX}; models.json @069e6b19)",
                      threshold=0.9, window="codex", count="reported+output", fires_at_threshold=True, target=None,
                      keep_user_tokens=20_000, head=0, tail=0, summary_chars=CODEX_SUMMARY_CHARS, summary_cache="none")

POLICIES: dict[str, Policy] = {p.name: p for p in (
    Policy("none", (), "never compact: the request grows until the provider rejects it"),
    Policy("elide-only", ("elide",),
           "the toolkit's own: clear old tool results past 0.8 of the window, keep the last 3 and every error",
           keep_results=3),
    Policy("claude-code-2.1", ("summarize",),
           "Claude Code 2.1.21 and later: compact when its count (last response's input + cache + output, plus "
           "chars/4 of what came after) reaches its window (200K unless [1m]) - min(max output, 20,000) - 13,000 "
           "= 167,000; nothing kept verbatim, then up to 5 recently read files (5,000 tokens each, 50,000 in all) "
           f"and the plan; summary ~15,000 chars; the summary request shares the conversation's cache ({_CC_LEAK}; "
           "anthropics/claude-code#23409)",
           trigger="claude-code-2.1", count="claude-code-2.1", window="claude-code", fires_at_threshold=True,
           target=None, head=0, tail=0, reinject=True, summary_chars=CLAUDE_CODE_SUMMARY_CHARS),
    Policy("claude-code-2.0", ("summarize",),
           "Claude Code 2.0.x: the same, but the reserve is the whole max output (32,000): 155,000 of 200K; its "
           "count stopped at the last response's usage, the results after it not estimated (anthropics/claude-"
           f"code#10266, #12004; the pre-fix count described in tokens.ts, {_CC_LEAK})",
           trigger="claude-code-2.0", count="claude-code-2.0", window="claude-code", fires_at_threshold=True,
           target=None, head=0, tail=0, reinject=True, summary_chars=CLAUDE_CODE_SUMMARY_CHARS),
    _CODEX_LOCAL,
    replace(_CODEX_LOCAL, name="codex-remote", description=(
        "Codex remote compaction (V2, OpenAI providers): the same trigger; keeps user, developer and system "
        "messages up to 64,000 tokens (RETAINED_MESSAGE_TOKEN_BUDGET, compact_remote_v2.rs @009bd870) and one "
        "opaque compaction item, whose size is unknown (taken as the local summary's: an assumption); a normal "
        "/responses stream, so it reads the conversation's cache"), keep_user_tokens=64_000, summary_cache="prefix"),
    Policy("gemini-cli", ("summarize",),
           "Gemini CLI chat compression: when the last reported prompt count reaches 0.5 of its token limit "
           "(1,048,576); tool output older than 50,000 tokens of newer output cut to its last 30 lines; the last "
           "30% of the history by characters kept, the rest a <state_snapshot>; two uncached model calls "
           f"(snapshot, then a probe that checks it) under another model-config alias ({_GEMINI})",
           threshold=0.5, window="gemini-cli", count="reported", fires_at_threshold=True, target=None,
           keep_share=0.3, tool_budget_tokens=50_000, head=0, tail=0, summary_cache="none", summary_calls=2),
    Policy("openhands", ("summarize",),
           "OpenHands default agent condenser: more than 80 events; keep the first 4 and the last "
           "80//2 - 4 - 1 = 35 events, summarise the rest on an uncached condenser call "
           f"({_OPENHANDS})",
           trigger="events", count="events", threshold_tokens=80, target=None, head=4, tail=35,
           summary_cache="none"),
    Policy("inspect-edit", ("elide",),
           "inspect_ai CompactionEdit: past 0.9 of the window (reported input + count of newer messages), "
           f"clear all but the last 3 tool results, errors included ({_INSPECT})",
           threshold=0.9, target=None, keep_results=3, keep_errors=False),
    Policy("inspect-summary", ("summarize",),
           "inspect_ai CompactionSummary: past 0.9 of the window, system and first input kept, the rest one "
           f"continuation summary, which comes last; the summary call carries the conversation as sent ({_INSPECT})",
           threshold=0.9, target=None, head=1, tail=0),
    Policy("anthropic-context-editing", ("elide",),
           "Anthropic clear_tool_uses_20250919 with its defaults, applied server-side to each request: past "
           "100,000 input tokens clear all but the last 3 tool results (errors too), no clear_at_least; the "
           f"prompt changes from the first cleared result, so the cache is written again from there ({_CONTEXT_EDITING})",
           trigger="tokens", threshold_tokens=100_000, count="request", target=None, keep_results=3,
           keep_errors=False, per_request=True),
    Policy("anthropic-compaction", ("summarize",),
           "Anthropic server-side compaction compact_20260112 with its default trigger: past 150,000 input tokens "
           "the API summarises everything into a compaction block and drops what precedes it; the summary is an "
           f"extra sampling iteration over the request as sent ({_SERVER_COMPACTION})",
           trigger="tokens", threshold_tokens=150_000, count="request", target=None, head=0, tail=0),
    Policy("observation-masking", ("elide",),
           "SWE-agent's last_n_observations as 'The Complexity Trap' (arXiv 2508.21433) ran it: on every request, "
           "every observation but the last 10 replaced by a marker, tool results and text observations alike "
           "(history_processors last_n_observations n: 10, configs in Recursive-Safeguarding/the-complexity-trap)",
           trigger="tokens", threshold_tokens=0, count="request", target=None, keep_results=10, keep_errors=False,
           text_observations=True, per_request=True),
    Policy("llm-summary", ("summarize",),
           "'The Complexity Trap' LLM-Summary (OpenHands-style, summarise N=21 turns keeping the last M=10), read "
           "here as: past 31 turns (62 events) keep the system prompt, demonstration and task (3 events) and the "
           "last 10 turns (20 events), summarise the rest on an uncached call (our reading of the paper's N and M)",
           trigger="events", count="events", threshold_tokens=62, target=None, head=3, tail=20, summary_cache="none"),
    Policy("ladder", ("elide", "drop_images", "snapshot", "summarize"),
           "the toolkit's own: every rung, cheapest first (elide, drop images, snapshot pages, then a summary), "
           "past 0.8 of the window, down to 0.5"),
    Policy("ladder-no-summary", ("elide", "drop_images", "snapshot"),
           "the toolkit's own: every rung but the summary: needs no model call, key or network"),
)}
"""``claude-code`` and the old ``codex`` (0.9 of the API window) were fitted imitations; they are gone."""


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
                      ("summariser", str), ("geometry", str), ("trigger", str), ("count", str), ("window", str),
                      ("threshold_tokens", int), ("fires_at_threshold", bool), ("clear_at_least", int),
                      ("keep_share", (int, float)), ("tool_budget_tokens", int), ("reinject", bool),
                      ("summary_cache", str), ("summary_calls", int), ("per_request", bool),
                      ("text_observations", bool)):
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
