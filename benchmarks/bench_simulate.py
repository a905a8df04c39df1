"""Compaction simulator throughput, as a ratio to pricing the same requests without compaction.

The demo generator writes ``--sessions`` varied Claude Code sessions (``python -m toolkit.demo
--scale N --log-lines 600``); ``simulate_corpus`` replays each under four policies for three models with a window
small enough that every compacting policy compacts. The baseline, timed in the same run,
prices every request of every session for each model as it was recorded, once per policy, with one
counter per session and model as the simulator keeps (``ContextCounter.request`` over the path
before each reply and ``request_cost`` on it): the least any replay that prices turns does. The
ratio is simulator time over baseline time for the same sessions x policies x models: what the
policy, the rungs, the cache split and the retention check add. Target: at most 3x.

Run: ``python -m benchmarks.bench_simulate [--sessions 1000] [--repeat 1]``. Prints one JSON
object; exits 1 when the ratio is over the target."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from benchmarks import best_of
from toolkit import demo

TARGET = 3.0
MODELS = ("claude-sonnet-4-5", "gpt-5", "gemini-2.5-flash")
POLICIES = ("none", "elide-only", "ladder-no-summary", "ladder")
WINDOW = 40_000
"""Tokens. With 600-line test logs the generated sessions grow from 17,000 tokens (the system prompt
and tools their usage reports but the transcript does not show) to about 36,000 after the first log,
so every compacting policy compacts."""
LOG_LINES = 600


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    from toolkit.compaction import simulate_corpus
    from toolkit.compaction.simulator import replayed, turns
    from toolkit.corpus import load
    from toolkit.costs.calibration import ContextCounter
    from toolkit.costs.prices import request_cost

    with tempfile.TemporaryDirectory(prefix="bench-simulate-") as tmp:
        demo.write(Path(tmp), scale=args.sessions, log_lines=LOG_LINES)
        corpus = load(Path(tmp), progress=False)
    sessions = corpus.sessions

    def baseline() -> int:
        requests = 0
        for session in sessions:
            path = replayed(session)
            for model in MODELS:
                counter = ContextCounter(model)
                for _policy in POLICIES:
                    for start, end in turns(path):
                        prompt = counter.request(path[:start])
                        request_cost(model, prompt, round(sum(counter.tokens(path[start:end]))))
                        requests += 1
        return requests

    def simulated() -> tuple[int, int]:
        frame = simulate_corpus(sessions, MODELS, POLICIES, window=WINDOW, progress=False)
        return frame.height, int(frame["compactions"].sum())

    base_time, requests = best_of(args.repeat, baseline)
    sim_time, (rows, compactions) = best_of(args.repeat, simulated)
    runs = len(sessions) * len(MODELS) * len(POLICIES)
    per_run = sim_time / runs
    per_base = base_time / runs
    ratio = sim_time / base_time
    print(json.dumps({
        "sessions": len(sessions), "models": list(MODELS), "policies": list(POLICIES), "window": WINDOW,
        "runs": runs, "requests": requests, "rows": rows, "compactions": compactions, "simulate_seconds": round(sim_time, 2),
        "baseline_seconds": round(base_time, 2), "ms_per_session_policy_model": round(per_run * 1000, 2),
        "ms_per_session_policy_model_baseline": round(per_base * 1000, 2), "ratio": round(ratio, 2),
        "target_ratio": TARGET, "within_target": ratio <= TARGET,
    }, indent=2))
    if ratio > TARGET:
        print(f"bench_simulate: {ratio:.2f}x the baseline, over the {TARGET}x target", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
