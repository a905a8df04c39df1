"""``toolkit fingerprint`` and ``toolkit surfaces``: thin shells over the library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers import SURFACE_1, SURFACE_2, demo_corpus
from toolkit.cli import main
from toolkit.surface import SurfaceStore, canonical_bytes, fingerprint


def write(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def test_fingerprint_of_a_tool_list_and_of_a_request_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = write(tmp_path / "tools.json", SURFACE_1)
    body = write(tmp_path / "body.json", {"model": "gpt-4o", "tools": SURFACE_1, "messages": []})
    assert main(["fingerprint", str(listed)]) == 0
    assert main(["fingerprint", str(body)]) == 0
    assert main(["fingerprint", str(body), "--semantic"]) == 0
    assert capsys.readouterr().out.split() == [
        fingerprint(SURFACE_1), fingerprint(SURFACE_1), fingerprint(SURFACE_1, semantic=True),
    ]


def test_fingerprint_names_the_file_and_line_of_bad_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[\n {"name": "x"},\n nope\n]', encoding="utf-8")
    assert main(["fingerprint", str(bad)]) == 2
    assert f"{bad}:3: not valid JSON" in capsys.readouterr().err
    assert main(["fingerprint", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_fingerprint_runs_as_a_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "toolkit.cli", "fingerprint", "-"], input=json.dumps(SURFACE_2),
        capture_output=True, text=True, cwd=REPO, check=True,
    ).stdout
    assert out == fingerprint(SURFACE_2) + "\n"


def test_surfaces_summarises_a_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = demo_corpus().save(tmp_path / "corpus")
    today = write(tmp_path / "today.json", {"tools": SURFACE_2})
    store_dir = tmp_path / "store"
    assert main(["surfaces", str(saved), "--store", str(store_dir), "--tools", str(today), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    size_1, size_2 = len(canonical_bytes(SURFACE_1)), len(canonical_bytes(SURFACE_2))
    assert {k: data[k] for k in ("sessions", "runs", "recorded", "distinct", "distinct_semantic")} == {
        "sessions": 4, "runs": 4, "recorded": 3, "distinct": 2, "distinct_semantic": 2,
    }
    assert data["fidelity"] == {"matches": 1, "differs": 2, "unknown": 1}
    assert data["unknown_reasons"] == {
        "the Claude Code transcript format records tool names only, not the specs sent": 1,
    }
    assert (data["inline_bytes_per_session"], data["store_bytes"]) == (2 * size_1 + size_2, size_1 + size_2)
    assert sorted(SurfaceStore(store_dir)) == sorted([fingerprint(SURFACE_1), fingerprint(SURFACE_2)])

    assert main(["surfaces", str(saved)]) == 0
    text = capsys.readouterr().out
    assert "runs with a recorded surface  3 (75%)" in text
    assert "matches 0, differs 0, unknown 4" in text
    assert f"store bytes                   {size_1 + size_2:,}" in text
