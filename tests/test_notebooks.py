"""Every numbered notebook is stored without outputs and opens with its parameters (that each runs
headless over the demo corpus is tested with the report, ``tests/test_report.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from tests.conftest import REPO
from toolkit.report import notebooks

NOTEBOOKS = notebooks(REPO / "notebooks")


def test_there_are_notebooks() -> None:
    assert any(p.name.startswith("01_") for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_clean_with_parameters_first(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    assert "parameters" in code[0].metadata.get("tags", []), "first code cell must be tagged parameters"
    assert "CORPUS" in code[0].source
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert all(cell.get("id") for cell in raw["cells"]), f"{path.name}: a cell without an id (nbformat 4.5)"
    for cell in code:
        assert not cell.get("outputs"), f"{path.name} is stored with outputs"
        assert cell.get("execution_count") is None
