"""Benchmarks: each compares the toolkit against a baseline measured in the same run (a ratio),
because the machines they run on are shared and noisy."""

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(repeat: int, run: Callable[[], T]) -> tuple[float, T]:
    """The fastest of ``repeat`` runs (the least disturbed by the rest of the machine) and what
    the last run returned."""
    best = float("inf")
    while True:
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
        repeat -= 1
        if repeat <= 0:
            return best, result
