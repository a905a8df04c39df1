"""Notebook 06 (the session tree) on corpora the importers read that hold no branched session: a
Codex rollout, as most clients write them, straight; and a session of one message. It used to
raise ``StopIteration`` looking for a second leaf; now it adds a labelled alternative reply and
shows every operation on it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPORA, REPO
from toolkit.corpus import load
from toolkit.report.runner import execute
from toolkit.transcripts import TranscriptStore

NOTEBOOK = REPO / "notebooks" / "06_session_tree.ipynb"
CODEX = CORPORA / "codex" / "cookingtimes_cli0.47.0_no_turns.jsonl"


def _one_message(directory: Path) -> Path:
    path = directory / "one.json"
    path.write_text(json.dumps([{"role": "user", "content": "hello"}]), encoding="utf-8")
    return path


def _corpus(kind: str, directory: Path) -> Path:
    folder = directory / kind
    folder.mkdir()
    if kind == "codex":
        if not CODEX.is_file():
            pytest.skip("../shared/corpora is absent")
        shutil.copy(CODEX, folder / CODEX.name)
    else:
        _one_message(folder)
    return folder


@pytest.mark.parametrize("kind", ["codex", "one_message"])
def test_notebook_06_runs_on_a_corpus_without_branches(kind: str, tmp_path: Path) -> None:
    corpus = _corpus(kind, tmp_path)
    assert all(len(s.leaves()) < 2 for s in load(corpus).sessions)
    nb = execute(NOTEBOOK, {"CORPUS": str(corpus), "STORE": str(tmp_path / "store.db")})
    printed = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
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
