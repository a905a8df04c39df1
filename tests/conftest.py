"""Shared fixtures: where the real public transcripts live (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# The property tests run on a fixed seed, so a random counterexample never fails a change it has
# nothing to do with; HYPOTHESIS_PROFILE=explore draws new examples (a failure prints the blob that
# reproduces it).
settings.register_profile("fixed", derandomize=True, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"
DATA = REPO / "data"


def missing_package(package: str) -> str:
    """The skip reason of a test that needs a system package this machine lacks."""
    return (f"needs the system package {package}: `make test` installs it where it runs as root with apt-get; "
            f"elsewhere run `sudo apt-get install {package}`")


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


LONGEST_FIRST = ("tests/test_report.py", "tests/test_corpus_scale.py", "tests/test_import_hazards.py",
                 "tests/test_replay_corpora.py", "tests/test_snapshot_legibility.py", "tests/test_docs.py")
"""Files whose tests take longest (``pytest --durations``), started first: with
``--no-loadscope-reorder``, ``--dist loadfile`` hands files to the workers in collection order,
and a long file picked up last keeps one worker busy while the other waits."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
