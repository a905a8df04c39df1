"""``toolkit replay``: a thin shell over ``toolkit.replay``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DATA
from toolkit.cli import main
from toolkit.corpus import load
from toolkit.replay import MODES, WIRES, request, validate


def test_prints_the_canonical_bytes_of_the_longest_session(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    corpus = load(DATA, progress=False)
    expected = request(corpus.longest(), wire="anthropic", mode="native", images=corpus.images)
    assert main(["replay", str(DATA), "--wire", "anthropic", "--mode", "native"]) == 0
    out = capsysbinary.readouterr().out
    assert out == expected.bytes + b"\n"
    assert validate(json.loads(out), "anthropic") == []


def test_session_upto_and_no_vision(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    corpus = load(DATA, progress=False)
    s = corpus.sessions[0]
    point = s.path()[1].id
    assert main(["replay", str(DATA), "--wire", "gemini", "--mode", "prose", "--session", s.id, "--upto", point,
                 "--no-vision"]) == 0
    expected = request(s, wire="gemini", mode="prose", upto=point, vision=False, images=corpus.images)
    assert capsysbinary.readouterr().out == expected.bytes + b"\n"


def test_all_check_prints_one_object_of_counts(capsys: pytest.CaptureFixture[str]) -> None:
    sessions = len(load(DATA, progress=False).sessions)
    assert main(["replay", str(DATA), "--all", "--wire", "openai-chat", "--mode", "native", "--check"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {"sessions": sessions, "requests": sessions, "invalid": 0, "problems": 0, "examples": []}
    assert main(["replay", str(DATA), "--all", "--wire", "all", "--mode", "all", "--check", "--sdk"]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == sessions * len(WIRES) * len(MODES)


def test_bad_requests_are_clear_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["replay", str(DATA), "--wire", "ollama", "--mode", "text", "--upto", "no-such-message"]) == 2
    assert "no message 'no-such-message'" in capsys.readouterr().err
    assert main(["replay", str(DATA), "--wire", "ollama", "--mode", "text", "--session", "nope"]) == 2
    assert "no session 'nope'" in capsys.readouterr().err
    assert main(["replay", str(DATA), "--all", "--wire", "ollama", "--mode", "text"]) == 2
    assert "needs --check" in capsys.readouterr().err
    assert main(["replay", str(DATA), "--wire", "all", "--mode", "text"]) == 2
