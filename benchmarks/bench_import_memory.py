"""Memory of ``toolkit import`` and ``toolkit info`` of one large file (issue 31: import of one 403 MB
file took 2.7 GB, about 6.7 times its size). Three files are made from real transcripts of
``../shared/corpora``, each about ``--mb`` megabytes: a Claude Code transcript repeated with fresh
uuids in every copy (so no record is dropped as a repeat), a Codex rollout whose items are repeated
after its one ``session_meta``, and the same rollout with its words in CJK ideographs. Each command
runs in its own process, watched by a fresh interpreter that reads its peak resident memory
(``RUSAGE_CHILDREN``).

What is judged is the growth: each command's peak less that of the same command on a one-line
file (the interpreter and the libraries it loads: ``import`` loads polars, and for a part too large
for one row group pyarrow's Parquet writer, loaded beforehand for the one-line import), over the
file's size. Target: import within 2x.

Run: ``python -m benchmarks.bench_import_memory [--mb 300] [--keep DIR]``. Prints one JSON object and
exits 1 when the target is missed."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"
CLAUDE_CODE = CORPORA / "claude_code" / "viewer_v1.0.98_orchestrator_sidechains.jsonl"
CODEX = CORPORA / "codex" / "rps3_cli0.47.0_compacted.jsonl"

TARGET = 2.0
"""Peak memory growth of an import over the file's size, at most (issue 31)."""

WATCH = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
"""Runs a command and prints its peak resident memory in KiB (Linux counts ``ru_maxrss`` in KiB)."""


def claude_code(out: Path, size: int) -> None:
    """The Claude Code transcript repeated to ``size`` bytes, each copy's uuids made its own."""
    lines = CLAUDE_CODE.read_text(encoding="utf-8").splitlines()
    written = copy = 0
    with out.open("w", encoding="utf-8") as handle:
        while written < size:
            for line in lines:
                record = json.loads(line)
                for key in ("uuid", "parentUuid", "leafUuid"):
                    if isinstance(record.get(key), str):
                        record[key] = f"{record[key][:-6]}{copy:06d}"
                text = json.dumps(record, ensure_ascii=False) + "\n"
                handle.write(text)
                written += len(text.encode("utf-8"))
            copy += 1


def codex(out: Path, size: int) -> None:
    """The Codex rollout's items repeated to ``size`` bytes after its one ``session_meta`` line."""
    _repeated(CODEX.read_bytes().splitlines(keepends=True), out, size)


IDEOGRAPHS = {letter: chr(0x4E00 + letter) for letter in range(ord("a"), ord("z") + 1)}
"""Each lower-case letter as a CJK ideograph: text that Python holds at two bytes a character."""


def codex_cjk(out: Path, size: int) -> None:
    """``codex`` with the words people and the model wrote (messages, reasoning summaries, tool
    outputs) in ideographs, as a session in Chinese would have them: the case where a writer that
    leaves each string it writes holding its UTF-8 form (orjson) costs most."""
    lines = []
    for line in CODEX.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
        parts = [part for key in ("content", "summary") if isinstance(payload.get(key), list) for part in payload[key]]
        for part in parts:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                part["text"] = part["text"].translate(IDEOGRAPHS)
        for key in ("output", "message"):
            if isinstance(payload.get(key), str):
                payload[key] = payload[key].translate(IDEOGRAPHS)
        lines.append((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    _repeated(lines, out, size)


def _repeated(lines: list[bytes], out: Path, size: int) -> None:
    """The first line, then the others repeated until ``size`` bytes are written."""
    first, *items = lines
    with out.open("wb") as handle:
        handle.write(first)
        written = len(first)
        while written < size:
            for item in items:
                handle.write(item)
                written += len(item)


PRELOADED = "import runpy, sys, {0}; sys.argv[0] = 'toolkit'; runpy.run_module('toolkit.cli', run_name='__main__')"
"""``python -m toolkit.cli`` with a module loaded first."""


def peak_kib(*command: str, preload: str | None = None) -> int:
    """Peak resident memory, in KiB, of ``toolkit COMMAND`` in a fresh interpreter (having loaded
    ``preload`` first)."""
    start = ["-m", "toolkit.cli"] if preload is None else ["-c", PRELOADED.format(preload)]
    done = subprocess.run([sys.executable, "-c", WATCH, sys.executable, *start, *command],
                          capture_output=True, text=True, check=True, cwd=REPO)
    return int(done.stdout.split()[-1])


def measure(directory: Path, megabytes: int) -> dict[str, Any]:
    tiny = directory / "tiny.jsonl"
    tiny.write_bytes(CODEX.read_bytes().split(b"\n", 1)[0] + b"\n")
    base_import = peak_kib("import", str(tiny), "-o", str(directory / "tiny-saved"), preload="pyarrow.parquet")
    base_info = peak_kib("info", str(tiny))
    found: dict[str, Any] = {"base_import_peak_mb": round(base_import / 1024),
                             "base_info_peak_mb": round(base_info / 1024), "files": {}}
    ratios = []
    for name, make in (("claude_code", claude_code), ("codex", codex), ("codex_cjk", codex_cjk)):
        path = directory / f"{name}.jsonl"
        make(path, megabytes * 1_000_000)
        size = path.stat().st_size
        imported = peak_kib("import", str(path), "-o", str(directory / f"{name}-saved"))
        info = peak_kib("info", str(path))
        ratio = (imported - base_import) * 1024 / size
        ratios.append(ratio)
        found["files"][name] = {"file_mb": round(size / 1e6), "import_peak_mb": round(imported / 1024),
                                "info_peak_mb": round(info / 1024), "import_growth_ratio": round(ratio, 2),
                                "info_growth_ratio": round((info - base_info) * 1024 / size, 2)}
    found["target_ratio"] = TARGET
    found["met"] = max(ratios) <= TARGET
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=300, help="size of each file (default 300 MB)")
    parser.add_argument("--keep", type=Path, default=None, help="write the files here and keep them")
    args = parser.parse_args()
    if not (CLAUDE_CODE.is_file() and CODEX.is_file()):
        print(json.dumps({"skipped": "../shared/corpora is absent"}))
        return 0
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = measure(args.keep, args.mb)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-import-memory-") as scratch:
            result = measure(Path(scratch), args.mb)
    print(json.dumps(result))
    return 0 if result["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
