"""The context toolkit: the history an LLM agent carries between turns, as data."""

from toolkit.corpus import Corpus, load
from toolkit.costs import image_tokens, request_cost, text_tokens
from toolkit.record import (
    Block,
    Event,
    Image,
    Message,
    Opaque,
    Problem,
    Reasoning,
    RecordError,
    RunConfig,
    Session,
    Text,
    ToolResult,
    ToolUse,
    Usage,
)
from toolkit.surface import Fidelity, SurfaceStore, fidelity, fingerprint
from toolkit.transcripts import TranscriptStore

__all__ = [
    "Block",
    "Corpus",
    "Event",
    "Fidelity",
    "Image",
    "Message",
    "Opaque",
    "Problem",
    "Reasoning",
    "RecordError",
    "RunConfig",
    "Session",
    "SurfaceStore",
    "Text",
    "ToolResult",
    "ToolUse",
    "TranscriptStore",
    "Usage",
    "fidelity",
    "fingerprint",
    "image_tokens",
    "load",
    "request_cost",
    "text_tokens",
]
