"""``validate(body, wire)``: the problems of a request body against its wire's documented rules.

Each wire module holds its own rules (call/result pairing and ordering, role order, id format,
argument types, signature presence, image placement); this is the one entry point. The official
SDK types check shapes too, but never pairing or ordering: ``toolkit.replay.sdk`` runs them.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolkit.replay.checks import WireProblem
from toolkit.replay.lookup import wire_spec


def validate(body: object, wire: str) -> list[WireProblem]:
    """Every problem of ``body`` as a request to ``wire``, by the wire's documented rules (the SDK
    types, which check shapes but never pairing or ordering, are ``toolkit.replay.sdk``'s).

    Args:
        body: A request body as ``Request.body`` holds it (or one read back from JSON).
        wire: The wire it is meant for (``toolkit.replay.WIRES``).

    Returns:
        The problems found, each with where and why; an empty list: valid.

    Raises:
        UnknownWire: ``wire`` is not one of ``WIRES``."""
    spec = wire_spec(wire)
    if not isinstance(body, Mapping):
        return [WireProblem(spec.name, "", "shape", f"a request body is a JSON object, not {type(body).__name__}")]
    return spec.check(dict(body))
