"""The transcript store: lossless round trips, closed turns, branch/fork/checkpoint/rewind,
resume cuts, migrations, the command line, and the shared corpora's real Claude Code forks."""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.conftest import DATA
from toolkit.cli import main
from toolkit.corpus import Corpus, load
from toolkit.corpus.formats import importers
from toolkit.costs.text import count_exact
from toolkit.record import (
    Event,
    Image,
    JsonValue,
    Message,
    Opaque,
    Problem,
    Reasoning,
    RunConfig,
    Session,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    packed,
)
from toolkit.surface import SurfaceMismatch, SurfaceStore
from toolkit.transcripts import (
    DEFAULT_MODEL,
    UNKNOWN_IMAGE_SIZE,
    Checkpoint,
    SchemaError,
    TranscriptStore,
    TurnError,
    estimate_tokens,
    fork_id,
    layout,
    token_counter,
    tree_text,
    trim,
)
from toolkit.transcripts.migrations import APPLICATION_ID, MIGRATIONS

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def user(mid: str, text: str, parent: str | None = None) -> Message:
    return Message(mid, parent, "user", (Text(text),))


def reply(mid: str, text: str, parent: str | None = None) -> Message:
    return Message(mid, parent, "assistant", (Text(text),))


def tool_turn(tag: str, prompt: str = "do it") -> list[Message]:
    """user prompt → assistant call → user result → assistant answer (parents left to the store)."""
    return [
        user(f"{tag}-u", prompt),
        Message(f"{tag}-a", None, "assistant", (Text("calling"), ToolUse(f"{tag}-call", "Read", {"path": tag}))),
        Message(f"{tag}-r", None, "user", (ToolResult(f"{tag}-call", f"contents of {tag}"),)),
        reply(f"{tag}-f", f"done {tag}"),
    ]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TranscriptStore]:
    with TranscriptStore(tmp_path / "t.db") as opened:
        yield opened


def rich_session() -> tuple[Session, dict[str, bytes]]:
    """Every block kind and every optional field, a branch, a repeated id, a foreign parent."""
    png = b"\x89PNG\r\n\x1a\nfake-bytes"
    sha = "a" * 64
    image = Image("image/png", sha, len(png), 3, 2)
    url_image = Image("image/*", None, 0, None, None, url="https://example.org/x.png")
    messages = (
        Message("s", None, "system", (Text("be brief"),), time=T0, source=SourceRef("f.jsonl", 1)),
        Message("u1", "s", "user", (Text("héllo ✓ привіт 你好"), image, url_image), time=T0 + timedelta(seconds=1),
                tags=("meta", "demo")),
        Message("a1", "u1", "assistant", (
            Reasoning("think", signature="sig==", provider="anthropic", model="claude-x"),
            Reasoning("", signature="enc", provider="openai", redacted=True),
            ToolUse("c1", "mcp__fs__read", {"path": "/x", "n": 2**70, "f": 0.1, "neg": -0.0, "list": [1, 1.0, True]}),
            ToolUse("c2", "apply_patch", "*** Begin Patch", freeform=True),
            ToolUse("c3", "Bash", None, raw_input="{not json"),
        ), model="claude-x", provider="anthropic", usage=Usage(10, 5, 100, None),
            time=datetime(2026, 3, 1, 13, 0, tzinfo=timezone(timedelta(hours=2)))),
        Message("r1", "a1", "tool", (
            ToolResult("c1", "ok", images=(image,), name="read", detail_json=packed({"k": [1, 2]})),
            ToolResult("c2", "", is_error=True),
            ToolResult("c3", "bad", is_error=True, detail_json=packed(None)),
        ), usage=Usage()),
        Message("o1", "r1", "assistant", (Opaque("server_tool", {"weird": [None, {}]}, "not understood"),),
                sidechain=True, source=SourceRef("f.jsonl", None)),
        Message("u2", "a1", "user", (Text("other branch"),)),
        Message("u2", "a1", "user", (Text("same id written twice"),)),
        Message("x1", "elsewhere", "user", (Text("parent in another file"),)),
    )
    session = Session(
        id="sess-1", format="claude_code", messages=messages, tip="o1", file="dir/f.jsonl",
        run_configs=(
            RunConfig(model="claude-x", provider="anthropic", system="You are терпеливий.", tool_names=("Read",),
                      surface_hash="sha256:abc", tools=({"name": "Read", "x": 1.5},), time=T0,
                      source=SourceRef("f.jsonl", 3)),
            RunConfig(model="claude-x", message_id="u2", tools=()),
            RunConfig(system="You are терпеливий."),
        ),
        events=(
            Event("compaction", "compact_boundary", T0, "a1", "compacted", packed({"pre": 1000}), SourceRef("f.jsonl", 9),
                  tokens_before=1000, trigger="auto"),
            Event("other", "file-history-snapshot"),
        ),
        parent_session_id="parent", spawn_call_id="toolu_1", title="A title",
    )
    return session, {sha: png}


# -- round trips ------------------------------------------------------------------------------


def test_rich_session_round_trips_equal(store: TranscriptStore) -> None:
    session, images = rich_session()
    assert store.add([session], images=images) == ["sess-1"]
    back = store.session("sess-1")
    assert back == session
    assert back.path()[-1].id == "o1"
    assert store.images("sess-1") == images
    counts = store.counts()
    assert counts["messages"] == 8
    assert counts["blocks"] == 1 + 3 + 5 + 3 + 1 + 1 + 1 + 1
    assert counts["images"] == 1
    assert counts["block_images"] == 2  # the image block and the tool result's image name the same bytes
    assert counts["prompts"] == 1  # the system prompt sent twice is stored once
    assert counts["surfaces"] == 2  # ({Read}) and ()


def test_json_values_survive_exactly(store: TranscriptStore) -> None:
    weird: dict[str, JsonValue] = {"nan": math.nan, "inf": math.inf, "big": -(2**90), "surrogate": "\ud800x", "float": 1e-300}
    session = Session("w", "test", (Message("m", None, "user", (Opaque("x", weird),)),), tip="m")
    store.add([session])
    raw = store.session("w").messages[0].blocks[0]
    assert isinstance(raw, Opaque) and isinstance(raw.raw, dict)
    assert math.isnan(raw.raw["nan"]) and raw.raw["inf"] == math.inf  # type: ignore[arg-type]
    assert raw.raw["big"] == -(2**90) and type(raw.raw["big"]) is int
    assert raw.raw["surrogate"] == "\ud800x" and raw.raw["float"] == 1e-300


def test_corpus_problems_and_images_are_kept(store: TranscriptStore) -> None:
    session, images = rich_session()
    corpus = Corpus(sessions=[session], images=images, problems=[Problem("bad.jsonl", 7, "not JSON")])
    store.add(corpus)
    again = store.corpus()
    assert again.sessions == [session]
    assert again.images == images
    assert again.problems == [Problem("bad.jsonl", 7, "not JSON")]


def test_adding_a_stored_id_needs_replace(store: TranscriptStore) -> None:
    session, _ = rich_session()
    store.add([session])
    with pytest.raises(ValueError, match=r"'sess-1' \(from dir/f.jsonl\) is already in"):
        store.add([session])
    changed = Session("sess-1", "claude_code", (user("only", "one"),), tip="only")
    store.add([changed], replace=True)
    assert store.session("sess-1") == changed
    assert store.counts()["blocks"] == 1
    twice = [Session("new", "x", (), file="a.jsonl"), Session("new", "x", (), file="b.jsonl")]
    with pytest.raises(ValueError, match=r"'new' is given twice \(from a.jsonl and b.jsonl\)"):
        store.add(twice, replace=True)
    assert "new" not in store


# -- appending turns --------------------------------------------------------------------------


def test_append_turn_chains_and_moves_the_tip(store: TranscriptStore) -> None:
    first = store.append_turn("live", tool_turn("t1"))
    assert [m.parent_id for m in first] == [None, "t1-u", "t1-a", "t1-r"]
    second = store.append_turn("live", tool_turn("t2"))
    assert second[0].parent_id == "t1-f"
    assert store.tip("live") == "t2-f"
    assert [m.id for m in store.path("live")] == [m.id for m in (*first, *second)]
    info = store.sessions()[0]
    assert (info.id, info.format, info.messages, info.tip) == ("live", "live", 8, "t2-f")


def test_append_turn_stores_its_run_config(store: TranscriptStore) -> None:
    config = RunConfig(model="m1", tools=({"name": "Read"},), tool_names=("Read",))
    store.append_turn("live", tool_turn("t1"), run_config=config)
    store.append_turn("live", tool_turn("t2"), run_config=RunConfig(model="m2", message_id="t2-a"))
    configs = store.session("live").run_configs
    assert [(c.model, c.message_id) for c in configs] == [("m1", "t1-u"), ("m2", "t2-a")]
    assert configs[0].tools == ({"name": "Read"},)
    assert store.session("live").run_config("t1-f") == configs[0]
    with pytest.raises(TurnError, match="names message 'nowhere'"):
        store.append_turn("live", tool_turn("t3"), run_config=RunConfig(message_id="nowhere"))


TOOLS: tuple[JsonValue, ...] = ({"name": "Read", "description": "Lê um ficheiro", "input_schema": {"type": "object", "properties": {}}},)


def surface_hash(tools: list[object]) -> str:
    """The surface hash by hand: sha256 of the compact UTF-8 JSON of the specs in their order."""
    text = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_append_turn_records_the_surface_hash(store: TranscriptStore) -> None:
    expected = surface_hash(list(TOOLS))
    store.append_turn("live", tool_turn("t1"), run_config=RunConfig(model="m", tools=TOOLS))
    config = store.session("live").run_configs[0]
    assert (config.surface_hash, config.tools) == (expected, TOOLS)
    before = store.counts()
    for wrong, reason in (("sha256:" + "0" * 64, "is not the hash of the recorded specs"),
                          ("sha256:abc", "not well-formed")):
        with pytest.raises(SurfaceMismatch, match=f"session 'live'.*{reason}"):
            store.append_turn("live", tool_turn("t2"), run_config=RunConfig(tools=TOOLS, surface_hash=wrong))
    assert store.counts() == before and store.tip("live") == "t1-f"
    store.append_turn("live", tool_turn("t2"), run_config=RunConfig(tools=TOOLS, surface_hash=expected))
    store.append_turn("live", tool_turn("t3"), run_config=RunConfig(model="names only", tool_names=("Read",)))
    hashes = [c.surface_hash for c in store.session("live").run_configs]
    assert hashes == [expected, expected, None]  # no specs: nothing to hash, unknown stays unknown
    assert store.counts()["surfaces"] == 1


def test_append_turn_puts_the_specs_in_a_surface_store(tmp_path: Path) -> None:
    blobs = tmp_path / "surfaces"
    expected = surface_hash(list(TOOLS))
    with TranscriptStore(tmp_path / "t.db", surfaces=blobs) as store:
        assert store.surfaces is not None and store.surfaces.root == blobs
        store.append_turn("live", tool_turn("t1"), run_config=RunConfig(model="m", tools=TOOLS))
        assert store.session("live").run_configs[0].surface_hash == expected
        blob = blobs / f"sha256-{expected.removeprefix('sha256:')}.json"
        assert json.loads(blob.read_text("utf-8")) == list(TOOLS)
        assert SurfaceStore(blobs).get(expected) == list(TOOLS)
        with pytest.raises(SurfaceMismatch, match="session 'live', run config of message 't2-u'"):
            store.append_turn("live", tool_turn("t2"),
                              run_config=RunConfig(tools=TOOLS, surface_hash="sha256:" + "1" * 64))
        assert len(store.session("live").messages) == 4
    with TranscriptStore(tmp_path / "t.db") as alone:  # the SQLite copy keeps the file self-contained
        assert alone.session("live").run_configs[0].tools == TOOLS


def test_add_records_surfaces_when_given_a_surface_store(tmp_path: Path) -> None:
    session, images = rich_session()
    blobs = SurfaceStore(tmp_path / "surfaces")
    with TranscriptStore(tmp_path / "t.db", surfaces=str(blobs.root)) as store:
        store.add([session], images=images)
        configs = store.session("sess-1").run_configs
        assert configs[0].surface_hash == "sha256:abc"  # kept as recorded, and reported
        assert configs[1].surface_hash == surface_hash([])
        assert configs[2].surface_hash is None
        assert store.problems() == [Problem("f.jsonl", 3, "recorded surface hash 'sha256:abc' is not well-formed")]
    assert sorted(blobs) == sorted({surface_hash([]), surface_hash([{"name": "Read", "x": 1.5}])})


@pytest.mark.parametrize(("turn", "reason"), [
    ([Message("a", None, "assistant", (ToolUse("c", "Bash", {}),))],
     r"not closed: tool call 'c' \(Bash, in message 'a'\) has no result"),
    ([Message("r", None, "user", (ToolResult("ghost", "out"),))],
     r"tool result for call 'ghost', which is neither in this turn nor on the path"),
    ([Message("a", None, "assistant", (ToolUse("c", "Bash", {}),)),
      Message("r", None, "user", (ToolResult("c", "1"), ToolResult("c", "2")))],
     r"call 'c', which already has its result"),
    ([Message("a", None, "assistant", (ToolUse("t0-call", "Read", {}),)),
      Message("r", None, "user", (ToolResult("t0-call", "again"),))],
     r"call id 't0-call' is already used on this path"),
    ([Message("r", None, "user", (ToolResult("t0-call", "late"),))],
     r"call 't0-call', which already has its result"),
    ([user("t0-u", "dup")], r"message id 't0-u' is already in the session"),
    ([user("n1", "a"), user("n1", "b")], r"message id 'n1' appears twice in the turn"),
    ([user("n1", "a", parent="t0-u")], r"parent 't0-u' is not the session's tip \('t0-f'\)"),
    ([user("n1", "a"), reply("n2", "b", parent="t0-f")], r"parent 't0-f' is not the message before it"),
    ([], "at least one message"),
])
def test_append_turn_refuses_open_turns(store: TranscriptStore, turn: list[Message], reason: str) -> None:
    store.append_turn("live", tool_turn("t0"))
    before = store.counts()
    with pytest.raises(TurnError, match=reason):
        store.append_turn("live", turn)
    assert store.counts() == before
    assert store.tip("live") == "t0-f"


def test_a_result_may_close_a_call_an_import_left_open(store: TranscriptStore) -> None:
    killed = Session("imp", "claude_code", (
        user("u", "go"), Message("a", "u", "assistant", (ToolUse("c9", "Grep", {}),)),
    ), tip="a")
    store.add([killed])
    stored = store.append_turn("imp", [Message("r", None, "user", (ToolResult("c9", "found"),)), reply("f", "ok")])
    assert stored[0].parent_id == "a"
    with pytest.raises(TurnError, match="already has its result"):
        store.append_turn("imp", [Message("r2", None, "user", (ToolResult("c9", "twice"),))])


# -- branch, fork, checkpoint, rewind ----------------------------------------------------------


def test_branch_moves_only_the_tip(store: TranscriptStore) -> None:
    store.append_turn("s", tool_turn("t1"))
    store.append_turn("s", tool_turn("t2"))
    before, changes = store.counts(), store.connection.total_changes
    store.branch("s", "t1-f")
    assert store.counts() == before
    assert store.connection.total_changes - changes == 1  # the one sessions row holding the tip
    assert store.tip("s") == "t1-f"
    store.append_turn("s", tool_turn("t3", "another way"))
    tree = store.session("s")
    assert sorted(m.id for m in tree.leaves()) == ["t2-f", "t3-f"]
    assert [m.id for m in tree.path()][-4:] == ["t3-u", "t3-a", "t3-r", "t3-f"]
    with pytest.raises(KeyError, match="no message 'nope'"):
        store.branch("s", "nope")


def test_fork_copies_the_path_with_new_ids(store: TranscriptStore) -> None:
    store.append_turn("s", tool_turn("t1"), run_config=RunConfig(model="m"))
    store.checkpoint("s", "one")
    store.append_turn("s", tool_turn("t2"))
    store.checkpoint("s", "two")
    new = store.fork("s", "t1-f", new_session_id="f")
    fork, source = store.session("f"), store.session("s")
    assert [m.id for m in fork.messages] == [fork_id("f", i) for i in ("t1-u", "t1-a", "t1-r", "t1-f")]
    assert new == "f" and fork.tip == fork_id("f", "t1-f")
    assert not {m.id for m in fork.messages} & {m.id for m in source.messages}
    assert [(m.role, m.blocks) for m in fork.path()] == [(m.role, m.blocks) for m in source.path("t1-f")]
    assert fork.run_configs == (RunConfig(model="m", message_id=fork_id("f", "t1-u")),)
    assert [(c.name, c.message_id) for c in store.checkpoints("f")] == [("one", fork_id("f", "t1-f"))]
    info = {i.id: i for i in store.sessions()}["f"]
    assert (info.forked_from, info.forked_at) == ("s", "t1-f")
    store.append_turn("f", tool_turn("t9"))
    assert len(store.session("s").messages) == 8  # a later message in the fork never shows in the source
    with pytest.raises(ValueError, match="already exists"):
        store.fork("s", new_session_id="f")


def test_checkpoints_survive_reopening_and_rewind_to_their_message(tmp_path: Path) -> None:
    with TranscriptStore(tmp_path / "c.db") as store:
        store.append_turn("s", tool_turn("t1"))
        assert store.checkpoint("s", "mark") == "t1-f"
        store.append_turn("s", tool_turn("t2"))
    with TranscriptStore(tmp_path / "c.db") as store:
        assert [c.name for c in store.checkpoints("s")] == ["mark"]
        assert store.rewind("s", "mark") == "t1-f"
        assert store.tip("s") == "t1-f"
        assert len(store.session("s").messages) == 8
        with pytest.raises(KeyError, match=r"no checkpoint 'other' in session 's' \(known: mark\)"):
            store.rewind("s", "other")


# -- resume -----------------------------------------------------------------------------------


def test_resume_cuts_at_turn_starts_only(store: TranscriptStore) -> None:
    for n in range(5):
        store.append_turn("s", tool_turn(f"t{n}"))
    store.checkpoint("s", "end")
    store.branch("s", "t1-f")
    store.checkpoint("s", "early")
    store.branch("s", "t4-f")
    for limit, kept in [(20, 20), (19, 16), (9, 8), (4, 4), (3, 0)]:
        resumed = store.resume("s", max_messages=limit)
        assert len(resumed.messages) == kept
        assert resumed.cut == 20 - kept
        if kept:
            assert resumed.messages[0].id.endswith("-u")
    resumed = store.resume("s", max_messages=9)
    assert [c.name for c in resumed.checkpoints] == ["end"]
    assert resumed.rewind("end")[-1].id == "t4-f"
    assert [(d.name, d.message_id) for d in resumed.dropped] == [("early", "t1-f")]
    assert "was cut by the resume" in resumed.dropped[0].reason
    with pytest.raises(LookupError, match="'early' was dropped"):
        resumed.rewind("early")


def test_resume_token_budget_with_the_length_estimate(store: TranscriptStore) -> None:
    store.append_turn("s", [user("u1", "x" * 400), reply("a1", "y" * 400)])
    store.append_turn("s", [user("u2", "x" * 40), reply("a2", "y" * 40)])
    assert estimate_tokens(user("e", "x" * 401)) == 101  # ceil(401 / 4)
    count = estimate_tokens
    assert [m.id for m in store.resume("s", max_tokens=220, count=count).messages] == ["u1", "a1", "u2", "a2"]
    assert [m.id for m in store.resume("s", max_tokens=219, count=count).messages] == ["u2", "a2"]
    assert store.resume("s", max_tokens=19, count=count).messages == ()
    assert store.resume("s", max_tokens=20, count=count).tokens == 20
    assert store.resume("s", count=lambda m: 1).counted_by == "a count given by the caller"


def test_resume_counts_with_the_model_of_the_path(store: TranscriptStore) -> None:
    asking, answer = "hello there, " * 50, "fine " * 30
    store.append_turn("s", [user("u1", asking), Message("a1", None, "assistant", (Text(answer),), model="gpt-4o")])
    resumed = store.resume("s")
    assert resumed.tokens == count_exact(asking) + count_exact(answer)  # gpt-4o: o200k_base, exact
    assert resumed.counted_by.startswith("text by tiktoken:o200k_base (gpt-4o)")
    store.append_turn("s", [user("u2", "x" * 401),
                            Message("a2", None, "assistant", (Text("y" * 40),), model="<synthetic>")])
    resumed = store.resume("s")
    # the newest model is not in the registry: every message by its length, 4 characters a token
    assert resumed.tokens == math.ceil(650 / 4) + math.ceil(150 / 4) + math.ceil(401 / 4) + 40 // 4
    assert "'<synthetic>' is not in the model registry" in resumed.counted_by
    assert store.resume("s", max_tokens=math.ceil(401 / 4) + 10).messages[0].id == "u2"


def test_token_counter_uses_the_cost_rules_and_never_raises_on_unknown_models() -> None:
    photo = Message("p", None, "user", (Text("x" * 401), Image("image/png", None, 0, 1000, 1000)))
    unsized = Message("q", None, "user", (ToolResult("c", "", images=(Image("image/png", None, 0, None, None),)),))
    # Claude's standard tier: ceil(1000/28)^2 = 36^2 visual tokens; an image of unknown size counts as
    # 2000x2000, resized to 1092x1092 = 39^2 (the doc's table: 1092x1092 -> 1521)
    assert UNKNOWN_IMAGE_SIZE == (2000, 2000)
    for model in ("<synthetic>", "mimo-v2.5-pro"):
        counter = token_counter(model)
        assert counter(photo) == 101 + 36 * 36
        assert counter(unsized) == 39 * 39
        assert counter.text_model is None and "length estimate" in counter.method
    assert token_counter().model is None and token_counter().text_model == DEFAULT_MODEL
    # gpt-4o: 1000 px shortest side scaled to 768, 2 x 2 tiles of 170 plus 85
    assert token_counter("gpt-4o-2024-08-06")(photo) == count_exact("x" * 401) + 85 + 4 * 170
    # o3-mini has no documented image rule: its images count by the default model's
    assert token_counter("o3-mini")(photo) == count_exact("x" * 401) + 36 * 36
    # a size Claude rejects (over 8000 px a side) counts like an unrecorded one
    huge = Message("h", None, "user", (Image("image/png", None, 0, 9000, 100),))
    assert token_counter()(huge) == 39 * 39


def test_resume_never_orphans_a_result_even_at_a_user_prompt() -> None:
    # A user prompt interjected between a call and its result (a recording quirk): cutting there
    # would orphan the result, so the cut moves further back, never forward into a half turn.
    path = [
        user("u0", "start"), Message("a0", "u0", "assistant", (ToolUse("c0", "Bash", {}),)),
        user("u1", "interjection", "a0"), Message("r0", "u1", "user", (ToolResult("c0", "out"),)),
        reply("f0", "done", "r0"),
    ]
    resumed = trim("s", path, max_messages=3)
    assert resumed.messages == ()
    assert [m.id for m in trim("s", path, max_messages=5).messages] == ["u0", "a0", "u1", "r0", "f0"]


def test_resume_keeps_root_system_messages() -> None:
    path = [Message("sys", None, "system", (Text("rules"),)), user("u1", "a", "sys"), reply("a1", "b", "u1"),
            user("u2", "c", "a1"), reply("a2", "d", "u2")]
    resumed = trim("s", path, [Checkpoint("root", "sys"), Checkpoint("gone", "a1")], max_messages=3)
    assert [m.id for m in resumed.messages] == ["sys", "u2", "a2"]
    assert [c.name for c in resumed.checkpoints] == ["root"] and resumed.dropped[0].name == "gone"
    with pytest.raises(ValueError, match="system message"):
        trim("s", path, max_messages=0)


# -- schema -----------------------------------------------------------------------------------


def test_schema_version_and_identity(tmp_path: Path) -> None:
    with TranscriptStore(tmp_path / "v.db") as store:
        db = store.connection
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 2
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.integrity() == []
    raw = sqlite3.connect(tmp_path / "v.db")
    raw.execute("PRAGMA user_version = 99")
    raw.close()
    with pytest.raises(SchemaError, match="version 99 is newer than this toolkit knows"):
        TranscriptStore(tmp_path / "v.db")


def test_a_version_1_store_gains_the_compaction_columns(tmp_path: Path) -> None:
    event = Event("compaction", "compact_boundary", T0)
    with TranscriptStore(tmp_path / "old.db") as store:
        store.add([Session("s", "hand", (Message("m", None, "user", (Text("hi"),)),), "m", events=(event,))])
    raw = sqlite3.connect(tmp_path / "old.db")
    raw.execute("ALTER TABLE events DROP COLUMN tokens_before")
    raw.execute("ALTER TABLE events DROP COLUMN trigger")
    raw.execute("PRAGMA user_version = 1")
    raw.commit()
    raw.close()
    with TranscriptStore(tmp_path / "old.db") as store:
        assert store.connection.execute("PRAGMA user_version").fetchone()[0] == 2
        assert store.session("s").events == (event,)


def test_other_files_are_refused(tmp_path: Path) -> None:
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE mine (x)")
    other.commit()
    other.close()
    with pytest.raises(SchemaError, match="not a transcript store"):
        TranscriptStore(tmp_path / "other.db")
    (tmp_path / "text.db").write_text("hello, not a database at all" * 100)
    with pytest.raises(SchemaError, match="not a transcript store"):
        TranscriptStore(tmp_path / "text.db")


# -- tree -------------------------------------------------------------------------------------


def test_layout_puts_the_tip_path_on_lane_zero(store: TranscriptStore) -> None:
    store.append_turn("s", [user("u1", "hi"), reply("a1", "hello")])
    store.append_turn("s", [user("u2", "first try"), reply("a2", "one")])
    store.branch("s", "a1")
    store.append_turn("s", [user("u3", "second try"), reply("a3", "two")])
    store.checkpoint("s", "here")
    nodes = {n.message.id: n for n in layout(store.session("s"), store.checkpoints("s"))}
    assert {i: (n.depth, n.lane) for i, n in nodes.items()} == {
        "u1": (0, 0), "a1": (1, 0), "u3": (2, 0), "a3": (3, 0), "u2": (2, 1), "a2": (3, 1)}
    assert nodes["a3"].tip and nodes["a3"].checkpoints == ("here",)
    assert [i for i, n in nodes.items() if n.on_path] == ["u1", "a1", "u3", "a3"]
    text = tree_text(store.session("s"), store.checkpoints("s"))
    assert text.splitlines()[1:] == [
        "  checkpoint 'here' → a3",
        "* user      u1  hi",
        "* assistant a1  hello",
        "├─* user      u3  second try",
        "│ * assistant a3  two  ⚑ here  ◀ tip",
        "└─  user      u2  first try",
        "    assistant a2  one",
    ]


def test_layout_keeps_cycles_and_repeated_ids() -> None:
    session = Session("c", "test", (user("a", "x", "b"), user("b", "y", "a"), user("r", "root"),
                                    user("r", "again")), tip="r")
    nodes = layout(session)
    assert len(nodes) == 4
    assert sorted(n.message.text for n in nodes if n.unreachable) == ["x", "y"]


# -- command line -----------------------------------------------------------------------------


def test_cli_store_and_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session, images = rich_session()
    (tmp_path / "corpus").mkdir()
    db = tmp_path / "s.db"
    with TranscriptStore(db) as store:
        store.add([session], images=images)
        store.checkpoint("sess-1", "mark")
    assert main(["tree", str(db), "--session", "sess"]) == 0
    out = capsys.readouterr().out
    assert "session sess-1 (claude_code) · 8 messages" in out
    assert "⚑ mark  ◀ tip" in out and "[thinking×2 →mcp__fs__read →apply_patch →Bash]" in out
    assert main(["tree", str(db), "--session", "zzz"]) == 2
    assert "no session 'zzz'" in capsys.readouterr().err
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE mine (x)").connection.commit()
    assert main(["tree", str(other)]) == 1
    assert "not a transcript store" in capsys.readouterr().err


def test_cli_store_records_surfaces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blobs = tmp_path / "surfaces"
    assert main(["store", str(DATA), "-o", str(tmp_path / "demo.db"), "--surfaces", str(blobs)]) == 0
    capsys.readouterr()
    with TranscriptStore(tmp_path / "demo.db") as store:
        configs = [c for info in store.sessions() for c in store.session(info.id).run_configs if c.tools is not None]
    assert configs  # the demo corpus records tool specs
    recorded = {c.surface_hash for c in configs}
    assert recorded == {surface_hash(list(c.tools or ())) for c in configs}
    assert set(SurfaceStore(blobs)) == recorded


def test_cli_store_loads_a_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "S", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "hello"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "S",
         "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": "hi"}]}},
    ]
    (corpus_dir / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    db = tmp_path / "out.db"
    assert main(["store", str(corpus_dir), "-o", str(db)]) == 0
    assert "stored 1 sessions (2 messages" in capsys.readouterr().out
    assert main(["store", str(corpus_dir), "-o", str(db)]) == 1
    assert "already in" in capsys.readouterr().err
    assert main(["tree", str(corpus_dir)]) == 0
    from_corpus = capsys.readouterr().out
    assert main(["tree", str(db)]) == 0
    assert capsys.readouterr().out == from_corpus


# -- the shared corpora -----------------------------------------------------------------------

GOLFGOD = "claude_code/golfgod_v2.0.22_compaction_forks_images.chat.json"


def test_the_claude_code_importer_is_registered() -> None:
    assert "claude_code" in {i.name for i in importers()}


def test_real_forks_load_with_branches_and_tips(corpora: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    corpus = load(corpora / GOLFGOD)
    db = tmp_path / "golf.db"
    with TranscriptStore(db) as store:
        store.add(corpus)
        for original in corpus.sessions:
            assert store.session(original.id) == original
        main_session = max(corpus.sessions, key=lambda s: len(s.messages))
        stored = store.session(main_session.id)
        assert stored.tip == main_session.tip
        forks = [(parent, kids) for parent, kids in stored.children().items()
                 if parent is not None and sum(1 for k in kids if k.role == "user") >= 2]
        assert len(forks) >= 2  # SOURCES.md: two real forks (one assistant parent, two user prompts)
        assert store.images(main_session.id) and all(
            store.images()[sha] == corpus.images[sha] for sha in store.images(main_session.id))
    assert main(["tree", str(db), "--session", main_session.id]) == 0
    out = capsys.readouterr().out
    assert out.count("◀ tip") == 1 and "├─" in out and "└─" in out
    assert f"{len(main_session.messages)} messages · {len(main_session.leaves())} leaves" in out


def test_every_shared_corpus_session_round_trips(corpora: Path, tmp_path: Path) -> None:
    corpus = load(corpora)
    assert corpus.sessions
    with TranscriptStore(tmp_path / "all.db") as store:
        store.add(corpus)
        again = store.corpus()
    assert again.sessions == corpus.sessions
    assert again.images == corpus.images
    assert again.problems == corpus.problems
