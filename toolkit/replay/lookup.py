"""A wire named by a caller, found in the registry: the one place the replay refuses an unknown
wire name, so every entry point (``request``, ``validate``, the SDK check, ``freeze``) says it the
same way."""

from __future__ import annotations

from toolkit.errors import UnknownWire
from toolkit.replay.spec import WireSpec
from toolkit.replay.wires import REGISTRY, WIRES


def wire_spec(name: str) -> WireSpec:
    """The registered wire called ``name``."""
    spec = REGISTRY.get(name)
    if spec is None:
        raise UnknownWire(name, WIRES)
    return spec
