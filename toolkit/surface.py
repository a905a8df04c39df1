"""Tool surfaces: the exact tool specs a run was sent, identified by a stable hash."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from toolkit.record import JsonValue


def canonical_bytes(tools: Sequence[JsonValue]) -> bytes:
    """The tool list as sent, in its order, keys in their given order, compact separators
    (``,`` and ``:``), non-ASCII kept as UTF-8: the bytes a request puts before everything else."""
    return json.dumps(list(tools), separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def fingerprint(tools: Sequence[JsonValue]) -> str:
    """``sha256:<hex>`` of the canonical bytes: any edit to any byte of any spec changes it."""
    return "sha256:" + hashlib.sha256(canonical_bytes(tools)).hexdigest()
