"""Damage that used to cost content in silence, each a record kept opaque or a problem now: a JSON
document read as far as it goes, and one case per importer the mutation harness
(``tests/test_import_accounting.py``) caught losing content without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPORA
from toolkit.corpus import load
from toolkit.corpus.formats import SNIFF_BYTES
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


# ---- a damaged pretty-printed document is still told by its format ---------------------------------


def _small(value: object) -> object:
    """A real document kept to its first items and the starts of its strings: the same shape, a
    head's size (so detection holds it whole, as most files of these formats are)."""
    if isinstance(value, list):
        return [_small(item) for item in value[:6]]
    if isinstance(value, dict):
        return {key: _small(item) for key, item in value.items()}
    return value[:300] if isinstance(value, str) else value


def _request_body(cassette: str) -> object:
    """The request body of a recorded exchange's last interaction (the longest history)."""
    import yaml

    interactions = yaml.safe_load((CORPORA / cassette).read_text(encoding="utf-8"))["interactions"]
    return interactions[-1]["request"]["parsed_body"]


WHOLE_DOCUMENTS = {
    "cline": "cline/mra_cline_api_conversation_history.json",
    "gemini_cli": "gemini/geminicli_chat_session_7befeae5.json",
    "inspect": "trajectories/inspect_browser_gpt4omini.json",
    "sweagent": "trajectories/sweagent_gpt4_pydicom-1458.traj",
    "openhands": "trajectories/openhands_basic_gui_mode.json",
    "openai_chat": "openai_chat/faithfulsim_mcp_github_trace_121058.json",
    "continue": "continue/fabien_8c3cc493-0ef9-462d-94cd-b5e558b00fe4.json",
    "claude_code": "claude_code/golfgod_v2.0.22_compaction_forks_images.chat.json",
    "opencode": "opencode/jwp23_v1.0.107/storage/message/ses_53993b312ffeefelTsBlbUVXV8/"
                "msg_ac66c4cef001J45w2a5xRw64QH.json",
}
"""A real file of each whole-document format (a request body of each wire is taken from a cassette)."""

BODIES = {
    "openai_chat_request": "openai_chat/pydanticai_cassette_chat_images_after_tool.yaml",
    "anthropic": "anthropic/pydanticai_cassette_parallel_tool_calls.yaml",
    "gemini": "gemini/pydanticai_cassette_multi_function_calls.yaml",
}


def _grown(document: object, size: int) -> object:
    """The real document, its outermost largest list (the messages, turns or samples) repeated until
    it is indented at least ``size`` bytes, so that a cut at 80% is still past detection's head."""
    while len(json.dumps(document, indent=2)) < size:
        found = _lists(document, 0)
        outermost = min(depth for depth, _ in found)
        longest = max((items for depth, items in found if depth == outermost), key=lambda items: len(json.dumps(items)))
        longest.extend(list(longest))
    return document


def _lists(value: object, depth: int) -> list[tuple[int, list[object]]]:
    """Every non-empty list in ``value`` with its depth."""
    found: list[tuple[int, list[object]]] = [(depth, value)] if isinstance(value, list) and value else []
    for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        found.extend(_lists(item, depth + 1))
    return found


@pytest.mark.parametrize(("name", "large"), [
    *((name, False) for name in [*WHOLE_DOCUMENTS, *BODIES]),
    *((name, True) for name in [*WHOLE_DOCUMENTS, *BODIES] if name != "opencode"),  # a record has no list
])
def test_a_truncated_pretty_printed_document_is_read_as_its_format(name: str, large: bool, tmp_path: Path) -> None:
    """Cut at 80% and indented, the document is still detected as its format (not "unknown"), and
    read as far as it goes with the loss reported: held by the head (its lists and strings kept
    short), or a file larger than the head (its longest list repeated). Before, a request body of
    each wire and an OpenCode record cut so were "unknown format", whole."""
    source = CORPORA / (WHOLE_DOCUMENTS.get(name) or BODIES[name])
    if not source.is_file():
        pytest.skip("../shared/corpora is absent")
    document = _request_body(BODIES[name]) if name in BODIES else json.loads(source.read_bytes())
    document = _grown(_small(document), 3 * SNIFF_BYTES) if large else _small(document)
    text = json.dumps(document, indent=2, ensure_ascii=False)
    file = "body.json" if name in BODIES else source.name
    intact, cut = tmp_path / "intact" / file, tmp_path / "cut" / file
    for path, body in ((intact, text), (cut, text[: len(text) * 8 // 10])):
        path.parent.mkdir()
        path.write_text(body, encoding="utf-8")
    assert (cut.stat().st_size > SNIFF_BYTES) == large
    expected = load(intact).formats[intact.name]
    corpus = load(cut)
    assert corpus.formats.get(cut.name) == expected, [p.reason for p in corpus.problems]
    assert corpus.problems, "the loss is reported"
    # what comes before the cut is kept (an OpenCode message record alone holds no message; past the
    # head, a SWE-agent trajectory repeated leaves its history, which holds the messages, past the cut)
    assert large or name == "opencode" or sum(len(s.messages) for s in corpus.sessions) > 0
