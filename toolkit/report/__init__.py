"""The shareable report: every notebook executed over a corpus into HTML that opens offline."""

from __future__ import annotations

from toolkit.report.runner import (
    CELL_TIMEOUT,
    CellTiming,
    Executed,
    build,
    execute,
    execute_timed,
    inject_parameters,
    main,
    notebooks,
    to_html,
)
from toolkit.report.widgets import static_widgets

__all__ = [
    "CELL_TIMEOUT",
    "CellTiming",
    "Executed",
    "build",
    "execute",
    "execute_timed",
    "inject_parameters",
    "main",
    "notebooks",
    "static_widgets",
    "to_html",
]
