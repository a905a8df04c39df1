"""Widget cells executed many times in a row, to show that no cell's reply reaches the client late.

The stall this guards against (``toolkit.report.runner``) struck about one widget cell in five under
load and none when idle, so one clean run proves little: the check runs many cells, in one kernel,
beside a process that keeps a core busy, and counts cells whose ``execute_reply`` was read more than
``threshold`` seconds after the kernel sent it. ``stock=True`` runs nbclient's own ``Output`` widget
mimic instead of ours, to show the check can see the stall it exists for."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat

SETUP = ("import altair as alt\nimport ipywidgets as widgets\nimport polars as pl\n"
         "from IPython.display import display\nalt.renderers.enable('svg')\n"
         "frame = pl.DataFrame({'x': list(range(200)), 'y': [i % 7 for i in range(200)]})")
WIDGET_CELL = ("picker = widgets.Dropdown(options=['a', 'b', 'c'], value='a', description='pick')\n"
               "out = widgets.Output()\n"
               "def draw(change=None):\n"
               "    with out:\n"
               "        out.clear_output(wait=True)\n"
               "        display(alt.Chart(frame).mark_point().encode(x='x', y='y'))\n"
               "picker.observe(draw, names='value')\n"
               "draw()\n"
               "display(picker, out)")
"""The pattern of notebook 06's session picker: a dropdown and an ``Output`` widget that clears and
redraws a chart."""


@dataclass(frozen=True)
class StressResult:
    cells: int
    late: tuple[tuple[int, float], ...]
    """(cell index, seconds late) of every cell read later than the threshold."""
    widget_views: int


def widget_notebook(cells: int, directory: Path) -> Path:
    """A notebook of one setup cell and ``cells`` copies of ``WIDGET_CELL``."""
    nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    nb.cells = [nbformat.v4.new_code_cell(SETUP)]  # type: ignore[no-untyped-call]
    nb.cells += [nbformat.v4.new_code_cell(WIDGET_CELL) for _ in range(cells)]  # type: ignore[no-untyped-call]
    path = directory / "widgets.ipynb"
    nbformat.write(nb, path)  # type: ignore[no-untyped-call]
    return path


@contextmanager
def cpu_hog() -> Iterator[None]:
    """A process spinning on one core for as long as the block runs."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        hog.kill()
        hog.wait()


def stress(cells: int = 40, threshold: float = 3.0, timeout: int = 60, stock: bool = False) -> StressResult:
    """Run ``cells`` widget cells in one kernel beside a CPU hog and report the late ones."""
    from nbclient.output_widget import OutputWidget

    from toolkit.report import runner

    widget = OutputWidget if stock else runner.LocalOutputWidget
    with tempfile.TemporaryDirectory(prefix="toolkit-stress-") as scratch, cpu_hog():
        path = widget_notebook(cells, Path(scratch))
        nb, timings = runner.execute_timed(path, timeout=timeout, output_widget=widget)
    late = tuple((t.index, round(t.late, 1)) for t in timings if t.late > threshold)
    views = sum(1 for cell in nb.cells for output in cell.get("outputs", [])
                if "application/vnd.jupyter.widget-view+json" in output.get("data", {}))
    return StressResult(len(timings), late, views)
