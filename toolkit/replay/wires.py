"""The five wires by name: each a sibling module with the same small interface (``WIRE``)."""

from __future__ import annotations

from functools import cache

from toolkit.replay.plan import WIRES, WireSpec


@cache
def _specs() -> dict[str, WireSpec]:
    from toolkit.replay import anthropic, gemini, ollama, openai_chat, openai_responses

    found = {m.WIRE.name: m.WIRE for m in (openai_chat, openai_responses, anthropic, gemini, ollama)}
    assert tuple(found) == WIRES
    return found


def wire_spec(name: str) -> WireSpec:
    spec = _specs().get(name)
    if spec is None:
        raise ValueError(f"unknown wire {name!r} (wires: {', '.join(WIRES)})")
    return spec
