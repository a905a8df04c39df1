"""Damage that used to cost content in silence, each a record kept opaque or a problem now: a JSON
document read as far as it goes, and one case per importer the mutation harness
(``tests/test_import_accounting.py``) caught losing content without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.corpus import load
from toolkit.corpus.formats.tolerant import salvage
from toolkit.record import Opaque


@pytest.mark.parametrize(("text", "kept"), [
    ('{"a": [1, 2, {"b": "x\\"y"}, 3, {"c": [4, 5', {"a": [1, 2, {"b": 'x"y'}, 3, {"c": [4]}]}),
    ('[1, 2, 3', [1, 2]),  # the 3 may be the start of 35: a value cut short is not kept
    ('{"a": 1, ]', {"a": 1}),
    ('{"messages": [{"role": "user"}, {"role": "assis', {"messages": [{"role": "user"}, {}]}),
])
def test_a_damaged_document_keeps_every_whole_value_before_the_damage(text: str, kept: object) -> None:
    found = salvage(text, len(text))
    assert found is not None and found.value == kept


def test_a_damaged_scalar_has_nothing_to_keep() -> None:
    assert salvage('"abc', 4) is None


def test_a_cut_gemini_cli_session_keeps_the_messages_before_the_cut(tmp_path: Path) -> None:
    messages = [{"id": f"m{i}", "timestamp": "2025-01-01T00:00:00Z", "type": "user" if i % 2 == 0 else "gemini",
                 "content": f"turn {i}"} for i in range(10)]
    text = json.dumps({"sessionId": "g1", "projectHash": "p", "startTime": "2025-01-01T00:00:00Z",
                       "lastUpdated": "2025-01-01T00:00:00Z", "messages": messages}, indent=2)
    path = tmp_path / "session.json"
    path.write_text(text[: text.index('"turn 7"')], encoding="utf-8")
    corpus = load(path)
    # the message the cut went through keeps what came before its content
    assert [m.text for m in corpus.sessions[0].messages][:8] == [*(f"turn {i}" for i in range(7)), ""]
    (problem,) = corpus.problems
    assert "read as far as line" in problem.reason


def test_a_chat_text_part_without_its_text_is_opaque(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [{"type": "text", "tetx": "hi"}]}]}
    path.write_text(json.dumps(body), encoding="utf-8")
    corpus = load(path)
    (block,) = corpus.sessions[0].messages[0].blocks
    assert isinstance(block, Opaque) and "kept as opaque" in corpus.problems[0].reason


def test_a_yaml_cassette_cut_mid_line_is_reported(tmp_path: Path) -> None:
    body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})
    reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": "hello there"}}]})
    text = ("interactions:\n- request:\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n"
            f"    body: '{body}'\n  response:\n    status:\n      code: 200\n    body:\n      string: '{reply}'\n")
    path = tmp_path / "cassette.yaml"
    path.write_text(text[:-8], encoding="utf-8")
    assert any("does not end with a newline" in p.reason for p in load(path).problems)


def test_an_anthropic_response_whose_content_is_retyped_is_opaque(tmp_path: Path) -> None:
    request = {"model": "claude-sonnet-4", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    response = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4", "content": True}
    cassette = {"interactions": [{
        "request": {"method": "POST", "uri": "https://api.anthropic.com/v1/messages", "body": json.dumps(request)},
        "response": {"status": {"code": 200}, "body": {"string": json.dumps(response)}}}]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    corpus = load(path)
    assert any(isinstance(b, Opaque) for m in corpus.sessions[0].messages for b in m.blocks)
    assert any("not a list of blocks" in p.reason for p in corpus.problems)


def test_a_cassette_request_without_a_body_is_reported(tmp_path: Path) -> None:
    cassette = {"interactions": [{
        "request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions", "bdoy": "{}"},
        "response": {"status": {"code": 200}, "body": {"string": "{}"}}}]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    assert any("request without a body" in p.reason for p in load(path).problems)
