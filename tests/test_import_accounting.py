"""Every record accounted for, under mutation: real files from the shared corpora are damaged the
ways files get damaged (a byte flipped, invalid UTF-8, a tail cut off, a field retyped, a key
renamed, a key importers read content under misspelt) or edited (a line deleted, duplicated, moved)
and loaded again. What the intact file gave is the measure.

After damage, whatever the load no longer holds (messages, blocks of each kind, events) must be
answered at the damaged record (``Place``): by a new problem naming its file and a line of the
record (for a cut, a line from the last one kept on), or an opaque block or event kept there. How
closely is ``Check``: by line in JSON Lines, indented JSON and YAML; by index (or line 1) in a JSON
document on one line; by zip member in an inspect log; by file only where the format gives the
file's records no line (OpenCode), where the damaged file was no longer recognised at all, or after a
retype to a shape the format writes (``TEXT_OR_PARTS``).

In JSON Lines files, intact and edited, every non-blank line must be named by a message, event or
run configuration (``source.line``), a problem, or the importer's ``ImportContext.account`` (a line
merged into a message, a repeat, a record folded into another). After an edit the file must not be
lost whole.

Seeded and bounded: ``CASES`` cases in all, spread over the bases and ``SEEDS``, each reproducible
with ``run_case(base, seed, directory)``. ``TOOLKIT_MUTATION_CASES`` asks for more (the README's
numbers); ``TOOLKIT_MUTATION_REPORT`` names a file to write the tallies to as JSON."""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.conftest import CORPORA
from tests.mutation import (
    BASES,
    Base,
    Document,
    Span,
    copy_value,
    deep_recursion,
    other_type,
    positions_in,
    record_spans,
)
from toolkit.corpus import Corpus, load
from toolkit.corpus.formats.importer import Accounted, ImportContext, accounting, line_of
from toolkit.record import SourceRef

CASES = int(os.environ.get("TOOLKIT_MUTATION_CASES", "1350"))
"""Cases in one run, spread over ``SEEDS``: 1,350 give each of the 29 bases about 15 cases per seed
and each mutation kind about 150; ``TOOLKIT_MUTATION_CASES=3000`` is the run the findings report."""

SEEDS = ("accounting", "audit", "slip")
"""Fixed seeds, each drawing its own cases from every base: one seed met none of the silent losses
an audit found with others (a renamed ``toolCalls``, a cassette cut at a line's end)."""

DAMAGE = ("flip", "utf8", "cut", "retype", "rename", "misspell")
"""Mutations that damage a record: what they cost must be reported."""
EDITS = ("delete_line", "duplicate_line", "move_line")
"""Mutations a reader cannot tell from a file written so: the file must still be read."""

READ_KEYS = frozenset({
    "content", "messages", "message", "parts", "toolCalls", "tool_calls", "thoughts", "response", "request",
    "summary", "text", "history", "events", "payload", "output", "choices", "candidates", "interactions",
})
"""Keys importers read a record's words, calls or conversation under: ``misspell`` renames one of these
where a document has it, as a slip would (``content`` as ``contnet``), so the rare ones are met every
run instead of once in many (a random key is seldom ``toolCalls`` or a cassette's ``response``)."""


def units(corpus: Corpus) -> Counter[str]:
    """What a load holds, counted: messages, blocks by kind, events."""
    count: Counter[str] = Counter()
    for session in corpus.sessions:
        count["messages"] += len(session.messages)
        count["events"] += len(session.events)
        for message in session.messages:
            for block in message.blocks:
                count[block.kind] += 1
    return count


def _bytes(document: Document, directory: Path) -> bytes:
    path = directory / "intact" / document.name
    document.write(path)
    return path.read_bytes()


def _line_spans(data: bytes) -> list[tuple[int, int]]:
    spans, start = [], 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        if data[start:end].strip():
            spans.append((start, end))
        start = end
    return spans


def damage_bytes(rng: random.Random, data: bytes, kind: str) -> tuple[bytes, str, int]:
    """``data`` with one byte-level mutation of ``kind``, what it was, and the line (1-based, of
    ``data``) it damaged: the flipped or preceding byte's, for a cut the last line it keeps, for an
    edit the line deleted, copied or moved."""
    at = rng.randrange(len(data))
    if kind == "flip":
        bit = 1 << rng.randrange(7)  # ASCII stays ASCII: a flip that makes a byte invalid UTF-8 is "utf8"
        return data[:at] + bytes([data[at] ^ bit]) + data[at + 1:], f"flip bit {bit} of byte {at}", line_of(data, at)
    if kind == "utf8":
        return data[:at] + b"\xff" + data[at:], f"invalid UTF-8 byte at {at}", line_of(data, at)
    if kind == "cut":
        at = max(1, at)
        return data[:at], f"cut after byte {at} of {len(data)}", line_of(data, at - 1)
    lines = _line_spans(data)
    pick = rng.randrange(len(lines))
    start, end = lines[pick]
    line = data[start:end] if data[end - 1:end] == b"\n" else data[start:end] + b"\n"
    number = line_of(data, start)
    if kind == "delete_line":
        return data[:start] + data[end:], f"delete line {number}", number
    if kind == "duplicate_line":
        return data[:end] + line + data[end:], f"duplicate line {number}", number
    rest = data[:start] + data[end:]
    spans = _line_spans(rest) or [(0, 0)]
    to = rng.choice(spans)[0]
    return rest[:to] + line + rest[to:], f"move line {number}", number


def damage_value(rng: random.Random, document: Document, kind: str) -> tuple[str, tuple[Any, ...] | None, bool]:
    """One field of ``document`` retyped, or one key renamed by a letter (``content`` becomes
    ``contnet``; ``misspell``: one of ``READ_KEYS`` where the document has one), in place; what it
    was, the record it is in (``positions_in``), and whether the record is still one its format
    writes (``TEXT_OR_PARTS``)."""
    positions = [p for p in positions_in(document.value) if kind == "retype" or (isinstance(p[2], str) and len(p[2]) > 1)]
    if kind == "misspell":
        positions = [p for p in positions if p[2] in READ_KEYS] or positions
    if not positions:
        return "nothing to mutate", None, False
    container, key, _, _, record = rng.choice(positions)
    if kind == "retype":
        container[key] = other_type(rng, container[key])
        written = key in TEXT_OR_PARTS and isinstance(container[key], str)
        return f"retype {key!r} to {type(container[key]).__name__}", record, written
    at = rng.randrange(len(key) - 1)
    renamed = key[:at] + key[at + 1] + key[at] + key[at + 2:]
    if renamed == key or renamed in container:
        renamed = key + "_"
    container[renamed] = container.pop(key)
    if container is document.value:  # a key of the root names its record, which now goes by the new name
        record = (renamed,)
    return f"rename key {key!r} to {renamed!r}", record, False


TEXT_OR_PARTS = frozenset({"content"})
"""Keys whose value the formats take as text or as a list of parts (Anthropic's and OpenAI's message
``content``, Cline's, Kimi's): retyped to text, the record is one its format writes and is read as
what it now says. What the parts held (a call) is then gone from the file, not misread: what answers
for it is the problem of a record that referred to it (a result left without its call), anywhere in
the file."""


Check = Literal["line", "index", "member", "file"]
"""How closely a damaged record's loss must be answered: by its lines (JSON Lines, an indented JSON
document, YAML), by its index in its list or line 1 (a JSON document on one line, where a record has no
line of its own and formats number records by index + 1), by the zip member it is (an inspect log's
sample, which has no lines), or anywhere in its file (a format that gives the file's records no line,
OpenCode's; a file no importer recognised once damaged, reported as a whole; a retype to a shape the
format writes, ``TEXT_OR_PARTS``)."""


@dataclass(frozen=True)
class Place:
    """Where a damaged record lies in the mutated file: what a problem, an opaque block or an event
    must name to answer for what the damage cost."""

    file: str
    check: Check
    lines: frozenset[int] = frozenset()
    after: int | None = None
    """For a cut: any line from the last one kept (the truncated tail is reported there or later)."""

    def holds(self, file: str, line: int | None) -> bool:
        if not _same_file(file, self.file):
            return False
        if self.check in ("member", "file"):
            return True
        return line is not None and (line in self.lines or (self.after is not None and line >= self.after))


def _same_file(reported: str, name: str) -> bool:
    """Whether a record's file name (relative to the loaded root: a base of one file is loaded as that
    file, so it is named by its last part) names the document ``name``."""
    return reported == name or name.endswith("/" + reported)


def place_of(document: Document, kind: str, record: tuple[Any, ...] | None, line: int, lined: set[str]) -> Place:
    """Where the damage of ``kind`` to ``document`` lies: the record it edited (``record``) or the
    record holding the damaged ``line``; the zip member, or the whole file where the format gives the
    file's records no line (``lined``: the files whose records the intact load gives lines)."""
    spans = record_spans(document)
    if spans is None:
        return Place(document.name if not record else f"{document.name}:{record[0]}", "member")
    if not any(_same_file(f, document.name) for f in lined):
        return Place(document.name, "file")
    if record is None:  # byte damage: the innermost record holding the line
        holding = [(s.last - s.first, key) for key, s in spans.items() if s.first <= line <= s.last]
        record = min(holding, key=lambda h: (h[0], -len(h[1])))[1] if holding else None
    span = spans.get(record) if record is not None else None
    lines = {line} if kind != "retype" and kind != "rename" and kind != "misspell" else set()
    if span is not None:
        lines.update(range(span.first, span.last + 1))
        if span.index is not None and document.kind != "jsonl":
            lines.add(span.index)
    one_line = document.kind == "json" and not document.indent
    return Place(document.name, "index" if one_line else "line", frozenset(lines), line if kind == "cut" else None)


@dataclass
class Outcome:
    """One case: what was done, what the intact and the mutated file gave."""

    base: str
    kind: str
    what: str
    lost: Counter[str]
    kept: float
    """Share of the intact load's units the mutated load still holds."""
    problems: int
    """Problems the intact load did not have (a damage that cuts lines away takes their problems along:
    a count of problems would miss the one it adds)."""
    whole: bool
    """Whether a file that gave messages gave none."""
    failed: list[str] = field(default_factory=list)

    layout: str = ""
    """The mutated document's kind (``jsonl``, ``json``, ``yaml``, ``eval``)."""
    check: Check | None = None
    """How closely a loss after damage was looked for (``None``: no damage, or nothing lost)."""
    located: bool = False
    """Whether a new problem, or an opaque block or event the intact load lacks, names the damaged
    record (``Place``): what accounts for the loss."""
    unexplained: list[str] = field(default_factory=list)
    """Lines of an edited JSON Lines file that nothing of the load names (``unexplained``)."""

    @property
    def silent(self) -> bool:
        return self.kind in DAMAGE and bool(self.lost) and not self.located


@dataclass
class Intact:
    corpus: Corpus
    units: Counter[str]
    lined: set[str]
    """The files whose records the load gives a line."""
    kept: Counter[tuple[str, int | None]]
    """Where the load keeps opaque blocks and events (``kept_at``)."""
    unexplained: dict[str, list[int]]
    """Per JSON Lines document (``unexplained``)."""


def kept_at(corpus: Corpus) -> Counter[tuple[str, int | None]]:
    """The file and line of every opaque block (its message's) and every event: what accounts for a
    record an importer did not understand."""
    count: Counter[tuple[str, int | None]] = Counter()
    for session in corpus.sessions:
        for message in session.messages:
            if message.source is not None:
                count[(message.source.file, message.source.line)] += sum(b.kind == "opaque" for b in message.blocks)
        count.update((e.source.file, e.source.line) for e in session.events if e.source is not None)
    return +count


def sources(corpus: Corpus) -> Iterator[SourceRef]:
    """Where every message, event and run configuration of a load says it came from."""
    for session in corpus.sessions:
        found: list[SourceRef | None] = [m.source for m in session.messages]
        found += [e.source for e in session.events] + [c.source for c in session.run_configs]
        yield from (source for source in found if source is not None)


def _lined(corpus: Corpus) -> set[str]:
    return {source.file for source in sources(corpus) if source.line is not None}


def unexplained(corpus: Corpus, ledger: list[Accounted], name: str, data: bytes) -> list[int]:
    """The non-blank lines of the JSON Lines file ``name`` (its bytes ``data``) that no message,
    event, run configuration, problem or ``ImportContext.account`` names: a line read into nothing."""
    named = {(source.file, source.line) for source in sources(corpus)}
    named.update((p.file, p.line) for p in corpus.problems)
    named.update((a.file, a.line) for a in ledger)
    lines = {line for file, line in named if line is not None and _same_file(file, name)}
    return [number for number, text in enumerate(data.split(b"\n"), 1) if text.strip() and number not in lines]


def _unread(intact: Corpus, mutated: Corpus, name: str) -> bool:
    """Whether a file the intact load read as a format was read as none once damaged (no importer
    recognised it): reported as a whole, with no line."""
    return any(_same_file(f, name) for f in intact.formats) and not any(_same_file(f, name) for f in mutated.formats)


def _load(base: Base, directory: Path) -> tuple[Corpus, list[Accounted]]:
    with accounting() as ledger:
        corpus = load(directory if len(base.documents) > 1 else directory / base.documents[0].name)
    return corpus, ledger


def _intact(base: Base, directory: Path) -> Intact:
    for document in base.documents:
        document.write(directory / document.name)
    corpus, ledger = _load(base, directory)
    lines = {d.name: unexplained(corpus, ledger, d.name, (directory / d.name).read_bytes())
             for d in base.documents if d.kind == "jsonl"}
    return Intact(corpus, units(corpus), _lined(corpus), kept_at(corpus), lines)


def run_case(base: Base, seed: str, directory: Path, intact: Intact | None = None) -> Outcome:
    """Mutate ``base`` once as ``seed`` decides, load it, and compare with the intact load."""
    rng = random.Random(seed)
    before = intact or _intact(base, directory / "intact")
    documents = [Document(d.name, d.kind, copy_value(d.value), d.indent) for d in base.documents]
    target = rng.choice(documents)
    textual = target.kind != "eval"
    kind = rng.choice((*DAMAGE, *EDITS) if textual else ("retype", "rename", "misspell"))
    out = directory / "mutated"
    record: tuple[Any, ...] | None = None
    line, written = 0, False
    with deep_recursion():
        if kind in ("retype", "rename", "misspell"):
            what, record, written = damage_value(rng, target, kind)
            data = None
        else:
            data, what, line = damage_bytes(rng, _bytes(target, directory), kind)
        for document in documents:
            document.write(out / document.name)
    if data is not None:
        (out / target.name).write_bytes(data)
    label = f"{target.name}: {what}"
    base_name = base.name
    try:
        corpus, ledger = _load(base, out)
    except Exception as exc:
        return Outcome(base_name, kind, label, Counter(), 0.0, 0, True, [f"load raised {type(exc).__name__}: {exc}"])
    after = units(corpus)
    lost = before.units - after
    total = sum(before.units.values())
    kept = sum((before.units & after).values()) / total if total else 1.0
    failed = [str(p) for p in corpus.problems if "importer failed" in p.reason]
    whole = before.units["messages"] > 0 and after["messages"] == 0
    fresh = Counter((p.file, p.line, p.reason) for p in corpus.problems)
    fresh.subtract((p.file, p.line, p.reason) for p in before.corpus.problems)
    outcome = Outcome(base_name, kind, label, lost, kept, sum(n for n in fresh.values() if n > 0), whole, failed,
                      target.kind)
    if kind in DAMAGE and lost:
        if record is None and kind in ("retype", "rename", "misspell"):
            return outcome  # nothing to mutate
        with deep_recursion():
            where = place_of(target, kind, record, line, before.lined)
        if where.check != "member" and (written or _unread(before.corpus, corpus, target.name)):
            where = Place(where.file, "file")
        gained = kept_at(corpus) - before.kept
        outcome.check = where.check
        outcome.located = any(where.holds(file, at) for (file, at, _), n in fresh.items() if n > 0) or any(
            where.holds(file, at) for file, at in gained)
    if kind in EDITS and target.kind == "jsonl" and data is not None:
        rows = data.split(b"\n")
        outcome.unexplained = [f"line {n}: {rows[n - 1][:120]!r}"
                               for n in unexplained(corpus, ledger, target.name, data)]
    return outcome


def _chosen() -> list[Base]:
    """The bases of the shared corpora (the demo corpus is the project's own writing)."""
    return [b for b in BASES if not b.name.startswith("data/")]


def run_all(directory: Path, cases: int = CASES, seeds: tuple[str, ...] = SEEDS) -> list[Outcome]:
    """``cases`` cases, spread over the bases and, within each base, over ``seeds`` (the case
    ``n`` of a seed is ``run_case(base, f"{seed}:{base.name}#{n}", ...)``, as with one seed); before
    them, one ``intact`` outcome per JSON Lines document, its lines checked as an edit's are."""
    chosen = _chosen()
    outcomes: list[Outcome] = []
    for index, base in enumerate(chosen):
        share = cases // len(chosen) + (index < cases % len(chosen))
        if not share:
            continue
        here = directory / f"b{index}"
        intact = _intact(base, here / "intact")
        for name, missing in intact.unexplained.items():
            outcomes.append(Outcome(base.name, "intact", name, Counter(), 1.0, 0, False, layout="jsonl",
                                    unexplained=[f"line {n}" for n in missing]))
        for k in range(share):
            seed, n = seeds[k % len(seeds)], k // len(seeds)
            outcomes.append(run_case(base, f"{seed}:{base.name}#{n}", here / str(k), intact))
    return outcomes


def tallies(outcomes: list[Outcome]) -> dict[str, Any]:
    """The numbers a run gives, by mutation kind; ``checked``: the damage cases that lost something,
    by how closely the answer was looked for (``Check``); ``lines``: the lines of JSON Lines loads
    (intact and edited) nothing names."""
    table: dict[str, Any] = {}
    for kind in (*DAMAGE, *EDITS):
        mine = [o for o in outcomes if o.kind == kind]
        if not mine:
            continue
        table[kind] = {"cases": len(mine), "whole_file_lost": sum(o.whole for o in mine),
                       "silent": sum(o.silent for o in mine), "reported": sum(o.problems > 0 for o in mine),
                       "kept": round(sum(o.kept for o in mine) / len(mine), 4)}
    cases = [o for o in outcomes if o.kind != "intact"]
    damaged = [o for o in cases if o.kind in DAMAGE]
    table["all"] = {"cases": len(cases), "whole_file_lost": sum(o.whole for o in cases),
                    "silent": sum(o.silent for o in cases),
                    "kept_after_damage": round(sum(o.kept for o in damaged) / max(1, len(damaged)), 4)}
    table["checked"] = {check: {"cases": sum(o.check == check for o in damaged),
                                "silent": sum(o.check == check and o.silent for o in damaged)}
                        for check in ("line", "index", "member", "file")}
    table["lines"] = {"loads": sum(o.kind == "intact" or (o.kind in EDITS and o.layout == "jsonl") for o in outcomes),
                      "unexplained": sum(len(o.unexplained) for o in outcomes)}
    return table


def test_every_record_is_accounted_for_under_mutation(corpora: Path, tmp_path: Path) -> None:
    started = time.process_time()
    outcomes = run_all(tmp_path)
    spent = time.process_time() - started
    report = os.environ.get("TOOLKIT_MUTATION_REPORT")
    if report:
        Path(report).write_text(json.dumps({"cpu_seconds": round(spent, 1), **tallies(outcomes)}, indent=1),
                                encoding="utf-8")
    failed = [f"{o.base} {o.what}: {f}" for o in outcomes for f in o.failed]
    assert not failed, "\n".join(failed[:20])
    silent = [f"{o.base} {o.what} ({o.check}): lost {dict(o.lost)}" for o in outcomes if o.silent]
    assert not silent, f"{len(silent)} silent losses:\n" + "\n".join(silent[:40])
    unnamed = [f"{o.base} {o.what}: {line}" for o in outcomes for line in o.unexplained]
    assert not unnamed, f"{len(unnamed)} lines read into nothing:\n" + "\n".join(unnamed[:40])
    # in JSON Lines a line is a record: moving or copying one loses nothing of the file around it (in an
    # indented document or YAML a line is part of a structure it may break, which is reported)
    moved = [f"{o.base} {o.what}" for o in outcomes
             if o.kind in ("duplicate_line", "move_line") and o.whole and o.layout == "jsonl"]
    assert not moved, "\n".join(moved)
    assert CASES > 1350 or spent < 70, f"{spent:.0f} s of CPU for {len(outcomes)} cases"


def test_the_harness_sees_a_silent_loss(tmp_path: Path) -> None:
    """The check can fail: a reader that drops a record without a word is caught, and a problem about
    another record, or another file, does not answer for it."""
    intact = Corpus(sessions=[], problems=[])
    outcome = Outcome("x", "retype", "x", Counter({"messages": 1}), 0.5, 1, False)
    assert outcome.silent and not Outcome("x", "delete_line", "x", Counter({"messages": 1}), 0.5, 0, False).silent
    assert units(intact) == Counter()
    document = Document("a.jsonl", "jsonl", [{"n": 1}, {"n": 2}, {"n": 3}])
    where = place_of(document, "retype", (1,), 0, {"a.jsonl"})
    assert where.holds("a.jsonl", 2) and not where.holds("a.jsonl", 3) and not where.holds("a.jsonl", None)
    assert not where.holds("b.jsonl", 2) and not where.holds("dir/a.jsonl", 2)
    assert place_of(document, "retype", (1,), 0, set()).holds("a.jsonl", None)  # no lines in the format


def test_a_record_is_found_at_its_lines() -> None:
    """``record_spans`` gives the lines ``Document.write`` puts a record on."""
    value = {"id": "s", "messages": [{"role": "user", "content": ["a", "b"]}, {"role": "assistant"}], "n": {}}
    indented = record_spans(Document("x.json", "json", value, indent=True))
    assert indented is not None
    text = json.dumps(value, indent=2).split("\n")
    assert text[indented[("messages", 1)].first - 1].strip() == "{"
    assert text[indented[("messages", 1)].first].strip() == '"role": "assistant"'
    assert (indented[("id",)].first, indented[("n",)].last) == (2, len(text) - 1)
    assert indented[("messages", 0)] == Span(4, 10, 1)
    flat = record_spans(Document("x.json", "json", value))
    assert flat is not None and flat[("messages", 1)] == Span(1, 1, 2)
    yaml_spans = record_spans(Document("x.yaml", "yaml", value))
    assert yaml_spans is not None and yaml_spans[("messages", 1)].first == yaml_spans[("messages", 0)].last + 1


def test_a_renamed_key_of_the_root_is_found_by_its_new_name() -> None:
    """A rename moves a root object's key, and with it the record it names: the damage is looked for
    at the lines of the new name (the old one is no longer in the file, so no answer could be found)."""
    document = Document("t.json", "json", {"info": {}, "history": [{"role": "user"}]}, indent=True)
    _, record, _ = damage_value(random.Random(0), document, "misspell")
    assert record is not None and record[0] in document.value and "history" not in document.value
    lines = json.dumps(document.value, indent=2).split("\n")
    at = next(n for n, text in enumerate(lines, 1) if f'"{record[0]}"' in text)
    assert place_of(document, "misspell", record, 0, {"t.json"}).holds("t.json", at)


def test_the_accounting_hook_does_nothing_unless_on() -> None:
    """``ImportContext.account`` keeps nothing in a normal load; inside ``accounting`` it says which
    line became part of which record."""
    ctx = ImportContext()
    ctx.account("a.jsonl", 2, "merged", "message x")
    with accounting() as ledger:
        ctx.account("a.jsonl", 3, "repeat", "record u")
    ctx.account("a.jsonl", 4, "folded", "message y")
    assert ledger == [Accounted("a.jsonl", 3, "repeat", "record u")]


def test_every_base_is_a_shared_corpus_file() -> None:
    if not CORPORA.is_dir():
        pytest.skip("../shared/corpora is absent")
    assert _chosen(), "no base to mutate"
