"""The ``toolkit`` command: a thin shell over the library, one subcommand per capability.

Each subcommand lives in its own module beside this one and exposes ``register(subparsers)``,
which adds its parser and sets ``func`` to a callable taking the parsed arguments and returning
the exit code. Modules are imported only for the command being run: ``toolkit --help`` lists
the commands from the table in ``commands.py`` and imports none of them, so it starts as fast as Python does
(``benchmarks/bench_cli.py``)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import TYPE_CHECKING

from toolkit.cli.commands import COMMANDS, Command, help_for
from toolkit.errors import ToolkitError

if TYPE_CHECKING:
    from sys import UnraisableHookArgs


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with ``command``'s module (or, given ``None``, every module) fully registered;
    the other commands are listed by name and help only, so their modules are never imported."""
    parser = argparse.ArgumentParser(
        prog="toolkit", description="Research toolkit for the history an LLM agent carries between turns."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = {entry.module for entry in COMMANDS if command is None or entry.name == command}
    registered: set[str] = set()
    for entry in COMMANDS:
        if entry.module not in wanted:
            sub.add_parser(entry.name, help=entry.help)
        elif entry.module not in registered:
            importlib.import_module(f"toolkit.cli.{entry.module}").register(sub)
            registered.add(entry.module)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, if it names one we know (options before it are top-level)."""
    names = {entry.name for entry in COMMANDS}
    for word in argv:
        if not word.startswith("-"):
            return word if word in names else None
    return None


INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl-C: 128 + SIGINT, as a shell reports it."""
BROKEN_PIPE = 141
"""The exit code of a command whose reader closed standard output early (``toolkit info | head -1``):
128 + SIGPIPE, what a shell reports for a program SIGPIPE ended, as it ends ``cat`` or ``grep``
there. Not 0: under ``set -o pipefail`` a reader that stopped early is seen, as with those."""


class _Heard:
    """Whether a Ctrl-C reached this command. The ``KeyboardInterrupt`` it raises can surface inside
    a compiled extension's callback, which may turn it into another error (polars reports it as a
    ``TypeError`` about a data type) or swallow it; the flag is what the signal itself left."""

    sigint = False


def _hear_sigint(signum: int, frame: FrameType | None) -> None:
    _Heard.sigint = True
    signal.default_int_handler(signum, frame)


def _unraisable(previous: Callable[[UnraisableHookArgs], object]) -> Callable[[UnraisableHookArgs], None]:
    """``sys.unraisablehook`` while a command listens: a ``KeyboardInterrupt`` an extension swallowed
    (polars prints "Exception ignored in: 'DataTypeClass'" and its traceback) is the Ctrl-C the flag
    already holds, so it is not printed; anything else goes to ``previous``."""
    def hook(unraisable: UnraisableHookArgs) -> None:
        if not (_Heard.sigint and unraisable.exc_type is KeyboardInterrupt):
            previous(unraisable)

    return hook


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a ``ToolkitError`` it does not handle itself (bad input: a wrong name or
    value, a missing path, a file that cannot be read) is one line on standard error and exit code
    2, as argparse does for a bad option, so no subcommand catches errors only to print them. Ctrl-C
    is one line too, and exit code 130, not a traceback, whatever error it surfaced as and even when
    something swallowed it. A standard output its reader closed (``| head -1``) ends the command
    quietly with exit code 141 (``BROKEN_PIPE``), as SIGPIPE ends other programs of a pipeline."""
    try:
        try:
            code = _main(argv)
        except SystemExit:  # argparse's --help and usage errors: what they printed is flushed here
            sys.stdout.flush()
            raise
        sys.stdout.flush()  # here, not at exit, where a closed output is a message Python prints
    except BrokenPipeError:
        if not _stdout_closed():
            raise
        return _closed_stdout()
    return code


def program() -> int:
    """The ``toolkit`` program (its console script and ``python -m toolkit.cli``): ``main`` on this
    process's own arguments, then the interpreter's exit under ``_interrupt_exit``'s Ctrl-C, where a
    ``KeyboardInterrupt`` would be a traceback printed after the command's own output. Kept out of
    ``main``, which a caller may run in a process that goes on."""
    code = main()
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        _interrupt_exit(_command(sys.argv[1:]) or "", said=code == INTERRUPTED)
    return code


def _interrupt_exit(command: str, *, said: bool) -> None:
    """The command's work is done; what is left is the interpreter's exit (joining the worker pools'
    threads, multiprocessing releasing the semaphores it registered). A first Ctrl-C now changes
    nothing: the exit runs as usual, with the command's own code (cut short, the semaphores are left
    to the resource tracker, which warns of them after the command's last line). A second ends the
    process at once with 130, for an exit that hangs, saying so once (not again when the command was
    ``said`` to be interrupted already). The line goes out by ``os.write``: a handler may run inside
    a write to standard error, where ``print`` would fail as a reentrant call and never reach the exit."""
    line = f"toolkit {command}: interrupted\n".encode()
    heard: list[int] = []

    def late(signum: int, frame: FrameType | None) -> None:
        if not heard:
            heard.append(signum)
            return
        if not said:
            with contextlib.suppress(OSError):
                os.write(2, line)
        os._exit(INTERRUPTED)

    signal.signal(signal.SIGINT, late)


def _stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (the kernel reports an error on its
    write end): a broken pipe anywhere else (a FIFO named as output, a subprocess's pipe) is an error
    to show, not the end of a pipeline."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return False
    if not hasattr(select, "poll"):  # Windows: no poll, and no way to tell; the usual cause it is
        return True
    watch = select.poll()
    watch.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in watch.poll(0))


def _closed_stdout() -> int:
    """Standard output pointed at the null device, so that the flush at exit, which would fail
    again on the closed pipe, writes nowhere (the recipe of Python's ``signal`` documentation,
    "Note on SIGPIPE")."""
    with contextlib.suppress(OSError, ValueError):  # a stand-in without a descriptor (a test's capture)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    command = _command(words)
    parser = build_parser(command or "")
    args = parser.parse_args(words)
    _Heard.sigint = False
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    listening = previous is signal.default_int_handler  # not where the caller ignores or handles Ctrl-C
    hook = sys.unraisablehook
    if listening:
        signal.signal(signal.SIGINT, _hear_sigint)
        sys.unraisablehook = _unraisable(hook)
    try:
        code: int = args.func(args)
        workers = sys.modules.get("toolkit.workers")  # imported only by commands that start workers
        if workers is not None:
            workers.join_workers()
    except KeyboardInterrupt:
        return _interrupted(args.command)
    except Exception as exc:
        if _Heard.sigint:
            return _interrupted(args.command)
        if not isinstance(exc, ToolkitError):
            raise
        print(f"toolkit {args.command}: {exc}", file=sys.stderr)
        return 2
    finally:
        if listening:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sys.unraisablehook = hook
    return _interrupted(args.command) if _Heard.sigint else code


def _interrupted(command: str) -> int:
    print(f"toolkit {command}: interrupted", file=sys.stderr)
    return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["BROKEN_PIPE", "COMMANDS", "INTERRUPTED", "Command", "build_parser", "help_for", "main", "program"]
