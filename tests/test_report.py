"""The report as a reader gets it: every notebook executed over the demo corpus (with RapidOCR as
the only reader) into pages that open offline, checked in a real browser with the network blocked."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import DATA, REPO
from tests.helpers import chromium, gated
from toolkit.report import Executed, build, notebooks
from toolkit.snapshot.readers import tesseract_available

NOTEBOOKS = notebooks(REPO / "notebooks")
REPORTS = REPO / "reports"
SHOTS = REPORTS / "shots"


@pytest.fixture(scope="module")
def report() -> dict[str, Executed]:
    """The whole report over ``data/``, built once for this module (what ``make report`` writes), as
    a machine without tesseract builds it: with tesseract hidden from the kernels' ``PATH``, RapidOCR
    (the slower reader, a Python dependency, so always there) is the only one, and every cell must
    still finish inside its guard."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(Path(sys.executable).parent))
        assert not tesseract_available(), "tesseract must be hidden from the kernels"
        results = build(DATA, REPORTS, REPO / "notebooks", progress=False)
    return {r.notebook.stem: r for r in results}


@pytest.mark.parametrize("stem", [p.stem for p in NOTEBOOKS])
def test_notebook_runs_without_error_or_stall(report: dict[str, Executed], stem: str) -> None:
    result = report[stem]
    assert result.error is None, result.error
    assert result.cells, "no cell timings recorded"
    assert not result.stalls, f"cells whose reply reached the client late: {result.stalls}"


@pytest.mark.parametrize("stem", [p.stem for p in NOTEBOOKS])
def test_page_fetches_nothing_and_names_no_machine_path(report: dict[str, Executed], stem: str) -> None:
    page = (REPORTS / f"{stem}.html").read_text(encoding="utf-8")
    loads = re.findall(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](https?:)?//""", page)
    assert not loads, f"{stem} loads from the network"
    assert "cdn.jsdelivr" not in page and "unpkg.com" not in page and "cdnjs" not in page
    for path in {str(REPO), str(Path.home()), tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir())}:
        assert path not in page, f"{stem} shows the machine path {path}"
    assert "injected-parameters" not in page, f"{stem} shows the injected parameters cell"
    assert "# as this report ran" in page, f"{stem} shows the notebook's default parameters, not the run's"
    assert "application/vnd.jupyter.widget-view+json" not in page, f"{stem} still holds a widget view"


SESSION_PAGE_BOUND = 600_000
"""Bytes the session browser's page (notebook 09) may take over ``data/``: every page of the report carries
the template's style (a little under 270 KB), the showcase session adds its drawn page and the widget's
saved state (about 170 KB together); the bound leaves room for a richer showcase and fails the page
drawn over the longest session (over 2 MB: its drawn page and its copy in the widget state)."""


def test_the_session_browser_page_stays_small(report: dict[str, Executed]) -> None:
    size = (REPORTS / "09_session_browser.html").stat().st_size
    assert size < SESSION_PAGE_BOUND, f"the session browser's page is {size:,} bytes"


_CHECKS = """() => {
  const out = {charts: 0, empty_charts: [], unloaded: [], empty_outputs: [], tracebacks: 0, widgets: 0};
  const markSelector = 'g[class*="mark-"] path, g[class*="mark-"] rect, g[class*="mark-"] line, ' +
    'g[class*="mark-"] circle, g[class*="mark-"] text';
  const svgs = [...document.querySelectorAll('svg.marks')];
  for (const img of document.querySelectorAll('img[src^="data:image/svg+xml;base64,"]')) {
    if (!img.complete || img.naturalWidth === 0) out.unloaded.push(img.src.slice(0, 80));
    const text = atob(img.src.split(',')[1]);
    const svg = new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('svg');
    if (svg && svg.classList.contains('marks')) svgs.push(svg);
  }
  for (const svg of svgs) {
    out.charts += 1;
    if (svg.querySelectorAll(markSelector).length === 0) out.empty_charts.push(out.charts);
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.complete || img.naturalWidth === 0) out.unloaded.push(img.src.slice(0, 80));
  }
  for (const el of document.querySelectorAll('.jp-OutputArea-output')) {
    const blank = el.innerText.trim() === '' && !el.querySelector('svg, img, select, input, progress, table');
    if (blank) out.empty_outputs.push(el.outerHTML.slice(0, 200));
  }
  out.widgets = document.querySelectorAll('.toolkit-static-widget').length;
  out.blank_widgets = document.querySelectorAll('.toolkit-widget-empty, .toolkit-widget-missing, .toolkit-widget-unknown').length;
  const streams = [...document.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]')];
  out.tracebacks = streams.filter(e => /Traceback \\(most recent call last\\)/.test(e.innerText)).length
    + document.querySelectorAll('[data-mime-type="application/vnd.jupyter.error"]').length;
  return out;
}"""


def test_every_page_draws_offline_in_a_real_browser(report: dict[str, Executed]) -> None:
    """Headless Chromium opens each page with every request that is not a local file blocked and
    recorded, screenshots it into ``reports/shots/``, and finds charts with marks, no blank output
    and no traceback."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = [*sorted(REPORTS.glob("[0-9][0-9]_*.html")), REPORTS / "index.html"]
    assert len(pages) == len(NOTEBOOKS) + 1
    blocked: list[str] = []
    errors: list[str] = []
    with chromium() as browser:
        context = gated(browser, ("file:",), blocked)
        for path in pages:
            page = context.new_page()
            page.on("console", lambda msg, name=path.name: errors.append(f"{name}: {msg.text}")
                    if msg.type == "error" else None)
            page.on("pageerror", lambda exc, name=path.name: errors.append(f"{name}: {exc}"))
            page.goto(path.as_uri(), wait_until="load")
            page.screenshot(path=str(SHOTS / f"{path.stem}.png"), full_page=True)
            found = page.evaluate(_CHECKS)
            page.close()
            if path.name == "index.html":
                continue
            assert found["charts"] > 0, f"{path.name}: no chart drawn"
            assert found["widgets"] > 0, f"{path.name}: no widget drawn"
            assert found["blank_widgets"] == 0, f"{path.name}: a widget drawn empty"
            assert not found["unloaded"], f"{path.name}: images that did not load {found['unloaded']}"
            assert not found["empty_charts"], f"{path.name}: charts without marks {found['empty_charts']}"
            assert not found["empty_outputs"], f"{path.name}: blank outputs {found['empty_outputs']}"
            assert found["tracebacks"] == 0, f"{path.name}: a traceback is shown"
        from_pages = list(blocked)
        control = SHOTS / "control.html"
        control.write_text("<!doctype html><script src='https://cdn.jsdelivr.net/npm/vega@6'></script><p>x</p>")
        page = context.new_page()
        page.goto(control.as_uri(), wait_until="load")
        page.close()
        control.unlink()
    assert not from_pages, f"requests that tried to leave the machine: {sorted(set(from_pages))}"
    assert blocked == ["https://cdn.jsdelivr.net/npm/vega@6"], "the gate must catch a control page's request"
    assert not errors, errors
    assert all((SHOTS / f"{p.stem}.png").stat().st_size > 10_000 for p in pages)
