"""Package attributes resolved on first use, so importing a package costs only what is used."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, names: Mapping[str, str], namespace: dict[str, Any],
                    ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A module ``__getattr__`` for ``package`` that imports ``names[name]`` (a module) on first
    access and caches the attribute in the package's ``namespace``, and the matching ``__dir__``
    (so tab completion in a notebook offers the names before they are loaded). A subpackage or
    module of the package resolves the same way, so ``import toolkit`` then ``toolkit.replay.request``
    works as the standard library's packages do once imported."""

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            if not name.startswith("_") and importlib.util.find_spec(f"{package}.{name}") is not None:
                value: object = importlib.import_module(f"{package}.{name}")
                namespace[name] = value
                return value
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
