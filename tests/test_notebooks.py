"""Every numbered notebook runs headless over the demo corpus and is stored without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.conftest import DATA, REPO
from toolkit.report import execute, notebooks

NOTEBOOKS = notebooks(REPO / "notebooks")


def test_there_are_notebooks() -> None:
    assert any(p.name.startswith("01_") for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_clean_with_parameters_first(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    assert "parameters" in code[0].metadata.get("tags", []), "first code cell must be tagged parameters"
    assert "CORPUS" in code[0].source
    for cell in code:
        assert not cell.get("outputs"), f"{path.name} is stored with outputs"
        assert cell.get("execution_count") is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_headless(path: Path) -> None:
    nb = execute(path, {"CORPUS": str(DATA)})
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
