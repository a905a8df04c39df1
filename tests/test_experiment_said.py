"""The saying-without-doing classifier: hand-written sentences both ways, its precision and recall on
the labelled sample of real replies (kept by reference: file and message id, the text read from the
shared corpora), and the per-reply frame and rates over a hand-built session."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TypedDict

import polars as pl
import pytest

from tests.conftest import REPO
from toolkit.compaction.simulator import turns
from toolkit.corpus import load
from toolkit.experiment.said import classify, rates, rates_chart, replies, reply_text, says_action
from toolkit.record import Message, Role, Session, Text, ToolResult, ToolUse

LABELS = REPO / "tests" / "data" / "said_labels.json"
# Measured 2026-12-01: precision 0.96 (109/113), recall 0.95 (109/115) on 172 replies. The floors sit
# 0.03 lower (about three replies) for a change in how an importer reads a reply's text, not for a
# weaker classifier.
MIN_PRECISION = 0.93
MIN_RECALL = 0.92

SAYS = [
    "I'll close #506.",
    "Closing it now.",
    "I've updated the file.",
    "Done — the PR is merged.",
    "Let me run the tests.",
    "closing #506 ... closed",
    "Now I'll create the config file and commit it.",
    "Added a retry counter to the client.",
    "The changelog has been updated with the new release.",
    "Checking the lockfile, then reading the changelog.",
    "Reverting the migration:",
    "I'm going to merge the branch.",
    "Let's open the file at line 293.",
    "- **Removed** the `--fast` flag from setup.cfg",
    "## ✅ Fix Applied",
    "The worker is now running.",
    "The build failed. Let me fix that:",
    "수정했습니다.",
]
DOES_NOT_SAY = [
    "We could close it.",
    "Should I close it?",
    "The test closes the socket.",
    "Want me to restart both servers?",
    "If you approve, I'll update the README.",
    "Let me know when you've set the token and I'll restart the server.",
    "I didn't close the issue.",
    "Here is what I found: the parser reads the header twice.",
    "Would you like me to proceed and push the update?",
    "Run `make check` in the build folder to confirm it.",
    "Let me explain how the scheduler works.",
    "The capital of France is Paris.",
    "```\nI'll close it\n```",
    "",
]


@pytest.mark.parametrize("text", SAYS)
def test_says_action(text: str) -> None:
    assert says_action(text)


@pytest.mark.parametrize("text", DOES_NOT_SAY)
def test_does_not_say_action(text: str) -> None:
    assert not says_action(text)


def test_classify_prefers_calls_over_words() -> None:
    assert classify("I'll close it.", ["mcp__coop__coop"], {"coop"}) == "called"
    assert classify("I'll close it.", ["coop"], {"mcp__coop__coop"}) == "called"
    assert classify("I'll close it.", ["show"], {"coop"}) == "called_other"
    assert classify("I'll close it.", [], {"coop"}) == "said"
    assert classify("It is open.", [], {"coop"}) == "other"


class Label(TypedDict):
    file: str
    message: str
    said: bool
    note: str


def _labels() -> list[Label]:
    labels: list[Label] = json.loads(LABELS.read_text(encoding="utf-8"))
    return labels


@cache
def _reply_texts(path: Path) -> dict[str, str]:
    """Each reply's text keyed by the id of the reply's first message, over every session of a file."""
    out: dict[str, str] = {}
    for session in load(path):
        messages = session.path()
        for start, end in turns(messages):
            out.setdefault(messages[start].id, reply_text(messages[start:end]))
    return out


def test_sample_is_large_mixed_and_kept_by_reference() -> None:
    labels = _labels()
    assert len(labels) >= 120
    assert len({(label["file"], label["message"]) for label in labels}) == len(labels)
    assert {label["file"].split("/")[0] for label in labels} >= {
        "claude_code", "codex", "gemini", "openai_chat", "trajectories", "anthropic"}
    assert all(set(label) == {"file", "message", "said", "note"} for label in labels)
    assert all(len(label["note"].split()) <= 12 for label in labels)
    assert {label["said"] for label in labels} == {True, False}


def test_precision_and_recall_on_the_labelled_sample(corpora: Path) -> None:
    scored = []
    for label in _labels():
        path = corpora / label["file"]
        if not path.exists():
            continue
        text = _reply_texts(path).get(label["message"])
        assert text is not None, f"{label['file']}: no reply starts at {label['message']}"
        scored.append((label["said"], says_action(text)))
    if not scored:
        pytest.skip("none of the labelled files is in ../shared/corpora")
    hits = sum(truth and guess for truth, guess in scored)
    precision = hits / max(1, sum(guess for _, guess in scored))
    recall = hits / max(1, sum(truth for truth, _ in scored))
    assert precision >= MIN_PRECISION, precision
    assert recall >= MIN_RECALL, recall


def _message(mid: str, parent: str | None, role: Role, *blocks: Text | ToolUse | ToolResult) -> Message:
    return Message(id=mid, parent_id=parent, role=role, blocks=blocks, model="m1" if role == "assistant" else None)


def _session() -> Session:
    """Four replies: a call, a claim with no call, an answer, and a second claim with no call."""
    messages = [
        _message("u1", None, "user", Text("close #1")),
        _message("a1", "u1", "assistant", Text("Closing #1."), ToolUse("c1", "mcp__coop__coop", {"id": 1})),
        _message("r1", "a1", "user", ToolResult("c1", "closed")),
        _message("a2", "r1", "assistant", Text("Closed.")),
        _message("u2", "a2", "user", Text("and #2?")),
        _message("a3", "u2", "assistant", Text("It is still open.")),
        _message("u3", "a3", "user", Text("close it")),
        _message("a4", "u3", "assistant", Text("I'll close #2 now.")),
    ]
    return Session(id="s", format="test", messages=tuple(messages), tip="a4", file="s.json")


def test_replies_one_row_per_reply() -> None:
    frame = replies([_session()])
    assert frame.columns == ["file", "session", "client", "model", "index", "position", "said", "called",
                             "said_without_doing"]
    assert frame["index"].to_list() == [0, 1, 2, 3]
    assert frame["position"].to_list() == [0.0, 0.25, 0.5, 0.75]
    assert frame["said"].to_list() == [True, True, False, True]
    assert frame["called"].to_list() == [True, False, False, False]
    assert frame["said_without_doing"].to_list() == [False, True, False, True]


def test_rates_per_client_and_model_and_half() -> None:
    (row,) = rates(replies([_session()])).to_dicts()
    assert (row["client"], row["model"], row["replies"], row["said"], row["said_without_doing"]) == (
        "test", "m1", 4, 3, 2)
    assert row["rate"] == 0.5
    assert (row["rate_first_half"], row["rate_second_half"]) == (0.5, 0.5)
    assert rates_chart(replies([_session()])).to_dict()["data"]


def test_replies_of_an_empty_corpus() -> None:
    frame = replies([])
    assert frame.height == 0 and rates(frame).height == 0
    assert frame.schema["said"] == pl.Boolean
