"""Fingerprints, provider shapes, per-tool diffs, fidelity and the corpus analyses."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit
from tests.conftest import REPO
from tests.helpers import SURFACE_1, SURFACE_2, chat, demo_corpus, schema, surface_session
from toolkit.corpus import Corpus
from toolkit.record import JsonValue, RunConfig, Session, SourceRef
from toolkit.surface import (
    Fidelity,
    SurfaceStore,
    diff,
    drift,
    fidelity,
    fingerprint,
    record_surfaces,
    runs,
    storage,
    summary,
    surfaces,
    tool_specs,
    tools_for_replay,
    tools_of,
)
from toolkit.surface.fingerprint import read_tools

READ: dict[str, JsonValue] = {
    "name": "read",
    "description": "Lire un fichier — vite",
    "input_schema": {"type": "object"},
}
PINNED_BYTES = (
    b'[{"name":"read","description":"Lire un fichier \xe2\x80\x94 vite","input_schema":{"type":"object"}}]'
)
"""The canonical form written out by hand: compact separators, keys in their given order, UTF-8."""
PINNED = "sha256:9dc77b44110b358ebce5dfb011ee1109e5134705e75e0146c0ae4f70d36dfd3d"
"""What those bytes hash to, frozen: stored blobs are named by it, so the form may never drift."""


# --- the exact fingerprint ---------------------------------------------------------------------

def test_canonical_form_is_the_documented_bytes() -> None:
    expected = "sha256:" + hashlib.sha256(PINNED_BYTES).hexdigest()
    assert fingerprint([READ]) == expected
    assert toolkit.fingerprint([READ]) == expected
    assert toolkit.surface.canonical_bytes([READ]) == PINNED_BYTES


def test_frozen_value_never_changes() -> None:
    assert fingerprint([READ]) == PINNED
    assert fingerprint([]) == "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"


def test_a_lone_object_counts_as_a_one_element_list() -> None:
    gemini: dict[str, JsonValue] = {"function_declarations": [{"name": "f", "parameters": {"type": "object"}}]}
    assert fingerprint(gemini) == fingerprint([gemini])


def test_key_order_is_part_of_the_exact_hash_only() -> None:
    swapped: dict[str, JsonValue] = {"input_schema": {"type": "object"}, "description": READ["description"], "name": "read"}
    assert fingerprint([swapped]) != fingerprint([READ])
    assert fingerprint([swapped], semantic=True) == fingerprint([READ], semantic=True)


SUBPROCESS = (
    "import json, sys\n"
    "from toolkit.surface import fingerprint\n"
    "tools = json.loads(sys.stdin.read())\n"
    "print(fingerprint(tools), fingerprint(tools, semantic=True))\n"
)


@pytest.mark.parametrize("seed", ["0", "1", "4242", "random"])
def test_hash_is_stable_across_processes_and_hash_seeds(seed: str) -> None:
    tools: list[JsonValue] = [*SURFACE_2, READ, {"name": "ünïcode", "description": "∑ 😀", "parameters": {"b": 1, "a": [2.5, None]}}]
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run(
        [sys.executable, "-c", SUBPROCESS], input=json.dumps(tools), capture_output=True, text=True,
        env=env, cwd=REPO, check=True,
    ).stdout.split()
    assert out == [fingerprint(tools), fingerprint(tools, semantic=True)]


# --- properties --------------------------------------------------------------------------------

SHAPES: dict[str, Callable[[str, JsonValue], JsonValue]] = {
    "openai_chat": lambda d, p: chat("t", d, p),
    "openai_responses": lambda d, p: {"type": "function", "name": "t", "description": d, "parameters": p},
    "anthropic": lambda d, p: {"name": "t", "description": d, "input_schema": p},
    "gemini": lambda d, p: {"functionDeclarations": [{"name": "t", "description": d, "parameters": p}]},
}


@settings(max_examples=150, deadline=None)
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    text=st.text(min_size=1, max_size=40),
    where=st.sampled_from(["tool", "parameter"]),
    at=st.integers(min_value=0),
    char=st.characters(),
)
def test_any_description_edit_changes_the_exact_hash_only(
    shape: str, text: str, where: str, at: int, char: str
) -> None:
    i = at % len(text)
    if text[i] == char:
        char = chr((ord(char) + 1) % 0xD800)
    edited = text[:i] + char + text[i + 1:]
    make = SHAPES[shape]
    if where == "tool":
        before, after = make(text, schema(path="p")), make(edited, schema(path="p"))
    else:
        before, after = make("d", schema(path=text)), make("d", schema(path=edited))
    assert fingerprint([before]) != fingerprint([after])
    assert fingerprint([before], semantic=True) == fingerprint([after], semantic=True)


@settings(max_examples=60, deadline=None)
@given(st.permutations(range(4)))
def test_reordering_tools_changes_exact_not_semantic(order: list[int]) -> None:
    tools = [chat(f"t{i}", f"tool {i}", schema(x=str(i))) for i in range(4)]
    shuffled = [tools[i] for i in order]
    same = order == sorted(order)
    assert (fingerprint(shuffled) == fingerprint(tools)) is same
    assert fingerprint(shuffled, semantic=True) == fingerprint(tools, semantic=True)


# --- what the semantic hash keeps --------------------------------------------------------------

def test_a_property_named_description_is_schema_not_a_description() -> None:
    with_prop = chat("note", "d", {"type": "object", "properties": {"description": {"type": "string"}}})
    without = chat("note", "d", {"type": "object", "properties": {}})
    assert fingerprint([with_prop], semantic=True) != fingerprint([without], semantic=True)


def test_enum_values_and_defaults_are_data() -> None:
    a = chat("f", "d", {"type": "string", "enum": ["description", "x"]})
    b = chat("f", "d", {"type": "string", "enum": ["x"]})
    assert fingerprint([a], semantic=True) != fingerprint([b], semantic=True)


def test_descriptions_in_nested_schemas_are_ignored() -> None:
    def make(word: str) -> JsonValue:
        return chat("f", "d", {
            "type": "object",
            "properties": {"xs": {"type": "array", "description": word,
                                  "items": {"anyOf": [{"type": "string", "description": word}]}}},
            "$defs": {"T": {"type": "integer", "description": word}},
        })
    assert fingerprint([make("a")], semantic=True) == fingerprint([make("b")], semantic=True)
    assert fingerprint([make("a")]) != fingerprint([make("b")])


def test_a_changed_type_changes_the_semantic_hash() -> None:
    a = chat("f", "d", {"type": "object", "properties": {"n": {"type": "integer"}}})
    b = chat("f", "d", {"type": "object", "properties": {"n": {"type": "number"}}})
    assert fingerprint([a], semantic=True) != fingerprint([b], semantic=True)


def test_one_tool_in_every_provider_shape_means_the_same() -> None:
    params = schema(city="The city.")
    forms = [make("Weather now.", params) for make in SHAPES.values()]
    forms.append({"toolSpec": {"name": "t", "description": "Weather now.", "inputSchema": {"json": params}}})
    forms.append({"name": "t", "description": "Weather now.", "parameters": params})
    assert len({fingerprint([f]) for f in forms}) == len(forms)
    assert len({fingerprint([f], semantic=True) for f in forms}) == 1


def test_tool_specs_reads_every_shape() -> None:
    tools: list[JsonValue] = [
        chat("a", "A", {"type": "object"}),
        {"type": "function", "name": "b", "description": "B", "parameters": {}, "strict": True},
        {"name": "c", "description": "C", "input_schema": {}, "cache_control": {"type": "ephemeral"}},
        {"functionDeclarations": [{"name": "d", "parametersJsonSchema": {}}, {"name": "e"}],
         "googleSearch": {}},
        {"type": "custom", "name": "apply_patch", "description": "P", "format": {"type": "grammar"}},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        {"code_execution": {}},
        "not a spec",
    ]
    specs = tool_specs(tools)
    assert [(s.name, s.kind, s.shape, s.position) for s in specs] == [
        ("a", "function", "openai_chat", 0),
        ("b", "function", "openai_responses", 1),
        ("c", "function", "anthropic", 2),
        ("d", "function", "gemini", 3),
        ("e", "function", "gemini", 4),
        ("googleSearch", "googleSearch", "gemini", 5),
        ("apply_patch", "custom", "openai_responses", 6),
        ("web_search", "web_search_20250305", "other", 7),
        ("code_execution", "code_execution", "gemini", 8),
        (None, "unknown", "other", 9),
    ]
    assert specs[1].extra == {"strict": True}
    assert specs[6].schema == {"type": "grammar"}


def test_cache_control_moving_between_tools_is_not_a_change_of_meaning() -> None:
    a: list[JsonValue] = [{"name": "x", "input_schema": {}, "cache_control": {"type": "ephemeral"}},
                          {"name": "y", "input_schema": {}}]
    b: list[JsonValue] = [{"name": "x", "input_schema": {}},
                          {"name": "y", "input_schema": {}, "cache_control": {"type": "ephemeral"}}]
    assert fingerprint(a) != fingerprint(b)
    assert fingerprint(a, semantic=True) == fingerprint(b, semantic=True)


def test_tools_of_a_request_body_and_bad_documents(tmp_path: Path) -> None:
    assert tools_of({"model": "m", "tools": SURFACE_1}) == SURFACE_1
    assert tools_of({"model": "m", "tools": {"function_declarations": []}}) == [{"function_declarations": []}]
    assert tools_of(READ) == [READ]
    with pytest.raises(ValueError, match="not a list"):
        tools_of({"tools": "x"})
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "tools": [\n  oops\n]}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json:3: not valid JSON"):
        read_tools(bad)


# --- diff --------------------------------------------------------------------------------------

def by_tool(frame: pl.DataFrame) -> dict[str | None, str]:
    return dict(zip(frame["tool"].to_list(), frame["status"].to_list(), strict=True))


def test_diff_names_each_kind_of_change() -> None:
    a: list[JsonValue] = [
        chat("read", "Read a file.", schema(path="Where.")),
        chat("ls", "List.", schema(path="Which.")),
        chat("cat", "Print.", schema(file="Which file.")),
        chat("rm", "Remove.", schema(path="What.")),
        chat("old", "Old tool.", schema(q="Query.")),
    ]
    b: list[JsonValue] = [
        chat("read", "Read a file, fast.", schema(path="Where.")),       # re-described
        chat("ls", "List.", schema(path="Which.", glob="Filter.")),       # schema changed
        chat("show", "Print.", schema(file="Which file.")),               # renamed from cat
        {"type": "function", "function": {"description": "Remove.", "name": "rm",
                                          "parameters": schema(path="What.")}},  # key order only
        chat("grep", "Search.", schema(pattern="Regex.")),                # added; old removed
    ]
    frame = diff(a, b)
    assert by_tool(frame) == {
        "read": "redescribed", "ls": "schema_changed", "show": "renamed", "rm": "reformatted",
        "grep": "added", "old": "removed",
    }
    rows = {r["tool"]: r for r in frame.iter_rows(named=True)}
    assert rows["show"]["name_a"] == "cat" and rows["show"]["detail"] == "renamed from cat to show"
    assert rows["ls"]["detail"] == "parameters added: glob; required ['path'] → ['glob', 'path']"
    assert rows["read"]["detail"] == "descriptions changed: tool"
    assert rows["old"]["position_a"] == 4 and rows["old"]["position_b"] is None


def test_diff_of_a_parameter_description_names_its_path() -> None:
    a = [chat("read", "R.", schema(path="Where."))]
    b = [chat("read", "R.", schema(path="Where on disk."))]
    row = diff(a, b).row(0, named=True)
    assert row["status"] == "redescribed"
    assert row["detail"] == "descriptions changed: schema.properties.path"


def test_diff_marks_the_fewest_moved_tools() -> None:
    tools = [chat(n, n, schema()) for n in "abcd"]
    moved = [tools[0], tools[2], tools[3], tools[1]]  # b moved to the end
    frame = diff(tools, moved)
    assert by_tool(frame) == {"a": "unchanged", "c": "unchanged", "d": "unchanged", "b": "moved"}


def test_diff_by_hash_needs_the_store(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    h1, h2 = store.put(SURFACE_1), store.put(SURFACE_2)
    assert by_tool(diff(h1, h2, store)) == {"read": "redescribed", "ls": "unchanged", "grep": "added"}
    with pytest.raises(ValueError, match="needs the store"):
        diff(h1, h2)


# --- fidelity and replay -----------------------------------------------------------------------

def test_absent_is_never_equal() -> None:
    result = fidelity(None, SURFACE_1)
    assert result.state is Fidelity.UNKNOWN and not result.rebuildable
    names_only = RunConfig(tool_names=("read", "ls"))
    result = fidelity(names_only, SURFACE_1, format="claude_code")
    assert result.state is Fidelity.UNKNOWN
    assert result.reason == "the Claude Code transcript format records tool names only, not the specs sent"
    assert fidelity(names_only, SURFACE_1).reason == "the source recorded tool names only (2), not the specs sent"


def test_differs_needs_no_blob() -> None:
    recorded = fingerprint(SURFACE_1)
    result = fidelity(recorded, fingerprint(SURFACE_2))
    assert result.state is Fidelity.DIFFERS and not result.rebuildable
    assert fidelity(recorded, SURFACE_1).state is Fidelity.MATCHES
    assert fidelity("sha256:../x", SURFACE_1).state is Fidelity.UNKNOWN
    assert fidelity(recorded, None).state is Fidelity.UNKNOWN


def test_differs_says_when_only_words_changed(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    recorded = store.put(SURFACE_1)
    reworded = copy.deepcopy(SURFACE_1)
    reworded[0]["function"]["description"] = "Read one file."  # type: ignore[index, call-overload]
    result = fidelity(recorded, reworded, store)
    assert result.state is Fidelity.DIFFERS and result.rebuildable
    assert result.reason.endswith("descriptions, key order or tool order only; every schema is the same")
    assert fidelity(recorded, SURFACE_2, store).reason.endswith("the callable tools or their schemas changed")


def test_tools_for_replay_rebuilds_the_recorded_specs_never_todays(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    h1 = store.put(SURFACE_1)
    tools, reason = tools_for_replay(RunConfig(surface_hash=h1), store)
    assert tools == SURFACE_1 and reason == f"rebuilt from the stored blob {h1}"
    tools, reason = tools_for_replay(RunConfig(surface_hash=fingerprint(SURFACE_2)), store)
    assert tools is None and "recorded by hash only" in reason
    tools, reason = tools_for_replay(RunConfig(tools=tuple(SURFACE_2)))
    assert tools == SURFACE_2 and "recorded with the run" in reason
    tools, reason = tools_for_replay(RunConfig(tool_names=("Bash",)), store, format="codex")
    assert tools is None
    assert reason == "the Codex rollout format records tool names only, not the specs sent; the tools cannot be rebuilt"
    tools, reason = tools_for_replay(RunConfig(surface_hash=h1, tools=tuple(SURFACE_2)))
    assert tools is None and "not to the recorded surface" in reason


# --- recording and analyses over a corpus ------------------------------------------------------

def test_record_surfaces_fills_the_store_and_the_hashes(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    corpus = demo_corpus()
    recorded = record_surfaces(corpus, store)
    assert corpus.sessions[0].run_configs[0].surface_hash is None  # the given corpus is untouched
    assert [s.run_configs[0].surface_hash for s in recorded.sessions] == [
        fingerprint(SURFACE_1), fingerprint(SURFACE_1), fingerprint(SURFACE_2), None,
    ]
    assert sorted(store) == sorted({fingerprint(SURFACE_1), fingerprint(SURFACE_2)})


def test_a_recorded_hash_that_disagrees_with_its_specs_is_a_problem(tmp_path: Path) -> None:
    wrong = surface_session("w", 1, SURFACE_1)
    config = RunConfig(tools=tuple(SURFACE_1), surface_hash=fingerprint(SURFACE_2), source=SourceRef("w.json", 7))
    bad = Session("w", "openai_chat", wrong.messages, wrong.tip, "w.json", (config,))
    result = record_surfaces(Corpus(sessions=[bad]), SurfaceStore(tmp_path))
    assert result.sessions[0].run_configs[0].surface_hash == fingerprint(SURFACE_2)
    assert [(p.file, p.line) for p in result.problems] == [("w.json", 7)]
    assert "is not the hash of the recorded specs" in result.problems[0].reason


def test_runs_surfaces_storage_and_drift(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    sessions = record_surfaces(demo_corpus(), store).sessions
    frame = runs(sessions, store, current=SURFACE_2)
    assert frame["fidelity"].to_list() == ["differs", "differs", "matches", "unknown"]
    assert frame["recorded"].to_list() == [True, True, True, False]
    size_1, size_2 = len(toolkit.surface.canonical_bytes(SURFACE_1)), len(toolkit.surface.canonical_bytes(SURFACE_2))
    assert frame["spec_bytes"].to_list() == [size_1, size_1, size_2, None]

    table = surfaces(sessions, store)
    assert table["label"].to_list() == ["S1", "S2"]
    assert table["runs"].to_list() == [2, 1]
    assert table["tools"].to_list() == [2, 3]
    assert table["first_seen"].to_list() == [datetime(2026, 3, 1, 12, tzinfo=UTC), datetime(2026, 3, 3, 12, tzinfo=UTC)]
    assert table["last_seen"].to_list()[0] == datetime(2026, 3, 2, 12, tzinfo=UTC)

    assert surfaces(frame).equals(table)
    bytes_table = storage(sessions, store)
    assert storage(frame).equals(bytes_table)
    assert bytes_table["cumulative_inline_bytes"].to_list() == [size_1, 2 * size_1, 2 * size_1 + size_2]
    assert bytes_table["cumulative_store_bytes"].to_list() == [size_1, size_1, size_1 + size_2]
    assert store.stats().bytes == size_1 + size_2

    changes = drift(sessions, store)
    assert changes.select("from_label", "to_label", "tool", "status").rows() == [
        ("S1", "S2", "read", "redescribed"), ("S1", "S2", "grep", "added"),
    ]

    numbers = summary(sessions, store, SURFACE_2)
    assert (numbers.runs, numbers.recorded, numbers.distinct, numbers.distinct_semantic) == (4, 3, 2, 2)
    assert dict(numbers.fidelity) == {"matches": 1, "differs": 2, "unknown": 1}
    assert numbers.inline_bytes_per_session == 2 * size_1 + size_2
    assert numbers.store_bytes == size_1 + size_2


def test_analyses_take_any_iterable_of_sessions(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    corpus = record_surfaces(demo_corpus(), store)
    frame = runs(corpus.sessions, store, current=SURFACE_2)
    assert runs(corpus, store, current=SURFACE_2).equals(frame)  # a corpus is an iterable of its sessions
    assert runs(iter(corpus.sessions), store, current=SURFACE_2).equals(frame)  # read once, even a generator
    assert drift(iter(corpus.sessions), store).equals(drift(corpus.sessions, store))
    assert summary(iter(corpus.sessions), store, SURFACE_2) == summary(corpus.sessions, store, SURFACE_2)


def test_analyses_of_no_sessions_are_empty_frames() -> None:
    empty: list[Session] = []
    assert runs(empty).is_empty() and "surface_hash" in runs(empty).columns
    assert surfaces(empty).columns[:2] == ["label", "surface_hash"]
    assert storage(empty).is_empty()
    assert drift(empty).is_empty()
    assert summary(empty).runs == 0


def test_a_description_dropped_from_a_kept_parameter_is_a_redescription() -> None:
    a = [chat("read", "R.", schema(path="Where."))]
    b = [chat("read", "R.", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})]
    row = diff(a, b).row(0, named=True)
    assert (row["status"], row["detail"]) == ("redescribed", "descriptions changed: schema.properties.path")
