"""RapidOCR on one thread against ONNX Runtime's default thread pool, quiet and beside busy cores.

The toolkit's reader (``toolkit.snapshot.readers``) runs RapidOCR's recogniser with one intra-op
thread. The default pool starts a thread per core that spins while it waits for work; beside other
work (a test run's second worker, a notebook kernel beside its client) those threads fight for the
cores. Both engines read the same rows of a 4x6 page, in turn, alone and then beside one process per
core spinning; the ratio of their times in the same run is the figure (the machines are shared).
Both must read every row alike, or the setting changed what is measured.

Run: ``python -m benchmarks.bench_ocr [--rows N] [--repeat R]``. Prints one JSON object; exits 1
when one thread is slower than the pool beside the busy cores.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.legibility import shown
from toolkit.snapshot.readers import enlarge, sample_rows, strips
from toolkit.snapshot.render import render

REPO = Path(__file__).resolve().parents[1]


def _spin() -> None:
    while True:
        pass


@contextmanager
def busy(cores: int) -> Iterator[None]:
    """One process per core, spinning until the block ends."""
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(cores)]
    for process in spinners:
        process.start()
    try:
        yield
    finally:
        for process in spinners:
            process.terminate()
            process.join()


def crops(rows: int) -> list[Any]:
    """Row images as the reader hands them to the recogniser: a 4x6 page of the README's text."""
    text = (REPO / "README.md").read_text(encoding="utf-8")[:40_000]
    geometry = Geometry("4x6", 1536, 1536, columns=2)
    pages = render(text, geometry)
    cut = sample_rows([s for page in pages for s in strips(page, shown(page, geometry.size))], rows)
    return [np.asarray(enlarge(s.row(i), s.pitch).convert("RGB"))[:, :, ::-1]
            for s in cut for i, line in enumerate(s.lines) if line.strip()]


def timed(engine: Any, images: list[Any], repeat: int) -> tuple[float, list[str]]:
    best, texts = float("inf"), []
    for _ in range(repeat):
        start = time.perf_counter()
        results, _elapsed = engine.text_rec(images)
        best = min(best, time.perf_counter() - start)
        texts = [str(text) for text, _score in results]
    return best, texts


def main(argv: Sequence[str] | None = None) -> int:
    from rapidocr_onnxruntime import RapidOCR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=24)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    images = crops(args.rows)
    engines = {"one_thread": RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1), "pool": RapidOCR()}
    for engine in engines.values():
        engine.text_rec(images[:2])
    result: dict[str, Any] = {"benchmark": "bench_ocr", "rows": len(images), "cores": os.cpu_count()}
    readings = []
    for label, cores in (("quiet", 0), ("busy", os.cpu_count() or 1)):
        with busy(cores):
            for name, engine in engines.items():
                seconds, texts = timed(engine, images, args.repeat)
                result[f"{label}_{name}_s"] = round(seconds, 3)
                readings.append(texts)
        result[f"{label}_ratio"] = round(result[f"{label}_one_thread_s"] / result[f"{label}_pool_s"], 3)
    result["same_reading"] = all(texts == readings[0] for texts in readings)
    result["target"] = "one thread no slower than the pool beside busy cores, and the same reading"
    print(json.dumps(result))
    return 0 if result["same_reading"] and result["busy_ratio"] <= 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
