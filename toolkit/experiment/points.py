"""Where to freeze a history: the points of a corpus whose recorded next reply called a tool, and those
where it only talked about acting (a history frozen right after "I'll close #506" asks how often the
next turn really calls)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

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
