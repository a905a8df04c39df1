"""Shared fixtures: where the real public transcripts live (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests on a fixed seed so a landing never hangs on a rare draw; locally every
# run explores new examples (and a failure prints the blob that reproduces it).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "explore")

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
