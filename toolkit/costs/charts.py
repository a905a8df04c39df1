"""Altair charts and controls over the frames of ``toolkit.costs.compare``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import polars as pl

from toolkit.axes import count_axis
from toolkit.costs.compare import CELL, cheapest_pages, image_vs_text

SAVING_COLUMNS = ("model", "width", "height", "pages", "image_tokens", "text_tokens", "billed_saving")


def savings(best: pl.DataFrame, title: str = "") -> alt.Chart:
    """Per model, the share of the text's tokens its cheapest unshrunk pages save by billing alone (a
    ``cheapest_pages`` frame); bars left of zero: the pages cost more than the text."""
    chart: alt.Chart = alt.Chart(best).mark_bar().encode(
        x=alt.X("billed_saving:Q", axis=alt.Axis(format="%"),
                title="tokens saved by full pages instead of text, billing alone"),
        y=alt.Y("model:N", sort="-x", title=None),
        color="provider:N",
        tooltip=["model", "width", "height", "pages", "image_tokens", "text_tokens"],
    ).properties(width=420, title=title)
    return chart


def size_steps(sweep: pl.DataFrame) -> alt.FacetChart:
    """Tokens against image side per provider (a ``size_sweep`` frame), as the step function each
    rule is; filled points where the provider shrinks the image before the model sees it."""
    base = alt.Chart(sweep).encode(
        x=alt.X("width:Q", title="image side (px)", axis=count_axis()),
        y=alt.Y("tokens:Q", title="tokens", axis=count_axis()),
        color="model:N",
    )
    lines = base.mark_line(interpolate="step-after")
    shrunk = base.transform_filter(alt.datum.downscaled == True).mark_circle(size=14)  # noqa: E712 (a Vega expression)
    chart: alt.FacetChart = (lines + shrunk).properties(width=260, height=200).facet(
        column="provider:N").resolve_scale(y="independent")
    return chart


def cell_explorer(text: str, models: Sequence[str], cell: tuple[int, int] = CELL, sample: str = "") -> Any:
    """Sliders for the glyph cell; the cheapest unshrunk pages per model, billing alone, update on
    every change (smaller glyphs pack more characters per page, until they stop being legible), each
    row naming its ``sample``."""
    import ipywidgets as widgets

    width = widgets.IntSlider(cell[0], 3, 12, description="cell width")
    height = widgets.IntSlider(cell[1], 5, 24, description="cell height")
    out = widgets.Output()

    def update(*_: Any) -> None:
        frame = image_vs_text(text, models, cell=(width.value, height.value))
        out.outputs = ()
        shown = cheapest_pages(frame).select(*SAVING_COLUMNS)
        out.append_display_data(shown.select(pl.lit(sample or "not named").alias("sample"), pl.all()))

    width.observe(update, names="value")
    height.observe(update, names="value")
    update()
    return widgets.VBox([widgets.HBox([width, height]), out])
