"""``benchmarks/RESULTS.md``: what the last ``make bench`` measured, where and when, so figures live
beside the code that produces them instead of in prose (the README and the guide link here)."""

from __future__ import annotations

import datetime
import importlib
import json
import os
import platform
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

FIGURE_WORDS = frozenset({"ratio", "vs", "speedup", "overhead", "target", "met", "within", "late", "same"})
"""A key one of whose words (split at ``_``) is one of these is a figure the results show (a ratio,
a speedup, its target, whether it was met); the rest of a benchmark's JSON (timings of each round,
sizes) stays in its own output. Whole words, so ``simulate_seconds`` and ``geometry`` are not
taken for ``late`` and ``met``."""


@dataclass(frozen=True)
class Outcome:
    """One benchmark's run: its name, exit status (0: every target met) and what it printed."""

    name: str
    returncode: int
    stdout: str


def last_json(text: str) -> object:
    """The last JSON value a benchmark printed (each prints one object, perhaps after progress lines),
    or ``None`` when it printed none."""
    decoder = json.JSONDecoder()
    found: object = None
    index = text.find("{")
    while index >= 0:
        try:
            found, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        index = text.find("{", end)
    return found


def figures(value: object, prefix: str = "") -> Iterator[tuple[str, object]]:
    """The key paths and values of ``value`` whose last key names a figure (``FIGURE_WORDS``)."""
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        path = f"{prefix}{key}"
        if isinstance(item, dict):
            yield from figures(item, f"{path}.")
        elif isinstance(item, (int, float, str, bool)) and FIGURE_WORDS & set(str(key).split("_")):
            yield path, item


def summary_of(name: str) -> str:
    """The first sentence of a benchmark module's docstring: what it measures against what."""
    doc = importlib.import_module(f"benchmarks.{name}").__doc__ or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[:end + 1]


def machine() -> str:
    """The machine the figures come from, as a reader needs it to compare them."""
    memory = ""
    if hasattr(os, "sysconf") and "SC_PHYS_PAGES" in os.sysconf_names:
        memory = f", {os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.0f} GiB"
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores{memory}, Python {platform.python_version()}"


def commit(root: Path) -> str:
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=False)
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


def render(outcomes: Sequence[Outcome], when: datetime.datetime, where: str, at: str,
           load: tuple[float, float] | None = None) -> str:
    """The Markdown page: one row per benchmark with its figures as printed, and the machine's
    1-minute load average at the start and the end of the run (``load``) when known: on a shared
    machine it says how far other work may have moved a ratio whose two sides ran apart."""
    busy = [] if load is None else [
        f"The 1-minute load average was {load[0]:.1f} at the start and {load[1]:.1f} at the end."]
    lines = [
        "# Benchmark results",
        "",
        f"Written by `make bench` (`python -m benchmarks`) on {when:%Y-%m-%d %H:%M} UTC at commit `{at}`, on {where}.",
        *busy,
        "Each benchmark compares the toolkit against a baseline run in the same process tree (a ratio), because",
        "the machines are shared and noisy; rerun `make bench` to replace this page.",
        "",
        "| benchmark | targets | figures |",
        "| --- | --- | --- |",
    ]
    for outcome in outcomes:
        shown = [f"`{key}` {json.dumps(value)}" for key, value in figures(last_json(outcome.stdout))]
        verdict = "met" if outcome.returncode == 0 else f"**missed** (exit {outcome.returncode})"
        what = summary_of(outcome.name).replace("``", "`").replace("|", "/")
        lines.append(f"| `{outcome.name}`: {what} | {verdict} | "
                     f"{'<br>'.join(shown) or 'no figures printed'} |")
    return "\n".join(lines) + "\n"


def load_average() -> float | None:
    """The 1-minute load average, where the system reports one."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def write(outcomes: Sequence[Outcome], path: Path, start_load: float | None = None) -> None:
    when = datetime.datetime.now(datetime.UTC)
    end_load = load_average()
    load = None if start_load is None or end_load is None else (start_load, end_load)
    path.write_text(render(outcomes, when, machine(), commit(path.parent), load), encoding="utf-8")
