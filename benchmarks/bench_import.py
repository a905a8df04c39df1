"""Import throughput: ``toolkit.load`` on a generated corpus of at least 200 MB against a bare
``json.loads`` loop over the same lines, each in its own process so peak memory is its own.

Run: ``python -m benchmarks.bench_import [--mb 200] [--out DIR]``. Prints one JSON object."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

BASELINE = """
import json, resource, sys, time
from pathlib import Path
start = time.perf_counter()
n = 0
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with path.open("rb") as handle:
        for line in handle:
            if line.strip():
                json.loads(line)
                n += 1
print(time.perf_counter() - start, n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

TOOLKIT = """
import resource, sys, time
from toolkit.corpus import load
start = time.perf_counter()
corpus = load(sys.argv[1], progress=False)
elapsed = time.perf_counter() - start
print(elapsed, sum(len(s.messages) for s in corpus.sessions), len(corpus.problems),
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def measure(code: str, corpus: Path) -> list[str]:
    """Run ``code`` in a fresh interpreter and return the fields it printed (the last one is its
    own peak resident memory in KiB)."""
    out = subprocess.run([sys.executable, "-c", code, str(corpus)], capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def generate(directory: Path, megabytes: int, log_lines: int) -> int:
    """Scaled demo sessions; ``log_lines`` sets the long tool outputs, and so the mean record size
    (300 lines gives about 3 KB per record, as in the shared Claude Code transcripts: 1.4 to 3.3 KB)."""
    from toolkit.demo import write

    per_session = sum(p.stat().st_size for p in write(directory / "probe", scale=1, log_lines=log_lines))
    sessions = max(1, megabytes * 1_000_000 // per_session + 1)
    paths = write(directory / "corpus", scale=sessions, log_lines=log_lines)
    return sum(p.stat().st_size for p in paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="corpus size to generate (MB)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; the best is kept")
    parser.add_argument("--log-lines", type=int, default=300, help="lines of each long tool output")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        size = generate(root, args.mb, args.log_lines)
        corpus = root / "corpus"
        base_times: list[float] = []
        tool_times: list[float] = []
        base_peak = tool_peak = messages = problems = records = 0
        for _ in range(args.repeat):
            fields = measure(BASELINE, corpus)
            base_times.append(float(fields[0]))
            records = int(fields[1])
            base_peak = max(base_peak, int(fields[2]))
            fields = measure(TOOLKIT, corpus)
            tool_times.append(float(fields[0]))
            messages, problems = int(fields[1]), int(fields[2])
            tool_peak = max(tool_peak, int(fields[3]))
        result = {
            "corpus_mb": round(size / 1e6, 1),
            "json_loads_s": round(min(base_times), 2),
            "toolkit_load_s": round(min(tool_times), 2),
            "ratio": round(min(tool_times) / min(base_times), 2),
            "target_ratio": 3.0,
            "messages": messages,
            "mean_record_bytes": round(size / max(1, records)),
            "problems": problems,
            "toolkit_peak_rss_mb": round(tool_peak / 1024, 1),
            "json_loads_peak_rss_mb": round(base_peak / 1024, 1),
        }
    print(json.dumps(result, indent=1))
    return 0 if min(tool_times) <= 3.0 * min(base_times) else 1


if __name__ == "__main__":
    sys.exit(main())
