"""Starting Ray: a failed start is cleaned up and tried once more, and a second failure is reported
with the tail of Ray's own logs. Ray's ``init`` is replaced by one that fails as Ray's does, writing
its logs where Ray would, so nothing here starts Ray."""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolkit.errors import ToolkitError
from toolkit.workers import RAY_ENV, RAY_LOGS, TAIL, RayStartFailed, start_ray

ray = pytest.importorskip("ray", reason="Ray is not installed (the ray extra: pip install -e '.[ray]')")

TIMED_OUT = "The current node timed out during startup."
WAITED = "Timed out waiting for file metrics_agent_port"


class FakeRay:
    """Stands in for ``ray.init`` and ``ray.shutdown``: the first ``failures`` starts write a
    session directory under ``root`` as Ray does (``session_<time>_<pid>/logs``) and raise Ray's
    start-up error; the others succeed."""

    def __init__(self, root: Path, failures: int) -> None:
        self.root = root
        self.failures = failures
        self.calls: list[dict[str, Any]] = []
        self.shutdowns = 0
        self.children: list[subprocess.Popen[bytes]] = []

    def init(self, **options: Any) -> None:
        self.calls.append(options)
        attempt = len(self.calls)
        if attempt > self.failures:
            return
        logs = self.root / f"session_2026-01-01_00-00-0{attempt}_000000_{os.getpid()}" / "logs"
        logs.mkdir(parents=True)
        frames = "".join(f"/ray/core/src/ray/raylet/raylet(+0x{n:x}) [0x5{n:x}] ray::raylet::Frame{n}()\n"
                         for n in range(25))
        (logs / "raylet.out").write_text("".join(f"attempt {attempt} raylet line {n:02d}\n" for n in range(30))
                                         + f"Check failed: {WAITED}\n*** StackTrace Information ***\n"
                                         + frames, encoding="utf-8")
        (logs / "gcs_server.out").write_text(f"attempt {attempt} gcs started\n", encoding="utf-8")
        (logs / "gcs_server.err").write_text("", encoding="utf-8")
        # what a half-started node leaves running: a program of Ray's package, and one that is not
        package = os.path.dirname(os.path.abspath(ray.__file__))
        for argument in (os.path.join(package, "core", "fake_gcs_server"), "not-ray"):
            self.children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                                   argument]))
        raise Exception(TIMED_OUT)

    def shutdown(self) -> None:
        self.shutdowns += 1


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No cluster named and Ray not initialised; ``RAY_ENV`` is restored to what it was."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    for name in RAY_ENV:
        monkeypatch.setenv(name, "recorded")  # so that the undo restores the original state
        monkeypatch.delenv(name)


def faked(monkeypatch: pytest.MonkeyPatch, root: Path, failures: int) -> Iterator[FakeRay]:
    fake = FakeRay(root, failures)
    monkeypatch.setattr(ray, "init", fake.init)
    monkeypatch.setattr(ray, "shutdown", fake.shutdown)
    try:
        yield fake
    finally:
        for child in fake.children:
            child.kill()
            child.wait()


@pytest.fixture
def fails_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, environment: None) -> Iterator[FakeRay]:
    yield from faked(monkeypatch, tmp_path, failures=1)


@pytest.fixture
def fails_twice(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, environment: None) -> Iterator[FakeRay]:
    yield from faked(monkeypatch, tmp_path, failures=2)


def test_a_start_that_fails_once_is_cleaned_up_and_tried_again(fails_once: FakeRay, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolkit.workers"):
        started = start_ray(num_cpus=2, temp_dir=tmp_path)
    assert f"(attempt 1 of 2: Exception: {TIMED_OUT}); trying again" in caplog.text
    assert isinstance(started, ModuleType) and started is ray
    assert len(fails_once.calls) == 2 and fails_once.shutdowns == 1
    assert fails_once.calls[0] == fails_once.calls[1] == {
        "address": "local", "include_dashboard": False, "log_to_driver": False,
        "logging_level": logging.WARNING, "num_cpus": 2, "_temp_dir": str(tmp_path)}
    assert {name: os.environ[name] for name in RAY_ENV} == RAY_ENV
    ray_child, other_child = fails_once.children
    assert ray_child.wait(timeout=10) is not None, "the half-started node's Ray process is stopped"
    assert other_child.poll() is None, "a process that is not Ray's is left alone"


def test_a_start_that_fails_twice_is_reported_with_rays_log_tails(fails_twice: FakeRay, tmp_path: Path) -> None:
    with pytest.raises(RayStartFailed) as raised:
        start_ray(num_cpus=2, temp_dir=tmp_path)
    error = raised.value
    assert isinstance(error, ToolkitError) and isinstance(error, RuntimeError)
    assert len(fails_twice.calls) == 2 and fails_twice.shutdowns == 2
    assert all(child.wait(timeout=10) is not None for child in fails_twice.children[::2])
    message = str(error)
    assert message.startswith("Ray did not start a local instance in 2 attempts; the last failed with "
                              f"Exception: {TIMED_OUT}")
    session = tmp_path / f"session_2026-01-01_00-00-02_000000_{os.getpid()}"
    assert error.session == session and str(session / "logs") in message
    wanted = [f"attempt 2 raylet line {n:02d}" for n in range(32 - TAIL, 30)]
    wanted += [f"Check failed: {WAITED}", "*** StackTrace Information ***", "(25 native stack frames left out)"]
    assert f"--- raylet.out, last {TAIL} lines but stack frames ---\n" + "\n".join(wanted) in message
    assert "attempt 2 raylet line 11" not in message and "attempt 1" not in message and "Frame" not in message
    assert "--- raylet.err: not written ---" in message
    assert "attempt 2 gcs started" in message and "--- gcs_server.err: empty ---" in message
    assert list(error.logs) == list(RAY_LOGS) and error.logs["raylet.err"] is None
    assert isinstance(error.__cause__, Exception) and str(error.__cause__) == TIMED_OUT
    assert str(pickle.loads(pickle.dumps(error))) == message


def test_a_start_that_wrote_no_logs_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            environment: None) -> None:
    def init(**options: Any) -> None:
        raise ValueError("a bad option")

    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "shutdown", lambda: None)
    with pytest.raises(RayStartFailed, match=r"in 1 attempt; the last failed with ValueError: a bad option\n"
                                             r"Ray wrote no session directory for that attempt under "):
        start_ray(attempts=1, temp_dir=tmp_path)


def test_a_named_cluster_is_connected_to_as_ray_init_does(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                           environment: None) -> None:
    fake = FakeRay(tmp_path, failures=0)
    monkeypatch.setattr(ray, "init", fake.init)
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6379")
    assert start_ray(num_cpus=2) is ray
    assert fake.calls == [{"logging_level": logging.WARNING, "log_to_driver": False}]
    with pytest.raises(ValueError, match="attempts must be at least 1"):
        start_ray(attempts=0)
