"""A corpus as polars DataFrames with stable, documented columns: the interface notebooks use.

``sessions``
    session_id, format, file, title, parent_session_id, spawn_call_id, tip_id, messages (nodes in
    the tree), path_messages (root to tip), leaves (branch ends), started, ended, model, events,
    run_configs, surface_recorded (any run config with a surface hash)
``messages``
    session_id, message_id, parent_id, role, index (source order), on_path, path_index, time, model,
    provider, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, blocks, text_chars,
    sidechain, tags, file, line, images (every image the message carries, inside tool results too).
    Token columns are the usage of the request that produced the message, as the source reported
    it (null where it reported none or only zeros, which measure nothing), except that
    ``output_tokens`` is null where the count is below what the reply wrote (``toolkit.measured``: a streaming client's first-chunk count, not
    the reply's). A Codex compaction's summary (a ``user`` message tagged
    ``compact_summary``) carries the usage of the request that wrote it, so summed over messages a
    rollout's usage equals its own final cumulative ``total_token_usage``
``blocks``
    session_id, message_id, index, kind, chars (text, output, reasoning or JSON size), tool_name,
    tool_use_id, is_error, image_sha256, media_type, image_bytes (null when the size is unknown: an
    image known only by URL), width, height, opaque_type, images (1 for an image block, the images a
    tool result holds, else 0), image_origin (an image block's origin, see ``images``).

    A ``reasoning`` row is one unit of reasoning as the provider returns it and wants it back, the
    same whichever client or wire recorded it. Its chars are the text the provider shows (a summary
    on most models), never the reasoning it bills: those tokens are only in the reply's output
    tokens. ``redacted`` reasoning came back with nothing readable; its signature is all there is.

    - Anthropic: one ``thinking`` block (its text and signature; empty text when the display is
      omitted, still not redacted, since it goes back as ``thinking``) or one ``redacted_thinking``
      block (redacted, its ``data`` as the signature)
      (https://platform.claude.com/docs/en/build-with-claude/extended-thinking).
    - OpenAI: one ``reasoning`` item: its summary parts (and any raw ``content`` text) joined, its
      ``encrypted_content`` as the signature; redacted when it has no text. An item OpenRouter splits
      into ``reasoning_details`` with the item's ``id`` (a summary and an encrypted detail) is still one
      (``ReasoningItem`` of the OpenAI API spec 2.3.0, https://platform.openai.com/docs/guides/reasoning,
      https://openrouter.ai/docs/guides/best-practices/reasoning-tokens; read 2026-12-03).
    - Gemini: one part that is a thought (``thought: true``, its text and any signature), and one
      redacted block, with empty text, for a ``thoughtSignature`` on any other part (a
      ``functionCall``, the last text part; from the OpenAI-compatible endpoint,
      ``extra_content.google.thought_signature`` on a call), just before that part's block. Google's
      Interactions API makes a thought of a signature, there even when the model barely reasoned,
      and a summary that may be empty; a replay must give the signature back on the part it came
      on, since Gemini refuses a function call turn whose first call lacks it
      (https://ai.google.dev/gemini-api/docs/thought-signatures,
      https://ai.google.dev/gemini-api/docs/interactions/thinking, read 2026-12-03). Gemini CLI's
      ``thoughts`` are one block each (the thought summaries it recorded, unsigned).
``images``
    one row per image wherever it sits: session_id, message_id, block_index, position (within the
    block), sits_in (``message``: an image block; ``tool_result``: returned by a call), tool_use_id,
    origin (``inline``: bytes in the image store; ``url``: a reference without bytes; ``omitted``:
    the source recorded that an image was there but kept neither), image_sha256, media_type,
    image_bytes, width, height, url
``tool_calls``
    session_id, message_id, call_id, name, bare_name, input_bytes, input_valid, freeform,
    has_result, result_bytes, is_error, result_message_id. A result answers the most recent
    still-unanswered earlier call with its id (in source order, ``toolkit.pairing``), so a reused id
    pairs each result with its own call. Anthropic's server tools (web search, code execution, MCP connector...) are
    calls too: the provider ran them, and the result sits in the message that made the call
``events``
    session_id, kind, type, time, message_id, text, file, line
``problems``
    file, line, reason
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, assert_never

import polars as pl

from toolkit.content import block_images, input_size
from toolkit.jsontext import json_text
from toolkit.measured import measured, output_count
from toolkit.pairing import OpenCalls
from toolkit.record import (
    Block,
    Image,
    Opaque,
    Problem,
    Reasoning,
    Session,
    Text,
    ToolResult,
    ToolUse,
    bare_tool_name,
)

if TYPE_CHECKING:
    from toolkit.corpus.corpus import Corpus

SCHEMAS: dict[str, dict[str, Any]] = {
    "sessions": {
        "session_id": pl.String, "format": pl.String, "file": pl.String, "title": pl.String,
        "parent_session_id": pl.String, "spawn_call_id": pl.String, "tip_id": pl.String,
        "messages": pl.Int64, "path_messages": pl.Int64, "leaves": pl.Int64,
        "started": pl.Datetime("us", "UTC"), "ended": pl.Datetime("us", "UTC"), "model": pl.String,
        "events": pl.Int64, "run_configs": pl.Int64, "surface_recorded": pl.Boolean,
    },
    "messages": {
        "session_id": pl.String, "message_id": pl.String, "parent_id": pl.String, "role": pl.String,
        "index": pl.Int64, "on_path": pl.Boolean, "path_index": pl.Int64,
        "time": pl.Datetime("us", "UTC"), "model": pl.String, "provider": pl.String,
        "input_tokens": pl.Int64, "output_tokens": pl.Int64, "cache_read_tokens": pl.Int64,
        "cache_write_tokens": pl.Int64, "blocks": pl.Int64, "text_chars": pl.Int64,
        "sidechain": pl.Boolean, "tags": pl.List(pl.String), "file": pl.String, "line": pl.Int64,
        "images": pl.Int64,
    },
    "blocks": {
        "session_id": pl.String, "message_id": pl.String, "index": pl.Int64, "kind": pl.String,
        "chars": pl.Int64, "tool_name": pl.String, "tool_use_id": pl.String, "is_error": pl.Boolean,
        "image_sha256": pl.String, "media_type": pl.String, "image_bytes": pl.Int64,
        "width": pl.Int64, "height": pl.Int64, "opaque_type": pl.String, "images": pl.Int64,
        "image_origin": pl.String,
    },
    "images": {
        "session_id": pl.String, "message_id": pl.String, "block_index": pl.Int64, "position": pl.Int64,
        "sits_in": pl.String, "tool_use_id": pl.String, "origin": pl.String, "image_sha256": pl.String,
        "media_type": pl.String, "image_bytes": pl.Int64, "width": pl.Int64, "height": pl.Int64,
        "url": pl.String,
    },
    "tool_calls": {
        "session_id": pl.String, "message_id": pl.String, "call_id": pl.String, "name": pl.String,
        "bare_name": pl.String, "input_bytes": pl.Int64, "input_valid": pl.Boolean,
        "freeform": pl.Boolean, "has_result": pl.Boolean, "result_bytes": pl.Int64,
        "is_error": pl.Boolean, "result_message_id": pl.String,
    },
    "events": {
        "session_id": pl.String, "kind": pl.String, "type": pl.String,
        "time": pl.Datetime("us", "UTC"), "message_id": pl.String, "text": pl.String,
        "file": pl.String, "line": pl.Int64,
    },
    "problems": {"file": pl.String, "line": pl.Int64, "reason": pl.String},
}


def image_size(image: Image) -> int | None:
    """Bytes of a stored image; ``None`` when no bytes were recorded (``Image.size`` is 0 then)."""
    return image.size if image.sha256 is not None else None


def image_rows(session_id: str, message_id: str, index: int, block: Block) -> list[dict[str, Any]]:
    """One row per image the block carries, with where it sits and where its pixels are."""
    sits_in = "tool_result" if isinstance(block, ToolResult) else "message"
    call = block.tool_use_id if isinstance(block, ToolResult) else None
    return [{"session_id": session_id, "message_id": message_id, "block_index": index, "position": position,
             "sits_in": sits_in, "tool_use_id": call, "origin": image.origin,
             "image_sha256": image.sha256, "media_type": image.media_type, "image_bytes": image_size(image),
             "width": image.width, "height": image.height, "url": image.url}
            for position, image in enumerate(block_images(block))]


def block_row(session_id: str, message_id: str, index: int, block: Block) -> dict[str, Any]:
    row: dict[str, Any] = {"session_id": session_id, "message_id": message_id, "index": index,
                           "kind": block.kind, "images": len(block_images(block))}
    match block:
        case Text(text=text):
            row["chars"] = len(text)
        case ToolUse():
            row.update(chars=input_size(block), tool_name=block.name, tool_use_id=block.id)
        case ToolResult():
            row.update(chars=len(block.output), tool_name=block.name, tool_use_id=block.tool_use_id,
                       is_error=block.is_error)
        case Reasoning(text=text):
            row["chars"] = len(text)
        case Image():
            row.update(chars=0, image_sha256=block.sha256, media_type=block.media_type,
                       image_bytes=image_size(block), width=block.width, height=block.height,
                       image_origin=block.origin)
        case Opaque():
            row.update(chars=len(json_text(block.raw)), opaque_type=block.type)
        case _:
            assert_never(block)
    return row


TOKEN_COLUMNS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
"""The messages frame's usage counts: null together where a usage measured nothing."""


def utc(value: Any) -> Any:
    """A naive datetime taken as UTC, others as they are, so a frame's time column has one time zone."""
    if value is not None and value.tzinfo is None:
        from datetime import UTC

        return value.replace(tzinfo=UTC)
    return value


def session_rows(session: Session) -> Iterator[tuple[str, dict[str, Any]]]:
    """The rows of one session, each with the frame it goes to, in each frame's order: a message's
    row after its blocks and images, then the session's tool calls (a result found later completes
    its call's row, so they wait for the session's end), its events and its ``sessions`` row. Each
    row is final when it comes, so a writer may turn those it holds into frames at any point."""
    sid = session.id
    path_index = {m.id: i for i, m in enumerate(session.path())}
    calls: list[tuple[str, ToolUse, int]] = []
    """Each call's message, block and input size, its row made at the session's end: a row held per
    call until then cost more than the call itself."""
    answers: dict[int, tuple[int, bool, str]] = {}
    """A call's position in ``calls`` → its result's size, error flag and message."""
    open_calls: OpenCalls[int] = OpenCalls()
    for index, message in enumerate(session.messages):
        # toolkit.measured.measured_usage's rules, on the written size this loop counts anyway: a usage
        # of zeros measured nothing, so every column is null, not 0
        usage = message.usage if measured(message.usage) else None
        text_chars = 0
        written = 0  # what the reply wrote, as toolkit.measured.written_size counts it
        message_images = 0
        for b_index, block in enumerate(message.blocks):
            row = block_row(sid, message.id, b_index, block)
            yield "blocks", row
            for image in image_rows(sid, message.id, b_index, block):
                yield "images", image
            message_images += row["images"]
            match block:
                case Text():
                    text_chars += row["chars"]
                    written += row["chars"]
                case ToolUse():
                    written += row["chars"]
                    open_calls.call(block.id, len(calls))
                    calls.append((message.id, block, row["chars"]))
                case ToolResult():
                    answered = open_calls.answer(block.tool_use_id)
                    if answered is not None:
                        answers[answered] = (len(block.output.encode("utf-8")), block.is_error, message.id)
                case Reasoning():
                    written += row["chars"]
                case Image() | Opaque():
                    pass
                case _:
                    assert_never(block)
        yield "messages", {
            "session_id": sid, "message_id": message.id, "parent_id": message.parent_id,
            "role": message.role, "index": index, "on_path": message.id in path_index,
            "path_index": path_index.get(message.id), "time": utc(message.time),
            "model": message.model, "provider": message.provider,
            "input_tokens": usage.input if usage else None,
            "output_tokens": output_count(usage.output, written) if usage else None,
            "cache_read_tokens": usage.cache_read if usage else None,
            "cache_write_tokens": usage.cache_write if usage else None,
            "blocks": len(message.blocks), "text_chars": text_chars, "sidechain": message.sidechain,
            "tags": list(message.tags),
            "file": message.source.file if message.source else session.file,
            "line": message.source.line if message.source else None, "images": message_images,
        }
    for at, (message_id, call, size) in enumerate(calls):
        answer = answers.get(at)
        yield "tool_calls", {
            "session_id": sid, "message_id": message_id, "call_id": call.id, "name": call.name,
            "bare_name": bare_tool_name(call.name), "input_bytes": size, "input_valid": call.input_valid,
            "freeform": call.freeform, "has_result": answer is not None,
            "result_bytes": None if answer is None else answer[0], "is_error": None if answer is None else answer[1],
            "result_message_id": None if answer is None else answer[2],
        }
    for e in session.events:
        yield "events", {
            "session_id": sid, "kind": e.kind, "type": e.type, "time": utc(e.time),
            "message_id": e.message_id, "text": e.text,
            "file": e.source.file if e.source else session.file,
            "line": e.source.line if e.source else None,
        }
    times = [m.time for m in session.messages if m.time is not None]
    models = [m.model for m in session.messages if m.model]
    yield "sessions", {
        "session_id": sid, "format": session.format, "file": session.file, "title": session.title,
        "parent_session_id": session.parent_session_id, "spawn_call_id": session.spawn_call_id,
        "tip_id": session.tip, "messages": len(session.messages), "path_messages": len(path_index),
        "leaves": len(session.leaves()),
        "started": utc(min(times)) if times else None, "ended": utc(max(times)) if times else None,
        "model": max(dict.fromkeys(models), key=models.count) if models else None,
        "events": len(session.events), "run_configs": len(session.run_configs),
        "surface_recorded": any(c.surface_hash for c in session.run_configs),
    }


def _frame(name: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
    schema = SCHEMAS[name]
    return pl.DataFrame(rows, schema=schema, strict=False)


def corpus_frames(corpus: Corpus) -> dict[str, pl.DataFrame]:
    return frames_of(corpus.sessions, corpus.problems)


def frames_of(given: Sequence[Session], found: Sequence[Problem]) -> dict[str, pl.DataFrame]:
    """The frames of these sessions and problems (a corpus, or one part of a saved one)."""
    return next(frame_slices(given, found))


def frame_slices(given: Sequence[Session], found: Sequence[Problem],
                 most: int | None = None) -> Iterator[dict[str, pl.DataFrame]]:
    """The frames of ``frames_of`` a slice at a time, each slice made of about ``most`` rows of all
    frames together (all of them in one slice when ``None``); a frame's slices concatenated in order
    are its whole frame. A writer that writes each slice and lets it go holds a slice's rows, never
    those of a whole part: built at once, the rows of one large file and their frames cost about
    the file's size again."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in SCHEMAS}
    held = slices = 0
    problems = (("problems", {"file": p.file, "line": p.line, "reason": p.reason}) for p in found)
    for name, row in chain((row for session in given for row in session_rows(session)), problems):
        rows[name].append(row)
        held += 1
        if most is not None and held >= most:
            yield {table: _frame(table, taken) for table, taken in rows.items()}
            rows = {table: [] for table in SCHEMAS}
            held = 0
            slices += 1
    if held or not slices:  # no rows at all is still a slice: the frames, empty
        yield {table: _frame(table, taken) for table, taken in rows.items()}
