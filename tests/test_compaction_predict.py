"""Every compaction recorded in the shared corpora beside its client's own rule, replayed on the same
history: the automatic ones fire within one request and leave a size within 25%; the manual one is
no threshold's doing, and the rule run where it ran leaves the recorded size within 25%."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.compaction.predicted import SCHEMA, client_policy, predict
from toolkit.corpus import load

GOLFGOD = Path("claude_code") / "golfgod_v2.0.22_compaction_forks_images.chat.json"
RPS3 = Path("codex") / "rps3_cli0.47.0_compacted.jsonl"


def test_each_client_version_has_its_policy() -> None:
    assert [client_policy("claude_code", v).name for v in ("2.0.22", "2.1.20", "2.1.21", "2.1.143")  # type: ignore[union-attr]
            ] == ["claude-code-2.0", "claude-code-2.0", "claude-code-2.1", "claude-code-2.1"]
    assert client_policy("claude_code", None).name == "claude-code-2.1"  # type: ignore[union-attr]
    assert client_policy("codex", "0.47.0").name == "codex"  # type: ignore[union-attr]
    assert client_policy("aider", None) is None


def test_every_recorded_compaction_in_the_shared_corpora_is_predicted(corpora: Path) -> None:
    rows = predict(load(corpora, progress=False)).to_dicts()
    assert {r["session"][:8] for r in rows} == {"fb36f7a7", "019a152d"}  # golfgod and rps3: every one there is
    for row in rows:
        assert row["policy"] is not None and row["note"] is None, row
        assert row["after_if_run_here"] is not None
        if row["trigger"] == "auto":
            assert row["predicted_offset"] is not None and abs(row["predicted_offset"]) <= 1, row
            assert abs(row["predicted_after"] - row["tokens_after"]) <= 0.25 * row["tokens_after"], row
        else:
            assert row["count_at_recorded"] < row["threshold"], row  # no threshold explains a manual one
            assert abs(row["after_if_run_here"] - row["tokens_after"]) <= 0.25 * row["tokens_after"], row


def test_golfgod_is_claude_code_2_0s_rule_and_count(corpora: Path) -> None:
    """2.0.22 compacted when its count reached 155,000: the count at the recorded point (last prompt
    157,134 + the reply's output, the results after it uncounted) is within 1% of its preTokens; the
    request before was under by the size of a reply the record does not state (output written as 2)."""
    (row,) = predict(load(corpora / GOLFGOD, progress=False)).to_dicts()
    assert (row["client"], row["version"], row["trigger"], row["policy"]) == ("claude_code", "2.0.22", "auto",
                                                                              "claude-code-2.0")
    assert row["threshold"] == 155_000 and abs(row["count_at_recorded"] - 157_932) < 0.01 * 157_932
    assert row["predicted_offset"] in (-1, 0) and 155_000 <= row["predicted_count"] < 157_134
    assert abs(row["predicted_after"] - 58_685) < 0.25 * 58_685


def test_rps3_was_manual_and_codexs_rule_would_not_have_fired_there(corpora: Path) -> None:
    (row,) = predict(load(corpora / RPS3, progress=False)).to_dicts()
    assert (row["trigger"], row["trigger_from"], row["policy"], row["threshold"]) == ("manual", "turns", "codex",
                                                                                      244_800)
    assert abs(row["count_at_recorded"] - (175_342 + 79)) < 200  # its last request's input + output
    assert abs(row["after_if_run_here"] - 24_378) < 0.25 * 24_378


def test_cli_predict_as_json_and_as_a_table(corpora: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compactions", str(corpora / RPS3), "--predict", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert list(row) == list(SCHEMA) and row["trigger"] == "manual" and row["policy"] == "codex"
    assert main(["compactions", str(corpora / GOLFGOD), "--predict"]) == 0
    header, line = capsys.readouterr().out.splitlines()
    assert header.split()[:5] == ["client", "version", "session", "trigger", "before"]
    assert line.split()[:7] == ["claude_code", "2.0.22", "fb36f7a7-925d-4642-b220-ec2be3569883", "auto", "157,932", "58,685",
                                "claude-code-2.0"]
