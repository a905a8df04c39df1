"""Replay a recorded session turn by turn against a model's window, compacting as a policy says,
and price every request as the provider bills it.

A turn is one request: the history up to a run of assistant messages (clients split one reply into
several records). Before each request the client checks its own count of the size against the
policy's trigger, counted the client's way (``policy.count``, ``toolkit.compaction.clients``): by
default the provider's count of the previous request plus four characters per token for what was
added since (the rule of thumb clients use between reported counts). The provider counts
with ``toolkit.costs`` (the toolkit's calibrated estimate, standing in for the provider's tokenizer);
when that count is over the window the request is rejected with the overflow, and the policy's
reactive path runs; a request still over the window is recorded as rejected and costs nothing.

A summary is priced as the client's summary request: a pass over the history it replaces (with
the cache the client reuses: Claude Code's request shares the conversation's prefix, Codex's local
one sends no tools and reads nothing; Gemini CLI makes two), and the summary's length as output
(``compaction_cost_usd``), whoever wrote the summary text here.

Each request's input is split into cache reads, cache writes and fresh tokens by the provider's
caching rule (``toolkit.costs.caching.reusable``): OpenAI and Gemini reuse the prefix it shares with
the previous request, message for message; Anthropic, caching at a breakpoint at each prompt's end,
reads the whole previous request when the new one extends it and, after a compaction rewrote the
history, only what precedes the messages in the transcript (Claude Code records none of its system
prompt: golfgod's first request after its compaction read 16,555 tokens, which the simulator bills
as written, an overstatement of that one request). Output is the recorded reply's size counted the
same way (an estimate). Retention is checked after every compaction over the facts introduced so
far (``retention``); facts that arrive after it are verbatim until the next one.

A policy the provider applies to each request (``per_request``: Anthropic's context editing) edits
what is sent, while the client's history, which the trigger is counted on, keeps growing in full.

The client's own compactions recorded in the session (Claude Code's and Codex's summaries) are
left out of the replayed history: the policy being simulated stands in for them. What every request
carried but the transcript does not show (a client's unrecorded system prompt and tool specs) is
measured from the session's first reported usage and carried as a constant prefix (``unrecorded``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import toolkit.compaction.clients as clients
from toolkit.compaction.ladder import Compaction, compact
from toolkit.compaction.markers import ELIDED, MARKER_TAG, SUMMARY_TAG
from toolkit.compaction.policy import Policy, load
from toolkit.compaction.rungs import History, shared_prefix
from toolkit.compaction.summaries import Summariser, summariser
from toolkit.compaction.survival import Fact, facts, layouts, retention, source_text
from toolkit.content import block_text
from toolkit.costs.caching import cache_rule, input_cost, reusable
from toolkit.costs.calibration import NOT_SENT, ContextCounter
from toolkit.costs.windows import window_for
from toolkit.errors import InvalidInput
from toolkit.record import Message, Session
from toolkit.snapshot.compact import SNAPSHOT_TAG
from toolkit.workers import Engine, batches, engine_named, ordered_map, worker_count

if TYPE_CHECKING:
    import polars as pl

    from toolkit.corpus.corpus import Corpus

def turns(path: Sequence[Message]) -> list[tuple[int, int]]:
    """Each request as the ``(start, end)`` indices of the run of assistant messages it produced; a
    run the client wrote itself without a request (``NOT_SENT``: Claude Code's synthetic "API
    Error" and "No response requested." records) is no request."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(path):
        if path[i].role != "assistant":
            i += 1
            continue
        j = i
        while j < len(path) and path[j].role == "assistant":
            j += 1
        if not all(NOT_SENT & set(m.tags) for m in path[i:j]):
            out.append((i, j))
        i = j
    return out


def replayed(session: Session) -> list[Message]:
    """The main path without the client's own compaction summaries."""
    return [m for m in session.path() if "compact_summary" not in m.tags]


def playable(session: Session) -> bool:
    """Whether the session holds a request to replay: a reply the model was asked for on its path."""
    return bool(turns(replayed(session)))


def nothing_to_replay(sessions: Iterable[Session]) -> str | None:
    """``None`` when some session holds a request to replay; else one line saying that nothing was
    replayed and why (what the sessions' paths hold instead), for a notebook to print where its
    tables and charts of the replay would be empty."""
    chosen = list(sessions)
    if any(playable(s) for s in chosen):
        return None
    roles: dict[str, int] = {}
    for session in chosen:
        for message in replayed(session):
            roles[message.role] = roles.get(message.role, 0) + 1
    held = ", ".join(f"{n} {role}" for role, n in sorted(roles.items())) or "no message"
    return (f"Nothing to replay: none of the {len(chosen)} session(s) holds a reply the model was asked for "
            f"(their paths hold {held} message(s)), so no request is simulated and the replay's tables "
            "and charts below are empty.")


def busiest(frame: pl.DataFrame, model: str) -> str | None:
    """The session ``model``'s runs compacted most often (the one with most turns among those tied):
    the one worth drawing over its turns. ``None`` when the frame holds no request of ``model``."""
    import polars as pl

    mine = frame.filter(pl.col("model") == model)
    if mine.is_empty():
        return None
    ranked = (mine.group_by("session").agg(pl.col("compactions").sum(), pl.col("turn").max())
              .sort(["compactions", "turn", "session"], descending=[True, True, False]))
    return str(ranked["session"][0])


def _seconds(later: datetime | None, earlier: datetime | None) -> float | None:
    if later is None or earlier is None:
        return None
    try:
        return max(0.0, (later - earlier).total_seconds())
    except TypeError:
        return None


@dataclass
class _State:
    """What the replay carries from one request to the next."""

    history: History = field(default_factory=lambda: History(()))
    sent: tuple[Message, ...] = ()
    reported: int | None = None
    """The provider's count of the last request (an overflow error states it too)."""
    output: int = 0
    """The last reply's output tokens."""
    replied: int = 0
    """Where the last request's reply starts on the path: the client's estimate counts from there."""
    time: datetime | None = None
    lost: set[tuple[str, str]] = field(default_factory=set)


def simulate(session: Session, model: str, policy: Policy | str, *, window: int | None = None,
             writer: Summariser | None = None, read_pages: bool = False,
             counter: ContextCounter | None = None, known: Sequence[Fact] | None = None) -> pl.DataFrame:
    """Replay ``session`` request by request for ``model`` under ``policy``, as the module docstring
    describes.

    A rejected request carries nothing to the model, so its row counts every fact as lost: a policy
    that lets a session hit the wall does not score as keeping everything.

    Args:
        session: The session to replay.
        model: The model whose window, prices and cache rules apply.
        policy: A ``Policy``, a built-in policy's name, or a TOML file's path.
        window: The input window to use instead of the model's (to study small windows on short
            sessions).
        writer: The summariser for the summary rung (default: the policy's).
        read_pages: Read snapshot pages back with OCR for retention (slow), instead of taking the
            rendered source text as read (an upper bound).
        counter: The token counter for ``model``; shareable between runs of one session, since it
            costs more than the replay.
        known: The session's ``facts``, shareable in the same way.

    Returns:
        One row per request: tokens, cost, cache reads and rewrites, what each rung removed, and the
        facts kept.

    Raises:
        InvalidInput: ``policy`` names no built-in policy and no file.
        UnknownModel: No family is known for ``model``."""
    import polars as pl

    policy = load(policy) if isinstance(policy, str) else policy
    limit = window if window is not None else window_for(model).input
    counter = counter or counter_for(session, model)
    writer = writer or summariser(policy.summariser)
    rule = cache_rule(model)
    path = replayed(session)
    known = facts(path) if known is None else known
    state = _State()
    rows: list[dict[str, Any]] = []
    cursor = 0
    for number, (start, end) in enumerate(turns(path)):
        new = path[cursor:start]
        state.history = History((*state.history.messages, *new), state.history.images, state.history.snapshots)
        full = state.history
        since = [*path[state.replied:cursor], *new]
        reading = clients.Reading(state.reported, state.output, new, since, counter.images(since))
        estimate = clients.client_count(policy.count, reading, state.history.messages, counter.request)
        cursor = end
        events: list[Compaction] = []
        done = compact(state.history, model, limit, policy, writer=writer, counter=counter, estimate=estimate,
                       real_window=window is None)
        if done.steps:
            events.append(done)
            state.history = done.history
        prompt = done.after
        if prompt > limit and policy.compacts:
            done = compact(state.history, model, limit, policy, overflow=prompt - limit, writer=writer,
                           counter=counter, real_window=window is None)
            if done.steps:
                events.append(done)
                state.history = done.history
                prompt = done.after
        reply = path[start:end]
        state.replied = start
        output = round(math.fsum(counter.tokens(reply)))
        when = reply[0].time
        row = _row(session, model, policy, number, reply[0], limit, estimate, events)
        call = _summary_call(model, policy, events, state.reported, _seconds(when, state.time))
        row.update(summary_input_tokens=call.input, summary_cached_tokens=call.cached,
                   summary_output_tokens=call.output)
        row["newly_lost"] = _check_retention(state, known, start, model, read_pages) if events else 0
        row.update(_retained(state, known, start, end))
        if prompt > limit:
            row.update(facts_lost=row["facts"], retention=0.0 if row["facts"] else 1.0, needed_lost=row["needed"])
            row.update(rejected=True, context_tokens=prompt, image_tokens=counter.images(state.history.messages),
                       fresh_tokens=0, cache_read_tokens=0, cache_write_tokens=0, output_tokens=0,
                       input_cost_usd=0.0, output_cost_usd=0.0, cache_break=False, cache_expired=False,
                       compaction_cost_usd=call.cost_usd, verbatim_chars=_verbatim(state.history))
            row["cost_usd"] = row["compaction_cost_usd"]
            rows.append(row)
            state.reported, state.output = prompt, 0
            kept = full if policy.per_request else state.history
            state.history = History((*kept.messages, *reply), kept.images, kept.snapshots)
            continue
        sent = state.history.messages
        tokens = counter.tokens(sent)
        # Message identity, not counted tokens: thinking the provider drops from earlier turns changes
        # the count, not the prompt sent, and the cache survives it (golfgod's reads grow by each write).
        shared = shared_prefix(state.sent, sent)
        reused = reusable(model, head=round(counter.config + counter.unrecorded), pinned=round(counter.config),
                          shared=round(math.fsum(tokens[:shared])),
                          extends=shared == len(state.sent)) if state.sent else 0
        elapsed = _seconds(when, state.time)
        split, cost = input_cost(model, prompt, reused, output, elapsed=elapsed)
        expired = elapsed is not None and rule.ttl_seconds is not None and elapsed > rule.ttl_seconds
        row.update(
            rejected=False, context_tokens=prompt, image_tokens=counter.images(sent),
            fresh_tokens=split.fresh, cache_read_tokens=split.cache_read, cache_write_tokens=split.cache_write,
            output_tokens=output, input_cost_usd=cost.input + cost.cached_input + cost.cache_write,
            output_cost_usd=cost.output, cache_break=bool(events) and shared < len(state.sent),
            cache_expired=expired, compaction_cost_usd=call.cost_usd, verbatim_chars=_verbatim(state.history),
        )
        row["cost_usd"] = row["input_cost_usd"] + row["output_cost_usd"] + row["compaction_cost_usd"]
        rows.append(row)
        state.sent, state.reported, state.output, state.time = sent, prompt, output, when or state.time
        kept = full if policy.per_request else state.history
        state.history = History((*kept.messages, *reply), kept.images, kept.snapshots)
    return pl.DataFrame(rows, schema=_schema())


@dataclass(frozen=True)
class SummaryCall:
    """What the requests that wrote a turn's summaries carried and cost."""

    input: int = 0
    cached: int = 0
    output: int = 0
    cost_usd: float = 0.0


def _summary_call(model: str, policy: Policy, events: Sequence[Compaction], previous: int | None,
                  elapsed: float | None) -> SummaryCall:
    """The summary requests as the client makes them: ``policy.summary_calls`` passes over the
    history the summariser read, each reading from the cache the prefix the previous request left
    when the client's summary request shares it (``policy.summary_cache``), and the summary's tokens
    as output (a later pass reads the earlier one's summary too). A summary a real model wrote is
    priced from what its provider reported instead."""
    from toolkit.costs import text_tokens

    total = SummaryCall()
    for event in events:
        for summary in event.summaries:
            if summary.cost_usd is not None:
                total = SummaryCall(total.input + (summary.input_tokens or 0), total.cached,
                                    total.output + (summary.output_tokens or 0), total.cost_usd + summary.cost_usd)
                continue
            written = text_tokens(summary.text, model).tokens if summary.text else 0
            for call in range(policy.summary_calls):
                carried = event.summary_input + call * written
                reused = (previous or 0) if policy.summary_cache == "prefix" else 0
                split, cost = input_cost(model, carried, reused, written, elapsed=elapsed)
                total = SummaryCall(total.input + carried, total.cached + split.cache_read, total.output + written,
                                    total.cost_usd + cost.total)
    return total


def _verbatim(history: History) -> int:
    """Characters the model still reads as text from the original history (markers, summaries and
    snapshot captions excluded)."""
    skip = {MARKER_TAG, SUMMARY_TAG, SNAPSHOT_TAG}
    total = 0
    for message in history.messages:
        if skip & set(message.tags):
            continue
        total += sum(len(t) for b in message.blocks if not (t := block_text(b)).startswith(ELIDED))
    return total


def _row(session: Session, model: str, policy: Policy, number: int, first: Message, limit: int, estimate: int,
         events: Sequence[Compaction]) -> dict[str, Any]:
    steps = [s for e in events for s in e.steps]
    return {
        "file": session.file, "session": session.id, "model": model, "policy": policy.name, "turn": number,
        "message_id": first.id, "time": first.time, "window": limit, "client_estimate": estimate,
        "compactions": len(events),
        "trigger": None if not events else "reactive" if any(e.trigger == "reactive" for e in events) else "proactive",
        "rungs": "+".join(s.rung for s in steps) or None,
        "tokens_before": events[0].before if events else None, "tokens_after": events[-1].after if events else None,
        "removed_chars": sum(s.chars for s in steps), "removed_blocks": sum(s.blocks for s in steps),
        "removed_images": sum(s.images for s in steps), "pages": sum(s.pages for s in steps),
        "summary_chars": sum(s.summary_chars for s in steps),
    }


def _key(fact: Fact) -> tuple[str, str]:
    return fact.kind, fact.text


def _check_retention(state: _State, known: Sequence[Fact], start: int, model: str, read_pages: bool) -> int:
    """Where each fact introduced before ``start`` is now (a fact lost stays lost); how many this
    compaction lost."""
    due = [f for f in known if f.message_index < start and _key(f) not in state.lost]
    if not due:
        return 0
    before = len(state.lost)
    found = retention(due, state.history.messages, state.history.images, model=model, read_pages=read_pages,
                      page_text=source_text(state.history.snapshots),
                      pages=layouts(state.history) if read_pages else None)
    for survival in found.survivals:
        if survival.where == "lost":
            state.lost.add(_key(survival.fact))
    return len(state.lost) - before


def _retained(state: _State, known: Sequence[Fact], start: int, end: int) -> dict[str, Any]:
    so_far = [f for f in known if f.message_index < start]
    lost = sum(1 for f in so_far if _key(f) in state.lost)
    needed = [f for f in known if f.needed_at is not None and start <= f.needed_at < end]
    return {
        "facts": len(so_far), "facts_lost": lost,
        "retention": 1.0 - lost / len(so_far) if so_far else 1.0,
        "needed": len(needed), "needed_lost": sum(1 for f in needed if _key(f) in state.lost),
    }


def _schema() -> dict[str, Any]:
    import polars as pl

    return {
        "file": pl.String, "session": pl.String, "model": pl.String, "policy": pl.String, "turn": pl.Int64,
        "message_id": pl.String, "time": pl.Datetime("us", "UTC"), "window": pl.Int64,
        "client_estimate": pl.Int64, "compactions": pl.Int64, "trigger": pl.String, "rungs": pl.String,
        "tokens_before": pl.Int64, "tokens_after": pl.Int64, "removed_chars": pl.Int64,
        "removed_blocks": pl.Int64, "removed_images": pl.Int64, "pages": pl.Int64, "summary_chars": pl.Int64,
        "facts": pl.Int64, "facts_lost": pl.Int64, "newly_lost": pl.Int64, "retention": pl.Float64, "needed": pl.Int64,
        "needed_lost": pl.Int64, "rejected": pl.Boolean, "context_tokens": pl.Int64, "image_tokens": pl.Int64,
        "fresh_tokens": pl.Int64, "cache_read_tokens": pl.Int64, "cache_write_tokens": pl.Int64,
        "output_tokens": pl.Int64, "input_cost_usd": pl.Float64, "output_cost_usd": pl.Float64,
        "cache_break": pl.Boolean, "cache_expired": pl.Boolean, "summary_input_tokens": pl.Int64,
        "summary_cached_tokens": pl.Int64, "summary_output_tokens": pl.Int64, "compaction_cost_usd": pl.Float64,
        "verbatim_chars": pl.Int64, "cost_usd": pl.Float64,
    }


def counter_for(session: Session, model: str) -> ContextCounter:
    """The token counter for requests of ``model`` over ``session``, with what it does not record
    (``unrecorded``) as a constant prefix."""
    config = session.run_config()
    counter = ContextCounter(model, config.system if config else None, config.tools if config else None)
    counter.unrecorded = unrecorded(session, counter)
    return counter


def unrecorded(session: Session, counter: ContextCounter) -> int:
    """Tokens every request carried that the transcript does not show (Claude Code records neither
    its system prompt nor its tool specs: about 46,000 tokens), measured as the first reported
    request's input less the estimate of what it carried; 0 where no usage was recorded. An
    estimate: the recorded model's count stands in for the simulated model's. Only requests before
    any compaction the client made are measured: after one, the summary is part of the history."""
    path = session.path()
    for i, message in enumerate(path):
        if "compact_summary" in message.tags:
            break
        if message.role == "assistant" and message.usage is not None and message.usage.context:
            return max(0, message.usage.context - counter.request(path[:i]))
    return 0


@dataclass(frozen=True)
class Sweep:
    """Sessions to simulate under every policy and model: one task of ``simulate_corpus``."""

    sessions: tuple[Session, ...]
    models: tuple[str, ...]
    policies: tuple[Policy, ...]
    window: int | None = None
    writer: Summariser | None = None
    read_pages: bool = False


def sweep(task: Sweep, tick: Callable[[int], object] | None = None) -> pl.DataFrame:
    """The rows of every session of ``task`` x its models x its policies, in that order."""
    import polars as pl

    frames: list[pl.DataFrame] = []
    for session in task.sessions:
        known = facts(replayed(session))
        for model in task.models:
            counter = counter_for(session, model)
            for policy in task.policies:
                frames.append(simulate(session, model, policy, window=task.window, writer=task.writer,
                                       read_pages=task.read_pages, counter=counter, known=known))
                if tick is not None:
                    tick(1)
    return pl.concat(frames) if frames else pl.DataFrame(schema=_schema())


def simulate_corpus(corpus: Corpus | Iterable[Session], models: Sequence[str], policies: Sequence[Policy | str], *,
                    window: int | None = None, writer: Summariser | None = None, read_pages: bool = False,
                    progress: bool = True, workers: int | None = None, engine: Engine | str = "local") -> pl.DataFrame:
    """``simulate`` over every session with a reply, for each of ``policies`` and ``models``, in one frame.

    Args:
        corpus: A corpus, or any sessions.
        models: The models to simulate for.
        policies: ``Policy`` values, built-in names or TOML paths.
        window: The input window to use instead of each model's.
        writer: The summariser for the summary rung (default: each policy's). With workers it must
            pickle: the extractive one does, a model summariser holding a client may not.
        read_pages: Read snapshot pages back with OCR (slow).
        progress: Show a progress bar.
        workers: Simulate groups of sessions in this many processes (0: every core; default: this
            process alone locally, every cluster CPU on Ray).
        engine: ``local`` processes or ``ray`` tasks; the frame is the one a single process gives,
            row for row.

    Returns:
        ``simulate``'s rows for every session, policy and model.

    Raises:
        InvalidInput: A policy names no built-in policy and no file, or ``workers`` is negative.
        UnknownModel: No family is known for a model."""
    import polars as pl
    from tqdm.auto import tqdm

    from toolkit.corpus.corpus import Corpus

    sessions = corpus.sessions if isinstance(corpus, Corpus) else list(corpus)
    chosen = tuple(load(p) if isinstance(p, str) else p for p in policies)
    kept = [s for s in sessions if playable(s)]
    runs = len(chosen) * len(models)
    count = worker_count(workers, engine)
    groups = batches(kept, _messages, count, engine=engine)
    tasks = [Sweep(tuple(group), tuple(models), chosen, window, writer, read_pages) for group in groups]
    with tqdm(total=len(kept) * runs, desc="simulating", unit="run", disable=not progress) as bar:
        if len(tasks) == 1 and engine_named(engine) == "local":
            return sweep(tasks[0], bar.update)
        frames: list[pl.DataFrame] = []
        for task, frame in zip(tasks, ordered_map(sweep, tasks, workers=count, engine=engine), strict=True):
            frames.append(frame)
            bar.update(len(task.sessions) * runs)
    return pl.concat(frames) if frames else pl.DataFrame(schema=_schema())


def _messages(session: Session) -> int:
    return len(session.messages)


def summary(frame: pl.DataFrame) -> pl.DataFrame:
    """Per policy and model: what the runs cost (``compaction_cost_usd``: the part the summary
    requests cost, inside ``cost_usd``) and what they kept. ``retention`` weighs every
    session by its facts, at its last turn; ``kept_verbatim_chars`` sums each session's last turn;
    ``needed_retention`` is the strict test: of the facts later tool calls quoted, the share still
    in the context when the call was made.

    Args:
        frame: Rows of ``simulate`` or ``simulate_corpus``.

    Returns:
        One row per policy and model: sessions, turns, compactions, rejected requests, costs and
        retention."""
    import polars as pl

    last = frame.sort("turn").group_by(["policy", "model", "file", "session"], maintain_order=True).last()
    totals = frame.group_by(["policy", "model"], maintain_order=True).agg(
        turns=pl.len(), compactions=pl.col("compactions").sum(),
        reactive=(pl.col("trigger") == "reactive").sum(), rejected=pl.col("rejected").sum(),
        input_tokens=pl.col("context_tokens").filter(~pl.col("rejected")).sum(),
        cache_read_tokens=pl.col("cache_read_tokens").sum(), cache_write_tokens=pl.col("cache_write_tokens").sum(),
        cache_breaks=pl.col("cache_break").sum(), cost_usd=pl.col("cost_usd").sum(),
        compaction_cost_usd=pl.col("compaction_cost_usd").sum(),
    )
    kept = last.group_by(["policy", "model"], maintain_order=True).agg(
        sessions=pl.len(), kept_verbatim_chars=pl.col("verbatim_chars").sum(),
        facts=pl.col("facts").sum(), facts_lost=pl.col("facts_lost").sum(),
    ).with_columns(retention=pl.when(pl.col("facts") > 0)
                   .then(1 - pl.col("facts_lost") / pl.col("facts")).otherwise(1.0))
    needed = frame.group_by(["policy", "model"], maintain_order=True).agg(
        needed=pl.col("needed").sum(), needed_lost=pl.col("needed_lost").sum(),
    ).with_columns(needed_retention=pl.when(pl.col("needed") > 0)
                   .then(1 - pl.col("needed_lost") / pl.col("needed")).otherwise(1.0))
    return kept.join(totals, on=["policy", "model"], how="left").join(needed, on=["policy", "model"], how="left").select(
        "policy", "model", "sessions", "turns", "compactions", "reactive", "rejected", "input_tokens", "cost_usd",
        "compaction_cost_usd", "cache_read_tokens", "cache_write_tokens", "cache_breaks", "kept_verbatim_chars", "facts", "facts_lost",
        "retention", "needed", "needed_lost", "needed_retention",
    )


def fitting_window(frame: pl.DataFrame, share: float = 0.75) -> int:
    """A window ``share`` of the largest request any run sent, rounded to a thousand tokens: for
    seeing what policies do on sessions too short to reach a real model's window."""
    largest = _largest_request(frame)
    if largest is None:
        raise InvalidInput("no request in the frame to size a window from")
    return max(1000, round(largest * share / 1000) * 1000)


def _largest_request(frame: pl.DataFrame) -> int | None:
    largest = frame["context_tokens"].max() if frame.height else None
    return largest if isinstance(largest, int) and largest > 0 else None


def simulate_at_windows(corpus: Corpus | Iterable[Session], models: Sequence[str], policies: Sequence[Policy | str],
                        *, window: int | None = None, progress: bool = True) -> tuple[pl.DataFrame, int | None]:
    """``simulate_corpus`` at each model's real window, or at ``fitting_window`` of it when no policy
    compacted anything there (a corpus of short sessions shows no tradeoff at a real window); the
    window given, if any, as it is, and a corpus with no request to replay as it is (no fallback). Notebook 07's choice, kept here so a test pins it.

    Args:
        corpus: A corpus, or any sessions.
        models: The models to simulate for.
        policies: ``Policy`` values, built-in names or TOML paths.
        window: The input window to use instead of each model's (no fallback then).
        progress: Show a progress bar.

    Returns:
        The frame, and the window it fell back to (``None``: each model's real one, or ``window``
        as given).

    Raises:
        InvalidInput: A policy names no built-in policy and no file.
        UnknownModel: No family is known for a model."""
    frame = simulate_corpus(corpus, models, policies, window=window, progress=progress)
    if window is not None or frame["compactions"].sum() > 0 or _largest_request(frame) is None:
        return frame, None
    fitted = fitting_window(frame)
    return simulate_corpus(corpus, models, policies, window=fitted, progress=progress), fitted
