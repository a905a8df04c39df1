"""One vocabulary of errors: a wrong wire, mode, session or model is a named ``ToolkitError`` that is
still the builtin callers caught before, every other error on bad input derives from a generic
``ToolkitError`` base, and the ``toolkit`` command tells any of them in one line, exit 2."""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DATA, REPO
from toolkit.cli import BROKEN_PIPE, INTERRUPTED, main
from toolkit.corpus import Corpus, load
from toolkit.costs import UnknownModelError, resolve
from toolkit.costs.text import VocabularyError
from toolkit.errors import (
    InvalidInput,
    MissingPath,
    NotFound,
    ToolkitError,
    UnknownMode,
    UnknownModel,
    UnknownSession,
    UnknownWire,
    UnreadableInput,
)
from toolkit.record import Problem, RecordError
from toolkit.replay import MODES, WIRES, request, validate
from toolkit.surface.store import SurfaceNotFound
from toolkit.transcripts import SchemaError

TOOLKIT = REPO / "toolkit"

BUILTIN_RAISES = frozenset({"ValueError", "KeyError", "FileNotFoundError", "LookupError"})
"""Builtins that, raised bare, would report bad input outside the ``ToolkitError`` hierarchy."""

INTERNAL_INVARIANTS: frozenset[tuple[str, str]] = frozenset({
    ("toolkit/inflating.py", "the ZIP archive is closed"),
    ("toolkit/corpus/formats/inspect_log.py", "role"),
    ("toolkit/snapshot/font.py", "is not distinct"),
    ("toolkit/snapshot/font.py", "break mark is some glyph's bitmap"),
    ("toolkit/snapshot/render.py", "collide"),
})
"""The bare builtin raises allowed to stay, by file and a fragment of the message: each guards an
invariant of the toolkit's own code (a bug if it fires), not input a caller gave."""


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load(DATA, progress=False)


def test_an_unknown_wire_is_named_and_is_still_a_value_error(corpus: Corpus) -> None:
    with pytest.raises(UnknownWire) as raised:
        request(corpus.longest(), wire="nope", mode="text")
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, ToolkitError)
    assert str(raised.value) == f"unknown wire 'nope' (wires: {', '.join(WIRES)})"
    assert raised.value.wire == "nope" and raised.value.choices == WIRES
    with pytest.raises(UnknownWire, match="unknown wire 'grpc'"):
        validate({}, "grpc")


def test_an_unknown_mode_is_named_and_is_still_a_value_error(corpus: Corpus) -> None:
    with pytest.raises(ValueError, match=r"unknown mode 'poetry' \(modes: text, prose, prose_head, native\)") as raised:
        request(corpus.longest(), wire="anthropic", mode="poetry")
    assert isinstance(raised.value, UnknownMode) and raised.value.choices == MODES


def test_an_unknown_session_lists_the_sessions_and_is_still_a_key_error(corpus: Corpus) -> None:
    with pytest.raises(KeyError) as raised:
        corpus.session("nope")
    assert isinstance(raised.value, UnknownSession)
    ids = [s.id for s in corpus.sessions]
    assert str(raised.value) == f"no session 'nope' in this corpus (there are {len(ids)}: {', '.join(ids[:10])})"
    assert "holds none" in str(UnknownSession("x", []))
    many = str(UnknownSession("x", [f"s{i}" for i in range(25)]))
    assert "s9 and 15 more" in many and "s10" not in many


def test_an_unknown_model_is_the_registry_error_and_a_value_error() -> None:
    with pytest.raises(UnknownModel) as raised:
        resolve("nope")
    assert isinstance(raised.value, UnknownModelError) and isinstance(raised.value, ValueError)
    assert raised.value.model == "nope"
    assert str(raised.value).startswith("unknown model 'nope'. Known families: openai: gpt-3.5-turbo, ")
    assert "; anthropic: claude-3-opus, " in str(raised.value) and "; google: gemini-1.5-pro, " in str(raised.value)


@pytest.mark.parametrize("error", [
    UnknownWire("nope", WIRES), UnknownMode("nope", MODES), UnknownSession("nope", ["a", "b"]),
    UnknownModelError("nope", "empty model id"),
    InvalidInput("budget_chars must be positive, got 0"), UnreadableInput("t.json:3: not valid JSON: x"),
    NotFound("no message 'm' in session 's'"), MissingPath("no/such/dir: no such file or directory"),
    RecordError(Problem("a.jsonl", 2, "not JSON")), SurfaceNotFound("sha256:00 is not in the surface store s"),
    SchemaError("db: not a transcript store"), VocabularyError("o200k_base: not the pinned file"),
])
def test_errors_survive_pickling_with_message_and_attributes(error: ToolkitError) -> None:
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error) and back.args == error.args
    assert vars(back) == vars(error)


def test_the_cli_tells_an_unknown_model_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "image", "10", "10", "--model", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("toolkit costs: unknown model 'nope'") and captured.err.count("\n") == 1


def test_the_cli_tells_an_unknown_session_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(DATA), "--wire", "anthropic", "--mode", "text", "--session", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolkit replay: no session 'nope' in this corpus (there are ") and err.count("\n") == 1


def test_the_cli_refuses_an_unknown_wire_or_mode_before_running(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in (["--wire", "nope", "--mode", "text"], ["--wire", "anthropic", "--mode", "nope"]):
        with pytest.raises(SystemExit) as raised:
            main(["replay", str(DATA), *flags])
        assert raised.value.code == 2
        assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_main_turns_an_unhandled_toolkit_error_into_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import toolkit.cli.info

    def fails(args: argparse.Namespace) -> int:
        raise UnknownSession("nope", ["a", "b"], where=args.path)

    monkeypatch.setattr(toolkit.cli.info, "run_info", fails)
    assert main(["info", "somewhere"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "toolkit info: no session 'nope' in somewhere (there are 2: a, b)\n"
    assert captured.out == ""


def test_other_exceptions_still_propagate(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolkit.cli.info

    def breaks(args: argparse.Namespace) -> int:
        raise KeyError("a bug, not a wrong name")

    monkeypatch.setattr(toolkit.cli.info, "run_info", breaks)
    with pytest.raises(KeyError):
        main(["info", "somewhere"])


def test_the_command_exits_2_with_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "toolkit.cli", "costs", "image", "10", "10", "--model", "nope"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("toolkit costs: unknown model 'nope'") and done.stderr.count("\n") == 1


@pytest.mark.parametrize(("kind", "builtin"), [
    (InvalidInput, ValueError), (UnreadableInput, ValueError), (NotFound, KeyError), (MissingPath, FileNotFoundError),
])
def test_each_generic_base_is_still_its_builtin_and_reads_as_its_message(
    kind: type[ToolkitError], builtin: type[Exception]
) -> None:
    error = kind("no checkpoint 'x' in session 's'")
    assert isinstance(error, builtin) and isinstance(error, ToolkitError)
    assert str(error) == "no checkpoint 'x' in session 's'"  # a KeyError would quote it
    with pytest.raises(builtin, match="no checkpoint 'x'"):
        raise error
    assert issubclass(UnreadableInput, InvalidInput)


def _checked_sources() -> Iterator[tuple[str, Path]]:
    """Every module of the package, as (``toolkit/...`` path, file)."""
    for path in sorted(TOOLKIT.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        yield rel, path


def _module_name(rel: str) -> str:
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _class_paths(tree: ast.Module) -> Iterator[list[str]]:
    """The attribute path of every class defined at module level or inside such a class."""
    def walk(body: list[ast.stmt], outer: list[str]) -> Iterator[list[str]]:
        for node in body:
            if isinstance(node, ast.ClassDef):
                yield [*outer, node.name]
                yield from walk(node.body, [*outer, node.name])
            elif isinstance(node, ast.If | ast.Try):
                yield from walk([*node.body, *node.orelse], outer)

    return walk(tree.body, [])


def test_every_exception_class_of_the_package_is_a_toolkit_error() -> None:
    found: dict[str, type[BaseException]] = {}
    for rel, path in _checked_sources():
        if path.name == "__main__.py":  # runs the command when imported, defines no class
            continue
        module = importlib.import_module(_module_name(rel))
        for names in _class_paths(ast.parse(path.read_text(encoding="utf-8"))):
            value: object = module
            for name in names:
                value = getattr(value, name)
            if inspect.isclass(value) and issubclass(value, BaseException):
                found[f"{rel}:{'.'.join(names)}"] = value
    assert {"TurnError", "SurfaceCorrupt", "SendError", "UnknownSummariser"} <= {c.__name__ for c in found.values()}
    strays = sorted(where for where, kind in found.items() if not issubclass(kind, ToolkitError))
    assert not strays, f"exception classes that are no ToolkitError: {strays}"


def _bare_raises(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """(line, builtin, message source) of each ``raise`` of a builtin in ``BUILTIN_RAISES``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        call = node.exc if isinstance(node.exc, ast.Call) else None
        func = call.func if call is not None else node.exc
        if isinstance(func, ast.Name) and func.id in BUILTIN_RAISES:
            message = ast.unparse(call.args[0]) if call is not None and call.args else ""
            yield node.lineno, func.id, message


def test_no_bare_builtin_raise_outside_the_internal_invariants() -> None:
    strays: list[str] = []
    allowed_seen: set[tuple[str, str]] = set()
    for rel, path in _checked_sources():
        for line, builtin, message in _bare_raises(ast.parse(path.read_text(encoding="utf-8"))):
            allowed = {(file, fragment) for file, fragment in INTERNAL_INVARIANTS
                       if file == rel and fragment in message}
            if allowed:
                allowed_seen |= allowed
            else:
                strays.append(f"{rel}:{line}: raise {builtin}({message[:60]})")
    assert not strays, ("bare builtin raises on what may be bad input: raise an InvalidInput, NotFound, MissingPath "
                        "or UnreadableInput (toolkit.errors), or list an internal invariant in INTERNAL_INVARIANTS:\n"
                        + "\n".join(strays))
    assert allowed_seen == INTERNAL_INVARIANTS, f"stale allow-list entries: {sorted(INTERNAL_INVARIANTS - allowed_seen)}"


def test_the_raise_finder_finds_bare_raises() -> None:
    tree = ast.parse("def f(x):\n    raise ValueError(f'bad {x}')\n\ndef g():\n    raise KeyError\n"
                     "def h():\n    raise InvalidInput('fine')\n")
    assert [(line, builtin) for line, builtin, _ in _bare_raises(tree)] == [(2, "ValueError"), (5, "KeyError")]


def _input_files(tmp: Path) -> None:
    """The files ``_bad_inputs`` names: a plain text, and JSON, UTF-8 and TOML that do not parse."""
    (tmp / "note.txt").write_text("hello world", encoding="utf-8")
    (tmp / "tools.json").write_text('[\n {"name": "x"},\n nope\n]', encoding="utf-8")
    (tmp / "blob.txt").write_bytes(b"\xff\xfe\x00abc")
    (tmp / "policy.toml").write_text("name = [unclosed\n", encoding="utf-8")


def _bad_inputs(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """Bad input for several subcommands: name → (argv, what the one line must say)."""
    text, not_json, not_utf8, not_toml = tmp / "note.txt", tmp / "tools.json", tmp / "blob.txt", tmp / "policy.toml"
    gone = str(tmp / "gone")
    return {
        "simulate, a missing corpus": (["simulate", gone, "--model", "gpt-5"], f"{gone}: no such file or directory"),
        "compactions, a missing corpus": (["compactions", gone], f"{gone}: no such file or directory"),
        "experiment-report, missing results": (["experiment-report", gone], f"{gone}: no such file or directory"),
        "redact, a missing corpus": (["redact", gone, "-o", str(tmp / "out")], f"{gone}: no such file or directory"),
        "fingerprint, a missing file": (["fingerprint", gone], f"{gone}: cannot read"),
        "costs text, a missing file": (["costs", "text", gone, "--model", "gpt-4o"], f"{gone}: cannot read"),
        "snapshot, a missing file": (["snapshot", gone, "--model", "gpt-4o"], f"{gone}: no such file"),
        "costs image, an unknown model": (["costs", "image", "10", "10", "--model", "nope"], "unknown model 'nope'"),
        "costs text, an unknown model": (["costs", "text", str(text), "--model", "nope"], "unknown model 'nope'"),
        "simulate, an unknown model": (["simulate", str(DATA), "--model", "nope"], "unknown model 'nope'"),
        "replay, an unknown session": (["replay", str(DATA), "--wire", "anthropic", "--mode", "text",
                                        "--session", "nope"], "no session 'nope' in this corpus"),
        "tree, an unknown session": (["tree", str(DATA), "--session", "nope"], "no session 'nope'"),
        "replay, an unknown message": (["replay", str(DATA), "--wire", "anthropic", "--mode", "text",
                                        "--upto", "nope"], "has no message 'nope'"),
        "experiment, an unknown message": (["experiment", str(DATA), "--at", "nope", "--wire", "anthropic",
                                            "--model", "claude-sonnet-4-5", "--dry-run"],
                                           "no session holds message 'nope'"),
        "fingerprint, a file that is not JSON": (["fingerprint", str(not_json)], f"{not_json}:3: not valid JSON"),
        "surfaces, tools that are not JSON": (["surfaces", str(DATA), "--tools", str(not_json)],
                                              f"{not_json}:3: not valid JSON"),
        "costs text, a file that is not UTF-8": (["costs", "text", str(not_utf8), "--model", "gpt-4o"],
                                                 f"{not_utf8}:1: not UTF-8 text"),
        "simulate, a policy that is not TOML": (["simulate", str(DATA), "--model", "gpt-5", "--policy", str(not_toml)],
                                                f"{not_toml}: not a TOML file"),
        "simulate, an unknown policy": (["simulate", str(DATA), "--model", "gpt-5", "--policy", "shred"],
                                        "no policy named 'shred'"),
        "costs image, settings that disagree": (["costs", "image", "10", "10", "--model", "gpt-4o",
                                                 "--media-resolution", "low"], "media_resolution is a Gemini setting"),
        "redact, a copy onto its source": (["redact", str(DATA), "-o", str(DATA)],
                                           "refusing to write the redacted copy onto its source"),
    }


BAD_INPUTS = sorted(_bad_inputs(Path("unused")))


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_to_a_command_is_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _input_files(tmp_path)
    argv, says = _bad_inputs(tmp_path)[case]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.err.startswith(f"toolkit {argv[0]}: ") and captured.err.count("\n") == 1, captured.err
    assert says in captured.err and captured.out == ""


def _interrupted(args: argparse.Namespace) -> int:
    raise KeyboardInterrupt


@pytest.mark.parametrize(("module", "attribute", "argv"), [
    ("toolkit.cli.info", "run_info", ["info", "somewhere"]),
    ("toolkit.cli.costs", "run_image", ["costs", "image", "10", "10", "--model", "gpt-4o"]),
])
def test_ctrl_c_is_one_line_and_exit_130(module: str, attribute: str, argv: list[str],
                                         monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(importlib.import_module(module), attribute, _interrupted)
    assert main(argv) == INTERRUPTED == 130
    captured = capsys.readouterr()
    assert captured.err == f"toolkit {argv[0]}: interrupted\n" and captured.out == ""


def test_a_broken_pipe_that_is_not_standard_output_is_an_error_shown() -> None:
    """A broken pipe elsewhere (a FIFO named as output, a subprocess gone) is no reader of standard
    output closing: it is shown as the error it is, not ended quietly with 141."""
    script = ("import sys\n"
              "import toolkit.cli.info as info\n"
              "def run(args):\n"
              "    raise BrokenPipeError(32, 'Broken pipe: the FIFO named as output')\n"
              "info.run_info = run\n"
              "from toolkit.cli import main\n"
              "sys.exit(main(['info', sys.argv[1]]))\n")
    run = subprocess.run([sys.executable, "-c", script, str(DATA)], cwd=REPO, capture_output=True, text=True,
                         check=False, timeout=120)
    assert run.returncode == 1 and "BrokenPipeError" in run.stderr and "the FIFO named as output" in run.stderr


@pytest.mark.parametrize("reads", [0, 1])
def test_a_reader_that_closes_early_ends_the_command_quietly(reads: int) -> None:
    """``toolkit info DATA | head -1``: a reader that closes standard output (before reading, or after
    a line) ends the command without a traceback, with 141 (``BROKEN_PIPE``, 128 + SIGPIPE) where a
    write met the closed pipe; after a line the rest may still fit the pipe's buffer, and then it is 0."""
    command = subprocess.Popen([sys.executable, "-m", "toolkit.cli", "info", str(DATA)], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert command.stdout is not None and command.stderr is not None
    lines = [command.stdout.readline() for _ in range(reads)]
    command.stdout.close()
    err = command.stderr.read().decode()
    code = command.wait(timeout=120)
    assert err == ""
    assert code == BROKEN_PIPE == 141 if not reads else code in (0, BROKEN_PIPE)
    assert all(line.startswith(b"files ") for line in lines)
