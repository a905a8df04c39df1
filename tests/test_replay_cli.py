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
    assert main(["replay", str(DATA), "--all", "--wire", "openai-chat", "--mode", "native", "--check", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {"sessions": sessions, "requests": sessions, "invalid": 0, "problems": 0, "examples": [],
                      "by_wire_mode": [{"wire": "openai-chat", "mode": "native", "requests": sessions, "invalid": 0}]}
    assert main(["replay", str(DATA), "--all", "--wire", "all", "--mode", "all", "--check", "--sdk", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["requests"] == sessions * len(WIRES) * len(MODES)
    assert [(cell["wire"], cell["mode"]) for cell in result["by_wire_mode"]] == [(w, m) for w in WIRES for m in MODES]


def test_all_check_prints_a_wire_by_mode_table(capsys: pytest.CaptureFixture[str]) -> None:
    sessions = len(load(DATA, progress=False).sessions)
    assert main(["replay", str(DATA), "--all", "--wire", "all", "--mode", "all", "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["wire", *MODES]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:2 + len(WIRES)]}
    assert list(rows) == list(WIRES)
    assert all(cells == [f"0/{sessions}"] * len(MODES) for cells in rows.values())
    assert lines[2 + len(WIRES)].startswith(f"{sessions} sessions, {sessions * len(WIRES) * len(MODES)} requests, 0 invalid")


def test_pretty_indents_the_body_and_an_unknown_model_is_warned_of(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(DATA), "--wire", "anthropic", "--mode", "text", "--pretty", "--model", "claude-sonnet-4-5"]) == 0
    shown = capsys.readouterr()
    assert shown.out.startswith("{\n  ") and json.loads(shown.out)["model"] == "claude-sonnet-4-5"
    assert "warning" not in shown.err
    assert main(["replay", str(DATA), "--wire", "anthropic", "--mode", "text", "--model", "claude-sonet-4-5"]) == 0
    assert "warning: --model 'claude-sonet-4-5' is not in the toolkit's model table" in capsys.readouterr().err
    assert main(["replay", str(DATA), "--wire", "ollama", "--mode", "text", "--model", "llama3.2"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_bad_requests_are_clear_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["replay", str(DATA), "--wire", "ollama", "--mode", "text", "--upto", "no-such-message"]) == 2
    assert "no message 'no-such-message'" in capsys.readouterr().err
    assert main(["replay", str(DATA), "--wire", "ollama", "--mode", "text", "--session", "nope"]) == 2
    assert "no session 'nope'" in capsys.readouterr().err
    assert main(["replay", str(DATA), "--all", "--wire", "ollama", "--mode", "text"]) == 2
    assert "needs --check" in capsys.readouterr().err
    assert main(["replay", str(DATA), "--wire", "all", "--mode", "text"]) == 2
