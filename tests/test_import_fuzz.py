"""Structural fuzzing of every importer: real inputs, parsed, mutated into shapes that are still valid
JSON/YAML but not what the format promises, written back in the same format and loaded.

Whatever the mutation, an importer must not fail (which would lose the whole file): the oddity becomes a
problem naming file, line and reason, ``strict=True`` raises ``RecordError`` and nothing else, and the
sessions that come back hold the record's declared types. Every case is reproducible from its base and
seed: ``run_case(base, seed, directory)`` rebuilds the mutated files and returns what failed."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import random
import sys
import types
import typing
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest
import yaml

from tests.conftest import CORPORA, DATA
from tests.helpers import readable_corpora, readable_corpus_files
from toolkit.corpus import load
from toolkit.record import RecordError, Session, ToolUse

try:
    from yaml import CSafeDumper as YamlDumper
    from yaml import CSafeLoader as YamlLoader
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeDumper as YamlDumper  # type: ignore[assignment]
    from yaml import SafeLoader as YamlLoader  # type: ignore[assignment]

CASES_PER_BASE = 60
"""Mutated cases per base input: 1,680 cases over the demo corpus (5 files) and the shared corpora
(23 bases), about 30 s on one core."""

KEEP_RECORDS = 80
"""Long record lists (JSONL lines, a JSON array of records) are cut to their first ``KEEP_RECORDS``,
then each record of a kind the prefix lacks is appended with the record after it (a compaction, a
custom tool call and its output). A prefix keeps parents before children and calls before results,
so the unmutated input stays nearly clean and a strict load meets the mutation's problem."""

DISPATCH_KEYS = frozenset({
    "type", "role", "content", "id",
    # what else the formats dispatch on or join by
    "parts", "message", "messages", "payload", "tool_calls", "function", "functionCall", "functionResponse",
    "name", "arguments", "input", "output", "text", "uuid", "parentUuid", "sessionId", "call_id",
    "tool_call_id", "tool_use_id", "toolUseResult", "action", "observation", "source", "kind", "events",
    "history", "trajectory", "parsed_body", "body", "request", "response", "interactions", "samples",
    "choices", "candidates", "usage", "model", "timestamp", "isSidechain", "subtype", "thoughts", "toolCalls",
})
"""Keys whose values drive dispatch or linking; a third of the mutations aim at them."""


def _deep(kind: Literal["list", "dict"], depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value] if kind == "list" else {"type": value}
    return value


ODD_VALUES: tuple[Callable[[], Any], ...] = (
    dict, lambda: {"type": "text"}, lambda: {"a": {"b": [1, None]}}, list, lambda: [None],
    lambda: [{"type": "text", "text": 1}], lambda: None, lambda: 0, lambda: -1, lambda: 2**63 - 1,
    lambda: 1.5, lambda: "", lambda: "x", lambda: "123", lambda: "ü\u2028😀\x00", lambda: True,
    lambda: False, lambda: "A" * 200_000, lambda: _deep("list", 300), lambda: _deep("dict", 300),
    lambda: _deep("list", 1000),
)
"""Values a mutation plants: wrong types, empties, nulls, numbers as text, a huge string, and nesting
deeper than orjson writes (255) or than Python recursion survives (1000; orjson reads up to 1024)."""

@dataclass
class Document:
    """One input file, parsed: ``json`` (one value), ``jsonl`` (a list of line values), ``yaml`` (one
    value) or ``eval`` (member name → JSON value of an inspect zip)."""

    name: str
    kind: Literal["json", "jsonl", "yaml", "eval"]
    value: Any
    indent: bool = False

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.kind == "json":
            path.write_text(_dump_json(self.value, self.indent), encoding="utf-8")
        elif self.kind == "jsonl":
            path.write_text("".join(_dump_json(v, False) + "\n" for v in self.value), encoding="utf-8")
        elif self.kind == "yaml":
            path.write_text(_dump_yaml(self.value), encoding="utf-8")
        else:
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for member, value in self.value.items():
                    archive.writestr(str(member) or "_", _dump_json(value, False))
            path.write_bytes(buffer.getvalue())


def _dump_json(value: Any, indent: bool) -> str:
    # The standard library, not orjson: it writes the 300-deep values orjson refuses.
    return json.dumps(value, ensure_ascii=False, indent=2 if indent else None)


def _dump_yaml(value: Any) -> str:
    return yaml.dump(value, Dumper=YamlDumper, sort_keys=False, allow_unicode=True)


@contextlib.contextmanager
def _deep_recursion() -> Iterator[None]:
    """Room to copy and write the planted 1000-deep values (PyYAML's representer takes a few frames
    per level). Only the fuzzer's own side runs with it: loading runs at the default limit."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _kind(record: Any) -> str:
    if not isinstance(record, dict):
        return type(record).__name__
    inner = record.get("payload")
    detail = inner.get("type") if isinstance(inner, dict) else record.get("subtype")
    return f"{record.get('type')}/{detail}"


def _shrink(records: list[Any]) -> list[Any]:
    kept = records[:KEEP_RECORDS]
    seen = {_kind(r) for r in kept}
    for index in range(KEEP_RECORDS, len(records)):
        kind = _kind(records[index])
        if kind not in seen:
            seen.add(kind)
            kept.extend(records[index:index + 2])
    return kept


def parse(path: Path, name: str) -> Document:
    """A real file as a document, long record lists cut (see ``KEEP_RECORDS``)."""
    data = path.read_bytes()
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            members = {m: json.loads(archive.read(m)) for m in archive.namelist()}
        return Document(name, "eval", members)
    if path.suffix in (".yaml", ".yml"):
        return Document(name, "yaml", yaml.load(data, Loader=YamlLoader))
    text = data.decode("utf-8")
    if path.suffix == ".jsonl":
        return Document(name, "jsonl", _shrink([json.loads(line) for line in text.splitlines() if line.strip()]))
    value = json.loads(text)
    if isinstance(value, list):
        value = _shrink(value)
    return Document(name, "json", value, indent=text.lstrip()[:1] in "[{" and "\n" in text[:3])


@dataclass
class Base:
    """A file, or a directory of files that load together (a session and its subagents)."""

    name: str
    documents: list[Document]


def bases() -> list[Base]:
    """The demo corpus's files and the shared corpora's of the formats that import today: a
    mutation of a file no importer reads tests nothing but its detection."""
    found: list[Base] = []
    for path in sorted(DATA.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            found.append(Base(f"data/{path.relative_to(DATA)}", [parse(path, path.name)]))
    for entry in sorted(p for folder in readable_corpora() for p in folder.iterdir()):
        if entry.suffix == ".md":
            continue  # Markdown transcripts (Aider, SpecStory) are not JSON documents to mutate
        if entry.is_file():
            found.append(Base(str(entry.relative_to(CORPORA)), [parse(entry, entry.name)]))
        elif entry.is_dir():
            files = sorted(p for p in entry.rglob("*") if p.is_file())
            documents = [parse(p, str(p.relative_to(entry))) for p in files]
            found.append(Base(str(entry.relative_to(CORPORA)), documents))
    return found


def _positions(root: Any) -> list[tuple[Any, Any, str | None, int]]:
    """Every (container, key, key name, depth) below ``root``, iteratively (planted deep values
    are not recursed into)."""
    found: list[tuple[Any, Any, str | None, int]] = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.append((node, key, key if isinstance(key, str) else None, depth))
                stack.append((value, depth + 1))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                found.append((node, index, None, depth))
                stack.append((value, depth + 1))
    return found


def _pick(rng: random.Random, positions: list[tuple[Any, Any, str | None, int]]) -> tuple[Any, Any]:
    """Half the time any position; half the time a depth first, then a position at it, so the few
    shallow fields that frame a record are hit as often as the many leaves of its payload."""
    if rng.random() < 0.5:
        container, key, _, _ = rng.choice(positions)
        return container, key
    depth = rng.choice(sorted({p[3] for p in positions}))
    container, key, _, _ = rng.choice([p for p in positions if p[3] == depth])
    return container, key


def _other_type(rng: random.Random, value: Any) -> Any:
    while True:
        planted = rng.choice(ODD_VALUES)()
        if type(planted) is not type(value):
            return planted


def mutate(rng: random.Random, root: Any) -> str:
    """Apply one structural mutation somewhere below ``root`` (a list or dict) and say what it was."""
    positions = _positions(root)
    if not positions:
        return "nothing to mutate"
    aimed = [p for p in positions if p[2] in DISPATCH_KEYS]
    if aimed and rng.random() < 0.35:
        container, key = _pick(rng, aimed)
        container[key] = _other_type(rng, container[key])
        return f"swap type of {key!r} to {type(container[key]).__name__}"
    container, key = _pick(rng, positions)
    value = container[key]
    if isinstance(value, str) and value[:1] in "[{" and rng.random() < 0.7:
        try:
            inner = json.loads(value)
        except ValueError:
            inner = None
        if isinstance(inner, dict | list):
            what = mutate(rng, inner)
            container[key] = json.dumps(inner, ensure_ascii=False)
            return f"inside the JSON text at {key!r}: {what}"
    action = rng.choice(("replace", "replace", "delete", "duplicate", "truncate", "numbers", "empty",
                         "transplant", "rename"))
    if action == "transplant":
        donor, donor_key = _pick(rng, positions)
        container[key] = _copy(donor[donor_key])
        return f"put the value of {donor_key!r} at {key!r}"
    if action == "rename" and isinstance(container, dict):
        # JSON writes the new key as text ("1", "null", "true"); YAML keeps its type.
        new_key = rng.choice((1, None, True, "", f"{key}_"))
        if new_key not in container:
            container[new_key] = container.pop(key)
            return f"rename key {key!r} to {new_key!r}"
    if action == "delete":
        del container[key]
        return f"delete {key!r}"
    if action == "duplicate" and isinstance(container, list):
        container.insert(key, _copy(value))
        return f"duplicate item {key}"
    if action == "truncate" and isinstance(value, list) and value:
        del value[rng.randrange(len(value)):]
        return f"truncate the list at {key!r}"
    if action == "numbers" and isinstance(value, int | float) and not isinstance(value, bool):
        container[key] = str(value)
        return f"number at {key!r} as text"
    if action == "empty" and isinstance(value, dict | list | str):
        container[key] = type(value)()
        return f"empty {key!r}"
    container[key] = _other_type(rng, value)
    return f"replace {key!r} with {type(container[key]).__name__}"


def mutated(base: Base, seed: str) -> tuple[list[Document], list[str]]:
    """Deep copies of the base's documents with one to three mutations, and what they were."""
    rng = random.Random(seed)
    documents = [Document(d.name, d.kind, _copy(d.value), d.indent) for d in base.documents]
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        document = rng.choice(documents)
        holder: list[Any] = [document.value]
        # The root itself may be replaced only where the file is one value.
        root: Any = holder if document.kind in ("json", "yaml") else document.value
        done.append(f"{document.name}: {mutate(rng, root)}")
        if root is holder:
            document.value = holder[0] if holder else None
    return documents, done


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


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
    else:
        raise AssertionError(f"the checker does not know {hint!r} ({where})")
    return [] if ok else [f"{where}: {type(value).__name__} {_brief(value)} is not {hint.__name__}"]


# ---- one case ---------------------------------------------------------------------------------------


def run_case(base: Base, seed: str, directory: Path) -> tuple[list[str], int]:
    """Write the mutated base under ``directory``, load it plain and strict; what went wrong, and how
    many problems the plain load reported."""
    with _deep_recursion():
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


BASES = bases()


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
