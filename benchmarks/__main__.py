"""Run every benchmark in turn (``make bench``); each prints one JSON object with its ratio."""

from __future__ import annotations

import subprocess
import sys

BENCHMARKS = ("bench_cli", "bench_import", "bench_replay", "bench_costs", "bench_snapshot", "bench_widgets",
              "bench_simulate", "bench_parallel", "bench_ocr")


def main() -> int:
    failed = []
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, "-m", f"benchmarks.{name}"], check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"missed their targets: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
