"""Widget cells under load: how many replies nbclient's own ``Output`` widget mimic reads late,
against the report's ``LocalOutputWidget``, in the same run (``toolkit.report.stress``).

Run: ``python -m benchmarks.bench_widgets [--cells 40] [--repeat 2]``. Prints one JSON object;
exits 1 if any cell of the report's executor was late."""

from __future__ import annotations

import argparse
import json
import sys

from toolkit.report.stress import stress


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    counts = {"stock": 0, "report": 0}
    for _ in range(args.repeat):
        counts["stock"] += len(stress(args.cells, timeout=15, stock=True).late)
        counts["report"] += len(stress(args.cells, timeout=60).late)
    cells = args.cells * args.repeat
    print(json.dumps({"benchmark": "bench_widgets", "cells": cells, "late_stock_nbclient": counts["stock"],
                      "late_report": counts["report"], "target_late_report": 0}))
    return 0 if counts["report"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
