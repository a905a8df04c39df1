"""What every notebook needs before its first cell of analysis: a corpus path that resolves
whether the notebook runs from ``notebooks/`` (JupyterLab) or the repository root (the report),
and charts that render without network (the report is opened offline)."""

from __future__ import annotations

from pathlib import Path


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
    raise FileNotFoundError(f"{path} not found from {here} or any parent directory")


def setup() -> None:
    """Render altair charts as inline SVG (vl-convert, no JavaScript from a CDN), which shows
    the same in JupyterLab, in nbconvert's HTML and offline."""
    import altair as alt

    alt.renderers.enable("svg")
    alt.data_transformers.disable_max_rows()
