"""Replay throughput per wire, as a ratio to serialising the same output with the standard json module.

For each wire, every session of the corpus is replayed in every mode (``toolkit.replay.request``:
the fold over the path, the wire's spelling, and the canonical bytes), and the bodies it returned
are serialised again with ``json.dumps`` in the same run. The ratio is replay time over that
serialisation time: how much a replay costs beyond writing its own output. Target: at most 3x.

Run: ``python -m benchmarks.bench_replay [--corpus PATH] [--repeat 3]``. Prints one JSON object;
exits 1 (naming the wires on stderr) when any wire is over the target."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks import best_of
from toolkit.replay import MODES, WIRES, request

TARGET = 3.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    here = Path(__file__).resolve().parents[1]
    default = here.parent / "shared" / "corpora"
    parser.add_argument("--corpus", type=Path, default=default if default.is_dir() else here / "data")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    from toolkit.corpus import load

    corpus = load(args.corpus, progress=False)
    sessions = corpus.sessions
    rows: dict[str, dict[str, Any]] = {}
    for wire in WIRES:
        def replay(wire: str = wire) -> list[Any]:
            return [request(s, wire=wire, mode=mode, images=corpus.images) for s in sessions for mode in MODES]

        replay_time, requests = best_of(args.repeat, replay)
        bodies = [r.body for r in requests]

        def serialise(bodies: list[Any] = bodies) -> int:
            return sum(len(json.dumps(b, ensure_ascii=False, separators=(",", ":"))) for b in bodies)

        json_time, _ = best_of(args.repeat, serialise)
        size = sum(len(r.bytes) for r in requests)
        ratio = replay_time / json_time
        rows[wire] = {
            "requests": len(requests), "megabytes": round(size / 1e6, 2),
            "replay_seconds": round(replay_time, 4), "json_seconds": round(json_time, 4),
            "ratio": round(ratio, 2), "replay_mb_per_s": round(size / 1e6 / replay_time, 1),
            "within_target": ratio <= TARGET,
        }
    print(json.dumps({"corpus": str(args.corpus), "sessions": len(sessions), "target_ratio": TARGET,
                      "wires": rows}, indent=2))
    missed = [f"{wire} ({row['ratio']}x)" for wire, row in rows.items() if not row["within_target"]]
    if missed:
        print(f"bench_replay: over the {TARGET}x target: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
