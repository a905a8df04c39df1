"""One row per session of a corpus (``toolkit info --sessions``, the notebook browser's picker): what
it is, how long, which model, and what its recorded usage came to; and the files that were not
transcripts."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from toolkit.browse.usage import recorded_cost
from toolkit.corpus.formats.importer import CLIENT_EVENT
from toolkit.measured import measured_usage
from toolkit.record import JsonValue, Session

if TYPE_CHECKING:
    from toolkit.corpus.corpus import Corpus

_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-+.][A-Za-z0-9_]+)*")
"""A release number and its suffixes (``0.3.58.dev16+g6a87748b``): each suffix starts at its separator
and holds none, so a long string that is no version fails in one pass, not by backtracking."""
LONGEST_VERSION = 64
"""Longer strings are not read as a version (the pattern is linear; this keeps a huge field cheap)."""
VERSION_KEYS = ("cli_version", "version", "client_version")
"""Keys of a kept source record naming the client's version (Codex's ``session_meta`` writes
``cli_version``)."""


def client_version(session: Session) -> str | None:
    """The client version the session's source names: its first ``client`` event's (the importers
    keep there the version Claude Code, OpenCode, inspect and Cline SDK write), else the first
    one a source record its events keep names (Codex's ``session_meta``)."""
    for event in session.events:
        if event.kind == "meta" and event.type == CLIENT_EVENT and (found := _named(event.raw)) is not None:
            return found
    for event in session.events:
        raw: JsonValue = event.raw
        if isinstance(raw, dict) and isinstance(raw.get("payload"), dict):
            payload = raw["payload"]
            assert isinstance(payload, dict)
            raw = {**payload, **raw}
        if (found := _named(raw)) is not None:
            return found
    return None


def _named(raw: JsonValue) -> str | None:
    if not isinstance(raw, dict):
        return None
    for key in VERSION_KEYS:
        value = raw.get(key)
        if isinstance(value, str) and len(value) <= LONGEST_VERSION and _VERSION.fullmatch(value):
            return value
    return None


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    format: str
    client_version: str | None
    messages: int
    model: str | None
    """The model most of its messages name."""
    input_tokens: int | None
    """Recorded input of every reply summed (fresh, cache read and cache written); ``None`` when no
    reply recorded usage (unknown, not 0)."""
    output_tokens: int | None
    """Recorded output of the replies whose output count measures them (``output_measured``);
    ``None`` when none does."""
    cost_usd: float | None
    """Recorded usage at list price; ``None`` when no reply could be priced."""
    priced: int
    """Replies whose usage was priced, of ``replies`` with usage (a usage of zeros only is unknown
    and counts in neither; a reply whose output count is unknown is not priced)."""
    replies: int
    output_measured: int
    """Replies whose output count is measured, of ``replies``: a streaming client's first-chunk
    count is not (``toolkit.measured``)."""
    parent_session_id: str | None
    file: str


def session_row(session: Session) -> SessionRow:
    models = Counter(m.model for m in session.messages if m.model)
    used = [(m, u) for m in session.messages if (u := measured_usage(m)) is not None]
    outputs = [u.output for _, u in used if u.output is not None]
    costs = [c for c in (recorded_cost(m) for m, _ in used) if c is not None]
    return SessionRow(
        session.id, session.format, client_version(session), len(session.messages),
        models.most_common(1)[0][0] if models else None,
        sum(u.context or 0 for _, u in used) if used else None, sum(outputs) if outputs else None,
        sum(costs) if costs else None, len(costs), len(used), len(outputs), session.parent_session_id,
        session.file)


def session_table(corpus: Corpus) -> list[SessionRow]:
    """Every session of ``corpus``, in load order; a subagent whose own records name no version
    runs in its parent's client, so it takes the parent's.

    Args:
        corpus: The loaded corpus.

    Returns:
        One row per session: id, format, client version (``None`` where the record shows none),
        messages, model, recorded tokens and cost, parent and file."""
    rows = [session_row(session) for session in corpus.sessions]
    versions = {row.session_id: row.client_version for row in rows if row.parent_session_id is None}
    return [replace(row, client_version=versions.get(row.parent_session_id))
            if row.client_version is None and row.parent_session_id is not None else row for row in rows]


def not_transcripts(corpus: Corpus) -> dict[str, list[str]]:
    """Files the load read that no importer recognised, each with the reasons the load gave."""
    reasons: dict[str, list[str]] = {}
    for problem in corpus.problems:
        reasons.setdefault(problem.file, []).append(problem.reason)
    return {file: reasons.get(file, []) for file in corpus.files if file not in corpus.formats}
