"""What a recorded usage measures, and what it only appears to: the rules every consumer of recorded
usage (the corpus frames, the session browser and its session table, the experiment's output estimate)
applies, so none reports a count the source never measured as a measurement.

Two kinds of count are unknown, not measured:

- **All zeros.** A usage whose every count is 0 is no request of 0 tokens: Claude Code writes zeros
  for its client-side ``<synthetic>`` replies and for replies of a backend that reported no usage
  (the ``mimo-v2.5-pro`` replies of the shared corpora's
  ``claude_code/mimo_v2.1.145_session_with_subagents``).
- **An output count below what the reply wrote.** Claude Code writes a reply's records as its
  stream arrives, each with the usage of the stream's ``message_start`` event, whose output count is
  the first chunk's (1 to a few tokens); the final count comes in ``message_delta``
  (https://docs.anthropic.com/en/docs/build-with-claude/streaming: "The token counts shown in the
  usage field of the message_delta event are cumulative"), and the record is often not written
  again (anthropics/claude-code issues 21971 and 22686, https://github.com/anthropics/claude-code/issues/21971,
  https://github.com/anthropics/claude-code/issues/22686, on 2.1.x; read 2026-12-04). The rule: a
  reply that wrote more than ``MAX_CHARS_PER_OUTPUT_TOKEN`` characters (text, reasoning, call
  input) per recorded output token did not cost that count, so its output is unknown. Its input
  counts are ``message_start``'s, which are final, and stay.
"""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from toolkit.content import input_size
from toolkit.record import Image, Message, Opaque, Reasoning, Text, ToolResult, ToolUse, Usage

MAX_CHARS_PER_OUTPUT_TOKEN = 10
"""Characters a reply can write per output token, at most. An estimate with room: tokenizers average
about 4 characters of English per token (https://help.openai.com/en/articles/4936856-what-are-tokens-and-how-to-count-them,
read 2026-12-04), code and other scripts fewer. In the shared corpora's Claude Code files (the
``claude_code/`` folder of the shared corpora, 5 sessions and 3 subagents, Claude Code 1.0.98 to
2.1.145) the 283 replies recorded with more than 30 output tokens wrote at most 4.7 characters a
token; the 146 recorded with 1 to 6 tokens wrote 19 or more (76 to 7,636 characters), and 148 replies
in all (77 of 2.0.22, 68 of 2.1.15, 3 of 1.0.98) fall under this rule."""


def measured(usage: Usage | None) -> bool:
    """Whether a recorded usage measures anything: a usage whose every count is 0 is unknown."""
    if usage is None:
        return False
    return any(value for value in (usage.input, usage.output, usage.cache_read, usage.cache_write))


def written_size(message: Message) -> int:
    """What the reply wrote, in the units the corpus frames count blocks by: characters of text and of
    reasoning, a call's input in UTF-8 bytes (``toolkit.content.input_size``). Tool results, images
    and opaque blocks are not the model's writing."""
    size = 0
    for block in message.blocks:
        match block:
            case Text() | Reasoning():
                size += len(block.text)
            case ToolUse():
                size += input_size(block)
            case ToolResult() | Image() | Opaque():
                pass
            case _:
                assert_never(block)
    return size


def output_count(output: int | None, written: int) -> int | None:
    """A recorded output count, or ``None`` where it cannot be the count of a reply that wrote
    ``written`` (``written_size``): more than ``MAX_CHARS_PER_OUTPUT_TOKEN`` a token."""
    if output is None or output * MAX_CHARS_PER_OUTPUT_TOKEN < written:
        return None
    return output


def measured_usage(message: Message) -> Usage | None:
    """The message's recorded usage as far as it measures anything: ``None`` when it recorded none or
    only zeros, and its output ``None`` when the output count is below what the reply wrote."""
    usage = message.usage
    if usage is None or not measured(usage):
        return None
    output = output_count(usage.output, written_size(message))
    return usage if output == usage.output else replace(usage, output=output)
