"""What a wire module builds its check against the official SDK types from (``WireSpec.sdk``);
``toolkit.replay.sdk`` runs the check and compares what the types kept with what was given.
Nothing here imports pydantic or an SDK until a check is built, so the SDKs stay optional."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeAlias

Validator: TypeAlias = Callable[[dict[str, Any]], Iterator[tuple[str, Any, Any]]]
"""Yields (where, input, validated) triples to compare, raising ``ValidationError`` on bad shapes."""


def typed_dict(kind: Any) -> Validator:
    """A TypedDict request type, validated with unknown keys forbidden (the config reaches nested
    TypedDicts only through a container type, hence the one-element list)."""
    from pydantic import ConfigDict, TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(list[kind], config=ConfigDict(extra="forbid"))

    def validate(body: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
        validated = adapter.validate_python([body])
        yield "", body, materialise(validated[0])

    return validate


def materialise(value: Any) -> Any:
    """Every lazily validated iterable turned into a list, recursively (which raises what it hid)."""
    if isinstance(value, dict):
        return {k: materialise(v) for k, v in value.items()}
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [materialise(v) for v in value]
    try:
        items = iter(value)
    except TypeError:
        return value
    return [materialise(v) for v in items]
