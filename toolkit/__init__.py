"""The context toolkit: the history an LLM agent carries between turns, as data.

Every name is imported on first use, the record's kinds included, so ``import toolkit`` and
every ``toolkit`` subcommand start without loading tokenizers, polars and altair they may not
need."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolkit.corpus import Corpus, ingest, load, scan
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
    from toolkit.surface import Fidelity, SurfaceStore
    from toolkit.surface.fidelity import fidelity
    from toolkit.surface.fingerprint import fingerprint
    from toolkit.transcripts import TranscriptStore

_LAZY = {
    **{name: "toolkit.record" for name in ("Block", "Event", "Image", "Message", "Opaque", "Problem", "Reasoning", "RecordError", "RunConfig", "Session", "Text", "ToolResult", "ToolUse", "Usage")},
    "Corpus": "toolkit.corpus", "load": "toolkit.corpus", "ingest": "toolkit.corpus", "scan": "toolkit.corpus",
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
    "ingest",
    "load",
    "request_cost",
    "scan",
    "text_tokens",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())


def _offline_charts() -> None:
    from toolkit.notebook import offline_charts

    offline_charts()


_offline_charts()
