"""Tool surfaces across a corpus, as polars frames: which run was sent which surface and when,
the distinct surfaces and their lifetimes, what changed per tool between two surfaces, and what
keeping the specs costs inlined in every session against a store that keeps each surface once.

Every function takes the sessions, any iterable of them (a corpus is one: the analyses need
nothing else of it, so this module knows nothing of ``toolkit.corpus``), and optionally the store
that holds blobs they cite by hash only, and returns a frame with the columns its docstring lists,
empty frames included.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from toolkit.errors import InvalidInput
from toolkit.record import JsonValue, RunConfig, Session
from toolkit.surface.fidelity import Fidelity, differs_reason, fidelity
from toolkit.surface.fingerprint import (
    Tools,
    ToolSpec,
    canonical_bytes,
    fingerprint,
    is_surface_hash,
    strip_descriptions,
    tool_specs,
)
from toolkit.surface.store import SurfaceError, SurfaceStore

TIME = pl.Datetime("us", "UTC")

RUNS_SCHEMA = pl.Schema({
    "order": pl.Int64(),
    "session_id": pl.String(),
    "format": pl.String(),
    "file": pl.String(),
    "run": pl.Int64(),
    "message_id": pl.String(),
    "time": TIME,
    "model": pl.String(),
    "provider": pl.String(),
    "tool_names": pl.List(pl.String()),
    "surface_hash": pl.String(),
    "semantic_hash": pl.String(),
    "recorded": pl.Boolean(),
    "spec_bytes": pl.Int64(),
    "rebuildable": pl.Boolean(),
    "fidelity": pl.String(),
    "reason": pl.String(),
})

SURFACES_SCHEMA = pl.Schema({
    "label": pl.String(),
    "surface_hash": pl.String(),
    "semantic_hash": pl.String(),
    "tools": pl.Int64(),
    "tool_names": pl.List(pl.String()),
    "bytes": pl.Int64(),
    "first_seen": TIME,
    "last_seen": TIME,
    "runs": pl.Int64(),
    "sessions": pl.Int64(),
    "rebuildable": pl.Boolean(),
})

DIFF_SCHEMA = pl.Schema({
    "tool": pl.String(),
    "status": pl.String(),
    "name_a": pl.String(),
    "name_b": pl.String(),
    "position_a": pl.Int64(),
    "position_b": pl.Int64(),
    "description_changed": pl.Boolean(),
    "schema_changed": pl.Boolean(),
    "moved": pl.Boolean(),
    "detail": pl.String(),
})

STORAGE_SCHEMA = pl.Schema({
    "session_id": pl.String(),
    "time": TIME,
    "surfaces": pl.Int64(),
    "inline_bytes": pl.Int64(),
    "new_store_bytes": pl.Int64(),
    "cumulative_inline_bytes": pl.Int64(),
    "cumulative_store_bytes": pl.Int64(),
})

STATUSES = ("unchanged", "moved", "reformatted", "redescribed", "renamed", "schema_changed", "added", "removed")
"""Per-tool outcomes of ``diff``, from nothing to everything: ``moved`` (same bytes, another place
in the list), ``reformatted`` (same meaning and words, other bytes: key order or provider shape),
``redescribed`` (only descriptions changed), ``renamed`` (same schema under a new name),
``schema_changed`` (what can be called changed), ``added``, ``removed``."""


@dataclass(frozen=True, slots=True)
class _Facts:
    names: list[str]
    semantic: str
    size: int


class _Specs:
    """Surface hash → the specs, from the store or from the run configs that carry them, and what
    the frames need of them: each worked out once per distinct surface, never once per run."""

    def __init__(self, sessions: Sequence[Session], store: SurfaceStore | None) -> None:
        self.store = store
        self.known: dict[str, list[JsonValue] | None] = {}
        self.claims: dict[str, list[tuple[JsonValue, ...]]] = {}
        """Recorded hash → specs recorded beside it, trusted only once they hash to it."""
        self.hashes: dict[int, str] = {}
        self.facts_of: dict[str, _Facts | None] = {}
        for session in sessions:
            for config in session.run_configs:
                if config.tools is not None and config.surface_hash is not None:
                    self.claims.setdefault(config.surface_hash, []).append(config.tools)

    def surface(self, config: RunConfig | None) -> str | None:
        """``surface_of``, hashing each recorded tuple of specs once."""
        if config is None or config.surface_hash is not None or config.tools is None:
            return None if config is None else config.surface_hash
        key = id(config.tools)
        if key not in self.hashes:
            self.hashes[key] = fingerprint(config.tools)
            self.known.setdefault(self.hashes[key], list(config.tools))
        return self.hashes[key]

    def get(self, surface_hash: str | None) -> list[JsonValue] | None:
        if surface_hash is None or not is_surface_hash(surface_hash):
            return None
        if surface_hash not in self.known:
            self.known[surface_hash] = self._find(surface_hash)
        return self.known[surface_hash]

    def _find(self, surface_hash: str) -> list[JsonValue] | None:
        if self.store is not None and surface_hash in self.store:
            try:
                return self.store.get(surface_hash)
            except SurfaceError:
                pass
        for tools in self.claims.get(surface_hash, []):
            if fingerprint(tools) == surface_hash:
                return list(tools)
        return None

    def facts(self, surface_hash: str | None) -> _Facts | None:
        if surface_hash is None:
            return None
        if surface_hash not in self.facts_of:
            tools = self.get(surface_hash)
            self.facts_of[surface_hash] = None if tools is None else _Facts(
                names=[s.name or "?" for s in tool_specs(tools)],
                semantic=fingerprint(tools, semantic=True),
                size=len(canonical_bytes(tools)),
            )
        return self.facts_of[surface_hash]


def runs(sessions: Iterable[Session], store: SurfaceStore | None = None,
         current: Tools | str | None = None) -> pl.DataFrame:
    """One row per run: each run config, and a session without any counts as one run.

    Args:
        sessions: The sessions.
        store: Where specs recorded by hash only are looked up.
        current: Today's tools or hash, for each run's fidelity.

    Returns:
        Columns: ``order`` (position among all runs), ``session_id``, ``format``, ``file``, ``run``
        (index within the session), ``message_id`` (first message the run applies to), ``time``
        (UTC; the run's own, else its first message's, else the session's first), ``model``,
        ``provider``, ``tool_names``, ``surface_hash`` (null: unknown), ``semantic_hash`` and
        ``spec_bytes`` (null when the specs are not at hand), ``recorded``, ``rebuildable`` (the
        specs are at hand: a replay can send them), and ``fidelity``/``reason`` against ``current``."""
    every = tuple(sessions)
    return _runs(every, _Specs(every, store), current)


def _runs(sessions: Sequence[Session], specs: _Specs, current: Tools | str | None) -> pl.DataFrame:
    today = current if isinstance(current, str) or current is None else fingerprint(current)
    today_semantic = None if isinstance(current, str) or current is None else fingerprint(current, semantic=True)
    rows = [
        {"order": n, **_run_row(session, i, config, specs, today, today_semantic)}
        for n, (session, i, config) in enumerate(_each_run(sessions))
    ]
    return pl.DataFrame(rows, schema=RUNS_SCHEMA)


def _each_run(sessions: Sequence[Session]) -> Iterator[tuple[Session, int, RunConfig | None]]:
    for session in sessions:
        if not session.run_configs:
            yield session, 0, None
        for i, config in enumerate(session.run_configs):
            yield session, i, config


def _run_row(
    session: Session, index: int, config: RunConfig | None, specs: _Specs, today: str | None,
    today_semantic: str | None,
) -> dict[str, object]:
    surface = specs.surface(config)
    facts = specs.facts(surface)
    result = fidelity(config, today, format=session.format) if surface is None else fidelity(surface, today)
    reason = result.reason
    if result.state is Fidelity.DIFFERS and facts is not None and today_semantic is not None:
        reason = differs_reason(facts.semantic == today_semantic)
    recorded_names = list(config.tool_names) if config is not None else []
    return {
        "session_id": session.id,
        "format": session.format,
        "file": session.file,
        "run": index,
        "message_id": config.message_id if config is not None else None,
        "time": _run_time(session, config),
        "model": config.model if config is not None else None,
        "provider": config.provider if config is not None else None,
        "tool_names": facts.names if facts is not None else recorded_names,
        "surface_hash": surface,
        "semantic_hash": facts.semantic if facts is not None else None,
        "recorded": surface is not None,
        "spec_bytes": facts.size if facts is not None else None,
        "rebuildable": facts is not None,
        "fidelity": result.state.value,
        "reason": reason,
    }


def _run_time(session: Session, config: RunConfig | None) -> datetime | None:
    if config is not None and config.time is not None:
        return _utc(config.time)
    if config is not None and config.message_id is not None:
        message = session.get(config.message_id)
        if message is not None and message.time is not None:
            return _utc(message.time)
    return next((_utc(m.time) for m in session.messages if m.time is not None), None)


def _utc(moment: datetime) -> datetime:
    """Times in one zone so runs from different sources sort together; a naive time is taken as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def surfaces(source: Iterable[Session] | pl.DataFrame, store: SurfaceStore | None = None) -> pl.DataFrame:
    """One row per distinct recorded surface, in order of first appearance.

    Args:
        source: The sessions, or a frame ``runs`` already made (which saves working it out again).
        store: Where specs recorded by hash only are looked up.

    Returns:
        Columns: ``label`` (``S1``, ``S2``... by first appearance), ``surface_hash``,
        ``semantic_hash``, ``tools`` (count), ``tool_names``, ``bytes`` (the blob's size; null when
        the specs are not at hand), ``first_seen``, ``last_seen``, ``runs``, ``sessions``,
        ``rebuildable``."""
    frame = _runs_of(source, store).filter(pl.col("recorded"))
    if frame.is_empty():
        return pl.DataFrame(schema=SURFACES_SCHEMA)
    grouped = (
        frame.group_by("surface_hash", maintain_order=True)
        .agg(
            pl.col("semantic_hash").first(),
            pl.col("tool_names").first(),
            pl.col("spec_bytes").first().alias("bytes"),
            pl.col("time").min().alias("first_seen"),
            pl.col("time").max().alias("last_seen"),
            pl.len().cast(pl.Int64()).alias("runs"),
            pl.col("session_id").n_unique().cast(pl.Int64()).alias("sessions"),
            pl.col("rebuildable").any(),
        )
        .with_row_index("order")
        .sort(["first_seen", "order"], nulls_last=True)
        .with_columns(
            pl.format("S{}", pl.int_range(1, pl.len() + 1)).alias("label"),
            pl.when(pl.col("semantic_hash").is_null()).then(None)
            .otherwise(pl.col("tool_names").list.len()).cast(pl.Int64()).alias("tools"),
        )
    )
    return grouped.select(list(SURFACES_SCHEMA)).cast(SURFACES_SCHEMA)


def _runs_of(source: Iterable[Session] | pl.DataFrame, store: SurfaceStore | None) -> pl.DataFrame:
    return source if isinstance(source, pl.DataFrame) else runs(source, store)


def storage(source: Iterable[Session] | pl.DataFrame, store: SurfaceStore | None = None) -> pl.DataFrame:
    """What storing each surface once by hash saves, session by session in time order: the bytes of
    specs each session would carry if it inlined its surfaces (each distinct surface it used, once)
    against the bytes the store grows by (a surface's blob, the first time any session uses it).

    Args:
        source: The sessions, or a frame ``runs`` made.
        store: Where specs recorded by hash only are looked up.

    Returns:
        Columns: ``session_id``, ``time``, ``surfaces``, ``inline_bytes``, ``new_store_bytes``,
        ``cumulative_inline_bytes``, ``cumulative_store_bytes``. Surfaces whose specs are not at
        hand count zero bytes (``surfaces`` still counts them)."""
    frame = _runs_of(source, store).filter(pl.col("recorded"))
    if frame.is_empty():
        return pl.DataFrame(schema=STORAGE_SCHEMA)
    per_session = (
        frame.unique(["session_id", "surface_hash"], keep="first", maintain_order=True)
        .group_by("session_id", maintain_order=True)
        .agg(
            pl.col("time").min(),
            pl.col("surface_hash"),
            pl.col("spec_bytes").fill_null(0),
        )
        .with_row_index("order")
        .sort(["time", "order"], nulls_last=True)
    )
    seen: set[str] = set()
    rows: list[dict[str, object]] = []
    inline_total = store_total = 0
    for row in per_session.iter_rows(named=True):
        inline = sum(row["spec_bytes"])
        new = sum(b for h, b in zip(row["surface_hash"], row["spec_bytes"], strict=True) if h not in seen)
        seen.update(row["surface_hash"])
        inline_total += inline
        store_total += new
        rows.append({
            "session_id": row["session_id"], "time": row["time"], "surfaces": len(row["surface_hash"]),
            "inline_bytes": inline, "new_store_bytes": new,
            "cumulative_inline_bytes": inline_total, "cumulative_store_bytes": store_total,
        })
    return pl.DataFrame(rows, schema=STORAGE_SCHEMA)


def diff(a: Tools | str, b: Tools | str, store: SurfaceStore | None = None) -> pl.DataFrame:
    """What changed per tool from surface ``a`` to surface ``b``.

    Tools pair by name; the leftovers pair as ``renamed`` when their schema (all but name and
    descriptions) is the same.

    Args:
        a: The earlier surface: specs, or a hash looked up in ``store``.
        b: The later surface, likewise.
        store: Where hashes are looked up.

    Returns:
        One row per tool of either side, ``b``'s order first. Columns: ``tool``, ``status`` (one of
        ``STATUSES``), ``name_a``, ``name_b``, ``position_a``, ``position_b``,
        ``description_changed``, ``schema_changed``, ``moved``, ``detail``."""
    left, right = tool_specs(_resolve(a, store)), tool_specs(_resolve(b, store))
    pairs: list[tuple[ToolSpec | None, ToolSpec | None]] = []
    waiting: dict[str, list[ToolSpec]] = {}
    for spec in left:
        waiting.setdefault(_key(spec), []).append(spec)
    unmatched: list[ToolSpec] = []
    for spec in right:
        queue = waiting.get(_key(spec))
        if queue:
            pairs.append((queue.pop(0), spec))
        else:
            unmatched.append(spec)
    removed = [s for queue in waiting.values() for s in queue]
    removed.sort(key=lambda s: s.position)
    for spec in unmatched:
        twin = next((old for old in removed if old.unnamed() == spec.unnamed()), None)
        if twin is not None:
            removed.remove(twin)
        pairs.append((twin, spec))
    pairs.sort(key=lambda pair: pair[1].position if pair[1] is not None else 0)
    pairs.extend((spec, None) for spec in removed)
    moved = _moved([(x.position, y.position) for x, y in pairs if x is not None and y is not None])
    rows = [_diff_row(x, y, moved) for x, y in pairs]
    return pl.DataFrame(rows, schema=DIFF_SCHEMA)


def _resolve(surface: Tools | str, store: SurfaceStore | None) -> Tools:
    if not isinstance(surface, str):
        return surface
    if store is None:
        raise InvalidInput(f"surface {surface} is given by hash, so diff needs the store that holds it")
    return store.get(surface)


def _key(spec: ToolSpec) -> str:
    return spec.name if spec.name is not None else "\0" + spec.unnamed()


def _moved(positions: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Pairs outside a longest run that keeps its relative order: the fewest tools that moved."""
    ordered = sorted(positions, key=lambda p: p[1])
    best: list[int] = [1] * len(ordered)
    back: list[int] = [-1] * len(ordered)
    for i, (pa, _) in enumerate(ordered):
        for j in range(i):
            if ordered[j][0] < pa and best[j] + 1 > best[i]:
                best[i], back[i] = best[j] + 1, j
    keep: set[tuple[int, int]] = set()
    i = max(range(len(ordered)), key=lambda k: best[k], default=-1)
    while i >= 0:
        keep.add(ordered[i])
        i = back[i]
    return set(ordered) - keep


def _diff_row(a: ToolSpec | None, b: ToolSpec | None, moved: set[tuple[int, int]]) -> dict[str, object]:
    either = b if b is not None else a
    row: dict[str, object] = {
        "tool": either.name if either is not None else None,
        "name_a": a.name if a else None,
        "name_b": b.name if b else None,
        "position_a": a.position if a else None,
        "position_b": b.position if b else None,
        "description_changed": False,
        "schema_changed": False,
        "moved": False,
        "detail": "",
    }
    if a is None:
        return {**row, "status": "added", "schema_changed": True}
    if b is None:
        return {**row, "status": "removed", "schema_changed": True}
    was_moved = (a.position, b.position) in moved
    words = _description_changes(a, b)
    same_schema = a.semantic() == b.semantic() if a.name == b.name else a.unnamed() == b.unnamed()
    row.update(moved=was_moved, description_changed=bool(words), schema_changed=not same_schema)
    if a.name != b.name and same_schema:
        detail = f"renamed from {a.name} to {b.name}"
        return {**row, "status": "renamed", "detail": detail + (f"; descriptions changed: {words}" if words else "")}
    if not same_schema:
        detail = _schema_change(a, b)
        return {**row, "status": "schema_changed", "detail": detail + (f"; descriptions changed: {words}" if words else "")}
    if words:
        return {**row, "status": "redescribed", "detail": f"descriptions changed: {words}"}
    if canonical_bytes([a.raw]) != canonical_bytes([b.raw]):
        return {**row, "status": "reformatted", "detail": "same meaning and words, other bytes (key order or shape)"}
    if was_moved:
        return {**row, "status": "moved", "detail": f"position {a.position} → {b.position}"}
    return {**row, "status": "unchanged"}


def _description_changes(a: ToolSpec, b: ToolSpec) -> str:
    """Where the descriptions differ: ``tool`` for the tool's own, else the schema path. A
    parameter added or removed brings or takes its description along: that is a schema change."""
    da, db = a.descriptions(), b.descriptions()
    both = a.schemas().keys() & b.schemas().keys() | {""}
    paths = [p for p in dict.fromkeys([*da, *db]) if da.get(p) != db.get(p) and p in both]
    return ", ".join(p or "tool" for p in paths)


def _schema_change(a: ToolSpec, b: ToolSpec) -> str:
    """A short account of what can be called differently: parameters, required, settings."""
    parts: list[str] = []
    if a.kind != b.kind:
        parts.append(f"kind {a.kind} → {b.kind}")
    sa, sb = strip_descriptions(a.schema), strip_descriptions(b.schema)
    if sa != sb:
        pa, pb = _properties(sa), _properties(sb)
        added = [k for k in pb if k not in pa]
        gone = [k for k in pa if k not in pb]
        changed = [k for k in pa if k in pb and pa[k] != pb[k]]
        for label, names in (("parameters added", added), ("removed", gone), ("changed", changed)):
            if names:
                parts.append(f"{label}: {', '.join(names)}")
        ra, rb = _required(sa), _required(sb)
        if ra != rb:
            parts.append(f"required {sorted(ra)} → {sorted(rb)}")
        if not (added or gone or changed or ra != rb):
            parts.append("schema differs")
    ea, eb = a.semantic(), b.semantic()
    assert isinstance(ea, dict) and isinstance(eb, dict)
    xa, xb = ea.get("extra"), eb.get("extra")
    if isinstance(xa, dict) and isinstance(xb, dict):
        settings = [k for k in dict.fromkeys([*xa, *xb]) if xa.get(k) != xb.get(k)]
        if settings:
            parts.append(f"settings changed: {', '.join(settings)}")
    if a.kind == "unknown" and not parts:
        parts.append("spec differs")
    return "; ".join(parts)


def _properties(schema: JsonValue) -> dict[str, JsonValue]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _required(schema: JsonValue) -> set[str]:
    req = schema.get("required") if isinstance(schema, dict) else None
    return {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()


def drift(sessions: Iterable[Session], store: SurfaceStore | None = None,
          changes_only: bool = True) -> pl.DataFrame:
    """Each distinct surface against the one that appeared before it, the sessions read as one agent's
    history. Surfaces whose specs are not at hand are skipped.

    Args:
        sessions: The sessions, read as one agent's history.
        store: Where specs recorded by hash only are looked up.
        changes_only: Leave out the tools that did not change.

    Returns:
        Per tool, ``diff``'s columns plus ``from_label``, ``to_label`` and ``at`` (when the newer
        surface first appeared)."""
    every = tuple(sessions)
    specs = _Specs(every, store)
    table = surfaces(_runs(every, specs, None)).filter(pl.col("semantic_hash").is_not_null())
    frames: list[pl.DataFrame] = []
    rows = list(table.iter_rows(named=True))
    for before, after in itertools.pairwise(rows):
        old, new = specs.get(before["surface_hash"]), specs.get(after["surface_hash"])
        assert old is not None and new is not None
        frame = diff(old, new).with_columns(
            pl.lit(before["label"]).alias("from_label"),
            pl.lit(after["label"]).alias("to_label"),
            pl.lit(after["first_seen"], dtype=TIME).alias("at"),
        )
        frames.append(frame.filter(pl.col("status") != "unchanged") if changes_only else frame)
    columns = pl.Schema({"from_label": pl.String(), "to_label": pl.String(), "at": TIME, **DIFF_SCHEMA})
    if not frames:
        return pl.DataFrame(schema=columns)
    return pl.concat(frames).select(list(columns))


@dataclass(frozen=True, slots=True)
class SurfaceSummary:
    """The numbers ``toolkit surfaces`` prints."""

    sessions: int
    runs: int
    recorded: int
    """Runs with a recorded surface hash."""
    rebuildable: int
    """Runs whose specs can be rebuilt (store blob or specs recorded with the run)."""
    distinct: int
    distinct_semantic: int
    """Distinct surfaces once descriptions, key order and tool order are ignored (specs at hand)."""
    fidelity: Mapping[str, int]
    """Runs per state against ``current`` (every state present, zero included)."""
    unknown_reasons: Mapping[str, int]
    inline_bytes_per_session: int
    """Specs bytes if every session inlined each surface it used."""
    inline_bytes_per_run: int
    """Specs bytes if every run config inlined its surface."""
    store_bytes: int
    """Bytes of the distinct surfaces with specs at hand: what a store of this corpus holds."""
    current: str | None

    def as_dict(self) -> dict[str, JsonValue]:
        """The summary as JSON values, as ``toolkit surfaces --json`` prints it.

        Returns:
            Each field under its name.
        """
        return {
            "sessions": self.sessions,
            "runs": self.runs,
            "recorded": self.recorded,
            "rebuildable": self.rebuildable,
            "distinct": self.distinct,
            "distinct_semantic": self.distinct_semantic,
            "fidelity": dict(self.fidelity),
            "unknown_reasons": dict(self.unknown_reasons),
            "inline_bytes_per_session": self.inline_bytes_per_session,
            "inline_bytes_per_run": self.inline_bytes_per_run,
            "store_bytes": self.store_bytes,
            "current": self.current,
        }


def summary(sessions: Iterable[Session], store: SurfaceStore | None = None,
            current: Tools | str | None = None) -> SurfaceSummary:
    """Counts and bytes for the sessions, with fidelity against ``current``.

    Args:
        sessions: The sessions.
        store: Where specs recorded by hash only are looked up.
        current: Today's tools or hash.

    Returns:
        The numbers ``toolkit surfaces`` prints: runs (recorded, rebuildable), distinct surfaces,
        runs per fidelity state, and the bytes inlined against stored."""
    every = tuple(sessions)
    frame = runs(every, store, current)
    recorded = frame.filter(pl.col("recorded"))
    distinct = recorded.unique("surface_hash")
    states = Counter(frame["fidelity"].to_list())
    reasons = Counter(frame.filter(pl.col("fidelity") == Fidelity.UNKNOWN.value)["reason"].to_list())
    inline = storage(frame)
    return SurfaceSummary(
        sessions=len(every),
        runs=frame.height,
        recorded=recorded.height,
        rebuildable=int(frame["rebuildable"].sum()),
        distinct=distinct.height,
        distinct_semantic=distinct["semantic_hash"].drop_nulls().n_unique(),
        fidelity={state.value: states.get(state.value, 0) for state in Fidelity},
        unknown_reasons=dict(reasons.most_common()),
        inline_bytes_per_session=int(inline["inline_bytes"].sum()),
        inline_bytes_per_run=int(recorded["spec_bytes"].fill_null(0).sum()),
        store_bytes=int(distinct["spec_bytes"].fill_null(0).sum()),
        current=current if isinstance(current, str) or current is None else fingerprint(current),
    )
