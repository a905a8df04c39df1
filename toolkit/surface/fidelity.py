"""Would a replay today send the same tools as the recording? Three answers, and the one that
matters is unknown: a recording that kept tool names only must never read as matching.

``DIFFERS`` needs no blob (today's hash against the recorded one answers it), so legibility
arrives the day a hash is recorded; rebuilding the request needs the blob, so it accumulates as
the store fills.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.errors import InvalidInput
from toolkit.record import JsonValue, Problem, RunConfig, Session
from toolkit.surface.fingerprint import Tools, fingerprint, is_surface_hash
from toolkit.surface.store import SurfaceError, SurfaceStore

if TYPE_CHECKING:
    from toolkit.corpus import Corpus


class Fidelity(enum.Enum):
    """How faithfully a replay can reproduce the tools a recording was sent."""

    MATCHES = "matches"
    DIFFERS = "differs"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class FidelityResult:
    state: Fidelity
    reason: str
    """Why, in words: what matched, what differs, or why nothing can be said."""
    recorded: str | None
    """The recorded surface hash (``None``: nothing was recorded)."""
    current: str | None
    """The hash of the tools compared against."""
    rebuildable: bool
    """Whether the recorded specs can be rebuilt (the blob is in the store, or the run config
    carries the specs itself): what a replay needs to send the recorded tools, not today's."""


def names_only(format: str) -> str:
    """Why a format's recordings cannot rebuild their tool surface, when it records the calls a
    model made but never the tool definitions it was given (``Importer.names_only``), else empty.

    Args:
        format: The importer name the run was read with.

    Returns:
        The reason, or ``""`` for a format that can record its tools.
    """
    from toolkit.corpus.formats import importers

    return next((i.names_only for i in importers() if i.name == format), "")


def unknown_reason(config: RunConfig | None, format: str | None = None) -> str:
    """Why a run has no recorded surface, as specifically as the source allows.

    Args:
        config: The run's config, or ``None`` when the source recorded none.
        format: The importer name the run was read with, for a reason specific to that client.

    Returns:
        The reason, in words.
    """
    if format is not None and (reason := names_only(format)):
        return reason
    source = f"the {format} source" if format else "the source"
    if config is None:
        return f"{source} recorded no run configuration"
    if config.tool_names:
        return f"{source} recorded tool names only ({len(config.tool_names)}), not the specs sent"
    return f"{source} recorded no tool specs"


def surface_of(config: RunConfig) -> str | None:
    """The surface a run config recorded: its hash, or the hash of the specs it carries.

    Args:
        config: The run config to read.

    Returns:
        The surface hash, or ``None`` when the config recorded neither hash nor specs.
    """
    if config.surface_hash is not None:
        return config.surface_hash
    if config.tools is not None:
        return fingerprint(config.tools)
    return None


def fidelity(
    recorded: str | RunConfig | None,
    tools: Tools | str | None,
    store: SurfaceStore | None = None,
    *,
    format: str | None = None,
) -> FidelityResult:
    """Compare a recording's surface with ``tools``: matches, differs, or unknown.

    Absent is never equal: without a recorded hash the answer is ``UNKNOWN`` with the reason.
    ``DIFFERS`` is decided by the hashes alone.

    Args:
        recorded: A surface hash, a run config, or ``None`` (nothing recorded).
        tools: Today's specs, today's hash, or ``None``.
        store: A ``SurfaceStore`` that may hold the recorded specs, so they can be rebuilt.
        format: The recording's source format, for an ``UNKNOWN`` reason as specific as it knows.

    Returns:
        The state, the reason in words, both hashes, and whether the recorded specs can be rebuilt."""
    if isinstance(recorded, RunConfig):
        config, recorded_hash = recorded, surface_of(recorded)
    else:
        config, recorded_hash = None, recorded
    current = tools if isinstance(tools, str) or tools is None else fingerprint(tools)
    rebuildable = _rebuildable(recorded_hash, config, store)

    def result(state: Fidelity, reason: str) -> FidelityResult:
        return FidelityResult(state, reason, recorded_hash, current, rebuildable)

    if recorded_hash is None:
        return result(Fidelity.UNKNOWN, unknown_reason(config, format))
    if not is_surface_hash(recorded_hash):
        return result(Fidelity.UNKNOWN, f"the recorded surface hash {recorded_hash!r} is not well-formed")
    if current is None:
        return result(Fidelity.UNKNOWN, "no current tool surface was given to compare against")
    if not is_surface_hash(current):
        return result(Fidelity.UNKNOWN, f"the current surface hash {current!r} is not well-formed")
    if current == recorded_hash:
        return result(Fidelity.MATCHES, "today's tools are byte for byte the recorded surface")
    return result(Fidelity.DIFFERS, _how_it_differs(recorded_hash, config, tools, store))


def _rebuildable(recorded_hash: str | None, config: RunConfig | None, store: SurfaceStore | None) -> bool:
    if recorded_hash is None or not is_surface_hash(recorded_hash):
        return False
    if store is not None and recorded_hash in store:
        return True
    return config is not None and config.tools is not None and fingerprint(config.tools) == recorded_hash


def _how_it_differs(
    recorded_hash: str, config: RunConfig | None, tools: Tools | str | None, store: SurfaceStore | None
) -> str:
    """The hashes already decided; when both specs are at hand, say whether only words changed."""
    if isinstance(tools, str) or tools is None:
        return differs_reason(None)
    then, _ = tools_for_replay(config if config is not None else RunConfig(surface_hash=recorded_hash), store)
    if then is None:
        return differs_reason(None) + " (the recorded specs are not at hand to say what changed)"
    return differs_reason(fingerprint(then, semantic=True) == fingerprint(tools, semantic=True))


def differs_reason(same_meaning: bool | None) -> str:
    """The words for ``DIFFERS``; ``same_meaning`` when the semantic hashes could be compared.

    Args:
        same_meaning: Whether the semantic hashes agree (``None``: one side could not be rebuilt), so
            the words say whether the change is cosmetic or one a model would notice.

    Returns:
        The reason a ``FidelityResult`` carries.
    """
    base = "today's tools hash differently from the recorded surface"
    if same_meaning is None:
        return base
    if same_meaning:
        return base + ": descriptions, key order or tool order only; every schema is the same"
    return base + ": the callable tools or their schemas changed"


def tools_for_replay(
    run_config: RunConfig | None, store: SurfaceStore | None = None, *, format: str | None = None
) -> tuple[list[JsonValue] | None, str]:
    """The tool specs a replay of this run must send, rebuilt from what was recorded and never from
    whatever tools are current.

    The blob in ``store`` is used first (verified against its hash); specs carried by the run config
    itself are used when they hash to the recorded surface.

    Args:
        run_config: The run's config (``None``: nothing recorded).
        store: Where the recorded surface's blob may be.
        format: The session's source format, so the reason names it when nothing was recorded.

    Returns:
        ``(tools, reason)``, or ``(None, reason)`` saying why the specs cannot be rebuilt."""
    if run_config is None:
        return None, unknown_reason(None, format) + "; the tools cannot be rebuilt"
    recorded = surface_of(run_config)
    if recorded is None:
        return None, unknown_reason(run_config, format) + "; the tools cannot be rebuilt"
    if not is_surface_hash(recorded):
        return None, f"the recorded surface hash {recorded!r} is not well-formed"
    trouble = ""
    if store is not None:
        try:
            return store.get(recorded), f"rebuilt from the stored blob {recorded}"
        except SurfaceError as exc:
            trouble = f" ({exc})"
    if run_config.tools is not None:
        if fingerprint(run_config.tools) == recorded:
            return list(run_config.tools), f"rebuilt from the specs recorded with the run ({recorded}){trouble}"
        return None, (
            f"the specs recorded with the run hash to {fingerprint(run_config.tools)}, not to the recorded "
            f"surface {recorded}{trouble}"
        )
    where = "no surface store was given" if store is None else f"the blob is not usable{trouble}"
    return None, f"surface {recorded} was recorded by hash only and {where}; the tools cannot be rebuilt"


class SurfaceMismatch(InvalidInput):
    """A run config whose recorded hash is not the hash of the specs it carries."""


def record_run(config: RunConfig, store: SurfaceStore | None, stored: set[str] | None = None) -> RunConfig:
    """Put a run's specs in the store (when there is one) and return the config with its surface hash
    set. A config without specs is returned as it is.

    Args:
        config: The run config.
        store: Where the specs go (``None``: only the hash is set).
        stored: Surfaces the caller already put in this pass, which are not put again.

    Returns:
        The config with its surface hash.

    Raises:
        SurfaceMismatch: The recorded hash is malformed or disagrees with the specs."""
    if config.tools is None:
        return config
    actual = fingerprint(config.tools)
    if store is not None and (stored is None or actual not in stored):
        store.put(config.tools)
        if stored is not None:
            stored.add(actual)
    if config.surface_hash is None:
        return dataclasses.replace(config, surface_hash=actual)
    if not is_surface_hash(config.surface_hash):
        raise SurfaceMismatch(f"recorded surface hash {config.surface_hash!r} is not well-formed")
    if config.surface_hash != actual:
        raise SurfaceMismatch(
            f"recorded surface hash {config.surface_hash} is not the hash of the recorded specs ({actual})"
        )
    return config


def record_surfaces(corpus: Corpus, store: SurfaceStore) -> Corpus:
    """Every run config's recorded specs put in the store, and every surface hash checked or set.

    A recorded hash that disagrees with the recorded specs is kept as recorded and reported as a
    problem naming the file and line, since the record is never rewritten silently.

    Args:
        corpus: The corpus (not changed).
        store: Where the specs go.

    Returns:
        A new corpus whose run configs carry their hashes, with any disagreement among its problems."""
    problems: list[Problem] = list(corpus.problems)
    stored: set[str] = set()
    sessions = [_record_session(session, store, problems, stored) for session in corpus.sessions]
    return dataclasses.replace(corpus, sessions=sessions, problems=problems)


def _record_session(session: Session, store: SurfaceStore, problems: list[Problem], stored: set[str]) -> Session:
    configs: list[RunConfig] = []
    for config in session.run_configs:
        try:
            configs.append(record_run(config, store, stored))
        except SurfaceMismatch as exc:
            source = config.source
            problems.append(Problem(source.file if source else session.file, source.line if source else None,
                                    str(exc)))
            configs.append(config)
    if all(new is old for new, old in zip(configs, session.run_configs, strict=True)):
        return session
    return dataclasses.replace(session, run_configs=tuple(configs))
