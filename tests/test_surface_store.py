"""The surface store: written once and atomically, verified on read, safe under concurrent puts."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import random
from multiprocessing.context import ForkContext, SpawnContext
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from toolkit.record import JsonValue
from toolkit.surface import (
    BadSurfaceName,
    SurfaceCorrupt,
    SurfaceNotFound,
    SurfaceStore,
    canonical_bytes,
    fingerprint,
)

TOOLS: list[JsonValue] = [
    {"name": "read", "description": "Read a file — UTF-8 kept", "input_schema": {"type": "object"}},
]


def blob_name(surface_hash: str) -> str:
    return "sha256-" + surface_hash.removeprefix("sha256:") + ".json"


def test_put_writes_one_file_named_by_the_hash_of_its_bytes(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path / "store")
    surface_hash = store.put(TOOLS)
    files = sorted(p.name for p in (tmp_path / "store").iterdir())
    assert files == [blob_name(surface_hash)]
    data = (tmp_path / "store" / files[0]).read_bytes()
    assert "sha256:" + hashlib.sha256(data).hexdigest() == surface_hash == fingerprint(TOOLS)
    assert data == canonical_bytes(TOOLS)
    assert store.get(surface_hash) == TOOLS
    assert surface_hash in store and fingerprint([]) not in store


def test_put_twice_writes_once(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    first = store.put(TOOLS)
    path = store.path(first)
    before = path.stat()
    assert store.put(list(TOOLS)) == first
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert len(store) == 1
    assert store.stats().count == 1 and store.stats().bytes == len(canonical_bytes(TOOLS))


def test_the_store_has_no_delete() -> None:
    public = {name for name in dir(SurfaceStore) if not name.startswith("_")}
    assert not {n for n in public if any(w in n for w in ("del", "remove", "prune", "clear", "gc"))}
    assert "__delitem__" not in SurfaceStore.__dict__


@pytest.mark.parametrize("name", [
    "../x", "sha256:../x", "sha256:" + "A" * 64, "sha256:" + "0" * 63, "md5:" + "0" * 64,
    "sha256:" + "0" * 64 + "/../../etc", "/etc/passwd", "", "sha256-" + "0" * 64,
])
def test_names_that_are_not_hashes_are_refused(tmp_path: Path, name: str) -> None:
    store = SurfaceStore(tmp_path)
    with pytest.raises(BadSurfaceName, match="is not a surface hash"):
        store.get(name)
    with pytest.raises(BadSurfaceName):
        store.path(name)
    assert name not in store


def test_a_missing_blob_is_named(tmp_path: Path) -> None:
    missing = fingerprint([{"name": "nowhere"}])
    with pytest.raises(SurfaceNotFound, match=f"{missing} is not in the surface store"):
        SurfaceStore(tmp_path).get(missing)


def corrupt(path: Path, data: bytes) -> None:
    os.chmod(path, 0o644)
    path.write_bytes(data)


@pytest.mark.parametrize("damage", ["flip", "truncate", "append"])
def test_a_corrupted_file_is_detected_on_read(tmp_path: Path, damage: str) -> None:
    store = SurfaceStore(tmp_path)
    surface_hash = store.put(TOOLS)
    path = store.path(surface_hash)
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x01
    elif damage == "truncate":
        del data[-5:]
    else:
        data += b" "
    corrupt(path, bytes(data))
    with pytest.raises(SurfaceCorrupt, match="not to its name"):
        store.get(surface_hash)
    assert [p.file for p in store.verify()] == [str(path)]
    with pytest.raises(SurfaceCorrupt, match="already exists with different content"):
        store.put(TOOLS)  # a put never overwrites what it finds


def test_a_valid_json_file_under_a_wrong_name_is_corrupt(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    other = fingerprint([{"name": "other"}])
    tmp_path.joinpath(blob_name(other)).write_bytes(canonical_bytes(TOOLS))
    with pytest.raises(SurfaceCorrupt):
        store.get(other)


def test_blobs_are_read_only_and_temp_files_are_not_surfaces(tmp_path: Path) -> None:
    store = SurfaceStore(tmp_path)
    surface_hash = store.put(TOOLS)
    assert store.path(surface_hash).stat().st_mode & 0o222 == 0
    (tmp_path / ".tmp-abandoned.json").write_bytes(b"[")
    (tmp_path / "notes.txt").write_text("x")
    assert list(store) == [surface_hash]
    assert store.verify() == []


# --- many processes ----------------------------------------------------------------------------

DISTINCT = 150
PUTS = 200
WORKERS = 8


def surface(k: int) -> list[JsonValue]:
    """Surface number ``k``; 200 puts over 150 distinct surfaces, so many names are contended."""
    n = k % DISTINCT
    return [{"name": f"tool_{n}", "description": "é" * (n % 7) + f"v{n}",
             "input_schema": {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n % 5)}}}]


def put_all(root: str, seed: int, start: Barrier, results: Queue[tuple[dict[int, str], list[str]]]) -> None:
    """Put every surface in a private order, reading back whatever others have published so far:
    a reader must never see a half-written blob."""
    rng = random.Random(seed)
    order = list(range(PUTS))
    rng.shuffle(order)
    store = SurfaceStore(root)
    start.wait()
    hashes: dict[int, str] = {}
    errors: list[str] = []
    for k in order:
        hashes[k] = store.put(surface(k))
        probe = fingerprint(surface(rng.randrange(PUTS)))
        if probe in store:
            try:
                store.get(probe)
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
    results.put((hashes, errors))


def test_eight_processes_putting_at_once_leave_exactly_the_distinct_set(tmp_path: Path) -> None:
    ctx: ForkContext | SpawnContext = (multiprocessing.get_context("fork")
                                       if "fork" in multiprocessing.get_all_start_methods()
                                       else multiprocessing.get_context("spawn"))
    start = ctx.Barrier(WORKERS)
    results: Queue[tuple[dict[int, str], list[str]]] = ctx.Queue()
    root = tmp_path / "store"
    procs = [ctx.Process(target=put_all, args=(str(root), seed, start, results)) for seed in range(WORKERS)]
    for proc in procs:
        proc.start()
    returned = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0

    expected = {
        "sha256:" + hashlib.sha256(json.dumps(surface(k), separators=(",", ":"), ensure_ascii=False)
                                   .encode("utf-8")).hexdigest()
        for k in range(PUTS)
    }
    assert len(expected) == DISTINCT
    assert sorted(p.name for p in root.iterdir()) == sorted(blob_name(h) for h in expected)
    store = SurfaceStore(root)
    assert set(store) == expected
    assert store.verify() == []
    for hashes, errors in returned:
        assert errors == []
        assert set(hashes.values()) == expected
        assert all(hashes[k] == fingerprint(surface(k)) for k in range(PUTS))
