"""The context toolkit: the history an LLM agent carries between turns, as data."""

from toolkit.corpus import Corpus, load
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

__all__ = [
    "Block",
    "Corpus",
    "Event",
    "Image",
    "Message",
    "Opaque",
    "Problem",
    "Reasoning",
    "RecordError",
    "RunConfig",
    "Session",
    "Text",
    "ToolResult",
    "ToolUse",
    "Usage",
    "load",
]
