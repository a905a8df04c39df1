"""The main job: execute every numbered notebook headless over a corpus and write a shareable,
self-contained HTML report (``make report``)."""

from __future__ import annotations

import argparse
import html
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

NOTEBOOK_TIMEOUT = 600
"""Seconds one cell may run before the report gives up on it."""


@dataclass(frozen=True)
class Executed:
    notebook: Path
    html: Path | None
    seconds: float
    error: str | None


def notebooks(directory: Path) -> list[Path]:
    """The numbered notebooks (``NN_name.ipynb``), in order."""
    return sorted(p for p in directory.glob("[0-9][0-9]_*.ipynb") if p.is_file())


def inject_parameters(nb: nbformat.NotebookNode, values: dict[str, object]) -> None:
    """Put a cell that overrides the parameters right after the cell tagged ``parameters``
    (papermill's convention), so the notebook's own defaults stay visible above it."""
    source = "\n".join(f"{name} = {value!r}" for name, value in values.items())
    cell = nbformat.v4.new_code_cell(source=source)  # type: ignore[no-untyped-call]
    cell.metadata["tags"] = ["injected-parameters"]
    for index, existing in enumerate(nb.cells):
        if "parameters" in existing.get("metadata", {}).get("tags", []):
            nb.cells.insert(index + 1, cell)
            return
    nb.cells.insert(0, cell)


def execute(path: Path, parameters: dict[str, object] | None = None,
            timeout: int = NOTEBOOK_TIMEOUT) -> nbformat.NotebookNode:
    """Run a notebook headless from its own directory (as JupyterLab would) and return it with
    outputs. A failing cell raises ``nbclient.exceptions.CellExecutionError``."""
    from nbclient import NotebookClient

    nb: nbformat.NotebookNode = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    if parameters:
        inject_parameters(nb, parameters)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def to_html(nb: nbformat.NotebookNode) -> str:
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab", embed_images=True)  # type: ignore[no-untyped-call]
    body, _ = exporter.from_notebook_node(nb)
    return str(body)


def build(corpus: Path, out: Path, directory: Path = Path("notebooks"), only: str | None = None,
          progress: bool = True) -> list[Executed]:
    """Execute the notebooks over ``corpus`` and write one HTML page each plus ``index.html``."""
    from nbclient.exceptions import CellExecutionError
    from tqdm.auto import tqdm

    out.mkdir(parents=True, exist_ok=True)
    selected = [p for p in notebooks(directory) if only is None or p.name.startswith(only)]
    results: list[Executed] = []
    for path in tqdm(selected, desc="notebooks", unit="nb", disable=not progress):
        started = time.perf_counter()
        try:
            nb = execute(path, {"CORPUS": str(corpus.resolve())})
        except CellExecutionError as exc:
            results.append(Executed(path, None, time.perf_counter() - started, str(exc)[:2000]))
            continue
        target = out / (path.stem + ".html")
        target.write_text(to_html(nb), encoding="utf-8")
        results.append(Executed(path, target, time.perf_counter() - started, None))
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
            f"<h1>Context toolkit report</h1><p>Corpus: <code>{html.escape(corpus.name or str(corpus))}"
            f"</code></p><ol>{''.join(rows)}</ol>")
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolkit.report", description=__doc__)
    parser.add_argument("--corpus", default="data", help="corpus path (default: data)")
    parser.add_argument("--out", default="reports", help="output directory (default: reports)")
    parser.add_argument("--notebooks", default="notebooks")
    parser.add_argument("--only", default=None, help="run only notebooks whose name starts with this")
    args = parser.parse_args(argv)
    results = build(Path(args.corpus), Path(args.out), Path(args.notebooks), args.only)
    failed = [r for r in results if r.error is not None]
    for r in results:
        status = "FAILED" if r.error else "ok"
        print(f"{status:6} {r.notebook.name:40} {r.seconds:6.1f} s", file=sys.stderr)
    print(f"report: {Path(args.out) / 'index.html'}", file=sys.stderr)
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
