"""The arithmetic of real clients' compaction rules: the number a policy's count is compared with,
how each client counts before a request, and what Claude Code puts back after its summary.

Each constant names the source it was read in. Claude Code is closed source: its figures come from
the leaked 2.1.88 source as mirrored publicly (``DroxKiwi/claude-code-leak-packaged`` @
``fb1320d1baf5b77a0a02c15f41efb1dfa9aeff4b``), checked against Claude Code's own issues and
``/context`` output where those show them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import assert_never

from toolkit.compaction.policy import CountRule, Policy
from toolkit.content import block_text
from toolkit.costs.windows import client_window, window_for
from toolkit.errors import InvalidInput
from toolkit.record import Image, Message, Text, ToolResult, ToolUse, bare_tool_name

CHARS_PER_TOKEN = 4.0
"""Claude Code's ``roughTokenCountEstimation`` (``src/services/tokenEstimation.ts``) and Gemini CLI's
``estimateTokenCountSync`` both count four characters a token; so does Codex's ``approx_token_count``
(UTF-8 bytes / 4)."""

CLAUDE_CODE_IMAGE_TOKENS = 2_000
"""Claude Code's estimate for an image or document between reported counts (``src/utils/tokens.ts``)."""
CLAUDE_CODE_MAX_OUTPUT = 32_000
"""``MAX_OUTPUT_TOKENS_DEFAULT`` (``src/utils/context.ts``), capped by the model's own maximum."""
CLAUDE_CODE_SUMMARY_RESERVE = 20_000
"""``MAX_OUTPUT_TOKENS_FOR_SUMMARY`` (``autoCompact.ts``): 2.1.21 and later reserve at most this."""
CLAUDE_CODE_BUFFER = 13_000
"""``AUTOCOMPACT_BUFFER_TOKENS`` (``autoCompact.ts``; ``nx1 = 13000`` in the 2.0.x bundle,
anthropics/claude-code#12004)."""
CLAUDE_CODE_FILES = 5
CLAUDE_CODE_FILE_TOKENS = 5_000
CLAUDE_CODE_FILES_TOKENS = 50_000
"""``POST_COMPACT_MAX_FILES_TO_RESTORE``, ``POST_COMPACT_MAX_TOKENS_PER_FILE``,
``POST_COMPACT_TOKEN_BUDGET`` (``src/services/compact/compact.ts``)."""
CLAUDE_CODE_READ = frozenset({"Read"})
CLAUDE_CODE_PLAN = frozenset({"TodoWrite", "ExitPlanMode"})

GEMINI_TRUNCATED_LINES = 30
"""Gemini CLI keeps the last 30 lines of an old tool output it cuts (``formatTruncatedToolOutput``)."""
GEMINI_ACK = "Got it. Thanks for the additional context!"
"""The model turn Gemini CLI puts after its snapshot (``chatCompressionService.ts``)."""

REINJECTED_TAG = "compaction_reinjected"
"""Tag of the message holding what a client re-attached after its summary."""


def _api_output(model: str) -> int | None:
    try:
        return window_for(model).output
    except InvalidInput:  # an unknown model, or a family without a recorded window
        return None


def _api_window(model: str) -> int | None:
    try:
        return window_for(model).input
    except InvalidInput:
        return None


def claude_code_threshold(version: str, model: str, window: int) -> int:
    """Claude Code's auto-compact threshold for a ``window``-token window: the window less the
    output reserve less 13,000. 2.0.x reserved the whole max output (``/context`` showed an
    "Autocompact buffer: 45k tokens (22.5%)", anthropics/claude-code#10266); 2.1.21 reserves at most
    20,000 ("33k tokens (16.5%)", #23409; changelog 2.1.21, 2026-01-28)."""
    cap = _api_output(model)
    max_output = min(CLAUDE_CODE_MAX_OUTPUT, cap) if cap else CLAUDE_CODE_MAX_OUTPUT
    reserve = max_output if version == "2.0" else min(max_output, CLAUDE_CODE_SUMMARY_RESERVE)
    return window - reserve - CLAUDE_CODE_BUFFER


def threshold(policy: Policy, model: str, window: int, *, real: bool = True) -> float:
    """The number ``policy``'s count is compared with, for ``model`` with a ``window``-token API
    window. ``real``: the window is the model's own, so a client's own window applies (Claude
    Code's 200K, Codex's catalog); otherwise ``window`` is a study window and a client's rule keeps
    the fraction of its own window (an absolute trigger: of the model's window) that it has at full
    size. Events are not scaled."""
    own = client_window(policy.window, model).input if policy.window is not None else window
    match policy.trigger:
        case "fraction":
            return policy.threshold * (own if real else window)
        case "tokens":
            assert policy.threshold_tokens is not None
            api = _api_window(model) if not real else None
            return policy.threshold_tokens * window / api if api else float(policy.threshold_tokens)
        case "events":
            assert policy.threshold_tokens is not None
            return float(policy.threshold_tokens)
        case "claude-code-2.0" | "claude-code-2.1":
            at = claude_code_threshold(policy.trigger.removeprefix("claude-code-"), model, own)
            return float(at) if real else at / own * window
        case unknown:
            assert_never(unknown)


def fires(policy: Policy, count: float, at: float) -> bool:
    return count >= at if policy.fires_at_threshold else count > at


def events(messages: Sequence[Message]) -> int:
    """OpenHands' unit: an action per tool call, an observation per result, a message action per
    message that holds neither."""
    return sum(max(1, sum(isinstance(b, ToolUse | ToolResult) for b in m.blocks)) for m in messages)


def messages_holding(messages: Sequence[Message], wanted: int, *, from_end: bool) -> int:
    """How many messages at one end of ``messages`` hold at most ``wanted`` events."""
    order = reversed(messages) if from_end else iter(messages)
    taken = held = 0
    for message in order:
        held += events([message])
        if held > wanted:
            break
        taken += 1
    return taken


def _chars(messages: Sequence[Message]) -> int:
    return sum(len(block_text(b)) for m in messages for b in m.blocks if not isinstance(b, Image))


def _images(messages: Sequence[Message]) -> int:
    return sum(isinstance(b, Image) or (isinstance(b, ToolResult) and len(b.images)) for m in messages
               for b in m.blocks)


@dataclass(frozen=True, slots=True)
class Reading:
    """What a client knows before a request: the provider's count of the last one, its output, the
    messages that came after its reply, and everything since that request (its reply included)."""

    reported: int | None
    output: int
    after_reply: Sequence[Message]
    since_request: Sequence[Message]
    image_tokens: float = 0.0
    """The toolkit's count of the images ``since_request`` carries (the ``estimate`` rule adds it)."""


def client_count(rule: CountRule, reading: Reading, history: Sequence[Message],
                 request: Callable[[Sequence[Message]], int]) -> int:
    """The size the client believes the next request has (``request`` is the toolkit's count of a
    whole history, used before any count was reported and by the server-side rules).

    * ``estimate``: the last count plus chars/4 of everything since (the toolkit's own rule;
      inspect_ai counts the messages since its baseline the same way);
    * ``claude-code-2.1``: the last response's input + cache + output, plus chars/4 of what came
      after it, 2,000 an image (``tokenCountWithEstimation``, ``src/utils/tokens.ts``);
    * ``claude-code-2.0``: the last response's usage alone: the results after it went uncounted
      (the fixed bug ``tokens.ts`` describes; golfgod's ``preTokens`` is its last prompt + 798);
    * ``reported``: the last prompt as reported (Gemini CLI ``getLastPromptTokenCount``);
    * ``reported+output``: the last request's input + output (Codex's tokens in the context window);
    * ``request``: the request itself as the provider counts it (a server-side rule);
    * ``events``: OpenHands' events."""
    if rule == "events":
        return events(history)
    reported = reading.reported
    if reported is None:
        return request(history)
    match rule:
        case "request":
            return request(history)
        case "estimate":
            return round(reported + _chars(reading.since_request) / CHARS_PER_TOKEN + reading.image_tokens)
        case "claude-code-2.1":
            return round(reported + reading.output + _chars(reading.after_reply) / CHARS_PER_TOKEN
                         + CLAUDE_CODE_IMAGE_TOKENS * _images(reading.after_reply))
        case "claude-code-2.0" | "reported+output":
            return reported + reading.output
        case "reported":
            return reported
        case unknown:
            assert_never(unknown)


def _clip_tokens(text: str, tokens: int) -> str:
    limit = int(tokens * CHARS_PER_TOKEN)
    return text if len(text) <= limit else text[:limit] + f"\n[… cut to {tokens:,} tokens]"


def claude_code_reinjected(source: Sequence[Message]) -> Message | None:
    """What Claude Code attaches after a full compaction: the files read most recently (at most 5,
    each cut to 5,000 tokens, 50,000 in all) and the latest plan, as one user message; ``None``
    when the history read no file and made no plan. CLAUDE.md and memory come back from disk with
    the system prompt, which the simulator carries as the unrecorded prefix."""
    calls: dict[str, ToolUse] = {}
    files: dict[str, str] = {}
    plan: str | None = None
    for message in source:
        for block in message.blocks:
            if isinstance(block, ToolUse):
                calls[block.id] = block
                if bare_tool_name(block.name) in CLAUDE_CODE_PLAN:
                    plan = block_text(block)
            elif isinstance(block, ToolResult) and not block.is_error:
                call = calls.get(block.tool_use_id)
                if call is None or bare_tool_name(call.name) not in CLAUDE_CODE_READ:
                    continue
                path = call.input.get("file_path") if isinstance(call.input, dict) else None
                if isinstance(path, str):
                    files.pop(path, None)
                    files[path] = block.output
    parts: list[str] = []
    used = 0
    for path, text in list(reversed(files.items()))[:CLAUDE_CODE_FILES]:
        body = _clip_tokens(text, CLAUDE_CODE_FILE_TOKENS)
        cost = math.ceil(len(body) / CHARS_PER_TOKEN)
        if used + cost > CLAUDE_CODE_FILES_TOKENS:
            break
        used += cost
        parts.append(f"[file re-read after compaction: {path}]\n{body}")
    if plan is not None:
        parts.append(f"[plan re-attached after compaction]\n{plan}")
    if not parts:
        return None
    last = source[-1]
    return Message(id=f"reinjected-{last.id}", parent_id=None, role="user", blocks=(Text("\n\n".join(parts)),),
                   time=last.time, tags=(REINJECTED_TAG,))
