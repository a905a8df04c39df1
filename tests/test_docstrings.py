"""The API reference reads in one convention, Google style: every public function and method a
reference page shows names each of its parameters under ``Args:`` and, when it returns a value,
says what it returns under ``Returns:`` (``Yields:`` for a generator). The docstrings are read by
griffe with the Google parser, as mkdocstrings reads them to build ``docs/reference/``.

What is shown is each package's ``__all__`` (``tests/test_docs.py`` holds the reference to it) and
the public methods of each class in it. Excepted, because the reference shows them another way or
not at all: properties and dataclass fields (each carries its own attribute docstring), members
whose name starts with ``_`` (the site filters them out, ``__init__`` included), the constructor a
dataclass generates (its parameters are the fields), ``self`` and ``cls``, and a function annotated
to return ``None``, ``NoReturn`` or ``Never``. A class with a hand-written ``__init__`` names that
constructor's parameters under the class docstring's ``Args:``, which is where the reference shows
them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import griffe
import pytest

from tests.conftest import REPO
from tests.helpers import REFERENCE

NOTHING_RETURNED = frozenset({"None", "NoReturn", "Never", "typing.NoReturn", "typing.Never"})
"""Return annotations that need no ``Returns:``."""


@functools.cache
def toolkit_api() -> griffe.Module:
    """The toolkit as griffe reads it from the source (nothing imported), aliases resolved."""
    loader = griffe.GriffeLoader(search_paths=[str(REPO)], docstring_parser=griffe.Parser.google)
    module = loader.load("toolkit")
    loader.resolve_aliases(implicit=False, external=False)
    assert isinstance(module, griffe.Module)
    return module


def shown(package: griffe.Module, names: list[str]) -> Iterator[tuple[griffe.Object, griffe.Function]]:
    """(what carries the docstring, whose parameters it documents) for each function and public
    method of ``names`` in ``package``: a function's own docstring, a method's, and for a class
    with a hand-written constructor the class docstring over its ``__init__``."""
    for name in names:
        member = package[name]
        target = member.final_target if member.is_alias else member
        if isinstance(target, griffe.Function):
            yield target, target
        elif isinstance(target, griffe.Class):
            init = target.members.get("__init__")
            if isinstance(init, griffe.Function) and "dataclass" not in target.labels:
                yield target, init
            for method_name, method in target.members.items():
                if method_name.startswith("_") or method.is_alias or not isinstance(method, griffe.Function):
                    continue
                if "property" not in method.labels:
                    yield method, method


def gaps(holder: griffe.Object, function: griffe.Function) -> list[str]:
    """What ``holder``'s docstring leaves out of ``function``'s parameters and return value."""
    sections = holder.docstring.parsed if holder.docstring is not None else []
    named = {parameter.name.lstrip("*") for section in sections
             if section.kind is griffe.DocstringSectionKind.parameters for parameter in section.value}
    said = {section.kind for section in sections}
    missing = [f"Args: {parameter.name}" for parameter in function.parameters
               if parameter.name not in ("self", "cls") and parameter.name not in named]
    returns = function.returns
    if function.name != "__init__" and returns is not None and str(returns) not in NOTHING_RETURNED \
            and not said & {griffe.DocstringSectionKind.returns, griffe.DocstringSectionKind.yields}:
        missing.append("Returns:")
    return missing


@pytest.mark.parametrize("package", REFERENCE.values())
def test_the_public_api_documents_its_arguments_and_returns(package: str) -> None:
    root = toolkit_api()
    module = root if package == "toolkit" else root[package.removeprefix("toolkit.")]
    assert isinstance(module, griffe.Module)
    names = [str(name) for name in module.exports or ()]
    assert names, f"{package} has no __all__"
    left = [f"{holder.path}: {', '.join(missing)}" for holder, function in shown(module, names)
            if (missing := gaps(holder, function))]
    assert not left, "write the missing Google-style sections:\n" + "\n".join(left)


SAMPLE = '''
import dataclasses


def documented(path: str, *names: str) -> int:
    """Counts.

    Args:
        path: Where.
        *names: Which.

    Returns:
        How many.
    """


def bare(path: str) -> int:
    """Counts, with no sections."""


def misnamed(path: str) -> None:
    """Writes.

    Args:
        file: Where.
    """


def told() -> None:
    """Nothing returned, nothing to name."""


def walked(path: str) -> Iterator[str]:
    """Lines.

    Args:
        path: Where.

    Yields:
        Each line.
    """


@dataclasses.dataclass(frozen=True)
class Point:
    """A point; its fields need no Args."""

    x: int
    """Across."""

    @property
    def double(self) -> int:
        """Twice x."""

    def moved(self, by: int) -> Point:
        """Moved."""

    def _private(self, by: int) -> int:
        """Hidden from the reference."""


class Store:
    """A store with a constructor of its own."""

    def __init__(self, root: str) -> None:
        self.root = root
'''


def test_the_check_finds_what_a_docstring_leaves_out() -> None:
    module = griffe.visit("sample", filepath=REPO / "sample.py", code=SAMPLE, docstring_parser=griffe.Parser.google)
    found = {holder.path: gaps(holder, function) for holder, function in shown(module, [name for name, member in module.members.items()
                                                                     if not member.is_alias])}
    assert {path: missing for path, missing in found.items() if missing} == {
        "sample.bare": ["Args: path", "Returns:"],
        "sample.misnamed": ["Args: path"],
        "sample.Point.moved": ["Args: by", "Returns:"],
        "sample.Store": ["Args: root"],
    }
    assert set(found) == {"sample.documented", "sample.bare", "sample.misnamed", "sample.told", "sample.walked",
                          "sample.Point.moved", "sample.Store"}
