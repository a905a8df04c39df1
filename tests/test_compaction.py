"""The compaction rungs, the ladder and policies: markers, pairs kept whole on every wire, the
reactive path without a summary, the first rung that fits."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import IMAGES, PICTURE, PNG, PNG_SHA, Counting, chain, session
from toolkit.compaction.ladder import compact
from toolkit.compaction.markers import SUMMARY_TAG
from toolkit.compaction.policy import POLICIES, Policy, load
from toolkit.compaction.rungs import History, drop_images, elide, snapshot, summarize, unpaired
from toolkit.costs.calibration import ContextCounter
from toolkit.record import Block, Image, Message, Role, Text, ToolResult, ToolUse
from toolkit.replay import WIRES, request, validate
from toolkit.snapshot.compact import SNAPSHOT_TAG
from toolkit.snapshot.geometry import Geometry

MODEL = "claude-sonnet-4-5"
PAGE = Geometry("5x8", 400, 300)


def work(turns: int, output: str = "line of build output\n" * 40, error_at: int | None = None) -> list[Message]:
    """A task, then ``turns`` rounds of one Bash call and its long result."""
    parts: list[tuple[str, Role, tuple[Block, ...]]] = [("u0", "user", (Text("Fix the failing test in src/app.py"),))]
    for i in range(turns):
        parts.append((f"a{i}", "assistant", (Text(f"Step {i}."), ToolUse(f"c{i}", "Bash", {"command": f"make {i}"}))))
        parts.append((f"t{i}", "user", (ToolResult(f"c{i}", f"run {i}\n{output}", is_error=i == error_at),)))
    parts.append(("end", "assistant", (Text("Done."),)))
    return chain(*parts, model=MODEL)


def test_elide_keeps_recent_and_errors_and_leaves_a_marker() -> None:
    step = elide(History(tuple(work(6, error_at=1))), keep=2)
    results = [b for m in step.history.messages for b in m.blocks if isinstance(b, ToolResult)]
    assert [r.output.startswith("[elided by compaction") for r in results] == [True, False, True, True, False, False]
    size = len("run 0\n" + "line of build output\n" * 40)
    assert "Bash call" in results[0].output and f"{size:,} characters in 42 lines" in results[0].output
    assert step.removal is not None and step.removal.blocks == 3 and step.removal.first_changed == 2
    assert step.removal.chars == 3 * size


def test_elide_again_removes_nothing() -> None:
    once = elide(History(tuple(work(4))), keep=1)
    assert elide(once.history, keep=1).removal is None


def test_drop_images_names_what_it_dropped() -> None:
    shot = Image("image/png", PNG_SHA, len(PNG), 640, 400)
    messages = chain(
        ("u0", "user", (Text("Look:"), shot)),
        ("a0", "assistant", (ToolUse("c0", "screenshot", {}),)),
        ("t0", "user", (ToolResult("c0", "", images=(shot, shot)),)),
        ("a1", "assistant", (Text("Seen."),)),
    )
    step = drop_images(History(tuple(messages)), keep=1)
    assert step.removal is not None and step.removal.images == 2 and step.removal.image_bytes == 2 * len(PNG)
    first, result = step.history.messages[0], step.history.messages[2].blocks[0]
    assert isinstance(first.blocks[1], Text) and "640x400 image/png" in first.blocks[1].text
    assert isinstance(result, ToolResult) and len(result.images) == 1 and "image dropped" in result.output


def test_snapshot_renders_the_middle_and_summary_replaces_it() -> None:
    history = History(tuple(work(5)))
    step = snapshot(history, geometry=PAGE, head=1, tail=2)
    assert step.removal is not None and step.removal.pages >= 1 and step.removal.first_changed == 1
    pages = [m for m in step.history.messages if SNAPSHOT_TAG in m.tags]
    assert len(pages) == 1 and all(b.sha256 in step.history.images for b in pages[0].blocks if isinstance(b, Image))
    again = snapshot(step.history, geometry=PAGE, head=1, tail=2)
    assert again.removal is not None and again.history.images == step.history.images
    writer = Counting()
    summed = summarize(step.history, writer, head=1, tail=2)
    note = [m for m in summed.history.messages if SUMMARY_TAG in m.tags]
    assert writer.calls == 1 and len(note) == 1 and "counting test summariser" in note[0].text
    assert not any(SNAPSHOT_TAG in m.tags for m in summed.history.messages)


def _paired_sessions() -> st.SearchStrategy[list[Message]]:
    @st.composite
    def build(draw: st.DrawFn) -> list[Message]:
        parts: list[tuple[str, Role, tuple[Block, ...]]] = [("u0", "user", (Text("task"),))]
        for i in range(draw(st.integers(1, 8))):
            calls = draw(st.integers(0, 3))
            blocks: list[Block] = [Text(f"thinking about {i}")]
            blocks += [ToolUse(f"c{i}_{k}", draw(st.sampled_from(["Bash", "Read", "mcp__x__y"])), {"k": k})
                       for k in range(calls)]
            parts.append((f"a{i}", "assistant", tuple(blocks)))
            if calls:
                parts.append((f"t{i}", "user", tuple(
                    ToolResult(f"c{i}_{k}", "out " * draw(st.integers(0, 200)), is_error=draw(st.booleans()),
                               images=(PICTURE,) if draw(st.booleans()) else ())
                    for k in range(calls))))
            elif draw(st.booleans()):
                parts.append((f"u{i + 1}", "user", (Text("more"), PICTURE) if draw(st.booleans()) else (PICTURE,)))
        return chain(*parts, model=MODEL)
    return build()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_paired_sessions(), st.integers(0, 3), st.integers(0, 3), st.integers(0, 4))
def test_no_rung_parts_a_call_from_its_result(messages: list[Message], keep: int, head: int, tail: int) -> None:
    history = History(tuple(messages))
    for step in (elide(history, keep=keep), drop_images(history, keep=keep),
                 snapshot(history, geometry=PAGE, head=head, tail=tail),
                 summarize(history, Counting(), head=head, tail=tail)):
        out = step.history.messages
        assert unpaired(out) == []
        store = {**IMAGES, **step.history.images}
        for wire in WIRES:
            req = request(session(list(out)), wire=wire, mode="native", images=store)
            assert validate(req.body, wire) == [], wire
            assert not any("never landed" in n or "without a call" in n for n in req.notes), (wire, req.notes)


def test_ladder_stops_at_the_first_rung_that_fits() -> None:
    messages = work(30)
    counter = ContextCounter(MODEL)
    size = counter.request(messages)
    budget = int(size / 0.85)
    done = compact(messages, MODEL, budget, POLICIES["ladder"], writer=Counting())
    assert done.trigger == "proactive" and [s.rung for s in done.steps] == ["elide"] and done.after <= done.target
    assert done.rungs_tried == ("elide",)
    quiet = compact(messages, MODEL, size * 10, POLICIES["ladder"])
    assert quiet.trigger is None and quiet.messages == tuple(messages)


def test_reactive_compaction_never_calls_the_summariser() -> None:
    messages = work(30)
    size = ContextCounter(MODEL).request(messages)
    writer = Counting()
    for name in ("claude-code-2.1", "codex", "gemini-cli", "ladder"):
        done = compact(messages, MODEL, size // 3, POLICIES[name], overflow=size - size // 3, writer=writer)
        assert done.trigger == "reactive"
        assert "summarize" not in done.rungs_tried and "snapshot" in done.rungs_tried
        assert any(SNAPSHOT_TAG in m.tags for m in done.messages)
    assert writer.calls == 0
    proactive = compact(messages, MODEL, int(size / 0.95), POLICIES["claude-code-2.1"], writer=writer,
                        real_window=False)
    assert writer.calls == 1 and [s.rung for s in proactive.steps] == ["summarize"]


def test_none_never_compacts() -> None:
    messages = work(10)
    done = compact(messages, MODEL, 10, POLICIES["none"], overflow=1000)
    assert done.trigger == "reactive" and done.steps == () and not done.fits


def test_policies_load_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('[policy]\nname = "mine"\nrungs = ["elide", "snapshot"]\nthreshold = 0.7\ntarget = 0.4\n'
                    'keep_results = 5\ngeometry = "5x8"\n')
    policy = load(str(path))
    assert policy == Policy("mine", ("elide", "snapshot"), threshold=0.7, target=0.4, keep_results=5, geometry="5x8")
    assert set(POLICIES) >= {"none", "elide-only", "claude-code-2.0", "claude-code-2.1", "codex", "codex-remote",
                             "gemini-cli", "openhands", "inspect-edit", "inspect-summary",
                             "anthropic-context-editing", "anthropic-compaction", "ladder", "ladder-no-summary"}
    assert "claude-code" not in POLICIES  # the fitted imitation is gone
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nrungs = ["elide", "fold"]\n')
    with pytest.raises(ValueError, match=r"bad\.toml.*unknown rung"):
        load(str(bad))
    bad.write_text('name = "x"\nrungs = ["elide"]\nkeep_result = 2\n')
    with pytest.raises(ValueError, match=r"unknown policy key.*keep_result"):
        load(str(bad))
    with pytest.raises(ValueError, match="no policy named"):
        load("nonesuch")


@pytest.mark.parametrize(("body", "says"), [
    ('name = "x"\nrungs = ["snapshot"]\ngeometry = "nosuchcell"\n', "no glyph cell 'nosuchcell'"),
    ('name = "x"\nrungs = ["elide"]\nthreshold = true\n', "threshold has the wrong type"),
    ('name = "x"\nrungs = ["summarize"]\nkeep_user_tokens = -5\n', "keep_user_tokens must not be negative"),
])
def test_a_bad_policy_file_names_the_file_and_the_field(tmp_path: Path, body: str, says: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(ValueError, match=r"bad\.toml") as raised:
        load(str(path))
    assert says in str(raised.value)
