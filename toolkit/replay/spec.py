"""What a wire module exports: one ``WireSpec`` holding everything that is that wire's, so the
request code asks the spec and never tests a wire's name. Also the pieces of a body every wire
spells the same way (the walk over the plan's items, where the system prompt goes).

This is the bottom of the wires: each wire module builds on it, the registry (``wires.py``) lists
what they export, and nothing here names a wire.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, assert_never

from toolkit.replay import prose
from toolkit.replay.checks import WireProblem
from toolkit.replay.parts import ImageRules, text_of
from toolkit.replay.plan import Body, Exchange, Item, Plan, TextPart, WireMessage, WireName
from toolkit.replay.sdktypes import Validator
from toolkit.replay.send import Endpoint, Reply, Sender
from toolkit.replay.tools import Declarer

SystemPlacement: TypeAlias = Literal["slot", "instructions", "message"]
"""Where a wire puts the recorded system prompt. ``slot``: one top-level field holding the prompt
and the system messages that lead the history, joined. ``instructions``: a top-level field holding
the prompt alone (every system message stays a message). ``message``: a system message first in
the messages part."""

NativeReasoning: TypeAlias = Literal["none", "signed", "readable"]
"""Which reasoning of the same provider and model a wire takes back in its own shape. ``none``:
none, it crosses as prose. ``signed``: blocks holding the signature they were returned with.
``readable``: blocks whose text is readable and not redacted (the wire has no signatures)."""

EMPTY_TURN = WireMessage("user", (TextPart(prose.EMPTY_HISTORY),), None)
"""What a history that renders to nothing is sent as: every wire needs one message."""
OPENING_TURN = WireMessage("user", (TextPart(prose.HISTORY_OPENS),), None)
"""What opens a history that would open with the model's turn, on wires that need a user turn first."""


@dataclass(frozen=True, slots=True)
class Sdk:
    """A wire's official SDK: how it sends a body, and how its types check one."""

    call: str
    """How to send a body with the SDK (documentation written beside frozen requests)."""
    validator: Callable[[], Validator]
    """Builds the check against the SDK's types, importing the SDK only then (``ImportError``:
    it is not installed)."""
    bytes_fields: frozenset[str] = frozenset()
    """Fields the SDK types as bytes: it reads base64 and may write it back in the other alphabet,
    so they are compared as bytes."""
    send: Callable[[Endpoint], Sender] | None = None
    """Builds the function that sends a body through the SDK (``toolkit.replay.send``); ``None``: this
    toolkit does not send the wire itself."""
    read: Callable[[Mapping[str, Any]], Reply] | None = None
    """Reads what the provider's response said, called and used."""


@dataclass(frozen=True, slots=True)
class WireSpec:
    """One wire: how it spells a plan, what it accepts, how it checks a body and how its SDK sends
    one."""

    name: WireName
    family: str
    """The provider family whose signatures this wire can carry back (``openai``, ``anthropic``...)."""
    default_model: str
    """The model a body names when the recording's model belongs to another provider: a choice to
    make the body complete, not a recommendation (``model=`` chooses)."""
    messages_key: str
    """The body field holding the history (what prefix stability compares)."""
    system: SystemPlacement
    images: ImageRules
    reasoning: NativeReasoning
    opens_with_user: bool
    """The messages part must open with a user turn (after any system messages); where the path's
    first user turn rendered to nothing, ``OPENING_TURN`` stands in for it."""
    signs_calls: bool
    """A signed thought with no text rides on the reply's first call as that call's signature
    (Gemini's ``thoughtSignature``) instead of as a thought of its own."""
    encode: Callable[[Plan, list[str]], Body]
    """The plan spelled as the wire's body (its messages, system placement, images and tools);
    whatever could not cross as recorded is appended to the notes."""
    tools: Declarer
    """The recorded tools, kept and renamed, in the wire's tool shape."""
    check: Callable[[Body], list[WireProblem]]
    """The body's problems against the wire's documented rules."""
    sdk: Sdk


def wire_messages(
    items: Iterable[Item],
    turn: Callable[[WireMessage], dict[str, Any]],
    exchange: Callable[[Exchange, list[dict[str, Any]]], None],
    *,
    opens_with_user: bool = False,
) -> list[dict[str, Any]]:
    """The messages part: each turn one wire message, each exchange whatever the wire's
    ``exchange`` appends (it sees the messages so far, for wires that join a call turn to the one
    before it). With ``opens_with_user``, a history whose first turn past the system messages is
    the model's opens with ``OPENING_TURN``: it is there from the first request on, so a longer
    path never rewrites an earlier message to add it."""
    out: list[dict[str, Any]] = []
    opened = not opens_with_user
    for item in items:
        if not opened and not (isinstance(item, WireMessage) and item.role == "system"):
            opened = True
            if not (isinstance(item, WireMessage) and item.role == "user"):
                out.append(turn(OPENING_TURN))
        match item:
            case WireMessage():
                out.append(turn(item))
            case Exchange():
                exchange(item, out)
            case _:
                assert_never(item)
    if not out:
        out.append(turn(EMPTY_TURN))
    return out


def place_system(plan: Plan, placement: SystemPlacement) -> tuple[str | None, list[Item]]:
    """The text of the wire's top-level system field (``None``: none), and the items left for its
    messages part (where a system message that stays one is the wire's to spell)."""
    match placement:
        case "slot":
            texts = [plan.system] if plan.system else []
            rest: list[Item] = []
            for item in plan.items:
                if isinstance(item, WireMessage) and item.role == "system" and item.leading:
                    texts.append(text_of(item.parts))
                else:
                    rest.append(item)
            return ("\n\n".join(texts) if texts else None), rest
        case "instructions":
            return plan.system or None, list(plan.items)
        case "message":
            if not plan.system:
                return None, list(plan.items)
            return None, [WireMessage("system", (TextPart(plan.system),), None, leading=True), *plan.items]
        case _:
            assert_never(placement)
