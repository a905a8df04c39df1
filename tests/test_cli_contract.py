"""The command line's contract on input that holds nothing to read: a missing path, an empty folder
and a folder of files no format reads are each one line on standard error, naming the path, and exit
code 2, the same in every command that reads a corpus; so is a text file that is not UTF-8, in every
command that reads one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers import as_at_a_terminal
from toolkit.cli import main

COMMANDS: dict[str, list[str]] = {
    "info": ["info", "{path}"],
    "import": ["import", "{path}", "-o", "{out}/saved.d"],
    "surfaces": ["surfaces", "{path}"],
    "replay": ["replay", "{path}", "--wire", "anthropic", "--mode", "native"],
    "replay-check": ["replay", "{path}", "--all", "--wire", "anthropic", "--mode", "native", "--check"],
    "costs-calibrate": ["costs", "calibrate", "{path}"],
    "store": ["store", "{path}", "-o", "{out}/store.db"],
    "tree": ["tree", "{path}"],
    "simulate": ["simulate", "{path}", "--model", "gpt-4o"],
    "compactions": ["compactions", "{path}"],
    "compactions-predict": ["compactions", "{path}", "--predict"],
    "show": ["show", "{path}", "-o", "{out}/page.html"],
    "search": ["search", "{path}", "anything"],
    "redact": ["redact", "{path}", "-o", "{out}/copy"],
    "redact-verify": ["redact", "--verify", "{path}"],
    "experiment": ["experiment", "{path}", "--at", "auto", "--wire", "openai-chat", "--model", "gpt-4o", "--dry-run"],
}


def _inputs(root: Path) -> dict[str, Path]:
    empty = root / "empty"
    empty.mkdir()
    junk = root / "junk"
    (junk / "notes").mkdir(parents=True)
    (junk / "notes" / "README.md").write_text("# not a transcript\n", encoding="utf-8")
    (junk / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return {"missing": root / "missing", "empty": empty, "junk": junk}


COPIES = ("redact", "redact-verify")
"""Commands that copy or check every file, transcript or not: a folder of other files is theirs to
read, so only a missing path and an empty folder are refused."""


CASES = [(command, what) for command in COMMANDS for what in ("missing", "empty", "junk")
         if not (command in COPIES and what == "junk")]


def the_one_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a refused command printed on standard error (and nothing on standard output)."""
    shown = capsys.readouterr()
    lines = [line for line in shown.err.splitlines() if line.strip()]
    assert len(lines) == 1, shown.err
    assert "Traceback" not in shown.err and not shown.out.strip()
    return lines[0]


@pytest.mark.parametrize(("command", "what"), CASES)
def test_nothing_to_read_is_one_line_and_exit_2(command: str, what: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = _inputs(tmp_path)[what]
    out = tmp_path / "out"
    out.mkdir()
    argv = [word.format(path=path, out=out) for word in COMMANDS[command]]
    assert main(argv) == 2
    line = the_one_line(capsys)
    assert line.startswith(f"toolkit {argv[0]}: {path}"), line


def test_a_file_of_no_known_format_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("just words\n", encoding="utf-8")
    assert main(["show", str(notes)]) == 2
    assert "no session in 1 file (first: unknown format" in capsys.readouterr().err


def test_info_still_summarises_a_folder_whose_files_are_not_transcripts(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``info`` is where one learns why nothing was read, so a folder of unreadable files gets its
    summary with the problems (exit 1), not a refusal."""
    (tmp_path / "odd.jsonl").write_text('{"neither": "format"}\n', encoding="utf-8")
    assert main(["info", str(tmp_path)]) == 1
    assert "problems  1" in capsys.readouterr().out


TEXT_COMMANDS: dict[str, list[str]] = {
    "snapshot": ["snapshot", "{path}", "--model", "gpt-4o", "--readers", "none"],
    "costs-text": ["costs", "text", "{path}", "--model", "gpt-4o"],
    "experiment-pages": ["experiment-pages", "{path}", "--wire", "openai-chat", "--model", "gpt-4o", "--dry-run",
                         "-o", "{out}/pages.jsonl"],
}
"""Commands that read a file as text: bytes that are not UTF-8 are refused, never rendered, counted or
sent as replacement characters."""


@pytest.mark.parametrize("command", TEXT_COMMANDS)
def test_text_that_is_not_utf8_is_one_line_and_exit_2(command: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"first line is fine\n" + "caf\N{LATIN SMALL LETTER E WITH ACUTE}\n".encode("latin-1"))
    argv = [word.format(path=path, out=tmp_path) for word in TEXT_COMMANDS[command]]
    assert main(argv) == 2
    line = the_one_line(capsys)
    assert line.startswith(f"toolkit {argv[0]}: {path}:2: not UTF-8 text (byte 22: "), line


@pytest.mark.parametrize("own", [None, "narenas:1"])
def test_import_asks_polars_allocator_to_give_freed_pages_back(own: str | None, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The option is set for the import and its workers unless the user set one of their own (polars,
    loading, puts its own defaults before it: the last of an option is the one jemalloc takes)."""
    from toolkit.cli.info import POLARS_ALLOCATOR_OPTIONS, RETURN_FREED_PAGES

    if own is None:
        monkeypatch.delenv(POLARS_ALLOCATOR_OPTIONS, raising=False)
    else:
        monkeypatch.setenv(POLARS_ALLOCATOR_OPTIONS, own)
    source = tmp_path / "s.jsonl"
    source.write_text('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yes"}\n',
                      encoding="utf-8")
    assert main(["import", str(source), "-o", str(tmp_path / "saved")]) == 0
    assert os.environ[POLARS_ALLOCATOR_OPTIONS].endswith(own or RETURN_FREED_PAGES)


SIGINT_HANDLER_DURING_IMPORT = r"""
import ctypes, importlib.util, signal, sys
from toolkit.cli import main

class Sigaction(ctypes.Structure):  # glibc's struct sigaction
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]

def handler_library():
    action = Sigaction()
    ctypes.CDLL(None).sigaction(signal.SIGINT, None, ctypes.byref(action))
    for line in open("/proc/self/maps"):
        span, *rest = line.split()
        low, high = (int(end, 16) for end in span.split("-"))
        if low <= (action.handler or 0) < high:
            return rest[-1]
    return "none"

def ingest(path, directory, **options):
    print(handler_library())
    return sys.modules["toolkit.corpus.ingesting"].Ingested(directory, 1, 1, 0)

class StandIn:  # the command imports the module (and with it polars): its ingest is replaced then
    def find_spec(self, name, path, target=None):
        if name != "toolkit.corpus.ingesting":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            module.ingest = ingest
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, StandIn())
main(["import", sys.argv[1], "-o", sys.argv[2]])
"""


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="reads the process's own mappings (Linux)")
def test_python_answers_ctrl_c_while_an_import_works(tmp_path: Path) -> None:
    """polars, loading, puts a SIGINT handler of its own in front of Python's; it stops polars' work by
    a Rust panic that printed itself after the one line of a Ctrl-C (a failure seen once in a fresh
    clone's suite). In a fresh interpreter, where the import is what loads polars, Python's handler is
    the one the kernel calls while the import works."""
    source = tmp_path / "s.jsonl"
    source.write_text('{"role": "user", "content": "hi"}\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", SIGINT_HANDLER_DURING_IMPORT, str(source), str(tmp_path / "out")],
                          capture_output=True, text=True, check=True, cwd=REPO, preexec_fn=as_at_a_terminal)
    library = done.stdout.splitlines()[0]
    assert "polars" not in library and "python" in library, library
