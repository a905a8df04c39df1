"""The page ``make bench`` writes: every benchmark's figures and verdict, the machine and the date."""

from __future__ import annotations

import datetime

from benchmarks.__main__ import BENCHMARKS
from benchmarks.results import Outcome, figures, last_json, render, summary_of


def test_last_json_skips_progress_lines_and_takes_the_final_object() -> None:
    text = 'round 1 {not json\n{"a": 1}\nmore\n{"ratio": 2.5, "nested": {"met": true}}\n'
    assert last_json(text) == {"ratio": 2.5, "nested": {"met": True}}
    assert last_json("no object at all") is None


def test_figures_keep_ratios_targets_and_verdicts_only() -> None:
    printed = {"corpus_mb": 15.8, "runs_s": [0.3, 0.4], "openai_chat": {"ratio_paired_median": 3.2,
               "target_ratio": 4.0, "met": True, "files": 800}, "late_report": 0}
    assert dict(figures(printed)) == {"openai_chat.ratio_paired_median": 3.2, "openai_chat.target_ratio": 4.0,
                                      "openai_chat.met": True, "late_report": 0}


def test_figures_are_keys_whose_words_name_one() -> None:
    """Every benchmark's verdict words are taken (``bench_parallel``'s speedups, ``bench_costs``'
    ``time_vs_tiktoken``), and a word only inside another is not (``simulate``, ``geometry``)."""
    printed = {"simulate_seconds": 203.3, "geometry": "6x11 cells", "ingest_speedup": 0.98,
               "ray_sweep_overhead": 0.83, "tiktoken": {"seconds": 0.4, "time_vs_tiktoken": 1.0},
               "same_reading": True, "late_stock_nbclient": 5}
    assert dict(figures(printed)) == {"ingest_speedup": 0.98, "ray_sweep_overhead": 0.83,
                                      "tiktoken.time_vs_tiktoken": 1.0, "same_reading": True,
                                      "late_stock_nbclient": 5}


def test_render_names_every_benchmark_its_verdict_the_machine_and_the_commit() -> None:
    outcomes = [Outcome("bench_cli", 0, '{"ratio": 1.7, "target_ratio": 3}'),
                Outcome("bench_import", 1, "crashed before printing")]
    page = render(outcomes, datetime.datetime(2026, 12, 4, 1, 30), "Linux x86_64, 2 cores", "abc1234", (5.46, 9.17))
    assert "2026-12-04 01:30 UTC at commit `abc1234`, on Linux x86_64, 2 cores" in page
    assert "load average was 5.5 at the start and 9.2 at the end" in page
    assert "load average" not in render(outcomes, datetime.datetime(2026, 12, 4), "Linux", "abc1234")
    rows = [line for line in page.splitlines() if line.startswith("| `bench_")]
    assert len(rows) == 2
    assert "| met |" in rows[0] and "`ratio` 1.7" in rows[0]
    assert "**missed** (exit 1)" in rows[1] and "no figures printed" in rows[1]


def test_every_benchmark_says_what_it_measures() -> None:
    for name in BENCHMARKS:
        assert len(summary_of(name)) > 20, name
