"""Run every benchmark in turn (``make bench``); each prints one JSON object with its ratio, and
``benchmarks/RESULTS.md`` is written from what they printed (``benchmarks.results``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.results import Outcome, load_average, write

BENCHMARKS = ("bench_cli", "bench_import", "bench_import_memory", "bench_replay", "bench_costs", "bench_snapshot",
              "bench_widgets", "bench_simulate", "bench_parallel", "bench_ocr")

RESULTS = Path(__file__).with_name("RESULTS.md")


def main() -> int:
    outcomes = []
    start_load = load_average()
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}"], check=False, stdout=subprocess.PIPE,
                              text=True)
        sys.stdout.write(done.stdout)
        outcomes.append(Outcome(name, done.returncode, done.stdout))
    write(outcomes, RESULTS, start_load)
    print(f"wrote {RESULTS.name}", flush=True)
    failed = [outcome.name for outcome in outcomes if outcome.returncode != 0]
    if failed:
        print(f"missed their targets: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
