"""A published result checked: "The Complexity Trap" (Lindenbauer et al., arXiv 2508.21433 v3,
NeurIPS 2025 DL4Code) reports that on SWE-agent trajectories masking every observation but the
last 10 costs about half of the raw history (Qwen3-Coder 480B: $0.61 against $1.29 per instance)
and summarising about the same ($0.64).

A replay holds the agent's actions fixed, so only the cost side can be compared: the paper's
ratios also carry the behaviour each strategy caused (summaries lengthened trajectories by about
13-15%), which no replay reproduces. The paper's model has no price here, so the cost ratio is taken at
models that have one, with their prompt caches (a cache changes the answer: masking rewrites the
prompt on every request), beside the ratio of tokens sent (input and output, summary requests
included), which is what a bill without a cache follows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import polars as pl

from toolkit.compaction.policy import POLICIES
from toolkit.compaction.simulator import replayed, simulate, turns
from toolkit.record import Session

if TYPE_CHECKING:
    from toolkit.corpus import Corpus

PAPER = "arXiv 2508.21433 v3 (Qwen3-Coder 480B, SWE-bench Verified, 500 instances)"
PAPER_RAW_USD = 1.29
PAPER_MASKING_USD = 0.61
PAPER_SUMMARY_USD = 0.64
"""Per instance, as third-party summaries of v3 quote them (cognaptus, read 2026-12-02)."""

STRATEGIES = ("none", "observation-masking", "llm-summary")
MODELS = ("claude-sonnet-4-5", "gpt-4o")
"""A breakpoint cache (writes billed) and an automatic one (writes free)."""


def complexity_trap(corpus: Corpus | Iterable[Session], models: Sequence[str] = MODELS,
                    formats: Sequence[str] = ("sweagent",)) -> pl.DataFrame:
    """Per trajectory (sessions of ``formats``) and model: the replayed cost under the raw history,
    observation masking (keep 10) and the summarising policy, each cost's and each token count's
    ratio to raw, beside the paper's cost ratios."""
    rows = []
    for session in corpus:
        if session.format not in formats or not turns(replayed(session)):
            continue
        for model in models:
            frames = {name: simulate(session, model, POLICIES[name]) for name in STRATEGIES}
            costs = {name: float(f["cost_usd"].sum()) for name, f in frames.items()}
            sent = {name: int(f.select(pl.sum_horizontal("context_tokens", "output_tokens", "summary_input_tokens",
                                                        "summary_output_tokens")).sum().item())
                    for name, f in frames.items()}
            raw, raw_tokens = costs["none"], sent["none"]
            rows.append({
                "session": session.id, "model": model, "requests": len(turns(replayed(session))),
                "raw_usd": raw, "masking_usd": costs["observation-masking"], "summary_usd": costs["llm-summary"],
                "masking_ratio": costs["observation-masking"] / raw if raw else None,
                "summary_ratio": costs["llm-summary"] / raw if raw else None,
                "masking_token_ratio": sent["observation-masking"] / raw_tokens if raw_tokens else None,
                "summary_token_ratio": sent["llm-summary"] / raw_tokens if raw_tokens else None,
                "paper_masking_ratio": PAPER_MASKING_USD / PAPER_RAW_USD,
                "paper_summary_ratio": PAPER_SUMMARY_USD / PAPER_RAW_USD,
            })
    return pl.DataFrame(rows, schema={
        "session": pl.String, "model": pl.String, "requests": pl.Int64, "raw_usd": pl.Float64,
        "masking_usd": pl.Float64, "summary_usd": pl.Float64, "masking_ratio": pl.Float64,
        "summary_ratio": pl.Float64, "masking_token_ratio": pl.Float64, "summary_token_ratio": pl.Float64,
        "paper_masking_ratio": pl.Float64, "paper_summary_ratio": pl.Float64,
    })
