"""The table of ``toolkit`` subcommands: the only place their names, modules and one-line help
are written (the parser lists them from here without importing their modules)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from toolkit.corpus import Corpus


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


def sending_options(parser: argparse.ArgumentParser, results: str) -> None:
    """What every command that asks a model through the official SDKs takes: where to send, the key's
    variable, the spend cap, the dry run, the results file (``results`` by default) and concurrency."""
    parser.add_argument("--base-url", help="an OpenAI-compatible server (Ollama: http://localhost:11434/v1) "
                        "or another endpoint for the wire's SDK")
    parser.add_argument("--api-key-env", metavar="NAME", help="the environment variable holding the key "
                        "(default: the SDK's own)")
    parser.add_argument("--max-cost", type=float, metavar="USD", help="stop asking once the reported spend (with an estimate for replies without usage) reaches it")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and its cost estimate; send nothing")
    parser.add_argument("-o", "--output", default=results, metavar="RESULTS",
                        help=f"the results JSONL, appended to (default {results})")
    parser.add_argument("--concurrency", type=int, default=4, metavar="K", help="requests in flight (default 4)")
    parser.add_argument("--max-retries", type=int, default=2, help="the SDK's own retries (default 2)")


def require_path(path: str) -> None:
    """Refuse a corpus path that does not exist, so the command exits 2 instead of reporting an
    empty corpus (``load`` collects a missing path as a problem and carries on)."""
    from pathlib import Path

    from toolkit.errors import MissingPath

    if not Path(path).exists():
        raise MissingPath(f"{path}: no such file or directory")


def read_corpus(path: str, **options: Any) -> Corpus:
    """The corpus at ``path`` for a command that needs sessions (``options`` go to ``load``): a
    missing path, an empty folder or files of no format the toolkit reads are one line and exit 2,
    the same in every command, naming what was found instead of a session."""
    from toolkit.corpus import load
    from toolkit.errors import NoSession

    require_empty_folder_refused(path)
    corpus = load(path, **options)
    if corpus.sessions:
        return corpus
    if not corpus.files and not corpus.problems:
        raise NoSession(nothing_to_read(path))
    first = corpus.problems[0].reason if corpus.problems else "no session in them"
    files = len(corpus.files)
    more = f"; `toolkit info {path}` lists all {len(corpus.problems)} problems" if len(corpus.problems) > 1 else ""
    where = f"in {files} file{'' if files == 1 else 's'}" if files else "read"
    raise NoSession(f"{path}: no session {where} (first: {first}){more}")


def nothing_to_read(path: str) -> str:
    """Why a load read no file: the folder is empty, or its files are none a format reads by name
    (a folder load skips images, documents and the like)."""
    from pathlib import Path

    skipped = sum(1 for found in Path(path).rglob("*") if found.is_file()) if Path(path).is_dir() else 0
    if not skipped:
        return f"{path}: no file to read"
    return (f"{path}: no transcript among its {skipped} file{'' if skipped == 1 else 's'} (a folder load skips "
            "files no format reads by their names; name one file to read it anyway)")


def require_empty_folder_refused(path: str) -> None:
    """``require_path``, and a folder with no file in it refused before any load starts (and shows a
    progress bar over nothing)."""
    from pathlib import Path

    from toolkit.errors import NoSession

    require_path(path)
    folder = Path(path)
    if folder.is_dir() and not any(found.is_file() for found in folder.rglob("*")):
        raise NoSession(nothing_to_read(path))


def python_answers_ctrl_c() -> None:
    """Put Python's SIGINT handler back in front of the one polars installs as it loads. polars stops
    the work it is doing at a Ctrl-C by a Rust panic, which prints itself, with a backtrace where
    ``RUST_BACKTRACE`` is set, after the one line a Ctrl-C gives. A command's polars work is done a
    slice at a time, so Python's handler, which stops it between two slices, is all it needs. Call
    it once the command has loaded polars."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.getsignal(signal.SIGINT))
