"""Transcripts as a tree in SQLite: persisted a whole turn at a time, branched by moving the tip,
forked by copying, checkpointed and rewound by name, resumed without orphaning a tool result."""

from toolkit.transcripts.migrations import SchemaError
from toolkit.transcripts.resume import (
    DEFAULT_MODEL,
    UNKNOWN_IMAGE_SIZE,
    Checkpoint,
    Dropped,
    Resumed,
    TokenCounter,
    estimate_tokens,
    path_model,
    token_counter,
    trim,
)
from toolkit.transcripts.store import SessionInfo, TranscriptStore, fork_id, is_store
from toolkit.transcripts.tree import chart, frame, layout, tree_text
from toolkit.transcripts.turns import TurnError, is_turn_start

__all__ = [
    "DEFAULT_MODEL",
    "UNKNOWN_IMAGE_SIZE",
    "Checkpoint",
    "Dropped",
    "Resumed",
    "SchemaError",
    "SessionInfo",
    "TokenCounter",
    "TranscriptStore",
    "TurnError",
    "chart",
    "estimate_tokens",
    "fork_id",
    "frame",
    "is_store",
    "is_turn_start",
    "layout",
    "path_model",
    "token_counter",
    "tree_text",
    "trim",
]
