"""Images returned inside tool results, counted where they sit and by origin (issue 12, part 3).

The outside cross-check fed an Anthropic ``tool_result`` holding two images, one base64 and one URL:
the record kept both on the block, but the blocks frame and ``toolkit info`` counted 0, and a URL
image without bytes was not counted anywhere. Every wire that can carry an image inside a tool
result is rebuilt here in its smallest form with that same pair.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.helpers import png
from toolkit.cli.info import summary
from toolkit.corpus import load
from toolkit.corpus.summary import session_lengths
from toolkit.record import Image, ToolResult

PICTURE = png(4, 3)
B64 = base64.b64encode(PICTURE).decode()
DATA_URL = f"data:image/png;base64,{B64}"
REMOTE = "https://example.com/screen.png"


def anthropic(tmp: Path) -> Path:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [
        {"role": "user", "content": "take a screenshot"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
            {"type": "text", "text": "two screens"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
            {"type": "image", "source": {"type": "url", "url": REMOTE}},
        ]}]},
    ]}
    return _write(tmp / "anthropic.json", body)


def claude_code(tmp: Path) -> Path:
    def record(kind: str, uid: str, parent: str | None, message: dict[str, Any]) -> str:
        return json.dumps({"parentUuid": parent, "isSidechain": False, "sessionId": "s-img", "version": "2.1.15",
                           "type": kind, "uuid": uid, "timestamp": "2026-01-01T00:00:01.000Z", "message": message})

    lines = [
        record("user", "u1", None, {"role": "user", "content": "take a screenshot"}),
        record("assistant", "a1", "u1", {"id": "msg_1", "type": "message", "role": "assistant",
                                         "model": "claude-sonnet-4-5-20250929", "content": [
                                             {"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]}),
        record("user", "u2", "a1", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                                 "content": [
            {"type": "text", "text": "two screens"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
            {"type": "image", "source": {"type": "url", "url": REMOTE}},
        ]}]}),
    ]
    path = tmp / "s-img.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def openai_chat(tmp: Path) -> Path:
    body = {"model": "gpt-4.1", "messages": [
        {"role": "user", "content": "take a screenshot"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": [
            {"type": "text", "text": "two screens"},
            {"type": "image_url", "image_url": {"url": DATA_URL}},
            {"type": "image_url", "image_url": {"url": REMOTE}},
        ]},
    ]}
    return _write(tmp / "chat.json", body)


def openai_responses(tmp: Path) -> Path:
    body = {"model": "gpt-4.1", "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "take a screenshot"}]},
        {"type": "function_call", "call_id": "call_1", "name": "shot", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "two screens"},
            {"type": "input_image", "image_url": DATA_URL},
            {"type": "input_image", "image_url": REMOTE},
        ]},
    ]}
    return _write(tmp / "responses.json", body)


def gemini(tmp: Path) -> Path:
    body = {"contents": [
        {"role": "user", "parts": [{"text": "take a screenshot"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "shot", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "shot", "response": {"output": "two screens"},
                                                         "parts": [
            {"inlineData": {"mimeType": "image/png", "data": B64}},
            {"fileData": {"mimeType": "image/png", "fileUri": REMOTE}},
        ]}}]},
    ]}
    return _write(tmp / "gemini.json", body)


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


WIRES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "anthropic": (anthropic, "anthropic"), "claude_code": (claude_code, "claude_code"),
    "openai_chat": (openai_chat, "openai_chat"), "openai_responses": (openai_responses, "openai_chat"),
    "gemini": (gemini, "gemini"),
}
"""Wire → its builder and the importer that reads it (Responses items are read by the chat importer)."""


@pytest.mark.parametrize("wire", list(WIRES))
def test_two_images_in_a_tool_result_are_counted_where_they_sit(wire: str, tmp_path: Path) -> None:
    build, fmt = WIRES[wire]
    corpus = load(build(tmp_path))
    assert corpus.problems == []
    assert set(corpus.formats.values()) == {fmt}
    (session,) = corpus.sessions
    (result,) = [b for _, b in session.blocks() if isinstance(b, ToolResult)]
    assert result.output == "two screens"
    assert [(i.origin, i.size, i.url) for i in result.images] == [("inline", len(PICTURE), None), ("url", 0, REMOTE)]

    frames = corpus.frames()
    row = frames["blocks"].filter(pl.col("kind") == "tool_result").row(0, named=True)
    assert row["images"] == 2 and row["image_origin"] is None
    assert frames["blocks"]["images"].sum() == 2
    assert frames["messages"].filter(pl.col("message_id") == row["message_id"])["images"].to_list() == [2]
    assert frames["messages"]["images"].sum() == 2
    images = frames["images"]
    assert images.select("message_id", "block_index", "position", "sits_in", "tool_use_id", "origin",
                         "image_bytes", "width", "height", "url").rows() == [
        (row["message_id"], row["index"], 0, "tool_result", result.tool_use_id, "inline", len(PICTURE), 4, 3, None),
        (row["message_id"], row["index"], 1, "tool_result", result.tool_use_id, "url", None, None, None, REMOTE),
    ]
    assert session_lengths(frames)["images"].to_list() == [2]

    info = summary(corpus)
    assert info["images"] == {"total": 2, "sits_in": {"message": 0, "tool_result": 2},
                              "origin": {"inline": 1, "url": 1, "omitted": 0}}
    assert info["images_stored"] == 1
    assert info["blocks"]["image"] == 0  # the block count stays a count of blocks


def test_an_image_block_and_a_url_image_block_count_with_their_origin(tmp_path: Path) -> None:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
        {"type": "image", "source": {"type": "url", "url": REMOTE}},
        {"type": "text", "text": "compare"},
    ]}]}
    corpus = load(_write(tmp_path / "anthropic.json", body))
    frames = corpus.frames()
    blocks = frames["blocks"].select("kind", "images", "image_origin", "image_bytes").rows()
    assert blocks == [("image", 1, "inline", len(PICTURE)), ("image", 1, "url", None), ("text", 0, None, None)]
    assert frames["images"].select("sits_in", "origin").rows() == [("message", "inline"), ("message", "url")]
    info = summary(corpus)
    assert info["images"]["total"] == 2 and info["blocks"]["image"] == 2
    assert info["images"]["origin"] == {"inline": 1, "url": 1, "omitted": 0}


def test_an_image_with_neither_bytes_nor_url_is_omitted() -> None:
    assert Image("image/*", None).origin == "omitted"
    assert Image("image/png", None, url=REMOTE).origin == "url"
    assert Image("image/png", "ab" * 32, 10).origin == "inline"
