"""Text against images: what the same characters cost as text and as pages of small glyphs.

An image is billed by its size (or flat), never by the characters drawn in it, so a page of dense
text can cost fewer tokens than the text. The page only helps while the provider does not shrink
it: a downscaled page shrinks its glyphs too. Pages here are plain character grids of a fixed glyph
cell; the glyph-snapshot module renders real ones, these are the budget arithmetic. Every image
figure keeps its evidence class (``evidence`` for the tokens, ``seen_evidence`` for the size the
model sees): a page "kept at full size" by an assumed resize is a weaker claim than a documented one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.content import session_text
from toolkit.costs.images import image_tokens, rule_for
from toolkit.costs.models import resolve
from toolkit.costs.text import text_tokens

if TYPE_CHECKING:
    import polars as pl

    from toolkit.corpus import Corpus
    from toolkit.record import Session

CELL = (6, 12)
"""Default glyph cell in pixels (width, height): a small bitmap font with a little leading. An
assumption to vary, not a measured legibility limit."""

# Sizes at the providers' limits (the constants of ``toolkit.costs.images``, each with its source
# beside it): Gemini's 384-px single image, OpenAI's 512-px tile and 768-px short side (also Gemini's
# tile), Claude's largest unresized square 1092 and its 1568-px edge, OpenAI's 2048-px fit; and a
# full-HD screenshot.
PAGE_SIZES: tuple[tuple[int, int], ...] = (
    (384, 384), (512, 512), (768, 768), (1024, 1024), (1092, 1092), (1568, 1568), (2048, 2048), (1920, 1080),
)


MIN_TEXT = 2000
"""Characters below which one session is too little text to fill a page, and ``corpus_text``
takes every session's instead."""


def corpus_text(corpus: Corpus, minimum: int = MIN_TEXT) -> str:
    """Text to compare as text and as pages: the longest session's path, or every session's when
    that holds fewer than ``minimum`` characters (a small demo corpus)."""
    return _chosen(corpus, minimum)[0]


def _chosen(corpus: Corpus, minimum: int) -> tuple[str, Session | None]:
    """``corpus_text``'s text, and the session it is the path of (``None``: every session's text)."""
    if not corpus.sessions:
        return "", None
    longest = corpus.longest()
    text = session_text(longest)
    if len(text) >= minimum:
        return text, longest
    return "\n".join(found for session in corpus.sessions if (found := session_text(session))), None


@dataclass(frozen=True, slots=True)
class Sample:
    """Text to compare as text and as pages, and its name: every table of a figure on it shows the
    name, since the figure is of this text and no other."""

    text: str
    name: str


def corpus_sample(corpus: Corpus, where: str, minimum: int = MIN_TEXT) -> Sample:
    """``corpus_text`` with its name: ``where`` (the corpus as the reader knows it, e.g. ``data/``),
    which text was taken and how many characters."""
    text, longest = _chosen(corpus, minimum)
    if longest is not None:
        taken = f"the longest session's path ({longest.format} {longest.id})"
    else:
        taken = f"every session's text ({len(corpus.sessions)} sessions)"
    return Sample(text, f"{where}: {taken}, {len(text):,} characters")


def text_counts(text: str, models: Iterable[str]) -> pl.DataFrame:
    """The text's tokens per model, and how far to trust each count (columns: model, family,
    tokens, exact, method, error_median, error_p90)."""
    import polars as pl

    return pl.DataFrame([
        {"model": model, "family": c.family, "tokens": c.tokens, "exact": c.exact, "method": c.method,
         "error_median": c.error_median, "error_p90": c.error_p90}
        for model in models for c in [text_tokens(text, model)]
    ], schema_overrides={"error_median": pl.Float64, "error_p90": pl.Float64})


def chars_per_page(width: int, height: int, cell: tuple[int, int] = CELL) -> int:
    return (width // cell[0]) * (height // cell[1])


def image_vs_text(
    text: str,
    models: Iterable[str],
    sizes: Sequence[tuple[int, int]] = PAGE_SIZES,
    cell: tuple[int, int] = CELL,
    detail: str | None = None,
    platform: str = "gemini-api",
) -> pl.DataFrame:
    """One row per model and page size: the text's tokens, the pages it fills, what those pages
    cost, whether the provider downscales them, and the ratio image/text (below 1: images cheaper).

    Columns: provider, model, family, width, height, resized_width, resized_height, downscaled,
    glyph_height_seen (the cell height after the provider's resize, pixels), chars_per_page, pages,
    tokens_per_page, image_tokens, text_tokens, text_exact, ratio, rule, platform (Gemini only),
    evidence, seen_evidence."""
    import polars as pl

    rows: list[dict[str, object]] = []
    for model in models:
        family = resolve(model).family
        rule_for(model)
        counted = text_tokens(text, model)
        for width, height in sizes:
            page = image_tokens(width, height, model, detail, platform=platform)
            capacity = chars_per_page(width, height, cell)
            pages = max(1, math.ceil(len(text) / capacity))
            seen_width, seen_height = page.resized
            rows.append({
                "provider": family.provider, "model": model, "family": family.name,
                "width": width, "height": height, "resized_width": seen_width, "resized_height": seen_height,
                "downscaled": page.downscaled, "glyph_height_seen": round(cell[1] * seen_height / height, 2),
                "chars_per_page": capacity, "pages": pages, "tokens_per_page": page.tokens,
                "image_tokens": pages * page.tokens, "text_tokens": counted.tokens, "text_exact": counted.exact,
                "ratio": pages * page.tokens / max(1, counted.tokens), "rule": page.rule,
                "platform": page.platform, "evidence": page.evidence, "seen_evidence": page.seen_evidence,
            })
    return pl.DataFrame(rows, schema_overrides={"platform": pl.String})


def cheapest_pages(frame: pl.DataFrame) -> pl.DataFrame:
    """Per model, the cheapest page size the provider does not downscale, against the text:
    ``billed_saving`` is the fraction of the text's tokens the pages save (negative: the pages cost
    more) by billing alone, every cell of the grid filled, with no margin, column gutter or line
    break and no condition that anything can read it; what a model's readable preset pages save is
    ``toolkit.snapshot.savings``'. ``evidence`` and ``seen_evidence`` say how the count and the "not
    downscaled" are known."""
    import polars as pl

    kept = frame.filter(~pl.col("downscaled"))
    best = kept.sort("image_tokens").group_by("model", maintain_order=True).first()
    return best.select(
        "provider", "model", "width", "height", "pages", "image_tokens", "text_tokens", "text_exact",
        (1 - pl.col("ratio")).alias("billed_saving"), "evidence", "seen_evidence",
    ).sort("provider", "model")


def size_sweep(models: Iterable[str], sides: Iterable[int], aspect: float = 1.0,
               detail: str | None = None, platform: str = "gemini-api") -> pl.DataFrame:
    """Tokens and resize for images ``side`` px wide and ``side / aspect`` high, per model: the
    staircase of each provider's rule (columns: provider, model, width, height, tokens, resized
    width/height, downscaled, rule, platform, evidence, seen_evidence)."""
    import polars as pl

    rows: list[dict[str, object]] = []
    for model in models:
        family = resolve(model).family
        for side in sides:
            height = max(1, round(side / aspect))
            try:
                cost = image_tokens(side, height, model, detail, platform=platform)
            except ValueError:
                continue
            rows.append({
                "provider": family.provider, "model": model, "width": side, "height": height,
                "tokens": cost.tokens, "resized_width": cost.resized[0], "resized_height": cost.resized[1],
                "downscaled": cost.downscaled, "rule": cost.rule, "platform": cost.platform,
                "evidence": cost.evidence, "seen_evidence": cost.seen_evidence,
            })
    return pl.DataFrame(rows, schema_overrides={"platform": pl.String})


def first_downscaled(sweep: pl.DataFrame) -> pl.DataFrame:
    """Per model of a ``size_sweep``, the smallest width the provider shrinks, and how that resize
    is known (``seen_evidence``: an assumed one is a guess); models never shrunk in the sweep are absent."""
    import polars as pl

    return (sweep.filter(pl.col("downscaled")).group_by("model")
            .agg(pl.col("width").min().alias("shrunk_from"), pl.col("seen_evidence").first()).sort("model"))
