"""Per reply, the input tokens the source recorded against the toolkit's estimate of the same
request: where the two part, the transcript did not show everything the request carried (a
client's own system prompt and tools) or the estimator is off (its stated error is in the legend)."""

from __future__ import annotations

import altair as alt
import polars as pl

from toolkit.axes import count_axis
from toolkit.browse.usage import message_usage
from toolkit.measured import measured
from toolkit.record import Session


def usage_frame(session: Session) -> pl.DataFrame:
    """One row per reply with usage or a model: index (position in the session), message_id, model,
    recorded (input tokens of the request as recorded: fresh, cache read and written), estimate
    (``toolkit.browse.usage``), method, output (recorded, null where unknown: ``toolkit.measured``),
    cost_usd."""
    rows = []
    for m, found in message_usage(session).items():
        used = found.recorded
        rows.append({"index": m, "message_id": session.messages[m].id, "model": session.messages[m].model,
                     "recorded": used.context if used and measured(used) else None, "estimate": found.estimate,
                     "method": found.method, "output": found.output, "cost_usd": found.cost})
    schema = {"index": pl.Int64, "message_id": pl.String, "model": pl.String, "recorded": pl.Int64,
              "estimate": pl.Int64, "method": pl.String, "output": pl.Int64, "cost_usd": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def usage_chart(session: Session, *, width: int = 760) -> alt.Chart:
    """Recorded input tokens and the toolkit's estimate per reply, by message position."""
    data = usage_frame(session).unpivot(index=["index", "message_id", "model", "method"],
                                        on=["recorded", "estimate"], variable_name="measure",
                                        value_name="tokens").drop_nulls("tokens")
    chart: alt.Chart = alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("index:Q", title="message (position in the session)", axis=count_axis()),
        y=alt.Y("tokens:Q", title="input tokens of the request", axis=count_axis()),
        color=alt.Color("measure:N", scale=alt.Scale(domain=["recorded", "estimate"],
                                                     range=["#2e7d32", "#e08a00"]),
                        title=None),
        tooltip=["index", "message_id", "model", "measure", alt.Tooltip("tokens:Q", format=","), "method"],
    ).properties(width=width, height=260,
                 title=f"{session.title or session.id}: recorded input against the toolkit's estimate")
    return chart
