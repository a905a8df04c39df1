"""Transcripts as a tree in SQLite: persisted a whole turn at a time, branched by moving the tip,
forked by copying, checkpointed and rewound by name, resumed without orphaning a tool result."""

from toolkit.transcripts.migrations import SchemaError
from toolkit.transcripts.resume import Checkpoint, Dropped, Resumed, estimate_tokens, token_counter, trim
from toolkit.transcripts.store import SessionInfo, TranscriptStore, fork_id, is_store
from toolkit.transcripts.tree import chart, frame, layout, render
from toolkit.transcripts.turns import TurnError, is_turn_start

__all__ = [
    "Checkpoint",
    "Dropped",
    "Resumed",
    "SchemaError",
    "SessionInfo",
    "TranscriptStore",
    "TurnError",
    "chart",
    "estimate_tokens",
    "fork_id",
    "frame",
    "is_store",
    "is_turn_start",
    "layout",
    "render",
    "token_counter",
    "trim",
]
