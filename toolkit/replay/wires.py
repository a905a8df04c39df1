"""The registry: every wire the replay knows, by name, in the order tables and charts list them.

A wire is one module exporting ``WIRE`` (a ``toolkit.replay.spec.WireSpec``); registering it is its
entry below. Nothing else in the package names a wire: whatever needs the list (``WIRES``, the
command line's choices, ``freeze``, the analyses, the tests) reads this table, and the request code
asks a wire's spec, never its name."""

from __future__ import annotations

from collections.abc import Mapping

from toolkit.replay import anthropic, gemini, ollama, openai_chat, openai_responses
from toolkit.replay.spec import WireSpec

REGISTRY: Mapping[str, WireSpec] = {spec.name: spec for spec in (
    openai_chat.WIRE,
    openai_responses.WIRE,
    anthropic.WIRE,
    gemini.WIRE,
    ollama.WIRE,
)}

WIRES: tuple[str, ...] = tuple(REGISTRY)
"""The wires' names, in registry order."""
