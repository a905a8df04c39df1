"""The compactions real clients made, read from the record: one row each, with the context the
client had before, the summary it wrote and the context the next request carried, so the
simulator's ladder can be set beside what Claude Code and Codex actually did at the same point.

Everything here comes from the record (``Event(kind="compaction")`` with its ``tokens_before`` and
``trigger``, messages tagged ``compact_summary``, usage). Two facts only the event's kept source
record holds are read from it: Claude Code's ``compactMetadata.postTokens`` (the size after, which
2.1.x writes) and the client's version (Claude Code's ``version``, Codex's ``session_meta``
``cli_version``).

A usage the provider wrote as zero is no measurement (some backends behind Claude Code write 0 on
every record): a size of 0 is unknown, null here, never "after 0".
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from toolkit.browse.sessions import client_version as session_version
from toolkit.corpus.frames import utc
from toolkit.record import Event, Message, Session, ToolResult

if TYPE_CHECKING:
    from toolkit.compaction.policy import Policy
    from toolkit.corpus import Corpus

CLIENT_SUMMARY_TAG = "compact_summary"
"""Tag importers give the message holding a client's own compaction summary (the simulator's
summaries are ``markers.SUMMARY_TAG``)."""

SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "file": pl.String, "session": pl.String, "client": pl.String, "version": pl.String, "model": pl.String,
    "message_id": pl.String, "index": pl.Int64, "time": pl.Datetime("us", "UTC"), "trigger": pl.String,
    "trigger_from": pl.String, "tokens_before": pl.Int64, "tokens_after": pl.Int64, "summary_chars": pl.Int64,
    "summary_tokens": pl.Int64, "source": pl.String, "after_source": pl.String,
}
"""The columns of ``observed``. ``trigger`` is ``auto``, ``manual`` or ``unknown``; ``trigger_from``
says how it is known: ``record`` (the client wrote it: Claude Code's ``compactMetadata.trigger``) or
``turns`` (Codex writes none: a compaction followed by a request before any new user message ran
inside a turn, which only the automatic rule does, and one followed by the user's next message ran
as its own task, the ``/compact`` command). ``source`` is ``reported`` when ``tokens_before`` is the
client's own figure (the event's), ``usage`` when it is the context of the last request before it;
``after_source`` is ``reported`` for Claude Code's ``postTokens``, ``usage`` for the next request's
context."""

Trigger = Literal["auto", "manual", "unknown"]


def observed(corpus: Corpus | Iterable[Session]) -> pl.DataFrame:
    """One row per compaction a client made, in session and source order.

    What the record lacks (no summary, no usage, a model no tokenizer knows) is null, never an error.

    Args:
        corpus: A corpus, or any sessions.

    Returns:
        A frame of the recorded compactions."""
    rows: list[dict[str, Any]] = []
    for session in corpus:
        compactions = [e for e in session.events if e.kind == "compaction"]
        if not compactions:
            continue
        on_path = {m.id: i for i, m in enumerate(session.path())}
        for number, event in enumerate(compactions):
            following = compactions[number + 1] if number + 1 < len(compactions) else None
            rows.append(_row(session, event, following, on_path))
    return pl.DataFrame(rows, schema=SCHEMA)


def history_before(session: Session, message_id: str | None, time: datetime | None = None) -> list[Message]:
    """The path the model saw just before a compaction, so the simulator can run its ladder at the same
    point.

    Args:
        session: The session the compaction is in.
        message_id: The message the compaction wrote (an ``observed`` row's ``message_id``); the
            path runs from the root to the last message written before it and not by the same source
            record (a Codex ``replacement_history`` is written with its summary).
        time: Without that message, the path ends at the last message timed before this.

    Returns:
        The messages, root first; with neither ``message_id`` nor ``time``, none."""
    at = _position(session, message_id)
    if at is not None:
        summary = session.messages[at]
        written = [m for m in session.messages[:at] if m.source is None or m.source != summary.source]
    elif time is not None:
        written = [m for m in session.messages if _earlier(m.time, time)]
    else:
        written = []
    return session.path(written[-1].id) if written else []


def _row(session: Session, event: Event, following: Event | None, on_path: dict[str, int]) -> dict[str, Any]:
    after = _written_from(session, event)
    summary = _summary(after, following)
    before = history_before(session, summary.id if summary is not None else None, event.time)
    requests = [m for m in before if m.role == "assistant" and "synthetic" not in m.tags]
    model = next((m.model for m in reversed(requests) if m.model), None)
    used = next((m.usage.context for m in reversed(requests) if m.usage and m.usage.context), None)
    reply = next((m for m in after if m.role == "assistant"), None)
    text = summary.text if summary is not None else ""
    reported = event.tokens_before or None  # a preTokens of 0 measured nothing either
    tokens_before = reported if reported is not None else used
    post = _post_tokens(event)
    measured = reply.usage.context if reply is not None and reply.usage and reply.usage.context else None
    tokens_after = post if post is not None else measured
    trigger, trigger_from = _trigger(event, after, summary)
    return {
        "file": event.source.file if event.source else session.file, "session": session.id,
        "client": session.format, "version": client_version(session, event), "model": model,
        "message_id": summary.id if summary else None,
        "index": on_path.get(summary.id) if summary else None, "time": utc(event.time),
        "trigger": trigger, "trigger_from": trigger_from, "tokens_before": tokens_before,
        "tokens_after": tokens_after,
        "summary_chars": len(text) if text else None, "summary_tokens": _tokens(text, model),
        "source": None if tokens_before is None else "reported" if reported is not None else "usage",
        "after_source": None if tokens_after is None else "reported" if post is not None else "usage",
    }


def _raw(event: Event) -> dict[str, Any]:
    return event.raw if isinstance(event.raw, dict) else {}


def _post_tokens(event: Event) -> int | None:
    """Claude Code's own size after the compaction (``compactMetadata.postTokens``, written by 2.1.x);
    0 is no measurement."""
    facts = _raw(event).get("compactMetadata")
    post = facts.get("postTokens") if isinstance(facts, dict) else None
    return post if type(post) is int and post > 0 else None


def client_version(session: Session, event: Event | None = None) -> str | None:
    """The client version that wrote ``event`` (Claude Code stamps every record), else the one the
    session names (``toolkit.browse.sessions.client_version``)."""
    found = _raw(event).get("version") if event is not None else None
    if isinstance(found, str) and found:
        return found
    return session_version(session)


def _trigger(event: Event, after: list[Message], summary: Message | None) -> tuple[Trigger, str | None]:
    """How the compaction started (``SCHEMA``): what the client wrote, else, for a Codex
    ``compacted`` record, the turn structure around it."""
    written = (event.trigger or "").lower()
    if written in ("auto", "manual"):
        return ("auto" if written == "auto" else "manual"), "record"
    if written:
        return "unknown", "record"
    if event.type != "compacted":
        return "unknown", None
    same = event.source
    following = [m for m in after if m is not summary and "meta" not in m.tags
                 and "compact_summary" not in m.tags and not (same is not None and m.source is not None
                                                              and m.source.line == same.line)]
    first = following[0] if following else None
    if first is not None and first.role == "assistant":
        return "auto", "turns"
    if first is not None and first.role == "user" and not any(isinstance(b, ToolResult) for b in first.blocks):
        return "manual", "turns"
    return "unknown", None


def _written_from(session: Session, event: Event) -> list[Message]:
    """Messages written by the event's record or after it, in source order: by line where the
    event has one, else from the message it is attached to (a summary it names is included)."""
    where = event.source
    if where is not None and where.line is not None:
        return [m for m in session.messages if m.source is not None and m.source.file == where.file
                and m.source.line is not None and m.source.line >= where.line]
    at = _position(session, event.message_id)
    if at is None:
        return []
    start = at if CLIENT_SUMMARY_TAG in session.messages[at].tags else at + 1
    return list(session.messages[start:])


def _summary(after: list[Message], following: Event | None) -> Message | None:
    """The summary a compaction wrote: the first tagged message after it, before the model's next
    reply and before the next compaction (a microcompaction writes none)."""
    stop = following.source.line if following is not None and following.source is not None else None
    for message in after:
        line = message.source.line if message.source is not None else None
        if message.role == "assistant" or (stop is not None and line is not None and line >= stop):
            return None
        if CLIENT_SUMMARY_TAG in message.tags:
            return message
    return None


def _tokens(text: str, model: str | None) -> int | None:
    if not text or model is None:
        return None
    from toolkit.costs import UnknownModelError, text_tokens

    try:
        return text_tokens(text, model).tokens
    except UnknownModelError:
        return None


def _position(session: Session, message_id: str | None) -> int | None:
    if message_id is None or message_id not in session:
        return None
    return next(i for i, m in enumerate(session.messages) if m.id == message_id)


def _earlier(time: datetime | None, than: datetime) -> bool:
    return time is not None and utc(time) < utc(than)


def decisions(corpus: Corpus | Iterable[Session], policies: Iterable[Policy], model: str | None = None,
              ) -> pl.DataFrame:
    """Beside each compaction a client made, what each policy decides with the history the client had
    at that moment.

    Each policy is checked against the client's own count (``tokens_before``) and the model's real
    window: the rungs it climbs (none: still under its threshold) and the size it leaves, by the
    toolkit's count.

    Args:
        corpus: A corpus, or any sessions.
        policies: The policies to compare.
        model: The model to decide for (default: the one each session used).

    Returns:
        One row per recorded compaction and policy."""
    from toolkit.compaction.ladder import compact
    from toolkit.compaction.simulator import counter_for

    sessions = list(corpus)
    chosen = list(policies)
    rows: list[dict[str, Any]] = []
    for row in observed(sessions).iter_rows(named=True):
        session = next(s for s in sessions if s.id == row["session"] and s.file == row["file"])
        before = history_before(session, row["message_id"], row["time"])
        target = model or row["model"]
        if not before or target is None:
            continue
        counter = counter_for(session, target)
        for policy in chosen:
            ours = compact(before, target, None, policy, counter=counter,
                           estimate=row["tokens_before"] if policy.count != "events" else None)
            rows.append({
                "file": row["file"], "session": row["session"], "client": row["client"], "model": target,
                "policy": policy.name, "client_before": row["tokens_before"], "client_after": row["tokens_after"],
                "our_count": ours.before, "window": ours.budget,
                "decision": " → ".join(s.rung for s in ours.steps) or "under the threshold",
                "after": ours.after, "removed_chars": sum(s.chars for s in ours.steps),
            })
    return pl.DataFrame(rows, schema={
        "file": pl.String, "session": pl.String, "client": pl.String, "model": pl.String, "policy": pl.String,
        "client_before": pl.Int64, "client_after": pl.Int64, "our_count": pl.Int64, "window": pl.Int64,
        "decision": pl.String, "after": pl.Int64, "removed_chars": pl.Int64,
    })
