"""One function over many items, in this process, in local worker processes, or as Ray tasks on
the cluster ``RAY_ADDRESS`` names or a local instance (``start_ray``), with results always in input
order.

Order is what makes the engines interchangeable: a corpus loaded or a sweep run on any of them is
the same value (same ids, same order, same problems), because the caller merges results in the
order it asked for them, whatever order they finish in. The function and its items must pickle: a
module-level function and plain values (the record pickles as constructor calls, see
``toolkit.record``).

Local workers are started with ``spawn`` (a fresh interpreter each): safe inside a Jupyter kernel,
whose threads make ``fork`` unsafe, and the same on Linux, macOS and Windows. A script that uses
them must start them under ``if __name__ == "__main__":``, as any spawning script must. Starting workers
costs a fixed start-up (a fresh interpreter and its imports each), so one item never starts a pool."""

from __future__ import annotations

import collections
import contextlib
import functools
import importlib
import logging
import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, TypeVar, get_args

from toolkit.errors import InvalidInput, ToolkitError

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
    raise InvalidInput(f"unknown engine {name!r} (known: {', '.join(ENGINES)})")


def worker_count(workers: int | None, engine: Engine | str = "local") -> int:
    """How many workers ``workers`` means on ``engine``: ``None`` is the engine's default (this
    process alone locally, every CPU of the cluster on Ray), 0 is every core (every cluster CPU)."""
    chosen = engine_named(engine)
    if workers is not None and workers < 0:
        raise InvalidInput(f"workers must be at least 1 (or 0 for every core), not {workers}")
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
    last one; Ray takes them in order, and each task costs it a start, so tapering would only add tasks there
    (``bench_parallel``'s Ray rows in ``benchmarks/RESULTS.md``). None is heavier than
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
"""How much smaller than the others the batches where the workers meet are cut, at most: with equal
batches this process, which has its imports done, finishes its last batch well before a spawned
worker finishes its own, and then waits."""


def ordered_map(fn: Callable[[T], R], items: Sequence[T], *, workers: int | None = None,
                engine: Engine | str = "local") -> Iterator[R]:
    """``fn`` of each item, yielded in the order of ``items``.

    ``local`` with one worker (or one item) runs in this process. ``local`` with N workers runs this
    process and N - 1 spawned ones, each taking the next item the moment it is free, so a slow item
    never idles the others. ``ray`` submits one task per item (one CPU each) to the cluster
    ``RAY_ADDRESS`` names, or else to a local instance (``start_ray``), with at most ``workers`` in
    flight so results waiting to be merged stay few."""
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
    and keeps its results where the caller wants them, does as much of the work as it can
    (items queued ahead in a spawned worker left this process idle at the end). Nothing handed to the pool is ever cancelled: on Python 3.11 a
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
    with sigint_held():  # the pool starts the resource tracker, which must not hear a Ctrl-C as it boots
        pool = ProcessPoolExecutor(count - 1, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=die_with_parent, initargs=(os.getpid(),))

    def feed() -> None:
        hold_sigint()  # the workers are started from here (and from the pool's thread, started from here)
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
    except KeyboardInterrupt:
        for process in list(pool._processes.values()):  # Ctrl-C: the work in flight is not awaited
            process.terminate()
        raise
    finally:
        with lock:
            state["stop"] = True
        feeder.join()
        # Every result is in: the workers are told to stop and left to exit on their own, which
        # took 0.25 s of 2.5 when waited for (2 cores, 200 MB ingest, 2026-12-01); the pool's
        # thread joins them, at the latest when the interpreter exits. Otherwise (an error, the
        # caller stopped early) the work handed out is waited for, as it was never cancelled.
        pool.shutdown(wait=not finished)
        if finished:
            UNJOINED.append(pool)


UNJOINED: list[Any] = []
"""Pools told to stop and not waited for (``_local_map``): the interpreter joins them as it exits,
where a Ctrl-C would print a traceback, so a command joins them itself (``join_workers``)."""


def join_workers() -> None:
    """Wait for the workers of finished pools to exit. The command line calls it before it returns,
    so a Ctrl-C in that moment is the one-line interruption of any other, not a traceback at exit."""
    while UNJOINED:
        UNJOINED.pop().shutdown(wait=True)


def hold_sigint() -> None:
    """Block SIGINT in the calling thread. A process started from it inherits the mask through
    ``exec``, so a worker never hears a Ctrl-C while its interpreter boots (a traceback from its
    imports, before ``die_with_parent`` can ignore the signal); this process still hears it, on its
    main thread."""
    import signal

    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """``hold_sigint`` for a block of the calling thread: a Ctrl-C meanwhile waits and arrives after."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def die_with_parent(parent: int) -> None:
    """Run in each spawned worker first: the worker ends when ``parent`` does. A parent killed
    (SIGKILL, or SIGTERM, which Python does not turn into an exit) never shuts its pool down, and its
    workers, blocked reading their queue, would run on forever, holding its output open (a
    ``| tee log`` never ends) and with them the resource tracker, which ends when the last of them
    does. Linux's parent-death signal does not serve: it fires when the *thread* that started the
    worker ends, and the pool starts workers from its feeder and manager threads. So a daemon
    thread waits on the parent: on a pidfd where there is one (Linux 5.3), else polling the parent
    pid every ``PARENT_POLL`` seconds, and exits the worker at once when it is gone."""
    import signal
    import threading

    if os.getppid() != parent:  # gone before the worker got this far
        os._exit(1)
    # Ctrl-C reaches the whole process group: the parent alone answers it (``_local_map`` stops the
    # workers), instead of every worker printing a traceback of where it was
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), name="toolkit-parent-watch", daemon=True).start()


PARENT_POLL = 0.5
"""Seconds between checks of the parent's pid where no pidfd can be waited on."""


def _watch_parent(parent: int) -> None:
    import select
    import time

    try:
        fd = os.pidfd_open(parent)
    except (AttributeError, OSError):  # not Linux, an old kernel, or the parent already gone
        fd = None
    if fd is not None:
        select.select([fd], [], [])  # readable once the parent has exited
        os._exit(1)
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)


RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_gcs_server_port_wait_time_s": "120"}
"""Set for a local start unless the caller set them (Ray's processes inherit them). Usage stats
off, so the head reports nothing (``ray/_common/usage/usage_lib.py`` reads the variable; ``ray.init``
turns it off itself on release wheels only). 120 s instead of 30 for the GCS to publish its port:
the one start-up wait Ray lets a caller lengthen (``start_gcs_server`` in ``ray/_private/node.py``);
the raylet's are fixed."""

RAY_LOGS = ("raylet.out", "raylet.err", "gcs_server.out", "gcs_server.err")
"""The logs a failed start is reported with: the raylet, whose registration is what times out, and
the GCS it registers with."""

TAIL = 20
"""Lines of each log a failed start shows."""

FRAME = re.compile(r"\(\S*\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]")
"""A native stack frame as Ray's C++ programs print them when they abort (``raylet(+0x2eee5a)
[0x…] ray::raylet::NodeManager::…``): left out of a tail, so that the failed check above the frames,
which says what the raylet gave up waiting for, is among the lines shown."""


class RayStartFailed(ToolkitError, RuntimeError):
    """A local Ray instance did not start on any attempt. The message names the last attempt's error
    and ends with the last ``TAIL`` lines (but stack frames) of each of Ray's ``RAY_LOGS`` for it;
    ``logs`` maps each name to that tail, or to None where Ray did not write the file."""

    def __init__(self, attempts: int, error: BaseException, root: Path | None, session: Path | None,
                 logs: dict[str, str | None]) -> None:
        if session is not None:
            where = f"Ray's logs of that attempt, in {session / 'logs'}:"
        elif root is not None:
            where = f"Ray wrote no session directory for that attempt under {root}."
        else:
            where = "Ray's temp directory is unknown to this Ray version, so its logs are not shown."
        parts = [f"Ray did not start a local instance in {attempts} attempt{'s' * (attempts > 1)}; "
                 f"the last failed with {type(error).__name__}: {error}", where]
        for name, tail in logs.items():
            if tail is None:
                parts.append(f"--- {name}: not written ---")
            elif not tail:
                parts.append(f"--- {name}: empty ---")
            else:
                parts.append(f"--- {name}, last {TAIL} lines but stack frames ---\n{tail}")
        super().__init__("\n".join(parts))
        self.attempts = attempts
        self.session = session
        self.logs = logs


def start_ray(num_cpus: int | None = None, attempts: int = 2, *,
              temp_dir: str | Path | None = None) -> ModuleType:
    """The ``ray`` module, initialised: as it is if it already is; connected, as ``ray.init()``
    connects, to the cluster ``RAY_ADDRESS`` names; otherwise a new local instance, started so that
    a busy machine does not stop it (``address="local"``: a cluster ``ray start`` left on this
    machine is joined only through ``RAY_ADDRESS``, so the options below always apply).

    Ray has no setting for the waits a busy machine misses: the raylet gives its dashboard agent, a
    Python process, 15 s to write its ports and then aborts, and ``ray.init`` gives the raylet 30 s
    to register (``ray/_private/node.py``). So the local start asks for little and tries again:
    ``include_dashboard=False`` (the head loads one module and no web frontend, and ``ray.init``
    waits for it before it starts the raylet, so it is done before the raylet's clock runs),
    ``num_cpus`` when given (the raylet starts that many workers for the first driver, and a test
    sees the same cluster on any machine), ``log_to_driver=False`` (no worker output streamed here),
    ``RAY_ENV``, and ``temp_dir`` as Ray's root for its session directories (Ray's default when
    None). After a failed attempt Ray is shut down and the processes it started are stopped
    (``ray.shutdown()`` cannot reach them: ``ray.init`` raised before it kept the node), so the next
    attempt does not compete with them; after ``attempts`` failures, ``RayStartFailed``."""
    if attempts < 1:
        raise InvalidInput(f"attempts must be at least 1, not {attempts}")
    ray = _import_ray()
    if ray.is_initialized():
        return ray
    if os.environ.get("RAY_ADDRESS"):
        ray.init(logging_level=logging.WARNING, log_to_driver=False)
        return ray
    for name, value in RAY_ENV.items():
        os.environ.setdefault(name, value)
    options: dict[str, Any] = {"address": "local", "include_dashboard": False, "log_to_driver": False,
                               "logging_level": logging.WARNING}
    if num_cpus is not None:
        options["num_cpus"] = num_cpus
    if temp_dir is not None:
        options["_temp_dir"] = os.fspath(temp_dir)
    root = Path(temp_dir) if temp_dir is not None else _ray_temp_root()
    for attempt in range(1, attempts + 1):
        failure = _attempt(ray, options, root)
        if failure is None:
            return ray
        error, session = failure
        if attempt < attempts:
            logging.getLogger(__name__).warning("Ray did not start a local instance (attempt %d of %d: %s: %s); "
                                                "trying again", attempt, attempts, type(error).__name__, error)
    raise RayStartFailed(attempts, error, root, session, _tails(session)) from error


def _attempt(ray: ModuleType, options: dict[str, Any],
             root: Path | None) -> tuple[Exception, Path | None] | None:
    """``ray.init(**options)``: None if it started, else its error and the session directory it
    made under ``root`` (None if it made none), after shutting Ray down and stopping what it started."""
    sessions = _sessions(root)
    before = _ray_processes(ray)
    try:
        ray.init(**options)
    except Exception as exc:
        ray.shutdown()
        _stop(_ray_processes(ray) - before)
        new = sorted(_sessions(root) - sessions)
        return exc, new[-1] if new else None
    return None


def _import_ray() -> ModuleType:
    try:
        import ray
    except ImportError as exc:
        raise ImportError(RAY_MISSING) from exc
    return ray


def _ray_temp_root() -> Path | None:
    """Ray's default root for session directories (it honours ``RAY_TMPDIR`` and ``TMPDIR``), or
    None from a Ray that keeps the function elsewhere: a failed start is then reported without its
    logs, never hidden behind a second error."""
    try:
        utils: Any = importlib.import_module("ray._common.utils")
        return Path(utils.get_default_ray_temp_dir())
    except (ImportError, AttributeError):
        return None


def _sessions(root: Path | None) -> set[Path]:
    """This process's session directories under ``root``: Ray names each ``session_<time>_<pid>``
    after the driver's process id, so other processes' sessions never match."""
    if root is None:
        return set()
    return {path for path in root.glob(f"session_*_{os.getpid()}") if path.is_dir() and not path.is_symlink()}


def _tails(session: Path | None) -> dict[str, str | None]:
    """The last ``TAIL`` lines but ``FRAME``s of each of ``RAY_LOGS`` in ``session`` (with how many
    frames were left out), None for each one missing."""
    tails: dict[str, str | None] = {}
    for name in RAY_LOGS:
        path = None if session is None else session / "logs" / name
        if path is None or not path.is_file():
            tails[name] = None
            continue
        lines: collections.deque[str] = collections.deque(maxlen=TAIL)
        frames = 0
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if FRAME.search(line):
                    frames += 1
                else:
                    lines.append(line)
        left_out = f"\n({frames} native stack frames left out)" if frames else ""
        tails[name] = "".join(lines).rstrip("\n") + left_out
    return tails


def _ray_processes(ray: ModuleType) -> set[Any]:
    """This process's descendants that run Ray's own programs (its binaries and Python entry points
    all live in the ``ray`` package), as ``psutil`` processes, which compare by pid and start time."""
    import psutil  # type: ignore[import-untyped]  # Ray depends on it (and ships a copy)

    package = os.path.dirname(os.path.abspath(ray.__file__ or ""))
    found: set[Any] = set()
    for process in psutil.Process().children(recursive=True):
        try:
            command = process.cmdline()
        except psutil.Error:  # gone already, or not ours to read
            continue
        if any(part.startswith(package + os.sep) for part in command):
            found.add(process)
    return found


STOP_WAIT = 5.0
"""Seconds a half-started Ray process is given to exit on SIGTERM before it is killed."""


def _stop(processes: set[Any]) -> None:
    """Terminates ``processes``, kills those still alive after ``STOP_WAIT`` seconds, and reaps them."""
    import psutil

    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(list(processes), timeout=STOP_WAIT)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=STOP_WAIT)


def _ray_cpus() -> int:
    return max(1, int(start_ray().cluster_resources().get("CPU", 1)))


def _ray_map(fn: Callable[[T], R], items: Sequence[T], limit: int) -> Iterator[R]:
    ray = start_ray()
    remote = ray.remote(num_cpus=1)(fn)
    pending: dict[int, Any] = {}
    submitted = 0
    for index in range(len(items)):
        while submitted < len(items) and submitted - index < limit:
            pending[submitted] = remote.remote(items[submitted])
            submitted += 1
        yield ray.get(pending.pop(index))
