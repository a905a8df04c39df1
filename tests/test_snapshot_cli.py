"""``toolkit snapshot``: a thin shell over render, assess and compact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import DATA
from toolkit.cli import main
from toolkit.snapshot.font import load
from toolkit.snapshot.geometry import preset
from toolkit.snapshot.legibility import MAX_CONTROL_CER
from toolkit.snapshot.render import decode, render
from toolkit.snapshot.tradeoff import PRESET_REFLOW, choose, geometry_for

KEYS = {"pages", "chars", "uncovered_chars", "image_tokens", "text_tokens", "compression", "resized", "legibility"}


def test_text_file_to_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "notes.txt"
    text = "line one\n\tline two  \nІсторія ✓ 😀\n" * 200
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "pages"
    assert main(["snapshot", str(source), "--model", "gpt-5.4", "-o", str(out), "--json",
                 "--readers", "rapidocr", "--reader-rows", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= KEYS
    geometry = geometry_for("gpt-5.4")
    pages = render(text, geometry)
    assert data["pages"] == len(pages) and data["chars"] == len(text)
    assert data["uncovered_chars"] == 200
    # Ukrainian І, с, о, р, і share Latin I, c, o, p, i's bitmaps: they survive but are not read
    assert data["resized"] is False and data["lookalike_chars"] == 5 * 200
    # these rows' control is misread too (the readers read no Cyrillic, no emoji): past the ceiling, not judged
    judged = data["control_cer"] <= MAX_CONTROL_CER
    assert 0 <= data["reader_cer"] <= 1 and data["legible"] is (
        data["reader_cer"] - data["control_cer"] <= 0.01 if judged else None)
    assert judged or "on the control itself" in data["not_judged"]
    reading, = data["readers"].values()
    assert 0 < reading["chars"] < len(text) and data["seen_evidence"] == "documented"
    assert data["image_tokens"] == data["tokens_per_page"] * len(pages)
    assert data["compression"] == round(data["text_tokens"] / data["image_tokens"], 3)
    written = sorted(out.glob("page-*.png"))
    assert len(written) == len(pages)
    with Image.open(written[0]) as image:
        assert image.size == geometry.size and image.mode == ("L" if load(geometry.cell).grey else "1")
    assert written[0].read_bytes() == pages[0].png()


def test_reflow_runs_lines_on_and_fills_the_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "notes.txt"
    text = "ok\n\tshort line  \nA longer line of prose, as an agent writes it.\n" * 300
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "pages"
    runs = {}
    for flag in ("--lines", "--reflow", None):
        assert main(["snapshot", str(source), "--model", "claude-sonnet-4.5", "--json", "--readers", "none",
                     "-o", str(out / str(flag)), *([flag] if flag else [])]) == 0
        runs[flag] = json.loads(capsys.readouterr().out)
    flowed, lines = runs["--reflow"], runs["--lines"]
    assert flowed["reflow"] is True and lines["reflow"] is False
    assert runs[None]["reflow"] is PRESET_REFLOW, "without either, the presets' layout"
    assert flowed["fill"] > 0.95 > 0.6 > lines["fill"]
    assert flowed["compression_full"] > 1.5 * lines["compression_full"]
    geometry = preset("claude-sonnet-4.5", choose("claude-sonnet-4.5"), reflow=True).geometry
    pages = sorted((out / "--reflow").glob("page-*.png"))
    assert decode([Image.open(p) for p in pages], geometry).text == text


def test_explicit_cell_and_page_over_the_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "t.txt"
    source.write_text("An image is billed flat or by area, never by the characters in it.\n" * 60, encoding="utf-8")
    assert main(["snapshot", str(source), "--model", "claude-sonnet-4.5", "--cell", "dejavu-aa-7x14",
                 "--page", "2000x1000", "--json", "--readers", "none"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["page"] == "2000x1000" and data["resized"] is True and data["legibility"] < 0.99
    assert data["cell"] == "dejavu-aa-7x14"
    assert data["reader_cer"] is None and data["legible"] is None


def test_corpus_file_snapshots_the_middle_of_its_longest_session(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted((DATA / "claude_code").glob("*.jsonl"))
    assert files, "the demo corpus data/claude_code/ (tracked in the repo) holds no session"
    assert main(["snapshot", str(files[0]), "--model", "openrouter/anthropic/claude-sonnet-4.5",
                 "--head", "1", "--tail", "1", "--reader-rows", "12"]) == 0
    out = capsys.readouterr().out
    assert "middle messages" in out and "compression" in out and "legibility" in out
    assert "reader_cer" in out and "rapidocr-onnxruntime" in out and "control_cer" in out


def test_bad_input_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "t.txt"
    source.write_text("x", encoding="utf-8")
    assert main(["snapshot", str(source), "--model", "no-such-model"]) == 2
    assert "unknown model" in capsys.readouterr().err
    assert main(["snapshot", str(source), "--model", "gpt-4o", "--cell", "4by6"]) == 2
    assert "no glyph cell '4by6'" in capsys.readouterr().err
    assert main(["snapshot", str(source), "--model", "gpt-4o", "--page", "10by20"]) == 2
    assert "WxH" in capsys.readouterr().err
    assert main(["snapshot", str(tmp_path / "missing.txt"), "--model", "gpt-4o"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_experiment_pages_dry_run_prices_the_pages_and_sends_nothing(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("def f(x):\n    return x + 1\n" * 200, encoding="utf-8")
    out = tmp_path / "pages.jsonl"
    assert main(["experiment-pages", str(source), "--wire", "anthropic", "--model", "claude-sonnet-4.5", "-n", "2",
                 "--dry-run", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("notes  anthropic claude-sonnet-4.5 ") and " x2  ~" in printed
    assert "nothing was sent" in printed
    assert "2 replies, estimated $" in printed and not out.exists()


def test_experiment_pages_dry_run_sends_reflowed_pages_on_request(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The dry run names each body by its sha256 (of the first 4,000 characters, ``--chars``): with
    ``--reflow`` it is the body of reflowed pages under the prompt that explains their break mark,
    with ``--lines`` the body of a row per line."""
    from toolkit.experiment.pages import Sample, page_request
    from toolkit.experiment.run import body_sha256

    text = "def f(x):\n    return x + 1\n" * 200
    source = tmp_path / "notes.txt"
    source.write_text(text, encoding="utf-8")
    printed = {}
    for flag in ("--reflow", "--lines"):
        assert main(["experiment-pages", str(source), "--wire", "anthropic", "--model", "claude-sonnet-4.5",
                     flag, "--dry-run", "-o", str(tmp_path / "pages.jsonl")]) == 0
        printed[flag] = capsys.readouterr().out
    for flag, reflow in (("--reflow", True), ("--lines", False)):
        built, pages = page_request(Sample("notes", text[:4000]), wire="anthropic", model="claude-sonnet-4.5",
                                    reflow=reflow)
        assert all(page.geometry.reflow is reflow for page in pages)
        assert f"body {body_sha256(built)}" in printed[flag]
        assert ("the end of each line is marked" in built.bytes.decode()) is reflow, "the break mark explained"
    assert printed["--reflow"].startswith("notes  anthropic claude-sonnet-4.5 reflow x1  ~")
    with pytest.raises(SystemExit) as exited:
        main(["experiment-pages", str(source), "--wire", "anthropic", "--model", "m", "--reflow", "--lines",
              "--dry-run"])
    assert exited.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_experiment_pages_names_a_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment-pages", str(tmp_path / "absent.txt"), "--wire", "anthropic", "--model", "m",
                 "--dry-run"]) == 2
    assert "absent.txt: no such file" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    assert main(["experiment-pages", str(empty), "--wire", "anthropic", "--model", "m", "--dry-run"]) == 2
    assert "empty.txt: no text to render" in capsys.readouterr().err
