"""Citations a clone of the repository can check, and docstrings that say why rather than what a run
measured on a date.

A citation of a document outside the repository (the project's brief, its seed texts, its research
notes) cannot be followed by a reader who has only the repository: each one names a public source (a
URL, a repository + path + version, an arXiv id) or says the sentence it stood for. Figures a run
measured belong in benchmark output (``benchmarks/RESULTS.md``) and on the findings page, not in
docstrings, where they go stale silently.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

OUTSIDE = re.compile(
    r"brief section|brief §|\bseed 00\d|seeds/|peers\.md|providers\.md|compaction-anchors|style\.md"
    r"|environment-notes|\bthe brief\b|seeds'|seed's|\bthe seed on\b",
    re.IGNORECASE,
)
"""Names of documents a clone does not have. ``seed 00N`` is the seed texts' numbering; a random
seed (``seed 0``, ``seed=1``) is not a citation."""

SCANNED = ("toolkit", "notebooks", "benchmarks", "docs", "tests", "README.md", "mkdocs.yml")
SUFFIXES = frozenset({".py", ".md", ".ipynb", ".yml", ".yaml", ".toml"})
SKIPPED = ("tests/data/",)
"""Recorded inputs, not prose of this project."""

DATED = re.compile(r"measured[^.;]{0,60}?20\d\d-\d\d", re.IGNORECASE)
"""A figure a run measured, with its date: "measured 2026-12-01", "(measured on 2 cores, 2026-12-01"."""


def _files() -> Iterator[Path]:
    for name in SCANNED:
        root = REPO / name
        paths = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in paths:
            rel = path.relative_to(REPO).as_posix()
            if path.is_file() and path.suffix in SUFFIXES and not rel.startswith(SKIPPED) \
                    and path != Path(__file__).resolve() and ".ipynb_checkpoints" not in rel:
                yield path


def _lines(path: Path) -> Iterator[str]:
    """The prose of a file line by line; a notebook's cell sources (its outputs are stored empty)."""
    if path.suffix == ".ipynb":
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            yield from "".join(cell["source"]).splitlines()
    else:
        yield from path.read_text(encoding="utf-8").splitlines()


def citations() -> set[tuple[str, str]]:
    """Every (path, stripped line) that names a document outside the repository."""
    return {(path.relative_to(REPO).as_posix(), line.strip())
            for path in _files() for line in _lines(path) if OUTSIDE.search(line)}


def _documented(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """(qualified name, docstring) of the module, each class and function, and each attribute
    docstring (a string right after an assignment, which mkdocstrings shows as the attribute's)."""
    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, str]]:
        body = getattr(node, "body", [])
        for first, second in itertools.pairwise(body):
            if isinstance(first, (ast.Assign, ast.AnnAssign)) and isinstance(second, ast.Expr) \
                    and isinstance(second.value, ast.Constant) and isinstance(second.value.value, str):
                targets = first.targets if isinstance(first, ast.Assign) else [first.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        yield prefix + target.id, second.value.value
        for child in body:
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(child)
                if doc:
                    yield prefix + child.name, doc
                yield from walk(child, f"{prefix}{child.name}.")
    doc = ast.get_docstring(tree)
    if doc:
        yield "<module>", doc
    yield from walk(tree, "")


def dated_docstrings() -> set[tuple[str, str]]:
    """Every (path, qualified name) in ``toolkit/`` whose docstring carries a dated measurement."""
    found = set()
    for path in sorted((REPO / "toolkit").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name, doc in _documented(tree):
            if DATED.search(" ".join(doc.split())):
                found.add((path.relative_to(REPO).as_posix(), name))
    return found


def test_citations_stand_in_the_repository() -> None:
    left = sorted(citations())
    assert not left, "cite the public source or say the sentence instead:\n" + "\n".join(
        f"{path}: {line}" for path, line in left)


def test_no_dated_measurements_in_docstrings() -> None:
    left = sorted(dated_docstrings())
    assert not left, "keep the reason, move the figure to benchmark output:\n" + "\n".join(
        f"{path}: {name}" for path, name in left)


@pytest.mark.parametrize("text", [
    "(brief section 6; seed 004)", "see ../shared/reference/providers.md §1.2", "peers.md B",
    "as the brief's strictest test", "the seeds/ folder", "environment-notes.md, OCR",
])
def test_outside_documents_are_recognised(text: str) -> None:
    assert OUTSIDE.search(text)


@pytest.mark.parametrize("text", ["MEASURED was taken on seed 0", "reference_sample(chars=8000), seed 0",
                                  "a brief summary", "https://ai.google.dev/gemini-api/docs/caching"])
def test_ordinary_text_is_not_a_citation(text: str) -> None:
    assert not OUTSIDE.search(text)


def test_dated_measurements_are_recognised() -> None:
    tree = ast.parse('"""Fast."""\n\ndef f():\n    """It took 1.4 s (measured\n    on 2 cores, 2026-12-01)."""\n'
                     'X = 1\n"""A price page read 2026-09-29."""\n')
    found = {name for name, doc in _documented(tree) if DATED.search(" ".join(doc.split()))}
    assert found == {"f"}
