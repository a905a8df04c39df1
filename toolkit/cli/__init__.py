"""The ``toolkit`` command: a thin shell over the library, one subcommand per capability.

Each subcommand lives in its own module beside this one and exposes ``register(subparsers)``,
which adds its parser and sets ``func`` to a callable taking the parsed arguments and returning
the exit code."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS: tuple[str, ...] = (
    "info",
    "fingerprint",
    "surfaces",
    "store",
    "tree",
    "costs",
    "replay",
    "snapshot",
)
"""Subcommand modules of ``toolkit.cli``, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolkit", description="Research toolkit for the history an LLM agent carries between turns."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"toolkit.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
