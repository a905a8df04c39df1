"""Shared fixtures: where the real public transcripts live (never copied into the repo)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"
DATA = REPO / "data"


def corpus_files() -> list[Path]:
    """Every data file of the shared corpora (empty where the folder is absent)."""
    if not CORPORA.is_dir():
        return []
    return sorted(p for p in CORPORA.rglob("*") if p.is_file() and p.name != "SOURCES.md")


@pytest.fixture
def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip("../shared/corpora is absent")
    return CORPORA
