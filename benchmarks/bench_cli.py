"""How fast the ``toolkit`` command starts, against bare ``python -c pass`` in the same run.

CPU time (user + system) of each child process, not wall time, so another process on the machine
does not count against us; the best of ``--repeat`` runs each. The target: ``toolkit --help`` and
``toolkit costs image ...`` within 3x the bare interpreter (they import only the subcommand they
run, ``toolkit.cli.COMMANDS``).

Run: ``python -m benchmarks.bench_cli [--repeat 20]``. Prints one JSON object; exits 1 over target."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys

TARGET = 3.0
COMMANDS = {
    "help": ["--help"],
    "costs_image": ["costs", "image", "960", "540", "--model", "gpt-4o"],
}


def cpu_seconds(argv: list[str], repeat: int) -> float:
    """The least CPU time a child running ``argv`` took over ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    bare = cpu_seconds([sys.executable, "-c", "pass"], args.repeat)
    result: dict[str, object] = {"benchmark": "bench_cli", "bare_python_ms": round(bare * 1000, 1),
                                 "target_ratio": TARGET}
    worst = 0.0
    for name, words in COMMANDS.items():
        seconds = cpu_seconds([sys.executable, "-m", "toolkit.cli", *words], args.repeat)
        ratio = seconds / bare
        worst = max(worst, ratio)
        result[f"{name}_ms"] = round(seconds * 1000, 1)
        result[f"{name}_ratio"] = round(ratio, 2)
    print(json.dumps(result))
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
