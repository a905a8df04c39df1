"""``toolkit costs``: the command line is a thin shell over the library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main


def test_image_plain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "image", "1920", "1080", "--model", "claude-sonnet-4-5-20250929"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1560 tokens  1920x1080 -> 1456x819")
    assert "platform.claude.com" in out


def test_image_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "image", "2048", "2048", "--model", "gpt-5.4", "--detail", "high", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["tokens"], data["resized"], data["downscaled"], data["detail"]) == (3000, [1600, 1600], True, "high")
    assert data["source"]["url"].startswith("https://developers.openai.com")


def test_image_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "image", "10", "10", "--model", "no-such-model"]) == 2
    assert "Known families" in capsys.readouterr().err
    assert main(["costs", "image", "10", "10", "--model", "gpt-4o", "--detail", "original"]) == 2


def test_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "note.txt"
    path.write_text("hello world", encoding="utf-8")
    assert main(["costs", "text", str(path), "--model", "gpt-4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["tokens"], data["exact"], data["method"]) == (2, True, "tiktoken:cl100k_base")
    assert main(["costs", "text", str(path), "--model", "claude-opus-4-5"]) == 0
    assert "estimate, median error" in capsys.readouterr().out


def test_text_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "text", str(tmp_path / "missing.txt"), "--model", "gpt-4o"]) == 2
    assert "missing.txt: cannot read" in capsys.readouterr().err
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\xff\xfe\x00abc")
    assert main(["costs", "text", str(binary), "--model", "gpt-4o"]) == 2
    assert "not UTF-8" in capsys.readouterr().err


@pytest.mark.slow
def test_calibrate(corpora: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "calibrate", str(corpora / "gemini"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {row["provider"] for row in rows} == {"google"}
