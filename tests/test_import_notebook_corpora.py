"""Notebooks on small corpora the importers read. Notebook 06 (the session tree) on corpora that hold
no branched session: a Codex rollout, as most clients write them, straight; and a session of one
message. It used to raise ``StopIteration`` looking for a second leaf; now it adds a labelled
alternative reply and shows every operation on it. Notebooks 07 and 08 (and the cheap 01 and 09) on
a two-message Chat Completions file, a Codex rollout with no reply (``cookingtimes``) and an Aider
history: 08 raised ``ColumnNotFoundError`` on all three (no point to plan, a plan of no rows) and 07
``InvalidInput`` on the Codex one (no request to size a window from); each now prints one line saying
there is nothing to show and why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPORA, REPO
from toolkit.compaction.simulator import busiest, nothing_to_replay, simulate_at_windows, simulate_corpus
from toolkit.corpus import load
from toolkit.experiment.points import find_points, nothing_to_plan
from toolkit.experiment.run import plan
from toolkit.report.runner import execute
from toolkit.transcripts import TranscriptStore

NOTEBOOK = REPO / "notebooks" / "06_session_tree.ipynb"
NOTEBOOKS = REPO / "notebooks"
CODEX = CORPORA / "codex" / "cookingtimes_cli0.47.0_no_turns.jsonl"
AIDER = CORPORA / "aider" / "mozgoslav_v0.86.2_whole_format.aider.chat.history.md"


def _one_message(directory: Path) -> Path:
    path = directory / "one.json"
    path.write_text(json.dumps([{"role": "user", "content": "hello"}]), encoding="utf-8")
    return path


def _corpus(kind: str, directory: Path) -> Path:
    folder = directory / kind
    folder.mkdir()
    if kind in ("codex", "aider"):
        source = CODEX if kind == "codex" else AIDER
        if not source.is_file():
            pytest.skip("../shared/corpora is absent")
        shutil.copy(source, folder / source.name)
    elif kind == "two_messages":
        (folder / "two.json").write_text(json.dumps([{"role": "user", "content": "What is 2 + 2?"},
                                                      {"role": "assistant", "content": "4."}]), encoding="utf-8")
    else:
        _one_message(folder)
    return folder


def _printed(nb: Any) -> str:
    return "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))


@pytest.mark.parametrize("kind", ["codex", "one_message"])
def test_notebook_06_runs_on_a_corpus_without_branches(kind: str, tmp_path: Path) -> None:
    corpus = _corpus(kind, tmp_path)
    assert all(len(s.leaves()) < 2 for s in load(corpus).sessions)
    nb = execute(NOTEBOOK, {"CORPUS": str(corpus), "STORE": str(tmp_path / "store.db")})
    printed = _printed(nb)
    assert "alternative reply added" in printed
    assert "rewind to green" in printed


def test_ensure_branch_makes_a_branch_point_and_keeps_the_tip(tmp_path: Path) -> None:
    with TranscriptStore(tmp_path / "store.db") as store:
        store.add(load(_one_message(tmp_path)))
        (info,) = store.sessions()
        tip = store.tip(info.id)
        added = store.ensure_branch(info.id)
        session = store.session(info.id)
        assert len(added) == 4 and store.tip(info.id) == tip
        assert len(session.children()[tip]) == 2 and len(session.leaves()) == 2
        assert store.ensure_branch(info.id) == []


@pytest.mark.parametrize("kind", ["two_messages", "codex", "aider"])
def test_notebook_08_runs_on_a_corpus_with_no_call_to_plan(kind: str, tmp_path: Path) -> None:
    corpus = _corpus(kind, tmp_path)
    assert not any(p.recorded == "called" for p in find_points(load(corpus).sessions))
    nb = execute(NOTEBOOKS / "08_saying_vs_doing.ipynb", {"CORPUS": str(corpus)})
    printed = _printed(nb)
    assert printed.count("Nothing to plan: no point in the corpus where the recorded reply called a tool") == 1
    assert "no request planned" in str([c.get("outputs") for c in nb.cells])


def test_notebook_07_runs_on_a_corpus_with_no_request(tmp_path: Path) -> None:
    """One model and two policies: the cells that failed are the ones after the replay, not the replay."""
    corpus = _corpus("codex", tmp_path)
    nb = execute(NOTEBOOKS / "07_compaction_tradeoffs.ipynb",
                 {"CORPUS": str(corpus), "MODELS": ["claude-sonnet-4-5"], "POLICIES": ["none", "ladder"]})
    printed = _printed(nb)
    assert printed.count("Nothing to replay: none of the 1 session(s) holds a reply the model was asked for") == 1
    assert "No session to vary a policy on" in printed


@pytest.mark.parametrize("name", ["01_corpus_tour", "09_session_browser"])
def test_cheap_notebooks_run_on_a_corpus_with_no_reply(name: str, tmp_path: Path) -> None:
    corpus = _corpus("codex", tmp_path)
    execute(NOTEBOOKS / f"{name}.ipynb", {"CORPUS": str(corpus)})


def test_nothing_to_replay_and_nothing_to_plan_say_why(tmp_path: Path) -> None:
    codex = load(_corpus("codex", tmp_path)).sessions
    chat = load(_corpus("two_messages", tmp_path)).sessions
    assert nothing_to_replay(chat) is None
    assert nothing_to_replay(codex) == (
        "Nothing to replay: none of the 1 session(s) holds a reply the model was asked for (their paths hold "
        "1 user message(s)), so no request is simulated and the replay's tables and charts below are empty.")
    frame = simulate_corpus(codex, ["claude-sonnet-4-5"], ["none"], progress=False)
    assert frame.is_empty() and busiest(frame, "claude-sonnet-4-5") is None
    at_windows, fitted = simulate_at_windows(codex, ["claude-sonnet-4-5"], ["none"], progress=False)
    assert at_windows.is_empty() and fitted is None, "nothing to replay is no reason to fit a window"
    played = simulate_corpus(chat, ["claude-sonnet-4-5"], ["none"], progress=False)
    assert busiest(played, "claude-sonnet-4-5") == chat[0].id and busiest(played, "gpt-5") is None
    assert nothing_to_plan([]) == ("Nothing to plan: no point in the corpus where the recorded reply called a "
                                   "tool (no reply after the first calls a tool or says it acts).")
    empty = plan([], load(tmp_path / "codex"))
    assert empty.frame().is_empty() and empty.frame().columns[:6] == ["file", "session", "at", "wire", "model", "mode"]
