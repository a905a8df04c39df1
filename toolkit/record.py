"""The record: one provider-neutral stored history that every consumer replays.

The kinds here are closed. Every consumer matches ``Block`` exhaustively and ends with
``typing.assert_never``, so a new kind fails the type check instead of silently going
missing from a replay, a cost or a frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypeAlias

from toolkit.errors import InvalidInput
from toolkit.jsontext import loads, stable_json_bytes

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
"""Any value a JSON document can hold, as `json.loads` returns it."""

NULL_JSON = b"null"


def packed(value: JsonValue) -> bytes:
    """A source's JSON kept for provenance (``Event.raw_json``, ``ToolResult.detail_json``) as its
    compact UTF-8 text, parsed again only when read: as parsed objects it costs several times its
    text, most of the memory of importing a large file (issue 31). What is read back is what a saved
    corpus reads back too: an integer beyond 64 bits is a float, NaN is null."""
    return NULL_JSON if value is None else stable_json_bytes(value)


def unpacked(data: bytes) -> JsonValue:
    """The value ``packed`` kept."""
    return None if data == NULL_JSON else loads(data)


Role = Literal["system", "user", "assistant", "tool"]
"""Who a message is from. ``tool`` is a message that carries only tool results (OpenAI and
Gemini keep those in their own turn; Anthropic-shaped sources put them in ``user``)."""

ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")

BlockKind = Literal["text", "tool_use", "tool_result", "reasoning", "image", "opaque"]
BLOCK_KINDS: tuple[BlockKind, ...] = ("text", "tool_use", "tool_result", "reasoning", "image", "opaque")


class Record:
    """What every kind of the record shares: it pickles as a call of its constructor with its fields.
    The dataclass default for a frozen class with slots sets each slot through a Python
    ``__setstate__``, which makes moving a corpus between processes slower both ways than one
    constructor call per object (a worker's sessions come back to the caller pickled)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[Record], tuple[object, ...]]:
        return type(self), tuple(map(self.__getattribute__, self.__slots__))


@dataclass(frozen=True, slots=True)
class SourceRef(Record):
    """Where a record came from, so every problem and every row can be traced to a line."""

    file: str
    line: int | None = None
    """1-based line (JSONL) or record index + 1 (JSON arrays); ``None`` for whole-file formats."""


@dataclass(frozen=True, slots=True)
class Text(Record):
    """Words a participant said."""

    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ToolUse(Record):
    """A call the model made. ``input`` is the parsed arguments; when the source held
    arguments that are not valid JSON, ``input`` is ``None`` and ``raw_input`` keeps the text."""

    id: str
    name: str
    input: JsonValue
    raw_input: str | None = None
    """The arguments exactly as the source held them when they did not parse as JSON."""
    freeform: bool = False
    """A free-text (grammar) tool such as Codex's ``apply_patch``: ``input`` is the text itself."""
    kind: Literal["tool_use"] = "tool_use"

    @property
    def input_valid(self) -> bool:
        return self.raw_input is None


ImageOrigin = Literal["inline", "url", "omitted"]
IMAGE_ORIGINS: tuple[ImageOrigin, ...] = ("inline", "url", "omitted")


@dataclass(frozen=True, slots=True)
class Image(Record):
    """An image. Its bytes live once in the corpus image store, keyed by ``sha256``; a block
    only names them, so frames and copies never duplicate pixels."""

    media_type: str
    sha256: str | None
    """Content hash of the bytes in the image store; ``None`` when only a URL was recorded."""
    size: int = 0
    """Byte length of the stored image (0 when only a URL is known)."""
    width: int | None = None
    height: int | None = None
    url: str | None = None
    """A remote location, kept when the source referenced the image instead of embedding it."""
    kind: Literal["image"] = "image"

    @property
    def origin(self) -> ImageOrigin:
        """Where the pixels are: bytes in the image store, a remote reference, or nowhere (a log
        written without images keeps only a placeholder saying one was there)."""
        if self.sha256 is not None:
            return "inline"
        if self.url is not None:
            return "url"
        return "omitted"


@dataclass(frozen=True, slots=True)
class ToolResult(Record):
    """What came back for a call. ``name`` is filled when the source names the tool beside the
    result (Gemini, OpenHands); otherwise consumers find it through ``tool_use_id``."""

    tool_use_id: str
    output: str
    is_error: bool = False
    images: tuple[Image, ...] = ()
    """Images returned by the tool (Anthropic tool_result content, Gemini functionResponse parts)."""
    name: str | None = None
    detail_json: bytes = NULL_JSON
    """``detail`` as ``packed`` JSON."""
    kind: Literal["tool_result"] = "tool_result"

    @property
    def detail(self) -> JsonValue:
        """Structured result the client recorded beside the output (Claude Code ``toolUseResult``,
        Gemini CLI ``resultDisplay``), kept as the source held it."""
        return unpacked(self.detail_json)


@dataclass(frozen=True, slots=True)
class Reasoning(Record):
    """Thinking the model did. ``signature`` is the provider's opaque proof (Anthropic thinking
    signature, Gemini thoughtSignature, OpenAI encrypted_content); only the provider that made it
    can accept it back, so ``provider`` and ``model`` record who signed."""

    text: str
    signature: str | None = None
    provider: str | None = None
    model: str | None = None
    redacted: bool = False
    """The text is not readable (Anthropic redacted_thinking, encrypted-only OpenAI reasoning)."""
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, slots=True)
class Opaque(Record):
    """Something an importer did not understand, kept with its raw JSON rather than dropped."""

    type: str
    """The source's own name for the thing (its ``type`` field or a description)."""
    raw: JsonValue
    reason: str = ""
    kind: Literal["opaque"] = "opaque"


Block: TypeAlias = Text | ToolUse | ToolResult | Reasoning | Image | Opaque
"""The closed set of block kinds. Match it exhaustively and end with ``assert_never``."""


@dataclass(frozen=True, slots=True)
class Usage(Record):
    """Token counts as the provider reported them for the request that produced a message."""

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None

    @property
    def context(self) -> int | None:
        """Every input token the request carried: fresh, cached and cache-written."""
        if self.input is None:
            return None
        return self.input + (self.cache_read or 0) + (self.cache_write or 0)


@dataclass(frozen=True, slots=True)
class Message(Record):
    """One stored message: a node of the session tree."""

    id: str
    parent_id: str | None
    role: Role
    blocks: tuple[Block, ...]
    time: datetime | None = None
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    source: SourceRef | None = None
    sidechain: bool = False
    """Recorded on a side branch (a Claude Code subagent running inside the main file)."""
    tags: tuple[str, ...] = ()
    """Source flags worth keeping: ``meta`` (client-injected), ``compact_summary``, ``synthetic``
    (a client-side stub, not a model reply), ``demo`` (a few-shot example), ``interrupted``."""

    def __repr__(self) -> str:
        """Its id, place, role and block kinds: a message's blocks may hold megabytes of output."""
        kinds = ", ".join(block.kind for block in self.blocks)
        return f"Message(id={self.id!r}, parent_id={self.parent_id!r}, role={self.role!r}, blocks=[{kinds}])"

    @property
    def text(self) -> str:
        """The words of the message, blocks of other kinds left out."""
        return "\n".join(b.text for b in self.blocks if isinstance(b, Text))


EventKind = Literal["compaction", "summary", "error", "meta", "attachment", "progress", "token_count", "other"]
EVENT_KINDS: tuple[EventKind, ...] = (
    "compaction", "summary", "error", "meta", "attachment", "progress", "token_count", "other",
)


@dataclass(frozen=True, slots=True)
class Event(Record):
    """Something that happened in a session but is not a message a model saw as such:
    compactions, summaries, API errors, client bookkeeping. Kept with its raw JSON."""

    kind: EventKind
    type: str
    """The source's own name for the record (``compact_boundary``, ``token_count``...)."""
    time: datetime | None = None
    message_id: str | None = None
    """The message the event is attached to, when the source says."""
    text: str = ""
    """A short human-readable description (a summary's text, an error message)."""
    raw_json: bytes = NULL_JSON
    """``raw`` as ``packed`` JSON."""
    source: SourceRef | None = None
    tokens_before: int | None = None
    """Context size the client measured when it compacted, where the source says (Claude Code
    ``preTokens``; Codex: the input of the request the rollout counted last before it)."""
    trigger: str | None = None
    """What the source says started a compaction: ``auto``, ``manual``..."""

    @property
    def raw(self) -> JsonValue:
        """The source's record as it held it."""
        return unpacked(self.raw_json)


@dataclass(frozen=True, slots=True)
class RunConfig(Record):
    """What a run (or a turn) was sent besides the messages. ``surface_hash`` is optional on
    purpose: absent means unknown, never equal."""

    model: str | None = None
    provider: str | None = None
    system: str | None = None
    """The full system prompt, when the source recorded it."""
    tool_names: tuple[str, ...] = ()
    surface_hash: str | None = None
    tools: tuple[JsonValue, ...] | None = None
    """The tool specs exactly as sent, when the source recorded them."""
    message_id: str | None = None
    """The first message this configuration applies to (``None``: the whole session)."""
    time: datetime | None = None
    source: SourceRef | None = None


@dataclass(frozen=True, slots=True)
class Problem(Record):
    """Something the importer could not read as it expected: named by file, line and reason."""

    file: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"


class RecordError(InvalidInput):
    """A problem raised rather than collected (``strict=True``): a file that is not what its format
    says, so bad input like any other. Raised in a worker process, it reaches the caller with its
    ``problem`` (``ToolkitError`` pickles the attributes).

    Args:
        problem: The problem that stopped the read; kept whole so a caller can name its file and line.
    """

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Session(Record):
    """A tree of messages with a named tip. Its path (root to tip) is what a model saw."""

    id: str
    format: str
    """The importer that produced it (``claude_code``, ``codex``, ``openai_chat``...)."""
    messages: tuple[Message, ...]
    """Every node of the tree in source order (parents before children where the source allows)."""
    tip: str | None = None
    """The id of the current tip; ``None`` only for a session without messages."""
    file: str = ""
    run_configs: tuple[RunConfig, ...] = ()
    events: tuple[Event, ...] = ()
    parent_session_id: str | None = None
    """For a subagent or sidechain session: the session that spawned it."""
    spawn_call_id: str | None = None
    """The tool call in the parent session that spawned this one, when known."""
    title: str | None = None
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        index = self._index
        for i, message in enumerate(self.messages):
            index.setdefault(message.id, i)

    def __reduce__(self) -> tuple[type[Record], tuple[object, ...]]:
        """Without ``_index``: the constructor builds it again."""
        return type(self), tuple(map(self.__getattribute__, self.__slots__[:-1]))

    def __repr__(self) -> str:
        """Its id, format, file, tip and size, never its messages."""
        return (f"Session(id={self.id!r}, format={self.format!r}, file={self.file!r}, tip={self.tip!r}, "
                f"{len(self.messages)} messages, {len(self.events)} events)")

    def get(self, message_id: str) -> Message | None:
        """The message with id ``message_id``, or ``None`` when the session has none: a parent id may
        name a message the source never wrote.

        Args:
            message_id: The id to look up, as a message's ``id`` or ``parent_id`` holds it.

        Returns:
            The message, or ``None``.
        """
        i = self._index.get(message_id)
        return None if i is None else self.messages[i]

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._index

    def path(self, tip: str | None = None) -> list[Message]:
        """Root to ``tip`` (default: the session's tip), following parent ids. Stops at a missing
        parent or a cycle rather than looping: importers report those as problems.

        Args:
            tip: The last message of the path, to follow a branch other than the current one.

        Returns:
            The messages from the root to ``tip``, in order.
        """
        node_id = self.tip if tip is None else tip
        out: list[Message] = []
        seen: set[str] = set()
        while node_id is not None and node_id not in seen:
            message = self.get(node_id)
            if message is None:
                break
            seen.add(node_id)
            out.append(message)
            node_id = message.parent_id
        out.reverse()
        return out

    def children(self) -> dict[str | None, list[Message]]:
        """Parent id → child messages, in source order (``None`` holds the roots).

        Returns:
            Each parent id with its children; a message whose parent is missing counts as a root.
        """
        kids: dict[str | None, list[Message]] = {}
        for message in self.messages:
            parent = message.parent_id if message.parent_id in self._index else None
            kids.setdefault(parent, []).append(message)
        return kids

    def leaves(self) -> list[Message]:
        """Messages no other message names as parent: the ends of branches.

        Returns:
            The leaf messages, in source order.
        """
        parents = {m.parent_id for m in self.messages}
        return [m for m in self.messages if m.id not in parents]

    def blocks(self) -> Iterator[tuple[Message, Block]]:
        """Every block of every message, in source order, with the message that holds it: one loop for
        an analysis that counts blocks across a session without walking the tree.

        Yields:
            (message, block) pairs.
        """
        for message in self.messages:
            for block in message.blocks:
                yield message, block

    def run_config(self, message_id: str | None = None) -> RunConfig | None:
        """The configuration in force at ``message_id`` (the last one recorded at or before it on
        the path), or the session's last configuration when no message is named.

        Args:
            message_id: The message whose request the configuration is wanted for.

        Returns:
            The configuration, or ``None`` when the session recorded none (or none on that path).
        """
        if not self.run_configs:
            return None
        if message_id is None:
            return self.run_configs[-1]
        on_path = {m.id: i for i, m in enumerate(self.path(message_id))}
        best: RunConfig | None = None
        best_at = -1
        for config in self.run_configs:
            at = 0 if config.message_id is None else on_path.get(config.message_id, -1)
            if at >= best_at and at >= 0:
                best, best_at = config, at
        return best


def bare_tool_name(name: str) -> str:
    """One vocabulary: ``mcp__server__tool`` is ``tool`` whichever client recorded it."""
    if name.startswith("mcp__"):
        rest = name[len("mcp__"):]
        server, sep, tool = rest.partition("__")
        if sep and server and tool:
            return tool
    return name
