"""What every notebook needs before its first cell of analysis: a corpus path that resolves
whether the notebook runs from ``notebooks/`` (JupyterLab) or the repository root (the report),
charts that render without network (the report is opened offline), and tables a reader can read
(``readable``: shares as percentages, the first rows and a count of the rest, an empty table as a line
saying so, the sample a figure is of)."""

from __future__ import annotations

import html
import importlib.machinery
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.errors import InvalidInput, MissingPath

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from importlib.abc import Loader
    from types import ModuleType

    import polars as pl


def resolve(path: str | Path) -> Path:
    """``path`` as given if it exists, else relative to the nearest parent directory that has it
    (so ``"data/"`` works from ``notebooks/`` too)."""
    candidate = Path(path)
    if candidate.is_absolute() or candidate.exists():
        return candidate
    here = Path.cwd()
    for parent in (here, *here.parents):
        if (parent / candidate).exists():
            return parent / candidate
    raise MissingPath(f"{path} not found from {here} or any parent directory")


def setup() -> None:
    """Render altair charts as inline SVG (vl-convert, no JavaScript from a CDN), which shows
    the same in JupyterLab, in nbconvert's HTML and offline. Called for you: ``import toolkit``
    arranges it for the moment altair is first imported (``offline_charts``)."""
    import altair as alt

    alt.renderers.enable("svg")
    alt.data_transformers.disable_max_rows()
    tables()


TABLE_ROWS = 50
"""Rows a frame shows, where polars' default of 8 hides most of any table a notebook means to show:
``readable`` shows the first ``TABLE_ROWS`` and a line counting the rest; a bare frame longer than that
shows polars' elision (the first and last half and the frame's shape)."""

TABLE_TEXT = 400
"""Characters a cell shows: full ids, paths and a corpus path to copy, not polars' default 30."""


def tables() -> None:
    """Frames shown in full enough to read: up to ``TABLE_ROWS`` rows, every column, cells up to
    ``TABLE_TEXT`` characters (the report's page scrolls a wide table inside its own box)."""
    import polars as pl

    pl.Config.set_tbl_rows(TABLE_ROWS)
    pl.Config.set_tbl_cols(-1)
    pl.Config.set_fmt_str_lengths(TABLE_TEXT)


class Share(float):
    """A share that shows as a percentage (``12.3%``) and is still the number it is: polars draws a
    text column's values in quotes, an object column's as they print."""

    digits: int

    def __new__(cls, value: float, digits: int = 1) -> Share:
        share = super().__new__(cls, value)
        share.digits = digits
        return share

    def __repr__(self) -> str:
        return f"{float(self):.{self.digits}%}"

    __str__ = __repr__


@dataclass(frozen=True, eq=False)
class FirstRows:
    """What a notebook shows of a table longer than it means to show: its first rows, then a line
    saying how many more there are, where polars would elide the middle and leave the reader to work the
    count out of a shape."""

    frame: pl.DataFrame
    """The rows shown."""
    total: int
    """The rows of the whole table."""

    @property
    def more(self) -> str:
        rest = self.total - self.frame.height
        return f"{rest:,} more row{'' if rest == 1 else 's'} ({self.total:,} in all)"

    def __repr__(self) -> str:
        return f"{self.frame!r}\n{self.more}"

    def _repr_html_(self) -> str:
        return f"{self.frame._repr_html_()}<p>{html.escape(self.more)}</p>"


@dataclass(frozen=True)
class NoRows:
    """What a notebook shows instead of a table with no rows: one line saying what is not there,
    where polars would draw an empty grid of headers that reads like a table whose rows failed."""

    text: str

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(self.text)}</p>"


def readable(frame: pl.DataFrame, *, percent: Iterable[str] = (), none: str = "none",
             digits: int = 1, rows: int = TABLE_ROWS,
             sample: str | None = None) -> pl.DataFrame | FirstRows | NoRows:
    """``frame`` as a notebook or the report shows it: each column named in ``percent`` (a share, 0
    to 1) shown as ``12.3%`` (``digits`` decimals; its values ``Share`` objects, still numbers; null
    and NaN null), a frame of more than ``rows`` rows as its first ``rows`` and a line counting the
    rest (``FirstRows``), a frame with no rows as the line ``none`` (say what is absent: "no error
    results"), and ``sample``, what the figures are of (corpus, sessions, characters), as a first
    column on every row: two tables of one figure on different samples differ, and say why. The frame
    a library function returns keeps its own columns; this is what is shown."""
    import polars as pl

    if rows < 1:
        raise InvalidInput(f"rows must be at least 1, not {rows}")
    if frame.height == 0:
        return NoRows(none)
    if sample is not None:
        if "sample" in frame.columns:
            raise InvalidInput(f"the table names its sample already: {frame['sample'][0]!r}")
        frame = frame.select(pl.lit(sample).alias("sample"), pl.all())
    shares = list(percent)
    missing = [name for name in shares if name not in frame.columns]
    if missing:
        raise InvalidInput(f"no column {', '.join(map(repr, missing))} to show as a percentage "
                           f"(columns: {', '.join(frame.columns)})")
    wrong = [name for name in shares if not frame.schema[name].is_numeric()]
    if wrong:
        raise InvalidInput(f"column {', '.join(map(repr, wrong))} is not a number, so not a share")
    shown = frame.head(rows).with_columns(
        pl.Series(name, [None if value is None or value != value else Share(value, digits)
                         for value in frame[name].head(rows).to_list()], dtype=pl.Object)
        for name in shares)
    return shown if frame.height <= rows else FirstRows(shown, frame.height)


def _configure(module: ModuleType) -> None:
    """Switch altair to SVG unless the user already chose a renderer of their own."""
    if module.renderers.active == "default":
        module.renderers.enable("svg")
        module.data_transformers.disable_max_rows()


class _AltairLoader:
    """The real loader of ``altair``, configuring the module once it has run (duck-typed rather
    than subclassing ``importlib.abc``, whose import alone costs more than ``import toolkit``)."""

    def __init__(self, inner: Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        _configure(module)


class _AltairFinder:
    """Finds nothing itself: wraps the real loader of ``altair`` so that configuring it costs
    nothing until a notebook actually imports it."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "altair":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _AltairLoader(spec.loader)  # type: ignore[assignment]
        return spec


def offline_charts() -> None:
    """Make altair charts render without a CDN from now on, whether altair is imported already
    (configured now) or later (configured as its import completes), without importing it here:
    a fresh notebook that never calls ``setup()`` shows its charts offline too."""
    altair = sys.modules.get("altair")
    if altair is not None:
        _configure(altair)
    elif not any(isinstance(finder, _AltairFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AltairFinder())
