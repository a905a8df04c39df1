"""Axis settings the chart modules share: an axis for a field that counts things (tool calls,
messages, runs, sessions, bytes, tokens...) shows whole numbers only."""

from __future__ import annotations

from typing import Any

import altair as alt

FRACTIONAL = "datum.value % 1 != 0"
"""A Vega test for an axis tick between two whole numbers."""


def count_axis(**properties: Any) -> alt.Axis:
    """An axis with ticks, grid lines and labels on whole numbers only.

    ``tickMinStep=1`` alone is not enough: Vega caps the tick count at ``span + 1``, and d3 then
    rounds the step down to a "nice" one (a domain 1..3 gets 3 ticks and a step of 0.5, labelled
    1, 2, 2, 3, 3 by an integer format). So ticks that still fall between whole numbers are drawn
    invisible and unlabelled."""
    return alt.Axis(
        tickMinStep=1,
        format=",d",
        labelExpr=f"{FRACTIONAL} ? '' : datum.label",
        tickOpacity={"condition": {"test": FRACTIONAL, "value": 0}, "value": 1},
        gridOpacity={"condition": {"test": FRACTIONAL, "value": 0}, "value": 1},
        **properties,
    )


__all__ = ["FRACTIONAL", "count_axis"]
