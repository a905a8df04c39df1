"""How notebooks and the report show frames: enough rows and characters to read ids and paths, a
wide table scrolling in its own box instead of running off the page, shares as percentages and an
empty table as a line saying what is absent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import REPO
from tests.helpers import ANSWERED, SEEN
from toolkit.errors import InvalidInput
from toolkit.notebook import TABLE_ROWS, FirstRows, NoRows, readable, setup
from toolkit.replay.analysis import stability
from toolkit.replay.charts import stability_by_wire
from toolkit.surface import SurfaceStore, surfaces


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


@pytest.mark.usefixtures("configured")
def test_a_share_shows_as_a_percentage_and_the_frame_keeps_its_numbers() -> None:
    frame = pl.DataFrame({"tool": ["Bash", "Read", "Edit"], "error_rate": [0.1234, None, float("nan")],
                          "calls": [81, 3, 0]})
    shown = readable(frame, percent=["error_rate"])
    assert isinstance(shown, pl.DataFrame)
    assert [None if v is None else repr(v) for v in shown["error_rate"].to_list()] == ["12.3%", None, None]
    assert shown["error_rate"][0] == 0.1234 and isinstance(shown["error_rate"][0], float), "still the number"
    assert "<td>12.3%</td>" in shown._repr_html_() and "0.1234" not in shown._repr_html_()
    assert shown["calls"].to_list() == [81, 3, 0], "other columns are untouched"
    assert frame["error_rate"][0] == 0.1234, "the frame itself keeps the number"
    finer = readable(frame, percent=["error_rate"], digits=2)
    assert isinstance(finer, pl.DataFrame) and str(finer["error_rate"][0]) == "12.34%"


def test_an_empty_table_is_a_line_saying_so() -> None:
    empty = pl.DataFrame(schema={"session_id": pl.String, "share": pl.Float64})
    shown = readable(empty, percent=["share"], none="no error results in this corpus")
    assert isinstance(shown, NoRows)
    assert repr(shown) == "no error results in this corpus"
    assert shown._repr_html_() == "<p>no error results in this corpus</p>" and "<table" not in shown._repr_html_()
    assert repr(readable(empty)) == "none"
    assert readable(empty, none="<b>none</b>")._repr_html_() == "<p>&lt;b&gt;none&lt;/b&gt;</p>"


def test_a_percentage_of_a_column_that_is_not_a_share_is_refused() -> None:
    frame = pl.DataFrame({"tool": ["Bash"], "rate": [0.5]})
    with pytest.raises(InvalidInput, match="no column 'share'"):
        readable(frame, percent=["share"])
    with pytest.raises(InvalidInput, match="'tool' is not a number"):
        readable(frame, percent=["tool"])


@pytest.mark.usefixtures("configured")
def test_a_long_table_shows_its_first_rows_and_how_many_more() -> None:
    """Past ``TABLE_ROWS`` polars would elide the middle and leave a shape to decode: ``readable``
    shows the first rows and a line counting the rest, shares converted on the rows shown."""
    frame = pl.DataFrame({"n": list(range(TABLE_ROWS * 3)), "share": [0.5] * (TABLE_ROWS * 3)})
    shown = readable(frame, percent=["share"])
    assert isinstance(shown, FirstRows) and shown.frame["n"].to_list() == list(range(TABLE_ROWS))
    page = shown._repr_html_()
    assert page.count("<tr>") == TABLE_ROWS + 2 and "…" not in page and "<td>50.0%</td>" in page
    assert page.endswith("<p>100 more rows (150 in all)</p>")
    assert repr(shown).endswith("\n100 more rows (150 in all)")
    exact = readable(frame.head(TABLE_ROWS))
    assert isinstance(exact, pl.DataFrame) and exact.height == TABLE_ROWS, "a table that fits is itself"


def test_a_table_asked_for_fewer_rows_counts_the_rest() -> None:
    """The notebooks' top-ten tables (09's search results) say how many they leave out."""
    shown = readable(pl.DataFrame({"n": list(range(11))}), rows=10)
    assert isinstance(shown, FirstRows) and shown.more == "1 more row (11 in all)"
    assert isinstance(readable(pl.DataFrame({"n": list(range(10))}), rows=10), pl.DataFrame)
    with pytest.raises(InvalidInput, match="at least 1"):
        readable(pl.DataFrame({"n": [1]}), rows=0)


def test_prefix_stability_shows_its_ratios_as_percentages() -> None:
    """Notebook 02's stability table: ``ratio`` and ``replay_ratio`` are shares, shown as ``100.0%``
    rather than ``1.0``."""
    totals = stability_by_wire(stability([ANSWERED], points=4))
    shown = readable(totals, percent=["ratio", "replay_ratio"])
    assert isinstance(shown, pl.DataFrame)
    assert {repr(v) for v in shown["ratio"].to_list()} == {"100.0%"}
    assert {repr(v) for v in shown["replay_ratio"].to_list()} == {"100.0%"}


def test_an_empty_shared_corpus_table_is_a_line(tmp_path: Path) -> None:
    """Notebook 03's shared-corpus tables, over a corpus with no recorded surface, say so instead of
    drawing a bare grid of headers."""
    store = SurfaceStore(tmp_path)
    table = surfaces([SEEN], store)
    shown = readable(table.select("label", "tools", "tool_names", "bytes", "runs", "first_seen"),
                     none="no recorded surfaces in the shared corpora")
    assert isinstance(shown, NoRows) and "<table" not in shown._repr_html_()


def test_a_table_names_its_sample_in_its_first_column() -> None:
    frame = pl.DataFrame({"model": ["gpt-4o", "claude-sonnet-4.5"], "saving": [0.8, 0.7]})
    shown = readable(frame, percent=["saving"], sample="data/: 1,234 characters")
    assert isinstance(shown, pl.DataFrame) and shown.columns == ["sample", "model", "saving"]
    assert shown["sample"].to_list() == ["data/: 1,234 characters"] * 2 and "<td>80.0%</td>" in shown._repr_html_()
    with pytest.raises(InvalidInput, match="names its sample already"):
        readable(shown.select("sample", "model"), sample="other")
