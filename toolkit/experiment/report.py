"""The experiment's table: per point, mode and model, how many replies called the expected tool,
called another, only said they acted, or neither, with the call rate's Wilson 95% interval: counts as small
as "3 close calls in 16 tries" against "closed 9 of 9" (an earlier, unpublished run of this experiment)
say little without the uncertainty they carry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import InvalidInput
from toolkit.experiment.run import read_ledger
from toolkit.experiment.trials import REPLY_KINDS
from toolkit.replay.plan import MODES

if TYPE_CHECKING:
    import polars as pl

Z95 = 1.959963984540054
"""The standard normal quantile at 0.975: a two-sided 95% interval."""

POINT = ("file", "session", "at")
GROUP = (*POINT, "wire", "mode", "model")
COLUMNS = {
    "file": "str", "session": "str", "at": "str", "wire": "str", "model": "str", "mode": "str", "index": "int",
    "expect": "list", "recorded": "str", "kind": "str", "text": "str", "calls": "list", "stop": "str",
    "input_tokens": "int", "cached_tokens": "int", "cache_write_tokens": "int", "output_tokens": "int",
    "cost_usd": "float", "request_sha256": "str", "fidelity": "list", "time": "str", "seconds": "float",
}
"""One row per reply: these columns of a ledger's ``reply`` lines (usage flattened)."""


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (E. B. Wilson, "Probable inference, the law
    of succession, and statistical inference", JASA 22 (1927) 209-212; as written in Agresti and
    Coull, "Approximate is better than 'exact' for interval estimation of binomial proportions", The
    American Statistician 52 (1998) 119-126, eq. 2):

        (p + z²/2n ± z √(p(1-p)/n + z²/4n²)) / (1 + z²/n),  p = successes / n.

    Unlike p ± z√(p(1-p)/n) it stays inside [0, 1] and is not empty at 0 or n of n (9 of 9 gives
    0.70 to 1).

    Args:
        successes: How many trials succeeded.
        n: How many trials there were.
        z: The normal quantile of the confidence level (default: 95%).

    Returns:
        The interval's low and high ends; ``(0, 1)`` for no trials.

    Raises:
        InvalidInput: ``n`` is negative or ``successes`` is not between 0 and ``n``."""
    if n < 0 or not 0 <= successes <= n:
        raise InvalidInput(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    scale = 1 + z2 / n
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def _row(line: dict[str, Any], columns: Mapping[str, str]) -> dict[str, Any]:
    usage = line.get("usage") if isinstance(line.get("usage"), dict) else {}
    assert isinstance(usage, dict)
    flat = {**line, "input_tokens": usage.get("input"), "cached_tokens": usage.get("cached"),
            "cache_write_tokens": usage.get("cache_write"), "output_tokens": usage.get("output")}
    return {name: flat.get(name) for name in columns}


def frame_of(lines: Iterable[dict[str, Any]], columns: Mapping[str, str] = COLUMNS,
             keep: Callable[[dict[str, Any]], bool] = lambda line: True) -> pl.DataFrame:
    """A results frame of ledger lines: one row per ``reply`` line that ``keep`` takes, ``columns``
    of it (name → ``str``, ``int``, ``float`` or ``list``; usage flattened)."""
    import polars as pl

    kinds: dict[str, pl.DataType] = {"str": pl.String(), "int": pl.Int64(), "float": pl.Float64(),
                                     "list": pl.List(pl.String())}
    schema = {name: kinds[kind] for name, kind in columns.items()}
    rows = [_row(line, columns) for line in lines if line.get("type") == "reply" and keep(line)]
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def load_results(path: str | Path) -> pl.DataFrame:
    """A results file (the JSONL ``toolkit.experiment.run`` appends) as one row per reply; the
    provider's raw response stays in the file, not the frame.

    Args:
        path: The results file (a missing file reads as no replies).

    Returns:
        The frame; a line cut short by a crash is skipped.
    """
    return frame_of(read_ledger(path))


def table(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per point x wire x mode x model: ``n``, the count of each reply kind, and the call
    rate (``called`` / ``n``) with its Wilson 95% interval ``low``-``high``.

    Args:
        frame: The replies, as ``load_results`` reads them.

    Returns:
        The summary frame, in the order the points first appear.
    """
    import polars as pl

    counts = (
        frame.group_by(*GROUP, maintain_order=True)
        .agg(pl.len().alias("n"), *[(pl.col("kind") == kind).sum().alias(kind) for kind in REPLY_KINDS],
             pl.col("expect").first().list.join(", ").alias("expect"))
    )
    rows = []
    for row in counts.iter_rows(named=True):
        low, high = wilson(row["called"], row["n"])
        rows.append({**row, "rate": row["called"] / row["n"], "low": low, "high": high})
    columns = [*GROUP, "expect", "n", *REPLY_KINDS, "rate", "low", "high"]
    schema: dict[str, pl.DataType] = {
        **{name: pl.String() for name in (*GROUP, "expect")}, "n": pl.Int64(),
        **{kind: pl.Int64() for kind in REPLY_KINDS}, "rate": pl.Float64(), "low": pl.Float64(), "high": pl.Float64(),
    }
    out = pl.DataFrame(rows, schema=schema, orient="row")
    order = {mode: i for i, mode in enumerate(MODES)}
    return out.select(columns).sort(
        [*POINT, pl.col("mode").replace_strict(order, default=len(MODES), return_dtype=pl.Int64), "model", "wire"])


def chart(frame: pl.DataFrame) -> Any:
    """Call rate by mode and model, each with its Wilson 95% interval as an error bar (one panel
    per point when there are several).

    Args:
        frame: The replies, as ``load_results`` reads them.

    Returns:
        The altair chart.
    """
    import altair as alt

    summary = table(frame)
    rows = summary.with_columns(point=frame_point(summary))
    base = alt.Chart(rows).encode(
        x=alt.X("mode:N", sort=list(MODES), title="replay mode"),
        xOffset=alt.XOffset("model:N"),
        color=alt.Color("model:N", title="model"),
    )
    points = base.mark_point(filled=True, size=60).encode(
        y=alt.Y("rate:Q", title="replies that called the expected tool", scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%")),
        tooltip=["point", "wire", "mode", "model", "n", "called", "called_other", "said", "other",
                 alt.Tooltip("rate:Q", format=".0%"), alt.Tooltip("low:Q", format=".0%"),
                 alt.Tooltip("high:Q", format=".0%")],
    )
    bars = base.mark_errorbar(ticks=True).encode(y=alt.Y("low:Q", title=None), y2="high:Q")
    layered = alt.layer(bars, points).properties(width=240, height=200)
    if rows.select("point").n_unique() > 1:
        return layered.facet(column=alt.Column("point:N", title=None))
    return layered


def frame_point(rows: pl.DataFrame) -> pl.Series:
    """A point's label: ``session @ message``."""
    import polars as pl

    return rows.select(pl.concat_str([pl.col("session"), pl.col("at")], separator=" @ ")).to_series()
