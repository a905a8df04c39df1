"""The package layers: no import cycle among ``toolkit`` modules, counting imports at module level
and inside functions alike (a deferred import is still a dependency), and the bottom layer stays
light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

TOOLKIT = REPO / "toolkit"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, level: int, name: str | None, package: str) -> str:
    if level == 0:
        return name or ""
    base = package.split(".")
    base = base[: len(base) - level + 1]
    return ".".join([*base, name] if name else base)


def import_graph() -> dict[str, set[str]]:
    """Module → the ``toolkit`` modules it imports anywhere in its body (``TYPE_CHECKING`` blocks
    excluded: they never run). ``from pkg import name`` counts as importing ``pkg.name`` when that
    is a module, else ``pkg``; a package's ``__init__`` is an edge like any module; a module name
    written as a string (a lazy attribute table) or an f-string prefix (``f"toolkit.cli.{name}"``)
    is an import too, of every module it can name."""
    files = {_module_name(p): p for p in TOOLKIT.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in files:
                targets = [node.value]  # a module named for importlib (a lazy attribute table)
            elif isinstance(node, ast.JoinedStr) and ast.unparse(node).startswith("f'toolkit."):
                prefix = str(node.values[0].value) if isinstance(node.values[0], ast.Constant) else ""
                targets = [m for m in files if m.startswith(prefix) and m != prefix.rstrip(".")
                           and not m.endswith(".__main__")]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, node.level, node.module, package)
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    targets.append(candidate if candidate in files else base)
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target.startswith("toolkit") and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_among_toolkit_modules() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_fingerprinting_imports_no_polars_numpy_or_altair() -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import toolkit.surface.fingerprint"],
                          cwd=REPO, capture_output=True, text=True, check=True)
    heavy = [line for line in done.stderr.splitlines()
             if line.rsplit("|", 1)[-1].strip().split(".")[0] in ("polars", "numpy", "altair")]
    assert not heavy, heavy[:5]
