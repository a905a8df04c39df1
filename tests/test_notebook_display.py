"""How notebooks and the report show frames: enough rows and characters to read ids and paths, and a
wide table scrolling in its own box instead of running off the page."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl
import pytest

from tests.conftest import REPO
from toolkit.notebook import TABLE_ROWS, setup


@pytest.fixture
def configured() -> Iterator[None]:
    setup()
    try:
        yield
    finally:
        pl.Config.restore_defaults()


@pytest.mark.usefixtures("configured")
def test_a_frame_shows_its_rows_and_whole_cells() -> None:
    path = "/".join(["corpora"] * 30) + "/session-0123456789abcdef.jsonl"
    shown = pl.DataFrame({"n": list(range(TABLE_ROWS)), "path": [path] * TABLE_ROWS})._repr_html_()
    assert shown.count("<tr>") == TABLE_ROWS + 2  # the header's two rows and every row
    assert path in shown and "…" not in shown
    longer = pl.DataFrame({"n": list(range(TABLE_ROWS * 3))})._repr_html_()
    assert "shape: (150, 1)" in longer and longer.count("<tr>") == TABLE_ROWS + 3  # one row elides the rest


@pytest.mark.usefixtures("configured")
def test_every_column_of_a_wide_frame_is_shown() -> None:
    wide = pl.DataFrame({f"column_{i}": [i] for i in range(40)})
    assert "column_39" in wide._repr_html_() and "column_20" in wide._repr_html_()


def test_the_report_scrolls_a_wide_table_in_its_own_box() -> None:
    template = (REPO / "toolkit" / "report" / "templates" / "offline.html.j2").read_text(encoding="utf-8")
    assert "table.dataframe { display: block; max-width: 100%; overflow-x: auto; }" in template
