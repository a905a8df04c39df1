"""Tool surfaces: the exact tool specs a run was sent, identified by a stable hash, kept once in a
write-once store, compared with today's tools in three states, and analysed across a corpus.

``fingerprint`` (identity and provider shapes), ``store`` (the blobs), ``fidelity`` (the three
states, replay rebuild, recording a corpus), ``analysis`` (frames) and ``charts``. The functions
``fingerprint`` and ``fidelity`` share their module's name and win as attributes of this package:
``from toolkit.surface import fingerprint`` is the function, ``from toolkit.surface.fingerprint
import canonical_bytes`` still reaches the module."""

from toolkit.surface.analysis import (
    STATUSES,
    SurfaceSummary,
    diff,
    drift,
    runs,
    storage,
    summary,
    surfaces,
)
from toolkit.surface.fidelity import (
    NAMES_ONLY,
    Fidelity,
    FidelityResult,
    SurfaceMismatch,
    differs_reason,
    fidelity,
    record_run,
    record_surfaces,
    surface_of,
    tools_for_replay,
    unknown_reason,
)
from toolkit.surface.fingerprint import (
    HASH_PREFIX,
    Tools,
    ToolSpec,
    as_list,
    canonical_bytes,
    fingerprint,
    is_surface_hash,
    read_tools,
    semantic_bytes,
    strip_descriptions,
    tool_specs,
    tools_of,
)
from toolkit.surface.store import (
    BadSurfaceName,
    StoreStats,
    SurfaceCorrupt,
    SurfaceError,
    SurfaceNotFound,
    SurfaceStore,
)

__all__ = [
    "HASH_PREFIX",
    "NAMES_ONLY",
    "STATUSES",
    "BadSurfaceName",
    "Fidelity",
    "FidelityResult",
    "StoreStats",
    "SurfaceCorrupt",
    "SurfaceError",
    "SurfaceMismatch",
    "SurfaceNotFound",
    "SurfaceStore",
    "SurfaceSummary",
    "ToolSpec",
    "Tools",
    "as_list",
    "canonical_bytes",
    "diff",
    "differs_reason",
    "drift",
    "fidelity",
    "fingerprint",
    "is_surface_hash",
    "read_tools",
    "record_run",
    "record_surfaces",
    "runs",
    "semantic_bytes",
    "storage",
    "strip_descriptions",
    "summary",
    "surface_of",
    "surfaces",
    "tool_specs",
    "tools_for_replay",
    "tools_of",
    "unknown_reason",
]
