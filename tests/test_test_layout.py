"""The tests' own layout: no test module imports another; shared builders live in ``tests/helpers.py``
or in fixtures of ``tests/conftest.py``."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def named_test_modules(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The test modules (``tests.test_*``) an import statement names, however it spells them."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.level == 0 and node.module is not None:
        names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    else:  # relative: ``from .test_x import y``, ``from . import test_x``
        base = "tests" + (f".{node.module}" if node.module else "")
        names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
    found = {".".join(name.split(".")[:2]) for name in names}
    return sorted(name for name in found if name.startswith("tests.test_"))


def imports_of_test_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.name}:{node.lineno} imports {name}"
            for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
            for name in named_test_modules(node)]


def test_no_test_module_imports_another() -> None:
    files = sorted(TESTS.glob("*.py"))
    assert any(f.name.startswith("test_") for f in files)
    found = [hit for path in files for hit in imports_of_test_modules(path)]
    assert found == [], "move what is shared into tests/helpers.py or a conftest fixture:\n" + "\n".join(found)


def test_the_check_sees_every_spelling() -> None:
    source = (
        "from tests.test_replay import ANSWERED\n"
        "import tests.test_surface\n"
        "from tests import test_replay\n"
        "from .test_replay import session\n"
        "from . import test_surface\n"
        "def f() -> None:\n"
        "    from tests.test_import_wires import counts\n"
        "from tests.helpers import ANSWERED\n"
        "from tests.conftest import REPO\n"
        "import toolkit.test_like\n"
    )
    tree = ast.parse(source)
    hits = [name for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
            for name in named_test_modules(node)]
    assert hits == ["tests.test_replay", "tests.test_surface", "tests.test_replay", "tests.test_replay",
                    "tests.test_surface", "tests.test_import_wires"]
    lines = sorted({node.lineno for node in ast.walk(tree)
                    if isinstance(node, ast.Import | ast.ImportFrom) and named_test_modules(node)})
    assert lines == [1, 2, 3, 4, 5, 7]
