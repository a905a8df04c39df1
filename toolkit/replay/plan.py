"""The neutral plan of one replay: what the fold decided the model is shown, before any wire
spells it.

``request.py`` decides *what* crosses (modes, bounds, pairing, vision, reasoning policy); each
wire module decides only *how* its provider spells it. Keeping the two apart is what lets every
wire share one set of invariants and one set of tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from toolkit.record import Image, JsonValue, Reasoning
from toolkit.surface import ToolSpec

WireName: TypeAlias = str
"""A wire's name: one of ``toolkit.replay.WIRES``. A plain string, since the registry
(``toolkit.replay.wires``), not a type, is where the wires are listed."""

Mode = Literal["text", "prose", "prose_head", "native"]
MODES: tuple[Mode, ...] = ("text", "prose", "prose_head", "native")
"""``text``: the words only. ``prose``: every block in its prose form, one wire message per
stored message. ``prose_head``: the words, plus a prose record of the previous reply's calls at
the head of the next user message. ``native``: each reply's calls paired with their answers in
the wire's own call shape."""

Body: TypeAlias = dict[str, Any]
"""A request body as JSON: what ``json.loads`` of the canonical bytes gives back."""


@dataclass(frozen=True, slots=True)
class TextPart:
    """Words, or the prose form of a block that has no native shape here."""

    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image the model is meant to see. ``data`` is the base64 of its bytes when the corpus
    holds them; without them only ``image.url`` can carry it, on wires that fetch URLs."""

    image: Image
    data: str | None


@dataclass(frozen=True, slots=True)
class ThoughtPart:
    """Reasoning replayed natively: only ever made for the provider and model that signed it.
    ``fallback`` is its prose form, for a position where the wire refuses it."""

    block: Reasoning
    fallback: str


Part: TypeAlias = TextPart | ImagePart | ThoughtPart

TurnRole = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class WireMessage:
    """One wire message's worth of content from one stored message (or a placeholder, whose
    ``message_id`` is ``None``)."""

    role: TurnRole
    parts: tuple[Part, ...]
    message_id: str | None
    leading: bool = False
    """A system message before any other message: wires with a top-level system slot put it there."""


@dataclass(frozen=True, slots=True)
class Call:
    """One replayed call: the stored call bounded, renamed into one vocabulary, and given an id
    derived from its stored message id."""

    id: str
    """``replay_<stem>_<n>``: stable across replays, within every wire's id rules."""
    name: str
    input: dict[str, JsonValue]
    """The arguments as an object, at most ``MAX_CHARS`` of JSON (else ``{"input_excerpt": ...}``)."""
    arguments: str
    """``input`` as compact JSON text, for wires that carry arguments as a string."""
    freeform: str | None
    """The text of a free-text (grammar) tool call, bounded; ``input`` then holds ``{"input": text}``."""
    signature: str | None
    """A thought signature from the same provider and model, to ride on this call (Gemini)."""
    message_id: str
    source_id: str
    """The call's id in the record."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A call paired with the result stored for it."""

    call: Call
    output: str
    """The result text, bounded to ``MAX_CHARS`` (a cut says how much was left out)."""
    is_error: bool
    images: tuple[ImagePart | TextPart, ...]
    """Images the tool returned (markers when vision is off)."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """One reply's answered calls: the reply's own words (``lead``) with its calls, then the
    results, rendered once the answers have landed. A call whose answer never landed is never
    part of one."""

    answers: tuple[Answer, ...]
    message_id: str
    """The stored reply that made the calls."""
    lead: tuple[Part, ...] = ()
    """The reply's words, thoughts and images, which the wire puts in the same turn as its calls."""


Item: TypeAlias = WireMessage | Exchange


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything a wire module needs to spell the request body."""

    wire: WireName
    mode: Mode
    model: str
    system: str | None
    """The run's recorded system prompt (the top-level slot, or the first system message)."""
    items: tuple[Item, ...]
    tools: tuple[ToolSpec, ...] | None
    """The recorded tool specs (``None``: none could be rebuilt)."""
    names: Callable[[str], str]
    """Recorded tool name → the name the replay uses (bare, within every wire's name rules)."""
    max_tokens: int
