"""Real inputs parsed, mutated into shapes that are still valid JSON/YAML but not what the format
promises, and written back in the same format: what the importers' fuzz test and the accounting test
both damage files with (a base per real file, reproducible from its seed)."""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, assert_never

import yaml

from tests.conftest import CORPORA, DATA
from tests.helpers import readable_corpora

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
def deep_recursion() -> Iterator[None]:
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


Position = tuple[Any, Any, str | None, int, tuple[Any, ...]]
"""A place in a document: (container, key, key name, depth, the record it is in, as ``record_of``)."""


def positions_in(root: Any) -> list[Position]:
    """Every (container, key, key name, depth, record) below ``root``, iteratively (planted deep
    values are not recursed into)."""
    found: list[Position] = []
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(root, 0, ())]
    while stack:
        node, depth, record = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in pairs:
            # a record is an item of the root, or an item of a list a root object holds (``record_of``)
            mine = (key,) if depth == 0 else (*record, key) if depth == 1 and type(root) is dict and type(node) is list else record
            found.append((node, key, key if isinstance(key, str) else None, depth, mine))
            stack.append((value, depth + 1, mine))
    return found


@dataclass(frozen=True)
class Span:
    """Where one record of a written document lies: its first and last line (1-based), and its index
    in its list plus one (``None`` for a value of a root object), the line the formats that read a
    one-line document give its records."""

    first: int
    last: int
    index: int | None


def record_spans(document: Document) -> dict[tuple[Any, ...], Span] | None:
    """The line span of every record of ``document`` as ``Document.write`` writes it, by the record's
    path (an item of the root: ``(key,)``; an item of a list a root object holds: ``(key, index)``), or
    ``None`` for an inspect zip, whose members have no lines a record could name. JSON Lines: a
    record is its line; JSON: counted from what ``json.dumps`` writes for each record (every item
    of an indented list starts a line; a document on one line is line 1 throughout); YAML: the marks
    of the nodes PyYAML composes from the text."""
    value = document.value
    match document.kind:
        case "eval":
            return None
        case "jsonl":
            return {(i,): Span(i + 1, i + 1, i + 1) for i in range(len(value))}
        case "json":
            return _json_spans(value, document.indent)
        case "yaml":
            return _yaml_spans(_dump_yaml(value))
        case _:
            assert_never(document.kind)


def _json_spans(value: Any, indent: bool) -> dict[tuple[Any, ...], Span]:
    def height(item: Any) -> int:
        return _dump_json(item, True).count("\n") + 1

    spans: dict[tuple[Any, ...], Span] = {}
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    line = 2  # the root's bracket is line 1; each item starts a line, its value as tall as alone
    for key, item in items:
        if not indent:
            spans[(key,)] = Span(1, 1, key + 1 if isinstance(key, int) else None)
            if isinstance(value, dict) and isinstance(item, list):
                spans.update({(key, i): Span(1, 1, i + 1) for i in range(len(item))})
            continue
        tall = height(item)
        spans[(key,)] = Span(line, line + tall - 1, key + 1 if isinstance(key, int) else None)
        if isinstance(value, dict) and isinstance(item, list):
            inner = line + 1
            for i, element in enumerate(item):
                inner_tall = height(element)
                spans[(key, i)] = Span(inner, inner + inner_tall - 1, i + 1)
                inner += inner_tall
        line += tall
    return spans


def _yaml_spans(text: str) -> dict[tuple[Any, ...], Span]:
    def span(start: yaml.Node, end: yaml.Node, index: int | None) -> Span:
        last = end.end_mark.line + (end.end_mark.column > 0)  # a block ends at the next line's start
        return Span(start.start_mark.line + 1, max(start.start_mark.line + 1, last), index)

    try:
        root = yaml.compose(text, Loader=YamlLoader)
    except yaml.YAMLError:  # libyaml's nesting limit, under a planted 1000-deep value
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    spans: dict[tuple[Any, ...], Span] = {}
    if isinstance(root, yaml.SequenceNode):
        spans.update({(i,): span(node, node, i + 1) for i, node in enumerate(root.value)})
    elif isinstance(root, yaml.MappingNode):
        loader = YamlLoader("")
        for key_node, node in root.value:
            key = loader.construct_object(key_node)
            spans[(key,)] = span(key_node, node, None)
            if isinstance(node, yaml.SequenceNode):
                spans.update({(key, i): span(item, item, i + 1) for i, item in enumerate(node.value)})
    return spans


def _pick(rng: random.Random, positions: list[Position]) -> tuple[Any, Any]:
    """Half the time any position; half the time a depth first, then a position at it, so the few
    shallow fields that frame a record are hit as often as the many leaves of its payload."""
    if rng.random() < 0.5:
        container, key, *_ = rng.choice(positions)
        return container, key
    depth = rng.choice(sorted({p[3] for p in positions}))
    container, key, *_ = rng.choice([p for p in positions if p[3] == depth])
    return container, key


def other_type(rng: random.Random, value: Any) -> Any:
    while True:
        planted = rng.choice(ODD_VALUES)()
        if type(planted) is not type(value):
            return planted


def mutate(rng: random.Random, root: Any) -> str:
    """Apply one structural mutation somewhere below ``root`` (a list or dict) and say what it was."""
    positions = positions_in(root)
    if not positions:
        return "nothing to mutate"
    aimed = [p for p in positions if p[2] in DISPATCH_KEYS]
    if aimed and rng.random() < 0.35:
        container, key = _pick(rng, aimed)
        container[key] = other_type(rng, container[key])
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
        container[key] = copy_value(donor[donor_key])
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
        container.insert(key, copy_value(value))
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
    container[key] = other_type(rng, value)
    return f"replace {key!r} with {type(container[key]).__name__}"


def mutated(base: Base, seed: str) -> tuple[list[Document], list[str]]:
    """Deep copies of the base's documents with one to three mutations, and what they were."""
    rng = random.Random(seed)
    documents = [Document(d.name, d.kind, copy_value(d.value), d.indent) for d in base.documents]
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


def copy_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: copy_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_value(v) for v in value]
    return value


BASES = bases()
"""One base per readable real file (the demo corpus and the shared corpora where present)."""
