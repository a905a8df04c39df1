"""The record's tree operations and the codec's lossless round trip."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from toolkit import codec
from toolkit.record import (
    NULL_JSON,
    Event,
    Image,
    JsonValue,
    Message,
    Opaque,
    Reasoning,
    RunConfig,
    Session,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    bare_tool_name,
    packed,
    unpacked,
)


def msg(mid: str, parent: str | None, role: str = "user", *blocks: object) -> Message:
    return Message(mid, parent, role, tuple(blocks) or (Text(mid),))  # type: ignore[arg-type]


def test_path_follows_parents_from_the_tip() -> None:
    s = Session("s", "test", (msg("a", None), msg("b", "a", "assistant"), msg("c", "b"), msg("d", "b")),
                tip="c")
    assert [m.id for m in s.path()] == ["a", "b", "c"]
    assert [m.id for m in s.path("d")] == ["a", "b", "d"]
    assert {m.id for m in s.leaves()} == {"c", "d"}
    assert [m.id for m in s.children()["b"]] == ["c", "d"]


def test_path_stops_on_a_cycle_and_on_a_missing_parent() -> None:
    cyclic = Session("s", "test", (msg("a", "b"), msg("b", "a")), tip="a")
    assert [m.id for m in cyclic.path()] == ["b", "a"]
    orphan = Session("s", "test", (msg("x", "missing"),), tip="x")
    assert [m.id for m in orphan.path()] == ["x"]


def test_run_config_in_force_at_a_message() -> None:
    first, second = RunConfig(model="m1"), RunConfig(model="m2", message_id="c")
    s = Session("s", "t", (msg("a", None), msg("b", "a"), msg("c", "b"), msg("d", "c")), tip="d",
                run_configs=(first, second))
    assert s.run_config("b") is first
    assert s.run_config("d") is second
    assert s.run_config() is second


def test_bare_tool_name() -> None:
    assert bare_tool_name("mcp__tracker__close_todo") == "close_todo"
    assert bare_tool_name("mcp__a__b__c") == "b__c"
    assert bare_tool_name("Bash") == "Bash"
    assert bare_tool_name("mcp__") == "mcp__"
    assert bare_tool_name("mcp__server") == "mcp__server"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
images = st.builds(Image, media_type=st.sampled_from(["image/png", "image/jpeg"]),
                   sha256=st.one_of(st.none(), st.text("0123456789abcdef", min_size=64, max_size=64)),
                   size=st.integers(0, 10**6), width=st.none() | st.integers(1, 4000),
                   height=st.none() | st.integers(1, 4000), url=st.none() | st.just("https://x/y.png"))
blocks = st.one_of(
    st.builds(Text, st.text(max_size=30)),
    st.builds(ToolUse, id=st.text(min_size=1, max_size=8), name=st.text(min_size=1, max_size=12),
              input=json_values, raw_input=st.none() | st.text(max_size=10), freeform=st.booleans()),
    st.builds(ToolResult, tool_use_id=st.text(min_size=1, max_size=8), output=st.text(max_size=30),
              is_error=st.booleans(), images=st.lists(images, max_size=2).map(tuple),
              name=st.none() | st.text(max_size=5), detail_json=json_values.map(packed)),
    st.builds(Reasoning, text=st.text(max_size=20), signature=st.none() | st.text(max_size=10),
              provider=st.none() | st.just("anthropic"), model=st.none() | st.just("m"),
              redacted=st.booleans()),
    images,
    st.builds(Opaque, type=st.text(max_size=8), raw=json_values, reason=st.text(max_size=8)),
)


@given(st.lists(blocks, max_size=6), st.booleans())
def test_codec_round_trips_every_block_kind(message_blocks: list[object], with_meta: bool) -> None:
    message = Message(
        "m1", None, "assistant", tuple(message_blocks),  # type: ignore[arg-type]
        time=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC) if with_meta else None,
        model="claude-x" if with_meta else None, usage=Usage(1, 2, 3, None) if with_meta else None,
        source=SourceRef("f.jsonl", 7) if with_meta else None, tags=("meta",) if with_meta else (),
    )
    assert codec.decode_message(codec.encode_message(message)) == message


def test_reprs_name_ids_and_counts_never_contents() -> None:
    """A notebook that shows a session, a message or a corpus prints a line, not megabytes."""
    from toolkit.corpus import Corpus

    big = "x" * 1_000_000
    message = Message("m1", None, "tool", (ToolResult("c1", big),))
    session = Session("s", "demo", (message,), tip="m1", file="f.jsonl")
    corpus = Corpus([session], images={"0" * 64: b"\x89PNG" + b"0" * 1_000_000})
    assert repr(message) == "Message(id='m1', parent_id=None, role='tool', blocks=[tool_result])"
    assert repr(session) == "Session(id='s', format='demo', file='f.jsonl', tip='m1', 1 messages, 0 events)"
    assert repr(corpus) == "Corpus(1 sessions, 0 files, 1 images, 0 problems)"


def test_packed_raw_json_reads_back_as_the_value_it_kept() -> None:
    """``Event.raw`` and ``ToolResult.detail`` are kept as compact JSON text (issue 31's memory) and
    read back as the value, whatever it held: nothing, deep nesting, a lone surrogate, non-ASCII."""
    deep: JsonValue = "leaf"
    for _ in range(600):  # deeper than orjson writes
        deep = [deep]
    values: list[JsonValue] = [None, {"a": [1, 2.5, True, None]}, "\ud800 caf\u00e9", deep]
    for value in values:
        assert Event("meta", "x", raw_json=packed(value)).raw == value
        assert ToolResult("c", "", detail_json=packed(value)).detail == value
    assert packed(None) is NULL_JSON
    big, nan = [10**30, deep], [float("nan"), deep]  # orjson refuses both: the standard library writes them
    assert Event("meta", "x", raw_json=packed(big)).raw == [1e30, deep]
    assert Event("meta", "x", raw_json=packed(nan)).raw == [None, deep]
    assert packed(unpacked(packed(big))) == packed(big)
    assert Event("meta", "x").raw is None
