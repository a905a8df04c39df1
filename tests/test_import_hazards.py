"""What a file system and a user's files hold besides good transcripts: names that are not UTF-8,
FIFOs, devices, links and unreadable folders, byte-order marks, CR line ends, NaN, a first record
longer than detection's head, content under a misspelt key, a killed import. Each is read, or
refused with one line, and what is not read is a problem: nothing hangs, crashes or vanishes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPORA, DATA, REPO
from tests.helpers import as_at_a_terminal
from toolkit.corpus import load, scan
from toolkit.corpus.ingesting import ingest
from toolkit.errors import InvalidInput
from toolkit.record import Opaque, Reasoning

CODEX = CORPORA / "codex" / "rps3_cli0.47.0_compacted.jsonl"
CHAT = CORPORA / "openai_chat" / "faithfulsim_mcp_github_trace_121058.json"
CASSETTE = CORPORA / "openai_chat" / "pydanticai_cassette_chat_images_after_tool.yaml"
T = "2025-01-01T00:00:00Z"


def _needs(*paths: Path) -> None:
    if not all(p.is_file() for p in paths):
        pytest.skip("../shared/corpora is absent")


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout, check=False)


def _counts(path: Path) -> tuple[int, int]:
    corpus = load(path)
    return len(corpus.sessions), sum(len(s.messages) for s in corpus.sessions)


# ---- names and kinds of files --------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_a_file_name_that_is_not_utf8_is_imported_stored_and_saved(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    name = os.fsdecode(b"bad\xffname.jsonl")
    (source / name).write_bytes((DATA / "claude_code").glob("*.jsonl").__next__().read_bytes())
    corpus = load(source)
    assert corpus.files == ["bad\\xffname.jsonl"] and corpus.sessions
    assert corpus.frames()["sessions"].height == len(corpus.sessions)
    again = load(corpus.save(tmp_path / "saved"))
    assert again.files == corpus.files
    imported = _cli("import", str(source), "-o", str(tmp_path / "out"))
    assert imported.returncode == 0, imported.stderr
    stored = _cli("store", str(source), "-o", str(tmp_path / "store.db"))
    assert stored.returncode == 0, stored.stderr


def test_a_fifo_or_a_device_named_directly_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        result = _cli("info", str(path), "--json", timeout=60)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        problems = json.loads(result.stdout)["problems"]
        assert [p["reason"] for p in problems] == ["not a regular file (a FIFO, socket or device): not read"]


def test_links_fifos_and_unreadable_folders_inside_a_corpus_are_problems(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "real").mkdir(parents=True)
    (root / "real" / "t.jsonl").write_bytes(next((DATA / "claude_code").glob("*.jsonl")).read_bytes())
    (root / "linked").symlink_to(root / "real", target_is_directory=True)
    os.mkfifo(root / "pipe")
    locked = root / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        corpus = load(root)
    finally:
        locked.chmod(0o755)
    reasons = {p.file: p.reason for p in corpus.problems}
    assert reasons["linked"] == "link to a directory: not followed"
    assert reasons["pipe"] == "not a regular file (a FIFO, socket or device): not read"
    if os.geteuid() != 0:  # root reads any folder
        assert reasons["locked"].startswith("directory not read: Permission denied")
    assert corpus.files == [os.path.join("real", "t.jsonl")] and corpus.sessions


# ---- encodings and line ends -----------------------------------------------------------------------


@pytest.mark.parametrize("path", [CODEX, CHAT, CASSETTE], ids=["jsonl", "json", "yaml"])
def test_a_byte_order_mark_changes_nothing(path: Path, tmp_path: Path) -> None:
    _needs(path)
    marked = tmp_path / path.name
    marked.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    corpus = load(marked)
    assert (len(corpus.sessions), sum(len(s.messages) for s in corpus.sessions)) == _counts(path)
    assert corpus.formats[path.name] == load(path).formats[path.name]
    assert not corpus.problems


def test_cr_only_line_ends_are_line_ends(tmp_path: Path) -> None:
    _needs(CODEX)
    old_mac = tmp_path / CODEX.name
    old_mac.write_bytes(CODEX.read_bytes().replace(b"\n", b"\r"))
    corpus = load(old_mac)
    assert (len(corpus.sessions), sum(len(s.messages) for s in corpus.sessions)) == _counts(CODEX)
    assert not corpus.problems


def test_nan_and_infinity_keep_their_record_and_are_reported(tmp_path: Path) -> None:
    lines = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": T,
              "message": {"role": "user", "content": "hi"}},
             {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "timestamp": T,
              "message": {"role": "assistant", "model": "claude-sonnet-4", "id": "m1",
                          "content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 1.5}}}]
    text = "".join(json.dumps(line) + "\n" for line in lines).replace("1.5", "NaN")
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    corpus = load(path)
    assert [m.text for m in corpus.sessions[0].messages] == ["hi", "hello"]
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (2, "holds NaN, which JSON has no word for; read as a float")]


@pytest.mark.parametrize("form", ["inspect", "openhands", "sweagent", "cline", "cline_sdk", "continue"])
def test_a_whole_document_holding_null_is_reported(form: str, tmp_path: Path) -> None:
    """A document reader took ``None`` for "could not be read, already reported", so a file holding
    JSON ``null`` was lost whole without a word."""
    path = tmp_path / "x.json"
    path.write_text("null", encoding="utf-8")
    corpus = load(path, format=form)
    assert not corpus.sessions
    assert [p.file for p in corpus.problems] == ["x.json"]


@pytest.mark.parametrize("held_whole", [True, False])
def test_a_repeated_line_holding_nan_is_a_repeat(held_whole: bool, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """NaN is unequal to itself, so a byte-identical copy of a line holding it compared unequal as
    parsed: a file read in one pass (under ``HELD_WHOLE_BYTES``) called it a different record with the
    same uuid, one read in two passes (compared by bytes) a repeat."""
    from toolkit.corpus.formats import claude_code

    if not held_whole:
        monkeypatch.setattr(claude_code, "HELD_WHOLE_BYTES", 0)
    user = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": T,
            "message": {"role": "user", "content": "hi"}, "score": 1.5}
    line = json.dumps(user).replace("1.5", "NaN") + "\n"
    path = tmp_path / "t.jsonl"
    path.write_text(line + line, encoding="utf-8")
    corpus = load(path)
    assert [m.text for m in corpus.sessions[0].messages] == ["hi"]
    assert [(p.line, p.reason) for p in corpus.problems] == [
        (1, "holds NaN, which JSON has no word for; read as a float"),
        (2, "holds NaN, which JSON has no word for; read as a float")]


def test_a_first_record_longer_than_the_head_is_still_claude_code(tmp_path: Path) -> None:
    snapshot = {"type": "file-history-snapshot", "messageId": "u1", "isSnapshotUpdate": False,
                "snapshot": {"messageId": "u1", "timestamp": T, "trackedFileBackups": {"a": "x" * 100_000}}}
    user = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": T, "cwd": "/",
            "isSidechain": False, "message": {"role": "user", "content": "hi"}}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(snapshot) + "\n" + json.dumps(user) + "\n", encoding="utf-8")
    corpus = load(path)
    assert corpus.formats == {"t.jsonl": "claude_code"}
    assert [m.text for m in corpus.sessions[0].messages] == ["hi"]


# ---- content under a key a reader does not know -------------------------------------------------------


def test_claude_code_content_under_a_misspelt_key_is_opaque_and_reported(tmp_path: Path) -> None:
    user = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": T,
            "message": {"role": "user", "contnet": "the words"}}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(user) + "\n", encoding="utf-8")
    corpus = load(path)
    (message,) = corpus.sessions[0].messages
    (block,) = message.blocks
    assert isinstance(block, Opaque) and block.raw == {"role": "user", "contnet": "the words"}
    assert [p.reason for p in corpus.problems] == [
        "user record u1 has a message without content (keys: role, contnet); kept as an opaque block"]


@pytest.mark.parametrize("wrap", ["list", "body", "cassette"])
def test_chat_completions_content_under_a_misspelt_key_is_opaque_and_reported(wrap: str, tmp_path: Path) -> None:
    messages = [{"role": "user", "contnet": "the words"}, {"role": "assistant", "content": "ok"}]
    if wrap == "list":
        text = json.dumps(messages)
    elif wrap == "body":
        text = json.dumps({"model": "gpt-4o", "messages": messages})
    else:
        text = json.dumps({"interactions": [{
            "request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions",
                        "body": json.dumps({"model": "gpt-4o", "messages": messages})},
            "response": {"status": {"code": 200}, "body": {"string": json.dumps(
                {"choices": [{"message": {"role": "assistant", "content": "fine"}}]})}}}]})
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    corpus = load(path)
    first = corpus.sessions[0].messages[0]
    assert [b.kind for b in first.blocks] == ["opaque"]
    assert any("without content" in p.reason and "contnet" in p.reason for p in corpus.problems), corpus.problems


def test_one_odd_line_among_chat_messages_costs_that_line(tmp_path: Path) -> None:
    _needs(CHAT)
    messages = json.loads(CHAT.read_text(encoding="utf-8"))
    messages[3] = {"rolle": messages[3]["role"], "content": messages[3].get("content")}
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    corpus = load(path)
    assert corpus.formats == {"m.jsonl": "openai_chat"}
    assert sum(len(s.messages) for s in corpus.sessions) == len(messages)
    assert [p.line for p in corpus.problems] == [4]


def test_a_gemini_cli_thought_written_as_text_is_kept(tmp_path: Path) -> None:
    session = {"sessionId": "g1", "projectHash": "p", "startTime": T, "lastUpdated": T, "messages": [
        {"id": "m1", "timestamp": T, "type": "user", "content": "hi"},
        {"id": "m2", "timestamp": T, "type": "gemini", "content": "hello", "model": "gemini-2.5-pro",
         "thoughts": "I should greet back"}]}
    path = tmp_path / "session-2025.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    corpus = load(path)
    reasoning = [b for m in corpus.sessions[0].messages for b in m.blocks if isinstance(b, Reasoning)]
    assert [r.text for r in reasoning] == ["I should greet back"]
    assert corpus.problems and "thoughts" in corpus.problems[0].reason


# ---- saved corpora: written aside, refused when half written -----------------------------------------------


def test_a_failed_re_import_leaves_the_saved_corpus_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "out"
    ingest(DATA, out, progress=False)
    before = _counts(out)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "zz.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(Exception, match="not valid JSON"):
        ingest(broken, out, strict=True, progress=False)
    assert _counts(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken", "out"], "the aside directory stays behind"


def test_a_half_written_saved_corpus_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    ingest(DATA, out, progress=False)
    (out / "corpus.json").unlink()
    with pytest.raises(InvalidInput, match="did not finish"):
        load(out)
    with pytest.raises(InvalidInput, match="did not finish"):
        scan(out)
    result = _cli("info", str(out))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_import_into_a_folder_that_is_not_a_corpus_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InvalidInput, match="is not a saved corpus"):
        ingest(DATA, tmp_path, progress=False)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


def _import(tmp_path: Path, copies: int = 40, **popen: Any) -> subprocess.Popen[str]:
    """``toolkit import --workers 2`` of ``copies`` copies of a 2 MB rollout (in ``tmp_path / "src"``,
    written the first time) into ``tmp_path / "out"``, started."""
    _needs(CODEX)
    source = tmp_path / "src"
    if not source.is_dir():
        source.mkdir()
        for n in range(copies):
            (source / f"r{n}.jsonl").write_bytes(CODEX.read_bytes())
    return subprocess.Popen([sys.executable, "-m", "toolkit.cli", "import", str(source), "-o", str(tmp_path / "out"),
                             "--workers", "2"], cwd=REPO, stdout=subprocess.DEVNULL, text=True,
                            preexec_fn=as_at_a_terminal, **popen)


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    todo = [pid]
    while todo:
        here = todo.pop()
        try:
            kids = Path(f"/proc/{here}/task/{here}/children").read_text().split()
        except OSError:
            continue
        found += map(int, kids)
        todo += map(int, kids)
    return found


def _of_session(session: int) -> list[int]:
    """The live processes of the session whose leader had the pid ``session`` (an import started in
    a session of its own), whoever their parent is now: one that outlived the import was handed to
    another parent, and is found here all the same, however late it was started."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, _parent, _group, owner = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:4]
        except (OSError, ValueError):
            continue
        if int(owner) == session and state != "Z":
            found.append(int(entry.name))
    return found


def _saved(directory: Path) -> dict[str, int]:
    """The rows of every table of every part of a saved corpus, each part's file read (its footer):
    a part missing, cut short or not Parquet fails here, as a load would."""
    import polars as pl

    parts = json.loads((directory / "corpus.json").read_text(encoding="utf-8"))["parts"]
    tables = [*(f.name for f in directory.iterdir() if f.is_dir() and f.name not in ("record", "surfaces")),
              *(f"record/{f.name}" for f in (directory / "record").iterdir())]
    return {table: sum(pl.scan_parquet(directory / table / part).select(pl.len()).collect().item() for part in parts)
            for table in sorted(tables)}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads processes from /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
@pytest.mark.parametrize("started", [1, 2], ids=["tracker", "worker"])
def test_killing_an_import_leaves_no_process_and_a_whole_saved_corpus(sig: int, started: int, tmp_path: Path) -> None:
    """Killed once the resource tracker runs (early), or once the spawned worker does too: nothing
    it started outlives it, and the saved corpus is the one before or, had it finished, the new one."""
    out = tmp_path / "out"
    ingest(DATA, out, progress=False)
    before = _counts(out)
    run = _import(tmp_path, stderr=subprocess.DEVNULL)
    spawned: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(spawned) < started and run.poll() is None:
        spawned = _descendants(run.pid)
        time.sleep(0.01)
    run.send_signal(sig)
    code = run.wait(timeout=30)
    assert spawned, "the import started no process"
    assert started == 2 or code != 0, "the import ended before it was killed: give it more to read"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_alive, spawned)):
        time.sleep(0.1)
    assert not [p for p in spawned if _alive(p)], "processes left behind"
    assert _counts(out) in (before, (40, 40 * _counts(CODEX)[1]))
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["out", "src"]


KILLS = int(os.environ.get("TOOLKIT_KILLS", "3"))
"""SIGKILLs of ``test_sigkills_at_any_moment_leave_no_process_and_a_whole_saved_corpus`` (issue 31
asks for 200: ``TOOLKIT_KILLS=200``)."""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads processes from /proc (Linux)")
def test_sigkills_at_any_moment_leave_no_process_and_a_whole_saved_corpus(tmp_path: Path) -> None:
    """``KILLS`` re-imports, each killed at a moment drawn over an uninterrupted import's time (from
    the interpreter's start to past the swap into place): after each, no process of the import is
    left (however late it was started, or whoever its parent is now), and the saved corpus is a
    whole one: the one there before, or the new one."""
    import random
    import shutil

    out, demo = tmp_path / "out", tmp_path / "demo"
    ingest(DATA, demo, progress=False)
    shutil.copytree(demo, out)
    before = _saved(out)
    started = time.monotonic()
    first = _import(tmp_path, copies=4, stderr=subprocess.DEVNULL, start_new_session=True)
    assert first.wait(timeout=300) == 0
    span = time.monotonic() - started
    after = _saved(out)
    assert after != before
    draw = random.Random(31)
    kept: list[bool] = []
    for kill in range(KILLS):
        shutil.rmtree(out)
        shutil.copytree(demo, out)  # the corpus before: the demo's, which the import replaces
        run = _import(tmp_path, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(draw.uniform(0, span * 1.1))
        run.kill()
        run.wait(timeout=30)
        deadline = time.monotonic() + 10
        while (left := _of_session(run.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"kill {kill + 1}: processes left behind: {left}"
        saved = _saved(out)
        assert saved in (before, after), f"kill {kill + 1}: the saved corpus is neither the one before nor the new one"
        kept.append(saved == before)
    print(f"{KILLS} SIGKILLs over {span:.1f} s imports: none left a process; the corpus before kept "
          f"{sum(kept)} times, the new one in place {KILLS - sum(kept)} times")  # pytest -s shows it


def test_a_second_store_of_the_same_sessions_names_the_option(tmp_path: Path) -> None:
    store = str(tmp_path / "store.db")
    assert _cli("store", str(DATA), "-o", store).returncode == 0
    again = _cli("store", str(DATA), "-o", store)
    assert again.returncode == 1
    assert "pass --replace to overwrite it" in again.stderr and "replace=True" not in again.stderr


# ---- memory bounds ----------------------------------------------------------------------------------------


def test_an_eval_member_that_inflates_like_a_bomb_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import zipfile

    from toolkit import inflating

    monkeypatch.setattr(inflating, "INFLATED_FREELY", 1 << 20)  # the bound, scaled down to a test's size
    path = tmp_path / "bomb.eval"
    header = {"version": 2, "status": "success", "eval": {"task": "t", "model": "openai/gpt-4o"}}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        archive.writestr("samples/1_epoch_1.json", '{"id": 1, "input": "' + " " * (8 << 20) + '"}')
    corpus = load(path)
    assert [p.reason for p in corpus.problems if "inflates past" in p.reason], corpus.problems


def test_an_eval_whose_members_together_inflate_past_the_archives_bound_keeps_what_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Many members each well within its own bound may not add up past the bound of the archive's
    size: the samples read before it are kept, the rest left out with a problem naming the file and
    the bound, and nothing past the bound is held."""
    import zipfile

    from toolkit import inflating

    monkeypatch.setattr(inflating, "INFLATED_FREELY", 1 << 20)  # the bound, scaled down to a test's size
    path = tmp_path / "many.eval"
    header = {"version": 2, "status": "success", "eval": {"task": "t", "model": "openai/gpt-4o"}}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        for i in range(1, 7):  # each 300 KiB, within its own 1 MiB; together past the archive's 1 MiB
            sample = {"id": i, "epoch": 1, "events": [],
                      "messages": [{"role": "user", "content": "x" + " " * (300 << 10)}]}
            archive.writestr(f"samples/{i}_epoch_1.json", json.dumps(sample))
    assert 100 * path.stat().st_size < 1 << 20
    corpus = load(path)
    (problem,) = [p for p in corpus.problems if "inflate" in p.reason]
    assert problem.file == "many.eval" and problem.line is None, problem
    assert problem.reason.startswith("the archive's members, up to member samples/4_epoch_1.json, inflate together past 1 MiB from "), problem.reason
    assert "the 3 sample member(s) from there on are left out, the 3 sample(s) read before are kept" in problem.reason
    assert sorted(str(s.title) for s in corpus.sessions) == [f"t sample {i} epoch 1" for i in (1, 2, 3)]


def test_members_each_past_their_own_bound_spend_the_archives_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A member past its own bound is reported and the reading goes on, but what it inflated is spent
    from the archive's budget: forty such members of a small archive do not each inflate to their own
    bound (they did, 80 MiB from 86 KB with the bound scaled to 1 MiB); once the budget is spent the
    rest is left out with one problem."""
    import zipfile

    from toolkit import inflating

    monkeypatch.setattr(inflating, "INFLATED_FREELY", 1 << 20)  # the bound, scaled down to a test's size
    inflated: list[int] = []
    read_all = inflating.read_all

    def counted(opened: Any, *args: Any, **kwargs: Any) -> bytes:
        class Counting:
            def read(self, size: int = -1, /) -> bytes:
                part: bytes = opened.read(size)
                inflated.append(len(part))
                return part

        return read_all(Counting(), *args, **kwargs)

    monkeypatch.setattr(inflating, "read_all", counted)
    path = tmp_path / "bombs.eval"
    header = {"version": 2, "status": "success", "eval": {"task": "t", "model": "openai/gpt-4o"}}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        for i in range(1, 41):
            archive.writestr(f"samples/{i}_epoch_1.json", '{"id": ' + str(i) + ', "input": "' + " " * (2 << 20) + '"}')
    corpus = load(path)
    own = [p for p in corpus.problems if "inflates past" in p.reason]
    together = [p for p in corpus.problems if "inflate together past" in p.reason]
    assert 1 <= len(own) < 40 and len(together) == 1, corpus.problems
    assert sum(inflated) <= inflating.bound(path.stat().st_size) + 2 * (1 << 20), sum(inflated)


def test_a_large_unknown_file_is_judged_from_its_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.corpus import reading

    monkeypatch.setattr(reading, "REASON_WHOLE", 1 << 20)
    path = tmp_path / "big.log"
    path.write_bytes(b"just a log line\n" * (200_000))
    (problem,) = load(path).problems
    assert problem.reason.startswith("unknown format: no importer recognises this content (judged from its first")


@pytest.mark.parametrize("after", [0.2, 0.5, 0.8, 1.2, 1.6])
def test_ctrl_c_at_any_moment_of_an_import_is_one_line(after: float, tmp_path: Path) -> None:
    """Ctrl-C while the toolkit is imported, while the pool starts its resource tracker, while a
    worker boots (it inherits a blocked SIGINT) or while it works: never a traceback."""
    run = _import(tmp_path, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(after)
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    frames = [line for line in err.splitlines() if line.startswith("  File ")]
    if run.returncode < 0 and all("<frozen " in line for line in frames):
        pytest.skip("the Ctrl-C came while the interpreter itself started, before any toolkit code")
    assert "Traceback" not in err, err[-3000:]
    assert run.returncode in (0, 130) and (run.returncode == 0 or err.strip().endswith("interrupted")), err[-500:]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads processes from /proc (Linux)")
def test_ctrl_c_stops_an_import_and_its_worker_in_one_line(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group: the workers ignore it and this process stops them."""
    run = _import(tmp_path, stderr=subprocess.PIPE, start_new_session=True)
    spawned: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(spawned) < 2 and run.poll() is None:
        spawned = _descendants(run.pid)
        time.sleep(0.01)
    with contextlib.suppress(ProcessLookupError):  # the import and its workers ended before the Ctrl-C
        os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    if len(spawned) < 2:
        pytest.skip("the import ended before its worker started")
    assert "Traceback" not in err and "warn" not in err, err[-2000:]
    if run.returncode == 0:  # the Ctrl-C came after the import's work, as it exited: it changed nothing
        assert _saved(tmp_path / "out") and "interrupted" not in err
    else:
        assert run.returncode == 130, err[-2000:]
        assert err.strip().splitlines()[-1].endswith("toolkit import: interrupted")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_alive, spawned)):
        time.sleep(0.1)
    assert not [p for p in spawned if _alive(p)]


def test_a_ctrl_c_while_finished_workers_exit_is_one_line_too(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A pool whose work is done is left to exit on its own; the command joins it before returning,
    so a Ctrl-C that lands then (as the interpreter's own join at exit would meet it) is exit 130 and
    one line, not a traceback after a success."""
    import toolkit.workers as workers
    from toolkit.cli import INTERRUPTED, main

    class Exiting:
        def shutdown(self, wait: bool = True) -> None:
            raise KeyboardInterrupt

    monkeypatch.setattr(workers, "UNJOINED", [Exiting()])
    assert main(["info", str(DATA)]) == INTERRUPTED
    assert capsys.readouterr().err.strip() == "toolkit info: interrupted"
    assert workers.UNJOINED == []


@pytest.mark.parametrize("outcome", ["converted", "swallowed", "unraisable"])
def test_a_ctrl_c_an_extension_turned_into_another_error_is_still_one_line(
        outcome: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A Ctrl-C can land inside a compiled extension's callback, which reports it as its own error
    (polars: ``TypeError: '<unprintable str object>' is not a Polars data type``), drops it, or drops it
    and has Python print it as unraisable (polars: "Exception ignored in: 'DataTypeClass'" and a
    traceback); the command still ends as interrupted, one line and 130, never a traceback or a success."""
    import toolkit.cli.info as info
    from toolkit.cli import INTERRUPTED, main

    class Dropping:
        """Where the Ctrl-C lands in a callback whose exception has nowhere to go (a finaliser's)."""

        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)

    def run(args: object) -> int:
        if outcome == "unraisable":
            Dropping()
            return 0
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the signal is handled at the next bytecode, well before this ends
        except KeyboardInterrupt:
            if outcome == "converted":
                raise TypeError("'<unprintable str object>' is not a Polars data type") from None
        return 0

    printed: list[object] = []  # what would reach Python's own hook, which prints a traceback
    monkeypatch.setattr(info, "run_info", run)
    monkeypatch.setattr(sys, "unraisablehook", printed.append)
    with _hearing_sigint():
        assert main(["info", str(DATA)]) == INTERRUPTED
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "the command's handler is undone"
    assert capsys.readouterr().err.strip() == "toolkit info: interrupted"
    assert printed == [] and sys.unraisablehook == printed.append, "the command's hook is undone"


@contextlib.contextmanager
def _hearing_sigint() -> Iterator[None]:
    """This process with Python's own Ctrl-C handling, unblocked, whatever it inherited or an earlier
    test in it left (``as_at_a_terminal``), and as it was after."""
    handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, signal.default_int_handler if handler is None else handler)


def test_an_error_without_a_ctrl_c_is_not_called_an_interruption(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolkit.cli.info as info
    from toolkit.cli import main

    def run(args: object) -> int:
        raise TypeError("a bug")

    monkeypatch.setattr(info, "run_info", run)
    with pytest.raises(TypeError, match="a bug"):
        main(["info", str(DATA)])


@pytest.mark.parametrize("presses", [1, 2])
def test_a_ctrl_c_as_the_interpreter_exits(presses: int, tmp_path: Path) -> None:
    """After the command's work the interpreter joins the worker pools' threads and multiprocessing
    releases its semaphores as it exits. A Ctrl-C then (the last CI run's failure: a traceback from
    ``concurrent.futures``' exit hook) changes nothing: the exit runs, with the command's own code and
    no word (cutting it short left semaphores the resource tracker warned of, a fresh clone's failure);
    a second press ends the process at once, as one line and 130."""
    script = ("import os, signal, sys, time\n"
              "from toolkit.cli import program\n"
              "sys.argv = ['toolkit', 'info', sys.argv[1]]\n"
              "code = program()\n"
              f"for _ in range({presses}):\n"
              "    os.kill(os.getpid(), signal.SIGINT)\n"
              "    time.sleep(1)\n"
              "sys.exit(code)\n")
    run = subprocess.run([sys.executable, "-c", script, str(DATA)], capture_output=True, text=True, cwd=REPO,
                         check=False, timeout=60, preexec_fn=as_at_a_terminal)
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    if presses == 1:
        assert run.returncode == 0 and run.stderr == "", run.stderr[-2000:]
    else:
        assert run.returncode == 130 and run.stderr.strip().splitlines()[-1] == "toolkit info: interrupted"


def test_what_a_killed_write_left_beside_the_corpus_is_removed_by_the_next(tmp_path: Path) -> None:
    """A write killed before its swap leaves its directory beside the corpus (nothing runs at a
    SIGKILL); the next write of the same corpus removes it, and leaves alone one still being written."""
    import fcntl

    out = tmp_path / "out"
    ingest(DATA, out, progress=False)
    before = _saved(out)
    script = ("import os, sys; from pathlib import Path; from toolkit.corpus.parquet import writing\n"
              "with writing(Path(sys.argv[1])) as work:\n"
              "    (work / 'half').write_text('x'); print(work, flush=True); os.kill(os.getpid(), 9)")
    killed = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True, cwd=REPO,
                            check=False)
    abandoned = Path(killed.stdout.strip())
    assert killed.returncode == -signal.SIGKILL and (abandoned / "half").is_file()
    busy = tmp_path / ".out.writing-busy"
    busy.mkdir()
    held = os.open(busy / ".writer", os.O_CREAT | os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # a live writer's, as far as another process can tell
    try:
        script = "import sys; from toolkit.corpus.ingesting import ingest; ingest(sys.argv[1], sys.argv[2], progress=False)"
        subprocess.run([sys.executable, "-c", script, str(DATA), str(out)], check=True, cwd=REPO)
    finally:
        os.close(held)
    assert not abandoned.exists() and busy.is_dir()
    assert _saved(out) == before and not (out / ".writer").exists()
