"""The wire registry: each wire is one module and one entry in ``toolkit.replay.wires``, and the
rest of the replay package asks a wire's spec instead of testing its name, so a sixth wire needs
nothing more."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers import ANSWERED
from toolkit.replay import WIRES, freeze, request, validate
from toolkit.replay.openai_chat import WIRE as CHAT
from toolkit.replay.sdk import sdk_problems
from toolkit.replay.spec import WireSpec
from toolkit.replay.wires import REGISTRY

REPLAY = REPO / "toolkit" / "replay"
WIRE_MODULES = {spec.encode.__module__ for spec in REGISTRY.values()}


def test_the_registry_holds_every_wire_module_once_under_its_own_name() -> None:
    exported = {}
    for path in sorted(REPLAY.glob("*.py")):
        module = importlib.import_module(f"toolkit.replay.{path.stem}")
        spec = getattr(module, "WIRE", None)
        if isinstance(spec, WireSpec):
            exported[module.__name__] = spec
    assert set(exported) == WIRE_MODULES
    assert sorted(s.name for s in exported.values()) == sorted(REGISTRY)
    assert all(REGISTRY[name].name == name for name in REGISTRY)
    assert tuple(REGISTRY) == WIRES and len(set(WIRES)) == len(WIRES) >= 5


@pytest.mark.parametrize("name", WIRES)
def test_a_spec_is_its_modules_own(name: str) -> None:
    """Everything a spec holds comes from the wire's module, and its image markers name it."""
    spec = REGISTRY[name]
    module = spec.encode.__module__
    assert spec.check.__module__ == spec.tools.__module__ == spec.sdk.validator.__module__ == module
    assert spec.images.wire == name


def _wire_names_in(path: Path) -> list[str]:
    """Where the module compares with, matches on or keys a table by a registered wire's name (a
    recorded tool spec's ``shape`` is a source format that shares some of those words)."""
    found: list[str] = []

    def named(nodes: list[ast.expr]) -> list[str]:
        flat = [e for n in nodes for e in (n.elts if isinstance(n, ast.Tuple | ast.List | ast.Set) else [n])]
        return [str(e.value) for e in flat if isinstance(e, ast.Constant) and e.value in REGISTRY]

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        hits: list[str] = []
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if not any(isinstance(o, ast.Attribute) and o.attr == "shape" for o in operands):
                hits = named(operands)
        elif isinstance(node, ast.MatchValue):
            hits = named([node.value])
        elif isinstance(node, ast.Dict):
            hits = named([k for k in node.keys if k is not None])
        found.extend(f"{path.name}:{getattr(node, 'lineno', '?')} {hit!r}" for hit in hits)
    return found


def test_outside_its_own_module_no_code_tests_a_wires_name() -> None:
    modules = [p for p in sorted(REPLAY.glob("*.py")) if f"toolkit.replay.{p.stem}" not in WIRE_MODULES]
    assert [p.stem for p in modules if p.stem == "request"], "the scan must cover request.py"
    assert [hit for path in modules for hit in _wire_names_in(path)] == []


def test_the_scan_finds_a_test_of_a_wires_name(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text('if wire.name == "gemini":\n    pass\nmatch w:\n    case "ollama" | "x":\n        pass\n'
                      'MODELS = {"anthropic": "m"}\nok = spec.shape == "gemini"\n')
    assert sorted(hit.split(" ")[1] for hit in _wire_names_in(source)) == ["'anthropic'", "'gemini'", "'ollama'"]


def test_a_wire_registered_in_the_table_needs_nothing_else(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A sixth wire (here Chat Completions under another name) is one spec and one table entry:
    request, validate, the SDK check and freeze all find it there."""
    sixth = dataclasses.replace(CHAT, name="sixth-wire")
    monkeypatch.setitem(REGISTRY, "sixth-wire", sixth)
    req = request(ANSWERED, wire="sixth-wire", mode="native")
    assert req.wire == "sixth-wire" and req.messages_key == "messages"
    assert req.bytes == request(ANSWERED, wire="openai-chat", mode="native").bytes
    assert validate(req.body, "sixth-wire") == [] and sdk_problems(req.body, "sixth-wire") == []
    frozen = freeze(ANSWERED, out_dir=tmp_path, wires=("sixth-wire",), modes=("native",))
    entry = json.loads(frozen.manifest.read_text())["requests"][0]
    assert (entry["wire"], entry["send"], entry["problems"]) == ("sixth-wire", CHAT.sdk.call, [])
