"""Replay: one stored record, every wire, four modes, every request valid and byte-stable.

``request(session, wire=..., mode=...)`` returns the exact body a wire would be sent for the
session's path, with its canonical bytes; ``validate(body, wire)`` checks a body against the wire's
documented rules; ``freeze(session, at=...)`` writes the bodies of every mode at one point, so
someone with a provider key can run the replay experiment (``toolkit.experiment``). The reasoning policy and what each
mode carries are described in ``toolkit.replay.request``.

Layout, bottom up: ``plan`` (the neutral plan a fold makes), ``prose``, ``calls``, ``parts``,
``checks``, ``tools`` and ``sdktypes`` (what every wire shares), ``availability`` (the dated rows
of which wire serves a model, which models are retired and which take images), ``spec`` (``WireSpec``, what a wire
module exports); one module per wire (``openai_chat``, ``openai_responses``, ``anthropic``,
``gemini``, ``ollama``); ``wires`` (the registry); ``lookup``, then ``request``, ``validate``,
``sdk``, ``freeze`` and the analyses, which ask a wire's spec and never test its name.

A new wire (Bedrock Converse, Mistral...) touches:

1. one new module, ``toolkit/replay/<wire>.py``, exporting ``WIRE = WireSpec(...)``: its name and
   provider family, the model a body names by default, its messages key, system placement, image
   rules, native reasoning, whether its history must open with a user turn, and call signatures,
   its ``encode`` (plan → body: messages, tools via
   its ``declare``), its ``check`` (the documented rules) and its ``Sdk`` (the call that sends a
   body, a check built from the SDK's types, imported lazily, and, where the toolkit sends the wire
   itself, its sender and reply reader from ``send``);
2. one registry line, its ``WIRE`` in ``toolkit/replay/wires.py``'s table (with the module named
   in that file's import).

Nothing else lists the wires: ``WIRES``, the command line's choices, ``freeze``, the analyses and
the tests parametrised over ``WIRES`` read the registry. One shared rule stays shared on purpose:
tool names and call ids are one vocabulary on every wire (``calls.NAME_RE``, ``calls.CALL_ID_MAX``,
the strictest rules of the wires so far), so a wire stricter still tightens them there.
"""

from toolkit.replay.calls import MAX_CALLS, MAX_CHARS
from toolkit.replay.checks import WireProblem
from toolkit.replay.freeze import Frozen, freeze
from toolkit.replay.plan import MODES, Mode, WireName
from toolkit.replay.request import Request, canonical, request
from toolkit.replay.stability import PrefixReport, is_prefix, prefix_stability
from toolkit.replay.validate import validate
from toolkit.replay.wires import WIRES

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
