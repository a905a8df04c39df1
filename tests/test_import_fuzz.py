"""Structural fuzzing of every importer: real inputs, parsed, mutated into shapes that are still valid
JSON/YAML but not what the format promises, written back in the same format and loaded.

Whatever the mutation, an importer must not fail (which would lose the whole file): the oddity becomes a
problem naming file, line and reason, ``strict=True`` raises ``RecordError`` and nothing else, and the
sessions that come back hold the record's declared types. Every case is reproducible from its base and
seed: ``run_case(base, seed, directory)`` rebuilds the mutated files and returns what failed."""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest

from tests.conftest import CORPORA, DATA
from tests.helpers import readable_corpus_files
from tests.mutation import (
    BASES,
    CASES_PER_BASE,
    Base,
    _deep,
    deep_recursion,
    mutated,
)
from toolkit.corpus import load
from toolkit.record import RecordError, Session, ToolUse, unpacked

# ---- the record's declared types -------------------------------------------------------------------

JSON_HINT = typing.get_type_hints(ToolUse)["input"]


def _json_ok(value: object) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if not all(isinstance(k, str) for k in node):
                return False
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif not (node is None or isinstance(node, bool | int | float | str)):
            return False
    return True


def _brief(value: object) -> str:
    """A value in a failure message: scalars shown, containers only named (a planted value can be
    too deep for ``repr``)."""
    if isinstance(value, dict | list | tuple):
        return f"a {type(value).__name__} of {len(value)}"
    return repr(value)[:80]


@functools.cache
def _fields(cls: type) -> tuple[tuple[str, Any], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def type_errors(value: object, hint: Any, where: str) -> list[str]:
    """Where ``value`` does not hold the type its dataclass field declares."""
    if hint == JSON_HINT:
        return [] if _json_ok(value) else [f"{where}: not a JSON value: {_brief(value)}"]
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [type_errors(value, option, where) for option in get_args(hint)]
        return [] if any(not o for o in options) else [f"{where}: {_brief(value)} is none of {hint}"]
    if origin is Literal:
        return [] if value in get_args(hint) else [f"{where}: {_brief(value)} not in {get_args(hint)}"]
    if origin is tuple:
        if not isinstance(value, tuple):
            return [f"{where}: {type(value).__name__} is not a tuple"]
        inner = get_args(hint)[0]
        return [e for i, item in enumerate(value) for e in type_errors(item, inner, f"{where}[{i}]")]
    if origin is dict:
        return [] if isinstance(value, dict) else [f"{where}: {type(value).__name__} is not a dict"]
    if hint is type(None):
        return [] if value is None else [f"{where}: {_brief(value)} is not None"]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):  # a dataclass, not an instance
        if type(value) is not hint:
            return [f"{where}: {type(value).__name__} is not a {hint.__name__}"]
        return [e for name, field_hint in _fields(hint)
                for e in type_errors(getattr(value, name), field_hint, f"{where}.{name}")]
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint in (str, bool, datetime):
        ok = isinstance(value, hint)
    elif hint is bytes:  # the record's only bytes are packed JSON (``toolkit.record.packed``)
        ok = _packed_ok(value)
    else:
        raise AssertionError(f"the checker does not know {hint!r} ({where})")
    return [] if ok else [f"{where}: {type(value).__name__} {_brief(value)} is not {hint.__name__}"]


@functools.cache
def _valid(hint: Any) -> Callable[[object], bool]:
    """``type_errors(value, hint, ...) == []`` as a function built once per hint: the check runs over
    every value of every load, and ``type_errors`` (which words the failure) only where this fails."""
    if hint == JSON_HINT:
        return _json_ok
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = get_args(hint)
        return lambda value: any(_valid(option)(value) for option in options)
    if origin is Literal:
        allowed = get_args(hint)
        return lambda value: value in allowed
    if origin is tuple:
        inner = get_args(hint)[0]
        return lambda value: isinstance(value, tuple) and all(_valid(inner)(item) for item in value)
    if origin is dict:
        return lambda value: isinstance(value, dict)
    if hint is type(None):
        return lambda value: value is None
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        def fields_valid(value: object) -> bool:
            return type(value) is hint and all(_valid(h)(getattr(value, name)) for name, h in _fields(hint))
        return fields_valid
    if hint in (float, int):
        kinds = (int, float) if hint is float else (int,)
        return lambda value: isinstance(value, kinds) and not isinstance(value, bool)
    if hint in (str, bool, datetime):
        return lambda value: isinstance(value, hint)
    if hint is bytes:
        return _packed_ok
    raise AssertionError(f"the checker does not know {hint!r}")


def _packed_ok(value: object) -> bool:
    """Packed JSON that parses back to a JSON value."""
    return isinstance(value, bytes) and _json_ok(unpacked(value))


# ---- one case ---------------------------------------------------------------------------------------


def run_case(base: Base, seed: str, directory: Path) -> tuple[list[str], int]:
    """Write the mutated base under ``directory``, load it plain and strict; what went wrong, and how
    many problems the plain load reported."""
    with deep_recursion():
        documents, done = mutated(base, seed)
        for document in documents:
            document.write(directory / document.name)
    target = directory if len(documents) > 1 else directory / documents[0].name
    label = f"{base.name} seed={seed!r} mutations={done}"
    failures: list[str] = []
    try:
        corpus = load(target)
    except Exception as exc:
        return [f"{label}: load raised {type(exc).__name__}: {exc}"[:2000]], 0
    failures += [f"{label}: {p}"[:2000] for p in corpus.problems if "importer failed" in p.reason]
    for session in corpus.sessions:
        if not _valid(Session)(session):
            failures += [f"{label}: {e}" for e in type_errors(session, Session, f"session {session.id!r:.40}")][:5]
    try:
        load(target, strict=True)
    except RecordError as exc:
        if not corpus.problems:
            failures.append(f"{label}: strict raised {exc} but the plain load found no problem")
        elif exc.problem != corpus.problems[0]:
            failures.append(f"{label}: strict raised {exc.problem}, the plain load's first was {corpus.problems[0]}")
    except Exception as exc:
        failures.append(f"{label}: strict raised {type(exc).__name__}: {exc}"[:2000])
    else:
        if corpus.problems:
            failures.append(f"{label}: strict loaded although the plain load found {corpus.problems[0]}")
    return failures, len(corpus.problems)




def test_demo_corpus_is_fuzzed() -> None:
    """The demo corpus alone gives bases, so the fuzzer never runs on nothing."""
    demo = sorted(p.name for p in DATA.rglob("*") if p.suffix in (".json", ".jsonl"))
    assert demo
    assert sorted(d.name for b in BASES if b.name.startswith("data/") for d in b.documents) == demo


def test_every_shared_corpus_file_is_fuzzed(corpora: Path) -> None:
    fuzzed = sorted(b.name if (CORPORA / b.name).is_file() else f"{b.name}/{d.name}"
                    for b in BASES if not b.name.startswith("data/") for d in b.documents)
    assert fuzzed == sorted(str(p.relative_to(corpora)) for p in readable_corpus_files() if p.suffix != ".md")


@pytest.mark.parametrize("base", BASES, ids=[b.name for b in BASES])
def test_mutations_never_fail_an_importer(base: Base, tmp_path: Path) -> None:
    """Reproduce a failure with ``run_case(base, seed, directory)`` and the seed in its message."""
    failures: list[str] = []
    reported = 0
    for i in range(CASES_PER_BASE):
        found, problems = run_case(base, f"{base.name}#{i}", tmp_path / str(i))
        failures += found
        reported += problems > 0
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:30])
    # The mutations reach the importers: a fuzzer whose cases all loaded clean would prove nothing.
    assert reported >= CASES_PER_BASE // 10


# ---- crashes the fuzzer found, each kept as a fixed case ---------------------------------------------

T = "2025-01-01T00:00:00Z"
USER = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": T,
        "message": {"role": "user", "content": "hi"}}
CODEX_META = {"timestamp": T, "type": "session_meta", "payload": {"id": "s1", "timestamp": T, "cwd": "/"}}
GEMINI_INIT = {"type": "init", "timestamp": T, "session_id": "g1", "model": "gemini-2.5-pro"}
YAML_CASSETTE = """interactions:
- request:
    method: POST
    uri: https://api.openai.com/v1/chat/completions
    parsed_body:
      model: gpt-4o
      messages:
      - role: user
        content: hi
      1: a key YAML reads as a number
  response:
    status:
      code: 200
    parsed_body:
      choices:
      - message:
          role: assistant
          content: hello
"""


def _lines(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


FIXED = [
    ("claude_code", "t.jsonl", _lines(USER, {"type": {"x": 1}, "uuid": "u2", "parentUuid": "u1", "sessionId": "s"}),
     2, "unknown record type a JSON object"),
    ("claude_code", "t.jsonl", _lines(USER, {
        "type": "assistant", "uuid": "a1", "parentUuid": ["u1"], "sessionId": "s",
        "message": {"role": "assistant", "content": [{"type": ["text"], "text": "x"}]}}),
     2, "parentUuid of a1 is a JSON array"),
    ("codex", "r.jsonl", _lines(CODEX_META, {"timestamp": T, "type": "response_item", "payload": {"type": {"a": 1}}}),
     2, "response item type is a JSON object"),
    ("codex", "r.jsonl", _lines(CODEX_META, {"timestamp": T, "type": "response_item",
                                             "payload": {"type": "reasoning", "summary": 5}}),
     2, "reasoning summary is 5, not a list"),
    ("gemini_cli", "g.jsonl", _lines(GEMINI_INIT, {"type": ["message"], "timestamp": T, "role": "user",
                                                   "content": "hi"},
                                     {"type": "message", "timestamp": T, "role": "user", "content": "hello"}),
     2, "event type is a JSON array"),
    ("openai_chat", "o.json", json.dumps({"model": "gpt-4o", "messages": [
        {"role": "user", "content": "hi"}, {"role": {"r": 1}, "content": "x"}, {"role": "assistant", "content": "ok"}]}),
     2, "unknown role a JSON object"),
    ("anthropic", "a.json", json.dumps({"model": "claude-sonnet-4", "max_tokens": 10, "system": "s", "messages": [
        {"role": "user", "content": [{"type": ["text"], "text": "x"}]}]}),
     1, "unknown content block type a JSON array"),
    ("gemini", "c.json", json.dumps({"contents": [
        {"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"functionCall": "lookup"}]}]}),
     2, "part's functionCall is 'lookup', not an object"),
    ("recording", "cassette.yaml", YAML_CASSETTE, None, "1 YAML keys or binary values have no JSON type"),
]


@pytest.mark.parametrize(("fmt", "name", "content", "line", "reason"), FIXED,
                         ids=[f"{f[0]}-{f[4][:30]}" for f in FIXED])
def test_a_fixed_crash_is_a_problem_and_the_rest_loads(
    tmp_path: Path, fmt: str, name: str, content: str, line: int | None, reason: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    corpus = load(path)
    assert corpus.formats == {name: fmt}
    assert [(p.line, p.reason) for p in corpus.problems if reason in p.reason] == [
        (line, next(p.reason for p in corpus.problems if reason in p.reason))]
    assert not [p for p in corpus.problems if "importer failed" in p.reason]
    assert len(corpus.sessions) == 1 and corpus.sessions[0].messages
    with pytest.raises(RecordError):
        load(path, strict=True)


def test_a_tool_input_deeper_than_orjson_writes_is_kept_as_text(tmp_path: Path) -> None:
    """A 300-deep array as a call's input: orjson refuses to write it back (its limit is 255), which
    used to fail the importer; now the input is reported and kept as its JSON text."""
    deep = _deep("list", 300)
    call = {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "timestamp": T,
            "message": {"role": "assistant", "model": "claude-sonnet-4", "id": "m1",
                        "content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": deep}]}}
    path = tmp_path / "deep.jsonl"
    path.write_text(_lines(USER, call), encoding="utf-8")
    corpus = load(path)
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (2, "tool_use t1 (Write) input is not a JSON object; the raw input is kept")]
    (use,) = [b for m in corpus.sessions[0].messages for b in m.blocks if isinstance(b, ToolUse)]
    assert use.input is None
    assert use.raw_input == "[" * 300 + '"bottom"' + "]" * 300
