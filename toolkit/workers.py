"""One function over many items, in this process, in local worker processes, or as Ray tasks on
whatever cluster ``ray.init()`` reaches, with results always in input order.

Order is what makes the engines interchangeable: a corpus loaded or a sweep run on any of them is
the same value (same ids, same order, same problems), because the caller merges results in the
order it asked for them, whatever order they finish in. The function and its items must pickle: a
module-level function and plain values (the record pickles as constructor calls, see
``toolkit.record``).

Local workers are started with ``spawn`` (a fresh interpreter each): safe inside a Jupyter kernel,
whose threads make ``fork`` unsafe, and the same on Linux, macOS and Windows. A script that uses
them must start them under ``if __name__ == "__main__":``, as any spawning script must. Starting two
costs about 0.25 s on this machine kind (measured 2026-12-01), so one item never starts a pool."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar, get_args

T = TypeVar("T")
R = TypeVar("R")

Engine = Literal["local", "ray"]
ENGINES: tuple[Engine, ...] = get_args(Engine)

RAY_MISSING = "the Ray engine needs Ray: pip install -e '.[ray]' in the toolkit's checkout (the ray extra)"

WORKER_DIED = ("a worker process ended before finishing its work: out of memory, a result or error "
               "that could not be sent back, or a script that starts workers outside "
               "`if __name__ == \"__main__\":` (spawned workers import the script again, as on macOS, "
               "Windows and from Python 3.14 everywhere)")


def engine_named(name: str) -> Engine:
    """``name`` as an engine, or a ``ValueError`` naming the ones there are."""
    for engine in ENGINES:
        if engine == name:
            return engine
    raise ValueError(f"unknown engine {name!r} (known: {', '.join(ENGINES)})")


def worker_count(workers: int | None, engine: Engine | str = "local") -> int:
    """How many workers ``workers`` means on ``engine``: ``None`` is the engine's default (this
    process alone locally, every CPU of the cluster on Ray), 0 is every core (every cluster CPU)."""
    chosen = engine_named(engine)
    if workers is not None and workers < 0:
        raise ValueError(f"workers must be at least 1 (or 0 for every core), not {workers}")
    if chosen == "ray" and not workers:
        return _ray_cpus()
    if workers is None:
        return 1
    if workers == 0:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return workers


PER_WORKER = 4
"""Batches per worker at least, so one slow batch does not leave the other workers idle at the end."""


def batches(items: Sequence[T], weight: Callable[[T], int], workers: int, *,
            most: int | None = None, engine: Engine | str = "local") -> list[list[T]]:
    """``items`` cut, in order, into batches: one for one worker; for several, ``PER_WORKER`` per
    worker of similar weight. For the local engine they are cut smaller toward where the spawned
    workers, taking batches from the front, meet this process, taking them from the back
    (``_local_map``), so that the last batches anyone takes are small and nobody waits long for the
    last one; Ray takes them in order, and each task costs it a start (a sweep took 1.34x the local
    engine's time with tapered batches, 1.09x without, measured 2026-12-01). None is heavier than
    ``most`` unless a single item is."""
    if not items:
        return []
    sizes = [weight(item) for item in items]
    total = sum(sizes)
    target = total / (workers * PER_WORKER) if workers > 1 else float(total)
    meet = total * (workers - 1) / workers if workers > 1 and engine_named(engine) == "local" else None
    if most is not None:
        target = min(target, most)
    out: list[list[T]] = [[]]
    start = filled = 0
    for item, size in zip(items, sizes, strict=True):
        limit = target if meet is None else max(target / TAPER, min(target, abs(meet - start) / 2))
        if out[-1] and filled + size > limit:
            out.append([])
            start += filled
            filled = 0
        out[-1].append(item)
        filled += size
    return out


TAPER = 8
"""How much smaller than the others the batches where the workers meet are cut, at most: on 2 cores,
ingesting 200 MB in equal batches, this process finished its last batch 0.5 s before the spawned
worker finished its own (measured 2026-12-01)."""


def ordered_map(fn: Callable[[T], R], items: Sequence[T], *, workers: int | None = None,
                engine: Engine | str = "local") -> Iterator[R]:
    """``fn`` of each item, yielded in the order of ``items``.

    ``local`` with one worker (or one item) runs in this process. ``local`` with N workers runs this
    process and N - 1 spawned ones, each taking the next item the moment it is free, so a slow item
    never idles the others. ``ray`` submits one task per item (one CPU each) to the cluster
    ``ray.init()`` connects to (a new local instance when none is running, unless ``RAY_ADDRESS``
    names one), with at most ``workers`` in flight so results waiting to be merged stay few."""
    count = worker_count(workers, engine)
    if engine_named(engine) == "ray":
        yield from _ray_map(fn, items, count)
        return
    count = min(count, len(items))
    if count <= 1:
        yield from map(fn, items)
        return
    yield from _local_map(fn, items, count)


def _local_map(fn: Callable[[T], R], items: Sequence[T], count: int) -> Iterator[R]:
    """``count`` workers: this process and ``count - 1`` spawned ones. A feeder thread hands the
    spawned ones items from the front, one each, the moment one finishes; this process, whenever
    the next result in order is not ready, takes the last item nobody holds. So no item ever waits
    in a worker's queue while another worker idles, and this process, which has its imports done
    and keeps its results where the caller wants them, does as much of the work as it can (measured
    on 2 cores, 2026-12-01, ingesting 200 MB: two items queued per spawned worker left this process
    idle for the last 0.9 s of 3.3). Nothing handed to the pool is ever cancelled: on Python 3.11 a
    cancelled future kills the pool's manager thread when a worker dies, and the other workers are
    then never stopped."""
    import multiprocessing
    import threading
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    results: dict[int, R] = {}
    errors: dict[int, BaseException] = {}
    handed: dict[int, Future[R]] = {}
    state = {"front": 0, "back": len(items), "stop": False}
    """Items before ``front`` are the pool's, from ``back`` on this process's; ``stop`` ends the feeding."""
    lock = threading.Condition()
    pool = ProcessPoolExecutor(count - 1, mp_context=multiprocessing.get_context("spawn"))

    def feed() -> None:
        running: set[Future[R]] = set()
        while True:
            with lock:
                free = len(running) < count - 1 and not state["stop"] and state["front"] < state["back"]
                index = state["front"]
                state["front"] += free
            if free:
                # submitted outside the lock: the first submission starts the workers and waits
                # until they read their start-up data (0.2 s), which must not stall this process
                try:
                    future = pool.submit(fn, items[index])
                except Exception as exc:  # a worker died (BrokenProcessPool): the item fails in its
                    future = Future()  # turn, and the caller, waiting for it, is never left hanging
                    future.set_exception(exc)
                with lock:
                    handed[index] = future
                    lock.notify_all()
                running.add(future)
            elif not running:
                return
            else:
                running = wait(running, return_when=FIRST_COMPLETED).not_done

    def take_last() -> bool:
        with lock:
            if state["back"] <= state["front"]:
                return False
            state["back"] -= 1
            index = state["back"]
        try:
            results[index] = fn(items[index])
        except Exception as exc:  # raised when its turn comes, as it would be in order
            errors[index] = exc
        return True

    feeder = threading.Thread(target=feed, name="toolkit-workers-feeder", daemon=True)
    feeder.start()
    finished = False
    try:
        for index in range(len(items)):
            while True:
                with lock:
                    future = handed.get(index)
                    ours = index >= state["back"]
                if ours or (future is not None and future.done()) or not take_last():
                    break
            if index in errors:
                raise errors.pop(index)
            if index in results:
                yield results.pop(index)
                continue
            with lock:  # handed out already, or about to be: nothing is left for this process
                lock.wait_for(functools.partial(handed.__contains__, index))
                future = handed.pop(index)
            try:
                yield future.result()
            except BrokenProcessPool as exc:
                raise RuntimeError(WORKER_DIED) from exc
        finished = True
    finally:
        with lock:
            state["stop"] = True
        feeder.join()
        # Every result is in: the workers are told to stop and left to exit on their own, which
        # took 0.25 s of 2.5 when waited for (2 cores, 200 MB ingest, 2026-12-01); the pool's
        # thread joins them, at the latest when the interpreter exits. Otherwise (an error, the
        # caller stopped early) the work handed out is waited for, as it was never cancelled.
        pool.shutdown(wait=not finished)


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ImportError(RAY_MISSING) from exc
    if not ray.is_initialized():
        import logging

        ray.init(logging_level=logging.WARNING, log_to_driver=False)
    return ray


def _ray_cpus() -> int:
    return max(1, int(_ray().cluster_resources().get("CPU", 1)))


def _ray_map(fn: Callable[[T], R], items: Sequence[T], limit: int) -> Iterator[R]:
    ray = _ray()
    remote = ray.remote(num_cpus=1)(fn)
    pending: dict[int, Any] = {}
    submitted = 0
    for index in range(len(items)):
        while submitted < len(items) and submitted - index < limit:
            pending[submitted] = remote.remote(items[submitted])
            submitted += 1
        yield ray.get(pending.pop(index))
