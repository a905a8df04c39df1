"""What glyph pages save against the same text sent as text: one answer per model and sample.

Notebook 04 (what text and images cost), notebook 05's preset table and ``benchmarks.preset_table``
(the figures of ``docs/findings.md`` and the guide) all take the figure from ``saving``: the model's
preset page (``tradeoff.geometry_for``: the provider's page its encoder sees unshrunk, in the glyph
cell legible by the one rule, rows reflowed), the text rendered onto it, and the text's tokens per
image token with every page full (``Assessment.compression_full``: what a history long enough to fill
its pages gets). ``Saving.saving`` is the share of the text's tokens that page saves. The figure
depends on the text (its tokens per character above all), so each one carries the name of its sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.errors import InvalidInput
from toolkit.snapshot.geometry import PRESET_MODELS, Geometry
from toolkit.snapshot.legibility import READER_ROWS, Assessment, assess
from toolkit.snapshot.tradeoff import geometry_for, preset, verdict

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True, slots=True)
class Saving:
    """One model's preset pages against the same text as text, on a named sample."""

    sample: str
    """What the text is: corpus, sessions, characters."""
    assessment: Assessment

    @property
    def compression(self) -> float:
        """Text tokens per image token, every page full (``Assessment.compression_full``)."""
        return self.assessment.compression_full

    @property
    def saving(self) -> float:
        """The share of the text's tokens the pages save (negative: the pages cost more)."""
        return 1.0 - 1.0 / self.compression

    @property
    def legible(self) -> bool | None:
        """The page's verdict by the one rule, as the tradeoff table gives it (``tradeoff.verdict``)."""
        return verdict(self.assessment).legible

    @property
    def not_judged(self) -> str | None:
        """Why ``legible`` is ``None`` (``tradeoff.verdict``; ``None`` where it is judged)."""
        return verdict(self.assessment).not_judged

    def row(self) -> dict[str, object]:
        """The figure and what it rests on, as one table row.

        Returns:
            The columns ``savings`` lists, by name."""
        found = self.assessment
        g = found.geometry
        judged = verdict(found)
        return {
            "sample": self.sample, "model": found.model, "cell": g.cell, "page": f"{g.width}x{g.height}",
            "columns": g.columns, "reflow": g.reflow, "pages": found.pages, "tokens_per_page": found.tokens_per_page,
            "text_tokens": found.text_tokens, "text_exact": found.text_tokens_exact,
            "compression": self.compression, "saving": self.saving, "legible": judged.legible,
            "not_judged": judged.not_judged, "evidence": found.tokens_evidence, "seen_evidence": found.seen_evidence,
        }


def saving(text: str, model: str, sample: str, *, geometry: Geometry | None = None,
           reader_names: Sequence[str] = (), reader_rows: int | None = READER_ROWS) -> Saving:
    """What ``model``'s preset pages save against ``text`` sent as text.

    Args:
        text: The text, sent both ways.
        model: The model that reads it.
        sample: The sample's name, shown with every figure of it.
        geometry: Another page than the preset (a variant of it, as ``benchmarks.preset_table`` reads).
        reader_names: OCR readers to read the pages too (``legibility``); none by default.
        reader_rows: How many rows those readers read.

    Returns:
        The pages' assessment with its compression and saving.

    Raises:
        InvalidInput: ``text`` is empty (nothing to save on) or ``sample`` names nothing."""
    if not text:
        raise InvalidInput(f"{sample or 'the sample'}: no text to compare as text and as pages")
    if not sample:
        raise InvalidInput("a saving needs the name of its sample: a figure without one cannot be compared")
    page = geometry_for(model) if geometry is None else geometry
    return Saving(sample, assess(text, page, model, reader_names=reader_names, reader_rows=reader_rows))


def savings(text: str, models: Iterable[str], sample: str) -> pl.DataFrame:
    """``saving`` per model, one row each.

    Args:
        text: The text, sent both ways.
        models: The models that read it.
        sample: The sample's name, shown on every row.

    Returns:
        Columns: sample, model, cell, page, columns, reflow, pages, tokens_per_page, text_tokens,
        text_exact, compression, saving, legible, not_judged (why legible is null; null where it is
        not), evidence, seen_evidence."""
    import polars as pl

    return pl.DataFrame([saving(text, model, sample).row() for model in models],
                        schema_overrides={"not_judged": pl.String})


def preset_table(text: str, sample: str, models: Sequence[str] = PRESET_MODELS) -> pl.DataFrame:
    """Notebook 05's preset table: per model its preset page and what it saves on the sample, the
    figure notebook 04 shows for the same sample.

    Args:
        text: The sample's text.
        sample: The sample's name, shown on every row.
        models: The models, one row each.

    Returns:
        Columns: sample, model, pricing, rule, cell, page, columns_x_cells, rows, tokens_per_page,
        cells_per_token (the ceiling: cells per image token), text_tokens, compression, saving, legible,
        not_judged, seen_evidence."""
    import polars as pl

    pages = pl.DataFrame([
        {"model": model, "pricing": p.pricing, "rule": p.rule, "columns_x_cells": f"{p.geometry.columns} x {p.geometry.cols}",
         "rows": p.geometry.rows, "cells_per_token": round(p.capacity_per_token, 1)}
        for model in models for p in [preset(model)]
    ])
    saved = savings(text, models, sample).select(
        "sample", "model", "cell", "page", "tokens_per_page", "text_tokens", "compression", "saving", "legible",
        "not_judged", "seen_evidence")
    return saved.join(pages, on="model", how="left").select(
        "sample", "model", "pricing", "rule", "cell", "page", "columns_x_cells", "rows", "tokens_per_page",
        "cells_per_token", "text_tokens", "compression", "saving", "legible", "not_judged", "seen_evidence")
