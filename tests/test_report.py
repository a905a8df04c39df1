"""The report as a reader gets it: every notebook executed over the demo corpus into pages that open
offline, checked in a real browser with the network blocked, and widget cells that never stall."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.conftest import DATA, REPO
from toolkit.report import Executed, build, notebooks, static_widgets, to_html
from toolkit.report.stress import stress

NOTEBOOKS = notebooks(REPO / "notebooks")
REPORTS = REPO / "reports"
SHOTS = REPORTS / "shots"


@pytest.fixture(scope="module")
def report() -> dict[str, Executed]:
    """The whole report over ``data/``, built once for this module (what ``make report`` writes)."""
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


@pytest.mark.slow
def test_widget_cells_never_stall_under_load() -> None:
    """Before the fix, 8 of 40 such cells per run waited out the whole timeout under this load
    (``benchmarks/bench_widgets.py`` measures both ways)."""
    for _ in range(2):
        result = stress(cells=40, threshold=3.0, timeout=60)
        assert result.cells == 41
        assert not result.late, f"cells whose execute_reply reached the client late: {result.late}"
        assert result.widget_views == 80, "every cell displays its picker and its output widget"


def test_static_widgets_draw_saved_state_without_javascript() -> None:
    """Controls show the value they had, an Output widget shows what it captured, and a model
    the state lacks says so instead of leaving the output blank."""
    state: dict[str, Any] = {
        "box": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_label", "IPY_MODEL_bar"]}},
        "label": {"model_name": "HTMLModel", "state": {"value": "<b>loading</b>"}},
        "bar": {"model_name": "FloatProgressModel", "state": {"min": 0, "max": 10, "value": 4}},
        "pick": {"model_name": "DropdownModel",
                 "state": {"_options_labels": ["anthropic", "gemini"], "index": 1, "description": "wire"}},
        "out": {"model_name": "OutputModel", "state": {"outputs": [
            {"output_type": "display_data", "data": {"image/svg+xml": "<svg class='marks'></svg>"}},
            {"output_type": "stream", "name": "stdout", "text": "a & b\n"}]}},
        "empty": {"model_name": "OutputModel", "state": {"outputs": []}},
    }
    nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    views = ["box", "pick", "out", "empty", "gone"]
    nb.cells = [nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(  # type: ignore[no-untyped-call]
        "display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": v, "version_major": 2},
                              "text/plain": "widget"}) for v in views])]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state}}
    assert static_widgets(nb) == 5
    html = [o["data"]["text/html"] for o in nb.cells[0].outputs]
    assert "<b>loading</b>" in html[0] and '<progress value="4" max="10"' in html[0]
    assert "<option selected>gemini</option>" in html[1] and "<label>wire</label>" in html[1]
    assert "<svg class='marks'></svg>" in html[2] and "a &amp; b" in html[2]
    assert "empty in this report" in html[3]
    assert "not saved" in html[4]
    assert "widgets" not in nb.metadata
    page = to_html(nb)
    assert "unpkg" not in page and "require.min.js" not in page and "MathJax" not in page


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


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
    chromium = _chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = [*sorted(REPORTS.glob("[0-9][0-9]_*.html")), REPORTS / "index.html"]
    assert len(pages) == len(NOTEBOOKS) + 1
    blocked: list[str] = []
    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})

        def gate(route: Any) -> None:
            url = route.request.url
            if url.startswith(("file:", "data:", "blob:", "about:")):
                route.continue_()
            else:
                blocked.append(url)
                route.abort()

        context.route("**/*", gate)
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
        browser.close()
    assert not from_pages, f"requests that tried to leave the machine: {sorted(set(from_pages))}"
    assert blocked == ["https://cdn.jsdelivr.net/npm/vega@6"], "the gate must catch a control page's request"
    assert not errors, errors
    assert all((SHOTS / f"{p.stem}.png").stat().st_size > 10_000 for p in pages)


def test_redact_keeps_a_planted_key_out_of_the_report(tmp_path: Path) -> None:
    """``toolkit report --redact`` runs over a redacted copy: a key in the first user message is on
    the replay page without ``--redact`` and absent with it."""
    import random
    import string

    from toolkit.cli import main

    rng = random.Random(7)
    key = "sk-" + "ant-api03-" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(93)) + "AA"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    source = (DATA / "claude_code" / "fix-tests.jsonl").read_text(encoding="utf-8")
    assert source.count("Привет!") == 1
    (corpus / "fix-tests.jsonl").write_text(source.replace("Привет!", f"Привет! My key is {key}."),
                                             encoding="utf-8")
    pages = {}
    for flag in ([], ["--redact"]):
        out = tmp_path / ("redacted" if flag else "plain")
        code = main(["report", "--corpus", str(corpus), "-o", str(out), "--only", "02",
                     "--notebooks", str(REPO / "notebooks"), *flag])
        assert code == 0
        pages[bool(flag)] = (out / "02_replay.html").read_text(encoding="utf-8")
    assert key[:40] in pages[False], "the control page must show the planted key"
    assert key[:12] not in pages[True] and "redacted:anthropic-key" in pages[True]


def test_a_cell_that_hangs_fails_the_report_fast_and_is_named(tmp_path: Path) -> None:
    """The per-cell guard: a cell that never finishes fails its notebook within the guard, with the
    cell's source in the error, and the report still writes its index."""
    from toolkit.report.runner import CELL_TIMEOUT, cell_timeout

    notebooks_dir = tmp_path / "notebooks"
    notebooks_dir.mkdir()
    nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    nb.cells = [nbformat.v4.new_code_cell("CORPUS = 'data/'", metadata={"tags": ["parameters"]}),  # type: ignore[no-untyped-call]
                nbformat.v4.new_code_cell("import time\ntime.sleep(600)  # the hanging cell")]  # type: ignore[no-untyped-call]
    nbformat.write(nb, notebooks_dir / "01_hang.ipynb")  # type: ignore[no-untyped-call]
    results = build(DATA, tmp_path / "out", notebooks_dir, progress=False, timeout=3)
    assert len(results) == 1 and results[0].error is not None
    assert "time.sleep(600)  # the hanging cell" in results[0].error
    assert results[0].seconds < 60
    assert (tmp_path / "out" / "index.html").exists()
    assert CELL_TIMEOUT < 60 and cell_timeout(DATA) == CELL_TIMEOUT


def test_scrub_replaces_paths_only_where_they_stand_as_paths() -> None:
    from toolkit.report.runner import scrub

    paths = {"/scratch": "<tmp>", "/users/ada": "~", "/srv/checkout": "."}
    assert scrub("saved to /scratch/build and /users/ada/x; cwd /srv/checkout", paths) == "saved to <tmp>/build and ~/x; cwd ."
    untouched = ["data:image/png;base64,iVBO/scratchcmVz+/scratch/Zz==", "/users/adam/x", "/var/scratch/x",
                 "/srv/checkout2"]
    for text in untouched:
        assert scrub(text, paths) == text


def test_image_widgets_draw_their_saved_pixels() -> None:
    nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    output = nbformat.v4.new_output(  # type: ignore[no-untyped-call]
        "display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "img", "version_major": 2}})
    nb.cells = [nbformat.v4.new_code_cell("x", outputs=[output])]  # type: ignore[no-untyped-call]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"img": {
        "model_name": "ImageModel", "state": {"format": "png", "width": "300"},
        "buffers": [{"path": ["value"], "encoding": "base64", "data": "iVBORw0KGgo="}]}}}}
    static_widgets(nb)
    html = nb.cells[0].outputs[0]["data"]["text/html"]
    assert '<img src="data:image/png;base64,iVBORw0KGgo=" width="300"' in html


class _Recorder:
    """A kernel client's shell channel that records what is sent on it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, object]] = []
        self.session = self
        self.shell_channel = self

    def msg(self, msg_type: str, content: dict[str, object], parent: object, metadata: object) -> dict[str, object]:
        return {"msg_type": msg_type, "content": content}

    def send(self, msg: dict[str, object]) -> None:
        self.sent.append(msg)


class _Executor:
    def __init__(self) -> None:
        self.widget_state: dict[str, dict[str, object]] = {"w": {"outputs": []}}


@pytest.mark.parametrize("local", [True, False], ids=["report", "nbclient"])
def test_the_output_widget_mimic_sends_nothing_on_the_shell_socket(local: bool) -> None:
    """The cause of the stall, checked without a kernel: nbclient's mimic sends a ``comm_msg`` on the
    shell channel for every captured output; the report's keeps the state on the client."""
    from nbclient.output_widget import OutputWidget

    from toolkit.report.runner import LocalOutputWidget

    kind = LocalOutputWidget if local else OutputWidget
    client, executor = _Recorder(), _Executor()
    widget = kind("w", {"outputs": []}, client, executor)  # type: ignore[arg-type]
    display = {"header": {"msg_type": "display_data"}, "parent_header": {"msg_id": "m"},
               "content": {"data": {"text/plain": "hi"}, "metadata": {}}}
    widget.clear_output([], {"parent_header": {"msg_id": "m"}, "content": {"wait": True}}, 0)
    widget.output([], display, None, 0)
    widget.clear_output([], {"parent_header": {"msg_id": "m"}, "content": {"wait": False}}, 0)
    widget.output([], display, None, 0)
    assert executor.widget_state["w"]["outputs"] == widget.outputs and len(widget.outputs) == 1
    if local:
        assert client.sent == []
    else:
        assert [m["msg_type"] for m in client.sent] == ["comm_msg"] * 3
