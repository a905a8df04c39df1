"""Prefix stability: does appending a stored message leave every earlier byte of the request's
messages part unchanged? That is what lets a provider's prompt cache keep matching turn after turn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolkit.record import Session
from toolkit.replay import prose
from toolkit.replay.request import Request, request


@dataclass(frozen=True, slots=True)
class PrefixReport:
    """Prefix stability of one session on one wire in one mode."""

    session_id: str
    wire: str
    mode: str
    checked: int
    """Pairs (path up to message k, path up to k+1) compared."""
    stable: int
    """Pairs where the shorter messages part is a byte prefix of the longer."""
    breaks: tuple[str, ...]
    """The ids of the messages k+1 whose arrival rewrote earlier bytes."""
    config_breaks: tuple[str, ...] = ()
    """The breaks where the recorded run configuration itself changed (a new system prompt or new
    tools from message k+1 on): every wire's prefix changes then, inside the messages part on wires
    that carry the system prompt as a message (Chat Completions, Ollama)."""

    @property
    def ratio(self) -> float:
        return 1.0 if self.checked == 0 else self.stable / self.checked

    @property
    def replay_ratio(self) -> float:
        """The ratio with recorded configuration changes left out: what the replay itself keeps."""
        compared = self.checked - len(self.config_breaks)
        return 1.0 if compared == 0 else self.stable / compared


def is_prefix(shorter: Request, longer: Request) -> bool:
    """The shorter request's messages array, left open, is a byte prefix of the longer's.

    Args:
        shorter: The request for a turn.
        longer: The request for a later turn of the same session, wire and mode.

    Returns:
        ``True`` when ``longer`` only appends to ``shorter``, so a prompt cache of it still matches.
    """
    return longer.messages_bytes().startswith(shorter.messages_bytes()[:-1])


def _placeholder(req: Request) -> bool:
    messages = req.body[req.messages_key]
    return len(messages) == 1 and prose.EMPTY_HISTORY in str(messages[0])


def prefix_stability(
    session: Session,
    *,
    wire: str,
    mode: str,
    vision: bool = True,
    images: Mapping[str, bytes] | None = None,
    points: int | None = None,
    model: str | None = None,
) -> PrefixReport:
    """Whether each request's bytes start with the previous request's: replay the path up to each
    message k and k+1 and compare, since a provider's prompt cache only reads an unchanged prefix.

    A request whose only message is the empty-history placeholder is not compared: the first real
    message replaces the placeholder by design.

    Args:
        session: The session to replay.
        wire: The wire to spell it for (``toolkit.replay.WIRES``).
        mode: The replay mode (``toolkit.replay.MODES``).
        vision: Whether images travel as images.
        images: The corpus image store (sha256 to bytes).
        points: How many evenly spaced k to sample (default: every k; each replay is linear in the
            path, so all of them is quadratic).
        model: The model the bodies name (default: the recorded one).

    Returns:
        How many pairs were compared and stayed a byte prefix, and the messages whose arrival rewrote
        earlier bytes.

    Raises:
        UnknownWire: ``wire`` is not one of ``WIRES``.
        UnknownMode: ``mode`` is not one of ``MODES``."""
    path = session.path()
    ks = list(range(len(path) - 1))
    if points is not None and points < len(ks):
        step = len(ks) / points
        ks = sorted({int(i * step) for i in range(points)})
    checked = stable = 0
    breaks: list[str] = []
    config_breaks: list[str] = []
    cache: dict[int, Request] = {}

    def at(k: int) -> Request:
        if k not in cache:
            cache[k] = request(session, wire=wire, mode=mode, vision=vision, upto=path[k].id, images=images,
                               model=model)
        return cache[k]

    for k in ks:
        shorter, longer = at(k), at(k + 1)
        if _placeholder(shorter):
            continue
        checked += 1
        if is_prefix(shorter, longer):
            stable += 1
        else:
            breaks.append(path[k + 1].id)
            if session.run_config(path[k].id) != session.run_config(path[k + 1].id):
                config_breaks.append(path[k + 1].id)
    return PrefixReport(session.id, wire, mode, checked, stable, tuple(breaks), tuple(config_breaks))
