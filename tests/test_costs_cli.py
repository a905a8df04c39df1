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
    assert "tokens (documented): https://platform.claude.com/docs/en/build-with-claude/vision (2026-07-13" in out


def test_image_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "image", "2048", "2048", "--model", "gpt-5.4", "--detail", "high", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["tokens"], data["resized"], data["downscaled"], data["detail"]) == (3000, [1600, 1600], True, "high")
    assert data["source"]["url"].startswith("https://developers.openai.com")


def test_image_gemini_platforms_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's check: 960x540 on gemini-2.5-flash is 258 on the Developer API (measured,
    python-genai#1349) and 6 doc tiles + 1 = 7 x 258 on Vertex AI (measured, python-genai#1907)."""
    assert main(["costs", "image", "960", "540", "--model", "gemini-2.5-flash", "--json"]) == 0
    api = json.loads(capsys.readouterr().out)
    assert (api["tokens"], api["platform"], api["evidence"], api["seen_evidence"]) == (
        258, "gemini-api", "measured", "assumed")
    assert api["source"]["url"] == "https://github.com/googleapis/python-genai/issues/1349"
    assert api["source"]["date"] == "2025-09-09"
    assert api["seen_source"]["url"] == "https://ai.google.dev/gemini-api/docs/image-understanding"
    assert main(["costs", "image", "960", "540", "--model", "gemini-2.5-flash", "--platform", "vertex", "--json"]) == 0
    vertex = json.loads(capsys.readouterr().out)
    assert (vertex["tokens"], vertex["platform"], vertex["evidence"], vertex["seen_evidence"]) == (
        1806, "vertex", "assumed", "documented")
    assert vertex["tiles"] == {"crop": 360, "columns": 3, "rows": 2, "tile": 768}  # the doc's 6 tiles = 1548
    assert vertex["source"]["url"] == "https://github.com/googleapis/python-genai/issues/1907"


def test_image_plain_names_evidence_and_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "image", "960", "540", "--model", "gemini-2.5-flash"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("258 tokens  960x540 -> 768x432  (gemini-2.5-flash, gemini-api")
    assert lines[1].startswith("tokens (measured): https://github.com/googleapis/python-genai/issues/1349 (2025-09-09")
    assert lines[2].startswith("seen size (assumed): https://ai.google.dev/gemini-api/docs/image-understanding")


def test_image_media_resolution(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["costs", "image", "4000", "3000", "--model", "gemini-3-pro-preview",
                 "--media-resolution", "MEDIA_RESOLUTION_LOW", "--platform", "vertex", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["tokens"], data["detail"], data["evidence"], data["resized"]) == (280, "low", "documented", [800, 600])
    assert main(["costs", "image", "10", "10", "--model", "gpt-4o", "--media-resolution", "low"]) == 2
    assert "Gemini setting" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["costs", "image", "10", "10", "--model", "gemini-2.5-flash", "--platform", "bedrock"])
    assert "invalid choice: 'bedrock'" in capsys.readouterr().err


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
