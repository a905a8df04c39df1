"""The table of ``toolkit`` subcommands: the only place their names, modules and one-line help
are written (the parser lists them from here without importing their modules)."""

from __future__ import annotations

import argparse
from typing import NamedTuple


class Command(NamedTuple):
    """One subcommand: its name, the ``toolkit.cli`` module that registers it, its one-line help."""

    name: str
    module: str
    help: str


COMMANDS: tuple[Command, ...] = (
    Command("info", "info", "load a corpus and summarise it"),
    Command("import", "info", "load a corpus and save it as Parquet"),
    Command("corpora", "corpora", "list your own transcripts in their standard places"),
    Command("redact", "redact", "copy a corpus with secrets replaced by typed placeholders"),
    Command("fingerprint", "fingerprint", "print the sha256 of a tool surface"),
    Command("surfaces", "surfaces", "summarise the tool surfaces of a corpus"),
    Command("store", "store", "load a corpus into a transcript store (SQLite)"),
    Command("tree", "tree", "print session trees: branches, the tip, checkpoints"),
    Command("show", "show", "draw a session turn by turn as one offline HTML page"),
    Command("search", "search", "find blocks of a corpus by text, tool, error, model, session and time"),
    Command("costs", "costs", "token costs of images and text per provider and model"),
    Command("replay", "replay", "print the request body a wire would be sent for a session (or --all --check a corpus)"),
    Command("snapshot", "snapshot", "render text or a session's middle as glyph pages for a model"),
    Command("compactions", "compactions", "the compactions real clients made: context before and after, summary size"),
    Command("simulate", "simulate", "replay a corpus under compaction policies: cost, cache, what survives"),
    Command("experiment", "experiment", "ask a model for the next turn at frozen points under each replay mode"),
    Command("experiment-report", "experiment", "the experiment's table: call rates per mode and model"),
    Command("experiment-pages", "experiment_pages", "have a vision model transcribe glyph pages, scored by CER"),
    Command("report", "report", "execute the notebooks over a corpus into a self-contained HTML report"),
)
"""Subcommands in the order ``--help`` lists them."""


def help_for(name: str) -> str:
    """The one-line help of command ``name``: the table above is the only place it is written."""
    return next(entry.help for entry in COMMANDS if entry.name == name)


def _worker_count(text: str) -> int:
    """``--workers`` as the command line takes it: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers (0 for every core)")
    return value


def workers_option(parser: argparse.ArgumentParser) -> None:
    """``--workers`` and ``--engine``, as every command that reads or sweeps a corpus takes them."""
    from toolkit.workers import ENGINES

    parser.add_argument("--workers", type=_worker_count, default=None,
                        help="processes to use (default 1; 0: every core); with --engine ray, tasks in "
                             "flight (default: the cluster's CPUs)")
    parser.add_argument("--engine", choices=ENGINES, default="local",
                        help="local processes, or Ray tasks on the cluster RAY_ADDRESS names, else on a new "
                             "local instance (needs the ray extra: pip install -e '.[ray]')")


def require_path(path: str) -> None:
    """Refuse a corpus path that does not exist, so the command exits 2 instead of reporting an
    empty corpus (``load`` collects a missing path as a problem and carries on)."""
    from pathlib import Path

    from toolkit.errors import MissingPath

    if not Path(path).exists():
        raise MissingPath(f"{path}: no such file or directory")
