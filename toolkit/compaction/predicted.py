"""Each compaction a client recorded beside the client's own modelled policy, replayed on the same
history: does the rule taken from the client's source fire where the client did, and does it leave
the size the client left?

The replay walks the session's requests uncompacted (the recorded history before the compaction,
then what came after it, without the client's summary). Before each request the policy counts the
client's way (``toolkit.compaction.clients.client_count``) from what the client then knew: the
provider's reported input of the previous request while the recording still shows the uncompacted
history, and past the recorded compaction (where the recording shows the compacted one) the last
count plus the toolkit's count of what was added. Outputs are the toolkit's count of each reply: the
records' own output counts are not measurements (Claude Code 2.0.x writes a streaming placeholder of
2). The size a policy leaves is the toolkit's count of the history its compaction produces, with the
client's unrecorded prefix (system prompt, tools, CLAUDE.md) measured from the first reported usage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

import toolkit.compaction.clients as clients
from toolkit.compaction.ladder import compact
from toolkit.compaction.policy import POLICIES, Policy
from toolkit.compaction.recorded import CLIENT_SUMMARY_TAG, history_before, observed
from toolkit.compaction.simulator import counter_for, turns
from toolkit.costs.calibration import ContextCounter
from toolkit.costs.windows import window_for
from toolkit.errors import InvalidInput
from toolkit.record import Message, Session

if TYPE_CHECKING:
    from toolkit.corpus import Corpus

SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "file": pl.String, "session": pl.String, "client": pl.String, "version": pl.String, "model": pl.String,
    "trigger": pl.String, "trigger_from": pl.String, "policy": pl.String, "tokens_before": pl.Int64,
    "tokens_after": pl.Int64, "after_source": pl.String, "threshold": pl.Int64, "count_at_recorded": pl.Int64,
    "predicted_offset": pl.Int64, "predicted_count": pl.Int64, "predicted_after": pl.Int64,
    "after_if_run_here": pl.Int64, "note": pl.String,
}
"""The columns of ``predict``: the recorded compaction (``observed``'s ``tokens_before``, ``tokens_after``,
``trigger``), the policy modelling its client and the threshold its count is compared with, the
policy's count at the recorded compaction, ``predicted_offset`` (requests from the recorded compaction
to the first where the policy fires: 0 the same request, -1 one earlier, null never), the count
there and the size the policy leaves there (``predicted_after``), and ``after_if_run_here``: the size
the policy's compaction leaves when run at the recorded point (what a manual compaction by the same
client would leave)."""


def client_policy(client: str, version: str | None) -> Policy | None:
    """The built-in policy that models ``client`` at ``version``.

    Claude Code's smaller reserve came with 2.1.21 (changelog, 2026-01-28).

    Args:
        client: The client as the record names it.
        version: Its version (``None`` or unknown: taken as current).

    Returns:
        The policy; ``None`` for a client without one."""
    match client:
        case "claude_code":
            return POLICIES["claude-code-2.0" if version is not None and _older(version, (2, 1, 21))
                            else "claude-code-2.1"]
        case "codex":
            return POLICIES["codex"]
        case "gemini_cli":
            return POLICIES["gemini-cli"]
        case _:
            return None


def _older(version: str, than: tuple[int, ...]) -> bool:
    parts: list[int] = []
    for piece in version.split("."):
        digits = "".join(c for c in piece if c.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) < than


@dataclass(frozen=True)
class _Replay:
    """A session's history without the recorded compaction (``uncompacted``), and where it stood."""

    history: tuple[Message, ...]
    requests: tuple[tuple[int, int], ...]
    at: int
    """The index in ``requests`` of the first request after the recorded compaction."""
    start: int
    """The first request after the previous recorded compaction: the policy is checked from there."""


def uncompacted(session: Session, row: dict[str, Any], previous: str | None = None) -> _Replay:
    """The history a recorded compaction (an ``observed`` row) cut, run on without it: the path the
    model saw before, then what came after the summary (without the summary, and without copies
    written by the same record, such as Codex's replacement history)."""
    before = history_before(session, row["message_id"], row["time"])
    path = session.path()
    summary = session.get(row["message_id"]) if row["message_id"] else None
    index = row["index"]
    later: list[Message] = []
    if summary is not None and index is not None:
        later = [m for m in path[index + 1:] if CLIENT_SUMMARY_TAG not in m.tags
                 and (m.source is None or summary.source is None or m.source.line != summary.source.line)]
    kept = [m for m in before if CLIENT_SUMMARY_TAG not in m.tags]
    history = (*kept, *later)
    requests = tuple(turns(history))
    at = next((i for i, (start, _) in enumerate(requests) if start >= len(kept)), len(requests))
    ids = [m.id for m in before]
    cut = len([m for m in before[:ids.index(previous)] if CLIENT_SUMMARY_TAG not in m.tags]) if previous in ids else 0
    start = next((i for i, (s, _) in enumerate(requests) if s >= cut), len(requests))
    return _Replay(history, requests, at, start)


def _prompt(replay: _Replay, i: int, known: list[int], counter: ContextCounter) -> int:
    """The provider's count of request ``i``: the recording's while it shows the uncompacted history
    (a zero is no count), else the last count plus the toolkit's count of what was added."""
    start, end = replay.requests[i]
    if i < replay.at:
        reported = next((m.usage.context for m in replay.history[start:end] if m.usage and m.usage.context), None)
        if reported is not None:
            return reported
    if i == 0 or not known:
        return counter.request(replay.history[:start])
    previous = replay.requests[i - 1][0]
    return known[-1] + round(sum(counter.tokens(replay.history[previous:start])))


def _reading(replay: _Replay, i: int, prompts: list[int], counter: ContextCounter) -> clients.Reading:
    if i == 0:
        return clients.Reading(None, 0, (), ())
    start = replay.requests[i][0] if i < len(replay.requests) else len(replay.history)
    last_start, last_end = replay.requests[i - 1]
    output = round(sum(counter.tokens(replay.history[last_start:last_end])))
    since = replay.history[last_start:start]
    return clients.Reading(prompts[i - 1], output, replay.history[last_end:start], since, counter.images(since))


def _left(history: Sequence[Message], model: str, policy: Policy, counter: ContextCounter) -> int:
    forced = compact(history, model, None, policy, counter=counter, estimate=10**12)
    return forced.after


def _prediction(session: Session, row: dict[str, Any], policy: Policy, previous: str | None) -> dict[str, Any]:
    model = row["model"]
    replay = uncompacted(session, row, previous)
    counter = counter_for(session, model)
    at = clients.threshold(policy, model, window_for(model).input)
    prompts: list[int] = []
    fired: int | None = None
    count_here: int | None = None
    fired_count: int | None = None
    last = len(replay.requests) if replay.at == len(replay.requests) else len(replay.requests) - 1
    for i in range(last + 1):
        start = replay.requests[i][0] if i < len(replay.requests) else len(replay.history)
        if i >= replay.start:
            count = clients.client_count(policy.count, _reading(replay, i, prompts, counter),
                                         replay.history[:start], counter.request)
            if i == replay.at:
                count_here = count
            if fired is None and clients.fires(policy, count, at):
                fired, fired_count = i, count
        if i < len(replay.requests):
            prompts.append(_prompt(replay, i, prompts, counter))
        if fired is not None and count_here is not None:
            break
    fired_at = replay.requests[fired][0] if fired is not None and fired < len(replay.requests) else len(replay.history)
    here = replay.requests[replay.at][0] if replay.at < len(replay.requests) else len(replay.history)
    return {
        "threshold": round(at), "count_at_recorded": count_here,
        "predicted_offset": None if fired is None else fired - replay.at, "predicted_count": fired_count,
        "predicted_after": _left(replay.history[:fired_at], model, policy, counter) if fired is not None else None,
        "after_if_run_here": _left(replay.history[:here], model, policy, counter),
        "note": None,
    }


def predict(corpus: Corpus | Iterable[Session]) -> pl.DataFrame:
    """Each recorded compaction (``observed``) beside its client's modelled policy replayed on the same
    history, as the module docstring describes.

    A compaction whose client has no policy, or whose model the toolkit cannot count, keeps its
    recorded columns and says why in ``note``.

    Args:
        corpus: A corpus, or any sessions.

    Returns:
        One row per recorded compaction, columns in ``SCHEMA``."""
    sessions = list(corpus)
    found = observed(sessions)
    rows: list[dict[str, Any]] = []
    previous: dict[tuple[str, str], str] = {}
    for row in found.iter_rows(named=True):
        session = next(s for s in sessions if s.id == row["session"] and s.file == row["file"])
        policy = client_policy(row["client"], row["version"])
        out = {key: row.get(key) for key in SCHEMA if key in row}
        out.update(policy=policy.name if policy else None, threshold=None, count_at_recorded=None,
                   predicted_offset=None, predicted_count=None, predicted_after=None, after_if_run_here=None)
        key = (row["file"], row["session"])
        if policy is None:
            out["note"] = f"no modelled policy for {row['client']}"
        elif row["model"] is None or row["message_id"] is None:
            out["note"] = "the record names no model or holds no summary to place the compaction"
        else:
            try:
                out.update(_prediction(session, row, policy, previous.get(key)))
            except InvalidInput as error:
                out["note"] = f"cannot count for this model: {error}"
        if row["message_id"] is not None:
            previous[key] = row["message_id"]
        rows.append(out)
    return pl.DataFrame(rows, schema=SCHEMA)
