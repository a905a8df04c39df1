"""The exact body a wire would be sent up to each message of a session, stored so a page can show
any of them without a server: each body is its canonical bytes cut into the text before the
messages, each wire message's canonical JSON, and the text after. Replay is prefix-stable (an
appended turn leaves every earlier byte unchanged), so consecutive bodies share almost all their
pieces: each distinct piece is stored once and a body is a list of runs over the piece table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from toolkit.models import model_family
from toolkit.record import Session
from toolkit.replay import WIRES, canonical, request
from toolkit.replay.lookup import wire_spec

_CUT = "\x00toolkit-browse-messages\x00"


def default_wire(session: Session) -> str:
    """The wire of the provider that recorded most of the session's replies (the first registered wire
    of that family), else the first wire.

    Args:
        session: The session to show.

    Returns:
        The wire's name.
    """
    families = [model_family(m.model) for m in session.messages if m.model]
    known = [f for f in families if f]
    if known:
        family = max(dict.fromkeys(known), key=known.count)
        for name in WIRES:
            if wire_spec(name).family == family:
                return name
    return WIRES[0]


@dataclass
class Bodies:
    """Bodies of one wire and mode, by message position. ``body(m)`` rebuilds the exact bytes; the
    page does the same in its script from ``pieces`` and ``layout``."""

    wire: str
    mode: str
    vision: bool
    pieces: list[str] = field(default_factory=list)
    layout: dict[int, list[int]] = field(default_factory=dict)
    """Message position → [head, tail, start, count, start, count...]: the head and tail piece and
    runs of consecutive pieces (the wire messages); [whole] when the body could not be cut."""
    notes: dict[int, list[str]] = field(default_factory=dict)
    _ids: dict[str, int] = field(default_factory=dict, repr=False)

    def _piece(self, text: str) -> int:
        known = self._ids.get(text)
        if known is None:
            known = self._ids[text] = len(self.pieces)
            self.pieces.append(text)
        return known

    def add(self, position: int, body_bytes: bytes, messages: Sequence[object], body: Mapping[str, object],
            key: str, notes: Sequence[str]) -> None:
        """Keep the body sent at message ``position`` as pieces shared with the other positions' bodies, so
        a page holds each wire message once however many requests repeat it.

        Args:
            position: The message's position in the session.
            body_bytes: The body's canonical bytes, which the pieces must rebuild exactly.
            messages: The body's wire messages, each a piece.
            body: The body, to find what comes before and after its messages.
            key: The body's key for its messages (``messages``, ``input``, ``contents``).
            notes: What changed on the way to the wire, shown beside the body.
        """
        whole = body_bytes.decode("utf-8")
        cut = canonical({**body, key: _CUT}).decode("utf-8").split(canonical(_CUT).decode("utf-8"))
        parts = [canonical(message).decode("utf-8") for message in messages]
        if len(cut) != 2 or cut[0] + "[" + ",".join(parts) + "]" + cut[1] != whole:
            self.layout[position] = [self._piece(whole)]
        else:
            ids = [self._piece(part) for part in parts]
            runs: list[int] = []
            for i in ids:
                if runs and runs[-2] + runs[-1] == i:
                    runs[-1] += 1
                else:
                    runs += [i, 1]
            self.layout[position] = [self._piece(cut[0]), self._piece(cut[1]), *runs]
        if notes:
            self.notes[position] = list(notes)

    def body(self, position: int) -> str:
        """The canonical body text up to the message at ``position``.

        Args:
            position: The message's position in the session.

        Returns:
            The body text, byte for byte the request's.
        """
        row = self.layout[position]
        if len(row) == 1:
            return self.pieces[row[0]]
        inner = [self.pieces[start + k] for start, count in zip(row[2::2], row[3::2], strict=True)
                 for k in range(count)]
        return self.pieces[row[0]] + "[" + ",".join(inner) + "]" + self.pieces[row[1]]

    def data(self) -> dict[str, object]:
        """What the page embeds.

        Returns:
            The pieces, the layout of each position and the notes, as JSON values.
        """
        return {"wire": self.wire, "mode": self.mode, "vision": self.vision, "pieces": self.pieces,
                "layout": {str(k): v for k, v in self.layout.items()},
                "notes": {str(k): v for k, v in self.notes.items()}}


def bodies(session: Session, wire: str, mode: str, *, images: Mapping[str, bytes] | None = None,
           vision: bool = True, positions: Sequence[int] | None = None) -> Bodies:
    """The body ``wire`` would be sent in ``mode`` for the path up to (and including) each message at
    ``positions``.

    Args:
        session: The session.
        wire: The wire (``toolkit.replay.WIRES``).
        mode: The replay mode (``toolkit.replay.MODES``).
        images: The corpus image store (sha256 to bytes).
        vision: Whether images travel as images.
        positions: Message indexes (default: every message).

    Returns:
        The bodies, by position."""
    spec = wire_spec(wire)
    out = Bodies(spec.name, mode, vision)
    chosen = range(len(session.messages)) if positions is None else positions
    for position in chosen:
        message = session.messages[position]
        if session.get(message.id) is not message:
            continue
        req = request(session, wire=wire, mode=mode, vision=vision, upto=message.id, images=images)
        messages = req.body.get(req.messages_key)
        out.add(position, req.bytes, messages if isinstance(messages, list) else [], req.body,
                req.messages_key, req.notes)
    return out
