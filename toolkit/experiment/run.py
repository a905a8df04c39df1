"""Running the replay experiment: each trial's request built by ``toolkit.replay.request``, sent
``n`` times through the wire's official SDK (``toolkit.replay.send``, which says how each SDK sends
a body unchanged), every reply appended to a JSONL ledger as it arrives.

Tools are declared as recorded and never executed: a run stops at the reply. The ledger holds one
``request`` line per distinct body (its sha256, fidelity notes and the body), one ``reply`` line per
reply and one ``error`` line per failed send; a rerun skips every key that has a ``reply`` line, so
a crash or Ctrl-C loses nothing but the replies in flight. Keys come only from the environment and
every line is scrubbed of the values of the key variables before it is written.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolkit.corpus import Corpus
from toolkit.errors import InvalidInput
from toolkit.experiment.said import classify
from toolkit.experiment.trials import Trial
from toolkit.record import JsonValue, Message, Reasoning, RunConfig, Session, Text, ToolUse, bare_tool_name
from toolkit.replay import Request, request
from toolkit.replay.lookup import check_sent, read_reply, sender
from toolkit.replay.request import DEFAULT_MAX_TOKENS
from toolkit.replay.send import (
    DEFAULT_ENDPOINT,
    Endpoint,
    Reply,
    reply_cost,
    scrub,
    secrets,
    status,
    with_backoff,
)
from toolkit.replay.send import SendError as ExperimentError
from toolkit.surface import SurfaceStore

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "DEFAULT_ENDPOINT",
    "Endpoint",
    "Estimate",
    "ExperimentError",
    "Job",
    "Outcome",
    "OutputSource",
    "Plan",
    "Reply",
    "SessionPlan",
    "body_sha256",
    "classify_reply",
    "estimate",
    "execute",
    "key_id",
    "modes_differ",
    "plan",
    "read_ledger",
    "recorded_output",
    "recorded_reply",
    "run",
    "trial_input_tokens",
    "trial_jobs",
    "trial_key",
    "trial_request",
]
"""The harness, and the sending names (``toolkit.replay.send``) its callers have always imported from here."""


@dataclass(frozen=True, slots=True)
class Job:
    """One reply to ask for: its key in the ledger, the request and the fields its lines carry."""

    key: Mapping[str, str | int]
    wire: str
    model: str
    request: Request
    fields: Mapping[str, Any] = field(default_factory=dict)
    """Written on the reply line beside the key (a trial's expected tools, a page's source...)."""

    @property
    def id(self) -> str:
        return key_id(self.key)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a run did."""

    sent: int
    skipped: int
    """Keys the ledger already held replies for."""
    failed: int
    spent_usd: float
    """Reported spend in the ledger after the run (earlier runs included)."""
    estimated_usd: float
    """Estimated spend of the replies whose server reported no usage (``unmeasured_cost``), earlier
    runs included: the spend cap counts it beside the reported spend."""
    stopped: str | None
    """Why replies were left unasked (``None``: every one was asked for)."""
    unsent: int

    def lines(self, results: str | Path) -> list[str]:
        """What the run did, in the words a command prints when it ends.

        Args:
            results: The results file, as the command was given it.

        Returns:
            One line of counts and spend, and one more when the run stopped early."""
        said = [f"{self.sent} sent, {self.skipped} already done, {self.failed} failed, "
                f"{_spend(self.spent_usd, self.estimated_usd)} in {results}"]
        if self.stopped:
            said.append(f"stopped: {self.stopped} ({self.unsent} not sent)")
        return said


def _spend(reported: float, estimated: float) -> str:
    """The spend in words: reported, and estimated for replies without usage where there are some."""
    return f"${reported:.4f} reported" + (f" + ${estimated:.4f} estimated for replies without usage" if estimated else "")


def body_sha256(built: Request) -> str:
    """The sha256 of a request's canonical bytes: which body a reply answered."""
    return hashlib.sha256(built.bytes).hexdigest()


def key_id(key: Mapping[str, str | int]) -> str:
    """A key as one string: what the ledger is searched by."""
    return json.dumps(dict(key), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def trial_key(trial: Trial, index: int) -> dict[str, str | int]:
    """A trial reply's key: the point, wire, model, mode and the reply's index."""
    point = trial.point
    return {"file": point.file, "session": point.session, "at": point.at, "wire": trial.wire,
            "model": trial.model, "mode": trial.mode, "index": index}


STUB_DESCRIPTION = "(stub: the recording kept this tool's name but not its definition)"


def declared(session: Session, trial: Trial) -> tuple[Session, str | None]:
    """The session with a tool declared for every name the model needs at the point: its recorded
    definitions where the recording kept them; otherwise (Claude Code, Codex and Gemini CLI keep
    none) every tool called on the path and every expected one, with an open object schema, so the
    expected call is possible in every mode and on every wire. The note says which it was."""
    config = session.run_config(trial.point.at)
    if config is not None and config.tools:
        return session, None
    called = [b.name for m in session.path(trial.point.at) for b in m.blocks if isinstance(b, ToolUse)]
    bare = {bare_tool_name(name) for name in called}
    names = list(dict.fromkeys([*called, *(config.tool_names if config else ()),
                                *(name for name in trial.point.expect if name not in bare)]))
    if not names:
        return session, None
    stubs: tuple[JsonValue, ...] = tuple(
        {"name": name, "description": STUB_DESCRIPTION, "input_schema": {"type": "object"}} for name in names)
    base = config or RunConfig()
    stubbed = replace(base, tools=stubs, tool_names=tuple(names), message_id=None)
    note = (f"tools: {len(names)} recorded name(s) declared with stub schemas (open objects): the "
            "recording kept no definitions")
    return replace(session, run_configs=(stubbed,)), note


def trial_request(trial: Trial, corpus: Corpus, *, store: SurfaceStore | None = None,
                  max_tokens: int = DEFAULT_MAX_TOKENS) -> Request:
    """The body the trial's wire is sent: the session up to the point, in the trial's mode, naming
    the trial's model, with tools as recorded or, where only their names were, as stubs
    (``declared``; the notes say which)."""
    session, note = declared(corpus.session(trial.point.session), trial)
    built = request(session, wire=trial.wire, mode=trial.mode, upto=trial.point.at, model=trial.model,
                    images=corpus.images, store=store, max_tokens=max_tokens)
    return replace(built, notes=(*built.notes, note)) if note else built


def trial_jobs(trials: Iterable[Trial], corpus: Corpus, *, store: SurfaceStore | None = None,
               max_tokens: int = DEFAULT_MAX_TOKENS) -> list[Job]:
    """Every reply the trials ask for, each trial's request built once."""
    jobs: list[Job] = []
    for trial in trials:
        check_sent(trial.wire)
        built = trial_request(trial, corpus, store=store, max_tokens=max_tokens)
        fields = {"expect": list(trial.point.expect), "recorded": trial.point.recorded}
        jobs.extend(Job(trial_key(trial, i), trial.wire, trial.model, built, fields) for i in range(trial.n))
    return jobs


def classify_reply(job: Job, reply: Reply) -> dict[str, Any]:
    """A trial reply's class (``toolkit.experiment.said.classify``) against its expected tools."""
    return {"kind": classify(reply.text, reply.calls, tuple(job.fields.get("expect", ())))}


def run(trials: Sequence[Trial], corpus: Corpus, results: str | Path, *, endpoint: Endpoint = DEFAULT_ENDPOINT,
        concurrency: int = 4, max_cost: float | None = None, retries: int = 3, backoff: float = 2.0,
        store: SurfaceStore | None = None, max_tokens: int = DEFAULT_MAX_TOKENS,
        on_reply: Callable[[dict[str, Any]], None] | None = None) -> Outcome:
    """Ask for every reply of ``trials`` not yet in ``results`` and append each as it arrives."""
    return execute(trial_jobs(trials, corpus, store=store, max_tokens=max_tokens), results, score=classify_reply,
                   endpoint=endpoint, concurrency=concurrency, max_cost=max_cost, retries=retries,
                   backoff=backoff, on_reply=on_reply)


# ---- the ledger ---------------------------------------------------------------------------------


def read_ledger(path: str | Path) -> Iterator[dict[str, Any]]:
    """Every whole line of a ledger (a line cut short by a crash is skipped)."""
    file = Path(path)
    if not file.exists():
        return
    with file.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict):
                yield row


@dataclass
class _Ledger:
    """The results file, appended under a lock, each line flushed as it is written."""

    path: Path
    secrets: tuple[str, ...]
    done: set[str] = field(default_factory=set)
    bodies: set[str] = field(default_factory=set)
    spent: float = 0.0
    estimated: float = 0.0
    """What the replies without a reported usage cost by estimate (``unmeasured_cost``)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def open(cls, path: Path, secrets: tuple[str, ...]) -> _Ledger:
        ledger = cls(path, secrets)
        for row in read_ledger(path):
            if row.get("type") == "reply" and isinstance(row.get("key"), str):
                ledger.done.add(row["key"])
                cost, guess = row.get("cost_usd"), row.get("cost_estimate_usd")
                ledger.spent += float(cost) if isinstance(cost, int | float) else 0.0
                ledger.estimated += float(guess) if isinstance(guess, int | float) else 0.0
            elif row.get("type") == "request" and isinstance(row.get("sha256"), str):
                ledger.bodies.add(row["sha256"])
        return ledger

    def write(self, row: dict[str, Any]) -> None:
        text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        text = scrub(text, self.secrets)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(text + "\n")
            out.flush()

    def request(self, job: Job, sha: str) -> None:
        if sha in self.bodies:
            return
        self.bodies.add(sha)
        self.write({"type": "request", "sha256": sha, "wire": job.wire, "model": job.model,
                    "mode": job.request.mode, "fidelity": list(job.request.notes), "body": job.request.body})


# ---- sending ------------------------------------------------------------------------------------


def execute(jobs: Sequence[Job], results: str | Path, *, score: Callable[[Job, Reply], dict[str, Any]],
            endpoint: Endpoint = DEFAULT_ENDPOINT, concurrency: int = 4, max_cost: float | None = None,
            retries: int = 3, backoff: float = 2.0,
            on_reply: Callable[[dict[str, Any]], None] | None = None) -> Outcome:
    """Send every job whose key ``results`` lacks, ``concurrency`` at a time, and append each reply
    (scored by ``score``) as it arrives. A rate limit the SDK's own retries did not outlast is
    retried ``retries`` more times after ``backoff``, doubling. With ``max_cost``, no reply is asked
    for once the spend the ledger reports reaches it (replies in flight then still land, so the
    spend can pass the cap by up to ``concurrency - 1`` replies). A reply whose server reported no
    usage has an unknown cost (logged as null) and counts toward the cap at its estimate
    (``unmeasured_cost``, logged as ``cost_estimate_usd``); unpriced models count as free."""
    if concurrency < 1:
        raise InvalidInput(f"concurrency must be at least 1, got {concurrency}")
    ledger = _Ledger.open(Path(results), secrets(endpoint))
    todo = [job for job in jobs if job.id not in ledger.done]
    skipped = len(jobs) - len(todo)
    senders = {wire: sender(wire, endpoint) for wire in dict.fromkeys(job.wire for job in todo)}
    stopped: list[str] = []
    counts = {"sent": 0, "failed": 0, "unsent": 0}

    def one(job: Job) -> dict[str, Any] | None:
        with ledger.lock:
            if max_cost is not None and ledger.spent + ledger.estimated >= max_cost:
                stopped[:] = [f"spend cap: {_spend(ledger.spent, ledger.estimated)} of ${max_cost:.4f}"]
                counts["unsent"] += 1
                return None
            sha = body_sha256(job.request)
            ledger.request(job, sha)
        started = time.monotonic()
        try:
            response = with_backoff(senders[job.wire], job.request.body, job.model, retries, backoff)
        except Exception as error:
            with ledger.lock:
                counts["failed"] += 1
                ledger.write({"type": "error", "key": job.id, **job.key, "request_sha256": sha,
                              "error": f"{type(error).__name__}: {error}", "status": status(error),
                              "time": _now()})
            return None
        reply = read_reply(job.wire, response)
        cost = reply_cost(job.model, reply)
        guess = None if reply.measured else unmeasured_cost(job.model, job.request, reply)
        row: dict[str, Any] = {
            "type": "reply", "key": job.id, **job.key, **job.fields, "request_sha256": sha,
            "fidelity": list(job.request.notes), "response": response, "text": reply.text,
            "calls": list(reply.calls), "stop": reply.stop,
            "usage": {"input": reply.fresh_input, "cached": reply.cached, "cache_write": reply.cache_write,
                      "output": reply.output} if reply.measured else None,
            "cost_usd": cost, **({"cost_estimate_usd": guess} if guess is not None else {}),
            **score(job, reply), "time": _now(),
            "seconds": round(time.monotonic() - started, 3),
        }
        with ledger.lock:
            ledger.write(row)
            ledger.done.add(job.id)
            ledger.spent += cost or 0.0
            ledger.estimated += guess or 0.0
            counts["sent"] += 1
        return row

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="experiment")
    try:
        futures: list[Future[dict[str, Any] | None]] = [pool.submit(one, job) for job in todo]
        for future in as_completed(futures):
            row = future.result()
            if row is not None and on_reply is not None:
                on_reply(row)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return Outcome(counts["sent"], skipped, counts["failed"], ledger.spent, ledger.estimated,
                   stopped[0] if stopped else None, counts["unsent"])


def unmeasured_cost(model: str, built: Request, reply: Reply) -> float | None:
    """What a reply whose server reported no usage cost, estimated: the request body's text tokens
    (``toolkit.replay.analysis.tokens``, inline image bytes left out) as fresh input and the reply's
    words and call names (``toolkit.costs.text_tokens``) as output, at the model's list price. The
    reasoning a reply billed but did not show is not counted. ``None``: the model has no price."""
    from toolkit.costs import UnknownModelError, text_tokens
    from toolkit.replay.analysis import tokens

    try:
        output = text_tokens("\n".join((reply.text, *reply.calls)), model).tokens
    except UnknownModelError:
        return None
    return _priced(model, tokens(built)[0], output)


def _priced(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """``reply_cost`` of a reply of these counts (fresh input, nothing cached)."""
    return reply_cost(model, Reply("", (), input_tokens, 0, 0, output_tokens, None))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# ---- the dry run --------------------------------------------------------------------------------


OutputSource = Literal["recorded usage", "recorded text", "max_tokens"]
"""A point's output estimate: the recorded reply's reported output tokens; its text counted by
``toolkit.costs.text_tokens`` (no usage recorded, only zeros, or a count below its text's); or, with no recorded reply to read
(a page transcription, a point off the main path), the request's ``max_tokens``."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """One request's planned cost: estimated input and output, times ``n``."""

    key: Mapping[str, str | int]
    n: int
    request_sha256: str
    input_tokens: int | None
    """``None``: the model is unknown to ``toolkit.costs``."""
    output_tokens: int
    cost_usd: float | None
    """All ``n`` replies; ``None`` where the model has no recorded price."""
    fidelity: tuple[str, ...]
    output_source: OutputSource = "max_tokens"
    """Where ``output_tokens`` came from (``recorded_output``)."""


PLAN_COLUMNS: dict[str, Any] = {
    "file": str, "session": str, "at": str, "wire": str, "model": str, "mode": str, "n": int, "request_sha256": str,
    "input_tokens": int, "output_tokens": int, "output_source": str, "cost_usd": float, "fidelity": list[str],
}
"""The columns of a trial plan's ``Plan.rows`` (``trial_key`` less the index, then the estimate's), by type."""


@dataclass(frozen=True, slots=True)
class SessionPlan:
    """One session's share of a plan."""

    file: str
    session: str
    points: int
    requests: int
    replies: int
    input_tokens: int
    """All replies; requests of an unknown model count 0 (``unpriced``)."""
    output_tokens: int
    cost_usd: float
    unpriced: int


_COUNT = re.compile(r"(?<![\w.-])\d+(?:,\d{3})*(?![\w-]|\.\d)")
"""A count in a note's words: a number standing alone, not part of a name (``gpt-4o``,
``claude-sonnet-4-5``) or a decimal."""


def notes_grouped(notes: Counter[str]) -> list[tuple[str, int]]:
    """Notes that differ only in their counts as one, each count the range it took (``1 to 4``) and the
    requests summed, most carried first; a note says the same thing however many it counted.

    Args:
        notes: Each distinct note with the requests carrying it (``Plan.notes``).

    Returns:
        Each grouped note with its requests.
    """
    groups: dict[str, list[tuple[list[str], int]]] = {}
    for note, carried in notes.items():
        groups.setdefault(_COUNT.sub("\0", note), []).append((_COUNT.findall(note), carried))
    out: list[tuple[str, int]] = []
    for shape, members in groups.items():
        words = shape.split("\0")
        text = words[0]
        for slot, rest in enumerate(words[1:]):
            written = {counts[slot] for counts, _ in members}
            values = sorted(int(c.replace(",", "")) for c in written)
            text += (written.pop() if len(written) == 1 else f"{values[0]:,} to {values[-1]:,}") + rest
        out.append((text, sum(carried for _, carried in members)))
    return sorted(out, key=lambda item: -item[1])


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run would ask for, and what it would cost by estimate."""

    estimates: tuple[Estimate, ...]

    @property
    def replies(self) -> int:
        return sum(e.n for e in self.estimates)

    @property
    def cost_usd(self) -> float:
        """The priced requests' estimate (see ``unpriced``)."""
        return sum(e.cost_usd or 0.0 for e in self.estimates)

    @property
    def unpriced(self) -> int:
        return sum(e.n for e in self.estimates if e.cost_usd is None)

    def rows(self) -> list[dict[str, Any]]:
        """One row per planned request: the fields of its key (the point, wire, mode and model; a
        page plan's sample), ``n``, the request's digest, the estimated tokens and cost, where the
        output estimate came from and its fidelity notes, as a dry run prints them.

        Returns:
            The rows, in plan order.
        """
        return [{**e.key, "n": e.n, "request_sha256": e.request_sha256, "input_tokens": e.input_tokens,
                 "output_tokens": e.output_tokens, "output_source": e.output_source, "cost_usd": e.cost_usd,
                 "fidelity": list(e.fidelity)} for e in self.estimates]

    def frame(self) -> pl.DataFrame:
        """``rows`` as a frame, so a notebook can select from it whatever the corpus gave.

        Returns:
            One row per planned trial; a plan of nothing has a trial plan's columns
            (``PLAN_COLUMNS``) and no row."""
        import polars as pl

        rows = self.rows()
        return pl.DataFrame(rows) if rows else pl.DataFrame(schema=PLAN_COLUMNS)

    def sessions(self) -> list[SessionPlan]:
        """Per session in plan order: what a reader of a large plan needs instead of one line per request.

        Returns:
            One summary per session: its points and requests, replies, tokens and cost.
        """
        groups: dict[tuple[str, str], list[Estimate]] = {}
        for e in self.estimates:
            groups.setdefault((str(e.key.get("file", "")), str(e.key.get("session", ""))), []).append(e)
        return [SessionPlan(file, session, len({e.key.get("at") for e in group}), len(group),
                            sum(e.n for e in group), sum((e.input_tokens or 0) * e.n for e in group),
                            sum(e.output_tokens * e.n for e in group), sum(e.cost_usd or 0.0 for e in group),
                            sum(e.n for e in group if e.cost_usd is None))
                for (file, session), group in groups.items()]

    def notes(self) -> Counter[str]:
        """Each distinct fidelity note and how many requests carry it.

        Returns:
            The count of requests per note.
        """
        return Counter(note for e in self.estimates for note in e.fidelity)

    def note_groups(self) -> list[tuple[str, int]]:
        """The fidelity notes as a reader takes them, most carried first: notes that differ only in
        a count (``tools: 2 recorded name(s)...``, ``tools: 3 ...``) are one note, the count shown as
        the range it took (``notes_grouped``).

        Returns:
            Each note with how many requests carry it.
        """
        return notes_grouped(self.notes())

    def output_sources(self) -> Counter[OutputSource]:
        """How many requests' output estimate came from each source.

        Returns:
            The count of requests per source.
        """
        return Counter(e.output_source for e in self.estimates)


def estimate(key: Mapping[str, str | int], model: str, n: int, built: Request, input_tokens: int | None,
             max_tokens: int, output: tuple[int, OutputSource] | None = None) -> Estimate:
    """``n`` replies of ``built`` priced by ``toolkit.costs.request_cost``, output as ``output`` says
    (``recorded_output``), else at ``max_tokens``."""
    tokens, source = output if output is not None else (max_tokens, "max_tokens")
    cost = None if input_tokens is None else _priced(model, input_tokens, tokens)
    return Estimate(key, n, body_sha256(built), input_tokens, tokens, None if cost is None else cost * n,
                    built.notes, source)


def recorded_reply(session: Session, at: str) -> list[Message]:
    """The recorded reply after ``at`` on the session's main path (the run of assistant messages that
    follows it); empty where ``at`` is not on that path or no reply follows."""
    path = session.path()
    ids = [m.id for m in path]
    if at not in ids:
        return []
    start = ids.index(at) + 1
    end = start
    while end < len(path) and path[end].role == "assistant":
        end += 1
    return path[start:end]


def _reply_words(reply: Sequence[Message]) -> str:
    """What a reply generated, as text to count: its words, reasoning and calls (name and arguments)."""
    parts: list[str] = []
    for message in reply:
        for block in message.blocks:
            if isinstance(block, Text | Reasoning):
                parts.append(block.text)
            elif isinstance(block, ToolUse):
                parts.append(block.name)
                parts.append(block.raw_input if block.raw_input is not None
                             else json.dumps(block.input, ensure_ascii=False))
    return "\n".join(p for p in parts if p)


def recorded_output(trial: Trial, corpus: Corpus) -> tuple[int, OutputSource] | None:
    """What the recorded reply at the trial's point cost in output: the output tokens its usage
    reports where every message of it has a measured output count (``toolkit.measured``: not all
    zeros, and not below what the reply wrote, as a streaming client's first-chunk count is), else
    its text counted for the trial's model by ``toolkit.costs.text_tokens`` (an estimate). ``None``:
    no recorded reply, or neither a usage nor a model ``toolkit.costs`` knows."""
    from toolkit.costs import text_tokens
    from toolkit.measured import measured_usage

    reply = recorded_reply(corpus.session(trial.point.session), trial.point.at)
    if not reply:
        return None
    outputs = [used.output for m in reply if (used := measured_usage(m)) is not None]
    if len(outputs) == len(reply) and None not in outputs:
        return sum(o or 0 for o in outputs), "recorded usage"
    try:
        return text_tokens(_reply_words(reply), trial.model).tokens, "recorded text"
    except ValueError:
        return None


def trial_input_tokens(trial: Trial, corpus: Corpus) -> int | None:
    """Input tokens of a trial's request by ``toolkit.costs.context_tokens``: the replayed path with
    the run's recorded system prompt and tools, counted by the model's family as calibrated against
    providers' reported counts. It counts the path as stored, whatever the mode carries of it, so
    ``text`` and ``prose_head`` are estimated a little high; tools declared as stubs are not counted. An estimate. ``None``: unknown model."""
    from toolkit.costs import context_tokens

    session = corpus.session(trial.point.session)
    config = session.run_config(trial.point.at)
    try:
        return context_tokens(session.path(trial.point.at), trial.model,
                              config.system if config is not None else None,
                              config.tools if config is not None else None)
    except ValueError:
        return None


def modes_differ(built: Iterable[Request]) -> bool:
    """Whether a point's requests in its modes are not all one body (compared by canonical bytes): a
    point before any call sends the same body in ``text`` and ``native``, so it cannot tell them apart."""
    return len({b.bytes for b in built}) > 1


def plan(trials: Sequence[Trial], corpus: Corpus, *, store: SurfaceStore | None = None,
         max_tokens: int = DEFAULT_MAX_TOKENS, built: Mapping[Trial, Request] | None = None,
         on_trial: Callable[[Trial], object] | None = None) -> Plan:
    """The dry run: each trial's request built, nothing sent, its cost estimated.

    Args:
        trials: What to ask.
        corpus: The corpus the trials' sessions are in.
        store: A ``toolkit.surface.SurfaceStore`` to rebuild tools recorded by hash only.
        max_tokens: The limit Anthropic bodies carry (the one wire that requires it), and the output
            a reply is priced at where no recorded reply says what it cost.
        built: Requests already built for some trials (choosing points built them), reused.
        on_trial: Called after each trial is planned (a progress bar).

    Returns:
        Each request with its input tokens (``trial_input_tokens``) and its output by
        ``recorded_output``. The spend cap reads the spend providers report, not this estimate."""
    out = []
    inputs: dict[tuple[str, str, str], int | None] = {}
    outputs: dict[tuple[str, str, str], tuple[int, OutputSource] | None] = {}
    for trial in trials:
        check_sent(trial.wire)
        request_ = (built or {}).get(trial) or trial_request(trial, corpus, store=store, max_tokens=max_tokens)
        key = {k: v for k, v in trial_key(trial, 0).items() if k != "index"}
        where = (trial.point.session, trial.point.at, trial.model)
        if where not in inputs:
            inputs[where] = trial_input_tokens(trial, corpus)
            outputs[where] = recorded_output(trial, corpus)
        out.append(estimate(key, trial.model, trial.n, request_, inputs[where], max_tokens, outputs[where]))
        if on_trial is not None:
            on_trial(trial)
    return Plan(tuple(out))
