"""Replay: one stored record, five wires, four modes, every request valid and byte-stable.

``request(session, wire=..., mode=...)`` returns the exact body a wire would be sent for the
session's path, with its canonical bytes; ``validate(body, wire)`` checks a body against the wire's
documented rules; ``freeze(session, at=...)`` writes the bodies of every mode at one point, so
someone with a provider key can rerun the seeds' experiment. The reasoning policy and what each
mode carries are described in ``toolkit.replay.request``.
"""

from toolkit.replay.calls import MAX_CALLS, MAX_CHARS
from toolkit.replay.checks import WireProblem
from toolkit.replay.freeze import Frozen, freeze
from toolkit.replay.plan import MODES, WIRES, Mode, WireName
from toolkit.replay.request import Request, canonical, request
from toolkit.replay.stability import PrefixReport, is_prefix, prefix_stability
from toolkit.replay.validate import validate

__all__ = [
    "MAX_CALLS",
    "MAX_CHARS",
    "MODES",
    "WIRES",
    "Frozen",
    "Mode",
    "PrefixReport",
    "Request",
    "WireName",
    "WireProblem",
    "canonical",
    "freeze",
    "is_prefix",
    "prefix_stability",
    "request",
    "validate",
]
