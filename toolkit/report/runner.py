"""The main job: execute every numbered notebook headless over a corpus and write a shareable,
self-contained HTML report (``make report``, ``toolkit report``).

Two things here are not what nbclient and nbconvert do by default, each for a measured reason:

* **No shell traffic from the client while a cell runs.** nbclient mimics a front end's
  ``Output`` widget and, each time that widget captures output, sends the new state back to the
  kernel as a ``comm_msg`` on the shell socket, from the task that reads IOPub, while another
  task is awaiting the cell's ``execute_reply`` on that same socket. Under load the reply's
  wake-up is then lost: the kernel sent it within 0.2 s (its own header says so), yet the client
  reads it only when the per-cell timeout fires pyzmq's final ``poll(0)``, which finds it, so the
  cell "succeeds" one timeout late (600 s in the report; jupyter/nbclient#312 and #311). The
  kernel never reads that state (only a front end draws it), so ``LocalOutputWidget`` keeps it on
  the client and sends nothing. ``toolkit.report.stress`` runs widget cells many times in a row
  under load and counts any cell whose reply reached the client late (``benchmarks/bench_widgets.py``
  both ways, figures in ``benchmarks/RESULTS.md``; a test).
* **Nothing fetched from the network.** Widgets become static HTML (``toolkit.report.widgets``),
  the page template leaves out require.js, MathJax, Mermaid and the widget manager, the injected
  parameters cell is hidden, and machine paths are replaced by what they stand for."""

from __future__ import annotations

import argparse
import datetime as dt
import html
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.output_widget import OutputWidget

from toolkit.errors import MissingPath, NotFound, ToolkitError
from toolkit.report.widgets import static_widgets

CELL_TIMEOUT = 180
"""Seconds one cell may run over the demo corpus before the report fails naming it: a guard against
a cell that never finishes, not a speed target. A slow cell is not a stall: on a busy 2-core
machine the demo's heaviest cells take several times their quiet time, and a stall (a reply the
client reads late) is caught by ``LATE_REPLY`` from the kernel's own reply time, whatever the
timeout. Larger corpora get more (``cell_timeout``)."""

SECONDS_PER_MB = 0.6
"""Extra guard time per megabyte of corpus: loading runs in one cell at roughly 70 MB/s on these
machines (``benchmarks/bench_import.py``), so this leaves a wide margin."""


LATE_REPLY = 10.0
"""Seconds by which a cell's reply may reach the client after the kernel sent it before the run
counts as stalled (a healthy run stays under 1 s, even under load)."""

INJECTED = "injected-parameters"
TEMPLATES = Path(__file__).parent / "templates"


def cell_timeout(corpus: Path) -> int:
    """The per-cell guard for a report over ``corpus``: ``CELL_TIMEOUT`` plus time for its size."""
    files = [corpus] if corpus.is_file() else [p for p in corpus.rglob("*") if p.is_file()]
    megabytes = sum(p.stat().st_size for p in files) / 1e6
    return CELL_TIMEOUT + int(SECONDS_PER_MB * megabytes)


class LocalOutputWidget(OutputWidget):
    """nbclient's ``Output`` widget mimic, minus the ``comm_msg`` it sends the kernel on every
    captured output: see the module docstring for the stall that send causes."""

    def sync_state(self) -> None:
        """Send nothing: nbclient records the outputs in ``executor.widget_state`` itself, right
        after each call, and that record is what the saved notebook and the report draw."""


@dataclass(frozen=True)
class CellTiming:
    """When the client saw a cell finish, against when the kernel says it replied."""

    index: int
    client_seconds: float
    kernel_seconds: float | None

    @property
    def late(self) -> float:
        """Seconds between the kernel's reply and the client reading it (0 when unknown)."""
        return 0.0 if self.kernel_seconds is None else max(0.0, self.client_seconds - self.kernel_seconds)


@dataclass(frozen=True)
class Executed:
    notebook: Path
    html: Path | None
    seconds: float
    error: str | None
    cells: tuple[CellTiming, ...] = field(default=())

    @property
    def stalls(self) -> tuple[CellTiming, ...]:
        return tuple(c for c in self.cells if c.late > LATE_REPLY)


def notebooks(directory: Path) -> list[Path]:
    """The numbered notebooks (``NN_name.ipynb``), in order."""
    return sorted(p for p in directory.glob("[0-9][0-9]_*.ipynb") if p.is_file())


CHECKOUT = Path(__file__).resolve().parents[2]
"""The folder that holds this package: in a clone, or an editable install of one, the repository,
beside ``notebooks/`` and ``data/`` (a wheel from an index holds neither)."""


def default_place(given: str | None, name: str, holds: Callable[[Path], bool], option: str) -> Path:
    """Where the report's ``name`` folder is: ``given`` (its option) alone, else ``./name``, else the
    one in the repository this package runs from, so that ``toolkit report`` works from any
    directory. When none holds what is needed, ``NotFound`` names every place looked at and the
    option, instead of a report of nothing."""
    places = [Path(given)] if given is not None else list(dict.fromkeys([Path(name).absolute(), CHECKOUT / name]))
    for place in places:
        if holds(place):
            return place
    wanted = "numbered notebooks (NN_name.ipynb)" if name == "notebooks" else "a corpus"
    looked = " or ".join(str(place) for place in places)
    raise NotFound(f"no {wanted} in {looked}: name the folder with {option}")


def parameters_cell(nb: nbformat.NotebookNode) -> int | None:
    """The index of the cell tagged ``parameters`` (papermill's convention), if there is one."""
    return next((index for index, cell in enumerate(nb.cells)
                 if "parameters" in cell.get("metadata", {}).get("tags", [])), None)


def inject_parameters(nb: nbformat.NotebookNode, values: dict[str, object]) -> None:
    """Put a cell that overrides the parameters right after the cell tagged ``parameters``, so the
    notebook's own defaults stay visible above it."""
    source = "\n".join(f"{name} = {value!r}" for name, value in values.items())
    cell = nbformat.v4.new_code_cell(source=source)  # type: ignore[no-untyped-call]
    cell.metadata["tags"] = [INJECTED]
    index = parameters_cell(nb)
    nb.cells.insert(0 if index is None else index + 1, cell)


def show_parameters(nb: nbformat.NotebookNode, shown: dict[str, object]) -> None:
    """Rewrite the assignments of the cell tagged ``parameters`` to the values a run used (as they
    should be shown: no machine path), so a page whose injected cell is hidden does not claim the
    notebook's defaults."""
    index = parameters_cell(nb)
    if index is None:
        return
    cell = nb.cells[index]
    lines = []
    for line in str(cell.source).splitlines():
        name = line.split("=", 1)[0].strip()
        if "=" in line and name in shown:
            line = f"{name} = {shown[name]!r}  # as this report ran"
        lines.append(line)
    cell.source = "\n".join(lines)


def _kernel_time(stamp: str | None) -> float | None:
    if not stamp:
        return None
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


class _Timed:
    """nbclient hooks recording, per cell, the client's wall clock at start and end."""

    def __init__(self) -> None:
        self.marks: dict[int, list[float]] = {}

    def start(self, cell: Any, cell_index: int, **_: Any) -> None:
        self.marks[cell_index] = [time.time()]

    def end(self, cell: Any, cell_index: int, **_: Any) -> None:
        self.marks.setdefault(cell_index, [time.time()]).append(time.time())

    def timings(self, nb: nbformat.NotebookNode) -> tuple[CellTiming, ...]:
        out = []
        for index, marks in sorted(self.marks.items()):
            if len(marks) < 2:
                continue
            reply = _kernel_time(nb.cells[index].metadata.get("execution", {}).get("shell.execute_reply"))
            out.append(CellTiming(index, marks[1] - marks[0], None if reply is None else reply - marks[0]))
        return tuple(out)


def execute(path: Path, parameters: dict[str, object] | None = None,
            timeout: int = CELL_TIMEOUT) -> nbformat.NotebookNode:
    """Run a notebook headless from its own directory (as JupyterLab would) and return it with
    outputs. A failing or timed-out cell raises ``nbclient.exceptions.CellExecutionError`` /
    ``CellTimeoutError`` naming the cell."""
    nb, _ = execute_timed(path, parameters, timeout)
    return nb


def execute_timed(path: Path, parameters: dict[str, object] | None = None, timeout: int = CELL_TIMEOUT,
                  output_widget: type[OutputWidget] = LocalOutputWidget,
                  ) -> tuple[nbformat.NotebookNode, tuple[CellTiming, ...]]:
    """``execute``, also returning when each cell's reply reached the client (``output_widget``
    exists so ``toolkit.report.stress`` can show the stall with nbclient's own mimic)."""
    nb: nbformat.NotebookNode = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    if parameters:
        inject_parameters(nb, parameters)
    timed = _Timed()
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            on_cell_execute=timed.start, on_cell_executed=timed.end)
    client.widget_registry["@jupyter-widgets/output"]["OutputModel"] = output_widget
    client.execute()
    return nb, timed.timings(nb)


def scrub(text: str, replacements: dict[str, str]) -> str:
    """``text`` with each machine path replaced by what it stands for, longest first, so a report
    names no directory of the machine that wrote it. A path is replaced only where it stands as a
    path (not inside a longer name such as ``/var/tmp`` or ``/rootfs``, nor inside base64 such as an
    embedded image's ``.../tmpX...``)."""
    for path in sorted(replacements, key=len, reverse=True):
        if path and path != "/":
            pattern = re.compile(rf"(?<![\w/.+-]){re.escape(path)}(?=[/\\\s\"'<>),;:\]]|$)")
            text = pattern.sub(replacements[path].replace("\\", "\\\\"), text)
    return text


TEMPORARY = "$TMPDIR"
"""What a report shows for the temporary directory: a name that reads as a path and holds no ``<``,
which a browser would take for a tag and drop (a scrubbed ``<tmp>/replay-x`` showed as ``/replay-x``)."""


def machine_paths(corpus: Path) -> dict[str, str]:
    """The directories a report must not show, and what to show instead."""
    repo = Path.cwd().resolve()
    out = {str(corpus.resolve()): corpus.name or "corpus", str(repo): ".",
           str(Path.home()): "~", tempfile.gettempdir(): TEMPORARY}
    out.setdefault(str(CHECKOUT), ".")  # run from elsewhere: the repository the notebooks came from
    real_tmp = os.path.realpath(tempfile.gettempdir())
    out.setdefault(real_tmp, TEMPORARY)
    return out


def to_html(nb: nbformat.NotebookNode, replacements: dict[str, str] | None = None) -> str:
    """The executed notebook as one page that loads nothing from the network."""
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    static_widgets(nb)
    exporter = HTMLExporter(template_name="lab", extra_template_paths=[str(TEMPLATES)],  # type: ignore[no-untyped-call]
                            template_file="offline.html.j2", embed_images=True)
    exporter.register_preprocessor(TagRemovePreprocessor(remove_cell_tags={INJECTED}), enabled=True)  # type: ignore[no-untyped-call]
    body, _ = exporter.from_notebook_node(nb)
    return scrub(str(body), replacements or {})


def build(corpus: Path, out: Path, directory: Path = Path("notebooks"), only: str | None = None,
          progress: bool = True, timeout: int | None = None) -> list[Executed]:
    """Execute the notebooks over ``corpus`` and write one HTML page each plus ``index.html``
    (``timeout``: seconds per cell, by default ``cell_timeout(corpus)``)."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError
    from tqdm.auto import tqdm

    out.mkdir(parents=True, exist_ok=True)
    selected = [p for p in notebooks(directory) if only is None or p.name.startswith(only)]
    paths = machine_paths(corpus)
    guard = cell_timeout(corpus) if timeout is None else timeout
    parameters: dict[str, object] = {"CORPUS": str(corpus.resolve()), "SHARED_REPORT": True}
    shown = {name: scrub(value, paths) if isinstance(value, str) else value for name, value in parameters.items()}
    results: list[Executed] = []
    bar = tqdm(selected, desc="notebooks", unit="nb", disable=not progress)
    for path in bar:
        bar.set_postfix_str(path.stem)
        started = time.perf_counter()
        try:
            nb, cells = execute_timed(path, parameters, guard)
            show_parameters(nb, shown)
        except (CellExecutionError, CellTimeoutError) as exc:
            message = scrub(str(exc), paths)[:4000]
            results.append(Executed(path, None, time.perf_counter() - started, message))
            continue
        target = out / (path.stem + ".html")
        target.write_text(to_html(nb, paths), encoding="utf-8")
        results.append(Executed(path, target, time.perf_counter() - started, None, cells))
    write_index(out, corpus, results)
    return results


def write_index(out: Path, corpus: Path, results: list[Executed]) -> Path:
    rows = []
    for r in results:
        name = html.escape(r.notebook.stem)
        if r.html is not None:
            rows.append(f'<li><a href="{html.escape(r.html.name)}">{name}</a> ({r.seconds:.1f} s)</li>')
        else:
            rows.append(f"<li>{name}: <b>failed</b><pre>{html.escape(r.error or '')}</pre></li>")
    page = ("<!doctype html><meta charset='utf-8'><title>Context toolkit report</title>"
            f"<h1>Context toolkit report</h1><p>Corpus: <code>{html.escape(corpus.name or 'corpus')}"
            f"</code></p><ol>{''.join(rows)}</ol>")
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", default=None,
                        help="corpus path (default: ./data, else the demo corpus of the toolkit's repository)")
    parser.add_argument("-o", "--out", default="reports", help="output directory (default: reports)")
    parser.add_argument("--notebooks", default=None,
                        help="notebook directory (default: ./notebooks, else those of the toolkit's repository)")
    parser.add_argument("--only", default=None, help="run only notebooks whose name starts with this")
    parser.add_argument("--cell-timeout", type=int, default=None, metavar="SECONDS",
                        help=f"fail a cell that runs longer (default: {CELL_TIMEOUT} s plus {SECONDS_PER_MB} s "
                             "per MB of corpus)")
    parser.add_argument("--redact", action="store_true",
                        help="run over a redacted copy of the corpus, so no secret reaches the report")


def run(args: argparse.Namespace) -> int:
    if args.corpus is not None and not Path(args.corpus).exists():
        raise MissingPath(f"{args.corpus}: no such file or directory")
    corpus = default_place(args.corpus, "data", Path.exists, "--corpus")
    folder = default_place(args.notebooks, "notebooks", _holds_notebooks, "--notebooks")
    if args.only is not None and not any(p.name.startswith(args.only) for p in notebooks(folder)):
        raise NotFound(f"no notebook in {folder} starts with {args.only!r} (--only)")
    with tempfile.TemporaryDirectory(prefix="toolkit-redacted-") as scratch:
        if args.redact:
            from toolkit.redact import redact

            redacted = Path(scratch) / (corpus.name or "corpus")
            summary = redact(corpus, redacted, progress=True)
            print(f"redacted: {summary.findings} secrets replaced", file=sys.stderr)
            corpus = redacted
        results = build(corpus, Path(args.out), folder, args.only, timeout=args.cell_timeout)
    for r in results:
        status = "FAILED" if r.error else ("STALLED" if r.stalls else "ok")
        print(f"{status:7} {r.notebook.name:40} {r.seconds:6.1f} s", file=sys.stderr)
        if r.error:
            print(r.error, file=sys.stderr)
    print(f"report: {Path(args.out) / 'index.html'}", file=sys.stderr)
    return 1 if not results or any(r.error or r.stalls for r in results) else 0


def _holds_notebooks(folder: Path) -> bool:
    return bool(notebooks(folder))


def main(argv: list[str] | None = None) -> int:
    """``python -m toolkit.report``: a ``ToolkitError`` is one line and exit 2, as in ``toolkit``."""
    parser = argparse.ArgumentParser(prog="python -m toolkit.report", description=__doc__.split("\n")[0])
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except ToolkitError as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
