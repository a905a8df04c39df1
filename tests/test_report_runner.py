"""The report's runner and page template, each part checked on its own (the whole report over the
demo corpus is ``tests/test_report.py``): widget cells that never stall, static widgets, the
redacted report, the per-cell guard and path scrubbing."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.conftest import DATA
from toolkit.report import build, static_widgets, to_html
from toolkit.report.stress import stress


@pytest.mark.slow
def test_widget_cells_never_stall_under_load() -> None:
    """Before the fix, 8 of 40 such cells per run waited out the whole timeout under this load
    (``benchmarks/bench_widgets.py`` measures both ways), so one run of 40 finds a regression."""
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


def test_redact_keeps_a_planted_key_out_of_the_report(tmp_path: Path) -> None:
    """``toolkit report --redact`` runs over a redacted copy: a key in the first user message is on
    a page that prints every text block without ``--redact`` and absent with it. (A small notebook
    of its own: the copy, not the notebook, is what keeps the key out, and any notebook of the
    report shows less of the corpus than this one.)"""
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
    notebooks_dir = tmp_path / "notebooks"
    notebooks_dir.mkdir()
    nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    nb.cells = [nbformat.v4.new_code_cell("CORPUS = 'data/'", metadata={"tags": ["parameters"]}),  # type: ignore[no-untyped-call]
                nbformat.v4.new_code_cell(  # type: ignore[no-untyped-call]
                    "from toolkit.corpus import load\nfrom toolkit.notebook import resolve\n"
                    "for session in load(resolve(CORPUS)).sessions:\n"
                    "    for _, block in session.blocks():\n"
                    "        if block.kind == 'text':\n"
                    "            print(block.text)")]
    nbformat.write(nb, notebooks_dir / "01_text.ipynb")  # type: ignore[no-untyped-call]
    pages = {}
    for flag in ([], ["--redact"]):
        out = tmp_path / ("redacted" if flag else "plain")
        code = main(["report", "--corpus", str(corpus), "-o", str(out), "--notebooks", str(notebooks_dir), *flag])
        assert code == 0
        pages[bool(flag)] = (out / "01_text.html").read_text(encoding="utf-8")
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
    assert CELL_TIMEOUT < 600 and CELL_TIMEOUT <= cell_timeout(DATA) < CELL_TIMEOUT + 10  # below nbclient's own default


def test_scrub_replaces_paths_only_where_they_stand_as_paths() -> None:
    from toolkit.report.runner import scrub

    paths = {"/scratch": "$TMPDIR", "/users/ada": "~", "/srv/checkout": "."}
    assert scrub("saved to /scratch/build and /users/ada/x; cwd /srv/checkout", paths) == "saved to $TMPDIR/build and ~/x; cwd ."
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


def test_the_temporary_directory_shows_in_a_browser(tmp_path: Path) -> None:
    """The scrubbed temporary directory survives HTML: no tag-like name a browser would drop."""
    import html.parser

    from toolkit.report.runner import machine_paths, scrub

    replaced = scrub(f"<p>wrote {tempfile.gettempdir()}/replay-x.json</p>", machine_paths(tmp_path))

    class Text(html.parser.HTMLParser):
        seen = ""

        def handle_data(self, data: str) -> None:
            self.seen += data

    reader = Text()
    reader.feed(replaced)
    assert reader.seen == "wrote $TMPDIR/replay-x.json"


def test_a_report_run_from_another_directory_finds_the_notebooks_and_the_demo_corpus(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a directory without ``notebooks/`` or ``data/`` (a user's own), the report runs the
    repository's notebooks over its demo corpus, as from the checkout."""
    from toolkit.cli import main
    from toolkit.report import runner

    ran: list[tuple[Path, Path, str | None]] = []

    def recorded(corpus: Path, out: Path, directory: Path, only: str | None = None,
                 progress: bool = True, timeout: int | None = None) -> list[runner.Executed]:
        ran.append((corpus, directory, only))
        return [runner.Executed(p, out / f"{p.stem}.html", 0.1, None) for p in runner.notebooks(directory)]

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "build", recorded)
    assert main(["report", "-o", str(tmp_path / "out"), "--only", "01"]) == 0
    assert ran == [(DATA, DATA.parent / "notebooks", "01")]


@pytest.mark.parametrize("given", [False, True], ids=["looked-for", "named"])
def test_a_report_without_notebooks_says_where_it_looked_in_one_line(given: bool, tmp_path: Path) -> None:
    """Where no notebook can be found (an installed package, or ``--notebooks`` naming a folder
    without any), one line names every place looked at and the option, and the exit code is 2."""
    empty = tmp_path / "empty"
    empty.mkdir()
    # a copy of the package outside any repository: what a wheel installs
    site = tmp_path / "site"
    code = ("import shutil, sys, toolkit, pathlib; "
            "shutil.copytree(pathlib.Path(toolkit.__file__).parent, sys.argv[1], "
            "ignore=shutil.ignore_patterns('__pycache__'))")
    subprocess.run([sys.executable, "-c", code, str(site / "toolkit")], check=True)
    args = ["report", "--corpus", str(DATA), *(["--notebooks", str(empty)] if given else [])]
    result = subprocess.run([sys.executable, "-m", "toolkit.cli", *args], cwd=empty, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(site)}, timeout=120, check=False)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    looked = [str(empty)] if given else [str(empty / "notebooks"), str(tmp_path / "site" / "notebooks")]
    assert line == f"toolkit report: no numbered notebooks (NN_name.ipynb) in {' or '.join(looked)}: " \
                   "name the folder with --notebooks"
