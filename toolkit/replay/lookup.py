"""A wire named by a caller, found in the registry: the one place the replay refuses an unknown
wire name, so every entry point (``request``, ``validate``, the SDK check, ``freeze``) says it the
same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkit.errors import UnknownWire
from toolkit.replay.send import Endpoint, Reply, Sender, SendError
from toolkit.replay.spec import WireSpec
from toolkit.replay.wires import REGISTRY, WIRES


def wire_spec(name: str) -> WireSpec:
    """The registered wire called ``name``."""
    spec = REGISTRY.get(name)
    if spec is None:
        raise UnknownWire(name, WIRES)
    return spec


def sender(wire: str, endpoint: Endpoint) -> Sender:
    """The function that sends ``wire``'s bodies through its SDK, its client built once."""
    check_sent(wire)
    send = wire_spec(wire).sdk.send
    assert send is not None
    try:
        return send(endpoint)
    except SendError:
        raise
    except Exception as error:  # the SDKs refuse to start without a key, each with its own class
        raise SendError(f"{wire}: the SDK client could not start: {error}") from None


def read_reply(wire: str, response: Mapping[str, Any]) -> Reply:
    """What ``response`` (the provider's JSON for ``wire``) said and called, and its usage."""
    read = wire_spec(wire).sdk.read
    if read is None:
        raise SendError(f"no reader for wire {wire!r}")
    return read(response)


def sent_wires() -> tuple[str, ...]:
    """The wires this toolkit sends itself."""
    return tuple(name for name in WIRES if REGISTRY[name].sdk.send is not None)


def check_sent(wire: str) -> None:
    """Fail on a wire this toolkit does not send, naming the ones it does."""
    if wire_spec(wire).sdk.send is None:
        raise SendError(f"wire {wire!r} is not sent by this toolkit (wires it sends: {', '.join(sent_wires())}; "
                        "reach Ollama as openai-chat with base_url http://localhost:11434/v1)")
