"""Where to freeze a history: the points of a corpus whose recorded next reply called a tool, and those
where it only talked about acting (a history frozen right after "I'll close #506" asks how often the
next turn really calls)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from toolkit.experiment.said import reply_calls, reply_text, says_action
from toolkit.experiment.trials import Point
from toolkit.record import Message, Session, bare_tool_name


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _most_used(path: Sequence[Message]) -> tuple[str, ...]:
    """The tool(s) called most often on the path, ties in order of first call."""
    counts = Counter(bare_tool_name(name) for name in reply_calls(path))
    if not counts:
        return ()
    top = max(counts.values())
    return tuple(name for name, n in counts.items() if n == top)


def session_points(session: Session) -> list[Point]:
    """The points of one session, along its main path.

    A reply that called tools gives a ``called`` point expecting the tools it called (bare names, in
    call order). A reply that called nothing but says it acts gives a ``said`` point expecting the
    tool called last before it on the path, the one it most likely meant; before any call, the tools
    the whole path called most. A session that never calls a tool gives no ``said`` point: there is
    nothing to expect. The first reply, with nothing before it to freeze, gives no point.
    """
    from toolkit.compaction.simulator import turns  # imported here: it brings polars and tiktoken

    path = session.path()
    points: list[Point] = []
    last_called: tuple[str, ...] = ()
    for start, end in turns(path):
        run = path[start:end]
        called = _unique(bare_tool_name(name) for name in reply_calls(run))
        if start > 0:
            at = path[start - 1].id
            if called:
                points.append(Point(session.file, session.id, at, called, "called"))
            elif says_action(reply_text(run)):
                expect = last_called or _most_used(path)
                if expect:
                    points.append(Point(session.file, session.id, at, expect, "said"))
        if called:
            last_called = called[-1:]
    return points


def find_points(corpus: Iterable[Session], *, limit: int | None = None) -> list[Point]:
    """Every session's points, sessions in corpus order and points along each path (so the same corpus
    always gives the same list), at most ``limit`` of them."""
    out: list[Point] = []
    for session in corpus:
        for point in session_points(session):
            if limit is not None and len(out) >= limit:
                return out
            out.append(point)
    return out


def nothing_to_plan(points: Sequence[Point]) -> str | None:
    """``None`` when some point's recorded reply called a tool (what the experiment asks for again);
    else one line saying there is nothing to plan and why, for a notebook to print where its plan
    would be empty."""
    if any(p.recorded == "called" for p in points):
        return None
    why = (f"its {len(points)} point(s) are replies that only said they acted" if points
           else "no reply after the first calls a tool or says it acts")
    return f"Nothing to plan: no point in the corpus where the recorded reply called a tool ({why})."


DEFAULT_SEED = 30
"""The seed ``spread`` uses unless told: any fixed number, so a rerun plans the same points."""


@dataclass(frozen=True, slots=True)
class Spread:
    """The points ``spread`` chose, and how many it looked at and passed over."""

    points: tuple[Point, ...]
    candidates: int
    """Every point offered."""
    examined: int
    """Points ``keep`` was asked about (chosen or skipped): the walk stops once ``total`` are chosen."""
    skipped: int
    """Examined points ``keep`` refused."""


def spread(points: Iterable[Point], *, total: int | None, per_session: int | None, seed: int = DEFAULT_SEED,
           keep: Callable[[Point], bool] | None = None, on_point: Callable[[Point], object] | None = None) -> Spread:
    """At most ``total`` points, at most ``per_session`` from any one session, drawn round-robin over the
    sessions so a corpus whose first session has hundreds of points still gives one from each session
    before a second from any. Sessions (sorted first, so the order they come in does not matter) and
    each session's points are shuffled by ``seed`` (a session's points by the seed and its own name, so
    adding a session leaves the others' draws alone); ``keep`` refuses a point (then the session's next one is tried), and is asked only about
    points the walk reaches, which is what bounds the cost of an expensive test."""
    by_session: dict[tuple[str, str], list[Point]] = {}
    for point in points:
        by_session.setdefault((point.file, point.session), []).append(point)
    queues = []
    for name, found in sorted(by_session.items()):
        random.Random(f"{seed}\0{name[0]}\0{name[1]}").shuffle(found)
        queues.append(found)
    random.Random(seed).shuffle(queues)
    chosen: list[Point] = []
    taken = [0] * len(queues)
    cursor = [0] * len(queues)
    examined = skipped = 0
    while total is None or len(chosen) < total:
        progressed = False
        for i, queue in enumerate(queues):
            if total is not None and len(chosen) >= total:
                break
            if per_session is not None and taken[i] >= per_session:
                continue
            while cursor[i] < len(queue):
                point = queue[cursor[i]]
                cursor[i] += 1
                examined += 1
                if keep is None or keep(point):
                    chosen.append(point)
                    taken[i] += 1
                    progressed = True
                    if on_point is not None:
                        on_point(point)
                    break
                skipped += 1
        if not progressed:
            break
    return Spread(tuple(chosen), sum(len(q) for q in queues), examined, skipped)
