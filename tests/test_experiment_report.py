"""The experiment's table: counts per point x mode x model and the Wilson interval of the call rate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolkit.experiment.report import Z95, chart, load_results, table, wilson
from toolkit.experiment.trials import ReplyKind


@pytest.mark.parametrize(("successes", "n", "low", "high"), [
    # Newcombe, "Two-sided confidence intervals for the single proportion: comparison of seven methods",
    # Statistics in Medicine 17 (1998) 857-872, Table I, method 3 (Wilson score, no continuity correction).
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_against_published_values(successes: int, n: int, low: float, high: float) -> None:
    got_low, got_high = wilson(successes, n)
    assert got_low == pytest.approx(low, abs=5e-5) and got_high == pytest.approx(high, abs=5e-5)


def test_wilson_closed_forms_and_edges() -> None:
    z2 = Z95 * Z95
    low, high = wilson(9, 9)
    assert low == pytest.approx(9 / (9 + z2)) and high == 1.0, "9 of 9: n/(n+z²) to 1"
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(z2 / (10 + z2))
    assert wilson(0, 0) == (0.0, 1.0)
    for bad in ((3, 2), (-1, 4)):
        with pytest.raises(ValueError, match="successes"):
            wilson(*bad)


def _reply(mode: str, model: str, index: int, kind: ReplyKind, at: str = "m3") -> dict[str, Any]:
    return {"type": "reply", "key": f"{at}/{mode}/{model}/{index}", "file": "f.jsonl", "session": "s1", "at": at,
            "wire": "openai-chat", "model": model, "mode": mode, "index": index, "expect": ["close_todo"],
            "recorded": "called", "kind": kind, "text": "", "calls": ["close_todo"] if kind == "called" else [],
            "usage": {"input": 100, "cached": 0, "cache_write": 0, "output": 10}, "cost_usd": None,
            "response": {"choices": []}, "request_sha256": "0" * 64, "fidelity": [], "time": "", "seconds": 0.1}


def _ledger(path: Path) -> Path:
    """An unpublished earlier run's Kimi row: 3 calls of 16 with text replay, 9 of 9 native; plus a line cut short by a
    crash and a request and an error line, which are not replies."""
    called: list[ReplyKind] = ["called"]
    said: list[ReplyKind] = ["said"]
    other: list[ReplyKind] = ["other"]
    kinds = called * 3 + said * 7 + other * 5 + ["called_other"]
    lines = [{"type": "request", "sha256": "0" * 64, "body": {}}]
    lines += [_reply("text", "kimi-k2", i, kind) for i, kind in enumerate(kinds)]
    lines += [_reply("native", "kimi-k2", i, "called") for i in range(9)]
    lines.append({"type": "error", "key": "x", "error": "RateLimitError"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"type": "reply", "key": "cut', "utf-8")
    return path


def test_the_table_of_a_results_file(tmp_path: Path) -> None:
    frame = load_results(_ledger(tmp_path / "results.jsonl"))
    assert frame.height == 25 and frame["calls"].dtype.is_nested()
    rows = table(frame).to_dicts()
    assert [(r["mode"], r["model"], r["n"], r["called"], r["called_other"], r["said"], r["other"]) for r in rows] == [
        ("text", "kimi-k2", 16, 3, 1, 7, 5), ("native", "kimi-k2", 9, 9, 0, 0, 0)]
    text, native = rows
    assert text["rate"] == 3 / 16 and (text["low"], text["high"]) == wilson(3, 16)
    assert (native["rate"], native["high"]) == (1.0, 1.0) and native["low"] == pytest.approx(0.7009, abs=1e-4)
    assert text["expect"] == "close_todo"


def test_an_empty_results_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", "utf-8")
    frame = load_results(empty)
    assert frame.height == 0 and table(frame).height == 0
    assert load_results(tmp_path / "missing.jsonl").height == 0


def test_the_chart_shows_rate_and_interval_per_mode_and_model(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in _ledger(tmp_path / "r.jsonl").read_text().splitlines()[:-1]]
    lines += [_reply("text", "grok-4", i, "said" if i < 7 else "called") for i in range(27)]
    lines += [_reply("native", "kimi-k2", i, "called", at="m9") for i in range(4)]
    path = tmp_path / "more.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    spec = chart(load_results(path)).to_dict()
    assert "facet" in spec, "one panel per point"
    layers = spec["spec"]["layer"]
    assert [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in layers] == [
        "errorbar", "point"]
    assert layers[0]["encoding"]["y"]["field"] == "low" and layers[0]["encoding"]["y2"]["field"] == "high"
    assert layers[1]["encoding"]["y"]["field"] == "rate"
    data = next(iter(spec["datasets"].values()))
    assert {(row["point"], row["mode"], row["model"]) for row in data} == {
        ("s1 @ m3", "text", "kimi-k2"), ("s1 @ m3", "native", "kimi-k2"), ("s1 @ m3", "text", "grok-4"),
        ("s1 @ m9", "native", "kimi-k2")}
