"""Tool surfaces: the exact tool specs a run was sent, identified by a stable hash, kept once in a
write-once store, compared with today's tools in three states, and analysed across a corpus.

``fingerprint`` (identity and provider shapes), ``store`` (the blobs), ``fidelity`` (the three
states, replay rebuild, recording a corpus), ``analysis`` (frames) and ``charts``. The functions
``fingerprint`` and ``fidelity`` share their module's name and win as attributes of this package:
``from toolkit.surface import fingerprint`` is the function, ``from toolkit.surface.fingerprint
import canonical_bytes`` still reaches the module.

Names resolve on first use: fingerprinting a tool list or reading one transcript does not load
the polars analyses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

# The two functions named like their modules are bound now (both modules are light), so the
# package attribute is the function even after the submodule is imported elsewhere.
from toolkit.surface.fidelity import fidelity
from toolkit.surface.fingerprint import fingerprint

if TYPE_CHECKING:
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
        Fidelity,
        FidelityResult,
        SurfaceMismatch,
        differs_reason,
        names_only,
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

_LAZY = {
    "STATUSES": "toolkit.surface.analysis",
    "SurfaceSummary": "toolkit.surface.analysis",
    "diff": "toolkit.surface.analysis",
    "drift": "toolkit.surface.analysis",
    "runs": "toolkit.surface.analysis",
    "storage": "toolkit.surface.analysis",
    "summary": "toolkit.surface.analysis",
    "surfaces": "toolkit.surface.analysis",
    "names_only": "toolkit.surface.fidelity",
    "Fidelity": "toolkit.surface.fidelity",
    "FidelityResult": "toolkit.surface.fidelity",
    "SurfaceMismatch": "toolkit.surface.fidelity",
    "differs_reason": "toolkit.surface.fidelity",
    "record_run": "toolkit.surface.fidelity",
    "record_surfaces": "toolkit.surface.fidelity",
    "surface_of": "toolkit.surface.fidelity",
    "tools_for_replay": "toolkit.surface.fidelity",
    "unknown_reason": "toolkit.surface.fidelity",
    "HASH_PREFIX": "toolkit.surface.fingerprint",
    "Tools": "toolkit.surface.fingerprint",
    "ToolSpec": "toolkit.surface.fingerprint",
    "as_list": "toolkit.surface.fingerprint",
    "canonical_bytes": "toolkit.surface.fingerprint",
    "is_surface_hash": "toolkit.surface.fingerprint",
    "read_tools": "toolkit.surface.fingerprint",
    "semantic_bytes": "toolkit.surface.fingerprint",
    "strip_descriptions": "toolkit.surface.fingerprint",
    "tool_specs": "toolkit.surface.fingerprint",
    "tools_of": "toolkit.surface.fingerprint",
    "BadSurfaceName": "toolkit.surface.store",
    "StoreStats": "toolkit.surface.store",
    "SurfaceCorrupt": "toolkit.surface.store",
    "SurfaceError": "toolkit.surface.store",
    "SurfaceNotFound": "toolkit.surface.store",
    "SurfaceStore": "toolkit.surface.store",
}

__all__ = [
    "HASH_PREFIX",
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
    "names_only",
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


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
