"""Crash and concurrency: writers killed with SIGKILL mid-append, and several processes appending
at once. Writers are forked from the test process (already imported, so a round costs
milliseconds), open their own connection, append in a loop and report each committed turn on a
pipe; the test kills them at random moments and checks the file after every kill."""

from __future__ import annotations

import os
import random
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from toolkit.record import Message, Text, ToolResult, ToolUse
from toolkit.transcripts import TranscriptStore

SESSIONS = ("alpha", "beta", "gamma")
KILLS = int(os.environ.get("TOOLKIT_STORE_KILLS", "60"))
"""Kills in one run: 60 cover every phase (creating the file, anywhere from the fork, mid-stream) on
two store files; ``TOOLKIT_STORE_KILLS=240`` is the longer run the user's guide reports."""
ROUNDS_PER_FILE = 30
"""A new store file every 30 kills keeps each check cheap; the first kill on each file often lands
while the writer is still creating it (schema, WAL) or writing its first turn."""


def turn(session: str, k: int, writer: str = "w") -> list[Message]:
    """Turn ``k`` of a session: prompt, call, result, answer; its content says whose and which."""
    tag = f"{session}-{writer}-{k}"
    return [
        Message(f"{tag}-u", None, "user", (Text(f"prompt {tag} " + "x" * (k % 7) * 50),)),
        Message(f"{tag}-a", None, "assistant", (ToolUse(f"{tag}-call", "Bash", {"cmd": f"echo {k}"}),)),
        Message(f"{tag}-r", None, "user", (ToolResult(f"{tag}-call", f"{k}\n"),)),
        Message(f"{tag}-f", None, "assistant", (Text(f"answer {tag}"),)),
    ]


def strip(message: Message) -> tuple[object, ...]:
    return (message.id, message.role, message.blocks)


def run_child(work: Callable[[], None]) -> int:
    """Fork a process that runs ``work`` and exits without returning into pytest."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            work()
        except BaseException:
            traceback.print_exc()
            sys.stderr.flush()
            code = 1
        os._exit(code)
    return pid


def append_forever(db: Path, ack: int, seed: int) -> Callable[[], None]:
    def work() -> None:
        rng = random.Random(seed)
        with TranscriptStore(db) as store:
            done = dict.fromkeys(SESSIONS, 0) | {i.id: i.messages // 4 for i in store.sessions()}
            while True:
                session = rng.choice(SESSIONS)
                store.append_turn(session, turn(session, done[session]))
                os.write(ack, f"{session} {done[session]}\n".encode())
                done[session] += 1
    return work


def first_ack(fd: int, timeout: float = 30.0) -> bytes:
    """Wait for the writer's first acknowledged turn; the bytes read so far."""
    ready, _, _ = select.select([fd], [], [], timeout)
    assert ready, f"the writer acknowledged no turn within {timeout}s"
    return os.read(fd, 65536)


def read_acks(fd: int, data: bytes = b"") -> list[tuple[str, int]]:
    while chunk := os.read(fd, 65536):
        data += chunk
    os.close(fd)
    return [(s, int(k)) for s, k in (line.split() for line in data.decode().splitlines())]


def check_store(db: Path, committed: dict[str, int]) -> dict[str, int]:
    """The file opens and is sound; every session is whole turns 0..n-1 in order with nothing
    outside its path; every acknowledged turn is there. Returns the turns per session."""
    with TranscriptStore(db) as store:
        assert store.integrity() == []
        found: dict[str, int] = {}
        for info in store.sessions():
            path = store.path(info.id)
            assert len(path) % 4 == 0, f"{info.id}: a half turn of {len(path) % 4} messages"
            assert info.messages == len(path), f"{info.id}: rows outside the path"
            turns = len(path) // 4
            expected = [m for k in range(turns) for m in turn(info.id, k)]
            assert [strip(m) for m in path] == [strip(m) for m in expected]
            assert info.tip == (path[-1].id if path else None)
            found[info.id] = turns
    for session, turns in committed.items():
        assert found.get(session, 0) >= turns, f"{session}: acknowledged turn {turns - 1} was lost"
    return found


def test_sigkill_at_random_moments_never_leaves_half_a_turn(tmp_path: Path) -> None:
    rng = random.Random(20260301)
    committed: dict[str, int] = {}
    turns = steady = 0
    started = time.monotonic()
    for round_ in range(KILLS):
        file_round = round_ % ROUNDS_PER_FILE
        db = tmp_path / f"crash-{round_ // ROUNDS_PER_FILE}.db"
        if file_round == 0:
            turns += sum(committed.values())
            committed = {}
        read, write = os.pipe()
        pid = run_child(append_forever(db, write, round_))
        os.close(write)
        seen = b""
        if file_round == 0:  # while it opens or creates the file
            time.sleep(rng.uniform(0.0, 0.01))
        elif round_ % 3 == 0:  # anywhere from the fork on
            time.sleep(rng.uniform(0.0, 0.06))
        else:  # mid-stream: after a first committed turn, whatever the machine's load
            seen = first_ack(read)
            steady += 1
            time.sleep(rng.uniform(0.0, 0.02))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), f"round {round_}: the writer stopped by itself (status {status})"
        for session, k in read_acks(read, seen):
            committed[session] = max(committed.get(session, 0), k + 1)
        check_store(db, committed)
    turns += sum(committed.values())
    assert steady >= KILLS // 2 and turns >= steady
    print(f"{KILLS} kills ({steady} mid-stream), {turns} turns committed in {time.monotonic() - started:.1f}s")


@pytest.mark.parametrize("precreate", [True, False], ids=["existing-file", "new-file"])
def test_concurrent_writers_lose_no_turn(tmp_path: Path, precreate: bool) -> None:
    db = tmp_path / "busy.db"
    if precreate:
        TranscriptStore(db).close()
    per_writer = 25
    plan = [("shared", "w0"), ("shared", "w1"), ("shared", "w2"), ("own-3", "w3"), ("own-4", "w4")]

    def writer(session: str, name: str) -> Callable[[], None]:
        def work() -> None:
            with TranscriptStore(db) as store:
                for k in range(per_writer):
                    store.append_turn(session, turn(session, k, name))
        return work

    pids = [run_child(writer(session, name)) for session, name in plan]
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"a writer failed (status {status})"
    with TranscriptStore(db) as store:
        assert store.integrity() == []
        shared = store.path("shared")
        assert len(shared) == 3 * 4 * per_writer == len(store.session("shared").messages)
        seen: dict[str, list[int]] = {}
        for start in range(0, len(shared), 4):
            first = shared[start]
            session, name, k, _ = first.id.split("-")
            assert [strip(m) for m in shared[start:start + 4]] == [strip(m) for m in turn(session, int(k), name)]
            seen.setdefault(name, []).append(int(k))
        assert seen == {name: list(range(per_writer)) for name in ("w0", "w1", "w2")}
        for session, name in plan[3:]:
            assert [strip(m) for m in store.path(session)] == [
                strip(m) for k in range(per_writer) for m in turn(session, k, name)]
