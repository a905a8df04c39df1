"""The context toolkit: the history an LLM agent carries between turns, as data.

The record's kinds are imported eagerly; the capabilities (loading, costs, surfaces, the
transcript store) are imported on first use, so ``import toolkit`` and every ``toolkit``
subcommand start without loading tokenizers, polars and altair they may not need."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from toolkit.corpus import Corpus, load
    from toolkit.costs import image_tokens, request_cost, text_tokens
    from toolkit.surface import Fidelity, SurfaceStore
    from toolkit.surface.fidelity import fidelity
    from toolkit.surface.fingerprint import fingerprint
    from toolkit.transcripts import TranscriptStore

_LAZY = {
    "Corpus": "toolkit.corpus", "load": "toolkit.corpus",
    "image_tokens": "toolkit.costs", "request_cost": "toolkit.costs", "text_tokens": "toolkit.costs",
    "Fidelity": "toolkit.surface", "SurfaceStore": "toolkit.surface", "fidelity": "toolkit.surface",
    "fingerprint": "toolkit.surface", "TranscriptStore": "toolkit.transcripts",
}

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


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
