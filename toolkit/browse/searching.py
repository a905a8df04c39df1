"""Search a corpus: text, tool name, error results, model, role, session and time, over the corpus
frames (``toolkit.corpus.frames``: the messages frame gives role, time and model) and one text row per
block, each result naming the anchor of its message in the browser page."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, assert_never

import polars as pl

from toolkit.browse.anchors import message_anchor
from toolkit.browse.turns import Place, pair_calls
from toolkit.content import block_text
from toolkit.errors import InvalidInput
from toolkit.record import Image, Opaque, Reasoning, Text, ToolResult, ToolUse, bare_tool_name

if TYPE_CHECKING:
    from toolkit.corpus.corpus import Corpus

TEXT_SCHEMA: dict[str, Any] = {
    "session_id": pl.String, "index": pl.Int64, "block": pl.Int64, "kind": pl.String,
    "tool_name": pl.String, "bare_tool": pl.String, "is_error": pl.Boolean, "text": pl.String,
}

RESULT_COLUMNS = ("session_id", "format", "message_id", "index", "block", "role", "time", "model", "kind",
                  "tool_name", "is_error", "snippet", "anchor")
"""The columns of ``search``: the message's position in its session (``index``, as the messages
frame numbers it) and the block's, and ``anchor``, the id of the message in ``toolkit show``'s page
(``page.html#anchor``)."""

SNIPPET = 70
"""Characters of context either side of a match."""


def text_rows(corpus: Corpus) -> pl.DataFrame:
    """One row per block: its position, kind, the tool it calls or answers (a result takes its call's
    name when the source did not name it), whether it is an error result, and its text
    (``toolkit.content.block_text``: what the block sends).

    Args:
        corpus: The corpus to search.

    Returns:
        The frame a search filters.
    """
    rows: list[dict[str, Any]] = []
    for session in corpus.sessions:
        _, call_of = pair_calls(session)
        for m, message in enumerate(session.messages):
            for b, block in enumerate(message.blocks):
                name: str | None = None
                error: bool | None = None
                match block:
                    case ToolUse():
                        name = block.name
                    case ToolResult():
                        error = block.is_error
                        call = call_of.get(Place(m, b))
                        use = session.messages[call.message].blocks[call.block] if call else None
                        name = use.name if isinstance(use, ToolUse) else block.name
                    case Text() | Reasoning() | Image() | Opaque():
                        pass
                    case _:
                        assert_never(block)
                rows.append({"session_id": session.id, "index": m, "block": b, "kind": block.kind,
                             "tool_name": name, "bare_tool": bare_tool_name(name) if name else None,
                             "is_error": error, "text": block_text(block)})
    return pl.DataFrame(rows, schema=TEXT_SCHEMA)


def _utc(value: datetime | str | None) -> datetime | None:
    if value is None:
        return None
    try:
        stamp = datetime.fromisoformat(value) if isinstance(value, str) else value
    except ValueError:
        raise InvalidInput(f"{value!r} is not an ISO time (2026-12-01 or 2026-12-01T09:30:00)") from None
    return stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp.astimezone(UTC)


def _snippet(text: str, query: str) -> str:
    flat = " ".join(text.split())
    if not query:
        return flat[: 2 * SNIPPET] + ("…" if len(flat) > 2 * SNIPPET else "")
    at = flat.lower().find(query.lower())
    if at < 0:
        return flat[: 2 * SNIPPET]
    start, end = max(0, at - SNIPPET), min(len(flat), at + len(query) + SNIPPET)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def search(corpus: Corpus, query: str = "", *, tool: str | None = None, errors: bool = False,
           model: str | None = None, role: str | None = None, session: str | None = None,
           since: datetime | str | None = None, until: datetime | str | None = None,
           kind: str | None = None, frames: dict[str, pl.DataFrame] | None = None) -> pl.DataFrame:
    """Blocks matching every filter given, in corpus order.

    Args:
        corpus: The corpus to search.
        query: A case-insensitive substring of the block's text.
        tool: A tool name as recorded or bare (``mcp__server__tool`` matches ``tool``), on calls and
            on the results answering them.
        errors: Keep only error results.
        model: A substring of the message's model.
        role: The message's role.
        session: A session id.
        since: The earliest message time (ISO text or datetime, naive as UTC; a message without a
            time fails a time bound).
        until: The latest message time, likewise.
        kind: The block kind.
        frames: ``corpus.frames()``, when the caller has it already.

    Returns:
        One row per block, columns in ``RESULT_COLUMNS``."""
    frames = corpus.frames() if frames is None else frames
    messages = frames["messages"].select("session_id", "index", "message_id", "role", "time", "model")
    formats = frames["sessions"].select("session_id", "format").unique("session_id", keep="first")
    rows = text_rows(corpus)
    if session is not None:
        rows = rows.filter(pl.col("session_id") == session)
    if kind is not None:
        rows = rows.filter(pl.col("kind") == kind)
    if tool is not None:
        wanted = tool.lower()
        rows = rows.filter((pl.col("tool_name").str.to_lowercase() == wanted)
                           | (pl.col("bare_tool").str.to_lowercase() == wanted))
    if errors:
        rows = rows.filter(pl.col("is_error").fill_null(False))
    if query:
        rows = rows.filter(pl.col("text").str.to_lowercase().str.contains(query.lower(), literal=True))
    found = rows.join(messages, on=["session_id", "index"], how="left", maintain_order="left")
    found = found.join(formats, on="session_id", how="left", maintain_order="left")
    if model is not None:
        found = found.filter(pl.col("model").str.to_lowercase().str.contains(model.lower(), literal=True))
    if role is not None:
        found = found.filter(pl.col("role") == role)
    start, end = _utc(since), _utc(until)
    if start is not None:
        found = found.filter(pl.col("time") >= start)
    if end is not None:
        found = found.filter(pl.col("time") <= end)
    snippets = [_snippet(text, query) for text in found["text"].to_list()]
    anchors = [message_anchor(sid, index) for sid, index in zip(found["session_id"], found["index"], strict=True)]
    return (found.with_columns(pl.Series("snippet", snippets, dtype=pl.String),
                               pl.Series("anchor", anchors, dtype=pl.String))
            .select(RESULT_COLUMNS))
