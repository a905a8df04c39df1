"""Corpus scale: loading, ingesting into Parquet parts and sweeping policies in worker processes and
as Ray tasks give exactly what one process gives (same sessions, ids, order, problems, frames)."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from collections.abc import Generator, Iterator
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import CORPORA, REPO
from toolkit.compaction import simulate_corpus
from toolkit.corpus import Corpus, ingest, load, scan
from toolkit.corpus.reading import sources
from toolkit.record import RecordError
from toolkit.workers import PER_WORKER, TAPER, WORKER_DIED, batches, ordered_map, start_ray, worker_count

DATA = REPO / "data"
SOURCES = [pytest.param(DATA, id="demo"),
           pytest.param(CORPORA, id="shared", marks=pytest.mark.skipif(not CORPORA.is_dir(),
                                                                     reason="../shared/corpora is absent"))]


def assert_same(got: Corpus, want: Corpus) -> None:
    assert [s.id for s in got.sessions] == [s.id for s in want.sessions]
    assert got.sessions == want.sessions
    assert got.problems == want.problems
    assert got.images == want.images and list(got.images) == list(want.images)
    assert got.files == want.files
    assert got.formats == want.formats and list(got.formats) == list(want.formats)


def test_sources_come_in_the_order_and_with_the_names_a_recursive_glob_gives(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for name in ("a-b/x.jsonl", "a/b.jsonl", "a/.git/hidden.jsonl", "node_modules/z.jsonl", "README.md",
                 "c.jsonl", ".codex/sessions/r.jsonl", "a/B.json", "deep/er/still.json"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n", encoding="utf-8")
    (root / "linked").symlink_to(root / "deep", target_is_directory=True)
    (root / "file-link.jsonl").symlink_to(root / "c.jsonl")
    expected = [str(p.relative_to(root)) for p in sorted(root.rglob("*")) if p.is_file()
                and not {".git", "node_modules"} & set(p.relative_to(root).parts) and p.suffix != ".md"]
    assert [s.name for s in sources(root)] == expected
    assert "a-b/x.jsonl" in expected and expected.index("a/b.jsonl") < expected.index("a-b/x.jsonl")
    assert not any(name.startswith("linked") for name in expected)
    (only,) = sources(root / "c.jsonl")
    assert only.name == "c.jsonl" and only.size == 3


def test_batches_keep_order_and_their_bounds() -> None:
    weights = [5, 1, 1, 30, 2, 2, 2, 9, 1, 1]
    for workers in (1, 2, 3):
        for most in (None, 8):
            cut = batches(weights, int, workers, most=most)
            assert [w for batch in cut for w in batch] == weights
            assert all(batch for batch in cut)
            if most is not None:
                assert all(sum(batch) <= most or len(batch) == 1 for batch in cut)
    assert batches(weights, int, 1) == [weights]
    assert len(batches(weights, int, 2)) >= 4
    assert batches([], int, 2) == []


def test_batches_are_smallest_where_the_workers_meet() -> None:
    """Spawned workers take batches from the front and this process from the back: they meet at
    (N - 1) / N of the weight, where the batches are cut a ``TAPER``-th of the others."""
    for workers in (2, 3, 4):
        cut = batches([1] * 4000, int, workers)
        sizes = [len(batch) for batch in cut]
        full = 4000 / (workers * PER_WORKER)
        starts = [sum(sizes[:k]) for k in range(len(sizes))]
        meet = 4000 * (workers - 1) / workers
        nearest = min(range(len(cut)), key=lambda k: abs(starts[k] - meet))
        assert sizes[nearest] <= full / TAPER + 1
        assert max(sizes) <= full + 1 and sizes[0] >= full - 1
        assert min(sizes[:-1]) >= full / TAPER - 1  # the floor (the last batch holds what is left)
        ray = [len(batch) for batch in batches([1] * 4000, int, workers, engine="ray")]
        assert len(ray) <= workers * PER_WORKER + 1 and max(ray) - min(ray[:-1]) <= 1  # Ray takes them in order


def test_worker_counts() -> None:
    assert worker_count(None) == 1 and worker_count(3) == 3 and worker_count(0) >= 1
    with pytest.raises(ValueError, match="at least 1"):
        worker_count(-1)
    with pytest.raises(ValueError, match="unknown engine 'spark'"):
        worker_count(2, "spark")


def _die(item: int) -> int:
    """Ends a worker process abruptly (the caller's own share runs normally)."""
    if multiprocessing.parent_process() is not None:
        os._exit(3)
    return item


def test_a_worker_that_dies_is_named_not_hung() -> None:
    with pytest.raises(RuntimeError) as caught:
        list(ordered_map(_die, [1, 2, 3], workers=2))
    assert str(caught.value) == WORKER_DIED


@pytest.mark.parametrize("path", SOURCES)
def test_loading_in_two_processes_is_loading_in_one(path: Path) -> None:
    single = load(path)
    parallel = load(path, workers=2)
    assert_same(parallel, single)
    for name, frame in single.frames().items():
        assert parallel.frames()[name].equals(frame), name


@pytest.mark.parametrize("path", SOURCES)
def test_parts_written_by_workers_reopen_as_the_single_load(path: Path, tmp_path: Path) -> None:
    single = load(path)
    # every file its own part, so a subagent and the session that spawned it sit in different parts
    done = ingest(path, tmp_path / "parts", workers=2, part_bytes=1)
    assert (done.files, done.sessions, done.problems) == (len(single.files), len(single), len(single.problems))
    manifest = json.loads((tmp_path / "parts" / "corpus.json").read_text(encoding="utf-8"))
    assert len(manifest["parts"]) == len(single.files) + 1
    assert_same(load(tmp_path / "parts"), single)
    lazy = scan(tmp_path / "parts")
    for name, frame in single.frames().items():
        assert lazy[name].collect().equals(frame), name
    if path == CORPORA:
        linked = [s for s in single.sessions if s.spawn_call_id is not None and s.parent_session_id is not None]
        assert linked, "the shared corpora hold subagent sessions linked to their spawning call"
        files = {s.id: s.file for s in single.sessions}
        assert any(files.get(s.parent_session_id or "") not in (None, s.file) for s in linked)


def test_parts_in_one_process_and_a_lazy_query(tmp_path: Path) -> None:
    done = ingest(DATA, tmp_path / "one", progress=False)
    assert_same(load(done.directory), load(DATA))
    calls = (scan(done.directory)["tool_calls"].filter(pl.col("is_error"))
             .select("session_id", "name").collect())
    want = load(DATA).frames()["tool_calls"].filter(pl.col("is_error")).select("session_id", "name")
    assert calls.equals(want) and len(calls) > 0


def test_a_record_table_written_in_row_groups_reopens_as_the_load(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A part whose record is larger than a batch is written a row group at a time (a large file's
    JSON is never held whole): it reopens as the load, in order."""
    import pyarrow.parquet as pq

    from toolkit.corpus import parquet

    monkeypatch.setattr(parquet, "RECORD_BATCH_BYTES", 4096)
    done = ingest(DATA, tmp_path / "grouped", progress=False)
    messages = pq.ParquetFile(done.directory / "record" / "messages" / "part-00001.parquet")
    assert messages.metadata.num_row_groups > 1
    assert_same(load(done.directory), load(DATA))


@pytest.mark.parametrize("source", SOURCES)
def test_frames_written_a_slice_at_a_time_scan_as_the_load(source: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A part whose frames are larger than a slice is built and written a row group at a time (a
    large file's rows are never held whole); each frame scans as the load's, a call answered in a
    later slice than its own still has its result, and a part of no rows still has every frame."""
    import pyarrow.parquet as pq

    from toolkit.corpus import parquet
    from toolkit.corpus.frames import frame_slices

    monkeypatch.setattr(parquet, "FRAME_SLICE_ROWS", 7)
    corpus = load(source)
    done = ingest(source, tmp_path / "sliced", part_bytes=1 << 30, progress=False)
    blocks = pq.ParquetFile(done.directory / "blocks" / "part-00001.parquet")
    assert blocks.metadata.num_row_groups > 1
    want = corpus.frames()
    for name, lazy in scan(done.directory).items():
        assert lazy.collect().equals(want[name]), name
    assert want["tool_calls"]["has_result"].sum() > 0
    slices = list(frame_slices(corpus.sessions, corpus.problems, 7))
    assert len(slices) > 1
    for name, whole in want.items():
        assert pl.concat([s[name] for s in slices]).equals(whole), name
    (empty,) = frame_slices([], [], 7)
    assert all(frame.is_empty() and frame.schema == want[name].schema for name, frame in empty.items())


def test_a_version_1_saved_corpus_still_opens(tmp_path: Path) -> None:
    corpus = load(DATA)
    saved = corpus.save(tmp_path / "v1")
    for table in ("sessions", "messages", "blocks", "tool_calls", "events", "images", "problems",
                  "record/sessions", "record/messages", "record/events", "record/run_configs", "record/images"):
        shutil.move(saved / table / "part-00000.parquet", saved / f"{table}.parquet")
        (saved / table).rmdir()
    manifest = json.loads((saved / "corpus.json").read_text(encoding="utf-8"))
    del manifest["parts"]
    manifest["format_version"] = 1
    (saved / "corpus.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert_same(load(saved), corpus)
    assert scan(saved)["messages"].collect().equals(corpus.frames()["messages"])


def test_a_version_2_saved_corpus_reads_a_usage_of_zeros_as_unknown(tmp_path: Path) -> None:
    """Format 2 wrote a usage of all zeros (a backend that reported none) as zeros; ``scan`` reads it
    as null in every token column, as ``frames()`` of the same files gives it now."""
    from toolkit.corpus.frames import TOKEN_COLUMNS
    from toolkit.measured import measured

    source = CORPORA / "claude_code" / "mimo_v2.1.145_session_with_subagents"
    if not source.exists():
        pytest.skip("../shared/corpora is absent")
    corpus = load(source)
    zeros = [m.id for s in corpus.sessions for m in s.messages if m.usage is not None and not measured(m.usage)]
    assert zeros, "the mimo session has replies of a backend that reported no usage"
    saved = corpus.save(tmp_path / "v2")
    for part in sorted((saved / "messages").glob("*.parquet")):
        frame = pl.read_parquet(part)
        frame.with_columns(pl.when(pl.col("message_id").is_in(zeros)).then(0).otherwise(pl.col(name)).alias(name)
                           for name in TOKEN_COLUMNS).write_parquet(part)
    manifest = json.loads((saved / "corpus.json").read_text(encoding="utf-8"))
    manifest["format_version"] = 2
    (saved / "corpus.json").write_text(json.dumps(manifest), encoding="utf-8")
    scanned = scan(saved)["messages"].collect()
    assert scanned.filter(pl.col("message_id").is_in(zeros)).select(TOKEN_COLUMNS).null_count().row(0) == (len(zeros),) * 4
    assert scanned.equals(corpus.frames()["messages"])


def test_strict_raises_the_first_problem_from_a_worker(tmp_path: Path) -> None:
    root = tmp_path / "mixed"
    shutil.copytree(DATA, root)
    (root / "zz-broken.jsonl").write_text('{"type": "user"\n', encoding="utf-8")
    with pytest.raises(RecordError) as single:
        load(root, strict=True)
    with pytest.raises(RecordError) as parallel:
        load(root, strict=True, workers=2)
    assert parallel.value.problem == single.value.problem
    assert parallel.value.problem.file == "zz-broken.jsonl"


def test_progress_counts_files_and_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mixed"
    shutil.copytree(DATA, root)
    (root / "broken.json").write_text("{not json", encoding="utf-8")
    ingest(root, tmp_path / "out", workers=2, part_bytes=1, progress=True)
    err = capsys.readouterr().err
    assert "9/9" in err and "problems=1" in err and "file/s" in err


def test_import_command_with_workers(tmp_path: Path) -> None:
    out = tmp_path / "pq"
    result = subprocess.run([sys.executable, "-m", "toolkit.cli", "import", str(DATA), "-o", str(out),
                             "--workers", "2"], capture_output=True, text=True, cwd=REPO, check=False)
    assert result.returncode == 0, result.stderr
    assert "wrote 8 sessions from 8 files" in result.stdout
    assert_same(load(out), load(DATA))
    missing = subprocess.run([sys.executable, "-m", "toolkit.cli", "import", str(tmp_path / "nope"), "-o",
                              str(out)], capture_output=True, text=True, cwd=REPO, check=False)
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr


WINDOW_SESSIONS = ("billing-decimal-migration.jsonl", "handlers-upgrade.jsonl")


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus without its two sessions that reach a real window: six sessions in three
    formats still spread over the workers, and a 30,000-token window still makes policies act, at a
    quarter of the simulation (the engines' sameness does not grow with a session's length)."""
    root = tmp_path_factory.mktemp("swept") / "data"
    shutil.copytree(DATA, root, ignore=shutil.ignore_patterns(*WINDOW_SESSIONS))
    return root


def _sweep(corpus: Corpus, **engine: object) -> pl.DataFrame:
    return simulate_corpus(corpus, ["claude-sonnet-4-5", "gpt-4o"], ["none", "ladder-no-summary"], window=30_000,
                           progress=False, **engine)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def single_sweep(swept: Path) -> pl.DataFrame:
    """The sweep in this process: what the engines must give again."""
    single = _sweep(load(swept))
    assert single["compactions"].sum() > 0, "the window is small enough that policies act"
    assert single["file"].n_unique() == 6
    return single


def test_a_sweep_in_two_processes_is_the_sweep_in_one(swept: Path, single_sweep: pl.DataFrame) -> None:
    assert _sweep(load(swept), workers=2).equals(single_sweep)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray instance with 2 CPUs, as a cluster of one machine, started once for this file
    (``--dist loadfile`` keeps it in one worker) the way the engine starts one: tried twice, and
    reported with Ray's own log tails if both fail."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (the ray extra: pip install -e '.[ray]')")
    start_ray(num_cpus=2)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("path", SOURCES)
def test_ray_tasks_load_and_ingest_as_one_process(local_ray: None, path: Path, tmp_path: Path) -> None:
    single = load(path)
    assert_same(load(path, engine="ray"), single)
    ingest(path, tmp_path / "ray", engine="ray", part_bytes=1)
    assert_same(load(tmp_path / "ray"), single)
    for name, frame in single.frames().items():
        assert scan(tmp_path / "ray")[name].collect().equals(frame), name


@pytest.mark.slow
def test_a_sweep_as_ray_tasks_is_the_sweep_in_one(local_ray: None, swept: Path, single_sweep: pl.DataFrame) -> None:
    assert _sweep(load(swept), engine="ray").equals(single_sweep)


def test_simulate_command_with_workers(swept: Path) -> None:
    def run(*extra: str) -> str:
        result = subprocess.run([sys.executable, "-m", "toolkit.cli", "simulate", str(swept), "--model", "gpt-4o",
                                 "--policy", "ladder-no-summary", "--window", "30000", "--json", *extra],
                                capture_output=True, text=True, cwd=REPO, check=False)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert json.loads(run("--workers", "2")) == json.loads(run())


def test_text_with_a_lone_surrogate_saves_and_reopens(tmp_path: Path) -> None:
    from toolkit.record import Message, Session, Text

    text = "a decoder left half a pair: \ud800 here"
    session = Session("s", "openai_chat", (Message("m1", None, "user", (Text(text),)),), tip="m1")
    Corpus(sessions=[session]).save(tmp_path / "saved")
    assert load(tmp_path / "saved").sessions == [session]


def test_a_dying_worker_among_several_neither_hangs_nor_is_lost() -> None:
    code = ("from tests.test_corpus_scale import _die\nfrom toolkit.workers import ordered_map\n"
            "try:\n    list(ordered_map(_die, list(range(12)), workers=3))\n"
            "except RuntimeError as exc:\n    print('raised:', exc)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                            timeout=120, check=False)
    assert result.returncode == 0 and "raised: a worker process ended" in result.stdout, result.stderr
    assert "InvalidStateError" not in result.stderr


def test_a_callers_frozen_heap_stays_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    # counted by calls, not by gc.get_freeze_count(): frozen objects freed by reference counting
    # lower the count whatever the load does
    import gc

    unfrozen: list[int] = []
    real = gc.unfreeze

    def counted() -> None:
        unfrozen.append(1)
        real()

    monkeypatch.setattr(gc, "unfreeze", counted)
    assert gc.isenabled()
    load(DATA)
    assert unfrozen, "with nothing frozen, what the load made is moved to the oldest generation"
    unfrozen.clear()
    gc.freeze()
    try:
        load(DATA)
        assert not unfrozen
    finally:
        real()


def test_a_failed_ingest_leaves_the_saved_corpus_there_as_it_was(tmp_path: Path) -> None:
    """The new corpus is written aside and put in place only once finished (``parquet.writing``)."""
    out = tmp_path / "out"
    ingest(DATA, out)
    before = len(load(out).sessions)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "zz.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordError):
        ingest(broken, out, strict=True)
    assert (out / "corpus.json").exists() and len(load(out).sessions) == before


def test_workers_must_be_a_count() -> None:
    result = subprocess.run([sys.executable, "-m", "toolkit.cli", "info", str(DATA), "--workers", "-1"],
                            capture_output=True, text=True, cwd=REPO, check=False)
    assert result.returncode == 2 and "not a number of workers" in result.stderr
    assert "Traceback" not in result.stderr


def _logged(item: tuple[str, int]) -> int:
    """Appends which process computed the item to a log file, then answers it."""
    log, value = item
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()} {value}\n")
    return value * 2


def test_each_item_is_computed_once_by_the_caller_or_a_worker(tmp_path: Path) -> None:
    """The caller takes items from the back while the spawned worker boots and runs the ones the
    feeder handed it from the front; none is computed twice and the order holds."""
    log = str(tmp_path / "log")
    items = [(log, value) for value in range(10)]
    assert list(ordered_map(_logged, items, workers=2)) == [value * 2 for value in range(10)]
    lines = [line.split() for line in Path(log).read_text(encoding="utf-8").splitlines()]
    assert sorted(int(value) for _, value in lines) == list(range(10))
    by = {int(value): int(pid) for pid, value in lines}
    assert by[9] == os.getpid()  # the caller starts from the back while the worker starts
    assert by[0] != os.getpid()  # the first item went to the worker at once


def test_stopping_early_neither_hangs_nor_leaves_workers(tmp_path: Path) -> None:
    log = str(tmp_path / "log")
    results = ordered_map(_logged, [(log, value) for value in range(6)], workers=2)
    assert next(results) == 0
    assert isinstance(results, Generator)
    results.close()
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
