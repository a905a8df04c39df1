"""The five wires by name: each a sibling module with the same small interface (``WIRE``), and the
pieces of a body they all spell the same way (the walk over the plan's items, the top-level
system slot)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, assert_never

from toolkit.replay import prose
from toolkit.replay.parts import text_of
from toolkit.replay.plan import WIRES, Exchange, Item, Plan, TextPart, Turn, WireSpec

EMPTY_TURN = Turn("user", (TextPart(prose.EMPTY_HISTORY),), None)
"""What a history that renders to nothing is sent as: every wire needs one message."""


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


def render(
    items: Iterable[Item],
    turn: Callable[[Turn], dict[str, Any]],
    exchange: Callable[[Exchange, list[dict[str, Any]]], None],
) -> list[dict[str, Any]]:
    """The messages part: each turn one wire message, each exchange whatever the wire's
    ``exchange`` appends (it sees the messages so far, for wires that join a call turn to the one
    before it)."""
    out: list[dict[str, Any]] = []
    for item in items:
        match item:
            case Turn():
                out.append(turn(item))
            case Exchange():
                exchange(item, out)
            case _:
                assert_never(item)
    if not out:
        out.append(turn(EMPTY_TURN))
    return out


def system_slot(plan: Plan) -> tuple[str | None, list[Item]]:
    """For wires with one top-level system slot: the recorded system prompt and the system
    messages that lead the history, joined; and the items left for the messages part (where a
    later system message is the wire's to spell)."""
    texts = [plan.system] if plan.system else []
    rest: list[Item] = []
    for item in plan.items:
        if isinstance(item, Turn) and item.role == "system" and item.leading:
            texts.append(text_of(item.parts))
        else:
            rest.append(item)
    return ("\n\n".join(texts) if texts else None), rest


def system_first(plan: Plan) -> list[Item]:
    """For wires whose system prompt is a message: the items, the recorded prompt first."""
    if not plan.system:
        return list(plan.items)
    return [Turn("system", (TextPart(plan.system),), None, leading=True), *plan.items]
