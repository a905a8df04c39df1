"""One vocabulary of errors: a wrong wire, mode, session or model is a named ``ToolkitError`` that is
still the builtin callers caught before, and the ``toolkit`` command tells it in one line, exit 2."""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys

import pytest

from tests.conftest import DATA, REPO
from toolkit.cli import main
from toolkit.corpus import Corpus, load
from toolkit.costs import UnknownModelError, resolve
from toolkit.errors import ToolkitError, UnknownMode, UnknownModel, UnknownSession, UnknownWire
from toolkit.replay import MODES, WIRES, request, validate


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
