"""Retention: the facts an agent later needs, and where each is after compaction (text, summary, a
snapshot page read back by OCR, or lost)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

import toolkit
from toolkit.compaction.markers import SUMMARY_TAG, elided, summarised
from toolkit.compaction.survival import (
    Fact,
    Retention,
    extract,
    facts,
    page_reader,
    pages_by_sha256,
    read_back,
    retention,
    source_text,
    within,
)
from toolkit.record import Message, Role, Text, ToolResult, ToolUse
from toolkit.snapshot import Compacted, compact, geometry_for

MODEL = "claude-sonnet-4-5"


def history(*items: tuple[Role, tuple[Text | ToolUse | ToolResult, ...]]) -> list[Message]:
    return [Message(f"m{i}", f"m{i - 1}" if i else None, role, blocks) for i, (role, blocks) in enumerate(items)]


def found(messages: list[Message]) -> set[tuple[str, str]]:
    return {(f.kind, f.text) for f in facts(messages)}


def test_every_kind_from_hand_built_messages() -> None:
    messages = history(
        ("user", (Text("Fix issue #227 (see https://github.com/acme/app/issues/227). "
                       "The server listens on localhost:8080; we pin Python 3.11.4."),)),
        ("assistant", (Text("I'll look at `load_config()` in src/app/config.py:42 first."),
                       ToolUse("c1", "Bash", {"command": "git log --oneline -2 -- src/app/config.py"}))),
        ("user", (ToolResult("c1", "3f2a9c1d Read the port from the environment\n"
                                   "b71e0a42 Add config loader"),)),
        ("assistant", (ToolUse("c2", "shell", {"command": ["bash", "-lc", "pytest -q tests/test_config.py"]}),)),
        ("user", (ToolResult("c2", "tests/test_config.py F\n"
                                   "E   KeyError: 'PORT'\n"
                                   "FAILED tests/test_config.py::test_port - KeyError: 'PORT'\n"
                                   "run 0199fa27-1cd3-7662-9abc-0123456789ab", is_error=True),)),
    )
    got = found(messages)
    assert {
        ("identifier", "issue #227"), ("url", "https://github.com/acme/app/issues/227"),
        ("number", "localhost:8080"), ("number", "Python 3.11.4"), ("identifier", "load_config()"),
        ("number", "src/app/config.py:42"), ("path", "src/app/config.py"),
        ("command", "git log --oneline -2 -- src/app/config.py"), ("identifier", "3f2a9c1d"),
        ("identifier", "b71e0a42"), ("command", "pytest -q tests/test_config.py"),
        ("path", "tests/test_config.py"), ("error", "E   KeyError: 'PORT'"),
        ("error", "tests/test_config.py F"),  # a result the tool flagged as an error: its first line
        ("error", "FAILED tests/test_config.py::test_port - KeyError: 'PORT'"),
        ("identifier", "0199fa27-1cd3-7662-9abc-0123456789ab"),
    } <= got
    assert ("identifier", "0199fa27") not in got  # a UUID is one identifier, not a hex run in it
    assert ("quoted", "src/app/config.py") not in got  # said in the very message that calls: not earlier
    listed = facts(messages)
    assert [f.message_index for f in listed] == sorted(f.message_index for f in listed)
    assert len({(f.kind, f.text) for f in listed}) == len(listed)


def test_patterns_leave_prose_alone() -> None:
    text = ("Use Next.js and/or origin/main; </command-name> closes a tag. Build `review` and `EnterWorktree`, "
            "at 127.0.0.1 (no port), decade 2026120, see [docs](https://example.org/a_(b)).\n"
            "C:\\Users\\dev\\app\\main.py and E:/data/leads.csv, ~/notes.txt, ../up/here.\n"
            "def parse_args(argv):\nclass Page:\nThe Error handling section")
    got = set(extract(text))
    kinds = {kind for kind, _ in got}
    paths = {t for k, t in got if k == "path"}
    assert paths == {"C:\\Users\\dev\\app\\main.py", "E:/data/leads.csv", "~/notes.txt", "../up/here"}
    assert ("url", "https://example.org/a_(b)") in got
    assert "number" not in kinds  # an IP without a port, a bare number
    assert {t for k, t in got if k == "identifier"} == {"EnterWorktree", "parse_args", "Page"}
    assert ("error", "The Error handling section") in got


def test_short_facts_are_skipped_long_ones_cut_and_limit_spreads() -> None:
    long_command = "echo " + "x" * 500
    messages = history(
        ("assistant", (ToolUse("c1", "Bash", {"command": "ls"}), ToolUse("c2", "Bash", {"command": long_command}))),
        *(("user", (Text(f"see src/pkg/mod{i}.py"),)) for i in range(20)),
    )
    listed = facts(messages)
    commands = [f.text for f in listed if f.kind == "command"]
    assert commands == [long_command[:200]]  # "ls" is too short to tell by chance from any text
    sample = facts(messages, limit=5)
    assert len(sample) == 5 and sample[0] == listed[0]
    assert sample[-1].message_index > len(messages) // 2  # spread over the history, not its start


def test_later_call_quoting_earlier_output_is_a_quoted_fact() -> None:
    messages = history(
        ("user", (Text("Please run pytest -q tests/test_wrap.py and fix what fails."),)),
        ("assistant", (ToolUse("c1", "Bash", {"command": "git ls-files src"}),)),
        ("user", (ToolResult("c1", "src/render/wrap.py\nsrc/render/page.py\n"),)),
        ("assistant", (ToolUse("c2", "Read", {"file_path": "/repo/src/render/wrap.py"}),
                       ToolUse("c3", "Grep", {"pattern": "wrap", "output_mode": "content"}))),
        ("user", (ToolResult("c2", "def wrap(line):"), ToolResult("c3", "content"))),
        ("assistant", (ToolUse("c4", "Bash", {"command": "pytest -q tests/test_wrap.py"}),)),
    )
    quoted = {f.text: f for f in facts(messages) if f.kind == "quoted"}
    # The Read names a path that only the ls-files output printed (as its tail)...
    assert quoted["src/render/wrap.py"] == Fact("quoted", "src/render/wrap.py", 2, 3)
    assert "render/wrap.py" not in quoted and "wrap.py" not in quoted  # held by the longer quote
    # ...and the last command repeats the user's words.
    assert quoted["pytest -q tests/test_wrap.py"] == Fact("quoted", "pytest -q tests/test_wrap.py", 0, 5)
    assert "content" not in quoted and "wrap" not in quoted  # too short to be more than chance
    assert "/repo/src/render/wrap.py" not in quoted  # never said before the call


def test_commands_come_from_shell_tools_only() -> None:
    messages = history(
        ("assistant", (ToolUse("c1", "str_replace_editor", {"command": "create", "path": "/w/app.py"}),
                       ToolUse("c2", "exec_command", {"cmd": "npm run build"}),
                       ToolUse("c3", "run_shell_command", {"command": "python -m http.server --port 8000"}))),
    )
    got = found(messages)
    assert {t for k, t in got if k == "command"} == {"npm run build", "python -m http.server --port 8000"}
    assert ("number", "--port 8000") in got and ("path", "/w/app.py") in got


def test_real_session_from_the_shared_corpora(corpora: Path) -> None:
    corpus = toolkit.load(corpora / "claude_code" / "golfgod_v2.0.22_compaction_forks_images.chat.json")
    session = max(corpus.sessions, key=lambda s: len(s.path()))
    listed = facts(session.path())
    kinds = {f.kind for f in listed}
    assert kinds == {"path", "identifier", "number", "error", "command", "url", "quoted"}
    got = {(f.kind, f.text): f for f in listed}
    assert ("command", "git ls-files") in got
    assert ("path", "/Users/tjmcgovern/golfgod_x_convex/README.md") in got
    # git ls-files printed DATABASE_MAP.md; the next turn reads it under the project's directory.
    assert got[("quoted", "DATABASE_MAP.md")].needed_at == got[("quoted", "DATABASE_MAP.md")].message_index + 1
    assert ("url", "https://help.github.com/articles/ignoring-files/") in got
    assert not [f for f in listed if f.kind == "path" and f.text.startswith("/command")]  # closing tags


def middle_history() -> list[Message]:
    return history(
        ("user", (Text("Fix the failing render test."),)),
        ("assistant", (ToolUse("c1", "Bash", {"command": "git log --oneline -3 && ls src/render"}),)),
        ("user", (ToolResult("c1", "3f2a9c1d Fix parser\nb71e0a42 Add reader\n"
                                   "src/render/layout.py\nsrc/render/glyphs.py"),)),
        ("assistant", (Text("The server runs on localhost:8080 under Python 3.11.4; docs at "
                            "https://example.org/issues/227"),
                       ToolUse("c2", "Bash", {"command": "pytest -q tests/test_layout.py"}))),
        ("user", (ToolResult("c2", "FAILED tests/test_layout.py::test_wrap - TypeError: bad operand"),)),
        ("assistant", (ToolUse("c3", "Read", {"file_path": "/repo/src/render/layout.py"}),)),
        ("user", (ToolResult("c3", "def wrap_rows(text): # token 9e8d7c6b5a4f"),)),
    )


@pytest.fixture(scope="module")
def snapped() -> tuple[list[Message], Compacted]:
    messages = middle_history()
    return messages, compact(messages, head=1, tail=1, geometry=geometry_for(MODEL))


def test_middle_facts_are_read_on_the_page_and_an_elided_one_is_lost(
        snapped: tuple[list[Message], Compacted]) -> None:
    messages, done = snapped
    assert len(done.pages) == 1 and [m.id for m in done.messages][-2:] == ["m5", "m6"]
    last = done.messages[-1]
    result = last.blocks[0]
    assert isinstance(result, ToolResult)
    marked = replace(last, blocks=(replace(result, output=elided("Read", len(result.output), 1)),))
    compacted = [*done.messages[:-1], marked]
    listed = facts(messages)
    middle = [f for f in listed if 1 <= f.message_index <= 4]
    pages = pages_by_sha256(done.pages)

    strict = retention(listed, compacted, done.images, pages=pages, model=MODEL)
    lenient = retention(listed, compacted, done.images, pages=pages, model=MODEL, tolerance=0.15)
    assert strict.page_reader == page_reader().name
    for outcome in (strict, lenient):
        where = {(s.fact.kind, s.fact.text): s.where for s in outcome.survivals}
        assert where[("identifier", "9e8d7c6b5a4f")] == "lost"  # only in the result the marker replaced
        assert where[("path", "/repo/src/render/layout.py")] == "verbatim"  # the tail's call
        assert where[("path", "src/render/layout.py")] == "verbatim"  # a part of it
    # The readers misread several percent of this page's characters (RapidOCR 8%, 1.5% on the same
    # rows in the control font: it drops underscores and reads 1 as l and 0 as 8), so some facts are
    # not read exactly; allowing about one misread character in seven, most of the middle's are.
    hidden = [s.fact for s in strict.survivals if s.fact in middle and s.where != "verbatim"]
    read = [s.fact for s in lenient.survivals if s.fact in hidden and s.where == "page"]
    assert len(hidden) >= 8 and len(read) >= 0.7 * len(hidden)
    exact = {s.fact for s in strict.survivals if s.where == "page"}
    assert exact <= set(read)


def test_source_text_is_the_upper_bound(snapped: tuple[list[Message], Compacted]) -> None:
    messages, done = snapped
    listed = facts(messages)
    bound = retention(listed, done.messages, done.images, page_text=source_text(done.snapshots), read_pages=False)
    assert bound.page_reader == "source"
    where = {(s.fact.kind, s.fact.text): s.where for s in bound.survivals}
    assert all(where[(f.kind, f.text)] == "page" for f in listed if 1 <= f.message_index <= 4
               and where[(f.kind, f.text)] != "verbatim")
    assert bound.counts()["lost"] == 0 and bound.retention == 1.0
    # A call's arguments are on the page as JSON; a command with quotes is still found there.
    quoting = [Fact("command", 'grep -n "wrap_rows" src/render/layout.py', 1)]
    assert retention(quoting, done.messages, done.images, read_pages=False,
                     page_text={done.messages[1].id: 'Bash({"command":"grep -n \\"wrap_rows\\" '
                                                      'src/render/layout.py"})'}).counts()["page"] == 1
    with pytest.raises(ValueError, match="no page_text"):
        retention(listed, done.messages, done.images, read_pages=False)


def test_pages_are_read_only_when_a_fact_is_in_no_text(snapped: tuple[list[Message], Compacted]) -> None:
    _messages, done = snapped
    tail_only = [Fact("path", "/repo/src/render/layout.py", 5)]
    kept = retention(tail_only, done.messages, done.images)  # no layout given, and none needed
    assert kept.counts()["verbatim"] == 1 and kept.page_reader is not None
    with pytest.raises(ValueError, match="no layout for page"):
        retention([Fact("path", "src/render/glyphs.py", 2)], done.messages, done.images)


def test_a_summary_is_found_and_reported_as_such() -> None:
    messages = middle_history()
    summary = Message("s1", "m0", "user", (Text(summarised(5, "m1", "m5", "a model")),
                                           Text("Ran pytest -q tests/test_layout.py; it failed with a TypeError "
                                                "in src/render/layout.py.")), tags=(SUMMARY_TAG,))
    compacted = [messages[0], summary, messages[-1]]
    outcome = retention(facts(messages), compacted, {})
    where = {(s.fact.kind, s.fact.text): s.where for s in outcome.survivals}
    assert where[("path", "src/render/layout.py")] == "summary"
    assert where[("command", "pytest -q tests/test_layout.py")] == "summary"
    assert where[("identifier", "3f2a9c1d")] == "lost"
    assert where[("identifier", "9e8d7c6b5a4f")] == "verbatim"
    assert outcome.page_reader is None
    counts = outcome.counts()
    assert list(counts) == ["verbatim", "page", "summary", "lost"] and counts["page"] == 0
    assert outcome.retention == pytest.approx(1 - counts["lost"] / len(outcome.survivals))
    frame = outcome.frame()
    assert frame.columns == ["kind", "text", "message_index", "needed_at", "where"]
    assert frame.height == len(outcome.survivals) and frame["needed_at"].dtype == pl.Int64


def test_no_facts_retain_everything() -> None:
    empty = Retention((), None)
    assert empty.retention == 1.0 and empty.frame().height == 0
    assert empty.counts() == {"verbatim": 0, "page": 0, "summary": 0, "lost": 0}


def test_within_allows_edits_anywhere_in_the_haystack() -> None:
    assert within("src/toolkit", "xxsrc/toolkityy", 0)
    assert not within("src/toolkit", "xxsrc/tookityy", 0)
    assert within("src/toolkit", "xxsrc/tookityy", 1)
    assert within("localhost:8080", "serveronlocalhost:800,", 1)
    assert not within("3f2a9c1d", "3f2acld", 1)
    assert within("ab", "", 2) and not within("abc", "", 2)


def test_a_passage_read_back_from_its_page() -> None:
    """The demo's ``git log`` and ``git show``, rendered for Claude and read by OCR: some facts come
    back exactly, and every fact the reader gives back was rendered there."""
    from toolkit.compaction.simulator import replayed
    from toolkit.corpus import load

    corpus = load(Path(__file__).resolve().parents[1] / "data" / "claude_code" / "export-investigation.jsonl",
                  progress=False)
    table = read_back(replayed(corpus.sessions[0])[:13], MODEL)
    assert table.height > 10 and set(table["rendered"]) == {"page"}
    assert set(table["read"]) <= {"page", "lost"} and (table["read"] == "page").sum() > 0
    assert table["reader"][0] == page_reader().name
