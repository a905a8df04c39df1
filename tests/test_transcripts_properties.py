"""Properties over generated session trees: a fork shares no ids with its source and equals it
apart from ids; a branch writes no row; after a resume, rewinding to a checkpoint lands on its own
message or the checkpoint is reported dropped; every stored session reads back equal."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.record import (
    Image,
    Message,
    Opaque,
    Reasoning,
    Session,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    packed,
)
from toolkit.transcripts import (
    DEFAULT_MODEL,
    TranscriptStore,
    fork_id,
    is_turn_start,
    path_model,
    token_counter,
)

Op = tuple[str, int]
SHAPES = ("plain", "tool", "two_tools", "image", "reasoning")
NAMES = ("a", "b", "c")

ops_strategy = st.lists(
    st.one_of(
        st.tuples(st.just("turn"), st.integers(0, len(SHAPES) - 1)),
        st.tuples(st.just("branch"), st.integers(0, 10**6)),
        st.tuples(st.just("checkpoint"), st.integers(0, len(NAMES) - 1)),
    ),
    min_size=1, max_size=30,
)


def make_turn(k: int, shape: str) -> list[Message]:
    """Turn ``k`` of the given shape; lengths vary with ``k`` so token budgets cut in many places."""
    prompt = Message(f"u{k}", None, "user", (Text(f"prompt {k} " + "p" * (k * 37 % 300)),))
    answer = Message(f"f{k}", None, "assistant", (Text("answer " + "a" * (k * 53 % 400)),),
                     usage=Usage(k, 1, None, None))
    if shape == "plain":
        return [prompt, answer]
    if shape == "reasoning":
        return [prompt, Message(f"t{k}", None, "assistant", (Reasoning("hmm " * k, signature=f"sig{k}"),
                                                            Text("ok"))), answer]
    if shape == "image":
        picture = Image("image/png", f"{k:064x}", 100, 40 + k, 30)
        return [Message(f"u{k}", None, "user", (Text("look"), picture)), answer]
    calls = [ToolUse(f"c{k}-{i}", "Read", {"i": i, "k": k}) for i in range(1 if shape == "tool" else 2)]
    results = tuple(ToolResult(c.id, "r" * (k * 29 % 500), is_error=i == 1) for i, c in enumerate(calls))
    return [prompt, Message(f"a{k}", None, "assistant", tuple(calls)),
            Message(f"r{k}", None, "user", results), answer]


def build(ops: Sequence[Op]) -> tuple[TranscriptStore, list[str]]:
    """A store holding session ``s`` grown by ``ops``; returns it and every turn's last message id."""
    store = TranscriptStore(":memory:")
    ends: list[str] = []
    for op, value in ops:
        if op == "turn":
            stored = store.append_turn("s", make_turn(len(ends), SHAPES[value]))
            ends.append(stored[-1].id)
        elif op == "branch" and ends:
            store.branch("s", ends[value % len(ends)])
        elif op == "checkpoint" and ends:
            store.checkpoint("s", NAMES[value])
    if not ends:
        stored = store.append_turn("s", make_turn(0, "plain"))
        ends.append(stored[-1].id)
    return store, ends


def without_ids(message: Message) -> Message:
    return dataclasses.replace(message, id="", parent_id="")


@settings(max_examples=60, deadline=None)
@given(ops_strategy, st.integers(0, 10**6))
def test_fork_shares_no_ids_and_equals_its_source(ops: list[Op], pick: int) -> None:
    store, _ = build(ops)
    source = store.session("s")
    at = source.messages[pick % len(source.messages)].id
    marks = {c.name: c.message_id for c in store.checkpoints("s")}
    new = store.fork("s", at)
    fork = store.session(new)
    assert new != "s"
    assert not {m.id for m in fork.messages} & {m.id for m in source.messages}
    assert [without_ids(m) for m in fork.messages] == [without_ids(m) for m in source.path(at)]
    assert fork.path() == list(fork.messages)  # the path and nothing else
    on_path = {m.id for m in source.path(at)}
    assert {c.name: c.message_id for c in store.checkpoints(new)} == {
        name: fork_id(new, target) for name, target in marks.items() if target in on_path}
    assert store.session("s") == source


@settings(max_examples=60, deadline=None)
@given(ops_strategy, st.integers(0, 10**6))
def test_branch_writes_no_row(ops: list[Op], pick: int) -> None:
    store, _ = build(ops)
    before = store.session("s")
    target = before.messages[pick % len(before.messages)].id
    counts, changes = store.counts(), store.connection.total_changes
    store.branch("s", target)
    assert store.counts() == counts
    assert store.connection.total_changes - changes == 1  # the tip column of one sessions row
    after = store.session("s")
    assert after.messages == before.messages and after.tip == target


@settings(max_examples=80, deadline=None)
@given(ops_strategy, st.none() | st.integers(0, 40), st.none() | st.integers(0, 3000))
def test_rewind_after_resume_lands_on_its_own_message_or_is_dropped(
        ops: list[Op], max_messages: int | None, max_tokens: int | None) -> None:
    store, _ = build(ops)
    path = store.path("s")
    assert path_model(path) is None  # the generated turns name no model: the default model counts
    count = token_counter(DEFAULT_MODEL)
    resumed = store.resume("s", max_messages=max_messages, max_tokens=max_tokens)
    kept = list(resumed.messages)
    kept_ids = [m.id for m in kept]
    # the newest messages, whole turns, no result without its call, within the limits
    assert kept == path[len(path) - len(kept):]
    assert resumed.cut == len(path) - len(kept)
    if kept and resumed.cut:
        assert is_turn_start(kept[0])
    calls = {b.id for m in kept for b in m.blocks if isinstance(b, ToolUse)}
    assert all(b.tool_use_id in calls for m in kept for b in m.blocks if isinstance(b, ToolResult))
    assert max_messages is None or len(kept) <= max_messages
    assert max_tokens is None or sum(count(m) for m in kept) <= max_tokens
    # nothing longer would have fitted at a turn start
    longer = [i for i in range(len(path) - len(kept)) if is_turn_start(path[i])]
    if longer:
        start = longer[-1]
        fits = (max_messages is None or len(path) - start <= max_messages) and (
            max_tokens is None or sum(count(m) for m in path[start:]) <= max_tokens)
        assert not fits
    marks = store.checkpoints("s")
    assert {c.name for c in resumed.checkpoints} | {d.name for d in resumed.dropped} == {c.name for c in marks}
    assert not {c.name for c in resumed.checkpoints} & {d.name for d in resumed.dropped}
    for mark in marks:
        if mark.name in {c.name for c in resumed.checkpoints}:
            landed = resumed.rewind(mark.name)
            assert landed[-1].id == mark.message_id
            assert list(landed) == kept[: kept_ids.index(mark.message_id) + 1]
        else:
            assert mark.message_id not in kept_ids
            try:
                resumed.rewind(mark.name)
            except LookupError as exc:
                assert "dropped" in str(exc)
            else:
                raise AssertionError(f"a dropped checkpoint {mark.name!r} was rewound to")
        assert store.rewind("s", mark.name) == mark.message_id == store.tip("s")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
blocks = st.one_of(
    st.builds(Text, st.text()),
    st.builds(ToolUse, st.text(min_size=1), st.text(), json_values, st.none() | st.text(), st.booleans()),
    st.builds(ToolResult, st.text(), st.text(), st.booleans(), st.just(()), st.none() | st.text(), json_values.map(packed)),
    st.builds(Reasoning, st.text(), st.none() | st.text(), st.none() | st.text(), st.none() | st.text(),
              st.booleans()),
    st.builds(Image, st.text(min_size=1), st.none() | st.just("f" * 64), st.integers(0, 10**9),
              st.none() | st.integers(1, 5000), st.none() | st.integers(1, 5000), st.none() | st.text()),
    st.builds(Opaque, st.text(), json_values, st.text()),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["system", "user", "assistant", "tool"]),
                          st.lists(blocks, max_size=4), st.integers(-1, 30)), min_size=1, max_size=12))
def test_any_session_reads_back_equal(spec: list[tuple[str, list[object], int]]) -> None:
    messages = tuple(
        Message(f"m{i}", None if parent < 0 or parent >= i else f"m{parent}", role,  # type: ignore[arg-type]
                tuple(content), tags=("meta",) if i % 3 == 0 else ())  # type: ignore[arg-type]
        for i, (role, content, parent) in enumerate(spec))
    session = Session("g", "generated", messages, tip=messages[-1].id)
    with TranscriptStore(":memory:") as store:
        store.add([session])
        assert store.session("g") == session


@settings(max_examples=15, deadline=None)
@given(ops_strategy, st.integers(0, 10**6))
def test_fork_replays_to_the_same_requests_apart_from_ids(ops: list[Op], pick: int) -> None:
    from toolkit.replay import MODES, WIRES, request
    from toolkit.replay.calls import stem

    store, ends = build(ops)
    source = store.session("s")
    at = ends[pick % len(ends)]
    new = store.fork("s", at)
    fork = store.session(new)
    for wire in WIRES:
        for mode in MODES:
            recorded = request(source, wire=wire, mode=mode, upto=at, model="test-model")
            copied = request(fork, wire=wire, mode=mode, model="test-model")
            text = "\n".join((copied.bytes.decode("utf-8"), *copied.notes))
            for message in source.path(at):
                renamed = fork_id(new, message.id)
                text = text.replace(renamed, message.id).replace(stem(renamed), stem(message.id))
            assert text == "\n".join((recorded.bytes.decode("utf-8"), *recorded.notes)), (wire, mode)
