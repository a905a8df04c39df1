"""Planning the replay experiment: points drawn by seed across sessions, only points where the modes'
bodies differ, a dry run summarised per session with each note once, and the output estimated from
the recorded reply rather than ``max_tokens``."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers import chain, session
from toolkit.cli import experiment as experiment_cli
from toolkit.cli import main
from toolkit.corpus import Corpus, load
from toolkit.corpus.parquet import save
from toolkit.costs import text_tokens
from toolkit.experiment.points import DEFAULT_SEED, find_points, spread
from toolkit.experiment.run import modes_differ, notes_grouped, plan, trial_request
from toolkit.experiment.trials import Point, Trial
from toolkit.record import Session, Text, ToolResult, ToolUse, Usage
from toolkit.replay.request import DEFAULT_MAX_TOKENS

DATA = REPO / "data"


def _points(sessions: int, each: int) -> list[Point]:
    return [Point(f"f{s}.json", f"s{s}", f"m{i}", ("ls",), "called") for s in range(sessions) for i in range(each)]


def test_spread_is_bounded_spread_out_and_seeded() -> None:
    points = _points(8, 30)
    drawn = spread(points, total=10, per_session=2, seed=7)
    per_session = Counter(p.session for p in drawn.points)
    assert len(drawn.points) == 10 and max(per_session.values()) <= 2
    assert len(per_session) == 8, "one point from every session before a second from any"
    assert spread(points, total=10, per_session=2, seed=7) == drawn
    assert spread(points, total=10, per_session=2, seed=8).points != drawn.points
    assert [p.at for p in drawn.points[:8]] != ["m0"] * 8, "not the first points found"
    assert len(spread(points, total=None, per_session=3).points) == 24
    assert len(spread(points, total=None, per_session=None).points) == 240
    assert (drawn.candidates, drawn.examined, drawn.skipped) == (240, 10, 0)
    assert experiment_cli.DEFAULT_SEED == DEFAULT_SEED, "the parser's default is the library's"


def test_spread_does_not_depend_on_the_order_sessions_come_in() -> None:
    points = _points(5, 6)
    backwards = [p for s in reversed(range(5)) for p in points[6 * s:6 * s + 6]]
    assert spread(points, total=7, per_session=2).points == spread(backwards, total=7, per_session=2).points


def test_a_refused_point_gives_way_to_the_sessions_next() -> None:
    points = _points(3, 4)
    drawn = spread(points, total=None, per_session=1, keep=lambda p: p.at != "m0" and p.at != "m1")
    assert len(drawn.points) == 3 and all(p.at in ("m2", "m3") for p in drawn.points)
    assert drawn.examined == drawn.skipped + 3 and drawn.skipped > 0


def _tools_session(sid: str = "calls") -> Session:
    s = session(chain(
        ("u1", "user", (Text("List the files, then read a.py."),)),
        ("a1", "assistant", (ToolUse("c1", "ls", {"path": "."}),)),
        ("t1", "user", (ToolResult("c1", "a.py\nb.py"),)),
        ("a2", "assistant", (Text("Reading it."), ToolUse("c2", "read", {"path": "a.py"}))),
        ("t2", "user", (ToolResult("c2", "print('hi')"),)),
        ("a3", "assistant", (Text("It prints hi."),)),
    ), sid=sid, model="gpt-4o-mini")
    return dataclasses.replace(s, file=f"{sid}.json")


def test_a_point_with_no_earlier_call_sends_one_body_in_every_mode() -> None:
    corpus = Corpus([_tools_session()])
    first, later = [p for p in find_points(corpus) if p.recorded == "called"]
    assert (first.at, later.at) == ("u1", "t1")

    def bodies(point: Point) -> list[bytes]:
        return [trial_request(Trial(point, "openai-chat", "gpt-4o-mini", mode, 1), corpus).bytes
                for mode in ("text", "native")]
    assert not modes_differ(trial_request(Trial(first, "openai-chat", "gpt-4o-mini", m, 1), corpus)
                            for m in ("text", "native"))
    assert len(set(bodies(first))) == 1 and len(set(bodies(later))) == 2
    assert modes_differ(trial_request(Trial(later, "openai-chat", "gpt-4o-mini", m, 1), corpus)
                        for m in ("text", "native"))


def test_auto_never_chooses_a_point_whose_modes_send_one_body(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    saved = save(Corpus([_tools_session("a"), _tools_session("b")]), tmp_path / "saved")
    args = ["experiment", str(saved), "--at", "auto", "--wire", "openai-chat", "--model", "gpt-4o-mini",
            "--modes", "text,native", "-n", "2", "--dry-run"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "total: 2 session(s), 2 point(s), 4 request(s), 8 replies" in printed
    assert "2 chosen of 4 where the recorded reply called a tool" in printed
    assert "2 of the 4 examined skipped: the same body in every mode" in printed
    assert main([*args, "--modes", "native"]) == 0, "one mode: nothing to compare, every point kept"
    assert "total: 2 session(s), 4 point(s)" in capsys.readouterr().out


def _with_usage(s: Session, output: int | None) -> Session:
    usage = Usage(input=120, output=output) if output is not None else Usage(0, 0, 0, 0)
    return dataclasses.replace(s, messages=tuple(
        dataclasses.replace(m, usage=usage) if m.role == "assistant" else m for m in s.messages))


def test_the_output_estimate_is_the_recorded_replys() -> None:
    reported = _with_usage(_tools_session("reported"), 37)
    zeros = _with_usage(_tools_session("zeros"), None)  # all zeros: unknown, not 0 tokens
    streamed = _with_usage(_tools_session("streamed"), 1)  # Claude Code's first-chunk count: below its words
    corpus = Corpus([reported, zeros, streamed])
    at = {p.session: p for p in find_points(corpus) if p.at == "t1"}
    trials = [Trial(at[sid], "openai-chat", "gpt-4o-mini", "native", 3) for sid in ("reported", "zeros", "streamed")]
    planned = plan(trials, corpus)
    first, second, third = planned.estimates
    assert (first.output_tokens, first.output_source) == (37, "recorded usage")
    words = text_tokens('Reading it.\nread\n{"path": "a.py"}', "gpt-4o-mini").tokens
    assert words > 2
    assert (second.output_tokens, second.output_source) == (words, "recorded text")
    assert (third.output_tokens, third.output_source) == (words, "recorded text")
    assert planned.output_sources() == Counter({"recorded text": 2, "recorded usage": 1})
    assert [r.output_tokens for r in planned.sessions()] == [37 * 3, words * 3, words * 3]
    assert first.output_tokens != DEFAULT_MAX_TOKENS
    off_path = Point("reported.json", "reported", "a3", ("ls",), "said")  # no reply follows the tip
    last = plan([Trial(off_path, "openai-chat", "gpt-4o-mini", "text", 1)], corpus).estimates[0]
    assert (last.output_tokens, last.output_source) == (DEFAULT_MAX_TOKENS, "max_tokens")


def test_the_dry_run_is_one_line_per_session_and_each_note_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", str(DATA), "--at", "auto", "--wire", "openai-chat", "--model", "gpt-4o-mini",
                 "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    total = next(line for line in lines if line.startswith("total: "))
    sessions, points, requests = (int(x) for x in re.findall(r"(\d+) (?:session|point|request)\(s\)", total))
    rows = [line for line in lines if re.search(r"  \d+ point\(s\), \d+ request\(s\), \d+ replies", line)]
    assert len(rows) == sessions and requests == 3 * points and points <= 20
    assert sum(int(re.findall(r"(\d+) point", r)[0]) for r in rows) == points
    notes = [line for line in lines if line.startswith("  ") and "stub schemas" in line]
    (stubs,) = notes  # one note, however many names each request stubbed
    assert re.fullmatch(r" +(\d+)  tools: \d+ to \d+ recorded name\(s\) declared with stub schemas .*", stubs)
    assert not any("fidelity:" in line for line in lines)
    assert len(lines) < sessions + len(notes) + 6


def test_a_bounded_dry_run_over_the_shared_corpora(corpora: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = load(corpora, progress=False)
    args = ["experiment", str(corpora), "--at", "auto", "--wire", "openai-chat", "--model", "gpt-4o-mini",
            "--points", "6", "--per-session", "1", "--seed", "3", "--dry-run"]
    assert main(args) == 0
    first = capsys.readouterr().out
    total = next(line for line in first.splitlines() if line.startswith("total: "))
    assert "6 session(s), 6 point(s), 18 request(s), 180 replies" in total
    assert len(corpus.sessions) > 6
    assert main(args) == 0 and capsys.readouterr().out == first


def test_notes_differing_only_in_a_count_are_one() -> None:
    """The range of the counts, the requests summed, most carried first; a number inside a name or a
    decimal is no count, and a note alone keeps its words."""
    notes = Counter({"tools: 2 recorded name(s) stubbed": 9, "tools: 4 recorded name(s) stubbed": 6,
                     "tools: 1,200 recorded name(s) stubbed": 1, "images: 3 image(s) of claude-sonnet-4-5 blind": 2,
                     "images: 3 image(s) of claude-sonnet-4-6 blind": 2, "calls: 2048 over 1.5 max": 1})
    assert notes_grouped(notes) == [("tools: 2 to 1,200 recorded name(s) stubbed", 16),
                                    ("images: 3 image(s) of claude-sonnet-4-5 blind", 2),
                                    ("images: 3 image(s) of claude-sonnet-4-6 blind", 2),
                                    ("calls: 2048 over 1.5 max", 1)]
