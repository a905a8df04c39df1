"""A key renamed by a slip (``content`` as ``contnet``, ``toolCalls`` as ``tolCalls``) or a file cut
at a line's end: what the importers read under the real name must not go in silence. Each case is a
real file of the shared corpora with one key renamed (or cut), as the accounting test's harness
damages it; each used to load with something lost and no problem (issue 31). The renamed record is
reported and kept (an opaque block, an event, or the fields it sits among)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CORPORA
from toolkit.corpus import Corpus, load
from toolkit.record import Opaque

CONTINUE = CORPORA / "continue" / "fabien_8c3cc493-0ef9-462d-94cd-b5e558b00fe4.json"
INSPECT = CORPORA / "trajectories" / "inspect_popularity.eval"
GEMINI_CLI = CORPORA / "gemini" / "geminicli_chat_session_7befeae5.json"
CASSETTE = CORPORA / "gemini" / "pydanticai_cassette_multi_function_calls.yaml"
OPENCODE = CORPORA / "opencode" / "jwp23_v1.0.107"


def _needs(path: Path) -> None:
    if not path.exists():
        pytest.skip("../shared/corpora is absent")


def _rename(holder: dict[str, Any], key: str, new: str) -> None:
    holder[new] = holder.pop(key)


def _reasons(corpus: Corpus) -> list[str]:
    return [p.reason for p in corpus.problems]


def _opaque(corpus: Corpus) -> list[Opaque]:
    return [b for s in corpus.sessions for m in s.messages for b in m.blocks if isinstance(b, Opaque)]


def test_continue_content_under_a_misspelt_key_is_opaque_and_reported(tmp_path: Path) -> None:
    _needs(CONTINUE)
    doc = json.loads(CONTINUE.read_text(encoding="utf-8"))
    index, item = next((i, h) for i, h in enumerate(doc["history"])
                       if h["message"]["role"] == "user" and h["message"]["content"])
    _rename(item["message"], "content", "contnet")
    path = tmp_path / CONTINUE.name
    path.write_text(json.dumps(doc), encoding="utf-8")
    corpus = load(path)
    (block,) = _opaque(corpus)
    assert isinstance(block.raw, dict) and block.raw["contnet"] == item["message"]["contnet"]
    assert [p.line for p in corpus.problems] == [index + 1]
    assert "message without content (keys the wire lacks: contnet)" in _reasons(corpus)[0]


def _eval_copy(path: Path, change: Any) -> None:
    """The inspect log with ``change`` applied to its first sample member by name (sample 10)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(INSPECT) as source, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        first = sorted(m for m in source.namelist() if m.startswith("samples/"))[0]
        for member in source.namelist():
            data = source.read(member)
            if member == first:
                sample = json.loads(data)
                change(sample)
                data = json.dumps(sample).encode()
            out.writestr(member, data)
    path.write_bytes(buffer.getvalue())


def test_inspect_sample_messages_under_a_misspelt_key_are_reported(tmp_path: Path) -> None:
    _needs(INSPECT)
    path = tmp_path / INSPECT.name
    _eval_copy(path, lambda sample: _rename(sample, "messages", "mesasges"))
    corpus = load(path)
    assert [r for r in _reasons(corpus) if "mesasges" in r] == [
        "sample 10 epoch 1: no messages (keys inspect does not write: mesasges); they are kept on the sample's fields"]
    held = [e.raw for s in corpus.sessions for e in s.events if e.type in ("sample_init", "sample_fields")]
    fields = [r.get("sample_fields", r) for r in held if isinstance(r, dict)]
    assert any(isinstance(f, dict) and "mesasges" in f for f in fields)


def test_inspect_message_content_under_a_misspelt_key_is_opaque_and_reported(tmp_path: Path) -> None:
    _needs(INSPECT)
    path = tmp_path / INSPECT.name
    _eval_copy(path, lambda sample: _rename(sample["messages"][0], "content", "contnet"))
    corpus = load(path)
    (block,) = _opaque(corpus)
    assert isinstance(block.raw, dict) and "contnet" in block.raw
    assert any("message without content (keys the wire lacks: contnet)" in r for r in _reasons(corpus))


def _gemini_cli_renamed(tmp_path: Path, record: Callable[[dict[str, Any]], dict[str, Any]], key: str,
                        misspelt: str) -> tuple[dict[str, Any], list[str], Opaque]:
    """The shared Gemini CLI file with ``key`` of the first ``record`` of it renamed ``misspelt``: the
    renamed record, the problems the load reports and the one opaque block it keeps."""
    _needs(GEMINI_CLI)
    doc = json.loads(GEMINI_CLI.read_text(encoding="utf-8"))
    renamed = record(doc)
    _rename(renamed, key, misspelt)
    path = tmp_path / GEMINI_CLI.name
    path.write_text(json.dumps(doc), encoding="utf-8")
    corpus = load(path)
    (block,) = _opaque(corpus)
    return renamed, _reasons(corpus), block


def test_gemini_cli_tool_calls_under_a_misspelt_key_are_opaque_and_reported(tmp_path: Path) -> None:
    record, reasons, block = _gemini_cli_renamed(
        tmp_path, lambda doc: next(m for m in doc["messages"] if m.get("toolCalls")), "toolCalls", "tolCalls")
    assert isinstance(block.raw, dict) and block.raw["tolCalls"] == record["tolCalls"]
    assert any("message without toolCalls (keys the wire lacks: tolCalls)" in r for r in reasons)


def test_cassette_response_under_a_misspelt_key_is_reported(tmp_path: Path) -> None:
    _needs(CASSETTE)
    text = CASSETTE.read_text(encoding="utf-8")
    assert text.count("\n  response:\n") == text.count("\n- request:\n") > 1
    path = tmp_path / CASSETTE.name
    path.write_text(text.replace("\n  response:\n", "\n  repsonse:\n", 1), encoding="utf-8")
    corpus = load(path)
    assert any(r.startswith("interaction 1 has no response (keys a cassette lacks: repsonse)")
               for r in _reasons(corpus)), _reasons(corpus)


def test_cassette_cut_at_a_line_end_is_reported(tmp_path: Path) -> None:
    """Cut where a line ends, the file still ends with a newline and parses: the interaction whose
    response the cut took is the one sign (six messages used to go without a word)."""
    _needs(CASSETTE)
    text = CASSETTE.read_text(encoding="utf-8")
    second = text.index("\n- request:\n", text.index("\n- request:\n") + 1)
    cut = text[:text.index("\n  response:\n", second) + 1]
    path = tmp_path / CASSETTE.name
    path.write_text(cut, encoding="utf-8")
    corpus = load(path)
    assert any(r.startswith("interaction 2 has no response (the file may be cut short)") for r in _reasons(corpus))


def _opencode_copy(tmp_path: Path) -> Path:
    folder = tmp_path / OPENCODE.name
    shutil.copytree(OPENCODE, folder)
    return folder


@pytest.mark.parametrize("kind", ["message", "session"])
def test_opencode_summary_under_a_misspelt_key_is_kept_and_reported(kind: str, tmp_path: Path) -> None:
    _needs(OPENCODE)
    folder = _opencode_copy(tmp_path)
    path = next(p for p in sorted((folder / "storage" / kind).rglob("*.json"))
                if "summary" in json.loads(p.read_text(encoding="utf-8")))
    info = json.loads(path.read_text(encoding="utf-8"))
    _rename(info, "summary", "sumary")
    path.write_text(json.dumps(info), encoding="utf-8")
    corpus = load(folder)
    assert any(r.startswith(f"{kind} without summary (keys OpenCode does not write: sumary)") for r in _reasons(corpus))
    kept = [e for s in corpus.sessions for e in s.events if e.type == f"{kind}.unread"]
    assert [e.raw for e in kept] == [{"sumary": info["sumary"]}]


KIMI = CORPORA / "kimi_cli" / "ihhashi_3951a8af"
ANTHROPIC_CASSETTE = CORPORA / "anthropic" / "pydanticai_cassette_tool_result_images.yaml"


def test_gemini_cli_tool_result_under_a_misspelt_key_is_opaque_and_reported(tmp_path: Path) -> None:
    """A call without ``result`` reads as one that never finished, unless a key beside it is none
    the CLI writes (found by the accounting test's second seed)."""
    call, reasons, block = _gemini_cli_renamed(
        tmp_path, lambda doc: next(c for m in doc["messages"] for c in m.get("toolCalls", ()) if c.get("result")),
        "result", "ersult")
    assert isinstance(block.raw, dict) and block.raw["ersult"] == call["ersult"]
    assert any("toolCall without result (keys the wire lacks: ersult)" in r for r in reasons)


def test_kimi_text_part_under_a_misspelt_key_is_opaque_and_reported(tmp_path: Path) -> None:
    _needs(KIMI)
    folder = tmp_path / KIMI.name
    shutil.copytree(KIMI, folder)
    lines = (folder / "context.jsonl").read_text(encoding="utf-8").splitlines()
    index, record = next((i, r) for i, line in enumerate(lines) if isinstance((r := json.loads(line)).get("content"), list)
                         and any(p.get("type") == "text" for p in r["content"]))
    part = next(p for p in record["content"] if p.get("type") == "text")
    _rename(part, "text", "etxt")
    lines[index] = json.dumps(record)
    (folder / "context.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus = load(folder)
    assert [b.raw for b in _opaque(corpus) if isinstance(b.raw, dict) and "etxt" in b.raw] == [part]
    assert any("part without text (keys the wire lacks: etxt)" in r for r in _reasons(corpus))


def test_a_bare_string_where_a_content_block_was_is_reported(tmp_path: Path) -> None:
    """A tool_result block replaced by a string is read as text, and said: no wire writes a bare
    string in a content list (found by the accounting test's third seed)."""
    _needs(ANTHROPIC_CASSETTE)
    doc = yaml.safe_load(ANTHROPIC_CASSETTE.read_text(encoding="utf-8"))
    for interaction in doc["interactions"]:
        blocks = [m["content"] for m in interaction["request"]["parsed_body"]["messages"]
                  if isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])]
        if blocks:
            at = next(i for i, b in enumerate(blocks[0]) if b.get("type") == "tool_result")
            blocks[0][at] = "just words"
            break
    path = tmp_path / ANTHROPIC_CASSETTE.name
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    corpus = load(path)
    assert any(r.endswith("content block is a bare string, not an object; read as text") for r in _reasons(corpus))


def test_a_field_a_new_release_adds_is_no_damage(tmp_path: Path) -> None:
    """A reply that calls no tool has no ``toolCalls``, a call still running no ``result``, an OpenCode
    info often no ``summary``; a field of a name of its own beside them (what a client's next
    release adds) is neither reported nor kept as a copy of the record: only a near spelling of the
    missing key, or a key that is no name at all, reads as damage."""
    _needs(GEMINI_CLI)
    loads: list[Corpus] = []
    for added in (False, True):
        doc = json.loads(GEMINI_CLI.read_text(encoding="utf-8"))
        for record in doc["messages"]:
            for call in record.get("toolCalls", ()):
                call.pop("result", None)  # calls still running
                if added:
                    call["renderedAt"] = "2026-12-07T00:00:00Z"
            if added:
                record["finishReason"] = "STOP"
        path = tmp_path / f"{added}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        loads.append(load(path))
    plain, newer = loads
    assert not _opaque(newer) and not [r for r in _reasons(newer) if "keys the wire lacks" in r]
    assert [m.blocks for m in newer.sessions[0].messages] == [m.blocks for m in plain.sessions[0].messages]
    _needs(OPENCODE)
    folder = _opencode_copy(tmp_path)
    for info_path in sorted((folder / "storage" / "message").rglob("*.json")):
        info = json.loads(info_path.read_text(encoding="utf-8"))
        info.pop("summary", None)
        info["costBreakdown"] = {"input": 1}
        info_path.write_text(json.dumps(info), encoding="utf-8")
    assert not [r for r in _reasons(load(folder)) if "does not write" in r]


@pytest.mark.parametrize(("name", "key", "damaged"), [
    ("contnet", "content", True), ("tolCalls", "toolCalls", True), ("toolCalls_", "toolCalls", True),
    ("ersult", "result", True), ("sumary", "summary", True), ("1", "toolCalls", True), ("", "summary", True),
    ("null", "result", True), ("finishReason", "toolCalls", False), ("costBreakdown", "summary", False),
    ("renderedAt", "result", False),
])
def test_what_reads_as_a_damaged_key(name: str, key: str, damaged: bool) -> None:
    from toolkit.corpus.formats.wirekit import misnamed

    assert misnamed(name, key) is damaged
